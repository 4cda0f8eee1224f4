//! Attribute-based encryption schemes, one file per scheme.
//!
//! * [`waters11`] — Waters11 CP-ABE (large universe, random oracle) with GHW11
//!   outsourced decryption.
//! * [`bsw07`] — BSW07 CP-ABE (Bethencourt–Sahai–Waters, access trees with
//!   threshold gates), one shared multi-pairing per decryption.
//! * [`gpsw06`] — GPSW06 KP-ABE (large universe, random oracle, as GHW11
//!   §4.1 states it) with GHW11 outsourced decryption.
//! * [`gpsw06_small`] — GPSW06 KP-ABE, small universe fixed at setup (§4).
//! * [`fame`] ([`fame::cp`], [`fame::kp`]) — FAME CP-ABE and KP-ABE (Agrawal–Chase, CCS
//!   2017): decisional linear, Type-III, decryption with 6 pairings whatever
//!   the policy.
//! * [`fabeo`] ([`fabeo::cp`], [`fabeo::kp`]) — FABEO CP-ABE and KP-ABE
//!   (Riepel–Wee, CCS 2022): the fewest pairings known (3 and 2), GHW11
//!   outsourced decryption.
//! * [`tkn20`] — TKN20 CP-ABE (Tomida–Kawahara–Nishimaki, PKC 2020):
//!   decisional linear, negation of a key's value (`x != v`) as one row.
//! * [`cca`] — the CCA-secure version of any of them (FO transform).
//! * [`rcca`] — GHW11's RCCA-secure outsourcing for Waters11 and GPSW06.
//! * `yct14` — YCT14 pairing-free KP-ABE. **BROKEN (published attacks),
//!   benchmarking only**: compiled only with the cargo feature
//!   `insecure-benchmark-only`.

pub mod bsw07;
pub mod cca;
pub mod fabeo;
pub mod fame;
pub mod ghw11;
pub mod gpsw06;
pub mod gpsw06_small;
pub mod rcca;
pub mod tkn20;
pub mod waters11;
#[cfg(feature = "insecure-benchmark-only")]
pub mod yct14;

pub use bsw07::Bsw07;
pub use cca::Cca;
pub use fame::{FameCp, FameKp};
pub use gpsw06::Gpsw06;
pub use gpsw06_small::Gpsw06Small;
pub use rcca::Rcca;
pub use tkn20::Tkn20;
pub use waters11::Waters11;

pub(crate) mod attr_cache;

pub use attr_cache::clear as clear_attribute_hash_cache;

use crate::kem::{KemError, Params, ParamsKind, SetupParams};
use crate::wire::SchemeId;

/// Which scheme of a CP/KP pair written once ([`fame`], [`fabeo`]) an
/// object belongs to: fixes the scheme id in the preamble and the hash's
/// domain separation.
pub trait Variant: 'static + Copy + Default + Send + Sync + core::fmt::Debug {
    const SCHEME: SchemeId;
    /// Tag of the hash's domain (`ABBE-V1-<TAG>-H-<curve>`) and of its
    /// cache keys.
    const TAG: &'static str;
}

/// Size of the default universe ([`Universe::default`]): `A1` … `A256`.
pub const DEFAULT_UNIVERSE_SIZE: usize = 256;

/// The attribute universe of a small-universe setup: the names keys and
/// ciphertexts may use (the default: `A1, …, A256`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Universe(pub Vec<String>);

impl Default for Universe {
    fn default() -> Self {
        Universe(
            (1..=DEFAULT_UNIVERSE_SIZE)
                .map(crate::policy::generate::attr_name)
                .collect(),
        )
    }
}

impl<S: AsRef<str>> FromIterator<S> for Universe {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Self {
        Universe(names.into_iter().map(|n| n.as_ref().to_owned()).collect())
    }
}

impl Params for Universe {
    const KIND: ParamsKind = ParamsKind::Universe;
    fn from_setup(p: &SetupParams) -> Result<Self, KemError> {
        Self::KIND.refuse_others(p)?;
        Ok(p.universe.clone().map_or_else(Universe::default, Universe))
    }
}
