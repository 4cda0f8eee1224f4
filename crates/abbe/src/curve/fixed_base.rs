//! Fixed-base scalar multiplication with a precomputed table.
//!
//! Signed windows of `W` bits: the scalar is recoded into digits
//! d_i ∈ [-2^(W-1), 2^(W-1)] and the table holds j·2^(W·i)·B for
//! j = 1..2^(W-1) in affine form, so a multiplication is ⌈BITS/W⌉ mixed
//! additions and no doublings. Table entries are selected in constant time
//! (a scan of the window's entries), because the scalar is usually secret
//! (encryption randomness, key randomness).

use super::{Group, Scalar};

/// Window width in bits.
const W: usize = 5;
pub(crate) const HALF: usize = 1 << (W - 1);
/// Windows for a scalar of `bits` bits (one more for the final carry).
const fn windows(bits: usize) -> usize {
    bits / W + 2
}
/// The most windows of any backend (at most 640-bit scalars).
pub(crate) const MAX_WINDOWS: usize = windows(640);

/// A fixed-base table for one point.
#[derive(Clone, Debug)]
pub struct FixedBaseTable<G: Group> {
    base: G,
    /// `rows[i][j] = (j+1)·2^(W·i)·base`, affine.
    rows: Vec<[G::Affine; HALF]>,
    identity: G::Affine,
}

impl<G: Group> FixedBaseTable<G> {
    pub fn new(base: G) -> Self {
        let nwin = windows(<G::Scalar as Scalar>::BITS);
        let mut proj = Vec::with_capacity(nwin * HALF);
        let mut window_base = base;
        for _ in 0..nwin {
            let mut acc = window_base;
            for _ in 0..HALF {
                proj.push(acc);
                acc += window_base;
            }
            // 2^W · window_base
            for _ in 0..W {
                window_base = window_base.double();
            }
        }
        let aff = G::to_affine_batch(&proj);
        let rows = aff
            .chunks_exact(HALF)
            .map(|c| {
                let mut row = [c[0]; HALF];
                row.copy_from_slice(c);
                row
            })
            .collect();
        let identity = G::to_affine_batch(&[G::identity()])[0];
        FixedBaseTable {
            base,
            rows,
            identity,
        }
    }

    /// The same table for a wrapper type with the same affine form (the
    /// counting backend).
    pub(crate) fn rewrap<H: Group<Affine = G::Affine>>(self, base: H) -> FixedBaseTable<H> {
        FixedBaseTable {
            base,
            rows: self.rows,
            identity: self.identity,
        }
    }

    pub fn base(&self) -> &G {
        &self.base
    }

    /// `rows()[i][j] = (j+1)·2^(W·i)·base`, affine (for backends that
    /// batch many multiplications by the same table).
    pub(crate) fn rows(&self) -> &[[G::Affine; HALF]] {
        &self.rows
    }

    /// The signed digits of `s`, one per row, each in [-2^(W-1), 2^(W-1)].
    pub(crate) fn digits(s: &G::Scalar) -> [i32; MAX_WINDOWS] {
        signed_digits(s.to_le_limbs().as_ref(), <G::Scalar as Scalar>::BITS)
    }

    /// s·base.
    pub fn mul(&self, s: &G::Scalar) -> G {
        let digits = signed_digits(s.to_le_limbs().as_ref(), <G::Scalar as Scalar>::BITS);
        let mut acc = G::identity();
        for (row, &d) in self.rows.iter().zip(digits.iter()) {
            let mag = d.unsigned_abs() as usize;
            let mut pick = row[0];
            for (j, entry) in row.iter().enumerate() {
                pick = G::select_affine(&pick, entry, subtle::Choice::from((j + 1 == mag) as u8));
            }
            let neg = G::neg_affine(&pick);
            pick = G::select_affine(&pick, &neg, subtle::Choice::from((d < 0) as u8));
            // A zero digit adds the identity: the same sequence of
            // operations whatever the scalar.
            pick = G::select_affine(
                &pick,
                &self.identity,
                subtle::Choice::from((mag == 0) as u8),
            );
            acc = acc.add_affine(&pick);
        }
        acc
    }
}

/// Recodes a little-endian integer of at most `bits` bits into
/// `windows(bits)` signed digits (the rest of the array stays zero).
fn signed_digits(limbs: &[u64], bits: usize) -> [i32; MAX_WINDOWS] {
    let bits = bits.min(64 * limbs.len());
    let mut out = [0i32; MAX_WINDOWS];
    let mut carry = 0i32;
    for (i, d) in out.iter_mut().enumerate().take(windows(bits)) {
        let bit = i * W;
        let mut raw = 0u64;
        for k in 0..W {
            let b = bit + k;
            if b < bits {
                raw |= ((limbs[b / 64] >> (b % 64)) & 1) << k;
            }
        }
        let mut v = raw as i32 + carry;
        if v > HALF as i32 {
            v -= 1 << W;
            carry = 1;
        } else {
            carry = 0;
        }
        *d = v;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::bls12_381::{Fr, G1, G2};
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn fixed_base_matches_variable_base() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let b1 = <G1 as Group>::generator() * <Fr as Scalar>::random(&mut rng);
        let t1 = FixedBaseTable::new(b1);
        let b2 = <G2 as Group>::generator() * <Fr as Scalar>::random(&mut rng);
        let t2 = FixedBaseTable::new(b2);
        let mut cases = vec![
            <Fr as Scalar>::zero(),
            <Fr as Scalar>::one(),
            -<Fr as Scalar>::one(),
            <Fr as Scalar>::from_u64(16),
            <Fr as Scalar>::from_u64(17),
        ];
        for _ in 0..20 {
            cases.push(<Fr as Scalar>::random(&mut rng));
        }
        for s in cases {
            assert_eq!(t1.mul(&s), b1 * s);
            assert_eq!(t2.mul(&s), b2 * s);
        }
    }
}
