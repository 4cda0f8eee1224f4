//! Which concrete scheme type handles an object: the (scheme, curve) of its
//! preamble → `K: Kem`, for the commands' generic code; the YCT14 gate.

use crate::{CliError, Result};
use abbe::curve::CurveId;
use abbe::kem::Authority;
use abbe::kem::KemError;
use abbe::kem::Universe;
use abbe::wire::{Preamble, SchemeId};
use rand_core::OsRng;

/// Whether this run may touch YCT14 objects (`--insecure-benchmark-only`).
pub(crate) static INSECURE_ALLOWED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Why YCT14 is refused, when it is: every dispatch of a YCT14 object goes
/// through here ([`any_scheme`], the small-universe setup), so no command
/// can reach the broken scheme by accident.
pub(crate) fn yct14_refusal() -> Option<CliError> {
    const WHY: &str = "yct14 is BROKEN (published attacks recover keys and plaintexts): it exists only to reproduce perazzo's benchmarks";
    if !cfg!(feature = "insecure-benchmark-only") {
        return Some(CliError::Other(format!(
            "{WHY}, and this build of abbe does not include it (build abbe-cli with --features insecure-benchmark-only; `abbe lab` measures it either way)"
        )));
    }
    (!INSECURE_ALLOWED.load(std::sync::atomic::Ordering::Relaxed)).then(|| {
        CliError::Other(format!(
            "{WHY}; pass --insecure-benchmark-only if that is what you are doing"
        ))
    })
}

/// Runs `$body` with `$C` bound to the pairing curve named by `$id` (every
/// security level: bn254, bls12-381, bls24-479, bls48-581).
macro_rules! on_curve {
    ($id:expr, $C:ident => $body:expr) => {
        match $id {
            abbe::curve::CurveId::Bls12_381 => {
                type $C = abbe::curve::Bls12;
                $body
            }
            abbe::curve::CurveId::Bn254 => {
                type $C = abbe::curve::Bn254;
                $body
            }
            abbe::curve::CurveId::Bls24_479 => {
                type $C = abbe::curve::Bls24;
                $body
            }
            abbe::curve::CurveId::Bls48_581 => {
                type $C = abbe::curve::Bls48;
                $body
            }
            abbe::curve::CurveId::P256 => {
                return Err($crate::CliError::Other(
                    "P-256 is not a pairing curve (it carries only the elgamal-p256 baseline)"
                        .into(),
                )
                .into())
            }
        }
    };
}
pub(crate) use on_curve;

/// Like [`on_curve`] for the schemes offered on BLS12-381 and BN254 only
/// (broadcast encryption and the broken YCT14, both benchmarked there).
macro_rules! on_classic_curve {
    ($scheme:expr, $id:expr, $C:ident => $body:expr) => {
        match $id {
            abbe::curve::CurveId::Bls12_381 => {
                type $C = abbe::curve::Bls12;
                $body
            }
            abbe::curve::CurveId::Bn254 => {
                type $C = abbe::curve::Bn254;
                $body
            }
            c => {
                return Err($crate::CliError::Other(format!(
                    "{} is offered on bls12-381 and bn254 only, not on {}",
                    $scheme.name(),
                    c.name()
                ))
                .into())
            }
        }
    };
}
pub(crate) use on_classic_curve;

/// Runs `$body` with `$K` bound to the scheme type named by the preamble's
/// scheme and curve. `$body` returns a `Result`.
macro_rules! any_scheme {
    ($pre:expr, $K:ident => $body:expr) => {{
        use abbe::abe::*;
        use abbe::wire::SchemeId as S;
        let pre: abbe::wire::Preamble = $pre;
        match pre.scheme {
            S::Waters11 => $crate::on_curve!(pre.curve, C => { type $K = Waters11<C>; $body }),
            S::Bsw07 => $crate::on_curve!(pre.curve, C => { type $K = Bsw07<C>; $body }),
            S::FameCp => $crate::on_curve!(pre.curve, C => { type $K = FameCp<C>; $body }),
            S::FameKp => $crate::on_curve!(pre.curve, C => { type $K = FameKp<C>; $body }),
            S::Gpsw06 => $crate::on_curve!(pre.curve, C => { type $K = Gpsw06<C>; $body }),
            S::Gpsw06Small => {
                $crate::on_curve!(pre.curve, C => { type $K = Gpsw06Small<C>; $body })
            }
            #[cfg(feature = "insecure-benchmark-only")]
            S::Yct14 => {
                if let Some(e) = $crate::yct14_refusal() {
                    return Err(e.into());
                }
                $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                    type $K = yct14::InsecureYct14<C>;
                    $body
                })
            }
            #[cfg(not(feature = "insecure-benchmark-only"))]
            S::Yct14 => {
                return Err($crate::yct14_refusal()
                    .unwrap_or_else(|| CliError::Other("yct14 is not in this build".into()))
                    .into())
            }
            S::Bgw05 => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Bgw05<C>;
                $body
            }),
            S::Bgw05Sqrt => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Bgw05Sqrt<C>;
                $body
            }),
            S::Gw09 => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Gw09<C>;
                $body
            }),
            S::Waters09 => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Waters09<C>;
                $body
            }),
            S::ElGamalP256 if pre.curve == CurveId::P256 => {
                type $K = abbe::bcast::ElGamalP256;
                $body
            }
            s => {
                return Err(CliError::Other(format!(
                    "{} on {} is not available in the command-line tool",
                    s.name(),
                    pre.curve.name()
                ))
                .into())
            }
        }
    }};
}
pub(crate) use any_scheme;

