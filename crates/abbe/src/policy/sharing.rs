//! Shamir secret sharing over an access tree (BSW07 §4.2, GPSW06 §4.2):
//! top-down polynomial shares for encryption and the Lagrange coefficients
//! that recombine them for a satisfying selection. The LSSS of
//! [`super::Lsss`] is the matrix form of the same sharing.

use super::lsss::ShareField;
use super::tree::{AccessTree, Node, Selection};
use super::{ErrorKind, PolicyError};

/// Top-down secret sharing of `secret` over `tree` (BSW07 §4.2, Encrypt):
/// every gate x of threshold k gets q_x(z) = q_x(0) + a_1·z + … +
/// a_{k−1}·z^{k−1} with fresh random a_i, and child number i (1-based) gets
/// q_x(i), evaluated by Horner's rule. Returns q_y(0) per leaf, in leaf
/// order. Randomness is drawn in a fixed (pre-order) sequence.
pub fn tree_shares<F: ShareField>(
    tree: &AccessTree,
    secret: F,
    mut random: impl FnMut() -> F,
) -> Result<Vec<F>, PolicyError> {
    let mut out = vec![F::zero(); tree.leaves().len()];
    share_node(tree.root(), secret, &mut random, &mut out)?;
    Ok(out)
}

fn share_node<F: ShareField>(
    node: &Node,
    secret: F,
    random: &mut impl FnMut() -> F,
    out: &mut [F],
) -> Result<(), PolicyError> {
    match node {
        Node::Leaf { index } => {
            let slot = out.get_mut(*index).ok_or_else(|| {
                PolicyError::new(
                    ErrorKind::Argument,
                    "a leaf index of the tree",
                    "out of range",
                )
            })?;
            *slot = secret;
            Ok(())
        }
        Node::Gate { k, children } => {
            // coeffs[0] = q_x(0); degree k − 1.
            let mut coeffs = Vec::with_capacity(*k);
            coeffs.push(secret);
            for _ in 1..*k {
                coeffs.push(random());
            }
            let mut x = F::zero();
            for child in children {
                x = x + F::one();
                let mut v = horner(&coeffs, x);
                share_node(child, v, random, out)?;
                v.wipe();
            }
            for c in coeffs.iter_mut() {
                c.wipe();
            }
            Ok(())
        }
    }
}

/// q(x) for q(z) = Σ c_i z^i, with |c| − 1 multiplications.
fn horner<F: ShareField>(coeffs: &[F], x: F) -> F {
    let mut acc = F::zero();
    for c in coeffs.iter().rev() {
        acc = acc * x + *c;
    }
    acc
}

/// ω_y for the selected leaves: the product, along the path to the root, of
/// the Lagrange coefficients Δ_{index, S_x}(0), where S_x are the indices of
/// the first k_x children of gate x that the selection satisfies. `None` if
/// the selection does not satisfy the tree.
pub fn reconstruction<F: ShareField>(node: &Node, sel: &Selection) -> Option<Vec<(usize, F)>> {
    match node {
        Node::Leaf { index } => sel.contains(*index).then(|| vec![(*index, F::one())]),
        Node::Gate { k, children } => {
            let mut chosen: Vec<(u64, Vec<(usize, F)>)> = Vec::with_capacity(*k);
            for (i, c) in children.iter().enumerate() {
                if chosen.len() == *k {
                    break;
                }
                if let Some(co) = reconstruction::<F>(c, sel) {
                    chosen.push((i as u64 + 1, co));
                }
            }
            if chosen.len() < *k {
                return None;
            }
            if *k == 1 {
                return chosen.pop().map(|(_, co)| co);
            }
            let xs: Vec<u64> = chosen.iter().map(|(x, _)| *x).collect();
            let deltas = lagrange_at_zero::<F>(&xs)?;
            Some(
                chosen
                    .into_iter()
                    .zip(deltas)
                    .flat_map(|((_, co), d)| co.into_iter().map(move |(l, c)| (l, c * d)))
                    .collect(),
            )
        }
    }
}

