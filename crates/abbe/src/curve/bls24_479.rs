//! BLS24-479 on `miracl_core` — the curve of security level 192.
//!
//! * **Curve**: the Barreto–Lynn–Scott curve of embedding degree 24 with
//!   x = 0x100020011FF80 (positive), p of 479 bits, r = x⁸ − x⁴ + 1 of 385
//!   bits; E: y² = x³ + 19 over Fp, G2 on the M-type sextic twist over Fp4.
//!   Parameters: MIRACL Core's `bls24479` module (its `rom.rs`, generated
//!   from MIRACL's curve table; we check r = x⁸ − x⁴ + 1 in the tests).
//! * **Security**: ~192 bits, the level MIRACL Core assigns it (its BLS
//!   signature and M-Pin modules for this curve are `bls192`/`mpin192`).
//!   The IRTF CFRG pairing-friendly-curves draft (draft-irtf-cfrg-pairing-
//!   friendly-curves-11, §4) selects curves only for the 128- and 256-bit
//!   levels and none for 192; its security estimates follow
//!   Barbulescu–Duquesne (J. Cryptology 2019, "Updating key size estimations
//!   for pairings"). The 385-bit r gives ~192 bits against Pollard rho in
//!   G1/G2; the GT side is Fp^24 of 11 496 bits under exTNFS. We have not
//!   found a published per-curve exTNFS estimate for BLS24-479 itself; treat
//!   192 as the class, like "128" for BLS12-381.
//! * **Groups and sizes**: G1 ⊂ E(Fp), compressed 61 bytes (0x02|sign(y),
//!   x); G2 ⊂ E'(Fp4), compressed 241 bytes; GT ⊂ Fp24*, 1440 bytes
//!   (24 Fp coefficients, uncompressed); scalars 49 bytes big-endian.
//! * **Constant time**: scalar multiplication in G1 (fixed 4-bit windows,
//!   complete addition formulas, table scan by `cmove`), in G2 and GT by
//!   the Galbraith–Scott endomorphism (ψ on G2, the Frobenius on GT, both
//!   acting as x: the scalar is split into 8 base-|x| digits by a
//!   constant-time division, then fixed 5-bit windows over all digits at
//!   once, `cmove` scans; cyclotomic squarings in GT), Z_r arithmetic and
//!   inversion (crypto-bigint), field inversion (miracl: fixed addition
//!   chain). Not constant time, on public data only: decoding (square roots
//!   and their failure), the subgroup checks (\[r\]P in G1; ψ(Q) = \[x\]Q in
//!   G2 and g^p = g^x in GT, exact here because (x − 1)²/3 is coprime to
//!   the G2 cofactor and to Φ_24(p), see `in_g2`, `in_gt`), hash-to-curve
//!   (inputs are public attribute names), `msm` loops skip nothing but `sum_affine` is
//!   the generic one, and the Miller loop skips identity inputs. Equality
//!   of G1/G2 points is not constant time; `Target::ct_eq` is.
//! * **Pairing**: miracl's optimal-ate Miller loop with precomputed G2 lines
//!   (`pair4::precomp`, 52 packed lines per key element) and the shared
//!   multi-pairing accumulation (`initmp`, `another_pc`, one `miller`
//!   squaring chain), then one `fexp`.
//! * **Hash-to-curve**: RFC 9380 structure — expand_message_xmd with
//!   SHA-384, hash_to_field with k = 192 (L = 84 bytes per Fp element), two
//!   field elements (of Fp4 for G2) mapped by miracl's Shallue–van de
//!   Woestijne `map2point`, added, cofactor cleared (`cfp`). No RFC 9380
//!   suite is registered for this curve, so the suite is ours: the DST is
//!   the caller's.

