//! Garg–Kumarasubramanian–Sahai–Waters private linear broadcast encryption
//! (PLBE) on an m×m grid, in KEM form, Type-III, with black-box traitor
//! tracing ([`super::trace`]).
//!
//! Papers: S. Garg, A. Kumarasubramanian, A. Sahai, B. Waters, "Building
//! Efficient Fully Collusion-Resilient Traitor Tracing and Revocation
//! Schemes", ePrint 2009/532, pp. 7–9 (the prime-order version of the PLBE of
//! D. Boneh, A. Sahai, B. Waters, EUROCRYPT 2006, whose tracing algorithm it
//! keeps); chhatrapati22's full version, ref. \[12\] ("If traitor tracing is
//! required, use \[12\]"). Checked against the authors' `PLBERevised.java`
//! (ArushC/broadcast, `schemesRevised/`; notes in
//! docs/sources/broadcast-ii/gksw10-plbe.md), whose 2-vectors we keep.
//!
//! Notation (the paper's): m = ⌈√N⌉; user u ↔ (x, y), u = (x−1)m + y; an
//! index (i, j) ∈ [1, m+1] × [1, m]; 2-vectors a ∈ Z_p², X^a = (X^{a₀}, X^{a₁}),
//! e(R, C) = e(R₀, C₀)·e(R₁, C₁), a·b the dot product.
//!
//! ```text
//! Setup(N):  r_x, α_x, c_y ←R Z_p;  PK = (E_x = g^{r_x}, G_x = e(g,ĝ)^{α_x}, H_y = ĝ^{c_y})
//! KeyGen(x,y):  K_{x,y} = ĝ^{α_x + r_x c_y}
//! TrEncrypt(PK, (i,j), M):  t, η ←R Z_p;  v_c, v_1 ←R Z_p²;  v_2 ⊥ v_1;  v'_c = v_c + κ v_2
//!   row x < i:  R_x = g^{z_x}, R̃_x = g^{η z_x}, A_x = g^{a_x}, B_x = G_x^{b_x}      (random)
//!   row x ≥ i:  v_x ←R Z_p² (x = i),  v_x ←R span(v_1) (x > i);  s_x ←R Z_p
//!               R_x = E_x^{s_x v_x}, R̃_x = E_x^{η s_x v_x},
//!               A_x = g^{t s_x (v_x·v_c)}, B_x = M · G_x^{t s_x (v_x·v_c)}
//!   column y:   w_y ←R Z_p²;  v = v'_c (y < j), v_c (y ≥ j)
//!               C_y = H_y^{t v} · ĝ^{η w_y},  C̃_y = ĝ^{w_y}
//! Encrypt(PK, M) = TrEncrypt(PK, (1,1), M)            (BSW06's definition)
//! Decrypt(K_{x,y}):  M = B_x · e(R_x, C_y) / (e(R̃_x, C̃_y) · e(A_x, K_{x,y}))
//! ```
//! Decryption yields M·e(g,ĝ)^{t s_x r_x c_y (v_x·v − v_x·v_c)}: M exactly when
//! v_x·v = v_x·v_c, i.e. y ≥ j or v_x ∈ span(v_1) (x > i). So TrEncrypt(i, j)
//! is decryptable by the users (x, y) ≥ (i, j) in row-major order, and
//! (m+1, 1) by nobody. The tracer's index u ∈ [1, N+1] is the grid position
//! of user u, and N+1 is (m+1, 1).
//!
//! In KEM form M ←R GT (M = G_1^μ) and the session key is KDF(M).
//!
//! ## Modes
//! Only the CPA KEM (with the authenticated payload every abbe file has):
//! FO's re-encryption check would reject every tracing ciphertext, so a
//! pirate decoder could not be traced. The facade refuses `--mode cca` for
//! this scheme (its registry entry is `Traced`).
//!
//! ## Type-III placement
//! The key K pairs with A_x and is in **G2** (one element, its Miller-loop
//! lines cached per key), so A_x, R_x, R̃_x are in **G1** and the columns
//! C_y, C̃_y in **G2**: rows carry five group elements and columns four, so
//! this puts the larger half in the cheaper group. Ciphertext 5m G1, 4m G2
//! and m GT (797·m bytes on BN254; chhatrapati22's "605 KB" counts each
//! 2-vector as one element), public key m (G1 + G2 + GT), user key 1 G2.
//! The rows and columns are computed by the shared [`super::grid`].
//!
//! ## Side channels
//! Every secret exponent (master logs, t, η, s_x, v, w_y) meets points only in
//! [`Group::mul_secret`], fixed-base tables and GT powers, constant time on
//! every curve; the grid position is public.
//!
//! ## Operation counts
//! Encrypt: 5m G1, 6m G2 and m GT exponentiations; decrypt: 5 Miller loops
//! and 1 final exponentiation (`op_counts` below).
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! grid's row elements move to G2 and the column elements to G1, under the
//! assumptions of its prime-order translation with the source groups exchanged
//! ([`crate::curve::swapped`]).

