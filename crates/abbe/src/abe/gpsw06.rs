//! GPSW06 KP-ABE (large universe, random-oracle version) in KEM form, with
//! GHW11 outsourced decryption (CPA version).
//!
//! Papers: V. Goyal, O. Pandey, A. Sahai, B. Waters, "Attribute-Based
//! Encryption for Fine-Grained Access Control of Encrypted Data", CCS 2006,
//! in the large-universe random-oracle form that M. Green, S. Hohenberger,
//! B. Waters, "Outsourcing the Decryption of ABE Ciphertexts", USENIX
//! Security 2011, §4.1 states (LSSS access structures, H a random oracle);
//! KEM form as in GHW11 §6 (`ghw11-outsourcing-abe-decryption.txt`): the
//! ciphertext carries no C = M·e(g,g)^{αs}, the session key is derived from
//! e(g,g)^{αs}.
//!
//! Notation (the paper's): generator g, master secret α ∈ Z_p, random
//! oracle H: attributes → group, the key's LSSS (M, ρ) with rows M_i and
//! shares λ_i = M_i·v, v = (α, y_2, …, y_n).
//!
//! ```text
//! Setup:     PK = (g, e(g,g)^α, H)                          MSK = α
//! KeyGen M:  y_2..y_n, r_1..r_ℓ ←R Z_p;  λ_i = M_i·(α, y_2, …, y_n)
//!            D_i = g^{λ_i} · H(ρ(i))^{r_i},  R_i = g^{r_i}
//! Encrypt S: s ←R Z_p;  C' = g^s,  C_x = H(x)^s  (x ∈ S)
//!            session key from e(g,g)^{α·s}
//! Decrypt:   ω with Σ ω_i M_i = (1, 0, …, 0) over rows with ρ(i) ∈ S;
//!            Π_i ( e(D_i, C') / e(C_ρ(i), R_i) )^{ω_i}
//!              = e(Σ ω_i D_i, C') · Π_i e(−ω_i·C_ρ(i), R_i) = e(g,g)^{αs}
//! ```
//!
//! GHW11 outsourcing (§4.1, backwards-compatible TK derivation): the user
//! picks z ←R Z_p and publishes TK = (D_i^{1/z}, R_i^{1/z}); the proxy runs
//! the decryption equation with TK and obtains the constant-size
//! T = e(g,g)^{αs/z}; the user keeps RK = z and recovers e(g,g)^{αs} = T^z
//! with one GT exponentiation.
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! The pairings of a decryption are e(D_i, C') (collapsed into one,
//! e(Σ ω_i D_i, C'), because C' is common to all rows) and, per row,
//! e(C_ρ(i), R_i). We put the **key's per-row element R_i in G2**, so its
//! Miller-loop lines depend only on the key: they are precomputed once per
//! key ([`UserKey`] caches them) and reused by every decryption. It follows
//! that the ciphertext's per-attribute C_x = H(x)^s are in G1, hence
//! **H maps to G1** (RFC 9380 hash-to-curve), D_i = g^{λ_i}·H(ρ(i))^{r_i}
//! ∈ G1, and the one remaining element C' = g^s is in G2; its lines are
//! computed once per decryption (one line precomputation, not N). This
//! placement is the cheap one on both sides: encryption's per-attribute work
//! is one G1 exponentiation of H(x) (no G2 at all apart from C'), and the
//! ciphertext's per-attribute elements are the small ones (48 bytes on
//! BLS12-381).
//!
//! Speed against its lower bound (a shared loop over N+1 prepared pairs +
//! one final exponentiation): `cargo bench -p abbe --bench gpsw06` and the
//! lab.
//!
//! ## Side channels
//! Secret scalars (the master secret, the shares λ_i, r_i, s, 1/z) go
//! through fixed-base tables and [`Group::mul_secret`] (constant time on
//! every curve); the variable-time multi-scalar multiplication of
//! decryption takes the public reconstruction coefficients only.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## The swapped placement
//! [`crate::curve::Swapped`] (`abbe setup --placement swapped`) exchanges G1
//! and G2: H, C_x and D_i move to G2, R_i and C' to G1: every per-attribute
//! hash and exponentiation is in G2 and decryption computes the lines of
//! every C_x, so the mirror is slower at every operation (the lab's placement
//! table); `--optimize` keeps the standard placement. Security rests on the
//! decisional BDH assumption with the two source groups exchanged, as
//! plausible as the original on these curves (no efficient isomorphism either
//! way).

use super::ghw11::{self, Checks};
use crate::curve::LinedG2;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::exps::Base::{Fixed, Point};
use crate::kem::{bind, same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{AttributeSet, Policy, PolicyTree};
use crate::wire::codec::{labels_match, object, rows_match, secrets_match};
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::attr_cache::AttrHashes;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gpsw06<C>(PhantomData<C>);

/// Fixed-base tables of the generators, built on first use.
struct Tables<C: Curve> {
    g1: FixedBaseTable<C::G1>,
    g2: FixedBaseTable<C::G2>,
}

object! {
    /// Public parameters: e(g,g)^α (g1, g2 and H are fixed).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        pub e_gg_alpha: C::Gt => "e(g,g)^α",
    }
    cached { tables: Lazy<Tables<C>>, hashes: AttrHashes<C::G1> }
}

impl<C: Curve> PublicKey<C> {
    fn new(e_gg_alpha: C::Gt) -> Self {
        PublicKey {
            e_gg_alpha,
            tables: Lazy::default(),
            hashes: AttrHashes::default(),
            id: OnceLock::new(),
        }
    }

    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            g1: C::G1::generator().precompute(),
            g2: C::G2::generator().precompute(),
        })
    }

    /// H(x), cached by this key.
    fn h_of(&self, attr: &str) -> C::G1 {
        self.hashes.hash("GPSW06", C::NAME, attr)
    }
}

