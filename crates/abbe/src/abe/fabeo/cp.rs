//! FABEO CP-ABE (Riepel–Wee, CCS 2022, Figure 1 left) in KEM form, with
//! GHW11 outsourced decryption. What it shares with FABEO-KP (setup, keys,
//! the hash, the placement, attribute reuse) is in [`super`].
//!
//! Notation (the paper's): g ∈ G, h ∈ H, e: G × H → GT; random oracle
//! H: {0,1}* → G and B = H(⊥) ([`super`]); MSP (M, ρ) of n rows (ours:
//! the policy's access tree, rows = leaves left to right) with shares
//! λ_i = M_i·v, v = (s, v_2, …); π(i) the occurrence number of row i and
//! τ its values (0-based here, [`super::uses`]). KEM form: the ciphertext carries no
//! e(g,h)^{αs}·M; the session key is derived from e(g,h)^{αs}.
//!
//! ```text
//! KeyGen S: r ←R Z_p
//!           sk_1 = h^r,  sk_{2,y} = H(y)^r (y ∈ S),  sk_3 = g^α · B^r
//! Encrypt (M, ρ): s, s'_τ, v_2, … ←R Z_p
//!           ct_0 = h^s,  ct'_τ = h^{s'_τ},  ct_i = B^{λ_i} · H(ρ(i))^{s'_π(i)}
//!           session key from e(g,h)^{αs}
//! Decrypt:  ω_i with Σ_{i∈I} ω_i M_i = (1, 0, …, 0):
//!           e(sk_3, ct_0) · Π_τ e(Π_{i∈I, π(i)=τ} sk_{2,ρ(i)}^{ω_i}, ct'_τ)
//!                         · e(Π_{i∈I} ct_i^{-ω_i}, sk_1)  = e(g,h)^{αs}
//! ```
//!
//! Correctness: the middle pairings give e(H, h)^{r s'} per row, which the
//! last cancels, leaving e(B, h)^{-r Σ ω_i λ_i} = e(B, h)^{-rs} against the
//! first's e(g,h)^{αs} e(B,h)^{rs}.
//!
//! GHW11 outsourcing ([`super::super::ghw11`]): every key element raised to
//! 1/z gives e(g,h)^{αs/z} through the same equation (it is bilinear in the
//! key's elements, and the cancelling pairs both carry r/z).

use super::{random_scalars, uses, uses_match, ByUse, Cp, FabeoMasterKey, FabeoPublicKey};
use crate::abe::ghw11::{self, Checks};
use crate::curve::{
    lincomb, lincomb_secret_points, par_map, Curve, Group, LinedG2, Scalar, Target,
};
use crate::kem::exps::Base::{Fixed, Point};
use crate::kem::{issuable, same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{AttributeSet, Policy, PolicyTree};
use crate::wire::codec::{names_match, object, rows_match};
use crate::wire::{SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct FabeoCp<C>(PhantomData<C>);

pub type PublicKey<C> = FabeoPublicKey<C, Cp>;
pub type MasterKey<C> = FabeoMasterKey<C, Cp>;

const SCHEME: SchemeId = SchemeId::FabeoCp;

object! {
    /// The elements shared by a user key and a transformation key:
    /// sk_1 = h^r ∈ G2 (lines cached on first use), sk_3 ∈ G1 and
    /// sk_{2,y} ∈ G1 per expanded attribute; wiped on drop.
    pub struct KeyElements<C> = body, bound {
        set: AttributeSet => "attribute list",
        sk1: Secret<LinedG2<C>> => "sk_1 = h^r",
        sk2: Secret<BTreeMap<String, C::G1>> => "sk_{2,y}",
        sk3: Secret<C::G1> => "sk_3",
    }
    check "the sk_{2,y} are named by the expansion of the attribute list, in order" =>
        |e| names_match("key", &e.set, e.sk2.keys());
}

object! {
    /// A user's decryption key for an attribute set.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME) {
        pub(crate) elements: KeyElements<C> => "",
    }
    made_for AttributeSet = |key| key.elements.set.clone();
}

impl<C: Curve> UserKey<C> {
    /// The attributes as given at key generation.
    pub fn attributes(&self) -> Vec<String> {
        self.elements.set.display_attrs()
    }
}

/// GHW11's transformation key, retrieval key and transformed header.
pub type TransformKey<C> = ghw11::TransformKey<C, FabeoCp<C>>;
pub type RetrievalKey<C> = ghw11::RetrievalKey<C, FabeoCp<C>>;
pub type Transformed<C> = ghw11::Transformed<C, FabeoCp<C>>;

object! {
    /// The KEM header: the policy, ct_0 = h^s ∈ G2, ct'_τ = h^{s'_τ} ∈ G2
    /// per occurrence number and ct_i ∈ G1 per leaf, left to right.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        policy: PolicyTree => "policy",
        ct0: C::G2 => "ct_0 = h^s",
        ct_prime: Vec<C::G2> => "ct'_τ = h^{s'_τ}",
        rows: Vec<C::G1> => "ct_i",
    }
    check "one ct_i per leaf of the policy, one ct'_τ per occurrence number" => |h| {
        rows_match("header", &h.policy, h.rows.len())?;
        uses_match("header", &h.policy, h.ct_prime.len())
    };
    made_for Policy = |header| header.policy.policy.clone();
}

