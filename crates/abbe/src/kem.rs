//! The two roles every scheme plays — CP-ABE, KP-ABE and broadcast
//! encryption.
//!
//! [`Authority`]: `setup(params) → (public key, master key)`,
//! `keygen(master, key-side description) → issued key`.
//! [`Kem`]: `encapsulate(public, ciphertext-side target) → (session key,
//! header)`, `decapsulate(key, header) → session key | NotSatisfied`.
//! A scheme implements both; its CCA and RCCA versions ([`crate::abe::cca`],
//! [`crate::abe::rcca`]) are other KEMs over the same authority, so they share
//! its keys. For CP-ABE the key side is an attribute set and the ciphertext
//! side a policy; for KP-ABE the other way round; for broadcast encryption a
//! user index and a set of users.

use crate::curve::{CurveId, Placement, Target};
use crate::policy::expiry::{self, Day};
use crate::policy::{ErrorKind, PolicyError};
use crate::wire::codec::{Bind, Bound};
use crate::wire::{Encoded, MadeFor, SchemeId, WireError};
use hkdf::Hkdf;
use rand_core::{CryptoRng, RngCore};
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop};

pub mod exps;
pub use exps::Exps;

/// A 32-byte symmetric session key, zeroized on drop, compared in constant
/// time.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SessionKey([u8; 32]);

impl SessionKey {
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// A session key from 32 uniformly random (or derived) bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> SessionKey {
        SessionKey(bytes)
    }

    /// Derives the session key from the encapsulated GT element:
    /// HKDF-SHA256(ikm = encoding of the element, info = scheme and curve).
    pub fn from_gt<T: Target>(element: &T, scheme: SchemeId, curve: CurveId) -> SessionKey {
        let mut ikm = element.to_bytes();
        let key = Self::from_bytes_kdf(&ikm, scheme, curve);
        ikm.zeroize();
        key
    }

    /// Derives the session key from the canonical encoding of any
    /// encapsulated element (e.g. a compressed G1 point for pairing-free
    /// schemes): the same HKDF-SHA256 as [`SessionKey::from_gt`]
    /// (salt `abbe/v1/kem`, info = scheme and curve). The caller wipes `bytes`.
    pub(crate) fn from_bytes_kdf(bytes: &[u8], scheme: SchemeId, curve: CurveId) -> SessionKey {
        let hk = Hkdf::<Sha256>::new(Some(b"abbe/v1/kem"), bytes);
        let mut out = [0u8; 32];
        // 32 bytes is far below HKDF's limit of 255·32.
        let _ = hk.expand(
            &[b"session-key/".as_slice(), &[scheme as u8, curve as u8]].concat(),
            &mut out,
        );
        SessionKey(out)
    }
}

impl PartialEq for SessionKey {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.0.ct_eq(&other.0))
    }
}
impl Eq for SessionKey {}

impl core::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SessionKey(<redacted>)")
    }
}

