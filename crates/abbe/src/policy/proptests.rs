//! Property tests spanning several modules.

use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use super::generate::{attr_name, random_policy};
use super::lsss::toy::Fp;
use super::{AccessTree, AttributeSet, CmpOp, Lsss, Node, Policy, Selection};

const NAMES: &[&str] = &[
    "a",
    "b",
    "c",
    "doctor",
    "Or",
    "of",
    "and",
    "42",
    "x y",
    "q\"uote",
    "back\\slash",
    "héllo",
    "k-1.v:w/z@e",
    "_",
    "2of3",
];

fn arb_cmp() -> impl Strategy<Value = Policy> {
    (
        prop::sample::select(vec!["age", "level", "n 1"]),
        prop::sample::select(vec![
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::Eq,
            CmpOp::Ne,
        ]),
        1u8..=64,
        any::<u64>(),
        0u8..4,
    )
        .prop_map(|(attr, op, bits, raw, small)| {
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            // Mostly small constants so that edge cases are hit often.
            let value = if small == 0 {
                raw & mask
            } else {
                raw & mask & 0x3f
            };
            Policy::Compare {
                attr: attr.to_string(),
                op,
                value,
                bits,
            }
        })
}

/// AND, OR and k-of-n gates of 1 to 4 children drawn from `inner`.
fn gates(inner: BoxedStrategy<Policy>) -> impl Strategy<Value = Policy> {
    prop_oneof![
        prop::collection::vec(inner.clone(), 1..5).prop_map(Policy::And),
        prop::collection::vec(inner.clone(), 1..5).prop_map(Policy::Or),
        (
            prop::collection::vec(inner, 1..5),
            any::<prop::sample::Index>()
        )
            .prop_map(|(children, ix)| Policy::Threshold {
                k: ix.index(children.len()) + 1,
                children,
            }),
    ]
}

fn arb_raw_policy() -> impl Strategy<Value = Policy> {
    let leaf = prop_oneof![
        4 => prop::sample::select(NAMES).prop_map(Policy::attr),
        1 => arb_cmp(),
    ];
    leaf.prop_recursive(5, 40, 4, gates)
}

fn arb_policy() -> impl Strategy<Value = Policy> {
    arb_raw_policy().prop_filter_map("invalid comparison", |p| p.normalize().ok())
}

/// Small policies over plain attributes only (for brute-force checks).
fn arb_small_attr_policy() -> impl Strategy<Value = Policy> {
    let leaf = prop::sample::select(NAMES).prop_map(Policy::attr);
    leaf.prop_recursive(3, 12, 4, gates)
}

/// Leaf-level satisfaction: leaf `i` is true iff bit `i` of `mask` is set.
fn sat_mask(node: &Node, mask: u32) -> bool {
    match node {
        Node::Leaf { index } => mask >> index & 1 == 1,
        Node::Gate { k, children } => children.iter().filter(|c| sat_mask(c, mask)).count() >= *k,
    }
}

/// Brute-force minimum number of leaves of a satisfying selection.
fn brute_min(tree: &AccessTree, attrs: &AttributeSet) -> Option<u32> {
    let n = tree.leaves().len();
    let allowed: u32 = tree
        .leaves()
        .iter()
        .enumerate()
        .filter(|(_, a)| attrs.contains(a))
        .fold(0, |m, (i, _)| m | 1 << i);
    (0u32..1 << n)
        .filter(|m| m & !allowed == 0 && sat_mask(tree.root(), *m))
        .map(u32::count_ones)
        .min()
}

