//! The canonical policy AST and its normalisation.

use super::error::{ErrorKind, PolicyError};
use super::limits::{MAX_DEPTH, MAX_LEAVES, MAX_NAME_BYTES, MAX_WIDTH, MIN_NAME_BYTES};
use super::numeric;
use std::collections::BTreeSet;

/// Comparison operator of a numeric comparison leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=` or `==`
    Eq,
    /// `!=`, or a negated `=` (`not (x = 7)`)
    Ne,
}

impl CmpOp {
    /// Canonical textual form used by the printer.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
        }
    }

    /// Evaluates `lhs op rhs` on plain integers.
    pub fn eval(self, lhs: u64, rhs: u64) -> bool {
        match self {
            CmpOp::Lt => lhs < rhs,
            CmpOp::Le => lhs <= rhs,
            CmpOp::Gt => lhs > rhs,
            CmpOp::Ge => lhs >= rhs,
            CmpOp::Eq => lhs == rhs,
            CmpOp::Ne => lhs != rhs,
        }
    }

    /// The operator that holds exactly where this one fails, for the same
    /// value: `not (x < 7)` is `x >= 7`, `not (x = 7)` is `x != 7`.
    pub fn complement(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }
}

/// An access policy.
///
/// The parsers and [`Policy::normalize`] produce the *canonical* form:
/// no `And` directly inside `And`, no `Or` directly inside `Or`, no gate with
/// a single child, and thresholds with `1 < k < n`.  Policies built by hand
/// (or by the benchmark generators, which deliberately keep the tree shapes
/// of the literature) need not be canonical; every consumer accepts them.
///
/// Parsed policies are at most [`MAX_DEPTH`] gates deep.  Hand-built values
/// are validated by [`Policy::normalize`] and [`Policy::to_tree`], which stop
/// at [`MAX_DEPTH`] without deep recursion; the derived traits (`Clone`,
/// `Drop`, `PartialEq`, ...) and `Display` recurse, like for any recursive
/// Rust enum, so do not build values that are thousands of levels deep.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// A plain attribute.
    Attr(String),
    /// All children must be satisfied (n-of-n).
    And(Vec<Policy>),
    /// At least one child must be satisfied (1-of-n).
    Or(Vec<Policy>),
    /// At least `k` of the children must be satisfied.
    Threshold {
        /// Number of children required.
        k: usize,
        /// The children.
        children: Vec<Policy>,
    },
    /// Numeric comparison `attr op value`, with `value < 2^bits`; expanded to
    /// bag-of-bits markers by [`Policy::to_tree`] (see [`super::numeric`]).
    Compare {
        /// Name of the numeric attribute.
        attr: String,
        /// Comparison operator.
        op: CmpOp,
        /// Constant the attribute is compared with.
        value: u64,
        /// Declared width (1..=64) of the attribute's domain.
        bits: u8,
    },
}

/// Checks that `name` may be used as a user attribute name.
///
/// Names must be 1..=256 bytes long and must not contain `#`, which is
/// reserved for the numeric bag-of-bits markers so that they can never
/// collide with user attributes, nor characters that do not show
/// ([`super::visible`]).
pub fn validate_name(name: &str) -> Result<(), PolicyError> {
    if name.len() < MIN_NAME_BYTES || name.len() > MAX_NAME_BYTES {
        return Err(PolicyError::new(
            ErrorKind::Name,
            format!("an attribute name of {MIN_NAME_BYTES} to {MAX_NAME_BYTES} bytes"),
            format!("a name of {} bytes", name.len()),
        ));
    }
    if name.contains('#') {
        return Err(PolicyError::new(
            ErrorKind::Name,
            "an attribute name without '#' (reserved for numeric markers)",
            format!("'{}'", super::lex::truncate(name, 40)),
        ));
    }
    if let Some((at, c)) = super::visible::first_invisible(name) {
        return Err(PolicyError::new(
            ErrorKind::Name,
            "an attribute name of visible characters",
            format!(
                "{} (invisible or reordering) at byte {at} of the name",
                super::visible::describe(c)
            ),
        ));
    }
    Ok(())
}

/// Checks the width and range of a comparison, and that it is neither
/// unsatisfiable nor trivially true.
pub(crate) fn validate_compare(
    attr: &str,
    op: CmpOp,
    value: u64,
    bits: u8,
) -> Result<(), PolicyError> {
    validate_name(attr)?;
    if bits == 0 || bits > MAX_WIDTH {
        return Err(PolicyError::new(
            ErrorKind::Number,
            format!("a bit width between 1 and {MAX_WIDTH}"),
            format!("#{bits}"),
        ));
    }
    if bits < 64 && value >> bits != 0 {
        return Err(PolicyError::new(
            ErrorKind::Number,
            format!("a value that fits in {bits} bits"),
            value.to_string(),
        ));
    }
    numeric::check_comparison(attr, op, value)
}

impl Policy {
    /// Convenience constructor for an attribute leaf.
    pub fn attr(name: impl Into<String>) -> Policy {
        Policy::Attr(name.into())
    }

