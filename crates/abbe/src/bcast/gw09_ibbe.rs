//! Gentry–Waters 2009 identity-based broadcast encryption with tags
//! (adaptively secure), in KEM form, Type-III.
//!
//! Papers: C. Gentry, B. Waters, "Adaptive Security in Broadcast Encryption
//! Systems (with Short Ciphertexts)", EUROCRYPT 2009, §4.1 (ePrint 2008/268);
//! chhatrapati22's full version, ref. [15, §4.1]. Checked against the
//! authors' `IBBESystemRevised.java` / `GW09Sec4Point1.java` (ArushC/broadcast,
//! `schemesRevised/`; notes in docs/sources/broadcast-ii/gw09-ibbe.md).
//! Differences from the Java: identities are strings hashed to Z_r
//! ([`super::ibbe`]) instead of raw field elements; r_ID is a function of the
//! identity (the Java's PRF mutates its key, so two keys of one identity
//! differ — which would leak g^{1/(α−ID)}); Y stays in the public key (the
//! Java overwrites it with Y^t, so only the first encryption decrypts); the
//! tag F is uniform among the polynomials of degree < ℓ that are 1 on the
//! padding (`GW09Sec4Point1.java` draws one coefficient too few); P(x) is
//! built by a product tree with Karatsuba products, O(ℓ^1.59), where the
//! Java's schoolbook products take hours at ℓ = 10^5.
//!
//! Notation (the paper's): g ∈ G1, ĝ ∈ G2; α, β, γ ∈ Z_p; ℓ the largest
//! recipient set; x_ID = H(ID); d_1..d_ℓ public dummy identities. For
//! S = {ID_1..ID_k}: S' = {x_{ID_i}} ∪ {d_{k+1}..d_ℓ} (ℓ points),
//! P(x) = Π_{s∈S'} (x − s), P_ID(x) = P(x)/(x − x_ID).
//!
//! ```text
//! Setup(ℓ):  PK = (g^γ, g^{α^j}, g^{βα^j} (j = 0..ℓ) ∈ G1,
//!                  ĝ^{α^j}, ĝ^{βα^j} (j = 0..ℓ−2) ∈ G2,  Y = e(g,ĝ)^{βγα^{ℓ−1}})
//! Extract(ID): r_ID = PRF(ID);  sk = (r_ID, h = ĝ^{(γ − r_ID)/(α − x_ID)})
//! TagGen(S): F ←R {F : deg F < ℓ, F(d_j) = 1 for j = k+1..ℓ}
//!            (F = 1 + R·Π_{j>k}(x − d_j), R ←R of degree < k)
//! Encrypt(S): t ←R Z_p;  C1 = g^{βtP(α)},  C2 = g^{γt},  C3 = g^{tF(α)},
//!            C4 = e(g^{αF(α)}, ĝ^{βα^{ℓ−2}})^t = e(g,ĝ)^{βtα^{ℓ−1}F(α)};  K = Y^t
//!            Hdr = (S, F, C1, C2, C3, C4)
//! Decrypt(ID ∈ S):  e = −r_ID / F(x_ID);  F_ID = (F − F(x_ID))/(x − x_ID);
//!            A = ĝ^{F_ID(α)},  B = ĝ^{β(α^{ℓ−1} − P_ID(α))}
//!            K = e(C1, h·A^e) · e(C2·C3^e, B) / C4^e
//! ```
//! e(C1, h A^e) = e(g,ĝ)^{βtP_ID(α)(γ + eF(α))} because e·F(x_ID) = −r_ID, and
//! e(C2 C3^e, B) = e(g,ĝ)^{βt(γ + eF(α))(α^{ℓ−1} − P_ID(α))}: their product is
//! e(g,ĝ)^{βtα^{ℓ−1}γ} · C4^e. The powers in g and ĝ are sums over the public
//! key weighted by public coefficients (P's, F's): multi-scalar
//! multiplications, then one constant-time multiplication by the secret t
//! or e.
//!
//! ## Type-III placement
//! As the authors': the ciphertext and the powers the encryptor sums
//! (g^{α^j}, g^{βα^j}) in **G1**, the key h and the powers the decryptor sums
//! (ĝ^{α^j}, ĝ^{βα^j}) in **G2**. Encryption is three G1 MSMs of ~ℓ terms,
//! decryption two G2 MSMs of ℓ−1 terms and one Miller loop of two pairs.
//! The key side never holds ĝ^{βα^{ℓ−1}} (with it e(C2, ·) would give K
//! away), which is why ℓ ≥ 2 and C4 pairs with ĝ^{βα^{ℓ−2}}.
//!
//! ## Side channels
//! Secrets (α, β, γ, r_ID, t, e) meet points only in fixed-base tables and
//! [`Group::mul_secret`], and GT powers; the MSMs' scalars are public.
//!
//! ## Sizes and operation counts
//! Public key (2ℓ+3) G1 + (2ℓ−2) G2 + GT; key Zr + G2; header 3 G1 + GT + ℓ
//! Zr (the tag) + S. Encrypt: MSMs of ℓ+1, ℓ and ℓ G1 terms, 2 G1
//! exponentiations, 1 pairing, 1 GT exponentiation; decrypt: MSMs of 2(ℓ−1)
//! G2 terms, 3 exponentiations, 2 Miller loops, 1 final exponentiation
//! (`op_counts` below).
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! public key's powers change group, under the paper's q-type assumption with
//! the source groups exchanged ([`crate::curve::swapped`]).

