//! `abbe transform`: a ciphertext partially decrypted with a
//! transformation key (what a proxy runs).

use crate::keyfile::read_object;
use crate::{io, Result};
use abbe::wire::ObjectKind;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The transformation key (`abbe transform-key --tk`).
    #[arg(long)]
    tk: PathBuf,
    /// Write the transformed file as ASCII armor.
    #[arg(long)]
    armor: bool,
    /// Output file (default: stdout).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(short = 'f', long)]
    force: bool,
    /// The ciphertext, encrypted with `--mode rcca` (or cpa); armored or
    /// binary (default: stdin).
    input: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        tk,
        armor,
        output,
        force,
        input,
    } = args;
    let overwrite = io::Overwrite::checked(force, &output)?;
    io::refuse_binary_to_terminal(output.as_ref(), armor, "a binary transformed file")?;
    let (_, bytes) = read_object(&tk, &[ObjectKind::TransformationKey])?;
    let reader = io::open_ciphertext(input.as_ref(), "transforming")?;
    io::with_output(output.as_ref(), io::Secrecy::Public, overwrite, |w| {
        io::maybe_armored(w, armor, ObjectKind::TransformedFile, |w| {
            Ok(abbe::facade::transform(&bytes, reader, w)?)
        })
    })
}
