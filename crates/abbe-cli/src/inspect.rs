//! `abbe inspect`: what a file is — never its secret material.

use crate::{any_scheme, curve_label, ops, outsourcing_scheme, CliError, Result};
use abbe::curve::CurveId;
use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble, FORMAT_VERSION};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Write as _};
use std::path::Path;

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
    let mut f = File::open(path)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut pre = [0u8; 8];
    f.read_exact(&mut pre).map_err(|_| {
        CliError::Invalid(format!("{}: too short to be an abbe file", path.display()))
    })?;
    let p = Preamble::parse(&pre)?;
    let _ = writeln!(o, "file:           {}", path.display());
    let _ = writeln!(o, "kind:           {}", p.kind.describe());
    let _ = writeln!(o, "scheme:         {}", p.scheme.name());
    let _ = writeln!(o, "curve:          {}", curve_label(p.curve));
    let _ = writeln!(o, "format version: {FORMAT_VERSION}");
    let _ = writeln!(o, "size:           {size} bytes");
    let fields = match p.kind {
        ObjectKind::Ciphertext | ObjectKind::TransformedCiphertext => {
            let mut rest = std::io::Cursor::new(pre).chain(f);
            let head = envelope::read_head(&mut rest)?;
            let hp = Preamble::parse(&head.header)?;
            let _ = writeln!(
                o,
                "header:         {} ({} bytes)",
                hp.kind.describe(),
                head.header.len()
            );
            let payload = size.saturating_sub((8 + 4 + head.header.len() + 16) as u64);
            let _ = writeln!(
                o,
                "payload:        {payload} bytes (AES-256-GCM STREAM, 64 KiB chunks)"
            );
            match hp.kind {
                ObjectKind::RccaHeader => {
                    outsourcing_scheme!(hp, K => ops::describe_rcca::<K>(&head.header))?
                }
                ObjectKind::Header | ObjectKind::CcaHeader => {
                    any_scheme!(hp, K => ops::describe::<K>(&head.header))?
                }
                _ => vec![(
                    "note".into(),
                    "finish it with `abbe decrypt --key <retrieval key>`".into(),
                )],
            }
        }
        _ => {
            let mut bytes = pre.to_vec();
            f.take(64 << 20)
                .read_to_end(&mut bytes)
                .map_err(|e| CliError::Other(e.to_string()))?;
            any_scheme!(p, K => ops::describe::<K>(&bytes))?
        }
    };
    for (k, v) in fields {
        let _ = writeln!(o, "{:<16}{v}", format!("{k}:"));
    }
    Ok(())
}
