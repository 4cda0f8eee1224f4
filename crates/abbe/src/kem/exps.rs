//! The group elements of an encapsulation: computed when encrypting, checked
//! in one batch when the CCA check re-encrypts.
//!
//! A scheme's encapsulation computes each point of its header as a linear
//! combination C_j = Σ_k s_jk·B_k of public bases B_k (generators,
//! public-key elements, attribute hashes) with scalars s_jk drawn from its
//! coins, through [`Exps`]:
//!
//! * [`Exps::compute`] evaluates each combination (encryption);
//! * [`Exps::check`] (the re-encryption of [`crate::abe::Cca`]) evaluates
//!   none: it hands back the header's own point — the next one of that
//!   group in the order of the header's format, as [`crate::wire::recording`]
//!   read them — and keeps the combination it must equal. [`Exps::holds`]
//!   then tests all of them at once with random 128-bit weights δ_j, group by
//!   group:
//!
//! ```text
//!   Σ_j δ_j·C_j  =  Σ_k (Σ_j δ_j·s_jk)·B_k
//! ```
//!
//! If some C_j differs from its combination, this holds with probability at
//! most 2^-ℓ over weights of ℓ bits (the small-exponent test of Bellare,
//! Garay and Rabin, EUROCRYPT '98): the groups have prime order r, and every
//! point of a header passed a subgroup check when it was decoded. The weights
//! are drawn after the header is fixed, from a seed that changes with every
//! header (see `Cca`, which takes ℓ = the curve's security level, at least
//! 128), so an adversary cannot adapt the header to them. The left
//! side is one variable-time MSM (public points: the ciphertext's; scalars:
//! the weights, used once); the right side, whose scalars involve the
//! encryption randomness, is one constant-time
//! [`Group::msm_secret_scalars`], with the terms of each fixed-base table
//! merged into one. Together about two MSMs, instead of one multiplication
//! per term.
//!
//! A scheme's encapsulation, run in check mode, is otherwise the same code:
//! it builds its header from the points handed back, and the CCA check
//! compares that header's encoding with the received one. So a scheme that
//! computes its points in another order than its format lists them (per
//! group), or computes one outside `Exps` and then transforms it, makes
//! honest headers fail the check — never a modified one pass it: the
//! comparison of encodings and the batched equations together say that
//! every point equals the value an honest encryption computes.

use core::any::{Any, TypeId};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar};

/// One base of a combination.
pub enum Base<'a, G: Group> {
    /// A base with a fixed-base table (generators, public-key elements).
    Fixed(&'a FixedBaseTable<G>),
    /// Any other public point (an attribute's hash).
    Point(G),
}

/// `s·B`: one term of a combination.
pub type Term<'a, G> = (Base<'a, G>, <G as Group>::Scalar);

/// `σ_t·B` for the `t`-th secret shared by the items of
/// [`Exps::each_shared`].
pub type SharedTerm<'a, G> = (Base<'a, G>, usize);

/// How an encapsulation gets its points; see the module docs.
pub struct Exps<'h> {
    check: Option<Check<'h>>,
}

/// [`Batch::holds`] for the group a batch is of.
type Holds = fn(&dyn Any) -> bool;

struct Check<'h> {
    /// The received header's elements, in the order of its format.
    claimed: &'h [Box<dyn Any + Send + Sync>],
    /// Bytes of each weight.
    weight_bytes: usize,
    /// Per group: the position after the last point handed back.
    cursors: Vec<(TypeId, usize)>,
    weights: ChaCha20Rng,
    /// Per group: its [`Batch`] and the function that tests it.
    batches: Vec<(TypeId, Box<dyn Any>, Holds)>,
    /// A point was asked for that the header does not have.
    short: bool,
}

/// The equations of one group, as the two sides of the weighted sum.
struct Batch<G: Group> {
    claimed: Vec<G>,
    weights: Vec<G::Scalar>,
    bases: Vec<G>,
    /// Σ_j δ_j·s_jk per base: secret (they involve the coins).
    coeffs: Vec<G::Scalar>,
    /// Fixed-base tables already among `bases` (by address) and where.
    tables: Vec<(usize, usize)>,
}

