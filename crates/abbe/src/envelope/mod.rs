//! The envelope: a file encrypted to a policy (docs/FORMAT.md).
//!
//! ```text
//! ciphertext file             transformed file (after a proxy's Transform)
//! ─────────────────           ────────────────────────────────────────────
//! preamble (kind 8, v2)       preamble (kind 9, v2)
//! u32 len, KEM header         u32 len, transformed KEM header
//!                             32-byte SHA-256 of the original KEM header
//! 16-byte payload salt        16-byte payload salt
//! AEAD id, flags              AEAD id, flags
//! STREAM payload              the same STREAM payload, unchanged
//! ```
//!
//! The payload key is HKDF-SHA256(session key, salt, "abbe/v2/payload" ‖
//! AEAD id ‖ flags ‖ SHA-256(KEM header)); every chunk is AES-GCM
//! (128, 192 or 256 after the security level, [`Aead::for_curve`]) with the
//! header digest as associated data ([`stream`]). The transformed file
//! carries the digest of the header it replaced, so the final decryption
//! authenticates the payload against the original header.
//!
//! **Signed files** (flags [`FLAG_SIGNED`] | [`FLAG_SIGNER_FIRST`],
//! AES4SeC's integrity and authentication, detabe §III): *inside the
//! encryption*, so only authorised readers learn who signed, the stream is
//! a lead block PK ‖ σ₀, the plaintext, and a signature block PK ‖ σ
//! ([`crate::signature`]). σ₀ signs `"abbe/v2/signed-file-lead" ‖ scheme ‖
//! curve ‖ AEAD ‖ flags ‖ SHA-256(KEM header) ‖ salt`: decryption checks it,
//! and the expected signer, before releasing any plaintext, so a file from
//! anyone else leaves nothing behind even on a stream. σ signs
//! `"abbe/v2/signed-file" ‖ scheme ‖ curve ‖ AEAD ‖ SHA-256(KEM header) ‖
//! u64 plaintext length ‖ H(plaintext)`, H = BLAKE3-256 up to the 128-bit
//! level and SHA-512 above, computed while the plaintext streams (constant
//! memory) on a thread of its own; it is checked after the last chunk (it
//! catches another reader re-encrypting under the payload key, which σ₀
//! cannot). Files with [`FLAG_SIGNED`] alone (the first signed layout: no
//! lead block) are still read; their signer is known only at the end.
//! Decryption always verifies a signature that is present; [`open_with`]
//! can also require one from a given key.
//!
//! Version-1 files (AES-256-GCM, no flags) are still read.

pub mod stream;

use crate::curve::CurveId;
use crate::kem::SessionKey;
use crate::signature::{self, AnySigningKey, SignatureError};
use crate::wire::{ObjectKind, Preamble, WireError, FILE_FORMAT_VERSION, PREAMBLE_LEN};
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256, Sha512};
use std::io::{self, Read, Write};
use std::sync::mpsc;
use std::thread;
pub use stream::{Aead, PayloadKey, StreamError, CHUNK_SIZE};
use zeroize::{Zeroize, Zeroizing};

/// Upper bound on a KEM header inside an envelope: 1 GiB, above the largest
/// header an honest encryptor makes (the ElGamal baseline to all
/// [`crate::bcast::MAX_USERS`] users, 33·(2^24 + 1) bytes = 554 MB; a
/// policy header is a few MB at the default work budget). Files above it
/// are refused when written, so every file written can be read. Reading
/// allocates only what the input holds.
pub const MAX_HEADER_BYTES: usize = 1 << 30;

/// Flag bit: the plaintext is followed by a signature block.
pub const FLAG_SIGNED: u8 = 0x01;

/// Flag bit (with [`FLAG_SIGNED`]): the encrypted stream starts with a lead
/// block PK ‖ σ₀, σ₀ over the head, so the signer is known and checked
/// before the first plaintext byte ([`open_with`]). Written by this build
/// on every signed file; files with [`FLAG_SIGNED`] alone (the first signed
/// layout) are still read.
pub const FLAG_SIGNER_FIRST: u8 = 0x02;

const KNOWN_FLAGS: u8 = FLAG_SIGNED | FLAG_SIGNER_FIRST;

/// Domain separation of the signed message.
const SIGNED_FILE_DOMAIN: &[u8] = b"abbe/v2/signed-file";

/// Domain separation of the lead signature σ₀.
const SIGNED_LEAD_DOMAIN: &[u8] = b"abbe/v2/signed-file-lead";

/// Envelope errors.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("payload: {0}")]
    Stream(#[from] StreamError),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("signature: {0}")]
    Signature(#[from] SignatureError),
    #[error("the file is not signed")]
    NotSigned,
    #[error(
        "signed by another key (fingerprint {found}), not by the expected signer ({expected})"
    )]
    WrongSigner { found: String, expected: String },
    #[error(
        "the signing key is for {key}, the file for {file}: sign with a key of the same level"
    )]
    SignerCurve {
        key: &'static str,
        file: &'static str,
    },
}

/// The head of a ciphertext or transformed file, read before the payload.
#[derive(Debug, Clone)]
pub struct Head {
    pub preamble: Preamble,
    /// File format version: 1 (read only) or 2.
    pub version: u8,
    /// The KEM header (or transformed header) object, with its own preamble.
    pub header: Vec<u8>,
    /// SHA-256 of the original KEM header: the payload's associated data.
    pub header_digest: [u8; 32],
    pub salt: [u8; 16],
    /// The payload's AEAD (AES-256-GCM in version 1).
    pub aead: Aead,
    /// Flag bits ([`FLAG_SIGNED`]); 0 in version 1.
    pub flags: u8,
}

impl Head {
    pub fn is_signed(&self) -> bool {
        self.flags & FLAG_SIGNED != 0
    }

