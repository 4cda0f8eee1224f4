//! BSW07 CP-ABE in KEM form.
//!
//! Paper: J. Bethencourt, A. Sahai, B. Waters, "Ciphertext-Policy
//! Attribute-Based Encryption", IEEE Symposium on Security and Privacy 2007,
//! §4.2 (construction) — the access-tree scheme with threshold gates, the
//! scheme perazzo et al. call "BSW" (`perazzo-abe-constrained-iot.txt` §3,
//! §6.1). KEM form: the ciphertext carries no C̃ = M·e(g,g)^{αs}; the session
//! key is derived from e(g,g)^{αs}.
//!
//! Notation (the paper's): generator g, master secrets α, β ∈ Z_p, random
//! oracle H: attributes → group, access tree T whose gate x has threshold
//! k_x, children indexed 1..num_x (`index(y)`), leaves y with attribute
//! att(y); Δ_{i,S}(0) = Π_{j∈S, j≠i} j/(j−i) is the Lagrange coefficient.
//!
//! ```text
//! Setup:    PK = (h = g^β, f = g^{1/β}, e(g,g)^α)        MSK = (β, α)
//! KeyGen S: r ←R Z_p; D = g^{(α+r)/β};
//!           for j ∈ S: r_j ←R Z_p; D_j = g^r·H(j)^{r_j}, D'_j = g^{r_j}
//! Encrypt T: s ←R Z_p; top-down, every gate x gets a random polynomial q_x
//!           of degree k_x − 1 with q_x(0) = q_parent(x)(index(x)) (q_root(0)
//!           = s); C = h^s; for each leaf y: C_y = g^{q_y(0)},
//!           C'_y = H(att(y))^{q_y(0)}; session key from e(g,g)^{αs}
//! Decrypt:  a satisfying set of leaves, ω_y = product of the Lagrange
//!           coefficients Δ_{index,S_x}(0) on the path from y to the root;
//!           e(C, D) · Π_y [e(D_att(y), C_y) / e(D'_att(y), C'_y)]^{−ω_y}
//!             = e(g,g)^{(α+r)s} · e(g,g)^{−rs} = e(g,g)^{αs}
//! ```
//!
//! The paper's DecryptNode recursion raises F_z to Lagrange coefficients
//! in GT; we compute the ω_y first (scalars only) and evaluate the whole
//! equation as **one** shared multi-pairing: 2N+1 Miller loops and one
//! final exponentiation for N used leaves. Shares are evaluated by Horner's
//! rule (linear per gate: perazzo §6.1's over-linear encryption is not
//! reproduced, see `cargo bench --bench bsw07 -- shape`).
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! H(j) occurs in D_j and C'_y, so those share a group and D_j/C_y,
//! D'_j/C'_y are in opposite groups. **H → G1**: hashing and exponentiating
//! H stay in G1 (cheap encryption and key generation); C_y = g2^{q_y(0)} and
//! the key's D'_j, D are in G2 — the key's lines are cached, the
//! ciphertext's C_y lines are computed per decryption. (H → G2 would cache
//! every per-leaf line but double the per-leaf cost of encryption.)
//! C = h^s ∈ G1, h = g1^β, f = g2^{1/β}.
//!
//! Secret scalars (β, α, r, r_j, the shares) meet points only in fixed-base
//! tables and [`Group::mul_secret`] (constant time on every curve); only
//! the public Lagrange coefficients take variable-time paths.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## The swapped placement
//! [`crate::curve::Swapped`] (`abbe setup --placement swapped`) exchanges G1
//! and G2: H, C'_y, D_j and C move to G2 and C_y, D'_j, D to G1: key
//! generation and encryption hash and exponentiate in G2, and decryption
//! still computes one line set per leaf, so the mirror is slower at every
//! operation (the lab's placement table); `--optimize` keeps the standard
//! placement. Security rests on the generic bilinear group model with the two
//! source groups exchanged, as plausible as the original on these curves (no
//! efficient isomorphism either way).

