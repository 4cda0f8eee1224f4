//! # ⚠️ BROKEN SCHEME — BENCHMARKING ONLY — DO NOT USE TO PROTECT DATA ⚠️
//!
//! YCT14 pairing-free KP-ABE is **insecure**: user keys are plain scalars
//! d_i = λ_i / s_{ρ(i)}, so keys combine linearly and users (even a single
//! user whose policy mentions an attribute twice) can forge keys for
//! policies they were never given and decrypt ciphertexts they are not
//! entitled to. Published attacks, as listed in Fraunhofer-AISEC/rabe issue
//! #8 ("YCT14 KP-ABE scheme is broken", 2021) and JHUISI/charm issue #276:
//!
//! * the original scheme was broken by Tan, Yeow and Hwang, IEEE Internet of
//!   Things Journal 2019 (IEEE Xplore document 8651482, "Enhancement of a
//!   lightweight attribute-based encryption scheme for the Internet of
//!   Things"), who also proposed a fix;
//! * the "fixed" version was broken again by Herranz, IEEE Access 2020 (IEEE
//!   Xplore document 9291064, "Attacking pairing-free attribute-based
//!   encryption schemes");
//! * de la Piedra, Venema and Alpár demonstrated the attacks in practice
//!   ("Practical attacks against attribute-based encryption", Black Hat
//!   Europe 2021).
//!
//! The attack the tests of this file run (our own derivation of the same
//! linear-algebra weakness; [`forge_and_key`]): from two key components for
//! the same attribute A, a = λ/s_A and a' = λ'/s_A, anyone learns the ratio
//! r = λ/λ' of the secret shares without knowing s_A. With keys for
//! `A and B` (shares λ, s−λ) and `A and C` (shares λ', s−λ'), the scalars
//! e_B = −d_B/(r−1), e_C = d'_C·r/(r−1) satisfy e_B·s_B + e_C·s_C = s, i.e.
//! they are a valid key for `B and C`, which decrypts every ciphertext
//! labelled with B and C — including those without A that neither key may
//! open. One key for `(A and B) or (A and C)` suffices. No group operation
//! is needed: the forgery is four field operations.
//!
//! This module exists only so that the lab can reproduce the YCT figures of
//! Perazzo et al. (`perazzo-abe-constrained-iot.txt` §5.1, Figs. 6–13,
//! Table 2). It is compiled only with the cargo feature
//! `insecure-benchmark-only`; the default build does not contain it, and the
//! type is named [`InsecureYct14`] so that no call site can forget it.
//!
//! ## The scheme
//!
//! Paper: X. Yao, Z. Chen, Y. Tian, "A lightweight attribute-based encryption
//! scheme for the Internet of Things", Future Generation Computer Systems 49
//! (2015). KP-ABE, pairing-free, over one elliptic-curve group of prime order
//! r with generator G; the attribute universe U is fixed at setup (default
//! `A1 … A256`, a [`Universe`] for others). KEM form
//! as everywhere in abbe.
//!
//! ```text
//! Setup:    s, s_i ←R Z_r (i ∈ U);  PK = (Y = s·G, {P_i = s_i·G});  MK = (s, {s_i})
//! KeyGen T: LSSS/access-tree shares λ_j of s over T;  d_j = λ_j · s_{ρ(j)}^{-1}
//! Encrypt S: k ←R Z_r;  C_i = k·P_i (i ∈ S);  session key from k·Y
//! Decrypt:  Σ_j ω_j·d_j·C_{ρ(j)} = Σ_j ω_j·λ_j·k·G = k·s·G = k·Y
//! ```
//!
//! Deviations from the paper, all on the encapsulation side: the paper's
//! ciphertext carries the message blinded by k·Y (C' = M·k·Y, with M
//! encoded into the field); in KEM form there is no C', and the session key
//! is HKDF-SHA256 of the compressed encoding of k·Y (`SessionKey::from_bytes_kdf`
//! in `kem.rs`, the same KDF as `SessionKey::from_gt`). No element k·G is
//! sent — nothing in decryption needs it. The paper walks the access tree
//! bottom-up, multiplying points by Lagrange coefficients at every node; we
//! fold all coefficients into the scalars ω_j·d_j and do one multi-scalar
//! multiplication (same result, fewer point operations).
//!
//! ## Group placement
//! There is no pairing: every element (Y, P_i, C_i, k·Y) is in G1 of the
//! chosen curve (`C::G1`: BLS12-381 G1 or BN254 G1, both through the same
//! traits). G2 and GT are unused. Keys are vectors of scalars, the flaw.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.

