//! Every object decoder of one (scheme, curve) family on the same bytes
//! (the targets `objects` and `objects_high`).
//!
//! Input: a selector byte, then the object. The selector picks the family:
//! scheme `SchemeId::ALL[(s >> 3) % 13]`, curve id `s & 7` (scripts/fuzz.sh
//! writes its seeds so). The object goes to every `from_bytes` of that
//! family — keys, headers, outsourcing objects and the CCA/RCCA wrappers —
//! and to the byte-level entry points (outsourcing, signatures). Nothing
//! may panic; the results are ignored.

use abbe::abe::yct14::InsecureYct14;
use abbe::abe::{Bsw07, Cca, FameCp, FameKp, Gpsw06, Gpsw06Small, Rcca, Waters11};
use abbe::bcast::{Bgw05, Bgw05Sqrt, ElGamalP256, Gw09, Waters09};
use abbe::curve::{Bls12, Bls24, Bls48, Bn254, Curve, CurveId};
use abbe::kem::{BlindedKem, Kem, Outsourcing};
use abbe::outsource;
use abbe::signature::{self, AnySigningKey, VerifyingKey};
use abbe::wire::{Encoded, Preamble, SchemeId};

/// The scheme's own objects and its CCA wrappers.
fn kem<K: Kem>(b: &[u8]) {
    let _ = <K::PublicKey as Encoded>::from_bytes(b);
    let _ = <K::MasterKey as Encoded>::from_bytes(b);
    let _ = <K::UserKey as Encoded>::from_bytes(b);
    let _ = <K::Header as Encoded>::from_bytes(b);
    let _ = <<Cca<K> as Kem>::UserKey as Encoded>::from_bytes(b);
    let _ = <<Cca<K> as Kem>::Header as Encoded>::from_bytes(b);
}

/// An outsourcing scheme: also its GHW11 objects and the RCCA wrappers.
/// (Its transformation key is decoded by `check_transform_key` below.)
fn outsourcing<K: BlindedKem>(b: &[u8]) {
    kem::<K>(b);
    let _ = <K::RetrievalKey as Encoded>::from_bytes(b);
    let _ = <K::Transformed as Encoded>::from_bytes(b);
    let _ = <<Rcca<K> as Kem>::Header as Encoded>::from_bytes(b);
    let _ = <<Rcca<K> as Outsourcing>::RetrievalKey as Encoded>::from_bytes(b);
    let _ = <<Rcca<K> as Outsourcing>::Transformed as Encoded>::from_bytes(b);
}

/// A bare BLS public key (scheme `BlsSig`; the key objects are decoded by
/// `AnySigningKey` and `verifying_key_point` below).
fn bls<C: Curve>(b: &[u8]) {
    let _ = VerifyingKey::<C>::from_point_bytes(b);
}

/// Lets `bls` go through the same macros as the schemes (`Id<C>` is `C`).
type Id<C> = C;

/// `$f::<$S<C>>(b)` on the four pairing curves.
macro_rules! four {
    ($curve:expr, $b:expr, $f:ident, $S:ident) => {
        match $curve {
            CurveId::Bn254 => $f::<$S<Bn254>>($b),
            CurveId::Bls12_381 => $f::<$S<Bls12>>($b),
            CurveId::Bls24_479 => $f::<$S<Bls24>>($b),
            CurveId::Bls48_581 => $f::<$S<Bls48>>($b),
            CurveId::P256 => {}
        }
    };
}

/// `$f::<$S<C>>(b)` on BN254 and BLS12-381 (broadcast schemes, YCT14).
macro_rules! two {
    ($curve:expr, $b:expr, $f:ident, $S:ident) => {
        match $curve {
            CurveId::Bn254 => $f::<$S<Bn254>>($b),
            CurveId::Bls12_381 => $f::<$S<Bls12>>($b),
            _ => {}
        }
    };
}

/// The curves one target covers: decoding points on BLS24-479 and
/// BLS48-581 is two orders of magnitude slower, so they have their own
/// target (`objects_high`) and do not slow the others down.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Curves {
    /// BN254, BLS12-381 and P-256.
    Low,
    /// BLS24-479 and BLS48-581.
    High,
}

impl Curves {
    fn has(self, curve: CurveId) -> bool {
        matches!(curve, CurveId::Bls24_479 | CurveId::Bls48_581) == (self == Curves::High)
    }
}

/// Decodes `data` (a selector byte, then the object) with every decoder
/// of the selected family, if its curve is among `curves`.
pub fn decode_all(data: &[u8], curves: Curves) {
    let Some((&sel, b)) = data.split_first() else {
        return;
    };
    // Byte-level entry points, when the object's own curve (or, for bytes
    // that name none, the low target) is ours. Each decoder runs once per
    // input (check_transform_key is `PreparedTransformKey::decode`).
    let ours = match b.get(7).copied().and_then(CurveId::from_u8) {
        Some(c) => curves.has(c),
        None => curves == Curves::Low,
    };
    if ours {
        entry_points(b);
    }
    let scheme = SchemeId::ALL[usize::from(sel >> 3) % SchemeId::ALL.len()];
    let Some(curve) = CurveId::from_u8(sel & 7).filter(|&c| curves.has(c)) else {
        return;
    };
    family(scheme, curve, b);
}

fn entry_points(b: &[u8]) {
    let _ = outsource::header_id(b);
    let _ = outsource::header_mode(b);
    let _ = outsource::check_transform_key(b);
    let _ = AnySigningKey::from_bytes(b);
    let _ = signature::verifying_key_point(b);
    if let Ok(pre) = Preamble::parse(b) {
        let _ = signature::verify_block(pre.curve, &b[8..], b"abbe fuzz");
    }
}

fn family(scheme: SchemeId, curve: CurveId, b: &[u8]) {
    match scheme {
        SchemeId::Waters11 => four!(curve, b, outsourcing, Waters11),
        SchemeId::Gpsw06 => four!(curve, b, outsourcing, Gpsw06),
        SchemeId::Bsw07 => four!(curve, b, kem, Bsw07),
        SchemeId::Gpsw06Small => four!(curve, b, kem, Gpsw06Small),
        SchemeId::FameCp => four!(curve, b, kem, FameCp),
        SchemeId::FameKp => four!(curve, b, kem, FameKp),
        SchemeId::Yct14 => two!(curve, b, kem, InsecureYct14),
        SchemeId::Bgw05 => two!(curve, b, kem, Bgw05),
        SchemeId::Bgw05Sqrt => two!(curve, b, kem, Bgw05Sqrt),
        SchemeId::Gw09 => two!(curve, b, kem, Gw09),
        SchemeId::Waters09 => two!(curve, b, kem, Waters09),
        SchemeId::ElGamalP256 if curve == CurveId::P256 => kem::<ElGamalP256>(b),
        SchemeId::ElGamalP256 => {}
        SchemeId::BlsSig => four!(curve, b, bls, Id),
    }
}
