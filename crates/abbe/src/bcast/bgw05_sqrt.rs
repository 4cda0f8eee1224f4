//! Boneh–Gentry–Waters 2005 general construction (§3.2) with B = ⌊√N⌋, in
//! KEM form, Type-III, KeyGen separate from Setup.
//!
//! Papers: D. Boneh, C. Gentry, B. Waters, CRYPTO 2005, §3.2; its
//! asymmetric version evaluated in chhatrapati22 §3.1 ("[2, S3.2]"),
//! Tables 4, 7–9: B = ⌊√N⌋ as the authors suggest, A = ⌈N/B⌉ instances
//! of the B-user special case sharing the g_k.
//!
//! Notation (the paper's): g ∈ G1, ĝ ∈ G2; α, γ_1..γ_A ∈ Z_p; g_k = g^{α^k},
//! ĝ_k = ĝ^{α^k}; v_ℓ = g^{γ_ℓ}. User i ∈ [1, N] is user b = i − (ℓ−1)B of
//! instance ℓ = ⌈i/B⌉.
//!
//! ```text
//! Setup(N):  PK = (g_1..g_B, g_{B+2}..g_{2B}, ĝ_1..ĝ_B, v_1..v_A, Z = e(g_{B+1}, ĝ))
//!            MSK = (α, γ_1..γ_A)
//! KeyGen(i): d_i = g_b^{γ_ℓ}
//! Encrypt S: t ←R Z_p;  Ŝ_ℓ = {j − (ℓ−1)B : j ∈ S ∩ [(ℓ−1)B+1, ℓB]};
//!            Hdr = (C_0 = ĝ^t, C_ℓ = (v_ℓ · Π_{j∈Ŝ_ℓ} g_{B+1−j})^t for ℓ = 1..A),  K = Z^t
//! Decrypt i: K = e(C_ℓ, ĝ_b) / e(d_i · Π_{j∈Ŝ_ℓ, j≠b} g_{B+1−j+b}, C_0)
//! ```
//! The γ_ℓ are PRF_seed(ℓ) (the master key stays 64 bytes). The Ŝ_ℓ are
//! found by one pass over S (O(|S| + A)), not by the paper's O(N) scan.
//!
//! ## Type-III placement
//! As in [`super::bgw05`]: the g_k, v_ℓ, d_i and the C_ℓ in G1 (the A
//! ciphertext elements and the additions are in the cheaper group), C_0 and
//! the ĝ_k in G2 (the user's ĝ_b lines are cached in its key). Ciphertext:
//! 1 G2 + A G1 (the paper's 384 bytes at N = 100 on BN254).
//!
//! ## Side channels
//! γ_ℓ, α and t meet points only in fixed-base tables, [`Group::mul_secret`]
//! (the A values C_ℓ = (v_ℓ·Π g_{B+1−j})^t) and GT powers: constant time on
//! every curve. Block and index arithmetic is on public recipient indices.
//!
//! ## Operation counts (chhatrapati22 Table 9, checked on `Counted<Bls12>`)
//! * Setup: 2B + A − 1 fixed-base G1, B fixed-base G2 exponentiations,
//!   1 pairing.
//! * KeyGen: 1 fixed-base G1 exponentiation.
//! * Encrypt: A G1 exponentiations (in parallel), |S| G1 additions,
//!   1 fixed-base G2 exponentiation.
//! * Decrypt: |Ŝ_ℓ| − 1 G1 additions, 2 Miller loops, 1 final exponentiation.

