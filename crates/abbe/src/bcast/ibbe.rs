//! What the identity-based broadcast schemes share ([`super::gw09_ibbe`],
//! [`super::gw09_ibbe_ss`], [`super::gw19_ibbe`]): identities as keys are
//! made for ([`Identity`]), sets of them as ciphertexts are
//! ([`Identities`]), identities hashed to Z_r, and the public dummy
//! identities Gentry–Waters pad a set with.
//!
//! An identity is a UTF-8 string (`alice@example.com`): 1 to
//! [`MAX_IDENTITY_BYTES`] bytes, no comma (the separator of
//! `--to-identities`) and nothing that does not show (controls, zero-width
//! and bidirectional characters: [`crate::policy::visible`]), surrounding
//! whitespace dropped. It is
//! hashed to H(ID) ∈ Z_r with SHA-512 under a domain tag that names the
//! scheme (so one string is a different element in every scheme), reduced
//! wide; the schemes' algebra uses H(ID). Two identities of one set that
//! hash to the same element (probability ~ℓ²/r), or an identity equal to a
//! dummy, are refused where they would matter.

use super::{prf_tagged, MAX_USERS};
use crate::curve::{wipe, Curve, FixedBaseTable, Group, Scalar};
use crate::kem::{
    bind, same_setup, Authority, KemError, Params, ParamsKind, SetupParams, Side, SideKind,
};
use crate::policy::{ErrorKind, PolicyError};
use crate::wire::codec::{invalid, object, Bound, CodecIn};
use crate::wire::{Encoded, Reader, SchemeId, Secret, WireError, Writer};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;

/// ℓ of a setup that does not choose it.
pub const DEFAULT_MAX_RECIPIENTS: u32 = 1024;
/// The largest ℓ a setup accepts: its public key holds O(ℓ) points.
pub const MAX_RECIPIENTS: u32 = MAX_USERS;
/// The longest identity, in bytes.
pub const MAX_IDENTITY_BYTES: usize = 256;

/// ℓ, the largest recipient set of an identity-based broadcast setup
/// (its public key is O(ℓ)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxRecipients(pub u32);

impl Default for MaxRecipients {
    fn default() -> Self {
        MaxRecipients(DEFAULT_MAX_RECIPIENTS)
    }
}

impl Params for MaxRecipients {
    const KIND: ParamsKind = ParamsKind::MaxRecipients;
    fn from_setup(p: &SetupParams) -> Result<Self, KemError> {
        Self::KIND.refuse_others(p)?;
        Ok(p.max_recipients
            .map_or_else(MaxRecipients::default, MaxRecipients))
    }
}

/// What an identity may be, for messages.
const IDENTITY: &str = "an identity (1–256 bytes of visible UTF-8, no comma)";

/// Checks an identity's text (already trimmed): Err(byte offset within it,
/// what is wrong).
fn check_identity(t: &str) -> Result<(), (usize, String)> {
    if t.is_empty() {
        return Err((0, "an empty identity".into()));
    }
    if t.len() > MAX_IDENTITY_BYTES {
        return Err((0, format!("an identity of {} bytes", t.len())));
    }
    if let Some(at) = t.find(',') {
        return Err((at, "a comma (the separator of identity lists)".into()));
    }
    // Invisible and reordering characters (U+200B, U+202E, …) would let one
    // identity pass for another where it is shown.
    if let Some((at, c)) = crate::policy::visible::first_invisible(t) {
        return Err((
            at,
            format!(
                "{} (an invisible, control or reordering character)",
                crate::policy::visible::describe(c)
            ),
        ));
    }
    if t.trim() != t {
        return Err((0, "surrounding whitespace".into()));
    }
    Ok(())
}

/// One identity: what a key is made for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity(String);

impl Identity {
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// H(ID) ∈ Z_r under `scheme`'s domain tag.
    pub fn hash<S: Scalar>(&self, scheme: &[u8]) -> S {
        hash_identity(scheme, &self.0)
    }
}

