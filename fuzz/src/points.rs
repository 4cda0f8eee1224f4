//! Structure-aware decoding of compressed points, G1 and G2 of every
//! pairing curve (`Group::from_compressed`; the targets `points` for BN254
//! and BLS12-381, `points_high` for BLS24-479 and BLS48-581, whose points
//! cost two orders of magnitude more):
//!
//! * `Valid`: a multiple of the generator decodes to itself and re-encodes
//!   to the same bytes;
//! * `Identity`: the identity's encoding decodes to the identity (or is
//!   refused) the same way every time;
//! * `Flip`: a valid encoding with one bit flipped decodes to another point
//!   with that exact encoding, or is refused;
//! * `NonCanonical`: a valid encoding with the field modulus p added to one
//!   coordinate (x + p, when it fits beside the flag bits) is refused;
//! * `Search`: an x below p with valid flags, walked until it is on the
//!   curve — off-subgroup points on the curves with a cofactor — decodes
//!   only to a point with that exact encoding;
//! * `Raw`: any bytes, padded or cut to the encoding's length.
//!
//! Any decoded point must re-encode to its input (the encodings are
//! canonical).
use abbe::curve::{Bls12, Bls24, Bls48, Bn254, Curve, Group, Scalar};
use arbitrary::Arbitrary;
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Arbitrary, Debug)]
pub enum Case {
    Valid([u8; 32]),
    Identity,
    Flip([u8; 32], u16),
    NonCanonical([u8; 32], u8),
    Search(Vec<u8>, bool),
    Raw(Vec<u8>),
}

/// A group of BN254 or BLS12-381.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Low {
    Bn254G1,
    Bn254G2,
    Bls12G1,
    Bls12G2,
}

/// A group of BLS24-479 or BLS48-581.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum High {
    Bls24G1,
    Bls24G2,
    Bls48G1,
    Bls48G2,
}

/// Any of the eight groups.
#[derive(Clone, Copy)]
pub enum Which {
    Bn254G1,
    Bn254G2,
    Bls12G1,
    Bls12G2,
    Bls24G1,
    Bls24G2,
    Bls48G1,
    Bls48G2,
}

impl From<Low> for Which {
    fn from(w: Low) -> Which {
        match w {
            Low::Bn254G1 => Which::Bn254G1,
            Low::Bn254G2 => Which::Bn254G2,
            Low::Bls12G1 => Which::Bls12G1,
            Low::Bls12G2 => Which::Bls12G2,
        }
    }
}

impl From<High> for Which {
    fn from(w: High) -> Which {
        match w {
            High::Bls24G1 => Which::Bls24G1,
            High::Bls24G2 => Which::Bls24G2,
            High::Bls48G1 => Which::Bls48G1,
            High::Bls48G2 => Which::Bls48G2,
        }
    }
}

/// Where the field elements of an encoding sit.
struct Layout {
    /// Bytes before the coordinates (miracl's flag byte).
    prefix: usize,
    /// Bytes of one base-field element.
    chunk: usize,
    /// Little-endian elements (arkworks) rather than big-endian.
    le: bool,
    /// The flag bits inside the elements: (byte index, mask).
    flags: Option<(usize, u8)>,
    /// p, big-endian.
    modulus: &'static str,
}

const BN254_P: &str = "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";
const BLS12_P: &str = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
const BLS24_P: &str = "555c007803ccc5ba839aec6e803f2e77e4c1ba825079733568e09e1f244061873220df068a328b6f1c5cbdb6a642ffe2e82d30daf844c1674a06152b";
const BLS48_P: &str = "1280f73ff3476f313824e31d47012a0056e84f8d122131bb3be6c0f1f3975444a48ae43af6e082acd9cd30394f4736daf68367a5513170ee0a578fdf721a4a48ac3edc154e6565912b";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// Decodes `enc`; a decoded point must re-encode to `enc`.
fn decode<G: Group>(enc: &[u8]) -> Result<G, abbe::curve::PointError> {
    let r = G::from_compressed(enc);
    if let Ok(p) = &r {
        assert_eq!(
            p.to_compressed(),
            enc,
            "decoded point re-encodes differently"
        );
    }
    r
}

