//! The MQTT payloads (docs/FORMAT.md, "MQTT records"): a 23-byte head
//! `"AbMQ" ‖ version ‖ type ‖ flags ‖ publisher id` and a body by type.
//! Decoding is strict and linear in the payload: no field is trusted before
//! its length is checked.

use crate::Error;

/// First bytes of every record.
pub const MAGIC: &[u8; 4] = b"AbMQ";
/// The record format version this build writes and reads.
pub const VERSION: u8 = 1;
/// Bytes of a publisher id.
pub const PUBLISHER_ID_LEN: usize = 16;
/// Bytes of the head every record starts with.
pub const HEAD_LEN: usize = 4 + 1 + 1 + 1 + PUBLISHER_ID_LEN;
/// Flag bit: an epoch reading carries a signature block.
pub const FLAG_SIGNED: u8 = 1;
/// Bytes of an epoch key.
pub const EPOCH_KEY_LEN: usize = 32;
/// Bytes of an AES-256-GCM tag.
pub const TAG_LEN: usize = 16;
/// The largest record a subscriber reads (a broadcast header to many users
/// is large); larger messages are skipped before decoding.
pub const MAX_LEN: usize = 16 << 20;

/// A publisher's random id, chosen when it starts.
pub type PublisherId = [u8; PUBLISHER_ID_LEN];

/// Record types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RecordType {
    /// An epoch key, ABE-encrypted (an abbe encrypted file); retained on
    /// the key topic.
    EpochKey = 1,
    /// A reading under an epoch key (AES-256-GCM).
    Reading = 2,
    /// A reading ABE-encrypted on its own (an abbe encrypted file).
    Sealed = 3,
}

/// A decoded record, borrowing the payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record<'a> {
    EpochKey {
        publisher: PublisherId,
        epoch: u32,
        /// An abbe encrypted file whose plaintext is [`epoch_key_plaintext`].
        file: &'a [u8],
    },
    Reading {
        publisher: PublisherId,
        epoch: u32,
        seq: u64,
        /// The signature block, for a signed reading: curve id and
        /// `signature::block_len(curve)` bytes.
        signature: Option<(u8, &'a [u8])>,
        /// AES-256-GCM ciphertext and tag.
        ciphertext: &'a [u8],
        /// The bytes the signature and the AEAD authenticate before the
        /// topic: the head through `seq` (the signature block excluded).
        authenticated: &'a [u8],
    },
    Sealed {
        publisher: PublisherId,
        seq: u64,
        /// An abbe encrypted file whose plaintext is [`binding`] ‖ reading.
        file: &'a [u8],
    },
}

fn head(kind: RecordType, flags: u8, publisher: &PublisherId) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD_LEN + 12);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(kind as u8);
    out.push(flags);
    out.extend_from_slice(publisher);
    out
}

/// The head and epoch of an epoch-key record; the file follows.
pub fn epoch_key_head(publisher: &PublisherId, epoch: u32) -> Vec<u8> {
    let mut out = head(RecordType::EpochKey, 0, publisher);
    out.extend_from_slice(&epoch.to_be_bytes());
    out
}

