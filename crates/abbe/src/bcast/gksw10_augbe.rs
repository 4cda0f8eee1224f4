//! Garg–Kumarasubramanian–Sahai–Waters augmented broadcast encryption
//! (AugBE) on an m×m grid, in KEM form, Type-III: broadcast to any set S,
//! and black-box traitor tracing that needs only the public key
//! ([`super::trace`]).
//!
//! Papers: S. Garg, A. Kumarasubramanian, A. Sahai, B. Waters, "Building
//! Efficient Fully Collusion-Resilient Traitor Tracing and Revocation
//! Schemes", ACM CCS 2010, §5.2 (ePrint 2009/532) — the prime-order version of
//! D. Boneh, B. Waters, "A Fully Collusion Resistant Broadcast, Trace, and
//! Revoke System", CCS 2006; chhatrapati22's full version, ref. \[13\].
//! Checked against the authors' `AugBERevised.java` (ArushC/broadcast,
//! `schemesRevised/`; notes in docs/sources/broadcast-ii/gksw10-augbe.md).
//! Where the Java multiplies u_k over the columns of S in *every* row, we
//! take S_x, the columns of S in row x, as BW06 does: with the Java's
//! product a user (x, y) ∉ S decrypts whenever another row has a recipient
//! in column y, i.e. revocation would not hold.
//!
//! Notation (the paper's; grid, 2-vectors and TrEncrypt's rows and columns as
//! in [`super::grid`]): S_x = { y : (x, y) ∈ S }, U_x = Π_{k ∈ S_x} u_k.
//!
//! ```text
//! Setup(N):  r_x, α_x, c_y ←R Z_p, u_y ←R G1;
//!            PK = (E_x = g^{r_x}, G_x = e(g,ĝ)^{α_x}, H_y = ĝ^{c_y}, u_y)
//! KeyGen(x,y):  δ ←R Z_p;  K = g^{α_x + r_x c_y} u_y^δ,  K'' = ĝ^δ,
//!               K_k = u_k^δ (k ≠ y)
//! Encrypt(S, PK, (i,j), M):  the grid's rows and columns; per row x with
//!               exponent e_x (a_x or τ_x):  A_x = ĝ^{e_x},  T_x = U_x^{e_x}
//! Encrypt(S, PK, M) = Encrypt(S, PK, (1,1), M)
//! Decrypt(K_{x,y}), (x,y) ∈ S:  K' = K · Π_{k ∈ S_x∖{y}} K_k = g^{α_x + r_x c_y} U_x^δ
//!               M = B_x · e(R_x, C_y) · e(T_x, K'') / (e(R̃_x, C̃_y) · e(K', A_x))
//! ```
//! e(K', A_x)/e(T_x, K'') = e(g,ĝ)^{τ_x(α_x + r_x c_y)}: the U_x^δ parts cancel
//! exactly when y ∈ S_x; the rest is the PLBE's computation, so a ciphertext
//! at (i, j) reaches the users of S that are ≥ (i, j).
//!
//! u_y = g^{μ_y} with μ_y = PRF_seed(y): the authority (who holds every α_x)
//! knows them; no one else does.
//!
//! ## Modes and tracing
//! Only the CPA KEM, as for the PLBE: a CCA check would reject the tracer's
//! ciphertexts. Tracing is public (`abbe trace` without `--master`): an
//! encryption at any index needs only the public key. By index hiding, p_u
//! and p_{u+1} differ only for u ∈ S whose key is in the decoder, so a
//! decoder sold for S is traced to a member of S.
//!
//! ## Type-III placement
//! As the authors': the key's m elements (K, K_k) and so U_x, T_x, and the
//! rows' R_x, R̃_x are in **G1**, where decryption multiplies |S_x| of them;
//! A_x, K'' and the columns are in **G2**. K'' is key-side (lines cached per
//! key). Ciphertext 5m G1, 5m G2, m GT and S; key m G1 + 1 G2; public key
//! 2m G1, m G2, m GT.
//!
//! ## Side channels
//! Secret exponents meet points in [`Group::mul_secret`], fixed-base tables
//! and GT powers only, constant time on every curve; S and the grid position
//! are public.
//!
//! ## Operation counts
//! Encrypt: 5m G1 (4m fixed-base, m variable-base T_x), 7m G2 and m GT
//! exponentiations, |S| G1 additions; decrypt: |S_x| − 1 G1 additions,
//! 6 Miller loops, 1 final exponentiation (`op_counts` below).
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! grid's row elements move to G2 and the column elements to G1, under the
//! assumptions of its prime-order translation with the source groups exchanged
//! ([`crate::curve::swapped`]).

