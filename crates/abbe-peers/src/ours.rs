//! abbe's schemes as benchmark subjects, through the `Kem` interface.

use abbe::kem::MasterKeyOf;
use std::marker::PhantomData;

use abbe::kem::Outsourcing;
use abbe::policy::generate::{attr_name, flat_and};
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::Encoded;
use abbe::{Kem, SessionKey};
use rand_core::OsRng;

use crate::measure::Subject;

/// A key or ciphertext side for the flat-AND workload of N attributes.
pub trait FlatSide: Sized {
    fn flat(n: usize) -> Self;
}

impl FlatSide for Policy {
    /// `A1 and … and An` (one AND gate).
    fn flat(n: usize) -> Self {
        flat_and(n).expect("flat AND policy")
    }
}

impl FlatSide for AttributeSet {
    /// `{A1, …, An}`.
    fn flat(n: usize) -> Self {
        AttributeSet::from_names((1..=n).map(attr_name)).expect("attribute set")
    }
}

/// Every hash is recomputed on every call, as the peers do.
fn cold() {
    abbe::abe::clear_attribute_hash_cache();
}

/// Any abbe KEM, decapsulated directly.
pub struct Ours<K: Kem> {
    pk: K::PublicKey,
    mk: MasterKeyOf<K>,
    key_side: K::KeySide,
    ct_side: K::CiphertextSide,
    _k: PhantomData<K>,
}

impl<K: Kem> Subject for Ours<K>
where
    K::KeySide: FlatSide,
    K::CiphertextSide: FlatSide,
{
    type Key = K::UserKey;
    type Ct = K::Header;
    type Secret = SessionKey;

    fn new(n: usize) -> Self {
        let (pk, mk) = abbe::kem::setup::<K>(&Default::default(), &mut OsRng).unwrap();
        Ours {
            pk,
            mk,
            key_side: FlatSide::flat(n),
            ct_side: FlatSide::flat(n),
            _k: PhantomData,
        }
    }
    fn before_op(&mut self) {
        cold();
    }
    fn keygen(&mut self) -> K::UserKey {
        abbe::kem::keygen::<K>(&self.pk, &self.mk, &self.key_side, &mut OsRng).expect("keygen")
    }
    fn encrypt(&mut self) -> (SessionKey, K::Header) {
        K::encapsulate(&self.pk, &self.ct_side, &mut OsRng).expect("encapsulate")
    }
    fn decrypt(&mut self, key: &K::UserKey, ct: &K::Header) -> Option<SessionKey> {
        K::decapsulate(key, ct).ok()
    }
    fn key_bytes(&self, key: &K::UserKey) -> usize {
        key.to_bytes().len()
    }
    fn ct_bytes(&self, ct: &K::Header) -> usize {
        ct.to_bytes().len()
    }
}

/// An abbe KEM with GHW11 outsourced decryption: "decrypt" is the proxy's
/// transformation plus the user's final step (the transformation key is made
/// once, untimed, like rabe's `tkgen` in the peer).
pub struct OursOutsourced<K: Outsourcing> {
    inner: Ours<K>,
    tk: Option<(K::TransformKey, K::RetrievalKey)>,
}

impl<K: Outsourcing> Subject for OursOutsourced<K>
where
    K::KeySide: FlatSide,
    K::CiphertextSide: FlatSide,
{
    type Key = K::UserKey;
    type Ct = K::Header;
    type Secret = SessionKey;

    fn new(n: usize) -> Self {
        OursOutsourced {
            inner: Ours::new(n),
            tk: None,
        }
    }
    fn before_op(&mut self) {
        cold();
    }
    fn keygen(&mut self) -> K::UserKey {
        self.inner.keygen()
    }
    fn encrypt(&mut self) -> (SessionKey, K::Header) {
        self.inner.encrypt()
    }
    fn before_decrypt(&mut self, key: &K::UserKey, _ct: &K::Header) {
        cold();
        // The transformation key of the key under test, made once, untimed
        // (`measure` decrypts with one key throughout).
        if self.tk.is_none() {
            self.tk = Some(K::transform_key(key, &mut OsRng));
        }
    }
    fn decrypt(&mut self, _key: &K::UserKey, ct: &K::Header) -> Option<SessionKey> {
        let (tk, rk) = self.tk.as_ref()?;
        let t = K::transform(tk, ct).ok()?;
        K::decrypt_transformed(rk, &t).ok()
    }
    fn key_bytes(&self, key: &K::UserKey) -> usize {
        key.to_bytes().len()
    }
    fn ct_bytes(&self, ct: &K::Header) -> usize {
        ct.to_bytes().len()
    }
}