    /// Whether a signed file names and proves its signer before its
    /// plaintext ([`FLAG_SIGNER_FIRST`]). A signed file without it reveals
    /// its signer only after the last byte: written to a stream, its
    /// plaintext leaves before the signer is known.
    pub fn signer_known_first(&self) -> bool {
        self.is_signed() && self.flags & FLAG_SIGNER_FIRST != 0
    }

    /// What the lead signature σ₀ covers: everything in the head that
    /// decides how the payload decrypts, so σ₀ is of this file only.
    fn lead_message(&self) -> Vec<u8> {
        let mut m = SIGNED_LEAD_DOMAIN.to_vec();
        m.extend_from_slice(&[
            self.preamble.scheme as u8,
            self.preamble.curve as u8,
            self.aead as u8,
            self.flags,
        ]);
        m.extend_from_slice(&self.header_digest);
        m.extend_from_slice(&self.salt);
        m
    }

    /// The payload key for `session`.
    pub fn payload_key(&self, session: &SessionKey) -> PayloadKey {
        if self.version == 1 {
            PayloadKey::derive(session.as_bytes(), &self.salt, &self.header_digest)
        } else {
            PayloadKey::derive_v2(
                self.aead,
                self.flags,
                session.as_bytes(),
                &self.salt,
                &self.header_digest,
            )
        }
    }

    /// Bytes of the encoded head.
    pub fn encoded_len(&self) -> usize {
        encoded_head_len(self.preamble.kind, self.version, self.header.len())
    }
}

/// Bytes of a head: preamble, header length and header, the carried digest
/// of a transformed file, salt, and (from version 2) AEAD id and flags.
fn encoded_head_len(kind: ObjectKind, version: u8, header: usize) -> usize {
    let digest = if kind == ObjectKind::TransformedFile {
        32
    } else {
        0
    };
    let suite = if version == 1 { 0 } else { 2 };
    PREAMBLE_LEN + 4 + header + digest + 16 + suite
}

pub fn header_digest(header: &[u8]) -> [u8; 32] {
    Sha256::digest(header).into()
}

/// How much of a ciphertext file's start [`header_span`] and [`head_len`]
/// need: the preamble and the KEM header's length.
pub const SPAN_PREFIX_LEN: usize = PREAMBLE_LEN + 4;

/// Where the KEM header object lies in a ciphertext file (kind 8) that
/// starts with `prefix`, once [`SPAN_PREFIX_LEN`] bytes are in; `None`
/// before, or when `prefix` is not a ciphertext file. For servers that read
/// a head off a stream before parsing it with [`read_head`].
pub fn header_span(prefix: &[u8]) -> Option<std::ops::Range<usize>> {
    let pre = Preamble::parse(prefix).ok()?;
    if pre.kind != ObjectKind::EncryptedFile {
        return None;
    }
    let len: [u8; 4] = prefix.get(PREAMBLE_LEN..SPAN_PREFIX_LEN)?.try_into().ok()?;
    Some(SPAN_PREFIX_LEN..SPAN_PREFIX_LEN.checked_add(u32::from_be_bytes(len) as usize)?)
}

/// The length of the head of a ciphertext file (kind 8) that starts with
/// `prefix`, under the same conditions as [`header_span`].
pub fn head_len(prefix: &[u8]) -> Option<usize> {
    let header = header_span(prefix)?.len();
    header.checked_add(encoded_head_len(ObjectKind::EncryptedFile, prefix[4], 0))
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
        ObjectKind::EncryptedFile | ObjectKind::TransformedFile
    ) {
        return Err(WireError::WrongKind {
            expected: "ciphertext",
            found: preamble.kind.describe(),
        }
        .into());
    }
    let version = pre[4];
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
    // Read, not preallocated: a 12-byte input claiming a 16 MiB header
    // costs what it holds.
    let mut header = Vec::new();
    input
        .take(len as u64)
        .read_to_end(&mut header)
        .map_err(EnvelopeError::Io)?;
    if header.len() != len {
        return Err(WireError::Truncated("KEM header").into());
    }
    check_header_matches(&preamble, &header)?;
    let header_digest = if preamble.kind == ObjectKind::TransformedFile {
        let mut d = [0u8; 32];
        read_exact_or(input, &mut d, "header digest")?;
        d
    } else {
        self::header_digest(&header)
    };
    let mut salt = [0u8; 16];
    read_exact_or(input, &mut salt, "payload salt")?;
    let (aead, flags) = if version == 1 {
        (Aead::Aes256Gcm, 0)
    } else {
        let mut suite = [0u8; 2];
        read_exact_or(input, &mut suite, "AEAD id and flags")?;
        let aead = Aead::from_u8(suite[0]).ok_or_else(|| WireError::Invalid {
            what: "AEAD id",
            detail: format!("unknown AEAD {}", suite[0]),
        })?;
        if suite[1] & !KNOWN_FLAGS != 0 || suite[1] == FLAG_SIGNER_FIRST {
            return Err(WireError::Invalid {
                what: "file flags",
                detail: format!("unknown flag bits {:#04x}", suite[1]),
            }
            .into());
        }
        (aead, suite[1])
    };
    Ok(Head {
        preamble,
        version,
        header,
        header_digest,
        salt,
        aead,
        flags,
    })
}

