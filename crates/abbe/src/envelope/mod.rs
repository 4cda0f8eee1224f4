//! The envelope: a file encrypted to a policy (docs/FORMAT.md).
//!
//! ```text
//! ciphertext file             transformed file (after a proxy's Transform)
//! ─────────────────           ────────────────────────────────────────────
//! preamble (kind 8)           preamble (kind 9)
//! u32 len, KEM header         u32 len, transformed KEM header
//!                             32-byte SHA-256 of the original KEM header
//! 16-byte payload salt        16-byte payload salt
//! STREAM payload              the same STREAM payload, unchanged
//! ```
//!
//! The payload key is HKDF-SHA256(session key, salt, "abbe/v1/payload" ‖
//! SHA-256(KEM header)); every chunk is AES-256-GCM with the header digest
//! as associated data ([`stream`]). The transformed file carries the digest
//! of the header it replaced, so the final decryption authenticates the
//! payload against the original header.

pub mod stream;

use crate::kem::SessionKey;
use crate::wire::{ObjectKind, Preamble, WireError, PREAMBLE_LEN};
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
pub use stream::{PayloadKey, StreamError, CHUNK_SIZE};

/// Upper bound on a KEM header inside an envelope (16 MiB: a policy of the
/// maximum 4096 leaves is below 1 MiB on every curve).
pub const MAX_HEADER_BYTES: usize = 16 << 20;

/// Envelope errors.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("payload: {0}")]
    Stream(#[from] StreamError),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// The head of a ciphertext or transformed file, read before the payload.
#[derive(Debug, Clone)]
pub struct Head {
    pub preamble: Preamble,
    /// The KEM header (or transformed header) object, with its own preamble.
    pub header: Vec<u8>,
    /// SHA-256 of the original KEM header: the payload's associated data.
    pub header_digest: [u8; 32],
    pub salt: [u8; 16],
}

pub fn header_digest(header: &[u8]) -> [u8; 32] {
    Sha256::digest(header).into()
}

fn read_exact_or<R: Read>(
    input: &mut R,
    buf: &mut [u8],
    what: &'static str,
) -> Result<(), EnvelopeError> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => EnvelopeError::Wire(WireError::Truncated(what)),
        _ => EnvelopeError::Io(e),
    })
}

/// Reads the head of a ciphertext (kind 8) or transformed file (kind 9).
pub fn read_head<R: Read>(input: &mut R) -> Result<Head, EnvelopeError> {
    let mut pre = [0u8; PREAMBLE_LEN];
    read_exact_or(input, &mut pre, "file preamble")?;
    let preamble = Preamble::parse(&pre)?;
    if !matches!(
        preamble.kind,
        ObjectKind::Ciphertext | ObjectKind::TransformedCiphertext
    ) {
        return Err(WireError::WrongKind {
            expected: "ciphertext",
            found: preamble.kind.describe(),
        }
        .into());
    }
    let mut len = [0u8; 4];
    read_exact_or(input, &mut len, "header length")?;
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_HEADER_BYTES {
        return Err(WireError::TooLong {
            what: "KEM header",
            len,
            max: MAX_HEADER_BYTES,
        }
        .into());
    }
    let mut header = vec![0u8; len];
    read_exact_or(input, &mut header, "KEM header")?;
    let header_digest = if preamble.kind == ObjectKind::TransformedCiphertext {
        let mut d = [0u8; 32];
        read_exact_or(input, &mut d, "header digest")?;
        d
    } else {
        self::header_digest(&header)
    };
    let mut salt = [0u8; 16];
    read_exact_or(input, &mut salt, "payload salt")?;
    Ok(Head {
        preamble,
        header,
        header_digest,
        salt,
    })
}

fn write_head<W: Write>(head: &Head, output: &mut W) -> std::io::Result<()> {
    output.write_all(&head.preamble.to_bytes())?;
    output.write_all(&(head.header.len() as u32).to_be_bytes())?;
    output.write_all(&head.header)?;
    if head.preamble.kind == ObjectKind::TransformedCiphertext {
        output.write_all(&head.header_digest)?;
    }
    output.write_all(&head.salt)
}

/// Writes a ciphertext file: the head for `header` (a KEM header object)
/// and the payload encrypted under `session`. Returns the plaintext length.
pub fn seal<R: Read, W: Write, G: RngCore + CryptoRng>(
    header: &[u8],
    session: &SessionKey,
    rng: &mut G,
    input: R,
    mut output: W,
) -> Result<u64, EnvelopeError> {
    let hp = Preamble::parse(header)?;
    let mut salt = [0u8; 16];
    rng.fill_bytes(&mut salt);
    let head = Head {
        preamble: Preamble {
            kind: ObjectKind::Ciphertext,
            ..hp
        },
        header: header.to_vec(),
        header_digest: header_digest(header),
        salt,
    };
    write_head(&head, &mut output)?;
    let key = PayloadKey::derive(session.as_bytes(), &head.salt, &head.header_digest);
    let n = stream::encrypt(&key, &head.header_digest, input, &mut output)?;
    output.flush()?;
    Ok(n)
}

