//! CCA-secure KEM from any of our CPA KEMs: a Fujisaki–Okamoto-style
//! transform with re-encapsulation ("re-encrypt and compare").
//!
//! Fujisaki–Okamoto (CRYPTO '99) in the KEM form of Hofheinz–Hövelmanns–Kiltz
//! (TCC 2017, the "explicit rejection" variant), applied to ABE as OpenABE
//! does for its CCA schemes:
//!
//! ```text
//! Encapsulate(pk, target):
//!   m ←R {0,1}^256
//!   coins = HKDF(m; pk, target)                 (a ChaCha20 seed)
//!   (k, hdr) = K.Encapsulate(pk, target; coins)  (deterministic given the coins)
//!   header = (hdr, m ⊕ KDF(k))
//!   session key = HKDF(m; hdr, m ⊕ KDF(k))
//! Decapsulate((sk, pk), (hdr, c)):
//!   k = K.Decapsulate(sk, hdr)                   (NotSatisfied passes through)
//!   m = c ⊕ KDF(k)
//!   re-encapsulate with HKDF(m; pk, target(hdr)); reject unless the result
//!   equals hdr byte for byte and gives the same k
//!   session key = HKDF(m; hdr, c)
//! ```
//!
//! Why this transform: it is generic (every scheme gets CCA security from the
//! same 100 lines, with no per-scheme one-time signatures or extra group
//! elements), and the re-encapsulation check rejects *any* header that is not
//! exactly what an honest encryptor would have produced for that policy — so a
//! key that satisfies only a sub-formula, or a header with a swapped or
//! rescaled row, cannot slip through (CIRCL's tkn20 accepted such a header
//! because its check covered only part of the ciphertext). The price is one
//! re-encapsulation per decapsulation (checked in one batch, below), and the
//! decryptor needs the public key, which [`CcaKey`] carries next to the user
//! key.
//!
//! Requirement on `K`: `encapsulate` draws all its randomness from the rng it
//! is given, in a fixed order (every scheme here does, see [`crate::kem::Kem`]).
//!
//! **The re-encryption, checked in one batch.** Recomputing every point of
//! the header costs a whole encryption (one multiplication per term). A
//! scheme that encapsulates through [`Kem::encapsulate_with`] lets the check
//! skip that: re-encrypted with [`Exps::check`], it is handed the received
//! header's own points and records the combination each must equal, and all
//! the equations are tested at once, weighted by random 128-bit δ_j (see
//! [`crate::kem::exps`]: about two MSMs). The header so rebuilt must still
//! encode byte for byte as the received one and give the same key. Together
//! these say what the full comparison says — the header is exactly the
//! honest encryption under the coins of m — except with probability 2^-ℓ
//! per decryption; the security argument above is unchanged.
//!
//! The weights come from HKDF(m; public key, SHA-256 of the header): fixed
//! only once the header is, and unpredictable without m. A sender who knows
//! m (it made the header) can compute them, but not choose them: each header
//! it tries gives fresh weights (random oracle), and a modified point passes
//! with probability 2^-ℓ each time. Since it can try headers offline, the
//! weights have ℓ = the curve's security level in bits (at least 128), so a
//! forgery costs as much as breaking the curve; decryption stays
//! deterministic. The check runs to its end whichever test fails, so the
//! time of a refusal does not tell which part of the header was modified.
//!
//! What the check still costs (`abbe-peers --cca` measures it against CPA
//! decryption, cold and warm): the header's attribute hashes, recomputed
//! unless the public key's cache holds them; a constant-time MSM over the
//! terms whose secret is a row's own (Waters11's H(ρ(i))^{-r_i}, BSW07's
//! H(y)^{q_y(0)}); one variable-time MSM per secret the rows share (GPSW06's
//! s, FAME's s_1 and s_2, FABEO's and TKN20's per-occurrence r_τ); the
//! weighted sum of the received points.

use crate::kem::{Exps, IssuedKeyOf, Kem, KemError, SessionKey, Side};
use crate::wire::codec::Bound;
use crate::wire::{
    recording, Elements, Encoded, MadeFor, ObjectKind, Preamble, Reader, WireError, Writer,
};
use hkdf::Hkdf;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};
use std::marker::PhantomData;
use zeroize::Zeroize;

