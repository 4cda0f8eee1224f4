//! What a KEM offers beyond encapsulation, for [`super::entry::Entry`]:
//! GHW11 outsourcing, traitor tracing, or neither.

use super::entry::{decodes, described, side_label};
use super::{traceable_names, Error, TraceResult, Tracing};
use crate::abe::cca::CcaKey;
use crate::abe::rcca::{RccaHeader, RccaRetrievalKey, RccaTransformed};
use crate::abe::{ghw11, Rcca};
use crate::bcast::trace::Traceable;
use crate::bcast::Source;
use crate::kem::{Authority, Kem, MasterKeyOf, Outsourcing, SessionKey, Side};
use crate::outsource::{self, OutsourceError};
use crate::wire::codec::Bound;
use crate::wire::{self, Encoded, ObjectKind};
use rand_core::CryptoRngCore;
use std::marker::PhantomData;
use zeroize::Zeroizing;

/// What a KEM offers beyond encapsulation: GHW11 outsourcing ([`Ghw11`],
/// for [`ghw11::Scheme`]s), traitor tracing ([`Traced`], for [`Traceable`]s), or
/// neither ([`Plain`]); what a scheme lacks is refused.
pub(super) trait Extension<K: Kem> {
    /// GHW11 outsourced decryption (RCCA and CPA modes, transform keys).
    const SUPPORTED: bool = false;
    /// Traitor tracing; ciphertexts are CPA-mode only.
    const TRACEABLE: bool = false;
    fn outsourced() -> Option<&'static dyn outsource::Outsourced> {
        None
    }
    fn encapsulate_rcca(
        _: &K::PublicKey,
        _: &K::CiphertextSide,
        _: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error> {
        Err(no_outsourcing::<K>())
    }
    fn decapsulate_rcca(_: &CcaKey<K>, _: &[u8]) -> Result<SessionKey, Error> {
        Err(no_outsourcing::<K>())
    }
    fn transform_key(
        _: &CcaKey<K>,
        _: &mut dyn CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error> {
        Err(no_outsourcing::<K>())
    }
    fn describe_rcca(_: &[u8]) -> Result<Vec<(String, String)>, Error> {
        Err(no_outsourcing::<K>())
    }
    fn format_rows() -> Vec<Option<(ObjectKind, String)>> {
        Vec::new()
    }
    /// Decodes an outsourcing object of `kind`; `false` for other kinds.
    fn check_object(_kind: ObjectKind, _bytes: &[u8]) -> Result<bool, Error> {
        Ok(false)
    }
    /// [`Scheme::trace`].
    fn trace(_: Source, _: Option<&[u8]>, _: Option<&str>, _: &mut Tracing<'_>) -> TraceResult {
        Err(Error::Unsupported(format!(
            "{} has no traitor tracing (traceable: {})",
            K::SCHEME.name(),
            traceable_names()
        )))
    }
}

pub(super) struct Plain;
pub(super) struct Ghw11;
pub(super) struct Traced;

pub(super) fn no_outsourcing<K: Kem>() -> Error {
    OutsourceError::Unsupported(K::SCHEME.name()).into()
}

impl<K: Kem> Extension<K> for Plain {}

impl<K: Traceable + 'static> Extension<K> for Traced {
    const TRACEABLE: bool = true;
    fn trace(
        pk: Source,
        mk: Option<&[u8]>,
        target: Option<&str>,
        t: &mut Tracing<'_>,
    ) -> TraceResult {
        let pk = K::Authority::open_public_key(pk)?;
        let mk = mk.map(MasterKeyOf::<K>::from_bytes).transpose()?;
        if let Some(mk) = &mk {
            if !K::Authority::is_public_key_of(&pk, mk) {
                return Err(Error::Invalid(
                    "the public key given is not the public key of this master key's setup".into(),
                ));
            }
        }
        let target = target.map(K::CiphertextSide::parse).transpose()?;
        super::tracing::trace_kem::<K>(
            &pk,
            mk.as_ref(),
            target.as_ref(),
            t.options,
            t.decoder,
            t.progress,
            &mut &mut *t.rng,
        )
    }
}

impl<K: ghw11::Scheme + 'static> Extension<K> for Ghw11
where
    <K as Outsourcing>::TransformKey: Send + Sync,
{
    const SUPPORTED: bool = true;
    fn outsourced() -> Option<&'static dyn outsource::Outsourced> {
        Some(&outsource::Ghw11::<K>(PhantomData))
    }
    fn encapsulate_rcca(
        pk: &K::PublicKey,
        target: &K::CiphertextSide,
        mut rng: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error> {
        let (k, h) = Rcca::<K>::encapsulate(pk, target, &mut rng)?;
        Ok((k, h.to_bytes()))
    }
    fn decapsulate_rcca(key: &CcaKey<K>, header: &[u8]) -> Result<SessionKey, Error> {
        Ok(Rcca::<K>::decapsulate(
            key,
            &RccaHeader::<K>::from_bytes(header)?,
        )?)
    }
    fn transform_key(
        key: &CcaKey<K>,
        mut rng: &mut dyn CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error> {
        let (tk, rk) = Rcca::<K>::transform_key(key, &mut rng);
        Ok((tk.to_bytes(), Zeroizing::new(rk.to_bytes())))
    }
    fn describe_rcca(header: &[u8]) -> Result<Vec<(String, String)>, Error> {
        let h = RccaHeader::<K>::from_bytes(header)?;
        let mut out = vec![("setup id".into(), wire::hex(&h.setup_id()))];
        described::<K, _>(
            &mut out,
            side_label(<K::CiphertextSide as Side>::KIND),
            &K::ciphertext_side(&h.inner),
            false,
        );
        out.push(("security".into(), "RCCA (GHW11), outsourceable".into()));
        Ok(out)
    }
    fn check_object(kind: ObjectKind, b: &[u8]) -> Result<bool, Error> {
        match kind {
            ObjectKind::RccaKemHeader => decodes::<RccaHeader<K>>(b)?,
            ObjectKind::TransformationKey => decodes::<<K as Outsourcing>::TransformKey>(b)?,
            ObjectKind::CpaRetrievalKey => decodes::<<K as Outsourcing>::RetrievalKey>(b)?,
            ObjectKind::TransformedKemHeader => decodes::<<K as Outsourcing>::Transformed>(b)?,
            ObjectKind::RetrievalKey => decodes::<RccaRetrievalKey<K>>(b)?,
            ObjectKind::RccaTransformedKemHeader => decodes::<RccaTransformed<K>>(b)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
    fn format_rows() -> Vec<Option<(ObjectKind, String)>> {
        vec![
            <K as Outsourcing>::TransformKey::format_row(),
            <K as Outsourcing>::RetrievalKey::format_row(),
            <K as Outsourcing>::Transformed::format_row(),
        ]
    }
}