use super::{
    check_n, decode_affine, encode_affine, fixed_base_affine, prf_scalar, scalar_pow, Recipients,
    UserIndex,
};
use crate::curve::{par_map, wipe, Curve, CurveId, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{Authority, Kem, KemError, SessionKey, Users};
use crate::wire::{ObjectKind, Preamble, Reader, SchemeId, WireError, Writer};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

type G1A<C> = <<C as Curve>::G1 as Group>::Affine;
type G2A<C> = <<C as Curve>::G2 as Group>::Affine;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bgw05Sqrt<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Bgw05Sqrt;
const PRF_TAG: &[u8] = b"bgw05-sqrt/gamma";

fn preamble<C: Curve>(kind: ObjectKind) -> Preamble {
    Preamble::new(kind, SCHEME, C::ID)
}

/// (B, A) = (⌊√N⌋, ⌈N/B⌉).
pub fn shape(n: u32) -> (u32, u32) {
    let mut b = (n as f64).sqrt() as u32;
    while (b as u64 + 1) * (b as u64 + 1) <= n as u64 {
        b += 1;
    }
    while b as u64 * b as u64 > n as u64 {
        b -= 1;
    }
    let b = b.max(1);
    (b, n.div_ceil(b))
}

/// Encoded public key size: preamble, N, Z, 2B−1+A G1, B G2.
pub fn public_key_len<C: Curve>(n: u32) -> usize {
    let (b, a) = shape(n);
    8 + 4
        + C::Gt::BYTES
        + C::G1::COMPRESSED_BYTES * (2 * b as usize - 1 + a as usize)
        + C::G2::COMPRESSED_BYTES * b as usize
}

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

struct PkInner<C: Curve> {
    n: u32,
    b: u32,
    a: u32,
    z: C::Gt,
    /// g[k−1] = g_k, k ∈ [1, 2B] (k = B+1: identity, not encoded).
    g: Vec<G1A<C>>,
    gh: Vec<G2A<C>>,
    v: Vec<G1A<C>>,
    setup_id: [u8; 16],
    tables: OnceLock<Tables<C>>,
}

/// The public key (shared on clone).
pub struct PublicKey<C: Curve>(Arc<PkInner<C>>);

impl<C: Curve> Clone for PublicKey<C> {
    fn clone(&self) -> Self {
        PublicKey(self.0.clone())
    }
}

impl<C: Curve> core::fmt::Debug for PublicKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Bgw05Sqrt PublicKey on {} (N = {}, B = {}, A = {}, setup {})",
            C::NAME,
            self.0.n,
            self.0.b,
            self.0.a,
            crate::wire::hex(&self.0.setup_id)
        )
    }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.0.n
    }
    pub fn setup_id(&self) -> [u8; 16] {
        self.0.setup_id
    }
    fn tables(&self) -> &Tables<C> {
        self.0.tables.get_or_init(tables::<C>)
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.0;
        let mut w = Writer::new(preamble::<C>(ObjectKind::PublicKey));
        w.u32(p.n).gt(&p.z);
        let mut out = w.finish();
        let b = p.b as usize;
        encode_affine::<C, C::G1>(&p.g[..b], &mut out);
        encode_affine::<C, C::G1>(&p.g[b + 1..], &mut out);
        encode_affine::<C, C::G2>(&p.gh, &mut out);
        encode_affine::<C, C::G1>(&p.v, &mut out);
        out
    }
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::PublicKey, SCHEME, C::ID)?;
        let n = r.u32("number of users")?;
        check_n(n).map_err(|e| WireError::Invalid {
            what: "public key",
            detail: e.to_string(),
        })?;
        if r.remaining() != public_key_len::<C>(n) - 12 {
            return Err(WireError::Invalid {
                what: "public key",
                detail: format!("wrong length for N = {n}"),
            });
        }
        let (b, a) = shape(n);
        let z = r.gt("Z")?;
        let mut g = decode_affine::<C, C::G1>(&mut r, b as usize, "g_1..g_B")?;
        g.push(C::G1::to_affine_batch(&[C::G1::identity()])[0]);
        g.extend(decode_affine::<C, C::G1>(
            &mut r,
            b as usize - 1,
            "g_{B+2}..g_{2B}",
        )?);
        let gh = decode_affine::<C, C::G2>(&mut r, b as usize, "ĝ_1..ĝ_B")?;
        let v = decode_affine::<C, C::G1>(&mut r, a as usize, "v_1..v_A")?;
        r.finish()?;
        Ok(PublicKey(Arc::new(PkInner {
            n,
            b,
            a,
            z,
            g,
            gh,
            v,
            setup_id: crate::wire::setup_id(bytes),
            tables: OnceLock::new(),
        })))
    }
}

/// The master key: α and the seed of the γ_ℓ. Zeroized on drop.
pub struct MasterKey<C: Curve> {
    n: u32,
    alpha: C::Scalar,
    seed: [u8; 32],
    setup_id: [u8; 16],
}

impl<C: Curve> Drop for MasterKey<C> {
    fn drop(&mut self) {
        wipe(&mut self.alpha, C::Scalar::zero());
        wipe(&mut self.seed, [0u8; 32]);
    }
}