use super::grid::{self, ceil_sqrt, flat_g1, flat_g2, position, tables, GridBases, Tables};
use super::trace::Traceable;
use super::{prf_scalar, user_in_range, Everyone, Points, UserCount, UserIndex};
use crate::bcast::Users;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, LinedG2, Scalar, Target};
use crate::kem::{bind, same_setup, Authority, Kem, KemError, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gksw10Plbe<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gksw10Plbe;

object! {
    /// The public key: E_x ∈ G1, G_x ∈ GT (rows), H_y ∈ G2 (columns).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        e: Arc<Points<C, C::G1>> => "E_x = g^{r_x}" in ceil_sqrt(n),
        g: Arc<Vec<C::Gt>> => "G_x = e(g,ĝ)^{α_x}" in ceil_sqrt(n),
        h: Arc<Points<C, C::G2>> => "H_y = ĝ^{c_y}" in ceil_sqrt(n),
    }
    cached { tables: Lazy<Tables<C>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }
    fn m(&self) -> u32 {
        ceil_sqrt(self.n)
    }
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(tables::<C>)
    }
}

object! {
    /// The master key: the seed of r_x, α_x, c_y (PRF_seed per row and
    /// column); wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        seed: Secret<[u8; 32]> => "seed of r_x, α_x, c_y",
    }
    cached { curve: PhantomData<C> }
}

impl<C: Curve> MasterKey<C> {
    fn r(&self, x: u32) -> C::Scalar {
        prf_scalar(b"gksw10-plbe/r", &self.seed, x)
    }
    fn alpha(&self, x: u32) -> C::Scalar {
        prf_scalar(b"gksw10-plbe/alpha", &self.seed, x)
    }
    fn c(&self, y: u32) -> C::Scalar {
        prf_scalar(b"gksw10-plbe/c", &self.seed, y)
    }
    /// Recomputes the public key (O(√N)).
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let m = ceil_sqrt(self.n);
        let rows: Vec<u32> = (1..=m).collect();
        let gt = C::pairing(&C::G1::generator(), &C::G2::generator());
        let e = par_map::<C, _, _>(&rows, |&x| C::G1::mul_fixed(&t.g1, &self.r(x)));
        let g = par_map::<C, _, _>(&rows, |&x| gt.pow(&self.alpha(x)));
        let h = par_map::<C, _, _>(&rows, |&y| C::G2::mul_fixed(&t.g2, &self.c(y)));
        PublicKey {
            n: self.n,
            e: Arc::new(Points::new(C::G1::to_affine_batch(&e))),
            g: Arc::new(g),
            h: Arc::new(Points::new(C::G2::to_affine_batch(&h))),
            tables: Lazy::from(t),
            id: OnceLock::new(),
        }
    }
}

