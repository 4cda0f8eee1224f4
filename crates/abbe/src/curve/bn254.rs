//! BN254 (alt_bn128) on arkworks — ~100-bit security, the curve of the
//! broadcast-encryption paper (chhatrapati22).
//!
//! Why arkworks: `halo2curves` 0.10 with `asm` pairs about a third faster,
//! but halo2curves' `Gt` is opaque
//! (no encoding or decoding, `Gt::generator()` is `unimplemented!()`), so
//! ciphertexts and transformed ciphertexts could not be serialised, and its
//! `asm` feature enables `std`, which turns on a leftover `println!` in the
//! G2 cofactor clearing and subgroup check. arkworks has prepared G2 lines,
//! validated deserialisation and no output; we run one shared Miller loop
//! over the stored lines (`shared_miller_loop`) and our own constant-time
//! multiplication for secret scalars (GLV on G1, `mul_ct_glv`).
//!
//! Hash-to-curve: arkworks has no RFC 9380 suite for BN254 (its G1 has
//! a = 0 and no isogeny is provided), so we hash by try-and-increment on
//! SHA-256 with domain separation, then clear the cofactor. The inputs hashed
//! are public (attribute names), so the data-dependent number of tries leaks
//! nothing secret; the output is a random-oracle point with unknown discrete
//! logarithm.

use super::{Curve, CurveId, Group, GroupKind, PointError, Scalar as ScalarTrait, Target};
use ark_bn254::{Bn254 as ArkBn254, Fq, Fq12, Fq2};
use ark_ec::short_weierstrass::{Affine, Projective};

// Named through the concrete configs (not `ark_bn254::G1Projective`, an
// associated-type projection that coherence cannot tell apart from G2's).
type G1Projective = Projective<ark_bn254::g1::Config>;
type G2Projective = Projective<ark_bn254::g2::Config>;
type G1Affine = Affine<ark_bn254::g1::Config>;
type G2Affine = Affine<ark_bn254::g2::Config>;
use ark_ec::pairing::{MillerLoopOutput, Pairing, PairingOutput};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{BigInteger, CyclotomicMultSubgroup, Field, One, PrimeField, Zero};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable};

/// Marker type for the BN254 backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bn254;

pub type Fr = ark_bn254::Fr;
super::element!(scalar Fr);
super::element!(point G1Projective);
super::element!(point G2Projective);
super::element!(gt Gt);
pub type G1 = G1Projective;
pub type G2 = G2Projective;

impl ScalarTrait for Fr {
    type Repr = [u8; 32];
    type Limbs = [u64; 4];
    fn zero() -> Self {
        <Fr as Zero>::zero()
    }
    fn one() -> Self {
        <Fr as One>::one()
    }
    fn from_u64(v: u64) -> Self {
        Fr::from(v)
    }
    fn from_bytes_wide(bytes: &[u8]) -> Self {
        super::bls12_381::wide_reduce(bytes)
    }
    /// Constant time (Fermat): scalars inverted are often secret (1/β,
    /// 1/z, (α − H(ID))⁻¹), and arkworks' `inverse` is a binary extended
    /// Euclid whose steps depend on the value.
    fn invert(&self) -> Option<Self> {
        (!Zero::is_zero(self)).then(|| self.ct_invert())
    }
    fn is_zero(&self) -> bool {
        Zero::is_zero(self)
    }
    fn to_bytes(&self) -> [u8; 32] {
        let be = self.into_bigint().to_bytes_be();
        let mut out = [0u8; 32];
        out[32 - be.len()..].copy_from_slice(&be);
        out
    }
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != 32 {
            return None;
        }
        let s = Fr::from_be_bytes_mod_order(bytes);
        (ScalarTrait::to_bytes(&s) == *bytes).then_some(s)
    }
    fn to_le_limbs(&self) -> [u64; 4] {
        self.into_bigint().0
    }
}

#[inline(always)]
fn select_fq(a: &Fq, b: &Fq, c: Choice) -> Fq {
    let mut out = *a;
    for (o, (x, y)) in out.0 .0.iter_mut().zip(a.0 .0.iter().zip(b.0 .0.iter())) {
        *o = u64::conditional_select(x, y, c);
    }
    out
}

#[inline(always)]
fn select_fq2(a: &Fq2, b: &Fq2, c: Choice) -> Fq2 {
    Fq2::new(select_fq(&a.c0, &b.c0, c), select_fq(&a.c1, &b.c1, c))
}

fn select_fq12(a: &Fq12, b: &Fq12, c: Choice) -> Fq12 {
    let mut out = *a;
    out.c0.c0 = select_fq2(&a.c0.c0, &b.c0.c0, c);
    out.c0.c1 = select_fq2(&a.c0.c1, &b.c0.c1, c);
    out.c0.c2 = select_fq2(&a.c0.c2, &b.c0.c2, c);
    out.c1.c0 = select_fq2(&a.c1.c0, &b.c1.c0, c);
    out.c1.c1 = select_fq2(&a.c1.c1, &b.c1.c1, c);
    out.c1.c2 = select_fq2(&a.c1.c2, &b.c1.c2, c);
    out
}

/// Hash-to-field by SHA-256 in counter mode, reduced from 64 bytes.
fn hash_fq(dst: &[u8], msg: &[u8], ctr: u32, idx: u8) -> Fq {
    let mut wide = [0u8; 64];
    for (half, chunk) in wide.chunks_exact_mut(32).enumerate() {
        let mut h = Sha256::new();
        h.update((dst.len() as u32).to_be_bytes());
        h.update(dst);
        h.update((msg.len() as u64).to_be_bytes());
        h.update(msg);
        h.update(ctr.to_be_bytes());
        h.update([idx, half as u8]);
        chunk.copy_from_slice(&h.finalize());
    }
    Fq::from_be_bytes_mod_order(&wide)
}

fn sign_bit(dst: &[u8], msg: &[u8], ctr: u32) -> bool {
    let mut h = Sha256::new();
    h.update(b"sign");
    h.update((dst.len() as u32).to_be_bytes());
    h.update(dst);
    h.update(msg);
    h.update(ctr.to_be_bytes());
    h.finalize()[0] & 1 == 1
}

