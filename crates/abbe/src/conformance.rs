//! The conformance suite every scheme runs from its test module, in one
//! line per scheme ([`run`]): round trips of every object through its
//! encoding, satisfaction and `NotSatisfied`, the CCA version (refusing a
//! header whose valid points were exchanged), keys and headers of another
//! setup, and decoders that refuse truncated, extended and bit-flipped
//! encodings without panicking. What is particular to a
//! scheme (sizes, operation counts, collusion) stays in its own tests.

use crate::abe::cca::{CcaHeader, CcaKey, UnattachedKey};
use crate::abe::{ghw11, Cca};
use crate::kem::{
    self, Authority, IssuedKeyOf, Kem, KemError, MasterKeyOf, Outsourcing, ParamsOf, SessionKey,
    Side,
};
use crate::wire::codec::Bound;
use crate::wire::Encoded;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// The seeded generator of the tests.
pub(crate) fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// The attribute set `s` of a test (`"doctor, age = 31"`).
pub(crate) fn attrs(s: &str) -> crate::policy::AttributeSet {
    crate::policy::AttributeSet::parse(s).unwrap()
}

/// The policy `s` of a test.
pub(crate) fn pol(s: &str) -> crate::policy::Policy {
    crate::policy::Policy::parse(s).unwrap()
}

/// The ABE cases' policy and attribute sets, with whether each satisfies it.
pub(crate) const POLICY: &str = "(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)";
pub(crate) const ATTRIBUTE_SETS: &[(&str, bool)] = &[
    ("doctor, cardiology", true),
    ("nurse, age = 31", true),
    ("nurse, ward25", true),
    ("ward25, age = 30", true),
    ("doctor, nurse, age = 29", false),
    ("cardiology", false),
];

/// A light ABE case for the slow level-192/256 curves: the shape of
/// [`POLICY`] without the integer comparison (a bit decomposition of many
/// leaves, and curve-independent).
pub(crate) const LIGHT_POLICY: &str = "(doctor and cardiology) or 2 of (nurse, ward25, senior)";
pub(crate) const FEW_ATTRIBUTE_SETS: &[(&str, bool)] =
    &[("nurse, senior", true), ("doctor, nurse", false)];

/// Every user of a broadcast case with N = 12 and recipients `2-5, 11`,
/// with whether they are recipients.
pub(crate) const MEMBERS: &[(&str, bool)] = &[
    ("1", false),
    ("2", true),
    ("3", true),
    ("4", true),
    ("5", true),
    ("6", false),
    ("7", false),
    ("8", false),
    ("9", false),
    ("10", false),
    ("11", true),
    ("12", false),
];

/// The broadcast case: N = 12, recipients `2-5, 11`, every user's key.
pub(crate) fn broadcast_case<K>() -> Case<'static, K>
where
    K: Kem,
    K::Authority: Authority<Params = crate::bcast::Users>,
{
    Case::one_target(crate::bcast::Users(12), "2-5, 11", MEMBERS)
}

/// The identity-based broadcast case: ℓ = 5, three recipients (two dummies
/// pad the set), identities compared exactly.
pub(crate) fn identity_case<K>() -> Case<'static, K>
where
    K: Kem,
    K::Authority: Authority<Params = crate::bcast::ibbe::MaxRecipients>,
{
    Case::one_target(
        crate::bcast::ibbe::MaxRecipients(5),
        "carol@example.com, alice@example.com, bob@example.com",
        &[
            ("alice@example.com", true),
            ("bob@example.com", true),
            ("carol@example.com", true),
            ("dave@example.com", false),
            ("Alice@example.com", false),
        ],
    )
}

/// What a scheme is tested with: its setup parameters and pairs of a key
/// side and a ciphertext side (as users write them) with whether that key
/// decrypts that ciphertext.
pub(crate) struct Case<'a, K: Kem> {
    pub params: ParamsOf<K>,
    pub pairs: Vec<(&'a str, &'a str, bool)>,
}

