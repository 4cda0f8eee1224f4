//! Linear secret sharing schemes (LSSS) derived from access trees.
//!
//! Construction (one row per leaf, in [`AccessTree::leaves`] order), starting
//! from the root vector `(1)`:
//!
//! * AND (n-of-n) over parent vector `v`: additive sharing with `n-1` new
//!   columns `c_1..c_{n-1}`: child 1 gets `v - e_{c_1} - ... - e_{c_{n-1}}`,
//!   child `j+1` gets `e_{c_j}` (Lewko–Waters; all reconstruction
//!   coefficients are 1).
//! * OR (1-of-n): every child gets `v`.
//! * k-of-n, `1 < k < n`: `k-1` new columns; child `i` (1-based) gets
//!   `v + i e_{c_1} + i^2 e_{c_2} + ... + i^{k-1} e_{c_{k-1}}` (Shamir).
//!
//! Shares are `λ_i = M_i · (s, r_1, ..., r_{w-1})`.

use core::fmt::Debug;
use core::ops::{Add, Mul, Neg, Sub};

use super::error::{ErrorKind, PolicyError};
use super::sharing::lagrange_at_zero;
use super::tree::{AccessTree, GateKind, Node, Selection};

/// The (prime) field the shares live in.
pub trait ShareField:
    Copy
    + Eq
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
{
    /// Additive identity.
    fn zero() -> Self;
    /// Multiplicative identity.
    fn one() -> Self;
    /// Embeds a small integer.
    fn from_u64(v: u64) -> Self;
    /// Multiplicative inverse, `None` for zero.
    fn invert(&self) -> Option<Self>;
    /// Overwrites a secret value with zero, in a way the compiler keeps.
    fn wipe(&mut self) {
        *self = Self::zero();
        core::hint::black_box(&*self);
    }
}

/// A sparse LSSS matrix with its row labelling ρ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lsss<F> {
    rows: Vec<Vec<(usize, F)>>,
    rho: Vec<String>,
    width: usize,
}

struct Build<F> {
    rows: Vec<Vec<(usize, F)>>,
    width: usize,
}

impl<F: ShareField> Build<F> {
    fn node(&mut self, node: &Node, v: Vec<(usize, F)>) {
        match node {
            Node::Leaf { index } => {
                if let Some(slot) = self.rows.get_mut(*index) {
                    *slot = v;
                }
            }
            Node::Gate { k, children } => {
                let n = children.len();
                match GateKind::of(*k, n) {
                    GateKind::And => {
                        let first = self.width;
                        self.width += n.saturating_sub(1);
                        for (j, c) in children.iter().enumerate() {
                            let row = if j == 0 {
                                let mut r = v.clone();
                                r.extend((first..first + n - 1).map(|col| (col, -F::one())));
                                r
                            } else {
                                vec![(first + j - 1, F::one())]
                            };
                            self.node(c, row);
                        }
                    }
                    GateKind::Or => {
                        for c in children {
                            self.node(c, v.clone());
                        }
                    }
                    GateKind::Threshold => {
                        let first = self.width;
                        self.width += k - 1;
                        for (i, c) in children.iter().enumerate() {
                            let x = F::from_u64(i as u64 + 1);
                            let mut row = v.clone();
                            let mut pw = x;
                            for col in first..first + k - 1 {
                                row.push((col, pw));
                                pw = pw * x;
                            }
                            self.node(c, row);
                        }
                    }
                }
            }
        }
    }
}