/// Σ P_i by batched affine additions: pairs are added level by level, the
/// slopes of one level sharing a single field inversion (Montgomery's
/// trick), ≈ 6 field multiplications per addition against ≈ 11 for a mixed
/// projective addition. Pairs with equal x (doubling or P + (−P)) go to a
/// projective accumulator. Variable time: public points only. Large inputs
/// are split over the rayon threads.
fn sum_affine_batched<P: ark_ec::short_weierstrass::SWCurveConfig>(
    points: &[Affine<P>],
) -> Projective<P> {
    use rayon::prelude::*;
    const PAR: usize = 1 << 13;
    let threads = rayon::current_num_threads();
    if points.len() >= 2 * PAR && threads > 1 {
        let chunk = points.len().div_ceil(threads).max(PAR);
        return points
            .par_chunks(chunk)
            .map(sum_affine_serial::<P>)
            .reduce(Projective::<P>::zero, |a, b| a + b);
    }
    sum_affine_serial(points)
}

fn sum_affine_serial<P: ark_ec::short_weierstrass::SWCurveConfig>(
    points: &[Affine<P>],
) -> Projective<P> {
    let mut acc = Projective::<P>::zero();
    if points.len() < 32 {
        for p in points {
            acc += p;
        }
        return acc;
    }
    let mut cur: Vec<Affine<P>> = points.iter().filter(|p| !p.infinity).copied().collect();
    let mut den: Vec<P::BaseField> = Vec::with_capacity(cur.len() / 2);
    while cur.len() > 16 {
        if cur.len() % 2 == 1 {
            if let Some(p) = cur.pop() {
                acc += p;
            }
        }
        let half = cur.len() / 2;
        den.clear();
        den.extend((0..half).map(|k| cur[2 * k + 1].x - cur[2 * k].x));
        ark_ff::batch_inversion(&mut den);
        let mut w = 0;
        for k in 0..half {
            let (a, b) = (cur[2 * k], cur[2 * k + 1]);
            if a.x == b.x {
                acc += a;
                acc += b;
                continue;
            }
            let l = (b.y - a.y) * den[k];
            let x3 = l.square() - a.x - b.x;
            let y3 = l * (a.x - x3) - a.y;
            cur[w] = Affine::new_unchecked(x3, y3);
            w += 1;
        }
        cur.truncate(w);
    }
    for p in &cur {
        acc += p;
    }
    acc
}

/// Constant-time field inversion: Fermat's little theorem (a public
/// exponent) for Fq, conjugate / norm for Fq2. Fixed-base batches invert a
/// product that depends on secret scalars, so arkworks' variable-time
/// inversion is not used there.
trait CtInvert: Sized {
    fn ct_invert(&self) -> Self;
}

/// x^{p−2}: a square-and-multiply schedule fixed by the public exponent.
fn fermat_invert<F: PrimeField>(x: &F) -> F {
    let mut e = F::MODULUS;
    e.sub_with_borrow(&F::BigInt::from(2u64));
    x.pow(e)
}

impl CtInvert for Fq {
    fn ct_invert(&self) -> Fq {
        fermat_invert(self)
    }
}

impl CtInvert for Fr {
    fn ct_invert(&self) -> Fr {
        fermat_invert(self)
    }
}

impl CtInvert for Fq2 {
    fn ct_invert(&self) -> Fq2 {
        let n = self.norm().ct_invert();
        let mut c = *self;
        c.conjugate_in_place();
        c.mul_by_base_prime_field(&n)
    }
}

/// Constant-time table scans on raw limbs: OR in the entry whose mask is
/// all ones (one mask per entry, hidden from the optimiser), cheaper than a
/// `subtle` select per coordinate.
trait MaskedLimbs: Copy {
    fn zeroed() -> Self;
    fn or_masked(&mut self, other: &Self, mask: u64);
}

impl MaskedLimbs for Fq {
    fn zeroed() -> Fq {
        Fq::new_unchecked(ark_ff::BigInt([0; 4]))
    }
    #[inline(always)]
    fn or_masked(&mut self, other: &Fq, mask: u64) {
        for (a, b) in self.0 .0.iter_mut().zip(other.0 .0.iter()) {
            *a |= b & mask;
        }
    }
}

impl MaskedLimbs for Fq2 {
    fn zeroed() -> Fq2 {
        Fq2::new(Fq::zeroed(), Fq::zeroed())
    }
    #[inline(always)]
    fn or_masked(&mut self, other: &Fq2, mask: u64) {
        self.c0.or_masked(&other.c0, mask);
        self.c1.or_masked(&other.c1, mask);
    }
}

/// All ones when `c`, else zero, opaque to the optimiser.
#[inline(always)]
fn mask(c: bool) -> u64 {
    core::hint::black_box(0u64.wrapping_sub(c as u64))
}

/// `if c { b } else { a }` for affine points (neither at infinity), in
/// constant time.
#[inline(always)]
fn masked_pick<P>(a: &Affine<P>, b: &Affine<P>, c: bool) -> Affine<P>
where
    P: ark_ec::short_weierstrass::SWCurveConfig,
    P::BaseField: MaskedLimbs,
{
    let (mb, ma) = (mask(c), mask(!c));
    let mut x = P::BaseField::zeroed();
    let mut y = P::BaseField::zeroed();
    x.or_masked(&a.x, ma);
    x.or_masked(&b.x, mb);
    y.or_masked(&a.y, ma);
    y.or_masked(&b.y, mb);
    Affine::new_unchecked(x, y)
}