use crate::curve::LinedG2;
use crate::curve::{mul_public, par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::exps::Base::{Fixed, Point};
use crate::kem::{bind, issuable, same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::sharing::{reconstruction, tree_shares};
use crate::policy::{AttributeSet, Policy, PolicyTree};
use crate::wire::codec::{invalid, names_match, nonzero, object, rows_match, secrets_match};
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::attr_cache::AttrHashes;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bsw07<C>(PhantomData<C>);

/// Fixed-base tables, built on first use.
struct Tables<C: Curve> {
    g1: FixedBaseTable<C::G1>,
    g2: FixedBaseTable<C::G2>,
    h: FixedBaseTable<C::G1>,
}

object! {
    /// Public parameters: h = g1^β, f = g2^{1/β}, e(g,g)^α.
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        pub h: C::G1 => "h",
        pub f: C::G2 => "f",
        pub e_gg_alpha: C::Gt => "e(g,g)^α",
    }
    cached { tables: Lazy<Tables<C>>, hashes: AttrHashes<C::G1> }
    check "h and f are not the identity" => |pk| {
        if pk.h.is_identity() || pk.f.is_identity() {
            return Err(invalid("public key", "h or f is the identity"));
        }
        Ok(())
    };
}

impl<C: Curve> PublicKey<C> {
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            g1: C::G1::generator().precompute(),
            g2: C::G2::generator().precompute(),
            h: self.h.precompute(),
        })
    }

    /// H(x), cached by this key.
    fn h_of(&self, attr: &str) -> C::G1 {
        self.hashes.hash("BSW07", C::NAME, attr)
    }
}

object! {
    /// The master key (β, α) — the paper's (β, g^α), stored as scalars;
    /// wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        beta: Secret<C::Scalar> => "β",
        alpha: Secret<C::Scalar> => "α",
    }
    check "β ≠ 0; β and α give the public key of the setup id" => |mk| {
        nonzero("master key", &*mk.beta)?;
        secrets_match(mk.public_key().setup_id(), mk.setup_id)
    };
}

impl<C: Curve> MasterKey<C> {
    /// Recomputes the public key from the master secrets (β ≠ 0 is an
    /// invariant of every master key: setup draws it so and the decoder
    /// refuses 0).
    pub fn public_key(&self) -> PublicKey<C> {
        let mut beta_inv = self.beta.invert().unwrap_or_else(C::Scalar::zero);
        let e_gg = C::pairing(&C::G1::generator(), &C::G2::generator());
        let pk = PublicKey {
            h: C::G1::generator().mul_secret(&self.beta),
            f: C::G2::generator().mul_secret(&beta_inv),
            e_gg_alpha: e_gg.pow(&self.alpha),
            tables: Lazy::default(),
            hashes: AttrHashes::default(),
            id: OnceLock::new(),
        };
        wipe(&mut beta_inv, C::Scalar::zero());
        pk
    }
}

/// One attribute's (D_j ∈ G1, D'_j ∈ G2 with its lines).
type KeyAttribute<C> = (<C as Curve>::G1, LinedG2<C>);

object! {
    /// A user's decryption key for an attribute set: D ∈ G2 and, per
    /// (expanded) attribute j, D_j = g1^r·H(j)^{r_j} ∈ G1 and
    /// D'_j = g2^{r_j} ∈ G2 (G2 lines cached on first use); wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        set: AttributeSet => "attribute list",
        d: Secret<LinedG2<C>> => "D",
        attrs: Secret<BTreeMap<String, KeyAttribute<C>>> => "(D_j, D'_j)",
    }
    check "the (D_j, D'_j) are named by the expansion of the attribute list, in order" =>
        |k| names_match("key", &k.set, k.attrs.keys());
    made_for AttributeSet = |key| key.set.clone();
}

impl<C: Curve> UserKey<C> {
    /// The attributes as given at key generation.
    pub fn attributes(&self) -> Vec<String> {
        self.set.display_attrs()
    }

