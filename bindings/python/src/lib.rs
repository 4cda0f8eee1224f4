//! `import abbe`: the library's facade for Python. Every scheme, level and
//! mode comes through `abbe::facade`, so there is no per-scheme code here.
//! Keys and ciphertexts are `bytes` in docs/FORMAT.md's format (the CLI
//! reads what Python writes and the other way round); secret keys are
//! `SecretKey` objects that wipe their memory when collected and never
//! show their contents. The GIL is released around pairing and stream work.

use abbe::envelope::{self, SealOptions};
use abbe::facade::{self, Day, Error as FacadeError, Mode};
use abbe::kem::{SetupParams, SideInput, SideKind};
use abbe::policy::AttributeSet;
use abbe::signature::AnySigningKey;
use abbe::wire::{ObjectKind, Preamble, SchemeId};
use pyo3::exceptions::{PyException, PyOSError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict, PyInt, PyTuple, PyType};
use rand_core::OsRng;
use std::io::{Read, Write};
use zeroize::{Zeroize, Zeroizing};

pyo3::create_exception!(
    abbe,
    Error,
    PyException,
    "An abbe operation failed (the CLI's exit 1): a request the scheme does not serve, an I/O error."
);
pyo3::create_exception!(
    abbe,
    InvalidInput,
    Error,
    "Invalid or corrupt input (the CLI's exit 2): an object, a policy, a signature, a passphrase."
);
pyo3::create_exception!(
    abbe,
    NotSatisfied,
    Error,
    "The key does not satisfy the ciphertext's policy, or is not among its recipients (the CLI's exit 3)."
);

/// `abbe.StreamError`: an [`Error`] and an `OSError`, made at import (a
/// class with two bases, which `create_exception!` cannot declare).
static STREAM_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

const STREAM_ERROR_DOC: &str =
    "A file object given to encrypt_stream or decrypt_stream failed or broke \
the file protocol. Also an OSError (as Python's own buffered files report a misbehaving raw \
stream); the file object's exception is its __cause__, and an OSError's errno is kept.";

fn stream_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    STREAM_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(py, [py.get_type::<Error>(), py.get_type::<PyOSError>()])?;
            let attrs = PyDict::new(py);
            attrs.set_item("__module__", "abbe")?;
            attrs.set_item("__doc__", STREAM_ERROR_DOC)?;
            let class = py
                .get_type::<PyType>()
                .call1(("StreamError", bases, attrs))?;
            Ok(class.downcast_into::<PyType>()?.unbind())
        })
        .map(|t| t.bind(py))
}

fn py_err(e: FacadeError) -> PyErr {
    use envelope::{EnvelopeError, StreamError};
    let message = pythonic(e.to_string());
    match e {
        FacadeError::NotSatisfied | FacadeError::Expired(_) => NotSatisfied::new_err(message),
        FacadeError::Invalid(_) => InvalidInput::new_err(message),
        // A malformed armor around a ciphertext is corrupt input.
        FacadeError::Envelope(EnvelopeError::Io(ref io))
            if abbe::armor::ArmorError::from_io(io).is_some() =>
        {
            InvalidInput::new_err(message)
        }
        FacadeError::Envelope(EnvelopeError::Io(_) | EnvelopeError::Stream(StreamError::Io(_)))
        | FacadeError::Unsupported(_) => Error::new_err(message),
        FacadeError::Envelope(_) => InvalidInput::new_err(message),
    }
}

/// The library's messages name the command line's flags where a step is
/// missing; in Python they name the keyword arguments instead.
fn pythonic(message: String) -> String {
    const AS_PYTHON: [(&str, &str); 8] = [
        ("`--mode rcca`", "mode=\"rcca\""),
        ("--mode cpa", "mode=\"cpa\""),
        ("(abbe decrypt --public)", "(public=)"),
        ("(--public)", "(public=)"),
        ("--expect-header", "expect_header="),
        ("(--key alice.rk)", "(its retrieval key)"),
        ("(--max-recipients)", "(max_recipients=)"),
        ("; --max-policy-work raises the budget", ""),
    ];
    AS_PYTHON
        .iter()
        .fold(message, |m, (flag, keyword)| m.replace(flag, keyword))
}

fn invalid(e: impl std::fmt::Display) -> PyErr {
    InvalidInput::new_err(e.to_string())
}

// ---------------------------------------------------------------- keys

/// A secret key: a master key, a user key bundle, a retrieval key or a
/// signing key. Its bytes are wiped when the object is collected; `repr`
/// names what it is, never its contents. `bytes(key)` exports it (a copy
/// Python cannot wipe: write it to a file and drop it).
#[pyclass(module = "abbe", frozen)]
struct SecretKey {
    bytes: Zeroizing<Vec<u8>>,
    preamble: Preamble,
    /// A user key decoded once, on first use: its decryptions share the
    /// decoding and the key's precomputed pairing lines.
    decoded: std::sync::OnceLock<Box<dyn facade::UserKey>>,
}

impl SecretKey {
    fn new(bytes: Zeroizing<Vec<u8>>) -> PyResult<SecretKey> {
        let preamble = Preamble::parse(&bytes).map_err(invalid)?;
        Ok(SecretKey {
            bytes,
            preamble,
            decoded: std::sync::OnceLock::new(),
        })
    }

    /// The decoded user key, for a user key bundle; a broadcast key is
    /// given its setup's public key `public` (the first one given stays:
    /// another setup's would be refused).
    fn user_key(&self, public: Option<&[u8]>) -> Result<Option<&dyn facade::UserKey>, FacadeError> {
        if self.preamble.kind != ObjectKind::UserKey {
            return Ok(None);
        }
        if let Some(k) = self.decoded.get() {
            return Ok(Some(&**k));
        }
        if self.preamble.scheme.is_broadcast() && public.is_none() {
            // Not cached: the general path says what is missing.
            return Ok(None);
        }
        let k = facade::of_object(&self.bytes)?.user_key_with(&self.bytes, source(public))?;
        // Two threads may decode at once; either result is the same key.
        Ok(Some(&**self.decoded.get_or_init(|| k)))
    }
}

#[pymethods]
impl SecretKey {
    /// A secret key from its bytes (as written by the CLI or `bytes(key)`;
    /// ASCII armor and passphrase protection are undone first).
    #[new]
    #[pyo3(signature = (data, *, passphrase=None))]
    fn from_bytes(data: &[u8], passphrase: Option<&str>) -> PyResult<SecretKey> {
        SecretKey::new(open_object(data, passphrase)?)
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.bytes)
    }

    fn __repr__(&self) -> String {
        format!(
            "<abbe.SecretKey: {}, {} on {}>",
            self.preamble.kind.describe(),
            self.preamble.scheme.name(),
            self.preamble.curve.name()
        )
    }

    /// What the key is (e.g. "user key bundle").
    #[getter]
    fn kind(&self) -> String {
        self.preamble.kind.describe().to_string()
    }

    /// The scheme's name (e.g. "waters11").
    #[getter]
    fn scheme(&self) -> &'static str {
        self.preamble.scheme.name()
    }

    /// The curve's name (e.g. "bls12-381").
    #[getter]
    fn curve(&self) -> &'static str {
        self.preamble.curve.name()
    }
}

