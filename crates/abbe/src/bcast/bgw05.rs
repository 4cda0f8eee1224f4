//! Boneh–Gentry–Waters 2005 broadcast encryption, special case (§3.1), in
//! KEM form, Type-III, with KeyGen separate from Setup.
//!
//! Papers: D. Boneh, C. Gentry, B. Waters, "Collusion Resistant Broadcast
//! Encryption with Short Ciphertexts and Private Keys", CRYPTO 2005, §3.1;
//! its asymmetric rewriting and evaluation in Chhatrapati–Hohenberger–
//! Trombo–Vusirikala, ACNS 2022 (`chhatrapati22`, §3.1, Tables 7–9).
//!
//! Notation (the paper's): n = N users, generators g ∈ G1, ĝ ∈ G2, secrets
//! α, γ ∈ Z_p; g_k = g^{α^k}, ĝ_k = ĝ^{α^k}; v = g^γ.
//!
//! ```text
//! Setup(n):  PK = (g_1..g_n, g_{n+2}..g_{2n}, ĝ_1..ĝ_n, v, Z = e(g_{n+1}, ĝ))
//!            MSK = (α, γ)
//! KeyGen(i): d_i = g_i^γ = g^{γ·α^i}
//! Encrypt S: t ←R Z_p;  Hdr = (C_0, C_1) = (ĝ^t, (v · Π_{j∈S} g_{n+1−j})^t)
//!            K = Z^t = e(g_{n+1}, ĝ)^t
//! Decrypt i: K = e(C_1, ĝ_i) / e(d_i · Π_{j∈S, j≠i} g_{n+1−j+i}, C_0)
//! ```
//! (Z is computed as e(g_n, ĝ_1) = e(g, ĝ)^{α^{n+1}}; g_{n+1} is never
//! published.)
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! Decryption multiplies |S|−1 public-key elements g_{n+1−j+i}; they are in
//! **G1**, where an addition is about three times cheaper than in G2, and so
//! are d_i (the private key: 32 bytes on BN254) and v. The product is paired
//! with C_0, which is therefore in G2 (ĝ^t); C_1 = (vΠg_{n+1−j})^t is built
//! from G1 elements, so the user's other pairing partner ĝ_i must be in G2:
//! the public key holds ĝ_1..ĝ_n in G2 (the paper's "λ2^3·N" in Setup), and a
//! user key caches the Miller-loop lines of its ĝ_i. Decryption is one shared
//! multi-Miller loop over 2 pairs (C_0's lines are computed per header) and
//! one final exponentiation. Ciphertext: one G1 + one G2 element (96 bytes
//! on BN254, the paper's Table 8).
//!
//! ## Side channels
//! The secrets γ, α and t meet points only in fixed-base tables (d_i = g^{γα^i},
//! C0 = ĝ^t), [`Group::mul_secret`] (C1 = (v·Π g_{n+1−j})^t) and GT powers, all
//! constant time on every curve; the sums over S use public indices only.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## Scale
//! The g_k = g^{α^k} are computed from the exponents α^k (one field
//! multiplication each) by fixed-base exponentiation through one table for
//! g (and one for ĝ), in parallel lanes of 1024 exponents that stay affine
//! and share one constant-time inversion per window on BN254
//! ([`crate::curve::Group::mul_fixed_batch`]; one batch normalisation
//! elsewhere) — never one variable-base exponentiation after another. [`Bgw05::public_key_stream`]
//! writes the encoded public key chunk by chunk in bounded memory (the
//! caller streams it to a file) and returns the setup id.

