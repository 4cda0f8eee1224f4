//! Zhandry's "MTB" broadcast with hidden attributes — the engine of both
//! Zhandry schemes ([`super::zha20_risky`], [`super::zha20`]) — for one
//! identity per key (u = t = 1) and 2-bit attributes (n = 2), in Type-III
//! dual bases of dimension 4.
//!
//! Paper: M. Zhandry, "New Techniques for Traitor Tracing: Size N^{1/3} and
//! More from Pairings", CRYPTO 2020, §9.2 (ePrint 2020/954), with the
//! correction the chhatrapati22 authors found and the author adopted (the
//! draft's decryption did not cancel): P = [γ·e_0], h = [((β−τ)/γ)·e_0],
//! c1 = [αγ·e_0]. Checked against `MTBRevised.java` / `NonriskyMTBRevised.java`
//! (ArushC/broadcast; notes in docs/sources/broadcast-ii/zha20-risky.md).
//!
//! Notation: B ←R GL_4(Z_p), B* = (B^{-1})^T; \[a\]_2 = ĝ^{B a} ∈ G2⁴ and
//! \[b\]_1 = g^{B* b} ∈ G1⁴, so e(\[a\]_2, \[b\]_1) := Π_k e(·_k, ·_k) = e(g,ĝ)^{⟨a,b⟩}.
//! e_0 = (1,0,0,0). Identities are nonzero s ∈ Z_p; for a set S of them
//! P_S(x) = Π_{s∈S} (1 − x/s), so P_S(0) = 1.
//!
//! ```text
//! Gen(v):   β, γ, τ ←R Z_p;  PK = (Y = e(g,ĝ)^β, P = [γ e_0]_2, Π_i = [γ^i e_0]_1 (i = 0..v),
//!                                 h = [((β−τ)/γ) e_0]_1, J_i = [τγ^i e_0]_1 (i = 0..v))
//! Extract(ID, x ∈ {0,1}²):  d_1, d_2, η ←R Z_p;  sk = [(τ/P_{ID}(γ), d_1 x_1, d_2 x_2, η)]_2
//! Enc(S):   α ←R Z_p;  c1 = P^α = [αγ e_0]_2,  c2 = (Π_i Π_i^{σ_i})^α = [α P_S(γ) e_0]_1;  K = Y^α
//! TrEnc(S, y ∈ {0,1}²):  as Enc, with c2 · [(0, e_1 y_1, e_2 y_2, 0)]_1, e_1, e_2 ←R Z_p (needs B*)
//! Dec(sk, ID ∈ S):  Q = P_{S∖ID},  Pp = (1 − Q)/x,  K = e(c1, h · Π_i J_i^{pp_i}) · e(sk, c2)
//! ```
//! ⟨αγe_0, ((β−τ)/γ + τPp(γ)) e_0⟩ = α(β−τ) + ατ(1 − Q(γ)) and
//! ⟨sk, c2⟩ = ατP_S(γ)/P_ID(γ) = ατQ(γ): the sum is αβ. A tracing
//! ciphertext adds d_1 e_1 x_1 y_1 + d_2 e_2 x_2 y_2, so a key decrypts it
//! exactly when x_k y_k = 0 for both k (w.h.p.): "mixed bit matching". Public
//! encryption (y = 0) ignores the attributes.
//!
//! ## Type-III placement
//! The powers Π_i, J_i, h and c2 — what encryption and decryption sum,
//! |S|-term MSMs — in **G1**; P, c1 and the keys in **G2** (the authors'
//! `MTBRevised` placement), so a key's lines are cached and a ciphertext
//! costs 4 G2 preparations. Decryption is one Miller loop of 8 pairs.

use super::poly;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::KemError;
use crate::wire::codec::{invalid, object};
use crate::wire::{Lazy, Secret, WireError};
use rand_core::{CryptoRng, RngCore};