object! {
    /// The master key α; wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        alpha: Secret<C::Scalar> => "α",
    }
    check "α gives the public key of the setup id" =>
        |mk| secrets_match(mk.public_key().setup_id(), mk.setup_id);
}

impl<C: Curve> MasterKey<C> {
    /// Recomputes the public key e(g,g)^α from the master secret.
    pub fn public_key(&self) -> PublicKey<C> {
        let e_gg = C::pairing(&C::G1::generator(), &C::G2::generator());
        PublicKey::new(e_gg.pow(&self.alpha))
    }
}

object! {
    /// The elements shared by a user key and a transformation key: the
    /// policy and one (D_i ∈ G1, R_i ∈ G2) per LSSS row, with the G2 lines
    /// cached on first use; wiped on drop.
    pub struct KeyElements<C> = body, bound {
        policy: PolicyTree => "policy",
        rows: Secret<Vec<(C::G1, LinedG2<C>)>> => "(D_i, R_i)",
    }
    check "one (D_i, R_i) per leaf of the policy" => |e| rows_match("key", &e.policy, e.rows.len());
}

impl<C: Curve> KeyElements<C> {
    /// The key's policy.
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
    /// Number of LSSS rows (expanded policy leaves).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// The decryption equation with this key's elements:
    /// e(Σ ω_i D_i, C') · Π e(−ω_i C_ρ(i), R_i) — one multi-pairing of
    /// |selection| + 1 pairs.
    fn pair(&self, header: &Header<C>, checks: Checks) -> Result<C::Gt, KemError> {
        same_setup(header, self)?;
        let selection = self
            .policy
            .tree
            .cheapest_satisfying(&header.set)
            .ok_or(KemError::NotSatisfied)?;
        let omega = self.policy.tree.reconstruction::<C::Scalar>(&selection)?;
        let leaves = self.policy.tree.leaves();

        let one = C::Scalar::one();
        let all_one = omega.iter().all(|(_, w)| *w == one);
        let mut ds = Vec::with_capacity(omega.len());
        let mut g1_terms = Vec::with_capacity(omega.len() + 1);
        let mut rows = Vec::with_capacity(omega.len());
        for (i, w) in &omega {
            let row = self
                .rows
                .get(*i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            let attr = leaves
                .get(*i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            let c = header.c_x(attr).ok_or(KemError::NotSatisfied)?;
            ds.push(row.0);
            g1_terms.push(checks.paired(if *w == one { -*c } else { *c * (-*w) })?);
            rows.push(row);
        }
        let d_sum = if all_one {
            C::G1::sum(&ds)
        } else {
            let ws: Vec<C::Scalar> = omega.iter().map(|(_, w)| *w).collect();
            // The D_i are the key's secrets: no variable-time MSM on them.
            C::G1::msm_secret(&ds, &ws)
        };
        // The key's G2 lines are computed once per key (on all cores the
        // first time), then reused by every decryption.
        par_map::<C, _, _>(&rows, |row| {
            row.1.lines();
        });
        let c_prime_lines = C::prepare(&checks.paired(header.c_prime)?);
        let mut terms: Vec<(C::G1, &C::G2Prepared)> = Vec::with_capacity(omega.len() + 1);
        terms.push((d_sum, &c_prime_lines));
        for (g, row) in g1_terms.into_iter().zip(rows) {
            terms.push((g, row.1.lines()));
        }
        Ok(C::multi_pairing(&terms))
    }
}

object! {
    /// A user's decryption key for a policy.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME) {
        pub(crate) elements: KeyElements<C> => "",
    }
    made_for Policy = |key| key.elements.policy.policy.clone();
}

/// GHW11's transformation key, retrieval key and transformed header
/// ([`super::ghw11`]).
pub type TransformKey<C> = ghw11::TransformKey<C, Gpsw06<C>>;
pub type RetrievalKey<C> = ghw11::RetrievalKey<C, Gpsw06<C>>;
pub type Transformed<C> = ghw11::Transformed<C, Gpsw06<C>>;

object! {
    /// The KEM header: the attribute set S, C' ∈ G2 and C_x ∈ G1 per
    /// (expanded) attribute x ∈ S, in the sorted order of the expansion.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        set: AttributeSet => "attribute list",
        c_prime: C::G2 => "C'",
        cx: Vec<C::G1> => "C_x",
    }
    cached { index: BTreeMap<String, usize> = set.positions() }
    check "at least one attribute; one C_x per expanded attribute" =>
        |h| labels_match(&h.set, h.cx.len());
    made_for AttributeSet = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    /// The attributes the ciphertext is labelled with.
    pub fn attributes(&self) -> &AttributeSet {
        &self.set
    }
    fn c_x(&self, attr: &str) -> Option<&C::G1> {
        self.index.get(attr).and_then(|i| self.cx.get(*i))
    }
}