impl<G: Group> Drop for Batch<G> {
    fn drop(&mut self) {
        for c in &mut self.coeffs {
            wipe(c, G::Scalar::zero());
        }
    }
}

impl<G: Group> Batch<G> {
    fn holds(any: &dyn Any) -> bool {
        let Some(b) = any.downcast_ref::<Batch<G>>() else {
            return false;
        };
        let left = G::msm(&b.claimed, &b.weights);
        let right = G::msm_secret_scalars(&b.bases, &b.coeffs);
        (left - right).is_identity()
    }

    fn add(&mut self, base: &Base<'_, G>, coeff: G::Scalar) {
        match base {
            Base::Fixed(table) => {
                let at = *table as *const FixedBaseTable<G> as usize;
                // The address names the table; the base guards against a
                // table freed and another made at its address.
                let bases = &self.bases;
                let same = |(t, k): &&(usize, usize)| *t == at && bases[*k] == *table.base();
                match self.tables.iter().find(same) {
                    Some(&(_, k)) => self.coeffs[k] += coeff,
                    None => {
                        self.tables.push((at, self.bases.len()));
                        self.bases.push(*table.base());
                        self.coeffs.push(coeff);
                    }
                }
            }
            Base::Point(p) => {
                self.bases.push(*p);
                self.coeffs.push(coeff);
            }
        }
    }
}

/// Σ s·B: a fixed-base multiplication per table, the other points in one
/// constant-time [`Group::msm_secret`] (one multiplication when alone).
fn evaluate<G: Group>(terms: &[Term<'_, G>]) -> G {
    let (mut points, mut scalars) = (Vec::new(), Vec::new());
    let mut acc = G::identity();
    for (base, s) in terms {
        match base {
            Base::Fixed(table) => acc += G::mul_fixed(table, s),
            Base::Point(p) => {
                points.push(*p);
                scalars.push(*s);
            }
        }
    }
    acc += match points.len() {
        0 => G::identity(),
        1 => points[0].mul_secret(&scalars[0]),
        _ => G::msm_secret(&points, &scalars),
    };
    for s in &mut scalars {
        wipe(s, G::Scalar::zero());
    }
    acc
}

impl Exps<'static> {
    /// Encryption: every combination is computed.
    pub fn compute() -> Self {
        Exps { check: None }
    }
}

impl<'h> Exps<'h> {
    /// The CCA check of a header whose elements are `claimed` (in the order
    /// of its format), with weights of `weight_bits` bits (128 to 512)
    /// drawn from `weights_seed`.
    pub(crate) fn check(
        claimed: &'h [Box<dyn Any + Send + Sync>],
        weight_bits: u32,
        weights_seed: [u8; 32],
    ) -> Self {
        Exps {
            check: Some(Check {
                claimed,
                weight_bytes: (weight_bits.div_ceil(8) as usize).clamp(16, 64),
                cursors: Vec::new(),
                weights: ChaCha20Rng::from_seed(weights_seed),
                batches: Vec::new(),
                short: false,
            }),
        }
    }

    /// The point Σ s·B of `terms`.
    pub fn one<G: Group>(&mut self, terms: &[Term<'_, G>]) -> G {
        match &mut self.check {
            None => evaluate(terms),
            Some(check) => check.one(terms),
        }
    }

    /// One point per item, in item order (computed in parallel when
    /// encrypting).
    pub fn each<'a, C: Curve, G: Group, T: Sync>(
        &mut self,
        items: &[T],
        terms: impl Fn(&T) -> Vec<Term<'a, G>> + Sync + Send,
    ) -> Vec<G> {
        self.each_shared::<C, G, T>(items, &[], |item| (terms(item), Vec::new()))
    }

