//! # abbe — attribute-based and broadcast encryption
//!
//! * [`curve`] — the Type-III pairing-group traits and their backends.
//! * [`policy`] — the policy engine: parsers, access trees, LSSS.
//! * [`kem`] — the key-encapsulation trait every scheme implements.
//! * [`abe`] — attribute-based schemes (Waters11 CP-ABE with GHW11 outsourcing).
//! * [`bcast`] — broadcast encryption (BGW05 §3.1/§3.2, GW09, Waters09, ElGamal baseline).
//! * [`wire`] — the versioned binary format of keys and headers.
//! * [`envelope`] — hybrid encryption of data under a KEM session key.
//! * [`outsource`] — GHW11 transform / final decryption on encoded objects,
//!   dispatched on (scheme, curve): shared by the CLI and the proxy.
//! * [`protect`] — passphrase-protected secret keys (scrypt + AES-256-GCM).
//! * [`armor`] — PEM-style ASCII armor of any object, streaming.
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod abe;
pub mod armor;
pub mod bcast;
pub mod curve;
pub mod envelope;
pub mod kem;
pub mod outsource;
pub mod policy;
pub mod protect;
pub mod signature;
pub mod wire;

pub use kem::{Kem, KemError, Outsourcing, SessionKey};

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
