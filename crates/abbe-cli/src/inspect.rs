//! `abbe inspect`: what a file is — never its secret material.

use crate::{CliError, Result};
use abbe::armor::{self, ArmorError};
use abbe::envelope;
use abbe::inspect::{field, valued, Field, Value};
use abbe::wire::{ObjectKind, Preamble};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Write as _};
use std::path::Path;
use zeroize::Zeroizing;

pub fn run(path: &Path, json: bool) -> Result<()> {
    let fields = describe(path)?;
    let o = if json {
        to_json(&fields)
    } else {
        let mut o = String::new();
        for f in &fields {
            let _ = writeln!(o, "{:<16}{}", format!("{}:", f.name), f.text());
        }
        o
    };
    // A closed pipe (`abbe inspect f | head`) is not an error.
    match std::io::stdout().lock().write_all(o.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Other(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// The fields as one JSON object, keys as [`Field::key`]; a key that
/// occurs twice gets an array of its values.
fn to_json(fields: &[Field]) -> String {
    use serde_json::{Map, Value as J};
    let mut map = Map::new();
    for f in fields {
        let v = match &f.value {
            Value::Text(t) => J::from(t.as_str()),
            Value::Number(n) | Value::Bytes(n) => J::from(*n),
            Value::Flag(b) => J::from(*b),
        };
        match map.get_mut(&f.key()) {
            Some(J::Array(a)) => a.push(v),
            Some(old) => *old = J::Array(vec![old.take(), v]),
            None => {
                map.insert(f.key(), v);
            }
        }
    }
    let mut out = J::Object(map).to_string();
    out.push('\n');
    out
}

fn describe(path: &Path) -> Result<Vec<Field>> {
    let f = File::open(path)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let (mut f, armored) = abbe::armor::dearmored(f)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
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
    let mut fields = vec![field("file", path.display().to_string())];
    fields.extend(abbe::inspect::preamble_fields(&p, pre[4]));
    fields.push(valued("size", Value::Bytes(size)));
    if armored {
        fields.push(
            field("armor", "ASCII").noted(format!("-----BEGIN ABBE {}-----", armor::label(p.kind))),
        );
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
    Ok(fields)
}
