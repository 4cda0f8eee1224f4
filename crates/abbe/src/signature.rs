//! BLS signatures (Boneh–Lynn–Shacham, J. Cryptology 2004), as specified by
//! draft-irtf-cfrg-bls-signature-05: the **minimal-signature-size** variant
//! ("min-sig"), basic scheme (§3.1, `NUL` ciphersuites), written once over
//! the curve layer so every security level signs with its own curve.
//!
//! They give the envelope AES4SeC's integrity, authentication and
//! non-repudiation (detabe §III): the owner signs the KEM header and the
//! whole plaintext, and the signature travels *inside* the encryption, so only
//! authorised readers learn who signed ([`crate::envelope`]).
//!
//! Notation of the draft (§2.4–2.7), Type-III placement:
//!
//! * SK: a scalar x ∈ Z_r.
//! * PK = g2^x ∈ **G2** — SkToPk.
//! * σ = H(m)^x ∈ **G1**, H = hash to G1 — CoreSign.
//! * CoreVerify: e(σ, g2) = e(H(m), PK), checked as one multi-pairing
//!   e(σ, −g2)·e(H(m), PK) = 1 with a single final exponentiation.
//!
//! Why min-sig (σ in G1, PK in G2): a signature travels in every signed file
//! while a public key is published once, so the short group carries the
//! signature (48 bytes on BLS12-381 instead of 96); signing is one G1
//! exponentiation, cheaper than one in G2 on every curve here.
//!
//! On BLS12-381 this is exactly the draft's ciphersuite
//! `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_` (hash to G1 is RFC 9380's
//! suite); a test checks that our signatures equal `blst`'s `min_sig`
//! signatures bit for bit and that each verifies the other's. On BN254,
//! BLS24-479 and BLS48-581 the draft defines no ciphersuite; the same
//! construction runs with the curve layer's hash to G1 (try-and-increment
//! on BN254, SvdW on the BLS24/48 curves) and the domain separation tag
//! `ABBE_BLS_SIG_<CURVE>G1_NUL_`.
//!
//! Key generation draws x uniformly from the OS RNG (the draft's KeyGen from
//! IKM is one admissible way; any uniform x is a valid key). The public key
//! is checked on decoding: canonical, in the prime-order subgroup and not the
//! identity (KeyValidate, §2.5); signatures are checked to be canonical
//! subgroup points (§2.8 step 2).

use crate::curve::{Curve, CurveId, Group, PointError, Scalar, Target};
use crate::wire::{self, ObjectKind, Preamble, Reader, SchemeId, WireError, Writer};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use zeroize::Zeroizing;

/// Signature errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("bad signature encoding: {0}")]
    Point(#[from] PointError),
    #[error("the signature does not verify")]
    Invalid,
    #[error("signatures need a pairing curve; {0} has none")]
    NoPairing(&'static str),
    #[error("signing keys exist only in the standard placement; sign with a key of the underlying curve")]
    Swapped,
}

/// BLS signatures over the curve `C`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bls<C: Curve>(PhantomData<C>);

/// A signing key: x, and PK = g2^x kept beside it (computing it again costs
/// a G2 exponentiation, the dearest on BLS48-581: the `curve` bench).
pub struct SigningKey<C: Curve> {
    x: C::Scalar,
    pk: C::G2,
}

impl<C: Curve> Drop for SigningKey<C> {
    fn drop(&mut self) {
        crate::curve::wipe(&mut self.x, C::Scalar::zero());
    }
}

/// A verifying (public) key PK ∈ G2.
#[derive(Clone, Copy, Debug)]
pub struct VerifyingKey<C: Curve> {
    pub pk: C::G2,
}

impl<C: Curve> PartialEq for VerifyingKey<C> {
    fn eq(&self, other: &Self) -> bool {
        self.pk == other.pk
    }
}
impl<C: Curve> Eq for VerifyingKey<C> {}

/// The domain separation tag of the curve's ciphersuite.
pub fn dst(curve: CurveId) -> Vec<u8> {
    match curve {
        CurveId::Bls12_381 => b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_".to_vec(),
        other => format!(
            "ABBE_BLS_SIG_{}G1_NUL_",
            other.name().to_ascii_uppercase().replace('-', "")
        )
        .into_bytes(),
    }
}

impl<C: Curve> Bls<C> {
    pub fn keygen<R: RngCore + CryptoRng>(rng: &mut R) -> SigningKey<C> {
        let x = loop {
            let x = C::Scalar::random(rng);
            if !x.is_zero() {
                break x;
            }
        };
        SigningKey {
            x,
            pk: C::G2::generator().mul_secret(&x),
        }
    }

    /// CoreSign: σ = H(m)^x.
    pub fn sign(sk: &SigningKey<C>, msg: &[u8]) -> C::G1 {
        C::G1::hash_to_curve(msg, &dst(C::ID)).mul_secret(&sk.x)
    }

    /// CoreVerify: e(σ, g2) = e(H(m), PK), one multi-pairing.
    pub fn verify(vk: &VerifyingKey<C>, msg: &[u8], sig: &C::G1) -> Result<(), SignatureError> {
        if vk.pk.is_identity() || sig.is_identity() {
            return Err(SignatureError::Invalid);
        }
        let h = C::G1::hash_to_curve(msg, &dst(C::ID));
        let neg_g2 = C::prepare(&-C::G2::generator());
        let pk = C::prepare(&vk.pk);
        if C::multi_pairing(&[(*sig, &neg_g2), (h, &pk)]).is_one() {
            Ok(())
        } else {
            Err(SignatureError::Invalid)
        }
    }
}

impl<C: Curve> SigningKey<C> {
    pub fn verifying_key(&self) -> VerifyingKey<C> {
        VerifyingKey { pk: self.pk }
    }

    /// Signing-key object (kind 15): preamble ‖ x (scalar) ‖ PK (G2).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut w = Writer::new(Preamble::new(
            ObjectKind::SigningKey,
            SchemeId::BlsSig,
            C::ID,
        ));
        w.scalar(&self.x).point(&self.pk);
        Zeroizing::new(w.finish())
    }

    /// Decodes a signing key and checks PK = g2^x.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SignatureError> {
        let mut r = Reader::open_for(bytes, ObjectKind::SigningKey, SchemeId::BlsSig, C::ID)?;
        let x: C::Scalar = r.scalar("signing key")?;
        let pk: C::G2 = r.point("signature public key")?;
        r.finish()?;
        let key = SigningKey { x, pk };
        if x.is_zero() || C::G2::generator().mul_secret(&x) != pk {
            return Err(WireError::Invalid {
                what: "signing key",
                detail: "its public key does not match its secret".into(),
            }
            .into());
        }
        Ok(key)
    }
}