const SCHEME: SchemeId = SchemeId::Gpsw06;

impl<C: Curve> Authority for Gpsw06<C> {
    crate::kem::authority_objects!((), Policy);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mk = MasterKey {
            setup_id: [0; 16],
            alpha: Secret(C::Scalar::random(rng)),
        };
        Ok(bind(mk.public_key(), mk))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        policy: &Policy,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        same_setup(pk, mk)?;
        let policy = PolicyTree::new(policy.clone())?;
        let tree = &policy.tree;
        let mut ys: Vec<C::Scalar> = (1..tree.share_width())
            .map(|_| C::Scalar::random(rng))
            .collect();
        let mut lambdas = tree.shares(*mk.alpha, &ys)?;
        for y in &mut ys {
            wipe(y, C::Scalar::zero());
        }
        let tables = pk.tables();
        // Randomness is drawn in order; the rows are then independent.
        let mut inputs: Vec<(&String, C::Scalar, C::Scalar)> = tree
            .leaves()
            .iter()
            .zip(&lambdas)
            .map(|(attr, lambda)| (attr, *lambda, C::Scalar::random(rng)))
            .collect();
        let rows = par_map::<C, _, _>(&inputs, |(attr, lambda, r)| {
            let d = C::G1::mul_fixed(&tables.g1, lambda) + pk.h_of(attr).mul_secret(r);
            let rr = C::G2::mul_fixed(&tables.g2, r);
            (d, LinedG2::new(rr))
        });
        for (_, lambda, r) in &mut inputs {
            wipe(lambda, C::Scalar::zero());
            wipe(r, C::Scalar::zero());
        }
        for l in &mut lambdas {
            wipe(l, C::Scalar::zero());
        }
        Ok(UserKey {
            elements: KeyElements {
                setup_id: mk.setup_id,
                policy,
                rows: Secret(rows),
            },
        })
    }
}

