//! Ge–Wei 2019 identity-based broadcast encryption with constant-size
//! ciphertexts, in KEM form, Type-III.
//!
//! Papers: A. Ge, P. Wei, "Identity-Based Broadcast Encryption with
//! Efficient Revocation", PKC 2019, §3.1 (ePrint 2019/038); chhatrapati22's
//! full version, ref. [14, §3.1]. Checked against the authors'
//! `BasicIBBESystemRevised.java` (= `schemes/GW19.java`, ArushC/broadcast;
//! notes in docs/sources/broadcast-ii/gw19-ibbe.md). This is the §3.1 IBBE
//! the authors benchmark; the paper's revocable scheme (§4, a binary tree of
//! key updates per time period) is not implemented: its text could not be
//! read here, and a reconstruction would be a scheme of our own, unproven.
//! A sender revokes a user of this scheme by leaving them out of S.
//! Differences from the Java: identities are strings hashed to Z_r; the
//! master key holds exponents (the Java's keygen makes ~6m variable-base
//! exponentiations from group elements; ours 2m+3 fixed-base); the four
//! public elements the §3.1 algorithms never use are left out; decryption
//! sums only the k = |S| nonzero terms and pairs three times.
//!
//! Notation (the paper's): m the largest recipient set; u1, u2 ∈ Z_p^{m+1},
//! α1, α2, w1, w2, b ∈ Z_p; u = u1 + b·u2, w = w1 + b·w2, α = α1 + b·α2;
//! x = H(ID); for S: P_S(Z) = Π_{ID∈S}(Z − H(ID)) = Σ_{i=0..k} y_i Z^i.
//!
//! ```text
//! Setup(m):   PK = (ĝ^b, U_i = ĝ^{u_i} (i = 0..m), W = ĝ^w ∈ G2, Y = e(g,ĝ)^α)
//! Extract(ID): r, ktag_1..ktag_m ←R Z_p;  K1 = g^{α1 + w1 r},  K2 = g^{α2 + w2 r},  K3 = g^r,
//!             K4_i = g^{r(u1_i + w1 ktag_i − u1_0 x^i)},  K5_i = g^{r(u2_i + w2 ktag_i − u2_0 x^i)}
//! Encrypt(S): s, ctag ←R Z_p;  C1 = ĝ^s,  C2 = ĝ^{bs},  C3 = (W^{ctag} Π_{i≤k} U_i^{y_i})^s;  K = Y^s
//! Decrypt(ID ∈ S):  ktag' = Σ_{i≥1} y_i ktag_i,  K4' = Π K4_i^{y_i},  K5' = Π K5_i^{y_i},
//!             d = ktag' − ctag;  K = e(K1 K4'^{−1/d}, C1) · e(K2 K5'^{−1/d}, C2) · e(K3^{1/d}, C3)
//! ```
//! With P_S(x) = 0, e(K4', C1)·e(K5', C2) = e(g,ĝ)^{rs(⟨u,y⟩ + w·ktag')} and
//! e(K3, C3) = e(g,ĝ)^{rs(⟨u,y⟩ + w·ctag)}, so the last two pairings remove
//! e(g,ĝ)^{rsw} from e(K1,C1)·e(K2,C2) = e(g,ĝ)^{αs + rsw}: the paper's five
//! pairings and GT root as one Miller loop of three pairs. A non-member's
//! u_0·P_S(x) ≠ 0 term does not cancel.
//!
//! ## Type-III placement
//! As the authors' ("switched g1 and g2"): the key, whose 2m elements the
//! decryptor sums, in **G1**; the ciphertext and public key in **G2**.
//! Encryption is one G2 MSM of k+2 terms; decryption two G1 MSMs of k terms.
//!
//! ## Side channels
//! The key's points are secret and summed with public coefficients (y_i)
//! by [`Group::msm_secret_points`], whose schedule depends on the
//! coefficients only (the backends' MSMs normalise their points with a
//! variable-time inversion). ktag', d and 1/d are secret and meet points in
//! [`Group::mul_secret`] only.
//!
//! ## Sizes and operation counts
//! Public key (m+3) G2 + GT; key (2m+3) G1 + m Zr; header 3 G2 + Zr + S.
//! Keygen 2m+3 fixed-base G1; encrypt a G2 MSM of k+2 terms, 2 G2
//! exponentiations and 1 fixed-base, 1 GT exponentiation; decrypt two G1
//! MSMs of k terms, 3 G1 exponentiations, 3 Miller loops, 1 final
//! exponentiation (`op_counts` below).
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! public key's powers change group, under the paper's q-type assumption with
//! the source groups exchanged ([`crate::curve::swapped`]).

