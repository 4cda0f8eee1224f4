//! One codec for every object body: [`Codec`] encodes a field (curve
//! elements, integers, ids, strings, policies, attribute sets, and lists,
//! tuples and maps of those), and `object!` declares an object once —
//! kind, scheme and fields — giving its preamble checks, `to_bytes`,
//! `from_bytes` and the row of its format table in docs/FORMAT.md.
//!
//! Decoding stays strict and linear: a count is bounded by the bytes left
//! (each item's [`Codec::MIN_BYTES`]) before anything is allocated, map
//! names must be strictly increasing (one encoding per value), and
//! trailing bytes are an error.

use super::{ObjectKind, Preamble, Reader, SchemeId, WireError, Writer};
use crate::curve::{wipe, Curve, CurveId, Element, LinedG2};
use crate::policy::{AttributeSet, NegatingPolicyTree, Policy, PolicyTree};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// A field of an object body.
pub trait Codec: Sized {
    /// The fewest bytes an encoding takes (at least 1 for list items, so a
    /// count can be bounded by the input left).
    const MIN_BYTES: usize;
    /// The encoding, as docs/FORMAT.md writes it (`G1`, `u32 n ‖ n × (…)`).
    fn layout() -> String;
    fn encode(&self, w: &mut Writer);
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError>;
}

impl<E: Element> Codec for E {
    const MIN_BYTES: usize = E::ENCODED_BYTES;
    fn layout() -> String {
        E::NAME.into()
    }
    fn encode(&self, w: &mut Writer) {
        w.element(self);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        r.element(what)
    }
}

impl Codec for u32 {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        "u32".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(*self);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        r.u32(what)
    }
}

impl Codec for u64 {
    const MIN_BYTES: usize = 8;
    fn layout() -> String {
        "u64".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.u64(*self);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        r.u64(what)
    }
}

/// A fixed number of values (FAME's triples).
impl<T: Codec, const N: usize> Codec for [T; N] {
    const MIN_BYTES: usize = N * T::MIN_BYTES;
    fn layout() -> String {
        format!("{N} × {}", T::layout())
    }
    fn encode(&self, w: &mut Writer) {
        self.iter().for_each(|x| x.encode(w));
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        let mut v = Vec::with_capacity(N);
        for _ in 0..N {
            v.push(T::decode(r, what)?);
        }
        v.try_into().map_err(|_| invalid(what, "wrong count"))
    }
}

impl<T: Wipe, const N: usize> Wipe for [T; N] {
    fn wipe(&mut self) {
        self.iter_mut().for_each(Wipe::wipe);
    }
}

/// Raw bytes of a fixed length: setup ids (16), seeds (32).
impl<const N: usize> Codec for [u8; N] {
    const MIN_BYTES: usize = N;
    fn layout() -> String {
        format!("{N} bytes")
    }
    fn encode(&self, w: &mut Writer) {
        w.raw(self);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        r.array(what)
    }
}

impl Codec for String {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        "`str`".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.str(self);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        Ok(r.str(what)?.to_owned())
    }
}

/// The attribute list as written (`doctor, cardiology, age = 42`).
impl Codec for AttributeSet {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        "`str`".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.str(&self.display_attrs().join(", "));
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        AttributeSet::parse(r.str(what)?).map_err(|e| invalid(what, e.to_string()))
    }
}

/// A policy in canonical infix.
impl Codec for Policy {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        "`str`".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.str(&self.to_string());
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        Policy::parse(r.str(what)?).map_err(|e| invalid(what, e.to_string()))
    }
}

/// A policy with its tree (`PolicyTree`: the access tree;
/// `NegatingPolicyTree`: the negating tree of a scheme that negates
/// natively), built (and held to the policy work budget) as it is decoded —
/// before any group element after it is read.
macro_rules! policy_tree_codec {
    ($($tree:ident),*) => {$(
        impl Codec for $tree {
            const MIN_BYTES: usize = 4;
            fn layout() -> String {
                Policy::layout()
            }
            fn encode(&self, w: &mut Writer) {
                self.policy.encode(w);
            }
            fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
                $tree::new(Policy::decode(r, what)?).map_err(|e| invalid(what, e.to_string()))
            }
        }
    )*};
}
policy_tree_codec!(PolicyTree, NegatingPolicyTree);