/// The file's preamble names the scheme and curve of the KEM header it
/// carries, which is the one authenticated (its digest is the payload's
/// associated data): a preamble that says otherwise is refused, so that
/// what `abbe inspect` reports and which code decrypts are the header's.
/// A ciphertext file carries a KEM header (kinds 6, 10, 12), a transformed
/// file a transformed one (7, 13).
fn check_header_matches(file: &Preamble, header: &[u8]) -> Result<(), EnvelopeError> {
    let inner = Preamble::parse(header)?;
    let fits = match file.kind {
        ObjectKind::EncryptedFile => matches!(
            inner.kind,
            ObjectKind::KemHeader | ObjectKind::CcaKemHeader | ObjectKind::RccaKemHeader
        ),
        _ => matches!(
            inner.kind,
            ObjectKind::TransformedKemHeader | ObjectKind::RccaTransformedKemHeader
        ),
    };
    if !fits {
        return Err(WireError::WrongKind {
            expected: if file.kind == ObjectKind::EncryptedFile {
                "KEM header inside a ciphertext file"
            } else {
                "transformed KEM header inside a transformed file"
            },
            found: inner.kind.describe(),
        }
        .into());
    }
    if (inner.scheme, inner.curve) != (file.scheme, file.curve) {
        return Err(WireError::Invalid {
            what: "file preamble",
            detail: format!(
                "it names {} on {}, but its KEM header is {} on {}",
                file.scheme.name(),
                file.curve.label(),
                inner.scheme.name(),
                inner.curve.label()
            ),
        }
        .into());
    }
    Ok(())
}

fn write_head<W: Write>(head: &Head, output: &mut W) -> std::io::Result<()> {
    let mut pre = head.preamble.to_bytes();
    pre[4] = head.version;
    output.write_all(&pre)?;
    output.write_all(&(head.header.len() as u32).to_be_bytes())?;
    output.write_all(&head.header)?;
    if head.preamble.kind == ObjectKind::TransformedFile {
        output.write_all(&head.header_digest)?;
    }
    output.write_all(&head.salt)?;
    if head.version != 1 {
        output.write_all(&[head.aead as u8, head.flags])?;
    }
    Ok(())
}

/// Options of [`seal_with`].
#[derive(Default)]
pub struct SealOptions<'a> {
    /// The payload's AEAD; default: the level of the header's curve.
    pub aead: Option<Aead>,
    /// Sign the header and plaintext with this key (same curve as the header).
    pub signer: Option<&'a AnySigningKey>,
}

/// Writes a ciphertext file: the head for `header` (a KEM header object)
/// and the payload encrypted under `session`. Returns the plaintext length.
pub fn seal<R: Read, W: Write, G: RngCore + CryptoRng>(
    header: &[u8],
    session: &SessionKey,
    rng: &mut G,
    input: R,
    output: W,
) -> Result<u64, EnvelopeError> {
    seal_with(header, session, rng, input, output, &SealOptions::default())
}

/// [`seal`] with a chosen AEAD and an optional signature.
pub fn seal_with<R: Read, W: Write, G: RngCore + CryptoRng>(
    header: &[u8],
    session: &SessionKey,
    rng: &mut G,
    input: R,
    mut output: W,
    options: &SealOptions<'_>,
) -> Result<u64, EnvelopeError> {
    let hp = Preamble::parse(header)?;
    if header.len() > MAX_HEADER_BYTES {
        return Err(WireError::TooLong {
            what: "KEM header",
            len: header.len(),
            max: MAX_HEADER_BYTES,
        }
        .into());
    }
    if let Some(s) = options.signer {
        // Signing keys have one placement: a file in the swapped placement
        // is signed on its underlying curve.
        if s.curve() != hp.curve.unswapped() {
            return Err(EnvelopeError::SignerCurve {
                key: s.curve().name(),
                file: hp.curve.name(),
            });
        }
    }
    let mut salt = [0u8; 16];
    rng.fill_bytes(&mut salt);
    let head = Head {
        preamble: Preamble {
            kind: ObjectKind::EncryptedFile,
            ..hp
        },
        version: FILE_FORMAT_VERSION,
        header: header.to_vec(),
        header_digest: header_digest(header),
        salt,
        aead: options.aead.unwrap_or_else(|| Aead::for_curve(hp.curve)),
        flags: if options.signer.is_some() {
            FLAG_SIGNED | FLAG_SIGNER_FIRST
        } else {
            0
        },
    };
    write_head(&head, &mut output)?;
    let key = head.payload_key(session);
    let n = match options.signer {
        None => stream::encrypt(&key, &head.header_digest, input, &mut output)?,
        Some(signer) => {
            let mut reader = SigningReader {
                inner: input,
                hash: Some(BackgroundHash::new(PlaintextHash::new(&head))),
                signer,
                lead: Some((signer.sign_block(&head.lead_message()), 0)),
                block: None,
                pos: 0,
                len: 0,
            };
            stream::encrypt(&key, &head.header_digest, &mut reader, &mut output)?;
            reader.len
        }
    };
    output.flush()?;
    Ok(n)
}

/// Who signed a file whose signature verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    pub curve: CurveId,
    /// The compressed public key PK.
    pub public_key: Vec<u8>,
    /// [`signature::fingerprint`] of PK.
    pub fingerprint: String,
}

/// What [`open_with`] found.
#[derive(Debug, Clone)]
pub struct Opened {
    /// Plaintext bytes written.
    pub len: u64,
    /// The signer, for a signed file (its signature verified).
    pub signer: Option<Signer>,
}

/// Decrypts the payload that follows `head` in `input`. Writes a chunk only
/// after it authenticated; on error the caller must discard the output.
/// A signed file's signature is verified (by whoever signed it).
pub fn open<R: Read, W: Write>(
    head: &Head,
    session: &SessionKey,
    input: R,
    output: W,
) -> Result<u64, EnvelopeError> {
    Ok(open_with(head, session, input, output, None)?.len)
}

