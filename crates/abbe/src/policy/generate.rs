//! Benchmark policy generators from Perazzo et al., "Performance evaluation
//! of attribute-based encryption on constrained IoT devices" (§5.3, §7.2).
//!
//! Attributes are named `A1`, `A2`, ..., `An` (the paper's "A, B, etc.";
//! numbered names scale to any `n`).  The generators return the tree shapes
//! of the paper as written, *not* normalised: `three_level` would otherwise
//! collapse into `flat_and`, and `random_policy` may nest an AND directly
//! under an AND, which changes the number of visited internal nodes.  Use
//! [`Policy::to_tree`] directly (it keeps the shape) or
//! [`Policy::normalize`] if the canonical form is wanted.
//!
//! Randomised generators are deterministic in their `seed`
//! (`ChaCha20Rng::seed_from_u64`), and every retry loop gives up with an
//! [`ErrorKind::RetryLimit`] error after [`MAX_RETRIES`] attempts.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use super::ast::Policy;
use super::attrs::AttributeSet;
use super::error::{ErrorKind, PolicyError};
use super::limits::{MAX_LEAVES, MAX_RETRIES};

/// Name of the `i`-th (1-based) generated attribute.
pub fn attr_name(i: usize) -> String {
    format!("A{i}")
}

fn check_n(n: usize) -> Result<(), PolicyError> {
    if n == 0 || n > MAX_LEAVES {
        return Err(PolicyError::new(
            ErrorKind::Argument,
            format!("a number of attributes between 1 and {MAX_LEAVES}"),
            n.to_string(),
        ));
    }
    Ok(())
}

fn check_prob(name: &str, p: f64, zero_ok: bool) -> Result<(), PolicyError> {
    let ok = p <= 1.0 && (p > 0.0 || (zero_ok && p == 0.0));
    if !ok {
        let range = if zero_ok { "[0, 1]" } else { "(0, 1]" };
        return Err(PolicyError::new(
            ErrorKind::Argument,
            format!("{name} in {range}"),
            p.to_string(),
        ));
    }
    Ok(())
}

