//! The √N×√N grid shared by the GKSW tracing schemes ([`super::gksw10_plbe`],
//! [`super::gksw10_augbe`]): users on an m×m grid, tracing indices (i, j),
//! and the rows and columns of an encryption at an index, once.
//!
//! Both are the prime-order versions (Garg–Kumarasubramanian–Sahai–Waters,
//! ePrint 2009/532) of the composite-order grid of Boneh–Sahai–Waters 06 and
//! Boneh–Waters 06, whose two subgroups become two coordinates: exponents
//! are 2-vectors a ∈ Z_p², X^a = (X^{a₀}, X^{a₁}), e(R, C) = e(R₀,C₀)·e(R₁,C₁).
//!
//! ```text
//! m = ⌈√N⌉;  user u ↔ (x, y), u = (x−1)m + y;  index (i, j) ∈ [1, m+1] × [1, m]
//! t, η ←R Z_p;  v_c, v_1 ←R Z_p²;  v_2 = ρ(−v_1[1], v_1[0]) ⊥ v_1;  v'_c = v_c + κ v_2
//! row x < i:   z_x ←R Z_p², a_x, b_x ←R Z_p;  R_x = g^{z_x}, R̃_x = g^{η z_x},
//!              exponent a_x (the scheme's A_x, T_x), B_x = G_x^{b_x}
//! row x ≥ i:   v_x ←R Z_p² (x = i) or ←R span(v_1) (x > i);  s_x ←R Z_p;
//!              R_x = E_x^{s_x v_x}, R̃_x = E_x^{η s_x v_x},
//!              exponent τ_x = t s_x (v_x·v_c), B_x = M · G_x^{τ_x}
//! column y:    w_y ←R Z_p²;  v = v'_c (y < j), v_c (y ≥ j)
//!              C_y = H_y^{t v} · ĝ^{η w_y},  C̃_y = ĝ^{w_y}
//! ```
//! A key of row x, column y whose A-pairing removes e(g,ĝ)^{τ_x(α_x + r_x c_y)}
//! recovers M·e(g,ĝ)^{t s_x r_x c_y (v_x·v − v_x·v_c)} from
//! B_x·e(R_x, C_y)/e(R̃_x, C̃_y): M exactly when y ≥ j, or x > i (v_x ⊥ v_2).
//! So an encryption at (i, j) reaches the users (x, y) ≥ (i, j) in row-major
//! order; (1, 1) everybody, (m+1, 1) nobody.

use super::UserCount;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::KemError;
use rand_core::{CryptoRng, RngCore};

/// m = ⌈√N⌉, the side of the grid.
pub fn side(n: u32) -> u32 {
    let mut m = (n as f64).sqrt() as u32;
    while (m as u64) * (m as u64) < n as u64 {
        m += 1;
    }
    while m > 1 && ((m - 1) as u64) * ((m - 1) as u64) >= n as u64 {
        m -= 1;
    }
    m.max(1)
}

/// m = ⌈√n⌉ of a setup of n users (the name docs/FORMAT.md shows).
pub(crate) fn ceil_sqrt(n: UserCount) -> u32 {
    side(n.get())
}

/// The grid position (x, y) of user u (1-based).
pub fn position(u: u32, m: u32) -> (u32, u32) {
    ((u - 1) / m + 1, (u - 1) % m + 1)
}

/// The grid index of tracing index u ∈ [1, N+1]: user u's position, and
/// (m+1, 1) — nobody — for N+1.
pub(crate) fn index_of(u: u32, n: u32) -> Result<(u32, u32), KemError> {
    let m = side(n);
    match u {
        0 => Err(KemError::Invalid("tracing index 0".into())),
        u if u <= n => Ok(position(u, m)),
        u if u == n + 1 => Ok((m + 1, 1)),
        u => Err(KemError::Invalid(format!("tracing index {u} > N + 1"))),
    }
}

/// A 2-vector of scalars.
pub(crate) type V2<S> = [S; 2];

pub(crate) fn dot<S: Scalar>(a: &V2<S>, b: &V2<S>) -> S {
    a[0] * b[0] + a[1] * b[1]
}

fn random_v2<S: Scalar, R: RngCore + CryptoRng>(rng: &mut R) -> V2<S> {
    [S::random(rng), S::random(rng)]
}

fn wipe_v2<S: Scalar>(v: &mut V2<S>) {
    v.iter_mut().for_each(|s| wipe(s, S::zero()));
}

/// E_x^e and H_y^e: from the public key's points (variable-base, constant
/// time), or, for a tracer holding the master key, as g^{r_x e} and ĝ^{c_y e}
/// through fixed-base tables (the same values, about three times faster).
/// Fixed-base tables of g and ĝ, shared by PLBE and AugBE.
pub(crate) struct Tables<C: Curve> {
    pub g1: FixedBaseTable<C::G1>,
    pub g2: FixedBaseTable<C::G2>,
}

pub(crate) fn tables<C: Curve>() -> Tables<C> {
    Tables {
        g1: C::G1::generator().precompute(),
        g2: C::G2::generator().precompute(),
    }
}

