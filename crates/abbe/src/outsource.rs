//! GHW11 outsourced decryption for every scheme that has it: the
//! [`Outsourced`] interface the registry hands out per (scheme, curve),
//! its implementation for every [`ghw11::Scheme`] (in GHW11's CPA mode,
//! header kind 6 → 7, and RCCA mode, kind 12 → 13; `abbe schemes` shows
//! which schemes are), and what the final decryption must check
//! ([`Expect`]). The entry points on encoded objects, dispatched on
//! the preamble, are the facade's (`facade::transform_bytes`,
//! `facade::decrypt_transformed_bytes`, …), which sits above this module.

use crate::abe::ghw11;
use crate::abe::rcca::{RccaRetrievalKey, RccaTransformed};
use crate::abe::Rcca;
use crate::kem::{KemError, Outsourcing, SessionKey};
use crate::wire::{Encoded, ObjectKind, Preamble, WireError};
use std::any::Any;
use std::marker::PhantomData;

/// Why an outsourcing step failed.
#[derive(Debug, thiserror::Error)]
pub enum OutsourceError {
    /// The scheme (or its curve) has no outsourced decryption.
    #[error("{0} does not support outsourced decryption (`abbe schemes` shows which schemes do)")]
    Unsupported(&'static str),
    /// The key and the object belong to different schemes or curves.
    #[error("the {what} is for {key}, the ciphertext for {object}")]
    Mismatch {
        what: &'static str,
        key: String,
        object: String,
    },
    /// An object of the wrong kind (for example a CCA header).
    #[error("{0}")]
    Kind(String),
    #[error(transparent)]
    Kem(#[from] KemError),
    #[error(transparent)]
    Wire(#[from] WireError),
}

impl OutsourceError {
    /// True when the key's attributes/policy do not satisfy the ciphertext.
    pub fn is_not_satisfied(&self) -> bool {
        matches!(self, OutsourceError::Kem(KemError::NotSatisfied))
    }
}

/// Which GHW11 mode a KEM header is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// GHW11's CPA scheme (kind 6 → 7).
    Cpa,
    /// GHW11's RCCA scheme (kind 12 → 13), checked by the final decryption.
    Rcca,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Cpa => "cpa",
            Mode::Rcca => "rcca",
        }
    }
}

/// GHW11 outsourcing of one (scheme, curve) on encoded objects: what the
/// registry (the facade) hands out for the schemes that have it.
pub trait Outsourced: Send + Sync {
    /// Decodes a transformation key (validating every point).
    fn decode_transform_key(&self, tk: &[u8])
        -> Result<Box<dyn Any + Send + Sync>, OutsourceError>;
    /// Transforms a KEM header of `mode` with a key from
    /// [`Outsourced::decode_transform_key`].
    fn transform(
        &self,
        tk: &(dyn Any + Send + Sync),
        header: &[u8],
        mode: Mode,
    ) -> Result<Vec<u8>, OutsourceError>;
    /// The final decryption of a transformed header with a retrieval key.
    fn decrypt_transformed(
        &self,
        rk: &[u8],
        transformed: &[u8],
        allow_cpa: bool,
    ) -> Result<SessionKey, OutsourceError>;
    /// Encoded size of a GT element (the RCCA header's leading C).
    fn gt_bytes(&self) -> usize;
}

/// [`Outsourced`] for a [`ghw11::Scheme`].
pub(crate) struct Ghw11<K>(pub(crate) PhantomData<fn() -> K>);

impl<K: ghw11::Scheme + 'static> Outsourced for Ghw11<K>
where
    <K as Outsourcing>::TransformKey: Send + Sync,
{
    fn decode_transform_key(
        &self,
        tk: &[u8],
    ) -> Result<Box<dyn Any + Send + Sync>, OutsourceError> {
        Ok(Box::new(<K as Outsourcing>::TransformKey::from_bytes(tk)?))
    }
    fn transform(
        &self,
        tk: &(dyn Any + Send + Sync),
        header: &[u8],
        mode: Mode,
    ) -> Result<Vec<u8>, OutsourceError> {
        let tk = tk
            .downcast_ref::<<K as Outsourcing>::TransformKey>()
            .ok_or_else(|| OutsourceError::Kind("internal: mistyped transformation key".into()))?;
        Ok(match mode {
            Mode::Cpa => ghw11::transform_encoded(tk, header)?.to_bytes(),
            Mode::Rcca => crate::abe::rcca::transform_encoded::<K>(tk, header)?.to_bytes(),
        })
    }
    fn decrypt_transformed(
        &self,
        rk: &[u8],
        transformed: &[u8],
        allow_cpa: bool,
    ) -> Result<SessionKey, OutsourceError> {
        decrypt_transformed::<K>(rk, transformed, allow_cpa)
    }
    fn gt_bytes(&self) -> usize {
        <<K::Curve as crate::curve::Curve>::Gt as crate::curve::Target>::BYTES
    }
}

