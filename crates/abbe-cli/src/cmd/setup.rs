//! `abbe setup`: a public key and a master key.

use crate::dispatch::{parse_scheme, parse_universe, scheme_for};
use crate::keyfile::refuse_overwrite;
use crate::{broadcast, keyfile, progress, CliError, Result};
use abbe::kem::SetupParams;
use abbe::wire::{ObjectKind, Preamble, SchemeId};
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The scheme: waters11, bsw07, fame-cp (ciphertext-policy); gpsw06,
    /// gpsw06-small, fame-kp (key-policy); yct14 (BROKEN, needs
    /// --insecure-benchmark-only).
    #[arg(long, default_value = "waters11")]
    scheme: String,
    /// Attribute universe for small-universe schemes (gpsw06-small, yct14),
    /// e.g. "doctor, nurse, cardiology".
    #[arg(long)]
    universe: Option<String>,
    /// Number of users N, for broadcast schemes (bgw05, bgw05-sqrt, gw09,
    /// waters09, elgamal-p256; default 1024).
    #[arg(long)]
    users: Option<u32>,
    /// Security level: 100 (BN254 + AES-128-GCM), 128 (BLS12-381 +
    /// AES-256-GCM, the default), 192 (BLS24-479 + AES-192-GCM), 256
    /// (BLS48-581 + AES-256-GCM).
    #[arg(long, conflicts_with = "curve")]
    level: Option<u32>,
    /// For experts: the pairing curve (bn254, bls12-381, bls24-479,
    /// bls48-581); the AES key size follows the curve's level.
    #[arg(long)]
    curve: Option<String>,
    /// Directory to write public.key and master.key into.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite existing key files.
    #[arg(long)]
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
        level,
        curve,
        out,
        force,
        armor,
        passphrase,
    } = args;
    let scheme = parse_scheme(&scheme)?;
    // The ElGamal baseline lives on NIST P-256, not on a pairing curve.
    let curve = abbe::facade::setup_curve(scheme, level, curve.as_deref())
        .map_err(|e| CliError::Other(e.to_string()))?;
    let facade = scheme_for(&Preamble::new(ObjectKind::PublicKey, scheme, curve))?;
    let params = SetupParams {
        users,
        universe: universe.as_deref().map(parse_universe).transpose()?,
    };
    std::fs::create_dir_all(&out)
        .map_err(|e| CliError::Other(format!("cannot create {}: {e}", out.display())))?;
    let pk_path = out.join("public.key");
    let mk_path = out.join("master.key");
    refuse_overwrite(&[&pk_path, &mk_path], force)?;
    let keys = keyfile::KeyOut::new(armor, passphrase, &mk_path.display().to_string())?;
    if let (Some(n), SchemeId::Bgw05) = (users, scheme) {
        // BGW05's public key is linear in N (128 MB at N = 10^6 on
        // BN254): stream it to disk instead of building it in memory.
        return broadcast::bgw05_streamed_setup(curve, n, &pk_path, &mk_path, &keys);
    }
    let pb = users
        .filter(|n| *n >= progress::MIN_USERS)
        .map(|n| progress::spinner(format!("setup of {} for {n} users", scheme.name())));
    let setup = facade.setup(&params, &mut OsRng);
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let (pk, mk) = setup?;
    keys.write_secret(&mk_path, &mk)?;
    keys.write_public(&pk_path, &pk)?;
    eprintln!(
        "abbe: wrote {} and {} (keep the master key secret)",
        pk_path.display(),
        mk_path.display()
    );
    Ok(())
}
