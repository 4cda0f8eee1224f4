//! Gentry–Waters 2009 semi-static broadcast encryption (§3.1), in KEM form,
//! Type-III.
//!
//! Papers: C. Gentry, B. Waters, "Adaptive Security in Broadcast Encryption
//! Systems (with Short Ciphertexts)", EUROCRYPT 2009, §3.1 (the
//! semi-statically secure variant of BGW05); evaluated asymmetrically in
//! chhatrapati22 §3.2 ("[15, S3.1]"), Tables 5, 7–9.
//!
//! Notation (the paper's): generators g ∈ G1, ĝ ∈ G2, α ∈ Z_p, random
//! h_1..h_n ∈ G1.
//!
//! ```text
//! Setup(n):  PK = (h_1..h_n, Y = e(g, ĝ)^α)          MSK = α (and the h_j's logs)
//! KeyGen(i): r ←R Z_p;  d_{i,0} = ĝ^{−r},  d_{i,i} = g^α h_i^r,  d_{i,j} = h_j^r (j ≠ i)
//! Encrypt S: t ←R Z_p;  Hdr = (C_1, C_2) = (ĝ^t, (Π_{j∈S} h_j)^t),  K = Y^t
//! Decrypt i: K = e(Π_{j∈S} d_{i,j}, C_1) · e(C_2, d_{i,0})
//! ```
//!
//! The h_j are g^{η_j} with η_j = PRF_seed(j) (SHA-512, wide reduction): the
//! authority keeps the 32-byte seed instead of N exponents, and key
//! generation computes h_j^r = g^{η_j·r} by fixed-base exponentiation of g
//! (the same key distribution as h_j^r by variable-base exponentiation,
//! three times faster). The h_j are uniformly distributed group elements to
//! everybody but the authority, who is trusted with α anyway.
//!
//! ## Type-III placement
//! Decryption multiplies |S| key elements d_{i,j}: they are in **G1**, so
//! the h_j are in G1, and C_2 = (Πh_j)^t too; C_1 = ĝ^t, paired with that
//! product, is in G2 (its lines are computed per header), and d_{i,0} ∈ G2 is
//! paired with C_2 (its lines are cached per key). Ciphertext: G1 + G2
//! (96 bytes on BN254), private key: N G1 + 1 G2, public key: N G1 + GT.
//!
//! ## Side channels
//! r, α and t meet points only in fixed-base tables (the key's d_j),
//! [`Group::mul_secret`] (C2 = (Π h_j)^t) and GT powers, constant time on
//! every curve; which d_j are summed depends only on the public set S.
//!
//! ## Operation counts (chhatrapati22 Table 9, checked on `Counted<Bls12>`)
//! * Setup: N fixed-base G1 exponentiations (the paper's δ1·N random
//!   generators), 1 pairing, 1 GT exponentiation (the paper: 2e + λ1^3 + λ2^3).
//! * KeyGen: N fixed-base G1 exponentiations + 1 fixed-base G2 (λ1^3·N + λ2^3).
//! * Encrypt: |S|−1 G1 additions, 1 G1 exponentiation, 1 fixed-base G2
//!   exponentiation (the paper: λ1·|S| + λ1^3 + λ2^3).
//! * Decrypt: |S|−1 G1 additions, 2 Miller loops, 1 final exponentiation.

use super::{
    check_n, decode_affine, encode_affine, fixed_base_affine, prf_scalar, sum_points, Recipients,
    UserIndex, CHUNK,
};
use crate::curve::{wipe, Curve, CurveId, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{Authority, Kem, KemError, SessionKey, Users};
use crate::wire::{ObjectKind, Preamble, Reader, SchemeId, WireError, Writer};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

type G1A<C> = <<C as Curve>::G1 as Group>::Affine;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gw09<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gw09;
const PRF_TAG: &[u8] = b"gw09/h";

fn preamble<C: Curve>(kind: ObjectKind) -> Preamble {
    Preamble::new(kind, SCHEME, C::ID)
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
    y: C::Gt,
    h: Vec<G1A<C>>,
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
            "Gw09 PublicKey on {} (N = {}, setup {})",
            C::NAME,
            self.0.n,
            crate::wire::hex(&self.0.setup_id)
        )
    }
}

