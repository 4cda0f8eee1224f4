//! Streaming payload encryption (STREAM construction, modelled on `age`).
//!
//! The payload of an envelope is split into chunks of [`CHUNK_SIZE`] plaintext
//! bytes, each sealed independently with AES-GCM; the key size ([`Aead`]:
//! AES-128/192/256-GCM) follows the file's security level:
//!
//! * **Key**: [`PayloadKey::derive_v2`] = HKDF-SHA256(ikm = session key,
//!   salt = 16-byte per-envelope salt, info = `"abbe/v2/payload" || aead ||
//!   flags || header_digest`), 16, 24 or 32 bytes of output. Version-1 files
//!   ([`PayloadKey::derive`]) use AES-256-GCM and info
//!   `"abbe/v1/payload" || header_digest`.
//! * **Nonce** (12 bytes): an 11-byte big-endian chunk counter starting at 0,
//!   followed by one flag byte that is `0x01` on the last chunk and `0x00` on
//!   every other chunk.
//! * **Associated data**: the 32-byte `header_digest` (SHA-256 of the KEM
//!   header), so a payload cannot be transplanted under another header.
//! * **Chunking**: every chunk but the last holds exactly [`CHUNK_SIZE`]
//!   plaintext bytes. The last chunk holds 1..=[`CHUNK_SIZE`] bytes, and is empty
//!   only when the whole plaintext is empty, so there is always at least one
//!   chunk and every plaintext has exactly one encoding.
//! * **Ciphertext chunk** = sealed plaintext chunk || 16-byte GCM tag. The
//!   payload is the concatenation of the ciphertext chunks, with nothing after
//!   the last one (see [`ciphertext_len`]).
//!
//! Decryption rejects truncation (also at a chunk boundary), trailing data,
//! reordered, duplicated or modified chunks, and a non-canonical empty last
//! chunk. Because the payload is processed as a stream, [`decrypt`] may already
//! have written the plaintext of the chunks that authenticated *before* an
//! error is detected; callers must treat the output as invalid and discard it
//! when an error is returned. No byte of a chunk is ever written before that
//! chunk authenticated.
//!
//! Memory use is constant (a bounded number of chunk buffers) whatever the
//! payload size. Large payloads are processed by a small pipeline of worker
//! threads; the output is byte-for-byte identical to single-threaded
//! processing.

use std::fmt;
use std::io::{self, Read, Write};

use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::{Aes128Gcm, Aes256Gcm, AesGcm, Nonce, Tag};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Number of plaintext bytes per chunk.
pub const CHUNK_SIZE: usize = 64 * 1024;

/// Size of the AES-GCM authentication tag appended to every chunk.
pub const TAG_SIZE: usize = 16;

/// Size of a full ciphertext chunk (plaintext chunk + tag).
pub const ENCRYPTED_CHUNK_SIZE: usize = CHUNK_SIZE + TAG_SIZE;

/// Largest payload key in bytes (AES-256).
pub const PAYLOAD_KEY_SIZE: usize = 32;

/// HKDF info prefix for version-1 payload keys; the header digest is appended.
const PAYLOAD_INFO: &[u8] = b"abbe/v1/payload";

/// HKDF info prefix for version-2 payload keys; the AEAD id, the flags and
/// the header digest are appended, so neither can be changed in transit.
const PAYLOAD_INFO_V2: &[u8] = b"abbe/v2/payload";

/// The payload's AEAD. The byte value is the file format's AEAD id.
///
/// A security level pairs a curve with a key size ([`Aead::for_curve`]):
/// BN254 (~100-bit) with AES-128-GCM, BLS12-381 and P-256 (~128-bit) with
/// AES-256-GCM, BLS24-479 (~192-bit) with AES-192-GCM, BLS48-581 (256-bit)
/// with AES-256-GCM. At the 128-bit level AES-256 rather than AES-128: many
/// files each under its own key give a multi-target attacker a factor of the
/// number of keys against AES-128, and the cost here is small (see
/// docs/FORMAT.md for measurements); it also keeps the AES of every
/// version-1 file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Aead {
    Aes128Gcm = 1,
    Aes192Gcm = 2,
    Aes256Gcm = 3,
}

impl Aead {
    pub fn from_u8(v: u8) -> Option<Aead> {
        match v {
            1 => Some(Aead::Aes128Gcm),
            2 => Some(Aead::Aes192Gcm),
            3 => Some(Aead::Aes256Gcm),
            _ => None,
        }
    }