use super::grid::{self, ceil_sqrt, flat_g1, flat_g2, position, tables, GridBases, Tables};
use super::trace::Traceable;
use super::{prf_scalar, sum_points, user_in_range, Points, Recipients, UserCount, UserIndex};
use crate::bcast::Users;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, LinedG2, Scalar, Target};
use crate::kem::{bind, Authority, Kem, KemError, MasterKeyOf, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gksw10AugBe<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gksw10AugBe;

object! {
    /// The public key: E_x ∈ G1, G_x ∈ GT (rows), H_y ∈ G2, u_y ∈ G1
    /// (columns).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        e: Arc<Points<C, C::G1>> => "E_x = g^{r_x}" in ceil_sqrt(n),
        g: Arc<Vec<C::Gt>> => "G_x = e(g,ĝ)^{α_x}" in ceil_sqrt(n),
        h: Arc<Points<C, C::G2>> => "H_y = ĝ^{c_y}" in ceil_sqrt(n),
        u: Arc<Points<C, C::G1>> => "u_y" in ceil_sqrt(n),
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
    /// The master key: the seed of r_x, α_x, c_y, μ_y (PRF_seed per row
    /// and column); wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        seed: Secret<[u8; 32]> => "seed of r_x, α_x, c_y, μ_y",
    }
    cached { curve: PhantomData<C> }
}

impl<C: Curve> MasterKey<C> {
    fn r(&self, x: u32) -> C::Scalar {
        prf_scalar(b"gksw10-augbe/r", &self.seed, x)
    }
    fn alpha(&self, x: u32) -> C::Scalar {
        prf_scalar(b"gksw10-augbe/alpha", &self.seed, x)
    }
    fn c(&self, y: u32) -> C::Scalar {
        prf_scalar(b"gksw10-augbe/c", &self.seed, y)
    }
    fn mu(&self, y: u32) -> C::Scalar {
        prf_scalar(b"gksw10-augbe/mu", &self.seed, y)
    }
    /// Recomputes the public key (O(√N)).
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let m = ceil_sqrt(self.n);
        let idx: Vec<u32> = (1..=m).collect();
        let gt = C::pairing(&C::G1::generator(), &C::G2::generator());
        let g1 = |f: &(dyn Fn(u32) -> C::Scalar + Sync)| {
            let p = par_map::<C, _, _>(&idx, |&k| C::G1::mul_fixed(&t.g1, &f(k)));
            Arc::new(Points::new(C::G1::to_affine_batch(&p)))
        };
        let e = g1(&|x| self.r(x));
        let u = g1(&|y| self.mu(y));
        let g = par_map::<C, _, _>(&idx, |&x| gt.pow(&self.alpha(x)));
        let h = par_map::<C, _, _>(&idx, |&y| C::G2::mul_fixed(&t.g2, &self.c(y)));
        PublicKey {
            n: self.n,
            e,
            g: Arc::new(g),
            h: Arc::new(Points::new(C::G2::to_affine_batch(&h))),
            u,
            tables: Lazy::from(t),
            id: OnceLock::new(),
        }
    }
}

object! {
    /// A user key: K'' ∈ G2 (lines cached), and per column k the G1
    /// element K (k = y) or K_k (k ≠ y); wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index u",
        kk: Secret<LinedG2<C>> => "K'' = ĝ^δ",
        k: Secret<Points<C, C::G1>> => "K at column y, K_k = u_k^δ elsewhere" in ceil_sqrt(n),
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
    /// The header: S; rows (R_x, R̃_x ∈ G1², T_x ∈ G1, A_x ∈ G2, B_x ∈ GT)
    /// and columns (C_y, C̃_y ∈ G2²), each 2-vector as two points.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        r: Points<C, C::G1> => "R_x" in 2 * ceil_sqrt(n),
        rt: Points<C, C::G1> => "R̃_x" in 2 * ceil_sqrt(n),
        t: Points<C, C::G1> => "T_x" in ceil_sqrt(n),
        a: Points<C, C::G2> => "A_x" in ceil_sqrt(n),
        b: Vec<C::Gt> => "B_x" in ceil_sqrt(n),
        c: Points<C, C::G2> => "C_y" in 2 * ceil_sqrt(n),
        ct: Points<C, C::G2> => "C̃_y" in 2 * ceil_sqrt(n),
    }
    made_for Recipients = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
}

