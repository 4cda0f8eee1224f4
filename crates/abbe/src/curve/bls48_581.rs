//! BLS48-581 on `miracl_core` — the curve of security level 256.
//!
//! * **Curve**: the Barreto–Lynn–Scott curve of embedding degree 48 with
//!   t = −1 + 2⁷ − 2¹⁰ − 2³⁰ − 2³² (x = −0x140000381 in miracl), p of 581
//!   bits, r = t¹⁶ − t⁸ + 1 of 518 bits; E: y² = x³ + 1 over Fp, G2 on the
//!   D-type sextic twist y² = x³ − 1/w over Fp8. Parameters: the IRTF CFRG
//!   pairing-friendly-curves draft (draft-irtf-cfrg-pairing-friendly-curves-11,
//!   §4.3 "For 256-bit Security", BLS48_581, from Kiyomura–Inoue–Kawahara–
//!   Yasuda–Takagi–Kobayashi, DOI 10.1007/978-3-319-61204-1_4), the same
//!   curve as MIRACL Core's `bls48581` module; the tests check r.
//! * **Security**: 256 bits: the CFRG draft selects BLS48_581 for the 256-bit
//!   level, categorising curves after Barbulescu–Duquesne (J. Cryptology
//!   2019, DOI 10.1007/s00145-018-9280-5).
//! * **Groups and sizes**: G1 ⊂ E(Fp), compressed 74 bytes (0x02|sign(y),
//!   x); G2 ⊂ E'(Fp8), compressed 585 bytes; GT ⊂ Fp48*, 3504 bytes
//!   (48 Fp coefficients, uncompressed: miracl 2.7's `FP48::tobytes`
//!   panics — `FP16::tobytes` sizes its buffer for an FP4 — so GT is
//!   serialised here FP8 by FP8); scalars 65 bytes big-endian.
//! * **Constant time / pairing / hash-to-curve**: as for BLS24-479 (see
//!   [`super::bls24_479`]), with `pair8` (36 packed lines per key element),
//!   SHA-512, k = 256 (L = 105 bytes per Fp element) and 16 base-|x| digits
//!   in G2 and GT. The twist's b' = b/i is applied with a cached 1/i
//!   (miracl's `FP8::div_i` inverts a constant on every call).

use miracl_core::bls48581::ecp8::ECP8 as G2Point;
use miracl_core::bls48581::fp16::FP16 as LineField;
use miracl_core::bls48581::fp2::FP2;
use miracl_core::bls48581::fp4::FP4;
use miracl_core::bls48581::fp48::FP48 as GtField;
use miracl_core::bls48581::fp8::FP8 as G2Field;
use miracl_core::bls48581::pair8 as pairing;

super::miracl::impl_fld!(G2Field, |x| {
    // b' = b/i (D-type twist): 3b' = 3b/i.
    x.imul(3 * rom::CURVE_B_I);
    x.norm();
    x = div_i(&x);
});

/// x/i in Fp8, as miracl's `FP8::div_i` (→ `FP4::div_i` → `FP2::div_ip`)
/// computes it, but with the Fp2 constant 1/(2^QNRI + √−1) inverted once:
/// miracl inverts it on every call, which made each G2 addition cost two
/// Fp2 inversions.
fn div_i(x: &G2Field) -> G2Field {
    use miracl_core::bls48581::fp;
    use std::sync::OnceLock;
    static QNR_INVERSE: OnceLock<FP2> = OnceLock::new();
    let z = QNR_INVERSE.get_or_init(|| {
        let mut z = FP2::new_ints(1 << fp::QNRI, 1);
        z.inverse(None);
        z
    });
    let positive = fp::TOWER == fp::POSITOWER;
    let (a, b) = (x.geta(), x.getb());
    // FP4::div_i of a: (a0, a1) ↦ ±(a1, a0/(2^QNRI + √−1)).
    let mut u0 = a.geta();
    u0.norm();
    u0.mul(z);
    if positive {
        u0.neg();
        u0.norm();
    }
    let mut u = FP4::new_fp2s(&a.getb(), &u0);
    if positive {
        u.neg();
        u.norm();
    }
    let mut out = G2Field::new_fp4s(&b, &u);
    if positive {
        out.neg();
        out.norm();
    }
    out
}

/// ψ = φ⁻¹∘π_p∘φ on E'(Fp8) in projective coordinates, as miracl's
/// `ECP8::frob` (D-type twist) computes it from `frob_constants` `f`.
fn twisted_frobenius(
    q: &super::miracl::Point<G2Field>,
    f: &[FP2; 3],
) -> super::miracl::Point<G2Field> {
    let (mut x, mut y, mut z) = (q.x, q.y, q.z);
    x.frob(&f[2]);
    x.qmul(&f[0]);
    x.times_i2();
    y.frob(&f[2]);
    y.qmul(&f[1]);
    y.times_i();
    z.frob(&f[2]);
    super::miracl::Point { x, y, z }
}

