//! Operation counting: `Counted<C>` is a curve whose operations are those of
//! `C`, each recorded in a thread-local [`OpCounts`]. Schemes are generic over
//! the curve, so running a scheme on `Counted<Bls12>` gives its operation
//! counts, and running it on `Bls12` costs nothing extra — the counting is a
//! different type, not a flag checked at run time.
//!
//! The papers' operation-count tables (chhatrapati22 Table 9, perazzo
//! Table 2) are regenerated from these records: a pairing in the papers is a
//! Miller loop plus a final exponentiation; a shared multi-pairing of n pairs
//! is recorded as n Miller loops and one final exponentiation.

// Counting inside the operator impls increments counters; clippy reads that
// as suspicious arithmetic on the operands.
#![allow(clippy::suspicious_arithmetic_impl)]

use super::{Curve, CurveId, FixedBaseTable, Group, GroupKind, PointError, Target};
use core::cell::Cell;
use core::marker::PhantomData;
use core::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Counts of the basic operations, per group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Pairs in Miller loops (the papers' "pairings").
    pub miller_loops: u64,
    /// Final exponentiations.
    pub final_exps: u64,
    /// G2 points whose lines were precomputed.
    pub g2_prepared: u64,
    /// Variable-base exponentiations (scalar multiplications).
    pub g1_exp: u64,
    pub g2_exp: u64,
    /// Fixed-base exponentiations through a precomputed table.
    pub g1_fixed_exp: u64,
    pub g2_fixed_exp: u64,
    /// Terms of multi-scalar multiplications.
    pub g1_msm_terms: u64,
    pub g2_msm_terms: u64,
    /// Group operations ("multiplications" in multiplicative notation).
    pub g1_add: u64,
    pub g2_add: u64,
    pub gt_exp: u64,
    pub gt_mul: u64,
    pub hash_g1: u64,
    pub hash_g2: u64,
}

impl OpCounts {
    /// Component-wise difference `self - earlier`.
    pub fn since(&self, earlier: &OpCounts) -> OpCounts {
        OpCounts {
            miller_loops: self.miller_loops - earlier.miller_loops,
            final_exps: self.final_exps - earlier.final_exps,
            g2_prepared: self.g2_prepared - earlier.g2_prepared,
            g1_exp: self.g1_exp - earlier.g1_exp,
            g2_exp: self.g2_exp - earlier.g2_exp,
            g1_fixed_exp: self.g1_fixed_exp - earlier.g1_fixed_exp,
            g2_fixed_exp: self.g2_fixed_exp - earlier.g2_fixed_exp,
            g1_msm_terms: self.g1_msm_terms - earlier.g1_msm_terms,
            g2_msm_terms: self.g2_msm_terms - earlier.g2_msm_terms,
            g1_add: self.g1_add - earlier.g1_add,
            g2_add: self.g2_add - earlier.g2_add,
            gt_exp: self.gt_exp - earlier.gt_exp,
            gt_mul: self.gt_mul - earlier.gt_mul,
            hash_g1: self.hash_g1 - earlier.hash_g1,
            hash_g2: self.hash_g2 - earlier.hash_g2,
        }
    }

    /// Current counts of this thread.
    pub fn snapshot() -> OpCounts {
        COUNTS.with(|c| c.get())
    }

    /// Runs `f` and returns its result with the operations it performed on
    /// `Counted` curves in this thread.
    pub fn measure<R>(f: impl FnOnce() -> R) -> (R, OpCounts) {
        let before = Self::snapshot();
        let r = f();
        (r, Self::snapshot().since(&before))
    }
}

thread_local! {
    static COUNTS: Cell<OpCounts> = const { Cell::new(OpCounts {
        miller_loops: 0, final_exps: 0, g2_prepared: 0, g1_exp: 0, g2_exp: 0,
        g1_fixed_exp: 0, g2_fixed_exp: 0, g1_msm_terms: 0, g2_msm_terms: 0,
        g1_add: 0, g2_add: 0, gt_exp: 0, gt_mul: 0, hash_g1: 0, hash_g2: 0,
    }) };
}

fn bump(f: impl FnOnce(&mut OpCounts)) {
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

/// A curve `C` whose operations are counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counted<C>(PhantomData<C>);

/// A point of `G` whose operations are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedPoint<G>(pub G);

/// An element of GT whose operations are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedGt<T>(pub T);

fn count_add<G: Group>() {
    bump(|c| match G::KIND {
        GroupKind::G1 => c.g1_add += 1,
        GroupKind::G2 => c.g2_add += 1,
    });
}

impl<G: Group> Add for CountedPoint<G> {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        count_add::<G>();
        CountedPoint(self.0 + rhs.0)
    }
}
impl<G: Group> Sub for CountedPoint<G> {
    type Output = Self;
    fn sub(self, rhs: Self) -> Self {
        count_add::<G>();
        CountedPoint(self.0 - rhs.0)
    }
}
impl<G: Group> Neg for CountedPoint<G> {
    type Output = Self;
    fn neg(self) -> Self {
        CountedPoint(-self.0)
    }
}
impl<G: Group> AddAssign for CountedPoint<G> {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}
impl<G: Group> SubAssign for CountedPoint<G> {
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}
impl<G: Group> Mul<G::Scalar> for CountedPoint<G> {
    type Output = Self;
    fn mul(self, s: G::Scalar) -> Self {
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_exp += 1,
            GroupKind::G2 => c.g2_exp += 1,
        });
        CountedPoint(self.0 * s)
    }
}

