//! Numeric attributes encoded as a "bag of bits", after the scheme of the
//! Bethencourt–Sahai–Waters `cpabe` toolkit (own implementation).
//!
//! # Marker format
//!
//! A key attribute `age = 42` is expanded into 128 plain attributes
//! ("markers"), all containing `#`, a character that user attribute names may
//! never contain (see [`super::validate_name`]), so markers cannot collide
//! with user attributes:
//!
//! * 64 bit markers `age#b00=0`, `age#b01=1`, ..., `age#b63=0`: bit `i`
//!   (two decimal digits, least significant bit is `00`) of the value;
//! * 63 range markers, for every `w` in `1..=63`: `age#lt2^05` if the value is
//!   below `2^w`, `age#ge2^05` otherwise (exponent printed with two digits);
//! * one exact marker `age#=42` (decimal value).
//!
//! # Comparisons
//!
//! A comparison `age op v#k` in a policy expands to a small tree of AND/OR
//! gates over these markers.  The declared width `k` (default 32, at most 64)
//! is the domain of the attribute: the constant `v` must be below `2^k`,
//! otherwise parsing fails.  The expansion itself uses, like the toolkit's
//! "flexint" mode, the smallest width `w` that represents the constant, plus
//! a range marker as "leader":
//!
//! * `x > v`: `x >= 2^w  OR  bits(x)[w-1..0] > v` — the bit comparison is the
//!   usual chain "`x_i = 1` AND/OR rest" from the top bit down to the lowest
//!   zero bit of `v`.
//! * `x < v`: `x < 2^w  AND  bits(x)[w-1..0] < v`, the chain running down to
//!   the lowest one bit of `v`; a power of two `v = 2^m` is the single range
//!   marker `x#lt2^m`.
//! * `x >= v` is `x > v-1`, `x <= v` is `x < v+1`, `x = v` is the exact marker.
//! * `x != v` (also written `not (x = v)`) is `x < v OR x > v`, one side
//!   only when `v` is 0 or 2^64-1. A scheme that negates natively
//!   ([`crate::policy::Policy::to_negating_tree`]) takes it as one leaf
//!   instead, the negated exact marker `x#!=v`.
//! * For `w = 64` no leader is needed.
//!
//! Consequently comparisons are **exact for every 64-bit key value**,
//! including values `>= 2^k` (the width `k` never truncates a key value, in
//! contrast to the toolkit's fixed-width "expint" mode, and a key never has
//! to be issued for a specific width).  Comparisons that no value satisfies
//! (`x < 0`, `x > 2^64-1`) or that every value satisfies (`x >= 0`,
//! `x <= 2^64-1`) are rejected, as the toolkit does, because a tree of
//! threshold gates cannot express them.  A comparison expands to at most 64
//! leaves.

use super::ast::{CmpOp, Policy};
use super::error::{ErrorKind, PolicyError};

/// Bit marker: bit `bit` of numeric attribute `name` equals `value`.
pub fn bit_marker(name: &str, bit: u32, value: bool) -> String {
    format!("{name}#b{bit:02}={}", u8::from(value))
}

/// Range marker for `w` in `1..=63`: `name#lt2^ww` or `name#ge2^ww`.
pub fn range_marker(name: &str, w: u32, below: bool) -> String {
    if below {
        format!("{name}#lt2^{w:02}")
    } else {
        format!("{name}#ge2^{w:02}")
    }
}

/// Exact-value marker `name#=value`.
pub fn exact_marker(name: &str, value: u64) -> String {
    format!("{name}#={value}")
}

/// Negated exact-value marker `name#!=value`: a leaf of a negating tree
/// ([`crate::policy::Policy::to_negating_tree`]) that a key holding `name`
/// with any other value satisfies. No key holds it as an attribute.
pub fn negated_exact_marker(name: &str, value: u64) -> String {
    format!("{name}#!={value}")
}

/// The (name, value) of a [`negated_exact_marker`], or `None` for any other
/// leaf.
pub fn parse_negated_exact_marker(leaf: &str) -> Option<(&str, u64)> {
    let (name, value) = leaf.rsplit_once("#!=")?;
    if name.contains('#') || value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((name, value.parse().ok()?))
}

/// All markers a key (attribute set) holding `name = value` receives.
pub fn key_markers(name: &str, value: u64) -> Vec<String> {
    let mut out = Vec::with_capacity(128);
    for i in 0..64u32 {
        out.push(bit_marker(name, i, (value >> i) & 1 == 1));
    }
    for w in 1..64u32 {
        out.push(range_marker(name, w, value >> w == 0));
    }
    out.push(exact_marker(name, value));
    out
}

