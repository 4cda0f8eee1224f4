//! # abbe — attribute-based and broadcast encryption
//!
//! * [`schemes`] — the table of schemes: one row each.
//! * [`curve`] — the Type-III pairing-group traits and their backends.
//! * [`policy`] — the policy engine: parsers, access trees, LSSS.
//! * [`facade`] — one door to every scheme: a registry from (scheme, curve)
//!   to an object-safe [`facade::Scheme`] on encoded objects, streaming
//!   [`facade::encrypt`] / [`facade::decrypt`]. Front ends start here.
//! * [`kem`] — the two roles every scheme implements: [`Authority`] (setup,
//!   keygen) and [`Kem`] (encapsulate, decapsulate).
//! * [`abe`] — attribute-based schemes (CP-ABE and KP-ABE), one file each, and
//!   the CCA and RCCA transforms.
//! * [`bcast`] — broadcast schemes, one file each: to sets of user indices,
//!   to sets of identities, and with traitor tracing.
//!
//! [`schemes`] lists every scheme (`abbe schemes` prints it).
//! * [`wire`] — the versioned binary format of keys and headers.
//! * [`envelope`] — hybrid encryption of data under a KEM session key.
//! * [`outsource`] — GHW11 transform / final decryption on encoded objects:
//!   shared by the CLI and the proxy.
//! * [`protect`] — passphrase-protected secret keys (scrypt + AES-256-GCM).
//! * [`armor`] — PEM-style ASCII armor of any object, streaming.
//! * [`signature`] — BLS signatures for signed files.
//!
//! ## Example: encrypt a stream to a policy, decrypt it with a key
//!
//! ```
//! use abbe::curve::CurveId;
//! use abbe::facade::{self, Error, Mode};
//! use abbe::kem::SetupParams;
//! use abbe::wire::SchemeId;
//! use abbe::OsRng;
//!
//! // Waters11 CP-ABE on BLS12-381 (level 128); keys and files are bytes.
//! let waters11 = facade::scheme(SchemeId::Waters11, CurveId::Bls12_381)?;
//! let (pk, mk) = waters11.setup(&SetupParams::default(), &mut OsRng)?;
//! let alice = waters11.keygen(&mk, "doctor, cardiology", None, &mut OsRng)?;
//! let bob = waters11.keygen(&mk, "nurse", None, &mut OsRng)?;
//!
//! // Encrypt: a CCA-secure header for the policy, then the data under its
//! // session key, streamed.
//! let policy = "doctor and (cardiology or age >= 30)";
//! let data = b"patient record".repeat(1000);
//! let mut file = Vec::new();
//! let options = Default::default();
//! facade::encrypt(&pk, policy, Mode::Cca, &data[..], &mut file, &options, &mut OsRng)?;
//!
//! // Decrypt: each chunk is written only once it is authentic.
//! let mut plain = Vec::new();
//! facade::decrypt(&alice, &file[..], &mut plain, None)?;
//! assert_eq!(plain, data);
//!
//! // ASCII-armored keys and files are read as they are.
//! let text = abbe::armor::armor(&file)?;
//! let mut again = Vec::new();
//! facade::decrypt(&abbe::armor::armor(&alice)?, &text[..], &mut again, None)?;
//! assert_eq!(again, data);
//!
//! // Bob's "nurse" does not satisfy the policy.
//! let refused = facade::decrypt(&bob, &file[..], &mut Vec::new(), None);
//! assert!(matches!(refused, Err(Error::NotSatisfied)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Generic code works on the typed API instead: `kem::setup::<K>`,
//! `kem::keygen::<K>`, `K::encapsulate` for any `K: Kem` (e.g.
//! `abe::Cca<abe::Waters11<curve::Bls12>>`).
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod abe;
pub mod armor;
pub mod bcast;
#[cfg(test)]
mod conformance;
pub mod curve;
pub mod envelope;
pub mod facade;
pub mod inspect;
pub mod kem;
pub mod outsource;
pub mod policy;
pub mod protect;
pub mod schemes;
pub mod signature;
pub mod wire;

pub use kem::{Authority, Kem, KemError, Outsourcing, SessionKey};
/// The operating system's randomness, which every entry point takes as
/// `rng` (re-exported so that users need not pick a `rand_core` version).
pub use rand_core::OsRng;

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
    fn wipe(&mut self) {
        curve::wipe(self, <S as curve::Scalar>::zero());
    }
}
