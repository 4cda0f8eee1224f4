//! Attribute-based encryption schemes, one file per scheme.
//!
//! * [`waters11`] — Waters11 CP-ABE (large universe, random oracle) with GHW11
//!   outsourced decryption.
//! * `yct14` — YCT14 pairing-free KP-ABE. **BROKEN (published attacks),
//!   benchmarking only**: compiled only with the cargo feature
//!   `insecure-benchmark-only`.

pub mod waters11;
#[cfg(feature = "insecure-benchmark-only")]
pub mod yct14;

pub use waters11::Waters11;

pub(crate) mod attr_cache;

pub use attr_cache::clear as clear_attribute_hash_cache;
