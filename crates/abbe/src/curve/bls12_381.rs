//! BLS12-381 on `blstrs`/`blst` — the default curve (~120-bit security).
//!
//! Group arithmetic, MSM, hash-to-curve (RFC 9380 suites
//! `BLS12381G1_XMD:SHA-256_SSWU_RO_` / `BLS12381G2_XMD:SHA-256_SSWU_RO_`)
//! and point decoding come from `blstrs`. Two things are done here on blst's
//! C API, because neither crate offers them:
//!
//! * a **shared multi-Miller loop over precomputed lines**: blst's
//!   `blst_precompute_lines` stores the 68 line functions of a G2 point; our
//!   loop runs one Fp12 squaring per iteration for *all* pairs and, per pair,
//!   only scales the stored line by the G1 point (`post_line_by_Px2` in blst's
//!   `pairing.c`) and does a sparse multiplication
//!   (`blst_fp12_mul_by_xy00z0`). blst itself offers either a shared loop
//!   that recomputes lines (`blst_miller_loop_n`) or precomputed lines per
//!   pair (`blst_miller_loop_lines`), not both together.
//! * **GT** as its own type over `blst_fp12`, with exponentiation by
//!   cyclotomic squarings and the Frobenius endomorphism, and a 288-byte
//!   torus compression (Rubin–Silverberg) with a subgroup check on decoding.

use super::{wipe, Curve, CurveId, Group, GroupKind, PointError, Scalar as ScalarTrait, Target};
use blst::{
    blst_bendian_from_fp, blst_final_exp, blst_fp, blst_fp12, blst_fp12_conjugate,
    blst_fp12_cyclotomic_sqr, blst_fp12_frobenius_map, blst_fp12_in_group, blst_fp12_inverse,
    blst_fp12_is_equal, blst_fp12_is_one, blst_fp12_mul, blst_fp12_mul_by_xy00z0, blst_fp12_one,
    blst_fp12_sqr, blst_fp6, blst_fp_add, blst_fp_cneg, blst_fp_from_bendian, blst_fp_mul, blst_p1,
    blst_p1_affine, blst_p1s_mult_pippenger, blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p1s_to_affine, blst_p2, blst_p2_affine, blst_p2s_mult_pippenger,
    blst_p2s_mult_pippenger_scratch_sizeof, blst_p2s_to_affine, blst_precompute_lines, limb_t,
};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve as _};

/// Marker type for the BLS12-381 backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bls12;

pub type Fr = blstrs::Scalar;
pub type G1 = G1Projective;
pub type G2 = G2Projective;

impl ScalarTrait for Fr {
    type Repr = [u8; 32];
    type Limbs = [u64; 4];
    fn zero() -> Self {
        <Fr as Field>::ZERO
    }
    fn one() -> Self {
        <Fr as Field>::ONE
    }
    fn from_u64(v: u64) -> Self {
        Fr::from(v)
    }
    fn from_bytes_wide(bytes: &[u8]) -> Self {
        wide_reduce(bytes)
    }
    fn invert(&self) -> Option<Self> {
        Option::from(Field::invert(self))
    }
    fn is_zero(&self) -> bool {
        bool::from(Field::is_zero(self))
    }
    fn to_bytes(&self) -> [u8; 32] {
        self.to_bytes_be()
    }
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let arr: &[u8; 32] = bytes.try_into().ok()?;
        Option::from(Fr::from_bytes_be(arr))
    }
    fn to_le_limbs(&self) -> [u64; 4] {
        be32_to_le_limbs(&self.to_bytes_be())
    }
}

/// Little-endian limbs of a 32-byte big-endian integer.
pub(crate) fn be32_to_le_limbs(be: &[u8; 32]) -> [u64; 4] {
    let mut limbs = [0u64; 4];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&be[32 - 8 * (i + 1)..32 - 8 * i]);
        *limb = u64::from_be_bytes(w);
    }
    limbs
}

/// Reduces a big-endian integer of any length modulo r by Horner's rule
/// over 64-bit digits (backend independent, used by every curve).
pub(crate) fn wide_reduce<S: ScalarTrait>(bytes: &[u8]) -> S {
    let base = S::from_u64(1 << 32) * S::from_u64(1 << 32);
    let mut acc = S::zero();
    // A short leading digit first, so that any length works.
    let head = bytes.len() % 8;
    if head != 0 {
        let mut w = [0u8; 8];
        w[8 - head..].copy_from_slice(&bytes[..head]);
        acc = S::from_u64(u64::from_be_bytes(w));
    }
    for chunk in bytes[head..].chunks_exact(8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        acc = acc * base + S::from_u64(u64::from_be_bytes(w));
    }
    acc
}