    /// Returns the canonical form of this policy (see the type docs), or an
    /// error for an invalid gate (`k == 0`, `k > n`, no children), an invalid
    /// name or comparison, or a policy exceeding the depth or leaf limits.
    pub fn normalize(self) -> Result<Policy, PolicyError> {
        let p = normalize_rec(self, 0)?;
        check_leaf_limit(&p)?;
        Ok(p)
    }

    /// The negation `not p`, pushed down to the leaves: De Morgan's laws
    /// for AND and OR, `not (k of n)` is `(n-k+1) of` the negated children,
    /// and a comparison takes its complement operator
    /// ([`CmpOp::complement`]).
    ///
    /// A comparison speaks of the value a key holds, so its negation does
    /// too: `not (ward = 7)` is `ward != 7`, which a key holding `ward = 5`
    /// satisfies and a key with no `ward` at all does not. A plain attribute
    /// cannot be negated: in a large universe a key lists what it has, never
    /// what it lacks, so nothing in a key could show "not intern" — the
    /// error says to negate a value instead (`not (role = 3)`).
    pub fn negate(self) -> Result<Policy, PolicyError> {
        let negate_all = |c: Vec<Policy>| {
            c.into_iter()
                .map(Policy::negate)
                .collect::<Result<Vec<_>, _>>()
        };
        match self {
            Policy::Attr(a) => Err(PolicyError::new(
                ErrorKind::Syntax,
                "a negated comparison, e.g. `not (level = 3)` or `level != 3` (a key lists the \
                 attributes it has, never those it lacks, so no scheme can negate a plain attribute)",
                format!("'not {}'", super::print::quote_name(&a)),
            )),
            Policy::Compare {
                attr,
                op,
                value,
                bits,
            } => Ok(Policy::Compare {
                attr,
                op: op.complement(),
                value,
                bits,
            }),
            Policy::And(c) => make_gate(1, negate_all(c)?),
            Policy::Or(c) => {
                let n = c.len();
                make_gate(n, negate_all(c)?)
            }
            Policy::Threshold { k, children } => {
                let n = children.len();
                make_gate((n + 1).saturating_sub(k), negate_all(children)?)
            }
        }
    }

    /// Number of leaves (attributes and comparisons) before expansion.
    pub fn leaf_count(&self) -> usize {
        match self {
            Policy::Attr(_) | Policy::Compare { .. } => 1,
            Policy::And(c) | Policy::Or(c) | Policy::Threshold { children: c, .. } => {
                c.iter().map(Policy::leaf_count).sum()
            }
        }
    }

    /// Number of leaves after the bag-of-bits expansion of comparisons.
    pub fn expanded_leaf_count(&self) -> usize {
        match self {
            Policy::Attr(_) => 1,
            Policy::Compare { op, value, .. } => numeric::expanded_leaf_count(*op, *value),
            Policy::And(c) | Policy::Or(c) | Policy::Threshold { children: c, .. } => c
                .iter()
                .map(Policy::expanded_leaf_count)
                .fold(0usize, usize::saturating_add),
        }
    }

    /// Gate depth: 0 for a leaf, 1 + the deepest child for a gate.
    pub fn depth(&self) -> usize {
        match self {
            Policy::Attr(_) | Policy::Compare { .. } => 0,
            Policy::And(c) | Policy::Or(c) | Policy::Threshold { children: c, .. } => {
                1 + c.iter().map(Policy::depth).max().unwrap_or(0)
            }
        }
    }

    /// Distinct attribute names of the `Attr` leaves, in first-occurrence
    /// order (names of numeric comparisons are not included).
    pub fn attributes(&self) -> Vec<String> {
        self.collect_names(false)
    }

    /// Every attribute name the policy mentions, the numeric ones of its
    /// comparisons too (`age` of `age >= 30`), in first-seen order.
    pub fn names(&self) -> Vec<String> {
        self.collect_names(true)
    }

    fn collect_names(&self, numeric: bool) -> Vec<String> {
        fn walk(p: &Policy, numeric: bool, seen: &mut BTreeSet<String>, out: &mut Vec<String>) {
            match p {
                Policy::Attr(a) => {
                    if seen.insert(a.clone()) {
                        out.push(a.clone());
                    }
                }
                Policy::Compare { attr, .. } => {
                    if numeric && seen.insert(attr.clone()) {
                        out.push(attr.clone());
                    }
                }
                Policy::And(c) | Policy::Or(c) | Policy::Threshold { children: c, .. } => {
                    for ch in c {
                        walk(ch, numeric, seen, out);
                    }
                }
            }
        }
        let (mut seen, mut out) = (BTreeSet::new(), Vec::new());
        walk(self, numeric, &mut seen, &mut out);
        out
    }
}

/// Fails if the expanded leaf count exceeds [`MAX_LEAVES`].
pub(crate) fn check_leaf_limit(p: &Policy) -> Result<(), PolicyError> {
    let n = p.expanded_leaf_count();
    if n > MAX_LEAVES {
        return Err(PolicyError::new(
            ErrorKind::Limit,
            format!("at most {MAX_LEAVES} leaves after numeric expansion"),
            format!("{n} leaves"),
        ));
    }
    Ok(())
}

