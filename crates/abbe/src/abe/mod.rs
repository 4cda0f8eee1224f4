//! Attribute-based encryption schemes, one file per scheme.
//!
//! * [`waters11`] — Waters11 CP-ABE (large universe, random oracle) with GHW11
//!   outsourced decryption.
//! * [`cca`] — the CCA-secure version of any of them (FO transform).
//! * [`rcca`] — GHW11's RCCA-secure outsourcing for Waters11 and GPSW06.

pub mod cca;
pub mod rcca;
pub mod waters11;

pub use cca::Cca;
pub use rcca::Rcca;
pub use waters11::Waters11;

pub(crate) mod attr_cache;

pub use attr_cache::clear as clear_attribute_hash_cache;
