//! Access trees: the expanded, scheme-facing form of a policy.

use super::ast::{validate_compare, validate_name, CmpOp, Policy};
use super::attrs::AttributeSet;
use super::error::{ErrorKind, PolicyError};
use super::limits::{max_policy_work, MAX_DEPTH, MAX_LEAVES};
use super::numeric;

/// A node of an [`AccessTree`].
///
/// Gates are k-of-n threshold gates: AND is n-of-n, OR is 1-of-n.  Leaves
/// carry their index into [`AccessTree::leaves`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Leaf number `index` (left-to-right order).
    Leaf {
        /// Index into [`AccessTree::leaves`].
        index: usize,
    },
    /// A k-of-n threshold gate, `1 <= k <= children.len()`.
    Gate {
        /// Number of children that must be satisfied.
        k: usize,
        /// Children, in policy order.
        children: Vec<Node>,
    },
}

/// Classification of a gate used by the LSSS construction and the
/// reconstruction; both must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateKind {
    /// `k == n` (includes the 1-of-1 gate).
    And,
    /// `k == 1 < n`.
    Or,
    /// `1 < k < n`.
    Threshold,
}

impl GateKind {
    /// Kind of a k-of-n gate.
    pub fn of(k: usize, n: usize) -> GateKind {
        if k == n {
            GateKind::And
        } else if k == 1 {
            GateKind::Or
        } else {
            GateKind::Threshold
        }
    }
}

/// The expanded form of a policy: numeric comparisons are replaced by gates
/// over bag-of-bits markers, the gate structure of the policy is otherwise
/// kept as written (non-canonical shapes such as the "3-level" benchmark
/// policies are preserved).
/// A policy with its access tree, built once (and held to the policy work
/// budget by [`Policy::to_tree`]).
#[derive(Clone, Debug)]
pub struct PolicyTree {
    pub policy: Policy,
    pub tree: AccessTree,
}

impl PolicyTree {
    pub fn new(policy: Policy) -> Result<Self, PolicyError> {
        let tree = policy.to_tree()?;
        Ok(PolicyTree { policy, tree })
    }
}

/// A policy with its negating access tree ([`Policy::to_negating_tree`]):
/// what a header of a scheme that negates natively carries.
#[derive(Clone, Debug)]
pub struct NegatingPolicyTree(pub PolicyTree);

impl NegatingPolicyTree {
    pub fn new(policy: Policy) -> Result<Self, PolicyError> {
        let tree = policy.to_negating_tree()?;
        Ok(NegatingPolicyTree(PolicyTree { policy, tree }))
    }
}

impl core::ops::Deref for NegatingPolicyTree {
    type Target = PolicyTree;
    fn deref(&self) -> &PolicyTree {
        &self.0
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessTree {
    root: Node,
    leaves: Vec<String>,
}

/// A set of leaves (by index) chosen to satisfy an [`AccessTree`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    leaves: Vec<usize>,
}

impl Selection {
    /// Builds a selection from leaf indices (sorted and deduplicated).
    pub fn from_leaves(mut leaves: Vec<usize>) -> Self {
        leaves.sort_unstable();
        leaves.dedup();
        Selection { leaves }
    }

    /// Selected leaf indices, ascending.
    pub fn leaves(&self) -> &[usize] {
        &self.leaves
    }

    /// Number of selected leaves.
    pub fn len(&self) -> usize {
        self.leaves.len()
    }

    /// Whether no leaf is selected.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// Whether leaf `index` is selected.
    pub fn contains(&self, index: usize) -> bool {
        self.leaves.binary_search(&index).is_ok()
    }

    /// Attributes of the selected leaves (in leaf order).
    pub fn attributes<'t>(&self, tree: &'t AccessTree) -> Vec<&'t str> {
        self.leaves.iter().filter_map(|&i| tree.leaf(i)).collect()
    }
}

struct Builder {
    leaves: Vec<String>,
    /// `x != v` as one negated exact marker (schemes that negate natively)
    /// rather than its bag-of-bits expansion.
    negating: bool,
}

impl Builder {
    fn leaf(&mut self, attr: String) -> Result<Node, PolicyError> {
        if self.leaves.len() >= MAX_LEAVES {
            return Err(PolicyError::new(
                ErrorKind::Limit,
                format!("at most {MAX_LEAVES} leaves after numeric expansion"),
                "more leaves",
            ));
        }
        self.leaves.push(attr);
        Ok(Node::Leaf {
            index: self.leaves.len() - 1,
        })
    }

