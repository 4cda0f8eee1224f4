//! Attribute-based encryption schemes, one file per scheme.
//!
//! * [`waters11`] — Waters11 CP-ABE (large universe, random oracle) with GHW11
//!   outsourced decryption.
//! * [`fame_cp`], [`fame_kp`] — FAME CP-ABE and KP-ABE (Agrawal–Chase, CCS
//!   2017): decisional linear, Type-III, decryption with 6 pairings whatever
//!   the policy.

pub mod fame_cp;
pub mod fame_kp;
pub mod waters11;

pub use fame_cp::FameCp;
pub use fame_kp::FameKp;
pub use waters11::Waters11;

pub(crate) mod attr_cache;

pub use attr_cache::clear as clear_attribute_hash_cache;
