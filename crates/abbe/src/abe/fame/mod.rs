//! FAME (Agrawal–Chase, "FAME: Fast Attribute-based Message Encryption",
//! ACM CCS 2017, ePrint 2017/807): what its CP-ABE ([`cp`], §4) and KP-ABE
//! ([`kp`], Appendix) share — setup, the public and master keys, the hash
//! H, the Type-III placement, key-element and decryption arithmetic. Each
//! scheme file holds its keys, headers and algorithms.
//!
//! ## Hash inputs
//! The paper writes H(y l t) and H(0 j l t) as concatenations. We encode
//! them unambiguously: `0x01 ‖ len(y) (u32 BE) ‖ y ‖ l ‖ t` for an attribute
//! and `0x00 ‖ j (u32 BE) ‖ l ‖ t` for MSP column j (1-based, as in the paper),
//! hashed with RFC 9380 hash-to-curve under the scheme's domain-separation
//! tag (`ABBE-V1-FAME-CP-H-<curve>`; FAME-KP has its own). The public key
//! caches the six hashes of each attribute and column, and an
//! encryption or key generation computes every hash it needs once: the
//! column hashes once per column, never per (row, column) pair — this is
//! where other implementations go quadratic in the policy size.
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! The paper already states FAME in asymmetric groups: G carries g, the hash
//! H and every per-attribute / per-row element (sk_{y,t}, sk'_t, ct_{i,l});
//! H carries only h, H_1, H_2 and the constant-size ct_0 and sk_0. We map
//! **G → G1 and H → G2**. All linear-size work (hashing, the per-row
//! exponentiations of encryption and key generation) and all linear-size
//! data are then in the smaller, faster group (on BLS12-381 a G1 element is
//! 48 bytes against 96; G1 exponentiations and hashes cost a fraction of
//! their G2 counterparts),
//! and the six decryption pairings pair an aggregate of G1 elements (A_l,
//! B_t) with one of six constant G2 elements. The key's sk_0 lines are
//! precomputed once per key ([`cp::UserKey`], [`kp::UserKey`] cache them); the ciphertext's
//! three ct_0 lines are computed at each decryption (a constant cost). The
//! mirrored placement would move every hash and every per-row element to G2
//! to save those three line computations.
//!
//! ## Side channels
//! Secret scalars (a, b, d, r, σ, s_1, s_2) go through fixed-base tables,
//! [`Group::mul_secret`] and [`Group::msm_secret`] (constant time on every
//! curve); the variable-time linear combinations take public scalars only:
//! the LSSS entries M_ij and the decryption coefficients γ_i.
//!
//!
//! ## The swapped placement
//! [`crate::curve::Swapped`] (`abbe setup --placement swapped`) exchanges G1
//! and G2: every hash and per-row element moves to G2 and the decryption
//! aggregates are paired on the ciphertext's lines, so the mirror is slower
//! at every operation (the lab's placement table); `--optimize` keeps the
//! standard placement. Security rests on the decisional linear assumption in
//! both source groups (the paper's), itself symmetric in G1 and G2 with the
//! two source groups exchanged, as plausible as the original on these curves
//! (no efficient isomorphism either way).

use crate::curve::{
    lincomb, lincomb_secret_points, wipe, Curve, FixedBaseTable, Group, Scalar, Target,
};
use crate::kem::{bind, KemError};
use crate::policy::{AccessTree, AttributeSet};
use crate::wire::codec::{nonzero, object, secrets_match};
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::attr_cache::AttrHashes;

pub mod cp;
pub mod kp;

pub use cp::FameCp;
pub use kp::FameKp;

pub use super::Variant;

/// FAME CP-ABE.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cp;
impl Variant for Cp {
    const SCHEME: SchemeId = SchemeId::FameCp;
    const TAG: &'static str = "FAME-CP";
}

/// FAME KP-ABE.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kp;
impl Variant for Kp {
    const SCHEME: SchemeId = SchemeId::FameKp;
    const TAG: &'static str = "FAME-KP";
}

/// Index of (l, t), l ∈ {1,2,3}, t ∈ {1,2}, in a `[_; 6]` of hashes.
#[inline]
pub(crate) fn lt(l: usize, t: usize) -> usize {
    (l - 1) * 2 + (t - 1)
}

