//! The key-encapsulation interface every scheme implements — CP-ABE, KP-ABE
//! and broadcast encryption.
//!
//! `setup → (public key, master key)`, `keygen(master, key-side description)`,
//! `encapsulate(public, ciphertext-side target) → (session key, header)`,
//! `decapsulate(key, header) → session key | NotSatisfied`.
//! For CP-ABE the key side is an attribute set and the ciphertext side a
//! policy; for KP-ABE the other way round; for broadcast encryption a user
//! index and a set of users.

use crate::curve::{CurveId, Target};
use crate::policy::PolicyError;
use crate::wire::{Encoded, SchemeId, WireError};
use hkdf::Hkdf;
use rand_core::{CryptoRng, RngCore};
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A 32-byte symmetric session key, zeroized on drop, compared in constant
/// time.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SessionKey([u8; 32]);

impl SessionKey {
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// A session key from 32 uniformly random (or derived) bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> SessionKey {
        SessionKey(bytes)
    }

    /// Derives the session key from the encapsulated GT element:
    /// HKDF-SHA256(ikm = encoding of the element, info = scheme and curve).
    pub fn from_gt<T: Target>(element: &T, scheme: SchemeId, curve: CurveId) -> SessionKey {
        let mut ikm = element.to_bytes();
        let key = Self::from_bytes_kdf(&ikm, scheme, curve);
        ikm.zeroize();
        key
    }

    /// Derives the session key from the canonical encoding of any
    /// encapsulated element (e.g. a compressed G1 point for pairing-free
    /// schemes): the same HKDF-SHA256 as [`SessionKey::from_gt`]
    /// (salt `abbe/v1/kem`, info = scheme and curve). The caller wipes `bytes`.
    pub(crate) fn from_bytes_kdf(bytes: &[u8], scheme: SchemeId, curve: CurveId) -> SessionKey {
        let hk = Hkdf::<Sha256>::new(Some(b"abbe/v1/kem"), bytes);
        let mut out = [0u8; 32];
        // 32 bytes is far below HKDF's limit of 255·32.
        let _ = hk.expand(
            &[b"session-key/".as_slice(), &[scheme as u8, curve as u8]].concat(),
            &mut out,
        );
        SessionKey(out)
    }
}

impl PartialEq for SessionKey {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.0.ct_eq(&other.0))
    }
}
impl Eq for SessionKey {}

impl core::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SessionKey(<redacted>)")
    }
}

/// Errors of the KEM operations.
#[derive(Debug, thiserror::Error)]
pub enum KemError {
    /// The key does not satisfy the ciphertext's policy (or is not a
    /// recipient).
    #[error("the key does not satisfy this ciphertext's policy")]
    NotSatisfied,
    /// Key and ciphertext come from different setups (public keys).
    #[error("the key and the ciphertext belong to different setups (different public keys)")]
    WrongSetup,
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    Wire(#[from] WireError),
    /// A transformed ciphertext did not decrypt consistently.
    #[error("the transformed ciphertext is invalid: {0}")]
    BadTransformation(&'static str),
    #[error("{0}")]
    Invalid(String),
}

/// What a key or a ciphertext is made for, as users write it: an attribute
/// set (`doctor, age = 42`) or a policy (`doctor and age >= 30`), a user
/// index (`42`) or a set of users (`1-100, 500`) for broadcast encryption.
pub trait Side: Sized + Clone {
    /// Parses the user's text.
    fn parse(input: &str) -> Result<Self, PolicyError>;
    /// The canonical text, for `abbe inspect`.
    fn describe(&self) -> String;
    /// Whether this side is a policy (for messages that say which side takes
    /// the policy).
    const IS_POLICY: bool;
}

impl Side for crate::policy::AttributeSet {
    fn parse(input: &str) -> Result<Self, PolicyError> {
        crate::policy::AttributeSet::parse(input)
    }
    fn describe(&self) -> String {
        self.display_attrs().join(", ")
    }
    const IS_POLICY: bool = false;
}

impl Side for crate::policy::Policy {
    /// Parses and checks what the schemes will check: the expansion into an
    /// access tree, its limits and the work budget.
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let policy = crate::policy::Policy::parse_any(input)?;
        policy.to_tree()?;
        Ok(policy)
    }
    fn describe(&self) -> String {
        self.to_string()
    }
    const IS_POLICY: bool = true;
}

/// A key-encapsulation mechanism.
///
/// All randomness comes from the `rng` argument and is drawn in a fixed
/// order, so that encapsulation with a seeded generator is deterministic —
/// the CCA transform ([`crate::abe::cca`]) relies on it.
pub trait Kem {
    const SCHEME: SchemeId;
    /// The curve the objects live on.
    const CURVE: CurveId;
    type PublicKey: Encoded;
    type MasterKey: Encoded;
    type UserKey: Encoded;
    type Header: Encoded;
    /// What a user key is made for (an attribute set, a policy, a user index).
    type KeySide: Side;
    /// What a ciphertext is made for (a policy, an attribute set, a set of users).
    type CiphertextSide: Side;