impl<G: Group> super::Element for CountedPoint<G> {
    const ENCODED_BYTES: usize = G::ENCODED_BYTES;
    const NAME: &'static str = G::NAME;
    fn wiped() -> Self {
        CountedPoint(G::wiped())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.0.write(out)
    }
    fn read(bytes: &[u8]) -> Result<Self, PointError> {
        G::read(bytes).map(CountedPoint)
    }
    fn read_unchecked(bytes: &[u8]) -> Result<Self, PointError> {
        G::read_unchecked(bytes).map(CountedPoint)
    }
}

impl<T: Target> super::Element for CountedGt<T> {
    const ENCODED_BYTES: usize = T::ENCODED_BYTES;
    const NAME: &'static str = T::NAME;
    fn wiped() -> Self {
        CountedGt(T::wiped())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.0.write(out)
    }
    fn read(bytes: &[u8]) -> Result<Self, PointError> {
        T::read(bytes).map(CountedGt)
    }
}

impl<G: Group> Group for CountedPoint<G> {
    type Scalar = G::Scalar;
    type Affine = G::Affine;
    const KIND: GroupKind = G::KIND;
    const COMPRESSED_BYTES: usize = G::COMPRESSED_BYTES;

    fn identity() -> Self {
        CountedPoint(G::identity())
    }
    fn generator() -> Self {
        CountedPoint(G::generator())
    }
    fn is_identity(&self) -> bool {
        self.0.is_identity()
    }
    fn double(&self) -> Self {
        count_add::<G>();
        CountedPoint(self.0.double())
    }
    fn msm(points: &[Self], scalars: &[Self::Scalar]) -> Self {
        let n = points.len() as u64;
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_msm_terms += n,
            GroupKind::G2 => c.g2_msm_terms += n,
        });
        let inner: Vec<G> = points.iter().map(|p| p.0).collect();
        CountedPoint(G::msm(&inner, scalars))
    }
    /// Counted as the exponentiation it is.
    fn mul_secret(&self, s: &Self::Scalar) -> Self {
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_exp += 1,
            GroupKind::G2 => c.g2_exp += 1,
        });
        CountedPoint(self.0.mul_secret(s))
    }
    /// Counted as the multi-scalar multiplication it replaces.
    fn msm_secret(points: &[Self], scalars: &[Self::Scalar]) -> Self {
        let n = points.len() as u64;
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_msm_terms += n,
            GroupKind::G2 => c.g2_msm_terms += n,
        });
        let inner: Vec<G> = points.iter().map(|p| p.0).collect();
        CountedPoint(G::msm_secret(&inner, scalars))
    }
    fn sum(points: &[Self]) -> Self {
        let n = points.len().saturating_sub(1) as u64;
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_add += n,
            GroupKind::G2 => c.g2_add += n,
        });
        let inner: Vec<G> = points.iter().map(|p| p.0).collect();
        CountedPoint(G::sum(&inner))
    }
    fn hash_to_curve(msg: &[u8], dst: &[u8]) -> Self {
        bump(|c| match G::KIND {
            GroupKind::G1 => c.hash_g1 += 1,
            GroupKind::G2 => c.hash_g2 += 1,
        });
        CountedPoint(G::hash_to_curve(msg, dst))
    }
    fn to_compressed(&self) -> Vec<u8> {
        self.0.to_compressed()
    }
    fn from_compressed(bytes: &[u8]) -> Result<Self, PointError> {
        G::from_compressed(bytes).map(CountedPoint)
    }
    fn from_compressed_unchecked(bytes: &[u8]) -> Result<Self, PointError> {
        G::from_compressed_unchecked(bytes).map(CountedPoint)
    }
    fn is_torsion_free(&self) -> bool {
        self.0.is_torsion_free()
    }
    fn is_valid(&self) -> bool {
        self.0.is_valid()
    }
    const UNCOMPRESSED_BYTES: usize = G::UNCOMPRESSED_BYTES;
    fn to_uncompressed(&self) -> Vec<u8> {
        self.0.to_uncompressed()
    }
    fn from_uncompressed(bytes: &[u8]) -> Result<Self, PointError> {
        G::from_uncompressed(bytes).map(CountedPoint)
    }
    fn precompute(&self) -> FixedBaseTable<Self> {
        FixedBaseTable::new(self.0).rewrap(*self)
    }
    fn mul_fixed(table: &FixedBaseTable<Self>, s: &Self::Scalar) -> Self {
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_fixed_exp += 1,
            GroupKind::G2 => c.g2_fixed_exp += 1,
        });
        table.mul(s)
    }
    fn to_affine_batch(points: &[Self]) -> Vec<Self::Affine> {
        let inner: Vec<G> = points.iter().map(|p| p.0).collect();
        G::to_affine_batch(&inner)
    }
    /// Not counted: only the fixed-base table uses it, and a fixed-base
    /// exponentiation is counted as one operation.
    fn add_affine(&self, a: &Self::Affine) -> Self {
        CountedPoint(self.0.add_affine(a))
    }
    fn neg_affine(a: &Self::Affine) -> Self::Affine {
        G::neg_affine(a)
    }
    fn from_affine(a: &Self::Affine) -> Self {
        CountedPoint(G::from_affine(a))
    }
    fn sum_affine(points: &[Self::Affine]) -> Self {
        let n = points.len().saturating_sub(1) as u64;
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_add += n,
            GroupKind::G2 => c.g2_add += n,
        });
        CountedPoint(G::sum_affine(points))
    }
    fn msm_secret_points(points: &[Self::Affine], scalars: &[Self::Scalar]) -> Self {
        let n = points.len().min(scalars.len()) as u64;
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_msm_terms += n,
            GroupKind::G2 => c.g2_msm_terms += n,
        });
        CountedPoint(G::msm_secret_points(points, scalars))
    }
    fn sum_affine_secret(points: &[Self::Affine]) -> Self {
        let n = points.len().saturating_sub(1) as u64;
        bump(|c| match G::KIND {
            GroupKind::G1 => c.g1_add += n,
            GroupKind::G2 => c.g2_add += n,
        });
        CountedPoint(G::sum_affine_secret(points))
    }
    fn select_affine(a: &Self::Affine, b: &Self::Affine, choice: subtle::Choice) -> Self::Affine {
        G::select_affine(a, b, choice)
    }
}

