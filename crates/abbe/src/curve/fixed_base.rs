//! Fixed-base scalar multiplication with a precomputed table.
//!
//! Signed windows of `W` bits: the scalar is recoded into digits
//! d_i ∈ [-2^(W-1), 2^(W-1)] and the table holds j·2^(W·i)·B for
//! j = 1..2^(W-1) in affine form, so a multiplication is ⌈BITS/W⌉ mixed
//! additions and no doublings. Table entries are selected in constant time
//! (a scan of the window's entries), because the scalar is usually secret
//! (encryption randomness, key randomness).

use super::{wipe, Group, Scalar};

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
            acc = acc.add_affine(&pick::<G>(row, d, &self.identity));
        }
        acc
    }
}

/// `d·P` from the row `[P, 2P, …, 2^(W-1)·P]`, in constant time: a scan of
/// the whole row, a selected negation, and the identity for a zero digit
/// (so that the caller's sequence of operations is the same whatever the
/// scalar).
fn pick<G: Group>(row: &[G::Affine], d: i32, identity: &G::Affine) -> G::Affine {
    let mag = d.unsigned_abs() as usize;
    let mut pick = row[0];
    for (j, entry) in row.iter().enumerate() {
        pick = G::select_affine(&pick, entry, subtle::Choice::from((j + 1 == mag) as u8));
    }
    let neg = G::neg_affine(&pick);
    pick = G::select_affine(&pick, &neg, subtle::Choice::from((d < 0) as u8));
    G::select_affine(&pick, identity, subtle::Choice::from((mag == 0) as u8))
}

/// Window width of [`straus`]: its constant-time scan reads 2^(w-1)
/// entries per term and window, so narrower windows than the tables' pay
/// (4 was fastest on BLS12-381 and BN254, `abbe-peers --cca`).
const STRAUS_W: usize = 4;

/// Σ s_i·P_i for public points and secret scalars, in constant time in the
/// scalars (Straus's interleaving): a row `[1, 3, …, 2^w − 1]·P_i` of odd
/// multiples per point, all normalised together (a batched inversion,
/// variable time in the points, which are public), one chain of doublings
/// shared by every term, and per window and term one constant-time scan of
/// the row and one mixed addition. The digits are odd ([`odd_digits`]), so
/// no addition ever takes the identity: the backends' mixed additions
/// branch on it (arkworks'), and a zero digit would show in the time.
pub(crate) fn straus<G: Group>(points: &[G], scalars: &[G::Scalar]) -> G {
    const ROW: usize = 1 << (STRAUS_W - 1);
    let n = points.len().min(scalars.len());
    let mut proj = Vec::with_capacity(n * ROW);
    for p in &points[..n] {
        let twice = p.double();
        let mut acc = *p;
        for _ in 0..ROW {
            proj.push(acc);
            acc += twice;
        }
    }
    let rows = G::to_affine_batch(&proj);
    let bits = <G::Scalar as Scalar>::BITS;
    let order = group_order::<G::Scalar>();
    let nwin = (bits + 1).div_ceil(STRAUS_W) + 1;
    let mut digits = vec![0i32; n * nwin];
    for (s, out) in scalars[..n].iter().zip(digits.chunks_exact_mut(nwin)) {
        odd_digits(s.to_le_limbs().as_ref(), &order, STRAUS_W, out);
    }
    let mut acc = G::identity();
    for w in (0..nwin).rev() {
        for _ in 0..STRAUS_W {
            acc = acc.double();
        }
        for (row, d) in rows.chunks_exact(ROW).zip(digits.chunks_exact(nwin)) {
            let d = d[w];
            let at = (d.unsigned_abs() as usize - 1) / 2;
            let mut pick = row[0];
            for (j, entry) in row.iter().enumerate() {
                pick = G::select_affine(&pick, entry, subtle::Choice::from((j == at) as u8));
            }
            let neg = G::neg_affine(&pick);
            pick = G::select_affine(&pick, &neg, subtle::Choice::from((d < 0) as u8));
            acc = acc.add_affine(&pick);
        }
    }
    for d in &mut digits {
        wipe(d, 0);
    }
    acc
}

/// The group order r as little-endian limbs (−1 + 1).
fn group_order<S: Scalar>() -> Vec<u64> {
    let mut r = (-S::one()).to_le_limbs().as_ref().to_vec();
    for limb in r.iter_mut() {
        let (v, carry) = limb.overflowing_add(1);
        *limb = v;
        if !carry {
            break;
        }
    }
    r
}

/// Odd signed digits d_i ∈ ±{1, 3, …, 2^w − 1} with Σ d_i·2^(w·i) = k or
/// k + r (whichever is odd: the same multiple of a point of order r), one
/// per entry of `out`, which must hold ⌈(BITS+1)/w⌉ + 1. No step branches
/// on k: k + r is added under a mask, and each step takes the low w + 1
/// bits less 2^w, then k ← (k >> w) | 1 (Joye–Tunstall's regular
/// recoding).
fn odd_digits(k: &[u64], order: &[u64], width: usize, out: &mut [i32]) {
    let mut v: Vec<u64> = k.iter().copied().chain([0, 0]).collect();
    let mask = ((k[0] & 1) ^ 1).wrapping_neg();
    let mut carry = 0u64;
    for (i, limb) in v.iter_mut().enumerate() {
        let (a, c1) = limb.overflowing_add(order.get(i).copied().unwrap_or(0) & mask);
        let (b, c2) = a.overflowing_add(carry);
        *limb = b;
        carry = (c1 | c2) as u64;
    }
    let low_mask = (1u64 << (width + 1)) - 1;
    let Some((top, rest)) = out.split_last_mut() else {
        return;
    };
    for d in rest {
        *d = (v[0] & low_mask) as i32 - (1 << width);
        for i in 0..v.len() {
            let next = v.get(i + 1).copied().unwrap_or(0);
            v[i] = (v[i] >> width) | (next << (64 - width));
        }
        v[0] |= 1;
    }
    // What is left is odd and, with enough digits, below 2^w.
    *top = v[0] as i32;
    v.iter_mut().for_each(|l| wipe(l, 0));
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
        // Without a branch on the (secret) digit: c = 1 when v > 2^(W-1).
        let v = raw as i32 + carry;
        carry = ((HALF as i32 - v) >> 31) & 1;
        *d = v - (carry << W);
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