/// A field whose length is given by a value decoded before it (the number
/// of users N of a broadcast object): declared `=> "label" in expr`, with
/// `expr` a u32 of the earlier fields; no count of its own is encoded.
pub trait CodecIn: Sized {
    /// The encoding, `n` being the expression's text (`n × G1`).
    fn layout(n: &str) -> String;
    fn encode(&self, w: &mut Writer);
    fn decode_in(r: &mut Reader<'_>, what: &'static str, n: u32) -> Result<Self, WireError>;
}

/// A u32 count bounded by the input left, before anything is allocated.
fn count<T: Codec>(r: &mut Reader<'_>, what: &'static str) -> Result<usize, WireError> {
    r.count(what, r.remaining() / T::MIN_BYTES.max(1))
}

impl<T: Codec> Codec for Vec<T> {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        format!("u32 n ‖ n × {}", T::layout())
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(u32::try_from(self.len()).expect("fewer than 2^32 items"));
        for x in self {
            x.encode(w);
        }
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        let n = count::<T>(r, what)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(T::decode(r, what)?);
        }
        Ok(v)
    }
}

/// n values, n known from an earlier field (no count encoded).
impl<T: Codec> CodecIn for Vec<T> {
    fn layout(n: &str) -> String {
        format!("{n} × {}", T::layout())
    }
    fn encode(&self, w: &mut Writer) {
        self.iter().for_each(|x| x.encode(w));
    }
    fn decode_in(r: &mut Reader<'_>, what: &'static str, n: u32) -> Result<Self, WireError> {
        if (n as usize).saturating_mul(T::MIN_BYTES) > r.remaining() {
            return Err(WireError::Truncated(what));
        }
        (0..n).map(|_| T::decode(r, what)).collect()
    }
}

/// A shared part (a public key's universe), encoded as the part.
impl<T: Codec> Codec for Arc<T> {
    const MIN_BYTES: usize = T::MIN_BYTES;
    fn layout() -> String {
        T::layout()
    }
    fn encode(&self, w: &mut Writer) {
        T::encode(self, w);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        T::decode(r, what).map(Arc::new)
    }
}

impl<T: CodecIn> CodecIn for Arc<T> {
    fn layout(n: &str) -> String {
        T::layout(n)
    }
    fn encode(&self, w: &mut Writer) {
        T::encode(self, w);
    }
    fn decode_in(r: &mut Reader<'_>, what: &'static str, n: u32) -> Result<Self, WireError> {
        T::decode_in(r, what, n).map(Arc::new)
    }
}

/// Named values, names strictly increasing (one encoding per map).
impl<T: Codec> Codec for BTreeMap<String, T> {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        format!(
            "u32 n ‖ n × (`str` name ‖ {}), names strictly increasing",
            T::layout()
        )
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(u32::try_from(self.len()).expect("fewer than 2^32 items"));
        for (name, x) in self {
            w.str(name);
            x.encode(w);
        }
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        let n = r.count(what, r.remaining() / (4 + T::MIN_BYTES))?;
        let mut map = BTreeMap::new();
        let mut last: Option<&str> = None;
        for _ in 0..n {
            let name = r.str(what)?;
            if last.is_some_and(|l| l >= name) {
                return Err(invalid(what, "names are not strictly increasing"));
            }
            last = Some(name);
            map.insert(name.to_owned(), T::decode(r, what)?);
        }
        Ok(map)
    }
}

macro_rules! tuple_codec {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Codec),+> Codec for ($($t,)+) {
            const MIN_BYTES: usize = 0 $(+ $t::MIN_BYTES)+;
            fn layout() -> String {
                let parts: Vec<String> = vec![$($t::layout()),+];
                format!("({})", parts.join(" ‖ "))
            }
            fn encode(&self, w: &mut Writer) {
                $(self.$i.encode(w);)+
            }
            fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
                Ok(($($t::decode(r, what)?,)+))
            }
        }
        impl<$($t: Wipe),+> Wipe for ($($t,)+) {
            fn wipe(&mut self) {
                $(self.$i.wipe();)+
            }
        }
    };
}
tuple_codec!(A 0, B 1);
tuple_codec!(A 0, B 1, D 2);

