//! The curve layer: one small trait family for a Type-III pairing group
//! `e: G1 × G2 → GT`, which every scheme is written against once.
//!
//! * [`Scalar`] — the prime field Z_r of exponents.
//! * [`Group`] — G1 or G2, written additively (`P + Q`, `P * s`), with
//!   multi-scalar multiplication, fixed-base tables, hash-to-curve and a
//!   canonical compressed encoding whose decoder checks the point is on the
//!   curve and in the prime-order subgroup.
//! * [`Target`] — GT, written multiplicatively (`a * b`, `a.pow(s)`), with
//!   exponentiation in the cyclotomic subgroup.
//! * [`Curve`] — ties the three together with the pairing: a *shared*
//!   multi-Miller loop over G2 points whose lines were precomputed
//!   ([`Curve::G2Prepared`]) and one final exponentiation.
//!
//! Backends: [`Bls12`] (BLS12-381 on `blstrs`/`blst`, the default),
//! [`Bn254`] (BN254 on arkworks), and for the higher security levels
//! [`Bls24`] (BLS24-479, level 192) and [`Bls48`] (BLS48-581, level 256),
//! both on `miracl_core` (shared code in `miracl.rs`). [`Counted`] wraps any backend and
//! counts operations; it is a separate type, so the plain backends pay
//! nothing for it.

pub mod bls12_381;
pub mod bls24_479;
pub mod bls48_581;
pub mod bn254;
pub mod counting;
mod fixed_base;
mod miracl;
pub mod swapped;
mod wnaf;

pub use bls12_381::Bls12;
pub use bls24_479::Bls24;
pub use bls48_581::Bls48;
pub use bn254::Bn254;
pub use counting::{Counted, OpCounts};
pub use fixed_base::FixedBaseTable;
pub use swapped::Swapped;
pub use wnaf::mul_public;

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use rand_core::{CryptoRng, RngCore};

/// Stable identifiers of the curves, as written in every encoded object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CurveId {
    Bls12_381 = 1,
    Bn254 = 2,
    /// NIST P-256 (no pairing): only the ElGamal broadcast baseline.
    P256 = 3,
    /// BLS24-479 (security level 192).
    Bls24_479 = 4,
    /// BLS48-581 (security level 256).
    Bls48_581 = 5,
    /// The same pairing curves with G1 and G2 swapped ([`Swapped`]): the
    /// curve byte's high bit is the placement.
    Bls12_381Swapped = 0x81,
    Bn254Swapped = 0x82,
    Bls24_479Swapped = 0x84,
    Bls48_581Swapped = 0x85,
}

/// Which group each element of a scheme sits in: the scheme file's own
/// choice, or its mirror image ([`Swapped`], `abbe setup --optimize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// As the scheme file places its elements.
    Standard,
    /// G1 and G2 exchanged.
    Swapped,
}

impl Placement {
    pub fn name(self) -> &'static str {
        match self {
            Placement::Standard => "standard",
            Placement::Swapped => "swapped",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "standard" => Some(Placement::Standard),
            "swapped" => Some(Placement::Swapped),
            _ => None,
        }
    }
}

impl CurveId {
    /// Every curve, in id order.
    pub const ALL: [CurveId; 5] = [
        CurveId::Bls12_381,
        CurveId::Bn254,
        CurveId::P256,
        CurveId::Bls24_479,
        CurveId::Bls48_581,
    ];