/// Encoded public key size: preamble, N, Y, N G1 elements.
pub fn public_key_len<C: Curve>(n: u32) -> usize {
    8 + 4 + C::Gt::BYTES + C::G1::COMPRESSED_BYTES * n as usize
}

/// Encoded user key size: preamble, setup id, N, i, d_{i,0}, N G1 elements.
pub fn user_key_len<C: Curve>(n: u32) -> usize {
    8 + 16 + 4 + 4 + C::G2::COMPRESSED_BYTES + C::G1::COMPRESSED_BYTES * n as usize
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
        let mut w = Writer::new(preamble::<C>(ObjectKind::PublicKey));
        w.u32(self.0.n).gt(&self.0.y);
        let mut out = w.finish();
        out.reserve(self.0.h.len() * C::G1::COMPRESSED_BYTES);
        encode_affine::<C, C::G1>(&self.0.h, &mut out);
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
        let y = r.gt("Y")?;
        let h = decode_affine::<C, C::G1>(&mut r, n as usize, "h_1..h_n")?;
        r.finish()?;
        Ok(PublicKey(Arc::new(PkInner {
            n,
            y,
            h,
            setup_id: crate::wire::setup_id(bytes),
            tables: OnceLock::new(),
        })))
    }
}

/// The master key: α and the seed of the h_j's exponents; zeroized on drop.
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
    /// Decodes a master key (secrets checked against the setup id only at
    /// key generation, see [`crate::bcast::bgw05::MasterKey::from_bytes`]).
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
    fn eta(&self, j: u32) -> C::Scalar {
        prf_scalar(PRF_TAG, &self.seed, j)
    }
    /// Recomputes the public key.
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let n = self.n as usize;
        let mut h = Vec::with_capacity(n);
        for j0 in (1..=n).step_by(CHUNK) {
            let etas: Vec<C::Scalar> = (j0..(j0 + CHUNK).min(n + 1))
                .map(|j| self.eta(j as u32))
                .collect();
            h.extend(fixed_base_affine::<C, C::G1>(&t.g1, &etas));
        }
        let y = C::pairing(&C::G1::generator(), &C::G2::generator()).pow(&self.alpha);
        let inner = PkInner {
            n: self.n,
            y,
            h,
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

/// A user key: d_{i,0} ∈ G2 and d_{i,1..n} ∈ G1 (d_{i,i} = g^α h_i^r).
pub struct UserKey<C: Curve> {
    setup_id: [u8; 16],
    n: u32,
    i: u32,
    d0: C::G2,
    d: Vec<G1A<C>>,
    d0_lines: OnceLock<C::G2Prepared>,
}

impl<C: Curve> Drop for UserKey<C> {
    fn drop(&mut self) {
        wipe(&mut self.d0, C::G2::identity());
        let z = C::G1::to_affine_batch(&[C::G1::identity()])[0];
        for p in self.d.iter_mut() {
            wipe(p, z);
        }
    }
}

impl<C: Curve> UserKey<C> {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(preamble::<C>(ObjectKind::SchemeUserKey));
        w.raw(&self.setup_id)
            .u32(self.n)
            .u32(self.i)
            .point(&self.d0);
        let mut out = w.finish();
        encode_affine::<C, C::G1>(&self.d, &mut out);
        out
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
        if r.remaining() != user_key_len::<C>(n) - 32 {
            return Err(WireError::Invalid {
                what: "user key",
                detail: format!("wrong length for N = {n}"),
            });
        }
        let d0 = r.point("d_{i,0}")?;
        let d = decode_affine::<C, C::G1>(&mut r, n as usize, "d_{i,j}")?;
        r.finish()?;
        Ok(UserKey {
            setup_id,
            n,
            i,
            d0,
            d,
            d0_lines: OnceLock::new(),
        })
    }
}

/// The header (C_1, C_2) with S.
pub struct Header<C: Curve> {
    setup_id: [u8; 16],
    n: u32,
    set: Recipients,
    c1: C::G2,
    c2: C::G1,
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
    /// Bytes of the group elements alone (Table 8's ciphertext size).
    pub fn element_bytes() -> usize {
        C::G1::COMPRESSED_BYTES + C::G2::COMPRESSED_BYTES
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
        w.point(&self.c1).point(&self.c2);
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
        let c1 = r.point("C_1")?;
        let c2 = r.point("C_2")?;
        r.finish()?;
        Ok(Header {
            setup_id,
            n,
            set,
            c1,
            c2,
        })
    }
}