impl<C: Curve> VerifyingKey<C> {
    /// Verifying-key object (kind 16): preamble ‖ PK (G2).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Preamble::new(
            ObjectKind::VerifyingKey,
            SchemeId::BlsSig,
            C::ID,
        ));
        w.point(&self.pk);
        w.finish()
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SignatureError> {
        let mut r = Reader::open_for(bytes, ObjectKind::VerifyingKey, SchemeId::BlsSig, C::ID)?;
        let pk = Self::from_point_bytes(r.take(C::G2::COMPRESSED_BYTES, "signature public key")?)?;
        r.finish()?;
        Ok(pk)
    }

    /// KeyValidate on a bare compressed PK.
    pub fn from_point_bytes(bytes: &[u8]) -> Result<Self, SignatureError> {
        let pk = C::G2::from_compressed(bytes)?;
        if pk.is_identity() {
            return Err(PointError::Identity("signature public key").into());
        }
        Ok(VerifyingKey { pk })
    }
}

/// Runs `$body` with `$C` bound to the pairing curve `$id`; P-256 has no
/// pairing and returns [`SignatureError::NoPairing`].
macro_rules! on_pairing_curve {
    ($id:expr, $C:ident => $body:expr) => {
        match $id {
            CurveId::Bls12_381 => {
                type $C = crate::curve::Bls12;
                $body
            }
            CurveId::Bn254 => {
                type $C = crate::curve::Bn254;
                $body
            }
            CurveId::Bls24_479 => {
                type $C = crate::curve::Bls24;
                $body
            }
            CurveId::Bls48_581 => {
                type $C = crate::curve::Bls48;
                $body
            }
            CurveId::P256 => Err(SignatureError::NoPairing("P-256")),
            // Signatures have one placement (σ in G1, PK in G2).
            CurveId::Bls12_381Swapped
            | CurveId::Bn254Swapped
            | CurveId::Bls24_479Swapped
            | CurveId::Bls48_581Swapped => Err(SignatureError::Swapped),
        }
    };
}

/// Bytes of PK ‖ σ on `curve` (the signature block of a signed file).
pub fn block_len(curve: CurveId) -> Option<usize> {
    on_pairing_curve!(curve, C => Ok(<C as Curve>::G2::COMPRESSED_BYTES + <C as Curve>::G1::COMPRESSED_BYTES)).ok()
}

/// Bytes of the compressed PK at the start of a signature block.
pub fn public_key_len(curve: CurveId) -> Option<usize> {
    on_pairing_curve!(curve, C => Ok(<C as Curve>::G2::COMPRESSED_BYTES)).ok()
}

/// A decoded signing key of any curve, for code that handles objects as bytes.
pub struct AnySigningKey(AnyKey);