macro_rules! impl_group {
    ($proj:ty, $aff:ty, $kind:expr, $len:expr, $name:expr) => {
        impl Group for $proj {
            type Scalar = Fr;
            type Affine = $aff;
            const KIND: GroupKind = $kind;
            const COMPRESSED_BYTES: usize = $len;

            fn identity() -> Self {
                <$proj as group::Group>::identity()
            }
            fn generator() -> Self {
                <$proj as group::Group>::generator()
            }
            fn is_identity(&self) -> bool {
                bool::from(<$proj as group::Group>::is_identity(self))
            }
            fn double(&self) -> Self {
                <$proj as group::Group>::double(self)
            }
            fn msm(points: &[Self], scalars: &[Fr]) -> Self {
                debug_assert_eq!(points.len(), scalars.len());
                let n = points.len().min(scalars.len());
                match n {
                    0 => <Self as Group>::identity(),
                    1 => points[0] * scalars[0],
                    // blst runs a large MSM on its own thread pool, which
                    // does not follow rayon's: one rayon thread (the lab,
                    // or a caller who asked for one) means one thread here.
                    _ if rayon::current_num_threads() == 1 => {
                        <$proj as OneThreadMsm>::msm_one_thread(&points[..n], &scalars[..n])
                    }
                    _ => <$proj>::multi_exp(&points[..n], &scalars[..n]),
                }
            }
            fn hash_to_curve(msg: &[u8], dst: &[u8]) -> Self {
                <$proj>::hash_to_curve(msg, dst, &[])
            }
            fn to_affine_batch(points: &[Self]) -> Vec<$aff> {
                let mut out = vec![<$aff>::identity(); points.len()];
                <$proj>::batch_normalize(points, &mut out);
                out
            }
            fn add_affine(&self, a: &$aff) -> Self {
                self + a
            }
            fn neg_affine(a: &$aff) -> $aff {
                -a
            }
            fn select_affine(a: &$aff, b: &$aff, choice: subtle::Choice) -> $aff {
                subtle::ConditionallySelectable::conditional_select(a, b, choice)
            }
            fn to_compressed(&self) -> Vec<u8> {
                self.to_affine().to_compressed().to_vec()
            }
            fn from_compressed_unchecked(bytes: &[u8]) -> Result<Self, PointError> {
                let arr: &[u8; $len] = bytes
                    .try_into()
                    .map_err(|_| PointError::Length($name, $len, bytes.len()))?;
                let unchecked: Option<$aff> = Option::from(<$aff>::from_compressed_unchecked(arr));
                let p = unchecked.ok_or(PointError::NotOnCurve($name))?;
                // Canonical: re-encoding must give the same bytes.
                if p.to_compressed() != *arr {
                    return Err(PointError::NotOnCurve($name));
                }
                Ok(p.into())
            }
            fn is_torsion_free(&self) -> bool {
                // Affine from a decoded point (z = 1) costs no inversion.
                bool::from(self.to_affine().is_torsion_free())
            }
            const UNCOMPRESSED_BYTES: usize = 2 * $len;
            fn to_uncompressed(&self) -> Vec<u8> {
                self.to_affine().to_uncompressed().to_vec()
            }
            fn from_uncompressed(bytes: &[u8]) -> Result<Self, PointError> {
                let arr: &[u8; 2 * $len] = bytes
                    .try_into()
                    .map_err(|_| PointError::Length($name, 2 * $len, bytes.len()))?;
                let unchecked: Option<$aff> =
                    Option::from(<$aff>::from_uncompressed_unchecked(arr));
                let p = unchecked.ok_or(PointError::NotOnCurve($name))?;
                if !bool::from(p.is_torsion_free()) {
                    return Err(PointError::NotInSubgroup($name));
                }
                if p.to_uncompressed() != *arr {
                    return Err(PointError::NotOnCurve($name));
                }
                Ok(p.into())
            }
        }
    };
}

/// Pippenger's MSM on the calling thread: blst's own single-thread path
/// (what `multi_exp` runs on a one-CPU machine), called directly.
trait OneThreadMsm: Sized {
    fn msm_one_thread(points: &[Self], scalars: &[Fr]) -> Self;
}

