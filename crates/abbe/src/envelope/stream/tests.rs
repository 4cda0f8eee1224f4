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
fn nonce_layout() {
    let n = chunk_nonce(0x0102_0304_0506_0708, true);
    assert_eq!(n.as_slice(), [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1]);
    let n = chunk_nonce(u64::MAX, false);
    assert_eq!(
        n.as_slice(),
        [0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0]
    );
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
            let n =
                decrypt_with_workers(&key(), &DIGEST, trickle(&ct), &mut back, workers).unwrap();
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
            let r = encrypt_with_workers(&key(), &DIGEST, FailingReader(at), io::sink(), workers);
            assert!(matches!(r, Err(StreamError::Io(_))), "at {at}");
            let r = decrypt_with_workers(&key(), &DIGEST, FailingReader(at), io::sink(), workers);
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
