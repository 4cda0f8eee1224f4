//! The ElGamal baseline of chhatrapati22 §2: ElGamal with shared
//! parameters, encrypting the same message individually to each recipient,
//! on NIST P-256 — in KEM form.
//!
//! ```text
//! Setup(N):  x_i ←R Z_p, h_i = g^{x_i} (i = 1..N);  PK = (g, h_1..h_N);  sk_i = x_i
//! Enc(S, m): y ←R Z_p;  CT = (g^y, z_i = h_i^y · m for i ∈ S)
//! Dec(i):    m = z_i / c^{x_i}
//! ```
//! In KEM form m is a uniformly random group element (g^μ) and the session
//! key is HKDF of its encoding: one ciphertext element per recipient, as
//! the paper defines it. g is the standard P-256 base point (DDH is random
//! self-reducible, so any generator is as good as a random one); the x_i are
//! PRF_seed(i) (ChaCha20 keyed by SHA-256(seed, i), uniform by rejection
//! sampling), so the authority stores a seed, not N secrets.
//!
//! **Dependency.** P-256 comes from RustCrypto's `p256` (arithmetic only,
//! no default features): constant-time field and scalar arithmetic,
//! complete addition formulas, SEC1 point compression — the curve the paper
//! measured with OpenSSL (Table 1: the fastest NIST curve there, 128-bit
//! security). The pairing backends cannot serve: the baseline is meant to run
//! on a plain (faster, pairing-free) curve.
//!
//! **Speed, not a straw man.** g^y and g^μ use a fixed-base table of g
//! (signed 4-bit windows, 65 mixed additions and no doublings, entries picked
//! in constant time); the |S| products h_i^y are variable-base (p256's
//! constant-time windowed multiplication) spread over all cores.
//! Decryption is one variable-base multiplication and one subtraction.
//!
//! Sizes: points are 33-byte compressed SEC1 (the paper counts 32 bytes):
//! public key 33·N, private key 32 bytes, ciphertext 33·(|S|+1).
//!
//! Operation counts (Table 9: Setup λ0^3·N, Enc λ0^3·(|S|+1) + λ0·|S|,
//! Dec 2·λ0^3 + λ0 — we need one exponentiation to decrypt: c^{x_i}).

use super::{check_n, Recipients, UserCount, UserIndex};
use crate::bcast::Users;
use crate::curve::{wipe, CurveId};
use crate::kem::{Authority, Kem, KemError, SessionKey};
use crate::wire::codec::{Bound, Codec, CodecIn};
use crate::wire::{Encoded, MadeFor, ObjectKind, Preamble, Reader, SchemeId, WireError, Writer};
use p256::elliptic_curve::ff::Field;
use p256::elliptic_curve::group::Group as _;
use p256::elliptic_curve::sec1::{FromEncodedPoint, ToEncodedPoint};
use p256::{AffinePoint, EncodedPoint, ProjectivePoint, Scalar};
use rand_core::{CryptoRng, RngCore, SeedableRng};
use std::sync::{Arc, OnceLock};
use subtle::ConditionallySelectable;

/// The baseline scheme (not generic: P-256 only).
#[derive(Clone, Copy, Debug, Default)]
pub struct ElGamalP256;

const SCHEME: SchemeId = SchemeId::ElGamalP256;
const CURVE: CurveId = CurveId::P256;
/// Compressed SEC1 point.
pub const POINT_BYTES: usize = 33;

fn preamble(kind: ObjectKind) -> Preamble {
    Preamble::new(kind, SCHEME, CURVE)
}

// ---------------------------------------------------------------------------
// Fixed-base multiplication by g.

const W: usize = 4;
const HALF: usize = 1 << (W - 1);
const WINDOWS: usize = 256 / W + 1;

struct GTable(Vec<[AffinePoint; HALF]>);

fn g_table() -> &'static GTable {
    static T: OnceLock<GTable> = OnceLock::new();
    T.get_or_init(|| {
        let mut proj = Vec::with_capacity(WINDOWS * HALF);
        let mut base = ProjectivePoint::GENERATOR;
        for _ in 0..WINDOWS {
            let mut acc = base;
            for _ in 0..HALF {
                proj.push(acc);
                acc += base;
            }
            for _ in 0..W {
                base = base.double();
            }
        }
        let aff = normalize(&proj);
        GTable(
            aff.chunks_exact(HALF)
                .map(|c| {
                    let mut row = [AffinePoint::IDENTITY; HALF];
                    row.copy_from_slice(c);
                    row
                })
                .collect(),
        )
    })
}

