//! One door to every scheme: a registry from (scheme, curve) to an
//! object-safe [`Scheme`] that works on encoded objects (the bytes of
//! docs/FORMAT.md), and streaming [`encrypt`]/[`decrypt`] on top of it.
//! The CLI, the proxy, the lab and the bindings call this instead of naming
//! concrete types; a new scheme is its file plus one row in [`crate::schemes`].
//!
//! Keys are issued as bundles (kind 11: the scheme's key and its public key)
//! that decrypt every mode; headers are CCA (kind 10, the default), RCCA
//! (kind 12, outsourceable and checked) or CPA (kind 6, GHW11's outsourceable
//! CPA scheme, opened only when the caller allows it).

use crate::abe::cca::{CcaHeader, CcaKey, UnattachedKey};
use crate::abe::rcca::{RccaHeader, RccaRetrievalKey, RccaTransformed};
use crate::abe::{ghw11, Cca, Rcca};
use crate::bcast::trace::{TraceOptions, TraceProgress, TraceReport, Traceable};
use crate::bcast::Source;
use crate::curve::{Bls12, Bls24, Bls48, Bn254, CurveId, Placement, Swapped};
use crate::envelope::{self, EnvelopeError, SealOptions};
use crate::kem::{
    self, Authority, Kem, KemError, MasterKeyOf, Outsourcing, Params, ParamsKind, ParamsOf,
    SessionKey, SetupParams, Side, SideInput, SideKind,
};
use crate::outsource::{self, OutsourceError};
use crate::policy::PolicyError;
use crate::wire::codec::Bound;
use crate::wire::{self, Encoded, ObjectKind, Preamble, SchemeId, WireError};
use rand_core::CryptoRngCore;
use std::io::{Read, Write};
use std::marker::PhantomData;
use std::sync::Arc;
use zeroize::Zeroizing;

/// Why a facade operation failed, in the three classes front ends report
/// differently (the CLI's exit codes 2, 3 and 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The key does not satisfy the ciphertext (or is not a recipient).
    #[error("your key does not satisfy this ciphertext's policy")]
    NotSatisfied,
    /// Invalid or corrupt input: an object, a policy, a signature.
    #[error("{0}")]
    Invalid(String),
    /// A request this build or scheme does not serve (a scheme on a curve it
    /// is not offered on, outsourcing by a scheme without it, a parameter
    /// the scheme has no use for, an insecure scheme not asked for).
    #[error("{0}")]
    Unsupported(String),
    /// Reading or writing the payload failed (I/O, corrupt ciphertext).
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
}

impl From<KemError> for Error {
    fn from(e: KemError) -> Self {
        match e {
            KemError::NotSatisfied => Error::NotSatisfied,
            other => Error::Invalid(other.to_string()),
        }
    }
}
impl From<WireError> for Error {
    fn from(e: WireError) -> Self {
        Error::Invalid(e.to_string())
    }
}
impl From<PolicyError> for Error {
    fn from(e: PolicyError) -> Self {
        Error::Invalid(e.to_string())
    }
}
impl From<OutsourceError> for Error {
    fn from(e: OutsourceError) -> Self {
        match e {
            OutsourceError::Kem(k) => k.into(),
            OutsourceError::Unsupported(_) => Error::Unsupported(e.to_string()),
            other => Error::Invalid(other.to_string()),
        }
    }
}

/// How a header is protected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// CCA-secure (Fujisaki–Okamoto re-encryption check).
    #[default]
    Cca,
    /// RCCA-secure and outsourceable (GHW11 §3.2/§4.2): a proxy can
    /// transform it, and the final decryption detects a lying proxy.
    Rcca,
    /// Only CPA-secure and outsourceable (GHW11's CPA scheme): benchmarks.
    Cpa,
}

/// What a (scheme, curve) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    pub scheme: SchemeId,
    pub curve: CurveId,
    /// What keys are made for.
    pub key_side: SideKind,
    /// What ciphertexts are made for.
    pub ciphertext_side: SideKind,
    /// What setup takes.
    pub params: ParamsKind,
    /// GHW11 outsourced decryption (transform keys, RCCA and CPA modes).
    pub outsourcing: bool,
    /// Known to be broken: usable only through [`scheme_allowing_insecure`].
    pub insecure: bool,
    /// Black-box traitor tracing ([`trace`]); CPA mode only.
    pub traceable: bool,
    /// The placement that decrypts fastest and the one that encrypts
    /// fastest ([`Optimize`]).
    pub for_decryption: Placement,
    pub for_encryption: Placement,
}

/// What a setup's group placement should favour (`abbe setup --optimize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimize {
    /// Fast decryption (phones, the GHW11 proxy).
    Decrypt,
    /// Fast encryption and key generation (sensors).
    Encrypt,
}

impl Optimize {
    pub fn from_name(s: &str) -> Result<Self, Error> {
        match s.to_ascii_lowercase().as_str() {
            "decrypt" | "decryption" => Ok(Optimize::Decrypt),
            "encrypt" | "encryption" => Ok(Optimize::Encrypt),
            _ => Err(Error::Invalid(format!(
                "unknown optimisation '{s}' (expected decrypt or encrypt)"
            ))),
        }
    }
}

