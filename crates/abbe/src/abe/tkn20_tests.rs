//! TKN20's tests: the conformance suite, negation, and the attacks of
//! CIRCL's history (a key that does not satisfy never decrypts; forged and
//! combined keys never do).

use super::*;
use crate::conformance::{self, attrs, pol, rng, Case};
use crate::curve::{Bls12, Counted, OpCounts};
use rand_chacha::ChaCha20Rng;

type T = Tkn20<Bls12>;

/// The conformance policy and sets, then negation by value.
const NEGATED: &[(&str, &str, bool)] = &[
    ("doctor, ward = 5", "doctor and ward != 7", true),
    ("doctor, ward = 7", "doctor and ward != 7", false),
    ("doctor", "doctor and ward != 7", false),
    ("doctor, ward = 0", "not (ward = 7 or level < 3)", false),
    (
        "doctor, ward = 0, level = 3",
        "not (ward = 7 or level < 3)",
        true,
    ),
    (
        "ward = 7, level = 9",
        "2 of (ward != 7, ward != 8, level != 9)",
        false,
    ),
    (
        "ward = 6, level = 9",
        "2 of (ward != 7, ward != 8, level != 9)",
        true,
    ),
    ("ward = 18446744073709551615", "ward != 0#64", true),
];

fn case<C: Curve>() -> Case<'static, Tkn20<C>> {
    let mut case = Case::one_target((), conformance::POLICY, conformance::ATTRIBUTE_SETS);
    case.pairs
        .extend(NEGATED.iter().map(|&(k, t, ok)| (k, t, ok)));
    case
}

#[test]
fn conformance_bls12() {
    let case = case::<Bls12>();
    conformance::run(&case);
    conformance::random_policies(&case);
}

#[test]
fn conformance_bn254() {
    conformance::run(&case::<crate::curve::Bn254>());
}

/// The mirrored placement (G1 and G2 exchanged).
#[test]
fn conformance_bls12_swapped() {
    conformance::run(&case::<crate::curve::Swapped<Bls12>>());
}

/// A `!=` is one row with one C'_3, not a bag-of-bits expansion; the
/// occurrence numbers count rows of the same label (`x#` for every
/// `x != v`).
#[test]
fn negation_is_one_row_and_labels_count_occurrences() {
    let mut r = rng(1);
    let (pk, _) = T::setup(&(), &mut r).unwrap();
    let (_, h) = T::encapsulate(&pk, &pol("a and x != 3 and (x != 4 or a)"), &mut r).unwrap();
    assert_eq!((h.c3.len(), h.c3_neg.len(), h.c2.len()), (4, 2, 2));
    let (_, h) = T::encapsulate(&pk, &pol("a and x = 3"), &mut r).unwrap();
    assert_eq!((h.c3.len(), h.c3_neg.len(), h.c2.len()), (2, 0, 1));
}

/// The values of a key are bound by its K_3: a key for `ward = 7` whose
/// list is edited to say `ward = 5` does not open `ward != 7` (the paper's
/// δ then mixes K_{3,ward#} of value 7 with the header's rows for 5).
#[test]
fn an_edited_value_does_not_decrypt() {
    let mut r = rng(2);
    let (pk, mk) = T::setup(&(), &mut r).unwrap();
    let (key, header) = T::encapsulate(&pk, &pol("doctor and ward != 7"), &mut r).unwrap();
    let seven = T::keygen(&pk, &mk, &attrs("doctor, ward = 7"), &mut r).unwrap();
    let five = attrs("doctor, ward = 5");
    let mut k3 = seven.k3.0.clone();
    // The markers of 5 taken from nowhere: the edited key keeps 7's.
    let forged = UserKey::<Bls12> {
        setup_id: seven.setup_id,
        set: five.clone(),
        k1: Secret(seven.k1.0.clone()),
        k2: Secret(*seven.k2),
        k3: Secret({
            let old: Vec<[<Bls12 as Curve>::G1; 4]> = k3.values().copied().collect();
            k3.clear();
            five.iter()
                .zip(old.iter().cycle())
                .map(|(n, p)| (n.to_string(), *p))
                .collect()
        }),
        k3_value: Secret(seven.k3_value.0.clone()),
    };
    match T::decapsulate(&forged, &header) {
        Ok(k) => assert_ne!(k, key),
        Err(e) => panic!("the forged key should decrypt to garbage, not fail: {e}"),
    }
}