/// Errors of the KEM operations.
#[derive(Debug, thiserror::Error)]
pub enum KemError {
    /// The key does not satisfy the ciphertext's policy (or is not a
    /// recipient).
    #[error("the key does not satisfy this ciphertext's policy")]
    NotSatisfied,
    /// Key and ciphertext come from different setups (public keys).
    #[error("the key and the ciphertext belong to different setups (different public keys)")]
    WrongSetup,
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    Wire(#[from] WireError),
    /// A transformed ciphertext did not decrypt consistently.
    #[error("the transformed ciphertext is invalid: {0}")]
    BadTransformation(&'static str),
    #[error("{0}")]
    Invalid(String),
}

/// What a key or a ciphertext is made for, as users write it: an attribute
/// set (`doctor, age = 42`) or a policy (`doctor and age >= 30`), a user
/// index (`42`) or a set of users (`1-100, 500`) for broadcast encryption.
pub trait Side: Sized + Clone {
    /// Parses the user's text.
    fn parse(input: &str) -> Result<Self, PolicyError>;
    /// Builds the side from a list, item by item (a front end's list
    /// argument): each item is exactly one attribute or one identity, never
    /// split, so an item cannot add members by holding a separator. Sides
    /// that are not sets of such items refuse a list.
    fn from_items(items: &[&str]) -> Result<Self, PolicyError> {
        Err(PolicyError::new(
            ErrorKind::Argument,
            format!("{} given as text, not as a list", Self::KIND.describe()),
            format!("a list of {} items", items.len()),
        ))
    }
    /// The canonical text, for `abbe inspect`.
    fn describe(&self) -> String;
    /// This side for a user key valid until `until` (`None`: a key that
    /// does not expire), reserved names refused
    /// ([`crate::policy::expiry`]). Sides without dates (broadcast) refuse
    /// a date.
    fn for_key(self, until: Option<Day>) -> Result<Self, PolicyError> {
        match until {
            None => Ok(self),
            Some(d) => Err(PolicyError::new(
                ErrorKind::Argument,
                "no expiry date: broadcast and identity-based keys do not expire (encrypt to the others to revoke one)",
                format!("a key valid until {d}"),
            )),
        }
    }
    /// This side for a ciphertext encrypted on `on` (`None`: without the
    /// freshness condition), reserved names refused. Sides without dates
    /// ignore it.
    fn for_ciphertext(self, _on: Option<Day>) -> Result<Self, PolicyError> {
        Ok(self)
    }
    /// The expiry this side carries, if any: a key's last day, or a
    /// ciphertext's day ([`expiry::Dated`]).
    fn dated(&self) -> expiry::Dated {
        expiry::Dated::None
    }
    /// [`Side::describe`] without the names of key expiry.
    fn describe_shown(&self) -> String {
        self.describe()
    }
    /// What this side is.
    const KIND: SideKind;
    /// Whether this side is a policy (for messages that say which side takes
    /// the policy).
    const IS_POLICY: bool = matches!(Self::KIND, SideKind::Policy);
}

/// What a key or a ciphertext is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideKind {
    /// An attribute set (`doctor, age = 42`).
    Attributes,
    /// A policy (`doctor and age >= 30`).
    Policy,
    /// A user index of a broadcast setup (`42`).
    User,
    /// A set of users of a broadcast setup (`1-100, 500`).
    Users,
    /// Every user of a broadcast setup (`all`).
    Everyone,
    /// An identity (`alice@example.com`), identity-based broadcast.
    Identity,
    /// A set of identities (`alice@example.com, bob@example.com`).
    Identities,
}

impl SideKind {
    /// Its name in tables and bindings ("policy").
    pub fn name(self) -> &'static str {
        match self {
            SideKind::Attributes => "attributes",
            SideKind::Policy => "policy",
            SideKind::User => "user",
            SideKind::Users => "users",
            SideKind::Everyone => "everyone",
            SideKind::Identity => "identity",
            SideKind::Identities => "identities",
        }
    }
    /// What a side of this kind is, for messages ("a policy").
    pub fn describe(self) -> &'static str {
        match self {
            SideKind::Attributes => "an attribute set",
            SideKind::Policy => "a policy",
            SideKind::User => "a user index",
            SideKind::Users => "a set of users",
            SideKind::Everyone => "every user",
            SideKind::Identity => "an identity",
            SideKind::Identities => "a set of identities",
        }
    }
}

/// A key's or a ciphertext's side as a front end gives it: text that
/// [`Side::parse`] reads, or a list whose items [`Side::from_items`] takes
/// one by one (never joined and parsed again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideInput<'a> {
    Text(&'a str),
    Items(&'a [&'a str]),
}

impl SideInput<'_> {
    /// The side of type `S` this input gives.
    pub fn parse<S: Side>(self) -> Result<S, PolicyError> {
        match self {
            SideInput::Text(t) => S::parse(t).map_err(|e| e.with_input(t)),
            SideInput::Items(items) => S::from_items(items),
        }
    }
}

impl<'a> From<&'a str> for SideInput<'a> {
    fn from(text: &'a str) -> Self {
        SideInput::Text(text)
    }
}

impl<'a> From<&'a String> for SideInput<'a> {
    fn from(text: &'a String) -> Self {
        SideInput::Text(text)
    }
}

impl Side for crate::policy::AttributeSet {
    fn parse(input: &str) -> Result<Self, PolicyError> {
        crate::policy::AttributeSet::parse(input)
    }
    fn from_items(items: &[&str]) -> Result<Self, PolicyError> {
        crate::policy::AttributeSet::from_items(items)
    }
    fn describe(&self) -> String {
        self.display_attrs().join(", ")
    }
    /// CP-ABE: the key's last day, or `abbe:no-expiry`.
    fn for_key(self, until: Option<Day>) -> Result<Self, PolicyError> {
        expiry::cp_key(self, until)
    }
    /// KP-ABE: the file's day.
    fn for_ciphertext(self, on: Option<Day>) -> Result<Self, PolicyError> {
        expiry::kp_ciphertext(self, on)
    }
    fn dated(&self) -> expiry::Dated {
        expiry::Dated::of_attributes(self.iter())
    }
    fn describe_shown(&self) -> String {
        let shown: Vec<String> = self
            .display_attrs()
            .into_iter()
            .filter(|a| !a.starts_with(expiry::RESERVED))
            .collect();
        shown.join(", ")
    }
    const KIND: SideKind = SideKind::Attributes;
}

