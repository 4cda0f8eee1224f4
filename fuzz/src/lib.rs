//! Helpers shared by the fuzz targets: the stored test vectors
//! (tests/vectors, compiled in) and what the targets derive from them once.

pub mod objects;
pub mod points;

use abbe::curve::CurveId;
use abbe::outsource::PreparedTransformKey;
use abbe::wire::{Preamble, SchemeId};
use std::sync::OnceLock;

/// The vectors with outsourcing keys, compiled in.
const VECTORS: [&str; 4] = [
    include_str!("../../tests/vectors/waters11-bn254.txt"),
    include_str!("../../tests/vectors/waters11-bls12-381.txt"),
    include_str!("../../tests/vectors/gpsw06-bn254.txt"),
    include_str!("../../tests/vectors/gpsw06-bls12-381.txt"),
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex test vector"))
        .collect()
}

/// The object `name` of a vector file (`name = hex` lines).
pub fn vector(text: &str, name: &str) -> Vec<u8> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(" = "))
        .map(|h| unhex(h.trim()))
        .unwrap_or_else(|| panic!("test vector has no {name}"))
}

/// The Waters11 BN254 vector file.
pub fn waters11_bn254() -> &'static str {
    VECTORS[0]
}

/// The stored transformation keys (Waters11 and GPSW06 on BN254 and
/// BLS12-381), decoded once: what a proxy holds. The higher curves are left
/// out so that an iteration that reaches a transformation stays fast.
pub fn transform_key(pre: &Preamble) -> Option<&'static PreparedTransformKey> {
    static KEYS: OnceLock<Vec<PreparedTransformKey>> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        VECTORS
            .iter()
            .map(|v| {
                PreparedTransformKey::decode(&vector(v, "transformation-key"))
                    .expect("stored transformation key")
            })
            .collect()
    });
    let supported = matches!(pre.scheme, SchemeId::Waters11 | SchemeId::Gpsw06)
        && matches!(pre.curve, CurveId::Bn254 | CurveId::Bls12_381);
    if !supported {
        return None;
    }
    keys.iter()
        .find(|k| k.preamble().scheme == pre.scheme && k.preamble().curve == pre.curve)
}