use super::ibbe::{
    ell_minus_1, ell_plus_1, msm, padded_roots, powers, Gw09Authority, Gw09MasterKey, Identities,
    Identity, MaxCount,
};
use super::poly;
use super::Points;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{Kem, KemError, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gw09Ibbe<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gw09Ibbe;
/// The domain tag of identities and dummies in this scheme.
const TAG: &[u8] = b"gw09-ibbe";

object! {
    /// The public key (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        l: MaxCount => "ℓ",
        gg: C::G1 => "g^γ",
        a: Arc<Points<C, C::G1>> => "g^{α^j}, j = 0..ℓ" in ell_plus_1(l),
        b: Arc<Points<C, C::G1>> => "g^{βα^j}, j = 0..ℓ" in ell_plus_1(l),
        ah: Arc<Points<C, C::G2>> => "ĝ^{α^j}, j = 0..ℓ−2" in ell_minus_1(l),
        bh: Arc<Points<C, C::G2>> => "ĝ^{βα^j}, j = 0..ℓ−2" in ell_minus_1(l),
        y: C::Gt => "Y = e(g,ĝ)^{βγα^{ℓ−1}}",
    }
    cached { lines: Lazy<C::G2Prepared>, g2: Lazy<FixedBaseTable<C::G2>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn max_recipients(&self) -> u32 {
        self.l.get()
    }
    /// A table of ĝ, for the authority's key generation.
    fn g2(&self) -> &FixedBaseTable<C::G2> {
        self.g2.get_or_init(|| C::G2::generator().precompute())
    }
    /// The lines of ĝ^{βα^{ℓ−2}}, which every C4 pairs with.
    fn c4_lines(&self) -> &C::G2Prepared {
        self.lines
            .get_or_init(|| C::prepare(&C::G2::from_affine(&self.bh[self.l.get() as usize - 2])))
    }
}

/// The master key: α, β, γ and the seed of the r_ID ([`Gw09MasterKey`]).
pub type MasterKey<C> = Gw09MasterKey<C, Gw09Ibbe<C>>;

object! {
    /// A user key: its identity, r_ID and h ∈ G2; wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        l: MaxCount => "ℓ",
        id: Identity => "identity",
        r: Secret<C::Scalar> => "r_ID",
        h: Secret<C::G2> => "h = ĝ^{(γ − r_ID)/(α − H(ID))}",
    }
    cached { pk: Option<PublicKey<C>> }
    made_for Identity = |key| key.id.clone();
}

impl<C: Curve> UserKey<C> {
    pub fn identity(&self) -> &Identity {
        &self.id
    }
}

object! {
    /// The header: S, the tag F (ℓ coefficients), C1, C2, C3 ∈ G1, C4 ∈ GT.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        l: MaxCount => "ℓ",
        set: Identities => "S" in l,
        tag: Vec<C::Scalar> => "tag F (coefficients of x^0..x^{ℓ−1})" in l,
        c: [C::G1; 3] => "C1, C2, C3",
        c4: C::Gt => "C4",
    }
    made_for Identities = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Identities {
        &self.set
    }
}

impl<C: Curve> Gw09Authority for Gw09Ibbe<C> {
    type Curve = C;
    const SCHEME: SchemeId = SCHEME;
    const TAG: &'static [u8] = TAG;
    const R_TAG: &'static [u8] = b"abbe/v1/gw09-ibbe/r";
    type PublicKey = PublicKey<C>;
    type UserKey = UserKey<C>;

