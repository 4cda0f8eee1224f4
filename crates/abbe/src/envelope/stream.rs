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

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read, Write};
use std::thread;

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

/// Chunks per batch handed to a worker thread.
const BATCH_CHUNKS: usize = 4;

/// Maximum number of worker threads used by [`encrypt`] and [`decrypt`].
const MAX_AUTO_WORKERS: usize = 4;

/// Upper bound on the number of chunks held in memory by the pipeline.
const MAX_CHUNKS_IN_FLIGHT: usize = 16;

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

/// Reads until `buf` is full or the input ends; returns the bytes read.
/// Retries on `Interrupted`, so short reads (pipes, sockets) are handled.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n.min(buf.len() - filled),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A batch of consecutive chunks. Chunk `i` occupies
/// `buf[i * ENCRYPTED_CHUNK_SIZE..]`: the plaintext (encryption) or the
/// ciphertext (decryption), in place.
struct Batch {
    buf: Vec<u8>,
    /// Counter of the first chunk.
    first_counter: u64,
    /// Number of chunks (at least 1).
    chunks: usize,
    /// Input length of the batch's last chunk; all others are full.
    tail_len: usize,
    /// Whether the batch's last chunk is the payload's last chunk.
    is_final: bool,
    /// Result of processing: number of chunks processed successfully and the
    /// error that stopped processing, if any.
    done: usize,
    error: Option<StreamError>,
}

impl Drop for Batch {
    fn drop(&mut self) {
        // Buffers hold plaintext.
        self.buf.zeroize();
    }
}

impl Batch {
    fn new() -> Batch {
        Batch {
            buf: vec![0u8; BATCH_CHUNKS * ENCRYPTED_CHUNK_SIZE + 1],
            first_counter: 0,
            chunks: 0,
            tail_len: 0,
            is_final: false,
            done: 0,
            error: None,
        }
    }

    fn input_len(&self, dir: Direction, i: usize) -> usize {
        if i + 1 == self.chunks {
            self.tail_len
        } else {
            dir.input_chunk_len()
        }
    }

    /// Seals or opens every chunk of the batch in place.
    fn process(&mut self, dir: Direction, cipher: &ChunkCipher, aad: &[u8; 32]) {
        self.done = 0;
        self.error = None;
        for i in 0..self.chunks {
            let off = i * ENCRYPTED_CHUNK_SIZE;
            let len = self.input_len(dir, i);
            let last = self.is_final && i + 1 == self.chunks;
            // `first_counter + i` was checked for overflow when reading.
            let counter = self.first_counter + i as u64;
            match dir {
                Direction::Encrypt => {
                    seal_chunk(
                        cipher,
                        aad,
                        counter,
                        last,
                        &mut self.buf[off..off + len + TAG_SIZE],
                    );
                }
                Direction::Decrypt => {
                    if let Err(e) =
                        open_chunk(cipher, aad, counter, last, &mut self.buf[off..off + len])
                    {
                        self.error = Some(e);
                        return;
                    }
                }
            }
            self.done = i + 1;
        }
    }

    /// Writes the output of the successfully processed chunks; returns the
    /// number of plaintext bytes they hold.
    fn write_output<W: Write>(&self, dir: Direction, output: &mut W) -> io::Result<u64> {
        let mut plaintext = 0u64;
        match dir {
            Direction::Encrypt => {
                // Sealed chunks are contiguous: full chunks then the tail.
                if self.done > 0 {
                    let tail = self.input_len(dir, self.done - 1);
                    let end = (self.done - 1) * ENCRYPTED_CHUNK_SIZE + tail + TAG_SIZE;
                    output.write_all(&self.buf[..end])?;
                    plaintext = ((self.done - 1) * CHUNK_SIZE + tail) as u64;
                }
            }
            Direction::Decrypt => {
                for i in 0..self.done {
                    let off = i * ENCRYPTED_CHUNK_SIZE;
                    let len = self.input_len(dir, i) - TAG_SIZE;
                    output.write_all(&self.buf[off..off + len])?;
                    plaintext += len as u64;
                }
            }
        }
        Ok(plaintext)
    }
}

