//! The counted lower bound of an operation (`--bound`): the operation is run
//! once over `Counted<C>` to count its curve operations, and each count is
//! priced at that primitive's median time, measured on `C` in the same run.
//! No implementation of the operation can do better than its primitives
//! done one after the other, except by doing fewer of them; so the ratio
//! measured / bound is the cost of everything else (secret sharing, policy
//! handling, encoding, allocation) and of any primitive done slower than
//! alone.
//!
//! Every primitive is priced over distinct inputs, as an operation meets
//! them (one input repeated trains the branch predictor of a backend with
//! data-dependent branches, BN254's field arithmetic, and flatters its
//! price by up to a third). Hashes to the curve are priced at their mean
//! over 256 distinct messages:
//! BN254's try-and-increment costs a varying number of tries, so there the
//! price is an estimate of what N attribute names cost, not a strict bound.
//! The rest are medians. Pairs of a multi-Miller loop and terms of a
//! multi-scalar multiplication are priced per item of a run over 256 items
//! (how decryption shares its squarings); a multi-Miller loop also pays its
//! squarings once whatever its pairs, priced as a one-pair loop less one
//! pair and counted once per final exponentiation (every multi-pairing
//! has one). So a decryption over n ≤ 256 pairs is bounded by n/256 of
//! the long loop, one loop's squarings and one final exponentiation.
//! Our operations run on one thread here (`--bound` refuses `--threads`
//! above 1: parallel rows would beat a serial sum).

use std::hint::black_box;
use std::time::{Duration, Instant};

use abbe::curve::counting::OpCounts;
use abbe::curve::{Curve, Group, Scalar, Target};
use rand_core::OsRng;

use crate::measure::{measure, Config, Measured, Subject};

/// Median time of each primitive on one curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnitCosts {
    hash_g1: f64,
    hash_g2: f64,
    g1_exp: f64,
    g2_exp: f64,
    g1_fixed: f64,
    g2_fixed: f64,
    g1_msm_term: f64,
    g2_msm_term: f64,
    g1_add: f64,
    g2_add: f64,
    gt_exp: f64,
    gt_mul: f64,
    miller_pair: f64,
    /// What a multi-Miller loop costs beyond its pairs (its squarings).
    miller_base: f64,
    final_exp: f64,
    g2_prepare: f64,
}

/// Mean seconds of `count` calls of `f`, for costs that vary with the input
/// (BN254's try-and-increment hash): a scheme hashing N attributes pays
/// about N times the mean.
fn mean_secs(count: usize, mut f: impl FnMut(usize)) -> f64 {
    f(count);
    let t = Instant::now();
    for i in 0..count {
        f(i);
    }
    t.elapsed().as_secs_f64() / count as f64
}

