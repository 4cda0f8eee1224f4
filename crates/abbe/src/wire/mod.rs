//! The versioned binary format of every key, header and file (docs/FORMAT.md).
//!
//! Every object starts with an 8-byte preamble:
//!
//! ```text
//! "ABBE"  magic (4 bytes)
//! 0x01    format version
//! kind    what the object is (ObjectKind)
//! scheme  which scheme (SchemeId)
//! curve   which curve (CurveId)
//! ```
//!
//! followed by the kind's body. Bodies are built from big-endian integers,
//! length-prefixed byte strings and canonical compressed group elements.
//! Decoding is strict: every length is bounded before anything is allocated,
//! every point is checked (on the curve, in the subgroup), and trailing bytes
//! are an error.

use crate::curve::{CurveId, Element, Group, PointError, Scalar, Target};

pub mod codec;
pub mod source;
pub use codec::{Codec, Lazy, Object, Secret, Wipe};

pub const MAGIC: &[u8; 4] = b"ABBE";
pub const FORMAT_VERSION: u8 = 1;
/// Version of the file objects (kinds 8 and 9) this build writes; it reads
/// versions 1 and 2 of them.
pub const FILE_FORMAT_VERSION: u8 = 2;
pub const PREAMBLE_LEN: usize = 8;

/// Upper bound on any length-prefixed element count (attributes, rows).
pub const MAX_ITEMS: usize = 1 << 16;
/// Upper bound on a length-prefixed byte string inside an object.
pub const MAX_BYTES: usize = 1 << 20;

/// What an encoded object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ObjectKind {
    PublicKey = 1,
    MasterKey = 2,
    SchemeUserKey = 3,
    TransformationKey = 4,
    CpaRetrievalKey = 5,
    /// A KEM header alone.
    KemHeader = 6,
    /// A transformed (partially decrypted) header alone.
    TransformedKemHeader = 7,
    /// An encrypted file: header + payload.
    EncryptedFile = 8,
    /// A transformed file: transformed header + the unchanged payload.
    TransformedFile = 9,
    /// A CCA-secure header: the scheme's header + the masked FO seed.
    CcaKemHeader = 10,
    /// A user key bundled with its public key (CCA decryption re-encrypts).
    UserKey = 11,
    /// An RCCA header (GHW11 §3.2/§4.2): C = R·e(g,g)^{αs} + the scheme's header.
    RccaKemHeader = 12,
    /// An RCCA transformed header: (C, e(g,g)^{αs/z}).
    RccaTransformedKemHeader = 13,
    /// An RCCA retrieval key: z and e(g,g)^α for the final check.
    RetrievalKey = 14,
    /// A BLS signing key (secret): x and PK.
    SigningKey = 15,
    /// A BLS verifying key (public): PK.
    VerifyingKey = 16,
    /// A secret key encrypted under a passphrase (scrypt + AES-256-GCM,
    /// [`crate::protect`]).
    ProtectedKey = 17,
}

impl ObjectKind {
    pub fn from_u8(v: u8) -> Option<Self> {
        use ObjectKind::*;
        Some(match v {
            1 => PublicKey,
            2 => MasterKey,
            3 => SchemeUserKey,
            4 => TransformationKey,
            5 => CpaRetrievalKey,
            6 => KemHeader,
            7 => TransformedKemHeader,
            8 => EncryptedFile,
            9 => TransformedFile,
            10 => CcaKemHeader,
            11 => UserKey,
            12 => RccaKemHeader,
            13 => RccaTransformedKemHeader,
            14 => RetrievalKey,
            15 => SigningKey,
            16 => VerifyingKey,
            17 => ProtectedKey,
            _ => return None,
        })
    }

