//! `abbe transform-key`: a user key split into a transformation key and a
//! retrieval key.

use crate::dispatch::scheme_for;
use crate::keyfile::read_object;
use crate::{keyfile, Result};
use abbe::wire::ObjectKind;
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    key: PathBuf,
    #[arg(long)]
    tk: PathBuf,
    #[arg(long)]
    rk: PathBuf,
    /// Write both keys as ASCII armor.
    #[arg(long)]
    armor: bool,
    /// Protect the retrieval key with a passphrase (the transformation key goes to the proxy).
    #[arg(long)]
    passphrase: bool,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        key,
        tk,
        rk,
        armor,
        passphrase,
    } = args;
    let (pre, bytes) = read_object(&key, &[ObjectKind::UserKey])?;
    let rk_out = keyfile::KeyOut::new(armor, passphrase, &rk.display().to_string())?;
    let (tkb, rkb) = scheme_for(&pre)?.transform_key(&bytes, &mut OsRng)?;
    let tkb = zeroize::Zeroizing::new(tkb);
    rk_out.write_secret(&rk, &rkb)?;
    // The transformation key is for the proxy: never passphrase-protected.
    keyfile::KeyOut::new(armor, false, "")?.write_secret(&tk, &tkb)
}