    /// Every curve in every placement, in id order.
    pub const EVERY: [CurveId; 9] = [
        CurveId::Bls12_381,
        CurveId::Bn254,
        CurveId::P256,
        CurveId::Bls24_479,
        CurveId::Bls48_581,
        CurveId::Bls12_381Swapped,
        CurveId::Bn254Swapped,
        CurveId::Bls24_479Swapped,
        CurveId::Bls48_581Swapped,
    ];

    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(CurveId::Bls12_381),
            2 => Some(CurveId::Bn254),
            3 => Some(CurveId::P256),
            4 => Some(CurveId::Bls24_479),
            5 => Some(CurveId::Bls48_581),
            0x81 => Some(CurveId::Bls12_381Swapped),
            0x82 => Some(CurveId::Bn254Swapped),
            0x84 => Some(CurveId::Bls24_479Swapped),
            0x85 => Some(CurveId::Bls48_581Swapped),
            _ => None,
        }
    }

    /// The curve with G1 and G2 exchanged (a swapped curve unswaps; P-256,
    /// which has no pairing, stays itself).
    pub const fn swapped(self) -> CurveId {
        match self {
            CurveId::Bls12_381 => CurveId::Bls12_381Swapped,
            CurveId::Bn254 => CurveId::Bn254Swapped,
            CurveId::Bls24_479 => CurveId::Bls24_479Swapped,
            CurveId::Bls48_581 => CurveId::Bls48_581Swapped,
            CurveId::Bls12_381Swapped => CurveId::Bls12_381,
            CurveId::Bn254Swapped => CurveId::Bn254,
            CurveId::Bls24_479Swapped => CurveId::Bls24_479,
            CurveId::Bls48_581Swapped => CurveId::Bls48_581,
            CurveId::P256 => CurveId::P256,
        }
    }

    pub const fn is_swapped(self) -> bool {
        (self as u8) & 0x80 != 0
    }

    /// The underlying curve, in the standard placement.
    pub const fn unswapped(self) -> CurveId {
        if self.is_swapped() {
            self.swapped()
        } else {
            self
        }
    }

    pub fn placement(self) -> Placement {
        if self.is_swapped() {
            Placement::Swapped
        } else {
            Placement::Standard
        }
    }

    /// This curve in `placement`.
    pub fn with_placement(self, placement: Placement) -> CurveId {
        match placement {
            Placement::Standard => self.unswapped(),
            Placement::Swapped => self.unswapped().swapped(),
        }
    }

    /// The curve's name; the placement is not part of it ([`CurveId::label`]).
    pub fn name(self) -> &'static str {
        match self.unswapped() {
            CurveId::Bls12_381 => "bls12-381",
            CurveId::Bn254 => "bn254",
            CurveId::P256 => "p256",
            CurveId::Bls24_479 => "bls24-479",
            _ => "bls48-581",
        }
    }

    /// The name, followed by " (swapped placement)" when G1 and G2 are
    /// exchanged: what messages print.
    pub fn label(self) -> String {
        match self.placement() {
            Placement::Standard => self.name().to_owned(),
            Placement::Swapped => format!("{} (swapped placement)", self.name()),
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "bls12-381" | "bls12_381" | "bls12381" => Some(CurveId::Bls12_381),
            "bn254" | "bn256" | "bn-254" => Some(CurveId::Bn254),
            "p256" | "p-256" | "secp256r1" | "prime256v1" => Some(CurveId::P256),
            "bls24-479" | "bls24_479" | "bls24479" => Some(CurveId::Bls24_479),
            "bls48-581" | "bls48_581" | "bls48581" => Some(CurveId::Bls48_581),
            _ => None,
        }
    }

    /// The curve of a security level (`--level`): 100 → BN254, 128 →
    /// BLS12-381, 192 → BLS24-479, 256 → BLS48-581.
    pub fn for_level(level: u32) -> Option<CurveId> {
        match level {
            100 => Some(CurveId::Bn254),
            128 => Some(CurveId::Bls12_381),
            192 => Some(CurveId::Bls24_479),
            256 => Some(CurveId::Bls48_581),
            _ => None,
        }
    }

    /// The nominal security level the curve stands for (the inverse of
    /// [`CurveId::for_level`]; P-256 is 128). [`CurveId::security_bits`] is
    /// the estimate.
    pub fn level(self) -> u32 {
        match self.unswapped() {
            CurveId::Bn254 => 100,
            CurveId::Bls12_381 | CurveId::P256 => 128,
            CurveId::Bls24_479 => 192,
            _ => 256,
        }
    }

    /// Estimated classical security in bits, with its source.
    ///
    /// * BLS12-381: ~117–120 bits after the exTNFS improvements (Barbulescu–
    ///   Duquesne, J. Cryptology 2019; Guillevic 2020 estimates 117–120 for
    ///   the GT discrete logarithm), usually quoted as "~128-bit class"; we
    ///   state 120.
    /// * BN254: ~100 bits (Barbulescu–Duquesne 2019; Kim–Barbulescu exTNFS).
    /// * P-256: 128 bits (generic discrete logarithm, Pollard rho).
    /// * BLS24-479: 192, the level MIRACL Core assigns it (its `bls192` and
    ///   `mpin192` modules); r has 385 bits (Pollard rho ≈ 192 bits). The
    ///   IRTF CFRG draft-irtf-cfrg-pairing-friendly-curves-11 selects no
    ///   192-bit curve, and we know of no published exTNFS estimate for this
    ///   exact curve: 192 is its class, not a measured figure.
    /// * BLS48-581: 256, the level for which draft-irtf-cfrg-pairing-
    ///   friendly-curves-11 §4.3 selects it (security categories after
    ///   Barbulescu–Duquesne, J. Cryptology 2019).
    pub fn security_bits(self) -> u32 {
        match self.unswapped() {
            CurveId::Bls12_381 => 120,
            CurveId::Bn254 => 100,
            CurveId::P256 => 128,
            CurveId::Bls24_479 => 192,
            _ => 256,
        }
    }
}