    fn convert(&mut self, p: &Policy, depth: usize, markers: bool) -> Result<Node, PolicyError> {
        let (k, children) = match p {
            Policy::Attr(a) => {
                if !markers {
                    validate_name(a)?;
                }
                return self.leaf(a.clone());
            }
            Policy::Compare {
                attr,
                op,
                value,
                bits,
            } => {
                validate_compare(attr, *op, *value, *bits)?;
                if self.negating && *op == CmpOp::Ne {
                    return self.leaf(numeric::negated_exact_marker(attr, *value));
                }
                let expanded = numeric::expand(attr, *op, *value)?;
                return self.convert(&expanded, 0, true);
            }
            Policy::And(c) => (c.len(), c),
            Policy::Or(c) => (1, c),
            Policy::Threshold { k, children } => (*k, children),
        };
        if !markers && depth >= MAX_DEPTH {
            return Err(super::ast::depth_error(depth + 1));
        }
        let n = children.len();
        if n == 0 || k == 0 || k > n {
            return Err(PolicyError::new(
                ErrorKind::Threshold,
                "a gate with 1 <= k <= n and at least one child",
                format!("{k} of {n}"),
            ));
        }
        let children = children
            .iter()
            .map(|c| self.convert(c, depth + 1, markers))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Node::Gate { k, children })
    }
}

impl Policy {
    /// Expands the policy into an [`AccessTree`] (numeric comparisons become
    /// marker gates, see [`super::numeric`]).  Validates names, gates, depth
    /// and the leaf limit, so it also accepts non-canonical policies; and
    /// the work budget ([`super::limits::max_policy_work`]): a tree whose
    /// [`AccessTree::work`] exceeds it is refused before any scheme sees it.
    pub fn to_tree(&self) -> Result<AccessTree, PolicyError> {
        self.build_tree(false)
    }

    /// [`Policy::to_tree`] for a scheme that negates natively: every
    /// `x != v` is one leaf, the negated exact marker `x#!=v`
    /// ([`numeric::negated_exact_marker`]), which
    /// [`AccessTree::cheapest_satisfying_by`] lets the scheme judge.
    pub fn to_negating_tree(&self) -> Result<AccessTree, PolicyError> {
        self.build_tree(true)
    }

    fn build_tree(&self, negating: bool) -> Result<AccessTree, PolicyError> {
        let mut b = Builder {
            leaves: Vec::new(),
            negating,
        };
        let root = b.convert(self, 0, false)?;
        let tree = AccessTree {
            root,
            leaves: b.leaves,
        };
        let (work, budget) = (tree.work(), max_policy_work());
        if work > budget {
            return Err(PolicyError::new(
                ErrorKind::Limit,
                format!(
                    "a policy within the work budget of {budget} (non-zero entries of its LSSS matrix; \
                     a k-of-n gate costs n·(k−1); --max-policy-work raises the budget)"
                ),
                format!("a policy of work {work}"),
            ));
        }
        Ok(tree)
    }
}

fn satisfied(node: &Node, leaves: &[String], holds: &dyn Fn(&str) -> bool) -> bool {
    match node {
        Node::Leaf { index } => leaves.get(*index).is_some_and(|a| holds(a)),
        Node::Gate { k, children } => {
            let mut count = 0usize;
            for c in children {
                if satisfied(c, leaves, holds) {
                    count += 1;
                    if count >= *k {
                        return true;
                    }
                }
            }
            false
        }
    }
}

/// Minimum-leaf satisfying subset of the subtree, as leaf indices.
fn cheapest(node: &Node, leaves: &[String], holds: &dyn Fn(&str) -> bool) -> Option<Vec<usize>> {
    match node {
        Node::Leaf { index } => leaves
            .get(*index)
            .filter(|a| holds(a))
            .map(|_| vec![*index]),
        Node::Gate { k, children } => {
            let mut sat: Vec<(usize, Vec<usize>)> = children
                .iter()
                .enumerate()
                .filter_map(|(i, c)| cheapest(c, leaves, holds).map(|s| (i, s)))
                .collect();
            if sat.len() < *k {
                return None;
            }
            // Stable sort by cost keeps child order among equal costs.
            sat.sort_by_key(|(_, s)| s.len());
            let mut out = Vec::new();
            for (_, s) in sat.into_iter().take(*k) {
                out.extend(s);
            }
            Some(out)
        }
    }
}

/// Non-zero entries of the LSSS rows below `node`, whose parent row has
/// `parent` of them (the construction of [`super::Lsss::from_tree`]).
fn work(node: &Node, parent: u64) -> u64 {
    match node {
        Node::Leaf { .. } => parent,
        Node::Gate { k, children } => {
            let n = children.len() as u64;
            let kind = GateKind::of(*k, children.len());
            let extra = match kind {
                GateKind::And => n.saturating_sub(1),
                GateKind::Or => 0,
                GateKind::Threshold => *k as u64 - 1,
            };
            children.iter().enumerate().fold(0u64, |acc, (j, c)| {
                let row = match kind {
                    // AND: the first child carries the parent row and the
                    // new columns, the others one new column each.
                    GateKind::And if j > 0 => 1,
                    _ => parent.saturating_add(extra),
                };
                acc.saturating_add(work(c, row))
            })
        }
    }
}

fn count_gates(node: &Node) -> usize {
    match node {
        Node::Leaf { .. } => 0,
        Node::Gate { children, .. } => 1 + children.iter().map(count_gates).sum::<usize>(),
    }
}

/// Returns (subtree touches the selection, visited gates below and here).
fn visited(node: &Node, sel: &Selection) -> (bool, usize) {
    match node {
        Node::Leaf { index } => (sel.contains(*index), 0),
        Node::Gate { children, .. } => {
            let mut any = false;
            let mut total = 0;
            for c in children {
                let (t, g) = visited(c, sel);
                any |= t;
                total += g;
            }
            (any, total + usize::from(any))
        }
    }
}