/// The authenticated part of an epoch reading: head, epoch, seq.
pub fn reading_head(publisher: &PublisherId, epoch: u32, seq: u64, signed: bool) -> Vec<u8> {
    let flags = if signed { FLAG_SIGNED } else { 0 };
    let mut out = head(RecordType::Reading, flags, publisher);
    out.extend_from_slice(&epoch.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out
}

/// The head and seq of a sealed reading; the file follows.
pub fn sealed_head(publisher: &PublisherId, seq: u64) -> Vec<u8> {
    let mut out = head(RecordType::Sealed, 0, publisher);
    out.extend_from_slice(&seq.to_be_bytes());
    out
}

/// What ties a sealed reading or an epoch key to where it was published:
/// publisher ‖ u64 value ‖ u16 topic length ‖ topic. Inside the ABE
/// plaintext, so a record cannot be moved to another topic, publisher or
/// position.
pub fn binding(publisher: &PublisherId, value: u64, topic: &str) -> Result<Vec<u8>, Error> {
    with_topic(&[&publisher[..], &value.to_be_bytes()].concat(), topic)
}

/// `prefix` ‖ u16 topic length ‖ topic: how every record names its topic
/// inside what is authenticated.
fn with_topic(prefix: &[u8], topic: &str) -> Result<Vec<u8>, Error> {
    let len = u16::try_from(topic.len())
        .map_err(|_| Error::Invalid("topic longer than 65535 bytes".into()))?;
    let mut out = Vec::with_capacity(prefix.len() + 2 + topic.len());
    out.extend_from_slice(prefix);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(topic.as_bytes());
    Ok(out)
}

/// The plaintext of an epoch-key file: [`binding`] (with the epoch) ‖ key.
pub fn epoch_key_plaintext(
    publisher: &PublisherId,
    epoch: u32,
    topic: &str,
    key: &[u8; EPOCH_KEY_LEN],
) -> Result<zeroize::Zeroizing<Vec<u8>>, Error> {
    let mut out = zeroize::Zeroizing::new(binding(publisher, epoch.into(), topic)?);
    out.extend_from_slice(key);
    Ok(out)
}

/// The associated data of an epoch reading: its authenticated bytes, then
/// u16 topic length ‖ topic.
pub fn reading_aad(authenticated: &[u8], topic: &str) -> Result<Vec<u8>, Error> {
    with_topic(authenticated, topic)
}

/// The AES-GCM nonce of reading `seq`: 0⁴ ‖ seq. Unique under an epoch key,
/// which is fresh per epoch, since a publisher never repeats a seq.
pub fn nonce(seq: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&seq.to_be_bytes());
    n
}

fn invalid(what: impl Into<String>) -> Error {
    Error::Invalid(what.into())
}

fn take<'a>(b: &mut &'a [u8], n: usize, what: &str) -> Result<&'a [u8], Error> {
    if b.len() < n {
        return Err(invalid(format!("record truncated in its {what}")));
    }
    let (head, rest) = b.split_at(n);
    *b = rest;
    Ok(head)
}

fn u32_of(b: &[u8]) -> u32 {
    u32::from_be_bytes(b.try_into().expect("4 bytes"))
}

fn u64_of(b: &[u8]) -> u64 {
    u64::from_be_bytes(b.try_into().expect("8 bytes"))
}