impl<'a, K: Kem> Case<'a, K> {
    /// Keys tried on one ciphertext (the usual form for CP-ABE and
    /// broadcast encryption).
    pub fn one_target(params: ParamsOf<K>, target: &'a str, keys: &[(&'a str, bool)]) -> Self {
        let pairs = keys.iter().map(|&(k, ok)| (k, target, ok)).collect();
        Case { params, pairs }
    }
    /// Ciphertexts tried with one key (KP-ABE).
    pub fn one_key(params: ParamsOf<K>, key: &'a str, targets: &[(&'a str, bool)]) -> Self {
        let pairs = targets.iter().map(|&(t, ok)| (key, t, ok)).collect();
        Case { params, pairs }
    }
    fn sides(&self, (key, target, _): &(&str, &str, bool)) -> (K::KeySide, K::CiphertextSide) {
        (
            K::KeySide::parse(key).expect("the case's key side parses"),
            K::CiphertextSide::parse(target).expect("the case's target parses"),
        )
    }
    /// A key side and a target it decrypts.
    fn member(&self) -> (K::KeySide, K::CiphertextSide) {
        let pair = self
            .pairs
            .iter()
            .find(|(_, _, ok)| *ok)
            .expect("the case has a key that decrypts");
        self.sides(pair)
    }
}

/// The suite's tests for a scheme, `tests!(Scheme: case; extra, …)` with
/// `case` its [`Case`] (any curve `C`): every check on BLS12-381 (in both
/// placements) and on BN254, plus the named extra checks
/// (`outsourced_round_trip`).
macro_rules! tests {
    ($scheme:ident: $case:expr $(; $($extra:ident),*)?) => {
        fn case<C: $crate::curve::Curve>() -> $crate::conformance::Case<'static, $scheme<C>> {
            $case
        }

        $crate::conformance::tests!(@checks $($($extra),*)?);
    };
    (@checks $($extra:ident),*) => {
        #[test]
        fn conformance_bls12() {
            let case = case::<$crate::curve::Bls12>();
            $crate::conformance::run(&case);
            $($crate::conformance::$extra(&case);)*
        }

        #[test]
        fn conformance_bn254() {
            let case = case::<$crate::curve::Bn254>();
            $crate::conformance::run(&case);
            $($crate::conformance::$extra(&case);)*
        }

        /// The mirrored placement (G1 and G2 exchanged).
        #[test]
        fn conformance_bls12_swapped() {
            let case = case::<$crate::curve::Swapped<$crate::curve::Bls12>>();
            $crate::conformance::run(&case);
            $($crate::conformance::$extra(&case);)*
        }
    };
}
pub(crate) use tests;

/// Every check of this module that applies to any KEM.
pub(crate) fn run<K: Kem>(case: &Case<K>) {
    round_trip(case);
    cca_round_trip(case);
    deterministic_encapsulation(case);
    wrong_setup(case);
    decoders_reject_mutations(case);
    cca_refuses_moved_points(case);
}

/// The CCA check (batched for the ABE schemes) refuses a header whose points
/// are all valid but not where an honest encryption puts them: two
/// different points of the same length exchanged are refused by a key that
/// decrypts the honest header.
pub(crate) fn cca_refuses_moved_points<K: Kem>(case: &Case<K>) {
    let CcaMember {
        session,
        header,
        key,
        ..
    } = cca_member(case, 6);
    assert_eq!(Cca::<K>::decapsulate(&key, &header).unwrap(), session);
    // The scheme's header sits just before the 32-byte masked seed.
    let bytes = header.to_bytes();
    let inner = header.inner.to_bytes();
    let start = bytes.len() - 32 - inner.len();
    assert_eq!(bytes[start..start + inner.len()], inner[..]);
    let spans: Vec<(usize, usize)> = header_spans::<K>(&bytes, start, inner.len())
        .into_iter()
        .map(|(at, len, _)| (at, len))
        .collect();
    // Points spread over the header, each exchanged with the next point of
    // its length: 8 exchanges for ABE headers (the batched check), 2 for
    // broadcast ones (the full comparison).
    let budget = if K::SCHEME.is_broadcast() { 2 } else { 8 };
    let mut refused = 0;
    for k in 0..budget.min(spans.len()) {
        let i = k * spans.len() / budget.min(spans.len());
        let (a, n) = spans[i];
        let other = spans[i + 1..]
            .iter()
            .find(|&&(b, m)| m == n && bytes[a..a + n] != bytes[b..b + n]);
        let Some(&(b, _)) = other else { continue };
        let mut moved = bytes.clone();
        moved[a..a + n].copy_from_slice(&bytes[b..b + n]);
        moved[b..b + n].copy_from_slice(&bytes[a..a + n]);
        // Elements of one length but two kinds (a BN254 G1 point and a
        // scalar) may not decode in each other's place.
        if let Ok(h) = CcaHeader::<K>::from_bytes(&moved) {
            let out = Cca::<K>::decapsulate(&key, &h);
            assert!(out.is_err(), "points {a} and {b} exchanged: accepted");
            refused += 1;
        }
    }
    // An ABE header has many points of each group; some broadcast headers
    // have one of each, which no exchange applies to.
    assert!(
        refused > 0 || K::SCHEME.is_broadcast(),
        "no exchange was tried"
    );
}

