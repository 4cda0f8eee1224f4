//! Waters 2009 dual-system broadcast encryption (adaptively secure), in KEM
//! form, Type-III.
//!
//! Papers: B. Waters, "Dual System Encryption: Realizing Fully Secure IBE and
//! HIBE under Simple Assumptions", CRYPTO 2009, the broadcast system of its
//! full version (ePrint 2009/385, pp. 28–29: the IBE's
//! (u^{ID} w^{tag} h) replaced by the product of per-user elements u_j);
//! evaluated asymmetrically in chhatrapati22 §3.3 ("\[23\]"), Tables 6–9.
//! Checked against the authors' `schemesRevised/Wat09.java` (ArushC/broadcast;
//! = `WatersBroadcastSystemRevised.java`, whose runtimes are Table 7's \[23\]
//! row; notes in docs/sources/broadcast-ii/wat09-check.md): the same
//! algebra re-placed (C_1..C_5 in G1, D_1..D_5 in G2, K_i = (u_i/w)^{r_1}
//! for the Java's (w·u_i)^{r_1}, the KEM without C_0), and none of the
//! Java's weaknesses (u_j from 3-byte seeds collide at 10^6 users, letting a
//! user whose u_k equals another's escape revocation; v, v_1, v_2, w fixed
//! across setups).
//!
//! Notation (the paper's): generators g ∈ G1, ĝ ∈ G2 and v, v_1, v_2, w,
//! u_1..u_n; a_1, a_2, b, α ∈ Z_p; τ_1 = v·v_1^{a_1}, τ_2 = v·v_2^{a_2}.
//!
//! ```text
//! Setup(n):  PK = (g^b, g^{a_1}, g^{a_2}, g^{b·a_1}, g^{b·a_2}, τ_1, τ_2, τ_1^b, τ_2^b, w,
//!                  u_1..u_n, Y = e(g, ĝ)^{α·a_1·b})
//! KeyGen(i): r_1, r_2, z_1, z_2 ←R Z_p, r = r_1 + r_2;
//!            D_1 = ĝ^{α a_1} v̂^r,  D_2 = ĝ^{−α} v̂_1^r ĝ^{z_1},  D_3 = (ĝ^b)^{−z_1},
//!            D_4 = v̂_2^r ĝ^{z_2},  D_5 = (ĝ^b)^{−z_2},  D_6 = ĝ^{b r_2},  D_7 = ĝ^{r_1},
//!            K_j = u_j^{r_1} (j ≠ i),  K_i = (u_i / w)^{r_1}
//! Encrypt S: s_1, s_2, t ←R Z_p;
//!            C_1 = (g^b)^{s_1+s_2}, C_2 = (g^{b a_1})^{s_1}, C_3 = (g^{a_1})^{s_1},
//!            C_4 = (g^{b a_2})^{s_2}, C_5 = (g^{a_2})^{s_2}, C_6 = τ_1^{s_1} τ_2^{s_2},
//!            C_7 = (τ_1^b)^{s_1} (τ_2^b)^{s_2} w^{−t},  E_1 = (Π_{j∈S} u_j)^t,  E_2 = ĝ^t
//!            K = Y^{s_2}
//! Decrypt i: A_1 = Π_{k=1..5} e(C_k, D_k),  A_2 = e(C_6, D_6)·e(C_7, D_7),
//!            A_4 = e(E_1, D_7) / e(E_2, Π_{j∈S} K_j),   K = A_1 / (A_2 · A_4)
//! ```
//! A_1/A_2 = e(g,ĝ)^{α a_1 b s_2}·e(g,w)^{r_1 t} exactly as in the IBE, and
//! A_4 = e(g,w)^{r_1 t} because Π_{j∈S}K_j = (Π_{j∈S}u_j)^{r_1} w^{−r_1} needs
//! K_i, i.e. i ∈ S. Since C_7 and E_1 are both paired with D_7, the nine
//! pairings are evaluated as **eight** pairs of one shared multi-Miller loop:
//! e(−(C_7·E_1), D_7) replaces e(C_7,D_7)^{-1}·e(E_1,D_7)^{-1}.
//!
//! The master key holds the discrete logarithms of v, v_1, v_2, w (and a
//! seed for those of the u_j, ρ_j = PRF_seed(j)), so every key element is
//! one fixed-base exponentiation of g or ĝ: the keys have the paper's
//! distribution; only the authority (trusted with α) knows these logs.
//!
//! ## Type-III placement
//! chhatrapati22 places C_1..C_5 and E_2 in G2 (six G2 exponentiations per
//! encryption) and D_1..D_5 in G1. We swap the first five pairs: **D_1..D_7
//! are in G2**, all key-side, so their Miller-loop lines are computed once
//! per key and cached; **C_1..C_7, E_1 are in G1** (cheap to compute and
//! 32 bytes each on BN254). The only header element in G2 is E_2 = ĝ^t,
//! paired with Π K_j, which must stay in G1 because decryption multiplies
//! |S| of the K_j (G1 additions are ~3× cheaper than G2's). Per decryption:
//! one G2 line computation (E_2), eight pairs in one Miller loop, one final
//! exponentiation, |S| G1 additions.
//! The ciphertext is 8 G1 + 1 G2 (the paper's: 6 G2 + 3 G1 + a GT C_0;
//! KEM form needs no C_0).
//!
//! ## Side channels
//! Key randomness and s1, s2, t meet points only in fixed-base tables,
//! [`Group::mul_secret`] (C7 = (Π u_j)^t) and GT powers, constant time on
//! every curve; the sums over S use public indices only, and the key's
//! K_j are summed in constant-time mixed additions (`sum_secret_points`).
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default):
//! c_1..C_5 move to G2 and D_1..D_5 to G1, under the DLIN and DBDH assumptions
//! with the source groups exchanged ([`crate::curve::swapped`]).

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
pub struct Waters09<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Waters09;
const PRF_TAG: &[u8] = b"waters09/u";
/// Fixed public-key G1 elements: g^b, g^{a1}, g^{a2}, g^{ba1}, g^{ba2}, τ1,
/// τ2, τ1^b, τ2^b, w.
const FIXED: usize = 10;
const GB: usize = 0;
const GA1: usize = 1;
const GA2: usize = 2;
const GBA1: usize = 3;
const GBA2: usize = 4;
const TAU1: usize = 5;
const TAU2: usize = 6;
const TAU1B: usize = 7;
const TAU2B: usize = 8;
const W: usize = 9;