    /// One point per item, from terms of its own and terms σ_t·B whose
    /// secret σ_t every item shares (GPSW06's C_x = H(x)^s; FABEO's
    /// H(y)^{s'_τ}). Those are cheaper to check: Σ_j δ_j·σ_t·B_t(j) =
    /// σ_t·(Σ_j δ_j·B_t(j)), whose inner sum is public (a variable-time
    /// MSM), so each secret multiplies once.
    pub fn each_shared<'a, C: Curve, G: Group, T: Sync>(
        &mut self,
        items: &[T],
        secrets: &[G::Scalar],
        terms: impl Fn(&T) -> (Vec<Term<'a, G>>, Vec<SharedTerm<'a, G>>) + Sync + Send,
    ) -> Vec<G> {
        let Some(check) = &mut self.check else {
            return par_map::<C, _, _>(items, |item| {
                let (mut own, shared) = terms(item);
                own.extend(shared.into_iter().map(|(b, t)| (b, secrets[t])));
                evaluate(&own)
            });
        };
        let mut sums: Vec<(Vec<G>, Vec<G::Scalar>)> = vec![(Vec::new(), Vec::new()); secrets.len()];
        let out = items
            .iter()
            .map(|item| {
                let (own, shared) = terms(item);
                let (claimed, weight) = check.next::<G>();
                let batch = check.batch::<G>();
                for (base, s) in &own {
                    batch.add(base, weight * *s);
                }
                for (base, t) in shared {
                    let (points, weights) = &mut sums[t];
                    points.push(match base {
                        Base::Fixed(table) => *table.base(),
                        Base::Point(p) => p,
                    });
                    weights.push(weight);
                }
                claimed
            })
            .collect();
        let batch = check.batch::<G>();
        for ((points, weights), secret) in sums.iter().zip(secrets) {
            if !points.is_empty() {
                batch.add(&Base::Point(G::msm(points, weights)), *secret);
            }
        }
        out
    }

    /// Whether every point handed back equals its combination (always true
    /// when computing).
    pub fn holds(&self) -> bool {
        match &self.check {
            None => true,
            // Every batch is tested, whatever the others give: when the
            // check fails must not tell which part of the header was wrong.
            Some(check) => check
                .batches
                .iter()
                .fold(!check.short, |ok, (_, batch, holds)| ok & holds(&**batch)),
        }
    }
}