impl<C: Curve> Tables<C> {
    /// Whether E_1 = g^{r_1} and H_1 = ĝ^{c_1}: binds a master key's seed to
    /// a public key beyond the setup id both carry.
    pub(crate) fn first_bases_are(
        &self,
        e: &[<C::G1 as Group>::Affine],
        h: &[<C::G2 as Group>::Affine],
        r1: &C::Scalar,
        c1: &C::Scalar,
    ) -> bool {
        let (Some(e1), Some(h1)) = (e.first(), h.first()) else {
            return false;
        };
        C::G1::from_affine(e1) == C::G1::mul_fixed(&self.g1, r1)
            && C::G2::from_affine(h1) == C::G2::mul_fixed(&self.g2, c1)
    }
}

pub(crate) trait GridBases<C: Curve>: Sync {
    fn e(&self, x: u32, s: &C::Scalar) -> C::G1;
    fn h(&self, y: u32, s: &C::Scalar) -> C::G2;
    /// G_x = e(g,ĝ)^{α_x}.
    fn g(&self, x: u32) -> &C::Gt;
    fn g1(&self) -> &FixedBaseTable<C::G1>;
    fn g2(&self) -> &FixedBaseTable<C::G2>;
}

/// The secret exponents of one row: random (x < i) or (s_x, v_x) (x ≥ i).
enum Row<S: Scalar> {
    Random { z: V2<S>, a: S, b: S },
    Live { s: S, v: V2<S> },
}

/// One row of an encryption: R_x, R̃_x ∈ G1², B_x ∈ GT, and what the
/// scheme made of its exponent (A_x, T_x).
pub(crate) struct GridRow<C: Curve, E> {
    pub r: [C::G1; 2],
    pub rt: [C::G1; 2],
    pub extra: E,
    pub b: C::Gt,
}

/// One column: C_y, C̃_y ∈ G2².
pub(crate) struct GridColumn<C: Curve> {
    pub c: [C::G2; 2],
    pub ct: [C::G2; 2],
}

/// The secrets of one encryption, wiped when dropped.
struct Secrets<S: Scalar> {
    t: S,
    eta: S,
    vc: V2<S>,
    vc_shifted: V2<S>,
    v1: V2<S>,
    rows: Vec<Row<S>>,
    cols: Vec<V2<S>>,
}

impl<S: Scalar> Drop for Secrets<S> {
    fn drop(&mut self) {
        for s in [&mut self.t, &mut self.eta] {
            wipe(s, S::zero());
        }
        for v in [&mut self.vc, &mut self.vc_shifted, &mut self.v1] {
            wipe_v2(v);
        }
        for row in self.rows.iter_mut() {
            match row {
                Row::Random { z, a, b } => {
                    wipe_v2(z);
                    wipe(a, S::zero());
                    wipe(b, S::zero());
                }
                Row::Live { s, v } => {
                    wipe(s, S::zero());
                    wipe_v2(v);
                }
            }
        }
        self.cols.iter_mut().for_each(wipe_v2);
    }
}

impl<S: Scalar> Secrets<S> {
    /// Drawn in a fixed order (t, η, v_c, v_1, ρ, κ, rows, columns).
    fn sample<R: RngCore + CryptoRng>(m: u32, i: u32, rng: &mut R) -> Self {
        let t = S::random(rng);
        let eta = S::random(rng);
        let vc: V2<S> = random_v2(rng);
        let v1: V2<S> = random_v2(rng);
        let mut rho = S::random(rng);
        let mut kappa = S::random(rng);
        // v'_c = v_c + κ·v_2 with v_2 = ρ·(−v_1[1], v_1[0]).
        let mut k = kappa * rho;
        let vc_shifted = [vc[0] - k * v1[1], vc[1] + k * v1[0]];
        for s in [&mut rho, &mut kappa, &mut k] {
            wipe(s, S::zero());
        }
        let rows = (1..=m)
            .map(|x| {
                if x < i {
                    Row::Random {
                        z: random_v2(rng),
                        a: S::random(rng),
                        b: S::random(rng),
                    }
                } else {
                    let s = S::random(rng);
                    let v = if x == i {
                        random_v2(rng)
                    } else {
                        let k = S::random(rng);
                        [k * v1[0], k * v1[1]]
                    };
                    Row::Live { s, v }
                }
            })
            .collect();
        let cols = (1..=m).map(|_| random_v2(rng)).collect();
        Secrets {
            t,
            eta,
            vc,
            vc_shifted,
            v1,
            rows,
            cols,
        }
    }
}