/// A 4×4 matrix over Z_p, row-major.
pub(crate) type Mat4<S> = [[S; 4]; 4];

/// The secrets of a setup: β, γ, τ and the basis B (B* is derived).
#[derive(Clone, Copy)]
pub(crate) struct Secrets<S: Scalar> {
    pub beta: S,
    pub gamma: S,
    pub tau: S,
    pub b: Mat4<S>,
}

impl<S: Scalar> Secrets<S> {
    /// Fresh secrets, B invertible.
    pub fn random<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        let (beta, gamma, tau) = (S::random(rng), S::random(rng), S::random(rng));
        loop {
            let b = [(); 4].map(|_| [(); 4].map(|_| S::random(rng)));
            if inverse(&b).is_some() && !gamma.is_zero() {
                return Secrets {
                    beta,
                    gamma,
                    tau,
                    b,
                };
            }
        }
    }
    /// B* = (B^{-1})^T; `None` for a singular B (refused when decoding).
    pub fn b_star(&self) -> Option<Mat4<S>> {
        let inv = inverse(&self.b)?;
        Some(core::array::from_fn(|i| {
            core::array::from_fn(|j| inv[j][i])
        }))
    }
    pub fn wipe(&mut self) {
        for s in [&mut self.beta, &mut self.gamma, &mut self.tau]
            .into_iter()
            .chain(self.b.iter_mut().flatten())
        {
            wipe(s, S::zero());
        }
    }
}

object! {
    /// The master secrets of an MTB tracing setup (Zha20, Zha20-risky): β,
    /// γ, τ and the basis B, with fixed-base tables of g and ĝ; wiped on
    /// drop. Checked with `MasterSecrets::check` by the master key that
    /// holds them.
    pub struct MasterSecrets<C> = body {
        s: Secret<[C::Scalar; 3]> => "β, γ, τ",
        b: Secret<[C::Scalar; 16]> => "B (row-major)",
    }
    cached { tables: Lazy<(FixedBaseTable<C::G1>, FixedBaseTable<C::G2>)> }
}

impl<C: Curve> MasterSecrets<C> {
    /// Fresh secrets, B invertible.
    pub(crate) fn random<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        let mut sec = Secrets::random(rng);
        let secrets = MasterSecrets {
            s: Secret([sec.beta, sec.gamma, sec.tau]),
            b: Secret(core::array::from_fn(|k| sec.b[k / 4][k % 4])),
            tables: Lazy::default(),
        };
        sec.wipe();
        secrets
    }
    /// γ ≠ 0 and B invertible: what every decoded master key is checked for.
    pub(crate) fn check(&self) -> Result<(), WireError> {
        match self.b_star() {
            Some(mut b) if !self.s[1].is_zero() => {
                b.iter_mut()
                    .flatten()
                    .for_each(|s| wipe(s, C::Scalar::zero()));
                Ok(())
            }
            _ => Err(invalid("master key", "γ = 0 or B singular")),
        }
    }
    /// The secrets (the caller wipes them).
    pub(crate) fn secrets(&self) -> Secrets<C::Scalar> {
        let [beta, gamma, tau] = *self.s;
        Secrets {
            beta,
            gamma,
            tau,
            b: core::array::from_fn(|i| core::array::from_fn(|j| self.b[4 * i + j])),
        }
    }
    /// B* = (B^{-1})^T (the caller wipes it).
    pub(crate) fn b_star(&self) -> Option<Mat4<C::Scalar>> {
        let mut s = self.secrets();
        let b = s.b_star();
        s.wipe();
        b
    }
    /// Tables of g and ĝ.
    pub(crate) fn tables(&self) -> &(FixedBaseTable<C::G1>, FixedBaseTable<C::G2>) {
        self.tables.get_or_init(|| {
            (
                C::G1::generator().precompute(),
                C::G2::generator().precompute(),
            )
        })
    }
}

