//! `abbe signer-keygen`: a BLS signing key and its verifying key.

use crate::dispatch::pick_curve;
use crate::keyfile::default_public_path;
use crate::{keyfile, CliError, Result};
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Security level (100, 128, 192, 256): must match the level of the
    /// public keys you encrypt to.
    #[arg(long, conflicts_with = "curve")]
    level: Option<u32>,
    /// For experts: the pairing curve.
    #[arg(long)]
    curve: Option<String>,
    /// The signing key file, e.g. owner.sig.key.
    #[arg(short = 'o', long)]
    output: PathBuf,
    /// The verifying key file (default: the signing key's name with .pub
    /// for .key, e.g. owner.sig.pub).
    #[arg(long)]
    public: Option<PathBuf>,
    /// Overwrite existing key files.
    #[arg(short = 'f', long)]
    force: bool,
    /// Write both keys as ASCII armor.
    #[arg(long)]
    armor: bool,
    /// Protect the signing key with a passphrase (from $ABBE_PASSPHRASE_FILE or the terminal).
    #[arg(long)]
    passphrase: bool,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        level,
        curve,
        output,
        public,
        force,
        armor,
        passphrase,
    } = args;
    let curve = pick_curve(level, curve.as_deref())?;
    let public = public.unwrap_or_else(|| default_public_path(&output));
    if public == output {
        return Err(CliError::Other(
            "the verifying key would overwrite the signing key: pass --public".into(),
        ));
    }
    let overwrite = crate::io::Overwrite::checked(force, [&output, &public])?;
    let keys = keyfile::KeyOut::new(armor, passphrase, &output.display().to_string(), overwrite)?;
    let (sk, vk) = abbe::signature::AnySigningKey::generate(curve, &mut OsRng)?;
    keys.write_secret(&output, &sk)?;
    keys.write_public(&public, &vk)?;
    let (c, pk) = abbe::signature::verifying_key_point(&vk)?;
    eprintln!(
        "abbe: wrote {} (secret) and {}; fingerprint {}",
        output.display(),
        public.display(),
        abbe::signature::fingerprint(c, &pk)
    );
    Ok(())
}