/// Decrypts the payload that follows `head` in `input`. Writes a chunk only
/// after it authenticated; on error the caller must discard the output.
pub fn open<R: Read, W: Write>(
    head: &Head,
    session: &SessionKey,
    input: R,
    mut output: W,
) -> Result<u64, EnvelopeError> {
    let key = PayloadKey::derive(session.as_bytes(), &head.salt, &head.header_digest);
    let n = stream::decrypt(&key, &head.header_digest, input, &mut output)?;
    output.flush()?;
    Ok(n)
}

/// Writes a transformed file: the transformed header replaces the KEM header
/// and the payload is copied through unchanged (constant memory).
pub fn write_transformed<R: Read, W: Write>(
    head: &Head,
    transformed_header: &[u8],
    mut payload: R,
    mut output: W,
) -> Result<u64, EnvelopeError> {
    let hp = Preamble::parse(transformed_header)?;
    let out_head = Head {
        preamble: Preamble {
            kind: ObjectKind::TransformedCiphertext,
            ..hp
        },
        header: transformed_header.to_vec(),
        header_digest: head.header_digest,
        salt: head.salt,
    };
    write_head(&out_head, &mut output)?;
    let n = std::io::copy(&mut payload, &mut output)?;
    output.flush()?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abe::waters11::{Header, Transformed, Waters11};
    use crate::curve::Bls12;
    use crate::kem::{Kem, Outsourcing};
    use crate::policy::{AttributeSet, Policy};
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn seal_open_and_transform() {
        type W = Waters11<Bls12>;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
        let (pk, mk) = W::setup(&mut rng);
        let (session, header) =
            W::encapsulate(&pk, &Policy::parse("a and b").unwrap(), &mut rng).unwrap();
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let mut file = Vec::new();
        seal(&header.to_bytes(), &session, &mut rng, &data[..], &mut file).unwrap();

        let mut cur = &file[..];
        let head = read_head(&mut cur).unwrap();
        let key = W::keygen(&pk, &mk, &AttributeSet::parse("a, b").unwrap(), &mut rng).unwrap();
        let hdr = Header::<Bls12>::from_bytes(&head.header).unwrap();
        let k = W::decapsulate(&key, &hdr).unwrap();
        let mut out = Vec::new();
        open(&head, &k, cur, &mut out).unwrap();
        assert_eq!(out, data);

        // Outsourced path through the transformed file.
        let (tk, rk) = W::transform_key(&key, &mut rng);
        let t = W::transform(&tk, &hdr).unwrap();
        let mut tfile = Vec::new();
        write_transformed(&head, &t.to_bytes(), cur, &mut tfile).unwrap();
        let mut tcur = &tfile[..];
        let thead = read_head(&mut tcur).unwrap();
        assert_eq!(thead.preamble.kind, ObjectKind::TransformedCiphertext);
        let tt = Transformed::<Bls12>::from_bytes(&thead.header).unwrap();
        let k2 = W::decrypt_transformed(&rk, &tt).unwrap();
        let mut out2 = Vec::new();
        open(&thead, &k2, tcur, &mut out2).unwrap();
        assert_eq!(out2, data);

        // A tampered digest in the transformed file is caught.
        let mut bad = tfile.clone();
        let pos = 8 + 4 + thead.header.len();
        bad[pos] ^= 1;
        let mut bcur = &bad[..];
        let bhead = read_head(&mut bcur).unwrap();
        assert!(open(&bhead, &k2, bcur, &mut Vec::new()).is_err());
    }

    proptest::proptest! {
        /// Random bytes, and random bytes behind a valid preamble, never
        /// make the head decoder panic or allocate beyond its bound.
        #[test]
        fn read_head_never_panics(tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300), kind in 0u8..12) {
            let _ = read_head(&mut &tail[..]);
            let mut b = b"ABBE\x01".to_vec();
            b.extend_from_slice(&[kind, 1, 1]);
            b.extend_from_slice(&tail);
            let _ = read_head(&mut &b[..]);
        }
    }

    #[test]
    fn heads_are_strict() {
        for bytes in [
            &b""[..],
            b"ABBE",
            b"ABBE\x01\x08\x01\x01\xff\xff\xff\xff",
            b"XXXXXXXXXXXXXXXX",
        ] {
            assert!(read_head(&mut &bytes[..]).is_err());
        }
    }
}