/// Errors from decoding group elements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    #[error("{0}: wrong encoding length (expected {1} bytes, got {2})")]
    Length(&'static str, usize, usize),
    #[error("{0}: not a canonical encoding of a point on the curve")]
    NotOnCurve(&'static str),
    #[error("{0}: point is not in the prime-order subgroup")]
    NotInSubgroup(&'static str),
    #[error("{0}: the identity element is not allowed here")]
    Identity(&'static str),
    #[error("scalar is not a canonical field element")]
    Scalar,
}

/// The scalar field Z_r.
pub trait Scalar:
    Element
    + Copy
    + Clone
    + Eq
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
{
    /// Length of the canonical big-endian encoding.
    const BYTES: usize = 32;
    /// An upper bound on the bit length of a canonical scalar (≥ the bit
    /// length of r, ≤ 64 × the limbs of [`Scalar::to_le_limbs`]): windowed
    /// algorithms walk this many bits.
    const BITS: usize = 256;
    /// Input length of [`Scalar::from_bytes_wide`] that makes the reduced
    /// value statistically uniform (at least 128 bits more than r).
    const WIDE_BYTES: usize = 64;
    /// The canonical encoding, `BYTES` long (`[u8; 32]` for 255-bit r).
    type Repr: AsRef<[u8]> + AsMut<[u8]> + Copy + Debug + Send + Sync + 'static;
    /// Little-endian 64-bit limbs (at least `BITS / 64` of them).
    type Limbs: AsRef<[u64]> + Copy + Debug + Send + Sync + 'static;
    fn zero() -> Self;
    fn one() -> Self;
    fn from_u64(v: u64) -> Self;
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut wide = [0u8; MAX_WIDE_BYTES];
        let wide = &mut wide[..Self::WIDE_BYTES];
        rng.fill_bytes(wide);
        let s = Self::from_bytes_wide(wide);
        wipe_bytes(wide);
        s
    }
    /// The big-endian integer `bytes` (any length) reduced modulo r; uniform
    /// when `bytes` is uniform and `WIDE_BYTES` long.
    fn from_bytes_wide(bytes: &[u8]) -> Self;
    /// 1/self, `None` for zero; constant time on every backend (secrets
    /// are inverted: 1/β, 1/z, (α − H(ID))⁻¹).
    fn invert(&self) -> Option<Self>;
    fn is_zero(&self) -> bool;
    /// Canonical `BYTES`-byte big-endian encoding.
    fn to_bytes(&self) -> Self::Repr;
    /// Decodes only canonical encodings (exactly `BYTES` long, value < r).
    fn from_bytes(bytes: &[u8]) -> Option<Self>;
    /// Little-endian 64-bit limbs of the canonical integer, for windowed
    /// exponentiation algorithms.
    fn to_le_limbs(&self) -> Self::Limbs;
}

/// The largest [`Scalar::WIDE_BYTES`] of any backend.
pub const MAX_WIDE_BYTES: usize = 128;

/// Zeroes a byte buffer in a way the optimiser keeps.
pub fn wipe_bytes(b: &mut [u8]) {
    for x in b.iter_mut() {
        *x = 0;
    }
    core::hint::black_box(&*b);
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// A curve element as it is written in objects: points compressed, scalars
/// and GT elements canonical. The wire codec encodes every element through
/// this one trait (`wire::Codec` has one impl for all of them).
pub trait Element: Copy + Send + Sync + 'static {
    /// Encoded length.
    const ENCODED_BYTES: usize;
    /// Short name for the format tables: G1, G2, GT or Zr.
    const NAME: &'static str;
    /// The value a secret of this type is wiped to (identity, zero, one).
    fn wiped() -> Self;
    fn write(&self, out: &mut Vec<u8>);
    /// Strict decoding of exactly `BYTES` bytes.
    fn read(bytes: &[u8]) -> Result<Self, PointError>;
    /// [`Element::read`] without a point's subgroup check (scalars and GT
    /// elements are read strictly); see `wire::deferring_subgroup_checks`.
    fn read_unchecked(bytes: &[u8]) -> Result<Self, PointError> {
        Self::read(bytes)
    }
}

/// Implements [`Element`] for a backend's scalar, point or GT type through
/// its [`Scalar`], [`Group`] or [`Target`] encoding.
macro_rules! element {
    (scalar $t:ty) => {
        impl $crate::curve::Element for $t {
            const ENCODED_BYTES: usize = <$t as $crate::curve::Scalar>::BYTES;
            const NAME: &'static str = "Zr";
            fn wiped() -> Self {
                <$t as $crate::curve::Scalar>::zero()
            }
            fn write(&self, out: &mut Vec<u8>) {
                let mut b = $crate::curve::Scalar::to_bytes(self);
                out.extend_from_slice(b.as_ref());
                $crate::curve::wipe_bytes(b.as_mut());
            }
            fn read(bytes: &[u8]) -> Result<Self, $crate::curve::PointError> {
                <$t as $crate::curve::Scalar>::from_bytes(bytes)
                    .ok_or($crate::curve::PointError::Scalar)
            }
        }
    };
    (point $t:ty) => {
        impl $crate::curve::Element for $t {
            const ENCODED_BYTES: usize = <$t as $crate::curve::Group>::COMPRESSED_BYTES;
            const NAME: &'static str = match <$t as $crate::curve::Group>::KIND {
                $crate::curve::GroupKind::G1 => "G1",
                $crate::curve::GroupKind::G2 => "G2",
            };
            fn wiped() -> Self {
                <$t as $crate::curve::Group>::identity()
            }
            fn write(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&$crate::curve::Group::to_compressed(self));
            }
            fn read(bytes: &[u8]) -> Result<Self, $crate::curve::PointError> {
                <$t as $crate::curve::Group>::from_compressed(bytes)
            }
            fn read_unchecked(bytes: &[u8]) -> Result<Self, $crate::curve::PointError> {
                <$t as $crate::curve::Group>::from_compressed_unchecked(bytes)
            }
        }
    };
    (gt $t:ty) => {
        impl $crate::curve::Element for $t {
            const ENCODED_BYTES: usize = <$t as $crate::curve::Target>::BYTES;
            const NAME: &'static str = "GT";
            fn wiped() -> Self {
                <$t as $crate::curve::Target>::one()
            }
            fn write(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&$crate::curve::Target::to_bytes(self));
            }
            fn read(bytes: &[u8]) -> Result<Self, $crate::curve::PointError> {
                <$t as $crate::curve::Target>::from_bytes(bytes)
            }
        }
    };
}
pub(crate) use element;