/// [`open`], requiring a signature by `expected` (a verifying-key object)
/// when given. The signature is checked after the last chunk, so on error
/// the caller must discard the output, as for any error.
pub fn open_with<R: Read, W: Write>(
    head: &Head,
    session: &SessionKey,
    input: R,
    mut output: W,
    expected: Option<&[u8]>,
) -> Result<Opened, EnvelopeError> {
    let expected = match expected {
        Some(vk) if !head.is_signed() => {
            // Still a clear answer for a key of the wrong kind.
            signature::verifying_key_point(vk)?;
            return Err(EnvelopeError::NotSigned);
        }
        Some(vk) => Some(signature::verifying_key_point(vk)?),
        None => None,
    };
    let key = head.payload_key(session);
    if !head.is_signed() {
        let len = stream::decrypt(&key, &head.header_digest, input, &mut output)?;
        output.flush()?;
        return Ok(Opened { len, signer: None });
    }
    let curve = head.preamble.curve.unswapped();
    let block_len = signature::block_len(curve).ok_or(SignatureError::NoPairing("P-256"))?;
    let lead = head.signer_known_first().then(|| Lead {
        block: Zeroizing::new(Vec::with_capacity(block_len)),
        message: head.lead_message(),
        curve,
        expected: expected.clone(),
        verified: false,
        failure: None,
    });
    let mut writer = VerifyingWriter {
        inner: &mut output,
        hash: BackgroundHash::new(PlaintextHash::new(head)),
        hold: Zeroizing::new(Vec::with_capacity(block_len)),
        block_len,
        lead,
    };
    let decrypted = stream::decrypt(&key, &head.header_digest, input, &mut writer);
    let VerifyingWriter {
        hold: block,
        hash,
        mut lead,
        ..
    } = writer;
    // A refused lead block stops the stream with an I/O error; say why.
    if let Some(e) = lead.as_mut().and_then(|l| l.failure.take()) {
        return Err(e);
    }
    decrypted?;
    if lead.as_ref().is_some_and(|l| !l.verified) || block.len() != block_len {
        return Err(WireError::Truncated("signature block").into());
    }
    let hash = hash.finish()?;
    let len = hash.len;
    let msg = hash.message();
    signature::verify_block(curve, &block, &msg)?;
    let pk_len = signature::public_key_len(curve).unwrap_or(0);
    let pk = block[..pk_len].to_vec();
    if let Some(l) = &lead {
        if l.block[..pk_len] != pk[..] {
            return Err(SignatureError::Invalid.into());
        }
    }
    let signer = Signer {
        curve,
        fingerprint: signature::fingerprint(curve, &pk),
        public_key: pk,
    };
    if let Some((want_curve, want_pk)) = expected {
        if want_curve != curve || want_pk != signer.public_key {
            return Err(EnvelopeError::WrongSigner {
                found: signer.fingerprint,
                expected: signature::fingerprint(want_curve, &want_pk),
            });
        }
    }
    output.flush()?;
    Ok(Opened {
        len,
        signer: Some(signer),
    })
}

/// The lead block PK ‖ σ₀ of a signer-first file, checked before any
/// plaintext is released.
struct Lead {
    block: Zeroizing<Vec<u8>>,
    message: Vec<u8>,
    curve: CurveId,
    expected: Option<(CurveId, Vec<u8>)>,
    verified: bool,
    failure: Option<EnvelopeError>,
}

impl Lead {
    /// σ₀ must verify under the block's PK, and PK be the expected signer.
    fn check(&self) -> Result<(), EnvelopeError> {
        signature::verify_block(self.curve, &self.block, &self.message)?;
        let pk = &self.block[..signature::public_key_len(self.curve).unwrap_or(0)];
        match &self.expected {
            Some((curve, want)) if *curve != self.curve || want[..] != *pk => {
                Err(EnvelopeError::WrongSigner {
                    found: signature::fingerprint(self.curve, pk),
                    expected: signature::fingerprint(*curve, want),
                })
            }
            _ => Ok(()),
        }
    }
}

/// H(plaintext) with the length, and the message a signature covers.
struct PlaintextHash {
    prefix: Vec<u8>,
    hash: Hash,
    len: u64,
}

enum Hash {
    Blake3(Box<blake3::Hasher>),
    Sha512(Box<Sha512>),
}

impl PlaintextHash {
    fn new(head: &Head) -> PlaintextHash {
        let mut prefix = SIGNED_FILE_DOMAIN.to_vec();
        prefix.extend_from_slice(&[
            head.preamble.scheme as u8,
            head.preamble.curve as u8,
            head.aead as u8,
        ]);
        prefix.extend_from_slice(&head.header_digest);
        // BLAKE3 (128-bit security, several times SHA-256's speed:
        // `--example envelope_speed`) up to the 128-bit level; SHA-512
        // (256-bit collision resistance) above it.
        let hash = if head.preamble.curve.level() > 128 {
            Hash::Sha512(Box::new(Sha512::new()))
        } else {
            Hash::Blake3(Box::default())
        };
        PlaintextHash {
            prefix,
            hash,
            len: 0,
        }
    }

    fn update(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        match &mut self.hash {
            Hash::Blake3(h) => {
                h.update(data);
            }
            Hash::Sha512(h) => h.update(data),
        }
    }

    /// prefix ‖ u64 length ‖ H(plaintext).
    fn message(self) -> Vec<u8> {
        let mut m = self.prefix;
        m.extend_from_slice(&self.len.to_be_bytes());
        match self.hash {
            Hash::Blake3(h) => m.extend_from_slice(h.finalize().as_bytes()),
            Hash::Sha512(h) => m.extend_from_slice(&h.finalize()),
        }
        m
    }
}

