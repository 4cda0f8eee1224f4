//! Type erasure: [`Entry`] implements the object-safe [`Scheme`] (and its
//! keys [`PublicKey`], [`UserKey`]) for one KEM on encoded objects.

use super::extension::{no_outsourcing, Extension};
use super::{names_where, Error, Info, Mode, PublicKey, Scheme, TraceResult, Tracing, UserKey};
use crate::abe::cca::{CcaHeader, CcaKey, UnattachedKey};
use crate::abe::Cca;
use crate::bcast::Source;
use crate::kem::{
    self, Authority, Kem, KemError, MasterKeyOf, Params, ParamsKind, ParamsOf, SessionKey,
    SetupParams, Side, SideInput, SideKind,
};
use crate::outsource;
use crate::policy::expiry::{self, Day};
use crate::wire::codec::Bound;
use crate::wire::MadeFor;
use crate::wire::{self, Encoded, ObjectKind, Preamble};
use rand_core::CryptoRngCore;
use std::marker::PhantomData;
use zeroize::Zeroizing;

/// The generic implementation of [`Scheme`] for the KEM `K`, with GHW11
/// outsourcing when `O` is [`super::extension::Ghw11`], traitor tracing when
/// [`super::extension::Traced`].
pub(super) struct Entry<K, O>(pub(super) PhantomData<fn() -> (K, O)>);

struct EntryPublicKey<K: Kem, O> {
    pk: K::PublicKey,
    _o: PhantomData<fn() -> O>,
}

impl<K: Kem + 'static, O: Extension<K> + 'static> PublicKey for EntryPublicKey<K, O> {
    fn info(&self) -> Info {
        Entry::<K, O>(PhantomData).info()
    }

    fn encapsulate_on(
        &self,
        target: SideInput<'_>,
        mode: Mode,
        on: Option<Day>,
        mut rng: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error> {
        if O::TRACEABLE && mode != Mode::Cpa {
            return Err(Error::Unsupported(format!(
                "{} is a traitor-tracing scheme: its ciphertexts are CPA-mode only (--mode cpa), \
                 because a CCA check would let a pirate decoder refuse the tracer's ciphertexts",
                K::SCHEME.name()
            )));
        }
        if mode != Mode::Cca && !O::SUPPORTED && !O::TRACEABLE {
            return Err(no_outsourcing::<K>());
        }
        let target = target.parse::<K::CiphertextSide>()?;
        let target = if dates::<K>() {
            target.for_ciphertext(on)?
        } else {
            target
        };
        let pk = &self.pk;
        match mode {
            Mode::Cca => {
                let (k, h) = Cca::<K>::encapsulate(pk, &target, &mut rng)?;
                Ok((k, h.to_bytes()))
            }
            Mode::Cpa => {
                let (k, h) = K::encapsulate(pk, &target, &mut rng)?;
                Ok((k, h.to_bytes()))
            }
            Mode::Rcca => O::encapsulate_rcca(pk, &target, rng),
        }
    }
}

enum EntryKey<K: Kem> {
    /// What `abbe keygen` writes: opens every mode.
    Bundle(CcaKey<K>),
    /// A bare scheme key: opens only CPA headers.
    Bare(K::UserKey),
    /// A broadcast key whose public key was not given: opens nothing.
    Unattached,
}

struct EntryUserKey<K: Kem, O> {
    key: EntryKey<K>,
    _o: PhantomData<fn() -> O>,
}

impl<K: Kem + 'static, O: Extension<K> + 'static> UserKey for EntryUserKey<K, O> {
    fn info(&self) -> Info {
        Entry::<K, O>(PhantomData).info()
    }

    fn decapsulate(&self, header: &[u8], allow_cpa: bool) -> Result<SessionKey, Error> {
        match self.open(header, allow_cpa) {
            Err(Error::NotSatisfied) => Err(self
                .why_refused(header)
                .map_or(Error::NotSatisfied, Error::Expired)),
            r => r,
        }
    }
}

impl<K: Kem, O: Extension<K>> EntryUserKey<K, O> {
    /// When expiry is why this key cannot open `header` (whose policy its
    /// attributes may satisfy), the message that says so.
    fn why_refused(&self, header: &[u8]) -> Option<String> {
        let key = match &self.key {
            EntryKey::Bundle(k) => k.key.made_for(),
            EntryKey::Bare(k) => k.made_for(),
            EntryKey::Unattached => return None,
        };
        let file = match kind_of(header).ok()? {
            ObjectKind::CcaKemHeader => CcaHeader::<K>::from_bytes(header).ok()?.made_for(),
            ObjectKind::KemHeader => K::Header::from_bytes(header).ok()?.made_for(),
            _ => return None,
        };
        expiry::why_refused(key.dated(), file.dated())
    }