/// Which source group a [`Group`] is; used by the operation counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    G1,
    G2,
}

/// G1 or G2 of a pairing-friendly curve, written additively.
pub trait Group:
    Element
    + Copy
    + Clone
    + Eq
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + Mul<<Self as Group>::Scalar, Output = Self>
{
    type Scalar: Scalar;
    /// The backend's affine (normalised) representation, for mixed addition.
    type Affine: Copy + Clone + Debug + Send + Sync + 'static;
    const KIND: GroupKind;
    /// Length of the canonical compressed encoding.
    const COMPRESSED_BYTES: usize;

    fn identity() -> Self;
    fn generator() -> Self;
    fn is_identity(&self) -> bool;
    fn double(&self) -> Self;
    /// Multi-scalar multiplication Σ s_i·P_i (Pippenger/Straus in the
    /// backend): variable time, for public scalars only.
    fn msm(points: &[Self], scalars: &[Self::Scalar]) -> Self;
    /// `self · s` in constant time (no branch or memory access depends on
    /// `s`): for every secret scalar — master secrets, key and encryption
    /// randomness, 1/z, signing keys. The default is the backend's `Mul`,
    /// which is constant time on BLS12-381 (blst's windowed
    /// multiplication) and on BLS24/BLS48 (our window in `miracl.rs`);
    /// BN254 overrides it (arkworks' `Mul` is double-and-add).
    fn mul_secret(&self, s: &Self::Scalar) -> Self {
        *self * *s
    }
    /// Σ s_i·P_i with secret s_i, in constant time: one [`Group::mul_secret`]
    /// per term (the backends' `msm` is variable time).
    fn msm_secret(points: &[Self], scalars: &[Self::Scalar]) -> Self {
        points
            .iter()
            .zip(scalars)
            .fold(Self::identity(), |acc, (p, s)| acc + p.mul_secret(s))
    }
    /// Σ s_i·P_i for public points and secret s_i: constant time in the
    /// scalars, and for more than a few terms several times faster than
    /// [`Group::msm_secret`] (one shared chain of doublings; see
    /// `fixed_base::straus`). The points' normalisation is variable time,
    /// so they must be public (hashes of attributes, public keys).
    fn msm_secret_scalars(points: &[Self], scalars: &[Self::Scalar]) -> Self {
        fixed_base::straus(points, scalars)
    }
    /// Sum of points (an MSM whose scalars are all one, without the scalars).
    fn sum(points: &[Self]) -> Self {
        let mut acc = Self::identity();
        for p in points {
            acc += *p;
        }
        acc
    }
    /// RFC 9380 hash-to-curve (random oracle) where the backend has it.
    fn hash_to_curve(msg: &[u8], dst: &[u8]) -> Self;
    /// Canonical compressed encoding.
    fn to_compressed(&self) -> Vec<u8>;
    /// Strict decoding: canonical, on the curve, in the prime-order subgroup.
    fn from_compressed(bytes: &[u8]) -> Result<Self, PointError> {
        let p = Self::from_compressed_unchecked(bytes)?;
        if !p.is_torsion_free() {
            return Err(PointError::NotInSubgroup(<Self as Element>::NAME));
        }
        Ok(p)
    }
    /// Decoding without the subgroup check: canonical and on the curve
    /// only, for a point that is checked later or whose cofactor part
    /// cannot matter (`wire::deferring_subgroup_checks`).
    fn from_compressed_unchecked(bytes: &[u8]) -> Result<Self, PointError>;
    /// Whether the point is in the prime-order subgroup.
    fn is_torsion_free(&self) -> bool;
    /// False only for the invalid result of an exceptional addition:
    /// miracl's complete formulas give (0 : 0 : 0) when a difference has
    /// order 2, which BLS48-581's E(F_p) has (points outside the subgroups
    /// only: `wire::deferring_subgroup_checks`).
    fn is_valid(&self) -> bool {
        true
    }
    /// Length of the canonical uncompressed encoding (x ‖ y).
    const UNCOMPRESSED_BYTES: usize;
    /// Canonical uncompressed encoding: decoding it takes no square root,
    /// so tables read one element at a time (a broadcast public key on
    /// disk) use it.
    fn to_uncompressed(&self) -> Vec<u8>;
    /// Strict decoding of [`Group::to_uncompressed`]: canonical, on the
    /// curve, in the prime-order subgroup.
    fn from_uncompressed(bytes: &[u8]) -> Result<Self, PointError>;
    /// Fixed-base table for `self` (precomputation pays off after a few
    /// multiplications by the same base).
    fn precompute(&self) -> FixedBaseTable<Self> {
        FixedBaseTable::new(*self)
    }
    /// Multiplication by a fixed base through its table. The counting
    /// backend overrides this to record a fixed-base exponentiation.
    fn mul_fixed(table: &FixedBaseTable<Self>, s: &Self::Scalar) -> Self {
        table.mul(s)
    }
    /// Many multiplications by one table, in affine form: `s_k·base` for
    /// every `s_k`. Backends may batch them (BN254: affine additions across
    /// the scalars sharing one inversion per window); the default is one
    /// [`Group::mul_fixed`] each and one batch normalisation.
    fn mul_fixed_batch(
        table: &FixedBaseTable<Self>,
        scalars: &[Self::Scalar],
    ) -> Vec<Self::Affine> {
        let pts: Vec<Self> = scalars.iter().map(|s| Self::mul_fixed(table, s)).collect();
        Self::to_affine_batch(&pts)
    }
    /// Converts many points to affine form with one field inversion.
    fn to_affine_batch(points: &[Self]) -> Vec<Self::Affine>;
    /// The point with this affine representation.
    fn from_affine(a: &Self::Affine) -> Self {
        Self::identity().add_affine(a)
    }
    /// Σ P_i over affine points. Backends override it with batched affine
    /// additions (a pairwise tree whose slopes share one field inversion per
    /// level, Montgomery's trick). **Variable time**: for public points only
    /// (broadcast public keys), never for secrets.
    fn sum_affine(points: &[Self::Affine]) -> Self {
        let mut acc = Self::identity();
        for p in points {
            acc = acc.add_affine(p);
        }
        acc
    }
    /// Σ P_i over affine points that are secret (a key's elements): one
    /// mixed addition each, no batched inversion, so no timing depends on
    /// the values beyond the backends' exceptional cases (P = ±Q, which
    /// random secrets hit with probability ~1/r).
    fn sum_affine_secret(points: &[Self::Affine]) -> Self {
        points
            .iter()
            .fold(Self::identity(), |acc, p| acc.add_affine(p))
    }
    /// Σ s_i·P_i for secret affine points P_i (a key's elements) and public
    /// scalars s_i: a bucket method of mixed additions, with no
    /// normalisation (whose batched inversion is variable time in the
    /// points), so only the schedule — fixed by the public scalars — and
    /// the backends' exceptional cases (as [`Group::sum_affine_secret`])
    /// vary.
    fn msm_secret_points(points: &[Self::Affine], scalars: &[Self::Scalar]) -> Self {
        let n = points.len().min(scalars.len());
        if n == 0 {
            return Self::identity();
        }
        // Window c ≈ (2/3)·log2 n: 2^c buckets against n additions a window.
        let c = ((usize::BITS - n.leading_zeros()) as usize * 2 / 3).clamp(2, 12);
        let limbs: Vec<_> = scalars[..n].iter().map(Scalar::to_le_limbs).collect();
        let digit = |l: &<Self::Scalar as Scalar>::Limbs, at: usize| -> usize {
            let l = l.as_ref();
            let (word, bit) = (at / 64, at % 64);
            let mut v = l.get(word).map_or(0, |w| w >> bit);
            if bit + c > 64 {
                v |= l.get(word + 1).map_or(0, |w| w << (64 - bit));
            }
            (v & ((1 << c) - 1)) as usize
        };
        let mut buckets = vec![Self::identity(); (1 << c) - 1];
        let mut acc = Self::identity();
        for w in (0..<Self::Scalar as Scalar>::BITS.div_ceil(c)).rev() {
            for _ in 0..c {
                acc = acc.double();
            }
            buckets.iter_mut().for_each(|b| *b = Self::identity());
            for (p, l) in points[..n].iter().zip(&limbs) {
                let d = digit(l, w * c);
                if d != 0 {
                    buckets[d - 1] = buckets[d - 1].add_affine(p);
                }
            }
            // Σ d·B_d as running sums.
            let (mut running, mut window) = (Self::identity(), Self::identity());
            for b in buckets.iter().rev() {
                running += *b;
                window += running;
            }
            acc += window;
        }
        acc
    }
    /// Mixed addition `self + a`.
    fn add_affine(&self, a: &Self::Affine) -> Self;
    fn neg_affine(a: &Self::Affine) -> Self::Affine;
    /// Constant-time selection: `b` if `choice` is set, else `a`.
    fn select_affine(a: &Self::Affine, b: &Self::Affine, choice: subtle::Choice) -> Self::Affine;
}