/// A key argument: a [`SecretKey`] or its bytes.
#[derive(FromPyObject)]
enum KeyArg<'py> {
    Secret(PyRef<'py, SecretKey>),
    Bytes(Bound<'py, PyBytes>),
}

impl KeyArg<'_> {
    /// The object as it is (armor removed), protected or not.
    fn raw(&self) -> PyResult<Zeroizing<Vec<u8>>> {
        match self {
            KeyArg::Secret(k) => Ok(k.bytes.clone()),
            KeyArg::Bytes(b) if abbe::armor::is_armored(b.as_bytes()) => {
                abbe::armor::dearmor(b.as_bytes()).map_err(invalid)
            }
            KeyArg::Bytes(b) => Ok(Zeroizing::new(b.as_bytes().to_vec())),
        }
    }

    /// The object, passphrase protection undone.
    fn bytes(&self, passphrase: Option<&str>) -> PyResult<Zeroizing<Vec<u8>>> {
        match self {
            KeyArg::Secret(k) => Ok(k.bytes.clone()),
            KeyArg::Bytes(b) => open_object(b.as_bytes(), passphrase),
        }
    }
}

/// The object in `data`: ASCII armor removed, passphrase protection undone.
fn open_object(data: &[u8], passphrase: Option<&str>) -> PyResult<Zeroizing<Vec<u8>>> {
    let raw = if abbe::armor::is_armored(data) {
        abbe::armor::dearmor(data).map_err(invalid)?
    } else {
        Zeroizing::new(data.to_vec())
    };
    let pre = Preamble::parse(&raw).map_err(invalid)?;
    if pre.kind != ObjectKind::ProtectedKey {
        return Ok(raw);
    }
    let Some(p) = passphrase else {
        return Err(invalid(
            "this key is protected by a passphrase: pass passphrase=...",
        ));
    };
    abbe::protect::unprotect(&raw, p.as_bytes()).map_err(invalid)
}

// ---------------------------------------------------------------- setup, keygen

/// A new setup: (public key bytes, master key).
///
/// `scheme`: a name from :func:`schemes` (default waters11); its `setup`
/// entry names the parameters it takes: `users` (broadcast), `expansion`
/// (a ∈ [0, 1]), `universe` (the attributes of a small-universe scheme),
/// `max_recipients` (identity-based). `level`: 100, 128 (default), 192 or
/// 256; or `curve` by name. `optimize`: "decrypt" or "encrypt", the
/// placement of G1 and G2 that favours it; or `placement`: "standard" or
/// "swapped" itself (default: the scheme's own placement).
#[pyfunction]
#[pyo3(signature = (scheme="waters11", *, level=None, curve=None, users=None, universe=None, max_recipients=None, expansion=None, optimize=None, placement=None))]
#[allow(clippy::too_many_arguments)]
fn setup<'py>(
    py: Python<'py>,
    scheme: &str,
    level: Option<u32>,
    curve: Option<&str>,
    users: Option<u32>,
    universe: Option<Vec<String>>,
    max_recipients: Option<u32>,
    expansion: Option<f64>,
    optimize: Option<&str>,
    placement: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, SecretKey)> {
    if level.is_some() && curve.is_some() {
        return Err(invalid("give level or curve, not both"));
    }
    if optimize.is_some() && placement.is_some() {
        return Err(invalid("give optimize or placement, not both"));
    }
    let id =
        SchemeId::from_name(scheme).ok_or_else(|| invalid(format!("unknown scheme '{scheme}'")))?;
    let mut curve = facade::setup_curve(id, level, curve).map_err(py_err)?;
    if optimize.is_some() || placement.is_some() {
        let optimize = optimize
            .map(facade::Optimize::from_name)
            .transpose()
            .map_err(py_err)?;
        let placement = placement
            .map(|p| {
                abbe::curve::Placement::from_name(p).ok_or_else(|| {
                    invalid(format!(
                        "unknown placement '{p}' (expected standard or swapped)"
                    ))
                })
            })
            .transpose()?;
        curve = facade::placed_curve(id, curve, optimize, placement).map_err(py_err)?;
    }
    let s = facade::scheme(id, curve).map_err(py_err)?;
    let params = SetupParams {
        users,
        universe,
        max_recipients,
        expansion,
    };
    let (pk, mk) = py
        .allow_threads(|| s.setup(&params, &mut OsRng))
        .map_err(py_err)?;
    Ok((PyBytes::new(py, &pk), SecretKey::new(mk)?))
}

/// A user key bundle from the master key `mk`, for what the scheme's keys
/// are made for: `attrs` (ciphertext-policy schemes: ["doctor", "age = 42"]),
/// `policy` (key-policy schemes), `user` (broadcast: an index from 1) or
/// `identity` (identity-based broadcast: "alice@example.com").
/// `public`: the setup's public key (BGW05 recomputes it otherwise).
#[pyfunction]
#[pyo3(signature = (mk, *, attrs=None, policy=None, user=None, identity=None, public=None, valid_until=None, passphrase=None))]
#[allow(clippy::too_many_arguments)]
fn keygen(
    py: Python<'_>,
    mk: KeyArg<'_>,
    attrs: Option<Vec<String>>,
    policy: Option<&str>,
    user: Option<u32>,
    identity: Option<&str>,
    public: Option<&[u8]>,
    valid_until: Option<&str>,
    passphrase: Option<&str>,
) -> PyResult<SecretKey> {
    let until = valid_until.map(Day::parse).transpose().map_err(invalid)?;
    let mk = mk.bytes(passphrase)?;
    let s = facade::of_object(&mk).map_err(py_err)?;
    let side = match (s.info().key_side, attrs, policy, user, identity) {
        (SideKind::Attributes, Some(a), None, None, None) => SideArg::Items(a),
        (SideKind::Policy, None, Some(p), None, None) => SideArg::Text(p.to_string()),
        (SideKind::User, None, None, Some(u), None) => SideArg::Text(u.to_string()),
        (SideKind::Identity, None, None, None, Some(i)) => SideArg::Text(i.to_string()),
        (kind, ..) => {
            return Err(invalid(format!(
                "{} keys are made with {} (and nothing else)",
                s.info().scheme.name(),
                side_argument(kind)
            )));
        }
    };
    let public = public
        .map(abbe::armor::unarmored)
        .transpose()
        .map_err(invalid)?;
    let key = py
        .allow_threads(|| {
            side.with(|side| s.keygen_until(&mk, side, public.as_deref(), until, &mut OsRng))
        })
        .map_err(py_err)?;
    SecretKey::new(key)
}