/// g^s through the table, in constant time.
fn mul_g(s: &Scalar) -> ProjectivePoint {
    let be = s.to_bytes();
    let mut digits = [0i32; WINDOWS];
    let mut carry = 0i32;
    for (i, d) in digits.iter_mut().enumerate() {
        // nibble i (little-endian)
        let raw = if i < 64 {
            let byte = be[31 - i / 2];
            if i % 2 == 0 {
                byte & 0x0f
            } else {
                byte >> 4
            }
        } else {
            0
        } as i32;
        let mut v = raw + carry;
        carry = (v > HALF as i32) as i32;
        v -= carry << W;
        *d = v;
    }
    let mut acc = ProjectivePoint::IDENTITY;
    for (row, &d) in g_table().0.iter().zip(digits.iter()) {
        let mag = d.unsigned_abs() as usize;
        let mut pick = AffinePoint::IDENTITY;
        for (j, e) in row.iter().enumerate() {
            pick.conditional_assign(e, subtle::Choice::from((j + 1 == mag) as u8));
        }
        let neg = -pick;
        pick.conditional_assign(&neg, subtle::Choice::from((d < 0) as u8));
        acc += pick;
    }
    acc
}

/// Projective → affine. (p256 0.13 offers no batch normalisation for
/// P-256 — its field element lacks the `Invert` impl that primeorder's
/// `BatchNormalize` needs — so this is one inversion per point, ≈ 15% of
/// a variable-base multiplication.)
fn normalize(points: &[ProjectivePoint]) -> Vec<AffinePoint> {
    points.iter().map(|p| p.to_affine()).collect()
}

fn par_chunks<T: Sync, U: Send>(items: &[T], f: impl Fn(&[T]) -> Vec<U> + Sync) -> Vec<U> {
    use rayon::prelude::*;
    if items.len() >= 256 && rayon::current_num_threads() > 1 {
        items.par_chunks(1024).flat_map_iter(&f).collect()
    } else {
        f(items)
    }
}

fn encode_point(p: &AffinePoint, out: &mut Vec<u8>) {
    out.extend_from_slice(p.to_encoded_point(true).as_bytes());
}

fn decode_point(b: &[u8]) -> Result<AffinePoint, WireError> {
    let bad = || WireError::Invalid {
        what: "P-256 point",
        detail: "not a compressed point on the curve".into(),
    };
    let ep = EncodedPoint::from_bytes(b).map_err(|_| bad())?;
    if !ep.is_compressed() {
        return Err(bad());
    }
    Option::<AffinePoint>::from(AffinePoint::from_encoded_point(&ep)).ok_or_else(bad)
}

fn decode_points(
    r: &mut Reader<'_>,
    count: usize,
    what: &'static str,
) -> Result<Vec<AffinePoint>, WireError> {
    let len = count
        .checked_mul(POINT_BYTES)
        .ok_or(WireError::Truncated(what))?;
    let bytes = r.take(len, what)?;
    let chunks: Vec<&[u8]> = bytes.chunks(POINT_BYTES).collect();
    let dec: Vec<Result<AffinePoint, WireError>> =
        par_chunks(&chunks, |c| c.iter().map(|b| decode_point(b)).collect());
    dec.into_iter().collect()
}

fn prf_x(seed: &[u8; 32], i: u32) -> Scalar {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"abbe/v1/bcast-prf/elgamal-p256/x");
    h.update(seed);
    h.update(i.to_be_bytes());
    let mut k: [u8; 32] = h.finalize().into();
    let mut rng = rand_chacha::ChaCha20Rng::from_seed(k);
    k.fill(0);
    Scalar::random(&mut rng)
}

// ---------------------------------------------------------------------------

struct PkInner {
    n: u32,
    h: Vec<AffinePoint>,
    setup_id: [u8; 16],
}

/// The public key (g is the standard base point), shared on clone.
#[derive(Clone)]
pub struct PublicKey(Arc<PkInner>);

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "ElGamal-P256 PublicKey (N = {}, setup {})",
            self.0.n,
            crate::wire::hex(&self.0.setup_id)
        )
    }
}

/// Encoded sizes.
pub fn public_key_len(n: u32) -> usize {
    8 + 4 + POINT_BYTES * n as usize
}