impl Side for crate::policy::Policy {
    /// Parses and checks what the schemes will check: the expansion into an
    /// access tree, its limits and the work budget.
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let policy = crate::policy::Policy::parse_any(input)?;
        policy.to_tree()?;
        Ok(policy)
    }
    fn describe(&self) -> String {
        self.to_string()
    }
    /// KP-ABE: the policy ANDed with the key's days.
    fn for_key(self, until: Option<Day>) -> Result<Self, PolicyError> {
        expiry::kp_key(self, until)
    }
    /// CP-ABE: the policy ANDed with "valid on the file's day".
    fn for_ciphertext(self, on: Option<Day>) -> Result<Self, PolicyError> {
        expiry::cp_ciphertext(self, on)
    }
    fn dated(&self) -> expiry::Dated {
        expiry::Dated::of_policy(&self.attributes())
    }
    fn describe_shown(&self) -> String {
        expiry::without_condition(self).to_string()
    }
    const KIND: SideKind = SideKind::Policy;
}

/// What a setup is sized for, as a front end gives it: the number of users
/// (broadcast encryption), the attribute universe (small-universe ABE), the
/// largest recipient set (identity-based broadcast) and the user-expansion
/// parameter a (Zhandry's non-risky broadcast-and-trace). A scheme takes
/// what it needs and refuses the rest ([`Params::from_setup`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetupParams {
    pub users: Option<u32>,
    pub universe: Option<Vec<String>>,
    pub max_recipients: Option<u32>,
    pub expansion: Option<f64>,
}

/// A scheme's typed setup parameters.
pub trait Params: Clone + Default + core::fmt::Debug {
    /// Which parameter this is.
    const KIND: ParamsKind;
    /// Takes the parameters this scheme needs from `p` (defaults for those
    /// not given) and refuses the ones it has no use for.
    fn from_setup(p: &SetupParams) -> Result<Self, KemError>;
}

/// What a scheme's setup is parameterised by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamsKind {
    /// Nothing (large-universe ABE).
    None,
    /// The number of users (`bcast::Users`).
    Users,
    /// The attribute universe (`abe::Universe`).
    Universe,
    /// The largest recipient set (`bcast::ibbe::MaxRecipients`).
    MaxRecipients,
    /// The number of users and the expansion parameter (`bcast::Expansion`).
    UsersAndExpansion,
}

impl ParamsKind {
    /// The setup parameters (front ends' flags) this kind takes.
    pub fn takes(self) -> &'static [&'static str] {
        match self {
            ParamsKind::None => &[],
            ParamsKind::Users => &["users"],
            ParamsKind::Universe => &["universe"],
            ParamsKind::MaxRecipients => &["max-recipients"],
            ParamsKind::UsersAndExpansion => &["users", "expansion"],
        }
    }
}

impl ParamsKind {
    /// Refuses every parameter of `p` this kind does not take (what
    /// [`Params::from_setup`] does first, for front ends that set up by
    /// another path).
    pub fn refuse_others(self, p: &SetupParams) -> Result<(), KemError> {
        refuse_others(p, self)
    }
}

/// Refuses every parameter of `p` that `kind` does not take.
fn refuse_others(p: &SetupParams, kind: ParamsKind) -> Result<(), KemError> {
    let given = [
        ("users", p.users.is_some(), "broadcast schemes"),
        ("universe", p.universe.is_some(), "small-universe schemes"),
        (
            "max-recipients",
            p.max_recipients.is_some(),
            "identity-based broadcast schemes",
        ),
        ("expansion", p.expansion.is_some(), "user-expansion schemes"),
    ];
    for (name, set, for_whom) in given {
        if set && !kind.takes().contains(&name) {
            return Err(KemError::Invalid(format!(
                "this scheme has no {name} parameter (--{name} is for {for_whom})"
            )));
        }
    }
    Ok(())
}