impl<C: Curve> Kem for Gpsw06<C> {
    crate::kem::kem_objects!(SCHEME, Policy => AttributeSet; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let mut s = C::Scalar::random(rng);
        let header = encapsulate_with_s(pk, attrs, &s, exps)?;
        let key = SessionKey::from_gt(&pk.e_gg_alpha.pow(&s), SCHEME, C::ID);
        wipe(&mut s, C::Scalar::zero());
        Ok((key, header))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let e = key.elements.pair(header, Checks::Done)?;
        Ok(SessionKey::from_gt(&e, SCHEME, C::ID))
    }
}

/// The header for `attrs` with exponent s: C' = g^s, C_x = H(x)^s.
fn encapsulate_with_s<C: Curve>(
    pk: &PublicKey<C>,
    attrs: &AttributeSet,
    s: &C::Scalar,
    exps: &mut Exps<'_>,
) -> Result<Header<C>, KemError> {
    if attrs.is_empty() {
        return Err(KemError::Invalid(
            "a ciphertext needs at least one attribute".into(),
        ));
    }
    let tables = pk.tables();
    let names: Vec<&str> = attrs.iter().collect();
    let c_prime = exps.one(&[(Fixed(&tables.g2), *s)]);
    let points =
        exps.each_shared::<C, _, _>(&names, &[*s], |x| (vec![], vec![(Point(pk.h_of(x)), 0)]));
    Ok(Header {
        setup_id: pk.setup_id(),
        index: attrs.positions(),
        set: attrs.clone(),
        c_prime,
        cx: points,
    })
}

/// GHW11 §4.1/§4.2: the outsourcing (CPA and RCCA) of GPSW06.
impl<C: Curve> ghw11::Scheme for Gpsw06<C> {
    type Curve = C;
    type Elements = KeyElements<C>;

    fn elements(key: &UserKey<C>) -> &KeyElements<C> {
        &key.elements
    }

    /// (D_i^{1/z}, R_i^{1/z}) for every row.
    fn raise(e: &KeyElements<C>, z_inv: &C::Scalar) -> KeyElements<C> {
        let rows = par_map::<C, _, _>(&e.rows, |(d, r)| {
            (d.mul_secret(z_inv), LinedG2::new(r.point.mul_secret(z_inv)))
        });
        KeyElements {
            setup_id: e.setup_id,
            policy: e.policy.clone(),
            rows: Secret(rows),
        }
    }

    fn pair(e: &KeyElements<C>, header: &Header<C>, checks: Checks) -> Result<C::Gt, KemError> {
        e.pair(header, checks)
    }

    fn blinding_base(pk: &PublicKey<C>) -> C::Gt {
        pk.e_gg_alpha
    }

