//! Polynomials over Z_r for the identity-based broadcast schemes: the
//! product Π (x − s) over a recipient set (by a product tree with Karatsuba
//! multiplication, O(ℓ^1.59) instead of the schoolbook O(ℓ²) that makes the
//! authors' Java take hours at ℓ = 10^5), division by (x − a), evaluation.
//!
//! A polynomial is its coefficients from the constant term up:
//! `p[i]` is the coefficient of x^i. All inputs here are public (identities
//! hashed to Z_r, tags of ciphertexts), so nothing needs constant time.

use crate::curve::Scalar;

/// Below this length, schoolbook multiplication beats Karatsuba's overhead.
const KARATSUBA_MIN: usize = 32;

/// The product of two polynomials.
pub fn mul<S: Scalar>(a: &[S], b: &[S]) -> Vec<S> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![S::zero(); a.len() + b.len() - 1];
    mul_into(a, b, &mut out);
    out
}

/// out += a·b (out has at least a.len() + b.len() − 1 coefficients).
fn mul_into<S: Scalar>(a: &[S], b: &[S], out: &mut [S]) {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if b.len() < KARATSUBA_MIN {
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                out[i + j] += *x * *y;
            }
        }
        return;
    }
    if a.len() > b.len() * 3 / 2 {
        // Unbalanced: cut a into pieces of b's length.
        for (k, chunk) in a.chunks(b.len()).enumerate() {
            mul_into(chunk, b, &mut out[k * b.len()..]);
        }
        return;
    }
    // Karatsuba: a = a0 + x^h a1, b = b0 + x^h b1;
    // ab = a0b0 + x^h((a0+a1)(b0+b1) − a0b0 − a1b1) + x^{2h} a1b1.
    let h = b.len() / 2;
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let z0 = mul(a0, b0);
    let z2 = mul(a1, b1);
    let sa = add(a0, a1);
    let sb = add(b0, b1);
    let mut z1 = mul(&sa, &sb);
    for (i, v) in z0.iter().enumerate() {
        z1[i] -= *v;
    }
    for (i, v) in z2.iter().enumerate() {
        z1[i] -= *v;
    }
    for (i, v) in z0.iter().enumerate() {
        out[i] += *v;
    }
    for (i, v) in z1.iter().enumerate() {
        out[h + i] += *v;
    }
    for (i, v) in z2.iter().enumerate() {
        out[2 * h + i] += *v;
    }
}

fn add<S: Scalar>(a: &[S], b: &[S]) -> Vec<S> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = long.to_vec();
    for (o, v) in out.iter_mut().zip(short) {
        *o += *v;
    }
    out
}

/// Π_{s ∈ roots} (x − s), monic of degree |roots|, by a product tree.
pub fn from_roots<S: Scalar>(roots: &[S]) -> Vec<S> {
    match roots {
        [] => vec![S::one()],
        [s] => vec![-*s, S::one()],
        _ => {
            let (l, r) = roots.split_at(roots.len() / 2);
            let (pl, pr) = if roots.len() >= 4096 {
                rayon::join(|| from_roots(l), || from_roots(r))
            } else {
                (from_roots(l), from_roots(r))
            };
            mul(&pl, &pr)
        }
    }
}

/// p(x) = q(x)·(x − a) + rem: (q, rem), by synthetic division.
pub fn div_linear<S: Scalar>(p: &[S], a: S) -> (Vec<S>, S) {
    if p.is_empty() {
        return (Vec::new(), S::zero());
    }
    let mut q = vec![S::zero(); p.len() - 1];
    let mut carry = S::zero();
    for i in (0..p.len()).rev() {
        let c = p[i] + carry * a;
        if i == 0 {
            return (q, c);
        }
        q[i - 1] = c;
        carry = c;
    }
    unreachable!("the loop returns at i = 0")
}

/// p(x), by Horner's rule.
pub fn eval<S: Scalar>(p: &[S], x: S) -> S {
    p.iter().rev().fold(S::zero(), |acc, c| acc * x + *c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type F = <crate::curve::Bls12 as crate::curve::Curve>::Scalar;

    fn f(v: u64) -> F {
        F::from_u64(v)
    }

    fn schoolbook(a: &[F], b: &[F]) -> Vec<F> {
        let mut out = vec![F::zero(); a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                out[i + j] += *x * *y;
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Karatsuba (balanced and unbalanced) equals schoolbook.
        #[test]
        fn products_match_schoolbook(
            a in proptest::collection::vec(any::<u64>(), 1..200),
            b in proptest::collection::vec(any::<u64>(), 1..150),
        ) {
            let a: Vec<F> = a.into_iter().map(f).collect();
            let b: Vec<F> = b.into_iter().map(f).collect();
            prop_assert_eq!(mul(&a, &b), schoolbook(&a, &b));
        }

        /// The product of (x − s) vanishes exactly at its roots, and dividing
        /// by one root leaves the product of the others.
        #[test]
        fn roots_products_and_divisions(roots in proptest::collection::vec(1u64..1 << 40, 1..90), x in any::<u64>()) {
            let rs: Vec<F> = roots.iter().map(|&r| f(r)).collect();
            let p = from_roots(&rs);
            prop_assert_eq!(p.len(), rs.len() + 1);
            prop_assert_eq!(*p.last().unwrap(), F::one());
            for r in &rs {
                prop_assert!(eval(&p, *r).is_zero());
            }
            let (q, rem) = div_linear(&p, rs[0]);
            prop_assert!(rem.is_zero());
            prop_assert_eq!(q, from_roots(&rs[1..]));
            let want = rs.iter().fold(F::one(), |acc, r| acc * (f(x) - *r));
            prop_assert_eq!(eval(&p, f(x)), want);
            let (_, rem) = div_linear(&p, f(x));
            prop_assert_eq!(rem, want);
        }
    }
}
