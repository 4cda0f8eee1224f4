//! GHW11 outsourced decryption, written once for the schemes it applies to
//! (those implementing [`Scheme`]: [`super::Waters11`], [`super::Gpsw06`]).
//!
//! Paper: M. Green, S. Hohenberger, B. Waters, "Outsourcing the Decryption
//! of ABE Ciphertexts", USENIX Security 2011
//! (`ghw11-outsourcing-abe-decryption.txt` §3.1, §4.1: the CPA version; the
//! RCCA version §3.2, §4.2 is [`super::rcca`] over [`Scheme`]), in KEM
//! form: the session key comes from e(g,g)^{αs}.
//!
//! ```text
//! TransformKey(SK): z ←R Z_p*;  TK = SK^{1/z} (each key element raised to 1/z),  RK = z
//! Transform(TK, CT): T = the scheme's decryption equation with TK = e(g,g)^{αs/z}
//! Decrypt(RK, T):    e(g,g)^{αs} = T^z   (one GT exponentiation)
//! ```
//! TK is given to an untrusted proxy: it decrypts nothing by itself, and T
//! is constant-size whatever the policy. A scheme says what its key
//! elements are, how they are raised to 1/z and its decryption equation on
//! them ([`Scheme`]); the transformation and retrieval keys, the transformed
//! header and [`Outsourcing`] follow from that; RCCA uses `pair` and
//! `blinding_base` directly.
//!
//! ## What the proxy checks of a header
//! The proxy decodes a header without subgroup checks
//! (`wire::deferring_subgroup_checks`, [`Checks::Owed`]); `pair` checks
//! what it pairs from the real G2, after combining ([`Checks::paired`]):
//! Waters11 sums its N C_i and checks the sum, where a strict decoding
//! checks 2N + 1 points. What this accepts transforms exactly as a header
//! of subgroup points:
//! * a point P of the real G1 lies in E(F_p) = G1 ⊕ H, H the points of
//!   order dividing the cofactor (prime to r). The pairing is a power of
//!   the reduced Tate pairing t_r(Q, ·), defined on E(F_p)/rE(F_p), and
//!   rE(F_p) = H, so e(P, Q) = e(P_G1, Q) for every Q ∈ G2; sums and
//!   multiples (endomorphisms included) keep the H part in H
//!   (`curve::tests::cofactor_points`); an addition that
//!   meets an exceptional case (BLS48-581's complete formulas, when a
//!   difference has order 2) gives an invalid point, which stays invalid
//!   through later additions and is refused when paired;
//! * a point of the real G2 enters a pairing only through
//!   [`Checks::paired`], as a combination S = Σ ω_i C_i of the header's
//!   points; S ∈ G2 means its cofactor part Σ ω_i H(C_i) is zero, so S is
//!   the same combination of their G2 parts.
//!
//! So the transformation is that of the header's projection onto the
//! subgroups, or a refusal; a point moved by a cofactor part either
//! changes nothing or is refused (`conformance::proxy_checks_cofactor_parts`).
//! Nothing secret hangs on it either way: TK is the proxy's by design, and
//! the final decryption checks what it gets (the payload's AEAD binds the
//! header digest; RCCA re-encrypts).
//!
//! ## Side channels
//! z and 1/z are secret: 1/z meets points only through the scheme's
//! `raise` (constant-time multiplications), z only as a GT exponent.

use crate::curve::{wipe, Curve, Group, GroupKind, PointError, Scalar, Target};
use crate::kem::{same_setup, Kem, KemError, Outsourcing, SessionKey};
use crate::wire::codec::{nonzero, object, Bound, Codec};
use crate::wire::{Encoded, Secret, WireError};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;

/// What GHW11 needs of a scheme whose session key comes from
/// Y^s = e(g,g)^{αs}: the key elements of its user key, raised to 1/z as a
/// whole, and its decryption equation on them.
pub trait Scheme: Kem + Sized {
    type Curve: Curve;
    /// The elements a user key holds, and a transformation key holds
    /// raised to 1/z.
    type Elements: Codec + Bound + Send + Sync;
    fn elements(key: &Self::UserKey) -> &Self::Elements;
    /// Every element raised to `z_inv`.
    fn raise(elements: &Self::Elements, z_inv: &Scalar_<Self>) -> Self::Elements;
    /// The decryption equation with `elements`: Y^s for a user key's,
    /// Y^{s/z} for a transformation key's. The header's points enter
    /// pairings only through sums and multiples, each real-G2 one through
    /// `checks.paired` (the module doc).
    fn pair(
        elements: &Self::Elements,
        header: &Self::Header,
        checks: Checks,
    ) -> Result<Gt<Self>, KemError>;
    /// Y = e(g,g)^α.
    fn blinding_base(pk: &Self::PublicKey) -> Gt<Self>;
    /// A header for `target` with exponent s (other randomness from `rng`).
    fn encapsulate_with_s<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        target: &Self::CiphertextSide,
        s: &Scalar_<Self>,
        rng: &mut R,
    ) -> Result<Self::Header, KemError>;
}