/// A key's or a ciphertext's side as Python gave it: a string, or a list
/// whose items reach the library one by one (never joined into text that
/// is split again: an item "a, b" is refused, not read as two).
enum SideArg {
    Text(String),
    Items(Vec<String>),
}

impl SideArg {
    fn with<T>(&self, f: impl FnOnce(SideInput<'_>) -> T) -> T {
        match self {
            SideArg::Text(t) => f(SideInput::Text(t)),
            SideArg::Items(items) => {
                let items: Vec<&str> = items.iter().map(String::as_str).collect();
                f(SideInput::Items(&items))
            }
        }
    }
}

// ---------------------------------------------------------------- encrypt, decrypt

/// The ciphertext side from exactly one of policy / attrs / to /
/// to_identities; none only for a scheme without recipient sets (every
/// user).
fn target(
    pk: &[u8],
    policy: Option<&str>,
    attrs: Option<Vec<String>>,
    to: Option<&str>,
    to_identities: Option<Vec<String>>,
) -> PyResult<SideArg> {
    let s = facade::of_object(pk).map_err(py_err)?;
    // Only the argument this scheme's ciphertexts are made for: attrs=
    // given to a ciphertext-policy scheme is refused, never read as a policy.
    match (s.info().ciphertext_side, policy, attrs, to, to_identities) {
        (SideKind::Policy, Some(p), None, None, None) => Ok(SideArg::Text(p.to_string())),
        (SideKind::Attributes, None, Some(a), None, None) => Ok(SideArg::Items(a)),
        (SideKind::Users | SideKind::Everyone, None, None, Some(t), None) => {
            Ok(SideArg::Text(t.to_string()))
        }
        (SideKind::Everyone, None, None, None, None) => Ok(SideArg::Text("all".into())),
        (SideKind::Identities, None, None, None, Some(ids)) => Ok(SideArg::Items(ids)),
        (kind, ..) => Err(invalid(format!(
            "{} ciphertexts are made with {} (and nothing else)",
            s.info().scheme.name(),
            side_argument(kind)
        ))),
    }
}

/// The keyword argument that gives a side of this kind.
fn side_argument(kind: SideKind) -> &'static str {
    match kind {
        SideKind::Attributes => "attrs=[...]",
        SideKind::Policy => "policy=\"...\"",
        SideKind::User => "user=N",
        SideKind::Users | SideKind::Everyone => "to=\"1-100, 200\"",
        SideKind::Identity => "identity=\"...\"",
        SideKind::Identities => "to_identities=[...]",
    }
}

/// The mode asked for, or the scheme's default (CCA; CPA for a traceable
/// scheme).
fn mode(pk: &[u8], name: Option<&str>) -> PyResult<Mode> {
    match name {
        None => Ok(facade::of_object(pk).map_err(py_err)?.info().default_mode()),
        Some("cca") => Ok(Mode::Cca),
        Some("rcca") => Ok(Mode::Rcca),
        Some("cpa") => Ok(Mode::Cpa),
        Some(name) => Err(invalid(format!("unknown mode '{name}' (cca, rcca or cpa)"))),
    }
}

fn signer(
    sign_with: Option<KeyArg<'_>>,
    passphrase: Option<&str>,
) -> PyResult<Option<AnySigningKey>> {
    sign_with
        .map(|k| AnySigningKey::from_bytes(&k.bytes(passphrase)?).map_err(invalid))
        .transpose()
}

/// Encrypts `data` (bytes) to a ciphertext (bytes, the CLI's format) under
/// the public key `pk` (bytes, armored or not).
///
/// Give exactly the argument the scheme's ciphertexts are made for:
/// `policy` (ciphertext-policy ABE: "doctor and (cardiology or age >= 30)"),
/// `attrs` (key-policy ABE: a list, one attribute per item), `to`
/// (broadcast: "1-100, 200"; traitor tracing: none, or "all") or
/// `to_identities` (identity-based broadcast: a list of identities).
///
/// `mode`: "cca" (the default: the decryptor re-encrypts to check the
/// header), "rcca" (outsourceable: `transform_key`/`transform` through a
/// proxy, and the final decryption detects a lying proxy) or "cpa" (no
/// check of the header: benchmarks, and the traceable schemes, which
/// take only "cpa"). `sign_with`: a signing key (`signer_keygen`)
/// whose BLS signature over the file travels inside the encryption
/// (`passphrase` if it is protected).
#[pyfunction]
#[pyo3(signature = (pk, data, *, policy=None, attrs=None, to=None, to_identities=None, mode=None, sign_with=None, passphrase=None, no_expiry=false, as_of=None))]
#[allow(clippy::too_many_arguments)]
fn encrypt<'py>(
    py: Python<'py>,
    pk: &[u8],
    data: &[u8],
    policy: Option<&str>,
    attrs: Option<Vec<String>>,
    to: Option<&str>,
    to_identities: Option<Vec<String>>,
    mode: Option<&str>,
    sign_with: Option<KeyArg<'_>>,
    passphrase: Option<&str>,
    no_expiry: bool,
    as_of: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let on = Day::of_file(no_expiry, as_of).map_err(invalid)?;
    let pk = &*abbe::armor::unarmored(pk).map_err(invalid)?;
    let (target, mode) = (
        target(pk, policy, attrs, to, to_identities)?,
        self::mode(pk, mode)?,
    );
    let signer = signer(sign_with, passphrase)?;
    let out = py
        .allow_threads(|| {
            let mut out = Vec::with_capacity(data.len() + 1024);
            let opts = SealOptions {
                aead: None,
                signer: signer.as_ref(),
            };
            target
                .with(|t| seal(pk, t, mode, on, data, &mut out, &opts))
                .map(|_| out)
        })
        .map_err(py_err)?;
    Ok(PyBytes::new(py, &out))
}

/// Encrypts `input` for `target` dated `on` ([`Day::of_file`]).
fn seal(
    pk: &[u8],
    target: SideInput<'_>,
    mode: Mode,
    on: Option<Day>,
    input: impl std::io::Read,
    output: impl std::io::Write,
    opts: &SealOptions<'_>,
) -> Result<u64, FacadeError> {
    let (session, header) = facade::of_object(pk)?
        .public_key(pk)?
        .encapsulate_on(target, mode, on, &mut OsRng)?;
    Ok(envelope::seal_with(
        &header, &session, &mut OsRng, input, output, opts,
    )?)
}

