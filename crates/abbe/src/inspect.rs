//! What an object is — never its secret material: the fields `abbe
//! inspect` prints and the bindings' `inspect` returns. Ciphertext files
//! are described from their head ([`head_fields`]), so a front end need
//! not hold the payload; every other object from its bytes
//! ([`object_fields`]).

use crate::envelope::Head;
use crate::facade::{self, Error};
use crate::wire::{self, ObjectKind, Preamble, SchemeId};

/// A field: (name, value).
pub type Field = (String, String);

fn field(name: &str, value: impl Into<String>) -> Field {
    (name.into(), value.into())
}

/// The curve's name and estimated security, for messages.
pub fn curve_label(id: crate::curve::CurveId) -> String {
    let name = match id {
        crate::curve::CurveId::P256 => "P-256",
        other => other.name(),
    };
    format!("{name} (~{}-bit security)", id.security_bits())
}

/// The group placement of a (scheme, curve) and what it favours.
pub fn placement_label(scheme: SchemeId, curve: crate::curve::CurveId) -> String {
    use crate::curve::Placement;
    let placement = curve.placement();
    let what = match placement {
        Placement::Standard => "standard (as the scheme's paper file places G1 and G2)",
        Placement::Swapped => "swapped (G1 and G2 exchanged)",
    };
    let Ok(s) = facade::scheme_allowing_insecure(scheme, curve) else {
        return what.into();
    };
    let info = s.info();
    let favours: Vec<(&str, &str)> = [
        (info.for_decryption, "decryption", "decrypt"),
        (info.for_encryption, "encryption", "encrypt"),
    ]
    .iter()
    .filter(|(p, _, _)| *p == placement)
    .map(|(_, op, flag)| (*op, *flag))
    .collect();
    match favours.as_slice() {
        [] => format!("{what}; not the placement --optimize picks for either operation"),
        [(op, flag)] => format!("{what}: the faster one for {op} (--optimize {flag})"),
        _ => format!("{what}: the faster one for both encryption and decryption"),
    }
}

/// What the preamble says: kind, scheme (with YCT14's warning), curve,
/// level and format version.
pub fn preamble_fields(p: &Preamble, format_version: u8) -> Vec<Field> {
    let mut out = vec![
        field("kind", p.kind.describe()),
        field("scheme", p.scheme.name()),
    ];
    if p.scheme == SchemeId::Yct14 {
        out.push(field("WARNING", "yct14 is BROKEN (published attacks recover keys and plaintexts): benchmarking only, never protect data with it; every other command refuses it without --insecure-benchmark-only"));
    }
    out.push(field("curve", curve_label(p.curve)));
    if p.curve != crate::curve::CurveId::P256 {
        out.push(field("placement", placement_label(p.scheme, p.curve)));
    }
    out.push(field("level", p.curve.level().to_string()));
    out.push(field("format version", format_version.to_string()));
    out
}

/// A ciphertext file's fields from its head; `payload` is the payload's
/// length when known.
pub fn head_fields(head: &Head, payload: Option<u64>) -> Result<Vec<Field>, Error> {
    let hp = Preamble::parse(&head.header)?;
    let mut out = vec![field(
        "header",
        format!("{} ({} bytes)", hp.kind.describe(), head.header.len()),
    )];
    if let Some(n) = payload {
        out.push(field(
            "payload",
            format!("{n} bytes ({} STREAM, 64 KiB chunks)", head.aead.name()),
        ));
    }
    out.push(field(
        "signed",
        if head.is_signed() {
            "yes (the signer is inside the encryption: decrypt to see it)"
        } else {
            "no"
        },
    ));
    out.extend(match hp.kind {
        _ if hp.scheme == SchemeId::Yct14 => yct14_fields(),
        ObjectKind::RccaKemHeader => {
            let mut fields = facade::scheme(hp.scheme, hp.curve)?.describe(&head.header)?;
            fields.push(header_id_field(&head.header)?);
            fields
        }
        ObjectKind::RccaTransformedKemHeader => vec![
            header_id_field(&head.header)?,
            field("note", "finish it with `abbe decrypt --key <retrieval key> --expect-header <the original's header id>`"),
        ],
        ObjectKind::KemHeader | ObjectKind::CcaKemHeader => {
            facade::scheme(hp.scheme, hp.curve)?.describe(&head.header)?
        }
        _ => vec![field(
            "note",
            "finish it with `abbe decrypt --key <retrieval key>`",
        )],
    });
    Ok(out)
}