/// `p·k` in constant time: no branch and no table index depends on `k`
/// (arkworks' own `Mul` is double-and-add over the bits of `k`).
///
/// Regular signed window (Joye–Tunstall, CHES 2009): k is made odd (k, or
/// k + 1 with P subtracted at the end by a constant-time select), then
/// recoded into 63 odd digits d_i ∈ {±1, ±3, …, ±15} of base 16 and an odd
/// top digit; from the top, every window is four doublings and the
/// addition of ±(2j+1)·P, the entry taken by a scan of all eight and
/// negated by a masked select. Accumulator and entry coincide only with
/// negligible probability, so arkworks' exceptional-case branches are
/// never taken for secret-dependent reasons. (arkworks' field arithmetic
/// keeps a data-dependent final subtraction; no backend change here.)
fn mul_ct<P>(p: &Projective<P>, k: &Fr) -> Projective<P>
where
    P: ark_ec::short_weierstrass::SWCurveConfig,
    P::BaseField: MaskedLimbs,
{
    let mut limbs = k.into_bigint().0;
    let even = make_odd(&mut limbs);
    let mut digits = [0i8; 64];
    odd_digits(limbs, &mut digits);
    let table = odd_multiples(p);
    let mut acc = pick(&table, digits[63], 0);
    for &d in digits[..63].iter().rev() {
        for _ in 0..4 {
            acc = ark_ff::AdditiveGroup::double(&acc);
        }
        acc += pick(&table, d, 0);
    }
    minus_if(acc, p, even)
}

/// `p·k` in G1 with the GLV endomorphism φ(x, y) = (βx, y) = [λ]P, in
/// constant time: k = k1 + k2·λ (mod r) with |k1|, |k2| < 2^130 by a
/// rounded lattice reduction done with fixed-length integer arithmetic,
/// then [`mul_ct`]'s regular window over both halves at once — 33 windows
/// of four doublings instead of 64. Signs of k1 and k2 are applied by
/// masked negation of the picked entries.
fn mul_ct_glv(p: &G1Projective, k: &Fr) -> G1Projective {
    let (mut k1, neg1, mut k2, neg2) = glv_split(k);
    let even1 = make_odd(&mut k1);
    let even2 = make_odd(&mut k2);
    let (mut d1, mut d2) = ([0i8; 33], [0i8; 33]);
    odd_digits(k1, &mut d1);
    odd_digits(k2, &mut d2);
    let t1 = odd_multiples(p);
    let t2 = t1.map(|q| endomorphism(&q));
    let mut acc = pick(&t1, d1[32], neg1) + pick(&t2, d2[32], neg2);
    for i in (0..32).rev() {
        for _ in 0..4 {
            acc = ark_ff::AdditiveGroup::double(&acc);
        }
        acc += pick(&t1, d1[i], neg1);
        acc += pick(&t2, d2[i], neg2);
    }
    // Undo the +1 of an even half: subtract ±P or ±φ(P).
    let acc = minus_if(acc, &pick(&t1, 1, neg1), even1);
    minus_if(acc, &pick(&t2, 1, neg2), even2)
}

/// The constant-time multiplication of each group: GLV on G1, the plain
/// regular window on G2.
trait CtMul: Sized {
    fn ct_mul(&self, k: &Fr) -> Self;
}

impl CtMul for G1Projective {
    fn ct_mul(&self, k: &Fr) -> Self {
        mul_ct_glv(self, k)
    }
}

impl CtMul for G2Projective {
    fn ct_mul(&self, k: &Fr) -> Self {
        mul_ct(self, k)
    }
}

/// φ(x, y) = (βx, y) on Jacobian coordinates (x = X/Z²): [λ]P on G1.
fn endomorphism(p: &G1Projective) -> G1Projective {
    use ark_ec::scalar_mul::glv::GLVConfig;
    let mut q = *p;
    q.x *= <ark_bn254::g1::Config as GLVConfig>::ENDO_COEFFS[0];
    q
}

/// The lattice {(a, b) : a + b·λ ≡ 0 (mod r)} of BN254's G1 has the short
/// basis v1 = (A, −B), v2 = (B, C) (A·C + B² = r; arkworks'
/// `SCALAR_DECOMP_COEFFS`). Babai rounding of (k, 0) is c1 = ⌊k·C/r⌉,
/// c2 = ⌊k·B/r⌉, computed as ⌊(k·G_i + 2^255) / 2^256⌋ with
/// G1 = ⌊2^256·C/r⌋, G2 = ⌊2^256·B/r⌋ (off by at most one, which keeps
/// |k1|, |k2| < 2^129).
const GLV_A: [u64; 2] = [0x8211bbeb7d4f1128, 0x6f4d8248eeb859fc];
const GLV_B: u64 = 0x89d3256894d213e3;
const GLV_C: [u64; 2] = [0x0be4e1541221250b, 0x6f4d8248eeb859fd];
const GLV_G1: [u64; 3] = [0x5398fd0300ff6565, 0x4ccef014a773d2d2, 0x2];
const GLV_G2: [u64; 2] = [0xd91d232ec7e0b3d7, 0x2];

/// (|k1|, k1 < 0 as a mask, |k2|, k2 < 0 as a mask) with k = k1 + k2·λ.
fn glv_split(k: &Fr) -> ([u64; 4], u64, [u64; 4], u64) {
    let limbs = k.into_bigint().0;
    let round = |g: &[u64]| -> Fr {
        // k·g + 2^255, then the limbs from bit 256 up: fixed-length
        // schoolbook multiplication, no data-dependent branch.
        let mut prod = [0u64; 8];
        for (i, &a) in limbs.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &b) in g.iter().enumerate() {
                let t = prod[i + j] as u128 + (a as u128) * (b as u128) + carry;
                prod[i + j] = t as u64;
                carry = t >> 64;
            }
            let mut at = i + g.len();
            while at < 8 {
                let t = prod[at] as u128 + carry;
                prod[at] = t as u64;
                carry = t >> 64;
                at += 1;
            }
        }
        let mut carry = 1u128 << 63;
        for limb in prod.iter_mut().skip(3) {
            let t = *limb as u128 + carry;
            *limb = t as u64;
            carry = t >> 64;
        }
        Fr::from_bigint(ark_ff::BigInt([prod[4], prod[5], prod[6], 0]))
            .unwrap_or_else(<Fr as Zero>::zero)
    };
    let fr = |l: &[u64]| {
        let mut b = [0u64; 4];
        b[..l.len()].copy_from_slice(l);
        Fr::from_bigint(ark_ff::BigInt(b)).unwrap_or_else(<Fr as Zero>::zero)
    };
    let (c1, c2) = (round(&GLV_G1), round(&GLV_G2));
    let (a, b, c) = (fr(&GLV_A), fr(&[GLV_B]), fr(&GLV_C));
    let k1 = *k - c1 * a - c2 * b;
    let k2 = c1 * b - c2 * c;
    let signed = |x: Fr| -> ([u64; 4], u64) {
        // A small positive value has a zero top limb; a negative one is
        // r − |x|, whose top limb is r's.
        let pos = x.into_bigint().0;
        let neg = (-x).into_bigint().0;
        let m = mask(pos[3] != 0);
        let mut out = [0u64; 4];
        for i in 0..4 {
            out[i] = (pos[i] & !m) | (neg[i] & m);
        }
        (out, m)
    };
    let ((k1, n1), (k2, n2)) = (signed(k1), signed(k2));
    (k1, n1, k2, n2)
}

