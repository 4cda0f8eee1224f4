//! Every object decoder of one (scheme, curve) family on the same bytes
//! (the targets `objects` and `objects_high`).
//!
//! Input: a selector byte, then the object. The selector picks the family:
//! scheme `SchemeId::ALL[(s >> 3) % SchemeId::ALL.len()]`, curve id `s & 7` (scripts/fuzz.sh
//! writes its seeds so). The object goes to the decoder of its kind in that
//! family (through `abbe::facade`'s registry: keys, headers, outsourcing
//! objects and the CCA/RCCA wrappers) and to the byte-level entry points
//! (outsourcing, signatures). Nothing may panic; the results are ignored.

use abbe::curve::{Bls12, Bls24, Bls48, Bn254, Curve, CurveId};
use abbe::facade;
use abbe::outsource;
use abbe::signature::{self, AnySigningKey, VerifyingKey};
use abbe::wire::{ObjectKind, Preamble, SchemeId};

/// A bare BLS public key (scheme `BlsSig`; the key objects are decoded by
/// `AnySigningKey` and `verifying_key_point` below).
fn bls<C: Curve>(b: &[u8]) {
    let _ = VerifyingKey::<C>::from_point_bytes(b);
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
    // Decoding a master key derives its public key to bind the setup id
    // (pairings and exponentiations: ~100 ms on BLS48-581). In the high
    // target, inputs that had kept that kind held it to a few executions
    // a second; the decoder is generic over the curve, and `objects` runs
    // it on the other curves.
    if curves == Curves::High && b.get(5) == Some(&(ObjectKind::MasterKey as u8)) {
        return;
    }
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

/// Every decoder of the family, through the library's registry: the
/// object is decoded as whatever kind its preamble names (keys, headers,
/// the CCA/RCCA wrappers, outsourcing objects).
fn family(scheme: SchemeId, curve: CurveId, b: &[u8]) {
    if scheme == SchemeId::BlsSig {
        match curve {
            CurveId::Bn254 => bls::<Bn254>(b),
            CurveId::Bls12_381 => bls::<Bls12>(b),
            CurveId::Bls24_479 => bls::<Bls24>(b),
            CurveId::Bls48_581 => bls::<Bls48>(b),
            // No signing keys there (and `sel & 7` names no swapped curve).
            CurveId::P256
            | CurveId::Bls12_381Swapped
            | CurveId::Bn254Swapped
            | CurveId::Bls24_479Swapped
            | CurveId::Bls48_581Swapped => {}
        }
    } else if let Ok(s) = facade::scheme_allowing_insecure(scheme, curve) {
        let _ = s.check_object(b);
    }
}