impl Side for Identity {
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let t = input.trim();
        let start = input.len() - input.trim_start().len();
        check_identity(t)
            .map_err(|(at, e)| PolicyError::at(ErrorKind::Identity, start + at, IDENTITY, e))?;
        Ok(Identity(t.to_owned()))
    }
    fn describe(&self) -> String {
        self.0.clone()
    }
    const KIND: SideKind = SideKind::Identity;
}

/// H(ID): SHA-512 over the domain tag `abbe/v1/ibbe-id/<scheme>` and the
/// identity's bytes, reduced modulo r.
pub fn hash_identity<S: Scalar>(scheme: &[u8], id: &str) -> S {
    prf_tagged(b"abbe/v1/ibbe-id/", scheme, id.as_bytes())
}

/// The dummy identities d_1..d_ℓ of Gentry–Waters' padding: public
/// elements H_dummy(j) no key is ever issued for.
pub fn dummy<S: Scalar>(scheme: &[u8], j: u32) -> S {
    prf_tagged(b"abbe/v1/ibbe-dummy/", scheme, &j.to_be_bytes())
}

/// A set of identities: what a ciphertext is for. Kept sorted (by bytes)
/// and without duplicates, its canonical form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identities(Vec<Identity>);

impl Identities {
    /// The set of the identities `ids`, each one identity ([`Side::from_items`]).
    pub fn from_strs<'a>(ids: impl IntoIterator<Item = &'a str>) -> Result<Self, KemError> {
        let ids: Vec<&str> = ids.into_iter().collect();
        Identities::from_items(&ids).map_err(|e| KemError::Invalid(e.to_string()))
    }

    /// Sorts, deduplicates and bounds a list of identities.
    fn from_list(ids: Vec<Identity>) -> Result<Self, PolicyError> {
        Identities::bounded(ids, MAX_RECIPIENTS)
    }
    fn bounded(mut ids: Vec<Identity>, max: u32) -> Result<Self, PolicyError> {
        ids.sort_unstable();
        ids.dedup();
        if ids.len() > max as usize {
            return Err(PolicyError::new(
                ErrorKind::Argument,
                format!("at most {max} identities"),
                format!("{}", ids.len()),
            ));
        }
        Ok(Identities(ids))
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Never true for a constructed set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Identity> {
        self.0.iter()
    }
    pub fn contains(&self, id: &Identity) -> bool {
        self.0.binary_search(id).is_ok()
    }
    /// Checks |S| ≤ ℓ.
    pub fn check(&self, max: u32) -> Result<(), KemError> {
        if self.0.len() > max as usize {
            return Err(KemError::Invalid(format!(
                "{} recipients, but this setup allows at most {max} (--max-recipients)",
                self.0.len()
            )));
        }
        Ok(())
    }
    /// H(ID) for every member, refusing two that hash alike.
    pub fn hashes<S: Scalar>(&self, scheme: &[u8]) -> Result<Vec<S>, KemError> {
        let hs: Vec<S> = self.0.iter().map(|id| id.hash(scheme)).collect();
        let mut bytes: Vec<Vec<u8>> = hs.iter().map(|h| h.to_bytes().as_ref().to_vec()).collect();
        bytes.sort_unstable();
        if bytes.windows(2).any(|w| w[0] == w[1]) {
            return Err(KemError::Invalid(
                "two identities of the set hash to the same element".into(),
            ));
        }
        Ok(hs)
    }
}