/// Collusion: a key for `doctor, ward = 7` and one for `ward = 5` (no
/// doctor) cannot pool their elements for `doctor and ward != 7`.
#[test]
fn keys_of_two_users_do_not_combine() {
    let mut r = rng(3);
    let (pk, mk) = T::setup(&(), &mut r).unwrap();
    let (key, header) = T::encapsulate(&pk, &pol("doctor and ward != 7"), &mut r).unwrap();
    let a = T::keygen(&pk, &mk, &attrs("doctor, ward = 7"), &mut r).unwrap();
    let b = T::keygen(&pk, &mk, &attrs("nurse, ward = 5"), &mut r).unwrap();
    for k in [&a, &b] {
        assert!(matches!(
            T::decapsulate(k, &header),
            Err(KemError::NotSatisfied)
        ));
    }
    let set = attrs("doctor, ward = 5");
    let mut k3 = BTreeMap::new();
    for n in set.iter() {
        let p = a.k3.get(n).or_else(|| b.k3.get(n)).copied();
        k3.insert(n.to_string(), p.unwrap());
    }
    for (base, values) in [(&a, &b), (&b, &a)] {
        let pooled = UserKey::<Bls12> {
            setup_id: base.setup_id,
            set: set.clone(),
            k1: Secret(base.k1.0.clone()),
            k2: Secret(*base.k2),
            k3: Secret(k3.clone()),
            k3_value: Secret(values.k3_value.0.clone()),
        };
        assert!(T::decapsulate(&pooled, &header).ok().as_ref() != Some(&key));
    }
}

/// The meaning of a policy on a key, evaluated directly (the independent
/// evaluator of the property test below).
fn evaluate(p: &Policy, set: &AttributeSet) -> bool {
    match p {
        Policy::Attr(a) => set.contains(a),
        Policy::Compare {
            attr, op, value, ..
        } => set.numeric_value(attr).is_some_and(|v| op.eval(v, *value)),
        Policy::And(c) => c.iter().all(|x| evaluate(x, set)),
        Policy::Or(c) => c.iter().any(|x| evaluate(x, set)),
        Policy::Threshold { k, children } => {
            children.iter().filter(|x| evaluate(x, set)).count() >= *k
        }
    }
}

/// A random policy over `a`, `b`, `c` and comparisons of `x`, `y` with
/// values below 8, with `not` over comparison-only subtrees.
fn random_policy(r: &mut ChaCha20Rng, depth: u32) -> Policy {
    let pick = |r: &mut ChaCha20Rng, n: u32| (r.next_u32() % n) as usize;
    if depth == 0 || pick(r, 3) == 0 {
        return if pick(r, 3) == 0 {
            Policy::attr(["a", "b", "c"][pick(r, 3)])
        } else {
            let ops = [
                crate::policy::CmpOp::Lt,
                crate::policy::CmpOp::Le,
                crate::policy::CmpOp::Gt,
                crate::policy::CmpOp::Ge,
                crate::policy::CmpOp::Eq,
                crate::policy::CmpOp::Ne,
            ];
            let (op, value) = (ops[pick(r, 6)], pick(r, 8) as u64);
            let p = Policy::Compare {
                attr: ["x", "y"][pick(r, 2)].into(),
                op,
                value,
                bits: 3,
            };
            p.clone().normalize().unwrap_or_else(|_| Policy::attr("a"))
        };
    }
    let n = 1 + pick(r, 3);
    let children: Vec<Policy> = (0..n).map(|_| random_policy(r, depth - 1)).collect();
    let k = 1 + pick(r, n as u32);
    let gate = Policy::Threshold { k, children }.normalize().unwrap();
    match pick(r, 3) {
        0 => gate.clone().negate().unwrap_or(gate),
        _ => gate,
    }
}