/// Decodes a record; `block_len` gives a signature block's length for a
/// curve id (None: not a signing curve).
pub fn decode(
    payload: &[u8],
    block_len: impl Fn(u8) -> Option<usize>,
) -> Result<Record<'_>, Error> {
    let mut b = payload;
    if take(&mut b, 4, "magic")? != MAGIC {
        return Err(invalid("not an abbe MQTT record (bad magic)"));
    }
    let version = take(&mut b, 1, "version")?[0];
    if version != VERSION {
        return Err(invalid(format!(
            "abbe MQTT record version {version}; this build reads version {VERSION}"
        )));
    }
    let kind = take(&mut b, 1, "type")?[0];
    let flags = take(&mut b, 1, "flags")?[0];
    let publisher: PublisherId = take(&mut b, PUBLISHER_ID_LEN, "publisher id")?
        .try_into()
        .expect("16 bytes");
    let allowed_flags = if kind == RecordType::Reading as u8 {
        FLAG_SIGNED
    } else {
        0
    };
    if flags & !allowed_flags != 0 {
        return Err(invalid(format!(
            "unknown flags {flags:#04x} for record type {kind}"
        )));
    }
    match kind {
        1 => {
            let epoch = u32_of(take(&mut b, 4, "epoch")?);
            if b.is_empty() {
                return Err(invalid("epoch-key record without its encrypted key"));
            }
            Ok(Record::EpochKey {
                publisher,
                epoch,
                file: b,
            })
        }
        2 => {
            let epoch = u32_of(take(&mut b, 4, "epoch")?);
            let seq = u64_of(take(&mut b, 8, "sequence number")?);
            let authenticated = &payload[..HEAD_LEN + 12];
            let signature = if flags & FLAG_SIGNED != 0 {
                let curve = take(&mut b, 1, "signature curve")?[0];
                let n = block_len(curve)
                    .ok_or_else(|| invalid(format!("signature on unknown curve id {curve}")))?;
                Some((curve, take(&mut b, n, "signature")?))
            } else {
                None
            };
            if b.len() < TAG_LEN {
                return Err(invalid("reading shorter than its authentication tag"));
            }
            Ok(Record::Reading {
                publisher,
                epoch,
                seq,
                signature,
                ciphertext: b,
                authenticated,
            })
        }
        3 => {
            let seq = u64_of(take(&mut b, 8, "sequence number")?);
            if b.is_empty() {
                return Err(invalid("sealed record without its encrypted file"));
            }
            Ok(Record::Sealed {
                publisher,
                seq,
                file: b,
            })
        }
        other => Err(invalid(format!("unknown abbe MQTT record type {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn blocks(c: u8) -> Option<usize> {
        (c == 1).then_some(144)
    }

    #[test]
    fn each_type_round_trips() {
        let p = [7u8; 16];
        let mut ek = epoch_key_head(&p, 9);
        ek.extend_from_slice(b"FILE");
        assert_eq!(
            decode(&ek, blocks).unwrap(),
            Record::EpochKey {
                publisher: p,
                epoch: 9,
                file: b"FILE"
            }
        );
        let mut r = reading_head(&p, 9, 42, true);
        let auth_len = r.len();
        r.push(1);
        r.extend_from_slice(&[5u8; 144]);
        r.extend_from_slice(&[6u8; 20]);
        match decode(&r, blocks).unwrap() {
            Record::Reading {
                epoch,
                seq,
                signature,
                ciphertext,
                authenticated,
                ..
            } => {
                assert_eq!((epoch, seq), (9, 42));
                assert_eq!(signature, Some((1, &[5u8; 144][..])));
                assert_eq!(ciphertext, &[6u8; 20]);
                assert_eq!(authenticated, &r[..auth_len]);
            }
            other => panic!("{other:?}"),
        }
        let mut s = sealed_head(&p, 3);
        s.extend_from_slice(b"F");
        assert_eq!(
            decode(&s, blocks).unwrap(),
            Record::Sealed {
                publisher: p,
                seq: 3,
                file: b"F"
            }
        );
    }

    #[test]
    fn malformed_records_are_refused_with_a_reason() {
        let p = [1u8; 16];
        let mut r = reading_head(&p, 1, 1, false);
        r.extend_from_slice(&[0u8; 16]);
        assert!(decode(&r, blocks).is_ok());
        for (bytes, why) in [
            (b"AbMX".to_vec(), "bad magic"),
            ([&b"AbMQ"[..], &[2]].concat(), "version 2"),
            (
                [&b"AbMQ"[..], &[1, 9, 0], &[0; 16]].concat(),
                "unknown abbe MQTT record type 9",
            ),
            (
                [&b"AbMQ"[..], &[1, 3, 1], &[0; 16]].concat(),
                "unknown flags",
            ),
            (
                r[..r.len() - 1].to_vec(),
                "shorter than its authentication tag",
            ),
            (reading_head(&p, 1, 1, true), "signature curve"),
            (
                [reading_head(&p, 1, 1, true), vec![2]].concat(),
                "unknown curve id 2",
            ),
            (epoch_key_head(&p, 1), "without its encrypted key"),
            (sealed_head(&p, 1)[..30].to_vec(), "sequence number"),
        ] {
            let e = decode(&bytes, blocks).unwrap_err().to_string();
            assert!(e.contains(why), "{e} lacks {why}");
        }
    }

    #[test]
    fn binding_and_nonce_layouts() {
        let b = binding(&[3u8; 16], 5, "t/x").unwrap();
        assert_eq!(b.len(), 16 + 8 + 2 + 3);
        assert_eq!(&b[16..24], &5u64.to_be_bytes());
        assert_eq!(&b[24..26], &[0, 3]);
        assert!(binding(&[0; 16], 0, &"x".repeat(70_000)).is_err());
        assert_eq!(nonce(0x0102)[10..], [1, 2]);
    }

    proptest! {
        #[test]
        fn decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode(&bytes, blocks);
            let mut b = b"AbMQ\x01".to_vec();
            b.extend_from_slice(&bytes);
            let _ = decode(&b, blocks);
        }
    }
}