impl PublicKey {
    pub fn users(&self) -> u32 {
        self.0.n
    }
    fn encode(n: u32, h: &[AffinePoint]) -> Vec<u8> {
        let mut w = Writer::new(preamble(ObjectKind::PublicKey));
        w.u32(n);
        let mut out = w.finish();
        out.reserve(h.len() * POINT_BYTES);
        let enc = par_chunks(h, |c| {
            let mut v = Vec::with_capacity(c.len() * POINT_BYTES);
            for p in c {
                encode_point(p, &mut v);
            }
            v
        });
        out.extend_from_slice(&enc);
        out
    }
}

impl Bound for PublicKey {
    fn setup_id(&self) -> [u8; 16] {
        self.0.setup_id
    }
}

impl Encoded for PublicKey {
    fn format_row() -> Option<(ObjectKind, String)> {
        let row = format!("N ({}) ‖ h_1..h_N (n × P-256 point)", UserCount::layout());
        Some((ObjectKind::PublicKey, row))
    }
    fn to_bytes(&self) -> Vec<u8> {
        Self::encode(self.0.n, &self.0.h)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::PublicKey, SCHEME, CURVE)?;
        let n = r.u32("number of users")?;
        check_n(n).map_err(|e| WireError::Invalid {
            what: "public key",
            detail: e.to_string(),
        })?;
        if r.remaining() != public_key_len(n) - 12 {
            return Err(WireError::Invalid {
                what: "public key",
                detail: format!("wrong length for N = {n}"),
            });
        }
        let h = decode_points(&mut r, n as usize, "h_i")?;
        r.finish()?;
        Ok(PublicKey(Arc::new(PkInner {
            n,
            h,
            setup_id: crate::wire::setup_id(bytes),
        })))
    }
}

/// The master key: the seed of the x_i. Zeroized on drop.
pub struct MasterKey {
    n: u32,
    seed: [u8; 32],
    setup_id: [u8; 16],
}

impl Drop for MasterKey {
    fn drop(&mut self) {
        wipe(&mut self.seed, [0u8; 32]);
    }
}

impl MasterKey {
    /// Recomputes the public key h_i = g^{x_i}.
    pub fn public_key(&self) -> PublicKey {
        let idx: Vec<u32> = (1..=self.n).collect();
        let h = par_chunks(&idx, |c| {
            let pts: Vec<ProjectivePoint> =
                c.iter().map(|&i| mul_g(&prf_x(&self.seed, i))).collect();
            normalize(&pts)
        });
        let setup_id = crate::wire::setup_id(&PublicKey::encode(self.n, &h));
        PublicKey(Arc::new(PkInner {
            n: self.n,
            h,
            setup_id,
        }))
    }
}

impl Bound for MasterKey {
    fn setup_id(&self) -> [u8; 16] {
        self.setup_id
    }
}

impl Encoded for MasterKey {
    fn format_row() -> Option<(ObjectKind, String)> {
        let row = format!(
            "setup id (16 bytes) ‖ N ({}) ‖ seed of the x_i (32 bytes)",
            UserCount::layout()
        );
        Some((ObjectKind::MasterKey, row))
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble(ObjectKind::MasterKey));
        w.raw(&self.setup_id).u32(self.n).raw(&self.seed);
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::MasterKey, SCHEME, CURVE)?;
        let setup_id = r.array("setup id")?;
        let n = r.u32("number of users")?;
        check_n(n).map_err(|e| WireError::Invalid {
            what: "master key",
            detail: e.to_string(),
        })?;
        let seed = r.array("seed")?;
        r.finish()?;
        Ok(MasterKey { n, seed, setup_id })
    }
}

/// A user key x_i.
pub struct UserKey {
    setup_id: [u8; 16],
    n: u32,
    i: u32,
    x: Scalar,
}

impl Drop for UserKey {
    fn drop(&mut self) {
        wipe(&mut self.x, Scalar::ZERO);
    }
}

impl UserKey {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
    /// The setup id of the public key it was issued under.
    pub fn setup_id(&self) -> [u8; 16] {
        self.setup_id
    }
    /// Encoded size: preamble, setup id, N, i, x_i.
    pub const ENCODED_LEN: usize = 8 + 16 + 4 + 4 + 32;
}