impl Params for () {
    const KIND: ParamsKind = ParamsKind::None;
    fn from_setup(p: &SetupParams) -> Result<Self, KemError> {
        refuse_others(p, Self::KIND)
    }
}

/// The authority's role: setup and key generation. A scheme implements it
/// once; its CCA and RCCA versions use the same authority (same keys).
pub trait Authority {
    type Params: Params;
    /// Names its setup (`object!`'s `identified`).
    type PublicKey: Encoded + Clone + Bound;
    /// Records its public key's setup id (`object!`'s `bound`).
    type MasterKey: Encoded + Bound;
    /// The key the authority issues (object kind 3, scheme user key).
    type UserKey: Encoded;
    type KeySide: Side;

    fn setup<R: RngCore + CryptoRng>(
        params: &Self::Params,
        rng: &mut R,
    ) -> Result<(Self::PublicKey, Self::MasterKey), KemError>;
    /// Setup that hands the encoded public key to `sink`, in order and in
    /// pieces, and returns the master key: what a front end writing the key
    /// to a file calls. The default encodes it whole; a scheme with an O(N)
    /// public key streams it in bounded memory.
    fn setup_streamed<R: RngCore + CryptoRng>(
        params: &Self::Params,
        rng: &mut R,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<Self::MasterKey, KemError> {
        let (pk, mk) = Self::setup(params, rng)?;
        sink(&pk.to_bytes());
        Ok(mk)
    }
    /// The public key, recomputed from (or stored in) the master key.
    fn public_key(mk: &Self::MasterKey) -> Self::PublicKey;
    /// Whether `pk` is the public key `mk` was set up with: their setup ids
    /// compared (recomputing a broadcast public key is O(N)). A scheme that
    /// can check more cheaply than that (recomputing a few bases) does.
    fn is_public_key_of(pk: &Self::PublicKey, mk: &Self::MasterKey) -> bool {
        mk.setup_id() == pk.setup_id()
    }
    fn keygen<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        mk: &Self::MasterKey,
        key_side: &Self::KeySide,
        rng: &mut R,
    ) -> Result<Self::UserKey, KemError>;
    /// Key generation from the master key alone, for schemes whose keys
    /// use nothing of an O(N) public key (BGW05: d_i = g^{γα^i}); `None`
    /// where key generation needs the public key.
    fn keygen_without_public_key(
        mk: &Self::MasterKey,
        key_side: &Self::KeySide,
    ) -> Option<Result<Self::UserKey, KemError>> {
        let _ = (mk, key_side);
        None
    }
    /// The public key in `src`. The default reads it whole, refusing a
    /// source over [`MAX_WHOLE_PUBLIC_KEY`] before allocating for it; a
    /// scheme whose public key is read element by element (BGW05)
    /// overrides this.
    fn open_public_key(src: crate::wire::source::Source) -> Result<Self::PublicKey, WireError> {
        let size = src.size();
        if size > MAX_WHOLE_PUBLIC_KEY {
            return Err(WireError::TooLong {
                what: "public key",
                len: usize::try_from(size).unwrap_or(usize::MAX),
                max: MAX_WHOLE_PUBLIC_KEY as usize,
            });
        }
        let mut bytes = vec![0u8; size as usize];
        src.read_exact_at(&mut bytes, 0)
            .map_err(|_| WireError::Truncated("public key"))?;
        Self::PublicKey::from_bytes(&bytes)
    }
}

/// Largest public key read whole: 4 GiB, the bound the CLI put on every
/// key file before public keys were opened as files (`abbe-cli` io.rs).
pub const MAX_WHOLE_PUBLIC_KEY: u64 = 4 << 30;

/// The master key type of a KEM's authority.
pub type MasterKeyOf<K> = <<K as Kem>::Authority as Authority>::MasterKey;
/// The key type a KEM's authority issues.
pub type IssuedKeyOf<K> = <<K as Kem>::Authority as Authority>::UserKey;
/// The setup parameters of a KEM's authority.
pub type ParamsOf<K> = <<K as Kem>::Authority as Authority>::Params;

