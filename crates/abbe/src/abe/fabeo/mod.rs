//! FABEO (Riepel–Wee, "FABEO: Fast Attribute-Based Encryption with Optimal
//! Security", ACM CCS 2022, ePrint 2022/1415): what its CP-ABE ([`cp`],
//! Figure 1 left) and KP-ABE ([`kp`], Figure 1 right) share — setup, the
//! public and master keys, the hash H, the Type-III placement and the
//! occurrence numbering of attribute reuse. Each scheme file holds its keys,
//! headers and algorithms.
//!
//! ```text
//! Setup:  α ←R Z_p;  pk = (g, h, e(g,h)^α),  msk = α
//!         H: {0,1}* → G a random oracle; B = H(⊥), a point no attribute
//!         hashes to (its own domain tag)
//! ```
//!
//! Both schemes are proven adaptively secure in the generic group and
//! random oracle models (the paper's Theorems), with the fewest group
//! elements and pairings known for monotone span programs: decryption is
//! 3 pairings (CP) and 2 pairings (KP), and one more for each further
//! occurrence number among the rows it uses.
//!
//! ## Attribute reuse
//! An MSP whose labelling ρ is not injective (an attribute on several rows,
//! as numeric comparisons and hand-written policies give) needs a fresh
//! random exponent per *use*: with one s' (CP) or one r (KP) two rows of the
//! same attribute would differ by B^{λ_i − λ_j} (CP) or g^{λ_i − λ_j} (KP)
//! and leak share differences. As the paper prescribes, row i gets the
//! occurrence number π(i) = |{j ≤ i : ρ(j) = ρ(i)}|, the exponent of that
//! occurrence s'_{π(i)} (CP) or r_{π(i)} (KP), and the ciphertext (CP) or
//! key (KP) one h^{s'_τ} or h^{r_τ} per τ up to the largest occurrence
//! number: one G2 element and one pairing more per reuse, none when ρ is
//! injective ([`uses`]).
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! The paper writes FABEO in asymmetric groups: G carries g, H and every
//! per-row and per-attribute element; H carries only h and the constant
//! number of h-powers (h^r, h^s, h^{s'_τ}). We map **G → G1, H → G2**: all
//! linear-size work (hashing, one exponentiation per row or attribute) and
//! all linear-size data are in the smaller, faster group, and decryption
//! pairs sums of G1 elements with a constant number of G2 elements — the
//! key's h-powers with lines cached per key, the ciphertext's prepared at
//! each decryption. The swapped placement ([`crate::curve::Swapped`],
//! `abbe setup --placement swapped`) moves every hash and row to G2 and is
//! slower at every operation; security rests on the generic group model
//! either way.
//!
//! ## Side channels
//! Secret scalars (α, r, s, s'_τ, r_τ, the shares) go through fixed-base
//! tables and [`Group::mul_secret`], constant time on every curve, and are
//! held in [`Secret`]s that wipe themselves. Decryption combines the key's
//! (secret) points with the public ω_i by
//! [`crate::curve::lincomb_secret_points`] and only the ciphertext's by the
//! variable-time [`crate::curve::lincomb`].
//!
//! ## Operation counts
//! Checked against the formula by `op_counts_*` in each scheme's tests, on
//! `Counted` curves.

use crate::abe::attr_cache::{hash_tag, AttrHashes};
use crate::curve::{Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{bind, KemError};
use crate::policy::PolicyTree;
use crate::wire::codec::{invalid, object, secrets_match};
use crate::wire::{Lazy, SchemeId, Secret, WireError};
use rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::OnceLock;

pub mod cp;
pub mod kp;

pub use cp::FabeoCp;
pub use kp::FabeoKp;

pub use super::Variant;

/// FABEO CP-ABE.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cp;
impl Variant for Cp {
    const SCHEME: SchemeId = SchemeId::FabeoCp;
    const TAG: &'static str = "FABEO-CP";
}

/// FABEO KP-ABE.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kp;
impl Variant for Kp {
    const SCHEME: SchemeId = SchemeId::FabeoKp;
    const TAG: &'static str = "FABEO-KP";
}

/// Fixed-base tables of g and h, built on first use.
pub(crate) struct Tables<C: Curve> {
    pub(crate) g: FixedBaseTable<C::G1>,
    pub(crate) h: FixedBaseTable<C::G2>,
}

object! {
    /// Public parameters: e(g,h)^α (g ∈ G1, h ∈ G2 and H are fixed).
    #[derive(Clone)]
    pub struct FabeoPublicKey<C, V: Variant> = (PublicKey, V::SCHEME), identified {
        e_gh_alpha: C::Gt => "e(g,h)^α",
    }
    cached {
        tables: Lazy<Tables<C>>,
        b_table: Lazy<FixedBaseTable<C::G1>>,
        hashes: AttrHashes<C::G1>,
        _v: PhantomData<V>,
    }
}

impl<C: Curve, V: Variant> FabeoPublicKey<C, V> {
    /// e(g,h)^α ∈ GT.
    pub fn e_gh_alpha(&self) -> &C::Gt {
        &self.e_gh_alpha
    }

    pub(crate) fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            g: C::G1::generator().precompute(),
            h: C::G2::generator().precompute(),
        })
    }

    /// The fixed-base table of B (CP only), built on first use.
    pub(crate) fn b_table(&self) -> &FixedBaseTable<C::G1> {
        self.b_table.get_or_init(|| Self::b().precompute())
    }

    /// B = H(⊥): the hash of the empty message under a domain tag of its
    /// own, so no attribute name hashes to it.
    fn b() -> C::G1 {
        C::G1::hash_to_curve(b"", &hash_tag(&format!("{}-B", V::TAG), C::NAME))
    }

    /// H(y), cached by this key.
    pub(crate) fn h_of(&self, y: &str) -> C::G1 {
        self.hashes.hash(V::TAG, C::NAME, y)
    }
}