/// GT, the target group, written multiplicatively.
pub trait Target:
    Element + Copy + Clone + Eq + Debug + Send + Sync + 'static + Mul<Output = Self>
{
    type Scalar: Scalar;
    /// Length of the canonical encoding.
    const BYTES: usize;
    fn one() -> Self;
    fn is_one(&self) -> bool;
    /// Exponentiation in the cyclotomic subgroup (windowed, cyclotomic
    /// squarings; backends may use an endomorphism).
    fn pow(&self, s: &Self::Scalar) -> Self;
    /// Inverse; in the cyclotomic subgroup this is a conjugation.
    fn inverse(&self) -> Self;
    fn to_bytes(&self) -> Vec<u8>;
    /// Strict decoding: canonical and in the order-r subgroup of GT.
    fn from_bytes(bytes: &[u8]) -> Result<Self, PointError>;
    /// Constant-time equality.
    fn ct_eq(&self, other: &Self) -> bool;
}

/// A Type-III pairing group.
pub trait Curve: 'static + Copy + Clone + Debug + Send + Sync + Default {
    const ID: CurveId;
    /// Human-readable curve name.
    const NAME: &'static str;
    /// Estimated security level in bits (see [`CurveId::security_bits`]).
    const SECURITY_BITS: u32;
    /// Whether schemes may spread independent group operations over threads.
    /// The counting backend says no: its counters are per thread.
    const PARALLEL: bool = true;

    type Scalar: Scalar;
    type G1: Group<Scalar = Self::Scalar>;
    type G2: Group<Scalar = Self::Scalar>;
    type Gt: Target<Scalar = Self::Scalar>;
    /// A G2 point with its Miller-loop lines precomputed. Key elements in G2
    /// are prepared once per key and reused by every decryption.
    type G2Prepared: Clone + Send + Sync + Debug;
    /// The output of a Miller loop, before the final exponentiation.
    type MillerOutput: Copy + Debug;

    fn prepare(q: &Self::G2) -> Self::G2Prepared;
    /// Shared multi-Miller loop Π f_{Q_i}(P_i): one squaring chain for all
    /// pairs.
    fn multi_miller_loop(terms: &[(Self::G1, &Self::G2Prepared)]) -> Self::MillerOutput;
    fn final_exponentiation(f: &Self::MillerOutput) -> Self::Gt;

    /// Π e(P_i, Q_i) with one shared Miller loop and one final exponentiation.
    fn multi_pairing(terms: &[(Self::G1, &Self::G2Prepared)]) -> Self::Gt {
        Self::final_exponentiation(&Self::multi_miller_loop(terms))
    }

    fn pairing(p: &Self::G1, q: &Self::G2) -> Self::Gt {
        let prepared = Self::prepare(q);
        Self::multi_pairing(&[(*p, &prepared)])
    }
}