/// What a secret is overwritten with when it is dropped.
pub trait Wipe {
    fn wipe(&mut self);
}

impl<E: Element> Wipe for E {
    fn wipe(&mut self) {
        wipe(self, E::wiped());
    }
}

impl<const N: usize> Wipe for [u8; N] {
    fn wipe(&mut self) {
        crate::curve::wipe_bytes(self);
    }
}

/// Names beside secrets (a universe's attributes) are public labels.
impl Wipe for String {
    fn wipe(&mut self) {}
}

impl<T: Wipe> Wipe for Vec<T> {
    fn wipe(&mut self) {
        self.iter_mut().for_each(Wipe::wipe);
    }
}

impl<T: Wipe> Wipe for BTreeMap<String, T> {
    fn wipe(&mut self) {
        self.values_mut().for_each(Wipe::wipe);
    }
}

/// Encoded as its point; the lines are rebuilt on first use.
impl<C: Curve> Codec for LinedG2<C> {
    const MIN_BYTES: usize = <C::G2 as Element>::ENCODED_BYTES;
    fn layout() -> String {
        <C::G2 as Codec>::layout()
    }
    fn encode(&self, w: &mut Writer) {
        self.point.encode(w);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        Ok(LinedG2::new(C::G2::decode(r, what)?))
    }
}

/// The point is wiped here; the lines wipe themselves when dropped.
impl<C: Curve> Wipe for LinedG2<C> {
    fn wipe(&mut self) {
        self.point.wipe();
    }
}

/// A secret field: wiped when dropped, never printed.
#[derive(Default)]
pub struct Secret<T: Wipe>(pub T);

impl<T: Wipe> Drop for Secret<T> {
    fn drop(&mut self) {
        self.0.wipe();
    }
}

impl<T: Wipe> core::ops::Deref for Secret<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Wipe> core::ops::DerefMut for Secret<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Wipe> core::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl<T: Wipe + Codec> Codec for Secret<T> {
    const MIN_BYTES: usize = T::MIN_BYTES;
    fn layout() -> String {
        T::layout()
    }
    fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        Ok(Secret(T::decode(r, what)?))
    }
}

impl<T: Wipe + CodecIn> CodecIn for Secret<T> {
    fn layout(n: &str) -> String {
        T::layout(n)
    }
    fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
    }
    fn decode_in(r: &mut Reader<'_>, what: &'static str, n: u32) -> Result<Self, WireError> {
        Ok(Secret(T::decode_in(r, what, n)?))
    }
}

/// A value built on first use and shared by clones (fixed-base tables,
/// Miller-loop lines): not part of the encoding.
pub struct Lazy<T>(OnceLock<Arc<T>>);

impl<T> Lazy<T> {
    pub fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(|| Arc::new(f()))
    }
}

impl<T> From<T> for Lazy<T> {
    fn from(value: T) -> Self {
        Lazy(OnceLock::from(Arc::new(value)))
    }
}

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Lazy(OnceLock::new())
    }
}

impl<T> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        Lazy(self.0.clone())
    }
}

impl<T> core::fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Lazy(built)"
        } else {
            "Lazy(-)"
        })
    }
}

/// What names a setup: a public key (`object!`'s `identified`: the hash of
/// its encoding) or an object made under one (`bound`: the id it carries).
pub trait Bound {
    fn setup_id(&self) -> [u8; 16];
}

/// An object made under a setup, given its id when it is made (`bound`).
pub trait Bind: Bound {
    fn bind(&mut self, setup_id: [u8; 16]);
}