/// The CCA-secure version of the KEM `K`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cca<K>(PhantomData<K>);

/// A user key together with its public key (needed to re-encapsulate).
/// Broadcast keys are stored without it (format version 2: their public
/// keys are O(N)): they decode as an [`UnattachedKey`], which
/// [`UnattachedKey::attach`] makes a `CcaKey`.
pub struct CcaKey<K: Kem> {
    pub key: K::UserKey,
    pub(crate) pk: K::PublicKey,
    /// The public key's binding in the FO coins ([`pk_binding`]): computed
    /// once here rather than per decapsulation.
    pk_digest: [u8; 32],
}

/// A broadcast user key as stored (object kind 11, version 2): the issued
/// key without its public key.
pub struct UnattachedKey<K: Kem> {
    pub key: K::UserKey,
}

impl<K: Kem> UnattachedKey<K> {
    /// The key bundled with `pk`, which must be of its setup.
    pub fn attach(self, pk: &K::PublicKey) -> Result<CcaKey<K>, KemError> {
        Ok(CcaKey::new(K::attach_public_key(self.key, pk)?, pk.clone()))
    }
}

/// What binds the FO coins to the public key: SHA-256 of its encoding, or,
/// for broadcast schemes, of its setup id (which covers the whole key, and
/// is known without reading its O(N) elements).
fn pk_binding<K: Kem>(pk: &K::PublicKey) -> [u8; 32] {
    if K::SCHEME.is_broadcast() {
        Sha256::new()
            .chain_update(b"abbe/v1/fo-setup-id")
            .chain_update(pk.setup_id())
            .finalize()
            .into()
    } else {
        Sha256::digest(pk.to_bytes()).into()
    }
}

impl<K: Kem> CcaKey<K> {
    /// Bundles a user key with the public key it was issued under.
    pub fn new(key: K::UserKey, pk: K::PublicKey) -> Self {
        let pk_digest = pk_binding::<K>(&pk);
        CcaKey { key, pk, pk_digest }
    }

    /// The public key the FO check re-encapsulates under.
    pub fn public_key(&self) -> &K::PublicKey {
        &self.pk
    }

    pub(crate) fn pk_digest(&self) -> &[u8; 32] {
        &self.pk_digest
    }
}

/// The scheme's header and the masked FO seed.
pub struct CcaHeader<K: Kem> {
    pub inner: K::Header,
    inner_bytes: Vec<u8>,
    /// The header's curve elements in the order of its format, for the
    /// batched check (taken as it is decoded or encoded).
    points: Elements,
    masked: [u8; 32],
}

fn hkdf32(ikm: &[u8], salt: &[u8], info: &[&[u8]]) -> [u8; 32] {
    let hk = Hkdf::<Sha256>::new(Some(salt), ikm);
    let mut out = [0u8; 32];
    // 32 bytes is far below HKDF's output limit.
    let _ = hk.expand_multi_info(info, &mut out);
    out
}

/// The coins of the deterministic encapsulation, bound to the public key and
/// the target (`pk_digest` = SHA-256 of the public key's encoding).
fn coins<K: Kem>(m: &[u8; 32], pk_digest: &[u8; 32], target: &K::CiphertextSide) -> ChaCha20Rng {
    let target_text = target.describe();
    let mut seed = hkdf32(
        m,
        b"abbe/v1/fo",
        &[b"coins", pk_digest, target_text.as_bytes()],
    );
    let rng = ChaCha20Rng::from_seed(seed);
    seed.zeroize();
    rng
}

fn mask(k: &SessionKey) -> [u8; 32] {
    hkdf32(k.as_bytes(), b"abbe/v1/fo", &[b"mask"])
}

/// The seed of the check's weights: fixed by the header, unpredictable
/// without m.
fn weights_seed(m: &[u8; 32], pk_digest: &[u8; 32], inner_bytes: &[u8]) -> [u8; 32] {
    let digest: [u8; 32] = Sha256::digest(inner_bytes).into();
    hkdf32(m, b"abbe/v1/fo", &[b"check weights", pk_digest, &digest])
}