enum AnyKey {
    Bls12(Box<SigningKey<crate::curve::Bls12>>),
    Bn254(Box<SigningKey<crate::curve::Bn254>>),
    Bls24(Box<SigningKey<crate::curve::Bls24>>),
    Bls48(Box<SigningKey<crate::curve::Bls48>>),
}

/// Runs `$body` with `$k` bound to the typed key inside an [`AnySigningKey`].
macro_rules! with_key {
    ($any:expr, $k:ident => $body:expr) => {
        match &$any.0 {
            AnyKey::Bls12($k) => $body,
            AnyKey::Bn254($k) => $body,
            AnyKey::Bls24($k) => $body,
            AnyKey::Bls48($k) => $body,
        }
    };
}

impl AnySigningKey {
    /// Decodes and validates a signing-key object (kind 15).
    pub fn from_bytes(bytes: &[u8]) -> Result<AnySigningKey, SignatureError> {
        let pre = Preamble::parse(bytes)?;
        Ok(AnySigningKey(match pre.curve {
            CurveId::Bls12_381 => AnyKey::Bls12(Box::new(SigningKey::from_bytes(bytes)?)),
            CurveId::Bn254 => AnyKey::Bn254(Box::new(SigningKey::from_bytes(bytes)?)),
            CurveId::Bls24_479 => AnyKey::Bls24(Box::new(SigningKey::from_bytes(bytes)?)),
            CurveId::Bls48_581 => AnyKey::Bls48(Box::new(SigningKey::from_bytes(bytes)?)),
            CurveId::P256 => return Err(SignatureError::NoPairing("P-256")),
            _ => return Err(SignatureError::Swapped),
        }))
    }

    /// A new signing key on `curve`: (signing-key object, verifying-key
    /// object).
    pub fn generate<R: RngCore + CryptoRng>(
        curve: CurveId,
        rng: &mut R,
    ) -> Result<(Zeroizing<Vec<u8>>, Vec<u8>), SignatureError> {
        on_pairing_curve!(curve, C => {
            let sk = Bls::<C>::keygen(rng);
            Ok((sk.to_bytes(), sk.verifying_key().to_bytes()))
        })
    }

    pub fn curve(&self) -> CurveId {
        with_key!(self, k => key_curve(k))
    }

    /// The verifying-key object (kind 16).
    pub fn verifying_key(&self) -> Vec<u8> {
        with_key!(self, k => k.verifying_key().to_bytes())
    }

    /// Signs `msg`: returns PK ‖ σ (compressed), [`block_len`] bytes.
    pub fn sign_block(&self, msg: &[u8]) -> Vec<u8> {
        with_key!(self, k => sign_block(k, msg))
    }
}

fn key_curve<C: Curve>(_: &SigningKey<C>) -> CurveId {
    C::ID
}

fn sign_block<C: Curve>(k: &SigningKey<C>, msg: &[u8]) -> Vec<u8> {
    let mut out = k.pk.to_compressed();
    out.extend_from_slice(&Bls::<C>::sign(k, msg).to_compressed());
    out
}

/// Verifies a signature block PK ‖ σ on `curve` over `msg`.
pub fn verify_block(curve: CurveId, block: &[u8], msg: &[u8]) -> Result<(), SignatureError> {
    on_pairing_curve!(curve, C => {
        let n = <C as Curve>::G2::COMPRESSED_BYTES;
        if block.len() != n + <C as Curve>::G1::COMPRESSED_BYTES {
            return Err(SignatureError::Invalid);
        }
        let vk = VerifyingKey::<C>::from_point_bytes(&block[..n])?;
        let sig = <<C as Curve>::G1 as Group>::from_compressed(&block[n..])?;
        Bls::<C>::verify(&vk, msg, &sig)
    })
}

/// The compressed PK inside a verifying-key object (kind 16), after checking
/// it (KeyValidate); its curve comes from the preamble.
pub fn verifying_key_point(object: &[u8]) -> Result<(CurveId, Vec<u8>), SignatureError> {
    let pre = Preamble::parse(object)?;
    on_pairing_curve!(pre.curve, C => VerifyingKey::<C>::from_bytes(object).map(|k| (pre.curve, Group::to_compressed(&k.pk))))
}