use super::{
    encode_affine, fixed_base_affine, scalar_pow, sum_points, user_in_range, write_affine, Points,
    Recipients, SetupIdHasher, UserCount, UserIndex, CHUNK,
};
use crate::curve::{wipe, Curve, CurveId, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{Authority, Kem, KemError, SessionKey, Users};
use crate::wire::codec::{object, CodecIn};
use crate::wire::{Lazy, ObjectKind, Preamble, Reader, SchemeId, Secret, WireError, Writer};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

type G1A<C> = <<C as Curve>::G1 as Group>::Affine;
type G2A<C> = <<C as Curve>::G2 as Group>::Affine;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bgw05<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Bgw05;

struct Tables<C: Curve> {
    g1: FixedBaseTable<C::G1>,
    g2: FixedBaseTable<C::G2>,
}

fn tables<C: Curve>() -> Tables<C> {
    Tables {
        g1: C::G1::generator().precompute(),
        g2: C::G2::generator().precompute(),
    }
}

/// ĝ^{α^k}, k ∈ [1, n]: decoded when setup computed them; kept encoded when
/// the public key was read, and decoded (with the subgroup check) only for
/// the user who decrypts. Decoding and checking all n G2 points was most of
/// the time of reading a public key (~9 s of `abbe encrypt` at 10^5 users).
enum G2Powers<C: Curve> {
    Decoded(Vec<G2A<C>>),
    /// n compressed points, unchecked until used.
    Encoded(Vec<u8>),
}

impl<C: Curve> G2Powers<C> {
    /// ĝ^{α^k}, decoded and checked if it was read from bytes.
    fn get(&self, k: u32) -> Result<C::G2, WireError> {
        let k = k as usize - 1;
        match self {
            G2Powers::Decoded(v) => Ok(C::G2::from_affine(&v[k])),
            G2Powers::Encoded(b) => {
                let w = C::G2::COMPRESSED_BYTES;
                let enc = b
                    .get(k * w..(k + 1) * w)
                    .ok_or(WireError::Truncated("ĝ_i"))?;
                Ok(C::G2::from_compressed(enc)?)
            }
        }
    }
}

impl<C: Curve> CodecIn for G2Powers<C> {
    fn layout(n: &str) -> String {
        format!("{n} × G2 (each checked when used)")
    }
    fn encode(&self, w: &mut Writer) {
        match self {
            G2Powers::Decoded(v) => write_affine::<C, C::G2>(v, w),
            G2Powers::Encoded(b) => {
                w.raw(b);
            }
        }
    }
    fn decode_in(r: &mut Reader<'_>, what: &'static str, n: u32) -> Result<Self, WireError> {
        let len = (n as usize).saturating_mul(C::G2::COMPRESSED_BYTES);
        Ok(G2Powers::Encoded(r.take(len, what)?.to_vec()))
    }
}

object! {
    /// The public key (cheap to clone: shared): v, Z, g_k = g^{α^k}
    /// (k ∈ [1, 2n], k ≠ n+1) and ĝ_k = ĝ^{α^k} (k ∈ [1, n]).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        v: C::G1 => "v = g^γ",
        z: C::Gt => "Z = e(g,ĝ)^{α^{n+1}}",
        g_low: Arc<Points<C, C::G1>> => "g_1..g_n" in n,
        g_high: Arc<Points<C, C::G1>> => "g_{n+2}..g_{2n}" in n - 1,
        gh: Arc<G2Powers<C>> => "ĝ_1..ĝ_n" in n,
    }
    cached { tables: Lazy<Tables<C>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(tables::<C>)
    }
    /// g_k, k ∈ [1, 2n] \ {n+1}.
    fn g(&self, k: u32) -> G1A<C> {
        let n = self.n.get();
        if k <= n {
            self.g_low[k as usize - 1]
        } else {
            self.g_high[(k - n - 2) as usize]
        }
    }
}

/// The encoding of a public key up to the g_k (for the streamed setup).
fn pk_head<C: Curve>(n: u32, v: &C::G1, z: &C::Gt) -> Vec<u8> {
    let mut w = Writer::new(Preamble::new(ObjectKind::PublicKey, SCHEME, C::ID));
    w.u32(n).point(v).gt(z);
    w.finish()
}

object! {
    /// The master key (α, γ) and N; wiped on drop. The secrets are not
    /// checked against the setup id when decoded (that would recompute a
    /// public key of O(N) elements); a mismatch shows as
    /// [`KemError::WrongSetup`] at key generation.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        alpha: Secret<C::Scalar> => "α",
        gamma: Secret<C::Scalar> => "γ",
    }
}

