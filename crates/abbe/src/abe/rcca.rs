//! RCCA-secure outsourced decryption: GHW11 §3.2 (CP-ABE) and §4.2 (KP-ABE)
//! in KEM form, for any [`ghw11::Scheme`] (Waters11, GPSW06 large universe).
//!
//! Paper: M. Green, S. Hohenberger, B. Waters, "Outsourcing the Decryption of
//! ABE Ciphertexts", USENIX Security 2011
//! (`ghw11-outsourcing-abe-decryption.txt`); the CPA scheme's final step
//! trusts the proxy, the RCCA one checks it.
//!
//! ```text
//! Encrypt(PK, target):  R ←R GT;  s = H1(R);  header = K.Encrypt(PK, target; s)
//!                       C = R · Y^s           (Y = e(g,g)^α)
//!                       session key = H2(R)
//! Transform(TK, CT):    T = Y^{s/z}  →  (C, T)          (proxy)
//! Decrypt_out(RK, (C, T)), RK = (z, Y):
//!                       Y^s = T^z;  R = C / Y^s;  s' = H1(R)
//!                       reject unless Y^{s'} = Y^s;  session key = H2(R)
//! Decrypt(SK, CT):      Y^s from the full key; the same check.
//! ```
//!
//! The final decryption costs two GT exponentiations (GHW11 §6.1: "the
//! primary performance differences in the RCCA version are an extra
//! exponentiation in GT"). A proxy that returns a wrong T, or mauls C or T,
//! fails the check (it would have to produce Y^{H1(R')} for the R' its change
//! induces). A proxy can always answer with a *fresh* encryption of a value
//! of its own choosing — ABE is public-key encryption — but the session key
//! H2(R') then fails the payload's authentication, which is bound to the
//! original header.
//!
//! Keys: the user key bundle is [`CcaKey`] (the scheme's key and its public
//! key, for Y); the retrieval key holds z and Y.

use super::cca::CcaKey;
use super::ghw11::{self, Checks};
use crate::curve::{Curve, Scalar, Target};
use crate::kem::{IssuedKeyOf, Kem, KemError, Outsourcing, SessionKey};
use crate::wire::codec::Bound;
use crate::wire::{Encoded, MadeFor, ObjectKind, Preamble, Reader, WireError, Writer};
use hkdf::Hkdf;
use rand_core::{CryptoRng, RngCore};
use sha2::Sha256;
use std::marker::PhantomData;

type Gt<K> = <<K as ghw11::Scheme>::Curve as Curve>::Gt;
type Fr<K> = <<K as ghw11::Scheme>::Curve as Curve>::Scalar;

/// The RCCA-secure outsourcing mode of the scheme `K`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rcca<K>(PhantomData<K>);

/// The scheme's header and C = R·Y^s.
pub struct RccaHeader<K: ghw11::Scheme> {
    pub inner: K::Header,
    inner_bytes: Vec<u8>,
    c: Gt<K>,
}

/// What the proxy returns: C and T = Y^{s/z}.
pub struct RccaTransformed<K: ghw11::Scheme> {
    c: Gt<K>,
    t: Gt<K>,
    _k: PhantomData<K>,
}

/// The retrieval key: the scheme's retrieval key (z) and Y for the check.
pub struct RccaRetrievalKey<K: ghw11::Scheme> {
    inner: <K as Outsourcing>::RetrievalKey,
    y: Gt<K>,
}

impl<K: ghw11::Scheme> RccaRetrievalKey<K> {
    /// The scheme's own retrieval key (z), which also finishes CPA
    /// transformations.
    pub fn inner(&self) -> &<K as Outsourcing>::RetrievalKey {
        &self.inner
    }
}

/// s = H1(R).
fn h1<K: ghw11::Scheme>(r: &Gt<K>) -> Fr<K> {
    let hk = Hkdf::<Sha256>::new(Some(b"abbe/v1/rcca"), &r.to_bytes());
    let mut wide = [0u8; crate::curve::MAX_WIDE_BYTES];
    let wide = &mut wide[..<Fr<K> as crate::curve::Scalar>::WIDE_BYTES];
    let _ = hk.expand(b"H1: exponent s", wide);
    Fr::<K>::from_bytes_wide(wide)
}