struct Tables<C: Curve> {
    fixed: Vec<FixedBaseTable<C::G1>>,
    g2: FixedBaseTable<C::G2>,
}

object! {
    /// The public key (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        fixed: [C::G1; FIXED] => "g^b, g^{a_1}, g^{a_2}, g^{b·a_1}, g^{b·a_2}, τ_1, τ_2, τ_1^b, τ_2^b, w",
        y: C::Gt => "Y = e(g,ĝ)^{α·a_1·b}",
        u: Arc<Points<C, C::G1>> => "u_1..u_N" in n,
    }
    cached { tables: Lazy<Tables<C>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            fixed: self.fixed.iter().map(|p| p.precompute()).collect(),
            g2: C::G2::generator().precompute(),
        })
    }
}

object! {
    /// Master secrets: α, a_1, a_2, b, the logs x, x_1, x_2, y of v, v_1,
    /// v_2, w, and the seed of the u_j's logs; wiped on drop (checked
    /// against the setup id at key generation).
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        s: Secret<[C::Scalar; 8]> => "α, a_1, a_2, b, x, x_1, x_2, y",
        seed: Secret<[u8; 32]> => "seed of the ρ_j",
    }
}

impl<C: Curve> MasterKey<C> {
    fn rho(&self, j: u32) -> C::Scalar {
        prf_scalar(PRF_TAG, &self.seed, j)
    }
    /// Recomputes the public key.
    pub fn public_key(&self) -> PublicKey<C> {
        let [alpha, a1, a2, b, x, x1, x2, y] = *self.s;
        let g1 = C::G1::generator().precompute();
        let tau1 = x + x1 * a1;
        let tau2 = x + x2 * a2;
        let exps = [b, a1, a2, b * a1, b * a2, tau1, tau2, tau1 * b, tau2 * b, y];
        let fixed = exps.map(|e| C::G1::mul_fixed(&g1, &e));
        let n = self.n.get() as usize;
        let mut u = Vec::with_capacity(n);
        for j0 in (1..=n).step_by(CHUNK) {
            let rhos: Vec<C::Scalar> = (j0..(j0 + CHUNK).min(n + 1))
                .map(|j| self.rho(j as u32))
                .collect();
            u.extend(fixed_base_affine::<C, C::G1>(&g1, &rhos));
        }
        let yk = C::pairing(&C::G1::generator(), &C::G2::generator()).pow(&(alpha * a1 * b));
        PublicKey {
            n: self.n,
            fixed,
            y: yk,
            u: Arc::new(Points::new(u)),
            tables: Lazy::default(),
            id: OnceLock::new(),
        }
    }
}