object! {
    /// A user key: K_{x,y} ∈ G2 (its lines cached); wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index u",
        k: Secret<LinedG2<C>> => "K_{x,y}",
    }
    check "1 ≤ u ≤ N" => |k| user_in_range(k.i, k.n);
    made_for UserIndex = |key| UserIndex(key.i);
}

impl<C: Curve> UserKey<C> {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
}

object! {
    /// The header: rows (R_x, R̃_x ∈ G1², A_x ∈ G1, B_x ∈ GT) and columns
    /// (C_y, C̃_y ∈ G2²), each 2-vector as two consecutive points.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        r: Points<C, C::G1> => "R_x" in 2 * ceil_sqrt(n),
        rt: Points<C, C::G1> => "R̃_x" in 2 * ceil_sqrt(n),
        a: Points<C, C::G1> => "A_x" in ceil_sqrt(n),
        b: Vec<C::Gt> => "B_x" in ceil_sqrt(n),
        c: Points<C, C::G2> => "C_y" in 2 * ceil_sqrt(n),
        ct: Points<C, C::G2> => "C̃_y" in 2 * ceil_sqrt(n),
    }
    made_for Everyone = |_| Everyone;
}

/// E_x, H_y from the public key, or through the master key's logarithms
/// (the tracer's fixed-base shortcut).
struct Bases<'a, C: Curve> {
    pk: &'a PublicKey<C>,
    master: Option<&'a MasterKey<C>>,
}

impl<C: Curve> GridBases<C> for Bases<'_, C> {
    fn e(&self, x: u32, s: &C::Scalar) -> C::G1 {
        match self.master {
            None => C::G1::from_affine(&self.pk.e[x as usize - 1]).mul_secret(s),
            Some(mk) => {
                let mut w = mk.r(x) * *s;
                let p = C::G1::mul_fixed(self.g1(), &w);
                wipe(&mut w, C::Scalar::zero());
                p
            }
        }
    }
    fn h(&self, y: u32, s: &C::Scalar) -> C::G2 {
        match self.master {
            None => C::G2::from_affine(&self.pk.h[y as usize - 1]).mul_secret(s),
            Some(mk) => {
                let mut w = mk.c(y) * *s;
                let p = C::G2::mul_fixed(self.g2(), &w);
                wipe(&mut w, C::Scalar::zero());
                p
            }
        }
    }
    fn g(&self, x: u32) -> &C::Gt {
        &self.pk.g[x as usize - 1]
    }
    fn g1(&self) -> &FixedBaseTable<C::G1> {
        &self.pk.tables().g1
    }
    fn g2(&self) -> &FixedBaseTable<C::G2> {
        &self.pk.tables().g2
    }
}

/// TrEncrypt(PK, (i, j), M) with M = G_1^μ: the session key and the header.
fn tr_encrypt<C: Curve, R: RngCore + CryptoRng>(
    bases: &Bases<'_, C>,
    at: (u32, u32),
    rng: &mut R,
) -> (SessionKey, Header<C>) {
    let pk = bases.pk;
    let mut mu = C::Scalar::random(rng);
    let msg = pk.g[0].pow(&mu);
    wipe(&mut mu, C::Scalar::zero());
    let g1 = &pk.tables().g1;
    let (rows, cols) =
        grid::encrypt_at(bases, pk.m(), at, &msg, |_, a| C::G1::mul_fixed(g1, a), rng);
    let header = Header {
        setup_id: pk.setup_id(),
        n: pk.n,
        r: Points::new(flat_g1(&rows, |w| w.r)),
        rt: Points::new(flat_g1(&rows, |w| w.rt)),
        a: Points::new(flat_g1(&rows, |w| [w.extra])),
        b: rows.iter().map(|w| w.b).collect(),
        c: Points::new(flat_g2(&cols, |w| w.c)),
        ct: Points::new(flat_g2(&cols, |w| w.ct)),
    };
    (SessionKey::from_gt(&msg, SCHEME, C::ID), header)
}