use miracl_core::bls24479::ecp4::ECP4 as G2Point;
use miracl_core::bls24479::fp2::FP2;
use miracl_core::bls24479::fp24::FP24 as GtField;
use miracl_core::bls24479::fp4::FP4 as G2Field;
use miracl_core::bls24479::fp8::FP8 as LineField;
use miracl_core::bls24479::pair4 as pairing;

super::miracl::impl_fld!(G2Field, |x| {
    // b' = b·i (M-type twist): 3b' = 3b·i.
    x.imul(3 * rom::CURVE_B_I);
    x.norm();
    x.times_i();
    x.norm();
});

/// ψ = φ⁻¹∘π_p∘φ on E'(Fp4) in projective coordinates, as miracl's
/// `ECP4::frob` (M-type twist) computes it from `frob_constants` `f`.
fn twisted_frobenius(
    q: &super::miracl::Point<G2Field>,
    f: &[FP2; 3],
) -> super::miracl::Point<G2Field> {
    let (mut x, mut y, mut z) = (q.x, q.y, q.z);
    x.frob(&f[2]);
    x.pmul(&f[0]);
    y.frob(&f[2]);
    y.pmul(&f[1]);
    y.times_i();
    z.frob(&f[2]);
    super::miracl::Point { x, y, z }
}

fn g2_field_from_fps(u: &[FP]) -> G2Field {
    G2Field::new_fp2s(&FP2::new_fps(&u[0], &u[1]), &FP2::new_fps(&u[2], &u[3]))
}

fn gt_coeffs(f: &GtField) -> Vec<FP8> {
    let mut c = *f;
    vec![c.geta(), c.getb(), c.getc()]
}

fn gt_from_coeffs(c: &[FP8]) -> GtField {
    GtField::new_fp8s(&c[0], &c[1], &c[2])
}

super::miracl::miracl_backend! {
    module: bls24479,
    curve: Bls24,
    id: CurveId::Bls24_479,
    name: "bls24-479",
    security: 192,
    g2_from_x: new_fp4,
    g2_from_xy: new_fp4s,
    g2_degree: 4,
    uint: U448,
    r_hex: "00000000000000010010010005a01f0f05b98bb44a050d81729cc224848fc9d0ced13a6ade7ee322ddaf1e7033ff5511901a08fff0000001",
    r_bits: 385,
    fr_bytes: 49,
    fr_wide: 80,
    hash: sha2::Sha384,
    gt_fp8s: 3,
    seed_abs: 0x1_0002_0011_FF80,
    seed_negative: false,
    gls_digits: 8,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point of E'(Fp4) outside G2 (no cofactor clearing).
    fn g2_outside() -> G2 {
        let mut i = 1;
        loop {
            let e = G2Point::new_fp4(&G2Field::new_int(i), 0);
            if !e.is_infinity() {
                return g2_from_miracl(&e);
            }
            i += 1;
        }
    }

    /// A unitary element of Fp24 of order not dividing r: the easy part of
    /// the final exponentiation, f^((p^12 − 1)(p^4 + 1)), of a fixed f.
    fn gt_outside() -> GtField {
        let f = GtField::new_fp8s(&FP8::new_int(5), &FP8::new_int(7), &FP8::new_int(11));
        let mut inv = f;
        inv.inverse();
        let mut c = f;
        c.conj();
        c.mul(&inv);
        let fr = FP2::new_bigs(&BIG::new_ints(&rom::FRA), &BIG::new_ints(&rom::FRB));
        let mut t = c;
        t.frob(&fr, 4);
        t.mul(&c);
        t
    }

    crate::curve::miracl::miracl_backend_tests!(Bls24, sha2::Sha384);

    #[test]
    fn r_is_x8_minus_x4_plus_1() {
        // x = 0x100020011FF80; r = x^8 - x^4 + 1 (the BLS24 order).
        let x = Fr::from_u64(0x1_0002_0011_FF80);
        let x4 = x * x * x * x;
        assert!((x4 * x4 - x4 + Fr::one()).is_zero());
    }
}
