//! Variable-time multiplication by **public** scalars that are usually
//! short: the Lagrange coefficients of decryption (± binomials for AND
//! gates). Never for secrets — those go through [`Group::mul_secret`] and
//! the fixed-base tables.

use super::{Group, Scalar};

/// ω·P for a **public** scalar ω, in variable time. The Lagrange products
/// of AND gates are ± binomial coefficients (C(100, 50) < 2⁹⁷), so ω or −ω
/// is usually short: those use a width-5 wNAF over the scalar's actual bit
/// length (the work follows that length, where the backend's constant-time
/// ladder always walks 255 bits); full-size ω (threshold gates with
/// non-consecutive children) use the backend. Only the decryption coefficients, which depend on the
/// public policy and on which leaves are used, go through here.
pub fn mul_public<G: Group>(p: &G, w: &G::Scalar) -> G {
    if let Some(r) = mul_short(p, w) {
        return r;
    }
    if let Some(r) = mul_short(p, &-*w) {
        return -r;
    }
    *p * *w
}

/// wNAF (w = 5) multiplication by a scalar below 2¹²⁷, `None` otherwise.
fn mul_short<G: Group>(p: &G, s: &G::Scalar) -> Option<G> {
    let limbs = s.to_le_limbs();
    let limbs = limbs.as_ref();
    if limbs.len() < 2 || limbs[2..].iter().any(|&l| l != 0) || limbs[1] >> 63 != 0 {
        return None;
    }
    let mut k = (u128::from(limbs[1]) << 64) | u128::from(limbs[0]);
    let mut digits: Vec<i8> = Vec::with_capacity(128);
    while k != 0 {
        if k & 1 == 1 {
            let d = (k & 31) as i8;
            let d = if d >= 16 { d - 32 } else { d };
            if d >= 0 {
                k -= d as u128;
            } else {
                k += (-d) as u128;
            }
            digits.push(d);
        } else {
            digits.push(0);
        }
        k >>= 1;
    }
    // Odd multiples P, 3P, …, 15P.
    let p2 = p.double();
    let mut table = [*p; 8];
    for i in 1..8 {
        table[i] = table[i - 1] + p2;
    }
    let mut acc = G::identity();
    let mut started = false;
    for d in digits.iter().rev() {
        if started {
            acc = acc.double();
        }
        if *d > 0 {
            acc += table[(*d as usize - 1) / 2];
            started = true;
        } else if *d < 0 {
            acc -= table[((-*d) as usize - 1) / 2];
            started = true;
        }
    }
    Some(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Curve};
    use rand_chacha::rand_core::SeedableRng;

    type Fr = <Bls12 as Curve>::Scalar;

    fn rng(seed: u64) -> rand_chacha::ChaCha20Rng {
        rand_chacha::ChaCha20Rng::seed_from_u64(seed)
    }

    fn binomial(n: u64, k: u64) -> u128 {
        (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
    }

    #[test]
    fn public_multiplication_matches_the_backend() {
        let mut r = rng(14);
        let p = <Bls12 as Curve>::G1::generator() * Fr::random(&mut r);
        let mut cases = vec![Fr::zero(), Fr::one(), -Fr::one(), Fr::random(&mut r)];
        for k in [1u64, 2, 15, 16, 17, 31, 32, 33, 1000, u64::MAX] {
            cases.push(Fr::from_u64(k));
            cases.push(-Fr::from_u64(k));
        }
        let big = Fr::from_u64(u64::MAX) * Fr::from_u64(u64::MAX); // ~2^128
        cases.extend([big, -big, Fr::from_u64(1 << 62) * Fr::from_u64(1 << 63)]);
        let b = binomial(100, 50);
        let hi = Fr::from_u64((b >> 64) as u64) * Fr::from_u64(1 << 32) * Fr::from_u64(1 << 32);
        cases.push(hi + Fr::from_u64(b as u64));
        for w in cases {
            assert_eq!(mul_public(&p, &w), p * w);
        }
    }
}