/// The curve id of a new setup of `scheme` on `curve` in the placement
/// that `optimize` asks for, or in `placement` itself; the scheme file's
/// own placement when neither is given. Front ends make the two exclusive.
pub fn placed_curve(
    scheme: SchemeId,
    curve: CurveId,
    optimize: Option<Optimize>,
    placement: Option<Placement>,
) -> Result<CurveId, Error> {
    let standard = self::scheme_allowing_insecure(scheme, curve.unswapped())?.info();
    let placement = match (optimize, placement) {
        (_, Some(p)) => p,
        (Some(Optimize::Decrypt), None) => standard.for_decryption,
        (Some(Optimize::Encrypt), None) => standard.for_encryption,
        (None, None) => Placement::Standard,
    };
    let placed = curve.with_placement(placement);
    if placed.placement() != placement {
        return Err(Error::Unsupported(format!(
            "{} on {} has no swapped placement (it has no pairing)",
            scheme.name(),
            curve.name()
        )));
    }
    self::scheme_allowing_insecure(scheme, placed)?;
    Ok(placed)
}

impl Info {
    /// The mode `encrypt` uses when none is asked for: CCA, or CPA for a
    /// traceable scheme (whose tracing ciphertexts FO would reject).
    pub fn default_mode(&self) -> Mode {
        if self.traceable {
            Mode::Cpa
        } else {
            Mode::Cca
        }
    }
}

/// A scheme on a curve, on encoded objects. Secrets come back in
/// [`Zeroizing`] buffers.
pub trait Scheme: Send + Sync {
    fn info(&self) -> Info;
    /// (public key, master key).
    fn setup(
        &self,
        params: &SetupParams,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error>;
    /// A user key bundle for `key_side` (attributes, a policy or a user
    /// index, as text). The public key is `pk` when given (it must be the
    /// master key's: BGW05 recomputes it in O(N) otherwise).
    fn keygen(
        &self,
        mk: &[u8],
        key_side: &str,
        pk: Option<&[u8]>,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.keygen_for(mk, SideInput::Text(key_side), pk, rng)
    }
    /// [`Scheme::keygen`] for a side given as text or as a list of items
    /// (attributes, one per item).
    fn keygen_for(
        &self,
        mk: &[u8],
        key_side: SideInput<'_>,
        pk: Option<&[u8]>,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<Zeroizing<Vec<u8>>, Error>;
    /// A public key decoded once, for many encapsulations.
    fn public_key(&self, pk: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        self.public_key_at(Arc::new(pk.to_vec()))
    }
    /// The public key in `src` (a file): BGW05's is read element by
    /// element as encryptions use them, the others' whole.
    fn public_key_at(&self, src: Source) -> Result<Box<dyn PublicKey>, Error>;
    /// A user key (bundle or bare scheme key) decoded once, for many
    /// decapsulations. Broadcast keys are stored without their public key
    /// and need [`Scheme::user_key_with`].
    fn user_key(&self, key: &[u8]) -> Result<Box<dyn UserKey>, Error> {
        self.user_key_with(key, None)
    }
    /// [`Scheme::user_key`] given the setup's public key (`public`), which
    /// broadcast keys decrypt with (BGW05 reads from it only the elements
    /// a decryption uses). Other keys carry theirs and ignore it.
    fn user_key_with(&self, key: &[u8], public: Option<Source>) -> Result<Box<dyn UserKey>, Error>;
    /// (session key, header) for `target` (a policy, attributes or users).
    fn encapsulate(
        &self,
        pk: &[u8],
        target: &str,
        mode: Mode,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error> {
        self.public_key(pk)?.encapsulate(target, mode, rng)
    }
    /// The session key of a CCA, RCCA or CPA header (see
    /// [`UserKey::decapsulate`]).
    fn decapsulate(&self, key: &[u8], header: &[u8], allow_cpa: bool) -> Result<SessionKey, Error> {
        self.user_key(key)?.decapsulate(header, allow_cpa)
    }
    /// (transformation key, retrieval key) from a user key bundle.
    fn transform_key(
        &self,
        key: &[u8],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error>;
    /// `inspect` lines for a key or header (never secrets).
    fn describe(&self, object: &[u8]) -> Result<Vec<(String, String)>, Error>;
    /// What the proxy and the final decryption run ([`crate::outsource`]),
    /// for the schemes with GHW11 outsourcing.
    fn outsourcing(&self) -> Option<&'static dyn outsource::Outsourced>;
    /// Strictly decodes an object of this scheme, of any kind it has (keys,
    /// headers, outsourcing objects); its kind, or why it is refused.
    fn check_object(&self, object: &[u8]) -> Result<ObjectKind, Error>;
    /// The scheme's objects as docs/FORMAT.md tabulates them (kind, body),
    /// for those declared with `wire::codec::object!`.
    fn format_rows(&self) -> Vec<(ObjectKind, String)>;
    /// Traitor tracing ([`trace`]), for the schemes that have it.
    fn trace(
        &self,
        pk: Source,
        mk: Option<&[u8]>,
        target: Option<&str>,
        tracing: &mut Tracing<'_>,
    ) -> TraceResult;
}

/// A decoded public key: its encapsulations share the decoding and the
/// key's caches (attribute hashes).
pub trait PublicKey: Send + Sync {
    fn info(&self) -> Info;
    /// (session key, header) for `target` (a policy, attributes or users).
    fn encapsulate(
        &self,
        target: &str,
        mode: Mode,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error> {
        self.encapsulate_for(SideInput::Text(target), mode, rng)
    }
    /// [`PublicKey::encapsulate`] for a target given as text or as a list
    /// of items (attributes or identities, one per item).
    fn encapsulate_for(
        &self,
        target: SideInput<'_>,
        mode: Mode,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error>;
}

/// A decoded user key: its decapsulations share the decoding and the key's
/// precomputed pairing lines.
pub trait UserKey: Send + Sync {
    fn info(&self) -> Info;
    /// The session key of a CCA, RCCA or CPA header. A key bundle opens a
    /// CPA header only with `allow_cpa` (else anyone could downgrade its
    /// holder to the malleable KEM); a bare scheme key opens only CPA.
    fn decapsulate(&self, header: &[u8], allow_cpa: bool) -> Result<SessionKey, Error>;
}

/// The pairing curve of a security `level` (100, 128, 192, 256) or named
/// `curve` (bn254, bls12-381, bls24-479, bls48-581); level 128 (BLS12-381)
/// when neither is given. Front ends make the two exclusive.
pub fn pairing_curve(level: Option<u32>, curve: Option<&str>) -> Result<CurveId, Error> {
    match (level, curve) {
        (Some(l), _) => CurveId::for_level(l).ok_or_else(|| {
            Error::Invalid(format!(
                "unknown security level {l} (expected 100, 128, 192 or 256)"
            ))
        }),
        (None, Some(c)) => CurveId::from_name(c)
            .filter(|c| *c != CurveId::P256)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown curve '{c}' (expected bn254, bls12-381, bls24-479 or bls48-581)"
                ))
            }),
        (None, None) => Ok(CurveId::Bls12_381),
    }
}

/// The curve of a new setup of `scheme`: P-256 for the ElGamal baseline
/// (which has no other), else [`pairing_curve`].
pub fn setup_curve(
    scheme: SchemeId,
    level: Option<u32>,
    curve: Option<&str>,
) -> Result<CurveId, Error> {
    if scheme == SchemeId::ElGamalP256 {
        return Ok(CurveId::P256);
    }
    pairing_curve(level, curve)
}

/// The scheme `id` on `curve`; refuses a scheme known to be broken.
pub fn scheme(id: SchemeId, curve: CurveId) -> Result<&'static dyn Scheme, Error> {
    let s = scheme_allowing_insecure(id, curve)?;
    if s.info().insecure {
        return Err(Error::Unsupported(format!(
            "{} is BROKEN (published attacks recover keys and plaintexts): it exists only to reproduce benchmarks",
            id.name()
        )));
    }
    Ok(s)
}

/// [`scheme`], including the broken ones (benchmarks only).
pub fn scheme_allowing_insecure(
    id: SchemeId,
    curve: CurveId,
) -> Result<&'static dyn Scheme, Error> {
    find(id, curve).ok_or_else(|| {
        let offered: Vec<&str> = curves(id)
            .filter(|c| !c.is_swapped())
            .map(|c| c.name())
            .collect();
        if curve.is_swapped() && find(id, curve.unswapped()).is_some() {
            return Error::Unsupported(format!(
                "{} has only the standard placement on {}",
                id.name(),
                curve.name()
            ));
        }
        Error::Unsupported(match (curve, offered.as_slice()) {
            (CurveId::P256, _) => {
                "P-256 is not a pairing curve (it carries only the elgamal-p256 baseline)".into()
            }
            (_, []) => format!("{} is not in this build of abbe", id.name()),
            (_, [only]) => format!("{} is offered on {only} only", id.name()),
            _ => format!(
                "{} is offered on {} only, not on {}",
                id.name(),
                offered.join(" and "),
                curve.name()
            ),
        })
    })
}