/// One of 256 valid points per group (by the seed's first byte), each made
/// once: a multiplication per input would cost more than the decoding
/// under test (tens of milliseconds in BLS48-581's G2).
fn valid<G: Group>(seed: &[u8; 32]) -> G {
    thread_local! {
        static POINTS: RefCell<HashMap<TypeId, Box<dyn Any>>> = RefCell::new(HashMap::new());
    }
    POINTS.with(|m| {
        let mut m = m.borrow_mut();
        let slots = m
            .entry(TypeId::of::<G>())
            .or_insert_with(|| Box::new(vec![None::<G>; 256]))
            .downcast_mut::<Vec<Option<G>>>()
            .expect("one slot vector per group");
        *slots[usize::from(seed[0])]
            .get_or_insert_with(|| G::generator() * <G::Scalar as Scalar>::from_bytes_wide(seed))
    })
}

/// The element `i` of `enc` as a big-endian integer, flag bits cleared.
fn element(enc: &[u8], l: &Layout, i: usize) -> Vec<u8> {
    let at = l.prefix + i * l.chunk;
    let mut e = enc[at..at + l.chunk].to_vec();
    if let Some((byte, mask)) = l.flags {
        if (at..at + l.chunk).contains(&byte) {
            e[byte - at] &= !mask;
        }
    }
    if l.le {
        e.reverse();
    }
    e
}

/// Writes element `i` back, keeping the flag bits of `enc`; `None` if the
/// value reaches into them.
fn put_element(enc: &mut [u8], l: &Layout, i: usize, mut e: Vec<u8>) -> Option<()> {
    if l.le {
        e.reverse();
    }
    let at = l.prefix + i * l.chunk;
    if let Some((byte, mask)) = l.flags {
        if (at..at + l.chunk).contains(&byte) {
            if e[byte - at] & mask != 0 {
                return None;
            }
            e[byte - at] |= enc[byte] & mask;
        }
    }
    enc[at..at + l.chunk].copy_from_slice(&e);
    Some(())
}

/// `a + b` (big-endian, same length); `None` on overflow.
fn add(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    let mut out = a.to_vec();
    let mut carry = 0u16;
    for i in (0..a.len()).rev() {
        let s = u16::from(a[i]) + u16::from(b[i]) + carry;
        out[i] = s as u8;
        carry = s >> 8;
    }
    (carry == 0).then_some(out)
}

