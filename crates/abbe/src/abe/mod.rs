//! Attribute-based encryption schemes, one file per scheme.
//!
//! * [`waters11`] — Waters11 CP-ABE (large universe, random oracle) with GHW11
//!   outsourced decryption.

pub mod waters11;

pub use waters11::Waters11;

pub(crate) mod attr_cache;

pub use attr_cache::clear as clear_attribute_hash_cache;