impl<C: Curve> MasterKey<C> {
    pub fn setup_id(&self) -> [u8; 16] {
        self.setup_id
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble::<C>(ObjectKind::MasterKey));
        w.raw(&self.setup_id)
            .u32(self.n)
            .scalar(&self.alpha)
            .raw(&self.seed);
        w.finish()
    }
    /// Decodes a master key (checked against the setup id at key
    /// generation).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::MasterKey, SCHEME, C::ID)?;
        let setup_id = r.array("setup id")?;
        let n = r.u32("number of users")?;
        check_n(n).map_err(|e| WireError::Invalid {
            what: "master key",
            detail: e.to_string(),
        })?;
        let alpha = r.scalar("alpha")?;
        let seed = r.array("seed")?;
        r.finish()?;
        Ok(MasterKey {
            n,
            alpha,
            seed,
            setup_id,
        })
    }
    fn gamma(&self, l: u32) -> C::Scalar {
        prf_scalar(PRF_TAG, &self.seed, l)
    }
    /// Recomputes the public key.
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let (b, a) = shape(self.n);
        let pows: Vec<C::Scalar> = {
            let mut e = self.alpha;
            (1..=2 * b)
                .filter_map(|k| {
                    let cur = e;
                    e *= self.alpha;
                    (k != b + 1).then_some(cur)
                })
                .collect()
        };
        let mut g = fixed_base_affine::<C, C::G1>(&t.g1, &pows);
        g.insert(b as usize, C::G1::to_affine_batch(&[C::G1::identity()])[0]);
        let gh = fixed_base_affine::<C, C::G2>(&t.g2, &pows[..b as usize]);
        let gammas: Vec<C::Scalar> = (1..=a).map(|l| self.gamma(l)).collect();
        let v = fixed_base_affine::<C, C::G1>(&t.g1, &gammas);
        // Z = e(g_B, ĝ_1) = e(g, ĝ)^{α^{B+1}}
        let z = C::multi_pairing(&[(
            C::G1::from_affine(&g[b as usize - 1]),
            &C::prepare(&C::G2::from_affine(&gh[0])),
        )]);
        let inner = PkInner {
            n: self.n,
            b,
            a,
            z,
            g,
            gh,
            v,
            setup_id: [0; 16],
            tables: OnceLock::new(),
        };
        let _ = inner.tables.set(t);
        let mut pk = PublicKey(Arc::new(inner));
        let id = crate::wire::setup_id(&pk.to_bytes());
        if let Some(p) = Arc::get_mut(&mut pk.0) {
            p.setup_id = id;
        }
        pk
    }
}

/// A user's private key d_i, with (in memory) its public key and the lines
/// of ĝ_b.
pub struct UserKey<C: Curve> {
    setup_id: [u8; 16],
    n: u32,
    i: u32,
    d: C::G1,
    pk: Option<PublicKey<C>>,
    lines: OnceLock<C::G2Prepared>,
}

impl<C: Curve> Drop for UserKey<C> {
    fn drop(&mut self) {
        wipe(&mut self.d, C::G1::identity());
    }
}

impl<C: Curve> UserKey<C> {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
    /// Attaches the public key decryption needs.
    pub fn with_public_key(mut self, pk: &PublicKey<C>) -> Result<Self, KemError> {
        if pk.setup_id() != self.setup_id || pk.users() != self.n {
            return Err(KemError::WrongSetup);
        }
        self.pk = Some(pk.clone());
        Ok(self)
    }
    /// Encoded size: preamble, setup id, N, i, d_i.
    pub fn encoded_len() -> usize {
        8 + 16 + 4 + 4 + C::G1::COMPRESSED_BYTES
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble::<C>(ObjectKind::SchemeUserKey));
        w.raw(&self.setup_id).u32(self.n).u32(self.i).point(&self.d);
        w.finish()
    }
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::SchemeUserKey, SCHEME, C::ID)?;
        let setup_id = r.array("setup id")?;
        let n = r.u32("number of users")?;
        let i = r.u32("user index")?;
        if check_n(n).is_err() || UserIndex(i).check(n).is_err() {
            return Err(WireError::Invalid {
                what: "user key",
                detail: "user index outside [1, N]".into(),
            });
        }
        let d = r.point("d_i")?;
        r.finish()?;
        Ok(UserKey {
            setup_id,
            n,
            i,
            d,
            pk: None,
            lines: OnceLock::new(),
        })
    }
}