macro_rules! one_thread_msm {
    ($proj:ty, $raw:ty, $raw_aff:ty, $to_affine:ident, $sizeof:ident, $pippenger:ident, $from_raw:expr) => {
        impl OneThreadMsm for $proj {
            fn msm_one_thread(points: &[Self], scalars: &[Fr]) -> Self {
                let n = points.len().min(scalars.len());
                let raw: Vec<*const $raw> = points[..n]
                    .iter()
                    .map(|p| p.as_ref() as *const $raw)
                    .collect();
                let mut affine = vec![<$raw_aff>::default(); n];
                // SAFETY: `affine` has room for n points and `raw` holds n
                // pointers to live points (blst reads one pointer per point
                // while they are non-null).
                unsafe { $to_affine(affine.as_mut_ptr(), raw.as_ptr(), n) };
                let affine_ptrs: Vec<*const $raw_aff> =
                    affine.iter().map(|a| a as *const $raw_aff).collect();
                let mut bytes: Vec<[u8; 32]> =
                    scalars[..n].iter().map(|s| s.to_bytes_le()).collect();
                let byte_ptrs: Vec<*const u8> = bytes.iter().map(|b| b.as_ptr()).collect();
                // SAFETY: a pure size computation.
                let scratch_bytes = unsafe { $sizeof(n) };
                let mut scratch =
                    vec![0 as limb_t; scratch_bytes.div_ceil(std::mem::size_of::<limb_t>())];
                let mut ret = <$raw>::default();
                // SAFETY: n affine points and n little-endian 255-bit
                // scalars (32 bytes each) behind one pointer each, and the
                // scratch space blst asks for n points; all live until the
                // call returns.
                unsafe {
                    $pippenger(
                        &mut ret,
                        affine_ptrs.as_ptr(),
                        n,
                        byte_ptrs.as_ptr(),
                        255,
                        scratch.as_mut_ptr(),
                    )
                };
                bytes.iter_mut().for_each(|b| super::wipe_bytes(b));
                $from_raw(ret)
            }
        }
    };
}

one_thread_msm!(
    G1Projective,
    blst_p1,
    blst_p1_affine,
    blst_p1s_to_affine,
    blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p1s_mult_pippenger,
    |r: blst_p1| G1Projective::from_raw_unchecked(r.x.into(), r.y.into(), r.z.into())
);
one_thread_msm!(
    G2Projective,
    blst_p2,
    blst_p2_affine,
    blst_p2s_to_affine,
    blst_p2s_mult_pippenger_scratch_sizeof,
    blst_p2s_mult_pippenger,
    |r: blst_p2| G2Projective::from_raw_unchecked(r.x.into(), r.y.into(), r.z.into())
);

impl_group!(G1Projective, G1Affine, GroupKind::G1, 48, "G1");
impl_group!(G2Projective, G2Affine, GroupKind::G2, 96, "G2");
super::element!(scalar Fr);
super::element!(point G1Projective);
super::element!(point G2Projective);
super::element!(gt Gt);

/// A G2 point with its 68 Miller-loop lines precomputed by blst.
#[derive(Clone)]
pub struct G2Lines {
    lines: Box<[blst_fp6; 68]>,
    infinity: bool,
}

/// The lines of a key element are as secret as the element.
impl Drop for G2Lines {
    fn drop(&mut self) {
        for line in self.lines.iter_mut() {
            wipe(line, blst_fp6::default());
        }
    }
}

impl core::fmt::Debug for G2Lines {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.infinity {
            "G2Lines(infinity)"
        } else {
            "G2Lines(68 lines)"
        })
    }
}

impl G2Lines {
    pub fn new(q: &G2Projective) -> Self {
        let a = q.to_affine();
        let mut lines = Box::new([blst_fp6::default(); 68]);
        if bool::from(a.is_identity()) {
            return G2Lines {
                lines,
                infinity: true,
            };
        }
        let raw = blst_p2_affine {
            x: a.x().into(),
            y: a.y().into(),
        };
        // SAFETY: `lines` points to 68 writable `blst_fp6`, exactly what
        // `blst_precompute_lines` fills; `raw` is a valid affine point that
        // lives for the duration of the call.
        unsafe { blst_precompute_lines(lines.as_mut_ptr(), &raw) };
        G2Lines {
            lines,
            infinity: false,
        }
    }
}

/// The schedule of blst's Miller loop for |z| = 0xd201000000010000: the
/// first doubling line, then groups of (addition line, n doubling lines).
const LOOP_GROUPS: [(usize, usize); 5] = [(1, 2), (4, 3), (8, 9), (18, 32), (51, 16)];