    fn encapsulate_with_s<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        attrs: &AttributeSet,
        s: &C::Scalar,
        _rng: &mut R,
    ) -> Result<Header<C>, KemError> {
        encapsulate_with_s(pk, attrs, s, &mut Exps::compute())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, pol, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Outsourcing;
    use crate::policy::generate;

    type G = Gpsw06<Bls12>;

    conformance::tests!(Gpsw06: Case::one_key((), conformance::POLICY, conformance::ATTRIBUTE_SETS); outsourced_round_trip, random_policies_outsourced, proxy_checks_cofactor_parts);

    /// Non-canonical key policies (the perazzo 3-level shape) survive the
    /// encoding, which prints and re-parses the policy in canonical form.
    #[test]
    fn non_canonical_policies_survive_encoding() {
        let mut r = rng(11);
        let (pk, mk) = G::setup(&(), &mut r).unwrap();
        for policy in [
            generate::three_level(9).unwrap(),
            generate::random_policy(7, 0.5, 0.5, 3).unwrap(),
        ] {
            let set = AttributeSet::from_names(policy.attributes()).unwrap();
            let key = G::keygen(&pk, &mk, &policy, &mut r).unwrap();
            let decoded = UserKey::<Bls12>::from_bytes(&key.to_bytes()).unwrap();
            let (session, header) = G::encapsulate(&pk, &set, &mut r).unwrap();
            assert_eq!(G::decapsulate(&key, &header).unwrap(), session);
            assert_eq!(G::decapsulate(&decoded, &header).unwrap(), session);
        }
    }

    #[test]
    fn wrong_setup_is_reported() {
        let mut r = rng(2);
        let (pk1, _) = G::setup(&(), &mut r).unwrap();
        let (pk2, mk2) = G::setup(&(), &mut r).unwrap();
        let (_, header) = G::encapsulate(&pk1, &attrs("a"), &mut r).unwrap();
        let key = G::keygen(&pk2, &mk2, &pol("a"), &mut r).unwrap();
        assert!(matches!(
            G::decapsulate(&key, &header),
            Err(KemError::WrongSetup)
        ));
        assert!(matches!(
            G::keygen(&pk1, &mk2, &pol("a"), &mut r),
            Err(KemError::WrongSetup)
        ));
        let (tk, rk) = G::transform_key(&key, &mut r);
        assert!(matches!(
            G::transform(&tk, &header),
            Err(KemError::WrongSetup)
        ));
        let (_, header2) = G::encapsulate(&pk2, &attrs("a"), &mut r).unwrap();
        let t = G::transform(&tk, &header2).unwrap();
        let (_, rk1) = G::transform_key(&G::keygen(&pk2, &mk2, &pol("a"), &mut r).unwrap(), &mut r);
        assert!(G::decrypt_transformed(&rk1, &t).is_ok());
        assert!(G::decrypt_transformed(&rk, &t).is_ok());
        assert!(G::encapsulate(&pk1, &AttributeSet::new(), &mut r).is_err());
    }

    /// KP collusion: two keys whose policies each need an attribute the
    /// ciphertext lacks cannot decrypt alone, nor with their rows merged
    /// (each key's shares are of α under its own fresh polynomial, so rows
    /// from different keys do not combine).
    #[test]
    fn collusion_fails() {
        let mut r = rng(3);
        let (pk, mk) = G::setup(&(), &mut r).unwrap();
        // The ciphertext has a, b; key 1 needs c, key 2 needs d.
        let (session, header) = G::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        let policy1 = pol("a and c");
        let policy2 = pol("b and d");
        let k1 = G::keygen(&pk, &mk, &policy1, &mut r).unwrap();
        let k2 = G::keygen(&pk, &mk, &policy2, &mut r).unwrap();
        assert!(matches!(
            G::decapsulate(&k1, &header),
            Err(KemError::NotSatisfied)
        ));
        assert!(matches!(
            G::decapsulate(&k2, &header),
            Err(KemError::NotSatisfied)
        ));
        // Merged: a key for "a and b" built from k1's row for a and k2's row
        // for b (both rows of a 2-of-2 AND, like the merged policy's).
        let row = |k: &UserKey<Bls12>, i: usize| {
            let (d, r) = &k.elements.rows[i];
            (*d, LinedG2::new(r.point))
        };
        let forge = |rows| UserKey {
            elements: KeyElements {
                setup_id: k1.elements.setup_id,
                policy: PolicyTree::new(pol("a and b")).unwrap(),
                rows: Secret(rows),
            },
        };
        let merged = forge(vec![row(&k1, 0), row(&k2, 0)]);
        // The merged key "satisfies" syntactically, so the pairing runs, but
        // the session key is wrong.
        assert_ne!(G::decapsulate(&merged, &header).unwrap(), session);
        let decoded = UserKey::<Bls12>::from_bytes(&merged.to_bytes()).unwrap();
        assert_ne!(G::decapsulate(&decoded, &header).unwrap(), session);
        // The other AND-share arrangement (second rows, which carry y_2).
        let swapped = forge(vec![row(&k1, 1), row(&k2, 1)]);
        assert_ne!(G::decapsulate(&swapped, &header).unwrap(), session);
        // A single key's rows relabelled to the ciphertext's attributes.
        let relabelled = forge(vec![row(&k1, 0), row(&k1, 1)]);
        assert_ne!(G::decapsulate(&relabelled, &header).unwrap(), session);
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CG = Gpsw06<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CG::setup(&(), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let policy = generate::flat_and(n).unwrap();
            let set = AttributeSet::from_names(policy.attributes()).unwrap();
            let (key, kg) = OpCounts::measure(|| CG::keygen(&pk, &mk, &policy, &mut r).unwrap());
            assert_eq!(kg.g1_exp, n as u64, "one H(x)^r_i per row");
            assert_eq!(kg.g1_fixed_exp, n as u64, "one g^λ_i per row");
            assert_eq!(kg.g2_fixed_exp, n as u64, "one g^r_i per row");
            let ((_, header), enc) =
                OpCounts::measure(|| CG::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_exp, n as u64, "one H(x)^s per attribute");
            assert_eq!(enc.g2_fixed_exp, 1);
            assert_eq!(enc.g1_fixed_exp + enc.g2_exp, 0);
            assert_eq!(enc.gt_exp, 1);
            assert_eq!(enc.miller_loops, 0);
            // First decryption: the key's N lines are computed and cached.
            let (_, first) = OpCounts::measure(|| CG::decapsulate(&key, &header).unwrap());
            assert_eq!(first.g2_prepared, n as u64 + 1);
            let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.miller_loops, n as u64 + 1, "N+1 Miller loops");
            assert_eq!(dec.final_exps, 1, "one final exponentiation");
            assert_eq!(dec.g2_prepared, 1, "only C' is prepared");
            assert_eq!(
                dec.g1_exp + dec.g2_exp + dec.gt_exp + dec.g1_msm_terms,
                0,
                "no exponentiation for an AND policy"
            );
            let ((tk, rk), tkc) = OpCounts::measure(|| CG::transform_key(&key, &mut r));
            assert_eq!((tkc.g1_exp, tkc.g2_exp), (n as u64, n as u64));
            let _ = CG::transform(&tk, &header).unwrap();
            let (t, tr) = OpCounts::measure(|| CG::transform(&tk, &header).unwrap());
            assert_eq!(tr.miller_loops, n as u64 + 1);
            assert_eq!(tr.final_exps, 1);
            let (_, fin) = OpCounts::measure(|| CG::decrypt_transformed(&rk, &t).unwrap());
            assert_eq!(fin.gt_exp, 1, "final decryption = 1 GT exponentiation");
            assert_eq!(fin.miller_loops + fin.final_exps + fin.gt_mul, 0);
        }
        // A threshold policy: the ω_i are moved into G1.
        let policy = pol("2 of (a, b, c)");
        let key = CG::keygen(&pk, &mk, &policy, &mut r).unwrap();
        let (_, header) = CG::encapsulate(&pk, &attrs("a, c"), &mut r).unwrap();
        let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &header).unwrap());
        assert_eq!(dec.miller_loops, 3);
        assert_eq!(dec.final_exps, 1);
        assert_eq!(dec.g1_exp, 2);
        assert_eq!(dec.g1_msm_terms, 2);
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(6);
        let (pk, mk) = G::setup(&(), &mut r).unwrap();
        let (_, header) = G::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        let key = G::keygen(&pk, &mk, &pol("a or b"), &mut r).unwrap();
        // Other curves and other schemes are refused.
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        assert!(super::super::waters11::UserKey::<Bls12>::from_bytes(&key.to_bytes()).is_err());
    }
}
