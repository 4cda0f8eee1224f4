//! `abbe inspect`: what a file is — never its secret material.

use crate::{curve_label, on_curve, CliError, Result};
use abbe::abe::waters11;
use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble, FORMAT_VERSION};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Write as _};
use std::path::Path;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

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
    match p.kind {
        ObjectKind::Ciphertext | ObjectKind::TransformedCiphertext => {
            let mut rest = std::io::Cursor::new(pre).chain(f);
            let head = envelope::read_head(&mut rest)?;
            let _ = writeln!(o, "header:         {} bytes", head.header.len());
            let payload = size.saturating_sub((8 + 4 + head.header.len() + 16) as u64);
            if p.kind == ObjectKind::Ciphertext {
                on_curve!(p.curve, C => {
                    let h = waters11::Header::<C>::from_bytes(&head.header)?;
                    let _ = writeln!(o, "setup id:       {}", hex(&h.setup_id()));
                    let _ = writeln!(o, "policy:         {}", h.policy());
                    let _ = writeln!(o, "policy rows:    {}", h.rows());
                });
            } else {
                let _ = writeln!(o, "(a transformed ciphertext: finish it with `abbe decrypt --key <retrieval key>`)");
            }
            let _ = writeln!(
                o,
                "payload:        {payload} bytes (AES-256-GCM STREAM, 64 KiB chunks)"
            );
        }
        kind => {
            let mut bytes = pre.to_vec();
            f.take(64 << 20)
                .read_to_end(&mut bytes)
                .map_err(|e| CliError::Other(e.to_string()))?;
            on_curve!(p.curve, C => match kind {
                ObjectKind::PublicKey => {
                    let pk = waters11::PublicKey::<C>::from_bytes(&bytes)?;
                    let _ = writeln!(o, "setup id:       {}", hex(&pk.setup_id()));
                }
                ObjectKind::MasterKey => {
                    let mk = waters11::MasterKey::<C>::from_bytes(&bytes)?;
                    let _ = writeln!(o, "setup id:       {}", hex(&mk.setup_id()));
                    let _ = writeln!(o, "(secret: anyone holding this file can issue keys)");
                }
                ObjectKind::UserKey | ObjectKind::TransformKey => {
                    let e = if kind == ObjectKind::UserKey {
                        waters11::UserKey::<C>::from_bytes(&bytes)?.elements().attributes()
                    } else {
                        waters11::TransformKey::<C>::from_bytes(&bytes)?.elements().attributes()
                    };
                    let _ = writeln!(o, "attributes:     {}", e.join(", "));
                }
                ObjectKind::RetrievalKey => {
                    let rk = waters11::RetrievalKey::<C>::from_bytes(&bytes)?;
                    let _ = writeln!(o, "setup id:       {}", hex(&rk.setup_id()));
                }
                _ => {}
            });
        }
    }
    Ok(())
}