use crate::abe::Universe;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar};
use crate::kem::exps::Base::Fixed;
use crate::kem::{bind, same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{validate_name, AttributeSet, Policy, PolicyTree};
use crate::wire::codec::{invalid, names_match, nonzero, object, rows_match, secrets_match, Bound};
use crate::wire::{hex, Lazy, SchemeId, Secret, MAX_ITEMS};
use rand_core::{CryptoRng, RngCore};
use std::collections::{BTreeMap, BTreeSet};
use std::marker::PhantomData;
use std::sync::OnceLock;

/// Size of the default attribute universe `A1 … A256`.
pub const DEFAULT_UNIVERSE: usize = 256;

/// YCT14 KP-ABE, generic over the curve (only its G1 is used).
///
/// **BROKEN — benchmarking only.** Keys can be forged from other keys (see
/// the module documentation and [`forge_and_key`]); never protect data with
/// it.
#[derive(Clone, Copy, Debug, Default)]
pub struct InsecureYct14<C>(PhantomData<C>);

/// Fixed-base tables of Y and of each P_i (encryption's k·Y and k·P_i),
/// each built on first use: encryption then costs what GPSW06's does with
/// its tables on T_i, so the lab compares the schemes, not the code paths.
struct Tables<C: Curve> {
    y: FixedBaseTable<C::G1>,
    attrs: BTreeMap<String, OnceLock<FixedBaseTable<C::G1>>>,
}

object! {
    /// Public parameters: Y = g^s and P_i = g^{s_i} per universe attribute.
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME) {
        pub y: C::G1 => "Y",
        attrs: BTreeMap<String, C::G1> => "P_i",
    }
    cached { tables: Lazy<Tables<C>> }
    check "a non-empty universe; no element is the identity" => |pk| {
        if pk.attrs.is_empty() {
            return Err(invalid("public key", "empty attribute universe"));
        }
        if pk.y.is_identity() || pk.attrs.values().any(|p| p.is_identity()) {
            return Err(invalid("public key", "an element is the identity"));
        }
        Ok(())
    };
}

impl<C: Curve> Bound for PublicKey<C> {
    fn setup_id(&self) -> [u8; 16] {
        PublicKey::setup_id(self)
    }
}

impl<C: Curve> core::fmt::Debug for PublicKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (n, id) = (self.attrs.len(), hex(&self.setup_id()));
        write!(
            f,
            "INSECURE YCT14 PublicKey on {} ({n} attributes, setup {id})",
            C::NAME
        )
    }
}

impl<C: Curve> PublicKey<C> {
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            y: self.y.precompute(),
            attrs: self
                .attrs
                .keys()
                .map(|name| (name.clone(), OnceLock::new()))
                .collect(),
        })
    }

    /// The table of P_i for a universe attribute (`None` outside it).
    fn attr_table(&self, name: &str) -> Option<&FixedBaseTable<C::G1>> {
        let (p, cell) = (self.attrs.get(name)?, self.tables().attrs.get(name)?);
        Some(cell.get_or_init(|| p.precompute()))
    }

    /// The setup identifier (first 16 bytes of SHA-256 of the encoding).
    pub fn setup_id(&self) -> [u8; 16] {
        crate::wire::setup_id(&self.to_bytes())
    }

    /// The attribute universe, sorted.
    pub fn universe(&self) -> impl Iterator<Item = &str> + '_ {
        self.attrs.keys().map(String::as_str)
    }

    /// P_i for attribute `name`, if it is in the universe.
    pub fn attribute_point(&self, name: &str) -> Option<&C::G1> {
        self.attrs.get(name)
    }
}

object! {
    /// The master key (s, {s_i}); wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        s: Secret<C::Scalar> => "s",
        attrs: Secret<BTreeMap<String, C::Scalar>> => "s_i",
    }
    check "a non-empty universe; no secret is 0; they give the public key of the setup id" =>
        |mk| {
            if mk.attrs.is_empty() {
                return Err(invalid("master key", "empty attribute universe"));
            }
            nonzero("master key", &*mk.s)?;
            for si in mk.attrs.values() {
                nonzero("master key", si)?;
            }
            secrets_match(mk.public_key().setup_id(), mk.setup_id)
        };
}