/// H(m l t) for l ∈ {1,2,3}, t ∈ {1,2}, indexed by [`lt`] (uncached).
fn hashes6<C: Curve, V: Variant>(m: &[u8]) -> [C::G1; 6] {
    let dst = crate::abe::attr_cache::hash_tag(V::TAG, C::NAME);
    let mut out = [C::G1::identity(); 6];
    let mut msg = m.to_vec();
    for l in 1..=3u8 {
        for t in 1..=2u8 {
            msg.truncate(m.len());
            msg.extend_from_slice(&[l, t]);
            out[lt(l as usize, t as usize)] = C::G1::hash_to_curve(&msg, &dst);
        }
    }
    out
}

impl<C: Curve, V: Variant> FamePublicKey<C, V> {
    /// H(y l t) for attribute y, indexed by [`lt`]; cached by this key.
    pub(crate) fn attr_hashes(&self, y: &str) -> [C::G1; 6] {
        self.hashes.get_or_insert(&format!("a#{y}"), || {
            let mut m = Vec::with_capacity(y.len() + 5);
            m.push(1u8);
            m.extend_from_slice(&(y.len() as u32).to_be_bytes());
            m.extend_from_slice(y.as_bytes());
            hashes6::<C, V>(&m)
        })
    }

    /// H(0 j l t) for MSP column j (1-based, the paper's numbering), indexed
    /// by [`lt`]; cached like [`Self::attr_hashes`].
    pub(crate) fn column_hashes(&self, j: usize) -> [C::G1; 6] {
        self.hashes.get_or_insert(&format!("c#{j}"), || {
            let mut m = vec![0u8];
            m.extend_from_slice(&(j as u32).to_be_bytes());
            hashes6::<C, V>(&m)
        })
    }
}

/// The rows of the cheapest selection of `tree` that `set` satisfies,
/// gathered for [`decrypt6`]: their coefficients γ_i, the policy side's
/// three elements `by_row[i]` and the attribute side's `by_attr(leaf i)`.
/// CP reads the rows from the ciphertext and the attributes from the key,
/// KP the other way round.
#[allow(clippy::type_complexity)]
pub(super) fn gather<'a, C: Curve>(
    tree: &AccessTree,
    set: &AttributeSet,
    by_row: &[[C::G1; 3]],
    by_attr: impl Fn(&str) -> Option<&'a [C::G1; 3]>,
) -> Result<(Vec<C::Scalar>, [Vec<C::G1>; 3], [Vec<C::G1>; 3]), KemError> {
    let selection = tree
        .cheapest_satisfying(set)
        .ok_or(KemError::NotSatisfied)?;
    let omega = tree.reconstruction::<C::Scalar>(&selection)?;
    let leaves = tree.leaves();
    let gammas = omega.iter().map(|(_, w)| *w).collect();
    let mut from_rows: [Vec<C::G1>; 3] = Default::default();
    let mut from_attrs: [Vec<C::G1>; 3] = Default::default();
    let out_of_range = || KemError::Invalid("row index out of range".into());
    for (i, _) in &omega {
        let row = by_row.get(*i).ok_or_else(out_of_range)?;
        let attr = leaves.get(*i).ok_or_else(out_of_range)?;
        let elems = by_attr(attr.as_str()).ok_or(KemError::NotSatisfied)?;
        for k in 0..3 {
            from_rows[k].push(row[k]);
            from_attrs[k].push(elems[k]);
        }
    }
    Ok((gammas, from_rows, from_attrs))
}

/// The decryption equation shared by both variants, from the selected rows'
/// ciphertext elements `cts[l]`, key elements `sks[t]` and coefficients γ:
/// A_l = Σ γ_i·cts[l]_i, B_t = b0_t + Σ γ_i·sks[t]_i, then one multi-pairing
/// of six pairs, Π_t e(B_t, ct_{0,t}) · Π_l e(−A_l, sk_{0,l}).
///
/// With many rows the ciphertext-side sums run on one core while the other
/// computes the key-side sums and ct_0's lines.
pub(crate) fn decrypt6<C: Curve>(
    cts: &[Vec<C::G1>; 3],
    sks: &[Vec<C::G1>; 3],
    gammas: &[C::Scalar],
    b0: Option<&[C::G1; 3]>,
    ct0: &[C::G2; 3],
    sk0_lines: &[C::G2Prepared; 3],
) -> C::Gt {
    let a_side = || {
        [
            lincomb(&cts[0], gammas),
            lincomb(&cts[1], gammas),
            lincomb(&cts[2], gammas),
        ]
    };
    let b_side = || {
        let mut b = [
            lincomb_secret_points(&sks[0], gammas),
            lincomb_secret_points(&sks[1], gammas),
            lincomb_secret_points(&sks[2], gammas),
        ];
        if let Some(b0) = b0 {
            for (x, y) in b.iter_mut().zip(b0) {
                *x += *y;
            }
        }
        (b, prepare3::<C>(ct0))
    };
    let (a, (b, ct0_lines)) =
        if C::PARALLEL && gammas.len() >= 16 && rayon::current_num_threads() > 1 {
            rayon::join(a_side, b_side)
        } else {
            (a_side(), b_side())
        };
    let terms: [(C::G1, &C::G2Prepared); 6] = [
        (b[0], &ct0_lines[0]),
        (b[1], &ct0_lines[1]),
        (b[2], &ct0_lines[2]),
        (-a[0], &sk0_lines[0]),
        (-a[1], &sk0_lines[1]),
        (-a[2], &sk0_lines[2]),
    ];
    C::multi_pairing(&terms)
}