/// An object: a preamble (kind, scheme, curve) and a body of fields.
/// Declared with `object!`.
pub trait Object: Sized {
    const KIND: ObjectKind;
    const SCHEME: SchemeId;
    const CURVE: CurveId;
    /// The body, as its docs/FORMAT.md row writes it.
    fn layout() -> String;
    fn encode_body(&self, w: &mut Writer);
    fn decode_body(r: &mut Reader<'_>) -> Result<Self, WireError>;
    /// Called with the whole input after a successful decode (public keys
    /// take their setup id from it: the encoding is canonical, so these are
    /// the bytes `to_bytes` would give, without encoding N elements again).
    fn decoded_from(&self, _bytes: &[u8]) {}

    fn encode_object(&self) -> Vec<u8> {
        let mut w = Writer::new(Preamble::new(Self::KIND, Self::SCHEME, Self::CURVE));
        self.encode_body(&mut w);
        w.finish()
    }

    fn decode_object(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::open_for(bytes, Self::KIND, Self::SCHEME, Self::CURVE)?;
        let v = Self::decode_body(&mut r)?;
        r.finish()?;
        v.decoded_from(bytes);
        Ok(v)
    }
}

/// A body's format-table text: `label (encoding) ‖ …; checks` (a field
/// with the empty label is a part shown inline).
pub fn describe(fields: &[(&str, String)], checks: &str) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|(label, layout)| match *label {
            "" => layout.clone(),
            _ => format!("{label} ({layout})"),
        })
        .collect();
    let mut row = parts.join(" ‖ ");
    if !checks.is_empty() {
        row.push_str("; ");
        row.push_str(checks);
    }
    row
}

