//! Fixed-base scalar multiplication with a precomputed table.
//!
//! Odd signed windows of `W` bits: the scalar is recoded into odd digits
//! d_i ∈ ±{1, 3, …, 2^W − 1} ([`odd_digits`]) and the table holds
//! j·2^(W·i)·B for the odd j below 2^W in affine form, so a multiplication
//! is one mixed addition per window and no doublings. Table entries are
//! selected in constant time (a scan of the window's entries), because the
//! scalar is usually secret (encryption randomness, key randomness); and as
//! no digit is zero, no addition takes the identity, on which a backend's
//! mixed addition may branch (arkworks').

use super::{wipe, Group, Scalar};

/// Window width in bits.
const W: usize = 5;
pub(crate) const HALF: usize = 1 << (W - 1);
/// Windows for a scalar of `bits` bits: ⌈(bits + 1)/W⌉ + 1, what
/// [`odd_digits`] needs for k + r.
const fn windows(bits: usize) -> usize {
    (bits + 1).div_ceil(W) + 1
}
/// The most windows of any backend (at most 640-bit scalars).
pub(crate) const MAX_WINDOWS: usize = windows(640);

/// A fixed-base table for one point.
#[derive(Clone, Debug)]
pub struct FixedBaseTable<G: Group> {
    base: G,
    /// `rows[i][j] = (2j+1)·2^(W·i)·base`, affine.
    rows: Vec<[G::Affine; HALF]>,
    /// The group order r, for the digits' k + r.
    order: Vec<u64>,
}

impl<G: Group> FixedBaseTable<G> {
    pub fn new(base: G) -> Self {
        let nwin = windows(<G::Scalar as Scalar>::BITS);
        let mut proj = Vec::with_capacity(nwin * HALF);
        let mut window_base = base;
        for _ in 0..nwin {
            push_odd_multiples(window_base, HALF, &mut proj);
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
        FixedBaseTable {
            base,
            rows,
            order: group_order::<G::Scalar>(),
        }
    }

    /// The same table for a wrapper type with the same affine form (the
    /// counting backend).
    pub(crate) fn rewrap<H: Group<Affine = G::Affine>>(self, base: H) -> FixedBaseTable<H> {
        FixedBaseTable {
            base,
            rows: self.rows,
            order: self.order,
        }
    }

    pub fn base(&self) -> &G {
        &self.base
    }

    /// `rows()[i][j] = (2j+1)·2^(W·i)·base`, affine (for backends that
    /// batch many multiplications by the same table).
    pub(crate) fn rows(&self) -> &[[G::Affine; HALF]] {
        &self.rows
    }

    /// The odd signed digits of `s` (of s or s + r), one per row; the
    /// caller wipes them.
    pub(crate) fn digits(&self, s: &G::Scalar) -> [i32; MAX_WINDOWS] {
        let mut out = [0i32; MAX_WINDOWS];
        odd_digits(
            s.to_le_limbs().as_ref(),
            &self.order,
            W,
            &mut out[..self.rows.len()],
        );
        out
    }

    /// s·base: one mixed addition per window (only the first from the
    /// identity, whatever the scalar).
    pub fn mul(&self, s: &G::Scalar) -> G {
        let mut digits = self.digits(s);
        let mut acc = G::identity();
        for (row, &d) in self.rows.iter().zip(&digits) {
            acc = acc.add_affine(&pick::<G>(row, d));
        }
        digits.iter_mut().for_each(|d| wipe(d, 0));
        acc
    }
}

/// `d·P` for an odd d from the row `[P, 3P, …, (2^W − 1)·P]`, in constant
/// time: a scan of the whole row and a selected negation.
pub(crate) fn pick<G: Group>(row: &[G::Affine], d: i32) -> G::Affine {
    let at = (d.unsigned_abs() as usize).saturating_sub(1) / 2;
    let mut pick = row[0];
    for (j, entry) in row.iter().enumerate() {
        pick = G::select_affine(&pick, entry, subtle::Choice::from((j == at) as u8));
    }
    let neg = G::neg_affine(&pick);
    G::select_affine(&pick, &neg, subtle::Choice::from((d < 0) as u8))
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
        push_odd_multiples(*p, ROW, &mut proj);
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
            acc = acc.add_affine(&pick::<G>(row, d[w]));
        }
    }
    for d in &mut digits {
        wipe(d, 0);
    }
    acc
}

/// Pushes P, 3P, …, (2·count − 1)·P: a row of odd multiples.
fn push_odd_multiples<G: Group>(p: G, count: usize, out: &mut Vec<G>) {
    let twice = p.double();
    let mut acc = p;
    for _ in 0..count {
        out.push(acc);
        acc += twice;
    }
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

/// Test support for the curve suite (`curve::tests`): a table's
/// multiplication (and a backend's batch of them, which BN254 runs from 32
/// lanes) equals the variable-base one on edge and random scalars, and
/// every digit is odd: no window adds the identity.
#[cfg(test)]
pub(crate) fn check_fixed_base<G: Group>(rng: &mut rand_chacha::ChaCha20Rng) {
    let base = G::generator() * G::Scalar::random(rng);
    let table = FixedBaseTable::new(base);
    let cases = super::test_scalars::<G::Scalar>(rng, 20);
    for s in &cases {
        assert_eq!(table.mul(s), base * *s, "{s:?}");
        let digits = table.digits(s);
        assert!(digits[..table.rows().len()].iter().all(|d| d % 2 != 0));
    }
    let batch = G::mul_fixed_batch(&table, &cases);
    for (a, s) in batch.iter().zip(&cases) {
        assert_eq!(G::identity().add_affine(a), base * *s, "{s:?}");
    }
}