object! {
    /// The master key α; wiped on drop.
    pub struct FabeoMasterKey<C, V: Variant> = (MasterKey, V::SCHEME), bound {
        pub(crate) alpha: Secret<C::Scalar> => "α",
    }
    cached { _v: PhantomData<V> }
    check "α gives the public key of the setup id" =>
        |mk| secrets_match(mk.public_key().setup_id(), mk.setup_id);
}

impl<C: Curve, V: Variant> FabeoMasterKey<C, V> {
    /// Setup: α ←R Z_p.
    pub(crate) fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> (FabeoPublicKey<C, V>, Self) {
        let mk = FabeoMasterKey {
            setup_id: [0; 16],
            alpha: Secret(C::Scalar::random(rng)),
            _v: PhantomData,
        };
        bind(mk.public_key(), mk)
    }

    /// Recomputes the public key e(g,h)^α from the master secret.
    pub fn public_key(&self) -> FabeoPublicKey<C, V> {
        let e_gh = C::pairing(&C::G1::generator(), &C::G2::generator());
        FabeoPublicKey {
            e_gh_alpha: e_gh.pow(&self.alpha),
            tables: Lazy::default(),
            b_table: Lazy::default(),
            hashes: AttrHashes::default(),
            id: OnceLock::new(),
            _v: PhantomData,
        }
    }
}

/// The occurrence number π(i) of every row of `policy` — how many earlier
/// rows carry the same attribute, so 0-based where the paper counts from
/// 1 — and τ_max, the number of distinct occurrence numbers (1 when no
/// attribute labels two rows).
pub(crate) fn uses(policy: &PolicyTree) -> (Vec<usize>, usize) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let pi: Vec<usize> = policy
        .tree
        .leaves()
        .iter()
        .map(|y| {
            let n = seen.entry(y.as_str()).or_insert(0);
            *n += 1;
            *n - 1
        })
        .collect();
    let tau = pi.iter().max().map_or(0, |m| m + 1);
    (pi, tau)
}

/// The check of a key's or header's h-powers (`what`): one per occurrence
/// number of its policy.
pub(crate) fn uses_match(
    what: &'static str,
    policy: &PolicyTree,
    powers: usize,
) -> Result<(), WireError> {
    let (_, tau) = uses(policy);
    if powers == tau {
        Ok(())
    } else {
        Err(invalid(
            what,
            format!("{powers} h-powers for a policy whose attributes are used up to {tau} times"),
        ))
    }
}

/// Σ ω_i·P_i grouped by occurrence number: `classes[τ]` gathers the points
/// and coefficients of the selected rows with π(i) = τ.
pub(crate) struct ByUse<G: Group> {
    classes: Vec<(Vec<G>, Vec<G::Scalar>)>,
}

impl<G: Group> ByUse<G> {
    pub(crate) fn new(tau: usize) -> Self {
        ByUse {
            classes: (0..tau).map(|_| (Vec::new(), Vec::new())).collect(),
        }
    }

    pub(crate) fn push(&mut self, use_: usize, point: G, omega: G::Scalar) -> Result<(), KemError> {
        let class = self
            .classes
            .get_mut(use_)
            .ok_or_else(|| KemError::Invalid("occurrence number out of range".into()))?;
        class.0.push(point);
        class.1.push(omega);
        Ok(())
    }

    /// (τ, Σ_{π(i)=τ} ω_i·P_i) for every non-empty class, each sum by
    /// `lincomb` ([`crate::curve::lincomb`] for a ciphertext's points,
    /// [`crate::curve::lincomb_secret_points`] for a key's).
    pub(crate) fn sums(&self, lincomb: fn(&[G], &[G::Scalar]) -> G) -> Vec<(usize, G)> {
        self.classes
            .iter()
            .enumerate()
            .filter(|(_, (p, _))| !p.is_empty())
            .map(|(t, (p, w))| (t, lincomb(p, w)))
            .collect()
    }
}

/// Draws `n` secret scalars.
pub(crate) fn random_scalars<S: Scalar, R: RngCore + CryptoRng>(
    n: usize,
    rng: &mut R,
) -> Secret<Vec<S>> {
    Secret((0..n).map(|_| S::random(rng)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;

    fn tree(s: &str) -> PolicyTree {
        PolicyTree::new(Policy::parse(s).unwrap()).unwrap()
    }

    #[test]
    fn occurrence_numbers_count_earlier_rows_of_the_same_attribute() {
        assert_eq!(uses(&tree("a and b")), (vec![0, 0], 1));
        assert_eq!(
            uses(&tree("(a and b) or (a and c) or (b and a)")),
            (vec![0, 0, 1, 0, 1, 2], 3)
        );
        assert!(uses_match("header", &tree("a or (a and b)"), 2).is_ok());
        assert!(uses_match("header", &tree("a or (a and b)"), 1).is_err());
        assert!(uses_match("header", &tree("a or (a and b)"), 3).is_err());
    }
}