/// A key-encapsulation mechanism: the encryptor's and the decryptor's role.
///
/// All randomness comes from the `rng` argument and is drawn in a fixed
/// order, so that encapsulation with a seeded generator is deterministic —
/// the CCA transform ([`crate::abe::cca`]) relies on it.
pub trait Kem {
    const SCHEME: SchemeId;
    /// The curve the objects live on.
    const CURVE: CurveId;
    /// Known to be broken (published attacks): front ends offer it only
    /// behind an explicit flag.
    const INSECURE: bool = false;
    /// The placement ([`Placement`]) in which this scheme decrypts fastest,
    /// and the one in which it encrypts fastest (`abbe setup --optimize`):
    /// the scheme file's own placement unless it says otherwise, checked by
    /// the lab's placement table.
    const FOR_DECRYPTION: Placement = Placement::Standard;
    const FOR_ENCRYPTION: Placement = Placement::Standard;
    /// Who sets up and issues keys for this KEM.
    type Authority: Authority<PublicKey = Self::PublicKey, KeySide = Self::KeySide>;
    /// Shared across threads (a proxy, a subscriber): `Send + Sync`.
    type PublicKey: Encoded + Clone + Send + Sync + Bound;
    /// The decryptor's key.
    type UserKey: Encoded + MadeFor<Self::KeySide> + Send + Sync;
    /// Names the setup it was made under (`object!`'s `bound`).
    type Header: Encoded + MadeFor<Self::CiphertextSide> + Bound;
    /// What a user key is made for (an attribute set, a policy, a user index).
    type KeySide: Side;
    /// What a ciphertext is made for (a policy, an attribute set, a set of users).
    type CiphertextSide: Side;

    /// The decryptor's key from the key the authority issued and the public
    /// key it was issued under: the key itself for most schemes; the CCA
    /// versions keep the public key for their re-encryption check, BGW05
    /// for the public elements its decryption sums.
    fn user_key(key: IssuedKeyOf<Self>, pk: &Self::PublicKey) -> Self::UserKey;
    /// The decryptor's key from the issued key alone, for the schemes whose
    /// keys are stored without their public key (broadcast: O(N) public
    /// keys; [`crate::wire::SchemeId::is_broadcast`]); `None` for the others.
    /// Such a key is given its public key with [`Kem::attach_public_key`]
    /// before it decrypts.
    fn unattached(key: IssuedKeyOf<Self>) -> Option<Self::UserKey> {
        let _ = key;
        None
    }
    /// Gives a key its public key, refusing one of another setup
    /// ([`KemError::WrongSetup`]).
    fn attach_public_key(
        key: Self::UserKey,
        pk: &Self::PublicKey,
    ) -> Result<Self::UserKey, KemError> {
        let _ = pk;
        Ok(key)
    }
    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        target: &Self::CiphertextSide,
        rng: &mut R,
    ) -> Result<(SessionKey, Self::Header), KemError>;
    /// [`Kem::encapsulate`] with its header's points obtained through
    /// `exps`, so that the CCA check can test them in one batch instead of
    /// computing them ([`exps`]). A scheme that overrides it makes its
    /// `encapsulate` this with [`Exps::compute`] (`encapsulate_computing!`);
    /// the default computes everything, and the CCA check then compares the
    /// whole re-encryption.
    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        target: &Self::CiphertextSide,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Self::Header), KemError> {
        let _ = exps;
        Self::encapsulate(pk, target, rng)
    }
    fn decapsulate(key: &Self::UserKey, header: &Self::Header) -> Result<SessionKey, KemError>;
    /// What the key was made for.
    fn key_side(key: &Self::UserKey) -> Self::KeySide {
        key.made_for()
    }
    /// What the ciphertext was made for.
    fn ciphertext_side(header: &Self::Header) -> Self::CiphertextSide {
        header.made_for()
    }
}

/// [`Kem::encapsulate`] as [`Kem::encapsulate_with`] computing every point,
/// for a scheme that encapsulates through [`Exps`]: `encapsulate_computing!();`
/// in its `Kem` impl.
macro_rules! encapsulate_computing {
    () => {
        fn encapsulate<R: rand_core::RngCore + rand_core::CryptoRng>(
            pk: &Self::PublicKey,
            target: &Self::CiphertextSide,
            rng: &mut R,
        ) -> Result<(crate::kem::SessionKey, Self::Header), crate::kem::KemError> {
            Self::encapsulate_with(pk, target, rng, &mut crate::kem::Exps::compute())
        }
    };
}
pub(crate) use encapsulate_computing;