/// Makes an integer odd by adding one when it is even (no carry out for
/// the values here); returns whether it was even, as 0 or 1.
fn make_odd(limbs: &mut [u64; 4]) -> u64 {
    let even = 1 - (limbs[0] & 1);
    let mut carry = even;
    for l in limbs.iter_mut() {
        let (v, c) = l.overflowing_add(carry);
        *l = v;
        carry = u64::from(c);
    }
    even
}

/// Recodes an odd integer into `out.len() − 1` odd digits in [−15, 15] of
/// base 16 (d_i = (k mod 32) − 16, k ← (k − d_i)/16, which stays odd) and
/// the odd positive rest as the last digit (at most 15 when the integer is
/// below 2^(4·(out.len() − 1) + 3)).
fn odd_digits(mut limbs: [u64; 4], out: &mut [i8]) {
    let n = out.len() - 1;
    for d in out.iter_mut().take(n) {
        *d = (limbs[0] & 31) as i8 - 16;
        for i in 0..4 {
            let next = limbs.get(i + 1).copied().unwrap_or(0);
            limbs[i] = (limbs[i] >> 4) | (next << 60);
        }
        limbs[0] |= 1;
    }
    out[n] = limbs[0] as i8;
}

/// P, 3P, …, 15P.
fn odd_multiples<P>(p: &Projective<P>) -> [Projective<P>; 8]
where
    P: ark_ec::short_weierstrass::SWCurveConfig,
{
    let two = ark_ff::AdditiveGroup::double(p);
    let mut table = [*p; 8];
    for j in 1..8 {
        table[j] = table[j - 1] + two;
    }
    table
}

/// d·P for an odd digit d from the table of odd multiples, negated when
/// `flip` (a mask) is set: a scan of all eight entries and masked selects.
fn pick<P>(table: &[Projective<P>; 8], d: i8, flip: u64) -> Projective<P>
where
    P: ark_ec::short_weierstrass::SWCurveConfig,
    P::BaseField: MaskedLimbs,
{
    let mag = d.unsigned_abs() as usize;
    let (mut x, mut y, mut z) = (
        P::BaseField::zeroed(),
        P::BaseField::zeroed(),
        P::BaseField::zeroed(),
    );
    for (j, e) in table.iter().enumerate() {
        let m = mask(2 * j + 1 == mag);
        x.or_masked(&e.x, m);
        y.or_masked(&e.y, m);
        z.or_masked(&e.z, m);
    }
    let neg_y = -y;
    let mn = mask(d < 0) ^ flip;
    let mut y2 = P::BaseField::zeroed();
    y2.or_masked(&y, !mn);
    y2.or_masked(&neg_y, mn);
    Projective::new_unchecked(x, y2, z)
}

/// `acc − q` when `flag` is 1, else `acc`, by a constant-time select.
fn minus_if<P>(acc: Projective<P>, q: &Projective<P>, flag: u64) -> Projective<P>
where
    P: ark_ec::short_weierstrass::SWCurveConfig,
    P::BaseField: MaskedLimbs,
{
    let fixed = acc - q;
    let (m_fix, m_keep) = (mask(flag == 1), mask(flag == 0));
    let (mut x, mut y, mut z) = (
        P::BaseField::zeroed(),
        P::BaseField::zeroed(),
        P::BaseField::zeroed(),
    );
    for (src, m) in [(&acc, m_keep), (&fixed, m_fix)] {
        x.or_masked(&src.x, m);
        y.or_masked(&src.y, m);
        z.or_masked(&src.z, m);
    }
    Projective::new_unchecked(x, y, z)
}

/// Montgomery's trick with one constant-time inversion.
fn ct_batch_invert<F: Field + CtInvert>(v: &mut [F], prefix: &mut Vec<F>) {
    prefix.clear();
    let mut acc = F::one();
    for x in v.iter() {
        prefix.push(acc);
        acc *= x;
    }
    let mut inv = acc.ct_invert();
    for (x, pre) in v.iter_mut().zip(prefix.iter()).rev() {
        let next = inv * *x;
        *x = inv * pre;
        inv = next;
    }
}