/// The session key H2(R).
fn h2<K: ghw11::Scheme>(r: &Gt<K>) -> SessionKey {
    let hk = Hkdf::<Sha256>::new(Some(b"abbe/v1/rcca"), &r.to_bytes());
    let mut out = [0u8; 32];
    let _ = hk.expand(
        &[
            b"H2: session key/".as_slice(),
            &[K::SCHEME as u8, K::CURVE as u8],
        ]
        .concat(),
        &mut out,
    );
    SessionKey::from_bytes(out)
}

/// Recovers R from C and Y^s and checks Y^{H1(R)} = Y^s.
fn open<K: ghw11::Scheme>(y: &Gt<K>, c: &Gt<K>, ys: &Gt<K>) -> Result<SessionKey, KemError> {
    let r = *c * ys.inverse();
    let s = h1::<K>(&r);
    if !y.pow(&s).ct_eq(ys) {
        return Err(KemError::BadTransformation(
            "the RCCA check failed: the (transformed) ciphertext was modified or the proxy returned a wrong value",
        ));
    }
    Ok(h2::<K>(&r))
}

impl<K: ghw11::Scheme> Kem for Rcca<K> {
    const SCHEME: crate::wire::SchemeId = K::SCHEME;
    const CURVE: crate::curve::CurveId = K::CURVE;
    const INSECURE: bool = K::INSECURE;
    type Authority = K::Authority;
    type PublicKey = K::PublicKey;
    type UserKey = CcaKey<K>;
    type Header = RccaHeader<K>;
    type KeySide = K::KeySide;
    type CiphertextSide = K::CiphertextSide;

    fn user_key(key: IssuedKeyOf<K>, pk: &K::PublicKey) -> CcaKey<K> {
        CcaKey::new(K::user_key(key, pk), pk.clone())
    }

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &K::PublicKey,
        target: &K::CiphertextSide,
        rng: &mut R,
    ) -> Result<(SessionKey, RccaHeader<K>), KemError> {
        let y = K::blinding_base(pk);
        // R uniform in GT: Y^ρ for a random ρ (Y generates GT).
        let r = y.pow(&Fr::<K>::random(rng));
        let s = h1::<K>(&r);
        let inner = K::encapsulate_with_s(pk, target, &s, rng)?;
        let c = r * y.pow(&s);
        let inner_bytes = inner.to_bytes();
        Ok((
            h2::<K>(&r),
            RccaHeader {
                inner,
                inner_bytes,
                c,
            },
        ))
    }
    fn decapsulate(key: &CcaKey<K>, header: &RccaHeader<K>) -> Result<SessionKey, KemError> {
        let ys = K::pair(K::elements(&key.key), &header.inner, Checks::Done)?;
        open::<K>(&K::blinding_base(&key.pk), &header.c, &ys)
    }
}

impl<K: ghw11::Scheme> MadeFor<K::CiphertextSide> for RccaHeader<K> {
    fn made_for(&self) -> K::CiphertextSide {
        self.inner.made_for()
    }
}

impl<K: ghw11::Scheme> Outsourcing for Rcca<K> {
    type TransformKey = <K as Outsourcing>::TransformKey;
    type RetrievalKey = RccaRetrievalKey<K>;
    type Transformed = RccaTransformed<K>;

    fn transform_key<R: RngCore + CryptoRng>(
        key: &CcaKey<K>,
        rng: &mut R,
    ) -> (<K as Outsourcing>::TransformKey, RccaRetrievalKey<K>) {
        let (tk, rk) = K::transform_key(&key.key, rng);
        (
            tk,
            RccaRetrievalKey {
                inner: rk,
                y: K::blinding_base(&key.pk),
            },
        )
    }
    fn transform(
        tk: &<K as Outsourcing>::TransformKey,
        header: &RccaHeader<K>,
    ) -> Result<RccaTransformed<K>, KemError> {
        transformed(tk, header, Checks::Done)
    }
    fn decrypt_transformed(
        rk: &RccaRetrievalKey<K>,
        tr: &RccaTransformed<K>,
    ) -> Result<SessionKey, KemError> {
        let ys = tr.t.pow(&rk.inner.z);
        open::<K>(&rk.y, &tr.c, &ys)
    }
}