    /// Key size in bytes.
    pub fn key_len(self) -> usize {
        match self {
            Aead::Aes128Gcm => 16,
            Aead::Aes192Gcm => 24,
            Aead::Aes256Gcm => 32,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Aead::Aes128Gcm => "AES-128-GCM",
            Aead::Aes192Gcm => "AES-192-GCM",
            Aead::Aes256Gcm => "AES-256-GCM",
        }
    }

    /// The AEAD of the security level of `curve`.
    pub fn for_curve(curve: crate::curve::CurveId) -> Aead {
        use crate::curve::CurveId;
        match curve.unswapped() {
            CurveId::Bn254 => Aead::Aes128Gcm,
            CurveId::Bls12_381 | CurveId::P256 => Aead::Aes256Gcm,
            CurveId::Bls24_479 => Aead::Aes192Gcm,
            _ => Aead::Aes256Gcm,
        }
    }
}

type Aes192Gcm = AesGcm<aes::Aes192, U12>;

/// A keyed AES-GCM of any of the three key sizes.
enum ChunkCipher {
    Aes128(Box<Aes128Gcm>),
    Aes192(Box<Aes192Gcm>),
    Aes256(Box<Aes256Gcm>),
}

impl ChunkCipher {
    fn encrypt_in_place_detached(
        &self,
        nonce: &Nonce<U12>,
        aad: &[u8],
        data: &mut [u8],
    ) -> aes_gcm::aead::Result<Tag> {
        match self {
            ChunkCipher::Aes128(c) => c.encrypt_in_place_detached(nonce, aad, data),
            ChunkCipher::Aes192(c) => c.encrypt_in_place_detached(nonce, aad, data),
            ChunkCipher::Aes256(c) => c.encrypt_in_place_detached(nonce, aad, data),
        }
    }

    fn decrypt_in_place_detached(
        &self,
        nonce: &Nonce<U12>,
        aad: &[u8],
        data: &mut [u8],
        tag: &Tag,
    ) -> aes_gcm::aead::Result<()> {
        match self {
            ChunkCipher::Aes128(c) => c.decrypt_in_place_detached(nonce, aad, data, tag),
            ChunkCipher::Aes192(c) => c.decrypt_in_place_detached(nonce, aad, data, tag),
            ChunkCipher::Aes256(c) => c.decrypt_in_place_detached(nonce, aad, data, tag),
        }
    }
}

/// Maximum number of worker threads used by [`encrypt`] and [`decrypt`].
const MAX_AUTO_WORKERS: usize = 4;

/// Errors returned by [`encrypt`] and [`decrypt`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// Reading the input or writing the output failed.
    #[error("payload I/O error: {0}")]
    Io(#[from] io::Error),

    /// The payload ends early: it is empty, ends inside a chunk too short to
    /// hold a tag, or its last chunk is missing (truncation at a chunk
    /// boundary).
    #[error("payload is truncated")]
    Truncated,

    /// A valid last chunk is followed by more data. This is recognised when
    /// the last chunk is full; bytes appended after a shorter last chunk
    /// become part of it and are reported as [`StreamError::Authentication`].
    #[error("unexpected data after the last payload chunk")]
    TrailingData,

    /// The chunk with this index (counting from 0) failed authentication: it
    /// was modified, reordered, duplicated, truncated inside, had data
    /// appended, or the key or header digest is wrong.
    #[error(
        "payload chunk {chunk} failed authentication (corrupted data, wrong key or wrong header)"
    )]
    Authentication {
        /// Index of the offending chunk.
        chunk: u64,
    },

    /// The payload ends with an empty chunk although it is not the only
    /// chunk (non-canonical encoding).
    #[error("payload chunk {chunk} is an empty last chunk after non-empty data")]
    EmptyLastChunk {
        /// Index of the offending chunk.
        chunk: u64,
    },

    /// The payload exceeds the maximum length representable by the format
    /// (chunk counter or byte count overflow).
    #[error("payload is too long")]
    TooLong,

    /// A worker thread of the pipeline stopped unexpectedly.
    #[error("payload worker thread terminated unexpectedly")]
    WorkerFailed,
}

/// Symmetric key for the payload stream, zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct PayloadKey {
    /// The first `aead.key_len()` bytes are the key; the rest stay zero.
    key: [u8; PAYLOAD_KEY_SIZE],
    #[zeroize(skip)]
    aead: Aead,
}