impl<C: Curve> MasterKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }

    /// g^{α^k}… for k = k0, k0+1, … (count of them), affine.
    fn powers_g1(&self, t: &Tables<C>, k0: u64, count: usize) -> Vec<G1A<C>> {
        let exps = exponents::<C>(&self.alpha, k0, count);
        fixed_base_affine::<C, C::G1>(&t.g1, &exps)
    }
    fn powers_g2(&self, t: &Tables<C>, k0: u64, count: usize) -> Vec<G2A<C>> {
        let exps = exponents::<C>(&self.alpha, k0, count);
        fixed_base_affine::<C, C::G2>(&t.g2, &exps)
    }
    fn v_and_z(&self, t: &Tables<C>) -> (C::G1, C::Gt) {
        let n = self.n.get() as u64;
        let v = C::G1::mul_fixed(&t.g1, &self.gamma);
        // Z = e(g_n, ĝ_1) = e(g, ĝ)^{α^{n+1}}
        let gn = C::G1::mul_fixed(&t.g1, &scalar_pow(*self.alpha, n));
        let g1h = C::G2::mul_fixed(&t.g2, &self.alpha);
        let z = C::multi_pairing(&[(gn, &C::prepare(&g1h))]);
        (v, z)
    }

    /// Recomputes the public key in memory (O(N) elements).
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let n = self.n.get() as usize;
        let (v, z) = self.v_and_z(&t);
        let powers = |lo: usize, hi: usize| -> Vec<G1A<C>> {
            (lo..=hi)
                .step_by(CHUNK)
                .flat_map(|k0| self.powers_g1(&t, k0 as u64, CHUNK.min(hi + 1 - k0)))
                .collect()
        };
        let (g_low, g_high) = (powers(1, n), powers(n + 2, 2 * n));
        let mut gh = Vec::with_capacity(n);
        for k0 in (1..=n).step_by(CHUNK) {
            gh.extend(self.powers_g2(&t, k0 as u64, CHUNK.min(n + 1 - k0)));
        }
        PublicKey {
            n: self.n,
            v,
            z,
            g_low: Arc::new(Points::new(g_low)),
            g_high: Arc::new(Points::new(g_high)),
            gh: Arc::new(G2Powers::Decoded(gh)),
            tables: Lazy::from(t),
            id: OnceLock::new(),
        }
    }
}

/// α^{k0}, α^{k0+1}, …, `count` of them (one field multiplication each).
fn exponents<C: Curve>(alpha: &C::Scalar, k0: u64, count: usize) -> Vec<C::Scalar> {
    let mut e = scalar_pow(*alpha, k0);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(e);
        e *= *alpha;
    }
    wipe(&mut e, C::Scalar::zero());
    out
}

object! {
    /// A user's private key d_i ∈ G1 (wiped on drop), with (in memory only)
    /// the public key it decrypts with and the cached lines of ĝ_i.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index i",
        d: Secret<C::G1> => "d_i",
    }
    cached { pk: Option<PublicKey<C>>, lines: OnceLock<C::G2Prepared> }
    check "1 ≤ i ≤ N" => |k| user_in_range(k.i, k.n);
}

impl<C: Curve> UserKey<C> {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
    /// Attaches the public key decryption needs (the g_k and ĝ_i).
    pub fn with_public_key(mut self, pk: &PublicKey<C>) -> Result<Self, KemError> {
        self.attach(pk)?;
        Ok(self)
    }
    fn attach(&mut self, pk: &PublicKey<C>) -> Result<(), KemError> {
        if pk.setup_id() != self.setup_id || pk.n != self.n {
            return Err(KemError::WrongSetup);
        }
        self.pk = Some(pk.clone());
        Ok(())
    }
}

object! {
    /// The header (C_0 ∈ G2, C_1 ∈ G1) with the recipient set S.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        c0: C::G2 => "C_0",
        c1: C::G1 => "C_1",
    }
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
    /// Replaces the recipient set (for tests of replayed headers).
    #[cfg(test)]
    pub(crate) fn with_recipients(mut self, set: Recipients) -> Self {
        self.set = set;
        self
    }
}

impl<C: Curve> Bgw05<C> {
    fn draw<R: RngCore + CryptoRng>(n: u32, rng: &mut R) -> Result<MasterKey<C>, KemError> {
        Ok(MasterKey {
            setup_id: [0; 16],
            n: UserCount::new(n)?,
            alpha: Secret(C::Scalar::random(rng)),
            gamma: Secret(C::Scalar::random(rng)),
        })
    }

    /// Setup for N = `n` users in bounded memory: the encoded public key is
    /// handed to `sink` in order, chunk by chunk (a caller writes it to a
    /// file); the master key (with the setup id of those bytes) is returned.
    pub fn setup_stream<R: RngCore + CryptoRng>(
        n: u32,
        rng: &mut R,
        sink: impl FnMut(&[u8]),
    ) -> Result<MasterKey<C>, KemError> {
        let mut mk = Self::draw(n, rng)?;
        mk.setup_id = Self::public_key_stream(&mk, sink);
        Ok(mk)
    }