impl Side for Identities {
    /// Comma-separated identities, in any order, duplicates allowed.
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let mut ids = Vec::new();
        let mut pos = 0usize;
        for item in input.split(',') {
            let t = item.trim();
            let start = pos + (item.len() - item.trim_start().len());
            check_identity(t).map_err(|(at, e)| {
                PolicyError::at(
                    ErrorKind::Identity,
                    start + at,
                    "comma-separated identities (1–256 bytes of visible UTF-8 each)",
                    e,
                )
            })?;
            ids.push(Identity(t.to_owned()));
            pos += item.len() + 1;
        }
        Identities::from_list(ids)
    }
    /// Each item is one identity, as [`Identity::parse`] reads it (trimmed;
    /// an item with a comma is refused, not split).
    fn from_items(items: &[&str]) -> Result<Self, PolicyError> {
        if items.is_empty() {
            // As the text form cannot be: a set has a member.
            return Err(PolicyError::new(
                ErrorKind::Argument,
                "at least one identity",
                "an empty list",
            ));
        }
        let ids = items
            .iter()
            .enumerate()
            .map(|(index, item)| Identity::parse(item).map_err(|e| e.in_item(index, item)))
            .collect::<Result<Vec<_>, _>>()?;
        Identities::from_list(ids)
    }
    fn describe(&self) -> String {
        self.0
            .iter()
            .map(|i| i.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
    const KIND: SideKind = SideKind::Identities;
}

/// An identity in an object: u32 length ‖ UTF-8 bytes, checked as typed.
impl crate::wire::codec::Codec for Identity {
    const MIN_BYTES: usize = 5;
    fn layout() -> String {
        "`str`, 1–256 bytes, no comma or control character".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.str(&self.0);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        let s = r.str(what)?;
        check_identity(s).map_err(|(_, e)| invalid(what, e))?;
        Ok(Identity(s.to_owned()))
    }
}

/// S in a header: u32 k ‖ k identities, strictly increasing, 1 ≤ k ≤ ℓ
/// (ℓ read before it).
impl CodecIn for Identities {
    fn layout(n: &str) -> String {
        format!("u32 k ‖ k × `str`, strictly increasing, 1 ≤ k ≤ {n}")
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(self.0.len() as u32);
        for id in &self.0 {
            crate::wire::codec::Codec::encode(id, w);
        }
    }
    fn decode_in(r: &mut Reader<'_>, what: &'static str, max: u32) -> Result<Self, WireError> {
        let k = r.count(what, (max as usize).min(r.remaining() / 5))?;
        if k == 0 {
            return Err(invalid(what, "no recipient"));
        }
        let mut ids: Vec<Identity> = Vec::with_capacity(k);
        for _ in 0..k {
            let id = <Identity as crate::wire::codec::Codec>::decode(r, what)?;
            if ids.last().is_some_and(|last| *last >= id) {
                return Err(invalid(what, "identities are not strictly increasing"));
            }
            ids.push(id);
        }
        Ok(Identities(ids))
    }
}

/// ℓ: a u32 in [2, MAX_RECIPIENTS], checked as soon as it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxCount(u32);

impl MaxCount {
    /// ℓ ≥ 2: Gentry–Waters' C4 needs ĝ_β^{α^{ℓ−2}}.
    pub fn new(l: u32) -> Result<Self, KemError> {
        if !(2..=MAX_RECIPIENTS).contains(&l) {
            return Err(KemError::Invalid(format!(
                "the largest recipient set must be in [2, {MAX_RECIPIENTS}], got {l}"
            )));
        }
        Ok(MaxCount(l))
    }
    pub fn get(self) -> u32 {
        self.0
    }
}

impl From<MaxCount> for u32 {
    fn from(l: MaxCount) -> u32 {
        l.0
    }
}

impl crate::wire::codec::Codec for MaxCount {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        "u32 ℓ, 2 ≤ ℓ ≤ 2^24".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(self.0);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        MaxCount::new(r.u32(what)?).map_err(|e| invalid(what, e.to_string()))
    }
}