fn session(m: &[u8; 32], inner_bytes: &[u8], masked: &[u8; 32]) -> SessionKey {
    let digest = Sha256::new()
        .chain_update(inner_bytes)
        .chain_update(masked)
        .finalize();
    SessionKey::from_bytes(hkdf32(m, b"abbe/v1/fo", &[b"session", &digest]))
}

impl<K: Kem> Kem for Cca<K> {
    const SCHEME: crate::wire::SchemeId = K::SCHEME;
    const CURVE: crate::curve::CurveId = K::CURVE;
    const INSECURE: bool = K::INSECURE;
    type Authority = K::Authority;
    type PublicKey = K::PublicKey;
    type UserKey = CcaKey<K>;
    type Header = CcaHeader<K>;
    type KeySide = K::KeySide;
    type CiphertextSide = K::CiphertextSide;

    fn user_key(key: IssuedKeyOf<K>, pk: &K::PublicKey) -> CcaKey<K> {
        CcaKey::new(K::user_key(key, pk), pk.clone())
    }

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &K::PublicKey,
        target: &K::CiphertextSide,
        rng: &mut R,
    ) -> Result<(SessionKey, CcaHeader<K>), KemError> {
        let mut m = [0u8; 32];
        rng.fill_bytes(&mut m);
        let pk_digest = pk_binding::<K>(pk);
        let (k, inner) = K::encapsulate(pk, target, &mut coins::<K>(&m, &pk_digest, target))?;
        let mut masked = mask(&k);
        for (a, b) in masked.iter_mut().zip(&m) {
            *a ^= b;
        }
        let (inner_bytes, points) = recording(|| inner.to_bytes());
        let key = session(&m, &inner_bytes, &masked);
        m.zeroize();
        Ok((
            key,
            CcaHeader {
                inner,
                inner_bytes,
                points,
                masked,
            },
        ))
    }
    fn decapsulate(key: &CcaKey<K>, header: &CcaHeader<K>) -> Result<SessionKey, KemError> {
        use subtle::ConstantTimeEq;
        let k = K::decapsulate(&key.key, &header.inner)?;
        let mut m = mask(&k);
        for (a, b) in m.iter_mut().zip(&header.masked) {
            *a ^= b;
        }
        let target = K::ciphertext_side(&header.inner);
        let mut coins = coins::<K>(&m, key.pk_digest(), &target);
        let weights = weights_seed(&m, key.pk_digest(), &header.inner_bytes);
        let bits = K::CURVE.security_bits().max(128);
        let mut exps = Exps::check(&header.points, bits, weights);
        let (k2, again) = K::encapsulate_with(&key.pk, &target, &mut coins, &mut exps)?;
        let again = again.to_bytes();
        // Every test runs, whichever fails: the time of a refusal must not
        // tell whether the key used the modified part of the header.
        let holds = exps.holds();
        let same = (again.len() == header.inner_bytes.len())
            & bool::from(again.ct_eq(&header.inner_bytes))
            & (k2 == k)
            & holds;
        let out = session(&m, &header.inner_bytes, &header.masked);
        m.zeroize();
        if !same {
            return Err(KemError::Invalid(
                "the ciphertext was modified or is malformed (rejected by the CCA re-encryption check)".into(),
            ));
        }
        Ok(out)
    }
}

impl<K: Kem> MadeFor<K::KeySide> for CcaKey<K> {
    fn made_for(&self) -> K::KeySide {
        self.key.made_for()
    }
}

impl<K: Kem> MadeFor<K::CiphertextSide> for CcaHeader<K> {
    fn made_for(&self) -> K::CiphertextSide {
        self.inner.made_for()
    }
}