/// Where the elements of the scheme header encoded at
/// `outer[start..start + len]` lie in `outer`: (offset, length, G1, G2, GT
/// or Zr), in format order; those of a nested object decoded from a copy
/// are left out.
fn header_spans<K: Kem>(outer: &[u8], start: usize, len: usize) -> Vec<crate::wire::Span> {
    let inner = &outer[start..start + len];
    let (decoded, spans) = crate::wire::element_spans(|| K::Header::from_bytes(inner));
    decoded.expect("a fresh encoding decodes");
    let base = inner.as_ptr() as usize;
    spans
        .into_iter()
        .filter(|&(addr, n, _)| addr >= base && addr + n <= base + len)
        .map(|(addr, n, name)| (start + addr - base, n, name))
        .collect()
}

/// The proxy decodes a header without subgroup checks and `pair` checks
/// what it pairs ([`crate::abe::ghw11::Checks`]): each header point moved
/// by a cofactor part (order prime to r) transforms exactly as the honest
/// header or is refused as outside the subgroup, in CPA and RCCA mode.
/// Every moved point of the real G1 pairs as before, so it is accepted; a
/// moved point of the real G2 is refused where the key uses it (here,
/// somewhere); a strict decoding refuses every moved header.
pub(crate) fn proxy_checks_cofactor_parts<K: ghw11::Scheme>(case: &Case<K>) {
    use crate::abe::{rcca, Rcca};
    use crate::curve::{cofactor_point, Curve, Element, Group, PointError};
    use crate::wire::WireError;
    type G1<K> = <<K as ghw11::Scheme>::Curve as Curve>::G1;
    type G2<K> = <<K as ghw11::Scheme>::Curve as Curve>::G2;
    type Transform<'a> = &'a dyn Fn(&[u8]) -> Result<Vec<u8>, KemError>;
    fn moved<G: Group>(point: &[u8], t: Option<G>) -> Option<Vec<u8>> {
        Some((G::from_compressed(point).unwrap() + t?).to_compressed())
    }
    let (t1, t2) = (cofactor_point::<G1<K>>(), cofactor_point::<G2<K>>());
    let mut r = rng(7);
    let (pk, mk) = kem::setup::<K>(&case.params, &mut r).unwrap();
    let (key_side, target) = case.member();
    let uk = kem::keygen::<K>(&pk, &mk, &key_side, &mut r).unwrap();
    let (tk, _) = K::transform_key(&uk, &mut r);
    let cpa = K::encapsulate(&pk, &target, &mut r).unwrap().1.to_bytes();
    let rcca_header = Rcca::<K>::encapsulate(&pk, &target, &mut r).unwrap().1;
    let rcca = rcca_header.to_bytes();
    // The RCCA header ends with the scheme's.
    let inner = rcca_header.inner.to_bytes();
    let inner_start = rcca.len() - inner.len();
    assert_eq!(rcca[inner_start..], inner[..]);
    let cpa_transform = |h: &[u8]| ghw11::transform_encoded(&tk, h).map(|t| t.to_bytes());
    let rcca_transform = |h: &[u8]| rcca::transform_encoded::<K>(&tk, h).map(|t| t.to_bytes());
    let modes: [(&[u8], usize, Transform); 2] = [
        (&cpa, 0, &cpa_transform),
        (&rcca, inner_start, &rcca_transform),
    ];
    for (bytes, start, transform) in modes {
        let strict = |h: &[u8]| {
            K::Header::from_bytes(h).is_ok() || rcca::RccaHeader::<K>::from_bytes(h).is_ok()
        };
        let honest = transform(bytes).unwrap();
        let (mut g1_moved, mut g2_refused) = (0, 0);
        for (at, len, name) in header_spans::<K>(bytes, start, bytes.len() - start) {
            let point = &bytes[at..at + len];
            let shifted = if name == <G1<K> as Element>::NAME {
                moved(point, t1)
            } else if name == <G2<K> as Element>::NAME {
                moved(point, t2)
            } else {
                continue;
            };
            let Some(shifted) = shifted else { continue }; // cofactor 1
            let mut m = bytes.to_vec();
            m[at..at + len].copy_from_slice(&shifted);
            assert!(!strict(&m), "{name} at {at}: strict decoding");
            match transform(&m) {
                Ok(t) => assert_eq!(t, honest, "{name} at {at}: another result"),
                Err(KemError::Wire(WireError::Point(PointError::NotInSubgroup("G2"))))
                    if name == "G2" =>
                {
                    g2_refused += 1
                }
                Err(e) => panic!("the {name} point at {at} moved: refused ({e})"),
            }
            g1_moved += usize::from(name == "G1");
        }
        assert!(g2_refused > 0, "no moved G2 point was refused");
        let real_g1_cofactor = if <G1<K> as Element>::NAME == "G1" {
            t1.is_some()
        } else {
            t2.is_some()
        };
        assert!(g1_moved > 0 || !real_g1_cofactor, "no G1 point was moved");
    }
}