fn transformed<K: ghw11::Scheme>(
    tk: &<K as Outsourcing>::TransformKey,
    header: &RccaHeader<K>,
    checks: Checks,
) -> Result<RccaTransformed<K>, KemError> {
    let t = K::pair(&tk.elements, &header.inner, checks)?;
    Ok(RccaTransformed {
        c: header.c,
        t,
        _k: PhantomData,
    })
}

/// [`ghw11::transform_encoded`] for an RCCA header: decoded without
/// subgroup checks, `pair` checking what it pairs.
pub(crate) fn transform_encoded<K: ghw11::Scheme>(
    tk: &<K as Outsourcing>::TransformKey,
    header: &[u8],
) -> Result<RccaTransformed<K>, KemError> {
    let header = crate::wire::deferring_subgroup_checks(|| RccaHeader::<K>::from_bytes(header))?;
    transformed(tk, &header, Checks::Owed)
}

impl<K: ghw11::Scheme> Encoded for RccaHeader<K> {
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Preamble::new(
            ObjectKind::RccaKemHeader,
            K::SCHEME,
            K::CURVE,
        ));
        w.gt(&self.c).bytes(&self.inner_bytes);
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::RccaKemHeader, K::SCHEME, K::CURVE)?;
        let c = r.gt("C")?;
        let inner_bytes = r.nested("header")?.to_vec();
        let inner = K::Header::from_bytes(&inner_bytes)?;
        r.finish()?;
        Ok(RccaHeader {
            inner,
            inner_bytes,
            c,
        })
    }
}

impl<K: ghw11::Scheme> Bound for RccaHeader<K> {
    fn setup_id(&self) -> [u8; 16] {
        self.inner.setup_id()
    }
}

impl<K: ghw11::Scheme> Encoded for RccaTransformed<K> {
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Preamble::new(
            ObjectKind::RccaTransformedKemHeader,
            K::SCHEME,
            K::CURVE,
        ));
        w.gt(&self.c).gt(&self.t);
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(
            bytes,
            ObjectKind::RccaTransformedKemHeader,
            K::SCHEME,
            K::CURVE,
        )?;
        let c = r.gt("C")?;
        let t = r.gt("T")?;
        r.finish()?;
        Ok(RccaTransformed {
            c,
            t,
            _k: PhantomData,
        })
    }
}

