//! What an object is — never its secret material: the fields `abbe
//! inspect` prints and the bindings' `inspect` returns. Ciphertext files
//! are described from their head ([`head_fields`]), so a front end need
//! not hold the payload; every other object from its bytes
//! ([`object_fields`]).

use crate::envelope::Head;
use crate::facade::{self, Error};
use crate::wire::{self, ObjectKind, Preamble, SchemeId};

/// A field: its name, its value (what scripts read: `abbe inspect
/// --json`, Python's `inspect`) and what it means (what people read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub value: Value,
    pub note: Option<String>,
}

/// A field's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Text(String),
    Number(u64),
    /// A length in bytes.
    Bytes(u64),
    Flag(bool),
}

impl Field {
    /// The value followed by its note, as `abbe inspect` prints it.
    pub fn text(&self) -> String {
        let value = match &self.value {
            Value::Text(t) => t.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bytes(n) => format!("{n} bytes"),
            Value::Flag(true) => "yes".into(),
            Value::Flag(false) => "no".into(),
        };
        match &self.note {
            Some(note) => format!("{value} ({note})"),
            None => value,
        }
    }
    /// The name as a JSON key: `header id` → `header_id`.
    pub fn key(&self) -> String {
        self.name.replace(' ', "_").to_ascii_lowercase()
    }
    /// Adds what the value means.
    pub fn noted(mut self, note: impl Into<String>) -> Field {
        self.note = Some(note.into());
        self
    }
}

/// A text field.
pub fn field(name: &str, value: impl Into<String>) -> Field {
    valued(name, Value::Text(value.into()))
}

/// A field of any value.
pub fn valued(name: &str, value: Value) -> Field {
    Field {
        name: name.into(),
        value,
        note: None,
    }
}

/// The curve's name and estimated security, for messages.
pub fn curve_label(id: crate::curve::CurveId) -> String {
    curve_field(id).text()
}

fn curve_field(id: crate::curve::CurveId) -> Field {
    let name = match id {
        crate::curve::CurveId::P256 => "P-256",
        other => other.name(),
    };
    field("curve", name).noted(format!("~{}-bit security", id.security_bits()))
}

/// The group placement of a (scheme, curve) and what it favours.
pub fn placement_label(scheme: SchemeId, curve: crate::curve::CurveId) -> String {
    placement_field(scheme, curve).text()
}