    /// Streams the encoding of the public key of `mk` to `sink` (chunks of
    /// at most `CHUNK` points) and returns its setup id. Memory: one chunk.
    pub fn public_key_stream(mk: &MasterKey<C>, mut sink: impl FnMut(&[u8])) -> [u8; 16] {
        let t = tables::<C>();
        let n = mk.users() as usize;
        let mut h = SetupIdHasher::new();
        let mut emit = |b: &[u8]| {
            h.update(b);
            sink(b);
        };
        let (v, z) = mk.v_and_z(&t);
        emit(&pk_head::<C>(mk.users(), &v, &z));
        let mut buf = Vec::new();
        for (lo, hi) in [(1, n), (n + 2, 2 * n)] {
            for k0 in (lo..=hi).step_by(CHUNK) {
                let pts = mk.powers_g1(&t, k0 as u64, CHUNK.min(hi + 1 - k0));
                buf.clear();
                encode_affine::<C, C::G1>(&pts, &mut buf);
                emit(&buf);
            }
        }
        for k0 in (1..=n).step_by(CHUNK) {
            let pts = mk.powers_g2(&t, k0 as u64, CHUNK.min(n + 1 - k0));
            buf.clear();
            encode_affine::<C, C::G2>(&pts, &mut buf);
            emit(&buf);
        }
        h.finish()
    }

    /// The group element e(g_{n+1}, ĝ)^t recovered by user `key` (the
    /// pre-KDF value), for tests and benchmarks.
    pub fn decapsulate_gt(key: &UserKey<C>, header: &Header<C>) -> Result<C::Gt, KemError> {
        if header.setup_id != key.setup_id || header.n != key.n {
            return Err(KemError::WrongSetup);
        }
        if !header.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let pk = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid(
                "BGW05 decryption needs the public key: attach it with UserKey::with_public_key"
                    .into(),
            )
        })?;
        let (n, i) = (key.n.get(), key.i);
        let others = header.set.iter().filter(|&j| j != i);
        let sum = match sum_points::<C::G1>(others.map(|j| pk.g(n + 1 - j + i))) {
            Some(s) => s + *key.d,
            None => *key.d,
        };
        let gh_i = match key.lines.get() {
            Some(lines) => lines,
            None => {
                let q = pk.gh.get(i)?;
                key.lines.get_or_init(|| C::prepare(&q))
            }
        };
        let c0_lines = C::prepare(&header.c0);
        Ok(C::multi_pairing(&[(header.c1, gh_i), (-sum, &c0_lines)]))
    }
}

impl<C: Curve> Authority for Bgw05<C> {
    type Params = Users;
    type PublicKey = PublicKey<C>;
    type MasterKey = MasterKey<C>;
    type UserKey = UserKey<C>;
    type KeySide = UserIndex;

    /// Setup for N users, the public key in memory.
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let n = users.0;
        let mut mk = Self::draw(n, rng)?;
        let pk = mk.public_key();
        mk.setup_id = pk.setup_id();
        Ok((pk, mk))
    }

    fn public_key(mk: &MasterKey<C>) -> PublicKey<C> {
        mk.public_key()
    }

    /// Compares setup ids: recomputing the public key is O(N).
    fn is_public_key_of(pk: &PublicKey<C>, mk: &MasterKey<C>) -> bool {
        pk.setup_id() == mk.setup_id
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        user: &UserIndex,
        _rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.n != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.users())?;
        let mut e = *mk.gamma * scalar_pow(*mk.alpha, user.0 as u64);
        let d = C::G1::mul_fixed(&pk.tables().g1, &e);
        wipe(&mut e, C::Scalar::zero());
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            d: Secret(d),
            pk: Some(pk.clone()),
            lines: OnceLock::new(),
        })
    }
}

impl<C: Curve> Kem for Bgw05<C> {
    const SCHEME: SchemeId = SCHEME;
    const CURVE: CurveId = C::ID;
    type Authority = Self;
    type PublicKey = PublicKey<C>;
    type UserKey = UserKey<C>;
    type Header = Header<C>;
    type KeySide = UserIndex;
    type CiphertextSide = Recipients;