/// Shares of the subtree below `node`, whose LSSS row has share `share`:
/// the values `M_i · (secret, randomness)` of [`Lsss::shares`] computed on
/// the tree, columns allocated in the same (pre)order as [`Build::node`], so
/// nothing of size n·k is ever built.
fn tree_shares<F: ShareField>(
    node: &Node,
    share: F,
    randomness: &[F],
    next_col: &mut usize,
    out: &mut [F],
) -> Result<(), PolicyError> {
    let column = |col: usize| {
        randomness.get(col - 1).copied().ok_or_else(|| {
            PolicyError::new(
                ErrorKind::Argument,
                "one random field element per LSSS column",
                "too few",
            )
        })
    };
    match node {
        Node::Leaf { index } => {
            if let Some(slot) = out.get_mut(*index) {
                *slot = share;
            }
        }
        Node::Gate { k, children } => {
            let n = children.len();
            match GateKind::of(*k, n) {
                GateKind::And => {
                    let first = *next_col;
                    *next_col += n - 1;
                    let mut rest = F::zero();
                    for col in first..first + n - 1 {
                        rest = rest + column(col)?;
                    }
                    for (j, c) in children.iter().enumerate() {
                        let s = if j == 0 {
                            share - rest
                        } else {
                            column(first + j - 1)?
                        };
                        tree_shares(c, s, randomness, next_col, out)?;
                    }
                }
                GateKind::Or => {
                    for c in children {
                        tree_shares(c, share, randomness, next_col, out)?;
                    }
                }
                GateKind::Threshold => {
                    let first = *next_col;
                    *next_col += k - 1;
                    let coeffs = randomness.get(first - 1..first + k - 2).ok_or_else(|| {
                        PolicyError::new(
                            ErrorKind::Argument,
                            "one random field element per LSSS column",
                            "too few",
                        )
                    })?;
                    for (i, c) in children.iter().enumerate() {
                        // share + Σ_{j=1}^{k-1} x^j r_j, by Horner.
                        let x = F::from_u64(i as u64 + 1);
                        let poly = coeffs.iter().rev().fold(F::zero(), |acc, &r| (acc + r) * x);
                        tree_shares(c, share + poly, randomness, next_col, out)?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn width_below(node: &Node) -> usize {
    match node {
        Node::Leaf { .. } => 0,
        Node::Gate { k, children } => {
            let own = match GateKind::of(*k, children.len()) {
                GateKind::And => children.len() - 1,
                GateKind::Or => 0,
                GateKind::Threshold => k - 1,
            };
            children.iter().map(width_below).sum::<usize>() + own
        }
    }
}

impl AccessTree {
    /// The number of columns of this tree's LSSS matrix ([`Lsss::width`]),
    /// without building it.
    pub fn share_width(&self) -> usize {
        1 + width_below(self.root())
    }

    /// The shares `λ_i` of [`Lsss::shares`] (one per leaf, in leaf order),
    /// computed on the tree in time linear in [`AccessTree::work`] and memory
    /// linear in the leaves; `randomness` holds `share_width() - 1` elements.
    pub fn shares<F: ShareField>(
        &self,
        secret: F,
        randomness: &[F],
    ) -> Result<Vec<F>, PolicyError> {
        let width = self.share_width();
        if randomness.len() + 1 != width {
            return Err(PolicyError::new(
                ErrorKind::Argument,
                format!("{} random field elements", width - 1),
                format!("{}", randomness.len()),
            ));
        }
        let mut out = vec![F::zero(); self.leaves().len()];
        let mut next_col = 1;
        tree_shares(self.root(), secret, randomness, &mut next_col, &mut out)?;
        Ok(out)
    }

    /// Reconstruction coefficients `ω_i` for the leaves of `sel`, with
    /// `Σ ω_i λ_i = secret` (see [`Lsss::reconstruction`]), computed on the
    /// tree: memory linear in the selection, time linear in the tree plus
    /// O(k²) field operations per threshold gate of k used children.
    pub fn reconstruction<F: ShareField>(
        &self,
        sel: &Selection,
    ) -> Result<Vec<(usize, F)>, PolicyError> {
        recon(self.root(), sel)?.ok_or_else(|| {
            PolicyError::new(
                ErrorKind::Argument,
                "a selection satisfying the access tree",
                "an insufficient selection",
            )
        })
    }
}

/// Reconstruction coefficients of the subtree for the selected leaves, or
/// `None` if the selection does not satisfy the subtree.
fn recon<F: ShareField>(
    node: &Node,
    sel: &Selection,
) -> Result<Option<Vec<(usize, F)>>, PolicyError> {
    match node {
        Node::Leaf { index } => Ok(sel.contains(*index).then(|| vec![(*index, F::one())])),
        Node::Gate { k, children } => {
            let n = children.len();
            let kind = GateKind::of(*k, n);
            let mut chosen: Vec<(usize, Vec<(usize, F)>)> = Vec::new();
            for (i, c) in children.iter().enumerate() {
                if chosen.len() == *k {
                    break;
                }
                match recon(c, sel)? {
                    Some(co) => chosen.push((i, co)),
                    None if kind == GateKind::And => return Ok(None),
                    None => {}
                }
            }
            if chosen.len() < *k {
                return Ok(None);
            }
            match kind {
                GateKind::And | GateKind::Or => {
                    Ok(Some(chosen.into_iter().flat_map(|(_, co)| co).collect()))
                }
                GateKind::Threshold => {
                    let xs: Vec<u64> = chosen.iter().map(|(i, _)| *i as u64 + 1).collect();
                    let w = lagrange_at_zero(&xs).ok_or_else(|| {
                        PolicyError::new(
                            ErrorKind::Argument,
                            "a field whose characteristic exceeds the gate size",
                            "a non-invertible Lagrange denominator",
                        )
                    })?;
                    Ok(Some(
                        chosen
                            .into_iter()
                            .zip(w)
                            .flat_map(|((_, co), wi)| co.into_iter().map(move |(l, c)| (l, c * wi)))
                            .collect(),
                    ))
                }
            }
        }
    }
}

impl<F: ShareField> Lsss<F> {
    /// Builds the LSSS matrix of `tree` (see the module docs).
    pub fn from_tree(tree: &AccessTree) -> Self {
        let mut b = Build {
            rows: vec![Vec::new(); tree.leaves().len()],
            width: 1,
        };
        b.node(tree.root(), vec![(0, F::one())]);
        Lsss {
            rows: b.rows,
            rho: tree.leaves().to_vec(),
            width: b.width,
        }
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows (= leaves).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the matrix has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// All rows, sparse `(column, value)` lists with ascending columns.
    pub fn rows(&self) -> &[Vec<(usize, F)>] {
        &self.rows
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> Option<&[(usize, F)]> {
        self.rows.get(i).map(Vec::as_slice)
    }

    /// ρ(i): the attribute labelling row `i`.
    pub fn rho(&self, i: usize) -> Option<&str> {
        self.rho.get(i).map(String::as_str)
    }

    /// The row labels, i.e. the tree's leaves.
    pub fn labels(&self) -> &[String] {
        &self.rho
    }

    /// Shares `λ_i = M_i · (secret, randomness...)`; `randomness` must hold
    /// exactly `width() - 1` elements.  Linear in the number of nonzeros.
    pub fn shares(&self, secret: F, randomness: &[F]) -> Result<Vec<F>, PolicyError> {
        if randomness.len() + 1 != self.width {
            return Err(PolicyError::new(
                ErrorKind::Argument,
                format!("{} random field elements", self.width.saturating_sub(1)),
                format!("{}", randomness.len()),
            ));
        }
        let value = |col: usize| {
            if col == 0 {
                Some(secret)
            } else {
                randomness.get(col - 1).copied()
            }
        };
        self.rows
            .iter()
            .map(|row| {
                row.iter().try_fold(F::zero(), |acc, &(col, m)| {
                    value(col).map(|x| acc + m * x).ok_or_else(|| {
                        PolicyError::new(
                            ErrorKind::Argument,
                            "a column index below the width",
                            col.to_string(),
                        )
                    })
                })
            })
            .collect()
    }

    /// Reconstruction coefficients `ω_i` for the leaves of `sel`, with
    /// `Σ ω_i λ_i = secret`.  Computed on the tree: AND children get 1, OR
    /// takes its first satisfied child, thresholds take their first `k`
    /// satisfied children with Lagrange coefficients at 0.  Fails if `tree`
    /// does not match this LSSS or `sel` does not satisfy it.
    pub fn reconstruction(
        &self,
        tree: &AccessTree,
        sel: &Selection,
    ) -> Result<Vec<(usize, F)>, PolicyError> {
        if tree.leaves() != self.rho.as_slice() {
            return Err(PolicyError::new(
                ErrorKind::Argument,
                "the access tree this LSSS was built from",
                "a different tree",
            ));
        }
        tree.reconstruction(sel)
    }

    /// Generic solver: finds `ω` with `Σ_{i∈rows} ω_i M_i = (1, 0, ..., 0)`
    /// by Gaussian elimination over `F` (dense, O(w·r·min(w,r)); meant for
    /// small matrices and cross-checks).  `None` if no solution exists.
    pub fn solve_generic(&self, rows: &[usize]) -> Option<Vec<(usize, F)>> {
        let r = rows.len();
        let w = self.width;
        // Augmented system M_S^T ω = e_1: w equations, r unknowns.
        let mut a = vec![vec![F::zero(); r + 1]; w];
        for (j, &ri) in rows.iter().enumerate() {
            for &(col, m) in self.rows.get(ri)? {
                let cell = a.get_mut(col)?.get_mut(j)?;
                *cell = *cell + m;
            }
        }
        *a.get_mut(0)?.get_mut(r)? = F::one();
        let zero = F::zero();
        let mut pivots = Vec::new();
        let mut prow = 0usize;
        for col in 0..r {
            let Some(p) = a
                .iter()
                .skip(prow)
                .position(|row| row.get(col).is_some_and(|x| *x != zero))
                .map(|p| p + prow)
            else {
                continue;
            };
            a.swap(prow, p);
            let pivot = a.get_mut(prow)?;
            let inv = pivot.get(col)?.invert()?;
            for x in pivot.iter_mut() {
                *x = *x * inv;
            }
            let pivot = pivot.clone();
            for (i, row) in a.iter_mut().enumerate() {
                let f = row.get(col).copied().unwrap_or(zero);
                if i != prow && f != zero {
                    for (x, &pv) in row.iter_mut().zip(pivot.iter()) {
                        *x = *x - f * pv;
                    }
                }
            }
            pivots.push(col);
            prow += 1;
        }
        // Inconsistent if a zero row has a nonzero right-hand side.
        if a.iter()
            .skip(prow)
            .any(|row| row.get(r).is_some_and(|x| *x != zero))
        {
            return None;
        }
        let mut omega = vec![zero; r];
        for (row, &col) in a.iter().zip(pivots.iter()) {
            if let (Some(slot), Some(v)) = (omega.get_mut(col), row.get(r)) {
                *slot = *v;
            }
        }
        Some(rows.iter().copied().zip(omega).collect())
    }
}

/// A toy prime field (integers modulo `2^61 - 1`) for tests.
#[cfg(test)]
pub(crate) mod toy {
    use super::ShareField;
    use core::ops::{Add, Mul, Neg, Sub};

    /// The Mersenne prime 2^61 - 1.
    pub const P: u64 = (1 << 61) - 1;

    /// Element of Z / (2^61 - 1).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Fp(pub u64);

    impl Fp {
        pub fn new(v: u64) -> Self {
            Fp(v % P)
        }
        fn pow(self, mut e: u64) -> Self {
            let mut acc = Fp(1);
            let mut b = self;
            while e > 0 {
                if e & 1 == 1 {
                    acc = acc * b;
                }
                b = b * b;
                e >>= 1;
            }
            acc
        }
    }

    impl Add for Fp {
        type Output = Fp;
        fn add(self, o: Fp) -> Fp {
            Fp::new(self.0 + o.0)
        }
    }
    impl Sub for Fp {
        type Output = Fp;
        fn sub(self, o: Fp) -> Fp {
            Fp::new(self.0 + P - o.0)
        }
    }
    impl Neg for Fp {
        type Output = Fp;
        fn neg(self) -> Fp {
            Fp::new(P - self.0)
        }
    }
    impl Mul for Fp {
        type Output = Fp;
        fn mul(self, o: Fp) -> Fp {
            Fp(((self.0 as u128 * o.0 as u128) % P as u128) as u64)
        }
    }
    impl ShareField for Fp {
        fn zero() -> Self {
            Fp(0)
        }
        fn one() -> Self {
            Fp(1)
        }
        fn from_u64(v: u64) -> Self {
            Fp::new(v)
        }
        fn invert(&self) -> Option<Self> {
            (self.0 != 0).then(|| self.pow(P - 2))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::toy::Fp;
    use super::*;
    use crate::policy::{AttributeSet, Policy};

    fn check(policy: &str, attrs: &str) {
        let t = Policy::parse(policy).unwrap().to_tree().unwrap();
        let l: Lsss<Fp> = Lsss::from_tree(&t);
        assert_eq!(l.len(), t.leaves().len());
        let s = AttributeSet::parse(attrs).unwrap();
        let sel = t.cheapest_satisfying(&s).unwrap();
        let secret = Fp::new(123_456_789);
        let rand: Vec<Fp> = (0..l.width() - 1)
            .map(|i| Fp::new(i as u64 * 7919 + 11))
            .collect();
        let lambda = l.shares(secret, &rand).unwrap();
        let omega = l.reconstruction(&t, &sel).unwrap();
        let sum = omega.iter().fold(Fp(0), |acc, &(i, w)| acc + w * lambda[i]);
        assert_eq!(sum, secret);
        let gen = l.solve_generic(sel.leaves()).unwrap();
        let sum = gen.iter().fold(Fp(0), |acc, &(i, w)| acc + w * lambda[i]);
        assert_eq!(sum, secret);
    }

    #[test]
    fn reconstructs() {
        check("a and b and c", "a, b, c");
        check("a or b", "b");
        check("2 of (a, b, c)", "a, c");
        check("3 of (a, b, c, d or e, f)", "b, e, f");
        check(
            "(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)",
            "ward25, age = 77",
        );
        check("x < 1000 and y > 5#8", "x = 999, y = 6");
        check("a", "a");
    }

    #[test]
    fn shapes_and_errors() {
        let t = Policy::parse("a and b and c").unwrap().to_tree().unwrap();
        let l: Lsss<Fp> = Lsss::from_tree(&t);
        assert_eq!(l.width(), 3);
        assert_eq!(l.row(0), Some(&[(0, Fp(1)), (1, -Fp(1)), (2, -Fp(1))][..]));
        assert_eq!(l.row(2), Some(&[(2, Fp(1))][..]));
        assert_eq!(l.rho(1), Some("b"));
        assert!(l.shares(Fp(1), &[]).is_err());
        let partial = Selection::from_leaves(vec![0, 1]);
        assert!(l.reconstruction(&t, &partial).is_err());
        assert!(l.solve_generic(&[0, 1]).is_none());
        let t2 = Policy::parse("3 of (a, b, c, d)")
            .unwrap()
            .to_tree()
            .unwrap();
        let l2: Lsss<Fp> = Lsss::from_tree(&t2);
        assert_eq!(l2.width(), 3);
        assert_eq!(l2.row(3), Some(&[(0, Fp(1)), (1, Fp(4)), (2, Fp(16))][..]));
        assert!(l2.reconstruction(&t, &partial).is_err());
    }
}