fn placement_field(scheme: SchemeId, curve: crate::curve::CurveId) -> Field {
    use crate::curve::Placement;
    let placement = curve.placement();
    let (name, what) = match placement {
        Placement::Standard => ("standard", "as the scheme's paper file places G1 and G2"),
        Placement::Swapped => ("swapped", "G1 and G2 exchanged"),
    };
    let placed = |note: String| field("placement", name).noted(note);
    let Ok(s) = facade::scheme_allowing_insecure(scheme, curve) else {
        return placed(what.into());
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
    placed(match favours.as_slice() {
        [] => format!("{what}; not the placement --optimize picks for either operation"),
        [(op, flag)] => format!("{what}: the faster one for {op}, --optimize {flag}"),
        _ => format!("{what}: the faster one for both encryption and decryption"),
    })
}

/// What the preamble says: kind, scheme (with a broken scheme's warning), curve,
/// level and format version.
pub fn preamble_fields(p: &Preamble, format_version: u8) -> Vec<Field> {
    let mut out = vec![
        field("kind", p.kind.describe()),
        field("scheme", p.scheme.name()),
    ];
    if p.scheme.is_insecure() {
        out.push(field("WARNING", format!("{} is BROKEN (published attacks recover keys and plaintexts): benchmarking only, never protect data with it; every other command refuses it without --insecure-benchmark-only", p.scheme.name())));
    }
    out.push(curve_field(p.curve));
    if p.curve != crate::curve::CurveId::P256 {
        out.push(placement_field(p.scheme, p.curve));
    }
    out.push(valued("level", Value::Number(p.curve.level().into())));
    out.push(valued(
        "format version",
        Value::Number(format_version.into()),
    ));
    out
}

/// A ciphertext file's fields from its head; `payload` is the payload's
/// length when known.
pub fn head_fields(head: &Head, payload: Option<u64>) -> Result<Vec<Field>, Error> {
    let hp = Preamble::parse(&head.header)?;
    let mut out = vec![
        field("header", hp.kind.describe()),
        valued("header size", Value::Bytes(head.header.len() as u64)),
    ];
    if let Some(n) = payload {
        out.push(
            valued("payload", Value::Bytes(n))
                .noted(format!("{} STREAM, 64 KiB chunks", head.aead.name())),
        );
    }
    let signed = valued("signed", Value::Flag(head.is_signed()));
    out.push(if head.is_signed() {
        signed.noted("the signer is inside the encryption: decrypt to see it")
    } else {
        signed
    });
    out.extend(match hp.kind {
        _ if hp.scheme.is_insecure() => insecure_fields(hp.scheme),
        ObjectKind::RccaKemHeader => {
            let mut fields = described(hp.scheme, hp.curve, &head.header)?;
            fields.push(header_id_field(&head.header)?);
            fields
        }
        ObjectKind::RccaTransformedKemHeader => vec![
            header_id_field(&head.header)?,
            field("note", "finish it with `abbe decrypt --key <retrieval key> --original <the original file>` (or --expect-header <its header id>)"),
        ],
        ObjectKind::KemHeader | ObjectKind::CcaKemHeader => {
            described(hp.scheme, hp.curve, &head.header)?
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
        _ if p.scheme.is_insecure() => insecure_fields(p.scheme),
        _ => described(p.scheme, p.curve, obj)?,
    })
}

/// The scheme's own fields of an object (its policy, attributes, users…).
fn described(
    scheme: SchemeId,
    curve: crate::curve::CurveId,
    obj: &[u8],
) -> Result<Vec<Field>, Error> {
    Ok(facade::scheme(scheme, curve)?
        .describe(obj)?
        .into_iter()
        .map(|(name, value)| field(&name, value))
        .collect())
}

/// Every field of an object held in memory, a ciphertext file included.
pub fn inspect(obj: &[u8]) -> Result<Vec<Field>, Error> {
    let p = Preamble::parse(obj)?;
    let mut out = preamble_fields(&p, obj.get(4).copied().unwrap_or(0));
    out.push(valued("size", Value::Bytes(obj.len() as u64)));
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
    let id = crate::facade::header_id(header)?;
    Ok(field("header id", wire::hex(&id)).noted(
        "`abbe decrypt --expect-header` checks that a transformed file is of this ciphertext",
    ))
}

/// What `inspect` says of a broken scheme's object beyond its preamble:
/// nothing that would need the broken scheme's code.
fn insecure_fields(scheme: SchemeId) -> Vec<Field> {
    vec![field(
        "note",
        format!(
            "not decoded further: {} objects are used only with --insecure-benchmark-only",
            scheme.name()
        ),
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
                .find(|f| f.name == name)
                .map(|f| f.text())
                .unwrap_or_else(|| panic!("no field {name} in {fields:?}"))
        };
        let f = inspect(&ct).unwrap();
        assert_eq!(get(&f, "scheme"), "waters11");
        // 5 plaintext bytes and the 16-byte tag of their one chunk.
        assert!(get(&f, "payload").starts_with("21 bytes"));
        assert!(get(&f, "header id").len() > 64);
        // Scripts read the bare id.
        let id = f.iter().find(|f| f.key() == "header_id").unwrap();
        assert_eq!(
            id.value,
            Value::Text(wire::hex(
                &crate::facade::header_id(&{
                    let mut r = &ct[..];
                    crate::envelope::read_head(&mut r).unwrap().header
                })
                .unwrap()
            ))
        );
        let f = inspect(&key).unwrap();
        assert_eq!(get(&f, "kind"), "user decryption key");
        let f = inspect(&mk).unwrap();
        assert!(get(&f, "note").contains("secret"));
        // No field carries the key's bytes.
        let hex = wire::hex(&mk[mk.len() - 16..]);
        assert!(f.iter().all(|f| !f.text().contains(&hex)));
        assert!(inspect(b"not an object").is_err());
    }
}