/// What a header's points still owe when [`Scheme::pair`] pairs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    /// Every point was decoded strictly or computed here.
    Done,
    /// The header was decoded without subgroup checks (the proxy's
    /// [`transform_encoded`]).
    Owed,
}

impl Checks {
    /// `p`, a combination of the header's points, about to be paired:
    /// when checks are owed, refused if invalid, or of the real G2 and
    /// outside the subgroup. A point of the real G1 owes no subgroup check
    /// (the module doc).
    pub fn paired<G: Group>(self, p: G) -> Result<G, KemError> {
        if self == Checks::Owed {
            let name = <G as crate::curve::Element>::NAME;
            if !p.is_valid() {
                return Err(WireError::Point(PointError::NotOnCurve(name)).into());
            }
            if G::KIND == GroupKind::G2 && !p.is_torsion_free() {
                return Err(WireError::Point(PointError::NotInSubgroup(name)).into());
            }
        }
        Ok(p)
    }
}

/// The transformation of an encoded CPA header as the proxy runs it: the
/// header decoded without subgroup checks, `pair` checking what it pairs
/// (the module doc).
pub(crate) fn transform_encoded<C: Curve, V: Scheme<Curve = C>>(
    tk: &TransformKey<C, V>,
    header: &[u8],
) -> Result<Transformed<C, V>, KemError> {
    let header = crate::wire::deferring_subgroup_checks(|| V::Header::from_bytes(header))?;
    transformed(tk, &header, Checks::Owed)
}

fn transformed<C: Curve, V: Scheme<Curve = C>>(
    tk: &TransformKey<C, V>,
    header: &V::Header,
    checks: Checks,
) -> Result<Transformed<C, V>, KemError> {
    Ok(Transformed {
        setup_id: header.setup_id(),
        t: V::pair(&tk.elements, header, checks)?,
        _v: PhantomData,
    })
}

type Scalar_<S> = <<S as Scheme>::Curve as Curve>::Scalar;
type Gt<S> = <<S as Scheme>::Curve as Curve>::Gt;

object! {
    /// A transformation key: the user key's elements raised to 1/z. Given
    /// to an untrusted proxy; it cannot decrypt anything by itself.
    pub struct TransformKey<C, V: Scheme<Curve = C>> = (TransformationKey, V::SCHEME) {
        pub(crate) elements: V::Elements => "",
    }
    cached { _v: PhantomData<V> }
}

object! {
    /// The retrieval key z; wiped on drop.
    pub struct RetrievalKey<C, V: Scheme<Curve = C>> = (CpaRetrievalKey, V::SCHEME), bound {
        pub(crate) z: Secret<C::Scalar> => "z",
    }
    cached { _v: PhantomData<V> }
    check "z ≠ 0" => |rk| nonzero("retrieval key", &*rk.z);
}

object! {
    /// The transformed header: T = e(g,g)^{αs/z} (GHW11's partially
    /// decrypted ciphertext in KEM form).
    pub struct Transformed<C, V: Scheme<Curve = C>> = (TransformedKemHeader, V::SCHEME), bound {
        t: C::Gt => "T = e(g,g)^{αs/z}",
    }
    cached { _v: PhantomData<V> }
}

impl<C: Curve, V: Scheme<Curve = C>> Outsourcing for V {
    type TransformKey = TransformKey<C, V>;
    type RetrievalKey = RetrievalKey<C, V>;
    type Transformed = Transformed<C, V>;

    fn transform_key<R: RngCore + CryptoRng>(
        key: &V::UserKey,
        rng: &mut R,
    ) -> (TransformKey<C, V>, RetrievalKey<C, V>) {
        let (z, mut z_inv) = loop {
            let z = C::Scalar::random(rng);
            if let Some(inv) = z.invert() {
                break (z, inv);
            }
        };
        let elements = V::elements(key);
        let raised = V::raise(elements, &z_inv);
        wipe(&mut z_inv, C::Scalar::zero());
        (
            TransformKey {
                elements: raised,
                _v: PhantomData,
            },
            RetrievalKey {
                setup_id: elements.setup_id(),
                z: Secret(z),
                _v: PhantomData,
            },
        )
    }

    fn transform(
        tk: &TransformKey<C, V>,
        header: &V::Header,
    ) -> Result<Transformed<C, V>, KemError> {
        transformed(tk, header, Checks::Done)
    }

    fn decrypt_transformed(
        rk: &RetrievalKey<C, V>,
        t: &Transformed<C, V>,
    ) -> Result<SessionKey, KemError> {
        same_setup(rk, t)?;
        Ok(SessionKey::from_gt(&t.t.pow(&rk.z), V::SCHEME, V::CURVE))
    }
}