/// What a transformed file must be a transformation of: the header id of
/// `original` (a ciphertext file) or `expect_header` (64 hex digits, as
/// `inspect()["header_id"]` gives it), or nothing with `any_original`.
fn expectation(
    original: Option<&[u8]>,
    expect_header: Option<&str>,
    any_original: bool,
) -> PyResult<abbe::outsource::Expect> {
    let header_id = match (original, expect_header) {
        (Some(_), Some(_)) => {
            return Err(invalid("give original= or expect_header=, not both"));
        }
        (Some(file), None) => {
            let original = |e: &dyn std::fmt::Display| invalid(format!("original: {e}"));
            let mut rest = abbe::armor::dearmored(file).map_err(|e| original(&e))?.0;
            let head = envelope::read_head(&mut rest).map_err(|e| original(&e))?;
            if head.preamble.kind != ObjectKind::EncryptedFile {
                return Err(invalid(
                    "original: a transformed file; give the ciphertext it was made from",
                ));
            }
            Some(
                abbe::facade::header_id(&head.header)
                    .map_err(|e| invalid(format!("original: {e}")))?,
            )
        }
        (None, Some(hex)) => {
            let hex = hex.trim();
            let bytes: Option<Vec<u8>> = (hex.len() == 64 && hex.is_ascii())
                .then(|| {
                    (0..32)
                        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                        .collect()
                })
                .flatten();
            Some(
                bytes
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .ok_or_else(|| {
                        invalid("expect_header takes the 64 hex digits of a header id (inspect()[\"header_id\"])")
                    })?,
            )
        }
        (None, None) => None,
    };
    if header_id.is_some() && any_original {
        return Err(invalid(
            "any_original=True waives the check that original=/expect_header= ask for",
        ));
    }
    Ok(abbe::outsource::Expect {
        header_id,
        any_original,
        allow_cpa: false,
    })
}

/// Decrypts a ciphertext (bytes) with a user key, or a transformed
/// ciphertext with a retrieval key: then name the ciphertext it must be a
/// transformation of — `original=` (its bytes) or `expect_header=` (its
/// header id) — or waive that with `any_original=True` (a proxy can return
/// a transformation of any ciphertext: anyone with the public key can
/// encrypt). With `verify_with` (a verifying key), only a ciphertext signed
/// by that key is accepted.
#[pyfunction]
#[pyo3(signature = (key, ct, *, public=None, verify_with=None, original=None, expect_header=None, any_original=false, passphrase=None))]
#[allow(clippy::too_many_arguments)]
fn decrypt<'py>(
    py: Python<'py>,
    key: KeyArg<'_>,
    ct: &[u8],
    public: Option<&[u8]>,
    verify_with: Option<&[u8]>,
    original: Option<&[u8]>,
    expect_header: Option<&str>,
    any_original: bool,
    passphrase: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let expect = expectation(original, expect_header, any_original)?;
    let out = match &key {
        // A SecretKey's user key is decoded once for all its decryptions
        // (transformed files go to the retrieval key: the general path).
        KeyArg::Secret(k) if !is_transformed(ct) => {
            let k: &SecretKey = k;
            py.allow_threads(|| match k.user_key(public)? {
                Some(uk) => {
                    let mut out = Zeroizing::new(Vec::with_capacity(ct.len()));
                    facade::decrypt_with(uk, ct, &mut *out, verify_with).map(|_| out)
                }
                None => decrypt_bytes(&k.bytes, public, ct, verify_with, &expect),
            })
        }
        _ => {
            let key = key.bytes(passphrase)?;
            py.allow_threads(|| decrypt_bytes(&key, public, ct, verify_with, &expect))
        }
    }
    .map_err(py_err)?;
    Ok(PyBytes::new(py, &out))
}

fn is_transformed(ct: &[u8]) -> bool {
    Preamble::parse(ct).is_ok_and(|p| p.kind == ObjectKind::TransformedFile)
}

fn decrypt_bytes(
    key: &[u8],
    public: Option<&[u8]>,
    ct: &[u8],
    verify_with: Option<&[u8]>,
    expect: &abbe::outsource::Expect,
) -> Result<Zeroizing<Vec<u8>>, FacadeError> {
    let mut out = Zeroizing::new(Vec::with_capacity(ct.len()));
    decrypt_to(key, public, ct, &mut *out, verify_with, expect).map(|_| out)
}

/// The public key bytes as a source (a broadcast key decrypts with it).
fn source(public: Option<&[u8]>) -> Option<abbe::bcast::Source> {
    public.map(|p| std::sync::Arc::new(p.to_vec()) as abbe::bcast::Source)
}

/// [`facade::decrypt_expecting`], with the setup's public key for a
/// broadcast key.
fn decrypt_to(
    key: &[u8],
    public: Option<&[u8]>,
    input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
    expect: &abbe::outsource::Expect,
) -> Result<envelope::Opened, FacadeError> {
    match (public, Preamble::parse(key).map(|p| p.kind)) {
        (Some(_), Ok(ObjectKind::UserKey | ObjectKind::SchemeUserKey)) => {
            let uk = facade::of_object(key)?.user_key_with(key, source(public))?;
            facade::decrypt_with(&*uk, input, output, verify_with)
        }
        _ => facade::decrypt_expecting(key, input, output, verify_with, expect),
    }
}

/// Why a file object failed: what abbe says, and the exception it raised
/// (none when it broke the file protocol itself, e.g. by answering more
/// than it was given).
struct FileFailure {
    message: String,
    raised: Option<PyErr>,
}

impl FileFailure {
    fn broke(message: String) -> FileFailure {
        FileFailure {
            message,
            raised: None,
        }
    }

    fn raised(py: Python<'_>, call: &str, e: PyErr) -> FileFailure {
        let name = e
            .get_type(py)
            .name()
            .map_or_else(|_| "an exception".into(), |n| n.to_string());
        FileFailure {
            message: format!("{call} raised {name}: {}", e.value(py)),
            raised: Some(e),
        }
    }

    /// The Python exception: `abbe.StreamError` with the file object's
    /// exception as `__cause__` (and an OSError's errno); a
    /// KeyboardInterrupt or SystemExit is not an error of abbe's and
    /// passes as it was.
    fn into_py_err(self, py: Python<'_>) -> PyErr {
        let FileFailure { message, raised } = self;
        if let Some(e) = raised
            .as_ref()
            .filter(|e| !e.is_instance_of::<PyException>(py))
        {
            return e.clone_ref(py);
        }
        let made = stream_error_type(py).and_then(|t| t.call1((message,)));
        let err = match made {
            Ok(value) => {
                let errno = raised
                    .as_ref()
                    .filter(|e| e.is_instance_of::<PyOSError>(py))
                    .and_then(|e| e.value(py).getattr("errno").ok());
                if let Some(errno) = errno {
                    // Kept for `except OSError as e: e.errno == ENOSPC`.
                    let _ = value.setattr("errno", errno);
                }
                PyErr::from_value(value)
            }
            Err(e) => e,
        };
        err.set_cause(py, raised);
        err
    }
}