/// The hidden position i*_J ∈ [1, size] of instance J (instance 1 for
/// the risky scheme, which has one): SHA-256 of the seed
/// and J, reduced (bias < size/2^64).
pub(crate) fn hidden_position(seed: &[u8; 32], instance: u32, size: u32) -> u32 {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"abbe/v1/zha20/i-star");
    h.update(seed);
    h.update(instance.to_be_bytes());
    let d = h.finalize();
    let mut w = [0u8; 8];
    w.copy_from_slice(&d[..8]);
    1 + (u64::from_be_bytes(w) % size as u64) as u32
}

/// The attributes of position i of an instance with hidden position i*.
pub(crate) fn attributes(i: u32, star: u32) -> [bool; 2] {
    match i.cmp(&star) {
        core::cmp::Ordering::Less => [true, true],
        core::cmp::Ordering::Equal => [true, false],
        core::cmp::Ordering::Greater => [false, false],
    }
}

/// M·v.
fn apply<S: Scalar>(m: &Mat4<S>, v: &[S; 4]) -> [S; 4] {
    core::array::from_fn(|i| (0..4).fold(S::zero(), |acc, k| acc + m[i][k] * v[k]))
}

/// The inverse by Gauss–Jordan elimination, `None` if singular. B is
/// secret: the branches on zero entries are taken by a uniformly random
/// matrix with probability ~16/r, and the pivots are inverted in constant
/// time ([`Scalar::invert`]).
pub(crate) fn inverse<S: Scalar>(m: &Mat4<S>) -> Option<Mat4<S>> {
    let mut a = *m;
    let mut inv: Mat4<S> = core::array::from_fn(|i| {
        core::array::from_fn(|j| if i == j { S::one() } else { S::zero() })
    });
    for col in 0..4 {
        let pivot = (col..4).find(|&r| !a[r][col].is_zero())?;
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col].invert()?;
        for k in 0..4 {
            a[col][k] *= p;
            inv[col][k] *= p;
        }
        for r in 0..4 {
            if r != col && !a[r][col].is_zero() {
                let f = a[r][col];
                for k in 0..4 {
                    let (ack, ick) = (a[col][k], inv[col][k]);
                    a[r][k] -= f * ack;
                    inv[r][k] -= f * ick;
                }
            }
        }
    }
    Some(inv)
}

/// The public part of a setup: Y, P ∈ G2⁴, and in G1⁴ the powers
/// Π_0..Π_v, h and J_0..J_v (each 4-vector as 4 consecutive points).
pub(crate) struct Public<P, C: Curve> {
    pub y: C::Gt,
    pub p: [C::G2; 4],
    pub pi: P,
    pub h: [C::G1; 4],
    pub j: P,
}

/// What a scheme's public key lends the MTB algorithms.
pub(crate) type PublicRef<'a, C> = Public<&'a [<<C as Curve>::G1 as Group>::Affine], C>;
/// What Gen makes.
pub(crate) type Generated<C> = Public<Vec<<<C as Curve>::G1 as Group>::Affine>, C>;