use super::ibbe::{msm, Identities, Identity, MaxCount};
use super::{poly, prf_scalar, Points};
use crate::bcast::ibbe::MaxRecipients;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{bind, Authority, Kem, KemError, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gw19Ibbe<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Gw19Ibbe;
/// The domain tag of identities in this scheme.
const TAG: &[u8] = b"gw19-ibbe";

/// m + 1 (U_0..U_m), as docs/FORMAT.md names it.
fn m_plus_1(m: MaxCount) -> u32 {
    m.get() + 1
}

struct Tables<C: Curve> {
    g2: FixedBaseTable<C::G2>,
}

object! {
    /// The public key (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        m: MaxCount => "m",
        gb: C::G2 => "ĝ^b",
        u: Arc<Points<C, C::G2>> => "U_i = ĝ^{u_i}, i = 0..m" in m_plus_1(m),
        w: C::G2 => "W = ĝ^w",
        y: C::Gt => "Y = e(g,ĝ)^α",
    }
    cached { tables: Lazy<Tables<C>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn max_recipients(&self) -> u32 {
        self.m.get()
    }
    fn g2(&self) -> &FixedBaseTable<C::G2> {
        &self
            .tables
            .get_or_init(|| Tables {
                g2: C::G2::generator().precompute(),
            })
            .g2
    }
}

object! {
    /// The master key: α1, α2, w1, w2, b and the seed of u1, u2; wiped on
    /// drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        m: MaxCount => "m",
        s: Secret<[C::Scalar; 5]> => "α1, α2, w1, w2, b",
        seed: Secret<[u8; 32]> => "seed of u1_i, u2_i",
    }
}

impl<C: Curve> MasterKey<C> {
    fn u1(&self, i: u32) -> C::Scalar {
        prf_scalar(b"gw19-ibbe/u1", &self.seed, i)
    }
    fn u2(&self, i: u32) -> C::Scalar {
        prf_scalar(b"gw19-ibbe/u2", &self.seed, i)
    }
    /// Recomputes the public key (O(m)).
    pub fn public_key(&self) -> PublicKey<C> {
        let [a1, a2, w1, w2, b] = *self.s;
        let m = self.m.get();
        let g2 = C::G2::generator().precompute();
        let mut us: Vec<C::Scalar> = (0..=m).map(|i| self.u1(i) + b * self.u2(i)).collect();
        let u = super::fixed_base_affine::<C, C::G2>(&g2, &us);
        us.iter_mut().for_each(|v| wipe(v, C::Scalar::zero()));
        let mut w = w1 + b * w2;
        let mut alpha = a1 + b * a2;
        let pk = PublicKey {
            m: self.m,
            gb: C::G2::mul_fixed(&g2, &b),
            u: Arc::new(Points::new(u)),
            w: C::G2::mul_fixed(&g2, &w),
            y: C::pairing(&C::G1::generator(), &C::G2::generator()).pow(&alpha),
            tables: Lazy::from(Tables { g2 }),
            id: OnceLock::new(),
        };
        wipe(&mut w, C::Scalar::zero());
        wipe(&mut alpha, C::Scalar::zero());
        pk
    }
}

object! {
    /// A user key: its identity, K1, K2, K3, K4_i, K5_i ∈ G1 and the
    /// ktag_i; wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        m: MaxCount => "m",
        id: Identity => "identity",
        k: Secret<[C::G1; 3]> => "K1, K2, K3",
        k4: Secret<Points<C, C::G1>> => "K4_i, i = 1..m" in m,
        k5: Secret<Points<C, C::G1>> => "K5_i, i = 1..m" in m,
        ktag: Secret<Vec<C::Scalar>> => "ktag_i, i = 1..m" in m,
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
    /// The header: S, C1, C2, C3 ∈ G2 and ctag.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        m: MaxCount => "m",
        set: Identities => "S" in m,
        c: [C::G2; 3] => "C1, C2, C3",
        ctag: C::Scalar => "ctag",
    }
    made_for Identities = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Identities {
        &self.set
    }
}

/// y: the coefficients of P_S(Z) = Π_{ID∈S}(Z − H(ID)).
fn coefficients<S: Scalar>(set: &Identities) -> Result<Vec<S>, KemError> {
    Ok(poly::from_roots(&set.hashes::<S>(TAG)?))
}