/// Encapsulation is a function of the rng: the CCA transform re-encapsulates
/// with the seed it recovers ([`crate::abe::cca`]).
pub(crate) fn deterministic_encapsulation<K: Kem>(case: &Case<K>) {
    let (pk, _) = kem::setup::<K>(&case.params, &mut rng(13)).unwrap();
    for pair in &case.pairs {
        let (_, target) = case.sides(pair);
        let (k1, h1) = K::encapsulate(&pk, &target, &mut rng(99)).unwrap();
        let (k2, h2) = K::encapsulate(&pk, &target, &mut rng(99)).unwrap();
        assert_eq!(k1, k2, "{pair:?}");
        assert_eq!(h1.to_bytes(), h2.to_bytes(), "{pair:?}");
    }
}

fn reencoded<T: Encoded>(x: &T) -> T {
    T::from_bytes(&x.to_bytes()).expect("a fresh encoding decodes")
}

/// Keys and headers decoded from their encodings decrypt exactly when the
/// case says so, to the encapsulated key.
pub(crate) fn round_trip<K: Kem>(case: &Case<K>) {
    let mut r = rng(1);
    let (pk, mk) = kem::setup::<K>(&case.params, &mut r).unwrap();
    let (pk, mk) = (reencoded(&pk), reencoded(&mk));
    assert_eq!(pk.to_bytes(), reencoded(&pk).to_bytes());
    assert!(K::Authority::is_public_key_of(&pk, &mk));
    for pair in &case.pairs {
        let (side, ok) = (pair.0, pair.2);
        let (key_side, target) = case.sides(pair);
        let (key, header) = K::encapsulate(&pk, &target, &mut r).unwrap();
        let header = reencoded(&header);
        assert_eq!(K::ciphertext_side(&header).describe(), target.describe());
        let issued = K::Authority::keygen(&pk, &mk, &key_side, &mut r).unwrap();
        let uk = K::user_key(reencoded(&issued), &pk);
        assert_eq!(K::key_side(&uk).describe(), key_side.describe());
        match K::decapsulate(&uk, &header) {
            Ok(k) => {
                assert!(ok, "{side} should not decrypt {}", pair.1);
                assert_eq!(k, key);
                // Again, with whatever the first call cached.
                assert_eq!(K::decapsulate(&uk, &header).unwrap(), key);
            }
            Err(KemError::NotSatisfied) => assert!(!ok, "{side} should decrypt {}", pair.1),
            Err(e) => panic!("{side}: unexpected error {e}"),
        }
    }
}

/// The same through the CCA version, with key bundles and CCA headers.
pub(crate) fn cca_round_trip<K: Kem>(case: &Case<K>) {
    let mut r = rng(2);
    let (pk, mk) = kem::setup::<K>(&case.params, &mut r).unwrap();
    for pair in &case.pairs {
        let (key_side, target) = case.sides(pair);
        let (key, header) = Cca::<K>::encapsulate(&pk, &target, &mut r).unwrap();
        let uk = kem::keygen::<Cca<K>>(&pk, &mk, &key_side, &mut r).unwrap();
        match Cca::<K>::decapsulate(&reencoded_bundle(&uk, &pk), &reencoded(&header)) {
            Ok(k) => assert!(pair.2 && k == key, "{pair:?}"),
            Err(KemError::NotSatisfied) => assert!(!pair.2, "{pair:?}"),
            Err(e) => panic!("{pair:?}: unexpected error {e}"),
        }
    }
}