/// Hashing on a thread of its own, so that a signed file's hash runs beside
/// the encryption (the stream's workers) instead of after it, which lowers
/// the signing overhead against hashing on the reading thread (measured
/// both ways by `--example envelope_speed`). Data is
/// staged in 1 MiB buffers (plaintext: wiped when done); a stream shorter
/// than one buffer is hashed on the calling thread, and so is everything when
/// the current rayon pool has one thread (abbe's one knob for parallelism).
struct BackgroundHash {
    /// Whether a thread of its own may hash.
    background: bool,
    inline: Option<PlaintextHash>,
    stage: Vec<u8>,
    to_hasher: Option<mpsc::SyncSender<Vec<u8>>>,
    from_hasher: Option<mpsc::Receiver<Vec<u8>>>,
    hasher: Option<thread::JoinHandle<PlaintextHash>>,
}

const HASH_STAGE: usize = 1 << 20;

impl BackgroundHash {
    fn new(hash: PlaintextHash) -> BackgroundHash {
        BackgroundHash {
            background: rayon::current_num_threads() > 1,
            inline: Some(hash),
            stage: Vec::new(),
            to_hasher: None,
            from_hasher: None,
            hasher: None,
        }
    }

    fn update(&mut self, mut data: &[u8]) -> io::Result<()> {
        if !self.background {
            self.inline.as_mut().ok_or_else(hasher_failed)?.update(data);
            return Ok(());
        }
        while !data.is_empty() {
            if self.stage.capacity() == 0 {
                self.stage = self.empty_buffer()?;
            }
            let n = (HASH_STAGE - self.stage.len()).min(data.len());
            self.stage.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.stage.len() == HASH_STAGE {
                self.send_stage()?;
            }
        }
        Ok(())
    }

    /// A buffer to stage into: new while fewer than three circulate, else one
    /// the hasher has finished with.
    fn empty_buffer(&mut self) -> io::Result<Vec<u8>> {
        match &self.from_hasher {
            Some(rx) => rx.recv().map_err(|_| hasher_failed()),
            None => Ok(Vec::with_capacity(HASH_STAGE)),
        }
    }

    fn send_stage(&mut self) -> io::Result<()> {
        if self.to_hasher.is_none() {
            let mut hash = self.inline.take().ok_or_else(hasher_failed)?;
            let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(2);
            let (back_tx, back_rx) = mpsc::sync_channel::<Vec<u8>>(3);
            for _ in 0..2 {
                let _ = back_tx.send(Vec::with_capacity(HASH_STAGE));
            }
            self.hasher = Some(thread::spawn(move || {
                for mut buf in rx {
                    hash.update(&buf);
                    buf.zeroize();
                    buf.clear();
                    // The receiver may be gone after an error: then stop.
                    if back_tx.send(buf).is_err() {
                        break;
                    }
                }
                hash
            }));
            self.to_hasher = Some(tx);
            self.from_hasher = Some(back_rx);
        }
        let buf = std::mem::take(&mut self.stage);
        self.to_hasher
            .as_ref()
            .ok_or_else(hasher_failed)?
            .send(buf)
            .map_err(|_| hasher_failed())
    }

    /// Waits for the hasher and returns the finished hash.
    fn finish(mut self) -> io::Result<PlaintextHash> {
        if let Some(mut hash) = self.inline.take() {
            hash.update(&self.stage);
            return Ok(hash);
        }
        if !self.stage.is_empty() {
            self.send_stage()?;
        }
        self.to_hasher = None;
        let hasher = self.hasher.take().ok_or_else(hasher_failed)?;
        hasher.join().map_err(|_| hasher_failed())
    }
}

impl Drop for BackgroundHash {
    fn drop(&mut self) {
        self.stage.zeroize();
        // Closing the channel ends the hasher thread (detached if not joined).
        self.to_hasher = None;
    }
}

fn hasher_failed() -> io::Error {
    io::Error::other("the hashing thread stopped unexpectedly")
}

/// The lead block, the plaintext, then the signature block once the
/// plaintext has ended.
struct SigningReader<'a, R> {
    inner: R,
    hash: Option<BackgroundHash>,
    signer: &'a AnySigningKey,
    /// PK ‖ σ₀ and how much of it was read.
    lead: Option<(Vec<u8>, usize)>,
    block: Option<Vec<u8>>,
    pos: usize,
    /// Plaintext bytes read.
    len: u64,
}

impl<R: Read> Read for SigningReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some((lead, pos)) = &mut self.lead {
            let n = (lead.len() - *pos).min(buf.len());
            buf[..n].copy_from_slice(&lead[*pos..*pos + n]);
            *pos += n;
            if *pos == lead.len() {
                self.lead = None;
            }
            return Ok(n);
        }
        if self.block.is_none() {
            let n = self.inner.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.len += n as u64;
                if let Some(h) = &mut self.hash {
                    h.update(&buf[..n])?;
                }
                return Ok(n);
            }
            let hash = self.hash.take().ok_or_else(hasher_failed)?.finish()?;
            self.block = Some(self.signer.sign_block(&hash.message()));
        }
        let block = self.block.as_deref().unwrap_or_default();
        let n = (block.len() - self.pos).min(buf.len());
        buf[..n].copy_from_slice(&block[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Passes the plaintext through, holding back the last `block_len` bytes
/// (the signature block) and hashing what it releases; in a signer-first
/// file it first takes the lead block and releases nothing until it
/// verified.
struct VerifyingWriter<'a, W: Write> {
    inner: &'a mut W,
    hash: BackgroundHash,
    /// Plaintext until more arrives: wiped when dropped.
    hold: Zeroizing<Vec<u8>>,
    block_len: usize,
    lead: Option<Lead>,
}

impl<W: Write> VerifyingWriter<'_, W> {
    fn release(&mut self, data: &[u8]) -> io::Result<()> {
        self.hash.update(data)?;
        self.inner.write_all(data)
    }

    /// Takes the lead block's bytes from the front of `buf`; returns the rest.
    fn take_lead<'b>(&mut self, buf: &'b [u8]) -> io::Result<&'b [u8]> {
        let Some(lead) = self.lead.as_mut().filter(|l| !l.verified) else {
            return Ok(buf);
        };
        let n = (self.block_len - lead.block.len()).min(buf.len());
        lead.block.extend_from_slice(&buf[..n]);
        if lead.block.len() == self.block_len {
            if let Err(e) = lead.check() {
                let why = e.to_string();
                lead.failure = Some(e);
                return Err(io::Error::other(why));
            }
            lead.verified = true;
        }
        Ok(&buf[n..])
    }
}