impl<C: Curve> Authority for Gw19Ibbe<C> {
    crate::kem::authority_objects!(MaxRecipients, Identity);

    fn setup<R: RngCore + CryptoRng>(
        m: &MaxRecipients,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mut mk = MasterKey {
            setup_id: [0; 16],
            m: MaxCount::new(m.0)?,
            s: Secret([C::Scalar::zero(); 5]),
            seed: Secret([0u8; 32]),
        };
        for x in mk.s.iter_mut() {
            *x = C::Scalar::random(rng);
        }
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(mk.public_key(), mk))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        id: &Identity,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.m != mk.m {
            return Err(KemError::WrongSetup);
        }
        extract(mk, id, rng)
    }
}

/// Extract(ID): 2m + 3 fixed-base exponentiations of g.
fn extract<C: Curve, R: RngCore + CryptoRng>(
    mk: &MasterKey<C>,
    id: &Identity,
    rng: &mut R,
) -> Result<UserKey<C>, KemError> {
    let [mut a1, mut a2, mut w1, mut w2, _] = *mk.s;
    let m = mk.m.get();
    let x: C::Scalar = id.hash(TAG);
    let mut r = C::Scalar::random(rng);
    let ktag: Vec<C::Scalar> = (0..m).map(|_| C::Scalar::random(rng)).collect();
    let (mut u1_0, mut u2_0) = (mk.u1(0), mk.u2(0));
    // Exponents of K4_i and K5_i, interleaved: r(u1_i + w1 ktag_i − u1_0 x^i), ….
    let idx: Vec<u32> = (1..=m).collect();
    let mut xi = vec![C::Scalar::one(); m as usize + 1];
    for i in 1..=m as usize {
        xi[i] = xi[i - 1] * x;
    }
    let mut exps: Vec<[C::Scalar; 2]> = par_map::<C, _, _>(&idx, |&i| {
        let (t, p) = (ktag[i as usize - 1], xi[i as usize]);
        [
            r * (mk.u1(i) + w1 * t - u1_0 * p),
            r * (mk.u2(i) + w2 * t - u2_0 * p),
        ]
    });
    let g1 = C::G1::generator().precompute();
    let flat: Vec<C::Scalar> = exps.iter().flatten().copied().collect();
    let pts = super::fixed_base_affine::<C, C::G1>(&g1, &flat);
    let (k4, k5): (Vec<_>, Vec<_>) = pts.chunks(2).map(|c| (c[0], c[1])).unzip();
    let mut e = [a1 + w1 * r, a2 + w2 * r, r];
    let k = e.map(|v| C::G1::mul_fixed(&g1, &v));
    for v in exps.iter_mut().flatten().chain(e.iter_mut()) {
        wipe(v, C::Scalar::zero());
    }
    let mut flat = flat;
    flat.iter_mut().for_each(|v| wipe(v, C::Scalar::zero()));
    wipe(&mut r, C::Scalar::zero());
    for v in [&mut a1, &mut a2, &mut w1, &mut w2, &mut u1_0, &mut u2_0] {
        wipe(v, C::Scalar::zero());
    }
    Ok(UserKey {
        setup_id: mk.setup_id,
        m: mk.m,
        id: id.clone(),
        k: Secret(k),
        k4: Secret(Points::new(k4)),
        k5: Secret(Points::new(k5)),
        ktag: Secret(ktag),
        pk: None,
    })
}

impl<C: Curve> Kem for Gw19Ibbe<C> {
    crate::kem::kem_objects!(SCHEME, Identity => Identities);