impl AccessTree {
    /// The root node.
    pub fn root(&self) -> &Node {
        &self.root
    }

    /// Leaf attributes; leaf `i` is the i-th leaf in left-to-right order.
    /// An attribute may occur at several leaves.
    pub fn leaves(&self) -> &[String] {
        &self.leaves
    }

    /// Attribute of leaf `index`.
    pub fn leaf(&self, index: usize) -> Option<&str> {
        self.leaves.get(index).map(String::as_str)
    }

    /// The work this policy costs a scheme: the number of non-zero entries
    /// of its LSSS matrix, computed on the tree in linear time (the matrix
    /// itself is never built for it). See
    /// [`super::limits::DEFAULT_MAX_POLICY_WORK`].
    pub fn work(&self) -> u64 {
        work(&self.root, 1)
    }

    /// Number of gates (internal nodes).
    pub fn gate_count(&self) -> usize {
        count_gates(&self.root)
    }

    /// Whether `attrs` satisfies the tree.
    pub fn is_satisfied(&self, attrs: &AttributeSet) -> bool {
        satisfied(&self.root, &self.leaves, &|a| attrs.contains(a))
    }

    /// Whether the tree is satisfied when `holds(leaf)` says which leaves
    /// a key satisfies.
    pub fn is_satisfied_by(&self, holds: &dyn Fn(&str) -> bool) -> bool {
        satisfied(&self.root, &self.leaves, holds)
    }

    /// The satisfying set of leaves with the fewest leaves, if any.
    ///
    /// Dynamic programming: a present leaf costs 1; a k-of-n gate costs the
    /// sum of its k cheapest satisfied children (AND: all, OR: the cheapest),
    /// ties broken by child order.  Each selected leaf's attribute is in
    /// `attrs`.
    pub fn cheapest_satisfying(&self, attrs: &AttributeSet) -> Option<Selection> {
        self.cheapest_satisfying_by(&|a| attrs.contains(a))
    }

    /// [`AccessTree::cheapest_satisfying`] when `holds(leaf)` says which
    /// leaves a key satisfies (a negated leaf is not an attribute it holds).
    pub fn cheapest_satisfying_by(&self, holds: &dyn Fn(&str) -> bool) -> Option<Selection> {
        cheapest(&self.root, &self.leaves, holds).map(Selection::from_leaves)
    }

    /// Number of gates a bottom-up decryption visits for `sel`: the gates
    /// whose subtree contains a selected leaf (the `n_N` of Perazzo et al.).
    pub fn visited_gates(&self, sel: &Selection) -> usize {
        visited(&self.root, sel).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_shape_and_cheapest() {
        let p =
            Policy::parse("(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)").unwrap();
        let t = p.to_tree().unwrap();
        assert_eq!(t.leaves().first().map(String::as_str), Some("doctor"));
        assert_eq!(t.leaf(2), Some("nurse"));
        let s = AttributeSet::parse("nurse, age = 31").unwrap();
        assert!(t.is_satisfied(&s));
        let sel = t.cheapest_satisfying(&s).unwrap();
        assert_eq!(sel.attributes(&t).first().copied(), Some("nurse"));
        assert!(sel.attributes(&t).iter().all(|a| s.contains(a)));
        let s = AttributeSet::parse("nurse, age = 29").unwrap();
        assert!(!t.is_satisfied(&s));
        assert!(t.cheapest_satisfying(&s).is_none());
        let s = AttributeSet::parse("doctor, cardiology, nurse, ward25").unwrap();
        let sel = t.cheapest_satisfying(&s).unwrap();
        assert_eq!(sel.leaves(), &[0, 1]);
        assert_eq!(t.visited_gates(&sel), 2);
    }

    #[test]
    fn prefers_fewest_leaves() {
        let p = Policy::parse("(a and b and c) or (d and e) or (a and f)").unwrap();
        let t = p.to_tree().unwrap();
        let s = AttributeSet::from_names(["a", "b", "c", "d", "e", "f"]).unwrap();
        let sel = t.cheapest_satisfying(&s).unwrap();
        assert_eq!(sel.attributes(&t), vec!["d", "e"]);
    }

    #[test]
    fn keeps_non_canonical_shape() {
        let p = Policy::And(vec![
            Policy::And(vec![Policy::attr("A1"), Policy::attr("A2")]),
            Policy::And(vec![Policy::attr("A3")]),
        ]);
        let t = p.to_tree().unwrap();
        assert_eq!(t.gate_count(), 3);
        assert!(Policy::And(vec![]).to_tree().is_err());
        assert!(Policy::Threshold {
            k: 3,
            children: vec![Policy::attr("x"), Policy::attr("y")]
        }
        .to_tree()
        .is_err());
        let mut deep = Policy::attr("x");
        for _ in 0..100 {
            deep = Policy::And(vec![deep]);
        }
        assert_eq!(deep.to_tree().unwrap_err().kind(), ErrorKind::Limit);
    }
}