/// Splits the input into batches of chunks, looking one byte ahead so that
/// the last chunk is known before it is processed.
struct ChunkReader<R> {
    input: R,
    dir: Direction,
    next_counter: u64,
    /// Byte read ahead past the previous chunk.
    carry: Option<u8>,
    finished: bool,
}

impl<R: Read> ChunkReader<R> {
    /// Fills `batch` with the next chunks. Returns `false` when the input is
    /// exhausted (no batch produced).
    fn fill(&mut self, batch: &mut Batch) -> Result<bool, StreamError> {
        if self.finished {
            return Ok(false);
        }
        let full = self.dir.input_chunk_len();
        batch.first_counter = self.next_counter;
        batch.chunks = 0;
        batch.tail_len = 0;
        batch.is_final = false;
        batch.done = 0;
        batch.error = None;
        while batch.chunks < BATCH_CHUNKS {
            let off = batch.chunks * ENCRYPTED_CHUNK_SIZE;
            // Room for a full chunk plus one look-ahead byte. The look-ahead
            // byte lands in the tag area (encryption) or at the start of the
            // next slot / the spare last byte of the buffer (decryption); it
            // is saved in `carry` and moved to the start of the next chunk.
            let slot = &mut batch.buf[off..off + full + 1];
            let mut have = 0;
            if let Some(b) = self.carry.take() {
                slot[0] = b;
                have = 1;
            }
            let len = have + read_full(&mut self.input, &mut slot[have..])?;
            if len > full {
                // More input follows: this is a full, non-last chunk.
                self.carry = Some(slot[full]);
                batch.chunks += 1;
                batch.tail_len = full;
                self.next_counter = self
                    .next_counter
                    .checked_add(1)
                    .ok_or(StreamError::TooLong)?;
                continue;
            }
            // End of input: this is the last chunk. Thanks to the look-ahead
            // byte it is empty only if the whole input is empty.
            self.finished = true;
            if len == 0 && self.dir == Direction::Decrypt {
                return Err(StreamError::Truncated);
            }
            // For encryption an empty input yields one empty last chunk.
            batch.chunks += 1;
            batch.tail_len = len;
            batch.is_final = true;
            break;
        }
        Ok(batch.chunks > 0)
    }
}

fn run<R: Read, W: Write>(
    dir: Direction,
    key: &PayloadKey,
    aad: &[u8; 32],
    input: R,
    mut output: W,
    workers: usize,
) -> Result<u64, StreamError> {
    let cipher = key.cipher();
    let mut reader = ChunkReader {
        input,
        dir,
        next_counter: 0,
        carry: None,
        finished: false,
    };
    let mut total = 0u64;
    let mut first = Batch::new();
    if !reader.fill(&mut first)? {
        // Only reachable for decryption of an empty input, which `fill`
        // reports as truncated; kept for robustness.
        return Err(StreamError::Truncated);
    }
    if workers == 0 || first.is_final {
        // Single-threaded: small inputs never pay for thread start-up.
        let mut batch = first;
        loop {
            batch.process(dir, &cipher, aad);
            total = add_len(total, batch.write_output(dir, &mut output)?)?;
            if let Some(e) = batch.error.take() {
                return Err(e);
            }
            if !reader.fill(&mut batch)? {
                break;
            }
        }
        output.flush()?;
        return Ok(total);
    }
    let total = run_pipelined(dir, &cipher, aad, &mut reader, &mut output, workers, first)?;
    output.flush()?;
    Ok(total)
}

/// Multi-threaded variant: the calling thread reads and writes, `workers`
/// threads seal/open whole batches taken from a shared queue in input order,
/// and the output is written in the same order. When the next batch to write
/// is not ready, the calling thread processes a queued batch itself instead
/// of sleeping: progress never waits for a worker the scheduler has not run
/// yet (on a loaded machine a woken thread can wait a whole scheduler tick,
/// which would set a floor under every small envelope). At
/// most `MAX_CHUNKS_IN_FLIGHT` chunks are buffered.
fn run_pipelined<R: Read, W: Write>(
    dir: Direction,
    cipher: &ChunkCipher,
    aad: &[u8; 32],
    reader: &mut ChunkReader<R>,
    output: &mut W,
    workers: usize,
    first: Batch,
) -> Result<u64, StreamError> {
    let max_batches = (MAX_CHUNKS_IN_FLIGHT / BATCH_CHUNKS).max(2);
    let workers = workers.clamp(1, max_batches);
    let shared = Shared::default();
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| shared.work(dir, cipher, aad));
        }
        let result = pump(
            dir,
            cipher,
            aad,
            reader,
            output,
            first,
            &shared,
            max_batches,
        );
        // Stops the workers once they are idle; the scope joins them. Queued
        // buffers are wiped when dropped.
        shared.close();
        result
    })
}