impl<C: Curve> MasterKey<C> {
    /// Recomputes the public key: |U|+1 fixed-base G1 multiplications.
    pub fn public_key(&self) -> PublicKey<C> {
        let g = C::G1::generator().precompute();
        let y = C::G1::mul_fixed(&g, &self.s);
        let items: Vec<(&String, &C::Scalar)> = self.attrs.iter().collect();
        let points = par_map::<C, _, _>(&items, |(_, si)| C::G1::mul_fixed(&g, si));
        let attrs = items
            .iter()
            .zip(points)
            .map(|((n, _), p)| ((*n).clone(), p))
            .collect();
        PublicKey {
            y,
            attrs,
            tables: Lazy::default(),
        }
    }
}

object! {
    /// A user key for a policy: one scalar d_j = λ_j / s_{ρ(j)} per policy
    /// leaf; wiped on drop. **BROKEN scheme — these scalars can be combined
    /// into keys for other policies.**
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        policy: PolicyTree => "policy",
        d: Secret<Vec<C::Scalar>> => "d_j",
    }
    check "one d_j per leaf of the policy" => |k| rows_match("key", &k.policy, k.d.len());
    made_for Policy = |key| key.policy.policy.clone();
}

impl<C: Curve> UserKey<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
}

object! {
    /// The KEM header: the attribute set S and C_i = k·P_i for every i ∈ S.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        set: AttributeSet => "attribute set",
        c: BTreeMap<String, C::G1> => "C_i",
    }
    check "the C_i are named by the expansion of the attribute set, in order" =>
        |h| names_match("header", &h.set, h.c.keys());
    made_for AttributeSet = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn attributes(&self) -> &AttributeSet {
        &self.set
    }
}

const SCHEME: SchemeId = SchemeId::Yct14;

/// A nonzero random scalar (zero has probability 2^-254; drawn again).
fn random_nonzero<C: Curve, R: RngCore + CryptoRng>(rng: &mut R) -> C::Scalar {
    loop {
        let v = C::Scalar::random(rng);
        if !v.is_zero() {
            return v;
        }
    }
}

/// The session key from k·Y: HKDF-SHA256 of its compressed encoding.
fn session_key<C: Curve>(point: &C::G1) -> SessionKey {
    let mut bytes = point.to_compressed();
    let key = SessionKey::from_bytes_kdf(&bytes, SchemeId::Yct14, C::ID);
    bytes.fill(0);
    key
}

impl<C: Curve> InsecureYct14<C> {
    fn setup_names<R: RngCore + CryptoRng>(
        names: BTreeSet<String>,
        rng: &mut R,
    ) -> (PublicKey<C>, MasterKey<C>) {
        let s = random_nonzero::<C, R>(rng);
        let attrs = names
            .into_iter()
            .map(|n| (n, random_nonzero::<C, R>(rng)))
            .collect();
        let mk = MasterKey {
            setup_id: [0; 16],
            s: Secret(s),
            attrs: Secret(attrs),
        };
        bind(mk.public_key(), mk)
    }
}

/// The attack, as a function: from two keys' components for policies
/// `A and B` (d_A, d_B) and `A and C` (d'_A, d'_C) — shares λ, s−λ and
/// λ', s−λ' — returns scalars (e_B, e_C) with e_B·s_B + e_C·s_C = s, i.e. a
/// key for `B and C`. `None` if λ = λ' (probability 1/r). Works just as well
/// on the four components of ONE key for `(A and B) or (A and C)`.
///
/// Derivation: r = d_A/d'_A = λ/λ' (s_A cancels). Since λ = r·λ',
/// r·(s−λ') − (s−λ) = (r−1)·s; with d_B = (s−λ)/s_B and d'_C = (s−λ')/s_C,
/// e_B = −d_B/(r−1) and e_C = r·d'_C/(r−1) give e_B·s_B + e_C·s_C = s.
pub fn forge_and_key<F: Scalar>(d_a: F, d_b: F, d2_a: F, d2_c: F) -> Option<(F, F)> {
    let r = d_a * d2_a.invert()?;
    let inv = (r - F::one()).invert()?;
    Some((-(d_b * inv), d2_c * r * inv))
}

impl<C: Curve> Authority for InsecureYct14<C> {
    crate::kem::authority_objects!(Universe, Policy);

