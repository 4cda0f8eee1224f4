//! Which scheme handles an object: the library's facade for the (scheme,
//! curve) of its preamble, behind the gate of broken schemes; curve and
//! scheme names.

use crate::{CliError, Result};
use abbe::curve::CurveId;
use abbe::facade::{self, Scheme};
use abbe::wire::{Preamble, SchemeId};

/// Whether this run may touch a broken scheme's objects
/// (`--insecure-benchmark-only`).
pub(crate) static INSECURE_ALLOWED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Why a broken scheme is refused, when it is: every dispatch of its objects
/// goes through here ([`scheme_for`]), so no command can reach it by
/// accident.
pub(crate) fn insecure_refusal(scheme: SchemeId) -> Option<CliError> {
    let why = format!(
        "{} is BROKEN (published attacks recover keys and plaintexts): it exists only to reproduce published benchmarks",
        scheme.name()
    );
    if !cfg!(feature = "insecure-benchmark-only") {
        return Some(CliError::Other(format!(
            "{why}, and this build of abbe does not include it (build abbe-cli with --features insecure-benchmark-only; `abbe lab` measures it either way)"
        )));
    }
    (!INSECURE_ALLOWED.load(std::sync::atomic::Ordering::Relaxed)).then(|| {
        CliError::Other(format!(
            "{why}; pass --insecure-benchmark-only if that is what you are doing"
        ))
    })
}

/// The library's facade for objects of `pre`'s (scheme, curve), through the
/// gate of broken schemes.
pub(crate) fn scheme_for(pre: &Preamble) -> Result<&'static dyn Scheme> {
    if pre.scheme.is_insecure() {
        if let Some(e) = insecure_refusal(pre.scheme) {
            return Err(e);
        }
        return Ok(facade::scheme_allowing_insecure(pre.scheme, pre.curve)?);
    }
    Ok(facade::scheme(pre.scheme, pre.curve)?)
}

pub(crate) fn parse_curve(name: &str) -> Result<CurveId> {
    pick_curve(None, Some(name))
}

/// The curve of `--level` or `--curve` (clap makes them exclusive); the
/// default is level 128 (BLS12-381).
pub(crate) fn pick_curve(level: Option<u32>, curve: Option<&str>) -> Result<CurveId> {
    facade::pairing_curve(level, curve).map_err(|e| CliError::Other(e.to_string()))
}

/// The schemes this command offers: the library's, less the broken ones
/// unless this binary is built with them.
pub(crate) fn offered_schemes() -> impl Iterator<Item = SchemeId> {
    facade::schemes().filter(|s| !s.is_insecure() || cfg!(feature = "insecure-benchmark-only"))
}

pub(crate) fn parse_scheme(name: &str) -> Result<SchemeId> {
    SchemeId::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = offered_schemes().map(SchemeId::name).collect();
        CliError::Other(format!(
            "unknown scheme '{name}' (this build supports: {}; `abbe schemes` describes them)",
            names.join(", ")
        ))
    })
}

pub(crate) fn check_same_setup(key: &Preamble, header: &Preamble, what: &str) -> Result<()> {
    check_same_scheme(key, header, what, "ciphertext")
}

/// Refuses objects `a` (the `a_what`) and `b` (the `b_what`) made for
/// different schemes or curves.
pub(crate) fn check_same_scheme(
    a: &Preamble,
    b: &Preamble,
    a_what: &str,
    b_what: &str,
) -> Result<()> {
    if a.curve != b.curve || a.scheme != b.scheme {
        return Err(CliError::Invalid(format!(
            "the {a_what} is for {} on {}, the {b_what} for {} on {}",
            a.scheme.name(),
            a.curve.label(),
            b.scheme.name(),
            b.curve.label()
        )));
    }
    Ok(())
}

/// The names of `--universe` (an attribute list).
pub(crate) fn parse_universe(universe: &str) -> Result<Vec<String>> {
    Ok(abbe::policy::AttributeSet::parse(universe)?
        .iter()
        .map(str::to_owned)
        .collect())
}

/// The curve's name and security level, for messages.
pub fn curve_label(id: CurveId) -> String {
    abbe::inspect::curve_label(id)
}
