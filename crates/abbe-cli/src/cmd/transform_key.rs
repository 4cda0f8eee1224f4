//! `abbe transform-key`: a user key split into a transformation key and a
//! retrieval key.

use crate::dispatch::scheme_for;
use crate::keyfile::read_object_unprotecting;
use crate::{io, keyfile, Result};
use abbe::wire::ObjectKind;
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The user key to split (kept as it is).
    #[arg(short = 'k', long)]
    key: PathBuf,
    /// Where to write the transformation key, for the proxy (never
    /// passphrase-protected: the proxy uses it unattended).
    #[arg(long)]
    tk: PathBuf,
    /// Where to write the retrieval key, which finishes decryption and
    /// stays with the user.
    #[arg(long)]
    rk: PathBuf,
    /// Write both keys as ASCII armor.
    #[arg(long)]
    armor: bool,
    /// Protect the retrieval key with a new passphrase. Without it, the
    /// retrieval key of a passphrase-protected user key is protected with
    /// that key's passphrase.
    #[arg(long, conflicts_with = "no_passphrase")]
    passphrase: bool,
    /// Write the retrieval key unprotected even when the user key is
    /// protected.
    #[arg(long)]
    no_passphrase: bool,
    /// Overwrite existing output files.
    #[arg(short = 'f', long)]
    force: bool,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        key,
        tk,
        rk,
        armor,
        passphrase,
        no_passphrase,
        force,
    } = args;
    let overwrite = io::Overwrite::checked(force, [&tk, &rk])?;
    let (pre, bytes, key_pass) = read_object_unprotecting(&key, &[ObjectKind::UserKey])?;
    let rk_out = match key_pass {
        Some(pass) if !passphrase && !no_passphrase => {
            eprintln!(
                "abbe: {} is protected with the passphrase of {}",
                rk.display(),
                key.display()
            );
            keyfile::KeyOut::with_passphrase(armor, Some(pass), overwrite)
        }
        _ => keyfile::KeyOut::new(armor, passphrase, &rk.display().to_string(), overwrite)?,
    };
    let (tkb, rkb) = scheme_for(&pre)?.transform_key(&bytes, &mut OsRng)?;
    let tkb = zeroize::Zeroizing::new(tkb);
    rk_out.write_secret(&rk, &rkb)?;
    keyfile::KeyOut::with_passphrase(armor, None, overwrite).write_secret(&tk, &tkb)
}