    fn open(&self, header: &[u8], allow_cpa: bool) -> Result<SessionKey, Error> {
        match (&self.key, kind_of(header)?) {
            (EntryKey::Bundle(_), ObjectKind::KemHeader) if !allow_cpa && !O::TRACEABLE => Err(Error::Invalid(
                outsource::cpa_refused("CPA ciphertext (encrypted with --mode cpa)"),
            )),
            (EntryKey::Bundle(k), ObjectKind::CcaKemHeader) => Ok(Cca::<K>::decapsulate(
                k,
                &CcaHeader::<K>::from_bytes(header)?,
            )?),
            (EntryKey::Bundle(k), ObjectKind::RccaKemHeader) => O::decapsulate_rcca(k, header),
            (EntryKey::Bundle(k), ObjectKind::KemHeader) => Ok(K::decapsulate(
                &k.key,
                &K::Header::from_bytes(header)?,
            )?),
            (EntryKey::Bare(k), ObjectKind::KemHeader) => {
                Ok(K::decapsulate(k, &K::Header::from_bytes(header)?)?)
            }
            (EntryKey::Unattached, _) => Err(Error::Invalid(format!(
                "a {} key decrypts with its setup's public key, which was not given (abbe decrypt --public)",
                K::SCHEME.name()
            ))),
            (EntryKey::Bare(_), ObjectKind::CcaKemHeader | ObjectKind::RccaKemHeader) => {
                Err(Error::Invalid(
                    "this bare key cannot check CCA ciphertexts; use the key file written by `abbe keygen`"
                        .into(),
                ))
            }
            (k, h) => Err(Error::Invalid(format!(
                "a {} cannot decrypt a {}",
                match k {
                    EntryKey::Bare(_) => ObjectKind::SchemeUserKey.describe(),
                    _ => ObjectKind::UserKey.describe(),
                },
                h.describe()
            ))),
        }
    }
}

fn not_its_public_key(e: KemError) -> Error {
    match e {
        KemError::WrongSetup => {
            Error::Invalid("the public key given is not the public key of this key's setup".into())
        }
        other => other.into(),
    }
}

/// Strictly decodes `b` as a `T`, for [`Scheme::check_object`].
pub(super) fn decodes<T: Encoded>(b: &[u8]) -> Result<(), Error> {
    T::from_bytes(b).map(|_| ()).map_err(Error::from)
}

pub(super) fn side_label(kind: SideKind) -> String {
    match kind {
        SideKind::Policy => "policy",
        SideKind::Attributes => "attributes",
        SideKind::User | SideKind::Identity => "key for",
        SideKind::Users | SideKind::Everyone | SideKind::Identities => "recipients",
    }
    .into()
}

/// The `inspect` lines of a key's or ciphertext's side: the side as the
/// user gave it, then its expiry for an ABE scheme with dates.
pub(super) fn described<K: Kem, S: Side>(
    out: &mut Vec<(String, String)>,
    label: String,
    side: &S,
    as_key: bool,
) {
    out.push((label, side.describe_shown()));
    if expires(S::KIND, <ParamsOf<K> as Params>::KIND) {
        out.push(("expiry".into(), side.dated().describe(as_key)));
    }
}

/// Whether a side of an ABE scheme whose setup takes `params` carries
/// dates ([`crate::policy::expiry`]): not when the universe is fixed.
fn expires(side: SideKind, params: ParamsKind) -> bool {
    matches!(side, SideKind::Attributes | SideKind::Policy) && params != ParamsKind::Universe
}

/// Whether `K`'s keys and ciphertexts carry dates ([`crate::policy::expiry`]):
/// every ABE scheme but those whose attribute universe is fixed at setup
/// (the reserved names are not in it). Broadcast sides ignore dates.
fn dates<K: Kem>() -> bool {
    <ParamsOf<K> as Params>::KIND != ParamsKind::Universe
}

fn kind_of(bytes: &[u8]) -> Result<ObjectKind, Error> {
    Ok(Preamble::parse(bytes)?.kind)
}

impl<K: Kem + 'static, O: Extension<K> + 'static> Scheme for Entry<K, O> {
    fn info(&self) -> Info {
        Info {
            scheme: K::SCHEME,
            curve: K::CURVE,
            key_side: <K::KeySide as Side>::KIND,
            ciphertext_side: <K::CiphertextSide as Side>::KIND,
            params: <ParamsOf<K> as Params>::KIND,
            outsourcing: O::SUPPORTED,
            insecure: K::INSECURE,
            traceable: O::TRACEABLE,
            for_decryption: K::FOR_DECRYPTION,
            for_encryption: K::FOR_ENCRYPTION,
        }
    }