impl PayloadKey {
    /// Derives the payload key:
    /// HKDF-SHA256(ikm = `session_key`, salt = `salt`,
    /// info = `"abbe/v1/payload" || header_digest`), 32 bytes.
    pub fn derive(session_key: &[u8], salt: &[u8; 16], header_digest: &[u8; 32]) -> PayloadKey {
        let hk = Hkdf::<Sha256>::new(Some(salt), session_key);
        let mut key = [0u8; PAYLOAD_KEY_SIZE];
        // 32 bytes is far below HKDF-SHA256's 255 * 32 byte limit.
        hk.expand_multi_info(&[PAYLOAD_INFO, header_digest], &mut key)
            .expect("32 bytes is a valid HKDF-SHA256 output length");
        PayloadKey {
            key,
            aead: Aead::Aes256Gcm,
        }
    }

    /// Derives a version-2 payload key for `aead`:
    /// HKDF-SHA256(ikm = `session_key`, salt = `salt`,
    /// info = `"abbe/v2/payload" || aead || flags || header_digest`),
    /// `aead.key_len()` bytes.
    pub fn derive_v2(
        aead: Aead,
        flags: u8,
        session_key: &[u8],
        salt: &[u8; 16],
        header_digest: &[u8; 32],
    ) -> PayloadKey {
        let hk = Hkdf::<Sha256>::new(Some(salt), session_key);
        let mut key = [0u8; PAYLOAD_KEY_SIZE];
        hk.expand_multi_info(
            &[PAYLOAD_INFO_V2, &[aead as u8, flags], header_digest],
            &mut key[..aead.key_len()],
        )
        .expect("at most 32 bytes is a valid HKDF-SHA256 output length");
        PayloadKey { key, aead }
    }

    /// Wraps raw AES-256 key bytes (for example a key unwrapped by other means).
    pub fn from_bytes(key: [u8; PAYLOAD_KEY_SIZE]) -> PayloadKey {
        PayloadKey {
            key,
            aead: Aead::Aes256Gcm,
        }
    }

    /// The raw key bytes (handle with care: they are secret).
    pub fn as_bytes(&self) -> &[u8] {
        &self.key[..self.aead.key_len()]
    }

    pub fn aead(&self) -> Aead {
        self.aead
    }

    fn cipher(&self) -> ChunkCipher {
        let k = self.as_bytes();
        // The lengths match the AEAD by construction.
        match self.aead {
            Aead::Aes128Gcm => {
                ChunkCipher::Aes128(Box::new(Aes128Gcm::new_from_slice(k).expect("16-byte key")))
            }
            Aead::Aes192Gcm => {
                ChunkCipher::Aes192(Box::new(Aes192Gcm::new_from_slice(k).expect("24-byte key")))
            }
            Aead::Aes256Gcm => {
                ChunkCipher::Aes256(Box::new(Aes256Gcm::new_from_slice(k).expect("32-byte key")))
            }
        }
    }
}

impl fmt::Debug for PayloadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PayloadKey(<redacted>)")
    }
}

/// Exact size in bytes of the payload produced by [`encrypt`] for a plaintext
/// of `plaintext_len` bytes. Saturates at `u64::MAX` for lengths whose payload
/// size is not representable (such plaintexts cannot be encrypted).
pub fn ciphertext_len(plaintext_len: u64) -> u64 {
    let chunk = CHUNK_SIZE as u64;
    let chunks = if plaintext_len == 0 {
        1
    } else {
        plaintext_len.div_ceil(chunk)
    };
    chunks
        .saturating_mul(TAG_SIZE as u64)
        .saturating_add(plaintext_len)
}

/// Encrypts `input` to `output` as a chunked payload; returns the number of
/// plaintext bytes read.
///
/// Large inputs are processed by as many threads as the current rayon pool
/// has, at most five (see [`encrypt_with_workers`]); the output does not
/// depend on it.
pub fn encrypt<R: Read, W: Write>(
    key: &PayloadKey,
    header_digest: &[u8; 32],
    input: R,
    output: W,
) -> Result<u64, StreamError> {
    encrypt_with_workers(key, header_digest, input, output, auto_workers())
}

/// Decrypts the chunked payload in `input` to `output`; returns the number of
/// plaintext bytes written.
///
/// A chunk's plaintext is written only after that chunk authenticated, but on
/// error the output may hold the plaintext of the preceding chunks and must be
/// discarded.
pub fn decrypt<R: Read, W: Write>(
    key: &PayloadKey,
    header_digest: &[u8; 32],
    input: R,
    output: W,
) -> Result<u64, StreamError> {
    decrypt_with_workers(key, header_digest, input, output, auto_workers())
}

