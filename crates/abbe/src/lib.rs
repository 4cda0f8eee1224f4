//! # abbe — attribute-based and broadcast encryption
//!
//! * [`curve`] — the Type-III pairing-group traits and their backends.
//! * [`policy`] — the policy engine: parsers, access trees, LSSS.
//! * [`kem`] — the key-encapsulation trait every scheme implements.
//! * [`abe`] — attribute-based schemes: CP-ABE (Waters11 with GHW11 outsourcing,
//!   BSW07, FAME-CP), KP-ABE (GPSW06, GPSW06 small universe, FAME-KP), the
//!   CCA and RCCA transforms.
//! * [`bcast`] — broadcast encryption (BGW05 §3.1/§3.2, GW09, Waters09, ElGamal baseline).
//! * [`wire`] — the versioned binary format of keys and headers.
//! * [`envelope`] — hybrid encryption of data under a KEM session key.
//! * [`outsource`] — GHW11 transform / final decryption on encoded objects,
//!   dispatched on (scheme, curve): shared by the CLI and the proxy.
//! * [`protect`] — passphrase-protected secret keys (scrypt + AES-256-GCM).
//! * [`armor`] — PEM-style ASCII armor of any object, streaming.
//! * [`signature`] — BLS signatures for signed files.
//!
//! ## Example: encrypt a stream to a policy, decrypt it with a key
//!
//! ```
//! use abbe::abe::{Cca, Waters11};
//! use abbe::curve::Bls12;
//! use abbe::kem::Kem;
//! use abbe::policy::{AttributeSet, Policy};
//! use abbe::wire::Encoded;
//! use abbe::{envelope, KemError};
//! use rand_core::OsRng;
//!
//! // The CCA-secure Waters11 CP-ABE on BLS12-381 (level 128).
//! type Scheme = Cca<Waters11<Bls12>>;
//! let (pk, mk) = Scheme::setup(&Default::default(), &mut OsRng).unwrap();
//! let alice = Scheme::keygen(&pk, &mk, &AttributeSet::parse("doctor, cardiology")?, &mut OsRng)?;
//! let bob = Scheme::keygen(&pk, &mk, &AttributeSet::parse("nurse")?, &mut OsRng)?;
//!
//! // Encrypt: a KEM header for the policy, then the data under its session key.
//! let policy = Policy::parse("doctor and (cardiology or age >= 30)")?;
//! let (session, header) = Scheme::encapsulate(&pk, &policy, &mut OsRng)?;
//! let mut file = Vec::new();
//! let data = b"patient record".repeat(1000);
//! envelope::seal(&header.to_bytes(), &session, &mut OsRng, &data[..], &mut file)?;
//!
//! // Decrypt: read the head, decapsulate its header with the key, stream the rest.
//! let mut input = &file[..];
//! let head = envelope::read_head(&mut input)?;
//! let header = <Scheme as Kem>::Header::from_bytes(&head.header)?;
//! let key = Scheme::decapsulate(&alice, &header)?;
//! let mut plain = Vec::new();
//! envelope::open(&head, &key, input, &mut plain)?;
//! assert_eq!(plain, data);
//!
//! // Bob's "nurse" does not satisfy the policy.
//! assert!(matches!(Scheme::decapsulate(&bob, &header), Err(KemError::NotSatisfied)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod abe;
pub mod armor;
pub mod bcast;
pub mod curve;
pub mod envelope;
pub mod facade;
pub mod kem;
pub mod outsource;
pub mod policy;
pub mod protect;
pub mod signature;
pub mod wire;

pub use kem::{Authority, Kem, KemError, Outsourcing, SessionKey};

/// `ShareField` for every curve scalar, so the policy engine's LSSS runs
/// over Z_r.
impl<S: curve::Scalar> policy::ShareField for S {
    fn zero() -> Self {
        <S as curve::Scalar>::zero()
    }
    fn one() -> Self {
        <S as curve::Scalar>::one()
    }
    fn from_u64(v: u64) -> Self {
        <S as curve::Scalar>::from_u64(v)
    }
    fn invert(&self) -> Option<Self> {
        <S as curve::Scalar>::invert(self)
    }
}