/// Fixed-base tables, built on first use.
pub(crate) struct Tables<C: Curve> {
    pub(crate) g: FixedBaseTable<C::G1>,
    pub(crate) h: FixedBaseTable<C::G2>,
    pub(crate) h1: FixedBaseTable<C::G2>,
    pub(crate) h2: FixedBaseTable<C::G2>,
}

object! {
    /// Public parameters (H_1, H_2, T_1, T_2); g ∈ G1 and h ∈ G2 are the
    /// fixed generators.
    #[derive(Clone)]
    pub struct FamePublicKey<C, V: Variant> = (PublicKey, V::SCHEME), identified {
        h1: C::G2 => "H_1",
        h2: C::G2 => "H_2",
        t1: C::Gt => "T_1",
        t2: C::Gt => "T_2",
    }
    cached { tables: Lazy<Tables<C>>, hashes: AttrHashes<[C::G1; 6]>, _v: PhantomData<V> }
}

impl<C: Curve, V: Variant> FamePublicKey<C, V> {
    fn new(h1: C::G2, h2: C::G2, t1: C::Gt, t2: C::Gt) -> Self {
        FamePublicKey {
            h1,
            h2,
            t1,
            t2,
            tables: Lazy::default(),
            hashes: AttrHashes::default(),
            id: OnceLock::new(),
            _v: PhantomData,
        }
    }

    /// H_1 = h^{a_1} ∈ G2.
    pub fn h1(&self) -> &C::G2 {
        &self.h1
    }
    /// H_2 = h^{a_2} ∈ G2.
    pub fn h2(&self) -> &C::G2 {
        &self.h2
    }
    /// T_1 = e(g,h)^{d_1 a_1 + d_3} ∈ GT.
    pub fn t1(&self) -> &C::Gt {
        &self.t1
    }
    /// T_2 = e(g,h)^{d_2 a_2 + d_3} ∈ GT.
    pub fn t2(&self) -> &C::Gt {
        &self.t2
    }

    pub(crate) fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            g: C::G1::generator().precompute(),
            h: C::G2::generator().precompute(),
            h1: self.h1.precompute(),
            h2: self.h2.precompute(),
        })
    }

    /// ct_0 = (H_1^{s_1}, H_2^{s_2}, h^{s_1+s_2}) and the encapsulated
    /// T_1^{s_1}·T_2^{s_2}.
    pub(crate) fn ct0_and_mask(&self, s1: &C::Scalar, s2: &C::Scalar) -> ([C::G2; 3], C::Gt) {
        let tb = self.tables();
        let ct0 = [
            C::G2::mul_fixed(&tb.h1, s1),
            C::G2::mul_fixed(&tb.h2, s2),
            C::G2::mul_fixed(&tb.h, &(*s1 + *s2)),
        ];
        (ct0, self.t1.pow(s1) * self.t2.pow(s2))
    }
}

object! {
    /// The master key (a_1, a_2, b_1, b_2, d_1, d_2, d_3); wiped on drop.
    pub struct FameMasterKey<C, V: Variant> = (MasterKey, V::SCHEME), bound {
        pub(crate) a: Secret<[C::Scalar; 2]> => "a_1, a_2",
        pub(crate) b: Secret<[C::Scalar; 2]> => "b_1, b_2",
        pub(crate) d: Secret<[C::Scalar; 3]> => "d_1, d_2, d_3",
    }
    cached { _v: PhantomData<V> }
    check "a_t, b_t ≠ 0; the secrets give the public key of the setup id" => |mk| {
        for s in mk.a.iter().chain(mk.b.iter()) {
            nonzero("master key", s)?;
        }
        secrets_match(mk.public_key().setup_id(), mk.setup_id)
    };
}