fn fp12_one() -> blst_fp12 {
    // SAFETY: `blst_fp12_one` returns a pointer to a static constant.
    unsafe { *blst_fp12_one() }
}

/// (-2·x, 2·y) of an affine G1 point: the common factor blst moves out of
/// every line evaluation.
fn px2(p: &G1Affine) -> blst_p1_affine {
    let x: blst_fp = p.x().into();
    let y: blst_fp = p.y().into();
    let mut out = blst_p1_affine::default();
    // SAFETY: all pointers refer to valid, initialised `blst_fp` values on
    // the stack; blst allows `ret` to alias an input.
    unsafe {
        blst_fp_add(&mut out.x, &x, &x);
        blst_fp_cneg(&mut out.x, &out.x, true);
        blst_fp_add(&mut out.y, &y, &y);
    }
    out
}

/// Multiplies `acc` by one stored line evaluated at the G1 point.
#[inline(always)]
fn mul_by_line(acc: &mut blst_fp12, line: &blst_fp6, p: &blst_p1_affine) {
    let mut l = *line;
    // SAFETY: every pointer refers to a valid `blst_fp`/`blst_fp12`/`blst_fp6`
    // owned by this frame or borrowed immutably; blst permits `ret == a`.
    unsafe {
        blst_fp_mul(&mut l.fp2[1].fp[0], &line.fp2[1].fp[0], &p.x);
        blst_fp_mul(&mut l.fp2[1].fp[1], &line.fp2[1].fp[1], &p.x);
        blst_fp_mul(&mut l.fp2[2].fp[0], &line.fp2[2].fp[0], &p.y);
        blst_fp_mul(&mut l.fp2[2].fp[1], &line.fp2[2].fp[1], &p.y);
        let a: *mut blst_fp12 = acc;
        blst_fp12_mul_by_xy00z0(a, a, &l);
    }
}

/// The shared multi-Miller loop over precomputed lines.
pub(crate) fn shared_miller_loop(terms: &[(G1Projective, &G2Lines)]) -> blst_fp12 {
    let mut live: Vec<(G1Projective, &G2Lines)> = terms
        .iter()
        .filter(|(p, q)| !q.infinity && !Group::is_identity(p))
        .map(|(p, q)| (*p, *q))
        .collect();
    let mut ret = fp12_one();
    if live.is_empty() {
        return ret;
    }
    let proj: Vec<G1Projective> = live.iter().map(|(p, _)| *p).collect();
    let mut aff = vec![G1Affine::identity(); proj.len()];
    G1Projective::batch_normalize(&proj, &mut aff);
    let ps: Vec<blst_p1_affine> = aff.iter().map(px2).collect();
    let lines: Vec<&[blst_fp6; 68]> = live.drain(..).map(|(_, q)| &*q.lines).collect();

    for (p, l) in ps.iter().zip(&lines) {
        mul_by_line(&mut ret, &l[0], p);
    }
    for (start, n) in LOOP_GROUPS {
        for (p, l) in ps.iter().zip(&lines) {
            mul_by_line(&mut ret, &l[start], p);
        }
        for k in 1..=n {
            // SAFETY: in-place squaring of a valid fp12; blst allows aliasing.
            unsafe {
                let r: *mut blst_fp12 = &mut ret;
                blst_fp12_sqr(r, r);
            }
            for (p, l) in ps.iter().zip(&lines) {
                mul_by_line(&mut ret, &l[start + k], p);
            }
        }
    }
    // SAFETY: valid fp12, conjugated in place (z is negative).
    unsafe { blst_fp12_conjugate(&mut ret) };
    ret
}

/// An element of GT ⊂ Fp12* (the order-r subgroup), kept as blst's fp12.
#[derive(Clone, Copy)]
pub struct Gt(pub(crate) blst_fp12);

impl core::fmt::Debug for Gt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Gt(…)")
    }
}

impl PartialEq for Gt {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: both arguments are valid fp12 values.
        unsafe { blst_fp12_is_equal(&self.0, &other.0) }
    }
}
impl Eq for Gt {}

impl core::ops::Mul for Gt {
    type Output = Gt;
    fn mul(self, rhs: Gt) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: valid inputs, distinct output.
        unsafe { blst_fp12_mul(&mut out, &self.0, &rhs.0) };
        Gt(out)
    }
}