impl<K: Kem> Encoded for CcaKey<K> {
    /// A broadcast key is written without its public key (as an
    /// [`UnattachedKey`]).
    fn to_bytes(&self) -> Vec<u8> {
        if K::SCHEME.is_broadcast() {
            return unattached_bytes::<K>(&self.key);
        }
        let mut w = Writer::new(Preamble::new(ObjectKind::UserKey, K::SCHEME, K::CURVE));
        w.bytes(&self.key.to_bytes()).bytes(&self.pk.to_bytes());
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        if K::SCHEME.is_broadcast() {
            return Err(WireError::Invalid {
                what: "user key",
                detail: format!(
                    "a {} key is stored without its public key: decode it as an UnattachedKey and attach the public key",
                    K::SCHEME.name()
                ),
            });
        }
        let mut r = Reader::open_for(bytes, ObjectKind::UserKey, K::SCHEME, K::CURVE)?;
        let key = IssuedKeyOf::<K>::from_bytes(r.nested("user key")?)?;
        let pk = K::PublicKey::from_bytes(r.nested("public key")?)?;
        r.finish()?;
        Ok(CcaKey::new(K::user_key(key, &pk), pk))
    }
}

fn unattached_bytes<K: Kem>(key: &K::UserKey) -> Vec<u8> {
    let mut w = Writer::new(Preamble::new(ObjectKind::UserKey, K::SCHEME, K::CURVE));
    w.bytes(&key.to_bytes());
    w.finish()
}

impl<K: Kem> Encoded for UnattachedKey<K> {
    fn to_bytes(&self) -> Vec<u8> {
        unattached_bytes::<K>(&self.key)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::UserKey, K::SCHEME, K::CURVE)?;
        let key = IssuedKeyOf::<K>::from_bytes(r.nested("user key")?)?;
        r.finish()?;
        let key = K::unattached(key).ok_or(WireError::Invalid {
            what: "user key",
            detail: format!("a {} key carries its public key", K::SCHEME.name()),
        })?;
        Ok(UnattachedKey { key })
    }
}

impl<K: Kem> Encoded for CcaHeader<K> {
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Preamble::new(ObjectKind::CcaKemHeader, K::SCHEME, K::CURVE));
        w.bytes(&self.inner_bytes).raw(&self.masked);
        w.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, ObjectKind::CcaKemHeader, K::SCHEME, K::CURVE)?;
        let inner_bytes = r.nested("header")?.to_vec();
        let (inner, points) = recording(|| K::Header::from_bytes(&inner_bytes));
        let masked = r.array("masked seed")?;
        r.finish()?;
        Ok(CcaHeader {
            inner: inner?,
            inner_bytes,
            points,
            masked,
        })
    }
}

impl<K: Kem> Bound for CcaHeader<K> {
    fn setup_id(&self) -> [u8; 16] {
        self.inner.setup_id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abe::Waters11;
    use crate::curve::{Bls12, Bn254, Curve, Group};
    use crate::policy::{AttributeSet, Policy};

    type W = Cca<Waters11<Bls12>>;

    fn rng(seed: u64) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(seed)
    }

    fn flow<C: Curve>() {
        type K<C> = Cca<Waters11<C>>;
        let mut r = rng(1);
        let (pk, mk) = crate::kem::setup::<K<C>>(&(), &mut r).unwrap();
        let policy = Policy::parse("(a and b) or 2 of (c, d, n >= 5)").unwrap();
        let (key, header) = K::<C>::encapsulate(&pk, &policy, &mut r).unwrap();
        let header = CcaHeader::<Waters11<C>>::from_bytes(&header.to_bytes()).unwrap();
        let good =
            crate::kem::keygen::<K<C>>(&pk, &mk, &AttributeSet::parse("c, n = 7").unwrap(), &mut r)
                .unwrap();
        let good = CcaKey::<Waters11<C>>::from_bytes(&good.to_bytes()).unwrap();
        assert_eq!(K::<C>::decapsulate(&good, &header).unwrap(), key);
        let bad =
            crate::kem::keygen::<K<C>>(&pk, &mk, &AttributeSet::parse("a, c").unwrap(), &mut r)
                .unwrap();
        assert!(matches!(
            K::<C>::decapsulate(&bad, &header),
            Err(KemError::NotSatisfied)
        ));
    }

    #[test]
    fn round_trip_both_curves() {
        flow::<Bls12>();
        flow::<Bn254>();
    }