/// Everything of an encryption comes from the public key (public tracing).
impl<C: Curve> GridBases<C> for PublicKey<C> {
    fn e(&self, x: u32, s: &C::Scalar) -> C::G1 {
        C::G1::from_affine(&self.e[x as usize - 1]).mul_secret(s)
    }
    fn h(&self, y: u32, s: &C::Scalar) -> C::G2 {
        C::G2::from_affine(&self.h[y as usize - 1]).mul_secret(s)
    }
    fn g(&self, x: u32) -> &C::Gt {
        &self.g[x as usize - 1]
    }
    fn g1(&self) -> &FixedBaseTable<C::G1> {
        &self.tables().g1
    }
    fn g2(&self) -> &FixedBaseTable<C::G2> {
        &self.tables().g2
    }
}

/// The columns of S in row x (1-based), as 0-based column offsets.
fn row_members(set: &Recipients, x: u32, m: u32) -> impl Iterator<Item = usize> + '_ {
    let lo = (x - 1) * m + 1;
    set.iter_range(lo, lo + m - 1)
        .map(move |u| (u - lo) as usize)
}

/// Encrypt(S, PK, (i, j), M) with M = G_1^μ.
fn encrypt_at<C: Curve, R: RngCore + CryptoRng>(
    pk: &PublicKey<C>,
    set: &Recipients,
    at: (u32, u32),
    rng: &mut R,
) -> Result<(SessionKey, Header<C>), KemError> {
    set.check(pk.users())?;
    let m = pk.m();
    let mut mu = C::Scalar::random(rng);
    let msg = pk.g[0].pow(&mu);
    wipe(&mut mu, C::Scalar::zero());
    // U_x = Π_{k ∈ S_x} u_k: |S| additions in all.
    let rows: Vec<u32> = (1..=m).collect();
    let ux = par_map::<C, _, _>(&rows, |&x| {
        sum_points::<C::G1>(row_members(set, x, m).map(|k| pk.u[k])).unwrap_or_else(C::G1::identity)
    });
    let g2 = &pk.tables().g2;
    let (rows, cols) = grid::encrypt_at(
        pk,
        m,
        at,
        &msg,
        |x, e| (ux[x as usize - 1].mul_secret(e), C::G2::mul_fixed(g2, e)),
        rng,
    );
    let header = Header {
        setup_id: pk.setup_id(),
        n: pk.n,
        set: set.clone(),
        r: Points::new(flat_g1(&rows, |w| w.r)),
        rt: Points::new(flat_g1(&rows, |w| w.rt)),
        t: Points::new(flat_g1(&rows, |w| [w.extra.0])),
        a: Points::new(C::G2::to_affine_batch(
            &rows.iter().map(|w| w.extra.1).collect::<Vec<_>>(),
        )),
        b: rows.iter().map(|w| w.b).collect(),
        c: Points::new(flat_g2(&cols, |w| w.c)),
        ct: Points::new(flat_g2(&cols, |w| w.ct)),
    };
    Ok((SessionKey::from_gt(&msg, SCHEME, C::ID), header))
}

impl<C: Curve> Authority for Gksw10AugBe<C> {
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

    /// The setup id, and E_1 and H_1 recomputed from the seed (as PLBE).
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
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.n != mk.n {
            return Err(KemError::WrongSetup);
        }
        let t = pk.tables();
        user_key_of(mk, user, &t.g1, &t.g2, rng)
    }
}

