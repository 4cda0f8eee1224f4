//! FABEO KP-ABE (Riepel–Wee, CCS 2022, Figure 1 right) in KEM form, with
//! GHW11 outsourced decryption. What it shares with FABEO-CP (setup, keys,
//! the hash, the placement, attribute reuse) is in [`super`].
//!
//! Notation (the paper's): g ∈ G, h ∈ H, e: G × H → GT; random oracle
//! H: {0,1}* → G; MSP (M, ρ) of n rows (ours: the key policy's access tree,
//! rows = leaves left to right) with shares λ_i = M_i·v, v = (α, v_2, …);
//! π(i) the occurrence number of row i and τ its values (0-based here,
//! [`super::uses`]). KEM form: the session key is derived from
//! e(g,h)^{αs}.
//!
//! ```text
//! KeyGen (M, ρ): r_τ, v_2, … ←R Z_p
//!           sk'_τ = h^{r_τ},  sk_i = g^{λ_i} · H(ρ(i))^{r_π(i)}
//! Encrypt S: s ←R Z_p
//!           ct_0 = h^s,  ct_y = H(y)^s (y ∈ S);  session key from e(g,h)^{αs}
//! Decrypt:  ω_i with Σ_{i∈I} ω_i M_i = (1, 0, …, 0):
//!           e(Π_{i∈I} sk_i^{ω_i}, ct_0) · Π_τ e(Π_{i∈I, π(i)=τ} ct_{ρ(i)}^{-ω_i}, sk'_τ)
//!             = e(g,h)^{αs}
//! ```
//!
//! GHW11 outsourcing ([`super::super::ghw11`]): every key element raised to
//! 1/z gives e(g,h)^{αs/z} through the same equation.

use super::{random_scalars, uses, uses_match, ByUse, FabeoMasterKey, FabeoPublicKey, Kp};
use crate::abe::ghw11::{self, Checks};
use crate::curve::{
    lincomb, lincomb_secret_points, par_map, Curve, Group, LinedG2, Scalar, Target,
};
use crate::kem::exps::Base::{Fixed, Point};
use crate::kem::{same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{AttributeSet, Policy, PolicyTree};
use crate::wire::codec::{labels_match, object, rows_match};
use crate::wire::{SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct FabeoKp<C>(PhantomData<C>);

pub type PublicKey<C> = FabeoPublicKey<C, Kp>;
pub type MasterKey<C> = FabeoMasterKey<C, Kp>;

const SCHEME: SchemeId = SchemeId::FabeoKp;

object! {
    /// The elements shared by a user key and a transformation key: the
    /// policy, sk'_τ = h^{r_τ} ∈ G2 per occurrence number (lines cached on
    /// first use) and sk_i ∈ G1 per leaf; wiped on drop.
    pub struct KeyElements<C> = body, bound {
        policy: PolicyTree => "policy",
        sk_prime: Secret<Vec<LinedG2<C>>> => "sk'_τ = h^{r_τ}",
        rows: Secret<Vec<C::G1>> => "sk_i",
    }
    check "one sk_i per leaf of the policy, one sk'_τ per occurrence number" => |e| {
        rows_match("key", &e.policy, e.rows.len())?;
        uses_match("key", &e.policy, e.sk_prime.len())
    };
}

impl<C: Curve> KeyElements<C> {
    /// The key's policy.
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
}

object! {
    /// A user's decryption key for a policy.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME) {
        pub(crate) elements: KeyElements<C> => "",
    }
    made_for Policy = |key| key.elements.policy.policy.clone();
}

/// GHW11's transformation key, retrieval key and transformed header.
pub type TransformKey<C> = ghw11::TransformKey<C, FabeoKp<C>>;
pub type RetrievalKey<C> = ghw11::RetrievalKey<C, FabeoKp<C>>;
pub type Transformed<C> = ghw11::Transformed<C, FabeoKp<C>>;

object! {
    /// The KEM header: the attribute set S, ct_0 = h^s ∈ G2 and ct_y ∈ G1
    /// per (expanded) attribute y ∈ S, in the sorted order of the expansion.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        set: AttributeSet => "attribute list",
        ct0: C::G2 => "ct_0 = h^s",
        cy: Vec<C::G1> => "ct_y",
    }
    cached { index: BTreeMap<String, usize> = set.positions() }
    check "at least one attribute; one ct_y per expanded attribute" =>
        |h| labels_match(&h.set, h.cy.len());
    made_for AttributeSet = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    /// The attributes the ciphertext is labelled with.
    pub fn attributes(&self) -> &AttributeSet {
        &self.set
    }
    fn ct_y(&self, y: &str) -> Option<&C::G1> {
        self.index.get(y).and_then(|i| self.cy.get(*i))
    }
}