/// Many fixed-base multiplications at once: the lanes' accumulators stay
/// affine and each window's additions share one inversion (≈ 6 field
/// multiplications per addition against ≈ 11 for a mixed projective one).
/// Constant time per lane as [`FixedBaseTable::mul`]: every window scans its
/// whole row and adds a point (the digits are odd, never zero). Accumulators
/// start at `offset`, a
/// hashed point of unknown discrete logarithm, subtracted at the end, so no
/// lane starts at the identity. Returns `None` if two added points share an
/// x-coordinate (probability ≈ 2^-250); the caller then takes the slow path.
fn mul_fixed_batch_affine<P>(
    rows: &[[Affine<P>; super::fixed_base::HALF]],
    digits: &[[i32; super::fixed_base::MAX_WINDOWS]],
    offset: Affine<P>,
) -> Option<Vec<Projective<P>>>
where
    P: ark_ec::short_weierstrass::SWCurveConfig,
    P::BaseField: CtInvert + MaskedLimbs,
{
    let lanes = digits.len();
    let mut acc = vec![offset; lanes];
    let mut add: Vec<Affine<P>> = Vec::with_capacity(lanes);
    let mut den: Vec<P::BaseField> = Vec::with_capacity(lanes);
    let mut prefix = Vec::with_capacity(lanes);
    for (i, row) in rows.iter().enumerate() {
        add.clear();
        den.clear();
        for d in digits {
            // The digits are odd: exactly one entry, (|d| − 1)/2, is taken.
            let d = d[i];
            let at = (d.unsigned_abs() as usize).saturating_sub(1) / 2;
            let mut x = P::BaseField::zeroed();
            let mut y = P::BaseField::zeroed();
            for (j, entry) in row.iter().enumerate() {
                let m = mask(j == at);
                x.or_masked(&entry.x, m);
                y.or_masked(&entry.y, m);
            }
            let pick = Affine::new_unchecked(x, y);
            add.push(masked_pick(&pick, &-pick, d < 0));
        }
        for (a, e) in acc.iter().zip(add.iter()) {
            den.push(e.x - a.x);
        }
        if den.iter().any(|d| d.is_zero()) {
            return None;
        }
        ct_batch_invert(&mut den, &mut prefix);
        for l in 0..lanes {
            let (a, e) = (acc[l], add[l]);
            let lambda: P::BaseField = (e.y - a.y) * den[l];
            let x3 = lambda.square() - a.x - e.x;
            let y3 = lambda * (a.x - x3) - a.y;
            acc[l] = Affine::new_unchecked(x3, y3);
        }
    }
    Some(
        acc.iter()
            .map(|a| Projective::<P>::from(*a) - offset)
            .collect(),
    )
}

macro_rules! impl_group {
    ($proj:ty, $aff:ty, $kind:expr, $len:expr, $name:expr, $select:expr, $hash:expr) => {
        impl Group for $proj {
            type Scalar = Fr;
            type Affine = $aff;
            const KIND: GroupKind = $kind;
            const COMPRESSED_BYTES: usize = $len;

            fn identity() -> Self {
                <$proj as Zero>::zero()
            }
            fn generator() -> Self {
                <$proj as PrimeGroup>::generator()
            }
            fn is_identity(&self) -> bool {
                Zero::is_zero(self)
            }
            fn double(&self) -> Self {
                ark_ff::AdditiveGroup::double(self)
            }
            fn mul_secret(&self, s: &Fr) -> Self {
                <Self as CtMul>::ct_mul(self, s)
            }
            fn msm(points: &[Self], scalars: &[Fr]) -> Self {
                let n = points.len().min(scalars.len());
                let bases = <$proj>::normalize_batch(&points[..n]);
                <$proj as VariableBaseMSM>::msm_unchecked(&bases, &scalars[..n])
            }
            fn hash_to_curve(msg: &[u8], dst: &[u8]) -> Self {
                let hash: fn(&[u8], &[u8]) -> $proj = $hash;
                hash(msg, dst)
            }
            fn to_compressed(&self) -> Vec<u8> {
                let mut out = Vec::with_capacity($len);
                // Serialising a valid point into a Vec cannot fail.
                let _ = self.into_affine().serialize_compressed(&mut out);
                out
            }
            fn from_compressed_unchecked(bytes: &[u8]) -> Result<Self, PointError> {
                if bytes.len() != $len {
                    return Err(PointError::Length($name, $len, bytes.len()));
                }
                let unchecked = <$aff>::deserialize_compressed_unchecked(bytes)
                    .map_err(|_| PointError::NotOnCurve($name))?;
                if !unchecked.is_on_curve() {
                    return Err(PointError::NotOnCurve($name));
                }
                // Canonical: re-encoding the affine point (no inversion)
                // must give the same bytes.
                let mut again = Vec::with_capacity($len);
                let _ = unchecked.serialize_compressed(&mut again);
                if again != bytes {
                    return Err(PointError::NotOnCurve($name));
                }
                Ok(unchecked.into())
            }
            fn is_torsion_free(&self) -> bool {
                self.into_affine()
                    .is_in_correct_subgroup_assuming_on_curve()
            }
            const UNCOMPRESSED_BYTES: usize = 2 * $len;
            fn to_uncompressed(&self) -> Vec<u8> {
                let mut out = Vec::with_capacity(2 * $len);
                // Serialising a valid point into a Vec cannot fail.
                let _ = self.into_affine().serialize_uncompressed(&mut out);
                out
            }
            fn from_uncompressed(bytes: &[u8]) -> Result<Self, PointError> {
                if bytes.len() != 2 * $len {
                    return Err(PointError::Length($name, 2 * $len, bytes.len()));
                }
                let unchecked = <$aff>::deserialize_uncompressed_unchecked(bytes)
                    .map_err(|_| PointError::NotOnCurve($name))?;
                if !unchecked.is_on_curve() {
                    return Err(PointError::NotOnCurve($name));
                }
                if !unchecked.is_in_correct_subgroup_assuming_on_curve() {
                    return Err(PointError::NotInSubgroup($name));
                }
                // Canonical: re-encoding the affine point (no inversion)
                // must give the same bytes.
                let mut again = Vec::with_capacity(2 * $len);
                let _ = unchecked.serialize_uncompressed(&mut again);
                if again != bytes {
                    return Err(PointError::NotOnCurve($name));
                }
                Ok(unchecked.into())
            }
            fn to_affine_batch(points: &[Self]) -> Vec<$aff> {
                <$proj>::normalize_batch(points)
            }
            fn mul_fixed_batch(table: &super::FixedBaseTable<Self>, scalars: &[Fr]) -> Vec<$aff> {
                let slow = || {
                    let pts: Vec<Self> = scalars.iter().map(|s| table.mul(s)).collect();
                    <$proj>::normalize_batch(&pts)
                };
                // Below a few dozen lanes the offset's hashing dominates.
                if scalars.len() < 32 {
                    return slow();
                }
                let mut digits: Vec<_> = scalars.iter().map(|s| table.digits(s)).collect();
                let offset = <Self as Group>::hash_to_curve(
                    b"fixed-base batch offset",
                    b"ABBE-V1-BN254-OFFSET",
                )
                .into_affine();
                let out = mul_fixed_batch_affine(table.rows(), &digits, offset);
                digits.iter_mut().flatten().for_each(|d| super::wipe(d, 0));
                match out {
                    Some(pts) => <$proj>::normalize_batch(&pts),
                    None => slow(),
                }
            }
            fn sum_affine(points: &[$aff]) -> Self {
                sum_affine_batched(points)
            }
            fn add_affine(&self, a: &$aff) -> Self {
                *self + a
            }
            fn neg_affine(a: &$aff) -> $aff {
                -*a
            }
            // Inlined: fixed-base tables scan every entry of a window with
            // it, and an out-of-line call copies each point through memory.
            #[inline(always)]
            fn select_affine(a: &$aff, b: &$aff, c: Choice) -> $aff {
                ($select)(a, b, c)
            }
        }
    };
}