fn g2_field_from_fps(u: &[FP]) -> G2Field {
    let a = FP4::new_fp2s(&FP2::new_fps(&u[0], &u[1]), &FP2::new_fps(&u[2], &u[3]));
    let b = FP4::new_fp2s(&FP2::new_fps(&u[4], &u[5]), &FP2::new_fps(&u[6], &u[7]));
    G2Field::new_fp4s(&a, &b)
}

fn gt_coeffs(f: &GtField) -> Vec<FP8> {
    let mut c = *f;
    let mut out = Vec::with_capacity(6);
    for x in [c.geta(), c.getb(), c.getc()] {
        out.push(x.geta());
        out.push(x.getb());
    }
    out
}

fn gt_from_coeffs(c: &[FP8]) -> GtField {
    use miracl_core::bls48581::fp16::FP16;
    GtField::new_fp16s(
        &FP16::new_fp8s(&c[0], &c[1]),
        &FP16::new_fp8s(&c[2], &c[3]),
        &FP16::new_fp8s(&c[4], &c[5]),
    )
}

super::miracl::miracl_backend! {
    module: bls48581,
    curve: Bls48,
    id: CurveId::Bls48_581,
    name: "bls48-581",
    security: 256,
    g2_from_x: new_fp8,
    g2_from_xy: new_fp8s,
    g2_degree: 8,
    uint: U640,
    r_hex: "0000000000000000000000000000002386f8a925e2885e233a9ccc1615c0d6c635387a3f0b3cbe003fad6bc972c2e6e741969d34c4c92016a85c7cd0562303c4ccbe599467c24da118a5fe6fcd671c01",
    r_bits: 518,
    fr_bytes: 65,
    fr_wide: 96,
    hash: sha2::Sha512,
    gt_fp8s: 6,
    seed_abs: 0x1_4000_0381,
    seed_negative: true,
    gls_digits: 16,
}

/// Test support: (−1, 0), a point of order 2 of E(Fp) (b = 1), where the
/// complete addition formulas meet their exceptional case: P + (P + T)
/// gives the invalid (0 : 0 : 0).
#[cfg(test)]
pub(crate) fn order_two_point() -> G1 {
    let mut minus_one = BIG::new_ints(&rom::MODULUS);
    minus_one.dec(1);
    let e = ECP::new_bigs(&minus_one, &BIG::new());
    assert!(!e.is_infinity(), "(−1, 0) is on y² = x³ + 1");
    g1_from_miracl(&e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point of E'(Fp8) outside G2 (no cofactor clearing).
    fn g2_outside() -> G2 {
        let mut i = 1;
        loop {
            let e = G2Point::new_fp8(&G2Field::new_int(i), 0);
            if !e.is_infinity() {
                return g2_from_miracl(&e);
            }
            i += 1;
        }
    }

    /// A unitary element of Fp48 of order not dividing r: the easy part of
    /// the final exponentiation, f^((p^24 − 1)(p^8 + 1)), of a fixed f.
    fn gt_outside() -> GtField {
        use miracl_core::bls48581::fp16::FP16;
        let f = GtField::new_fp16s(&FP16::new_int(5), &FP16::new_int(7), &FP16::new_int(11));
        let mut inv = f;
        inv.inverse();
        let mut c = f;
        c.conj();
        c.mul(&inv);
        let fr = FP2::new_bigs(&BIG::new_ints(&rom::FRA), &BIG::new_ints(&rom::FRB));
        let mut t = c;
        t.frob(&fr, 8);
        t.mul(&c);
        t
    }

    crate::curve::miracl::miracl_backend_tests!(Bls48, sha2::Sha512);

    #[test]
    fn cached_div_i_matches_miracl() {
        let mut e = G2Field::new_int(7);
        for _ in 0..5 {
            e.sqr();
            e.add(&G2Field::new_int(3));
            e.norm();
            let mut theirs = e;
            theirs.div_i();
            assert!(div_i(&e).equals(&theirs));
        }
    }

    #[test]
    fn r_is_t16_minus_t8_plus_1() {
        let t = -Fr::from_u64(0x1_4000_0381);
        let t8 = (0..3).fold(t, |a, _| a * a);
        assert!((t8 * t8 - t8 + Fr::one()).is_zero());
    }
}
