//! The three policy syntaxes (infix, postfix, FBF), `parse_any` and
//! attribute lists. Every parsed policy must print to infix that parses back
//! to the same value; its access tree must agree with itself (satisfaction,
//! cheapest selection, LSSS shares and reconstruction over BN254's Z_r),
//! and its negating tree (TKN20's) must mean the same.
#![no_main]

use abbe::curve::{Bn254, Curve, Scalar};
use abbe::policy::{AccessTree, AttributeSet, Policy};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

type F = <Bn254 as Curve>::Scalar;

fn fixed_set() -> &'static AttributeSet {
    static SET: OnceLock<AttributeSet> = OnceLock::new();
    SET.get_or_init(|| {
        AttributeSet::parse("doctor, cardiology, nurse, ward25, A, C, D, a, c, age = 42, level = 3")
            .expect("fixed attribute set")
    })
}

/// Satisfaction, the cheapest selection and the secret it reconstructs.
fn check_tree(tree: &AccessTree, set: &AttributeSet) {
    let sel = tree.cheapest_satisfying(set);
    assert_eq!(sel.is_some(), tree.is_satisfied(set));
    let Some(sel) = sel else { return };
    for a in sel.attributes(tree) {
        assert!(set.contains(a), "selected {a:?}, not in the set");
    }
    let _ = tree.visited_gates(&sel);
    let secret = F::from_u64(0x5ec7e7);
    let rand: Vec<F> = (1..tree.share_width() as u64)
        .map(|i| F::from_u64(i * 7919 + 3))
        .collect();
    let shares = tree.shares(secret, &rand).expect("shares");
    let omega = tree
        .reconstruction::<F>(&sel)
        .expect("reconstruction of a satisfying selection");
    let sum = omega
        .into_iter()
        .fold(<F as Scalar>::zero(), |acc, (i, w)| acc + w * shares[i]);
    assert_eq!(sum, secret, "LSSS reconstruction");
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = [
        Policy::parse(&text),
        Policy::parse_postfix(&text),
        Policy::parse_fbf(&text),
        Policy::parse_any(&text),
    ];
    for p in parsed.iter().flatten() {
        let printed = p.to_string();
        assert_eq!(
            Policy::parse(&printed).as_ref(),
            Ok(p),
            "printed as {printed:?}"
        );
        let Ok(tree) = p.to_tree() else { continue };
        let _ = (tree.work(), tree.gate_count());
        check_tree(&tree, fixed_set());
        // Every other plain leaf: satisfied or not, depending on the tree.
        let half = tree.leaves().iter().step_by(2).filter(|a| !a.contains('#'));
        if let Ok(set) = AttributeSet::from_names(half) {
            check_tree(&tree, &set);
        }
        // The negating tree (`x != v` one leaf) means what the expanded one
        // does, and selects only leaves the key satisfies.
        let Ok(negating) = p.to_negating_tree() else { continue };
        let set = fixed_set();
        let holds = |leaf: &str| set.satisfies_leaf(leaf);
        assert_eq!(negating.is_satisfied_by(&holds), tree.is_satisfied(set));
        if let Some(sel) = negating.cheapest_satisfying_by(&holds) {
            assert!(sel.attributes(&negating).iter().all(|l| holds(l)));
        }
    }
    if let Ok(set) = AttributeSet::parse(&text) {
        let shown = set.display_attrs().join(", ");
        assert_eq!(
            AttributeSet::parse(&shown).as_ref(),
            Ok(&set),
            "shown as {shown:?}"
        );
    }
});