/// Gen(v).
pub(crate) fn public<C: Curve>(sec: &Secrets<C::Scalar>, v: u32) -> Result<Generated<C>, KemError> {
    let bs = sec
        .b_star()
        .ok_or_else(|| KemError::Invalid("singular basis".into()))?;
    let b0: [C::Scalar; 4] = apply(&sec.b, &e0());
    let bs0: [C::Scalar; 4] = apply(&bs, &e0());
    let g1 = C::G1::generator().precompute();
    let g2 = C::G2::generator().precompute();
    let gamma_inv = sec
        .gamma
        .invert()
        .ok_or_else(|| KemError::Invalid("γ = 0".into()))?;
    let mut pows = super::ibbe::powers(sec.gamma, v as usize);
    let mut exps: Vec<C::Scalar> = pows
        .iter()
        .flat_map(|g| bs0.map(|c| *g * c))
        .chain(pows.iter().flat_map(|g| bs0.map(|c| sec.tau * *g * c)))
        .collect();
    let all = super::fixed_base_affine::<C, C::G1>(&g1, &exps);
    let (pi, j) = all.split_at(4 * (v as usize + 1));
    let mut hx = (sec.beta - sec.tau) * gamma_inv;
    let h = bs0.map(|c| C::G1::mul_fixed(&g1, &(hx * c)));
    let p = b0.map(|c| C::G2::mul_fixed(&g2, &(sec.gamma * c)));
    let y = C::pairing(&C::G1::generator(), &C::G2::generator()).pow(&sec.beta);
    wipe(&mut hx, C::Scalar::zero());
    pows.iter_mut()
        .chain(exps.iter_mut())
        .for_each(|s| wipe(s, C::Scalar::zero()));
    Ok(Public {
        y,
        p,
        pi: pi.to_vec(),
        h,
        j: j.to_vec(),
    })
}

/// Whether Y and P are those Gen makes from `sec` (a pairing, a GT and
/// four G2 exponentiations): binds a master key to a public key beyond the
/// setup id both carry. `sec` is wiped.
pub(crate) fn binds<C: Curve>(mut sec: Secrets<C::Scalar>, y: &C::Gt, p: &[C::G2; 4]) -> bool {
    let g2 = C::G2::generator();
    let mut b0: [C::Scalar; 4] = apply(&sec.b, &e0());
    let same = *y == C::pairing(&C::G1::generator(), &g2).pow(&sec.beta)
        && p.iter()
            .zip(&b0)
            .all(|(p, c)| *p == g2.mul_secret(&(sec.gamma * *c)));
    b0.iter_mut().for_each(|s| wipe(s, C::Scalar::zero()));
    sec.wipe();
    same
}

fn e0<S: Scalar>() -> [S; 4] {
    [S::one(), S::zero(), S::zero(), S::zero()]
}

/// Extract({ID}, x): sk = [(τ/P_ID(γ), d_1 x_1, d_2 x_2, η)]_2.
pub(crate) fn extract<C: Curve, R: RngCore + CryptoRng>(
    sec: &Secrets<C::Scalar>,
    g2: &FixedBaseTable<C::G2>,
    id: C::Scalar,
    x: [bool; 2],
    rng: &mut R,
) -> Result<[C::G2; 4], KemError> {
    let id_inv = id
        .invert()
        .ok_or_else(|| KemError::Invalid("identity 0".into()))?;
    let mut p_id = C::Scalar::one() - sec.gamma * id_inv;
    let mut first = sec.tau
        * p_id
            .invert()
            .ok_or_else(|| KemError::Invalid("P_ID(γ) = 0 (probability 1/r)".into()))?;
    let mut v = [
        first,
        C::Scalar::random(rng) * bit::<C::Scalar>(x[0]),
        C::Scalar::random(rng) * bit::<C::Scalar>(x[1]),
        C::Scalar::random(rng),
    ];
    let mut w = apply(&sec.b, &v);
    let sk = w.map(|c| C::G2::mul_fixed(g2, &c));
    v.iter_mut()
        .chain(w.iter_mut())
        .chain([&mut p_id, &mut first])
        .for_each(|s| wipe(s, C::Scalar::zero()));
    Ok(sk)
}

/// P_S(x) = Π_{s∈S}(1 − x/s): the monic product scaled by Π(−1/s).
pub(crate) fn set_poly<S: Scalar>(ids: &[S]) -> Result<Vec<S>, KemError> {
    // Π(−1/s) = 1/Π(−s): one inversion.
    let scale = ids
        .iter()
        .fold(S::one(), |acc, s| acc * -*s)
        .invert()
        .ok_or_else(|| KemError::Invalid("identity 0".into()))?;
    Ok(poly::from_roots(ids)
        .into_iter()
        .map(|c| c * scale)
        .collect())
}

