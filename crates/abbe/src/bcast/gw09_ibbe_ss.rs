//! Gentry–Waters 2009 identity-based broadcast encryption without tags
//! (semi-static security), in KEM form, Type-III.
//!
//! Papers: C. Gentry, B. Waters, "Adaptive Security in Broadcast Encryption
//! Systems (with Short Ciphertexts)", EUROCRYPT 2009, §4.3.1 (ePrint
//! 2008/268); chhatrapati22's full version, ref. [15, §4.3.1]. Checked
//! against the authors' `IBBESystemVariantRevised.java` (ArushC/broadcast,
//! `schemesRevised/`; notes in docs/sources/broadcast-ii/gw09-ibbe-ss.md).
//! It is [`super::gw09_ibbe`] with the tag fixed to F ≡ 1: no tag in the
//! ciphertext, C3 = g^t, and C4 = Z^t for the public Z = e(g,ĝ)^{βα^{ℓ−1}}
//! (the Java pairs e(g^α, ĝ^{βα^{ℓ−2}}) on every encryption). The Java's
//! defects fixed as there: identities hashed, r_ID a function of ID, Y kept.
//!
//! Notation as in [`super::gw09_ibbe`]: S' = {H(ID) : ID ∈ S} ∪
//! {d_{k+1}..d_ℓ}, P(x) = Π_{s∈S'}(x − s), P_ID = P/(x − H(ID)).
//!
//! ```text
//! Setup(ℓ):  PK = (g^γ, g^{βα^j} (j = 0..ℓ) ∈ G1,  ĝ^{βα^j} (j = 0..ℓ−2) ∈ G2,
//!                  Y = e(g,ĝ)^{βγα^{ℓ−1}},  Z = e(g,ĝ)^{βα^{ℓ−1}})
//! Extract(ID): r_ID = PRF(ID);  sk = (r_ID, h = ĝ^{(γ − r_ID)/(α − H(ID))})
//! Encrypt(S): t ←R Z_p;  C1 = g^{βtP(α)},  C2 = g^{γt},  C3 = g^t,  C4 = Z^t;  K = Y^t
//! Decrypt(ID ∈ S):  B = ĝ^{β(α^{ℓ−1} − P_ID(α))}
//!                   K = e(C1, h) · e(C2·C3^{−r_ID}, B) · C4^{r_ID}
//! ```
//! e(C1, h)·e(C2 C3^{−r}, B) = e(g,ĝ)^{βt(γ−r)α^{ℓ−1}} = K · C4^{−r}.
//!
//! ## Type-III placement
//! As the authors' and as [`super::gw09_ibbe`]: ciphertext and the powers
//! the encryptor sums in **G1**; the key h (its Miller-loop lines cached per
//! key) and the powers the decryptor sums in **G2**.
//!
//! ## Side channels
//! Secrets meet points only in fixed-base tables, [`Group::mul_secret`] and
//! GT powers; the MSM's scalars (P_ID's coefficients) are public.
//!
//! ## Sizes and operation counts
//! Public key (ℓ+2) G1 + (ℓ−1) G2 + 2 GT; key Zr + G2; header 3 G1 + GT + S.
//! Encrypt: one MSM of ℓ+1 G1 terms, 2 G1 exponentiations and 1 fixed-base,
//! 2 GT exponentiations; decrypt: one MSM of ℓ−1 G2 terms, 1 G1
//! exponentiation, 2 Miller loops, 1 final exponentiation, 1 GT
//! exponentiation (`op_counts` below).
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! public key's powers change group, under the paper's q-type assumption with
//! the source groups exchanged ([`crate::curve::swapped`]).