    pub fn describe(self) -> &'static str {
        use ObjectKind::*;
        match self {
            PublicKey => "public key",
            MasterKey => "master key",
            SchemeUserKey => "user decryption key",
            TransformationKey => "transformation key (for a decryption proxy)",
            CpaRetrievalKey => "retrieval key (finishes outsourced decryption)",
            KemHeader => "KEM header",
            TransformedKemHeader => "transformed KEM header",
            EncryptedFile => "ciphertext",
            TransformedFile => "transformed ciphertext (partially decrypted by a proxy)",
            CcaKemHeader => "CCA-secure KEM header",
            UserKey => "user decryption key",
            RccaKemHeader => "RCCA-secure (outsourceable) KEM header",
            RccaTransformedKemHeader => "RCCA transformed KEM header",
            RetrievalKey => "retrieval key (finishes outsourced decryption, checks the proxy)",
            SigningKey => "signing key (BLS)",
            VerifyingKey => "signature verifying key (BLS)",
            ProtectedKey => "passphrase-protected key",
        }
    }

    /// Whether objects of this kind are secret keys: the kinds written with
    /// mode 0600 and accepted inside a passphrase-protected key
    /// ([`crate::protect`]). Exhaustive on purpose: a new kind must be
    /// classified here.
    pub fn is_secret_key(self) -> bool {
        use ObjectKind::*;
        match self {
            MasterKey | SchemeUserKey | TransformationKey | CpaRetrievalKey | UserKey
            | RetrievalKey | SigningKey => true,
            PublicKey
            | VerifyingKey
            | KemHeader
            | TransformedKemHeader
            | EncryptedFile
            | TransformedFile
            | CcaKemHeader
            | RccaKemHeader
            | RccaTransformedKemHeader => false,
            // Secret, but already protected: never nested.
            ProtectedKey => false,
        }
    }
}

/// What a scheme's keys and ciphertexts are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Ciphertext-policy ABE: keys for attributes, ciphertexts for policies.
    CpAbe,
    /// Key-policy ABE: keys for policies, ciphertexts for attributes.
    KpAbe,
    /// Broadcast: keys for user indices, ciphertexts for sets of them.
    Broadcast,
    /// Identity-based broadcast: keys for identities, ciphertexts for sets.
    IdentityBroadcast,
    /// Signatures (signed files), not a KEM.
    Signature,
}

impl Family {
    /// Its name in tables and messages.
    pub fn label(self) -> &'static str {
        match self {
            Family::CpAbe => "CP-ABE",
            Family::KpAbe => "KP-ABE",
            Family::Broadcast => "broadcast",
            Family::IdentityBroadcast => "identity-based broadcast",
            Family::Signature => "signature",
        }
    }
}

/// `SchemeId` from the rows of [`crate::schemes`].
macro_rules! scheme_ids {
    ($($id:ident = $byte:literal, $name:literal, $family:ident, $form:ident $args:tt, $what:literal;)*) => {
        /// Scheme identifiers, as written in every object: one per row of
        /// the table of schemes ([`crate::schemes`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum SchemeId {
            $(#[doc = $what] $id = $byte,)*
        }

        impl SchemeId {
            /// Every scheme, in the table's order.
            pub const ALL: [SchemeId; [$($byte),*].len()] = [$(SchemeId::$id),*];

            /// Its name (command line, Python, messages).
            pub fn name(self) -> &'static str {
                match self {
                    $(SchemeId::$id => $name,)*
                }
            }
            /// What its keys and ciphertexts are for.
            pub fn family(self) -> Family {
                match self {
                    $(SchemeId::$id => Family::$family,)*
                }
            }
            /// One line on what it is.
            pub fn what(self) -> &'static str {
                match self {
                    $(SchemeId::$id => $what,)*
                }
            }
            /// Known to be broken (registered `insecure`): usable only
            /// behind an explicit flag, in builds that include it.
            pub fn is_insecure(self) -> bool {
                match self {
                    $(SchemeId::$id => stringify!($form) == "insecure",)*
                }
            }
        }
    };
}
crate::schemes::schemes!(scheme_ids);

impl SchemeId {
    pub fn from_u8(v: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|s| *s as u8 == v)
    }
    /// An attribute-based scheme (ciphertext- or key-policy).
    pub fn is_abe(self) -> bool {
        matches!(self.family(), Family::CpAbe | Family::KpAbe)
    }
    /// A broadcast scheme (keys for user indices or identities, ciphertexts
    /// for sets).
    pub fn is_broadcast(self) -> bool {
        matches!(self.family(), Family::Broadcast | Family::IdentityBroadcast)
    }

    pub fn from_name(s: &str) -> Option<Self> {
        let s = s.to_ascii_lowercase();
        Self::ALL.into_iter().find(|id| id.name() == s)
    }
}