/// What TrEnc needs besides the public key: B*, a table of g, and y.
pub(crate) type Tracing<'a, C> = (
    &'a Mat4<<C as Curve>::Scalar>,
    &'a FixedBaseTable<<C as Curve>::G1>,
    [bool; 2],
);

/// A ciphertext: c1 ∈ G2⁴, c2 ∈ G1⁴.
pub(crate) struct Ciphertext<C: Curve> {
    pub c1: [C::G2; 4],
    pub c2: [C::G1; 4],
}

/// Enc(S) (`trace` = None) or TrEnc(S, y) with the basis B*: (K, c1, c2).
pub(crate) fn encrypt<C: Curve, R: RngCore + CryptoRng>(
    pk: &PublicRef<'_, C>,
    ids: &[C::Scalar],
    trace: Option<Tracing<'_, C>>,
    rng: &mut R,
) -> Result<(C::Gt, Ciphertext<C>), KemError> {
    let sigma = set_poly(ids)?;
    if sigma.len() * 4 > pk.pi.len() {
        return Err(KemError::Invalid(format!(
            "{} recipients in a block of at most {}",
            ids.len(),
            pk.pi.len() / 4 - 1
        )));
    }
    let mut alpha = C::Scalar::random(rng);
    let ks = [0usize, 1, 2, 3];
    let sums = par_map::<C, _, _>(&ks, |&k| {
        let pts: Vec<C::G1> = (0..sigma.len())
            .map(|i| C::G1::from_affine(&pk.pi[4 * i + k]))
            .collect();
        C::G1::msm(&pts, &sigma)
    });
    let mut c2 = [0, 1, 2, 3].map(|k| sums[k].mul_secret(&alpha));
    if let Some((bs, g1, y)) = trace {
        let mut v = [
            C::Scalar::zero(),
            C::Scalar::random(rng) * bit::<C::Scalar>(y[0]),
            C::Scalar::random(rng) * bit::<C::Scalar>(y[1]),
            C::Scalar::zero(),
        ];
        let mut w = apply(bs, &v);
        for k in 0..4 {
            c2[k] += C::G1::mul_fixed(g1, &w[k]);
        }
        v.iter_mut()
            .chain(w.iter_mut())
            .for_each(|s| wipe(s, C::Scalar::zero()));
    }
    let c1 = pk.p.map(|p| p.mul_secret(&alpha));
    let k = pk.y.pow(&alpha);
    wipe(&mut alpha, C::Scalar::zero());
    Ok((k, Ciphertext { c1, c2 }))
}

/// Dec: K = e(c1, h · Π_i J_i^{pp_i}) · e(sk, c2), with `others` = S∖{ID}.
pub(crate) fn decrypt<C: Curve>(
    pk: &PublicRef<'_, C>,
    sk_lines: &[&C::G2Prepared; 4],
    others: &[C::Scalar],
    ct: &Ciphertext<C>,
) -> Result<C::Gt, KemError> {
    // The block must fit the setup before its polynomial is expanded.
    if others.len() * 4 > pk.j.len() {
        return Err(KemError::Invalid("a block larger than the setup's".into()));
    }
    // Pp = (1 − Q)/x: Q's coefficients from x^1 on, negated.
    let q = set_poly(others)?;
    let pp: Vec<C::Scalar> = q[1..].iter().map(|c| -*c).collect();
    let ks = [0usize, 1, 2, 3];
    let hj = par_map::<C, _, _>(&ks, |&k| {
        let pts: Vec<C::G1> = (0..pp.len())
            .map(|i| C::G1::from_affine(&pk.j[4 * i + k]))
            .collect();
        pk.h[k] + C::G1::msm(&pts, &pp)
    });
    let c1_lines: Vec<C::G2Prepared> = ct.c1.iter().map(C::prepare).collect();
    let terms: Vec<(C::G1, &C::G2Prepared)> = (0..4)
        .map(|k| (hj[k], &c1_lines[k]))
        .chain((0..4).map(|k| (ct.c2[k], sk_lines[k])))
        .collect();
    Ok(C::multi_pairing(&terms))
}