    /// Setup with an explicit attribute universe (names as in policies;
    /// duplicates are merged). Numeric attributes (`age = 42`), whose
    /// bag-of-bits markers contain the reserved `#`, are not supported.
    fn setup<R: RngCore + CryptoRng>(
        universe: &Universe,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mut names = BTreeSet::new();
        for n in &universe.0 {
            validate_name(n)?;
            names.insert(n.to_owned());
            if names.len() > MAX_ITEMS {
                return Err(KemError::Invalid(format!(
                    "an attribute universe of at most {MAX_ITEMS} names"
                )));
            }
        }
        if names.is_empty() {
            return Err(KemError::Invalid("an empty attribute universe".into()));
        }
        Ok(Self::setup_names(names, rng))
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
        let ys: Vec<C::Scalar> = (1..tree.share_width())
            .map(|_| C::Scalar::random(rng))
            .collect();
        let mut lambdas = tree.shares(*mk.s, &ys)?;
        let mut d = Vec::with_capacity(lambdas.len());
        let mut result = Ok(());
        for (attr, lambda) in tree.leaves().iter().zip(&lambdas) {
            let Some(si) = mk.attrs.get(attr) else {
                result = Err(KemError::Invalid(format!(
                    "attribute '{attr}' is not in this setup's attribute universe"
                )));
                break;
            };
            // s_i ≠ 0 is checked at setup and decoding.
            let Some(mut inv) = si.invert() else {
                result = Err(KemError::Invalid("zero attribute secret".into()));
                break;
            };
            d.push(*lambda * inv);
            wipe(&mut inv, C::Scalar::zero());
        }
        for v in lambdas.iter_mut() {
            wipe(v, C::Scalar::zero());
        }
        let key = UserKey {
            setup_id: mk.setup_id,
            policy,
            d: Secret(d),
        };
        // `key` wipes the components already computed if we fail here.
        result.map(|()| key)
    }
}

impl<C: Curve> Kem for InsecureYct14<C> {
    crate::kem::kem_objects!(SchemeId::Yct14, Policy => AttributeSet; the issued key decrypts);
    const INSECURE: bool = true;

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &AttributeSet,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        if set.is_empty() {
            return Err(KemError::Invalid(
                "a ciphertext needs at least one attribute".into(),
            ));
        }
        let mut items = Vec::with_capacity(set.len());
        for attr in set.iter() {
            let table = pk.attr_table(attr).ok_or_else(|| {
                KemError::Invalid(format!(
                    "attribute '{attr}' is not in this setup's attribute universe"
                ))
            })?;
            items.push((attr, table));
        }
        let mut k = random_nonzero::<C, R>(rng);
        let points =
            exps.each_shared::<C, _, _>(&items, &[k], |(_, t)| (vec![], vec![(Fixed(*t), 0)]));
        let mut ky = C::G1::mul_fixed(&pk.tables().y, &k);
        wipe(&mut k, C::Scalar::zero());
        let key = session_key::<C>(&ky);
        wipe(&mut ky, C::G1::identity());
        let c = items
            .iter()
            .zip(points)
            .map(|((n, _), p)| ((*n).to_owned(), p))
            .collect();
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                set: set.clone(),
                c,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        same_setup(key, header)?;
        let tree = &key.policy.tree;
        let selection = tree
            .cheapest_satisfying(&header.set)
            .ok_or(KemError::NotSatisfied)?;
        let omega = tree.reconstruction::<C::Scalar>(&selection)?;
        let mut points = Vec::with_capacity(omega.len());
        let mut scalars = Vec::with_capacity(omega.len());
        for (j, w) in &omega {
            let attr = tree
                .leaf(*j)
                .ok_or_else(|| KemError::Invalid("leaf index out of range".into()))?;
            let c = header.c.get(attr).ok_or(KemError::NotSatisfied)?;
            let d = key
                .d
                .get(*j)
                .ok_or_else(|| KemError::Invalid("key component missing".into()))?;
            points.push(*c);
            scalars.push(*w * *d);
        }
        let mut ky = C::G1::msm(&points, &scalars);
        for v in scalars.iter_mut() {
            wipe(v, C::Scalar::zero());
        }
        let out = session_key::<C>(&ky);
        wipe(&mut ky, C::G1::identity());
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, pol, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::policy::generate;

    type Y = InsecureYct14<Bls12>;

    conformance::tests!(InsecureYct14: Case::one_key(
        Universe::from_iter(UNIVERSE),
        "(doctor and cardiology) or 2 of (nurse, ward25, doctor)",
        &[
            ("doctor, cardiology", true),
            ("nurse, ward25", true),
            ("nurse, doctor", true),
            ("doctor, cardiology, nurse, ward25", true),
            ("doctor, A, B", false),
            ("cardiology, ward25", false),
        ],
    ); random_policies);