crate::wire::encoded_via_inherent!(PublicKey, MasterKey, UserKey, Header);

impl<C: Curve> Gw09<C> {}

impl<C: Curve> Authority for Gw09<C> {
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
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.users() != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.n)?;
        let t = pk.tables();
        let r = C::Scalar::random(rng);
        let d0 = C::G2::mul_fixed(&t.g2, &(-r));
        let n = mk.n as usize;
        let mut d = Vec::with_capacity(n);
        for j0 in (1..=n).step_by(CHUNK) {
            let mut exps: Vec<C::Scalar> = (j0..(j0 + CHUNK).min(n + 1))
                .map(|j| {
                    let e = mk.eta(j as u32) * r;
                    if j as u32 == user.0 {
                        e + mk.alpha
                    } else {
                        e
                    }
                })
                .collect();
            d.extend(fixed_base_affine::<C, C::G1>(&t.g1, &exps));
            for e in exps.iter_mut() {
                wipe(e, C::Scalar::zero());
            }
        }
        let mut r = r;
        wipe(&mut r, C::Scalar::zero());
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            d0,
            d,
            d0_lines: OnceLock::new(),
        })
    }
}

impl<C: Curve> Kem for Gw09<C> {
    const SCHEME: SchemeId = SCHEME;
    const CURVE: CurveId = C::ID;
    type Authority = Self;
    type PublicKey = PublicKey<C>;
    type UserKey = UserKey<C>;
    type Header = Header<C>;
    type KeySide = UserIndex;
    type CiphertextSide = Recipients;