/// 1 or 0 as a scalar, without a branch on `b` (a hidden attribute bit).
fn bit<S: Scalar>(b: bool) -> S {
    S::from_u64(u64::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::rng;
    use crate::curve::{Bls12, LinedG2};

    type C = Bls12;
    type F = <Bls12 as Curve>::Scalar;

    #[test]
    fn dual_bases_pair_to_the_inner_product() {
        let mut r = rng(1);
        let sec = Secrets::<F>::random(&mut r);
        let bs = sec.b_star().unwrap();
        let a = [(); 4].map(|_| F::random(&mut r));
        let b = [(); 4].map(|_| F::random(&mut r));
        let (ba, bb) = (apply(&sec.b, &a), apply(&bs, &b));
        let ip = (0..4).fold(F::zero(), |acc, k| acc + a[k] * b[k]);
        assert_eq!((0..4).fold(F::zero(), |acc, k| acc + ba[k] * bb[k]), ip);
        let id = inverse(&inverse(&sec.b).unwrap()).unwrap();
        assert_eq!(id, sec.b);
        let singular = [[F::one(); 4]; 4];
        assert!(inverse(&singular).is_none());
    }

    /// Public ciphertexts reach every member whatever its attributes;
    /// tracing ciphertexts with y reach the members with x_k y_k = 0.
    #[test]
    fn mixed_bit_matching() {
        let mut r = rng(2);
        let sec = Secrets::<F>::random(&mut r);
        let gen = public::<C>(&sec, 6).unwrap();
        let pk = PublicRef::<C> {
            y: gen.y,
            p: gen.p,
            pi: &gen.pi,
            h: gen.h,
            j: &gen.j,
        };
        let g1 = <C as Curve>::G1::generator().precompute();
        let g2 = <C as Curve>::G2::generator().precompute();
        let bs = sec.b_star().unwrap();
        let ids: Vec<F> = [3u64, 5, 8, 13].iter().map(|&i| F::from_u64(i)).collect();
        let bits = [[false, false], [true, false], [false, true], [true, true]];
        for x in bits {
            let sk = extract::<C, _>(&sec, &g2, ids[1], x, &mut r).unwrap();
            let lined = sk.map(LinedG2::<C>::new);
            let lines = [0, 1, 2, 3].map(|k| lined[k].lines());
            let others: Vec<F> = ids.iter().copied().filter(|s| *s != ids[1]).collect();
            for y in [None].into_iter().chain(bits.map(Some)) {
                let (k, ct) = encrypt::<C, _>(&pk, &ids, y.map(|y| (&bs, &g1, y)), &mut r).unwrap();
                let got = decrypt::<C>(&pk, &lines, &others, &ct).unwrap();
                let want = y.is_none_or(|y| !(x[0] && y[0] || x[1] && y[1]));
                assert_eq!(got == k, want, "x {x:?}, y {y:?}");
            }
            // A non-member (ID 7 ∉ S) does not decrypt, whatever it claims.
            let out = extract::<C, _>(&sec, &g2, F::from_u64(7), x, &mut r).unwrap();
            let lined = out.map(LinedG2::<C>::new);
            let lines = [0, 1, 2, 3].map(|k| lined[k].lines());
            let (k, ct) = encrypt::<C, _>(&pk, &ids, None, &mut r).unwrap();
            assert_ne!(decrypt::<C>(&pk, &lines, &ids, &ct).unwrap(), k);
            assert_ne!(decrypt::<C>(&pk, &lines, &others, &ct).unwrap(), k);
        }
        let too_many: Vec<F> = (1..=7).map(F::from_u64).collect();
        assert!(encrypt::<C, _>(&pk, &too_many, None, &mut r).is_err());
    }
}