    const UNIVERSE: [&str; 7] = ["doctor", "cardiology", "nurse", "ward25", "A", "B", "C"];

    #[test]
    fn default_universe_and_its_limits() {
        let mut r = rng(2);
        let (pk, mk) = Y::setup(&Default::default(), &mut r).unwrap();
        assert_eq!(pk.universe().count(), DEFAULT_UNIVERSE);
        let policy = generate::flat_and(10).unwrap();
        let key = Y::keygen(&pk, &mk, &policy, &mut r).unwrap();
        let set = AttributeSet::from_names(policy.attributes()).unwrap();
        let (k, h) = Y::encapsulate(&pk, &set, &mut r).unwrap();
        assert_eq!(Y::decapsulate(&key, &h).unwrap(), k);
        // Outside the universe: typed errors, no panic.
        assert!(matches!(
            Y::keygen(&pk, &mk, &pol("A1 and A257"), &mut r),
            Err(KemError::Invalid(_))
        ));
        assert!(matches!(
            Y::encapsulate(&pk, &attrs("A1, doctor"), &mut r),
            Err(KemError::Invalid(_))
        ));
        assert!(matches!(
            Y::encapsulate(&pk, &AttributeSet::new(), &mut r),
            Err(KemError::Invalid(_))
        ));
        assert!(Y::setup(&Universe::from_iter(&Vec::<String>::new()), &mut r).is_err());
        assert!(Y::setup(&Universe::from_iter(&["a#b"]), &mut r).is_err());
    }

    /// Builds a key from raw scalars, as an attacker holding the scalars can.
    fn key_from_scalars<C: Curve>(
        setup_id: [u8; 16],
        policy: &str,
        d: Vec<C::Scalar>,
    ) -> UserKey<C> {
        UserKey {
            setup_id,
            policy: PolicyTree::new(Policy::parse(policy).unwrap()).unwrap(),
            d: Secret(d),
        }
    }

    /// THE WEAKNESS, with two colluding users: keys for `A and B` and
    /// `A and C` cannot open a ciphertext for {B, C} (neither policy is
    /// satisfied), yet their scalars combine into a working key for
    /// `B and C` — through the public encoding, with no secret of the
    /// authority. A collusion-resistant scheme must make this fail.
    #[test]
    fn attack_two_keys_forge_a_third() {
        let mut r = rng(4);
        let (pk, mk) = Y::setup(&Universe::from_iter(&UNIVERSE), &mut r).unwrap();
        let k1 = Y::keygen(&pk, &mk, &pol("A and B"), &mut r).unwrap();
        let k2 = Y::keygen(&pk, &mk, &pol("A and C"), &mut r).unwrap();
        let (target, header) = Y::encapsulate(&pk, &attrs("B, C"), &mut r).unwrap();
        assert!(matches!(
            Y::decapsulate(&k1, &header),
            Err(KemError::NotSatisfied)
        ));
        assert!(matches!(
            Y::decapsulate(&k2, &header),
            Err(KemError::NotSatisfied)
        ));
        // Only the encoded keys are used: the policy leaves are A,B and A,C.
        let k1 = UserKey::<Bls12>::from_bytes(&k1.to_bytes()).unwrap();
        let k2 = UserKey::<Bls12>::from_bytes(&k2.to_bytes()).unwrap();
        let (e_b, e_c) = forge_and_key(k1.d[0], k1.d[1], k2.d[0], k2.d[1]).unwrap();
        let forged = key_from_scalars::<Bls12>(k1.setup_id, "B and C", vec![e_b, e_c]);
        assert_eq!(Y::decapsulate(&forged, &header).unwrap(), target);
        // The forged key is a key: it opens any later ciphertext with B, C.
        let (later, header) = Y::encapsulate(&pk, &attrs("B, C, doctor"), &mut r).unwrap();
        assert_eq!(Y::decapsulate(&forged, &header).unwrap(), later);
    }

    /// THE WEAKNESS, one user alone: a key for `(A and B) or (A and C)`
    /// must only open ciphertexts that carry A, yet it opens {B, C}.
    #[test]
    fn attack_single_key_escalates() {
        let mut r = rng(5);
        let (pk, mk) = Y::setup(&Universe::from_iter(&UNIVERSE), &mut r).unwrap();
        let k = Y::keygen(&pk, &mk, &pol("(A and B) or (A and C)"), &mut r).unwrap();
        let (target, header) = Y::encapsulate(&pk, &attrs("B, C"), &mut r).unwrap();
        assert!(matches!(
            Y::decapsulate(&k, &header),
            Err(KemError::NotSatisfied)
        ));
        assert_eq!(k.policy.tree.leaves(), ["A", "B", "A", "C"]);
        let (e_b, e_c) = forge_and_key(k.d[0], k.d[1], k.d[2], k.d[3]).unwrap();
        let forged = key_from_scalars::<Bls12>(k.setup_id, "B and C", vec![e_b, e_c]);
        assert_eq!(Y::decapsulate(&forged, &header).unwrap(), target);
    }