/// The preamble of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preamble {
    pub kind: ObjectKind,
    pub scheme: SchemeId,
    pub curve: CurveId,
}

impl Preamble {
    pub fn new(kind: ObjectKind, scheme: SchemeId, curve: CurveId) -> Self {
        Preamble {
            kind,
            scheme,
            curve,
        }
    }

    /// Checks that an object is for the expected scheme and curve.
    pub fn expect(&self, scheme: SchemeId, curve: CurveId) -> Result<(), WireError> {
        if self.scheme != scheme || self.curve != curve {
            return Err(WireError::Invalid {
                what: "object",
                detail: format!(
                    "made for {} on {}, expected {} on {}",
                    self.scheme.name(),
                    self.curve.label(),
                    scheme.name(),
                    curve.label()
                ),
            });
        }
        Ok(())
    }

    /// The format version this object is written as: 1, except for the
    /// objects whose layout version 2 changed — broadcast user keys (kind
    /// 11), which no longer carry their public key, and BGW05 public keys,
    /// which are read element by element (docs/FORMAT.md). Files write
    /// their own preamble (version 2).
    pub fn version(&self) -> u8 {
        match (self.kind, self.scheme) {
            (ObjectKind::UserKey, s) if s.is_broadcast() => 2,
            (ObjectKind::PublicKey, SchemeId::Bgw05) => 2,
            _ => FORMAT_VERSION,
        }
    }

    pub fn to_bytes(&self) -> [u8; PREAMBLE_LEN] {
        let mut b = [0u8; PREAMBLE_LEN];
        b[..4].copy_from_slice(MAGIC);
        b[4] = self.version();
        b[5] = self.kind as u8;
        b[6] = self.scheme as u8;
        b[7] = self.curve as u8;
        b
    }

    pub fn parse(bytes: &[u8]) -> Result<Preamble, WireError> {
        if bytes.len() < PREAMBLE_LEN {
            return Err(WireError::Truncated("preamble"));
        }
        if &bytes[..4] != MAGIC {
            return Err(WireError::NotAbbe);
        }
        // Files (kinds 8 and 9) are read in versions 1 and 2 (version 2
        // added the AEAD id and flags after the salt); every other object
        // only in the version it is written as.
        let file = matches!(bytes[5], 8 | 9);
        if bytes[4] != FORMAT_VERSION && bytes[4] != FILE_FORMAT_VERSION {
            return Err(WireError::Version(bytes[4]));
        }
        let p = Preamble {
            kind: ObjectKind::from_u8(bytes[5]).ok_or(WireError::UnknownKind(bytes[5]))?,
            scheme: SchemeId::from_u8(bytes[6]).ok_or(WireError::UnknownScheme(bytes[6]))?,
            curve: CurveId::from_u8(bytes[7]).ok_or(WireError::UnknownCurve(bytes[7]))?,
        };
        if !file && bytes[4] != p.version() {
            return Err(match p.version() {
                1 => WireError::Version(bytes[4]),
                _ => WireError::Invalid {
                    what: "object",
                    detail: format!(
                        "a {} {} of format version {} (an earlier abbe): version {} keeps broadcast public keys out of user keys and reads them element by element; run setup and keygen again",
                        p.scheme.name(),
                        p.kind.describe(),
                        bytes[4],
                        p.version()
                    ),
                },
            });
        }
        Ok(p)
    }
}