/// `n` bytes: the input's, then a splitmix64 stream seeded with them (so
/// that short inputs still give x with every coefficient non-zero).
fn stretch(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut s = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut out = bytes[..bytes.len().min(n)].to_vec();
    while out.len() < n {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(n);
    out
}

fn run<G: Group>(case: &Case, l: &Layout) {
    let n = G::COMPRESSED_BYTES;
    let elements = (n - l.prefix) / l.chunk;
    assert_eq!(
        l.prefix + elements * l.chunk,
        n,
        "layout of a {n}-byte encoding"
    );
    let mut p = unhex(l.modulus);
    p.splice(0..0, vec![0; l.chunk - p.len()]);
    match case {
        Case::Valid(seed) => {
            let pt = valid::<G>(seed);
            let enc = pt.to_compressed();
            assert_eq!(enc.len(), n);
            assert_eq!(decode::<G>(&enc), Ok(pt), "valid point refused");
            for i in 0..elements {
                assert!(
                    element(&enc, l, i) < p,
                    "coordinate of a valid point not below p"
                );
            }
        }
        Case::Identity => {
            let enc = G::identity().to_compressed();
            let r = decode::<G>(&enc);
            if let Ok(q) = &r {
                assert!(q.is_identity());
            }
            assert_eq!(
                G::from_compressed(&enc),
                r,
                "identity decoded differently twice"
            );
        }
        Case::Flip(seed, bit) => {
            let pt = valid::<G>(seed);
            let mut enc = pt.to_compressed();
            let bit = usize::from(*bit) % (8 * n);
            enc[bit / 8] ^= 1 << (bit % 8);
            if let Ok(q) = decode::<G>(&enc) {
                assert_ne!(q, pt, "two encodings of one point");
            }
        }
        Case::NonCanonical(seed, which) => {
            let pt = valid::<G>(seed);
            let mut enc = pt.to_compressed();
            if pt.is_identity() {
                return;
            }
            let i = usize::from(*which) % elements;
            let Some(sum) = add(&element(&enc, l, i), &p) else {
                return;
            };
            if put_element(&mut enc, l, i, sum).is_some() {
                assert!(decode::<G>(&enc).is_err(), "x + p accepted");
            }
        }
        Case::Search(bytes, negative) => {
            // Flags of a valid point (compressed, sign), x from the input.
            let g = if *negative {
                -G::generator()
            } else {
                G::generator()
            };
            let mut enc = g.to_compressed();
            let x = stretch(bytes, elements * l.chunk);
            for i in 0..elements {
                let mut e = x[i * l.chunk..(i + 1) * l.chunk].to_vec();
                // Below p: the top byte below p's (and clear of the flags).
                let top = p.iter().position(|&b| b != 0).unwrap();
                e[..top].fill(0);
                e[top] %= p[top];
                if let Some((byte, mask)) = l.flags {
                    let at = l.prefix + i * l.chunk;
                    if (at..at + l.chunk).contains(&byte) {
                        let k = if l.le {
                            l.chunk - 1 - (byte - at)
                        } else {
                            byte - at
                        };
                        e[k] &= !mask;
                    }
                }
                let _ = put_element(&mut enc, l, i, e);
            }
            // Walk the lowest byte of the first element until a decoding is
            // not "not on the curve".
            let low = if l.le {
                l.prefix
            } else {
                l.prefix + l.chunk - 1
            };
            for _ in 0..64 {
                match decode::<G>(&enc) {
                    Err(abbe::curve::PointError::NotOnCurve(_)) => {
                        enc[low] = enc[low].wrapping_add(1)
                    }
                    _ => break,
                }
            }
        }
        Case::Raw(bytes) => {
            let mut enc = bytes.clone();
            enc.resize(n, 0);
            let _ = decode::<G>(&enc);
            let _ = G::from_compressed(bytes);
        }
    }
}

fn layouts<C: Curve>(case: &Case, g1: Layout, g2: Layout, second: bool) {
    if second {
        run::<C::G2>(case, &g2)
    } else {
        run::<C::G1>(case, &g1)
    }
}

/// Runs `case` on the group `which`.
pub fn check(which: impl Into<Which>, case: &Case) {
    let which = which.into();
    // arkworks: little-endian, flags in the top two bits of the last byte;
    // zcash/blst: big-endian, flags in the top three bits of the first
    // byte (G2: c1 then c0); miracl: a flag byte, then big-endian elements.
    let bn = |n: usize| Layout {
        prefix: 0,
        chunk: 32,
        le: true,
        flags: Some((n - 1, 0xc0)),
        modulus: BN254_P,
    };
    let bls12 = || Layout {
        prefix: 0,
        chunk: 48,
        le: false,
        flags: Some((0, 0xe0)),
        modulus: BLS12_P,
    };
    let miracl = |chunk, modulus| Layout {
        prefix: 1,
        chunk,
        le: false,
        flags: None,
        modulus,
    };
    match which {
        Which::Bn254G1 | Which::Bn254G2 => {
            layouts::<Bn254>(case, bn(32), bn(64), matches!(which, Which::Bn254G2))
        }
        Which::Bls12G1 | Which::Bls12G2 => {
            layouts::<Bls12>(case, bls12(), bls12(), matches!(which, Which::Bls12G2))
        }
        Which::Bls24G1 | Which::Bls24G2 => layouts::<Bls24>(
            case,
            miracl(60, BLS24_P),
            miracl(60, BLS24_P),
            matches!(which, Which::Bls24G2),
        ),
        Which::Bls48G1 | Which::Bls48G2 => layouts::<Bls48>(
            case,
            miracl(73, BLS48_P),
            miracl(73, BLS48_P),
            matches!(which, Which::Bls48G2),
        ),
    }
}