    /// Naive merging (the attack a secure scheme's collusion test tries)
    /// fails here too: components are bound to their key's shares; the
    /// break needs the algebra of `forge_and_key`.
    #[test]
    fn naive_merge_does_not_decrypt() {
        let mut r = rng(6);
        let (pk, mk) = Y::setup(&Universe::from_iter(&UNIVERSE), &mut r).unwrap();
        let k1 = Y::keygen(&pk, &mk, &pol("A and B"), &mut r).unwrap();
        let k2 = Y::keygen(&pk, &mk, &pol("A and C"), &mut r).unwrap();
        let (target, header) = Y::encapsulate(&pk, &attrs("B, C"), &mut r).unwrap();
        let merged = key_from_scalars::<Bls12>(k1.setup_id, "B and C", vec![k1.d[1], k2.d[1]]);
        assert_ne!(Y::decapsulate(&merged, &header).unwrap(), target);
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CY = InsecureYct14<Counted<Bls12>>;
        let mut r = rng(7);
        let ((pk, mk), setup) =
            OpCounts::measure(|| CY::setup(&Default::default(), &mut r).unwrap());
        assert_eq!(setup.g1_fixed_exp, DEFAULT_UNIVERSE as u64 + 1);
        assert_eq!(setup.g1_exp + setup.g1_msm_terms + setup.miller_loops, 0);
        for n in [1usize, 5, 20] {
            let policy = generate::flat_and(n).unwrap();
            let set = AttributeSet::from_names(policy.attributes()).unwrap();
            let (key, kg) = OpCounts::measure(|| CY::keygen(&pk, &mk, &policy, &mut r).unwrap());
            assert_eq!(
                kg.g1_exp + kg.g1_fixed_exp + kg.g1_msm_terms + kg.g1_add,
                0,
                "key generation is scalar arithmetic only"
            );
            let ((_, header), enc) =
                OpCounts::measure(|| CY::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_exp, 0, "every point has a fixed-base table");
            assert_eq!(enc.g1_fixed_exp, n as u64 + 1, "k·P_i per attribute, k·Y");
            assert_eq!(
                enc.g2_exp + enc.g2_fixed_exp + enc.gt_exp + enc.miller_loops,
                0
            );
            let (_, dec) = OpCounts::measure(|| CY::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.g1_msm_terms, n as u64, "one N-term MSM");
            assert_eq!(dec.g1_exp + dec.g1_fixed_exp, 0);
            assert_eq!(dec.miller_loops + dec.final_exps + dec.gt_exp, 0);
        }
        // Random perazzo policy: the MSM has one term per selected leaf, and
        // the encryption |S| + 1 multiplications.
        for seed in 0..5 {
            let policy = generate::random_policy(12, 0.5, 0.5, seed).unwrap();
            let set = generate::random_fulfilling_set(&policy, 0.6, seed).unwrap();
            let tree = policy.to_tree().unwrap();
            let n_l = tree.cheapest_satisfying(&set).unwrap().len() as u64;
            let key = CY::keygen(&pk, &mk, &policy, &mut r).unwrap();
            let ((_, header), enc) =
                OpCounts::measure(|| CY::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_exp + enc.g1_fixed_exp, set.len() as u64 + 1);
            let (_, dec) = OpCounts::measure(|| CY::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.g1_msm_terms, n_l);
        }
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(8);
        let (pk, mk) = Y::setup(&Universe::from_iter(&UNIVERSE), &mut r).unwrap();
        let (_, header) = Y::encapsulate(&pk, &attrs("A, B"), &mut r).unwrap();
        let key = Y::keygen(&pk, &mk, &pol("A or B"), &mut r).unwrap();
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        // A key whose component count does not match its policy.
        let short = key_from_scalars::<Bls12>(key.setup_id, "A or B", vec![key.d[0]]);
        assert!(UserKey::<Bls12>::from_bytes(&short.to_bytes()).is_err());
    }
}