/// Decoding errors. All of them mean "invalid or corrupt input".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("not an abbe file (bad magic bytes)")]
    NotAbbe,
    #[error("unsupported format version {0} (this build reads versions 1 and 2)")]
    Version(u8),
    #[error("unknown object kind {0}")]
    UnknownKind(u8),
    #[error("unknown scheme id {0}")]
    UnknownScheme(u8),
    #[error("unknown curve id {0}")]
    UnknownCurve(u8),
    #[error("truncated input while reading {0}")]
    Truncated(&'static str),
    #[error("{0} trailing bytes after the end of the object")]
    TrailingBytes(usize),
    #[error("length of {what} is {len}, above the limit {max}")]
    TooLong {
        what: &'static str,
        len: usize,
        max: usize,
    },
    #[error("invalid {what}: {detail}")]
    Invalid { what: &'static str, detail: String },
    #[error(transparent)]
    Point(#[from] PointError),
    #[error("expected a {expected}, found a {found}")]
    WrongKind {
        expected: &'static str,
        found: &'static str,
    },
}

/// The setup identifier every scheme uses: the first 16 bytes of SHA-256
/// over `"abbe/v1/setup-id"` and the encoded public key. Keys and headers
/// carry it, so a key of another setup is reported as such.
pub fn setup_id(public_key_bytes: &[u8]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"abbe/v1/setup-id");
    h.update(public_key_bytes);
    let d = h.finalize();
    let mut id = [0u8; 16];
    id.copy_from_slice(&d[..16]);
    id
}

/// An object with a canonical encoding: the preamble and a strict decoder.
pub trait Encoded: Sized {
    fn to_bytes(&self) -> Vec<u8>;
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError>;
    /// Its kind and body as docs/FORMAT.md's object tables write them;
    /// given by every object declared with `codec::object!`.
    fn format_row() -> Option<(ObjectKind, String)> {
        None
    }
}

/// What a key or header was made for — its side of the scheme: an
/// attribute set, a policy, a user, a set of users or identities.
/// Declared with `object!`'s `made_for`; [`crate::kem::Kem::key_side`]
/// and [`crate::kem::Kem::ciphertext_side`] read it.
pub trait MadeFor<S> {
    fn made_for(&self) -> S;
}

/// The curve elements of an object, in the order its format lists them.
pub type Elements = Vec<Box<dyn core::any::Any + Send + Sync>>;

std::thread_local! {
    /// Where [`recording`] collects elements; `None` when nothing records.
    static RECORDED: core::cell::RefCell<Option<Elements>> =
        const { core::cell::RefCell::new(None) };
}

/// Runs `f` and returns, beside its result, every curve element the codec
/// read or wrote on this thread meanwhile, in order. Decoding or encoding an
/// object inside it yields the object's elements in the order of its format
/// (the CCA check takes a header's points this way, see
/// [`crate::kem::exps`]).
pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Elements) {
    struct Restore(Option<Elements>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            RECORDED.with(|r| *r.borrow_mut() = outer);
        }
    }
    let restore = Restore(RECORDED.with(|r| r.borrow_mut().replace(Vec::new())));
    let out = f();
    let got = RECORDED.with(|r| r.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (out, got)
}

std::thread_local! {
    /// Set inside [`deferring_subgroup_checks`].
    static DEFERRING: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Runs `f` (a decoding) with the subgroup checks of points left out:
/// each point is checked canonical and on the curve only. For a header
/// whose points only enter pairings, the proxy's transformation
/// (`abe::ghw11::Checks`): a point of the real G1 needs no check there,
/// and one of the real G2 is checked when it is paired. Decoding runs on
/// this thread only (no rayon), so nothing else sees the scope.
pub(crate) fn deferring_subgroup_checks<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEFERRING.with(|d| d.set(self.0));
        }
    }
    let _restore = Restore(DEFERRING.with(|d| d.replace(true)));
    f()
}

/// Test support: where an element's bytes were (address, length) and which
/// element it was (G1, G2, GT or Zr).
#[cfg(test)]
pub(crate) type Span = (usize, usize, &'static str);

#[cfg(test)]
std::thread_local! {
    static SPANS: core::cell::RefCell<Option<Vec<Span>>> =
        const { core::cell::RefCell::new(None) };
}

/// Test support: runs `f` and returns the spans of every element decoded
/// meanwhile on this thread, in order.
#[cfg(test)]
pub(crate) fn element_spans<T>(f: impl FnOnce() -> T) -> (T, Vec<Span>) {
    SPANS.with(|s| *s.borrow_mut() = Some(Vec::new()));
    let out = f();
    (
        out,
        SPANS.with(|s| s.borrow_mut().take()).unwrap_or_default(),
    )
}

fn record<E: Element>(e: &E) {
    RECORDED.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            v.push(Box::new(*e));
        }
    });
}