impl Gt {
    fn cyclotomic_sqr(&self) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: `self` is in the cyclotomic subgroup (all Gt values are),
        // which is the precondition of cyclotomic squaring.
        unsafe { blst_fp12_cyclotomic_sqr(&mut out, &self.0) };
        Gt(out)
    }
    fn conjugate(&self) -> Gt {
        let mut out = self.0;
        // SAFETY: in-place conjugation of a valid fp12.
        unsafe { blst_fp12_conjugate(&mut out) };
        Gt(out)
    }
    fn frobenius(&self, n: usize) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: valid input; n ∈ {1,2,3} as blst expects.
        unsafe { blst_fp12_frobenius_map(&mut out, &self.0, n) };
        Gt(out)
    }
    fn in_group(&self) -> bool {
        // SAFETY: valid fp12.
        unsafe { blst_fp12_in_group(&self.0) }
    }
    fn invert_full(&self) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: valid input, distinct output (inverse of 0 is 0 in blst).
        unsafe { blst_fp12_inverse(&mut out, &self.0) };
        Gt(out)
    }
}

/// |z| for BLS12-381; z = -0xd201000000010000 and p ≡ z (mod r), so the
/// Frobenius map raises GT elements to the power z.
const Z_ABS: u64 = 0xd201_0000_0001_0000;

fn fp_to_be(f: &blst_fp) -> [u8; 48] {
    let mut b = [0u8; 48];
    // SAFETY: `b` has room for 48 bytes.
    unsafe { blst_bendian_from_fp(b.as_mut_ptr(), f) };
    b
}

fn fp_from_be(b: &[u8]) -> Option<blst_fp> {
    let arr: &[u8; 48] = b.try_into().ok()?;
    let mut f = blst_fp::default();
    // SAFETY: `arr` holds 48 readable bytes.
    unsafe { blst_fp_from_bendian(&mut f, arr.as_ptr()) };
    // Canonical only: reject values >= p (blst reduces them silently).
    (fp_to_be(&f) == *arr).then_some(f)
}

/// The six Fp coefficients of the "c0" Fp6 half of an fp12, in order.
fn fp6_coeffs(x: &blst_fp6) -> [blst_fp; 6] {
    [
        x.fp2[0].fp[0],
        x.fp2[0].fp[1],
        x.fp2[1].fp[0],
        x.fp2[1].fp[1],
        x.fp2[2].fp[0],
        x.fp2[2].fp[1],
    ]
}

impl Target for Gt {
    type Scalar = Fr;
    /// Torus-compressed: one Fp6 element.
    const BYTES: usize = 288;