/// Median seconds of `reps` calls of `f` (after one warm-up call).
fn median_secs(reps: usize, mut f: impl FnMut(usize)) -> f64 {
    f(0);
    let mut v: Vec<f64> = (0..reps)
        .map(|i| {
            let t = Instant::now();
            f(i + 1);
            t.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl UnitCosts {
    /// Measures every primitive on `C` (hashes of distinct messages, so
    /// nothing is cached; secret scalars through the constant-time paths
    /// the schemes use).
    pub fn measure<C: Curve>(reps: usize) -> Self {
        let s = || C::Scalar::random(&mut OsRng);
        let (p, q) = (C::G1::generator() * s(), C::G2::generator() * s());
        let (t1, t2) = (p.precompute(), q.precompute());
        const MSM: usize = 256;
        let ps: Vec<C::G1> = (0..MSM).map(|_| C::G1::generator() * s()).collect();
        let qs: Vec<C::G2> = (0..MSM).map(|_| C::G2::generator() * s()).collect();
        let ks: Vec<C::Scalar> = (0..MSM).map(|_| s()).collect();
        let prepared: Vec<C::G2Prepared> = qs.iter().map(C::prepare).collect();
        let pairs: Vec<(C::G1, &C::G2Prepared)> = ps.iter().copied().zip(&prepared).collect();
        let loops: Vec<_> = pairs
            .iter()
            .map(|pair| C::multi_miller_loop(std::slice::from_ref(pair)))
            .collect();
        let gts: Vec<C::Gt> = loops.iter().map(C::final_exponentiation).collect();
        // Every price is taken over distinct inputs (index i of 256): a
        // backend whose time depends on its data (BN254's field arithmetic
        // keeps a data-dependent final subtraction) runs faster on one input
        // repeated, as the branch predictor learns it, than on the fresh
        // inputs of a real operation.
        let at = |i: usize| i % MSM;
        let miller_pair = median_secs(reps.div_ceil(10), |_| {
            black_box(C::multi_miller_loop(&pairs));
        }) / MSM as f64;
        let one_pair = median_secs(reps, |i| {
            black_box(C::multi_miller_loop(black_box(&pairs[at(i)..=at(i)])));
        });
        const HASHES: usize = 256;
        let msgs: Vec<String> = (0..=HASHES)
            .map(|i| format!("bound-attribute-{i}"))
            .collect();
        UnitCosts {
            hash_g1: mean_secs(HASHES, |i| {
                black_box(C::G1::hash_to_curve(
                    msgs[i].as_bytes(),
                    b"abbe-peers-bound",
                ));
            }),
            hash_g2: mean_secs(HASHES, |i| {
                black_box(C::G2::hash_to_curve(
                    msgs[i].as_bytes(),
                    b"abbe-peers-bound",
                ));
            }),
            g1_exp: median_secs(reps, |i| {
                black_box(ps[at(i)].mul_secret(&ks[at(i + 1)]));
            }),
            g2_exp: median_secs(reps, |i| {
                black_box(qs[at(i)].mul_secret(&ks[at(i + 1)]));
            }),
            g1_fixed: median_secs(reps, |i| {
                black_box(C::G1::mul_fixed(&t1, &ks[at(i)]));
            }),
            g2_fixed: median_secs(reps, |i| {
                black_box(C::G2::mul_fixed(&t2, &ks[at(i)]));
            }),
            g1_msm_term: median_secs(reps.div_ceil(10), |_| {
                black_box(C::G1::msm(&ps, &ks));
            }) / MSM as f64,
            g2_msm_term: median_secs(reps.div_ceil(10), |_| {
                black_box(C::G2::msm(&qs, &ks));
            }) / MSM as f64,
            // Doublings are counted as additions (variable-time
            // multiplications by public scalars run mostly doublings), so a
            // group operation is priced at the cheaper of the two.
            g1_add: median_secs(reps, |i| {
                black_box(ps[at(i)] + ps[at(i + 1)]);
            })
            .min(median_secs(reps, |i| {
                black_box(ps[at(i)].double());
            })),
            g2_add: median_secs(reps, |i| {
                black_box(qs[at(i)] + qs[at(i + 1)]);
            })
            .min(median_secs(reps, |i| {
                black_box(qs[at(i)].double());
            })),
            gt_exp: median_secs(reps, |i| {
                black_box(gts[at(i)].pow(&ks[at(i + 1)]));
            }),
            gt_mul: median_secs(reps, |i| {
                black_box(gts[at(i)] * gts[at(i + 1)]);
            }),
            miller_pair,
            miller_base: (one_pair - miller_pair).max(0.0),
            final_exp: median_secs(reps, |i| {
                black_box(C::final_exponentiation(&loops[at(i)]));
            }),
            g2_prepare: median_secs(reps, |i| {
                black_box(C::prepare(&qs[at(i)]));
            }),
        }
    }

    /// Seconds the counted operations cost at these prices.
    pub fn price(&self, n: &OpCounts) -> f64 {
        let c = |k: u64, unit: f64| k as f64 * unit;
        c(n.hash_g1, self.hash_g1)
            + c(n.hash_g2, self.hash_g2)
            + c(n.g1_exp, self.g1_exp)
            + c(n.g2_exp, self.g2_exp)
            + c(n.g1_fixed_exp, self.g1_fixed)
            + c(n.g2_fixed_exp, self.g2_fixed)
            + c(n.g1_msm_terms, self.g1_msm_term)
            + c(n.g2_msm_terms, self.g2_msm_term)
            + c(n.g1_add, self.g1_add)
            + c(n.g2_add, self.g2_add)
            + c(n.gt_exp, self.gt_exp)
            + c(n.gt_mul, self.gt_mul)
            + c(n.miller_loops, self.miller_pair)
            + c(n.final_exps, self.final_exp + self.miller_base)
            + c(n.g2_prepared, self.g2_prepare)
    }
}

/// The operations keygen, encrypt and decrypt of `S` (a subject over a
/// `Counted` curve) perform at N = n, each called the way `measure` times
/// it: cold attribute-hash cache, and decryption with a key that has
/// already decrypted once (its lines cached).
pub fn counts<S: Subject>(n: usize) -> [OpCounts; 3] {
    let mut s = S::new(n);
    s.before_op();
    let (key, kg) = OpCounts::measure(|| s.keygen());
    s.before_op();
    let ((_, ct), enc) = OpCounts::measure(|| s.encrypt());
    s.before_decrypt(&key, &ct);
    let _ = s.decrypt(&key, &ct);
    s.before_decrypt(&key, &ct);
    let (_, dec) = OpCounts::measure(|| s.decrypt(&key, &ct));
    [kg, enc, dec]
}

/// One row of the bound table: an operation's measured median against its
/// counted lower bound.
pub struct BoundRow {
    pub name: &'static str,
    pub curve: &'static str,
    pub measured: [Duration; 3],
    pub bound: [f64; 3],
}

/// A [`row`] for one scheme and curve.
pub type RowFn = fn(&'static str, &'static str, usize, &Config) -> BoundRow;

/// Measures `S` on `C`, then the unit costs of `C` right after (so both
/// run in the same conditions), and prices `SC` (the same subject on
/// `Counted<C>`).
pub fn row<C: Curve, S: Subject, SC: Subject>(
    name: &'static str,
    curve: &'static str,
    n: usize,
    cfg: &Config,
) -> BoundRow {
    let m: Measured = measure::<S>(n, cfg, None);
    let units = UnitCosts::measure::<C>(cfg.reps.max(5) * 4);
    let counted = counts::<SC>(n);
    if std::env::var_os("ABBE_BOUND_DEBUG").is_some() {
        eprintln!("{name} {curve} {units:?}\n  counts {counted:?}");
    }
    BoundRow {
        name,
        curve,
        measured: m.times.expect("measured"),
        bound: counted.map(|c| units.price(&c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ours::Ours;
    use abbe::abe::Gpsw06;
    use abbe::curve::{Bls12, Counted};

    /// GPSW06 at N = 3: keygen and encryption hash each attribute once;
    /// the warm decryption runs N + 1 pairs and one final exponentiation;
    /// every count is priced at a positive cost.
    #[test]
    fn counts_follow_the_scheme_and_price_positively() {
        let [kg, enc, dec] = counts::<Ours<Gpsw06<Counted<Bls12>>>>(3);
        assert_eq!((kg.hash_g1, enc.hash_g1), (3, 3));
        assert_eq!((dec.miller_loops, dec.final_exps, dec.hash_g1), (4, 1, 0));
        let units = UnitCosts::measure::<Bls12>(1);
        for c in [kg, enc, dec] {
            assert!(units.price(&c) > 0.0);
        }
        assert!(units.price(&OpCounts::default()) == 0.0);
    }
}