impl Encoded for UserKey {
    fn format_row() -> Option<(ObjectKind, String)> {
        let row = format!(
            "setup id (16 bytes) ‖ N ({}) ‖ user index i (u32) ‖ x_i (P-256 scalar); 1 ≤ i ≤ N",
            UserCount::layout()
        );
        Some((ObjectKind::SchemeUserKey, row))
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble(ObjectKind::SchemeUserKey));
        w.raw(&self.setup_id)
            .u32(self.n)
            .u32(self.i)
            .raw(&self.x.to_bytes());
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::SchemeUserKey, SCHEME, CURVE)?;
        let setup_id = r.array("setup id")?;
        let n = r.u32("number of users")?;
        let i = r.u32("user index")?;
        if check_n(n).is_err() || UserIndex(i).check(n).is_err() {
            return Err(WireError::Invalid {
                what: "user key",
                detail: "user index outside [1, N]".into(),
            });
        }
        let mut xb: [u8; 32] = r.array("x_i")?;
        r.finish()?;
        let x = Option::<Scalar>::from(<Scalar as p256::elliptic_curve::PrimeField>::from_repr(
            xb.into(),
        ));
        xb.fill(0);
        let x = x.ok_or(WireError::Point(crate::curve::PointError::Scalar))?;
        Ok(UserKey { setup_id, n, i, x })
    }
}

/// The ciphertext header: c = g^y and one z_i per recipient (in the order
/// of S).
pub struct Header {
    setup_id: [u8; 16],
    n: u32,
    set: Recipients,
    c: AffinePoint,
    z: Vec<AffinePoint>,
}

impl Header {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
    /// Bytes of the group elements alone: 33·(|S|+1).
    pub fn element_bytes(s: usize) -> usize {
        POINT_BYTES * (s + 1)
    }
}

impl Bound for Header {
    fn setup_id(&self) -> [u8; 16] {
        self.setup_id
    }
}

impl Encoded for Header {
    fn format_row() -> Option<(ObjectKind, String)> {
        let row = format!(
            "setup id (16 bytes) ‖ N ({}) ‖ S ({}) ‖ c = g^y (P-256 point) ‖ z_j (|S| × P-256 point, in the order of S)",
            UserCount::layout(),
            <Recipients as CodecIn>::layout("n")
        );
        Some((ObjectKind::KemHeader, row))
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble(ObjectKind::KemHeader));
        w.raw(&self.setup_id).u32(self.n);
        self.set.encode(&mut w);
        let mut out = w.finish();
        encode_point(&self.c, &mut out);
        let enc = par_chunks(&self.z, |c| {
            let mut v = Vec::with_capacity(c.len() * POINT_BYTES);
            for p in c {
                encode_point(p, &mut v);
            }
            v
        });
        out.extend_from_slice(&enc);
        out
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::KemHeader, SCHEME, CURVE)?;
        let setup_id = r.array("setup id")?;
        let n = r.u32("number of users")?;
        check_n(n).map_err(|e| WireError::Invalid {
            what: "header",
            detail: e.to_string(),
        })?;
        let set = Recipients::decode(&mut r, n)?;
        if r.remaining() != POINT_BYTES * (set.len() + 1) {
            return Err(WireError::Invalid {
                what: "header",
                detail: format!("expected {} points", set.len() + 1),
            });
        }
        let c = decode_points(&mut r, 1, "c")?[0];
        let z = decode_points(&mut r, set.len(), "z_i")?;
        r.finish()?;
        Ok(Header {
            setup_id,
            n,
            set,
            c,
            z,
        })
    }
}

impl ElGamalP256 {
    fn session_key(m: &AffinePoint) -> SessionKey {
        let mut b = m.to_encoded_point(true).as_bytes().to_vec();
        let k = SessionKey::from_bytes_kdf(&b, SCHEME, CURVE);
        b.fill(0);
        k
    }
}

impl Authority for ElGamalP256 {
    type Params = Users;
    type PublicKey = PublicKey;
    type MasterKey = MasterKey;
    type UserKey = UserKey;
    type KeySide = UserIndex;

    /// Setup for N users (indices 1..=N).
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey, MasterKey), KemError> {
        let n = users.0;
        check_n(n)?;
        let mut mk = MasterKey {
            n,
            seed: [0; 32],
            setup_id: [0; 16],
        };
        rng.fill_bytes(&mut mk.seed);
        let pk = mk.public_key();
        mk.setup_id = pk.setup_id();
        Ok((pk, mk))
    }

    fn public_key(mk: &MasterKey) -> PublicKey {
        mk.public_key()
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey,
        mk: &MasterKey,
        user: &UserIndex,
        _rng: &mut R,
    ) -> Result<UserKey, KemError> {
        if pk.setup_id() != mk.setup_id || pk.users() != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.n)?;
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            x: prf_x(&mk.seed, user.0),
        })
    }
}