/// Uniform float in `[0, 1)`.
fn uniform(rng: &mut ChaCha20Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn bernoulli(rng: &mut ChaCha20Rng, p: f64) -> bool {
    uniform(rng) < p
}

/// Flat policy (§5.3, worst case): one AND root over `A1..An`
/// (for `n = 1` a 1-of-1 AND gate over `A1`).
pub fn flat_and(n: usize) -> Result<Policy, PolicyError> {
    check_n(n)?;
    Ok(Policy::And(
        (1..=n).map(|i| Policy::Attr(attr_name(i))).collect(),
    ))
}

/// 3-level policy (§5.3): an AND root over `⌈n/2⌉` AND nodes, each with two
/// consecutive leaves (`A1 A2`, `A3 A4`, ...; the last one has a single leaf
/// when `n` is odd).  Semantically equal to [`flat_and`].
pub fn three_level(n: usize) -> Result<Policy, PolicyError> {
    check_n(n)?;
    let leaves: Vec<Policy> = (1..=n).map(|i| Policy::Attr(attr_name(i))).collect();
    Ok(Policy::And(
        leaves.chunks(2).map(|c| Policy::And(c.to_vec())).collect(),
    ))
}

/// Random policy of §7.2 over `A1..An`.
///
/// Starting from the parent-less set `N` of all leaves, repeatedly select
/// each node of `N` with probability `p_c` (re-drawing until at least two are
/// selected), make them (in their order in `N`) the children of a new node
/// that is AND with probability `p_and` and OR otherwise, remove them from
/// `N` and append the new node, until `|N| = 1`.
pub fn random_policy(n: usize, p_c: f64, p_and: f64, seed: u64) -> Result<Policy, PolicyError> {
    check_n(n)?;
    check_prob("p_c", p_c, false)?;
    check_prob("p_and", p_and, true)?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut set: Vec<Policy> = (1..=n).map(|i| Policy::Attr(attr_name(i))).collect();
    while set.len() > 1 {
        let mut picked = Vec::new();
        let mut tries = 0usize;
        loop {
            picked.clear();
            picked.extend((0..set.len()).map(|_| bernoulli(&mut rng, p_c)));
            if picked.iter().filter(|&&b| b).count() >= 2 {
                break;
            }
            tries += 1;
            if tries >= MAX_RETRIES {
                return Err(PolicyError::new(
                    ErrorKind::RetryLimit,
                    format!("at least two selected nodes within {MAX_RETRIES} draws"),
                    format!("p_c = {p_c} with {} nodes", set.len()),
                ));
            }
        }
        let mut children = Vec::new();
        let mut rest = Vec::with_capacity(set.len());
        for (node, sel) in set.into_iter().zip(picked.iter()) {
            if *sel {
                children.push(node);
            } else {
                rest.push(node);
            }
        }
        rest.push(if bernoulli(&mut rng, p_and) {
            Policy::And(children)
        } else {
            Policy::Or(children)
        });
        set = rest;
    }
    set.pop()
        .ok_or_else(|| PolicyError::new(ErrorKind::Argument, "a non-empty policy", "nothing"))
}

/// Random fulfilling attribute set of §7.2: select each distinct attribute
/// of `policy` (its `Attr` leaves) with probability `p_a`, retrying until the
/// selection satisfies the policy.
pub fn random_fulfilling_set(
    policy: &Policy,
    p_a: f64,
    seed: u64,
) -> Result<AttributeSet, PolicyError> {
    check_prob("p_a", p_a, false)?;
    let tree = policy.to_tree()?;
    let names = policy.attributes();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    for _ in 0..MAX_RETRIES {
        let chosen = names.iter().filter(|_| bernoulli(&mut rng, p_a));
        let set = AttributeSet::from_names(chosen)?;
        if tree.is_satisfied(&set) {
            return Ok(set);
        }
    }
    Err(PolicyError::new(
        ErrorKind::RetryLimit,
        format!("a fulfilling attribute set within {MAX_RETRIES} draws"),
        "only non-fulfilling draws",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_shapes() {
        let f = flat_and(5).unwrap();
        assert_eq!(f.to_string(), "A1 and A2 and A3 and A4 and A5");
        let t = three_level(5).unwrap();
        let tree = t.to_tree().unwrap();
        assert_eq!(tree.gate_count(), 4);
        assert_eq!(tree.leaves().len(), 5);
        assert_eq!(t.clone().normalize(), Ok(f));
        assert!(flat_and(0).is_err());
        assert!(three_level(MAX_LEAVES + 1).is_err());
        assert_eq!(three_level(1).unwrap().leaf_count(), 1);
    }

    #[test]
    fn random_is_deterministic_and_well_formed() {
        for seed in 0..50 {
            let p = random_policy(10, 0.5, 0.5, seed).unwrap();
            assert_eq!(p, random_policy(10, 0.5, 0.5, seed).unwrap());
            assert_eq!(p.leaf_count(), 10);
            assert_eq!(p.attributes().len(), 10);
            let s = random_fulfilling_set(&p, 0.5, seed).unwrap();
            assert_eq!(s, random_fulfilling_set(&p, 0.5, seed).unwrap());
            assert!(p.to_tree().unwrap().is_satisfied(&s));
        }
        assert_eq!(random_policy(8, 1.0, 1.0, 3).unwrap(), flat_and(8).unwrap());
        assert_ne!(
            random_policy(20, 0.3, 0.5, 1).unwrap(),
            random_policy(20, 0.3, 0.5, 2).unwrap()
        );
    }

    #[test]
    fn bad_arguments_and_retry_limit() {
        assert!(random_policy(5, 0.0, 0.5, 0).is_err());
        assert!(random_policy(5, 1.5, 0.5, 0).is_err());
        assert!(random_policy(5, 0.5, f64::NAN, 0).is_err());
        assert!(random_policy(5, 0.5, -0.1, 0).is_err());
        assert_eq!(
            random_policy(3, 1e-9, 0.5, 0).unwrap_err().kind(),
            ErrorKind::RetryLimit
        );
        let p = flat_and(40).unwrap();
        assert_eq!(
            random_fulfilling_set(&p, 0.01, 0).unwrap_err().kind(),
            ErrorKind::RetryLimit
        );
        assert!(random_fulfilling_set(&p, 0.0, 0).is_err());
    }
}