/// `io::Error` for a failure already recorded in the file object's
/// wrapper (the wrapper, not this error, carries what Python raised).
fn failed_io(f: &FileFailure) -> std::io::Error {
    std::io::Error::other(f.message.clone())
}

/// `obj`'s method `name`, or the StreamError saying the object lacks it.
fn file_method(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    role: &str,
    name: &str,
) -> PyResult<Py<PyAny>> {
    obj.getattr(name).map(Bound::unbind).map_err(|e| {
        FileFailure {
            message: format!("{role} has no {name}() method: give a binary file object"),
            raised: Some(e),
        }
        .into_py_err(py)
    })
}

/// A Python file object read through `read(n)`, with the GIL taken for
/// each call only. `read(n)` must return bytes: at most n, b"" at the end.
/// Anything else (more than n, str, None, an exception) fails the stream,
/// and every later call fails without calling Python; the failure is kept
/// for the exception raised to Python ([`FileFailure`]). None is refused:
/// from a non-blocking stream it means "no data yet", and waiting for data
/// here would spin.
struct PyReader {
    read: Py<PyAny>,
    failure: Option<FileFailure>,
}

impl PyReader {
    fn new(py: Python<'_>, src: &Bound<'_, PyAny>) -> PyResult<PyReader> {
        Ok(PyReader {
            read: file_method(py, src, "src", "read")?,
            failure: None,
        })
    }

    fn read_py(&self, py: Python<'_>, buf: &mut [u8]) -> Result<usize, FileFailure> {
        let call = format!("src.read({})", buf.len());
        let chunk = self
            .read
            .call1(py, (buf.len(),))
            .map_err(|e| FileFailure::raised(py, &call, e))?;
        let chunk = chunk.bind(py);
        if chunk.is_none() {
            return Err(FileFailure::broke(format!(
                "{call} returned None, which a non-blocking stream returns when it has no data \
                 yet: give a blocking file object"
            )));
        }
        let Ok(bytes) = chunk.downcast::<PyBytes>() else {
            return Err(FileFailure::broke(format!(
                "{call} returned {} instead of bytes (open the file in binary mode)",
                type_name(chunk)
            )));
        };
        let data = bytes.as_bytes();
        let Some(dst) = buf.get_mut(..data.len()) else {
            return Err(FileFailure::broke(format!(
                "{call} returned {} bytes",
                data.len()
            )));
        };
        dst.copy_from_slice(data);
        Ok(data.len())
    }
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(f) = &self.failure {
            return Err(failed_io(f));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        Python::with_gil(|py| match self.read_py(py, buf) {
            Ok(n) => Ok(n),
            Err(f) => Err(failed_io(self.failure.insert(f))),
        })
    }
}

/// A Python file object written through `write(b)`. Its answer is checked,
/// never trusted: a count in 1..=len(b) (a short write; 0 is refused, it
/// would never end), or None, which from a plain object means it took
/// everything, but from a raw stream (`io.RawIOBase`) that it is
/// non-blocking and took nothing (refused, as data would be lost). Anything
/// else fails the stream as [`PyReader`] does.
struct PyWriter {
    write: Py<PyAny>,
    raw: bool,
    failure: Option<FileFailure>,
}

impl PyWriter {
    fn new(py: Python<'_>, dst: &Bound<'_, PyAny>) -> PyResult<PyWriter> {
        let raw_io = py.import("io")?.getattr("RawIOBase")?;
        Ok(PyWriter {
            write: file_method(py, dst, "dst", "write")?,
            raw: dst.is_instance(&raw_io)?,
            failure: None,
        })
    }

    fn write_py(&self, py: Python<'_>, buf: &[u8]) -> Result<usize, FileFailure> {
        let call = "dst.write()";
        // Fallible, unlike PyBytes::new (which panics on MemoryError).
        let bytes = PyBytes::new_with(py, buf.len(), |b| {
            b.copy_from_slice(buf);
            Ok(())
        })
        .map_err(|e| FileFailure::raised(py, call, e))?;
        let answer = self
            .write
            .call1(py, (bytes,))
            .map_err(|e| FileFailure::raised(py, call, e))?;
        let answer = answer.bind(py);
        if answer.is_none() {
            if self.raw {
                return Err(FileFailure::broke(format!(
                    "{call} of a raw stream returned None: it is non-blocking and took \
                     nothing; give a blocking file object"
                )));
            }
            return Ok(buf.len());
        }
        let count = answer
            .downcast::<PyInt>()
            .ok()
            .and_then(|n| n.extract::<u64>().ok());
        match count {
            Some(n) if n > 0 && n <= buf.len() as u64 => Ok(n as usize),
            _ if answer.is_instance_of::<PyInt>() => Err(FileFailure::broke(format!(
                "{call} was given {} bytes and returned {}",
                buf.len(),
                shown(answer)
            ))),
            _ => Err(FileFailure::broke(format!(
                "{call} returned {} instead of the number of bytes written",
                type_name(answer)
            ))),
        }
    }
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(f) = &self.failure {
            return Err(failed_io(f));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        Python::with_gil(|py| match self.write_py(py, buf) {
            Ok(n) => Ok(n),
            Err(f) => Err(failed_io(self.failure.insert(f))),
        })
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &self.failure {
            Some(f) => Err(failed_io(f)),
            None => Ok(()),
        }
    }
}

/// The name of `obj`'s type, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "an object".into(), |n| n.to_string())
}