/// Δ_{i,S}(0) = Π_{j∈S, j≠i} j/(j − i) for the distinct positive integers
/// `xs` (ascending). For S = {1..k} (every AND gate, and threshold gates
/// whose first k children are used) this is (−1)^{i−1}·C(k, i), computed in
/// O(k) with one inversion; otherwise O(k²) multiplications and one batched
/// inversion.
pub fn lagrange_at_zero<F: ShareField>(xs: &[u64]) -> Option<Vec<F>> {
    let k = xs.len();
    let consecutive = xs.iter().enumerate().all(|(i, x)| *x == i as u64 + 1);
    if consecutive {
        // Binomials from factorials: C(k,i) = k!/(i!(k−i)!).
        let mut fact = Vec::with_capacity(k + 1);
        fact.push(F::one());
        for i in 1..=k {
            fact.push(fact[i - 1] * F::from_u64(i as u64));
        }
        let mut inv_fact = vec![F::zero(); k + 1];
        inv_fact[k] = fact[k].invert()?;
        for i in (1..=k).rev() {
            inv_fact[i - 1] = inv_fact[i] * F::from_u64(i as u64);
        }
        return Some(
            (1..=k)
                .map(|i| {
                    let b = fact[k] * inv_fact[i] * inv_fact[k - i];
                    if i % 2 == 1 {
                        b
                    } else {
                        -b
                    }
                })
                .collect(),
        );
    }
    let fx: Vec<F> = xs.iter().map(|x| F::from_u64(*x)).collect();
    let mut nums = Vec::with_capacity(k);
    let mut dens = Vec::with_capacity(k);
    for (i, xi) in fx.iter().enumerate() {
        let mut num = F::one();
        let mut den = F::one();
        for (j, xj) in fx.iter().enumerate() {
            if i != j {
                num = num * *xj;
                den = den * (*xj - *xi);
            }
        }
        nums.push(num);
        dens.push(den);
    }
    // Montgomery's batch inversion.
    let mut prefix = Vec::with_capacity(k);
    let mut acc = F::one();
    for d in &dens {
        prefix.push(acc);
        acc = acc * *d;
    }
    let mut inv = acc.invert()?;
    let mut out = vec![F::zero(); k];
    for i in (0..k).rev() {
        out[i] = nums[i] * prefix[i] * inv;
        inv = inv * dens[i];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{lagrange_at_zero, reconstruction, tree_shares};
    use crate::curve::{Bls12, Curve, Scalar};
    use crate::policy::{AttributeSet, Policy};
    use rand_chacha::rand_core::SeedableRng;

    type Fr = <Bls12 as Curve>::Scalar;

    fn rng(seed: u64) -> rand_chacha::ChaCha20Rng {
        rand_chacha::ChaCha20Rng::seed_from_u64(seed)
    }

    #[test]
    fn shares_reconstruct_the_secret() {
        let mut r = rng(12);
        for text in [
            "a and b and c and d",
            "2 of (a, b, c, d, e)",
            "(a and b) or (c and 2 of (d, e, f))",
        ] {
            let tree = Policy::parse(text).unwrap().to_tree().unwrap();
            let s = Fr::random(&mut r);
            let shares = tree_shares(&tree, s, || Fr::random(&mut r)).unwrap();
            let all = AttributeSet::from_names(tree.leaves().iter().cloned()).unwrap();
            let sel = tree.cheapest_satisfying(&all).unwrap();
            let omega = reconstruction::<Fr>(tree.root(), &sel).unwrap();
            let mut acc = Fr::zero();
            for (i, w) in omega {
                acc += shares[i] * w;
            }
            assert_eq!(acc, s, "{text}");
        }
        // The two Lagrange paths agree.
        let xs = [1u64, 2, 3, 4, 5];
        let fast = lagrange_at_zero::<Fr>(&xs).unwrap();
        let fx: Vec<Fr> = xs.iter().map(|x| Fr::from_u64(*x)).collect();
        let slow: Vec<Fr> = (0..xs.len())
            .map(|i| {
                let mut n = Fr::one();
                let mut d = Fr::one();
                for j in 0..xs.len() {
                    if i != j {
                        n *= fx[j];
                        d *= fx[j] - fx[i];
                    }
                }
                n * d.invert().unwrap()
            })
            .collect();
        assert_eq!(fast, slow);
        let general = lagrange_at_zero::<Fr>(&[2, 3, 5]).unwrap();
        // Δ for {2,3,5}: 3·5/((3−2)(5−2)) = 5, 2·5/((2−3)(5−3)) = −5,
        // 2·3/((2−5)(3−5)) = 1.
        assert_eq!(general, vec![Fr::from_u64(5), -Fr::from_u64(5), Fr::one()]);
    }
}