/// The mode of a KEM header object, or an error for headers that cannot be
/// outsourced.
pub fn header_mode(header: &[u8]) -> Result<Mode, OutsourceError> {
    match Preamble::parse(header)?.kind {
        ObjectKind::KemHeader => Ok(Mode::Cpa),
        ObjectKind::RccaKemHeader => Ok(Mode::Rcca),
        ObjectKind::CcaKemHeader => Err(OutsourceError::Kind(
            "CCA ciphertexts cannot be outsourced; encrypt with `--mode rcca` to use a proxy"
                .into(),
        )),
        other => Err(OutsourceError::Kind(format!(
            "cannot transform a {}",
            other.describe()
        ))),
    }
}

/// What the final decryption of a transformation must check besides the
/// RCCA equation.
///
/// Anyone with the public key can encrypt, so a proxy can hand back a
/// valid transformation of a ciphertext of its own choosing: an RCCA
/// transformation is decrypted only against the [`header_id`](crate::facade::header_id) of the
/// original the user asked about, unless the user waived that with
/// `any_original`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expect {
    /// The [`header_id`](crate::facade::header_id) of the ciphertext the user asked about: the
    /// transformation must be of that header (`--expect-header`,
    /// `--original`; with `--proxy` the id of the header sent).
    pub header_id: Option<[u8; 32]>,
    /// Decrypt an RCCA transformation without a header id: whatever
    /// ciphertext it is of (`--any-original`).
    pub any_original: bool,
    /// Accept CPA transformations (kind 7), which nothing checks: a proxy
    /// could have chosen their content (`--allow-cpa`).
    pub allow_cpa: bool,
}

/// Refusal of a CPA object where the user did not ask for CPA: nothing
/// checks a CPA ciphertext or transformation, so whoever can encrypt (or a
/// proxy) chooses what it decrypts to.
pub fn cpa_refused(what: &str) -> String {
    format!(
        "refused: this is a {what}, which is only CPA-secure and unchecked (anyone with the public key, \
         or the proxy, could have chosen its content); pass --allow-cpa if you made it with --mode cpa on purpose"
    )
}

fn decrypt_transformed<K: ghw11::Scheme>(
    rk: &[u8],
    transformed: &[u8],
    allow_cpa: bool,
) -> Result<SessionKey, OutsourceError> {
    match (Preamble::parse(rk)?.kind, Preamble::parse(transformed)?.kind) {
        (ObjectKind::RetrievalKey, ObjectKind::RccaTransformedKemHeader) => {
            Ok(Rcca::<K>::decrypt_transformed(
                &RccaRetrievalKey::<K>::from_bytes(rk)?,
                &RccaTransformed::<K>::from_bytes(transformed)?,
            )?)
        }
        (ObjectKind::RetrievalKey, ObjectKind::TransformedKemHeader) if !allow_cpa => Err(
            OutsourceError::Kind(cpa_refused("CPA transformation (kind 7)")),
        ),
        (ObjectKind::RetrievalKey, ObjectKind::TransformedKemHeader) => Ok(K::decrypt_transformed(
            RccaRetrievalKey::<K>::from_bytes(rk)?.inner(),
            &<K as Outsourcing>::Transformed::from_bytes(transformed)?,
        )?),
        // A bare retrieval key (kind 5) is made for GHW11's CPA scheme;
        // its transformations are just as unchecked.
        (ObjectKind::CpaRetrievalKey, ObjectKind::TransformedKemHeader) if !allow_cpa => Err(
            OutsourceError::Kind(cpa_refused("CPA transformation (kind 7)")),
        ),
        (ObjectKind::CpaRetrievalKey, ObjectKind::TransformedKemHeader) => Ok(K::decrypt_transformed(
            &<K as Outsourcing>::RetrievalKey::from_bytes(rk)?,
            &<K as Outsourcing>::Transformed::from_bytes(transformed)?,
        )?),
        (ObjectKind::CpaRetrievalKey, ObjectKind::RccaTransformedKemHeader) => Err(OutsourceError::Kind(
            "this bare retrieval key cannot check RCCA transformations; use the retrieval key written by `abbe transform-key`".into(),
        )),
        (k, t) => Err(OutsourceError::Kind(format!(
            "a {} cannot decrypt a {}",
            k.describe(),
            t.describe()
        ))),
    }
}