pub(crate) fn depth_error(depth: usize) -> PolicyError {
    PolicyError::new(
        ErrorKind::Limit,
        format!("at most {MAX_DEPTH} levels of nesting"),
        format!("{depth} levels"),
    )
}

fn normalize_rec(p: Policy, depth: usize) -> Result<Policy, PolicyError> {
    if depth > MAX_DEPTH {
        return Err(depth_error(depth));
    }
    match p {
        Policy::Attr(a) => {
            validate_name(&a)?;
            Ok(Policy::Attr(a))
        }
        Policy::Compare {
            attr,
            op,
            value,
            bits,
        } => {
            validate_compare(&attr, op, value, bits)?;
            Ok(Policy::Compare {
                attr,
                op,
                value,
                bits,
            })
        }
        Policy::And(c) => {
            let n = c.len();
            make_gate(n, normalize_all(c, depth)?)
        }
        Policy::Or(c) => make_gate(1, normalize_all(c, depth)?),
        Policy::Threshold { k, children } => make_gate(k, normalize_all(children, depth)?),
    }
}

fn normalize_all(c: Vec<Policy>, depth: usize) -> Result<Vec<Policy>, PolicyError> {
    c.into_iter()
        .map(|ch| normalize_rec(ch, depth + 1))
        .collect()
}

/// Builds the canonical k-of-n gate over already canonical `children`.
///
/// `k == n` gives `And`, `k == 1` gives `Or` (nested gates of the same kind
/// are flattened), one child collapses to the child itself, and `k == 0`,
/// `k > n` or an empty gate are errors.
pub(crate) fn make_gate(k: usize, children: Vec<Policy>) -> Result<Policy, PolicyError> {
    let n = children.len();
    if n == 0 {
        return Err(PolicyError::new(
            ErrorKind::Threshold,
            "a gate with at least one child",
            "an empty gate",
        ));
    }
    if k == 0 || k > n {
        return Err(PolicyError::new(
            ErrorKind::Threshold,
            format!("a threshold between 1 and {n}"),
            format!("{k} of {n}"),
        ));
    }
    if n == 1 {
        return Ok(children
            .into_iter()
            .next()
            .unwrap_or(Policy::And(Vec::new())));
    }
    if k == n {
        let mut out = Vec::with_capacity(n);
        for ch in children {
            match ch {
                Policy::And(g) => out.extend(g),
                other => out.push(other),
            }
        }
        Ok(Policy::And(out))
    } else if k == 1 {
        let mut out = Vec::with_capacity(n);
        for ch in children {
            match ch {
                Policy::Or(g) => out.extend(g),
                other => out.push(other),
            }
        }
        Ok(Policy::Or(out))
    } else {
        Ok(Policy::Threshold { k, children })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Policy {
        Policy::attr(s)
    }

    #[test]
    fn names_include_the_numeric_attributes_once() {
        let p = Policy::parse("doctor and (age >= 30 or (ward25 and age < 60) or doctor)").unwrap();
        assert_eq!(p.attributes(), ["doctor", "ward25"]);
        assert_eq!(p.names(), ["doctor", "age", "ward25"]);
    }

    #[test]
    fn normalize_rules() {
        let p = Policy::Threshold {
            k: 3,
            children: vec![a("x"), Policy::And(vec![a("y"), a("z")]), a("w")],
        };
        assert_eq!(
            p.normalize(),
            Ok(Policy::And(vec![a("x"), a("y"), a("z"), a("w")]))
        );
        let p = Policy::Threshold {
            k: 1,
            children: vec![Policy::Or(vec![a("y"), a("z")]), a("w")],
        };
        assert_eq!(p.normalize(), Ok(Policy::Or(vec![a("y"), a("z"), a("w")])));
        assert_eq!(Policy::And(vec![a("q")]).normalize(), Ok(a("q")));
        assert_eq!(
            Policy::Or(vec![Policy::And(vec![Policy::Or(vec![a("p")])])]).normalize(),
            Ok(a("p"))
        );
        let bad = Policy::Threshold {
            k: 0,
            children: vec![a("x"), a("y")],
        };
        assert_eq!(
            bad.normalize().map_err(|e| e.kind()),
            Err(ErrorKind::Threshold)
        );
        let bad = Policy::Threshold {
            k: 3,
            children: vec![a("x"), a("y")],
        };
        assert!(bad.normalize().is_err());
        assert!(Policy::And(vec![]).normalize().is_err());
        assert!(a("").normalize().is_err());
        assert!(a("x#y").normalize().is_err());
        assert!(a(&"n".repeat(257)).normalize().is_err());
        assert!(a(&"n".repeat(256)).normalize().is_ok());
    }

    #[test]
    fn normalize_deep_programmatic_policy_errors() {
        let mut p = a("x");
        for i in 0..200 {
            p = if i % 2 == 0 {
                Policy::And(vec![p, a("y")])
            } else {
                Policy::Or(vec![p, a("z")])
            };
        }
        assert_eq!(p.normalize().map_err(|e| e.kind()), Err(ErrorKind::Limit));
    }
}