impl<C: Curve, V: Variant> FameMasterKey<C, V> {
    pub(crate) fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> (FamePublicKey<C, V>, Self) {
        let mut nonzero = || loop {
            let s = C::Scalar::random(rng);
            if !s.is_zero() {
                break s;
            }
        };
        let a = [nonzero(), nonzero()];
        let b = [nonzero(), nonzero()];
        let d = [nonzero(), nonzero(), nonzero()];
        let mk = FameMasterKey {
            setup_id: [0; 16],
            a: Secret(a),
            b: Secret(b),
            d: Secret(d),
            _v: PhantomData,
        };
        bind(mk.public_key(), mk)
    }

    /// Recomputes the public key from the master secrets.
    pub fn public_key(&self) -> FamePublicKey<C, V> {
        let e_gh = C::pairing(&C::G1::generator(), &C::G2::generator());
        let h = C::G2::generator();
        FamePublicKey::new(
            h.mul_secret(&self.a[0]),
            h.mul_secret(&self.a[1]),
            e_gh.pow(&(self.d[0] * self.a[0] + self.d[2])),
            e_gh.pow(&(self.d[1] * self.a[1] + self.d[2])),
        )
    }

    /// 1/a_1, 1/a_2 (a_t ≠ 0 is checked at setup and decoding).
    pub(crate) fn a_inv(&self) -> [C::Scalar; 2] {
        [
            self.a[0].invert().unwrap_or_else(C::Scalar::zero),
            self.a[1].invert().unwrap_or_else(C::Scalar::zero),
        ]
    }

    /// Draws r_1, r_2 and returns sk_0 = h^{(b_1r_1, b_2r_2, r_1+r_2)} with
    /// the exponents k = (b_1r_1, b_2r_2, r_1+r_2) (to be wiped by the
    /// caller).
    pub(crate) fn sk0<R: RngCore + CryptoRng>(
        &self,
        pk: &FamePublicKey<C, V>,
        rng: &mut R,
    ) -> ([C::G2; 3], [C::Scalar; 3]) {
        let mut r1 = C::Scalar::random(rng);
        let mut r2 = C::Scalar::random(rng);
        let k = [self.b[0] * r1, self.b[1] * r2, r1 + r2];
        wipe(&mut r1, C::Scalar::zero());
        wipe(&mut r2, C::Scalar::zero());
        let tb = pk.tables();
        let sk0 = [
            C::G2::mul_fixed(&tb.h, &k[0]),
            C::G2::mul_fixed(&tb.h, &k[1]),
            C::G2::mul_fixed(&tb.h, &k[2]),
        ];
        (sk0, k)
    }
}

pub(crate) fn prepare3<C: Curve>(p: &[C::G2; 3]) -> [C::G2Prepared; 3] {
    [C::prepare(&p[0]), C::prepare(&p[1]), C::prepare(&p[2])]
}

/// Σ_l (k_l/a_t)·H_l + e·g for t = 1, 2 and e_3·g: the three key elements
/// of one attribute (or of sk'), given the hashes H(· l t), the exponents
/// k/a_t and the g-exponents e = (e_1, e_2, e_3).
pub(crate) fn key_triple<C: Curve>(
    hashes: &[[C::G1; 3]; 2],
    k_over_a: &[[C::Scalar; 3]; 2],
    e: &[C::Scalar; 3],
    g: &FixedBaseTable<C::G1>,
) -> [C::G1; 3] {
    [
        C::G1::msm_secret(&hashes[0], &k_over_a[0]) + C::G1::mul_fixed(g, &e[0]),
        C::G1::msm_secret(&hashes[1], &k_over_a[1]) + C::G1::mul_fixed(g, &e[1]),
        C::G1::mul_fixed(g, &e[2]),
    ]
}

/// Regroups six hashes indexed by [`lt`] as `[t][l]`.
pub(crate) fn by_t<G: Copy>(h: &[G; 6]) -> [[G; 3]; 2] {
    [
        [h[lt(1, 1)], h[lt(2, 1)], h[lt(3, 1)]],
        [h[lt(1, 2)], h[lt(2, 2)], h[lt(3, 2)]],
    ]
}

/// k_l / a_t as `[t][l]`.
pub(crate) fn k_over_a<S: Scalar>(k: &[S; 3], a_inv: &[S; 2]) -> [[S; 3]; 2] {
    [
        [k[0] * a_inv[0], k[1] * a_inv[0], k[2] * a_inv[0]],
        [k[0] * a_inv[1], k[1] * a_inv[1], k[2] * a_inv[1]],
    ]
}

pub(crate) fn wipe_scalars<S: Scalar>(s: &mut [S]) {
    for x in s.iter_mut() {
        wipe(x, S::zero());
    }
}