/// A short fingerprint of a verifying key: the first 8 bytes of
/// SHA-256(verifying-key object), in hex.
pub fn fingerprint(curve: CurveId, pk_point: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut obj = Preamble::new(ObjectKind::VerifyingKey, SchemeId::BlsSig, curve)
        .to_bytes()
        .to_vec();
    obj.extend_from_slice(pk_point);
    wire::hex(&Sha256::digest(&obj)[..8])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Bls24, Bls48, Bn254};
    use rand_chacha::rand_core::SeedableRng;

    fn round_trip<C: Curve>() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let sk = Bls::<C>::keygen(&mut rng);
        let vk = sk.verifying_key();
        let sig = Bls::<C>::sign(&sk, b"message");
        Bls::<C>::verify(&vk, b"message", &sig).unwrap();
        assert_eq!(
            Bls::<C>::verify(&vk, b"messagf", &sig),
            Err(SignatureError::Invalid)
        );
        let other = Bls::<C>::keygen(&mut rng).verifying_key();
        assert_eq!(
            Bls::<C>::verify(&other, b"message", &sig),
            Err(SignatureError::Invalid)
        );
        // Encodings round-trip and are validated.
        let skb = sk.to_bytes();
        let sk2 = SigningKey::<C>::from_bytes(&skb).unwrap();
        assert_eq!(sk2.verifying_key(), vk);
        let vkb = vk.to_bytes();
        assert_eq!(VerifyingKey::<C>::from_bytes(&vkb).unwrap(), vk);
        // A signing key whose PK does not match x is refused.
        let mut bad = skb.to_vec();
        let n = bad.len();
        bad[n - C::G2::COMPRESSED_BYTES..].copy_from_slice(&other.pk.to_compressed());
        assert!(SigningKey::<C>::from_bytes(&bad).is_err());
        // The byte-level API agrees.
        let any = AnySigningKey::from_bytes(&skb).unwrap();
        assert_eq!(any.verifying_key(), vkb);
        let block = any.sign_block(b"m2");
        assert_eq!(Some(block.len()), block_len(C::ID));
        verify_block(C::ID, &block, b"m2").unwrap();
        assert!(verify_block(C::ID, &block, b"m3").is_err());
        // Every byte on the fast curves; a spread of 24 (both ends included)
        // on the high-security ones, whose verifications are slow.
        let step = if C::ID.level() > 128 {
            block.len() / 24
        } else {
            1
        };
        for i in (0..block.len())
            .step_by(step.max(1))
            .chain([block.len() - 1])
        {
            let mut b = block.clone();
            b[i] ^= 0x40;
            assert!(verify_block(C::ID, &b, b"m2").is_err(), "flip at {i}");
        }
        assert!(verify_block(C::ID, &block[1..], b"m2").is_err());
    }

    #[test]
    fn round_trip_bls12() {
        round_trip::<Bls12>();
    }

    #[test]
    fn round_trip_bn254() {
        round_trip::<Bn254>();
    }

    #[test]
    fn round_trip_bls24() {
        round_trip::<Bls24>();
    }

    #[test]
    fn round_trip_bls48() {
        round_trip::<Bls48>();
    }

    /// On BLS12-381 our signatures are the IETF draft's min-sig ciphersuite:
    /// equal to blst's, bit for bit, and each verifies the other's.
    #[test]
    fn bls12_matches_blst_min_sig() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        let sk = Bls::<Bls12>::keygen(&mut rng);
        let skb = sk.to_bytes();
        let x = &skb[crate::wire::PREAMBLE_LEN..crate::wire::PREAMBLE_LEN + 32];
        let bsk = blst::min_sig::SecretKey::from_bytes(x).unwrap();
        assert_eq!(
            bsk.sk_to_pk().compress().to_vec(),
            Group::to_compressed(&sk.verifying_key().pk)
        );
        let dst = dst(CurveId::Bls12_381);
        for msg in [&b""[..], b"abc", &[0x5a; 300]] {
            let ours = Group::to_compressed(&Bls::<Bls12>::sign(&sk, msg));
            let theirs = bsk.sign(msg, &dst, &[]);
            assert_eq!(ours, theirs.compress().to_vec());
            let sig = blst::min_sig::Signature::from_bytes(&ours).unwrap();
            assert_eq!(
                sig.verify(true, msg, &dst, &[], &bsk.sk_to_pk(), true),
                blst::BLST_ERROR::BLST_SUCCESS
            );
        }
    }

    #[test]
    fn identity_keys_and_signatures_are_refused() {
        let id = <Bls12 as Curve>::G2::identity().to_compressed();
        assert!(VerifyingKey::<Bls12>::from_point_bytes(&id).is_err());
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let vk = Bls::<Bls12>::keygen(&mut rng).verifying_key();
        assert_eq!(
            Bls::<Bls12>::verify(&vk, b"m", &<Bls12 as Curve>::G1::identity()),
            Err(SignatureError::Invalid)
        );
        assert_eq!(block_len(CurveId::P256), None);
    }

    proptest::proptest! {
        #[test]
        fn decoders_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = AnySigningKey::from_bytes(&bytes);
            let _ = verifying_key_point(&bytes);
            let _ = verify_block(CurveId::Bls12_381, &bytes, b"m");
            let _ = verify_block(CurveId::Bn254, &bytes, b"m");
        }
    }
}