    fn one() -> Self {
        Gt(fp12_one())
    }
    fn is_one(&self) -> bool {
        // SAFETY: valid fp12.
        unsafe { blst_fp12_is_one(&self.0) }
    }
    /// f^s with s = d0 + d1·|z| + d2·|z|^2 + d3·|z|^3 (digits < 2^64):
    /// f^{|z|^k} = conj^k(frob^k(f)), so this is a 4-way simultaneous
    /// exponentiation with 64-bit exponents — 64 cyclotomic squarings
    /// instead of 255.
    fn pow(&self, s: &Fr) -> Self {
        let digits = z_digits(&s.to_le_limbs());
        let mut bases = [*self; 4];
        for (k, base) in bases.iter_mut().enumerate().skip(1) {
            let mut b = self.frobenius(k);
            if k % 2 == 1 {
                b = b.conjugate();
            }
            *base = b;
        }
        // Joint table of the 16 subset products.
        let mut table = [Gt::one(); 16];
        for mask in 1..16usize {
            let low = mask & mask.wrapping_neg();
            let idx = low.trailing_zeros() as usize;
            table[mask] = if mask == low {
                bases[idx]
            } else {
                table[mask ^ low] * bases[idx]
            };
        }
        let mut acc = Gt::one();
        for bit in (0..64).rev() {
            acc = acc.cyclotomic_sqr();
            let mut mask = 0usize;
            for (k, d) in digits.iter().enumerate() {
                mask |= (((d >> bit) & 1) as usize) << k;
            }
            // Constant-time selection over the 16 entries: the exponent may
            // be secret (the retrieval key z).
            let mut pick = Gt::one();
            for (i, entry) in table.iter().enumerate() {
                let choose = subtle::Choice::from((i == mask) as u8);
                pick = Gt(select_fp12(&pick.0, &entry.0, choose));
            }
            acc = acc * pick;
        }
        let mut d = digits;
        for x in d.iter_mut() {
            wipe(x, 0);
        }
        acc
    }
    fn inverse(&self) -> Self {
        self.conjugate()
    }
    fn to_bytes(&self) -> Vec<u8> {
        // b = (1 + c0) / c1 ∈ Fp6; the identity (c1 = 0) is encoded as b = 0,
        // which is never the compression of a group element (it decodes to -1).
        let mut out = Vec::with_capacity(288);
        if self.is_one() {
            out.resize(288, 0);
            return out;
        }
        let mut num = blst_fp12::default();
        num.fp6[0] = self.0.fp6[0];
        let one = fp12_one();
        // SAFETY: valid fp values; aliasing allowed.
        unsafe {
            let c: *mut blst_fp = &mut num.fp6[0].fp2[0].fp[0];
            blst_fp_add(c, c, &one.fp6[0].fp2[0].fp[0]);
        }
        let mut den = blst_fp12::default();
        den.fp6[0] = self.0.fp6[1];
        let b = Gt(num) * Gt(den).invert_full();
        for f in fp6_coeffs(&b.0.fp6[0]) {
            out.extend_from_slice(&fp_to_be(&f));
        }
        out
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, PointError> {
        if bytes.len() != 288 {
            return Err(PointError::Length("GT", 288, bytes.len()));
        }
        if bytes.iter().all(|&b| b == 0) {
            return Ok(Gt::one());
        }
        let mut b = blst_fp6::default();
        for (i, chunk) in bytes.chunks_exact(48).enumerate() {
            let f = fp_from_be(chunk).ok_or(PointError::NotOnCurve("GT"))?;
            b.fp2[i / 2].fp[i % 2] = f;
        }
        // f = (b + w) / (b - w)
        let one = fp12_one();
        let mut num = blst_fp12::default();
        num.fp6[0] = b;
        num.fp6[1].fp2[0].fp[0] = one.fp6[0].fp2[0].fp[0];
        let mut den = num;
        // SAFETY: valid fp; negation in place.
        unsafe {
            let c: *mut blst_fp = &mut den.fp6[1].fp2[0].fp[0];
            blst_fp_cneg(c, c, true);
        }
        let g = Gt(num) * Gt(den).invert_full();
        if !g.in_group() || g.is_one() {
            return Err(PointError::NotInSubgroup("GT"));
        }
        Ok(g)
    }
    fn ct_eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        let a = self.raw_bytes();
        let b = other.raw_bytes();
        bool::from(a[..].ct_eq(&b[..]))
    }
}

impl Gt {
    fn raw_bytes(&self) -> [u8; 576] {
        let mut out = [0u8; 576];
        // SAFETY: `out` has room for the 576-byte serialisation.
        unsafe { blst::blst_bendian_from_fp12(out.as_mut_ptr(), &self.0) };
        out
    }
}

fn select_fp12(a: &blst_fp12, b: &blst_fp12, choice: subtle::Choice) -> blst_fp12 {
    use subtle::ConditionallySelectable;
    let mut out = *a;
    for (i, six) in out.fp6.iter_mut().enumerate() {
        for (j, two) in six.fp2.iter_mut().enumerate() {
            for (k, fp) in two.fp.iter_mut().enumerate() {
                for (l, limb) in fp.l.iter_mut().enumerate() {
                    *limb = u64::conditional_select(limb, &b.fp6[i].fp2[j].fp[k].l[l], choice);
                }
            }
        }
    }
    out
}

/// Writes the 255-bit scalar s (little-endian limbs) in base |z|.
fn z_digits(limbs: &[u64; 4]) -> [u64; 4] {
    let mut n = *limbs;
    let mut out = [0u64; 4];
    for d in out.iter_mut() {
        // n = q·|z| + rem, by long division of the 256-bit n by a 64-bit
        // divisor, limb by limb from the top.
        let mut rem: u128 = 0;
        for limb in n.iter_mut().rev() {
            let cur = (rem << 64) | (*limb as u128);
            *limb = (cur / Z_ABS as u128) as u64;
            rem = cur % Z_ABS as u128;
        }
        *d = rem as u64;
    }
    out
}

impl Curve for Bls12 {
    const ID: CurveId = CurveId::Bls12_381;
    const NAME: &'static str = "bls12-381";
    const SECURITY_BITS: u32 = 120;

    type Scalar = Fr;
    type G1 = G1Projective;
    type G2 = G2Projective;
    type Gt = Gt;
    type G2Prepared = G2Lines;
    type MillerOutput = MillerValue;