/// Checks satisfaction, the cheapest selection and LSSS reconstruction.
fn check_tree(tree: &AccessTree, attrs: &AttributeSet, seed: u64) -> Result<(), TestCaseError> {
    // The tree computes what the matrix would: width, work (= non-zero
    // entries) and the shares, without building it.
    let lsss: Lsss<Fp> = Lsss::from_tree(tree);
    prop_assert_eq!(tree.share_width(), lsss.width());
    let nonzeros: usize = lsss.rows().iter().map(Vec::len).sum();
    prop_assert_eq!(tree.work(), nonzeros as u64);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let secret = Fp::new(rng.next_u64());
    let rand: Vec<Fp> = (1..lsss.width()).map(|_| Fp::new(rng.next_u64())).collect();
    let lambda = lsss
        .shares(secret, &rand)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        tree.shares(secret, &rand)
            .map_err(|e| TestCaseError::fail(e.to_string()))?,
        lambda.clone()
    );
    let sel = tree.cheapest_satisfying(attrs);
    prop_assert_eq!(tree.is_satisfied(attrs), sel.is_some());
    if tree.leaves().len() <= 12 {
        prop_assert_eq!(brute_min(tree, attrs), sel.as_ref().map(|s| s.len() as u32));
    }
    let Some(sel) = sel else {
        return Ok(());
    };
    for a in sel.attributes(tree) {
        prop_assert!(attrs.contains(a));
    }
    let omega = lsss
        .reconstruction(tree, &sel)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut sum = Fp(0);
    for (i, w) in omega {
        prop_assert!(sel.contains(i));
        sum = sum + w * lambda.get(i).copied().unwrap_or(Fp(0));
    }
    prop_assert_eq!(sum, secret);
    if lsss.width() <= 40 {
        let generic = lsss.solve_generic(sel.leaves());
        prop_assert!(generic.is_some());
        let sum = generic
            .unwrap_or_default()
            .into_iter()
            .fold(Fp(0), |acc, (i, w)| acc + w * lambda[i]);
        prop_assert_eq!(sum, secret);
    }
    Ok(())
}

/// Policies over comparisons only (the leaves a negation may reach).
fn arb_comparison_policy() -> impl Strategy<Value = Policy> {
    arb_cmp()
        .prop_recursive(4, 24, 4, gates)
        .prop_filter_map("invalid comparison", |p| p.normalize().ok())
}

/// The meaning of a policy, evaluated directly on the key's values: an
/// independent evaluator for the trees (a comparison on an attribute the
/// key lacks is false, whatever its operator).
fn evaluate(p: &Policy, attrs: &AttributeSet) -> bool {
    match p {
        Policy::Attr(a) => attrs.contains(a),
        Policy::Compare {
            attr, op, value, ..
        } => attrs
            .numeric_value(attr)
            .is_some_and(|v| op.eval(v, *value)),
        Policy::And(c) => c.iter().all(|x| evaluate(x, attrs)),
        Policy::Or(c) => c.iter().any(|x| evaluate(x, attrs)),
        Policy::Threshold { k, children } => {
            children.iter().filter(|x| evaluate(x, attrs)).count() >= *k
        }
    }
}