    fn public_key(mk: &MasterKey<C>) -> PublicKey<C> {
        let [alpha, beta, gamma] = *mk.s;
        let l = mk.l.get() as usize;
        let mut pows = powers(alpha, l);
        let mut bpows: Vec<C::Scalar> = pows.iter().map(|x| beta * *x).collect();
        let g1 = C::G1::generator().precompute();
        let g2 = C::G2::generator().precompute();
        let a = super::fixed_base_affine::<C, C::G1>(&g1, &pows);
        let b = super::fixed_base_affine::<C, C::G1>(&g1, &bpows);
        let ah = super::fixed_base_affine::<C, C::G2>(&g2, &pows[..l - 1]);
        let bh = super::fixed_base_affine::<C, C::G2>(&g2, &bpows[..l - 1]);
        let mut ey = beta * gamma * pows[l - 1];
        let y = C::pairing(&C::G1::generator(), &C::G2::generator()).pow(&ey);
        let gg = C::G1::mul_fixed(&g1, &gamma);
        wipe(&mut ey, C::Scalar::zero());
        for v in pows.iter_mut().chain(bpows.iter_mut()) {
            wipe(v, C::Scalar::zero());
        }
        PublicKey {
            l: mk.l,
            gg,
            a: Arc::new(Points::new(a)),
            b: Arc::new(Points::new(b)),
            ah: Arc::new(Points::new(ah)),
            bh: Arc::new(Points::new(bh)),
            y,
            lines: Lazy::default(),
            g2: Lazy::from(g2),
            id: OnceLock::new(),
        }
    }

    fn max_count(pk: &PublicKey<C>) -> MaxCount {
        pk.l
    }

    fn g2(pk: &PublicKey<C>) -> &FixedBaseTable<C::G2> {
        pk.g2()
    }

    fn user_key(mk: &MasterKey<C>, id: &Identity, r: Secret<C::Scalar>, h: C::G2) -> UserKey<C> {
        UserKey {
            setup_id: mk.setup_id(),
            l: mk.l,
            id: id.clone(),
            r,
            h: Secret(h),
            pk: None,
        }
    }
}

impl<C: Curve> Kem for Gw09Ibbe<C> {
    crate::kem::kem_objects!(SCHEME, Identity => Identities);