impl<C: Curve> Header<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}

impl<C: Curve> Authority for FabeoCp<C> {
    crate::kem::authority_objects!((), AttributeSet);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        Ok(MasterKey::<C>::generate(rng))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        issuable(pk, mk, attrs)?;
        let tb = pk.tables();
        let r = Secret(C::Scalar::random(rng));
        let sk1 = C::G2::mul_fixed(&tb.h, &r);
        let sk3 = C::G1::mul_fixed(&tb.g, &mk.alpha) + C::G1::mul_fixed(pk.b_table(), &r);
        let names: Vec<&str> = attrs.iter().collect();
        let points = par_map::<C, _, _>(&names, |y| pk.h_of(y).mul_secret(&r));
        let sk2 = names.iter().map(|y| y.to_string()).zip(points).collect();
        Ok(UserKey {
            elements: KeyElements {
                setup_id: mk.setup_id,
                set: attrs.clone(),
                sk1: Secret(LinedG2::new(sk1)),
                sk2: Secret(sk2),
                sk3: Secret(sk3),
            },
        })
    }
}

impl<C: Curve> Kem for FabeoCp<C> {
    crate::kem::kem_objects!(SCHEME, AttributeSet => Policy; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        policy: &Policy,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let s = Secret(C::Scalar::random(rng));
        let header = encapsulate_with_s(pk, policy, &s, rng, exps)?;
        let key = SessionKey::from_gt(&pk.e_gh_alpha().pow(&s), SCHEME, C::ID);
        Ok((key, header))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let e = pair(&key.elements, header, Checks::Done)?;
        Ok(SessionKey::from_gt(&e, SCHEME, C::ID))
    }
}