/// The roots of Gentry–Waters' P(x): S' = {H(ID) : ID ∈ S} ∪ {d_{k+1}..d_ℓ}
/// (k = |S|), without `skip` (a member's hash, for P_ID), and the dummies
/// used. Two equal roots (a member hashing to a dummy or to another member:
/// a SHA-512 preimage or collision) are refused, in O(ℓ log ℓ).
pub(crate) fn padded_roots<S: Scalar>(
    scheme: &[u8],
    set: &Identities,
    l: u32,
    skip: Option<&S>,
) -> Result<(Vec<S>, Vec<S>), KemError> {
    let xs: Vec<S> = set.iter().map(|id| id.hash(scheme)).collect();
    let k = xs.len() as u32;
    let dummies: Vec<S> = (k + 1..=l).map(|j| dummy(scheme, j)).collect();
    let mut all: Vec<S::Repr> = xs.iter().chain(&dummies).map(|x| x.to_bytes()).collect();
    all.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
    if all.windows(2).any(|w| w[0].as_ref() == w[1].as_ref()) {
        return Err(KemError::Invalid(
            "two recipients, or a recipient and a padding element, hash alike".into(),
        ));
    }
    let mut roots: Vec<S> = xs.into_iter().filter(|x| Some(x) != skip).collect();
    roots.extend(dummies.iter().copied());
    Ok((roots, dummies))
}

/// Σ s_j·P_j over affine public points with public scalars (variable time).
pub(crate) fn msm<G: Group>(points: &[G::Affine], scalars: &[G::Scalar]) -> G {
    let pts: Vec<G> = points.iter().map(G::from_affine).collect();
    G::msm(&pts, scalars)
}

/// Gentry's key h = ĝ^{(γ − r)/(α − H(ID))} (both GW09 IBBEs), through
/// `g2`'s table when the caller has one (many keys), else one constant-time
/// multiplication. No key is ever issued for a padding element d_j: they
/// are hashes under another domain tag, so an identity hashing to one would
/// be a SHA-512 preimage (encryption refuses such a collision anyway).
pub(crate) fn gentry_key<C: Curve>(
    scheme: &[u8],
    [alpha, gamma, r]: [&C::Scalar; 3],
    id: &Identity,
    g2: Option<&FixedBaseTable<C::G2>>,
) -> Result<C::G2, KemError> {
    let x: C::Scalar = id.hash(scheme);
    let inv = (*alpha - x)
        .invert()
        .ok_or_else(|| KemError::Invalid("this identity hashes to the master secret".into()))?;
    let mut e = (*gamma - *r) * inv;
    let h = match g2 {
        Some(t) => C::G2::mul_fixed(t, &e),
        None => C::G2::generator().mul_secret(&e),
    };
    wipe(&mut e, C::Scalar::zero());
    Ok(h)
}

/// The authority both GW09 IBBEs share ([`super::gw09_ibbe`], with tags,
/// and [`super::gw09_ibbe_ss`]): master secrets α, β, γ ∈ Z_p and a seed;
/// Extract(ID): r_ID = PRF(ID), h = ĝ^{(γ − r_ID)/(α − H(ID))}. A scheme
/// says what is its own — its tags, its public key from the secrets, its
/// key from (r_ID, h) — and is an [`Authority`] by that.
pub trait Gw09Authority: Sized {
    type Curve: Curve;
    const SCHEME: SchemeId;
    /// The domain tag of identities and dummies.
    const TAG: &'static [u8];
    /// The domain of r_ID's PRF.
    const R_TAG: &'static [u8];
    type PublicKey: Encoded + Bound + Clone;
    type UserKey: Encoded;
    /// The public key of `mk`'s secrets (O(ℓ)).
    fn public_key(mk: &Gw09MasterKey<Self::Curve, Self>) -> Self::PublicKey;
    /// ℓ of `pk`, and its table of ĝ (for issuing many keys).
    fn max_count(pk: &Self::PublicKey) -> MaxCount;
    fn g2(pk: &Self::PublicKey) -> &FixedBaseTable<<Self::Curve as Curve>::G2>;
    /// The key of `id`: r_ID and h = ĝ^{(γ − r_ID)/(α − H(ID))}.
    fn user_key(
        mk: &Gw09MasterKey<Self::Curve, Self>,
        id: &Identity,
        r: Secret<<Self::Curve as Curve>::Scalar>,
        h: <Self::Curve as Curve>::G2,
    ) -> Self::UserKey;
}