/// The scheme an encoded object (any kind with a preamble) was made for.
pub fn of_object(bytes: &[u8]) -> Result<&'static dyn Scheme, Error> {
    let p = Preamble::parse(bytes)?;
    scheme(p.scheme, p.curve)
}

/// Every registered (scheme, curve), the broken ones included.
pub fn all() -> impl Iterator<Item = &'static dyn Scheme> {
    SchemeId::ALL
        .iter()
        .flat_map(|s| CurveId::EVERY.iter().filter_map(move |c| find(*s, *c)))
}

/// The curves (both placements) `id` is offered on in this build.
pub fn curves(id: SchemeId) -> impl Iterator<Item = CurveId> {
    CurveId::EVERY
        .into_iter()
        .filter(move |c| find(id, *c).is_some())
}

/// What `id` is in this build: its [`Info`] on the first curve it is
/// offered on (only the curve differs between curves), and the security
/// levels it is offered at, ascending; `None` when this build offers it on
/// none.
pub fn summary(id: SchemeId) -> Option<(Info, Vec<u32>)> {
    let info = find(id, curves(id).next()?)?.info();
    let mut levels: Vec<u32> = curves(id).map(|c| c.level()).collect();
    levels.sort_unstable();
    levels.dedup();
    Some((info, levels))
}

/// The schemes this build offers, in the table's order (the broken ones
/// when the build has them).
pub fn schemes() -> impl Iterator<Item = SchemeId> {
    SchemeId::ALL
        .into_iter()
        .filter(|s| curves(*s).next().is_some())
}