/// A key bundle through its encoding: a broadcast one is stored without its
/// public key (which must then be given, and only its own setup's), the
/// others with it.
fn reencoded_bundle<K: Kem>(uk: &CcaKey<K>, pk: &K::PublicKey) -> CcaKey<K> {
    let bytes = uk.to_bytes();
    if !K::SCHEME.is_broadcast() {
        return CcaKey::from_bytes(&bytes).expect("a fresh encoding decodes");
    }
    assert!(
        bytes.len() < 8 + 16 + uk.key.to_bytes().len(),
        "no public key inside"
    );
    assert!(CcaKey::<K>::from_bytes(&bytes).is_err());
    let stored = UnattachedKey::<K>::from_bytes(&bytes).expect("a fresh encoding decodes");
    stored.attach(pk).expect("a key takes its own public key")
}

/// A header names its setup; a key of one setup refuses a header of
/// another; a master key refuses another setup's public key; a broadcast
/// key refuses another setup's public key.
pub(crate) fn wrong_setup<K: Kem>(case: &Case<K>) {
    let mut r = rng(3);
    let (pk1, mk1) = kem::setup::<K>(&case.params, &mut r).unwrap();
    let (pk2, mk2) = kem::setup::<K>(&case.params, &mut r).unwrap();
    let (key_side, target) = case.member();
    let (_, header) = K::encapsulate(&pk1, &target, &mut r).unwrap();
    let id1 = pk1.setup_id();
    assert_eq!(header.setup_id(), id1);
    assert_eq!(reencoded(&header).setup_id(), id1);
    assert_ne!(pk2.setup_id(), id1);
    assert!(K::Authority::is_public_key_of(&pk1, &mk1));
    assert!(!K::Authority::is_public_key_of(&pk1, &mk2));
    let key = kem::keygen::<K>(&pk2, &mk2, &key_side, &mut r).unwrap();
    assert!(matches!(
        K::decapsulate(&key, &header),
        Err(KemError::WrongSetup)
    ));
    assert!(matches!(
        kem::keygen::<K>(&pk1, &mk2, &key_side, &mut r),
        Err(KemError::WrongSetup)
    ));
    if K::SCHEME.is_broadcast() {
        let bundle = kem::keygen::<Cca<K>>(&pk2, &mk2, &key_side, &mut r).unwrap();
        let stored = UnattachedKey::<K>::from_bytes(&bundle.to_bytes()).unwrap();
        assert!(matches!(stored.attach(&pk1), Err(KemError::WrongSetup)));
    }
}

/// Decodes `bytes` as every object of `K`; only the absence of a panic is
/// checked (what the proptests and [`decoders_reject_mutations`] feed).
pub(crate) fn decode_all<K: Kem>(bytes: &[u8]) -> [bool; 6] {
    [
        K::PublicKey::from_bytes(bytes).is_ok(),
        MasterKeyOf::<K>::from_bytes(bytes).is_ok(),
        IssuedKeyOf::<K>::from_bytes(bytes).is_ok(),
        K::Header::from_bytes(bytes).is_ok(),
        match K::SCHEME.is_broadcast() {
            true => UnattachedKey::<K>::from_bytes(bytes).is_ok(),
            false => CcaKey::<K>::from_bytes(bytes).is_ok(),
        },
        CcaHeader::<K>::from_bytes(bytes).is_ok(),
    ]
}

/// A setup, a CCA header for the case's member target and a key bundle
/// that decrypts it.
struct CcaMember<K: Kem> {
    pk: K::PublicKey,
    mk: MasterKeyOf<K>,
    session: SessionKey,
    header: CcaHeader<K>,
    key: CcaKey<K>,
}

fn cca_member<K: Kem>(case: &Case<K>, seed: u64) -> CcaMember<K> {
    let mut r = rng(seed);
    let (pk, mk) = kem::setup::<K>(&case.params, &mut r).unwrap();
    let (key_side, target) = case.member();
    let (session, header) = Cca::<K>::encapsulate(&pk, &target, &mut r).unwrap();
    let key = kem::keygen::<Cca<K>>(&pk, &mk, &key_side, &mut r).unwrap();
    CcaMember {
        pk,
        mk,
        session,
        header,
        key,
    }
}