/// The header: C_0 ∈ G2, C_1..C_A ∈ G1, with S.
pub struct Header<C: Curve> {
    setup_id: [u8; 16],
    n: u32,
    set: Recipients,
    c0: C::G2,
    c: Vec<C::G1>,
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
    /// Bytes of the group elements alone (Table 8): one G2 + A G1.
    pub fn element_bytes(n: u32) -> usize {
        C::G2::COMPRESSED_BYTES + shape(n).1 as usize * C::G1::COMPRESSED_BYTES
    }
    #[cfg(test)]
    pub(crate) fn with_recipients(mut self, set: Recipients) -> Self {
        self.set = set;
        self
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble::<C>(ObjectKind::KemHeader));
        w.raw(&self.setup_id).u32(self.n);
        self.set.encode(&mut w);
        w.point(&self.c0);
        for c in &self.c {
            w.point(c);
        }
        w.finish()
    }
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::KemHeader, SCHEME, C::ID)?;
        let setup_id = r.array("setup id")?;
        let n = r.u32("number of users")?;
        check_n(n).map_err(|e| WireError::Invalid {
            what: "header",
            detail: e.to_string(),
        })?;
        let set = Recipients::decode(&mut r, n)?;
        let c0 = r.point("C_0")?;
        let a = shape(n).1 as usize;
        if r.remaining() != a * C::G1::COMPRESSED_BYTES {
            return Err(WireError::Invalid {
                what: "header",
                detail: format!("expected {a} elements C_ℓ"),
            });
        }
        let mut c = Vec::with_capacity(a);
        for _ in 0..a {
            c.push(r.point("C_l")?);
        }
        r.finish()?;
        Ok(Header {
            setup_id,
            n,
            set,
            c0,
            c,
        })
    }
}

crate::wire::encoded_via_inherent!(PublicKey, MasterKey, UserKey, Header);

impl<C: Curve> Bgw05Sqrt<C> {}

impl<C: Curve> Authority for Bgw05Sqrt<C> {
    type Params = Users;
    type PublicKey = PublicKey<C>;
    type MasterKey = MasterKey<C>;
    type UserKey = UserKey<C>;
    type KeySide = UserIndex;

    /// Setup for N users (indices 1..=N).
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let n = users.0;
        check_n(n)?;
        let alpha = C::Scalar::random(rng);
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut mk = MasterKey {
            n,
            alpha,
            seed,
            setup_id: [0; 16],
        };
        seed.fill(0);
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
        if pk.setup_id() != mk.setup_id || pk.users() != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.n)?;
        let bb = pk.0.b;
        let (l, b) = ((user.0 - 1) / bb + 1, (user.0 - 1) % bb + 1);
        let mut e = mk.gamma(l) * scalar_pow(mk.alpha, b as u64);
        let d = C::G1::mul_fixed(&pk.tables().g1, &e);
        wipe(&mut e, C::Scalar::zero());
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            d,
            pk: Some(pk.clone()),
            lines: OnceLock::new(),
        })
    }
}