impl<K: ghw11::Scheme> Encoded for RccaRetrievalKey<K> {
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Preamble::new(ObjectKind::RetrievalKey, K::SCHEME, K::CURVE));
        w.bytes(&self.inner.to_bytes()).gt(&self.y);
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::RetrievalKey, K::SCHEME, K::CURVE)?;
        let inner = <K as Outsourcing>::RetrievalKey::from_bytes(r.nested("retrieval key")?)?;
        let y = r.gt("Y")?;
        r.finish()?;
        Ok(RccaRetrievalKey { inner, y })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abe::Waters11;
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::policy::{AttributeSet, Policy};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn flow<C: Curve>() {
        type K<C> = Rcca<Waters11<C>>;
        let mut r = ChaCha20Rng::seed_from_u64(1);
        let (pk, mk) = crate::kem::setup::<K<C>>(&(), &mut r).unwrap();
        let policy = Policy::parse("a and (b or c)").unwrap();
        let (key, header) = K::<C>::encapsulate(&pk, &policy, &mut r).unwrap();
        let header = RccaHeader::<Waters11<C>>::from_bytes(&header.to_bytes()).unwrap();
        let uk =
            crate::kem::keygen::<K<C>>(&pk, &mk, &AttributeSet::parse("a, c").unwrap(), &mut r)
                .unwrap();
        assert_eq!(K::<C>::decapsulate(&uk, &header).unwrap(), key);
        let (tk, rk) = K::<C>::transform_key(&uk, &mut r);
        let rk = RccaRetrievalKey::<Waters11<C>>::from_bytes(&rk.to_bytes()).unwrap();
        let t = K::<C>::transform(&tk, &header).unwrap();
        let t = RccaTransformed::<Waters11<C>>::from_bytes(&t.to_bytes()).unwrap();
        assert_eq!(K::<C>::decrypt_transformed(&rk, &t).unwrap(), key);

        // A lying proxy: wrong T, mauled C, mauled T, T from another ciphertext.
        let (_, other) = K::<C>::encapsulate(&pk, &policy, &mut r).unwrap();
        let t_other = K::<C>::transform(&tk, &other).unwrap();
        let g = t.t; // any GT element the proxy might compute
        let lies = [
            RccaTransformed::<Waters11<C>> {
                c: t.c,
                t: t_other.t,
                _k: PhantomData,
            },
            RccaTransformed {
                c: t.c * g,
                t: t.t,
                _k: PhantomData,
            },
            RccaTransformed {
                c: t.c,
                t: t.t * g,
                _k: PhantomData,
            },
            RccaTransformed {
                c: t_other.c,
                t: t.t,
                _k: PhantomData,
            },
            RccaTransformed {
                c: t.c * g,
                t: t.t * g,
                _k: PhantomData,
            },
        ];
        for lie in &lies {
            assert!(matches!(
                K::<C>::decrypt_transformed(&rk, lie),
                Err(KemError::BadTransformation(_))
            ));
        }
        // A mauled C in the header is caught by direct decryption too.
        let mauled = RccaHeader::<Waters11<C>> {
            inner: header.inner,
            inner_bytes: header.inner_bytes,
            c: header.c * g,
        };
        assert!(matches!(
            K::<C>::decapsulate(&uk, &mauled),
            Err(KemError::BadTransformation(_))
        ));
        // Not satisfied stays NotSatisfied.
        let other_key =
            crate::kem::keygen::<K<C>>(&pk, &mk, &AttributeSet::parse("b, c").unwrap(), &mut r)
                .unwrap();
        assert!(matches!(
            K::<C>::decapsulate(&other_key, &other),
            Err(KemError::NotSatisfied)
        ));
    }

    #[test]
    fn rcca_round_trip_and_lying_proxies() {
        flow::<Bls12>();
        flow::<Bn254>();
    }

    /// GHW11 §4.2: the KP side (GPSW06 large universe).
    #[test]
    fn rcca_kp_gpsw06() {
        use crate::abe::Gpsw06;
        type K = Rcca<Gpsw06<Bls12>>;
        let mut r = ChaCha20Rng::seed_from_u64(3);
        let (pk, mk) = crate::kem::setup::<K>(&(), &mut r).unwrap();
        let (key, header) =
            K::encapsulate(&pk, &AttributeSet::parse("a, c").unwrap(), &mut r).unwrap();
        let uk =
            crate::kem::keygen::<K>(&pk, &mk, &Policy::parse("a and (b or c)").unwrap(), &mut r)
                .unwrap();
        assert_eq!(K::decapsulate(&uk, &header).unwrap(), key);
        let (tk, rk) = K::transform_key(&uk, &mut r);
        let t = K::transform(&tk, &header).unwrap();
        assert_eq!(K::decrypt_transformed(&rk, &t).unwrap(), key);
        let lie = RccaTransformed::<Gpsw06<Bls12>> {
            c: t.c,
            t: t.t * t.c,
            _k: PhantomData,
        };
        assert!(matches!(
            K::decrypt_transformed(&rk, &lie),
            Err(KemError::BadTransformation(_))
        ));
        let no =
            crate::kem::keygen::<K>(&pk, &mk, &Policy::parse("a and b").unwrap(), &mut r).unwrap();
        assert!(matches!(
            K::decapsulate(&no, &header),
            Err(KemError::NotSatisfied)
        ));
    }

    #[test]
    fn final_decryption_is_two_gt_exponentiations() {
        type K = Rcca<Waters11<Counted<Bls12>>>;
        let mut r = ChaCha20Rng::seed_from_u64(2);
        let (pk, mk) = crate::kem::setup::<K>(&(), &mut r).unwrap();
        let (_, header) = K::encapsulate(&pk, &Policy::parse("a and b").unwrap(), &mut r).unwrap();
        let uk = crate::kem::keygen::<K>(&pk, &mk, &AttributeSet::parse("a, b").unwrap(), &mut r)
            .unwrap();
        let (tk, rk) = K::transform_key(&uk, &mut r);
        let t = K::transform(&tk, &header).unwrap();
        let (_, n) = OpCounts::measure(|| K::decrypt_transformed(&rk, &t).unwrap());
        assert_eq!(n.gt_exp, 2);
        assert_eq!(n.miller_loops + n.final_exps, 0);
    }
}