/// The header for `policy` with exponent s; the s'_τ, then v_2, … are drawn
/// from `rng` in that order.
fn encapsulate_with_s<C: Curve, R: RngCore + CryptoRng>(
    pk: &PublicKey<C>,
    policy: &Policy,
    s: &C::Scalar,
    rng: &mut R,
    exps: &mut Exps<'_>,
) -> Result<Header<C>, KemError> {
    let policy = PolicyTree::new(policy.clone())?;
    let tree = &policy.tree;
    let (pi, tau) = uses(&policy);
    let s_prime = random_scalars::<C::Scalar, R>(tau, rng);
    let v = random_scalars::<C::Scalar, R>(tree.share_width().saturating_sub(1), rng);
    let lambdas = Secret(tree.shares(*s, &v)?);
    let (tb, b) = (pk.tables(), pk.b_table());
    let rows: Vec<(&String, (&C::Scalar, &usize))> =
        tree.leaves().iter().zip(lambdas.iter().zip(&pi)).collect();
    // ct_0 = h^s, ct'_τ = h^{s'_τ}, ct_i = b^{λ_i} · H(ρ(i))^{s'_{π(i)}}.
    let ct0 = exps.one(&[(Fixed(&tb.h), *s)]);
    let ct_prime = exps.each::<C, _, _>(&s_prime, |x| vec![(Fixed(&tb.h), *x)]);
    let rows = exps.each_shared::<C, _, _>(&rows, &s_prime, |(y, (lambda, t))| {
        (vec![(Fixed(b), **lambda)], vec![(Point(pk.h_of(y)), **t)])
    });
    Ok(Header {
        setup_id: pk.setup_id(),
        ct0,
        ct_prime,
        policy,
        rows,
    })
}