object! {
    /// A user key: D_1..D_7 ∈ G2 (lines cached) and K_1..K_N ∈ G1; wiped
    /// on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index i",
        dd: Secret<[LinedG2<C>; 7]> => "D_1..D_7",
        k: Secret<Points<C, C::G1>> => "K_1..K_N" in n,
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
    /// The header: C_1..C_7, E_1 ∈ G1, E_2 ∈ G2, with S.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        c: [C::G1; 8] => "C_1..C_7, E_1",
        e2: C::G2 => "E_2",
    }
    made_for Recipients = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
}

impl<C: Curve> Waters09<C> {
    /// The pairs of decryption's shared Miller loop (for benchmarks of the
    /// lower bound); `None` when the user is not in S.
    pub fn decapsulate_gt(key: &UserKey<C>, header: &Header<C>) -> Result<C::Gt, KemError> {
        if header.setup_id != key.setup_id || header.n != key.n {
            return Err(KemError::WrongSetup);
        }
        if !header.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let ks =
            super::sum_secret_points::<C::G1>(header.set.iter().map(|j| key.k[j as usize - 1]))
                .unwrap_or_else(C::G1::identity);
        let l: Vec<&C::G2Prepared> = key.dd.iter().map(LinedG2::lines).collect();
        let c = &header.c;
        let e2_lines = C::prepare(&header.e2);
        let terms = [
            (c[0], l[0]),
            (c[1], l[1]),
            (c[2], l[2]),
            (c[3], l[3]),
            (c[4], l[4]),
            (-c[5], l[5]),
            (-(c[6] + c[7]), l[6]),
            (ks, &e2_lines),
        ];
        Ok(C::multi_pairing(&terms))
    }
}

impl<C: Curve> Authority for Waters09<C> {
    crate::kem::authority_objects!(Users, UserIndex);

    /// Setup for N users (indices 1..=N).
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mut mk = MasterKey {
            setup_id: [0; 16],
            n: UserCount::new(users.0)?,
            s: Secret([C::Scalar::zero(); 8]),
            seed: Secret([0u8; 32]),
        };
        for x in mk.s.iter_mut() {
            *x = C::Scalar::random(rng);
        }
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
        let [alpha, a1, _a2, b, x, x1, x2, y] = *mk.s;
        let r1 = C::Scalar::random(rng);
        let r2 = C::Scalar::random(rng);
        let z1 = C::Scalar::random(rng);
        let z2 = C::Scalar::random(rng);
        let r = r1 + r2;
        let mut exps = [
            alpha * a1 + x * r,
            -alpha + x1 * r + z1,
            -(b * z1),
            x2 * r + z2,
            -(b * z2),
            b * r2,
            r1,
        ];
        let t = pk.tables();
        let dd = exps.map(|e| LinedG2::new(C::G2::mul_fixed(&t.g2, &e)));
        for e in exps.iter_mut() {
            wipe(e, C::Scalar::zero());
        }
        let g1 = C::G1::generator().precompute();
        let n = mk.n.get() as usize;
        let mut k = Vec::with_capacity(n);
        for j0 in (1..=n).step_by(CHUNK) {
            let mut es: Vec<C::Scalar> = (j0..(j0 + CHUNK).min(n + 1))
                .map(|j| {
                    let rho = mk.rho(j as u32);
                    if j as u32 == user.0 {
                        (rho - y) * r1
                    } else {
                        rho * r1
                    }
                })
                .collect();
            k.extend(fixed_base_affine::<C, C::G1>(&g1, &es));
            for e in es.iter_mut() {
                wipe(e, C::Scalar::zero());
            }
        }
        for mut s in [r1, r2, z1, z2, r] {
            wipe(&mut s, C::Scalar::zero());
        }
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            dd: Secret(dd),
            k: Secret(Points::new(k)),
        })
    }
}

