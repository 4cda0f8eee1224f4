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

use crate::bcast::trace::TraceReport;
use crate::bcast::Source;
use crate::curve::{CurveId, Placement};
use crate::envelope::EnvelopeError;
use crate::kem::{KemError, ParamsKind, SessionKey, SetupParams, SideInput, SideKind};
use crate::outsource::{self, OutsourceError};
pub use crate::policy::expiry::Day;
use crate::policy::PolicyError;
use crate::wire::{ObjectKind, Preamble, SchemeId, WireError};
use rand_core::CryptoRngCore;
use std::sync::Arc;
use zeroize::Zeroizing;

mod entry;
mod extension;
mod files;
mod outsourcing;
mod registry;
mod tracing;

pub mod pirates;

use files::same_setup;
pub use files::{
    decrypt, decrypt_expecting, decrypt_with, encrypt, encrypt_with, session_of, transform,
};
pub use outsourcing::{
    check_transform_key, decrypt_transformed_bytes, header_id, transform_bytes,
    PreparedTransformKey,
};
use registry::find;
use tracing::TraceResult;
pub use tracing::{trace, Tracing};

/// Why a facade operation failed, in the three classes front ends report
/// differently (the CLI's exit codes 2, 3 and 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The key does not satisfy the ciphertext (or is not a recipient).
    #[error("your key does not satisfy this ciphertext's policy")]
    NotSatisfied,
    /// The key's attributes satisfy the policy, but the file is dated after
    /// the key's last day (or the key predates key expiry); the message
    /// says which ([`crate::policy::expiry`]).
    #[error("{0}")]
    Expired(String),
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
            KemError::Policy(p) => p.into(),
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
    /// The message, and under it where in the input the error is.
    fn from(e: PolicyError) -> Self {
        Error::Invalid(match e.pointer() {
            Some(p) => format!("{e}\n{p}"),
            None => e.to_string(),
        })
    }
}
impl From<crate::armor::ArmorError> for Error {
    fn from(e: crate::armor::ArmorError) -> Self {
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
    ) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>), Error> {
        let mut pk = Vec::new();
        let mk = self.setup_streamed(params, rng, &mut |b| pk.extend_from_slice(b))?;
        Ok((pk, mk))
    }
    /// The master key; the public key's encoding goes to `public_key` in
    /// order, piece by piece (an O(N) one in bounded memory).
    fn setup_streamed(
        &self,
        params: &SetupParams,
        rng: &mut dyn CryptoRngCore,
        public_key: &mut dyn FnMut(&[u8]),
    ) -> Result<Zeroizing<Vec<u8>>, Error>;
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
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.keygen_until(mk, key_side, pk, None, rng)
    }
    /// [`Scheme::keygen_for`] for a key valid until the day `until`
    /// (`None`: it does not expire; see [`crate::policy::expiry`]). ABE
    /// schemes with a universe fixed at setup, and broadcast schemes,
    /// refuse a date.
    fn keygen_until(
        &self,
        mk: &[u8],
        key_side: SideInput<'_>,
        pk: Option<&[u8]>,
        until: Option<Day>,
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
    /// of items (attributes or identities, one per item). ABE ciphertexts
    /// are dated today: keys that expired before cannot open them.
    fn encapsulate_for(
        &self,
        target: SideInput<'_>,
        mode: Mode,
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(SessionKey, Vec<u8>), Error> {
        self.encapsulate_on(target, mode, Some(Day::today()?), rng)
    }
    /// [`PublicKey::encapsulate_for`] dated `on` (`None`: no freshness
    /// condition, so expired keys open it too; see
    /// [`crate::policy::expiry`]). Schemes without dates ignore it.
    fn encapsulate_on(
        &self,
        target: SideInput<'_>,
        mode: Mode,
        on: Option<Day>,
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

/// The curve of a new setup of `scheme`: P-256 for a scheme the registry
/// offers there (a scheme without pairings, offered on no other curve), else
/// [`pairing_curve`].
pub fn setup_curve(
    scheme: SchemeId,
    level: Option<u32>,
    curve: Option<&str>,
) -> Result<CurveId, Error> {
    if find(scheme, CurveId::P256).is_some() {
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
    use crate::envelope::SealOptions;
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
                    // Where the table after YCT14's begins.
                    let next = SchemeId::ALL
                        .iter()
                        .skip_while(|s| **s != SchemeId::Yct14)
                        .nth(1)
                        .map(|s| format!("### {} (scheme", s.name()));
                    let at = next.and_then(|n| want.find(&n)).unwrap_or(want.len());
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
        // Every KEM of the table once: the pairing schemes on BN254,
        // ElGamal on P-256 (the broken ones in the builds that have them).
        let kems = SchemeId::ALL
            .iter()
            .filter(|s| !matches!(s.family(), crate::wire::Family::Signature))
            .filter(|s| !s.is_insecure() || cfg!(feature = "insecure-benchmark-only"))
            .count();
        assert_eq!(seen, kems);
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