    /// The decryption equation with this key's elements:
    /// e(C, D) · Π_y e(−ω_y·D_att(y), C_y) · e(ω_y·C'_y, D'_att(y)).
    fn pair(&self, header: &Header<C>) -> Result<C::Gt, KemError> {
        same_setup(header, self)?;
        let selection = header
            .policy
            .tree
            .cheapest_satisfying(&self.set)
            .ok_or(KemError::NotSatisfied)?;
        let omega = reconstruction::<C::Scalar>(header.policy.tree.root(), &selection)
            .ok_or(KemError::NotSatisfied)?;
        let leaves = header.policy.tree.leaves();
        let mut work = Vec::with_capacity(omega.len());
        for (i, w) in &omega {
            let attr = leaves
                .get(*i)
                .ok_or_else(|| KemError::Invalid("leaf index out of range".into()))?;
            let ka = self
                .attrs
                .get(attr.as_str())
                .ok_or(KemError::NotSatisfied)?;
            let row = header
                .rows
                .get(*i)
                .ok_or_else(|| KemError::Invalid("header row missing".into()))?;
            work.push((ka, row, *w));
        }
        let one = C::Scalar::one();
        // Per leaf, independently: −ω·D_j and ω·C'_y in G1, the lines of
        // the ciphertext's C_y, and (first use only) the key's D'_j lines.
        let per_leaf = par_map::<C, _, _>(&work, |(ka, (cy, cy_prime), w)| {
            let (d, d_prime) = ka;
            d_prime.lines();
            let (dj, cyp) = if *w == one {
                (-*d, *cy_prime)
            } else if *w == -one {
                (*d, -*cy_prime)
            } else {
                (-mul_public(d, w), mul_public(cy_prime, w))
            };
            (dj, cyp, C::prepare(cy))
        });
        let mut terms: Vec<(C::G1, &C::G2Prepared)> = Vec::with_capacity(2 * work.len() + 1);
        terms.push((header.c, self.d.lines()));
        for ((ka, _, _), (dj, cyp, cy_lines)) in work.iter().zip(&per_leaf) {
            terms.push((*dj, cy_lines));
            terms.push((*cyp, ka.1.lines()));
        }
        Ok(C::multi_pairing(&terms))
    }
}

object! {
    /// The KEM header: the policy, C = h^s ∈ G1 and, per leaf y,
    /// (C_y ∈ G2, C'_y ∈ G1).
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        policy: PolicyTree => "policy",
        c: C::G1 => "C",
        rows: Vec<(C::G2, C::G1)> => "(C_y, C'_y)",
    }
    check "one (C_y, C'_y) per leaf of the policy" => |h| rows_match("header", &h.policy, h.rows.len());
    made_for Policy = |header| header.policy.policy.clone();
}

impl<C: Curve> Header<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
    /// Number of leaves (per-leaf element pairs).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}

const SCHEME: SchemeId = SchemeId::Bsw07;

impl<C: Curve> Authority for Bsw07<C> {
    crate::kem::authority_objects!((), AttributeSet);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let beta = loop {
            let b = C::Scalar::random(rng);
            if !b.is_zero() {
                break b;
            }
        };
        let mk = MasterKey {
            setup_id: [0; 16],
            beta: Secret(beta),
            alpha: Secret(C::Scalar::random(rng)),
        };
        Ok(bind(mk.public_key(), mk))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        issuable(pk, mk, attrs)?;
        let mut beta_inv = mk
            .beta
            .invert()
            .ok_or_else(|| KemError::Invalid("beta = 0".into()))?;
        let tables = pk.tables();
        let mut r = C::Scalar::random(rng);
        let names: Vec<&str> = attrs.iter().collect();
        let mut rjs: Vec<(&str, C::Scalar)> =
            names.iter().map(|x| (*x, C::Scalar::random(rng))).collect();
        let mut exp = (*mk.alpha + r) * beta_inv;
        let d = C::G2::mul_fixed(&tables.g2, &exp);
        wipe(&mut exp, C::Scalar::zero());
        wipe(&mut beta_inv, C::Scalar::zero());
        let g_r = C::G1::mul_fixed(&tables.g1, &r);
        wipe(&mut r, C::Scalar::zero());
        let elements = par_map::<C, _, _>(&rjs, |(x, rj)| {
            (
                g_r + pk.h_of(x).mul_secret(rj),
                C::G2::mul_fixed(&tables.g2, rj),
            )
        });
        for (_, rj) in rjs.iter_mut() {
            wipe(rj, C::Scalar::zero());
        }
        let attrs_map = names
            .iter()
            .zip(elements)
            .map(|(x, (dj, djp))| (x.to_string(), (dj, LinedG2::new(djp))))
            .collect();
        Ok(UserKey {
            setup_id: mk.setup_id,
            set: attrs.clone(),
            d: Secret(LinedG2::new(d)),
            attrs: Secret(attrs_map),
        })
    }
}