/// The fields of an object that is not a ciphertext file (keys, headers,
/// outsourcing objects, signing keys, protected keys).
pub fn object_fields(obj: &[u8]) -> Result<Vec<Field>, Error> {
    let p = Preamble::parse(obj)?;
    Ok(match p.kind {
        ObjectKind::SigningKey | ObjectKind::VerifyingKey => {
            let sig = |e: crate::signature::SignatureError| Error::Invalid(e.to_string());
            let vk = if p.kind == ObjectKind::SigningKey {
                crate::signature::AnySigningKey::from_bytes(obj)
                    .map_err(sig)?
                    .verifying_key()
            } else {
                obj.to_vec()
            };
            let (c, pk) = crate::signature::verifying_key_point(&vk).map_err(sig)?;
            vec![
                field("fingerprint", crate::signature::fingerprint(c, &pk)),
                field(
                    "algorithm",
                    "BLS signatures, min-sig (signature in G1, key in G2)",
                ),
            ]
        }
        ObjectKind::ProtectedKey => {
            // Never asks for the passphrase: what is inside stays unknown.
            let (_, sp) =
                crate::protect::inspect(obj).map_err(|e| Error::Invalid(e.to_string()))?;
            vec![
                field(
                    "protection",
                    format!(
                        "passphrase-protected (scrypt log2N={}, r={}, p={}; AES-256-GCM)",
                        sp.log_n, sp.r, sp.p
                    ),
                ),
                field("note", "the kind of key inside shows only once decrypted (commands that use it ask for the passphrase)"),
            ]
        }
        _ if p.scheme == SchemeId::Yct14 => yct14_fields(),
        _ => facade::scheme(p.scheme, p.curve)?.describe(obj)?,
    })
}

/// Every field of an object held in memory, a ciphertext file included.
pub fn inspect(obj: &[u8]) -> Result<Vec<Field>, Error> {
    let p = Preamble::parse(obj)?;
    let mut out = preamble_fields(&p, obj.get(4).copied().unwrap_or(0));
    out.push(field("size", format!("{} bytes", obj.len())));
    if matches!(
        p.kind,
        ObjectKind::EncryptedFile | ObjectKind::TransformedFile
    ) {
        let mut rest = obj;
        let head = crate::envelope::read_head(&mut rest)?;
        out.extend(head_fields(&head, Some(rest.len() as u64))?);
    } else {
        out.extend(object_fields(obj)?);
    }
    Ok(out)
}

/// The header id of an RCCA header or transformed header: what `abbe
/// decrypt --expect-header` checks.
fn header_id_field(header: &[u8]) -> Result<Field, Error> {
    let id = crate::outsource::header_id(header)?;
    Ok(field(
        "header id",
        format!(
            "{} (`abbe decrypt --expect-header` checks that a transformed file is of this ciphertext)",
            wire::hex(&id)
        ),
    ))
}

/// What `inspect` says of a YCT14 object beyond its preamble: nothing that
/// would need the broken scheme's code.
fn yct14_fields() -> Vec<Field> {
    vec![field(
        "note",
        "not decoded further: yct14 objects are used only with --insecure-benchmark-only",
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::OsRng;

    #[test]
    fn a_ciphertext_and_its_keys_are_described_without_their_secrets() {
        let s = facade::scheme(SchemeId::Waters11, crate::curve::CurveId::Bn254).unwrap();
        let (pk, mk) = s
            .setup(&crate::kem::SetupParams::default(), &mut OsRng)
            .unwrap();
        let key = s
            .keygen(&mk, "doctor, nurse", Some(&pk), &mut OsRng)
            .unwrap();
        let mut ct = Vec::new();
        facade::encrypt(
            &pk,
            "doctor",
            facade::Mode::Rcca,
            &b"hello"[..],
            &mut ct,
            &Default::default(),
            &mut OsRng,
        )
        .unwrap();
        let get = |fields: &[Field], name: &str| {
            fields
                .iter()
                .find(|f| f.0 == name)
                .map(|f| f.1.clone())
                .unwrap_or_else(|| panic!("no field {name} in {fields:?}"))
        };
        let f = inspect(&ct).unwrap();
        assert_eq!(get(&f, "scheme"), "waters11");
        // 5 plaintext bytes and the 16-byte tag of their one chunk.
        assert!(get(&f, "payload").starts_with("21 bytes"));
        assert!(get(&f, "header id").len() > 64);
        let f = inspect(&key).unwrap();
        assert_eq!(get(&f, "kind"), "user decryption key");
        let f = inspect(&mk).unwrap();
        assert!(get(&f, "note").contains("secret"));
        // No field carries the key's bytes.
        let hex = wire::hex(&mk[mk.len() - 16..]);
        assert!(f.iter().all(|(_, v)| !v.contains(&hex)));
        assert!(inspect(b"not an object").is_err());
    }
}
