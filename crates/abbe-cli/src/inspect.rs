//! `abbe inspect`: what a file is — never its secret material.

use crate::{io, CliError, Result};
use abbe::armor::{self, ArmorError};
use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Write as _};
use std::path::Path;
use zeroize::Zeroizing;

pub fn run(path: &Path) -> Result<()> {
    let mut o = String::new();
    describe(path, &mut o)?;
    // A closed pipe (`abbe inspect f | head`) is not an error.
    match std::io::stdout().lock().write_all(o.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Other(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

fn describe(path: &Path, o: &mut String) -> Result<()> {
    let f = File::open(path)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let (mut f, armored) = io::dearmor_if_armored(Box::new(f))?;
    let invalid = |e: std::io::Error| match ArmorError::from_io(&e) {
        Some(a) => CliError::Invalid(format!("{}: {a}", path.display())),
        None => CliError::Other(format!("cannot read {}: {e}", path.display())),
    };
    let mut pre = [0u8; 8];
    f.read_exact(&mut pre).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            CliError::Invalid(format!("{}: too short to be an abbe file", path.display()))
        }
        _ => invalid(e),
    })?;
    let p = Preamble::parse(&pre)?;
    let mut fields = vec![("file".to_string(), path.display().to_string())];
    fields.extend(abbe::inspect::preamble_fields(&p, pre[4]));
    fields.push(("size".into(), format!("{size} bytes")));
    if armored {
        fields.push((
            "armor".into(),
            format!("ASCII (-----BEGIN ABBE {}-----)", armor::label(p.kind)),
        ));
    }
    match p.kind {
        ObjectKind::EncryptedFile | ObjectKind::TransformedFile => {
            let mut rest = std::io::Cursor::new(pre).chain(f);
            let head = envelope::read_head(&mut rest)?;
            let payload = if armored {
                // Decoding to the end also checks the armor.
                std::io::copy(&mut rest, &mut std::io::sink()).map_err(invalid)?
            } else {
                size.saturating_sub(head.encoded_len() as u64)
            };
            fields.extend(abbe::inspect::head_fields(&head, Some(payload))?);
        }
        _ => {
            let mut bytes = Zeroizing::new(pre.to_vec());
            f.take(64 << 20).read_to_end(&mut bytes).map_err(invalid)?;
            fields.extend(
                abbe::inspect::object_fields(&bytes)
                    .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?,
            );
        }
    }
    for (k, v) in fields {
        let _ = writeln!(o, "{:<16}{v}", format!("{k}:"));
    }
    Ok(())
}