/// For thousands of (random policy with negations, key) pairs, a key
/// decrypts exactly when the independent evaluator says it satisfies the
/// policy, and then to the encapsulated key (CIRCL's AND-share bug, commit
/// def2fd35, let a non-satisfying key decrypt).
#[test]
fn random_negated_policies_decrypt_exactly_when_satisfied() {
    let mut r = rng(4);
    let (pk, mk) = T::setup(&(), &mut r).unwrap();
    let sets = [
        "a, x = 3",
        "a, b, x = 0, y = 7",
        "c, y = 2",
        "a, b, c",
        "b, x = 7, y = 7",
        "x = 5, y = 1",
    ];
    let keys: Vec<(AttributeSet, UserKey<Bls12>)> = sets
        .iter()
        .map(|s| {
            let set = attrs(s);
            let key = T::keygen(&pk, &mk, &set, &mut r).unwrap();
            (set, key)
        })
        .collect();
    let (mut opened, mut refused) = (0, 0);
    for _ in 0..400 {
        let policy = random_policy(&mut r, 3);
        let (key, header) = T::encapsulate(&pk, &policy, &mut r).unwrap();
        let header = Header::<Bls12>::from_bytes(&header.to_bytes()).unwrap();
        for (set, uk) in &keys {
            match (evaluate(&policy, set), T::decapsulate(uk, &header)) {
                (true, Ok(k)) if k == key => opened += 1,
                (false, Err(KemError::NotSatisfied)) => refused += 1,
                (expect, got) => panic!("{policy} / {set:?}: expected {expect}, got {got:?}"),
            }
        }
    }
    assert!(
        opened > 300 && refused > 300,
        "{opened} opened, {refused} refused"
    );
}

/// Every count and length in a header is checked before use: a header
/// whose C'_3 or C_2 lists do not fit its policy is refused at decoding
/// (CIRCL #484, #695: length prefixes that overflowed).
#[test]
fn headers_with_wrong_counts_are_refused() {
    let mut r = rng(5);
    let (pk, _) = T::setup(&(), &mut r).unwrap();
    let (_, header) = T::encapsulate(&pk, &pol("a and x != 3"), &mut r).unwrap();
    let mut h = Header::<Bls12>::from_bytes(&header.to_bytes()).unwrap();
    h.c3_neg.clear();
    assert!(Header::<Bls12>::from_bytes(&h.to_bytes()).is_err());
    let mut h = Header::<Bls12>::from_bytes(&header.to_bytes()).unwrap();
    h.c2.push(h.c2[0]);
    assert!(Header::<Bls12>::from_bytes(&h.to_bytes()).is_err());
    let mut h = Header::<Bls12>::from_bytes(&header.to_bytes()).unwrap();
    h.c3.pop();
    assert!(Header::<Bls12>::from_bytes(&h.to_bytes()).is_err());
}

#[test]
fn inversion_of_4x4_matrices() {
    use crate::curve::Scalar as _;
    type S = <Bls12 as Curve>::Scalar;
    let mut r = rng(6);
    let m: [S; 16] = core::array::from_fn(|_| S::random(&mut r));
    let inv = invert4(&m).unwrap();
    for i in 0..4 {
        for j in 0..4 {
            let e = (0..4).fold(S::zero(), |acc, t| acc + m[i * 4 + t] * inv[t * 4 + j]);
            assert_eq!(e, if i == j { S::one() } else { S::zero() });
        }
    }
    let mut singular = m;
    for c in 0..4 {
        singular[4 + c] = m[c] + m[c];
    }
    assert!(invert4(&singular).is_none());
    // A zero pivot is swapped away.
    let mut p = m;
    p[0] = S::zero();
    assert!(invert4(&p).is_some());
}

/// Decryption is 7 + 4·(occurrence numbers used) pairings, one final
/// exponentiation, whatever the size of the policy.
#[test]
fn op_counts_decrypt() {
    type K = Tkn20<Counted<Bls12>>;
    let mut r = rng(7);
    let (pk, mk) = K::setup(&(), &mut r).unwrap();
    let names: Vec<String> = (0..20).map(|i| format!("a{i}")).collect();
    let policy = pol(&format!("{} and x != 4", names.join(" and ")));
    let set = attrs(&format!("{}, x = 9", names.join(", ")));
    let key = K::keygen(&pk, &mk, &set, &mut r).unwrap();
    let (_, header) = K::encapsulate(&pk, &policy, &mut r).unwrap();
    let (_, counts) = OpCounts::measure(|| K::decapsulate(&key, &header).unwrap());
    assert_eq!(
        (counts.miller_loops, counts.final_exps),
        (11, 1),
        "{counts:?}"
    );
}
