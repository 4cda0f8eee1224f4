//! `abbe inspect`: what a file is — never its secret material.

use crate::{any_scheme, curve_label, ops, outsourcing_scheme, CliError, Result};
use abbe::curve::CurveId;
use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble};
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
    let _ = writeln!(o, "level:          {}", p.curve.level());
    let _ = writeln!(o, "format version: {}", pre[4]);
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
            let payload = size.saturating_sub(head.encoded_len() as u64);
            let _ = writeln!(
                o,
                "payload:        {payload} bytes ({} STREAM, 64 KiB chunks)",
                head.aead.name()
            );
            let _ = writeln!(
                o,
                "signed:         {}",
                if head.is_signed() {
                    "yes (the signer is inside the encryption: decrypt to see it)"
                } else {
                    "no"
                }
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
        ObjectKind::SigningKey | ObjectKind::VerifyingKey => {
            let mut bytes = pre.to_vec();
            f.take(1 << 16)
                .read_to_end(&mut bytes)
                .map_err(|e| CliError::Other(e.to_string()))?;
            let vk = if p.kind == ObjectKind::SigningKey {
                abbe::signature::AnySigningKey::from_bytes(&bytes)?.verifying_key()
            } else {
                bytes
            };
            let (c, pk) = abbe::signature::verifying_key_point(&vk)?;
            vec![
                ("fingerprint".into(), abbe::signature::fingerprint(c, &pk)),
                (
                    "algorithm".into(),
                    "BLS signatures, min-sig (signature in G1, key in G2)".into(),
                ),
            ]
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