    // Attaches the public key (decryption uses none of it, but keys are
    // handled as the other broadcast keys: stored alone, checked against
    // the setup they decrypt for).
    super::unattached_keys!(UserKey<C>, PublicKey<C>; keep pk if m);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Identities,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.m.get())?;
        let mut y = coefficients::<C::Scalar>(set)?;
        let mut s = C::Scalar::random(rng);
        let ctag = C::Scalar::random(rng);
        // W^{ctag} Π U_i^{y_i}: one MSM of k + 2 public terms.
        let mut points: Vec<_> = pk.u[..y.len()].to_vec();
        points.push(C::G2::to_affine_batch(&[pk.w])[0]);
        y.push(ctag);
        let c3 = msm::<C::G2>(&points, &y).mul_secret(&s);
        let c = [C::G2::mul_fixed(pk.g2(), &s), pk.gb.mul_secret(&s), c3];
        let key = SessionKey::from_gt(&pk.y.pow(&s), SCHEME, C::ID);
        wipe(&mut s, C::Scalar::zero());
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                m: pk.m,
                set: set.clone(),
                c,
                ctag,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        if h.setup_id != key.setup_id || h.m != key.m {
            return Err(KemError::WrongSetup);
        }
        if !h.set.contains(&key.id) {
            return Err(KemError::NotSatisfied);
        }
        let y = coefficients::<C::Scalar>(&h.set)?;
        let k = y.len() - 1;
        // The i ≥ 1 terms (y_i = 0 beyond k).
        let mut ktag = y[1..]
            .iter()
            .zip(key.ktag.iter())
            .fold(C::Scalar::zero(), |acc, (a, b)| acc + *a * *b);
        let mut sums = par_map::<C, _, _>(&[0u8, 1], |&which| {
            let pts = if which == 0 { &key.k4 } else { &key.k5 };
            C::G1::msm_secret_points(&pts[..k], &y[1..])
        });
        let mut d_inv = (ktag - h.ctag).invert().ok_or_else(|| {
            KemError::Invalid(
                "the key's and the ciphertext's tags collide (probability 1/r)".into(),
            )
        })?;
        let mut terms = [
            key.k[0] - sums[0].mul_secret(&d_inv),
            key.k[1] - sums[1].mul_secret(&d_inv),
            key.k[2].mul_secret(&d_inv),
        ];
        let lines: Vec<C::G2Prepared> = h.c.iter().map(C::prepare).collect();
        let f = C::multi_pairing(&[
            (terms[0], &lines[0]),
            (terms[1], &lines[1]),
            (terms[2], &lines[2]),
        ]);
        terms
            .iter_mut()
            .chain(sums.iter_mut())
            .for_each(|t| wipe(t, C::G1::identity()));
        wipe(&mut ktag, C::Scalar::zero());
        wipe(&mut d_inv, C::Scalar::zero());
        Ok(SessionKey::from_gt(&f, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::{self, Side};

    conformance::tests!(Gw19Ibbe: conformance::identity_case(); every_identity_set_size);

    conformance::retarget!(Gw19Ibbe<C>, set);

    #[test]
    fn sizes() {
        let mut r = rng(8);
        let m = 10usize;
        let (pk, mk) = Gw19Ibbe::<Bn254>::setup(&MaxRecipients(m as u32), &mut r).unwrap();
        let gt = <<Bn254 as Curve>::Gt as crate::curve::Element>::ENCODED_BYTES;
        assert_eq!(pk.to_bytes().len() - 8 - 4, (m + 3) * 64 + gt);
        let set = Identities::from_strs(["a"]).unwrap();
        let (_, h) = Gw19Ibbe::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - (4 + 5), 3 * 64 + 32);
        let id = Identity::parse("a").unwrap();
        let key = kem::keygen::<Gw19Ibbe<Bn254>>(&pk, &mk, &id, &mut r).unwrap();
        assert_eq!(
            key.to_bytes().len() - 8 - 16 - 4 - (4 + 1),
            (2 * m + 3) * 32 + m * 32
        );
    }

    #[test]
    fn op_counts() {
        type CG = Gw19Ibbe<Counted<Bls12>>;
        let mut r = rng(5);
        let m = 8u64;
        let (pk, mk) = CG::setup(&MaxRecipients(m as u32), &mut r).unwrap();
        let id = Identity::parse("a").unwrap();
        let (key, kg) = OpCounts::measure(|| kem::keygen::<CG>(&pk, &mk, &id, &mut r).unwrap());
        assert_eq!((kg.g1_fixed_exp, kg.g1_exp), (2 * m + 3, 0));
        let set = Identities::from_strs(["a", "b", "c"]).unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CG::encapsulate(&pk, &set, &mut r).unwrap());
        assert_eq!(enc.g2_msm_terms, 3 + 2);
        assert_eq!((enc.g2_exp, enc.g2_fixed_exp, enc.gt_exp), (2, 1, 1));
        let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &h).unwrap());
        assert_eq!(dec.g1_msm_terms, 2 * 3);
        assert_eq!(dec.g1_exp, 3);
        assert_eq!((dec.miller_loops, dec.final_exps), (3, 1));
    }
}