/// The associated types a scheme file's [`Authority`] impl starts with:
/// its setup parameters and key side, and the file's own `PublicKey<C>`,
/// `MasterKey<C>` and `UserKey<C>` (every scheme names its objects so),
/// and [`Authority::public_key`] as the master key's own `public_key()`
/// unless the impl says `; its own public_key`.
macro_rules! authority_objects {
    ($params:ty, $key_side:ty; its own public_key) => {
        type Params = $params;
        type PublicKey = PublicKey<C>;
        type MasterKey = MasterKey<C>;
        type UserKey = UserKey<C>;
        type KeySide = $key_side;
    };
    ($params:ty, $key_side:ty) => {
        $crate::kem::authority_objects!($params, $key_side; its own public_key);
        fn public_key(mk: &MasterKey<C>) -> PublicKey<C> {
            mk.public_key()
        }
    };
}
pub(crate) use authority_objects;

/// The associated items a scheme file's [`Kem`] impl starts with: its
/// [`SchemeId`], what its keys and ciphertexts are made for
/// (`AttributeSet => Policy` for ciphertext-policy ABE), the curve `C`, and
/// the file's own `PublicKey<C>`, `UserKey<C>` and `Header<C>`, the scheme
/// being its own authority. With `; the issued key decrypts`, also
/// [`Kem::user_key`] for schemes whose decryption needs nothing else.
macro_rules! kem_objects {
    ($scheme:expr, $key_side:ty => $ciphertext_side:ty) => {
        const SCHEME: $crate::wire::SchemeId = $scheme;
        const CURVE: $crate::curve::CurveId = C::ID;
        type Authority = Self;
        type PublicKey = PublicKey<C>;
        type UserKey = UserKey<C>;
        type Header = Header<C>;
        type KeySide = $key_side;
        type CiphertextSide = $ciphertext_side;
    };
    ($scheme:expr, $key_side:ty => $ciphertext_side:ty; the issued key decrypts) => {
        $crate::kem::kem_objects!($scheme, $key_side => $ciphertext_side);
        fn user_key(key: UserKey<C>, _: &PublicKey<C>) -> UserKey<C> {
            key
        }
    };
}
pub(crate) use kem_objects;

/// Setup's last step: `mk` records the setup id of `pk`, its public key.
pub fn bind<P: Bound, M: Bind>(pk: P, mut mk: M) -> (P, M) {
    mk.bind(pk.setup_id());
    (pk, mk)
}

/// Refuses objects of two setups ([`KemError::WrongSetup`]): a key of
/// another public key, a header made for another setup.
pub fn same_setup(a: &impl Bound, b: &impl Bound) -> Result<(), KemError> {
    if a.setup_id() == b.setup_id() {
        Ok(())
    } else {
        Err(KemError::WrongSetup)
    }
}

/// What every key generation for an attribute list starts with: the
/// master key belongs to the public key, and the list is not empty.
pub fn issuable(
    pk: &impl Bound,
    mk: &impl Bound,
    attrs: &crate::policy::AttributeSet,
) -> Result<(), KemError> {
    same_setup(pk, mk)?;
    if attrs.is_empty() {
        return Err(KemError::Invalid(
            "a key needs at least one attribute".into(),
        ));
    }
    Ok(())
}

/// Setup of `K`'s authority.
pub fn setup<K: Kem>(
    params: &ParamsOf<K>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(K::PublicKey, MasterKeyOf<K>), KemError> {
    K::Authority::setup(params, rng)
}

/// Issues a key for `key_side` and makes it `K`'s decryptor key.
pub fn keygen<K: Kem>(
    pk: &K::PublicKey,
    mk: &MasterKeyOf<K>,
    key_side: &K::KeySide,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<K::UserKey, KemError> {
    Ok(K::user_key(
        K::Authority::keygen(pk, mk, key_side, rng)?,
        pk,
    ))
}

/// Outsourced decryption (GHW11): a transformation key lets an untrusted
/// proxy turn a header into a short transformed header; the retrieval key
/// finishes decryption with one GT exponentiation (two for RCCA).
pub trait Outsourcing: Kem {
    type TransformKey: Encoded;
    type RetrievalKey: Encoded;
    type Transformed: Encoded;

    fn transform_key<R: RngCore + CryptoRng>(
        key: &Self::UserKey,
        rng: &mut R,
    ) -> (Self::TransformKey, Self::RetrievalKey);
    fn transform(
        tk: &Self::TransformKey,
        header: &Self::Header,
    ) -> Result<Self::Transformed, KemError>;
    fn decrypt_transformed(
        rk: &Self::RetrievalKey,
        t: &Self::Transformed,
    ) -> Result<SessionKey, KemError>;
}