impl<C: Curve> Authority for FabeoKp<C> {
    crate::kem::authority_objects!((), Policy);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        Ok(MasterKey::<C>::generate(rng))
    }

    /// The r_τ, then v_2, … are drawn from `rng` in that order.
    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        policy: &Policy,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        same_setup(pk, mk)?;
        let policy = PolicyTree::new(policy.clone())?;
        let tree = &policy.tree;
        let (pi, tau) = uses(&policy);
        let r = random_scalars::<C::Scalar, R>(tau, rng);
        let v = random_scalars::<C::Scalar, R>(tree.share_width().saturating_sub(1), rng);
        let lambdas = Secret(tree.shares(*mk.alpha, &v)?);
        let tb = pk.tables();
        let rows: Vec<(&String, (&C::Scalar, &usize))> =
            tree.leaves().iter().zip(lambdas.iter().zip(&pi)).collect();
        let rows = par_map::<C, _, _>(&rows, |(y, (lambda, t))| {
            C::G1::mul_fixed(&tb.g, lambda) + pk.h_of(y).mul_secret(&r[**t])
        });
        let sk_prime = r
            .iter()
            .map(|r| LinedG2::new(C::G2::mul_fixed(&tb.h, r)))
            .collect();
        Ok(UserKey {
            elements: KeyElements {
                setup_id: mk.setup_id,
                policy,
                sk_prime: Secret(sk_prime),
                rows: Secret(rows),
            },
        })
    }
}

impl<C: Curve> Kem for FabeoKp<C> {
    crate::kem::kem_objects!(SCHEME, Policy => AttributeSet; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let s = Secret(C::Scalar::random(rng));
        let header = encapsulate_with_s(pk, attrs, &s, exps)?;
        let key = SessionKey::from_gt(&pk.e_gh_alpha().pow(&s), SCHEME, C::ID);
        Ok((key, header))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let e = pair(&key.elements, header, Checks::Done)?;
        Ok(SessionKey::from_gt(&e, SCHEME, C::ID))
    }
}

/// The header for `attrs` with exponent s: ct_0 = h^s, ct_y = H(y)^s.
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
    let names: Vec<&str> = attrs.iter().collect();
    let ct0 = exps.one(&[(Fixed(&pk.tables().h), *s)]);
    let cy = exps.each_shared::<C, _, _>(&names, &[*s], |y| (vec![], vec![(Point(pk.h_of(y)), 0)]));
    Ok(Header {
        setup_id: pk.setup_id(),
        index: attrs.positions(),
        set: attrs.clone(),
        ct0,
        cy,
    })
}

/// The decryption equation with a key's (or a transformation key's)
/// elements: one multi-pairing of 1 + (the occurrence numbers used) pairs.
fn pair<C: Curve>(
    e: &KeyElements<C>,
    header: &Header<C>,
    checks: Checks,
) -> Result<C::Gt, KemError> {
    same_setup(header, e)?;
    let tree = &e.policy.tree;
    let selection = tree
        .cheapest_satisfying(&header.set)
        .ok_or(KemError::NotSatisfied)?;
    let omega = tree.reconstruction::<C::Scalar>(&selection)?;
    let (pi, tau) = uses(&e.policy);
    let leaves = tree.leaves();
    let out_of_range = || KemError::Invalid("row index out of range".into());
    let mut cts = ByUse::<C::G1>::new(tau);
    let mut sks = Vec::with_capacity(omega.len());
    let mut ws = Vec::with_capacity(omega.len());
    for (i, w) in &omega {
        let y = leaves.get(*i).ok_or_else(out_of_range)?;
        let t = pi.get(*i).ok_or_else(out_of_range)?;
        let c = header.ct_y(y).ok_or(KemError::NotSatisfied)?;
        cts.push(*t, *c, -*w)?;
        sks.push(*e.rows.get(*i).ok_or_else(out_of_range)?);
        ws.push(*w);
    }
    let sk_sum = lincomb_secret_points(&sks, &ws);
    let sums = cts.sums(lincomb);
    let ct0_lines = C::prepare(&checks.paired(header.ct0)?);
    let mut terms: Vec<(C::G1, &C::G2Prepared)> = Vec::with_capacity(sums.len() + 1);
    terms.push((sk_sum, &ct0_lines));
    for (t, c) in &sums {
        terms.push((
            checks.paired(*c)?,
            e.sk_prime.get(*t).ok_or_else(out_of_range)?.lines(),
        ));
    }
    Ok(C::multi_pairing(&terms))
}