object! {
    /// GW09's master key: α, β, γ and the seed of the r_ID; wiped on drop.
    pub struct Gw09MasterKey<C, V: Gw09Authority<Curve = C>> = (MasterKey, V::SCHEME), bound {
        pub(crate) l: MaxCount => "ℓ",
        pub(crate) s: Secret<[C::Scalar; 3]> => "α, β, γ",
        seed: Secret<[u8; 32]> => "seed of r_ID",
    }
    cached { _v: PhantomData<V> }
}

impl<C: Curve, V: Gw09Authority<Curve = C>> Gw09MasterKey<C, V> {
    /// Extract(ID), through `g2`'s table when the caller has one.
    fn extract(
        &self,
        id: &Identity,
        g2: Option<&FixedBaseTable<C::G2>>,
    ) -> Result<V::UserKey, KemError> {
        let [alpha, _, gamma] = &*self.s;
        let mut r: C::Scalar = prf_tagged(V::R_TAG, &*self.seed, id.as_str().as_bytes());
        let h = gentry_key::<C>(V::TAG, [alpha, gamma, &r], id, g2);
        let key = h.map(|h| V::user_key(self, id, Secret(r), h));
        wipe(&mut r, C::Scalar::zero());
        key
    }
}

impl<C: Curve, V: Gw09Authority<Curve = C>> Authority for V {
    type Params = MaxRecipients;
    type PublicKey = V::PublicKey;
    type MasterKey = Gw09MasterKey<C, V>;
    type UserKey = V::UserKey;
    type KeySide = Identity;

    fn setup<R: RngCore + CryptoRng>(
        l: &MaxRecipients,
        rng: &mut R,
    ) -> Result<(V::PublicKey, Gw09MasterKey<C, V>), KemError> {
        let mut mk = Gw09MasterKey {
            setup_id: [0; 16],
            l: MaxCount::new(l.0)?,
            s: Secret([C::Scalar::zero(); 3]),
            seed: Secret([0u8; 32]),
            _v: PhantomData,
        };
        for x in mk.s.iter_mut() {
            *x = C::Scalar::random(rng);
        }
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(V::public_key(&mk), mk))
    }

    fn public_key(mk: &Gw09MasterKey<C, V>) -> V::PublicKey {
        V::public_key(mk)
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &V::PublicKey,
        mk: &Gw09MasterKey<C, V>,
        id: &Identity,
        _: &mut R,
    ) -> Result<V::UserKey, KemError> {
        same_setup(pk, mk)?;
        if V::max_count(pk) != mk.l {
            return Err(KemError::WrongSetup);
        }
        mk.extract(id, Some(V::g2(pk)))
    }

    fn keygen_without_public_key(
        mk: &Gw09MasterKey<C, V>,
        id: &Identity,
    ) -> Option<Result<V::UserKey, KemError>> {
        Some(mk.extract(id, None))
    }
}

/// α^0..α^n.
pub(crate) fn powers<S: Scalar>(alpha: S, n: usize) -> Vec<S> {
    let mut out = Vec::with_capacity(n + 1);
    let mut p = S::one();
    for _ in 0..=n {
        out.push(p);
        p *= alpha;
    }
    wipe(&mut p, S::zero());
    out
}

/// ℓ + 1 (the G1 powers α^0..α^ℓ), as docs/FORMAT.md names it.
pub(crate) fn ell_plus_1(l: MaxCount) -> u32 {
    l.get() + 1
}

