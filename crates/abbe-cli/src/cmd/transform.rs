//! `abbe transform`: a ciphertext partially decrypted with a
//! transformation key (what a proxy runs).

use crate::dispatch::check_same_setup;
use crate::keyfile::read_object;
use crate::{io, CliError, Result};
use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble};
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
    let (pre, bytes) = read_object(&tk, &[ObjectKind::TransformationKey])?;
    let mut reader = io::open_ciphertext(input.as_ref(), "transforming")?;
    let head = envelope::read_head(&mut reader)?;
    if head.preamble.kind != ObjectKind::EncryptedFile {
        return Err(CliError::Invalid(
            "this ciphertext is already transformed".into(),
        ));
    }
    let hpre = Preamble::parse(&head.header)?;
    check_same_setup(&pre, &hpre, "transformation key")?;
    let transformed = abbe::facade::transform_bytes(&bytes, &head.header)?;
    io::with_output(output.as_ref(), io::Secrecy::Public, overwrite, |w| {
        io::maybe_armored(w, armor, ObjectKind::TransformedFile, |w| {
            envelope::write_transformed(&head, &transformed, reader, w)?;
            Ok(())
        })
    })
}