    /// Any modification of the header is rejected: every byte of the encoded
    /// CCA header flipped in turn either fails to decode, is NotSatisfied
    /// (a changed policy), or is rejected — never a different session key.
    #[test]
    fn mauled_headers_are_rejected() {
        let mut r = rng(2);
        let (pk, mk) = crate::kem::setup::<W>(&(), &mut r).unwrap();
        let policy = Policy::parse("a and (b or c)").unwrap();
        let (key, header) = W::encapsulate(&pk, &policy, &mut r).unwrap();
        let uk =
            crate::kem::keygen::<W>(&pk, &mk, &AttributeSet::parse("a, b, c").unwrap(), &mut r)
                .unwrap();
        let bytes = header.to_bytes();
        let mut rejected = 0;
        for i in 8..bytes.len() {
            let mut m = bytes.clone();
            m[i] ^= 0x01;
            if let Ok(h) = CcaHeader::<Waters11<Bls12>>::from_bytes(&m) {
                match W::decapsulate(&uk, &h) {
                    Ok(k) => assert_eq!(k, key, "byte {i}: a mauled header gave another key"),
                    Err(_) => rejected += 1,
                }
            }
        }
        assert!(rejected > 0);
    }

    /// A point of a row the key does not use, moved to another valid point,
    /// leaves the key and the rebuilt header's encoding as they were: only
    /// the batched equations see it, and they refuse it.
    #[test]
    fn a_row_the_key_does_not_use_is_checked_too() {
        let mut r = rng(4);
        let (pk, mk) = crate::kem::setup::<W>(&(), &mut r).unwrap();
        let (_, header) = W::encapsulate(&pk, &Policy::parse("a or b").unwrap(), &mut r).unwrap();
        let only_a =
            crate::kem::keygen::<W>(&pk, &mk, &AttributeSet::parse("a").unwrap(), &mut r).unwrap();
        // The header's last element is row b's D ∈ G1, just before the seed.
        let mut bytes = header.to_bytes();
        type G1 = <Bls12 as Curve>::G1;
        let n = <G1 as Group>::COMPRESSED_BYTES;
        let at = bytes.len() - 32 - n;
        let d = <G1 as Group>::from_compressed(&bytes[at..at + n]).unwrap();
        let moved = d + <G1 as Group>::generator();
        bytes[at..at + n].copy_from_slice(&Group::to_compressed(&moved));
        let moved = CcaHeader::<Waters11<Bls12>>::from_bytes(&bytes).unwrap();
        assert!(matches!(
            W::decapsulate(&only_a, &moved),
            Err(KemError::Invalid(_))
        ));
    }

    /// A header assembled from an honest one with a row replaced (so that a
    /// key satisfying only part of the policy could use it) is rejected.
    #[test]
    fn sub_formula_keys_fail_and_spliced_headers_are_rejected() {
        let mut r = rng(3);
        let (pk, mk) = crate::kem::setup::<W>(&(), &mut r).unwrap();
        let and = Policy::parse("a and b").unwrap();
        let or = Policy::parse("a or b").unwrap();
        let (_, h_and) = W::encapsulate(&pk, &and, &mut r).unwrap();
        let (_, h_or) = W::encapsulate(&pk, &or, &mut r).unwrap();
        let only_a =
            crate::kem::keygen::<W>(&pk, &mk, &AttributeSet::parse("a").unwrap(), &mut r).unwrap();
        assert!(matches!(
            W::decapsulate(&only_a, &h_and),
            Err(KemError::NotSatisfied)
        ));
        // Splice: the OR header's inner header with the AND header's seed.
        let (inner, points) = recording(|| {
            crate::abe::waters11::Header::<Bls12>::from_bytes(&h_or.inner_bytes).unwrap()
        });
        let spliced = CcaHeader::<Waters11<Bls12>> {
            inner,
            inner_bytes: h_or.inner_bytes.clone(),
            points,
            masked: h_and.masked,
        };
        assert!(matches!(
            W::decapsulate(&only_a, &spliced),
            Err(KemError::Invalid(_))
        ));
    }
}