impl<C: Curve> Kem for Bgw05Sqrt<C> {
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
        if pk.setup_id() == key.setup_id && pk.users() == key.n {
            key.pk = Some(pk.clone());
        }
        key
    }

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.users())?;
        let p = &pk.0;
        let t = C::Scalar::random(rng);
        let c0 = C::G2::mul_fixed(&pk.tables().g2, &t);
        // Ŝ_ℓ, as the points g_{B+1−j} to multiply, in one pass over S.
        let mut parts: Vec<Vec<G1A<C>>> = vec![Vec::new(); p.a as usize];
        for j in set.iter() {
            let (l, b) = ((j - 1) / p.b, (j - 1) % p.b + 1);
            parts[l as usize].push(p.g[(p.b + 1 - b) as usize - 1]);
        }
        let idx: Vec<usize> = (0..p.a as usize).collect();
        let c = par_map::<C, _, _>(&idx, |&l| {
            let v = C::G1::from_affine(&p.v[l]);
            let s = if parts[l].is_empty() {
                v
            } else {
                C::G1::sum_affine(&parts[l]) + v
            };
            s.mul_secret(&t)
        });
        let key = SessionKey::from_gt(&p.z.pow(&t), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: p.n,
                set: set.clone(),
                c0,
                c,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
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
        let p = &pk.0;
        let (l, b) = ((key.i - 1) / p.b, (key.i - 1) % p.b + 1);
        let lo = l * p.b + 1;
        let hi = ((l + 1) * p.b).min(p.n);
        let others: Vec<G1A<C>> = header
            .set
            .iter_range(lo, hi)
            .filter(|&j| j != key.i)
            .map(|j| p.g[(p.b + 1 - (j - l * p.b) + b) as usize - 1])
            .collect();
        let sum = if others.is_empty() {
            key.d
        } else {
            C::G1::sum_affine(&others) + key.d
        };
        let gh = key
            .lines
            .get_or_init(|| C::prepare(&C::G2::from_affine(&p.gh[b as usize - 1])));
        let c0_lines = C::prepare(&header.c0);
        let k = C::multi_pairing(&[(header.c[l as usize], gh), (-sum, &c0_lines)]);
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
    use crate::bcast::testutil::{random_set, set_strategy};
    use crate::conformance::{self, rng, Case, MEMBERS};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Side;
    use proptest::prelude::*;

    type B = Bgw05Sqrt<Bls12>;

    fn case<C: Curve>() -> Case<'static, Bgw05Sqrt<C>> {
        Case::one_target(Users(12), "2-5, 11", MEMBERS)
    }

    conformance::tests!();

    #[test]
    fn shapes() {
        assert_eq!(shape(1), (1, 1));
        assert_eq!(shape(3), (1, 3));
        assert_eq!(shape(4), (2, 2));
        assert_eq!(shape(100), (10, 10));
        assert_eq!(shape(101), (10, 11));
        assert_eq!(shape(1_000_000), (1000, 1000));
        assert_eq!(shape(999_999), (999, 1001));
    }

    fn round_trip<C: Curve>() {
        let mut r = rng(1);
        let n = 23;
        let (pk, mk) = Bgw05Sqrt::<C>::setup(&Users(n), &mut r).unwrap();
        let pk2 = PublicKey::<C>::from_bytes(&pk.to_bytes()).unwrap();
        assert_eq!(pk2.setup_id(), pk.setup_id());
        assert_eq!(pk.to_bytes().len(), public_key_len::<C>(n));
        let mk = MasterKey::<C>::from_bytes(&mk.to_bytes()).unwrap();
        let set = Recipients::parse("1-2,5,9-11,20-23").unwrap();
        let (key, header) = Bgw05Sqrt::<C>::encapsulate(&pk2, &set, &mut r).unwrap();
        let header = Header::<C>::from_bytes(&header.to_bytes()).unwrap();
        for i in 1..=n {
            let uk = Bgw05Sqrt::<C>::keygen(&pk, &mk, &UserIndex(i), &mut r).unwrap();
            let uk = UserKey::<C>::from_bytes(&uk.to_bytes())
                .unwrap()
                .with_public_key(&pk2)
                .unwrap();
            match Bgw05Sqrt::<C>::decapsulate(&uk, &header) {
                Ok(k) => assert!(set.contains(i) && k == key, "user {i}"),
                Err(KemError::NotSatisfied) => assert!(!set.contains(i)),
                Err(e) => panic!("{e}"),
            }
        }
    }

    #[test]
    fn round_trip_bls12() {
        round_trip::<Bls12>();
    }

    #[test]
    fn round_trip_bn254() {
        round_trip::<Bn254>();
    }

    #[test]
    fn sizes_match_table_8() {
        // Table 8 (BN254): ct 384 B at N = 100, 1.12 KB at 1K (B = 31,
        // A = 33: 33·32 + 64 = 1120), 3.26 KB at 10K, 32.06 KB at 1M.
        assert_eq!(Header::<Bn254>::element_bytes(100), 384);
        assert_eq!(Header::<Bn254>::element_bytes(1000), 1120);
        assert_eq!(Header::<Bn254>::element_bytes(10_000), 3264);
        assert_eq!(Header::<Bn254>::element_bytes(1_000_000), 32_064);
        // pk: (2B−1+A)·32 + B·64 (+ GT) — Table 8's 1.66 KB at N = 100.
        assert_eq!(public_key_len::<Bn254>(100) - 12 - 384, 29 * 32 + 640);
        assert_eq!(UserKey::<Bn254>::encoded_len() - 32, 32);
    }

    #[test]
    fn outsiders_and_replayed_headers_fail() {
        let mut r = rng(3);
        let (pk, mk) = B::setup(&Users(16), &mut r).unwrap();
        let (key, header) =
            B::encapsulate(&pk, &Recipients::parse("1-3").unwrap(), &mut r).unwrap();
        let out = B::keygen(&pk, &mk, &UserIndex(4), &mut r).unwrap();
        assert!(matches!(
            B::decapsulate(&out, &header),
            Err(KemError::NotSatisfied)
        ));
        let forged = header.with_recipients(Recipients::parse("1-4").unwrap());
        assert_ne!(B::decapsulate(&out, &forged).unwrap(), key);
        let other_instance = B::keygen(&pk, &mk, &UserIndex(5), &mut r).unwrap();
        let forged = forged.with_recipients(Recipients::parse("1-3,5").unwrap());
        assert_ne!(B::decapsulate(&other_instance, &forged).unwrap(), key);
    }

    #[test]
    fn op_counts_match_table_9() {
        type CB = Bgw05Sqrt<Counted<Bls12>>;
        let mut r = rng(5);
        let n = 30u32;
        let (b, a) = shape(n);
        let (b, a) = (b as u64, a as u64);
        let ((pk, mk), setup) = OpCounts::measure(|| CB::setup(&Users(n), &mut r).unwrap());
        assert_eq!(setup.g1_fixed_exp, 2 * b + a - 1);
        assert_eq!(setup.g2_fixed_exp, b);
        assert_eq!((setup.miller_loops, setup.final_exps), (1, 1));
        let (key, kg) = OpCounts::measure(|| CB::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap());
        assert_eq!(kg.g1_fixed_exp, 1);
        for s in [1u32, 3, 4, 30] {
            let set = Recipients::range(1, s).unwrap();
            let ((_, h), enc) = OpCounts::measure(|| CB::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_exp, a, "λ1^3·A");
            assert_eq!(enc.g1_add, s as u64, "λ1·|S|");
            assert_eq!(enc.g2_fixed_exp, 1);
            let (_, dec) = OpCounts::measure(|| CB::decapsulate(&key, &h).unwrap());
            let sa = s.min(b as u32) as u64;
            assert_eq!(dec.g1_add, sa - 1, "λ1·(|S_a|−1)");
            assert_eq!((dec.miller_loops, dec.final_exps), (2, 1));
        }
    }

    #[test]
    fn decoders_reject_truncation_and_mutation() {
        let mut r = rng(6);
        let (pk, mk) = B::setup(&Users(5), &mut r).unwrap();
        let (_, header) = B::encapsulate(&pk, &Recipients::parse("1,3").unwrap(), &mut r).unwrap();
        let key = B::keygen(&pk, &mk, &UserIndex(3), &mut r).unwrap();
        for bytes in [
            pk.to_bytes(),
            mk.to_bytes(),
            header.to_bytes(),
            key.to_bytes(),
        ] {
            for cut in [0, 1, 7, 8, bytes.len() / 2, bytes.len() - 1] {
                let t = &bytes[..cut];
                assert!(PublicKey::<Bls12>::from_bytes(t).is_err());
                assert!(Header::<Bls12>::from_bytes(t).is_err());
                assert!(UserKey::<Bls12>::from_bytes(t).is_err());
                assert!(MasterKey::<Bls12>::from_bytes(t).is_err());
            }
            for i in 0..bytes.len() {
                let mut m = bytes.clone();
                m[i] ^= 1 << (i % 8);
                let _ = PublicKey::<Bls12>::from_bytes(&m);
                let _ = Header::<Bls12>::from_bytes(&m);
                let _ = UserKey::<Bls12>::from_bytes(&m);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

        #[test]
        fn members_decrypt_and_others_do_not((n, seed, frac) in set_strategy()) {
            let mut r = rng(seed);
            let (pk, mk) = B::setup(&Users(n), &mut r).unwrap();
            let set = random_set(n, seed, frac);
            let (key, header) = B::encapsulate(&pk, &set, &mut r).unwrap();
            for i in 1..=n {
                let uk = B::keygen(&pk, &mk, &UserIndex(i), &mut r).unwrap();
                match B::decapsulate(&uk, &header) {
                    Ok(k) => { prop_assert!(set.contains(i)); prop_assert_eq!(&k, &key); }
                    Err(KemError::NotSatisfied) => prop_assert!(!set.contains(i)),
                    Err(e) => prop_assert!(false, "unexpected {}", e),
                }
            }
        }

        #[test]
        fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            conformance::decode_all::<B>(&bytes);
            conformance::decode_all::<Bgw05Sqrt<Bn254>>(&bytes);
        }
    }
}