fn check_no_panic(s: &str) {
    let parsed = [
        Policy::parse(s),
        Policy::parse_postfix(s),
        Policy::parse_fbf(s),
        Policy::parse_any(s),
    ];
    for p in parsed.iter().flatten() {
        let _ = p.to_tree();
        assert_eq!(Policy::parse(&p.to_string()).as_ref(), Ok(p));
    }
    let _ = AttributeSet::parse(s);
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise; never write regression
    // files (they would land outside this module's directory).
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn print_parse_roundtrip(p in arb_policy()) {
        let text = p.to_string();
        prop_assert_eq!(Policy::parse(&text), Ok(p.clone()), "{}", text);
        prop_assert_eq!(p.clone().normalize(), Ok(p));
    }

    #[test]
    fn perazzo_policies(n in 1usize..=12, p_c in 0.2f64..=1.0, p_and in 0.0f64..=1.0,
                        seed in any::<u64>(), mask in any::<u32>()) {
        let p = random_policy(n, p_c, p_and, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let tree = p.to_tree().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let names: Vec<String> = (1..=n).filter(|i| mask >> i & 1 == 1).map(attr_name).collect();
        let attrs = AttributeSet::from_names(&names).map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_tree(&tree, &attrs, seed)?;
        let full = AttributeSet::from_names((1..=n).map(attr_name)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(tree.is_satisfied(&full));
        check_tree(&tree, &full, seed ^ 1)?;
    }

    #[test]
    fn arbitrary_policies_and_sets(p in arb_policy(), mask in any::<u32>(),
                                   age in prop_oneof![0u64..70, any::<u64>()], level in 0u64..70,
                                   seed in any::<u64>()) {
        let tree = p.to_tree().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut attrs = AttributeSet::from_names(
            NAMES.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, n)| *n),
        ).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if mask >> 20 & 1 == 1 {
            attrs.insert_numeric("age", age).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        if mask >> 21 & 1 == 1 {
            attrs.insert_numeric("level", level).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        check_tree(&tree, &attrs, seed)?;
    }

    #[test]
    fn cheapest_never_worse_than_any_satisfying_subset(p in arb_small_attr_policy(), mask in any::<u32>()) {
        let tree = p.to_tree().map_err(|e| TestCaseError::fail(e.to_string()))?;
        if tree.leaves().len() > 12 || tree.leaves().iter().any(|a| a.contains('#')) {
            return Ok(());
        }
        // Leaf-level selection given by `mask`: if it satisfies, cheapest is no larger.
        let n = tree.leaves().len();
        let m = mask & ((1u32 << n) - 1);
        if sat_mask(tree.root(), m) {
            let names: Vec<&str> = (0..n).filter(|i| m >> i & 1 == 1).filter_map(|i| tree.leaf(i)).collect();
            let attrs = AttributeSet::from_names(names).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let sel = tree.cheapest_satisfying(&attrs);
            prop_assert!(sel.is_some());
            prop_assert!(sel.map_or(u32::MAX, |s| s.len() as u32) <= m.count_ones());
        }
    }

    #[test]
    fn negation_and_both_trees_agree_with_the_evaluator(
        p in arb_comparison_policy(), mask in 0u8..8,
        values in prop::array::uniform3(prop_oneof![0u64..70, any::<u64>(), Just(u64::MAX)]),
    ) {
        let mut attrs = AttributeSet::new();
        for (i, name) in ["age", "level", "n 1"].iter().enumerate() {
            if mask >> i & 1 == 1 {
                attrs.insert_numeric(name, values[i]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
        }
        let Ok(negated) = p.clone().negate() else {
            return Err(TestCaseError::fail("a comparison policy negates"));
        };
        for q in [&p, &negated] {
            let expect = evaluate(q, &attrs);
            let tree = q.to_tree().map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(tree.is_satisfied(&attrs), expect, "{}", q);
            let native = q.to_negating_tree().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let holds = |l: &str| attrs.satisfies_leaf(l);
            prop_assert_eq!(native.is_satisfied_by(&holds), expect, "{}", q);
            if let Some(sel) = native.cheapest_satisfying_by(&holds) {
                prop_assert!(sel.attributes(&native).iter().all(|l| attrs.satisfies_leaf(l)));
            }
            prop_assert_eq!(Policy::parse(&q.to_string()), Ok(q.clone()));
        }
        // With every attribute held, the negation is the complement.
        if mask == 7 {
            prop_assert_eq!(evaluate(&negated, &attrs), !evaluate(&p, &attrs));
        }
    }

    #[test]
    fn random_strings_never_panic(s in ".{0,80}") {
        check_no_panic(&s);
    }

    #[test]
    fn policy_alphabet_never_panics(s in r#"[()a-c0-9 ,"\\#<>=!&|ofANDnt-]{0,60}"#) {
        check_no_panic(&s);
    }

    #[test]
    fn random_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..100)) {
        check_no_panic(&String::from_utf8_lossy(&b));
    }
}

#[test]
fn selection_from_other_tree_is_rejected() {
    let t1 = Policy::parse("a and b").and_then(|p| p.to_tree());
    let t2 = Policy::parse("c or d").and_then(|p| p.to_tree());
    let (Ok(t1), Ok(t2)) = (t1, t2) else {
        panic!("parse failed");
    };
    let l: Lsss<Fp> = Lsss::from_tree(&t1);
    assert!(l
        .reconstruction(&t2, &Selection::from_leaves(vec![0]))
        .is_err());
}