/// `str(obj)`, shortened, for messages.
fn shown(obj: &Bound<'_, PyAny>) -> String {
    let text = obj.str().map_or_else(|_| "?".into(), |s| s.to_string());
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// The result of a stream call: a file object's failure first (what was
/// raised, or how the object broke the protocol), whatever the facade
/// made of it, and even if the facade succeeded.
fn stream_result<T>(
    py: Python<'_>,
    result: Result<T, FacadeError>,
    failures: [Option<FileFailure>; 2],
) -> PyResult<T> {
    if let Some(f) = failures.into_iter().flatten().next() {
        return Err(f.into_py_err(py));
    }
    result.map_err(py_err)
}

/// Encrypts the binary file-like `src` into `dst` in constant memory;
/// returns the plaintext length. The arguments are `encrypt`'s (`policy`,
/// `attrs`, `to` or `to_identities`; `mode` "cca", "rcca" or "cpa";
/// `sign_with`). A failing or misbehaving file object raises
/// `abbe.StreamError`.
#[pyfunction]
#[pyo3(signature = (pk, src, dst, *, policy=None, attrs=None, to=None, to_identities=None, mode=None, sign_with=None, passphrase=None, no_expiry=false, as_of=None))]
#[allow(clippy::too_many_arguments)]
fn encrypt_stream(
    py: Python<'_>,
    pk: &[u8],
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    policy: Option<&str>,
    attrs: Option<Vec<String>>,
    to: Option<&str>,
    to_identities: Option<Vec<String>>,
    mode: Option<&str>,
    sign_with: Option<KeyArg<'_>>,
    passphrase: Option<&str>,
    no_expiry: bool,
    as_of: Option<&str>,
) -> PyResult<u64> {
    let on = Day::of_file(no_expiry, as_of).map_err(invalid)?;
    let pk = &*abbe::armor::unarmored(pk).map_err(invalid)?;
    let (target, mode) = (
        target(pk, policy, attrs, to, to_identities)?,
        self::mode(pk, mode)?,
    );
    let signer = signer(sign_with, passphrase)?;
    let (mut reader, mut writer) = (PyReader::new(py, src)?, PyWriter::new(py, dst)?);
    let result = py.allow_threads(|| -> Result<u64, FacadeError> {
        let opts = SealOptions {
            aead: None,
            signer: signer.as_ref(),
        };
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut writer);
        let n = target.with(|t| seal(pk, t, mode, on, &mut reader, &mut out, &opts))?;
        // Dropping a BufWriter would flush and swallow a failed last write.
        out.flush().map_err(envelope::EnvelopeError::Io)?;
        Ok(n)
    });
    stream_result(py, result, [reader.failure, writer.failure])
}

/// Decrypts the binary file-like `src` into `dst` in constant memory, one
/// authenticated chunk at a time; returns the plaintext length. On an
/// exception, discard what `dst` received. A failing or misbehaving file
/// object raises `abbe.StreamError`. A transformed file needs `original=`,
/// `expect_header=` or `any_original=True`, as in `decrypt`.
#[pyfunction]
#[pyo3(signature = (key, src, dst, *, public=None, verify_with=None, original=None, expect_header=None, any_original=false, passphrase=None))]
#[allow(clippy::too_many_arguments)]
fn decrypt_stream(
    py: Python<'_>,
    key: KeyArg<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    public: Option<&[u8]>,
    verify_with: Option<&[u8]>,
    original: Option<&[u8]>,
    expect_header: Option<&str>,
    any_original: bool,
    passphrase: Option<&str>,
) -> PyResult<u64> {
    let expect = expectation(original, expect_header, any_original)?;
    let key = key.bytes(passphrase)?;
    let (mut reader, mut writer) = (PyReader::new(py, src)?, PyWriter::new(py, dst)?);
    let result = py.allow_threads(|| -> Result<u64, FacadeError> {
        let input = std::io::BufReader::with_capacity(1 << 16, &mut reader);
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut writer);
        let opened = decrypt_to(&key, public, input, &mut out, verify_with, &expect);
        let flushed = opened.and_then(|o| {
            out.flush().map_err(envelope::EnvelopeError::Io)?;
            Ok(o.len)
        });
        // The buffer held plaintext: wiped, and on an error not written.
        if let (_, Ok(mut rest)) = out.into_parts() {
            rest.zeroize();
        }
        flushed
    });
    stream_result(py, result, [reader.failure, writer.failure])
}

// ---------------------------------------------------------------- outsourcing

/// (transformation key bytes, retrieval key) from a user key bundle
/// (GHW11: the proxy gets the transformation key, the user keeps the
/// retrieval key).
#[pyfunction]
#[pyo3(signature = (key, *, passphrase=None))]
fn transform_key<'py>(
    py: Python<'py>,
    key: KeyArg<'_>,
    passphrase: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, SecretKey)> {
    let key = key.bytes(passphrase)?;
    let s = facade::of_object(&key).map_err(py_err)?;
    let (tk, rk) = py
        .allow_threads(|| s.transform_key(&key, &mut OsRng))
        .map_err(py_err)?;
    Ok((PyBytes::new(py, &tk), SecretKey::new(rk)?))
}

/// What the proxy does: transforms an RCCA (or CPA) ciphertext with a
/// transformation key; `decrypt` with the retrieval key finishes it.
#[pyfunction]
fn transform<'py>(py: Python<'py>, tk: &[u8], ct: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let out = py
        .allow_threads(|| -> Result<Vec<u8>, FacadeError> {
            let mut out = Vec::with_capacity(ct.len());
            abbe::facade::transform(tk, ct, &mut out)?;
            Ok(out)
        })
        .map_err(py_err)?;
    Ok(PyBytes::new(py, &out))
}

// ---------------------------------------------------------------- signatures, armor, inspect

/// A new signing key and its verifying key (bytes) at `level` (or `curve`).
#[pyfunction]
#[pyo3(signature = (*, level=None, curve=None))]
fn signer_keygen<'py>(
    py: Python<'py>,
    level: Option<u32>,
    curve: Option<&str>,
) -> PyResult<(SecretKey, Bound<'py, PyBytes>)> {
    let curve = facade::pairing_curve(level, curve).map_err(py_err)?;
    let (sk, vk) = AnySigningKey::generate(curve, &mut OsRng).map_err(invalid)?;
    Ok((SecretKey::new(sk)?, PyBytes::new(py, &vk)))
}

/// ASCII armor of an object (`-----BEGIN ABBE ...-----`).
#[pyfunction]
fn armor<'py>(py: Python<'py>, obj: KeyArg<'_>) -> PyResult<Bound<'py, PyBytes>> {
    let text = abbe::armor::armor(&obj.raw()?).map_err(invalid)?;
    Ok(PyBytes::new(py, &text))
}

/// The object inside an ASCII armor (`-----BEGIN ABBE ...-----`), as
/// bytes; every function also takes armored objects as they are.
#[pyfunction]
fn dearmor<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let obj = abbe::armor::dearmor(text).map_err(invalid)?;
    Ok(PyBytes::new(py, &obj))
}

/// A secret key protected by `passphrase` (scrypt + AES-256-GCM), as bytes.
#[pyfunction]
fn protect<'py>(
    py: Python<'py>,
    key: KeyArg<'_>,
    passphrase: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = key.bytes(None)?;
    let out = py
        .allow_threads(|| abbe::protect::protect(&key, passphrase.as_bytes(), &mut OsRng))
        .map_err(invalid)?;
    Ok(PyBytes::new(py, &out))
}