/// The registry, from the table of schemes ([`crate::schemes`]).
fn find(id: SchemeId, curve: CurveId) -> Option<&'static dyn Scheme> {
    // `$S` names the scheme on the curve `C`, defined per arm.
    macro_rules! on {
        ($S:ty, $O:ty, [$($id:ident => $C:ty),* $(,)?]) => {
            match curve {
                $(CurveId::$id => {
                    type C = $C;
                    Some(&Entry::<$S, $O>(PhantomData) as &dyn Scheme)
                })*
                #[allow(unreachable_patterns)]
                _ => None,
            }
        };
    }
    // Every pairing scheme in both placements (`Swapped`).
    macro_rules! pairing {
        ($S:ty, $O:ty) => {
            on!($S, $O, [Bls12_381 => Bls12, Bn254 => Bn254, Bls24_479 => Bls24, Bls48_581 => Bls48,
                Bls12_381Swapped => Swapped<Bls12>, Bn254Swapped => Swapped<Bn254>,
                Bls24_479Swapped => Swapped<Bls24>, Bls48_581Swapped => Swapped<Bls48>])
        };
    }
    macro_rules! classic {
        ($S:ty) => {
            on!($S, Plain, [Bls12_381 => Bls12, Bn254 => Bn254,
                Bls12_381Swapped => Swapped<Bls12>, Bn254Swapped => Swapped<Bn254>])
        };
    }
    macro_rules! traced {
        ($S:ty) => {
            on!($S, Traced, [Bls12_381 => Bls12, Bn254 => Bn254,
                Bls12_381Swapped => Swapped<Bls12>, Bn254Swapped => Swapped<Bn254>])
        };
    }
    // Broken schemes exist only in builds that ask for them.
    macro_rules! insecure {
        ($S:ty) => {{
            #[cfg(feature = "insecure-benchmark-only")]
            let found = classic!($S);
            #[cfg(not(feature = "insecure-benchmark-only"))]
            let found = None;
            found
        }};
    }
    macro_rules! p256 {
        ($S:ty) => {
            (curve == CurveId::P256).then_some(&Entry::<$S, Plain>(PhantomData) as &dyn Scheme)
        };
    }
    // Not a KEM (signatures).
    macro_rules! none {
        () => {
            None
        };
    }
    macro_rules! registry {
        ($($id:ident = $byte:literal, $name:literal, $family:ident, $form:ident($($args:tt)*), $what:literal;)*) => {
            match id {
                $(SchemeId::$id => $form!($($args)*),)*
            }
        };
    }
    crate::schemes::schemes!(registry)
}

/// What a trace runs with, besides the keys: its bounds, the pirate decoder
/// (given complete ciphertext files, returning what it decrypted), a
/// progress callback and the randomness of the tracing encryptions.
pub struct Tracing<'a> {
    pub options: &'a TraceOptions,
    pub decoder: &'a mut dyn FnMut(&[u8]) -> std::io::Result<Vec<u8>>,
    pub progress: &'a mut dyn FnMut(&TraceProgress),
    pub rng: &'a mut dyn CryptoRngCore,
}

type TraceResult = Result<TraceReport, Error>;

/// The names of the registered schemes with `property`, for messages.
pub fn names_where(property: impl Fn(&Info) -> bool) -> String {
    let mut names: Vec<&str> = all()
        .map(|s| s.info())
        .filter(|i| !i.insecure && property(i))
        .map(|i| i.scheme.name())
        .collect();
    names.dedup();
    names.join(", ")
}

/// The schemes with traitor tracing, for messages.
fn traceable_names() -> String {
    names_where(|i| i.traceable)
}

/// Traces a pirate decoder of a traceable scheme ([`crate::bcast::trace`])
/// with the setup's public key `pk` and, for private tracing, its master key
/// `mk`; `target` is the recipient set the decoder is traced for (every
/// user when `None`).
pub fn trace(
    pk: Source,
    mk: Option<&[u8]>,
    target: Option<&str>,
    tracing: &mut Tracing<'_>,
) -> TraceResult {
    tracing
        .options
        .check()
        .map_err(|why| Error::Invalid(why.into()))?;
    let mut head = [0u8; wire::PREAMBLE_LEN];
    pk.read_exact_at(&mut head, 0)
        .map_err(|_| Error::Invalid("the public key is truncated".into()))?;
    let pre = Preamble::parse(&head)?;
    if pre.kind != ObjectKind::PublicKey {
        return Err(Error::Invalid(format!(
            "tracing needs the public key, not a {}",
            pre.kind.describe()
        )));
    }
    if let Some(mk) = mk {
        let mpre = Preamble::parse(mk)?;
        if mpre.kind != ObjectKind::MasterKey {
            return Err(Error::Invalid(format!(
                "tracing needs the master key, not a {}",
                mpre.kind.describe()
            )));
        }
        same_setup((pre.scheme, pre.curve), &mpre)?;
    }
    scheme(pre.scheme, pre.curve)?.trace(pk, mk, target, tracing)
}

/// Encrypts `input` to `output` for `target` (text, or a list of items:
/// [`SideInput`]) under the public key `pk`: a new session key, its header
/// (in `mode`), the payload; signed when `options.signer` is given. Returns
/// the plaintext length.
pub fn encrypt<'t>(
    pk: &[u8],
    target: impl Into<SideInput<'t>>,
    mode: Mode,
    input: impl Read,
    output: impl Write,
    options: &SealOptions<'_>,
    rng: &mut dyn CryptoRngCore,
) -> Result<u64, Error> {
    let pk = of_object(pk)?.public_key(pk)?;
    encrypt_with(&*pk, target, mode, input, output, options, rng)
}

/// [`encrypt`] under a public key decoded once ([`Scheme::public_key`]).
pub fn encrypt_with<'t>(
    pk: &dyn PublicKey,
    target: impl Into<SideInput<'t>>,
    mode: Mode,
    input: impl Read,
    output: impl Write,
    options: &SealOptions<'_>,
    rng: &mut dyn CryptoRngCore,
) -> Result<u64, Error> {
    let (session, header) = pk.encapsulate_for(target.into(), mode, rng)?;
    Ok(envelope::seal_with(
        &header,
        &session,
        &mut &mut *rng,
        input,
        output,
        options,
    )?)
}

/// Decrypts a ciphertext file from `input` to `output` with a user key
/// bundle. The output is written one authenticated chunk at a time: on
/// error, discard it. With `verify_with` (a verifying key), only a file
/// signed by it is accepted. A transformed file (with a retrieval key)
/// needs [`decrypt_expecting`]: its original must be named.
pub fn decrypt(
    key: &[u8],
    input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
) -> Result<envelope::Opened, Error> {
    decrypt_expecting(
        key,
        input,
        output,
        verify_with,
        &outsource::Expect::default(),
    )
}

