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
//! every curve; which d_j are summed depends only on the public set S, and
//! they are summed in constant-time mixed additions (`sum_secret_points`).
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! O(N) public elements change group, under the paper's q-type assumption with
//! the source groups exchanged ([`crate::curve::swapped`]).

use super::{
    fixed_base_affine, prf_scalar, sum_points, user_in_range, Points, Recipients, UserCount,
    UserIndex, CHUNK,
};
use crate::bcast::Users;
use crate::curve::{wipe, Curve, FixedBaseTable, Group, LinedG2, Scalar, Target};
use crate::kem::{bind, Authority, Kem, KemError, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gw09<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gw09;
const PRF_TAG: &[u8] = b"gw09/h";

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

object! {
    /// The public key: Y = e(g, ĝ)^α and h_1..h_N ∈ G1 (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        y: C::Gt => "Y = e(g,ĝ)^α",
        h: Arc<Points<C, C::G1>> => "h_1..h_N" in n,
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
}

object! {
    /// The master key: α and the seed of the h_j's exponents; wiped on drop
    /// (checked against the setup id at key generation: recomputing the
    /// public key is O(N)).
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        alpha: Secret<C::Scalar> => "α",
        seed: Secret<[u8; 32]> => "seed of the η_j",
    }
}

impl<C: Curve> MasterKey<C> {
    fn eta(&self, j: u32) -> C::Scalar {
        prf_scalar(PRF_TAG, &self.seed, j)
    }
    /// Recomputes the public key.
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let n = self.n.get() as usize;
        let mut h = Vec::with_capacity(n);
        for j0 in (1..=n).step_by(CHUNK) {
            let etas: Vec<C::Scalar> = (j0..(j0 + CHUNK).min(n + 1))
                .map(|j| self.eta(j as u32))
                .collect();
            h.extend(fixed_base_affine::<C, C::G1>(&t.g1, &etas));
        }
        let y = C::pairing(&C::G1::generator(), &C::G2::generator()).pow(&self.alpha);
        PublicKey {
            n: self.n,
            y,
            h: Arc::new(Points::new(h)),
            tables: Lazy::from(t),
            id: OnceLock::new(),
        }
    }
}

object! {
    /// A user key: d_{i,0} ∈ G2 (its lines cached) and d_{i,1..N} ∈ G1
    /// (d_{i,i} = g^α h_i^r); wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index i",
        d0: Secret<LinedG2<C>> => "d_{i,0}",
        d: Secret<Points<C, C::G1>> => "d_{i,1..N}" in n,
    }
    check "1 ≤ i ≤ N" => |k| user_in_range(k.i, k.n);
    made_for UserIndex = |key| UserIndex(key.i);
}

impl<C: Curve> UserKey<C> {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
}

object! {
    /// The header (C_1 ∈ G2, C_2 ∈ G1) with S.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        c1: C::G2 => "C_1",
        c2: C::G1 => "C_2",
    }
    made_for Recipients = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
}

impl<C: Curve> Authority for Gw09<C> {
    crate::kem::authority_objects!(Users, UserIndex);

    /// Setup for N users (indices 1..=N).
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mut mk = MasterKey {
            setup_id: [0; 16],
            n: UserCount::new(users.0)?,
            alpha: Secret(C::Scalar::random(rng)),
            seed: Secret([0u8; 32]),
        };
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(mk.public_key(), mk))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        user: &UserIndex,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.n != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.n.get())?;
        let t = pk.tables();
        let r = C::Scalar::random(rng);
        let d0 = C::G2::mul_fixed(&t.g2, &(-r));
        let n = mk.n.get() as usize;
        let mut d = Vec::with_capacity(n);
        for j0 in (1..=n).step_by(CHUNK) {
            let mut exps: Vec<C::Scalar> = (j0..(j0 + CHUNK).min(n + 1))
                .map(|j| {
                    let e = mk.eta(j as u32) * r;
                    if j as u32 == user.0 {
                        e + *mk.alpha
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
            d0: Secret(LinedG2::new(d0)),
            d: Secret(Points::new(d)),
        })
    }
}

impl<C: Curve> Kem for Gw09<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Recipients; the issued key decrypts);

    super::unattached_keys!(UserKey<C>, PublicKey<C>);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.users())?;
        let t = C::Scalar::random(rng);
        let c1 = C::G2::mul_fixed(&pk.tables().g2, &t);
        let c2 = sum_points::<C::G1>(set.iter().map(|j| pk.h[j as usize - 1]))
            .unwrap_or_else(C::G1::identity)
            .mul_secret(&t);
        let key = SessionKey::from_gt(&pk.y.pow(&t), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.n,
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
        let sum =
            super::sum_secret_points::<C::G1>(header.set.iter().map(|j| key.d[j as usize - 1]))
                .unwrap_or_else(C::G1::identity);
        let c1_lines = C::prepare(&header.c1);
        let k = C::multi_pairing(&[(sum, &c1_lines), (header.c2, key.d0.lines())]);
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Retarget};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Side;

    type G = Gw09<Bls12>;

    conformance::tests!(Gw09: conformance::broadcast_case(); random_recipients, forged_recipients);
    conformance::retarget!(Gw09<C>, set);

    #[test]
    fn sizes_match_table_2_and_8() {
        // Table 8 (BN254): ct 96 B; sk N·32 + 64 B; pk N·32 B + GT
        // (bodies: after the preamble, setup id, N, i and S).
        let mut r = rng(8);
        let (pk, mk) = Gw09::<Bn254>::setup(&Users(100), &mut r).unwrap();
        let set = Recipients::parse("1-10").unwrap();
        let (_, h) = Gw09::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        let key = Gw09::<Bn254>::keygen(&pk, &mk, &UserIndex(7), &mut r).unwrap();
        assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(), 96);
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 3264);
        assert_eq!(pk.to_bytes().len() - 8 - 4, 3200 + 384);
    }

    /// A member given a header whose set an outsider extended gets another
    /// key (the outsider's side: [`conformance::forged_recipients`]).
    #[test]
    fn replayed_headers_fail_for_members_too() {
        let mut r = rng(3);
        let (pk, mk) = G::setup(&Users(10), &mut r).unwrap();
        let (key, header) =
            G::encapsulate(&pk, &Recipients::parse("1-3").unwrap(), &mut r).unwrap();
        let forged = G::retarget(&header, Recipients::parse("1-4").unwrap());
        let inside = G::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap();
        assert_ne!(G::decapsulate(&inside, &forged).unwrap(), key);
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
}