impl<C: Curve> Kem for Bsw07<C> {
    crate::kem::kem_objects!(SchemeId::Bsw07, AttributeSet => Policy; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    /// C = h^s, then per leaf y: C_y = g^{q_y(0)}, C'_y = H(att(y))^{q_y(0)}
    /// (each group's points in the order the header lists them).
    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        policy: &Policy,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let policy = PolicyTree::new(policy.clone())?;
        let tree = &policy.tree;
        let mut s = C::Scalar::random(rng);
        let mut shares = tree_shares(tree, s, || C::Scalar::random(rng))?;
        let tables = pk.tables();
        let inputs: Vec<(&String, C::Scalar)> =
            tree.leaves().iter().zip(shares.iter().copied()).collect();
        let c = exps.one(&[(Fixed(&tables.h), s)]);
        let cy = exps.each::<C, _, _>(&inputs, |(_, q)| vec![(Fixed(&tables.g2), *q)]);
        let cy_prime = exps.each::<C, _, _>(&inputs, |(attr, q)| vec![(Point(pk.h_of(attr)), *q)]);
        let rows = cy.into_iter().zip(cy_prime).collect();
        drop(inputs);
        for q in shares.iter_mut() {
            wipe(q, C::Scalar::zero());
        }
        let key = SessionKey::from_gt(&pk.e_gg_alpha.pow(&s), SchemeId::Bsw07, C::ID);
        wipe(&mut s, C::Scalar::zero());
        let header = Header {
            setup_id: pk.setup_id(),
            policy,
            c,
            rows,
        };
        Ok((key, header))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let e = key.pair(header)?;
        Ok(SessionKey::from_gt(&e, SchemeId::Bsw07, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, rng, Case};
    use crate::curve::{Bls12, Bls48, Bn254, Counted, OpCounts};
    use crate::policy::generate;

    type B = Bsw07<Bls12>;

    conformance::tests!(Bsw07: Case::one_target((), conformance::POLICY, conformance::ATTRIBUTE_SETS); random_policies);

    /// End to end on BLS48-581 (the level-256 miracl backend).
    #[test]
    fn round_trip_bls48() {
        let few = conformance::FEW_ATTRIBUTE_SETS;
        conformance::round_trip(&Case::<Bsw07<Bls48>>::one_target(
            (),
            conformance::LIGHT_POLICY,
            few,
        ));
    }
    type Fr = <Bls12 as Curve>::Scalar;

    #[test]
    fn thresholds_and_repeated_attributes() {
        let mut r = rng(11);
        let (pk, mk) = B::setup(&(), &mut r).unwrap();
        // Non-consecutive Lagrange sets, nested thresholds, an attribute at
        // two leaves.
        let policy =
            Policy::parse("3 of (a, b, c, d, e) and (2 of (a, f, g) or (h and i))").unwrap();
        let (key, header) = B::encapsulate(&pk, &policy, &mut r).unwrap();
        for (set, ok) in [
            ("a, c, e, g", true),
            ("b, d, e, h, i", true),
            ("a, b, f", false),
            ("c, d, e, f, g", true),
            ("c, d, h", false),
        ] {
            let uk = B::keygen(&pk, &mk, &attrs(set), &mut r).unwrap();
            match B::decapsulate(&uk, &header) {
                Ok(k) => {
                    assert!(ok, "{set}");
                    assert_eq!(k, key, "{set}");
                }
                Err(KemError::NotSatisfied) => assert!(!ok, "{set}"),
                Err(e) => panic!("unexpected error {e}"),
            }
        }
    }

    fn forged_key(
        base: &UserKey<Bls12>,
        set: &str,
        parts: Vec<(&str, <Bls12 as Curve>::G1, <Bls12 as Curve>::G2)>,
    ) -> UserKey<Bls12> {
        UserKey {
            setup_id: base.setup_id,
            set: attrs(set),
            d: Secret(LinedG2::new(base.d.point)),
            attrs: Secret(
                parts
                    .into_iter()
                    .map(|(n, dj, djp)| (n.to_string(), (dj, LinedG2::new(djp))))
                    .collect(),
            ),
        }
    }

    /// Two keys, each missing a different attribute of an AND policy, cannot
    /// decrypt alone, nor with their components merged (each key's r ties D
    /// to every D_j).
    #[test]
    fn collusion_fails() {
        let mut r = rng(3);
        let (pk, mk) = B::setup(&(), &mut r).unwrap();
        let policy = Policy::parse("a and b and c").unwrap();
        let (key, header) = B::encapsulate(&pk, &policy, &mut r).unwrap();
        let k1 = B::keygen(&pk, &mk, &attrs("a, b"), &mut r).unwrap();
        let k2 = B::keygen(&pk, &mk, &attrs("b, c"), &mut r).unwrap();
        assert!(matches!(
            B::decapsulate(&k1, &header),
            Err(KemError::NotSatisfied)
        ));
        assert!(matches!(
            B::decapsulate(&k2, &header),
            Err(KemError::NotSatisfied)
        ));
        for (base, other) in [(&k1, &k2), (&k2, &k1)] {
            let mut parts = Vec::new();
            for name in ["a", "b", "c"] {
                let a = base
                    .attrs
                    .get(name)
                    .or_else(|| other.attrs.get(name))
                    .unwrap();
                parts.push((name, a.0, a.1.point));
            }
            let merged = forged_key(base, "a, b, c", parts);
            // The merged key "satisfies" the policy syntactically, so the
            // pairing runs, but the session key is wrong.
            assert_ne!(B::decapsulate(&merged, &header).unwrap(), key);
            let decoded = UserKey::<Bls12>::from_bytes(&merged.to_bytes()).unwrap();
            assert_ne!(B::decapsulate(&decoded, &header).unwrap(), key);
        }
    }

    /// rabe's forgery: with a hash whose discrete logs are known (H(x) =
    /// g^{h(x)}), a key for {A} gives D_B = D_A·(D'_A)^{h(B)−h(A)}, a valid
    /// key element for B. With an RFC 9380 hash (and D'_A in the other
    /// group), the attacker can only reuse D_A, D'_A rescaled by known
    /// scalars; none of these keys decrypts "B and C".
    #[test]
    fn key_for_a_cannot_be_turned_into_b_and_c() {
        let mut r = rng(4);
        let (pk, mk) = B::setup(&(), &mut r).unwrap();
        let (key, header) =
            B::encapsulate(&pk, &Policy::parse("b and c").unwrap(), &mut r).unwrap();
        let k = B::keygen(&pk, &mk, &attrs("a"), &mut r).unwrap();
        let a = &k.attrs["a"];
        let (da, dpa) = (a.0, a.1.point);
        let two = Fr::from_u64(2);
        let three = Fr::from_u64(3);
        let hb_minus_ha = Fr::from_u64(0x1234_5678);
        let attempts = vec![
            // Plain relabelling.
            vec![("b", da, dpa), ("c", da, dpa)],
            // Rescaled by known scalars.
            vec![("b", da, dpa), ("c", da * two, dpa * two)],
            vec![("b", da * three, dpa), ("c", da, dpa * three)],
            // rabe's shift, with the G2 element standing in for g1^{r_A}
            // (unavailable in G1): D_B = D_A + (h(B) − h(A))·H(A)-ish terms.
            vec![
                ("b", da + pk.h_of("a") * hb_minus_ha, dpa),
                ("c", da - pk.h_of("a") * hb_minus_ha, dpa),
            ],
            // Swapping in H(B), H(C) scaled by a known scalar.
            vec![
                ("b", da + pk.h_of("b") * two, dpa * two),
                ("c", da + pk.h_of("c") * two, dpa * two),
            ],
        ];
        for parts in attempts {
            let forged = forged_key(&k, "b, c", parts);
            assert_ne!(B::decapsulate(&forged, &header).unwrap(), key);
        }
        // The honest key for {b, c} of the same authority does decrypt.
        let honest = B::keygen(&pk, &mk, &attrs("b, c"), &mut r).unwrap();
        assert_eq!(B::decapsulate(&honest, &header).unwrap(), key);
    }

    fn binomial(n: u64, k: u64) -> u128 {
        (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CB = Bsw07<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CB::setup(&(), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let n64 = n as u64;
            let policy = generate::flat_and(n).unwrap();
            let set = AttributeSet::from_names(policy.attributes()).unwrap();
            let (key, kg) = OpCounts::measure(|| CB::keygen(&pk, &mk, &set, &mut r).unwrap());
            assert_eq!(kg.g1_exp, n64, "H(j)^{{r_j}}");
            assert_eq!(kg.g2_fixed_exp, n64 + 1, "D and the D'_j");
            assert_eq!(kg.g1_fixed_exp, 1, "g^r once");
            assert_eq!(kg.miller_loops + kg.gt_exp + kg.g2_exp, 0);
            let ((_, header), enc) =
                OpCounts::measure(|| CB::encapsulate(&pk, &policy, &mut r).unwrap());
            assert_eq!(enc.g1_exp, n64, "one H(att(y))^q per leaf");
            assert_eq!(enc.g2_fixed_exp, n64, "one g2^q per leaf");
            assert_eq!(enc.g1_fixed_exp, 1, "C = h^s");
            assert_eq!(enc.g2_exp, 0);
            assert_eq!(enc.gt_exp, 1);
            assert_eq!(enc.miller_loops, 0);
            // First decryption also prepares the N+1 key elements.
            let (_, first) = OpCounts::measure(|| CB::decapsulate(&key, &header).unwrap());
            assert_eq!(first.g2_prepared, 2 * n64 + 1);
            let (_, dec) = OpCounts::measure(|| CB::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.miller_loops, 2 * n64 + 1, "2N+1 Miller loops");
            assert_eq!(dec.final_exps, 1, "one final exponentiation");
            assert_eq!(dec.g2_prepared, n64, "lines of the N ciphertext C_y");
            // ω_i = ±C(N, i) are short: 2(N−1) wNAF multiplications
            // (counted as G1 additions), none by the 255-bit ladder; ω_N =
            // ±1 costs a negation only.
            assert_eq!(dec.g1_exp + dec.g2_exp + dec.gt_exp, 0);
            let bits: u64 = (1..n as u64)
                .map(|i| 64 - binomial(n as u64, i).leading_zeros() as u64)
                .sum();
            assert!(dec.g1_add <= 2 * (bits + bits / 2 + 9 * (n64 - 1)) + 2 * n64);
        }
        // An OR path has ω = 1: no exponentiation.
        let policy = Policy::parse("x or y or z").unwrap();
        let key = CB::keygen(&pk, &mk, &attrs("y"), &mut r).unwrap();
        let (_, header) = CB::encapsulate(&pk, &policy, &mut r).unwrap();
        let (_, dec) = OpCounts::measure(|| CB::decapsulate(&key, &header).unwrap());
        assert_eq!(dec.miller_loops, 3);
        assert_eq!(dec.g1_exp + dec.g2_exp + dec.gt_exp, 0);
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(6);
        let (pk, _) = B::setup(&(), &mut r).unwrap();
        let (_, header) = B::encapsulate(&pk, &Policy::parse("a or b").unwrap(), &mut r).unwrap();
        // Other curves and other schemes are refused.
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        let (wpk, _) = crate::abe::Waters11::<Bls12>::setup(&(), &mut r).unwrap();
        assert!(PublicKey::<Bls12>::from_bytes(&wpk.to_bytes()).is_err());
        // A header whose leaf count does not match its policy.
        let (_, h3) = B::encapsulate(&pk, &Policy::parse("a or b or c").unwrap(), &mut r).unwrap();
        let mut forged = Header::<Bls12> {
            setup_id: h3.setup_id,
            policy: header.policy.clone(),
            c: h3.c,
            rows: h3.rows.clone(),
        }
        .to_bytes();
        assert!(Header::<Bls12>::from_bytes(&forged).is_err());
        forged.truncate(forged.len() - 10);
        assert!(Header::<Bls12>::from_bytes(&forged).is_err());
    }
}
