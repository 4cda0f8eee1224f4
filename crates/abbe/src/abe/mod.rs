//! Attribute-based encryption schemes, one file per scheme.
//!
//! * [`waters11`] — Waters11 CP-ABE (large universe, random oracle) with GHW11
//!   outsourced decryption.
//! * [`bsw07`] — BSW07 CP-ABE (Bethencourt–Sahai–Waters, access trees with
//!   threshold gates), one shared multi-pairing per decryption.

pub mod bsw07;
pub mod waters11;

pub use bsw07::Bsw07;
pub use waters11::Waters11;

pub(crate) mod attr_cache;

pub use attr_cache::clear as clear_attribute_hash_cache;