    fn user_key(key: UserKey<C>, _: &PublicKey<C>) -> UserKey<C> {
        key
    }

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.users())?;
        let t = C::Scalar::random(rng);
        let c1 = C::G2::mul_fixed(&pk.tables().g2, &t);
        let c2 = sum_points::<C::G1>(set.iter().map(|j| pk.0.h[j as usize - 1]))
            .unwrap_or_else(C::G1::identity)
            .mul_secret(&t);
        let key = SessionKey::from_gt(&pk.0.y.pow(&t), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.users(),
                set: set.clone(),
                c1,
                c2,
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
        let sum = sum_points::<C::G1>(header.set.iter().map(|j| key.d[j as usize - 1]))
            .unwrap_or_else(C::G1::identity);
        let c1_lines = C::prepare(&header.c1);
        let d0_lines = key.d0_lines.get_or_init(|| C::prepare(&key.d0));
        let k = C::multi_pairing(&[(sum, &c1_lines), (header.c2, d0_lines)]);
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

    type G = Gw09<Bls12>;

    fn case<C: Curve>() -> Case<'static, Gw09<C>> {
        Case::one_target(Users(12), "2-5, 11", MEMBERS)
    }

    conformance::tests!();

    fn round_trip<C: Curve>() {
        let mut r = rng(1);
        let n = 12;
        let (pk, mk) = Gw09::<C>::setup(&Users(n), &mut r).unwrap();
        let pk2 = PublicKey::<C>::from_bytes(&pk.to_bytes()).unwrap();
        assert_eq!(pk2.setup_id(), pk.setup_id());
        assert_eq!(pk.to_bytes().len(), public_key_len::<C>(n));
        let mk = MasterKey::<C>::from_bytes(&mk.to_bytes()).unwrap();
        let set = Recipients::parse("2-5,11").unwrap();
        let (key, header) = Gw09::<C>::encapsulate(&pk2, &set, &mut r).unwrap();
        let header = Header::<C>::from_bytes(&header.to_bytes()).unwrap();
        for i in 1..=n {
            let uk = Gw09::<C>::keygen(&pk, &mk, &UserIndex(i), &mut r).unwrap();
            assert_eq!(uk.to_bytes().len(), user_key_len::<C>(n));
            let uk = UserKey::<C>::from_bytes(&uk.to_bytes()).unwrap();
            match Gw09::<C>::decapsulate(&uk, &header) {
                Ok(k) => assert!(set.contains(i) && k == key),
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
    fn sizes_match_table_2_and_8() {
        // Table 8 (BN254): ct 96 B; sk N·32 + 64 B; pk N·32 B + GT.
        assert_eq!(Header::<Bn254>::element_bytes(), 96);
        assert_eq!(user_key_len::<Bn254>(100) - 32, 3264);
        assert_eq!(public_key_len::<Bn254>(100) - 12, 3200 + 384);
    }

    #[test]
    fn outsiders_and_replayed_headers_fail() {
        let mut r = rng(3);
        let (pk, mk) = G::setup(&Users(10), &mut r).unwrap();
        let (key, header) =
            G::encapsulate(&pk, &Recipients::parse("1-3").unwrap(), &mut r).unwrap();
        let out = G::keygen(&pk, &mk, &UserIndex(4), &mut r).unwrap();
        assert!(matches!(
            G::decapsulate(&out, &header),
            Err(KemError::NotSatisfied)
        ));
        let forged = header.with_recipients(Recipients::parse("1-4").unwrap());
        assert_ne!(G::decapsulate(&out, &forged).unwrap(), key);
        let inside = G::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap();
        assert_ne!(G::decapsulate(&inside, &forged).unwrap(), key);
        let (_, mk2) = G::setup(&Users(10), &mut r).unwrap();
        assert!(matches!(
            G::keygen(&pk, &mk2, &UserIndex(1), &mut r),
            Err(KemError::WrongSetup)
        ));
    }

    #[test]
    fn op_counts_match_table_9() {
        type CG = Gw09<Counted<Bls12>>;
        let mut r = rng(5);
        let n = 20u64;
        let ((pk, mk), setup) = OpCounts::measure(|| CG::setup(&Users(n as u32), &mut r).unwrap());
        assert_eq!(setup.g1_fixed_exp, n);
        assert_eq!(
            (setup.miller_loops, setup.final_exps, setup.gt_exp),
            (1, 1, 1)
        );
        let (key, kg) = OpCounts::measure(|| CG::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap());
        assert_eq!(kg.g1_fixed_exp, n, "λ1^3·N");
        assert_eq!(kg.g2_fixed_exp, 1, "λ2^3");
        for s in [1u64, 2, 9, 20] {
            let set = Recipients::range(1, s as u32).unwrap();
            let ((_, h), enc) = OpCounts::measure(|| CG::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_add, s - 1);
            assert_eq!((enc.g1_exp, enc.g2_fixed_exp), (1, 1));
            let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &h).unwrap());
            assert_eq!(dec.g1_add, s - 1, "λ1·(|S|−1)");
            assert_eq!((dec.miller_loops, dec.final_exps), (2, 1));
        }
    }

    #[test]
    fn decoders_reject_truncation_and_mutation() {
        let mut r = rng(6);
        let (pk, mk) = G::setup(&Users(4), &mut r).unwrap();
        let (_, header) = G::encapsulate(&pk, &Recipients::parse("1,3").unwrap(), &mut r).unwrap();
        let key = G::keygen(&pk, &mk, &UserIndex(3), &mut r).unwrap();
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
        #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

        #[test]
        fn members_decrypt_and_others_do_not((n, seed, frac) in set_strategy()) {
            let mut r = rng(seed);
            let (pk, mk) = G::setup(&Users(n), &mut r).unwrap();
            let set = random_set(n, seed, frac);
            let (key, header) = G::encapsulate(&pk, &set, &mut r).unwrap();
            // O(N) keys: every member and outsider of a sample of users.
            let users: Vec<u32> = (1..=n).filter(|i| i % 7 == (seed % 7) as u32 || set.contains(*i) && i % 3 == 0).collect();
            for i in users.into_iter().chain(set.iter().take(1)) {
                let uk = G::keygen(&pk, &mk, &UserIndex(i), &mut r).unwrap();
                match G::decapsulate(&uk, &header) {
                    Ok(k) => { prop_assert!(set.contains(i)); prop_assert_eq!(&k, &key); }
                    Err(KemError::NotSatisfied) => prop_assert!(!set.contains(i)),
                    Err(e) => prop_assert!(false, "unexpected {}", e),
                }
            }
        }

        #[test]
        fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            conformance::decode_all::<G>(&bytes);
            conformance::decode_all::<Gw09<Bn254>>(&bytes);
        }
    }
}