impl<C: Curve> Authority for Gksw10Plbe<C> {
    crate::kem::authority_objects!(Users, UserIndex);

    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mut mk = MasterKey {
            setup_id: [0; 16],
            n: UserCount::new(users.0)?,
            seed: Secret([0u8; 32]),
            curve: PhantomData,
        };
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(mk.public_key(), mk))
    }

    /// The setup id, and E_1 and H_1 recomputed from the seed: a master
    /// key carrying this setup's id with other secrets would trace with
    /// the wrong bases.
    fn is_public_key_of(pk: &PublicKey<C>, mk: &MasterKey<C>) -> bool {
        pk.setup_id() == mk.setup_id
            && pk.n == mk.n
            && pk
                .tables()
                .first_bases_are(&pk.e, &pk.h, &mk.r(1), &mk.c(1))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        user: &UserIndex,
        _: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.n != mk.n {
            return Err(KemError::WrongSetup);
        }
        user_key_of(mk, user, &pk.tables().g2)
    }

    fn keygen_without_public_key(
        mk: &MasterKey<C>,
        user: &UserIndex,
    ) -> Option<Result<UserKey<C>, KemError>> {
        Some(user_key_of(mk, user, &tables::<C>().g2))
    }
}

/// K_{x,y} = ĝ^{α_x + r_x c_y}: one fixed-base exponentiation.
fn user_key_of<C: Curve>(
    mk: &MasterKey<C>,
    user: &UserIndex,
    g2: &FixedBaseTable<C::G2>,
) -> Result<UserKey<C>, KemError> {
    user.check(mk.n.get())?;
    let (x, y) = position(user.0, ceil_sqrt(mk.n));
    let mut e = mk.alpha(x) + mk.r(x) * mk.c(y);
    let k = C::G2::mul_fixed(g2, &e);
    wipe(&mut e, C::Scalar::zero());
    Ok(UserKey {
        setup_id: mk.setup_id,
        n: mk.n,
        i: user.0,
        k: Secret(LinedG2::new(k)),
    })
}

impl<C: Curve> Kem for Gksw10Plbe<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Everyone; the issued key decrypts);

    super::unattached_keys!(UserKey<C>, PublicKey<C>);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        _: &Everyone,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        Ok(tr_encrypt(&Bases { pk, master: None }, (1, 1), rng))
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        if h.setup_id != key.setup_id || h.n != key.n {
            return Err(KemError::WrongSetup);
        }
        let (x, y) = position(key.i, ceil_sqrt(key.n));
        let (x, y) = (x as usize - 1, y as usize - 1);
        let rc = grid::row_column_pairs::<C>(&h.r, &h.rt, &h.c, &h.ct, x, y);
        let neg_a = C::G1::from_affine(&C::G1::neg_affine(&h.a[x]));
        let f = C::multi_pairing(&[
            (rc[0].0, &rc[0].1),
            (rc[1].0, &rc[1].1),
            (rc[2].0, &rc[2].1),
            (rc[3].0, &rc[3].1),
            (neg_a, key.k.lines()),
        ]);
        Ok(SessionKey::from_gt(&(h.b[x] * f), SCHEME, C::ID))
    }
}

impl<C: Curve> Traceable for Gksw10Plbe<C> {
    const PRIVATE: bool = true;

    fn users(pk: &PublicKey<C>) -> u32 {
        pk.users()
    }

    fn everyone(_: &PublicKey<C>) -> Everyone {
        Everyone
    }