/// A G2 element with its Miller-loop lines, prepared on first use and
/// kept: keys pair their G2 elements at every decryption.
pub struct LinedG2<C: Curve> {
    pub point: C::G2,
    lines: std::sync::OnceLock<C::G2Prepared>,
}

impl<C: Curve> LinedG2<C> {
    pub fn new(point: C::G2) -> Self {
        LinedG2 {
            point,
            lines: std::sync::OnceLock::new(),
        }
    }
    pub fn lines(&self) -> &C::G2Prepared {
        self.lines.get_or_init(|| C::prepare(&self.point))
    }
}

impl<C: Curve> Clone for LinedG2<C> {
    fn clone(&self) -> Self {
        LinedG2 {
            point: self.point,
            lines: self.lines.clone(),
        }
    }
}

/// Maps `f` over `items`, on all cores when the curve allows it and there
/// is enough work, otherwise in order on this thread.
///
/// The items are cut into a few chunks per thread, and the chunks are run
/// through [`for_each_index`]: rayon's machinery is instantiated once for
/// the whole crate rather than once per call site and curve (it was over a
/// quarter of the crate's generated code).
pub fn par_map<C: Curve, T: Sync, U: Send>(
    items: &[T],
    f: impl Fn(&T) -> U + Sync + Send,
) -> Vec<U> {
    let threads = rayon::current_num_threads();
    if !(C::PARALLEL && items.len() >= 4 && threads > 1) {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(4 * threads);
    let parts: Vec<std::sync::Mutex<Vec<U>>> = items
        .chunks(chunk)
        .map(|_| std::sync::Mutex::new(Vec::new()))
        .collect();
    for_each_index(parts.len(), &|i| {
        let start = i * chunk;
        let out: Vec<U> = items[start..(start + chunk).min(items.len())]
            .iter()
            .map(&f)
            .collect();
        // Nothing panics while the lock is held, so it is never poisoned.
        *parts[i].lock().unwrap_or_else(|e| e.into_inner()) = out;
    });
    let mut all = Vec::with_capacity(items.len());
    for part in parts {
        all.extend(part.into_inner().unwrap_or_else(|e| e.into_inner()));
    }
    all
}

/// Runs `job(0)`, …, `job(n − 1)` on rayon's pool: the one instance of its
/// fork–join machinery that every [`par_map`] shares.
pub fn for_each_index(n: usize, job: &(dyn Fn(usize) + Sync)) {
    use rayon::prelude::*;
    (0..n).into_par_iter().for_each(job);
}

/// Σ c_i·P_i for public points and public c_i, with the ±1 coefficients
/// (LSSS entries of AND/OR gates, reconstruction coefficients of AND/OR
/// policies) done by additions and only the remaining terms in one
/// (variable-time) MSM.
pub fn lincomb<G: Group>(points: &[G], coeffs: &[G::Scalar]) -> G {
    lincomb_with(points, coeffs, G::msm)
}

/// [`lincomb`] for secret points (a key's elements) and public c_i: the
/// additions are the same, the remaining terms go through
/// [`Group::msm_secret`] (the backends' MSM normalises its points with a
/// variable-time inversion).
pub fn lincomb_secret_points<G: Group>(points: &[G], coeffs: &[G::Scalar]) -> G {
    lincomb_with(points, coeffs, G::msm_secret)
}

fn lincomb_with<G: Group>(
    points: &[G],
    coeffs: &[G::Scalar],
    msm: fn(&[G], &[G::Scalar]) -> G,
) -> G {
    let one = G::Scalar::one();
    let minus_one = -one;
    let mut plus = Vec::new();
    let mut minus = Vec::new();
    let mut gp = Vec::new();
    let mut gs = Vec::new();
    for (p, c) in points.iter().zip(coeffs) {
        if *c == one {
            plus.push(*p);
        } else if *c == minus_one {
            minus.push(*p);
        } else if !c.is_zero() {
            gp.push(*p);
            gs.push(*c);
        }
    }
    let mut acc = G::sum(&plus);
    if !minus.is_empty() {
        acc -= G::sum(&minus);
    }
    if !gp.is_empty() {
        acc += msm(&gp, &gs);
    }
    acc
}

/// Overwrites a value with `zero` and keeps the store from being optimised
/// away (`black_box` makes the overwritten value observable); used by the
/// `Drop` impls of secret keys, whose scalar and point types come from
/// backends that do not implement `Zeroize`.
pub fn wipe<T: Copy>(slot: &mut T, zero: T) {
    *slot = zero;
    core::hint::black_box(&*slot);
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// Test support: edge scalars (0, ±1, −2, the window borders, even and
/// odd) and `random` random ones.
#[cfg(test)]
pub(crate) fn test_scalars<S: Scalar>(rng: &mut rand_chacha::ChaCha20Rng, random: usize) -> Vec<S> {
    let mut cases: Vec<S> = [0u64, 1, 2, 3, 15, 16, 17, 31, 32, 33, 255, 256, 1 << 40]
        .iter()
        .map(|v| S::from_u64(*v))
        .collect();
    cases.push(-S::one());
    cases.push(-S::from_u64(2));
    cases.extend((0..random).map(|_| S::random(rng)));
    cases
}

/// Test support: a point of `G`'s curve whose order is prime to r (in the
/// cofactor part), or `None` where the cofactor is 1 (BN254's G1). Found by
/// moving one byte of x in a valid encoding until it decodes, unchecked,
/// outside the subgroup, then multiplied by r.
#[cfg(test)]
pub(crate) fn cofactor_point<G: Group>() -> Option<G> {
    let enc = G::generator().to_compressed();
    let mid = enc.len() / 2;
    let outside = (1..=255u8).find_map(|k| {
        let mut e = enc.clone();
        e[mid] ^= k;
        G::from_compressed_unchecked(&e)
            .ok()
            .filter(|p| !p.is_torsion_free())
    })?;
    // [r]P as [r − 1]P + P by double-and-add: a backend's `Mul` may use an
    // endomorphism that acts as a scalar only on the subgroup.
    let r_minus_1 = (-G::Scalar::one()).to_bytes();
    let mut acc = G::identity();
    for byte in r_minus_1.as_ref() {
        for bit in (0..8).rev() {
            acc = acc.double();
            if (byte >> bit) & 1 == 1 {
                acc += outside;
            }
        }
    }
    Some(acc + outside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    /// A point of the real G1 outside the subgroup pairs as its subgroup
    /// part: the pairing is a power of the reduced Tate pairing, which is
    /// trivial on the cofactor points rE(F_p) (what
    /// `wire::deferring_subgroup_checks` relies on). Its G2 counterpart
    /// has no such property and is refused by the strict decoder.
    fn cofactor_points<C: Curve>(rng: &mut rand_chacha::ChaCha20Rng) {
        let t2 = cofactor_point::<C::G2>().expect("G2 has a cofactor");
        assert!(!t2.is_torsion_free() && !t2.is_identity());
        assert_eq!(
            C::G2::from_compressed(&t2.to_compressed()),
            Err(PointError::NotInSubgroup("G2"))
        );
        assert_eq!(
            C::G2::from_compressed_unchecked(&t2.to_compressed()),
            Ok(t2)
        );
        let Some(t) = cofactor_point::<C::G1>() else {
            return; // cofactor 1: every point of the curve is in G1
        };
        assert!(!t.is_torsion_free() && !t.is_identity());
        assert_eq!(
            C::G1::from_compressed(&t.to_compressed()),
            Err(PointError::NotInSubgroup("G1"))
        );
        assert_eq!(C::G1::from_compressed_unchecked(&t.to_compressed()), Ok(t));
        let p = C::G1::generator() * C::Scalar::random(rng);
        let q = C::G2::generator() * C::Scalar::random(rng);
        let s = C::Scalar::random(rng);
        assert_eq!(C::pairing(&(p + t), &q), C::pairing(&p, &q));
        assert!(C::pairing(&t, &q).is_one());
        // Through a multiplication (an endomorphism may act on t as it
        // likes: the result's cofactor part still pairs to one) and the
        // shared loop over stored lines, as the schemes pair.
        assert_eq!(C::pairing(&((p + t) * s), &q), C::pairing(&(p * s), &q));
        let lines = C::prepare(&q);
        assert!(C::multi_pairing(&[(p + t, &lines), (-p, &lines), (t, &lines)]).is_one());
    }

    /// On a pool of several threads, every length (around the chunk
    /// borders too) maps in order, each item exactly once.
    #[test]
    fn par_map_keeps_order_on_many_threads() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(|| {
            for n in [0usize, 1, 3, 4, 5, 11, 12, 13, 24, 25, 100, 1001] {
                let items: Vec<u64> = (0..n as u64).collect();
                let calls = std::sync::atomic::AtomicUsize::new(0);
                let out = par_map::<Bls12, _, _>(&items, |x| {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    x * 3
                });
                assert_eq!(calls.into_inner(), n);
                assert_eq!(out, items.iter().map(|x| x * 3).collect::<Vec<_>>());
            }
        });
    }

    /// `mul_secret` and `msm_secret` agree with the backend's `Mul` and
    /// `msm` on both groups: edge scalars (0, ±1, the window borders, even
    /// and odd) and random ones, and the identity point.
    fn secret_multiplication<G: Group>(rng: &mut rand_chacha::ChaCha20Rng) {
        let base = G::generator() * G::Scalar::random(rng);
        let cases = test_scalars::<G::Scalar>(rng, 12);
        for s in &cases {
            assert_eq!(base.mul_secret(s), base * *s, "{s:?}");
            assert!(G::identity().mul_secret(s).is_identity());
        }
        let points: Vec<G> = (0..4)
            .map(|_| G::generator() * G::Scalar::random(rng))
            .collect();
        assert_eq!(
            G::msm_secret(&points, &cases[..4]),
            G::msm(&points, &cases[..4])
        );
        // Secret points and public scalars, or public points and secret
        // scalars: every window size's edge digits (the cases above) and an
        // identity point among them.
        for n in [0, 1, 4, cases.len()] {
            let mut pts: Vec<G> = (0..n)
                .map(|_| G::generator() * G::Scalar::random(rng))
                .collect();
            if n > 2 {
                pts[1] = G::identity();
            }
            let affine = G::to_affine_batch(&pts);
            let expected = G::msm(&pts, &cases[..n]);
            assert_eq!(
                G::msm_secret_points(&affine, &cases[..n]),
                expected,
                "{n} terms"
            );
            assert_eq!(
                G::msm_secret_scalars(&pts, &cases[..n]),
                expected,
                "{n} terms"
            );
        }
    }

    /// Both encodings round-trip, have their stated lengths, and refuse
    /// wrong lengths, flipped bits and points off the curve.
    fn encodings<G: Group>(rng: &mut rand_chacha::ChaCha20Rng) {
        for p in [
            G::identity(),
            G::generator(),
            G::generator() * G::Scalar::random(rng),
        ] {
            let c = p.to_compressed();
            let u = p.to_uncompressed();
            assert_eq!(
                (c.len(), u.len()),
                (G::COMPRESSED_BYTES, G::UNCOMPRESSED_BYTES)
            );
            assert_eq!(G::from_compressed(&c).unwrap(), p);
            assert_eq!(G::from_uncompressed(&u).unwrap(), p);
            assert!(G::from_uncompressed(&u[1..]).is_err());
            assert!(G::from_uncompressed(&c).is_err() || c.len() == u.len());
            if !p.is_identity() {
                // y changed in its last bit: off the curve (or not canonical).
                let mut bad = u.clone();
                *bad.last_mut().unwrap() ^= 1;
                assert!(G::from_uncompressed(&bad).is_err());
            }
        }
        assert!(G::from_uncompressed(&vec![0xff; G::UNCOMPRESSED_BYTES]).is_err());
    }

    fn curve<C: Curve>(seed: u64) {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        secret_multiplication::<C::G1>(&mut rng);
        secret_multiplication::<C::G2>(&mut rng);
        encodings::<C::G1>(&mut rng);
        encodings::<C::G2>(&mut rng);
        fixed_base::check_fixed_base::<C::G1>(&mut rng);
        fixed_base::check_fixed_base::<C::G2>(&mut rng);
        cofactor_points::<C>(&mut rng);
    }

    #[test]
    fn group_arithmetic_on_every_curve() {
        curve::<Bn254>(1);
        curve::<Bls12>(2);
        curve::<Bls24>(3);
        curve::<Bls48>(4);
    }
}