/// The decryption equation with a key's (or a transformation key's)
/// elements: one multi-pairing of 2 + (the occurrence numbers used) pairs.
fn pair<C: Curve>(
    e: &KeyElements<C>,
    header: &Header<C>,
    checks: Checks,
) -> Result<C::Gt, KemError> {
    same_setup(header, e)?;
    let tree = &header.policy.tree;
    let selection = tree
        .cheapest_satisfying(&e.set)
        .ok_or(KemError::NotSatisfied)?;
    let omega = tree.reconstruction::<C::Scalar>(&selection)?;
    let (pi, tau) = uses(&header.policy);
    let leaves = tree.leaves();
    let out_of_range = || KemError::Invalid("row index out of range".into());
    let mut keys = ByUse::<C::G1>::new(tau);
    let mut cts = Vec::with_capacity(omega.len());
    let mut ws = Vec::with_capacity(omega.len());
    for (i, w) in &omega {
        let y = leaves.get(*i).ok_or_else(out_of_range)?;
        let t = pi.get(*i).ok_or_else(out_of_range)?;
        let k = e.sk2.get(y.as_str()).ok_or(KemError::NotSatisfied)?;
        keys.push(*t, *k, *w)?;
        cts.push(*header.rows.get(*i).ok_or_else(out_of_range)?);
        ws.push(-*w);
    }
    let ct_sum = checks.paired(lincomb(&cts, &ws))?;
    let sums = keys.sums(lincomb_secret_points);
    let ct0_lines = C::prepare(&checks.paired(header.ct0)?);
    let prime_lines = sums
        .iter()
        .map(|(t, _)| {
            header
                .ct_prime
                .get(*t)
                .ok_or_else(out_of_range)
                .and_then(|c| checks.paired(*c))
                .map(|c| C::prepare(&c))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut terms: Vec<(C::G1, &C::G2Prepared)> = Vec::with_capacity(sums.len() + 2);
    terms.push((*e.sk3, &ct0_lines));
    terms.extend(sums.iter().map(|(_, k)| *k).zip(&prime_lines));
    terms.push((ct_sum, e.sk1.lines()));
    Ok(C::multi_pairing(&terms))
}

impl<C: Curve> ghw11::Scheme for FabeoCp<C> {
    type Curve = C;
    type Elements = KeyElements<C>;

    fn elements(key: &UserKey<C>) -> &KeyElements<C> {
        &key.elements
    }

    /// (sk_1^{1/z}, sk_{2,y}^{1/z}, sk_3^{1/z}).
    fn raise(e: &KeyElements<C>, z_inv: &C::Scalar) -> KeyElements<C> {
        let items: Vec<(&String, &C::G1)> = e.sk2.iter().collect();
        let sk2 = par_map::<C, _, _>(&items, |(_, p)| p.mul_secret(z_inv));
        KeyElements {
            setup_id: e.setup_id,
            set: e.set.clone(),
            sk1: Secret(LinedG2::new(e.sk1.point.mul_secret(z_inv))),
            sk2: Secret(items.iter().map(|(n, _)| (*n).clone()).zip(sk2).collect()),
            sk3: Secret(e.sk3.mul_secret(z_inv)),
        }
    }

    fn pair(e: &KeyElements<C>, header: &Header<C>, checks: Checks) -> Result<C::Gt, KemError> {
        pair(e, header, checks)
    }

    fn blinding_base(pk: &PublicKey<C>) -> C::Gt {
        *pk.e_gh_alpha()
    }

    fn encapsulate_with_s<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        policy: &Policy,
        s: &C::Scalar,
        rng: &mut R,
    ) -> Result<Header<C>, KemError> {
        encapsulate_with_s(pk, policy, s, rng, &mut Exps::compute())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, pol, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};

    type F = FabeoCp<Bls12>;

    conformance::tests!(FabeoCp: Case::one_target((), conformance::POLICY, conformance::ATTRIBUTE_SETS); outsourced_round_trip, random_policies_outsourced, proxy_checks_cofactor_parts);

    fn forged(
        base: &UserKey<Bls12>,
        set: &str,
        sk2: BTreeMap<String, <Bls12 as Curve>::G1>,
    ) -> UserKey<Bls12> {
        UserKey {
            elements: KeyElements {
                setup_id: base.elements.setup_id,
                set: attrs(set),
                sk1: Secret(LinedG2::new(base.elements.sk1.point)),
                sk2: Secret(sk2),
                sk3: Secret(*base.elements.sk3),
            },
        }
    }

    /// Two keys, each missing a different attribute of an AND policy,
    /// cannot decrypt alone, nor with their sk_{2,y} merged (r binds a
    /// key's sk_1, sk_3 and every sk_{2,y}).
    #[test]
    fn collusion_fails() {
        let mut r = rng(3);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let (key, header) = F::encapsulate(&pk, &pol("a and b and c"), &mut r).unwrap();
        let k1 = F::keygen(&pk, &mk, &attrs("a, b"), &mut r).unwrap();
        let k2 = F::keygen(&pk, &mk, &attrs("b, c"), &mut r).unwrap();
        for k in [&k1, &k2] {
            assert!(matches!(
                F::decapsulate(k, &header),
                Err(KemError::NotSatisfied)
            ));
        }
        for (base, other) in [(&k1, &k2), (&k2, &k1)] {
            let mut sk2 = BTreeMap::new();
            for (n, p) in base.elements.sk2.iter().chain(other.elements.sk2.iter()) {
                sk2.entry(n.clone()).or_insert(*p);
            }
            let merged = forged(base, "a, b, c", sk2);
            // Syntactically satisfying, so the pairing runs; the key is wrong.
            assert_ne!(F::decapsulate(&merged, &header).unwrap(), key);
            let decoded = UserKey::<Bls12>::from_bytes(&merged.to_bytes()).unwrap();
            assert_ne!(F::decapsulate(&decoded, &header).unwrap(), key);
        }
    }

    /// A key element relabelled to another attribute does not decrypt.
    #[test]
    fn relabelled_attribute_does_not_decrypt() {
        let mut r = rng(4);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let (key, header) = F::encapsulate(&pk, &pol("b"), &mut r).unwrap();
        let k = F::keygen(&pk, &mk, &attrs("a"), &mut r).unwrap();
        let sk2 = BTreeMap::from([("b".to_string(), k.elements.sk2["a"])]);
        assert_ne!(F::decapsulate(&forged(&k, "b", sk2), &header).unwrap(), key);
    }

    /// Attribute reuse: a policy naming `a` three times has three ct'_τ,
    /// and row i is B^{λ_i}·H(ρ(i))^{s'_π(i)} with the exponent of its own
    /// occurrence (one s' for all would make two rows of `a` differ by
    /// B^{λ_i − λ_j}, leaking share differences).
    #[test]
    fn reused_attributes_get_their_own_exponents() {
        let mut r = rng(5);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let policy = pol("(a and b) or (a and c) or (a and d)");
        let s = <Bls12 as Curve>::Scalar::random(&mut r);
        let mut replay = r.clone();
        let header = encapsulate_with_s(&pk, &policy, &s, &mut r, &mut Exps::compute()).unwrap();
        let key = SessionKey::from_gt(&pk.e_gh_alpha().pow(&s), SCHEME, Bls12::ID);
        assert_eq!(header.ct_prime.len(), 3);
        for set in ["a, b", "a, c", "a, d"] {
            let k = F::keygen(&pk, &mk, &attrs(set), &mut r).unwrap();
            assert_eq!(F::decapsulate(&k, &header).unwrap(), key, "{set}");
        }
        let k = F::keygen(&pk, &mk, &attrs("b, c, d"), &mut r).unwrap();
        assert!(matches!(
            F::decapsulate(&k, &header),
            Err(KemError::NotSatisfied)
        ));

        // Replay the randomness: s'_0, s'_1, s'_2, then v.
        let s_prime: Vec<_> = (0..3)
            .map(|_| <Bls12 as Curve>::Scalar::random(&mut replay))
            .collect();
        let tree = &header.policy.tree;
        let v: Vec<_> = (1..tree.share_width())
            .map(|_| <Bls12 as Curve>::Scalar::random(&mut replay))
            .collect();
        let lambdas = tree.shares(s, &v).unwrap();
        let (pi, _) = uses(&header.policy);
        assert_eq!(pi, [0, 0, 1, 0, 2, 0]);
        let b = PublicKey::<Bls12>::b();
        for (i, y) in tree.leaves().iter().enumerate() {
            let expected = b * lambdas[i] + pk.h_of(y) * s_prime[pi[i]];
            assert_eq!(header.rows[i], expected, "row {i}");
        }

        // One decryption through two rows of `a` (π = 0 and 1): four pairs.
        let (key2, header2) = F::encapsulate(&pk, &pol("(a or b) and (a or c)"), &mut r).unwrap();
        let k = F::keygen(&pk, &mk, &attrs("a"), &mut r).unwrap();
        assert_eq!(F::decapsulate(&k, &header2).unwrap(), key2);
        let (tk, rk) = <F as crate::kem::Outsourcing>::transform_key(&k, &mut r);
        let t = <F as crate::kem::Outsourcing>::transform(&tk, &header2).unwrap();
        assert_eq!(
            <F as crate::kem::Outsourcing>::decrypt_transformed(&rk, &t).unwrap(),
            key2
        );

        // A header whose ct'_τ count does not match its policy is refused.
        let (_, single) = F::encapsulate(&pk, &pol("(a and b) or (c and d)"), &mut r).unwrap();
        let mut spliced = Header::<Bls12> {
            setup_id: header.setup_id,
            policy: header.policy.clone(),
            ct0: header.ct0,
            ct_prime: single.ct_prime.clone(),
            rows: header.rows.clone(),
        }
        .to_bytes();
        assert!(Header::<Bls12>::from_bytes(&spliced).is_err());
        spliced.truncate(spliced.len() - 1);
        assert!(Header::<Bls12>::from_bytes(&spliced).is_err());
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CF = FabeoCp<Counted<Bls12>>;
        let mut r = rng(6);
        let (pk, mk) = CF::setup(&(), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let names: Vec<String> = (0..n).map(|i| format!("fabeo-cp-{n}-{i}")).collect();
            let policy = Policy::parse(&names.join(" and ")).unwrap();
            let set = AttributeSet::from_names(names.clone()).unwrap();
            let n = n as u64;

            let (key, kg) = OpCounts::measure(|| CF::keygen(&pk, &mk, &set, &mut r).unwrap());
            assert!(kg.hash_g1 <= n + 1, "|S| hashes (and B) at most");
            assert_eq!(kg.g1_exp, n, "H(y)^r per attribute");
            assert_eq!(kg.g1_fixed_exp, 2, "g^α and B^r");
            assert_eq!(kg.g2_fixed_exp, 1, "h^r");
            assert_eq!(kg.g2_exp + kg.gt_exp + kg.miller_loops + kg.g1_msm_terms, 0);

            let ((_, header), enc) =
                OpCounts::measure(|| CF::encapsulate(&pk, &policy, &mut r).unwrap());
            assert_eq!(enc.hash_g1, 0, "hashes are cached by the public key");
            assert_eq!(enc.g1_exp, n, "H(ρ(i))^{{s'}} per row");
            assert_eq!(enc.g1_fixed_exp, n, "B^{{λ_i}} per row");
            assert_eq!(enc.g2_fixed_exp, 2, "h^s and h^{{s'}}");
            assert_eq!(enc.gt_exp, 1);
            assert_eq!(enc.g2_exp + enc.miller_loops + enc.g1_msm_terms, 0);

            // The first decryption prepares h^r's lines, later ones only
            // the ciphertext's two.
            let (_, first) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
            assert_eq!(first.g2_prepared, 3);
            let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.miller_loops, 3, "3 pairings whatever N");
            assert_eq!(dec.final_exps, 1);
            assert_eq!(dec.g2_prepared, 2);
            assert_eq!(
                dec.g1_exp + dec.g2_exp + dec.gt_exp + dec.g1_msm_terms,
                0,
                "no exponentiation for an AND policy"
            );
            assert!(dec.g1_add <= 2 * n, "two sums of n points");
        }
        // A reused attribute adds one pairing; a threshold puts ω_i ≠ ±1
        // into MSMs.
        let key = CF::keygen(&pk, &mk, &attrs("ra, rb, rc"), &mut r).unwrap();
        let (_, header) = CF::encapsulate(&pk, &pol("(ra and rb) and (ra or rc)"), &mut r).unwrap();
        CF::decapsulate(&key, &header).unwrap();
        let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
        assert!((3..=4).contains(&dec.miller_loops));
        let only_a = CF::keygen(&pk, &mk, &attrs("ra"), &mut r).unwrap();
        let (_, header) = CF::encapsulate(&pk, &pol("(ra or rb) and (ra or rc)"), &mut r).unwrap();
        CF::decapsulate(&only_a, &header).unwrap();
        let (_, dec) = OpCounts::measure(|| CF::decapsulate(&only_a, &header).unwrap());
        assert_eq!(dec.miller_loops, 4, "both occurrences of ra are used");
        let (_, header) = CF::encapsulate(&pk, &pol("2 of (ra, rb, rc)"), &mut r).unwrap();
        let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
        assert_eq!(dec.miller_loops, 3);
        assert!(
            (1..=2 * 2).contains(&dec.g1_msm_terms),
            "ω_i = ±1 are additions"
        );
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(7);
        let (pk, _) = F::setup(&(), &mut r).unwrap();
        let (_, header) = F::encapsulate(&pk, &pol("a or b"), &mut r).unwrap();
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        // A header whose row count does not match its policy.
        let forged = Header::<Bls12> {
            setup_id: header.setup_id,
            policy: header.policy.clone(),
            ct0: header.ct0,
            ct_prime: header.ct_prime.clone(),
            rows: header.rows[..1].to_vec(),
        };
        assert!(Header::<Bls12>::from_bytes(&forged.to_bytes()).is_err());
        // A FABEO-KP public key is not a FABEO-CP public key.
        let (kp_pk, _) = FabeoMasterKey::<Bls12, super::super::Kp>::generate(&mut r);
        assert!(PublicKey::<Bls12>::from_bytes(&kp_pk.to_bytes()).is_err());
    }
}