    // Attaches the public key (its ĝ powers are summed by decryption)
    // when it is the key's setup's.
    super::unattached_keys!(UserKey<C>, PublicKey<C>; keep pk if l);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Identities,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let l = pk.l.get();
        set.check(l)?;
        let (roots, dummies) = padded_roots::<C::Scalar>(TAG, set, l, None)?;
        let k = set.len();
        // TagGen: F = 1 + R·Π_{j>k}(x − d_j), R uniform of degree < k.
        let rand: Vec<C::Scalar> = (0..k).map(|_| C::Scalar::random(rng)).collect();
        let mut tag = poly::mul(&rand, &poly::from_roots(&dummies));
        tag.resize(l as usize, C::Scalar::zero());
        tag[0] += C::Scalar::one();
        let mut t = C::Scalar::random(rng);
        let p = poly::from_roots(&roots);
        let l = l as usize;
        let parts = par_map::<C, _, _>(&[0u8, 1, 2], |&which| match which {
            0 => msm::<C::G1>(&pk.b, &p),
            1 => msm::<C::G1>(&pk.a[..l], &tag),
            _ => msm::<C::G1>(&pk.a[1..], &tag),
        });
        let c = [
            parts[0].mul_secret(&t),
            pk.gg.mul_secret(&t),
            parts[1].mul_secret(&t),
        ];
        let c4 = C::multi_pairing(&[(parts[2].mul_secret(&t), pk.c4_lines())]);
        let key = SessionKey::from_gt(&pk.y.pow(&t), SCHEME, C::ID);
        wipe(&mut t, C::Scalar::zero());
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                l: pk.l,
                set: set.clone(),
                tag,
                c,
                c4,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        let pk = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid("a gw09-ibbe key decrypts with its setup's public key".into())
        })?;
        if h.setup_id != key.setup_id || h.l != key.l {
            return Err(KemError::WrongSetup);
        }
        if !h.set.contains(&key.id) {
            return Err(KemError::NotSatisfied);
        }
        let l = key.l.get() as usize;
        let x: C::Scalar = key.id.hash(TAG);
        let (roots, _) = padded_roots::<C::Scalar>(TAG, &h.set, l as u32, Some(&x))?;
        // P_ID is monic of degree ℓ−1: α^{ℓ−1} − P_ID(α) = −Σ_{j<ℓ−1} p_j α^j.
        let p_id = poly::from_roots(&roots);
        let neg: Vec<C::Scalar> = p_id[..l - 1].iter().map(|c| -*c).collect();
        let (f_id, fx) = poly::div_linear(&h.tag, x);
        let mut e = -*key.r
            * fx.invert().ok_or_else(|| {
                KemError::Invalid("the tag vanishes at this identity (probability 1/r)".into())
            })?;
        let ab = par_map::<C, _, _>(&[0u8, 1], |&which| match which {
            0 => msm::<C::G2>(&pk.ah, &f_id),
            _ => msm::<C::G2>(&pk.bh, &neg),
        });
        let mut ha = *key.h + ab[0].mul_secret(&e);
        let mut c23 = h.c[1] + h.c[2].mul_secret(&e);
        let f = C::multi_pairing(&[(h.c[0], &C::prepare(&ha)), (c23, &C::prepare(&ab[1]))]);
        let k = f * h.c4.pow(&-e);
        wipe(&mut e, C::Scalar::zero());
        wipe(&mut ha, C::G2::identity());
        wipe(&mut c23, C::G1::identity());
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bcast::ibbe::MaxRecipients;
    use crate::conformance::{self, rng};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Authority;
    use crate::kem::{self, Side};

    type G = Gw09Ibbe<Bls12>;

    conformance::tests!(Gw09Ibbe: conformance::identity_case(); every_identity_set_size);

    conformance::retarget!(Gw09Ibbe<C>, set);

    #[test]
    fn fewer_than_two_recipients_are_refused() {
        assert!(G::setup(&MaxRecipients(1), &mut rng(9)).is_err());
    }

    /// A member given a header whose tag was changed gets a wrong key (a
    /// forged set: [`conformance::every_identity_set_size`]).
    #[test]
    fn forged_tags_decrypt_to_garbage() {
        let mut r = rng(10);
        let (pk, mk) = G::setup(&MaxRecipients(4), &mut r).unwrap();
        let set = Identities::from_strs(["a", "b"]).unwrap();
        let (key, h) = G::encapsulate(&pk, &set, &mut r).unwrap();
        let a = kem::keygen::<G>(&pk, &mk, &Identity::parse("a").unwrap(), &mut r).unwrap();
        let mut retagged = Header::<Bls12>::from_bytes(&h.to_bytes()).unwrap();
        retagged.tag[1] += <Bls12 as Curve>::Scalar::one();
        assert_ne!(G::decapsulate(&a, &retagged).unwrap(), key);
        // Keys of one identity are the same key (r_ID is a function of ID).
        let a2 = kem::keygen::<G>(&pk, &mk, &Identity::parse("a").unwrap(), &mut r).unwrap();
        assert_eq!(a.to_bytes(), a2.to_bytes());
    }

    #[test]
    fn sizes() {
        // BN254: public key (2ℓ+3) G1 + (2ℓ−2) G2 + GT; header 3 G1 + GT + ℓ Zr.
        let mut r = rng(8);
        let l = 10usize;
        let (pk, mk) = Gw09Ibbe::<Bn254>::setup(&MaxRecipients(l as u32), &mut r).unwrap();
        let gt = <<Bn254 as Curve>::Gt as crate::curve::Element>::ENCODED_BYTES;
        assert_eq!(
            pk.to_bytes().len() - 8 - 4,
            (2 * l + 3) * 32 + (2 * l - 2) * 64 + gt
        );
        let set = Identities::from_strs(["a"]).unwrap();
        let (_, h) = Gw09Ibbe::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        assert_eq!(
            h.to_bytes().len() - 8 - 16 - 4 - (4 + 5),
            3 * 32 + gt + l * 32
        );
        let id = Identity::parse("a").unwrap();
        let key = kem::keygen::<Gw09Ibbe<Bn254>>(&pk, &mk, &id, &mut r).unwrap();
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - (4 + 1), 32 + 64);
    }

    #[test]
    fn op_counts() {
        type CG = Gw09Ibbe<Counted<Bls12>>;
        let mut r = rng(5);
        let l = 8u64;
        let (pk, mk) = CG::setup(&MaxRecipients(l as u32), &mut r).unwrap();
        let id = Identity::parse("a").unwrap();
        let (key, kg) = OpCounts::measure(|| kem::keygen::<CG>(&pk, &mk, &id, &mut r).unwrap());
        assert_eq!((kg.g2_fixed_exp, kg.g1_exp + kg.g2_exp), (1, 0));
        let set = Identities::from_strs(["a", "b", "c"]).unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CG::encapsulate(&pk, &set, &mut r).unwrap());
        assert_eq!(enc.g1_msm_terms, (l + 1) + l + l);
        assert_eq!((enc.g1_exp, enc.miller_loops, enc.gt_exp), (4, 1, 1));
        let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &h).unwrap());
        assert_eq!(dec.g2_msm_terms, 2 * (l - 1));
        assert_eq!((dec.g1_exp, dec.g2_exp, dec.gt_exp), (1, 1, 1));
        assert_eq!((dec.miller_loops, dec.final_exps), (2, 1));
    }
}