use super::ibbe::{
    ell_minus_1, ell_plus_1, msm, padded_roots, powers, Gw09Authority, Gw09MasterKey, Identities,
    Identity, MaxCount,
};
use super::{poly, Points};
use crate::curve::{wipe, Curve, FixedBaseTable, Group, LinedG2, Scalar, Target};
use crate::kem::{Kem, KemError, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gw09IbbeSs<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gw09IbbeSs;
/// The domain tag of identities and dummies in this scheme.
const TAG: &[u8] = b"gw09-ibbe-ss";

object! {
    /// The public key (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        l: MaxCount => "ℓ",
        gg: C::G1 => "g^γ",
        b: Arc<Points<C, C::G1>> => "g^{βα^j}, j = 0..ℓ" in ell_plus_1(l),
        bh: Arc<Points<C, C::G2>> => "ĝ^{βα^j}, j = 0..ℓ−2" in ell_minus_1(l),
        y: C::Gt => "Y = e(g,ĝ)^{βγα^{ℓ−1}}",
        z: C::Gt => "Z = e(g,ĝ)^{βα^{ℓ−1}}",
    }
    cached { g1: Lazy<FixedBaseTable<C::G1>>, g2: Lazy<FixedBaseTable<C::G2>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn max_recipients(&self) -> u32 {
        self.l.get()
    }
    fn g1(&self) -> &FixedBaseTable<C::G1> {
        self.g1.get_or_init(|| C::G1::generator().precompute())
    }
    /// A table of ĝ, for the authority's key generation.
    fn g2(&self) -> &FixedBaseTable<C::G2> {
        self.g2.get_or_init(|| C::G2::generator().precompute())
    }
}

/// The master key: α, β, γ and the seed of the r_ID ([`Gw09MasterKey`]).
pub type MasterKey<C> = Gw09MasterKey<C, Gw09IbbeSs<C>>;

object! {
    /// A user key: its identity, r_ID and h ∈ G2 (lines cached); wiped on
    /// drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        l: MaxCount => "ℓ",
        id: Identity => "identity",
        r: Secret<C::Scalar> => "r_ID",
        h: Secret<LinedG2<C>> => "h = ĝ^{(γ − r_ID)/(α − H(ID))}",
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
    /// The header: S, C1, C2, C3 ∈ G1, C4 ∈ GT.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        l: MaxCount => "ℓ",
        set: Identities => "S" in l,
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

impl<C: Curve> Gw09Authority for Gw09IbbeSs<C> {
    type Curve = C;
    const SCHEME: SchemeId = SCHEME;
    const TAG: &'static [u8] = TAG;
    const R_TAG: &'static [u8] = b"abbe/v1/gw09-ibbe-ss/r";
    type PublicKey = PublicKey<C>;
    type UserKey = UserKey<C>;

    fn public_key(mk: &MasterKey<C>) -> PublicKey<C> {
        let [alpha, beta, gamma] = *mk.s;
        let l = mk.l.get() as usize;
        let mut bpows: Vec<C::Scalar> = powers(alpha, l).into_iter().map(|x| beta * x).collect();
        let g1 = C::G1::generator().precompute();
        let g2 = C::G2::generator().precompute();
        let b = super::fixed_base_affine::<C, C::G1>(&g1, &bpows);
        let bh = super::fixed_base_affine::<C, C::G2>(&g2, &bpows[..l - 1]);
        let e = C::pairing(&C::G1::generator(), &C::G2::generator());
        let mut ey = gamma * bpows[l - 1];
        let (y, z) = (e.pow(&ey), e.pow(&bpows[l - 1]));
        let gg = C::G1::mul_fixed(&g1, &gamma);
        wipe(&mut ey, C::Scalar::zero());
        bpows.iter_mut().for_each(|v| wipe(v, C::Scalar::zero()));
        PublicKey {
            l: mk.l,
            gg,
            b: Arc::new(Points::new(b)),
            bh: Arc::new(Points::new(bh)),
            y,
            z,
            g1: Lazy::from(g1),
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
            h: Secret(LinedG2::new(h)),
            pk: None,
        }
    }
}

impl<C: Curve> Kem for Gw09IbbeSs<C> {
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
        let (roots, _) = padded_roots::<C::Scalar>(TAG, set, l, None)?;
        let p = poly::from_roots(&roots);
        let mut t = C::Scalar::random(rng);
        let c = [
            msm::<C::G1>(&pk.b, &p).mul_secret(&t),
            pk.gg.mul_secret(&t),
            C::G1::mul_fixed(pk.g1(), &t),
        ];
        let c4 = pk.z.pow(&t);
        let key = SessionKey::from_gt(&pk.y.pow(&t), SCHEME, C::ID);
        wipe(&mut t, C::Scalar::zero());
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                l: pk.l,
                set: set.clone(),
                c,
                c4,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        let pk = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid("a gw09-ibbe-ss key decrypts with its setup's public key".into())
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
        let b = msm::<C::G2>(&pk.bh, &neg);
        let mut c23 = h.c[1] - h.c[2].mul_secret(&key.r);
        let f = C::multi_pairing(&[(h.c[0], key.h.lines()), (c23, &C::prepare(&b))]);
        let k = f * h.c4.pow(&key.r);
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

    conformance::tests!(Gw09IbbeSs: conformance::identity_case(); every_identity_set_size);

    conformance::retarget!(Gw09IbbeSs<C>, set);

    #[test]
    fn sizes() {
        let mut r = rng(8);
        let l = 10usize;
        let (pk, mk) = Gw09IbbeSs::<Bn254>::setup(&MaxRecipients(l as u32), &mut r).unwrap();
        let gt = <<Bn254 as Curve>::Gt as crate::curve::Element>::ENCODED_BYTES;
        assert_eq!(
            pk.to_bytes().len() - 8 - 4,
            (l + 2) * 32 + (l - 1) * 64 + 2 * gt
        );
        let set = Identities::from_strs(["a"]).unwrap();
        let (_, h) = Gw09IbbeSs::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - (4 + 5), 3 * 32 + gt);
        let id = Identity::parse("a").unwrap();
        let key = kem::keygen::<Gw09IbbeSs<Bn254>>(&pk, &mk, &id, &mut r).unwrap();
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - (4 + 1), 32 + 64);
    }

    #[test]
    fn op_counts() {
        type CG = Gw09IbbeSs<Counted<Bls12>>;
        let mut r = rng(5);
        let l = 8u64;
        let (pk, mk) = CG::setup(&MaxRecipients(l as u32), &mut r).unwrap();
        let id = Identity::parse("a").unwrap();
        let key = kem::keygen::<CG>(&pk, &mk, &id, &mut r).unwrap();
        let set = Identities::from_strs(["a", "b", "c"]).unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CG::encapsulate(&pk, &set, &mut r).unwrap());
        assert_eq!(enc.g1_msm_terms, l + 1);
        assert_eq!((enc.g1_exp, enc.g1_fixed_exp, enc.gt_exp), (2, 1, 2));
        assert_eq!(enc.miller_loops, 0);
        CG::decapsulate(&key, &h).unwrap();
        let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &h).unwrap());
        assert_eq!(dec.g2_msm_terms, l - 1);
        assert_eq!((dec.g1_exp, dec.gt_exp), (1, 1));
        assert_eq!(
            (dec.miller_loops, dec.final_exps, dec.g2_prepared),
            (2, 1, 1)
        );
    }
}