    fn setup_streamed(
        &self,
        params: &SetupParams,
        mut rng: &mut dyn CryptoRngCore,
        public_key: &mut dyn FnMut(&[u8]),
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let name = K::SCHEME.name();
        let kind = <ParamsOf<K> as Params>::KIND;
        let given = [
            ("users", params.users.is_some()),
            ("universe", params.universe.is_some()),
            ("max-recipients", params.max_recipients.is_some()),
            ("expansion", params.expansion.is_some()),
        ];
        for (flag, set) in given {
            if set && !kind.takes().contains(&flag) {
                return Err(Error::Unsupported(format!(
                    "--{flag} applies only to {}, not {name}",
                    names_where(|i| i.params.takes().contains(&flag))
                )));
            }
        }
        let params = ParamsOf::<K>::from_setup(params)?;
        let mk = K::Authority::setup_streamed(&params, &mut rng, public_key)?;
        Ok(Zeroizing::new(mk.to_bytes()))
    }

    fn keygen_until(
        &self,
        mk: &[u8],
        key_side: SideInput<'_>,
        pk: Option<&[u8]>,
        until: Option<Day>,
        mut rng: &mut dyn CryptoRngCore,
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        if until.is_some() && !dates::<K>() {
            return Err(Error::Unsupported(format!(
                "{}'s attribute universe is fixed at setup, so its keys cannot expire (schemes whose keys can: {})",
                K::SCHEME.name(),
                names_where(|i| expires(i.key_side, i.params))
            )));
        }
        let side = key_side.parse::<K::KeySide>()?;
        let side = if dates::<K>() {
            side.for_key(until)?
        } else {
            side
        };
        let mk = MasterKeyOf::<K>::from_bytes(mk)?;
        if pk.is_none() {
            if let Some(key) = K::Authority::keygen_without_public_key(&mk, &side) {
                let key = K::unattached(key?).ok_or_else(|| {
                    Error::Invalid("this scheme's keys carry their public key".into())
                })?;
                return Ok(Zeroizing::new(UnattachedKey::<K> { key }.to_bytes()));
            }
        }
        let pk = match pk {
            Some(bytes) => {
                let pk = K::PublicKey::from_bytes(bytes)?;
                if !K::Authority::is_public_key_of(&pk, &mk) {
                    return Err(Error::Invalid(
                        "the given public key is not the public key of this master key's setup"
                            .into(),
                    ));
                }
                pk
            }
            None => K::Authority::public_key(&mk),
        };
        let key = kem::keygen::<Cca<K>>(&pk, &mk, &side, &mut rng)?;
        Ok(Zeroizing::new(key.to_bytes()))
    }

    fn public_key_at(&self, src: Source) -> Result<Box<dyn PublicKey>, Error> {
        Ok(Box::new(EntryPublicKey::<K, O> {
            pk: K::Authority::open_public_key(src)?,
            _o: PhantomData,
        }))
    }

    fn user_key_with(&self, key: &[u8], public: Option<Source>) -> Result<Box<dyn UserKey>, Error> {
        let detached = K::SCHEME.is_broadcast();
        let pk = match public {
            Some(src) if detached => Some(K::Authority::open_public_key(src)?),
            _ => None,
        };
        let key = match (kind_of(key)?, pk) {
            (ObjectKind::UserKey, Some(pk)) => EntryKey::Bundle(
                UnattachedKey::<K>::from_bytes(key)?
                    .attach(&pk)
                    .map_err(not_its_public_key)?,
            ),
            (ObjectKind::UserKey, None) if detached => {
                UnattachedKey::<K>::from_bytes(key)?;
                EntryKey::Unattached
            }
            (ObjectKind::UserKey, None) => EntryKey::Bundle(CcaKey::<K>::from_bytes(key)?),
            (ObjectKind::SchemeUserKey, pk) => {
                let k = K::UserKey::from_bytes(key)?;
                EntryKey::Bare(match pk {
                    Some(pk) => K::attach_public_key(k, &pk).map_err(not_its_public_key)?,
                    None => k,
                })
            }
            (k, _) => {
                return Err(Error::Invalid(format!(
                    "a {} is not a user key",
                    k.describe()
                )))
            }
        };
        Ok(Box::new(EntryUserKey::<K, O> {
            key,
            _o: PhantomData,
        }))
    }