/// [`decrypt`] with what a final outsourced decryption checks (`expect`):
/// a transformed file is decrypted with a retrieval key only as a
/// transformation of the original whose header id `expect` names, unless
/// `expect.any_original`.
pub fn decrypt_expecting(
    key: &[u8],
    mut input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
    expect: &outsource::Expect,
) -> Result<envelope::Opened, Error> {
    let head = envelope::read_head(&mut input)?;
    let session = session_of(of_object(key)?, key, None, &head, expect)?;
    Ok(envelope::open_with(
        &head,
        &session,
        input,
        output,
        verify_with,
    )?)
}

/// Decrypts an original (not transformed) ciphertext file with a user key
/// decoded once ([`Scheme::user_key`]); as [`decrypt`] without
/// `allow_cpa`: a key bundle refuses CPA headers (a bare scheme key opens
/// only those).
pub fn decrypt_with(
    key: &dyn UserKey,
    mut input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
) -> Result<envelope::Opened, Error> {
    let head = envelope::read_head(&mut input)?;
    let info = key.info();
    same_setup((info.scheme, info.curve), &Preamble::parse(&head.header)?)?;
    if head.preamble.kind != ObjectKind::EncryptedFile {
        return Err(Error::Invalid(
            "this is a transformed ciphertext: decrypt it with the retrieval key".into(),
        ));
    }
    let session = key.decapsulate(&head.header, false)?;
    Ok(envelope::open_with(
        &head,
        &session,
        input,
        output,
        verify_with,
    )?)
}

/// Refuses a header of another scheme or curve than the key's.
fn same_setup(key: (SchemeId, CurveId), header: &Preamble) -> Result<(), Error> {
    if key != (header.scheme, header.curve) {
        return Err(Error::Invalid(format!(
            "the key is for {} on {}, the ciphertext for {} on {}",
            key.0.name(),
            key.1.label(),
            header.scheme.name(),
            header.curve.label()
        )));
    }
    Ok(())
}

/// The session key of a ciphertext file's head: a user key of `scheme`
/// opens an original file, a retrieval key a transformed one (with
/// `expect`'s checks). Key and ciphertext must be of the same scheme and
/// curve.
pub fn session_of(
    scheme: &dyn Scheme,
    key: &[u8],
    public: Option<Source>,
    head: &envelope::Head,
    expect: &outsource::Expect,
) -> Result<SessionKey, Error> {
    let kp = Preamble::parse(key)?;
    same_setup((kp.scheme, kp.curve), &Preamble::parse(&head.header)?)?;
    if let (ObjectKind::EncryptedFile, Some(want)) = (head.preamble.kind, expect.header_id) {
        if outsource::header_id(&head.header)? != want {
            return Err(Error::Invalid(
                "this ciphertext's header id is not the one given with --expect-header".into(),
            ));
        }
    }
    match (head.preamble.kind, kp.kind) {
        (ObjectKind::EncryptedFile, ObjectKind::UserKey | ObjectKind::SchemeUserKey) => scheme
            .user_key_with(key, public)?
            .decapsulate(&head.header, expect.allow_cpa),
        (ObjectKind::TransformedFile, ObjectKind::RetrievalKey | ObjectKind::CpaRetrievalKey) => {
            Ok(outsource::decrypt_transformed_bytes(key, &head.header, expect)?)
        }
        (ObjectKind::TransformedFile, _) => Err(Error::Invalid(
            "this is a transformed ciphertext: decrypt it with the retrieval key (--key alice.rk)"
                .into(),
        )),
        _ => Err(Error::Invalid(
            "a retrieval key only decrypts transformed ciphertexts (run `abbe transform` first, or use the user key)".into(),
        )),
    }
}

/// The generic implementation of [`Scheme`] for the KEM `K`, with GHW11
/// outsourcing when `O` is [`Ghw11`], traitor tracing when [`Traced`].
struct Entry<K, O>(PhantomData<fn() -> (K, O)>);