/// Declares a scheme object `Name<C: Curve>` once: its fields with their
/// labels (encoded in order), fields built after decoding (`cached`: not
/// encoded; `Default`, or `= expr` of the decoded fields) and an optional
/// `check` on every decoded value, whose text goes into the format table.
///
/// `= (Kind, SCHEME)` makes an object with a preamble: `to_bytes`,
/// `from_bytes`, [`Object`] and [`super::Encoded`]. `= body` makes a part
/// of one (a [`Codec`]; a field of it with the empty label is shown inline
/// in the format table). `bound` (after either) starts the object with the
/// 16-byte setup id of its public key and gives `setup_id()`; `identified`
/// (public keys) gives `setup_id()` computed once from the encoding, and a
/// `Debug` that shows it; both implement [`Bound`], `bound` also [`Bind`].
/// `made_for Side = |v| …;` (keys and headers) says what the object was
/// made for ([`super::MadeFor`]).
macro_rules! object {
    (@bound [] $name:ident $gd:tt $gu:tt) => {};
    (@bound [identified] $name:ident [$($gd:tt)*] [$($gu:tt)*]) => {
        impl<C: $crate::curve::Curve $($gd)*> $name<C $($gu)*> {
            /// The setup identifier: the first 16 bytes of SHA-256 over the
            /// encoded public key (computed once). Keys and headers carry
            /// it, so a mismatch is reported as such rather than as a
            /// failed decryption.
            pub fn setup_id(&self) -> [u8; 16] {
                *self.id.get_or_init(|| $crate::wire::setup_id(&self.to_bytes()))
            }
        }
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::codec::Bound for $name<C $($gu)*> {
            fn setup_id(&self) -> [u8; 16] {
                $name::setup_id(self)
            }
        }
        impl<C: $crate::curve::Curve $($gd)*> core::fmt::Debug for $name<C $($gu)*> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let scheme = <Self as $crate::wire::codec::Object>::SCHEME.name();
                let id = $crate::wire::hex(&self.setup_id());
                write!(f, "{scheme} {} on {} (setup {id})", stringify!($name), C::NAME)
            }
        }
    };
    (@bound [bound] $name:ident [$($gd:tt)*] [$($gu:tt)*]) => {
        impl<C: $crate::curve::Curve $($gd)*> $name<C $($gu)*> {
            /// The setup id of the public key this object belongs to.
            pub fn setup_id(&self) -> [u8; 16] {
                self.setup_id
            }
        }
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::codec::Bound for $name<C $($gu)*> {
            fn setup_id(&self) -> [u8; 16] {
                self.setup_id
            }
        }
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::codec::Bind for $name<C $($gu)*> {
            fn bind(&mut self, setup_id: [u8; 16]) {
                self.setup_id = setup_id;
            }
        }
    };
    (@pre [] $meta:tt $vis:vis $name:ident $gd:tt $gu:tt [$($f:tt)*] $($rest:tt)*) => {
        $crate::wire::codec::object!(@struct $meta $vis $name $gd $gu [$($f)*] $($rest)*);
    };
    (@pre [identified] $meta:tt $vis:vis $name:ident $gd:tt $gu:tt $f:tt [$($c:tt)*] $check:tt) => {
        $crate::wire::codec::object!(@struct $meta $vis $name $gd $gu $f
            [$($c)* [] id: std::sync::OnceLock<[u8; 16]>] $check);
    };
    (@pre [bound] $meta:tt $vis:vis $name:ident $gd:tt $gu:tt [$($f:tt)*] $($rest:tt)*) => {
        $crate::wire::codec::object!(@struct $meta $vis $name $gd $gu
            [[] setup_id: [u8; 16] => "setup id" [] $($f)*] $($rest)*);
    };
    (@kind body $b:tt $name:ident $gd:tt $gu:tt) => {};
    (@kind ($kind:ident, $scheme:expr) [$($b:ident)?] $name:ident [$($gd:tt)*] [$($gu:tt)*]) => {
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::codec::Object for $name<C $($gu)*> {
            const KIND: $crate::wire::ObjectKind = $crate::wire::ObjectKind::$kind;
            const SCHEME: $crate::wire::SchemeId = $scheme;
            const CURVE: $crate::curve::CurveId = C::ID;
            fn layout() -> String {
                <Self as $crate::wire::codec::Codec>::layout()
            }
            fn encode_body(&self, w: &mut $crate::wire::Writer) {
                $crate::wire::codec::Codec::encode(self, w)
            }
            fn decode_body(
                r: &mut $crate::wire::Reader<'_>,
            ) -> Result<Self, $crate::wire::WireError> {
                $crate::wire::codec::Codec::decode(r, stringify!($name))
            }
            $crate::wire::codec::object!(@decoded_from $($b)?);
        }
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::Encoded for $name<C $($gu)*> {
            fn to_bytes(&self) -> Vec<u8> {
                $crate::wire::codec::Object::encode_object(self)
            }
            fn from_bytes(bytes: &[u8]) -> Result<Self, $crate::wire::WireError> {
                $crate::wire::codec::Object::decode_object(bytes)
            }
            fn format_row() -> Option<($crate::wire::ObjectKind, String)> {
                Some((
                    $crate::wire::ObjectKind::$kind,
                    <Self as $crate::wire::codec::Object>::layout(),
                ))
            }
        }
        impl<C: $crate::curve::Curve $($gd)*> $name<C $($gu)*> {
            pub fn to_bytes(&self) -> Vec<u8> {
                $crate::wire::codec::Object::encode_object(self)
            }
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, $crate::wire::WireError> {
                $crate::wire::codec::Object::decode_object(bytes)
            }
        }
    };
    (@struct [$($meta:tt)*] $vis:vis $name:ident [$($gd:tt)*] [$($gu:tt)*]
        [$( [$($fmeta:tt)*] $fvis:vis $field:ident : $fty:ty => $label:literal [$($ctx:expr)?] )*]
        [$( [$($cmeta:tt)*] $cfield:ident : $cty:ty $(= {$cinit:expr})? )*]
        [$($checks:literal => $check:expr)?]) => {
        $($meta)*
        $vis struct $name<C: $crate::curve::Curve $($gd)*> {
            $( $($fmeta)* $fvis $field: $fty, )*
            $( $($cmeta)* $cfield: $cty, )*
        }
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::codec::Codec for $name<C $($gu)*> {
            const MIN_BYTES: usize = 0 $(+ $crate::wire::codec::object!(@min $fty [$($ctx)?]))*;
            fn layout() -> String {
                let fields: Vec<(&str, String)> =
                    vec![$(($label, $crate::wire::codec::object!(@layout $fty [$($ctx)?]))),*];
                $crate::wire::codec::describe(&fields, $crate::wire::codec::object!(@checks $($checks)?))
            }
            fn encode(&self, w: &mut $crate::wire::Writer) {
                $($crate::wire::codec::object!(@encode w, &self.$field, $fty [$($ctx)?]);)*
            }
            fn decode(
                r: &mut $crate::wire::Reader<'_>,
                _what: &'static str,
            ) -> Result<Self, $crate::wire::WireError> {
                $(let $field: $fty = $crate::wire::codec::object!(@decode r, $label, $fty [$($ctx)?])?;)*
                let v = $name {
                    $($cfield: $crate::wire::codec::object!(@init $($cinit)?),)*
                    $($field,)*
                };
                $(
                    let check: fn(&Self) -> Result<(), $crate::wire::WireError> = $check;
                    check(&v)?;
                )?
                Ok(v)
            }
        }
    };
    (@min $t:ty []) => { <$t as $crate::wire::codec::Codec>::MIN_BYTES };
    (@min $t:ty [$n:expr]) => { 0 };
    (@layout $t:ty []) => { <$t as $crate::wire::codec::Codec>::layout() };
    (@layout $t:ty [$n:expr]) => { <$t as $crate::wire::codec::CodecIn>::layout(stringify!($n)) };
    (@encode $w:ident, $v:expr, $t:ty []) => { <$t as $crate::wire::codec::Codec>::encode($v, $w) };
    (@encode $w:ident, $v:expr, $t:ty [$n:expr]) => { <$t as $crate::wire::codec::CodecIn>::encode($v, $w) };
    (@decode $r:ident, $label:literal, $t:ty []) => { <$t as $crate::wire::codec::Codec>::decode($r, $label) };
    (@decode $r:ident, $label:literal, $t:ty [$n:expr]) => {
        <$t as $crate::wire::codec::CodecIn>::decode_in($r, $label, u32::from($n))
    };
    (@made_for $name:ident $gd:tt $gu:tt) => {};
    (@made_for $name:ident [$($gd:tt)*] [$($gu:tt)*] [$side:ty] $made_for:expr) => {
        impl<C: $crate::curve::Curve $($gd)*> $crate::wire::MadeFor<$side> for $name<C $($gu)*> {
            fn made_for(&self) -> $side {
                let made_for: fn(&Self) -> $side = $made_for;
                made_for(self)
            }
        }
    };
    (@decoded_from) => {};
    (@decoded_from bound) => {};
    (@decoded_from identified) => {
        fn decoded_from(&self, bytes: &[u8]) {
            let _ = self.id.set($crate::wire::setup_id(bytes));
        }
    };
    (@init) => { Default::default() };
    (@init $e:expr) => { $e };
    (@checks) => { "" };
    (@checks $c:literal) => { $c };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident<C $(, $v:ident : $vb:path)?> = $kind:tt $(, $bound:ident)? {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $fty:ty => $label:literal $(in $ctx:expr)? ),* $(,)?
        }
        $( cached { $( $(#[$cmeta:meta])* $cfield:ident : $cty:ty $(= $cinit:expr)? ),* $(,)? } )?
        $( check $checks:literal => $check:expr; )?
        $( made_for $side:ty = $made_for:expr; )?
    ) => {
        $crate::wire::codec::object!(@pre [$($bound)?]
            [$(#[$meta])*] $vis $name [$(, $v: $vb)?] [$(, $v)?]
            [$( [$(#[$fmeta])*] $fvis $field : $fty => $label [$($ctx)?] )*]
            [$($( [$(#[$cmeta])*] $cfield : $cty $(= {$cinit})? )*)?]
            [$($checks => $check)?]
        );
        $crate::wire::codec::object!(@bound [$($bound)?] $name [$(, $v: $vb)?] [$(, $v)?]);
        $crate::wire::codec::object!(@kind $kind [$($bound)?] $name [$(, $v: $vb)?] [$(, $v)?]);
        $crate::wire::codec::object!(@made_for $name [$(, $v: $vb)?] [$(, $v)?]
            $([$side] $made_for)?);
    };
}
pub(crate) use object;

/// The check of every master key: its secrets give the public key whose
/// setup id it carries.
pub fn secrets_match(public_key_setup_id: [u8; 16], setup_id: [u8; 16]) -> Result<(), WireError> {
    if public_key_setup_id == setup_id {
        Ok(())
    } else {
        Err(invalid("master key", "secrets do not match its setup id"))
    }
}

/// The check of the per-attribute elements of a key or header (`what`):
/// named by the expansion of its attribute list, in order.
pub fn names_match<'a>(
    what: &'static str,
    set: &AttributeSet,
    names: impl ExactSizeIterator<Item = &'a String>,
) -> Result<(), WireError> {
    if names.len() != set.len() {
        let (n, m) = (names.len(), set.len());
        return Err(invalid(
            what,
            format!("{n} {what} elements for {m} expanded attributes"),
        ));
    }
    if !names.map(String::as_str).eq(set.iter()) {
        return Err(invalid(
            what,
            format!("{what} elements do not match the attribute list"),
        ));
    }
    Ok(())
}

/// The check of the rows of a header or key (`what`): one per leaf of its
/// policy's access tree.
pub fn rows_match(what: &'static str, policy: &PolicyTree, rows: usize) -> Result<(), WireError> {
    let leaves = policy.tree.leaves().len();
    if rows == leaves {
        Ok(())
    } else {
        Err(invalid(
            what,
            format!("{rows} rows for a policy with {leaves} leaves"),
        ))
    }
}

/// The check of a ciphertext's attributes: at least one, and one element
/// per expanded attribute.
pub fn labels_match(set: &AttributeSet, elements: usize) -> Result<(), WireError> {
    if set.is_empty() {
        return Err(invalid(
            "attribute list",
            "a ciphertext needs at least one attribute",
        ));
    }
    if elements != set.len() {
        return Err(invalid(
            "header",
            format!("{elements} elements for {} expanded attributes", set.len()),
        ));
    }
    Ok(())
}

/// The check of a secret scalar that must be invertible.
pub fn nonzero<S: crate::curve::Scalar>(what: &'static str, s: &S) -> Result<(), WireError> {
    if s.is_zero() {
        Err(invalid(what, "a secret scalar is 0"))
    } else {
        Ok(())
    }
}

/// An `Invalid` error for `what`.
pub fn invalid(what: &'static str, detail: impl Into<String>) -> WireError {
    WireError::Invalid {
        what,
        detail: detail.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Curve, Group, Scalar};

    #[test]
    fn lists_and_maps_are_canonical_and_bounded() {
        let mut w = Writer::body();
        let v: Vec<(u32, [u8; 2])> = vec![(1, [2, 3]), (4, [5, 6])];
        Codec::encode(&v, &mut w);
        let buf = w.finish();
        assert_eq!(buf, [0, 0, 0, 2, 0, 0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6]);
        let mut r = Reader::new(&buf);
        assert_eq!(Vec::<(u32, [u8; 2])>::decode(&mut r, "v").unwrap(), v);
        r.finish().unwrap();
        // A count larger than the bytes left can hold is refused before
        // anything is allocated.
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 1, 2]);
        assert!(matches!(
            Vec::<u32>::decode(&mut r, "v"),
            Err(WireError::TooLong { .. })
        ));

        let g = <Bls12 as Curve>::G1::generator();
        let map: BTreeMap<String, <Bls12 as Curve>::G1> =
            [("a".to_string(), g), ("b".to_string(), g)].into();
        let mut w = Writer::body();
        map.encode(&mut w);
        let buf = w.finish();
        let mut r = Reader::new(&buf);
        assert_eq!(BTreeMap::decode(&mut r, "m").unwrap(), map);
        // Names out of order or repeated: another encoding of a map, refused.
        let mut swapped = Writer::body();
        swapped.u32(2).str("b").point(&g).str("a").point(&g);
        let buf = swapped.finish();
        let e = BTreeMap::<String, <Bls12 as Curve>::G1>::decode(&mut Reader::new(&buf), "m");
        assert!(matches!(e, Err(WireError::Invalid { .. })), "{e:?}");
        assert_eq!(
            <BTreeMap<String, (<Bls12 as Curve>::G2, u32)>>::layout(),
            "u32 n ‖ n × (`str` name ‖ (G2 ‖ u32)), names strictly increasing"
        );
    }

    #[test]
    fn secrets_are_wiped_on_drop() {
        let mut s = Secret(<Bls12 as Curve>::Scalar::from_u64(7));
        assert!(!s.is_zero());
        s.wipe();
        assert!(s.is_zero());
        let mut k = Secret(vec![[9u8; 4]]);
        k.0.wipe();
        assert_eq!(k.0, vec![[0u8; 4]]);
        assert_eq!(format!("{k:?}"), "Secret(…)");
    }
}