/// A byte writer for object bodies.
#[derive(Default, Debug)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub fn new(preamble: Preamble) -> Self {
        Writer {
            buf: preamble.to_bytes().to_vec(),
        }
    }
    pub fn body() -> Self {
        Writer { buf: Vec::new() }
    }
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }
    /// A u32 length prefix and the bytes. Every field abbe writes is far
    /// below 4 GiB (the largest, a BGW05 public key nested in a key bundle
    /// at `MAX_USERS` users, is 1.6 GB): a longer one is a bug, and is
    /// stopped here rather than written with a truncated length.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        let len = u32::try_from(b.len()).expect("an encoded field is below 4 GiB");
        self.u32(len).raw(b)
    }
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }
    /// A curve element, as [`Element`] encodes it (the one encoding).
    pub fn element<E: Element>(&mut self, e: &E) -> &mut Self {
        record(e);
        e.write(&mut self.buf);
        self
    }
    pub fn point<G: Group>(&mut self, p: &G) -> &mut Self {
        self.element(p)
    }
    pub fn scalar<S: Scalar>(&mut self, s: &S) -> &mut Self {
        self.element(s)
    }
    pub fn gt<T: Target>(&mut self, t: &T) -> &mut Self {
        self.element(t)
    }
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Lower-case hex, for ids and fingerprints.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A strict reader over an object body.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Opens an object: checks the preamble against the expected kind,
    /// returning the preamble and a reader positioned at the body.
    pub fn open(buf: &'a [u8], expected: ObjectKind) -> Result<(Preamble, Reader<'a>), WireError> {
        let pre = Preamble::parse(buf)?;
        if pre.kind != expected {
            return Err(WireError::WrongKind {
                expected: expected.describe(),
                found: pre.kind.describe(),
            });
        }
        Ok((
            pre,
            Reader {
                buf,
                pos: PREAMBLE_LEN,
            },
        ))
    }

    /// Opens an object of `kind` made for `scheme` on `curve`.
    pub fn open_for(
        buf: &'a [u8],
        kind: ObjectKind,
        scheme: SchemeId,
        curve: CurveId,
    ) -> Result<Reader<'a>, WireError> {
        let (pre, r) = Self::open(buf, kind)?;
        pre.expect(scheme, curve)?;
        Ok(r)
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        if self.remaining() < n {
            return Err(WireError::Truncated(what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self, what: &'static str) -> Result<u8, WireError> {
        Ok(self.take(1, what)?[0])
    }
    pub fn u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn u64(&mut self, what: &'static str) -> Result<u64, WireError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
    /// A count, bounded by `max` (checked before anything is allocated).
    pub fn count(&mut self, what: &'static str, max: usize) -> Result<usize, WireError> {
        let n = self.u32(what)? as usize;
        if n > max {
            return Err(WireError::TooLong { what, len: n, max });
        }
        Ok(n)
    }
    pub fn bytes(&mut self, what: &'static str) -> Result<&'a [u8], WireError> {
        let n = self.count(what, MAX_BYTES)?;
        self.take(n, what)
    }
    /// A u32-length-prefixed nested object, bounded only by the input: a
    /// slice of it, so nothing is allocated (a BGW05 public key inside a
    /// user key bundle is 128 MB at 10^6 users).
    pub fn nested(&mut self, what: &'static str) -> Result<&'a [u8], WireError> {
        let n = self.u32(what)? as usize;
        self.take(n, what)
    }
    pub fn str(&mut self, what: &'static str) -> Result<&'a str, WireError> {
        let b = self.bytes(what)?;
        core::str::from_utf8(b).map_err(|_| WireError::Invalid {
            what,
            detail: "not UTF-8".into(),
        })
    }
    /// A curve element, strictly decoded by [`Element`] (the one decoding).
    pub fn element<E: Element>(&mut self, what: &'static str) -> Result<E, WireError> {
        let bytes = self.take(E::ENCODED_BYTES, what)?;
        #[cfg(test)]
        SPANS.with(|s| {
            if let Some(v) = s.borrow_mut().as_mut() {
                v.push((bytes.as_ptr() as usize, bytes.len(), E::NAME));
            }
        });
        let e = if DEFERRING.with(|d| d.get()) {
            E::read_unchecked(bytes)?
        } else {
            E::read(bytes)?
        };
        record(&e);
        Ok(e)
    }
    pub fn point<G: Group>(&mut self, what: &'static str) -> Result<G, WireError> {
        self.element(what)
    }
    pub fn scalar<S: Scalar>(&mut self, what: &'static str) -> Result<S, WireError> {
        self.element(what)
    }
    pub fn gt<T: Target>(&mut self, what: &'static str) -> Result<T, WireError> {
        self.element(what)
    }
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], WireError> {
        let b = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }
    /// Ends decoding: trailing bytes are an error.
    pub fn finish(self) -> Result<(), WireError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(WireError::TrailingBytes(n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/FORMAT.md's preamble row lists every scheme of the table, by
    /// byte and name, and no other (`ABBE_BLESS=1` rewrites it).
    #[test]
    fn format_md_lists_every_scheme_id() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md");
        let format = std::fs::read_to_string(path).unwrap();
        let prefix = "| 6 | scheme | ";
        let row = format
            .lines()
            .find(|l| l.starts_with(prefix))
            .expect("FORMAT.md's preamble table has the scheme byte");
        let entries: Vec<String> = SchemeId::ALL
            .iter()
            .map(|id| {
                let note = match (*id, id.family()) {
                    (SchemeId::Yct14, _) => " (broken; benchmarking builds only)",
                    (_, Family::Signature) => " (signing keys)",
                    _ => "",
                };
                format!("{} `{}`{note}", *id as u8, id.name())
            })
            .collect();
        let want = format!("{prefix}{} |", entries.join(", "));
        if std::env::var_os("ABBE_BLESS").is_some() && row != want {
            std::fs::write(path, format.replace(row, &want)).unwrap();
            return;
        }
        assert_eq!(
            row, want,
            "FORMAT.md's scheme row (ABBE_BLESS=1 rewrites it)"
        );
    }

    #[test]
    fn preamble_round_trip_and_errors() {
        let p = Preamble {
            kind: ObjectKind::SchemeUserKey,
            scheme: SchemeId::Waters11,
            curve: CurveId::Bn254,
        };
        let b = p.to_bytes();
        assert_eq!(Preamble::parse(&b).unwrap(), p);
        assert_eq!(
            Preamble::parse(&b[..7]),
            Err(WireError::Truncated("preamble"))
        );
        let mut bad = b;
        bad[0] = b'X';
        assert_eq!(Preamble::parse(&bad), Err(WireError::NotAbbe));
        let mut bad = b;
        bad[4] = 9;
        assert_eq!(Preamble::parse(&bad), Err(WireError::Version(9)));
        let mut bad = b;
        bad[5] = 99;
        assert_eq!(Preamble::parse(&bad), Err(WireError::UnknownKind(99)));
        assert!(matches!(
            Reader::open(&b, ObjectKind::PublicKey),
            Err(WireError::WrongKind { .. })
        ));
    }

    #[test]
    fn reader_is_strict() {
        let mut w = Writer::body();
        w.u32(5).str("hello").u8(1);
        let buf = w.finish();
        let mut r = Reader::new(&buf);
        assert_eq!(r.u32("n").unwrap(), 5);
        assert_eq!(r.str("s").unwrap(), "hello");
        assert!(r.remaining() == 1);
        assert_eq!(
            Reader::new(&buf).finish(),
            Err(WireError::TrailingBytes(buf.len()))
        );
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff]);
        assert!(matches!(
            r.count("items", 10),
            Err(WireError::TooLong { .. })
        ));
        let mut r = Reader::new(&[0, 0, 0, 9, 1]);
        assert_eq!(r.bytes("b"), Err(WireError::Truncated("b")));
    }
}