/// Like [`encrypt`], with an explicit number of worker threads; `0` processes
/// everything on the calling thread. The output is identical for any value.
pub fn encrypt_with_workers<R: Read, W: Write>(
    key: &PayloadKey,
    header_digest: &[u8; 32],
    input: R,
    output: W,
    workers: usize,
) -> Result<u64, StreamError> {
    run(
        Direction::Encrypt,
        key,
        header_digest,
        input,
        output,
        workers,
    )
}

/// Like [`decrypt`], with an explicit number of worker threads; `0` processes
/// everything on the calling thread. The result is identical for any value.
pub fn decrypt_with_workers<R: Read, W: Write>(
    key: &PayloadKey,
    header_digest: &[u8; 32],
    input: R,
    output: W,
    workers: usize,
) -> Result<u64, StreamError> {
    run(
        Direction::Decrypt,
        key,
        header_digest,
        input,
        output,
        workers,
    )
}

/// Workers beside the calling thread: one fewer than the threads of the
/// current rayon pool, so that all of abbe's parallelism follows one knob
/// (`RAYON_NUM_THREADS`, or a pool the caller installs — the lab installs a
/// one-thread pool to time single-threaded work).
fn auto_workers() -> usize {
    rayon::current_num_threads()
        .min(MAX_AUTO_WORKERS + 1)
        .saturating_sub(1)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encrypt,
    Decrypt,
}

impl Direction {
    /// Bytes of input that make up a full chunk.
    fn input_chunk_len(self) -> usize {
        match self {
            Direction::Encrypt => CHUNK_SIZE,
            Direction::Decrypt => ENCRYPTED_CHUNK_SIZE,
        }
    }
}

/// Builds the nonce: 11-byte big-endian counter || last-chunk flag.
fn chunk_nonce(counter: u64, last: bool) -> Nonce<U12> {
    let mut nonce = [0u8; 12];
    // The counter is a u64, so the top three bytes of the 88-bit field stay 0
    // and the counter can never wrap; overflow of the u64 is an error.
    nonce[3..11].copy_from_slice(&counter.to_be_bytes());
    nonce[11] = u8::from(last);
    nonce.into()
}

/// Encrypts the plaintext `buf[..buf.len() - TAG_SIZE]` in place and stores the
/// tag in the last `TAG_SIZE` bytes.
fn seal_chunk(cipher: &ChunkCipher, aad: &[u8; 32], counter: u64, last: bool, buf: &mut [u8]) {
    let (data, tag_out) = buf.split_at_mut(buf.len() - TAG_SIZE);
    // Cannot fail: a chunk is far below GCM's length limits.
    let tag = cipher
        .encrypt_in_place_detached(&chunk_nonce(counter, last), aad, data)
        .expect("chunk length is within AES-GCM limits");
    tag_out.copy_from_slice(&tag);
}

/// Authenticates and decrypts the ciphertext chunk `buf` (data || tag) in
/// place; returns the plaintext length. The plaintext is `buf[..len]`.
fn open_chunk(
    cipher: &ChunkCipher,
    aad: &[u8; 32],
    counter: u64,
    last: bool,
    buf: &mut [u8],
) -> Result<usize, StreamError> {
    let Some(data_len) = buf.len().checked_sub(TAG_SIZE) else {
        // Only the last chunk can be shorter than a full chunk.
        return Err(StreamError::Truncated);
    };
    let (data, tag) = buf.split_at_mut(data_len);
    let tag = Tag::clone_from_slice(tag);
    if cipher
        .decrypt_in_place_detached(&chunk_nonce(counter, last), aad, data, &tag)
        .is_ok()
    {
        if last && data_len == 0 && counter != 0 {
            return Err(StreamError::EmptyLastChunk { chunk: counter });
        }
        return Ok(data_len);
    }
    // Classify the failure by trying the opposite last-chunk flag (the
    // buffer is untouched by a failed decryption). This only refines the
    // error reported; either way the payload is rejected.
    let alternative_ok = cipher
        .decrypt_in_place_detached(&chunk_nonce(counter, !last), aad, data, &tag)
        .is_ok();
    if alternative_ok {
        // Do not keep unauthenticated-in-context plaintext around.
        data.zeroize();
        if last {
            // A valid non-last chunk with nothing after it: the rest of the
            // payload was cut off.
            return Err(StreamError::Truncated);
        }
        // A valid last chunk is followed by more data.
        return Err(StreamError::TrailingData);
    }
    Err(StreamError::Authentication { chunk: counter })
}

mod pipeline;
use pipeline::run;

#[cfg(test)]
mod tests;