impl_group!(
    G1Projective,
    G1Affine,
    GroupKind::G1,
    32,
    "G1",
    |a: &G1Affine, b: &G1Affine, c: Choice| {
        let mut out = *a;
        out.x = select_fq(&a.x, &b.x, c);
        out.y = select_fq(&a.y, &b.y, c);
        out.infinity = bool::from(Choice::conditional_select(
            &Choice::from(a.infinity as u8),
            &Choice::from(b.infinity as u8),
            c,
        ));
        out
    },
    |msg, dst| {
        for ctr in 0u32.. {
            let x = hash_fq(dst, msg, ctr, 0);
            if let Some(p) = G1Affine::get_point_from_x_unchecked(x, sign_bit(dst, msg, ctr)) {
                if !p.is_zero() {
                    return p.into();
                }
            }
        }
        unreachable!("a square is found within a few tries")
    }
);

impl_group!(
    G2Projective,
    G2Affine,
    GroupKind::G2,
    64,
    "G2",
    |a: &G2Affine, b: &G2Affine, c: Choice| {
        let mut out = *a;
        out.x = select_fq2(&a.x, &b.x, c);
        out.y = select_fq2(&a.y, &b.y, c);
        out.infinity = bool::from(Choice::conditional_select(
            &Choice::from(a.infinity as u8),
            &Choice::from(b.infinity as u8),
            c,
        ));
        out
    },
    |msg, dst| {
        for ctr in 0u32.. {
            let x = Fq2::new(hash_fq(dst, msg, ctr, 0), hash_fq(dst, msg, ctr, 1));
            if let Some(p) = G2Affine::get_point_from_x_unchecked(x, sign_bit(dst, msg, ctr)) {
                let q = p.clear_cofactor();
                if !q.is_zero() {
                    return q.into();
                }
            }
        }
        unreachable!("a square is found within a few tries")
    }
);

/// An element of GT ⊂ Fq12*.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gt(pub PairingOutput<ArkBn254>);

impl core::ops::Mul for Gt {
    type Output = Gt;
    fn mul(self, rhs: Gt) -> Gt {
        Gt(PairingOutput(self.0 .0 * rhs.0 .0))
    }
}

impl Target for Gt {
    type Scalar = Fr;
    /// Fq12 as twelve 32-byte coefficients.
    const BYTES: usize = 384;
    fn one() -> Self {
        Gt(PairingOutput(Fq12::one()))
    }
    fn is_one(&self) -> bool {
        self.0 .0.is_one()
    }
    /// Fixed 4-bit windows with cyclotomic squarings and a constant-time
    /// table scan: the exponent may be secret (the retrieval key z), so the
    /// sequence of operations does not depend on it.
    fn pow(&self, s: &Fr) -> Self {
        let base = self.0 .0;
        let mut table = [Fq12::one(); 16];
        for i in 1..16 {
            table[i] = table[i - 1] * base;
        }
        let limbs = ScalarTrait::to_le_limbs(s);
        let mut acc = Fq12::one();
        for w in (0..64).rev() {
            for _ in 0..4 {
                acc.cyclotomic_square_in_place();
            }
            let digit = ((limbs[w / 16] >> ((w % 16) * 4)) & 0xf) as usize;
            let mut pick = table[0];
            for (i, entry) in table.iter().enumerate() {
                pick = select_fq12(&pick, entry, Choice::from((i == digit) as u8));
            }
            acc *= pick;
        }
        Gt(PairingOutput(acc))
    }
    fn inverse(&self) -> Self {
        let mut f = self.0 .0;
        f.cyclotomic_inverse_in_place();
        Gt(PairingOutput(f))
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(384);
        let _ = self.0 .0.serialize_compressed(&mut out);
        out
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, PointError> {
        if bytes.len() != 384 {
            return Err(PointError::Length("GT", 384, bytes.len()));
        }
        let f = Fq12::deserialize_compressed_unchecked(bytes)
            .map_err(|_| PointError::NotOnCurve("GT"))?;
        let g = Gt(PairingOutput(f));
        if g.to_bytes() != bytes {
            return Err(PointError::NotOnCurve("GT"));
        }
        if f.is_zero() || !f.pow(Fr::MODULUS).is_one() {
            return Err(PointError::NotInSubgroup("GT"));
        }
        Ok(g)
    }
    fn ct_eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.to_bytes().ct_eq(&other.to_bytes()))
    }
}

/// A G2 point with its line coefficients precomputed.
#[derive(Clone)]
pub struct G2Lines(pub <ArkBn254 as Pairing>::G2Prepared);

/// The lines of a key element are as secret as the element: not printed.
impl core::fmt::Debug for G2Lines {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "G2Lines({} lines)", self.0.ell_coeffs.len())
    }
}

/// The lines of a key element are as secret as the element.
impl Drop for G2Lines {
    fn drop(&mut self) {
        for c in self.0.ell_coeffs.iter_mut() {
            super::wipe(c, (Fq2::zero(), Fq2::zero(), Fq2::zero()));
        }
    }
}