    /// TrEncrypt at index u: the grid position of user u, and (m+1, 1) for
    /// u = N+1; with the master key's logarithms (fixed-base tables).
    fn encapsulate_at<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: Option<&MasterKey<C>>,
        _: &Everyone,
        _line: usize,
        u: u32,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let mk = mk.ok_or_else(|| KemError::Invalid("PLBE tracing needs the master key".into()))?;
        same_setup(pk, mk)?;
        let at = grid::index_of(u, pk.users())?;
        Ok(tr_encrypt(
            &Bases {
                pk,
                master: Some(mk),
            },
            at,
            rng,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::{self, Side};

    type G = Gksw10Plbe<Bls12>;

    conformance::tests!(Gksw10Plbe: Case::one_target(Users(12), "all", &[("1", true), ("7", true), ("12", true)]));

    /// TrEncrypt(u) is decryptable by exactly the users ≥ u, for every u
    /// in [1, N+1], on a grid with empty slots (N = 7, m = 3).
    #[test]
    fn tracing_ciphertexts_reach_exactly_the_users_from_u_on() {
        let mut r = rng(4);
        let n = 7;
        let (pk, mk) = G::setup(&Users(n), &mut r).unwrap();
        let keys: Vec<_> = (1..=n)
            .map(|u| kem::keygen::<G>(&pk, &mk, &UserIndex(u), &mut r).unwrap())
            .collect();
        for u in 1..=n + 1 {
            let (k, h) = G::encapsulate_at(&pk, Some(&mk), &Everyone, 0, u, &mut r).unwrap();
            let h = Header::<Bls12>::from_bytes(&h.to_bytes()).unwrap();
            for (idx, key) in keys.iter().enumerate() {
                let v = idx as u32 + 1;
                let got = G::decapsulate(key, &h).unwrap();
                assert_eq!(got == k, v >= u, "user {v}, index {u}");
            }
        }
        assert!(G::encapsulate_at(&pk, Some(&mk), &Everyone, 0, n + 2, &mut r).is_err());
        assert!(G::encapsulate_at(&pk, Some(&mk), &Everyone, 0, 0, &mut r).is_err());
        assert!(G::encapsulate_at(&pk, None, &Everyone, 0, 1, &mut r).is_err());
        let (_, other) = G::setup(&Users(n), &mut r).unwrap();
        assert!(matches!(
            G::encapsulate_at(&pk, Some(&other), &Everyone, 0, 1, &mut r),
            Err(KemError::WrongSetup)
        ));
    }

    #[test]
    fn sizes_match_the_grid() {
        // BN254: ciphertext 5m G1 + 4m G2 + m GT = 797·m bytes (GT 381).
        let mut r = rng(8);
        let (pk, mk) = Gksw10Plbe::<Bn254>::setup(&Users(100), &mut r).unwrap();
        let (_, h) = Gksw10Plbe::<Bn254>::encapsulate(&pk, &Everyone, &mut r).unwrap();
        let gt = <<Bn254 as Curve>::Gt as crate::curve::Element>::ENCODED_BYTES;
        let m = 10;
        assert_eq!(h.to_bytes().len() - 8 - 16 - 4, m * (5 * 32 + 4 * 64 + gt));
        assert_eq!(pk.to_bytes().len() - 8 - 4, m * (32 + 64 + gt));
        let key = kem::keygen::<Gksw10Plbe<Bn254>>(&pk, &mk, &UserIndex(5), &mut r).unwrap();
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 64);
        assert!(Everyone::parse("all").is_ok() && Everyone::parse("1-3").is_err());
    }

    #[test]
    fn op_counts() {
        type CG = Gksw10Plbe<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CG::setup(&Users(16), &mut r).unwrap();
        let m = 4u64;
        let key = kem::keygen::<CG>(&pk, &mk, &UserIndex(6), &mut r).unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CG::encapsulate(&pk, &Everyone, &mut r).unwrap());
        assert_eq!(enc.g1_exp + enc.g1_fixed_exp, 5 * m, "5m G1");
        assert_eq!(enc.g2_exp + enc.g2_fixed_exp, 6 * m, "6m G2");
        assert_eq!(enc.gt_exp, m + 1, "m GT + M");
        let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &h).unwrap());
        assert_eq!((dec.miller_loops, dec.final_exps), (5, 1));
    }
}