/// Like [`any_scheme`], for the schemes with GHW11 outsourcing.
macro_rules! outsourcing_scheme {
    ($pre:expr, $K:ident => $body:expr) => {{
        use abbe::abe::*;
        use abbe::wire::SchemeId as S;
        let pre: abbe::wire::Preamble = $pre;
        match pre.scheme {
            S::Waters11 => $crate::on_curve!(pre.curve, C => { type $K = Waters11<C>; $body }),
            S::Gpsw06 => $crate::on_curve!(pre.curve, C => { type $K = Gpsw06<C>; $body }),
            s => Err(CliError::Other(format!(
                "{} does not support outsourced decryption (waters11 and gpsw06 do)",
                s.name()
            ))),
        }
    }};
}
pub(crate) use outsourcing_scheme;

/// Setup of a small-universe scheme (gpsw06-small, yct14) with the given
/// universe.
pub(crate) fn small_universe_setup(
    pre: Preamble,
    universe: &[String],
) -> Result<(Vec<u8>, Vec<u8>)> {
    use abbe::abe::Gpsw06Small;
    use abbe::wire::Encoded;
    fn pair<P: Encoded, M: Encoded>(
        r: std::result::Result<(P, M), KemError>,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let (pk, mk) = r?;
        Ok((pk.to_bytes(), mk.to_bytes()))
    }
    match pre.scheme {
        SchemeId::Gpsw06Small => on_curve!(pre.curve, C => pair(
            Gpsw06Small::<C>::setup(&Universe(universe.to_vec()), &mut OsRng),
        )),
        #[cfg(feature = "insecure-benchmark-only")]
        SchemeId::Yct14 => {
            if let Some(e) = yct14_refusal() {
                return Err(e);
            }
            on_classic_curve!(pre.scheme, pre.curve, C => pair(
                abbe::abe::yct14::InsecureYct14::<C>::setup(&Universe(universe.to_vec()), &mut OsRng),
            ))
        }
        _ => Err(CliError::Other(format!(
            "--universe applies only to small-universe schemes (gpsw06-small, yct14), not {}",
            pre.scheme.name()
        ))),
    }
}

pub(crate) fn parse_curve(name: &str) -> Result<CurveId> {
    CurveId::from_name(name)
        .filter(|c| *c != CurveId::P256)
        .ok_or_else(|| {
            CliError::Other(format!(
                "unknown curve '{name}' (expected bn254, bls12-381, bls24-479 or bls48-581)"
            ))
        })
}

/// The curve of `--level` or `--curve` (clap makes them exclusive); the
/// default is level 128 (BLS12-381).
pub(crate) fn pick_curve(level: Option<u32>, curve: Option<&str>) -> Result<CurveId> {
    match (level, curve) {
        (Some(l), _) => CurveId::for_level(l).ok_or_else(|| {
            CliError::Other(format!(
                "unknown security level {l} (expected 100, 128, 192 or 256)"
            ))
        }),
        (None, Some(c)) => parse_curve(c),
        (None, None) => Ok(CurveId::Bls12_381),
    }
}

pub(crate) fn parse_scheme(name: &str) -> Result<SchemeId> {
    SchemeId::from_name(name).ok_or_else(|| {
        CliError::Other(format!(
            "unknown scheme '{name}' (this build supports: waters11)"
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
            a.curve.name(),
            b.scheme.name(),
            b.curve.name()
        )));
    }
    Ok(())
}

/// Setup of a small-universe scheme with an explicit universe.
pub(crate) fn universe_setup(pre: Preamble, universe: &str) -> Result<(Vec<u8>, Vec<u8>)> {
    let names: Vec<String> = abbe::policy::AttributeSet::parse(universe)?
        .iter()
        .map(str::to_owned)
        .collect();
    small_universe_setup(pre, &names)
}

/// The curve's name and security level, for messages.
pub fn curve_label(id: CurveId) -> String {
    if id == CurveId::P256 {
        return format!("P-256 (~{}-bit security)", id.security_bits());
    }
    format!("{} (~{}-bit security)", id.name(), id.security_bits())
}