impl Check<'_> {
    fn one<G: Group>(&mut self, terms: &[Term<'_, G>]) -> G {
        let (claimed, weight) = self.next::<G>();
        let batch = self.batch::<G>();
        for (base, s) in terms {
            batch.add(base, weight * *s);
        }
        claimed
    }

    /// The header's next point of `G` (the identity, and the check failed,
    /// when there is none), entered with its weight on the left side.
    fn next<G: Group>(&mut self) -> (G, G::Scalar) {
        let id = TypeId::of::<G>();
        let at = match self.cursors.iter().position(|(t, _)| *t == id) {
            Some(i) => i,
            None => {
                self.cursors.push((id, 0));
                self.cursors.len() - 1
            }
        };
        let from = self.cursors[at].1;
        if self.short {
            return (G::identity(), G::Scalar::zero());
        }
        let Some((offset, claimed)) = self.claimed[from.min(self.claimed.len())..]
            .iter()
            .enumerate()
            .find_map(|(i, e)| e.downcast_ref::<G>().map(|p| (i, *p)))
        else {
            self.short = true;
            return (G::identity(), G::Scalar::zero());
        };
        self.cursors[at].1 = from + offset + 1;
        let mut wide = [0u8; 64];
        let wide = &mut wide[..self.weight_bytes];
        self.weights.fill_bytes(wide);
        let weight = G::Scalar::from_bytes_wide(wide);
        wide.fill(0);
        let batch = self.batch::<G>();
        batch.claimed.push(claimed);
        batch.weights.push(weight);
        (claimed, weight)
    }

    fn batch<G: Group>(&mut self) -> &mut Batch<G> {
        let id = TypeId::of::<G>();
        let at = match self.batches.iter().position(|(t, _, _)| *t == id) {
            Some(i) => i,
            None => {
                let fresh = Batch::<G> {
                    claimed: Vec::new(),
                    weights: Vec::new(),
                    bases: Vec::new(),
                    coeffs: Vec::new(),
                    tables: Vec::new(),
                };
                self.batches
                    .push((id, Box::new(fresh), Batch::<G>::holds as Holds));
                self.batches.len() - 1
            }
        };
        self.batches[at]
            .1
            .downcast_mut::<Batch<G>>()
            .expect("the batch of a group is of that group")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Bn254};
    use crate::wire::recording;

    /// A toy header: four G1 points and one G2 point, one of each kind of
    /// combination.
    type Toy<C> = (Vec<<C as Curve>::G1>, <C as Curve>::G2);

    fn run<C: Curve>(exps: &mut Exps<'_>, s: &[C::Scalar; 3]) -> Toy<C> {
        let g1 = C::G1::generator().precompute();
        let h = C::G1::hash_to_curve(b"x", b"exps-test");
        let a = exps.one::<C::G1>(&[(Base::Fixed(&g1), s[0]), (Base::Point(h), s[1])]);
        let b = exps.one::<C::G2>(&[(Base::Point(C::G2::generator()), s[2])]);
        let c = exps.each::<C, C::G1, _>(&[s[2]], |t| vec![(Base::Fixed(&g1), *t)]);
        let d = exps.each_shared::<C, C::G1, _>(&[h, h.double()], &s[..2], |p| {
            (
                vec![(Base::Point(C::G1::generator()), s[2])],
                vec![(Base::Point(*p), 0), (Base::Fixed(&g1), 1)],
            )
        });
        ([vec![a], c, d].concat(), b)
    }

    fn elements<C: Curve>(h: &Toy<C>) -> crate::wire::Elements {
        recording(|| {
            let mut w = crate::wire::Writer::default();
            for p in &h.0 {
                w.point(p);
            }
            w.point(&h.1);
        })
        .1
    }

    fn honest_passes_and_any_change_fails<C: Curve>() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let s = [0; 3].map(|_| C::Scalar::random(&mut rng));
        let honest = run::<C>(&mut Exps::compute(), &s);
        let claimed = elements::<C>(&honest);
        let mut check = Exps::check(&claimed, 128, [7; 32]);
        assert_eq!(run::<C>(&mut check, &s), honest);
        assert!(check.holds());
        // Each point moved in turn, and two moved so that their plain sum
        // is unchanged: refused.
        let g1 = C::G1::generator();
        let mut bad = Vec::new();
        for i in 0..honest.0.len() {
            let mut b = honest.clone();
            b.0[i] += g1;
            bad.push(b);
        }
        let mut b = honest.clone();
        b.1 += C::G2::generator();
        bad.push(b);
        let mut b = honest.clone();
        b.0[0] += g1;
        b.0[3] -= g1;
        bad.push(b);
        for b in bad {
            let claimed = elements::<C>(&b);
            let mut check = Exps::check(&claimed, 128, [7; 32]);
            run::<C>(&mut check, &s);
            assert!(!check.holds());
        }
        // Other coins than the header's: refused.
        let mut other = s;
        other[1] += C::Scalar::one();
        let mut check = Exps::check(&claimed, 128, [9; 32]);
        run::<C>(&mut check, &other);
        assert!(!check.holds());
        // A header with a point missing: refused, not a panic.
        let short: crate::wire::Elements = claimed.into_iter().skip(1).collect();
        let mut check = Exps::check(&short, 128, [7; 32]);
        run::<C>(&mut check, &s);
        assert!(!check.holds());
    }

    #[test]
    fn the_batched_check_is_exact_on_both_curves() {
        honest_passes_and_any_change_fails::<Bls12>();
        honest_passes_and_any_change_fails::<Bn254>();
    }
}