impl<T: Target> Mul for CountedGt<T> {
    type Output = Self;
    fn mul(self, rhs: Self) -> Self {
        bump(|c| c.gt_mul += 1);
        CountedGt(self.0 * rhs.0)
    }
}

impl<T: Target> Target for CountedGt<T> {
    type Scalar = T::Scalar;
    const BYTES: usize = T::BYTES;
    fn one() -> Self {
        CountedGt(T::one())
    }
    fn is_one(&self) -> bool {
        self.0.is_one()
    }
    fn pow(&self, s: &Self::Scalar) -> Self {
        bump(|c| c.gt_exp += 1);
        CountedGt(self.0.pow(s))
    }
    fn inverse(&self) -> Self {
        CountedGt(self.0.inverse())
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, PointError> {
        T::from_bytes(bytes).map(CountedGt)
    }
    fn ct_eq(&self, other: &Self) -> bool {
        self.0.ct_eq(&other.0)
    }
}

impl<C: Curve> Curve for Counted<C> {
    const ID: CurveId = C::ID;
    const NAME: &'static str = C::NAME;
    const SECURITY_BITS: u32 = C::SECURITY_BITS;
    const PARALLEL: bool = false;
    type Scalar = C::Scalar;
    type G1 = CountedPoint<C::G1>;
    type G2 = CountedPoint<C::G2>;
    type Gt = CountedGt<C::Gt>;
    type G2Prepared = C::G2Prepared;
    type MillerOutput = C::MillerOutput;

    fn prepare(q: &Self::G2) -> Self::G2Prepared {
        bump(|c| c.g2_prepared += 1);
        C::prepare(&q.0)
    }
    fn multi_miller_loop(terms: &[(Self::G1, &Self::G2Prepared)]) -> Self::MillerOutput {
        let n = terms.len() as u64;
        bump(|c| c.miller_loops += n);
        let inner: Vec<(C::G1, &C::G2Prepared)> = terms.iter().map(|(p, q)| (p.0, *q)).collect();
        C::multi_miller_loop(&inner)
    }
    fn final_exponentiation(f: &Self::MillerOutput) -> Self::Gt {
        bump(|c| c.final_exps += 1);
        CountedGt(C::final_exponentiation(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Scalar};

    type C = Counted<Bls12>;

    #[test]
    fn counts_what_it_runs() {
        let ((), n) = OpCounts::measure(|| {
            let s = <C as Curve>::Scalar::from_u64(3);
            let p = <C as Curve>::G1::generator() * s;
            let q = <C as Curve>::G2::hash_to_curve(b"x", b"dst");
            let prepared = C::prepare(&q);
            let _ = C::multi_pairing(&[(p, &prepared), (p + p, &prepared)]);
        });
        assert_eq!(n.g1_exp, 1);
        assert_eq!(n.g1_add, 1);
        assert_eq!(n.hash_g2, 1);
        assert_eq!(n.g2_prepared, 1);
        assert_eq!(n.miller_loops, 2);
        assert_eq!(n.final_exps, 1);
    }

    #[test]
    fn counted_and_plain_agree() {
        let s = <Bls12 as Curve>::Scalar::from_u64(11);
        let plain = Bls12::pairing(
            &(<Bls12 as Curve>::G1::generator() * s),
            &<Bls12 as Curve>::G2::generator(),
        );
        let counted = C::pairing(
            &(<C as Curve>::G1::generator() * s),
            &<C as Curve>::G2::generator(),
        );
        assert_eq!(plain, counted.0);
    }
}