/// Traces a pirate decoder to a user whose key is in it (the schemes of
/// :func:`schemes` with `tracing`). `decoder` is
/// called with complete ciphertexts (bytes) and returns what it decrypted
/// (bytes, or None when it cannot); an exception it raises ends the trace.
/// It runs in this process: a hostile decoder must be wrapped so that it
/// cannot read the master key or this process's memory (call a sandboxed
/// subprocess from it), or it could frame anyone.
/// `master`: the master key, for the schemes that trace privately; `to`:
/// the recipient set the decoder decrypts for (default every user).
/// `probe_like`: probes carry one of these plaintexts (the operator's real
/// content, each at most 16 MiB) instead of random bytes of varied length.
/// Returns {"accused": user or None, "verdict", "queries", "error",
/// "rounds": [{"line", "index", "user", "rounds", "queries_each", "decrypted_low",
/// "decrypted_high", "p_value", "threshold"}] (the accusation tests of each
/// pair index, index + 1), "evidence": [{"line", "index", "queries",
/// "decrypted", "low", "high"}] (the search's estimates)}.
#[pyfunction]
#[pyo3(signature = (pk, decoder, *, master=None, to=None, error=1e-6, max_queries=100_000, probe_like=None, passphrase=None))]
#[allow(clippy::too_many_arguments)]
fn trace<'py>(
    py: Python<'py>,
    pk: &[u8],
    decoder: Bound<'py, PyAny>,
    master: Option<KeyArg<'_>>,
    to: Option<&str>,
    error: f64,
    max_queries: u64,
    probe_like: Option<Vec<Vec<u8>>>,
    passphrase: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    use abbe::bcast::trace::{Probes, TraceOptions, TraceVerdict};
    let mk = master.map(|m| m.bytes(passphrase)).transpose()?;
    let options = TraceOptions {
        error,
        max_queries,
        probes: match probe_like {
            Some(files) => Probes::Like(files.into_iter().map(Into::into).collect()),
            None => Probes::default(),
        },
        ..TraceOptions::default()
    };
    // The decoder's exception, kept to re-raise as it was.
    let mut raised: Option<PyErr> = None;
    let mut call = |ct: &[u8]| -> std::io::Result<Vec<u8>> {
        match decoder.call1((PyBytes::new(py, ct),)) {
            Ok(out) if out.is_none() => Ok(Vec::new()),
            Ok(out) => Ok(out.extract::<Vec<u8>>().unwrap_or_default()),
            Err(e) => {
                let msg = e.to_string();
                raised = Some(e);
                Err(std::io::Error::other(msg))
            }
        }
    };
    let mut tracing = facade::Tracing {
        options: &options,
        decoder: &mut call,
        progress: &mut |_| {},
        rng: &mut OsRng,
    };
    let report = facade::trace(
        source(Some(pk)).expect("a public key was given"),
        mk.as_deref().map(|m| &m[..]),
        to,
        &mut tracing,
    );
    if let Some(e) = raised {
        return Err(e);
    }
    let report = report.map_err(py_err)?;
    let d = PyDict::new(py);
    let (verdict, accused) = match report.verdict {
        TraceVerdict::Accused(u) => ("accused", Some(u)),
        TraceVerdict::DoesNotDecrypt => ("does not decrypt", None),
        TraceVerdict::NoAccusation => ("no accusation", None),
        TraceVerdict::BudgetExhausted => ("budget exhausted", None),
    };
    d.set_item("accused", accused)?;
    d.set_item("verdict", verdict)?;
    d.set_item("queries", report.queries)?;
    d.set_item("error", report.error)?;
    let rounds = pyo3::types::PyList::empty(py);
    for r in &report.rounds {
        let row = PyDict::new(py);
        row.set_item("line", r.line)?;
        row.set_item("index", r.index)?;
        row.set_item("user", r.user)?;
        row.set_item("rounds", r.rounds)?;
        row.set_item("queries_each", r.queries_each)?;
        row.set_item("decrypted_low", r.decrypted_low)?;
        row.set_item("decrypted_high", r.decrypted_high)?;
        row.set_item("p_value", r.p_value)?;
        row.set_item("threshold", r.threshold)?;
        rounds.append(row)?;
    }
    d.set_item("rounds", rounds)?;
    let evidence = pyo3::types::PyList::empty(py);
    for e in &report.evidence {
        let row = PyDict::new(py);
        row.set_item("line", e.line)?;
        row.set_item("index", e.index)?;
        row.set_item("queries", e.queries)?;
        row.set_item("decrypted", e.successes)?;
        row.set_item("low", e.low)?;
        row.set_item("high", e.high)?;
        evidence.append(row)?;
    }
    d.set_item("evidence", evidence)?;
    Ok(d)
}

/// What an object is, as a dict of values (never secret material): kind,
/// scheme, curve, level, sizes in bytes and format version as ints,
/// `signed` as a bool, `header_id` as hex, and the scheme's own fields for
/// keys and headers; keys as `abbe inspect --json` prints them.
#[pyfunction]
fn inspect<'py>(py: Python<'py>, obj: KeyArg<'_>) -> PyResult<Bound<'py, PyDict>> {
    use abbe::inspect::Value;
    let bytes = obj.raw()?;
    let fields = abbe::inspect::inspect(&bytes).map_err(py_err)?;
    let d = PyDict::new(py);
    for f in fields {
        let key = f.key();
        match f.value {
            Value::Text(t) => d.set_item(key, t)?,
            Value::Number(n) | Value::Bytes(n) => d.set_item(key, n)?,
            Value::Flag(b) => d.set_item(key, b)?,
        }
    }
    Ok(d)
}

// ---------------------------------------------------------------- policies

/// An access policy: `abbe.Policy("doctor and (cardiology or 2 of (a, b, c))")`
/// (infix, postfix or FBF syntax, as the CLI reads them).
#[pyclass(module = "abbe", frozen, name = "Policy")]
struct PyPolicy {
    policy: abbe::policy::Policy,
    tree: abbe::policy::AccessTree,
}

#[pymethods]
impl PyPolicy {
    #[new]
    fn new(text: &str) -> PyResult<PyPolicy> {
        let policy = abbe::policy::Policy::parse_any(text).map_err(invalid)?;
        let tree = policy.to_tree().map_err(invalid)?;
        Ok(PyPolicy { policy, tree })
    }

    /// The attribute names the policy mentions, numeric ones (`age` of
    /// `age >= 30`) too.
    #[getter]
    fn attributes(&self) -> Vec<String> {
        self.policy.names()
    }

    /// Whether the attributes `attrs` (["doctor", "age = 42"]) satisfy it.
    fn satisfied_by(&self, attrs: Vec<String>) -> PyResult<bool> {
        let items: Vec<&str> = attrs.iter().map(String::as_str).collect();
        let set = AttributeSet::from_items(&items).map_err(invalid)?;
        Ok(self.tree.is_satisfied(&set))
    }

    fn __str__(&self) -> String {
        self.policy.to_string()
    }

    fn __repr__(&self) -> String {
        format!("abbe.Policy({:?})", self.policy.to_string())
    }
}