/// K = g^{α_x + r_x c_y + μ_y δ}, K_k = g^{μ_k δ}, K'' = ĝ^δ: m + 1
/// fixed-base exponentiations.
fn user_key_of<C: Curve, R: RngCore + CryptoRng>(
    mk: &MasterKey<C>,
    user: &UserIndex,
    g1: &FixedBaseTable<C::G1>,
    g2: &FixedBaseTable<C::G2>,
    rng: &mut R,
) -> Result<UserKey<C>, KemError> {
    user.check(mk.n.get())?;
    let m = ceil_sqrt(mk.n);
    let (x, y) = position(user.0, m);
    let mut delta = C::Scalar::random(rng);
    let mut exps: Vec<C::Scalar> = (1..=m)
        .map(|k| {
            let e = mk.mu(k) * delta;
            if k == y {
                e + mk.alpha(x) + mk.r(x) * mk.c(y)
            } else {
                e
            }
        })
        .collect();
    let k = super::fixed_base_affine::<C, C::G1>(g1, &exps);
    let kk = C::G2::mul_fixed(g2, &delta);
    exps.iter_mut().for_each(|e| wipe(e, C::Scalar::zero()));
    wipe(&mut delta, C::Scalar::zero());
    Ok(UserKey {
        setup_id: mk.setup_id,
        n: mk.n,
        i: user.0,
        kk: Secret(LinedG2::new(kk)),
        k: Secret(Points::new(k)),
    })
}

impl<C: Curve> Kem for Gksw10AugBe<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Recipients; the issued key decrypts);

    super::unattached_keys!(UserKey<C>, PublicKey<C>);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        encrypt_at(pk, set, (1, 1), rng)
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        if h.setup_id != key.setup_id || h.n != key.n {
            return Err(KemError::WrongSetup);
        }
        if !h.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let m = ceil_sqrt(key.n);
        let (x, y) = position(key.i, m);
        // K' = K · Π_{k ∈ S_x∖{y}} K_k (K sits at column y, which is in S_x).
        let mut kp = super::sum_secret_points::<C::G1>(row_members(&h.set, x, m).map(|k| key.k[k]))
            .unwrap_or_else(C::G1::identity);
        let (x, y) = (x as usize - 1, y as usize - 1);
        let rc = grid::row_column_pairs::<C>(&h.r, &h.rt, &h.c, &h.ct, x, y);
        let a_lines = C::prepare(&C::G2::from_affine(&h.a[x]));
        let f = C::multi_pairing(&[
            (rc[0].0, &rc[0].1),
            (rc[1].0, &rc[1].1),
            (rc[2].0, &rc[2].1),
            (rc[3].0, &rc[3].1),
            (C::G1::from_affine(&h.t[x]), key.kk.lines()),
            (-kp, &a_lines),
        ]);
        crate::curve::wipe(&mut kp, C::G1::identity());
        Ok(SessionKey::from_gt(&(h.b[x] * f), SCHEME, C::ID))
    }
}

impl<C: Curve> Traceable for Gksw10AugBe<C> {
    const PRIVATE: bool = false;

    fn users(pk: &PublicKey<C>) -> u32 {
        pk.users()
    }

    fn everyone(pk: &PublicKey<C>) -> Recipients {
        Recipients::range(1, pk.users()).expect("N ≥ 1")
    }