    /// Attaches the public key when it belongs to the key's setup (a
    /// mismatch is left for decryption to report as `WrongSetup`): the
    /// decryption sums public elements.
    fn user_key(mut key: UserKey<C>, pk: &PublicKey<C>) -> UserKey<C> {
        let _ = key.attach(pk);
        key
    }

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.users())?;
        let n = pk.users();
        let t = C::Scalar::random(rng);
        let c0 = C::G2::mul_fixed(&pk.tables().g2, &t);
        let c1 = (sum_points::<C::G1>(set.iter().map(|j| pk.g(n + 1 - j)))
            .unwrap_or_else(C::G1::identity)
            + pk.v)
            .mul_secret(&t);
        let key = SessionKey::from_gt(&pk.z.pow(&t), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.n,
                set: set.clone(),
                c0,
                c1,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let k = Self::decapsulate_gt(key, header)?;
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }

    fn key_side(key: &UserKey<C>) -> UserIndex {
        UserIndex(key.i)
    }

    fn ciphertext_side(header: &Header<C>) -> Recipients {
        header.set.clone()
    }

    fn header_setup_id(header: &Header<C>) -> Option<[u8; 16]> {
        Some(header.setup_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Side;

    type B = Bgw05<Bls12>;

    fn case<C: Curve>() -> Case<'static, Bgw05<C>> {
        conformance::broadcast_case()
    }

    conformance::tests!(random_recipients);

    #[test]
    fn sizes_match_table_2_and_8() {
        // Table 2: ciphertext O(λ), private key O(λ), public key O(λ·N).
        // Table 8 (BN254): ct 96 B, sk 32 B, pk ≈ 2N·32 + N·64 B (bodies:
        // after the preamble, setup id, N, i and S).
        let mut r = rng(8);
        for n in [1u32, 100, 1000] {
            let (pk, mk) = Bgw05::<Bn254>::setup(&Users(n), &mut r).unwrap();
            let pk_len = 12 + 32 * 2 * n as usize + 384 + 64 * n as usize;
            assert_eq!(pk.to_bytes().len(), pk_len);
            let set = Recipients::range(1, n.min(10)).unwrap();
            let (_, h) = Bgw05::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
            assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(), 96);
            let key = Bgw05::<Bn254>::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap();
            assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 32);
        }
    }

    #[test]
    fn streamed_public_key_is_the_public_key() {
        let mut r = rng(9);
        let mut bytes = Vec::new();
        let mk = B::setup_stream(37, &mut r, |b| bytes.extend_from_slice(b)).unwrap();
        let pk = PublicKey::<Bls12>::from_bytes(&bytes).unwrap();
        assert_eq!(pk.setup_id(), mk.setup_id());
        assert_eq!(mk.public_key().to_bytes(), bytes);
        let set = Recipients::parse("2,5-9,37").unwrap();
        let (k, h) = B::encapsulate(&pk, &set, &mut r).unwrap();
        let uk = B::keygen(&pk, &mk, &UserIndex(37), &mut r).unwrap();
        assert_eq!(B::decapsulate(&uk, &h).unwrap(), k);
    }

    #[test]
    fn outsiders_and_replayed_headers_fail() {
        let mut r = rng(3);
        let (pk, mk) = B::setup(&Users(16), &mut r).unwrap();
        let set = Recipients::parse("1-4,9").unwrap();
        let (key, header) = B::encapsulate(&pk, &set, &mut r).unwrap();
        // A valid key of a user outside S.
        let out = B::keygen(&pk, &mk, &UserIndex(5), &mut r).unwrap();
        assert!(matches!(
            B::decapsulate(&out, &header),
            Err(KemError::NotSatisfied)
        ));
        // The same header with S' = S ∪ {5}: user 5 runs decryption but
        // does not get the key (nor do the real recipients).
        let forged = header.with_recipients(Recipients::parse("1-5,9").unwrap());
        assert_ne!(B::decapsulate(&out, &forged).unwrap(), key);
        let inside = B::keygen(&pk, &mk, &UserIndex(2), &mut r).unwrap();
        assert_ne!(B::decapsulate(&inside, &forged).unwrap(), key);
        // A decoded key decrypts only once its public key is attached.
        let bare = UserKey::<Bls12>::from_bytes(&inside.to_bytes()).unwrap();
        assert!(matches!(
            B::decapsulate(&bare, &forged),
            Err(KemError::Invalid(_))
        ));
        // Another setup.
        let (pk2, mk2) = B::setup(&Users(16), &mut r).unwrap();
        let k2 = B::keygen(&pk2, &mk2, &UserIndex(2), &mut r).unwrap();
        assert!(matches!(
            B::decapsulate(&k2, &forged),
            Err(KemError::WrongSetup)
        ));
        assert!(B::keygen(&pk, &mk2, &UserIndex(1), &mut r).is_err());
        assert!(B::keygen(&pk, &mk, &UserIndex(17), &mut r).is_err());
        assert!(B::encapsulate(&pk, &Recipients::parse("3-17").unwrap(), &mut r).is_err());
        assert!(UserKey::<Bls12>::from_bytes(&inside.to_bytes())
            .unwrap()
            .with_public_key(&pk2)
            .is_err());
    }

    #[test]
    fn op_counts_match_table_9() {
        type CB = Bgw05<Counted<Bls12>>;
        let mut r = rng(5);
        let n = 24u64;
        let ((pk, mk), setup) = OpCounts::measure(|| CB::setup(&Users(n as u32), &mut r).unwrap());
        assert_eq!(
            setup.g1_fixed_exp,
            2 * n - 1 + 1 + 1,
            "2N−1 g_k, v, g_n for Z"
        );
        assert_eq!(setup.g2_fixed_exp, n + 1, "N ĝ_k, ĝ_1 for Z");
        assert_eq!((setup.miller_loops, setup.final_exps), (1, 1));
        for s in [1usize, 2, 7, 24] {
            let set = Recipients::range(1, s as u32).unwrap();
            let (key, kg) =
                OpCounts::measure(|| CB::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap());
            assert_eq!(kg.g1_fixed_exp, 1);
            assert_eq!(kg.g1_exp + kg.g2_exp + kg.g2_fixed_exp, 0);
            let ((_, h), enc) = OpCounts::measure(|| CB::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_add, s as u64, "λ1·|S|");
            assert_eq!(enc.g1_exp, 1);
            assert_eq!(enc.g2_fixed_exp, 1);
            assert_eq!(enc.miller_loops, 0);
            let (_, dec) = OpCounts::measure(|| CB::decapsulate(&key, &h).unwrap());
            assert_eq!(dec.g1_add, s as u64 - 1, "λ1·(|S|−1)");
            assert_eq!((dec.miller_loops, dec.final_exps), (2, 1), "2·e");
            assert_eq!(dec.g1_exp + dec.g2_exp + dec.gt_exp, 0);
        }
    }

    /// A public key read from bytes checks ĝ_i only when it is used: the
    /// bytes round-trip unchanged, every user decrypts with it, a damaged
    /// ĝ_3 is an error of `gh(3)` (never a panic) while the other ĝ_i
    /// decode, and such a key is refused as another setup before use.
    #[test]
    fn g2_powers_are_checked_when_used() {
        let mut r = rng(12);
        let n = 5u32;
        let (pk, mk) = B::setup(&Users(n), &mut r).unwrap();
        let set = Recipients::parse("1-5").unwrap();
        let (k, header) = B::encapsulate(&pk, &set, &mut r).unwrap();
        let bytes = pk.to_bytes();
        let read = PublicKey::<Bls12>::from_bytes(&bytes).unwrap();
        assert_eq!(read.to_bytes(), bytes);
        for i in 1..=n {
            assert_eq!(read.gh.get(i).unwrap(), pk.gh.get(i).unwrap(), "ĝ_{i}");
            let key = B::keygen(&read, &mk, &UserIndex(i), &mut r).unwrap();
            assert_eq!(B::decapsulate(&key, &header).unwrap(), k, "user {i}");
        }
        let w = <Bls12 as Curve>::G2::COMPRESSED_BYTES;
        let at = bytes.len() - (n as usize - 2) * w; // ĝ_3
        let mut bad = bytes.clone();
        bad[at + 5] ^= 0x10;
        let bad = PublicKey::<Bls12>::from_bytes(&bad).unwrap();
        assert!(bad.gh.get(3).is_err());
        for i in [1, 2, 4, 5] {
            assert!(bad.gh.get(i).is_ok(), "ĝ_{i}");
        }
        let key = B::keygen(&read, &mk, &UserIndex(3), &mut r).unwrap();
        let key = UserKey::<Bls12>::from_bytes(&key.to_bytes()).unwrap();
        assert!(matches!(
            key.with_public_key(&bad),
            Err(KemError::WrongSetup)
        ));
    }
}