/// Truncated and extended encodings are refused by every decoder; every
/// single-bit flip of a valid encoding decodes or is refused, never panics.
pub(crate) fn decoders_reject_mutations<K: Kem>(case: &Case<K>) {
    let mut r = rng(4);
    let CcaMember {
        pk,
        mk,
        header,
        key,
        ..
    } = cca_member(case, 4);
    let objects = [
        pk.to_bytes(),
        mk.to_bytes(),
        header.inner.to_bytes(),
        key.key.to_bytes(),
        header.to_bytes(),
        key.to_bytes(),
    ];
    for bytes in &objects {
        for cut in [0, 1, 7, 8, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(decode_all::<K>(&bytes[..cut]), [false; 6], "cut at {cut}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(decode_all::<K>(&long), [false; 6]);
        // Up to 512 flips, fewer for large objects (public keys of O(N) or
        // O(universe) points), each of whose decodings validates every point:
        // a bounded amount of decoding per object. The fuzz targets go deep.
        let flips = (FLIP_BUDGET / bytes.len().max(1)).clamp(32, 512);
        let step = bytes.len().div_ceil(flips).max(1);
        for i in (0..bytes.len()).step_by(step) {
            let mut m = bytes.clone();
            m[i] ^= 1 << (r.next_u32() % 8);
            decode_all::<K>(&m);
        }
        garbage_after_preamble(&bytes[..crate::wire::PREAMBLE_LEN], &mut r, decode_all::<K>);
    }
}

/// Bytes decoded per object by [`decoders_reject_mutations`]'s flips.
const FLIP_BUDGET: usize = 1 << 20;

/// Random bodies (0–600 bytes) behind a valid preamble reach every body
/// decoder; `decode` must not panic on any of them.
fn garbage_after_preamble<T>(preamble: &[u8], r: &mut impl RngCore, decode: impl Fn(&[u8]) -> T) {
    for _ in 0..64 {
        let mut m = preamble.to_vec();
        let len = (r.next_u32() % 600) as usize;
        let start = m.len();
        m.resize(start + len, 0);
        r.fill_bytes(&mut m[start..]);
        decode(&m);
    }
}

/// GHW11 outsourcing from decoded keys: every key that decrypts directly
/// decrypts through transform and final decryption, to the same key.
pub(crate) fn outsourced_round_trip<K: Outsourcing>(case: &Case<K>) {
    let mut r = rng(5);
    let (pk, mk) = kem::setup::<K>(&case.params, &mut r).unwrap();
    for pair in &case.pairs {
        let (key_side, target) = case.sides(pair);
        let (key, header) = K::encapsulate(&pk, &target, &mut r).unwrap();
        let uk = kem::keygen::<K>(&pk, &mk, &key_side, &mut r).unwrap();
        let (tk, rk) = K::transform_key(&uk, &mut r);
        let (tk, rk) = (reencoded(&tk), reencoded(&rk));
        match K::transform(&tk, &header) {
            Ok(t) => {
                assert!(pair.2, "{pair:?} should not transform");
                let t = reencoded(&t);
                assert_eq!(K::decrypt_transformed(&rk, &t).unwrap(), key);
            }
            Err(KemError::NotSatisfied) => assert!(!pair.2, "{pair:?}"),
            Err(e) => panic!("{pair:?}: unexpected error {e}"),
        }
        for bytes in [tk.to_bytes(), rk.to_bytes()] {
            assert_eq!(
                decode_outsourcing::<K>(&bytes[..bytes.len() - 1]),
                [false; 3]
            );
            let preamble = &bytes[..crate::wire::PREAMBLE_LEN];
            garbage_after_preamble(preamble, &mut r, decode_outsourcing::<K>);
        }
    }
}

/// Decodes `bytes` as every outsourcing object of `K` (no panic).
pub(crate) fn decode_outsourcing<K: Outsourcing>(bytes: &[u8]) -> [bool; 3] {
    [
        K::TransformKey::from_bytes(bytes).is_ok(),
        K::RetrievalKey::from_bytes(bytes).is_ok(),
        K::Transformed::from_bytes(bytes).is_ok(),
    ]
}

/// Broadcast: on 8 random recipient sets of random N ≤ 300 (per curve and
/// placement, so 24 per scheme), members decrypt
/// to the encapsulated key and other users get `NotSatisfied` (a sample of
/// users, as keys of some schemes are O(N)).
pub(crate) fn random_recipients<K>(_: &Case<K>)
where
    K: Kem<KeySide = crate::bcast::UserIndex, CiphertextSide = crate::bcast::Recipients>,
    K::Authority: Authority<Params = crate::bcast::Users>,
{
    use crate::bcast::{testutil::random_set, UserIndex};
    let mut r = rng(6);
    for _ in 0..8 {
        let n = 1 + r.next_u32() % 300;
        let seed = r.next_u64();
        let frac = f64::from(r.next_u32()) / f64::from(u32::MAX);
        let (pk, mk) = kem::setup::<K>(&crate::bcast::Users(n), &mut r).unwrap();
        let set = random_set(n, seed, frac);
        let (key, header) = K::encapsulate(&pk, &set, &mut r).unwrap();
        let sampled =
            (1..=n).filter(|i| i % 7 == (seed % 7) as u32 || set.contains(*i) && i % 3 == 0);
        for i in sampled.chain(set.iter().take(1)) {
            let uk = kem::keygen::<K>(&pk, &mk, &UserIndex(i), &mut r).unwrap();
            match K::decapsulate(&uk, &header) {
                Ok(k) => assert!(set.contains(i) && k == key, "user {i} of {set}"),
                Err(KemError::NotSatisfied) => assert!(!set.contains(i), "user {i} of {set}"),
                Err(e) => panic!("user {i}: unexpected error {e}"),
            }
        }
    }
}

/// Headers whose target a test rewrites (forged and replayed headers).
pub(crate) trait Retarget: Kem {
    fn retarget(header: &Self::Header, to: Self::CiphertextSide) -> Self::Header;
}

/// `retarget!(Scheme<C>, field)` (or `retarget!(Scheme, field)` for a
/// scheme on one curve): [`Retarget`] for a scheme whose header keeps its
/// target in `field`.
macro_rules! retarget {
    ($scheme:ident<C>, $field:ident) => {
        impl<C: $crate::curve::Curve> $crate::conformance::Retarget for $scheme<C> {
            $crate::conformance::retarget!(@body $field);
        }
    };
    ($scheme:ident, $field:ident) => {
        impl $crate::conformance::Retarget for $scheme {
            $crate::conformance::retarget!(@body $field);
        }
    };
    (@body $field:ident) => {
        fn retarget(header: &Self::Header, to: Self::CiphertextSide) -> Self::Header {
            let bytes = $crate::wire::Encoded::to_bytes(header);
            let mut forged = <Self::Header as $crate::wire::Encoded>::from_bytes(&bytes).unwrap();
            forged.$field = to;
            forged
        }
    };
}
pub(crate) use retarget;

/// Broadcast: an outsider who writes itself into a header's recipient set —
/// in place of a member, or beside them — gets another key (or a refusal),
/// never the encapsulated one.
pub(crate) fn forged_recipients<K>(_: &Case<K>)
where
    K: Retarget<KeySide = crate::bcast::UserIndex, CiphertextSide = crate::bcast::Recipients>,
    K::Authority: Authority<Params = crate::bcast::Users>,
{
    use crate::bcast::{Recipients, UserIndex, Users};
    let mut r = rng(8);
    let (pk, mk) = kem::setup::<K>(&Users(12), &mut r).unwrap();
    let set = Recipients::parse("2-5, 11").unwrap();
    let (key, header) = K::encapsulate(&pk, &set, &mut r).unwrap();
    let outsider = kem::keygen::<K>(&pk, &mk, &UserIndex(1), &mut r).unwrap();
    assert!(matches!(
        K::decapsulate(&outsider, &header),
        Err(KemError::NotSatisfied)
    ));
    let in_place = K::retarget(&header, Recipients::parse("1, 3-5, 11").unwrap());
    assert_ne!(K::decapsulate(&outsider, &in_place).unwrap(), key);
    let beside = K::retarget(&header, Recipients::parse("1-5, 11").unwrap());
    match K::decapsulate(&outsider, &beside) {
        Ok(k) => assert_ne!(k, key),
        Err(KemError::Invalid(_)) => {}
        Err(e) => panic!("unexpected error {e}"),
    }
}

/// Identity-based broadcast with ℓ = 3: every set size from 1 to ℓ (with
/// padding and without) reaches exactly its members; a set larger than ℓ is
/// refused; a non-member who writes itself into the set gets another key.
pub(crate) fn every_identity_set_size<K>(_: &Case<K>)
where
    K: Retarget<
        KeySide = crate::bcast::ibbe::Identity,
        CiphertextSide = crate::bcast::ibbe::Identities,
    >,
    K::Authority: Authority<Params = crate::bcast::ibbe::MaxRecipients>,
{
    use crate::bcast::ibbe::{Identities, Identity, MaxRecipients};
    let mut r = rng(9);
    let (pk, mk) = kem::setup::<K>(&MaxRecipients(3), &mut r).unwrap();
    let names = ["a", "b", "c", "d"];
    let keys: Vec<_> = names
        .iter()
        .map(|n| kem::keygen::<K>(&pk, &mk, &Identity::parse(n).unwrap(), &mut r).unwrap())
        .collect();
    for k in 1..=3 {
        let set = Identities::from_strs(names[..k].iter().copied()).unwrap();
        let (key, h) = K::encapsulate(&pk, &set, &mut r).unwrap();
        for (i, uk) in keys.iter().enumerate() {
            match K::decapsulate(uk, &h) {
                Ok(got) => assert!(i < k && got == key, "user {i} of {k}"),
                Err(KemError::NotSatisfied) => assert!(i >= k, "user {i} of {k}"),
                Err(e) => panic!("user {i} of {k}: {e}"),
            }
        }
        if k < 3 {
            let with_outsider = Identities::from_strs(names[..=k].iter().copied()).unwrap();
            let forged = K::retarget(&h, with_outsider);
            assert_ne!(K::decapsulate(&keys[k], &forged).unwrap(), key);
        }
    }
    let four = Identities::from_strs(names).unwrap();
    assert!(K::encapsulate(&pk, &four, &mut r).is_err());
}

/// ABE: on random perazzo policies (on whichever side holds the policy) and
/// random attribute sets, with the default setup parameters, decryption succeeds exactly when the attributes
/// satisfy the policy, and to the encapsulated key.
pub(crate) fn random_policies<K: Kem>(case: &Case<K>) {
    random_policy_cases(case, |_, _, _, _| ());
}

/// [`random_policies`], and every key that decrypts also decrypts through
/// transform and final decryption.
pub(crate) fn random_policies_outsourced<K: Outsourcing>(case: &Case<K>) {
    random_policy_cases(case, |uk, header, key, r| {
        let (tk, rk) = K::transform_key(uk, r);
        let t = K::transform(&tk, header).unwrap();
        assert_eq!(K::decrypt_transformed(&rk, &t).unwrap(), *key);
    });
}

fn random_policy_cases<K: Kem>(
    _: &Case<K>,
    on_success: impl Fn(&K::UserKey, &K::Header, &kem::SessionKey, &mut ChaCha20Rng),
) {
    use crate::policy::{generate, AttributeSet};
    let mut r = rng(7);
    let unit = |r: &mut ChaCha20Rng| f64::from(r.next_u32()) / f64::from(u32::MAX);
    // The default parameters: a small universe's default holds every
    // name `random_policy` uses.
    let (pk, mk) = kem::setup::<K>(&ParamsOf::<K>::default(), &mut r).unwrap();
    for _ in 0..12 {
        let n = 1 + (r.next_u32() % 7) as usize;
        let policy = generate::random_policy(n, 0.5, 0.5, r.next_u64()).unwrap();
        let tree = policy.to_tree().unwrap();
        let pa = 0.2 + 0.7 * unit(&mut r);
        let mut names: Vec<String> = policy
            .attributes()
            .into_iter()
            .filter(|_| unit(&mut r) < pa)
            .collect();
        if names.is_empty() {
            names.push(generate::attr_name(200));
        }
        let set = AttributeSet::from_names(names).unwrap();
        let (policy_text, set_text) = (policy.to_string(), set.display_attrs().join(", "));
        let (key_text, target_text) = match K::KeySide::IS_POLICY {
            true => (&policy_text, &set_text),
            false => (&set_text, &policy_text),
        };
        let key_side = K::KeySide::parse(key_text).unwrap();
        let target = K::CiphertextSide::parse(target_text).unwrap();
        let (key, header) = K::encapsulate(&pk, &target, &mut r).unwrap();
        let uk = kem::keygen::<K>(&pk, &mk, &key_side, &mut r).unwrap();
        match K::decapsulate(&uk, &header) {
            Ok(k) => {
                assert!(
                    tree.is_satisfied(&set) && k == key,
                    "{policy_text} / {set_text}"
                );
                on_success(&uk, &header, &key, &mut r);
            }
            Err(KemError::NotSatisfied) => {
                assert!(!tree.is_satisfied(&set), "{policy_text} / {set_text}")
            }
            Err(e) => panic!("{policy_text} / {set_text}: unexpected error {e}"),
        }
    }
}