    fn prepare(q: &G2Projective) -> G2Lines {
        G2Lines::new(q)
    }
    fn multi_miller_loop(terms: &[(G1Projective, &G2Lines)]) -> MillerValue {
        MillerValue(shared_miller_loop(terms))
    }
    fn final_exponentiation(f: &MillerValue) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: valid input, distinct output.
        unsafe { blst_final_exp(&mut out, &f.0) };
        Gt(out)
    }
}

/// The value of a Miller loop before the final exponentiation.
#[derive(Clone, Copy)]
pub struct MillerValue(pub(crate) blst_fp12);

impl core::fmt::Debug for MillerValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("MillerValue(…)")
    }
}

/// blst's own shared loop that recomputes lines (`blst_miller_loop_n`), as a
/// reference for tests and benchmarks.
pub fn reference_miller_loop_n(terms: &[(G1Projective, G2Projective)]) -> MillerValue {
    let p: Vec<blst_p1_affine> = terms
        .iter()
        .map(|(p, _)| {
            let a = p.to_affine();
            blst_p1_affine {
                x: a.x().into(),
                y: a.y().into(),
            }
        })
        .collect();
    let q: Vec<blst_p2_affine> = terms
        .iter()
        .map(|(_, q)| {
            let a = q.to_affine();
            blst_p2_affine {
                x: a.x().into(),
                y: a.y().into(),
            }
        })
        .collect();
    let pp: Vec<*const blst_p1_affine> = p.iter().map(|x| x as *const _).collect();
    let qp: Vec<*const blst_p2_affine> = q.iter().map(|x| x as *const _).collect();
    let mut out = blst_fp12::default();
    // SAFETY: `pp`/`qp` hold `n` pointers to valid affine points that outlive
    // the call.
    unsafe { blst::blst_miller_loop_n(&mut out, qp.as_ptr(), pp.as_ptr(), terms.len()) };
    MillerValue(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    /// The one-thread MSM (blst's C API, called directly) agrees with
    /// blstrs' `multi_exp` and with the sum of products, identity included.
    #[test]
    fn one_thread_msm_agrees_with_multi_exp() {
        fn check<G: Group<Scalar = Fr> + OneThreadMsm>(
            rng: &mut rand_chacha::ChaCha20Rng,
            multi_exp: fn(&[G], &[Fr]) -> G,
        ) {
            for n in [2, 3, 33, 100] {
                let mut points: Vec<G> = (0..n)
                    .map(|_| G::generator() * <Fr as ScalarTrait>::random(&mut *rng))
                    .collect();
                points[1] = G::identity();
                let scalars: Vec<Fr> = (0..n)
                    .map(|_| <Fr as ScalarTrait>::random(&mut *rng))
                    .collect();
                let one = G::msm_one_thread(&points, &scalars);
                assert!(one == multi_exp(&points, &scalars), "n = {n}");
                let sum = points
                    .iter()
                    .zip(&scalars)
                    .fold(G::identity(), |a, (p, s)| a + *p * *s);
                assert!(one == sum, "n = {n}");
            }
        }
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        check::<G1Projective>(&mut rng, G1Projective::multi_exp);
        check::<G2Projective>(&mut rng, G2Projective::multi_exp);
        // Group::msm takes this path under a one-thread rayon pool.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let points: Vec<G1Projective> = (0..40)
            .map(|_| G1Projective::generator() * <Fr as ScalarTrait>::random(&mut rng))
            .collect();
        let scalars: Vec<Fr> = (0..40)
            .map(|_| <Fr as ScalarTrait>::random(&mut rng))
            .collect();
        let one = pool.install(|| <G1Projective as Group>::msm(&points, &scalars));
        assert!(one == G1Projective::multi_exp(&points, &scalars));
    }

    fn rng() -> rand_chacha::ChaCha20Rng {
        rand_chacha::ChaCha20Rng::seed_from_u64(7)
    }

    #[test]
    fn shared_loop_matches_blst_miller_loop_n() {
        let mut r = rng();
        for n in [1usize, 2, 3, 10] {
            let pairs: Vec<(G1, G2)> = (0..n)
                .map(|_| {
                    (
                        <G1 as Group>::generator() * <Fr as ScalarTrait>::random(&mut r),
                        <G2 as Group>::generator() * <Fr as ScalarTrait>::random(&mut r),
                    )
                })
                .collect();
            let prepared: Vec<G2Lines> = pairs.iter().map(|(_, q)| G2Lines::new(q)).collect();
            let terms: Vec<(G1, &G2Lines)> = pairs
                .iter()
                .zip(&prepared)
                .map(|((p, _), l)| (*p, l))
                .collect();
            let ours = Bls12::final_exponentiation(&Bls12::multi_miller_loop(&terms));
            let theirs = Bls12::final_exponentiation(&reference_miller_loop_n(&pairs));
            assert_eq!(ours, theirs, "n = {n}");
        }
    }

    #[test]
    fn pairing_is_bilinear_and_skips_identity() {
        let mut r = rng();
        let (a, b) = (
            <Fr as ScalarTrait>::random(&mut r),
            <Fr as ScalarTrait>::random(&mut r),
        );
        let e = Bls12::pairing(
            &(<G1 as Group>::generator() * a),
            &(<G2 as Group>::generator() * b),
        );
        let e1 = Bls12::pairing(&<G1 as Group>::generator(), &<G2 as Group>::generator());
        assert_eq!(e, e1.pow(&(a * b)));
        assert!(Bls12::pairing(&<G1 as Group>::identity(), &<G2 as Group>::generator()).is_one());
        assert!(Bls12::pairing(&<G1 as Group>::generator(), &<G2 as Group>::identity()).is_one());
        assert!(!e1.is_one());
    }

    #[test]
    fn gt_pow_matches_square_and_multiply() {
        let mut r = rng();
        let g = Bls12::pairing(&<G1 as Group>::generator(), &<G2 as Group>::generator());
        for s in [
            Fr::from(0u64),
            Fr::from(1u64),
            Fr::from(Z_ABS),
            -Fr::from(1u64),
            <Fr as ScalarTrait>::random(&mut r),
        ] {
            // reference: plain square-and-multiply on bits
            let mut acc = <Gt as Target>::one();
            let limbs = s.to_le_limbs();
            for i in (0..256).rev() {
                acc = acc * acc;
                if (limbs[i / 64] >> (i % 64)) & 1 == 1 {
                    acc = acc * g;
                }
            }
            assert_eq!(g.pow(&s), acc);
        }
        let s = <Fr as ScalarTrait>::random(&mut r);
        assert!((g.pow(&s) * g.pow(&-s)).is_one());
        assert!((g * g.inverse()).is_one());
    }

    #[test]
    fn gt_encoding_round_trips_and_rejects_garbage() {
        let mut r = rng();
        let g = Bls12::pairing(&<G1 as Group>::generator(), &<G2 as Group>::generator())
            .pow(&<Fr as ScalarTrait>::random(&mut r));
        let bytes = g.to_bytes();
        assert_eq!(bytes.len(), 288);
        assert_eq!(<Gt as Target>::from_bytes(&bytes).unwrap(), g);
        assert_eq!(
            <Gt as Target>::from_bytes(&<Gt as Target>::one().to_bytes()).unwrap(),
            <Gt as Target>::one()
        );
        let mut bad = bytes.clone();
        bad[100] ^= 1;
        assert!(<Gt as Target>::from_bytes(&bad).is_err());
        assert!(<Gt as Target>::from_bytes(&bytes[..287]).is_err());
        assert!(<Gt as Target>::from_bytes(&[0xff; 288]).is_err());
    }

    #[test]
    fn point_decoding_is_strict() {
        let p = <G1 as Group>::generator() * Fr::from(5u64);
        let enc = Group::to_compressed(&p);
        assert_eq!(<G1 as Group>::from_compressed(&enc).unwrap(), p);
        assert!(<G1 as Group>::from_compressed(&enc[..47]).is_err());
        let mut bad = enc.clone();
        bad[5] ^= 0x40;
        assert!(<G1 as Group>::from_compressed(&bad).is_err());
        let q = <G2 as Group>::generator() * Fr::from(9u64);
        assert_eq!(
            <G2 as Group>::from_compressed(&Group::to_compressed(&q)).unwrap(),
            q
        );
        assert!(<G2 as Group>::from_compressed(&[0xaa; 96]).is_err());
    }

    #[test]
    fn wide_reduction_is_consistent() {
        let mut wide = [0u8; 64];
        wide[63] = 5;
        assert_eq!(Fr::from_bytes_wide(&wide), Fr::from(5u64));
        wide[55] = 1; // 2^64
        assert_eq!(
            Fr::from_bytes_wide(&wide),
            Fr::from(5u64) + Fr::from(1u64 << 32) * Fr::from(1u64 << 32)
        );
    }
}