/// The rows and columns of an encryption of `msg` at grid index (i, j).
/// `extra(x, e)` makes the scheme's row elements from the row's secret
/// exponent e (a_x or τ_x), which is wiped afterwards.
pub(crate) fn encrypt_at<C: Curve, E: Send, R: RngCore + CryptoRng>(
    bases: &dyn GridBases<C>,
    m: u32,
    (i, j): (u32, u32),
    msg: &C::Gt,
    extra: impl Fn(u32, &C::Scalar) -> E + Sync + Send,
    rng: &mut R,
) -> (Vec<GridRow<C, E>>, Vec<GridColumn<C>>) {
    let sec = Secrets::<C::Scalar>::sample(m, i, rng);
    let indexed_rows: Vec<(u32, &Row<C::Scalar>)> = (1..=m).zip(sec.rows.iter()).collect();
    let g1 = |s: &C::Scalar| C::G1::mul_fixed(bases.g1(), s);
    let g2 = |s: &C::Scalar| C::G2::mul_fixed(bases.g2(), s);
    let (t, eta) = (sec.t, sec.eta);
    let rows = par_map::<C, _, _>(&indexed_rows, |&(x, row)| match row {
        Row::Random { z, a, b } => GridRow {
            r: [g1(&z[0]), g1(&z[1])],
            rt: [g1(&(eta * z[0])), g1(&(eta * z[1]))],
            extra: extra(x, a),
            b: bases.g(x).pow(b),
        },
        Row::Live { s, v } => {
            let e = |k: usize, f: C::Scalar| {
                let mut w = f * *s * v[k];
                let p = bases.e(x, &w);
                wipe(&mut w, C::Scalar::zero());
                p
            };
            let mut tau = t * *s * dot(v, &sec.vc);
            let out = GridRow {
                r: [e(0, C::Scalar::one()), e(1, C::Scalar::one())],
                rt: [e(0, eta), e(1, eta)],
                extra: extra(x, &tau),
                b: *msg * bases.g(x).pow(&tau),
            };
            wipe(&mut tau, C::Scalar::zero());
            out
        }
    });
    let indexed_cols: Vec<(u32, &V2<C::Scalar>)> = (1..=m).zip(sec.cols.iter()).collect();
    let cols = par_map::<C, _, _>(&indexed_cols, |&(y, w)| {
        let v = if y < j { &sec.vc_shifted } else { &sec.vc };
        let c = |k: usize| {
            let mut tv = t * v[k];
            let mut ew = eta * w[k];
            let p = bases.h(y, &tv) + g2(&ew);
            wipe(&mut tv, C::Scalar::zero());
            wipe(&mut ew, C::Scalar::zero());
            p
        };
        GridColumn {
            c: [c(0), c(1)],
            ct: [g2(&w[0]), g2(&w[1])],
        }
    });
    (rows, cols)
}

/// The affine points of every row's `f` (flattened), normalised at once.
pub(crate) fn flat_g1<C: Curve, E, const K: usize>(
    rows: &[GridRow<C, E>],
    f: impl Fn(&GridRow<C, E>) -> [C::G1; K],
) -> Vec<<C::G1 as Group>::Affine> {
    C::G1::to_affine_batch(&rows.iter().flat_map(f).collect::<Vec<_>>())
}

/// The affine points of every column's `f` (flattened).
pub(crate) fn flat_g2<C: Curve>(
    cols: &[GridColumn<C>],
    f: impl Fn(&GridColumn<C>) -> [C::G2; 2],
) -> Vec<<C::G2 as Group>::Affine> {
    C::G2::to_affine_batch(&cols.iter().flat_map(f).collect::<Vec<_>>())
}

/// The four pairs every grid decryption shares, e(R_x, C_y)/e(R̃_x, C̃_y),
/// for the 0-based row `x` and column `y`: (G1 point, lines of its G2 point).
pub(crate) fn row_column_pairs<C: Curve>(
    r: &[<C::G1 as Group>::Affine],
    rt: &[<C::G1 as Group>::Affine],
    c: &[<C::G2 as Group>::Affine],
    ct: &[<C::G2 as Group>::Affine],
    x: usize,
    y: usize,
) -> [(C::G1, C::G2Prepared); 4] {
    let prep = |a: &<C::G2 as Group>::Affine| C::prepare(&C::G2::from_affine(a));
    let neg = |a: &<C::G1 as Group>::Affine| C::G1::from_affine(&C::G1::neg_affine(a));
    [
        (C::G1::from_affine(&r[2 * x]), prep(&c[2 * y])),
        (C::G1::from_affine(&r[2 * x + 1]), prep(&c[2 * y + 1])),
        (neg(&rt[2 * x]), prep(&ct[2 * y])),
        (neg(&rt[2 * x + 1]), prep(&ct[2 * y + 1])),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_side_is_the_ceiling_of_the_root() {
        for (n, m) in [
            (1, 1),
            (2, 2),
            (4, 2),
            (5, 3),
            (9, 3),
            (10, 4),
            (1_000_000, 1000),
            (1 << 24, 4096),
        ] {
            assert_eq!(side(n), m, "N = {n}");
        }
        assert_eq!(position(1, 3), (1, 1));
        assert_eq!(position(3, 3), (1, 3));
        assert_eq!(position(4, 3), (2, 1));
        assert_eq!(index_of(7, 7).unwrap(), (3, 1));
        assert_eq!(index_of(8, 7).unwrap(), (4, 1));
        assert!(index_of(0, 7).is_err() && index_of(9, 7).is_err());
    }
}
