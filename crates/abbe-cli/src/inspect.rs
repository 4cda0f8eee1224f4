//! `abbe inspect`: what a file is — never its secret material.

use crate::{curve_label, io, scheme_for, CliError, Result};
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
    let _ = writeln!(o, "file:           {}", path.display());
    let _ = writeln!(o, "kind:           {}", p.kind.describe());
    let _ = writeln!(o, "scheme:         {}", p.scheme.name());
    if p.scheme == abbe::wire::SchemeId::Yct14 {
        let _ = writeln!(
            o,
            "WARNING:        yct14 is BROKEN (published attacks recover keys and plaintexts): benchmarking only, never protect data with it; every other command refuses it without --insecure-benchmark-only"
        );
    }
    let _ = writeln!(o, "curve:          {}", curve_label(p.curve));
    let _ = writeln!(o, "level:          {}", p.curve.level());
    let _ = writeln!(o, "format version: {}", pre[4]);
    let _ = writeln!(o, "size:           {size} bytes");
    if armored {
        let _ = writeln!(
            o,
            "armor:          ASCII (-----BEGIN ABBE {}-----)",
            armor::label(p.kind)
        );
    }
    let fields = match p.kind {
        ObjectKind::EncryptedFile | ObjectKind::TransformedFile => {
            let mut rest = std::io::Cursor::new(pre).chain(f);
            let head = envelope::read_head(&mut rest)?;
            let hp = Preamble::parse(&head.header)?;
            let _ = writeln!(
                o,
                "header:         {} ({} bytes)",
                hp.kind.describe(),
                head.header.len()
            );
            let payload = if armored {
                // Decoding to the end also checks the armor.
                std::io::copy(&mut rest, &mut std::io::sink()).map_err(invalid)?
            } else {
                size.saturating_sub(head.encoded_len() as u64)
            };
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
                _ if hp.scheme == abbe::wire::SchemeId::Yct14 => yct14_fields(),
                ObjectKind::RccaKemHeader => {
                    let mut fields = scheme_for(&hp)?.describe(&head.header)?;
                    fields.push(header_id_field(&head.header)?);
                    fields
                }
                ObjectKind::RccaTransformedKemHeader => vec![
                    header_id_field(&head.header)?,
                    (
                        "note".into(),
                        "finish it with `abbe decrypt --key <retrieval key> --expect-header <the original's header id>`".into(),
                    ),
                ],
                ObjectKind::KemHeader | ObjectKind::CcaKemHeader => {
                    scheme_for(&hp)?.describe(&head.header)?
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
            let mut bytes = Zeroizing::new(pre.to_vec());
            f.take(64 << 20).read_to_end(&mut bytes).map_err(invalid)?;
            if p.kind == ObjectKind::ProtectedKey {
                // Never asks for the passphrase: what is inside stays unknown.
                let (_, sp) = abbe::protect::inspect(&bytes)
                    .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
                vec![
                    (
                        "protection".into(),
                        format!(
                            "passphrase-protected (scrypt log2N={}, r={}, p={}; AES-256-GCM)",
                            sp.log_n, sp.r, sp.p
                        ),
                    ),
                    (
                        "note".into(),
                        "the kind of key inside shows only once decrypted (commands that use it ask for the passphrase)".into(),
                    ),
                ]
            } else if p.scheme == abbe::wire::SchemeId::Yct14 {
                yct14_fields()
            } else {
                scheme_for(&p)?.describe(&bytes)?
            }
        }
    };
    for (k, v) in fields {
        let _ = writeln!(o, "{:<16}{v}", format!("{k}:"));
    }
    Ok(())
}

/// The header id of an RCCA header or transformed header: what `abbe
/// decrypt --expect-header` checks.
fn header_id_field(header: &[u8]) -> Result<(String, String)> {
    let id = abbe::outsource::header_id(header)?;
    Ok((
        "header id".into(),
        format!(
            "{} (`abbe decrypt --expect-header` checks that a transformed file is of this ciphertext)",
            abbe::wire::hex(&id)
        ),
    ))
}

/// What `inspect` says of a YCT14 object beyond its preamble: nothing that
/// would need the broken scheme's code.
fn yct14_fields() -> Vec<(String, String)> {
    vec![(
        "note".into(),
        "not decoded further: yct14 objects are used only with --insecure-benchmark-only".into(),
    )]
}