/// The queue shared by the calling thread and the workers.
#[derive(Default)]
struct Shared {
    state: std::sync::Mutex<Queue>,
    /// Signalled when a batch is queued or the queue closes.
    queued: std::sync::Condvar,
    /// Signalled when a worker finishes a batch or dies.
    finished: std::sync::Condvar,
}

#[derive(Default)]
struct Queue {
    /// Batches to process, by sequence number, in input order.
    todo: VecDeque<(usize, Batch)>,
    /// Processed batches not yet written.
    done: Vec<(usize, Batch)>,
    closed: bool,
    worker_died: bool,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // Nothing panics while holding the lock; a poisoned lock still
        // holds a consistent queue.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn close(&self) {
        let mut q = self.lock();
        q.closed = true;
        q.todo.clear();
        drop(q);
        self.queued.notify_all();
    }

    /// A worker: processes queued batches until the queue closes.
    fn work(&self, dir: Direction, cipher: &ChunkCipher, aad: &[u8; 32]) {
        /// Tells the calling thread when this worker dies with a batch.
        struct Alarm<'a>(&'a Shared);
        impl Drop for Alarm<'_> {
            fn drop(&mut self) {
                if thread::panicking() {
                    self.0.lock().worker_died = true;
                    self.0.finished.notify_all();
                }
            }
        }
        let _alarm = Alarm(self);
        loop {
            let (seq, mut batch) = {
                let mut q = self.lock();
                loop {
                    if let Some(job) = q.todo.pop_front() {
                        break job;
                    }
                    if q.closed {
                        return;
                    }
                    q = self
                        .queued
                        .wait(q)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
            };
            batch.process(dir, cipher, aad);
            self.lock().done.push((seq, batch));
            self.finished.notify_all();
        }
    }

    /// The processed batch `seq`: taken from the finished ones, or processed
    /// here from the queue while it waits, or awaited from the worker that
    /// has it.
    fn take(
        &self,
        seq: usize,
        dir: Direction,
        cipher: &ChunkCipher,
        aad: &[u8; 32],
    ) -> Result<Batch, StreamError> {
        let mut q = self.lock();
        loop {
            if let Some(i) = q.done.iter().position(|(s, _)| *s == seq) {
                return Ok(q.done.swap_remove(i).1);
            }
            if let Some((s, mut batch)) = q.todo.pop_front() {
                drop(q);
                batch.process(dir, cipher, aad);
                if s == seq {
                    return Ok(batch);
                }
                q = self.lock();
                q.done.push((s, batch));
                continue;
            }
            if q.worker_died {
                return Err(StreamError::WorkerFailed);
            }
            q = self
                .finished
                .wait(q)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// Main loop of the pipeline: keeps up to `max_batches` batches in flight and
/// writes the processed batches in input order.
#[allow(clippy::too_many_arguments)]
fn pump<R: Read, W: Write>(
    dir: Direction,
    cipher: &ChunkCipher,
    aad: &[u8; 32],
    reader: &mut ChunkReader<R>,
    output: &mut W,
    first: Batch,
    shared: &Shared,
    max_batches: usize,
) -> Result<u64, StreamError> {
    let mut free: Vec<Batch> = Vec::with_capacity(max_batches);
    let mut allocated = 1;
    let mut in_flight = 0usize;
    let mut next_write = 0usize;
    let mut next_seq = 0usize;
    let mut total = 0u64;
    let mut next = Some(first);
    let mut input_done = false;
    let mut read_error = None;
    loop {
        // Keep the workers fed up to the in-flight limit.
        while in_flight < max_batches && !input_done {
            let batch = match next.take() {
                Some(batch) => batch,
                None => {
                    let mut batch = match free.pop() {
                        Some(batch) => batch,
                        None if allocated < max_batches => {
                            allocated += 1;
                            Batch::new()
                        }
                        None => break,
                    };
                    match reader.fill(&mut batch) {
                        Ok(true) => batch,
                        Ok(false) => {
                            input_done = true;
                            free.push(batch);
                            break;
                        }
                        Err(e) => {
                            // Report it after the batches before it, exactly
                            // as single-threaded processing would.
                            free.push(batch);
                            read_error = Some(e);
                            input_done = true;
                            break;
                        }
                    }
                }
            };
            input_done = batch.is_final;
            shared.lock().todo.push_back((next_seq, batch));
            shared.queued.notify_one();
            in_flight += 1;
            next_seq = next_seq.wrapping_add(1);
        }
        if in_flight == 0 {
            return match read_error {
                Some(e) => Err(e),
                None => Ok(total),
            };
        }
        let mut batch = shared.take(next_write, dir, cipher, aad)?;
        in_flight -= 1;
        next_write = next_write.wrapping_add(1);
        let written = batch.write_output(dir, output);
        let error = batch.error.take();
        free.push(batch);
        total = add_len(total, written?)?;
        if let Some(e) = error {
            return Err(e);
        }
    }
}

fn add_len(total: u64, n: u64) -> Result<u64, StreamError> {
    total.checked_add(n).ok_or(StreamError::TooLong)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes_gcm::aead::Aead;
    use proptest::prelude::*;
    use rand::{Rng, RngCore, SeedableRng};

    const DIGEST: [u8; 32] = [0x5a; 32];
    const C: usize = CHUNK_SIZE;
    const E: usize = ENCRYPTED_CHUNK_SIZE;

    fn key() -> PayloadKey {
        PayloadKey::derive(b"session key material", &[7u8; 16], &DIGEST)
    }

    fn plaintext(len: usize) -> Vec<u8> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(len as u64);
        let mut v = vec![0u8; len];
        rng.fill_bytes(&mut v);
        v
    }

    fn enc_with(pt: &[u8], workers: usize) -> Vec<u8> {
        let mut ct = Vec::new();
        let n = encrypt_with_workers(&key(), &DIGEST, pt, &mut ct, workers).unwrap();
        assert_eq!(n, pt.len() as u64);
        ct
    }

    fn enc(pt: &[u8]) -> Vec<u8> {
        enc_with(pt, 0)
    }

    fn dec_with(ct: &[u8], workers: usize) -> Result<Vec<u8>, StreamError> {
        let mut pt = Vec::new();
        let n = decrypt_with_workers(&key(), &DIGEST, ct, &mut pt, workers)?;
        assert_eq!(n, pt.len() as u64);
        Ok(pt)
    }

    /// Decrypts single-threaded and pipelined; both must agree.
    fn dec(ct: &[u8]) -> Result<Vec<u8>, StreamError> {
        let single = dec_with(ct, 0);
        let piped = dec_with(ct, 2);
        match (&single, &piped) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            _ => panic!("single-threaded and pipelined results differ"),
        }
        single
    }

    /// Builds a payload from explicit (plaintext, last flag) chunks.
    fn craft(chunks: &[(&[u8], bool)]) -> Vec<u8> {
        let cipher = key().cipher();
        let mut out = Vec::new();
        for (i, (pt, last)) in chunks.iter().enumerate() {
            let mut buf = pt.to_vec();
            buf.extend_from_slice(&[0u8; TAG_SIZE]);
            seal_chunk(&cipher, &DIGEST, i as u64, *last, &mut buf);
            out.extend_from_slice(&buf);
        }
        out
    }

    /// Returns 1..=7 bytes per read, and `Interrupted` now and then.
    struct Trickle<'a> {
        data: &'a [u8],
        rng: rand::rngs::StdRng,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.rng.gen_ratio(1, 50) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = self
                .rng
                .gen_range(1..=7)
                .min(buf.len())
                .min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn trickle(data: &[u8]) -> Trickle<'_> {
        Trickle {
            data,
            rng: rand::rngs::StdRng::seed_from_u64(42),
        }
    }

    fn chunk_count(ct_len: usize) -> usize {
        ct_len.div_ceil(E)
    }

    #[test]
    fn round_trip_edge_sizes() {
        for len in [0, 1, C - 1, C, C + 1, 2 * C, 3 * C, 3 * C + 100] {
            let pt = plaintext(len);
            let ct = enc(&pt);
            assert_eq!(ct.len() as u64, ciphertext_len(len as u64), "len {len}");
            assert_eq!(enc_with(&pt, 2), ct, "pipelined output differs, len {len}");
            assert_eq!(dec(&ct).unwrap(), pt, "len {len}");
        }
    }

    #[test]
    fn round_trip_many_batches_pipelined() {
        // More chunks than the pipeline keeps in flight, with a short tail.
        let pt = plaintext(40 * C + 12345);
        let ct = enc(&pt);
        for workers in [1, 2, 3, 8] {
            assert_eq!(enc_with(&pt, workers), ct, "workers {workers}");
            assert_eq!(dec_with(&ct, workers).unwrap(), pt, "workers {workers}");
        }
        let mut out = Vec::new();
        assert_eq!(
            encrypt(&key(), &DIGEST, &pt[..], &mut out).unwrap(),
            pt.len() as u64
        );
        assert_eq!(out, ct);
        let mut back = Vec::new();
        decrypt(&key(), &DIGEST, &out[..], &mut back).unwrap();
        assert_eq!(back, pt);
    }

    #[test]
    fn ciphertext_len_values() {
        let t = TAG_SIZE as u64;
        let c = C as u64;
        assert_eq!(ciphertext_len(0), t);
        assert_eq!(ciphertext_len(1), 1 + t);
        assert_eq!(ciphertext_len(c), c + t);
        assert_eq!(ciphertext_len(c + 1), c + 1 + 2 * t);
        assert_eq!(ciphertext_len(u64::MAX), u64::MAX);
    }

    #[test]
    fn format_matches_specification() {
        // Key derivation: HKDF-SHA256(salt, ikm, "abbe/v1/payload" || digest).
        let hk = Hkdf::<Sha256>::new(Some(&[7u8; 16]), b"session key material");
        let mut info = b"abbe/v1/payload".to_vec();
        info.extend_from_slice(&DIGEST);
        let mut expected = [0u8; 32];
        hk.expand(&info, &mut expected).unwrap();
        assert_eq!(key().as_bytes(), &expected);
        assert_ne!(
            PayloadKey::derive(b"session key material", &[7u8; 16], &[0u8; 32]).as_bytes(),
            &expected
        );

        // Nonce = 11-byte big-endian counter || last flag; AAD = digest.
        let pt = plaintext(C + 5);
        let ct = enc(&pt);
        let cipher = Aes256Gcm::new(&expected.into());
        let aead = |n: [u8; 12], m: &[u8]| {
            cipher
                .encrypt(
                    &n.into(),
                    aes_gcm::aead::Payload {
                        msg: m,
                        aad: &DIGEST,
                    },
                )
                .unwrap()
        };
        let mut n0 = [0u8; 12];
        assert_eq!(ct[..E], aead(n0, &pt[..C])[..]);
        n0[10] = 1;
        n0[11] = 1;
        assert_eq!(ct[E..], aead(n0, &pt[C..])[..]);
    }

    #[test]
    fn nonce_layout_and_counter_limit() {
        let n = chunk_nonce(0x0102_0304_0506_0708, true);
        assert_eq!(n.as_slice(), [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1]);
        let n = chunk_nonce(u64::MAX, false);
        assert_eq!(
            n.as_slice(),
            [0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0]
        );

        // A chunk after counter u64::MAX is refused instead of wrapping.
        let pt = plaintext(C + 1);
        let mut reader = ChunkReader {
            input: &pt[..],
            dir: Direction::Encrypt,
            next_counter: u64::MAX,
            carry: None,
            finished: false,
        };
        let mut batch = Batch::new();
        assert!(matches!(reader.fill(&mut batch), Err(StreamError::TooLong)));
        // The last chunk may use counter u64::MAX itself.
        let mut reader = ChunkReader {
            input: &pt[..C],
            dir: Direction::Encrypt,
            next_counter: u64::MAX,
            carry: None,
            finished: false,
        };
        assert!(reader.fill(&mut batch).unwrap());
        assert!(batch.is_final && batch.chunks == 1 && batch.first_counter == u64::MAX);
    }

    #[test]
    fn pipe_like_reader() {
        for len in [0, 1, C - 1, C, C + 1, 3 * C + 7] {
            let pt = plaintext(len);
            let ct = enc(&pt);
            for workers in [0, 2] {
                let mut out = Vec::new();
                encrypt_with_workers(&key(), &DIGEST, trickle(&pt), &mut out, workers).unwrap();
                assert_eq!(out, ct, "len {len}");
                let mut back = Vec::new();
                let n = decrypt_with_workers(&key(), &DIGEST, trickle(&ct), &mut back, workers)
                    .unwrap();
                assert_eq!(n, len as u64);
                assert_eq!(back, pt, "len {len}");
            }
        }
    }

    #[test]
    fn rejects_empty_payload() {
        assert!(matches!(dec(&[]), Err(StreamError::Truncated)));
    }

    #[test]
    fn rejects_truncation_mid_chunk() {
        let pt = plaintext(3 * C + 100);
        let ct = enc(&pt);
        // Inside the last chunk, too short to hold a tag.
        for cut in [3 * E + 1, 3 * E + 15] {
            assert!(
                matches!(dec(&ct[..cut]), Err(StreamError::Truncated)),
                "cut {cut}"
            );
        }
        // Inside the last chunk, or inside an earlier chunk: the remainder
        // cannot authenticate as a last chunk.
        for (cut, chunk) in [
            (ct.len() - 1, 3),
            (3 * E + 16, 3),
            (E + 1000, 1),
            (10_000, 0),
        ] {
            match dec(&ct[..cut]) {
                Err(StreamError::Authentication { chunk: c }) => assert_eq!(c, chunk, "cut {cut}"),
                other => panic!("cut {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn rejects_truncation_at_chunk_boundary() {
        let pt = plaintext(3 * C + 100);
        let ct = enc(&pt);
        for chunks in 1..=3 {
            assert!(matches!(
                dec(&ct[..chunks * E]),
                Err(StreamError::Truncated)
            ));
        }
        // A full last chunk dropped.
        let ct = enc(&plaintext(3 * C));
        assert!(matches!(dec(&ct[..2 * E]), Err(StreamError::Truncated)));
    }

    #[test]
    fn rejects_trailing_data() {
        // After a full last chunk, appended bytes are recognised as such.
        for extra in [&[0u8][..], &[1, 2, 3], &[0u8; TAG_SIZE], &[9u8; E]] {
            let mut ct = enc(&plaintext(3 * C));
            ct.extend_from_slice(extra);
            assert!(
                matches!(dec(&ct), Err(StreamError::TrailingData)),
                "{}",
                extra.len()
            );
        }
        // After a short last chunk, the bytes join that chunk, which then
        // fails authentication.
        let mut ct = enc(&plaintext(C + 10));
        ct.push(0);
        assert!(matches!(
            dec(&ct),
            Err(StreamError::Authentication { chunk: 1 })
        ));
        let mut ct = enc(&[]);
        ct.push(0);
        assert!(matches!(
            dec(&ct),
            Err(StreamError::Authentication { chunk: 0 })
        ));
    }

    #[test]
    fn rejects_empty_trailing_chunk() {
        let full = plaintext(C);
        // Non-canonical: full chunk (not last) + empty last chunk.
        let ct = craft(&[(&full, false), (&[], true)]);
        assert!(matches!(
            dec(&ct),
            Err(StreamError::EmptyLastChunk { chunk: 1 })
        ));
        // A full last chunk followed by a valid-looking empty last chunk.
        let ct = craft(&[(&full, true), (&[], true)]);
        assert!(matches!(dec(&ct), Err(StreamError::TrailingData)));
        // An empty chunk appended to an honest payload.
        let mut ct = enc(&full);
        ct.extend_from_slice(&craft(&[(&full, false), (&[], true)])[E..]);
        assert!(matches!(dec(&ct), Err(StreamError::TrailingData)));
        // Sanity: the canonical encodings decrypt.
        assert_eq!(dec(&craft(&[(&full, true)])).unwrap(), full);
        assert!(dec(&craft(&[(&[], true)])).unwrap().is_empty());
    }

    #[test]
    fn rejects_reordered_and_duplicated_chunks() {
        let pt = plaintext(3 * C + 100);
        let ct = enc(&pt);
        let chunk = |i: usize| &ct[i * E..((i + 1) * E).min(ct.len())];

        let swapped = [chunk(1), chunk(0), chunk(2), chunk(3)].concat();
        assert!(matches!(
            dec(&swapped),
            Err(StreamError::Authentication { chunk: 0 })
        ));
        let swapped = [chunk(0), chunk(2), chunk(1), chunk(3)].concat();
        assert!(matches!(
            dec(&swapped),
            Err(StreamError::Authentication { chunk: 1 })
        ));

        let duplicated = [chunk(0), chunk(0), chunk(1), chunk(2), chunk(3)].concat();
        assert!(matches!(
            dec(&duplicated),
            Err(StreamError::Authentication { chunk: 1 })
        ));
        let duplicated = [chunk(0), chunk(1), chunk(2), chunk(2), chunk(3)].concat();
        assert!(matches!(
            dec(&duplicated),
            Err(StreamError::Authentication { chunk: 3 })
        ));
        // Last chunk duplicated: the first copy is a valid last chunk.
        let duplicated = [chunk(0), chunk(1), chunk(2), chunk(3), chunk(3)].concat();
        assert!(dec(&duplicated).is_err());
        let dropped_middle = [chunk(0), chunk(2), chunk(3)].concat();
        assert!(matches!(
            dec(&dropped_middle),
            Err(StreamError::Authentication { chunk: 1 })
        ));
    }

    #[test]
    fn rejects_bit_flips_in_every_chunk() {
        let pt = plaintext(3 * C + 100);
        let ct = enc(&pt);
        let chunks = chunk_count(ct.len());
        assert_eq!(chunks, 4);
        for i in 0..chunks {
            let start = i * E;
            let end = ((i + 1) * E).min(ct.len());
            // First byte, middle, and inside the tag.
            for pos in [start, (start + end) / 2, end - 1] {
                let mut bad = ct.clone();
                bad[pos] ^= 0x10;
                match dec(&bad) {
                    Err(StreamError::Authentication { chunk }) => assert_eq!(chunk, i as u64),
                    other => panic!("chunk {i} pos {pos}: {other:?}"),
                }
            }
        }
        // Empty payload: the lone tag.
        let mut bad = enc(&[]);
        bad[3] ^= 1;
        assert!(matches!(
            dec(&bad),
            Err(StreamError::Authentication { chunk: 0 })
        ));
    }

    #[test]
    fn rejects_wrong_key_and_wrong_header() {
        for len in [0, 100, 2 * C + 1] {
            let ct = enc(&plaintext(len));
            let wrong_key = PayloadKey::derive(b"other session key", &[7u8; 16], &DIGEST);
            let mut out = Vec::new();
            let r = decrypt(&wrong_key, &DIGEST, &ct[..], &mut out);
            assert!(matches!(r, Err(StreamError::Authentication { chunk: 0 })));
            assert!(out.is_empty());
            let other_digest = [0xa5u8; 32];
            let r = decrypt(&key(), &other_digest, &ct[..], &mut out);
            assert!(matches!(r, Err(StreamError::Authentication { chunk: 0 })));
            assert!(out.is_empty());
        }
    }

    #[test]
    fn writes_nothing_when_first_chunk_fails() {
        let pt = plaintext(20 * C + 3);
        let mut ct = enc(&pt);
        ct[5] ^= 1;
        for workers in [0, 1, 2] {
            let mut out = Vec::new();
            let r = decrypt_with_workers(&key(), &DIGEST, &ct[..], &mut out, workers);
            assert!(matches!(r, Err(StreamError::Authentication { chunk: 0 })));
            assert!(out.is_empty(), "workers {workers}");
        }
        // A later failure leaves exactly the authenticated prefix.
        let mut ct = enc(&pt);
        ct[9 * E + 1] ^= 1;
        for workers in [0, 2] {
            let mut out = Vec::new();
            let r = decrypt_with_workers(&key(), &DIGEST, &ct[..], &mut out, workers);
            assert!(matches!(r, Err(StreamError::Authentication { chunk: 9 })));
            assert_eq!(out, pt[..9 * C]);
        }
    }

    struct FailingWriter;

    impl Write for FailingWriter {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct FailingReader(usize);

    impl Read for FailingReader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("device gone"));
            }
            let n = buf.len().min(self.0);
            buf[..n].fill(0);
            self.0 -= n;
            Ok(n)
        }
    }

    #[test]
    fn io_errors_are_reported() {
        let pt = plaintext(5 * C);
        let ct = enc(&pt);
        for workers in [0, 2] {
            let r = encrypt_with_workers(&key(), &DIGEST, &pt[..], FailingWriter, workers);
            assert!(matches!(r, Err(StreamError::Io(_))));
            let r = decrypt_with_workers(&key(), &DIGEST, &ct[..], FailingWriter, workers);
            assert!(matches!(r, Err(StreamError::Io(_))));
            for at in [0, 10, 9 * C] {
                let r =
                    encrypt_with_workers(&key(), &DIGEST, FailingReader(at), io::sink(), workers);
                assert!(matches!(r, Err(StreamError::Io(_))), "at {at}");
                let r =
                    decrypt_with_workers(&key(), &DIGEST, FailingReader(at), io::sink(), workers);
                if at < E {
                    assert!(matches!(r, Err(StreamError::Io(_))), "at {at}");
                } else {
                    // The zero chunks read before the failure are rejected first.
                    assert!(matches!(r, Err(StreamError::Authentication { chunk: 0 })));
                }
            }
        }
    }

    #[test]
    fn errors_display_and_key_debug() {
        let errors = [
            StreamError::Io(io::Error::other("x")),
            StreamError::Truncated,
            StreamError::TrailingData,
            StreamError::Authentication { chunk: 7 },
            StreamError::EmptyLastChunk { chunk: 2 },
            StreamError::TooLong,
            StreamError::WorkerFailed,
        ];
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        for (i, s) in shown.iter().enumerate() {
            assert!(!s.is_empty());
            assert!(!shown[..i].contains(s));
        }
        assert!(shown[3].contains('7'));
        let k = key();
        assert_eq!(format!("{k:?}"), "PayloadKey(<redacted>)");
    }

    #[test]
    fn random_ciphertext_never_panics() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let lens = [
            0,
            1,
            15,
            16,
            17,
            E - 1,
            E,
            E + 1,
            E + 15,
            E + 16,
            2 * E,
            2 * E + 1,
            5 * E + 3,
        ];
        for len in lens {
            let mut ct = vec![0u8; len];
            rng.fill_bytes(&mut ct);
            assert!(dec(&ct).is_err(), "len {len}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn prop_round_trip(len in 0usize..300 * 1024, workers in 0usize..3, seed: u64) {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let ct = enc_with(&pt, workers);
            prop_assert_eq!(ct.len() as u64, ciphertext_len(len as u64));
            prop_assert_eq!(dec_with(&ct, 2 - workers).unwrap(), pt);
        }

        #[test]
        fn prop_random_bytes_rejected(ct in proptest::collection::vec(any::<u8>(), 0..3 * E)) {
            prop_assert!(dec(&ct).is_err());
        }

        #[test]
        fn prop_any_single_corruption_rejected(len in 0usize..200 * 1024, pos: prop::sample::Index, bit in 0u8..8) {
            let pt = plaintext(len);
            let mut ct = enc(&pt);
            let i = pos.index(ct.len());
            ct[i] ^= 1 << bit;
            match dec(&ct) {
                Err(StreamError::Authentication { chunk }) => prop_assert_eq!(chunk, (i / E) as u64),
                other => prop_assert!(false, "unexpected {:?}", other),
            }
        }
    }
}