    fn transform_key(
        &self,
        key: &[u8],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error> {
        if !O::SUPPORTED {
            return Err(no_outsourcing::<K>());
        }
        O::transform_key(&CcaKey::<K>::from_bytes(key)?, rng)
    }

    fn describe(&self, bytes: &[u8]) -> Result<Vec<(String, String)>, Error> {
        let key_label = side_label(<K::KeySide as Side>::KIND);
        let ct_label = side_label(<K::CiphertextSide as Side>::KIND);
        let mut out = Vec::new();
        match kind_of(bytes)? {
            ObjectKind::PublicKey => {
                let pk = K::PublicKey::from_bytes(bytes)?;
                out.push(("setup id".into(), wire::hex(&pk.setup_id())));
            }
            ObjectKind::MasterKey => {
                MasterKeyOf::<K>::from_bytes(bytes)?;
                out.push((
                    "note".into(),
                    "secret: whoever holds this file can issue keys".into(),
                ));
            }
            ObjectKind::UserKey if K::SCHEME.is_broadcast() => {
                let k = UnattachedKey::<K>::from_bytes(bytes)?;
                described::<K, _>(&mut out, key_label, &K::key_side(&k.key), true);
                out.push((
                    "public key".into(),
                    "not included: decryption reads it (--public)".into(),
                ));
            }
            ObjectKind::UserKey => {
                let k = CcaKey::<K>::from_bytes(bytes)?;
                described::<K, _>(&mut out, key_label, &K::key_side(&k.key), true);
            }
            ObjectKind::SchemeUserKey => {
                let k = K::UserKey::from_bytes(bytes)?;
                described::<K, _>(&mut out, key_label, &K::key_side(&k), true);
            }
            ObjectKind::KemHeader => {
                let h = K::Header::from_bytes(bytes)?;
                out.push(("setup id".into(), wire::hex(&h.setup_id())));
                let side = K::ciphertext_side(&h);
                described::<K, _>(&mut out, ct_label, &side, false);
                out.push((
                    "security".into(),
                    if O::TRACEABLE {
                        "CPA (traceable: a CCA check would reject tracing ciphertexts)"
                    } else {
                        "CPA only (outsourceable)"
                    }
                    .into(),
                ));
            }
            ObjectKind::CcaKemHeader => {
                let h = CcaHeader::<K>::from_bytes(bytes)?;
                out.push(("setup id".into(), wire::hex(&h.setup_id())));
                let side = K::ciphertext_side(&h.inner);
                described::<K, _>(&mut out, ct_label, &side, false);
                out.push(("security".into(), "CCA (Fujisaki–Okamoto)".into()));
            }
            ObjectKind::RccaKemHeader => return O::describe_rcca(bytes),
            _ => {}
        }
        Ok(out)
    }

    fn outsourcing(&self) -> Option<&'static dyn outsource::Outsourced> {
        O::outsourced()
    }

    fn check_object(&self, bytes: &[u8]) -> Result<ObjectKind, Error> {
        let kind = kind_of(bytes)?;
        match kind {
            ObjectKind::PublicKey => decodes::<K::PublicKey>(bytes)?,
            ObjectKind::MasterKey => decodes::<MasterKeyOf<K>>(bytes)?,
            ObjectKind::UserKey if K::SCHEME.is_broadcast() => decodes::<UnattachedKey<K>>(bytes)?,
            ObjectKind::UserKey => decodes::<CcaKey<K>>(bytes)?,
            ObjectKind::SchemeUserKey => decodes::<K::UserKey>(bytes)?,
            ObjectKind::KemHeader => decodes::<K::Header>(bytes)?,
            ObjectKind::CcaKemHeader => decodes::<CcaHeader<K>>(bytes)?,
            _ if O::check_object(kind, bytes)? => {}
            _ => {
                return Err(Error::Invalid(format!(
                    "a {} is not an object of {}",
                    kind.describe(),
                    K::SCHEME.name()
                )))
            }
        }
        Ok(kind)
    }

    fn trace(
        &self,
        pk: Source,
        mk: Option<&[u8]>,
        target: Option<&str>,
        tracing: &mut Tracing<'_>,
    ) -> TraceResult {
        O::trace(pk, mk, target, tracing)
    }

    fn format_rows(&self) -> Vec<(ObjectKind, String)> {
        let mut rows = vec![
            <K::PublicKey as Encoded>::format_row(),
            MasterKeyOf::<K>::format_row(),
            <K::UserKey as Encoded>::format_row(),
            <K::Header as Encoded>::format_row(),
        ];
        rows.extend(O::format_rows());
        let mut rows: Vec<(ObjectKind, String)> = rows.into_iter().flatten().collect();
        rows.sort_by_key(|(kind, _)| *kind as u8);
        rows
    }
}
