//! `abbe setup`: a public key and a master key.

use crate::dispatch::{parse_scheme, parse_universe, scheme_for};
use crate::{keyfile, progress, CliError, Result};
use abbe::kem::SetupParams;
use abbe::wire::{ObjectKind, Preamble};
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The scheme (`abbe schemes` lists them, with the setup parameters
    /// each takes; broken ones need --insecure-benchmark-only).
    #[arg(long, default_value = "waters11")]
    scheme: String,
    /// Attribute universe for small-universe schemes, e.g. "doctor, nurse,
    /// cardiology".
    #[arg(long)]
    universe: Option<String>,
    /// Number of users N, for broadcast and traitor-tracing schemes
    /// (default 1024).
    #[arg(long)]
    users: Option<u32>,
    /// The largest recipient set ℓ of an identity-based broadcast setup
    /// (default 1024): its public key is O(ℓ).
    #[arg(long, value_name = "L")]
    max_recipients: Option<u32>,
    /// The user-expansion parameter a ∈ [0, 1] of Zhandry's broadcast-and-
    /// trace (e.g. 1/3, 1/2, 2/3; default 1/2): ciphertexts of N^a blocks,
    /// keys and public key of N^{1−a}.
    #[arg(long, value_name = "A", value_parser = parse_fraction)]
    expansion: Option<f64>,
    /// Security level: 100 (BN254 + AES-128-GCM), 128 (BLS12-381 +
    /// AES-256-GCM, the default), 192 (BLS24-479 + AES-192-GCM), 256
    /// (BLS48-581 + AES-256-GCM).
    #[arg(long, conflicts_with = "curve")]
    level: Option<u32>,
    /// For experts: the pairing curve (bn254, bls12-381, bls24-479,
    /// bls48-581); the AES key size follows the curve's level.
    #[arg(long)]
    curve: Option<String>,
    /// Which operation the placement of G1 and G2 favours: decrypt (phones,
    /// the outsourcing proxy) or encrypt (sensors; also key generation).
    /// Recorded in the public key and every object made from it; `abbe
    /// inspect` shows it. Default: the scheme's own placement (`abbe
    /// schemes` lists which operation each placement favours).
    #[arg(long, value_parser = ["decrypt", "encrypt"])]
    optimize: Option<String>,
    /// For experts: the placement itself, standard (as the scheme's paper
    /// file places its elements) or swapped (G1 and G2 exchanged).
    #[arg(long, value_parser = ["standard", "swapped"], conflicts_with = "optimize")]
    placement: Option<String>,
    /// Directory to write public.key and master.key into.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite existing key files.
    #[arg(short = 'f', long)]
    force: bool,
    /// Write both keys as ASCII armor (BEGIN ABBE ... KEY).
    #[arg(long)]
    armor: bool,
    /// Protect master.key with a passphrase (from $ABBE_PASSPHRASE_FILE or the terminal).
    #[arg(long)]
    passphrase: bool,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        scheme,
        universe,
        users,
        max_recipients,
        expansion,
        level,
        curve,
        optimize,
        placement,
        out,
        force,
        armor,
        passphrase,
    } = args;
    let scheme = parse_scheme(&scheme)?;
    // The ElGamal baseline lives on NIST P-256, not on a pairing curve.
    let curve = abbe::facade::setup_curve(scheme, level, curve.as_deref())
        .map_err(|e| CliError::Other(e.to_string()))?;
    let optimize = optimize
        .as_deref()
        .map(abbe::facade::Optimize::from_name)
        .transpose()
        .map_err(|e| CliError::Other(e.to_string()))?;
    let placement = placement
        .as_deref()
        .map(|p| {
            abbe::curve::Placement::from_name(p).ok_or_else(|| {
                CliError::Other(format!(
                    "unknown placement '{p}' (expected standard or swapped)"
                ))
            })
        })
        .transpose()?;
    let curve = if optimize.is_some() || placement.is_some() {
        abbe::facade::placed_curve(scheme, curve, optimize, placement)
            .map_err(|e| CliError::Other(e.to_string()))?
    } else {
        curve
    };
    let facade = scheme_for(&Preamble::new(ObjectKind::PublicKey, scheme, curve))?;
    let params = SetupParams {
        users,
        universe: universe.as_deref().map(parse_universe).transpose()?,
        max_recipients,
        expansion,
    };
    std::fs::create_dir_all(&out)
        .map_err(|e| CliError::Other(format!("cannot create {}: {e}", out.display())))?;
    let pk_path = out.join("public.key");
    let mk_path = out.join("master.key");
    let overwrite = crate::io::Overwrite::checked(force, [&pk_path, &mk_path])?;
    let keys = keyfile::KeyOut::new(armor, passphrase, &mk_path.display().to_string(), overwrite)?;
    // Every path refuses the parameters this scheme has no use for.
    facade
        .info()
        .params
        .refuse_others(&params)
        .map_err(|e| CliError::Other(e.to_string()))?;
    // The public key goes to its file as it is made: an O(N) broadcast key
    // is never whole in memory.
    let pb = users
        .filter(|n| *n >= progress::MIN_USERS)
        .map(|n| progress::bytes_spinner(format!("setup of {} for {n} users", scheme.name())));
    let mk = keys.write_public_streamed(&pk_path, |sink| {
        let mut counted = |piece: &[u8]| {
            if let Some(pb) = &pb {
                pb.inc(piece.len() as u64);
            }
            sink(piece)
        };
        Ok(facade.setup_streamed(&params, &mut OsRng, &mut counted)?)
    });
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    keys.write_secret(&mk_path, &mk?)?;
    eprintln!(
        "abbe: wrote {} and {} (keep the master key secret)",
        pk_path.display(),
        mk_path.display()
    );
    Ok(())
}

/// `2/3` or `0.667`: a number in [0, 1].
fn parse_fraction(text: &str) -> std::result::Result<f64, String> {
    let value = match text.split_once('/') {
        Some((a, b)) => {
            let (a, b): (f64, f64) = (
                a.trim()
                    .parse()
                    .map_err(|_| format!("not a fraction: {text}"))?,
                b.trim()
                    .parse()
                    .map_err(|_| format!("not a fraction: {text}"))?,
            );
            a / b
        }
        None => text
            .trim()
            .parse()
            .map_err(|_| format!("not a number: {text}"))?,
    };
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{text} is not in [0, 1]"))
    }
}