impl<C: Curve> Kem for Waters09<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Recipients; the issued key decrypts);

    super::unattached_keys!(UserKey<C>, PublicKey<C>);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.users())?;
        let s1 = C::Scalar::random(rng);
        let s2 = C::Scalar::random(rng);
        let t = C::Scalar::random(rng);
        let tb = pk.tables();
        let f = |k: usize, s: &C::Scalar| C::G1::mul_fixed(&tb.fixed[k], s);
        let u_s = sum_points::<C::G1>(set.iter().map(|j| pk.u[j as usize - 1]))
            .unwrap_or_else(C::G1::identity);
        let c = [
            f(GB, &(s1 + s2)),
            f(GBA1, &s1),
            f(GA1, &s1),
            f(GBA2, &s2),
            f(GA2, &s2),
            f(TAU1, &s1) + f(TAU2, &s2),
            f(TAU1B, &s1) + f(TAU2B, &s2) + f(W, &(-t)),
            u_s.mul_secret(&t),
        ];
        let e2 = C::G2::mul_fixed(&tb.g2, &t);
        let key = SessionKey::from_gt(&pk.y.pow(&s2), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.n,
                set: set.clone(),
                c,
                e2,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let k = Self::decapsulate_gt(key, header)?;
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Retarget};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Side;

    type W9 = Waters09<Bls12>;

    conformance::tests!(Waters09: conformance::broadcast_case(); random_recipients, forged_recipients);
    conformance::retarget!(Waters09<C>, set);

    #[test]
    fn sizes() {
        // Table 2: ciphertext O(λ), private key O(λ·N), public key O(λ·N)
        // (bodies: after the preamble, setup id, N, i and S).
        let mut r = rng(8);
        let (pk, mk) = Waters09::<Bn254>::setup(&Users(100), &mut r).unwrap();
        let set = Recipients::parse("1-10").unwrap();
        let (_, h) = Waters09::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        let key = Waters09::<Bn254>::keygen(&pk, &mk, &UserIndex(7), &mut r).unwrap();
        assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(), 320);
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 7 * 64 + 3200);
        assert_eq!(pk.to_bytes().len() - 8 - 4, 320 + 3200 + 384);
    }

    #[test]
    fn merged_keys_and_replayed_headers_fail() {
        let mut r = rng(3);
        let (pk, mk) = W9::setup(&Users(8), &mut r).unwrap();
        let (key, header) =
            W9::encapsulate(&pk, &Recipients::parse("1-3").unwrap(), &mut r).unwrap();
        let out = W9::keygen(&pk, &mk, &UserIndex(4), &mut r).unwrap();
        let forged = W9::retarget(&header, Recipients::parse("1-4").unwrap());
        let inside = W9::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap();
        assert_ne!(W9::decapsulate(&inside, &forged).unwrap(), key);
        // Collusion of two outsiders 4 and 5: user 4's key with user 5's
        // K_j for j ∈ S is still a key of an outsider.
        let (key2, header2) =
            W9::encapsulate(&pk, &Recipients::parse("1-3").unwrap(), &mut r).unwrap();
        let other = W9::keygen(&pk, &mk, &UserIndex(5), &mut r).unwrap();
        let mut k = out.k.0.clone();
        k.0[..3].copy_from_slice(&other.k[..3]);
        let merged = UserKey::<Bls12> {
            setup_id: out.setup_id,
            n: out.n,
            i: 2,
            dd: out.dd,
            k: Secret(k),
        };
        assert_ne!(W9::decapsulate(&merged, &header2).unwrap(), key2);
    }

    #[test]
    fn op_counts_match_table_9() {
        type CW = Waters09<Counted<Bls12>>;
        let mut r = rng(5);
        let n = 16u64;
        let ((pk, mk), setup) = OpCounts::measure(|| CW::setup(&Users(n as u32), &mut r).unwrap());
        assert_eq!(setup.g1_fixed_exp, n + 10);
        assert_eq!(
            (setup.miller_loops, setup.final_exps, setup.gt_exp),
            (1, 1, 1)
        );
        let (key, kg) = OpCounts::measure(|| CW::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap());
        assert_eq!((kg.g1_fixed_exp, kg.g2_fixed_exp), (n, 7));
        assert_eq!(kg.g1_exp + kg.g2_exp, 0);
        let (_, h) = CW::encapsulate(&pk, &Recipients::range(1, 2).unwrap(), &mut r).unwrap();
        let (_, first) = OpCounts::measure(|| CW::decapsulate(&key, &h).unwrap());
        assert_eq!(
            first.g2_prepared, 8,
            "D_1..D_7 once per key, E_2 per header"
        );
        for s in [1u64, 2, 16] {
            let set = Recipients::range(1, s as u32).unwrap();
            let ((_, h), enc) = OpCounts::measure(|| CW::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_add, s + 2, "λ1·(|S|+2)");
            assert_eq!((enc.g1_fixed_exp, enc.g1_exp, enc.g2_fixed_exp), (10, 1, 1));
            let (_, dec) = OpCounts::measure(|| CW::decapsulate(&key, &h).unwrap());
            assert_eq!(dec.g1_add, s, "λ1·(|S|−1) + C_7·E_1");
            assert_eq!(
                (dec.miller_loops, dec.final_exps),
                (8, 1),
                "9 pairings as 8 pairs"
            );
            assert_eq!(dec.g2_prepared, 1, "only E_2's lines per header");
        }
    }
}