impl Kem for ElGamalP256 {
    const SCHEME: SchemeId = SCHEME;
    const CURVE: CurveId = CURVE;
    type Authority = Self;
    type PublicKey = PublicKey;
    type UserKey = UserKey;
    type Header = Header;
    type KeySide = UserIndex;
    type CiphertextSide = Recipients;

    fn user_key(key: UserKey, _: &PublicKey) -> UserKey {
        key
    }

    super::unattached_keys!(UserKey, PublicKey);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header), KemError> {
        set.check(pk.users())?;
        let y = Scalar::random(&mut *rng);
        let mu = Scalar::random(&mut *rng);
        let m = mul_g(&mu);
        let c = mul_g(&y).to_affine();
        let h: Vec<AffinePoint> = set.iter().map(|i| pk.0.h[i as usize - 1]).collect();
        let z = par_chunks(&h, |chunk| {
            let pts: Vec<ProjectivePoint> = chunk
                .iter()
                .map(|hi| ProjectivePoint::from(*hi) * y + m)
                .collect();
            normalize(&pts)
        });
        let key = Self::session_key(&m.to_affine());
        let (mut y, mut mu) = (y, mu);
        wipe(&mut y, Scalar::ZERO);
        wipe(&mut mu, Scalar::ZERO);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.users(),
                set: set.clone(),
                c,
                z,
            },
        ))
    }

    fn decapsulate(key: &UserKey, header: &Header) -> Result<SessionKey, KemError> {
        if header.setup_id != key.setup_id || header.n != key.n {
            return Err(KemError::WrongSetup);
        }
        let k = header.set.rank(key.i).ok_or(KemError::NotSatisfied)?;
        let zi = header
            .z
            .get(k)
            .ok_or_else(|| KemError::Invalid("header has fewer elements than recipients".into()))?;
        let m = ProjectivePoint::from(*zi) - ProjectivePoint::from(header.c) * key.x;
        Ok(Self::session_key(&m.to_affine()))
    }
}

impl MadeFor<UserIndex> for UserKey {
    fn made_for(&self) -> UserIndex {
        UserIndex(self.i)
    }
}

impl MadeFor<Recipients> for Header {
    fn made_for(&self) -> Recipients {
        self.set.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Case};
    use crate::kem::Side;

    type E = ElGamalP256;

    #[test]
    fn conformance() {
        let case: Case<E> = conformance::broadcast_case();
        conformance::run(&case);
        conformance::random_recipients(&case);
        conformance::forged_recipients(&case);
    }

    conformance::retarget!(ElGamalP256, set);

    #[test]
    fn fixed_base_matches_variable_base() {
        let mut r = rng(1);
        for s in [
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            Scalar::from(8u64),
            Scalar::from(9u64),
        ]
        .into_iter()
        .chain((0..20).map(|_| Scalar::random(&mut r)))
        {
            assert_eq!(mul_g(&s), ProjectivePoint::GENERATOR * s);
        }
    }

    #[test]
    fn round_trip_and_sizes() {
        let mut r = rng(2);
        let n = 300;
        let (pk, mk) = E::setup(&Users(n), &mut r).unwrap();
        assert_eq!(pk.to_bytes().len(), public_key_len(n));
        let pk2 = PublicKey::from_bytes(&pk.to_bytes()).unwrap();
        assert_eq!(pk2.setup_id(), pk.setup_id());
        let mk = MasterKey::from_bytes(&mk.to_bytes()).unwrap();
        let set = Recipients::parse("1-10,100,290-300").unwrap();
        let (key, header) = E::encapsulate(&pk2, &set, &mut r).unwrap();
        let hb = header.to_bytes();
        assert_eq!(
            hb.len(),
            8 + 16 + 4 + set.encoded_len() + Header::element_bytes(set.len())
        );
        let header = Header::from_bytes(&hb).unwrap();
        for i in 1..=n {
            let uk = E::keygen(&pk, &mk, &UserIndex(i), &mut r).unwrap();
            assert_eq!(uk.to_bytes().len(), UserKey::ENCODED_LEN);
            let uk = UserKey::from_bytes(&uk.to_bytes()).unwrap();
            match E::decapsulate(&uk, &header) {
                Ok(k) => assert!(set.contains(i) && k == key),
                Err(KemError::NotSatisfied) => assert!(!set.contains(i)),
                Err(e) => panic!("{e}"),
            }
        }
    }
}