/// Number of markers produced by [`key_markers`].
pub const KEY_MARKERS_PER_VALUE: usize = 128;

/// Rejects unsatisfiable and trivially true comparisons.
pub(crate) fn check_comparison(attr: &str, op: CmpOp, value: u64) -> Result<(), PolicyError> {
    let shown = format!(
        "'{} {} {value}'",
        super::lex::truncate(attr, 40),
        op.symbol()
    );
    match (op, value) {
        (CmpOp::Lt, 0) | (CmpOp::Gt, u64::MAX) => Err(PolicyError::new(
            ErrorKind::Unsatisfiable,
            "a satisfiable comparison (numeric attributes are unsigned 64-bit)",
            shown,
        )),
        (CmpOp::Ge, 0) | (CmpOp::Le, u64::MAX) => Err(PolicyError::new(
            ErrorKind::TriviallyTrue,
            "a comparison that some value fails (this one holds for every value)",
            shown,
        )),
        _ => Ok(()),
    }
}

/// Bit length of `v` (0 for 0).
fn bit_len(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Shape of the expansion of a strict comparison (`None` where used as
/// `Option<Plan>` means the comparison is unsatisfiable).
enum Plan {
    /// A single marker leaf.
    Single,
    /// Chain from bit `z` up to bit `w-1`, plus a leader when `w < 64`.
    Chain { w: u32, z: u32 },
}

fn plan_lt(v: u64) -> Option<Plan> {
    if v == 0 {
        return None;
    }
    if v.is_power_of_two() && v >= 2 {
        return Some(Plan::Single);
    }
    Some(Plan::Chain {
        w: bit_len(v),
        z: v.trailing_zeros(),
    })
}

fn plan_gt(v: u64) -> Option<Plan> {
    if v == u64::MAX {
        return None;
    }
    let w = bit_len(v).max(1);
    if w < 64 && v == (1u64 << w) - 1 {
        return Some(Plan::Single);
    }
    Some(Plan::Chain {
        w,
        z: (!v).trailing_zeros(),
    })
}

fn plan_leaves(p: Option<Plan>) -> usize {
    match p {
        None => 0,
        Some(Plan::Single) => 1,
        Some(Plan::Chain { w, z }) => (w - z) as usize + usize::from(w < 64),
    }
}

/// Leaves of the expansion of `x op value` (0 for rejected comparisons).
pub(crate) fn expanded_leaf_count(op: CmpOp, value: u64) -> usize {
    match op {
        CmpOp::Eq => 1,
        CmpOp::Ne => plan_leaves(plan_lt(value)) + plan_leaves(plan_gt(value)),
        CmpOp::Lt => plan_leaves(plan_lt(value)),
        CmpOp::Le => value.checked_add(1).map_or(0, |v| plan_leaves(plan_lt(v))),
        CmpOp::Gt => plan_leaves(plan_gt(value)),
        CmpOp::Ge => value.checked_sub(1).map_or(0, |v| plan_leaves(plan_gt(v))),
    }
}

/// Prepends `leaf` to `rest` under a gate of the given kind, flattening.
fn chain(is_and: bool, leaf: Policy, rest: Policy) -> Policy {
    match (is_and, rest) {
        (true, Policy::And(mut c)) | (false, Policy::Or(mut c)) => {
            c.insert(0, leaf);
            if is_and {
                Policy::And(c)
            } else {
                Policy::Or(c)
            }
        }
        (true, other) => Policy::And(vec![leaf, other]),
        (false, other) => Policy::Or(vec![leaf, other]),
    }
}

fn expand_lt(name: &str, v: u64) -> Result<Policy, PolicyError> {
    match plan_lt(v) {
        None => Err(PolicyError::new(
            ErrorKind::Unsatisfiable,
            "a satisfiable comparison",
            format!("'< {v}'"),
        )),
        Some(Plan::Single) => Ok(Policy::Attr(range_marker(name, v.trailing_zeros(), true))),
        Some(Plan::Chain { w, z }) => {
            let mut node = Policy::Attr(bit_marker(name, z, false));
            for i in z + 1..w {
                let one = (v >> i) & 1 == 1;
                // v_i = 1: x_i = 0 suffices (OR); v_i = 0: x_i must be 0 (AND).
                node = chain(!one, Policy::Attr(bit_marker(name, i, false)), node);
            }
            if w < 64 {
                node = chain(true, Policy::Attr(range_marker(name, w, true)), node);
            }
            Ok(node)
        }
    }
}

fn expand_gt(name: &str, v: u64) -> Result<Policy, PolicyError> {
    match plan_gt(v) {
        None => Err(PolicyError::new(
            ErrorKind::Unsatisfiable,
            "a satisfiable comparison",
            format!("'> {v}'"),
        )),
        Some(Plan::Single) => Ok(Policy::Attr(range_marker(name, bit_len(v).max(1), false))),
        Some(Plan::Chain { w, z }) => {
            let mut node = Policy::Attr(bit_marker(name, z, true));
            for i in z + 1..w {
                let one = (v >> i) & 1 == 1;
                // v_i = 1: x_i must be 1 (AND); v_i = 0: x_i = 1 suffices (OR).
                node = chain(one, Policy::Attr(bit_marker(name, i, true)), node);
            }
            if w < 64 {
                node = chain(false, Policy::Attr(range_marker(name, w, false)), node);
            }
            Ok(node)
        }
    }
}

/// Expands `name op value` into a policy over marker attributes.
pub fn expand(name: &str, op: CmpOp, value: u64) -> Result<Policy, PolicyError> {
    check_comparison(name, op, value)?;
    match op {
        CmpOp::Eq => Ok(Policy::Attr(exact_marker(name, value))),
        CmpOp::Ne => match (value, value == u64::MAX) {
            (0, _) => expand_gt(name, value),
            (_, true) => expand_lt(name, value),
            _ => Ok(Policy::Or(vec![
                expand_lt(name, value)?,
                expand_gt(name, value)?,
            ])),
        },
        CmpOp::Lt => expand_lt(name, value),
        CmpOp::Gt => expand_gt(name, value),
        CmpOp::Le => match value.checked_add(1) {
            Some(v) => expand_lt(name, v),
            None => Err(PolicyError::new(
                ErrorKind::TriviallyTrue,
                "a comparison that some value fails",
                format!("'<= {value}'"),
            )),
        },
        CmpOp::Ge => match value.checked_sub(1) {
            Some(v) => expand_gt(name, v),
            None => Err(PolicyError::new(
                ErrorKind::TriviallyTrue,
                "a comparison that some value fails",
                format!("'>= {value}'"),
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AttributeSet, Policy};
    use super::*;

    fn key(value: u64) -> AttributeSet {
        let mut s = AttributeSet::new();
        s.insert_numeric("x", value).unwrap();
        s
    }

    const OPS: [CmpOp; 5] = [CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Eq];

    #[test]
    fn exhaustive_width_6() {
        let keys: Vec<AttributeSet> = (0..=64u64).map(key).collect();
        for op in OPS {
            for c in 0..64u64 {
                let p = Policy::Compare {
                    attr: "x".into(),
                    op,
                    value: c,
                    bits: 6,
                };
                let trivial = matches!((op, c), (CmpOp::Lt, 0) | (CmpOp::Ge, 0));
                let tree = match p.to_tree() {
                    Ok(t) => t,
                    Err(e) => {
                        assert!(trivial, "{op:?} {c}: {e}");
                        continue;
                    }
                };
                assert!(!trivial);
                assert_eq!(
                    tree.leaves().len(),
                    expanded_leaf_count(op, c),
                    "{op:?} {c}"
                );
                for (x, k) in keys.iter().enumerate() {
                    let x = x as u64;
                    assert_eq!(tree.is_satisfied(k), op.eval(x, c), "{x} {op:?} {c}");
                    assert_eq!(tree.cheapest_satisfying(k).is_some(), op.eval(x, c));
                }
            }
        }
    }

    #[test]
    fn wide_values_and_edges() {
        let vals = [
            0u64,
            1,
            2,
            3,
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
            u64::MAX - 1,
            u64::MAX,
            1 << 63,
            (1 << 63) - 1,
            0x5555_5555_5555_5555,
        ];
        for op in OPS {
            for &c in &vals {
                let p = Policy::Compare {
                    attr: "x".into(),
                    op,
                    value: c,
                    bits: 64,
                };
                let Ok(tree) = p.to_tree() else {
                    assert!(check_comparison("x", op, c).is_err());
                    continue;
                };
                assert!(tree.leaves().len() <= 64);
                for &x in &vals {
                    assert_eq!(tree.is_satisfied(&key(x)), op.eval(x, c), "{x} {op:?} {c}");
                }
            }
        }
    }

    #[test]
    fn marker_format() {
        let m = key_markers("age", 42);
        assert_eq!(m.len(), KEY_MARKERS_PER_VALUE);
        assert!(m.contains(&"age#b01=1".to_string()));
        assert!(m.contains(&"age#b00=0".to_string()));
        assert!(m.contains(&"age#lt2^06".to_string()));
        assert!(m.contains(&"age#ge2^05".to_string()));
        assert!(m.contains(&"age#=42".to_string()));
        assert_eq!(
            expand("age", CmpOp::Lt, 64),
            Ok(Policy::Attr("age#lt2^06".into()))
        );
    }
}