impl<W: Write> Write for VerifyingWriter<'_, W> {
    fn write(&mut self, all: &[u8]) -> io::Result<usize> {
        let buf = self.take_lead(all)?;
        let t = self.block_len;
        if buf.len() >= t {
            // Everything held and all of `buf` but its last t bytes are
            // plaintext; the last t bytes are held instead (the buffer is
            // reused: at most t bytes, overwritten by exactly t).
            let mut held = std::mem::take(&mut self.hold);
            self.release(&held)?;
            self.release(&buf[..buf.len() - t])?;
            held.clear();
            held.extend_from_slice(&buf[buf.len() - t..]);
            self.hold = held;
        } else {
            self.hold.extend_from_slice(buf);
            if self.hold.len() > t {
                let extra = self.hold.len() - t;
                let out = Zeroizing::new(self.hold.drain(..extra).collect::<Vec<u8>>());
                self.release(&out)?;
            }
        }
        Ok(all.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
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
            kind: ObjectKind::TransformedFile,
            ..hp
        },
        header: transformed_header.to_vec(),
        ..head.clone()
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
    use crate::kem::Authority;
    use crate::kem::{Kem, Outsourcing};
    use crate::policy::{AttributeSet, Policy};
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn seal_open_and_transform() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
        let (pk, mk) = W::setup(&Default::default(), &mut rng).unwrap();
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
        assert_eq!(thead.preamble.kind, ObjectKind::TransformedFile);
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

    type W = Waters11<Bls12>;

    fn encapsulated(seed: u64) -> (Vec<u8>, SessionKey, crate::abe::waters11::UserKey<Bls12>) {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let (pk, mk) = W::setup(&Default::default(), &mut rng).unwrap();
        let (session, header) =
            W::encapsulate(&pk, &Policy::parse("a and b").unwrap(), &mut rng).unwrap();
        let key = W::keygen(&pk, &mk, &AttributeSet::parse("a, b").unwrap(), &mut rng).unwrap();
        (header.to_bytes(), session, key)
    }

    fn open_file(
        file: &[u8],
        key: &crate::abe::waters11::UserKey<Bls12>,
        expected: Option<&[u8]>,
    ) -> Result<(Vec<u8>, Opened), EnvelopeError> {
        let mut cur = file;
        let head = read_head(&mut cur)?;
        let k = W::decapsulate(key, &Header::<Bls12>::from_bytes(&head.header).unwrap()).unwrap();
        let mut out = Vec::new();
        let o = open_with(&head, &k, cur, &mut out, expected)?;
        Ok((out, o))
    }

    /// In a one-thread rayon pool everything (stream and hash) runs on the
    /// calling thread, and files are the same as with threads.
    #[test]
    fn one_thread_pool_seals_and_opens_alike() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (header, session, key) = encapsulated(2);
        let any = AnySigningKey::from_bytes(
            &crate::signature::Bls::<Bls12>::keygen(&mut rand_chacha::ChaCha20Rng::seed_from_u64(
                8,
            ))
            .to_bytes(),
        )
        .unwrap();
        let vk = any.verifying_key();
        let data: Vec<u8> = (0..3 * HASH_STAGE + 5).map(|i| (i * 13) as u8).collect();
        let seal_here = || {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
            let mut file = Vec::new();
            let opts = SealOptions {
                aead: None,
                signer: Some(&any),
            };
            seal_with(&header, &session, &mut rng, &data[..], &mut file, &opts).unwrap();
            file
        };
        let single = pool.install(seal_here);
        let threaded = seal_here();
        assert_eq!(single, threaded);
        let (out, _) = pool
            .install(|| open_file(&single, &key, Some(&vk)))
            .unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn signed_files_verify_and_reject_tampering() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let (header, session, key) = encapsulated(4);
        let signer = crate::signature::Bls::<Bls12>::keygen(&mut rng);
        let any = AnySigningKey::from_bytes(&signer.to_bytes()).unwrap();
        let vk = any.verifying_key();
        let other = crate::signature::Bls::<Bls12>::keygen(&mut rng)
            .verifying_key()
            .to_bytes();
        for len in [
            0usize,
            1,
            143,
            144,
            145,
            CHUNK_SIZE - 144,
            CHUNK_SIZE,
            3 * CHUNK_SIZE + 7,
        ] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let mut file = Vec::new();
            let opts = SealOptions {
                aead: None,
                signer: Some(&any),
            };
            let n = seal_with(&header, &session, &mut rng, &data[..], &mut file, &opts).unwrap();
            assert_eq!(n, len as u64);
            let (out, o) = open_file(&file, &key, Some(&vk)).unwrap();
            assert_eq!(out, data);
            assert_eq!(o.len, len as u64);
            let s = o.signer.unwrap();
            assert_eq!(
                s.fingerprint,
                crate::signature::fingerprint(CurveId::Bls12_381, &s.public_key)
            );
            // Without a required signer the signature is still verified.
            assert_eq!(open_file(&file, &key, None).unwrap().0, data);
            // Another expected signer is refused.
            assert!(matches!(
                open_file(&file, &key, Some(&other)),
                Err(EnvelopeError::WrongSigner { .. })
            ));
        }
        // Clearing the signed flag changes the payload key: rejected.
        let mut file = Vec::new();
        let opts = SealOptions {
            aead: None,
            signer: Some(&any),
        };
        seal_with(&header, &session, &mut rng, &b"hello"[..], &mut file, &opts).unwrap();
        let flags_at = 8 + 4 + header.len() + 16 + 1;
        assert_eq!(file[flags_at], FLAG_SIGNED | FLAG_SIGNER_FIRST);
        // The lead-block flag alone is not a layout.
        let mut lead_only = file.clone();
        lead_only[flags_at] = FLAG_SIGNER_FIRST;
        assert!(read_head(&mut &lead_only[..]).is_err());
        let mut unsigned = file.clone();
        unsigned[flags_at] = 0;
        assert!(open_file(&unsigned, &key, None).is_err());
        // An unsigned file is refused when a signer is required.
        let mut plain = Vec::new();
        seal(&header, &session, &mut rng, &b"hello"[..], &mut plain).unwrap();
        assert!(matches!(
            open_file(&plain, &key, Some(&vk)),
            Err(EnvelopeError::NotSigned)
        ));
        // A signing key of another level is refused when sealing.
        let bn = crate::signature::Bls::<crate::curve::Bn254>::keygen(&mut rng);
        let bn = AnySigningKey::from_bytes(&bn.to_bytes()).unwrap();
        let opts = SealOptions {
            aead: None,
            signer: Some(&bn),
        };
        assert!(matches!(
            seal_with(&header, &session, &mut rng, &b"x"[..], Vec::new(), &opts),
            Err(EnvelopeError::SignerCurve { .. })
        ));
    }

    /// A forged signature block (valid encryption, signature by someone
    /// else over other data) is rejected: the key holder cannot re-sign as
    /// the owner.
    #[test]
    fn forged_signature_blocks_are_rejected() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(8);
        let (header, session, key) = encapsulated(5);
        let owner = crate::signature::Bls::<Bls12>::keygen(&mut rng);
        let owner = AnySigningKey::from_bytes(&owner.to_bytes()).unwrap();
        // The payload is "data" ‖ block signed over other data.
        let mut bogus = b"data".to_vec();
        bogus.extend_from_slice(&owner.sign_block(b"something else"));
        let head = test_head(&header, FLAG_SIGNED);
        let mut file = Vec::new();
        write_head(&head, &mut file).unwrap();
        stream::encrypt(
            &head.payload_key(&session),
            &head.header_digest,
            &bogus[..],
            &mut file,
        )
        .unwrap();
        assert!(matches!(
            open_file(&file, &key, Some(&owner.verifying_key())),
            Err(EnvelopeError::Signature(SignatureError::Invalid))
        ));
        // Shorter than a signature block.
        let mut short = Vec::new();
        write_head(&head, &mut short).unwrap();
        stream::encrypt(
            &head.payload_key(&session),
            &head.header_digest,
            &b"abc"[..],
            &mut short,
        )
        .unwrap();
        assert!(open_file(&short, &key, None).is_err());
    }

    /// Every head `seal` writes reads back: an ElGamal header to 10^6
    /// recipients (33 MB) was once above the reader's 16 MiB limit, so the
    /// CLI wrote files nobody could open.
    #[test]
    fn million_recipient_headers_read_back() {
        let pre = Preamble::new(
            ObjectKind::KemHeader,
            crate::wire::SchemeId::ElGamalP256,
            CurveId::P256,
        );
        let mut header = pre.to_bytes().to_vec();
        header.resize(8 + 33 * 1_000_001, 0x5a);
        let mut file = Vec::new();
        write_head(&test_head(&header, 0), &mut file).unwrap();
        let back = read_head(&mut &file[..]).unwrap();
        assert_eq!(back.header, header);
    }

    /// The head of a version-2 file with AES-256-GCM, a fixed salt and
    /// `flags`.
    fn test_head(header: &[u8], flags: u8) -> Head {
        let hp = Preamble::parse(header).unwrap();
        Head {
            preamble: Preamble {
                kind: ObjectKind::EncryptedFile,
                ..hp
            },
            version: FILE_FORMAT_VERSION,
            header: header.to_vec(),
            header_digest: header_digest(header),
            salt: [9; 16],
            aead: Aead::Aes256Gcm,
            flags,
        }
    }

    /// A file and the head it was sealed with, whose stream is `stream`
    /// (lead block, plaintext and trailing block as an attacker lays them).
    fn crafted(header: &[u8], session: &SessionKey, flags: u8, stream_bytes: &[u8]) -> Vec<u8> {
        let head = test_head(header, flags);
        let mut file = Vec::new();
        write_head(&head, &mut file).unwrap();
        stream::encrypt(
            &head.payload_key(session),
            &head.header_digest,
            stream_bytes,
            &mut file,
        )
        .unwrap();
        file
    }

    /// With an expected signer, a file signed by anyone else — or claiming
    /// the expected signer without its signature — releases not one byte:
    /// the lead block is checked before the plaintext.
    #[test]
    fn a_foreign_signer_releases_nothing() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        let (header, session, key) = encapsulated(12);
        let owner = crate::signature::Bls::<Bls12>::keygen(&mut rng);
        let owner = AnySigningKey::from_bytes(&owner.to_bytes()).unwrap();
        let attacker = crate::signature::Bls::<Bls12>::keygen(&mut rng);
        let attacker = AnySigningKey::from_bytes(&attacker.to_bytes()).unwrap();
        let content = vec![b'A'; 3 * CHUNK_SIZE + 5];
        let opened = |file: &[u8]| {
            let mut cur = file;
            let head = read_head(&mut cur).unwrap();
            let k =
                W::decapsulate(&key, &Header::<Bls12>::from_bytes(&head.header).unwrap()).unwrap();
            let mut out = Vec::new();
            let r = open_with(&head, &k, cur, &mut out, Some(&owner.verifying_key()));
            (r, out)
        };
        // Signed, honestly, by the attacker.
        let mut file = Vec::new();
        let opts = SealOptions {
            aead: None,
            signer: Some(&attacker),
        };
        seal_with(&header, &session, &mut rng, &content[..], &mut file, &opts).unwrap();
        let (r, out) = opened(&file);
        assert!(matches!(r, Err(EnvelopeError::WrongSigner { .. })), "{r:?}");
        assert!(out.is_empty(), "{} bytes released", out.len());
        // The owner's PK in the lead block, with a signature over something
        // else (the attacker cannot sign this head as the owner).
        let flags = FLAG_SIGNED | FLAG_SIGNER_FIRST;
        let mut forged = owner.sign_block(b"another file's head");
        forged.extend_from_slice(&content);
        forged.extend_from_slice(&attacker.sign_block(b"whatever"));
        let (r, out) = opened(&crafted(&header, &session, flags, &forged));
        assert!(
            matches!(r, Err(EnvelopeError::Signature(SignatureError::Invalid))),
            "{r:?}"
        );
        assert!(out.is_empty(), "{} bytes released", out.len());
        // A valid lead by the owner but a trailing block by someone else
        // (another reader re-encrypting under the payload key): refused at
        // the end.
        let head = test_head(&header, flags);
        let mut mixed = owner.sign_block(&head.lead_message());
        mixed.extend_from_slice(b"replaced content");
        mixed.extend_from_slice(&attacker.sign_block(b"replaced content"));
        let (r, _) = opened(&crafted(&header, &session, flags, &mixed));
        assert!(r.is_err());
        // The first signed layout (no lead block) is still read.
        let mut legacy = content.clone();
        let mut hash = PlaintextHash::new(&Head {
            flags: FLAG_SIGNED,
            ..head.clone()
        });
        hash.update(&content);
        legacy.extend_from_slice(&owner.sign_block(&hash.message()));
        let file = crafted(&header, &session, FLAG_SIGNED, &legacy);
        let (r, out) = opened(&file);
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(out, content);
        assert!(!read_head(&mut &file[..]).unwrap().signer_known_first());
    }

    #[test]
    fn aead_follows_the_level_and_version_1_files_still_open() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(6);
        let (header, session, key) = encapsulated(7);
        let mut file = Vec::new();
        seal(&header, &session, &mut rng, &b"level"[..], &mut file).unwrap();
        let head = read_head(&mut &file[..]).unwrap();
        assert_eq!(
            (head.version, head.aead, head.flags),
            (2, Aead::Aes256Gcm, 0)
        );
        assert_eq!(head_len(&file), Some(head.encoded_len()));
        let span = header_span(&file[..SPAN_PREFIX_LEN]).unwrap();
        assert_eq!(&file[span], &header[..]);
        assert_eq!(header_span(&file[..SPAN_PREFIX_LEN - 1]), None);
        for aead in [Aead::Aes128Gcm, Aead::Aes192Gcm, Aead::Aes256Gcm] {
            let mut f = Vec::new();
            let opts = SealOptions {
                aead: Some(aead),
                signer: None,
            };
            seal_with(&header, &session, &mut rng, &b"x"[..], &mut f, &opts).unwrap();
            assert_eq!(read_head(&mut &f[..]).unwrap().aead, aead);
            assert_eq!(open_file(&f, &key, None).unwrap().0, b"x");
            // Changing the AEAD id changes the key: rejected.
            let at = 8 + 4 + header.len() + 16;
            let mut g = f.clone();
            g[at] = if aead == Aead::Aes128Gcm { 3 } else { 1 };
            assert!(open_file(&g, &key, None).is_err());
            g[at] = 9;
            assert!(open_file(&g, &key, None).is_err());
        }
        // A version-1 file (AES-256-GCM, "abbe/v1/payload", no suite bytes).
        let hp = Preamble::parse(&header).unwrap();
        let mut v1 = hp.to_bytes();
        v1[5] = ObjectKind::EncryptedFile as u8;
        let mut file = v1.to_vec();
        file.extend_from_slice(&(header.len() as u32).to_be_bytes());
        file.extend_from_slice(&header);
        file.extend_from_slice(&[9; 16]);
        let key1 = PayloadKey::derive(session.as_bytes(), &[9; 16], &header_digest(&header));
        stream::encrypt(&key1, &header_digest(&header), &b"old file"[..], &mut file).unwrap();
        let head = read_head(&mut &file[..]).unwrap();
        assert_eq!((head.version, head.aead), (1, Aead::Aes256Gcm));
        assert_eq!(head_len(&file), Some(head.encoded_len()));
        assert_eq!(open_file(&file, &key, None).unwrap().0, b"old file");
    }

    proptest::proptest! {
        /// Random bytes, and random bytes behind a valid preamble, never
        /// make the head decoder panic or allocate beyond its bound.
        #[test]
        fn read_head_never_panics(tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300), kind in 0u8..12, version in 1u8..3) {
            let _ = read_head(&mut &tail[..]);
            let _ = head_len(&tail);
            let _ = header_span(&tail);
            let mut b = b"ABBE".to_vec();
            b.extend_from_slice(&[version, kind, 1, 1]);
            let _ = head_len(&b);
            b.extend_from_slice(&tail);
            let _ = read_head(&mut &b[..]);
        }
    }

    #[test]
    fn heads_are_strict() {
        for bytes in [
            &b""[..],
            b"ABBE",
            b"ABBE\x03\x08\x01\x01",
            b"ABBE\x02\x06\x01\x01",
            b"ABBE\x01\x08\x01\x01\xff\xff\xff\xff",
            b"XXXXXXXXXXXXXXXX",
        ] {
            assert!(read_head(&mut &bytes[..]).is_err());
        }
    }
}