/// What a KEM offers beyond encapsulation: GHW11 outsourcing ([`Ghw11`],
/// for [`ghw11::Scheme`]s), traitor tracing ([`Traced`], for [`Traceable`]s), or
/// neither ([`Plain`]); what a scheme lacks is refused.
trait Extension<K: Kem> {
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

struct Plain;
struct Ghw11;
struct Traced;

fn no_outsourcing<K: Kem>() -> Error {
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
        crate::bcast::trace::trace::<K>(
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
        Ok(vec![
            ("setup id".into(), wire::hex(&h.setup_id())),
            (
                side_label(<K::CiphertextSide as Side>::KIND),
                K::ciphertext_side(&h.inner).describe(),
            ),
            ("security".into(), "RCCA (GHW11), outsourceable".into()),
        ])
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

struct EntryPublicKey<K: Kem, O> {
    pk: K::PublicKey,
    _o: PhantomData<fn() -> O>,
}

impl<K: Kem + 'static, O: Extension<K> + 'static> PublicKey for EntryPublicKey<K, O> {
    fn info(&self) -> Info {
        Entry::<K, O>(PhantomData).info()
    }

    fn encapsulate_for(
        &self,
        target: SideInput<'_>,
        mode: Mode,
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
fn decodes<T: Encoded>(b: &[u8]) -> Result<(), Error> {
    T::from_bytes(b).map(|_| ()).map_err(Error::from)
}

fn side_label(kind: SideKind) -> String {
    match kind {
        SideKind::Policy => "policy",
        SideKind::Attributes => "attributes",
        SideKind::User | SideKind::Identity => "key for",
        SideKind::Users | SideKind::Everyone | SideKind::Identities => "recipients",
    }
    .into()
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

    fn setup(
        &self,
        params: &SetupParams,
        mut rng: &mut dyn CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error> {
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
        let (pk, mk) = kem::setup::<K>(&params, &mut rng)?;
        Ok((pk.to_bytes(), Zeroizing::new(mk.to_bytes())))
    }

    fn keygen_for(
        &self,
        mk: &[u8],
        key_side: SideInput<'_>,
        pk: Option<&[u8]>,
        mut rng: &mut dyn CryptoRngCore,
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let side = key_side.parse::<K::KeySide>()?;
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
                out.push((key_label, K::key_side(&k.key).describe()));
                out.push((
                    "public key".into(),
                    "not included: decryption reads it (--public)".into(),
                ));
            }
            ObjectKind::UserKey => {
                let k = CcaKey::<K>::from_bytes(bytes)?;
                out.push((key_label, K::key_side(&k.key).describe()));
            }
            ObjectKind::SchemeUserKey => {
                let k = K::UserKey::from_bytes(bytes)?;
                out.push((key_label, K::key_side(&k).describe()));
            }
            ObjectKind::KemHeader => {
                let h = K::Header::from_bytes(bytes)?;
                out.push(("setup id".into(), wire::hex(&h.setup_id())));
                out.push((ct_label, K::ciphertext_side(&h).describe()));
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
                out.push((ct_label, K::ciphertext_side(&h.inner).describe()));
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

/// docs/FORMAT.md's per-scheme object tables, generated from the object
/// declarations (one curve per scheme: the tables are symbolic).
pub fn format_tables() -> String {
    let mut out = String::new();
    let mut done = Vec::new();
    for s in all() {
        let info = s.info();
        let rows = s.format_rows();
        if done.contains(&info.scheme) || rows.is_empty() {
            continue;
        }
        done.push(info.scheme);
        out.push_str(&format!(
            "### {} (scheme {})\n\n| kind | body after the preamble |\n|---|---|\n",
            info.scheme.name(),
            info.scheme as u8
        ));
        for (kind, body) in rows {
            let label = crate::armor::label(kind).to_lowercase();
            out.push_str(&format!("| {} {label} | {body} |\n", kind as u8));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    const BEGIN: &str = "<!-- generated from the object! declarations";
    const END: &str = "<!-- end of generated tables -->";

    /// docs/FORMAT.md's object tables are the code's: this fails when they
    /// differ (`ABBE_BLESS=1` rewrites them).
    #[test]
    fn format_md_object_tables_match_the_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let mut want = format_tables();
        let mut doc = doc;
        if !cfg!(feature = "insecure-benchmark-only") {
            // YCT14 is only in benchmarking builds; its table stays (and
            // is kept where a blessing rewrites the others).
            if let Some(y) = doc.find("### yct14 (scheme") {
                let to = y + doc[y..]
                    .find("\n### ")
                    .map_or(doc[y..].find(END).unwrap(), |k| k + 1);
                let yct14 = doc[y..to].to_string();
                doc.replace_range(y..to, "");
                if std::env::var_os("ABBE_BLESS").is_some() {
                    let at = want.find("### bgw05 (scheme").unwrap_or(want.len());
                    want.insert_str(at, &yct14);
                }
            }
        }
        let start = doc
            .find(BEGIN)
            .expect("FORMAT.md has the generated section");
        let body_start = start + doc[start..].find('\n').unwrap() + 1;
        let end = doc.find(END).expect("FORMAT.md ends the generated section");
        if std::env::var_os("ABBE_BLESS").is_some() {
            let new = format!("{}{want}{}", &doc[..body_start], &doc[end..]);
            std::fs::write(path, new).unwrap();
            return;
        }
        assert_eq!(
            doc[body_start..end],
            want,
            "docs/FORMAT.md's object tables differ from the code; \
             run `ABBE_BLESS=1 cargo test --release --workspace --lib format_md` and review"
        );
        for scheme in [SchemeId::Waters11, SchemeId::Bsw07, SchemeId::Gpsw06] {
            assert!(want.contains(&format!("### {} (scheme", scheme.name())));
        }
        // The preamble's curve row names every curve byte, both placements.
        let row = doc
            .lines()
            .find(|l| l.starts_with("| 7 | curve |"))
            .expect("FORMAT.md's preamble table has the curve byte");
        for c in CurveId::EVERY {
            let listed = match c.placement() {
                Placement::Standard => format!("{} `{}`", c as u8, c.name()),
                Placement::Swapped => format!("{:#04x}", c as u8),
            };
            assert!(row.contains(&listed), "FORMAT.md's curve byte: {listed}");
        }
    }

    /// `--optimize` picks each scheme's declared placement, `--placement`
    /// is taken as given, and a scheme without a swapped form says so.
    #[test]
    fn placement_choices() {
        use Optimize::{Decrypt, Encrypt};
        let c = CurveId::Bls12_381;
        let placed = |s, o, p| placed_curve(s, c, o, p).unwrap();
        assert_eq!(placed(SchemeId::Waters11, Some(Encrypt), None), c.swapped());
        assert_eq!(placed(SchemeId::Waters11, Some(Decrypt), None), c);
        assert_eq!(placed(SchemeId::Bsw07, Some(Encrypt), None), c);
        assert_eq!(
            placed(SchemeId::Bsw07, None, Some(Placement::Swapped)),
            c.swapped()
        );
        assert_eq!(
            placed_curve(
                SchemeId::Gw09,
                CurveId::Bn254.swapped(),
                None,
                Some(Placement::Standard)
            )
            .unwrap(),
            CurveId::Bn254
        );
        let err = placed_curve(
            SchemeId::ElGamalP256,
            CurveId::P256,
            None,
            Some(Placement::Swapped),
        );
        assert!(err.is_err());
        let err = scheme(SchemeId::Bgw05, CurveId::Bls24_479.swapped())
            .err()
            .unwrap();
        assert!(err.to_string().contains("offered on"), "{err}");
        assert!(Optimize::from_name("speed").is_err());
        // Both placements of a scheme are distinct registry entries.
        let ids: Vec<CurveId> = all()
            .filter(|s| s.info().scheme == SchemeId::Waters11)
            .map(|s| s.info().curve)
            .collect();
        assert_eq!(ids.len(), 8, "{ids:?}");
    }

    #[test]
    fn every_registered_scheme_round_trips_through_bytes() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let mut seen = 0;
        for s in all().filter(|s| matches!(s.info().curve, CurveId::Bn254 | CurveId::P256)) {
            let info = s.info();
            let (key_side, target) = match (info.key_side, info.ciphertext_side) {
                (SideKind::Attributes, _) => ("A1, A2", "A1 and A2"),
                (SideKind::Policy, _) => ("A1 and A2", "A1, A2"),
                (_, SideKind::Everyone) => ("3", "all"),
                (SideKind::Identity, _) => ("alice@example.com", "bob, alice@example.com"),
                _ => ("3", "1-5"),
            };
            let params = SetupParams {
                users: info.params.takes().contains(&"users").then_some(8),
                max_recipients: info.params.takes().contains(&"max-recipients").then_some(8),
                ..SetupParams::default()
            };
            let (pk, mk) = s.setup(&params, &mut rng).unwrap();
            let key = s.keygen(&mk, key_side, Some(&pk), &mut rng).unwrap();
            let mut modes = vec![info.default_mode()];
            if info.outsourcing {
                modes.extend([Mode::Rcca, Mode::Cpa]);
            }
            if info.traceable {
                assert!(s.encapsulate(&pk, target, Mode::Cca, &mut rng).is_err());
            }
            let mut objects = vec![(pk.clone(), ObjectKind::PublicKey)];
            objects.push((mk.to_vec(), ObjectKind::MasterKey));
            objects.push((key.to_vec(), ObjectKind::UserKey));
            // Broadcast keys decrypt with their public key, given apart.
            let public: Source = Arc::new(pk.clone());
            let user = s.user_key_with(&key, Some(public)).unwrap();
            for mode in modes {
                let (k, h) = s.encapsulate(&pk, target, mode, &mut rng).unwrap();
                assert_eq!(user.decapsulate(&h, true).unwrap(), k, "{info:?} {mode:?}");
                assert_eq!(
                    s.decapsulate(&key, &h, true).is_ok(),
                    !info.scheme.is_broadcast(),
                    "{info:?} {mode:?}"
                );
                assert!(!s.describe(&h).unwrap().is_empty());
                let kind = Preamble::parse(&h).unwrap().kind;
                objects.push((h, kind));
            }
            assert_eq!(
                s.transform_key(&key, &mut rng).is_ok(),
                info.outsourcing,
                "{info:?}"
            );
            if let Ok((tk, rk)) = s.transform_key(&key, &mut rng) {
                objects.push((tk, ObjectKind::TransformationKey));
                objects.push((rk.to_vec(), ObjectKind::RetrievalKey));
            }
            // Every object decodes as its kind; cut short, it is refused.
            for (bytes, kind) in objects {
                assert_eq!(s.check_object(&bytes).unwrap(), kind, "{info:?}");
                assert!(s.check_object(&bytes[..bytes.len() - 1]).is_err());
            }
            let file = [&pk[..8], b"trailing"].concat();
            assert!(s.check_object(&file).is_err());
            seen += 1;
        }
        // 6 ABE (and yct14) + 11 broadcast on BN254, ElGamal on P-256.
        assert_eq!(
            seen,
            18 + usize::from(cfg!(feature = "insecure-benchmark-only"))
        );
    }

    #[test]
    fn lookups_refuse_what_is_not_offered() {
        assert!(scheme(SchemeId::Waters11, CurveId::Bls48_581).is_ok());
        let msg = |r: Result<&dyn Scheme, Error>| r.err().unwrap().to_string();
        assert!(msg(scheme(SchemeId::Gw09, CurveId::Bls24_479)).contains("bls12-381 and bn254"));
        assert!(msg(scheme(SchemeId::Waters11, CurveId::P256)).contains("not a pairing curve"));
        if cfg!(feature = "insecure-benchmark-only") {
            assert!(msg(scheme(SchemeId::Yct14, CurveId::Bn254)).contains("BROKEN"));
            assert!(scheme_allowing_insecure(SchemeId::Yct14, CurveId::Bn254).is_ok());
        } else {
            assert!(msg(scheme(SchemeId::Yct14, CurveId::Bn254)).contains("not in this build"));
        }
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let w = scheme(SchemeId::Waters11, CurveId::Bn254).unwrap();
        let users = SetupParams {
            users: Some(4),
            ..SetupParams::default()
        };
        assert!(matches!(
            w.setup(&users, &mut rng),
            Err(Error::Unsupported(_))
        ));
        let b = scheme(SchemeId::Bsw07, CurveId::Bn254).unwrap();
        let (pk, _) = b.setup(&SetupParams::default(), &mut rng).unwrap();
        assert!(matches!(
            b.encapsulate(&pk, "a", Mode::Rcca, &mut rng),
            Err(Error::Unsupported(_))
        ));
    }

    #[test]
    fn streaming_encrypt_then_decrypt() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let s = scheme(SchemeId::Waters11, CurveId::Bls12_381).unwrap();
        let (pk, mk) = s.setup(&SetupParams::default(), &mut rng).unwrap();
        let alice = s.keygen(&mk, "doctor", None, &mut rng).unwrap();
        let bob = s.keygen(&mk, "nurse", None, &mut rng).unwrap();
        let mut file = Vec::new();
        let opts = SealOptions::default();
        encrypt(
            &pk,
            "doctor",
            Mode::Cca,
            &b"hello"[..],
            &mut file,
            &opts,
            &mut rng,
        )
        .unwrap();
        let mut out = Vec::new();
        decrypt(&alice, &file[..], &mut out, None).unwrap();
        assert_eq!(out, b"hello");
        assert!(matches!(
            decrypt(&bob, &file[..], &mut Vec::new(), None),
            Err(Error::NotSatisfied)
        ));
    }

    #[test]
    fn decoded_handles_serve_many_operations_and_only_their_own_objects() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let s = scheme(SchemeId::Gpsw06, CurveId::Bls12_381).unwrap();
        let (pk, mk) = s.setup(&SetupParams::default(), &mut rng).unwrap();
        let key = s.keygen(&mk, "a and b", None, &mut rng).unwrap();
        let (public, user) = (s.public_key(&pk).unwrap(), s.user_key(&key).unwrap());
        assert_eq!(user.info(), s.info());
        let opts = SealOptions::default();
        for text in [&b"one"[..], b"two"] {
            let mut file = Vec::new();
            encrypt_with(
                &*public,
                "a, b",
                Mode::Cca,
                text,
                &mut file,
                &opts,
                &mut rng,
            )
            .unwrap();
            let mut out = Vec::new();
            decrypt_with(&*user, &file[..], &mut out, None).unwrap();
            assert_eq!(out, text);
        }
        // CPA headers are not opened through a handle's decrypt_with.
        let mut cpa = Vec::new();
        encrypt_with(
            &*public,
            "a, b",
            Mode::Cpa,
            &b"x"[..],
            &mut cpa,
            &opts,
            &mut rng,
        )
        .unwrap();
        assert!(decrypt_with(&*user, &cpa[..], &mut Vec::new(), None).is_err());
        // Another scheme's ciphertext, and objects that are not keys.
        let w = scheme(SchemeId::Waters11, CurveId::Bls12_381).unwrap();
        let (wpk, _) = w.setup(&SetupParams::default(), &mut rng).unwrap();
        let mut other = Vec::new();
        encrypt(&wpk, "a", Mode::Cca, &b"x"[..], &mut other, &opts, &mut rng).unwrap();
        let e = decrypt_with(&*user, &other[..], &mut Vec::new(), None).unwrap_err();
        assert!(e.to_string().contains("the ciphertext for waters11"), "{e}");
        assert!(s.user_key(&pk).is_err());
        assert!(s.public_key(&key).is_err());
    }

    #[test]
    fn lists_reach_the_schemes_item_by_item() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let opts = SealOptions::default();
        let items = |i: &'static [&'static str]| SideInput::Items(i);
        // Waters11: keys for attribute items; a policy is text only.
        let w = scheme(SchemeId::Waters11, CurveId::Bn254).unwrap();
        let (pk, mk) = w.setup(&SetupParams::default(), &mut rng).unwrap();
        let e = w
            .keygen_for(
                &mk,
                items(&["doctor", "department = 7, admin"]),
                None,
                &mut rng,
            )
            .unwrap_err();
        assert!(
            matches!(&e, Error::Invalid(m) if m.contains("item [1]")),
            "{e}"
        );
        let key = w
            .keygen_for(&mk, items(&["doctor", "department = 7"]), None, &mut rng)
            .unwrap();
        let mut file = Vec::new();
        let policy = items(&["admin"]);
        assert!(encrypt(
            &pk,
            policy,
            Mode::Cca,
            &b"x"[..],
            &mut file,
            &opts,
            &mut rng
        )
        .is_err());
        encrypt(
            &pk,
            "doctor and department = 7",
            Mode::Cca,
            &b"x"[..],
            &mut file,
            &opts,
            &mut rng,
        )
        .unwrap();
        decrypt(&key, &file[..], &mut Vec::new(), None).unwrap();
        // GW09-IBBE: a ciphertext for identity items, each one identity.
        let g = scheme(SchemeId::Gw09Ibbe, CurveId::Bn254).unwrap();
        let params = SetupParams {
            max_recipients: Some(4),
            ..SetupParams::default()
        };
        let (pk, mk) = g.setup(&params, &mut rng).unwrap();
        let public = g.public_key(&pk).unwrap();
        let e = public
            .encapsulate_for(items(&["alice, mallory"]), Mode::Cca, &mut rng)
            .unwrap_err();
        assert!(
            matches!(&e, Error::Invalid(m) if m.contains("item [0]")),
            "{e}"
        );
        let (_, h) = public
            .encapsulate_for(items(&["alice", "bob"]), Mode::Cca, &mut rng)
            .unwrap();
        let alice = g.keygen(&mk, "alice", Some(&pk), &mut rng).unwrap();
        let alice = g.user_key_with(&alice, Some(Arc::new(pk.clone()))).unwrap();
        alice.decapsulate(&h, false).unwrap();
        // A key's identity is text only.
        assert!(g
            .keygen_for(&mk, items(&["alice"]), Some(&pk), &mut rng)
            .is_err());
    }
}