/// ℓ − 1 (the G2 powers α^0..α^{ℓ−2}).
pub(crate) fn ell_minus_1(l: MaxCount) -> u32 {
    l.get() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    type F = <crate::curve::Bls12 as crate::curve::Curve>::Scalar;

    #[test]
    fn identities_parse_print_and_encode_canonically() {
        let s = Identities::parse(" bob@example.com, alice@example.com ,bob@example.com").unwrap();
        assert_eq!(s.describe(), "alice@example.com, bob@example.com");
        assert_eq!(s.len(), 2);
        assert!(s.contains(&Identity::parse("bob@example.com").unwrap()));
        assert_eq!(Identities::parse(&s.describe()).unwrap(), s);
        for bad in ["", "a,,b", "a\nb", &"x".repeat(257)] {
            assert!(Identities::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Identity::parse("a,b").is_err() && Identity::parse("  ").is_err());
        assert_eq!(Identity::parse(" ünï ").unwrap().as_str(), "ünï");
        let mut w = Writer::body();
        CodecIn::encode(&s, &mut w);
        let b = w.finish();
        assert_eq!(
            Identities::decode_in(&mut Reader::new(&b), "S", 2).unwrap(),
            s
        );
        assert!(Identities::decode_in(&mut Reader::new(&b), "S", 1).is_err());
        // Out of order, empty, or a bad identity: refused.
        for list in [&["b", "a"][..], &[], &["a", "a"], &["a\u{7}"]] {
            let mut w = Writer::body();
            w.u32(list.len() as u32);
            list.iter().for_each(|i| {
                w.str(i);
            });
            let b = w.finish();
            assert!(
                Identities::decode_in(&mut Reader::new(&b), "S", 9).is_err(),
                "{list:?}"
            );
        }
        // A count the input cannot hold is refused before allocating.
        let mut w = Writer::body();
        w.u32(u32::MAX);
        assert!(Identities::decode_in(&mut Reader::new(&w.finish()), "S", MAX_RECIPIENTS).is_err());
    }

    #[test]
    fn hashes_depend_on_scheme_and_identity() {
        let a: F = hash_identity(b"x", "alice");
        assert_eq!(a, hash_identity(b"x", "alice"));
        assert_ne!(a, hash_identity::<F>(b"y", "alice"));
        assert_ne!(a, hash_identity::<F>(b"x", "alicf"));
        assert_ne!(dummy::<F>(b"x", 1), dummy::<F>(b"x", 2));
        assert!(!a.is_zero());
        assert!(MaxCount::new(1).is_err() && MaxCount::new(2).is_ok());
    }

    #[test]
    fn identities_from_items_take_each_item_whole() {
        let s =
            Identities::from_items(&[" bob@example.com", "alice@example.com", "bob@example.com"])
                .unwrap();
        assert_eq!(
            s,
            Identities::parse("alice@example.com, bob@example.com").unwrap()
        );
        // An item holding a comma is refused, naming the item, not split.
        let e = Identities::from_items(&["alice@example.com", "bob, mallory@evil.example"])
            .unwrap_err();
        assert_eq!(e.item(), Some(1));
        let shown = e.to_string();
        assert!(
            shown.contains(r#"item [1] "bob, mallory@evil.example""#),
            "{shown}"
        );
        for bad in [&[][..], &[""], &["a", " "], &["a\nb"], &["a,"]] {
            assert!(Identities::from_items(bad).is_err(), "{bad:?}");
        }
        // The bound counts distinct identities (MAX_RECIPIENTS in `from_list`;
        // 3 here, as 2^24 identities would take a gigabyte).
        let ids = |n: u32| (0..n).map(|i| Identity(format!("u{}", i % 4))).collect();
        assert!(Identities::bounded(ids(4), 3).is_err());
        assert_eq!(Identities::bounded(ids(3), 3).unwrap().len(), 3);
        assert_eq!(Identities::bounded(ids(7), 4).unwrap().len(), 4);
        assert_eq!(
            Identities::from_strs(["b", "a"]).unwrap().describe(),
            "a, b"
        );
        assert!(Identities::from_strs(["a, b"]).is_err());
        // A single identity is text only.
        assert!(Identity::from_items(&["alice"]).is_err());
    }
}