/// Π f_{Q_i}(P_i) over stored lines with **one** squaring chain for all
/// pairs. (arkworks' `multi_miller_loop` gives every chunk of four pairs its
/// own accumulator, so N pairs pay N/4 squaring chains, and it clones each
/// prepared point.) The same steps as arkworks' BN loop: per bit of the
/// ate loop count a squaring, one doubling line per pair, an addition line
/// per pair on non-zero digits; then the two Frobenius lines. BN254 has a
/// D-type twist: each line is c0·y_P + c1·x_P·w + c2·w·v, `mul_by_034`.
fn shared_miller_loop(terms: &[(G1Projective, &G2Lines)]) -> Fq12 {
    use ark_ec::bn::BnConfig;
    type Cfg = ark_bn254::Config;
    let ps: Vec<G1Projective> = terms.iter().map(|(p, _)| *p).collect();
    let ps = G1Projective::normalize_batch(&ps);
    type Line = (Fq2, Fq2, Fq2);
    let mut pairs: Vec<(&G1Affine, core::slice::Iter<'_, Line>)> = ps
        .iter()
        .zip(terms)
        .filter(|(p, (_, q))| !p.is_zero() && !q.0.infinity)
        .map(|(p, (_, q))| (p, q.0.ell_coeffs.iter()))
        .collect();
    let ell = |f: &mut Fq12, c: Option<&Line>, p: &G1Affine| {
        // Lines are prepared for the full loop; a short list (impossible
        // for a prepared point) would only leave the value wrong.
        if let Some((c0, c1, c2)) = c {
            let (mut c0, mut c1) = (*c0, *c1);
            c0.mul_assign_by_fp(&p.y);
            c1.mul_assign_by_fp(&p.x);
            f.mul_by_034(&c0, &c1, c2);
        }
    };
    let bits = <Cfg as BnConfig>::ATE_LOOP_COUNT;
    let mut f = Fq12::one();
    for i in (1..bits.len()).rev() {
        if i != bits.len() - 1 {
            f.square_in_place();
        }
        for (p, coeffs) in pairs.iter_mut() {
            ell(&mut f, coeffs.next(), p);
        }
        if bits[i - 1] != 0 {
            for (p, coeffs) in pairs.iter_mut() {
                ell(&mut f, coeffs.next(), p);
            }
        }
    }
    if <Cfg as BnConfig>::X_IS_NEGATIVE {
        f.cyclotomic_inverse_in_place();
    }
    for _ in 0..2 {
        for (p, coeffs) in pairs.iter_mut() {
            ell(&mut f, coeffs.next(), p);
        }
    }
    f
}

impl Curve for Bn254 {
    const ID: CurveId = CurveId::Bn254;
    const NAME: &'static str = "bn254";
    const SECURITY_BITS: u32 = 100;

    type Scalar = Fr;
    type G1 = G1Projective;
    type G2 = G2Projective;
    type Gt = Gt;
    type G2Prepared = G2Lines;
    type MillerOutput = MillerLoopOutput<ArkBn254>;

    fn prepare(q: &G2Projective) -> G2Lines {
        G2Lines(q.into_affine().into())
    }
    fn multi_miller_loop(terms: &[(G1Projective, &G2Lines)]) -> Self::MillerOutput {
        MillerLoopOutput(shared_miller_loop(terms))
    }
    fn final_exponentiation(f: &Self::MillerOutput) -> Gt {
        // The Miller loop output is never zero for valid inputs; map the
        // impossible `None` to the identity rather than panicking.
        Gt(ArkBn254::final_exponentiation(*f).unwrap_or(PairingOutput(Fq12::one())))
    }
}

#[cfg(test)]
mod tests {
    /// Our shared loop equals arkworks' for 0..9 pairs, the identity
    /// among them.
    #[test]
    fn shared_miller_loop_matches_arkworks() {
        use super::*;
        use rand_chacha::rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        for n in [0usize, 1, 2, 5, 9] {
            let mut ps: Vec<G1Projective> = (0..n)
                .map(|_| {
                    <G1Projective as Group>::generator() * <Fr as ScalarTrait>::random(&mut rng)
                })
                .collect();
            let qs: Vec<G2Lines> = (0..n)
                .map(|i| {
                    let q = <G2Projective as Group>::generator()
                        * <Fr as ScalarTrait>::random(&mut rng);
                    Bn254::prepare(&if i == 3 { G2Projective::zero() } else { q })
                })
                .collect();
            if n > 1 {
                ps[1] = G1Projective::zero();
            }
            let terms: Vec<(G1Projective, &G2Lines)> = ps.iter().copied().zip(&qs).collect();
            let ours = Bn254::final_exponentiation(&Bn254::multi_miller_loop(&terms));
            let theirs = ArkBn254::multi_pairing(
                G1Projective::normalize_batch(&ps),
                qs.iter().map(|q| q.0.clone()),
            );
            assert_eq!(ours.0, theirs, "{n} pairs");
        }
    }

    /// The GLV split recombines to k with both halves below 2^130, and
    /// the GLV multiplication equals arkworks' on edge and random scalars.
    #[test]
    fn glv_multiplication() {
        use super::*;
        use rand_chacha::rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        use ark_ec::scalar_mul::glv::GLVConfig;
        let lambda = <ark_bn254::g1::Config as GLVConfig>::LAMBDA;
        let mut ks: Vec<Fr> = [0u64, 1, 2, 3, 15, 16, 17, 1 << 63]
            .iter()
            .map(|v| Fr::from(*v))
            .collect();
        ks.extend([
            -<Fr as One>::one(),
            -Fr::from(2u64),
            lambda,
            -lambda,
            lambda + <Fr as One>::one(),
        ]);
        ks.extend((0..200).map(|_| <Fr as ScalarTrait>::random(&mut rng)));
        let p = <G1Projective as Group>::generator() * <Fr as ScalarTrait>::random(&mut rng);
        assert_eq!(endomorphism(&p), p * lambda);
        for k in &ks {
            let (a, na, b, nb) = glv_split(k);
            assert!(
                a[2] >> 2 == 0 && a[3] == 0 && b[2] >> 2 == 0 && b[3] == 0,
                "{k}"
            );
            let as_fr = |l: [u64; 4], neg: u64| {
                let v = Fr::from_bigint(ark_ff::BigInt(l)).unwrap();
                if neg != 0 {
                    -v
                } else {
                    v
                }
            };
            assert_eq!(as_fr(a, na) + as_fr(b, nb) * lambda, *k);
            assert_eq!(mul_ct_glv(&p, k), p * *k, "{k}");
        }
        assert!(mul_ct_glv(&G1Projective::zero(), &ks[9]).is_zero());
    }

    fn batch_matches_single<G: crate::curve::Group<Scalar = super::Fr>>() {
        use crate::curve::Scalar;
        use rand_chacha::rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
        let base = G::generator() * Fr::random(&mut rng);
        let table = base.precompute();
        let mut scalars: Vec<Fr> = (0..200).map(|_| Fr::random(&mut rng)).collect();
        for special in [0u64, 1, 2, 15, 16, 17, 31, 32, 33, 1 << 40] {
            scalars.push(Fr::from(special));
            scalars.push(-Fr::from(special));
        }
        let batch = G::mul_fixed_batch(&table, &scalars);
        assert_eq!(batch.len(), scalars.len());
        for (s, b) in scalars.iter().zip(&batch) {
            assert_eq!(G::from_affine(b), base * *s, "scalar {s}");
        }
        // Small batches take the single path.
        let few = G::mul_fixed_batch(&table, &scalars[..5]);
        for (s, b) in scalars.iter().zip(&few) {
            assert_eq!(G::from_affine(b), base * *s);
        }
    }

    #[test]
    fn fixed_base_batches_match_single_multiplications() {
        batch_matches_single::<G1Projective>();
        batch_matches_single::<G2Projective>();
    }

    #[test]
    fn constant_time_inversions_invert() {
        use ark_ff::UniformRand;
        use rand_chacha::rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        for _ in 0..20 {
            let a = Fq::rand(&mut rng);
            assert_eq!(a.ct_invert() * a, Fq::one());
            let b = Fq2::rand(&mut rng);
            assert_eq!(b.ct_invert() * b, Fq2::one());
            let r = Fr::rand(&mut rng);
            assert_eq!(ScalarTrait::invert(&r), r.inverse());
        }
        let one = <Fr as One>::one();
        for r in [one, -one, Fr::from(2u64)] {
            assert_eq!(ScalarTrait::invert(&r), r.inverse());
        }
        assert_eq!(ScalarTrait::invert(&<Fr as Zero>::zero()), None);
        let mut v: Vec<Fq> = (1..50u64).map(Fq::from).collect();
        let orig = v.clone();
        ct_batch_invert(&mut v, &mut Vec::new());
        for (a, b) in orig.iter().zip(&v) {
            assert_eq!(*a * b, Fq::one());
        }
    }

    #[test]
    fn batched_affine_sum_matches_plain_sum() {
        use crate::curve::Group;
        let g = <G1Projective as Group>::generator();
        for n in [0usize, 1, 31, 32, 33, 100, 1000, 20_000, 40_001] {
            let mut pts: Vec<G1Projective> =
                (1..=n as u64).map(|k| g * Fr::from(k % 97 + 1)).collect();
            if n > 40 {
                pts[3] = pts[2]; // a doubling
                pts[5] = -pts[4]; // P + (−P)
                pts[7] = G1Projective::zero();
            }
            let aff = G1Projective::normalize_batch(&pts);
            let want = pts.iter().fold(G1Projective::zero(), |a, b| a + b);
            assert_eq!(<G1Projective as Group>::sum_affine(&aff), want, "n = {n}");
        }
    }
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn pairing_is_bilinear() {
        let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let (a, b) = (
            <Fr as ScalarTrait>::random(&mut r),
            <Fr as ScalarTrait>::random(&mut r),
        );
        let e = Bn254::pairing(
            &(<G1 as Group>::generator() * a),
            &(<G2 as Group>::generator() * b),
        );
        let e1 = Bn254::pairing(&<G1 as Group>::generator(), &<G2 as Group>::generator());
        assert_eq!(e, e1.pow(&(a * b)));
        assert!((e * e.inverse()).is_one());
        for x in [
            Fr::from(0u64),
            Fr::from(1u64),
            Fr::from(16u64),
            -Fr::from(1u64),
            a,
        ] {
            assert_eq!(e1.pow(&x).0 .0, e1.0 .0.cyclotomic_exp(x.into_bigint()));
        }
        let bytes = e.to_bytes();
        assert_eq!(Gt::from_bytes(&bytes).unwrap(), e);
        let mut bad = bytes.clone();
        bad[7] ^= 1;
        assert!(Gt::from_bytes(&bad).is_err());
    }

    #[test]
    fn hash_and_decode() {
        let h = <G2 as Group>::hash_to_curve(b"doctor", b"abbe-test");
        assert!(!Group::is_identity(&h));
        assert_eq!(
            <G2 as Group>::from_compressed(&Group::to_compressed(&h)).unwrap(),
            h
        );
        let g = <G1 as Group>::hash_to_curve(b"doctor", b"abbe-test");
        assert_eq!(
            <G1 as Group>::from_compressed(&Group::to_compressed(&g)).unwrap(),
            g
        );
        assert_ne!(g, <G1 as Group>::hash_to_curve(b"nurse", b"abbe-test"));
        assert!(<G2 as Group>::from_compressed(&[0x17; 64]).is_err());
    }

    #[test]
    fn scalar_bytes_are_canonical() {
        let s = Fr::from(12345u64);
        let b = ScalarTrait::to_bytes(&s);
        assert_eq!(<Fr as ScalarTrait>::from_bytes(&b), Some(s));
        assert_eq!(<Fr as ScalarTrait>::from_bytes(&[0xff; 32]), None);
    }
}