    fn setup<R: RngCore + CryptoRng>(rng: &mut R) -> (Self::PublicKey, Self::MasterKey);
    /// The public key, recomputed from (or stored in) the master key.
    fn public_key(mk: &Self::MasterKey) -> Self::PublicKey;
    /// The setup id (hash of the public key object) a master key records,
    /// if the scheme records one: lets key generation use a stored public
    /// key instead of recomputing it (BGW05's is O(N): 35 s at N = 10^6).
    fn master_setup_id(mk: &Self::MasterKey) -> Option<[u8; 16]> {
        let _ = mk;
        None
    }
    fn keygen<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        mk: &Self::MasterKey,
        key_side: &Self::KeySide,
        rng: &mut R,
    ) -> Result<Self::UserKey, KemError>;
    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        target: &Self::CiphertextSide,
        rng: &mut R,
    ) -> Result<(SessionKey, Self::Header), KemError>;
    fn decapsulate(key: &Self::UserKey, header: &Self::Header) -> Result<SessionKey, KemError>;
    /// What the key was made for.
    fn key_side(key: &Self::UserKey) -> Self::KeySide;
    /// What the ciphertext was made for.
    fn ciphertext_side(header: &Self::Header) -> Self::CiphertextSide;
    /// Gives a decoded user key the public key it needs, for schemes whose
    /// decryption reads public-key elements (BGW05 sums g_{n+1-j+i}); the
    /// key bundles written by `abbe keygen` carry the public key.
    fn attach_public_key(key: &mut Self::UserKey, pk: &Self::PublicKey) {
        let _ = (key, pk);
    }
    /// The setup (public key) a header was made under, if the scheme
    /// records it.
    fn header_setup_id(header: &Self::Header) -> Option<[u8; 16]> {
        let _ = header;
        None
    }
}

/// Outsourced decryption (GHW11): a transformation key lets an untrusted
/// proxy turn a header into a short transformed header; the retrieval key
/// finishes decryption with one GT exponentiation (two for RCCA).
pub trait Outsourcing: Kem {
    type TransformKey: Encoded;
    type RetrievalKey: Encoded;
    type Transformed: Encoded;

    fn transform_key<R: RngCore + CryptoRng>(
        key: &Self::UserKey,
        rng: &mut R,
    ) -> (Self::TransformKey, Self::RetrievalKey);
    fn transform(
        tk: &Self::TransformKey,
        header: &Self::Header,
    ) -> Result<Self::Transformed, KemError>;
    fn decrypt_transformed(
        rk: &Self::RetrievalKey,
        t: &Self::Transformed,
    ) -> Result<SessionKey, KemError>;
}

/// Outsourcing KEMs whose session key comes from Y^s, with Y = e(g,g)^α in
/// the public key and s chosen by the encryptor, and whose transform yields
/// Y^{s/z}: the structure GHW11's RCCA-secure outsourcing (§3.2, §4.2) is
/// built on ([`crate::abe::rcca`]).
pub trait BlindedKem: Outsourcing {
    type Curve: crate::curve::Curve;
    /// Y = e(g,g)^α.
    fn blinding_base(pk: &Self::PublicKey) -> <Self::Curve as crate::curve::Curve>::Gt;
    /// A header for `target` with the given exponent s (other randomness
    /// from `rng`).
    fn encapsulate_with_s<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        target: &Self::CiphertextSide,
        s: &<Self::Curve as crate::curve::Curve>::Scalar,
        rng: &mut R,
    ) -> Result<Self::Header, KemError>;
    /// Y^s, with the user key.
    fn decapsulate_blinded(
        key: &Self::UserKey,
        header: &Self::Header,
    ) -> Result<<Self::Curve as crate::curve::Curve>::Gt, KemError>;
    /// Y^{s/z}, with the transformation key.
    fn transform_blinded(
        tk: &Self::TransformKey,
        header: &Self::Header,
    ) -> Result<<Self::Curve as crate::curve::Curve>::Gt, KemError>;
    /// z.
    fn retrieval_exponent(rk: &Self::RetrievalKey) -> <Self::Curve as crate::curve::Curve>::Scalar;
}
