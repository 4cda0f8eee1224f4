//! The mirrored Type-III placement: [`Swapped<C>`] is the curve `C` with the
//! roles of its source groups exchanged, e'(a, b) = e(b, a) for a ∈ C::G2,
//! b ∈ C::G1. A scheme written once against [`Curve`] runs unchanged on
//! `Swapped<C>`, and every element it put in G1 lands in the real G2 and
//! vice versa (`abbe setup --placement swapped` or `--optimize`,
//! docs/ARCHITECTURE.md).
//!
//! Security: e' is a non-degenerate bilinear map between the same prime-order
//! groups with no efficient isomorphism either way, so it is a Type-III
//! pairing whenever `e` is. The schemes' assumptions that name G1 and G2
//! (asymmetric DBDH, DLIN, q-type) are stated symmetrically in the two source
//! groups or for an arbitrary Type-III pairing, so each holds on `Swapped<C>`
//! exactly when its mirror holds on `C`. Each scheme file's "swapped
//! placement" paragraph says which of its elements move, what that costs
//! and which assumption it then rests on; the argument is this one.
//!
//! Miller-loop lines are always those of the *real* G2 argument, which here
//! is the swapped curve's G1 side: it changes with every pairing, so
//! [`Curve::prepare`] keeps the point ([`RealG1`]) and the lines are computed
//! inside [`Curve::multi_miller_loop`]. Encoded objects carry the placement in
//! the curve byte ([`CurveId::swapped`]), so a key or ciphertext is accepted
//! only in the placement it was made for.

use super::{par_map, wipe, Curve, CurveId, Group};
use core::marker::PhantomData;

/// `C` with G1 and G2 exchanged.
#[derive(Clone, Copy, Debug, Default)]
pub struct Swapped<C>(PhantomData<C>);

/// A point of the real G1 standing where the swapped curve expects prepared
/// G2 lines. It may be a key element, so it is wiped on drop.
#[derive(Clone, Debug)]
pub struct RealG1<G: Group>(G);

impl<G: Group> Drop for RealG1<G> {
    fn drop(&mut self) {
        wipe(&mut self.0, G::identity());
    }
}

impl<C: Curve> Curve for Swapped<C> {
    const ID: CurveId = C::ID.swapped();
    const NAME: &'static str = C::NAME;
    const SECURITY_BITS: u32 = C::SECURITY_BITS;
    const PARALLEL: bool = C::PARALLEL;

    type Scalar = C::Scalar;
    type G1 = C::G2;
    type G2 = C::G1;
    type Gt = C::Gt;
    type G2Prepared = RealG1<C::G1>;
    type MillerOutput = C::MillerOutput;

    fn prepare(q: &C::G1) -> RealG1<C::G1> {
        RealG1(*q)
    }

    /// Π e(P_i, Q_i) for P_i in the real G2: the lines of every P_i are
    /// computed here (in parallel where the curve allows), then one shared
    /// loop of `C` runs over them. Lines of secret points are wiped when
    /// dropped (every backend's line type wipes itself).
    fn multi_miller_loop(terms: &[(C::G2, &RealG1<C::G1>)]) -> C::MillerOutput {
        let lines: Vec<C::G2Prepared> = par_map::<C, _, _>(terms, |(p, _)| C::prepare(p));
        let inner: Vec<(C::G1, &C::G2Prepared)> = terms
            .iter()
            .zip(&lines)
            .map(|((_, q), l)| (q.0, l))
            .collect();
        C::multi_miller_loop(&inner)
    }

    fn final_exponentiation(f: &C::MillerOutput) -> C::Gt {
        C::final_exponentiation(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Bls48, Bn254, Counted, Scalar, Target};
    use rand_chacha::rand_core::SeedableRng;

    /// e'(a, b) = e(b, a), bilinearity carries over, and the swapped id
    /// round-trips through the curve byte.
    fn mirrors<C: Curve>() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let (x, y) = (C::Scalar::random(&mut rng), C::Scalar::random(&mut rng));
        let a = C::G2::generator() * x;
        let b = C::G1::generator() * y;
        let swapped = Swapped::<C>::pairing(&a, &b);
        assert_eq!(swapped, C::pairing(&b, &a));
        assert_eq!(
            swapped,
            Swapped::<C>::pairing(&C::G2::generator(), &C::G1::generator()).pow(&(x * y))
        );
        // A product of two pairs, one with the identity.
        let two = Swapped::<C>::multi_pairing(&[
            (a, &Swapped::<C>::prepare(&b)),
            (C::G2::identity(), &Swapped::<C>::prepare(&b)),
        ]);
        assert_eq!(two, swapped);
        let id = <Swapped<C> as Curve>::ID;
        assert_ne!(id, C::ID);
        assert_eq!(CurveId::from_u8(id as u8), Some(id));
        assert_eq!(id.unswapped(), C::ID);
        assert!(id.is_swapped() && !C::ID.is_swapped());
    }

    #[test]
    fn swapping_mirrors_the_pairing() {
        mirrors::<Bls12>();
        mirrors::<Bn254>();
        mirrors::<Bls48>();
    }

    /// Over a counting curve the lines the swap computes are counted as
    /// line preparations of the real G2.
    #[test]
    fn counts_lines_of_the_real_g2() {
        type C = Swapped<Counted<Bls12>>;
        let p = <C as Curve>::G1::generator();
        let q = <C as Curve>::G2::generator();
        let ((), n) = crate::curve::OpCounts::measure(|| {
            let _ = C::multi_pairing(&[(p, &C::prepare(&q)), (p, &C::prepare(&q))]);
        });
        assert_eq!((n.g2_prepared, n.miller_loops, n.final_exps), (2, 2, 1));
        assert!(<C as Curve>::Gt::one().is_one());
    }
}