// ---------------------------------------------------------------- the proxy

/// A client of an `abbe proxy serve` (GHW11's outsourcing proxy).
#[pyclass(module = "abbe", name = "ProxyClient")]
struct PyProxyClient(std::sync::Mutex<abbe_proxy::ProxyClient>);

fn proxy_err(e: abbe_proxy::ClientError) -> PyErr {
    match e.status() {
        Some(422) => NotSatisfied::new_err(e.to_string()),
        Some(400) => InvalidInput::new_err(e.to_string()),
        _ => Error::new_err(e.to_string()),
    }
}

#[pymethods]
impl PyProxyClient {
    #[new]
    #[pyo3(signature = (url, token=None))]
    fn new(url: &str, token: Option<String>) -> Self {
        PyProxyClient(std::sync::Mutex::new(abbe_proxy::ProxyClient::new(
            url, token,
        )))
    }

    /// Registers a transformation key; returns its id.
    fn register(&self, py: Python<'_>, tk: &[u8]) -> PyResult<String> {
        py.allow_threads(|| self.client().register(tk))
            .map_err(proxy_err)
    }

    /// The proxy's transformation of a ciphertext (or its header).
    fn transform<'py>(
        &self,
        py: Python<'py>,
        id: &str,
        ct: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let out = py
            .allow_threads(|| self.client().transform(id, ct))
            .map_err(proxy_err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Decrypts the ciphertext `ct` with the retrieval key `rk` through the
    /// proxy: it transforms `ct`, and the answer is decrypted only as the
    /// transformation of `ct` (a lying proxy's substitute is refused).
    #[pyo3(signature = (rk, id, ct, *, verify_with=None, passphrase=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        rk: KeyArg<'_>,
        id: &str,
        ct: &[u8],
        verify_with: Option<&[u8]>,
        passphrase: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let expect = expectation(Some(ct), None, false)?;
        let rk = rk.bytes(passphrase)?;
        let transformed = py
            .allow_threads(|| self.client().transform(id, ct))
            .map_err(proxy_err)?;
        let out = py
            .allow_threads(|| decrypt_bytes(&rk, None, &transformed, verify_with, &expect))
            .map_err(py_err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// The proxy fetches the ciphertext at `url` itself and returns the
    /// transformed file (GHW11's proxy+web).
    fn transform_url<'py>(
        &self,
        py: Python<'py>,
        id: &str,
        url: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let out = py
            .allow_threads(|| self.client().transform_url(id, url))
            .map_err(proxy_err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Deletes a registered transformation key.
    fn delete(&self, py: Python<'_>, id: &str) -> PyResult<()> {
        py.allow_threads(|| self.client().delete(id))
            .map_err(proxy_err)
    }
}

impl PyProxyClient {
    fn client(&self) -> std::sync::MutexGuard<'_, abbe_proxy::ProxyClient> {
        // A panic cannot happen while the lock is held (the client returns
        // errors), so a poisoned lock still holds a usable client.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The schemes of this build, from the library's table: one dict each with
/// `name`, `family` ("CP-ABE", "KP-ABE", "broadcast", "identity-based
/// broadcast"), `levels` (the security levels it is offered at), `key` and
/// `ciphertext` (what keys and ciphertexts are made for: "attributes",
/// "policy", "user", "users", "everyone", "identity", "identities"), `setup`
/// (the parameters :func:`setup` takes for it), `outsourcing`, `tracing`,
/// `insecure` and `what` (one line on what it is).
#[pyfunction]
fn schemes(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    facade::schemes()
        .map(|id| {
            let (info, levels) = facade::summary(id)
                .ok_or_else(|| py_err(FacadeError::Unsupported(id.name().into())))?;
            let setup: Vec<String> = info
                .params
                .takes()
                .iter()
                .map(|t| t.replace('-', "_"))
                .collect();
            let d = PyDict::new(py);
            d.set_item("name", id.name())?;
            d.set_item("family", id.family().label())?;
            d.set_item("levels", levels)?;
            d.set_item("key", info.key_side.name())?;
            d.set_item("ciphertext", info.ciphertext_side.name())?;
            d.set_item("setup", setup)?;
            d.set_item("outsourcing", info.outsourcing)?;
            d.set_item("tracing", info.traceable)?;
            d.set_item("insecure", info.insecure)?;
            d.set_item("what", id.what())?;
            Ok(d)
        })
        .collect()
}

/// For `bench.py`: the seconds of each of `reps` calls of what
/// `abbe.decrypt(key, ct)` runs for a `SecretKey` (`facade::decrypt_with` on
/// the key decoded once), timed in Rust, so the script can set Python's
/// overhead against it.
#[pyfunction]
fn _time_rust_decrypt(
    py: Python<'_>,
    key: PyRef<'_, SecretKey>,
    ct: &[u8],
    reps: usize,
) -> PyResult<Vec<f64>> {
    let key: &SecretKey = &key;
    py.allow_threads(|| {
        let uk = key
            .user_key(None)?
            .ok_or_else(|| FacadeError::Invalid("not a user key bundle".into()))?;
        (0..reps)
            .map(|_| {
                let t = std::time::Instant::now();
                let mut out = Zeroizing::new(Vec::with_capacity(ct.len()));
                facade::decrypt_with(uk, ct, &mut *out, None)?;
                Ok(t.elapsed().as_secs_f64())
            })
            .collect::<Result<Vec<f64>, FacadeError>>()
    })
    .map_err(py_err)
}

#[pymodule]
fn _abbe(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("InvalidInput", py.get_type::<InvalidInput>())?;
    m.add("NotSatisfied", py.get_type::<NotSatisfied>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("StreamError", stream_error_type(py)?)?;
    m.add_class::<SecretKey>()?;
    m.add_class::<PyPolicy>()?;
    m.add_class::<PyProxyClient>()?;
    for f in [
        wrap_pyfunction!(setup, m)?,
        wrap_pyfunction!(keygen, m)?,
        wrap_pyfunction!(encrypt, m)?,
        wrap_pyfunction!(decrypt, m)?,
        wrap_pyfunction!(encrypt_stream, m)?,
        wrap_pyfunction!(decrypt_stream, m)?,
        wrap_pyfunction!(transform_key, m)?,
        wrap_pyfunction!(transform, m)?,
        wrap_pyfunction!(signer_keygen, m)?,
        wrap_pyfunction!(armor, m)?,
        wrap_pyfunction!(dearmor, m)?,
        wrap_pyfunction!(protect, m)?,
        wrap_pyfunction!(inspect, m)?,
        wrap_pyfunction!(trace, m)?,
        wrap_pyfunction!(schemes, m)?,
        wrap_pyfunction!(_time_rust_decrypt, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