    /// Encrypt(S, PK, index of u, M): the public key suffices.
    fn encapsulate_at<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        _: Option<&MasterKeyOf<Self>>,
        set: &Recipients,
        _line: usize,
        u: u32,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        encrypt_at(pk, set, grid::index_of(u, pk.users())?, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::{self, Side};

    type A = Gksw10AugBe<Bls12>;

    conformance::tests!(Gksw10AugBe: conformance::broadcast_case(); random_recipients);

    /// Encrypt(S, u) reaches exactly the members of S that are ≥ u, for
    /// every u in [1, N+1], on a grid with empty slots and empty rows of S.
    #[test]
    fn encryptions_at_an_index_reach_exactly_the_members_from_u_on() {
        let mut r = rng(4);
        let n = 14; // m = 4: two empty slots
        let (pk, mk) = A::setup(&Users(n), &mut r).unwrap();
        let keys: Vec<_> = (1..=n)
            .map(|u| kem::keygen::<A>(&pk, &mk, &UserIndex(u), &mut r).unwrap())
            .collect();
        // Row 2 (users 5–8) has no member of S.
        let set = Recipients::parse("1-3, 9, 11-14").unwrap();
        for u in 1..=n + 1 {
            let (k, h) = A::encapsulate_at(&pk, None, &set, 0, u, &mut r).unwrap();
            let h = Header::<Bls12>::from_bytes(&h.to_bytes()).unwrap();
            for (idx, key) in keys.iter().enumerate() {
                let v = idx as u32 + 1;
                let ok = matches!(A::decapsulate(key, &h), Ok(got) if got == k);
                assert_eq!(ok, v >= u && set.contains(v), "user {v}, index {u}");
            }
        }
    }

    /// The authors' Java multiplies the u_k of S's columns in every row:
    /// a user outside S whose column has a recipient in another row would
    /// decrypt. With S_x per row, users 2 (row 1, column 2) and 4 (row 2,
    /// column 1) stay out of S = {1, 5} on a 3×3 grid.
    #[test]
    fn revocation_is_per_row() {
        let mut r = rng(6);
        let (pk, mk) = A::setup(&Users(9), &mut r).unwrap();
        let set = Recipients::parse("1, 5").unwrap();
        let (k, h) = A::encapsulate(&pk, &set, &mut r).unwrap();
        for u in [2u32, 4, 6, 8] {
            let key = kem::keygen::<A>(&pk, &mk, &UserIndex(u), &mut r).unwrap();
            assert!(matches!(
                A::decapsulate(&key, &h),
                Err(KemError::NotSatisfied)
            ));
            // Claiming membership (a forged S) does not help.
            let mut forged = Header::<Bls12>::from_bytes(&h.to_bytes()).unwrap();
            forged.set = Recipients::parse(&format!("1, 5, {u}")).unwrap();
            assert_ne!(A::decapsulate(&key, &forged).unwrap(), k, "user {u}");
        }
        for u in [1u32, 5] {
            let key = kem::keygen::<A>(&pk, &mk, &UserIndex(u), &mut r).unwrap();
            assert_eq!(A::decapsulate(&key, &h).unwrap(), k);
        }
    }

    #[test]
    fn sizes_match_the_grid() {
        // BN254: ciphertext 5m G1 + 5m G2 + m GT (+ S), key m G1 + 1 G2.
        let mut r = rng(8);
        let (pk, mk) = Gksw10AugBe::<Bn254>::setup(&Users(100), &mut r).unwrap();
        let set = Recipients::parse("1-10").unwrap();
        let (_, h) = Gksw10AugBe::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        let gt = <<Bn254 as Curve>::Gt as crate::curve::Element>::ENCODED_BYTES;
        let m = 10;
        assert_eq!(
            h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(),
            m * (5 * 32 + 5 * 64 + gt)
        );
        assert_eq!(pk.to_bytes().len() - 8 - 4, m * (2 * 32 + 64 + gt));
        let key = kem::keygen::<Gksw10AugBe<Bn254>>(&pk, &mk, &UserIndex(5), &mut r).unwrap();
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 64 + m * 32);
        assert!(Recipients::parse("1-3").is_ok());
    }

    #[test]
    fn op_counts() {
        type CA = Gksw10AugBe<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CA::setup(&Users(16), &mut r).unwrap();
        let m = 4u64;
        let (key, kg) =
            OpCounts::measure(|| kem::keygen::<CA>(&pk, &mk, &UserIndex(6), &mut r).unwrap());
        assert_eq!((kg.g1_fixed_exp, kg.g2_fixed_exp), (m, 1));
        let set = Recipients::parse("1-16").unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CA::encapsulate(&pk, &set, &mut r).unwrap());
        assert_eq!(enc.g1_exp + enc.g1_fixed_exp, 5 * m, "5m G1");
        assert_eq!(enc.g2_exp + enc.g2_fixed_exp, 7 * m, "7m G2");
        assert_eq!(enc.gt_exp, m + 1, "m GT + M");
        let (_, dec) = OpCounts::measure(|| CA::decapsulate(&key, &h).unwrap());
        assert_eq!((dec.miller_loops, dec.final_exps), (6, 1));
        assert_eq!(dec.g1_add, m - 1, "|S_x| − 1 additions");
    }
}