impl<C: Curve> ghw11::Scheme for FabeoKp<C> {
    type Curve = C;
    type Elements = KeyElements<C>;

    fn elements(key: &UserKey<C>) -> &KeyElements<C> {
        &key.elements
    }

    /// (sk'_τ^{1/z}, sk_i^{1/z}).
    fn raise(e: &KeyElements<C>, z_inv: &C::Scalar) -> KeyElements<C> {
        KeyElements {
            setup_id: e.setup_id,
            policy: e.policy.clone(),
            sk_prime: Secret(
                e.sk_prime
                    .iter()
                    .map(|p| LinedG2::new(p.point.mul_secret(z_inv)))
                    .collect(),
            ),
            rows: Secret(par_map::<C, _, _>(&e.rows, |p| p.mul_secret(z_inv))),
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

    type F = FabeoKp<Bls12>;

    conformance::tests!(FabeoKp: Case::one_key((), conformance::POLICY, conformance::ATTRIBUTE_SETS); outsourced_round_trip, random_policies_outsourced, proxy_checks_cofactor_parts);

    /// Two keys for `a and b` and `c and d`, given a ciphertext for
    /// {a, d}: neither decrypts, nor does a key made of rows of both (each
    /// key's shares of α are bound to its own r_τ).
    #[test]
    fn collusion_fails() {
        let mut r = rng(3);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let (key, header) = F::encapsulate(&pk, &attrs("a, d"), &mut r).unwrap();
        let policy = pol("(a and b) or (c and d)");
        let k1 = F::keygen(&pk, &mk, &policy, &mut r).unwrap();
        let k2 = F::keygen(&pk, &mk, &policy, &mut r).unwrap();
        for k in [&k1, &k2] {
            assert!(matches!(
                F::decapsulate(k, &header),
                Err(KemError::NotSatisfied)
            ));
        }
        // A key whose rows a, d come from k1 and b, c from k2: the selection
        // {a, d} satisfies nothing, so swap in a policy `a and d` built of
        // k1's row a and k2's row d.
        let mixed = UserKey::<Bls12> {
            elements: KeyElements {
                setup_id: k1.elements.setup_id,
                policy: PolicyTree::new(pol("a and d")).unwrap(),
                sk_prime: Secret(vec![LinedG2::new(k1.elements.sk_prime[0].point)]),
                rows: Secret(vec![k1.elements.rows[0], k2.elements.rows[3]]),
            },
        };
        assert_ne!(F::decapsulate(&mixed, &header).unwrap(), key);
        let decoded = UserKey::<Bls12>::from_bytes(&mixed.to_bytes()).unwrap();
        assert_ne!(F::decapsulate(&decoded, &header).unwrap(), key);
    }

    /// Attribute reuse: a key policy naming `a` twice has two sk'_τ and
    /// decrypts through either row of `a`; a key with one sk'_τ for it is
    /// refused.
    #[test]
    fn reused_attributes_get_their_own_exponents() {
        let mut r = rng(5);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let k = F::keygen(&pk, &mk, &pol("(a and b) or (a and c)"), &mut r).unwrap();
        assert_eq!(k.elements.sk_prime.len(), 2);
        for set in ["a, b", "a, c"] {
            let (key, header) = F::encapsulate(&pk, &attrs(set), &mut r).unwrap();
            assert_eq!(F::decapsulate(&k, &header).unwrap(), key, "{set}");
        }
        let (_, header) = F::encapsulate(&pk, &attrs("b, c"), &mut r).unwrap();
        assert!(matches!(
            F::decapsulate(&k, &header),
            Err(KemError::NotSatisfied)
        ));
        // One decryption through both rows of `a`, directly and outsourced.
        let both = F::keygen(&pk, &mk, &pol("(a or b) and (a or c)"), &mut r).unwrap();
        let (key, header) = F::encapsulate(&pk, &attrs("a"), &mut r).unwrap();
        assert_eq!(F::decapsulate(&both, &header).unwrap(), key);
        let (tk, rk) = <F as crate::kem::Outsourcing>::transform_key(&both, &mut r);
        let t = <F as crate::kem::Outsourcing>::transform(&tk, &header).unwrap();
        assert_eq!(
            <F as crate::kem::Outsourcing>::decrypt_transformed(&rk, &t).unwrap(),
            key
        );
        let one = UserKey::<Bls12> {
            elements: KeyElements {
                setup_id: k.elements.setup_id,
                policy: k.elements.policy.clone(),
                sk_prime: Secret(vec![LinedG2::new(k.elements.sk_prime[0].point)]),
                rows: Secret(k.elements.rows.to_vec()),
            },
        };
        assert!(UserKey::<Bls12>::from_bytes(&one.to_bytes()).is_err());
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CF = FabeoKp<Counted<Bls12>>;
        let mut r = rng(6);
        let (pk, mk) = CF::setup(&(), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let names: Vec<String> = (0..n).map(|i| format!("fabeo-kp-{n}-{i}")).collect();
            let policy = Policy::parse(&names.join(" and ")).unwrap();
            let set = AttributeSet::from_names(names.clone()).unwrap();
            let n = n as u64;

            let (key, kg) = OpCounts::measure(|| CF::keygen(&pk, &mk, &policy, &mut r).unwrap());
            assert!(kg.hash_g1 <= n, "one hash per attribute at most");
            assert_eq!(kg.g1_exp, n, "H(ρ(i))^r per row");
            assert_eq!(kg.g1_fixed_exp, n, "g^{{λ_i}} per row");
            assert_eq!(kg.g2_fixed_exp, 1, "h^r");
            assert_eq!(kg.g2_exp + kg.gt_exp + kg.miller_loops + kg.g1_msm_terms, 0);

            let ((_, header), enc) =
                OpCounts::measure(|| CF::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.hash_g1, 0, "hashes are cached by the public key");
            assert_eq!(enc.g1_exp, n, "H(y)^s per attribute");
            assert_eq!(enc.g2_fixed_exp, 1, "h^s");
            assert_eq!(enc.gt_exp, 1);
            assert_eq!(enc.g1_fixed_exp + enc.g2_exp + enc.miller_loops, 0);

            let (_, first) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
            assert_eq!(first.g2_prepared, 2);
            let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.miller_loops, 2, "2 pairings whatever N");
            assert_eq!(dec.final_exps, 1);
            assert_eq!(dec.g2_prepared, 1);
            assert_eq!(
                dec.g1_exp + dec.g2_exp + dec.gt_exp + dec.g1_msm_terms,
                0,
                "no exponentiation for an AND policy"
            );
            assert!(dec.g1_add <= 2 * n, "two sums of n points");
        }
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(7);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let (_, header) = F::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        let forged = Header::<Bls12> {
            setup_id: header.setup_id,
            index: header.index.clone(),
            set: header.set.clone(),
            ct0: header.ct0,
            cy: header.cy[..1].to_vec(),
        };
        assert!(Header::<Bls12>::from_bytes(&forged.to_bytes()).is_err());
        let k = F::keygen(&pk, &mk, &pol("a and b"), &mut r).unwrap();
        let short = UserKey::<Bls12> {
            elements: KeyElements {
                setup_id: k.elements.setup_id,
                policy: k.elements.policy.clone(),
                sk_prime: Secret(vec![LinedG2::new(k.elements.sk_prime[0].point)]),
                rows: Secret(k.elements.rows[..1].to_vec()),
            },
        };
        assert!(UserKey::<Bls12>::from_bytes(&short.to_bytes()).is_err());
        // A FABEO-CP master key is not a FABEO-KP master key.
        let (_, cp_mk) = FabeoMasterKey::<Bls12, super::super::Cp>::generate(&mut r);
        assert!(MasterKey::<Bls12>::from_bytes(&cp_mk.to_bytes()).is_err());
    }
}
