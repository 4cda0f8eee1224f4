//! Public-key broadcast encryption, one file per scheme, as evaluated by
//! A. Chhatrapati, S. Hohenberger, J. Trombo, S. Vusirikala, "A Performance
//! Evaluation of Pairing-Based Broadcast Encryption Systems", ACNS 2022
//! (`chhatrapati22-broadcast-encryption-evaluation.txt`, §2, §3.1–3.4).
//!
//! * [`bgw05`] — Boneh–Gentry–Waters 2005 §3.1: constant ciphertext and
//!   private key, public key O(N); static security.
//! * [`bgw05_sqrt`] — BGW05 §3.2 with B = ⌊√N⌋: public key and ciphertext
//!   O(√N); static security.
//! * [`gw09`] — Gentry–Waters 2009 §3.1: semi-static, constant ciphertext,
//!   O(N) private keys.
//! * [`waters09`] — Waters 2009 dual-system broadcast encryption: adaptive,
//!   constant ciphertext, O(N) private keys.
//! * [`elgamal`] — the paper's §2 baseline: ElGamal with shared parameters on
//!   NIST P-256, one ciphertext element per recipient.
//! * [`gksw10_plbe`] — the full version's \[12\]: private linear broadcast
//!   encryption on a √N×√N grid, encrypting to everybody, with black-box
//!   traitor tracing ([`trace`]); [`gksw10_augbe`] — its augmented broadcast
//!   version, to any set, publicly traceable (both on [`grid`]).
//! * [`zha20_risky`], [`zha20`] — Zhandry 2020's risky broadcast-and-trace and
//!   its risk-mitigated version with user expansion (sharing [`mtb`]).
//! * [`gw09_ibbe`], [`gw09_ibbe_ss`], [`gw19_ibbe`] — identity-based broadcast
//!   (Gentry–Waters 2009 §4.1 and §4.3.1, Ge–Wei 2019), sharing [`ibbe`] and
//!   [`poly`].
//!
//! The broadcast ones implement [`crate::kem::Kem`] with key side a
//! [`UserIndex`] i ∈ [1, N] and ciphertext side a set of users
//! [`Recipients`] ⊆ [1, N] (or everyone); the number of users N is fixed at
//! setup, the scheme's parameter ([`Users`], [`DEFAULT_USERS`] by
//! default). The identity-based ones take identities and the largest
//! recipient set instead.
//!
//! User keys are stored without their public key (format version 2): a
//! broadcast public key is O(N) and Table 2's private keys are O(λ) (BGW05)
//! or O(λN). Decryption is given the public key ([`crate::kem::Kem::attach_public_key`]);
//! BGW05's is read element by element from its file ([`table`]), so a
//! decryption reads the 2|S| elements it uses (with the CCA check), not all 3N.

pub mod bgw05;
pub mod bgw05_sqrt;
pub mod elgamal;
pub mod gksw10_augbe;
pub mod gksw10_plbe;
pub mod grid;
pub mod gw09;
pub mod gw09_ibbe;
pub mod gw09_ibbe_ss;
pub mod gw19_ibbe;
pub mod ibbe;
pub mod mtb;
pub mod poly;
pub mod table;
pub mod trace;
pub mod waters09;
pub mod zha20;
pub mod zha20_risky;

pub use bgw05::Bgw05;
pub use bgw05_sqrt::Bgw05Sqrt;
pub use elgamal::ElGamalP256;
pub use gksw10_augbe::Gksw10AugBe;
pub use gksw10_plbe::Gksw10Plbe;
pub use gw09::Gw09;
pub use gw09_ibbe::Gw09Ibbe;
pub use gw09_ibbe_ss::Gw09IbbeSs;
pub use gw19_ibbe::Gw19Ibbe;
pub use table::{RandomAccess, Source};
pub use waters09::Waters09;
pub use zha20::Zha20;
pub use zha20_risky::Zha20Risky;

use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar};
use crate::kem::{KemError, Params, ParamsKind, SetupParams, Side, SideKind};
use crate::policy::{ErrorKind, PolicyError};
use crate::wire::codec::{invalid, Codec, CodecIn, Wipe};
use crate::wire::{Reader, WireError, Writer};
use std::marker::PhantomData;

/// N of a setup that does not choose it ([`Users::default`]).
pub const DEFAULT_USERS: u32 = 1024;
/// Largest number of users a setup accepts (2^24 ≈ 16.8 million).
pub const MAX_USERS: u32 = 1 << 24;

/// The number of users N of a broadcast setup (user indices 1..=N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Users(pub u32);

impl Default for Users {
    fn default() -> Self {
        Users(DEFAULT_USERS)
    }
}

impl Params for Users {
    const KIND: ParamsKind = ParamsKind::Users;
    fn from_setup(p: &SetupParams) -> Result<Self, KemError> {
        Self::KIND.refuse_others(p)?;
        Ok(p.users.map_or_else(Users::default, Users))
    }
}

/// N users and Zhandry's user-expansion parameter a ∈ [0, 1]: ⌈N^a⌉ blocks
/// of ⌈N/⌈N^a⌉⌉ users.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expansion {
    pub users: u32,
    pub a: f64,
}

impl Default for Expansion {
    fn default() -> Self {
        Expansion {
            users: DEFAULT_USERS,
            a: 0.5,
        }
    }
}

impl Params for Expansion {
    const KIND: ParamsKind = ParamsKind::UsersAndExpansion;
    fn from_setup(p: &SetupParams) -> Result<Self, KemError> {
        Self::KIND.refuse_others(p)?;
        let d = Expansion::default();
        let a = p.expansion.unwrap_or(d.a);
        if !(0.0..=1.0).contains(&a) {
            return Err(KemError::Invalid(format!(
                "the expansion parameter a must be in [0, 1], got {a}"
            )));
        }
        Ok(Expansion {
            users: p.users.unwrap_or(d.users),
            a,
        })
    }
}

/// A user of a broadcast system: an index i ∈ [1, N].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UserIndex(pub u32);

impl UserIndex {
    pub fn get(self) -> u32 {
        self.0
    }
    /// Checks 1 ≤ i ≤ n.
    pub fn check(self, n: u32) -> Result<(), KemError> {
        if self.0 == 0 || self.0 > n {
            return Err(KemError::Invalid(format!(
                "user index {} is outside [1, {n}]",
                self.0
            )));
        }
        Ok(())
    }
}

impl Side for UserIndex {
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let t = input.trim();
        let v = parse_index(t, 0)?;
        Ok(UserIndex(v))
    }
    fn describe(&self) -> String {
        format!("user {}", self.0)
    }
    const KIND: SideKind = SideKind::User;
}

fn parse_index(t: &str, pos: usize) -> Result<u32, PolicyError> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PolicyError::at(
            ErrorKind::Users,
            pos,
            "a user index (a positive integer)",
            t,
        ));
    }
    // The setup's own N is checked where it is known; these bounds hold
    // for every setup.
    match t.parse::<u64>() {
        Ok(v) if v >= 1 && v <= MAX_USERS as u64 => Ok(v as u32),
        Ok(0) => Err(PolicyError::at(
            ErrorKind::Users,
            pos,
            "a user index (users are numbered from 1)",
            t,
        )),
        _ => Err(PolicyError::at(
            ErrorKind::Users,
            pos,
            format!("a user index of at most {MAX_USERS} (no setup has more users)"),
            t,
        )),
    }
}

/// A set of users S ⊆ [1, N], kept as sorted, disjoint, non-adjacent
/// inclusive ranges (the canonical form of text like `1-1000,2000,3000-3100`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Recipients {
    ranges: Vec<(u32, u32)>,
    len: u64,
}

impl Recipients {
    /// The set of the given indices (any order, duplicates allowed).
    pub fn from_indices(indices: impl IntoIterator<Item = u32>) -> Result<Self, KemError> {
        let mut v: Vec<u32> = indices.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        if v.first() == Some(&0) {
            return Err(KemError::Invalid(
                "user index 0 (indices start at 1)".into(),
            ));
        }
        let ranges = v.into_iter().map(|i| (i, i)).collect();
        Self::from_ranges(ranges).map_err(|e| KemError::Invalid(e.to_string()))
    }

    /// Users lo..=hi.
    pub fn range(lo: u32, hi: u32) -> Result<Self, KemError> {
        Self::from_ranges(vec![(lo, hi)]).map_err(|e| KemError::Invalid(e.to_string()))
    }

    /// Normalises ranges (sorting, merging overlapping and adjacent ones).
    fn from_ranges(mut ranges: Vec<(u32, u32)>) -> Result<Self, PolicyError> {
        for &(lo, hi) in &ranges {
            if lo == 0 || lo > hi || hi > MAX_USERS {
                return Err(PolicyError::new(
                    ErrorKind::Users,
                    format!("ranges a-b with 1 ≤ a ≤ b ≤ {MAX_USERS}"),
                    format!("{lo}-{hi}"),
                ));
            }
        }
        ranges.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (lo, hi) in ranges {
            match out.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        if out.is_empty() {
            return Err(PolicyError::new(
                ErrorKind::Users,
                "at least one recipient",
                "an empty set",
            ));
        }
        let len = out.iter().map(|(a, b)| (b - a) as u64 + 1).sum();
        Ok(Recipients { ranges: out, len })
    }

    /// |S|.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Never true for a constructed set (an empty set is refused); here for
    /// clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The largest index.
    pub fn max(&self) -> u32 {
        self.ranges.last().map(|r| r.1).unwrap_or(0)
    }
    /// The canonical ranges.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }
    pub fn contains(&self, i: u32) -> bool {
        self.rank(i).is_some()
    }
    /// The position of `i` in S in increasing order (0-based), if i ∈ S.
    pub fn rank(&self, i: u32) -> Option<usize> {
        // number of elements before the range holding i
        let k = self.ranges.partition_point(|r| r.1 < i);
        let (lo, hi) = *self.ranges.get(k)?;
        if i < lo || i > hi {
            return None;
        }
        let before: u64 = self.ranges[..k]
            .iter()
            .map(|(a, b)| (b - a) as u64 + 1)
            .sum();
        Some((before + (i - lo) as u64) as usize)
    }
    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranges.iter().flat_map(|&(a, b)| a..=b)
    }
    /// The members in [lo, hi], in increasing order.
    pub fn iter_range(&self, lo: u32, hi: u32) -> impl Iterator<Item = u32> + '_ {
        let k = self.ranges.partition_point(|r| r.1 < lo);
        self.ranges[k..]
            .iter()
            .take_while(move |r| r.0 <= hi)
            .flat_map(move |&(a, b)| a.max(lo)..=b.min(hi))
    }
    /// Checks S ⊆ [1, n].
    pub fn check(&self, n: u32) -> Result<(), KemError> {
        if self.max() > n {
            return Err(KemError::Invalid(format!(
                "recipient {} is outside [1, {n}] (the public key has {n} users)",
                self.max()
            )));
        }
        Ok(())
    }

    /// Wire form: count of ranges, then (lo, hi) pairs as u32.
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u32(self.ranges.len() as u32);
        for &(a, b) in &self.ranges {
            w.u32(a).u32(b);
        }
    }
    /// Strict decoding: canonical ranges inside [1, n].
    pub(crate) fn decode(r: &mut Reader<'_>, n: u32) -> Result<Self, WireError> {
        let k = r.count("recipient ranges", n.div_ceil(2).max(1) as usize)?;
        let bad = |detail: &str| WireError::Invalid {
            what: "recipients",
            detail: detail.into(),
        };
        // Each range takes 8 bytes: a count the input cannot hold is refused
        // before anything is allocated for it.
        if k.saturating_mul(8) > r.remaining() {
            return Err(WireError::Truncated("recipient ranges"));
        }
        let mut ranges = Vec::with_capacity(k);
        let mut prev_hi: Option<u32> = None;
        for _ in 0..k {
            let a = r.u32("range start")?;
            let b = r.u32("range end")?;
            if a == 0 || a > b || b > n {
                return Err(bad("a range is empty or outside [1, N]"));
            }
            if let Some(p) = prev_hi {
                if a <= p.saturating_add(1) {
                    return Err(bad("ranges are not sorted, disjoint and non-adjacent"));
                }
            }
            prev_hi = Some(b);
            ranges.push((a, b));
        }
        if ranges.is_empty() {
            return Err(bad("no recipient"));
        }
        let len = ranges.iter().map(|(a, b)| (b - a) as u64 + 1).sum();
        Ok(Recipients { ranges, len })
    }
    /// Encoded length in bytes.
    pub fn encoded_len(&self) -> usize {
        4 + 8 * self.ranges.len()
    }
}

/// N, the number of users of a broadcast setup: a u32 in [1, MAX_USERS],
/// checked as soon as it is read (before the N elements that follow it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserCount(u32);

impl UserCount {
    pub fn new(n: u32) -> Result<Self, KemError> {
        check_n(n).map(|()| UserCount(n))
    }
    pub fn get(self) -> u32 {
        self.0
    }
}

/// n − k, for the lengths of the parts of a public key (`n - 1`).
impl core::ops::Sub<u32> for UserCount {
    type Output = u32;
    fn sub(self, k: u32) -> u32 {
        self.0 - k
    }
}

impl From<UserCount> for u32 {
    fn from(n: UserCount) -> u32 {
        n.0
    }
}

impl Codec for UserCount {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        "u32 n, 1 ≤ n ≤ 2^24".into()
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(self.0);
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        UserCount::new(r.u32(what)?).map_err(|e| invalid(what, e.to_string()))
    }
}

/// The check of a user key: its index i is in [1, N].
pub(crate) fn user_in_range(i: u32, n: UserCount) -> Result<(), WireError> {
    UserIndex(i)
        .check(n.get())
        .map_err(|_| invalid("user key", "user index outside [1, N]"))
}

/// S in a header: its ranges, checked against the N read before them.
impl CodecIn for Recipients {
    fn layout(n: &str) -> String {
        format!("u32 k ‖ k × (u32 lo ‖ u32 hi), sorted, disjoint, non-adjacent, within [1, {n}]")
    }
    fn encode(&self, w: &mut Writer) {
        Recipients::encode(self, w)
    }
    fn decode_in(r: &mut Reader<'_>, _: &'static str, n: u32) -> Result<Self, WireError> {
        Recipients::decode(r, n)
    }
}

/// `n` points of `G` in affine form (a broadcast public key's or user key's
/// per-user elements): compressed, no count (N is read before them),
/// encoded and decoded in parallel.
pub struct Points<C: Curve, G: Group>(pub Vec<G::Affine>, PhantomData<C>);

impl<C: Curve, G: Group> Points<C, G> {
    pub fn new(points: Vec<G::Affine>) -> Self {
        Points(points, PhantomData)
    }
}

impl<C: Curve, G: Group> core::ops::Deref for Points<C, G> {
    type Target = [G::Affine];
    fn deref(&self) -> &[G::Affine] {
        &self.0
    }
}

impl<C: Curve, G: Group> Clone for Points<C, G> {
    fn clone(&self) -> Self {
        Points::new(self.0.clone())
    }
}

impl<C: Curve, G: Group> CodecIn for Points<C, G> {
    fn layout(n: &str) -> String {
        format!("{n} × {}", G::NAME)
    }
    fn encode(&self, w: &mut Writer) {
        write_affine::<C, G>(&self.0, w);
    }
    fn decode_in(r: &mut Reader<'_>, what: &'static str, n: u32) -> Result<Self, WireError> {
        decode_affine::<C, G>(r, n as usize, what).map(Points::new)
    }
}

impl<C: Curve, G: Group> Wipe for Points<C, G> {
    fn wipe(&mut self) {
        let zero = G::to_affine_batch(&[G::identity()])[0];
        self.0.iter_mut().for_each(|p| wipe(p, zero));
    }
}

impl core::fmt::Display for Recipients {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (k, &(a, b)) in self.ranges.iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

impl Side for Recipients {
    /// `1-1000, 2000, 3000-3100`: comma-separated indices and inclusive
    /// ranges, in any order, overlaps allowed.
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let mut ranges = Vec::new();
        let mut pos = 0usize;
        for item in input.split(',') {
            let start = pos + (item.len() - item.trim_start().len());
            let t = item.trim();
            if let Some((a, b)) = t.split_once('-') {
                let lo = parse_index(a.trim(), start)?;
                let hi = parse_index(b.trim(), start)?;
                if lo > hi {
                    return Err(PolicyError::at(
                        ErrorKind::Users,
                        start,
                        "a range a-b with a ≤ b",
                        t,
                    ));
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((parse_index(t, start)?, parse_index(t, start)?));
            }
            pos += item.len() + 1;
        }
        Recipients::from_ranges(ranges)
    }
    fn describe(&self) -> String {
        self.to_string()
    }
    const KIND: SideKind = SideKind::Users;
}

/// Every user of a setup: what a ciphertext of a scheme without recipient
/// sets (a PLBE) is for; written `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Everyone;

impl Side for Everyone {
    fn parse(input: &str) -> Result<Self, PolicyError> {
        let t = input.trim();
        if t.eq_ignore_ascii_case("all") {
            Ok(Everyone)
        } else {
            Err(PolicyError::at(
                ErrorKind::Users,
                0,
                "`all` (this scheme encrypts to every user of its setup)",
                t,
            ))
        }
    }
    fn describe(&self) -> String {
        "all".into()
    }
    const KIND: SideKind = SideKind::Everyone;
}

/// The [`crate::kem::Kem`] methods of a broadcast scheme's keys, which are
/// stored without their public key: an issued key decodes as it is, and is
/// given its public key (of its own setup) before it decrypts. With
/// `; attach`, also `user_key`, through the key's own `attach`; with
/// `; keep pk if f, …`, a `user_key` that keeps the public key in the key's
/// `pk` when it is the key's setup's (its id, and the same `f`, …). A
/// mismatch is left for decryption to report as `WrongSetup`.
macro_rules! unattached_keys {
    ($key:ty, $pk:ty; attach) => {
        fn user_key(mut key: $key, pk: &$pk) -> $key {
            let _ = key.attach(pk);
            key
        }
        super::unattached_keys!($key, $pk);
    };
    ($key:ty, $pk:ty; keep pk if $($field:ident),+) => {
        fn user_key(mut key: $key, pk: &$pk) -> $key {
            if pk.setup_id() == key.setup_id $(&& pk.$field == key.$field)+ {
                key.pk = Some(pk.clone());
            }
            key
        }
        super::unattached_keys!($key, $pk);
    };
    ($key:ty, $pk:ty) => {
        fn unattached(key: $key) -> Option<$key> {
            Some(key)
        }
        fn attach_public_key(key: $key, pk: &$pk) -> Result<$key, KemError> {
            if key.setup_id() != pk.setup_id() {
                return Err(KemError::WrongSetup);
            }
            Ok(<Self as Kem>::user_key(key, pk))
        }
    };
}
pub(crate) use unattached_keys;

/// x^e in Z_r (square and multiply; the exponent is a public index).
pub(crate) fn scalar_pow<S: Scalar>(x: S, mut e: u64) -> S {
    let mut acc = S::one();
    let mut base = x;
    while e > 0 {
        if e & 1 == 1 {
            acc *= base;
        }
        base *= base;
        e >>= 1;
    }
    acc
}

/// A pseudorandom scalar PRF_seed(tag, j): SHA-512 over the tag, the seed and
/// j, reduced wide. Used for per-user exponents that the master key would
/// otherwise store one by one (O(N) master keys become O(1)).
pub(crate) fn prf_scalar<S: Scalar>(tag: &[u8], seed: &[u8; 32], j: u32) -> S {
    use sha2::{Digest, Sha512};
    let block = |k: u8| {
        let mut h = Sha512::new();
        h.update(b"abbe/v1/bcast-prf/");
        h.update((tag.len() as u32).to_be_bytes());
        h.update(tag);
        h.update(seed);
        h.update(j.to_be_bytes());
        // Block 0 is the original single-block PRF (255-bit curves use only
        // it); wider scalar fields append blocks 1, 2, ….
        if k > 0 {
            h.update([k]);
        }
        h.finalize()
    };
    wide_from_blocks(block)
}

/// The scalar whose wide encoding is SHA-512 blocks 0, 1, … (as many as
/// the field's wide reduction takes), wiped after use.
fn wide_from_blocks<S: Scalar>(block: impl Fn(u8) -> sha2::digest::Output<sha2::Sha512>) -> S {
    let mut wide = [0u8; crate::curve::MAX_WIDE_BYTES];
    let n = S::WIDE_BYTES;
    for (k, chunk) in wide[..n].chunks_mut(64).enumerate() {
        let d = block(k as u8);
        chunk.copy_from_slice(&d[..chunk.len()]);
    }
    let s = S::from_bytes_wide(&wide[..n]);
    crate::curve::wipe_bytes(&mut wide);
    s
}

/// A scalar from SHA-512 over `prefix`, `tag` and `data` (each
/// length-prefixed), reduced wide: identities and public constants hashed
/// to Z_r ([`ibbe`]), and per-element secrets derived from a seed.
pub(crate) fn prf_tagged<S: Scalar>(prefix: &[u8], tag: &[u8], data: &[u8]) -> S {
    use sha2::{Digest, Sha512};
    let block = |k: u8| {
        let mut h = Sha512::new();
        for part in [prefix, tag, data] {
            h.update((part.len() as u32).to_be_bytes());
            h.update(part);
        }
        h.update([k]);
        h.finalize()
    };
    wide_from_blocks(block)
}

/// base^{s_k} for every scalar, through a fixed-base table, in parallel,
/// normalised to affine with one inversion per batch.
pub(crate) fn fixed_base_affine<C: Curve, G: Group>(
    table: &FixedBaseTable<G>,
    scalars: &[G::Scalar],
) -> Vec<G::Affine> {
    // Lanes of 1024 scalars: each lane batch shares its inversions.
    let lanes: Vec<&[G::Scalar]> = scalars.chunks(1024).collect();
    par_map::<C, _, _>(&lanes, |l| G::mul_fixed_batch(table, l))
        .into_iter()
        .flatten()
        .collect()
}

/// Points are produced and encoded in chunks of this many (bounded memory
/// for N = 10^6).
pub(crate) const CHUNK: usize = 1 << 14;

/// The sum of the points (`None` for none), taken `CHUNK` at a time: memory
/// stays constant however large the recipient set (N = 10^6 would otherwise
/// be ~100 MB). |S| − 1 additions, as the op counts of Table 9 say.
pub(crate) fn sum_points<G: Group>(points: impl Iterator<Item = G::Affine>) -> Option<G> {
    let mut points = points.peekable();
    let mut acc: Option<G> = None;
    let mut buf = Vec::with_capacity(CHUNK.min(points.size_hint().0.max(1)));
    while points.peek().is_some() {
        buf.clear();
        buf.extend(points.by_ref().take(CHUNK));
        let part = G::sum_affine(&buf);
        acc = Some(acc.map_or(part, |a| a + part));
    }
    acc
}

/// The sum of secret points (a key's elements, `None` for none), in
/// constant-time mixed additions ([`Group::sum_affine_secret`]), `CHUNK` at
/// a time.
pub(crate) fn sum_secret_points<G: Group>(points: impl Iterator<Item = G::Affine>) -> Option<G> {
    let mut points = points.peekable();
    let mut acc: Option<G> = None;
    let mut buf = Vec::with_capacity(CHUNK.min(points.size_hint().0.max(1)));
    while points.peek().is_some() {
        buf.clear();
        buf.extend(points.by_ref().take(CHUNK));
        let part = G::sum_affine_secret(&buf);
        acc = Some(acc.map_or(part, |a| a + part));
    }
    let zero = G::to_affine_batch(&[G::identity()])[0];
    buf.iter_mut().for_each(|p| wipe(p, zero));
    acc
}

/// Encodes affine points (compressed), in parallel.
pub(crate) fn encode_affine<C: Curve, G: Group>(points: &[G::Affine], out: &mut Vec<u8>) {
    let chunks: Vec<&[G::Affine]> = points.chunks(1024).collect();
    let enc: Vec<Vec<u8>> = par_map::<C, _, _>(&chunks, |c| {
        let mut v = Vec::with_capacity(c.len() * G::COMPRESSED_BYTES);
        for a in c.iter() {
            v.extend_from_slice(&G::from_affine(a).to_compressed());
        }
        v
    });
    for e in enc {
        out.extend_from_slice(&e);
    }
}

/// Writes affine points (compressed, in parallel), `CHUNK` at a time.
pub(crate) fn write_affine<C: Curve, G: Group>(points: &[G::Affine], w: &mut Writer) {
    for chunk in points.chunks(CHUNK) {
        let mut bytes = Vec::with_capacity(chunk.len() * G::COMPRESSED_BYTES);
        encode_affine::<C, G>(chunk, &mut bytes);
        w.raw(&bytes);
    }
}

/// Strictly decodes `count` compressed points (in parallel) to affine form.
pub(crate) fn decode_affine<C: Curve, G: Group>(
    r: &mut Reader<'_>,
    count: usize,
    what: &'static str,
) -> Result<Vec<G::Affine>, WireError> {
    let len = count
        .checked_mul(G::COMPRESSED_BYTES)
        .ok_or(WireError::Truncated(what))?;
    let bytes = r.take(len, what)?;
    let chunks: Vec<&[u8]> = bytes.chunks(1024 * G::COMPRESSED_BYTES).collect();
    let dec: Vec<Result<Vec<G::Affine>, WireError>> = par_map::<C, _, _>(&chunks, |c| {
        let mut pts = Vec::with_capacity(c.len() / G::COMPRESSED_BYTES);
        for b in c.chunks_exact(G::COMPRESSED_BYTES) {
            pts.push(G::from_compressed(b)?);
        }
        Ok(G::to_affine_batch(&pts))
    });
    let mut out = Vec::with_capacity(count);
    for d in dec {
        out.extend(d?);
    }
    Ok(out)
}

/// An incremental setup id (the same value as [`crate::wire::setup_id`] over
/// the concatenated chunks), for public keys written as a stream.
pub(crate) struct SetupIdHasher(sha2::Sha256);

impl SetupIdHasher {
    pub(crate) fn new() -> Self {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        h.update(b"abbe/v1/setup-id");
        SetupIdHasher(h)
    }
    pub(crate) fn update(&mut self, b: &[u8]) {
        use sha2::Digest;
        self.0.update(b);
    }
    pub(crate) fn finish(self) -> [u8; 16] {
        use sha2::Digest;
        let d = self.0.finalize();
        let mut id = [0u8; 16];
        id.copy_from_slice(&d[..16]);
        id
    }
}

/// Checks 1 ≤ n ≤ MAX_USERS.
pub(crate) fn check_n(n: u32) -> Result<(), KemError> {
    if n == 0 || n > MAX_USERS {
        return Err(KemError::Invalid(format!(
            "the number of users must be in [1, {MAX_USERS}], got {n}"
        )));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

    /// A random subset of [1, n] with about `frac`·n members (at least one).
    pub fn random_set(n: u32, seed: u64, frac: f64) -> Recipients {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let mut v: Vec<u32> = (1..=n)
            .filter(|_| (r.next_u32() as f64 / u32::MAX as f64) < frac)
            .collect();
        if v.is_empty() {
            v.push(1 + r.next_u32() % n);
        }
        Recipients::from_indices(v).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipients_parse_and_print() {
        let s = Recipients::parse("3000-3100, 1-1000,2000 ,999-1001").unwrap();
        assert_eq!(s.ranges(), &[(1, 1001), (2000, 2000), (3000, 3100)]);
        assert_eq!(s.len(), 1001 + 1 + 101);
        assert_eq!(s.to_string(), "1-1001,2000,3000-3100");
        assert_eq!(Recipients::parse(&s.describe()).unwrap(), s);
        assert!(s.contains(2000) && !s.contains(1002) && s.contains(3100));
        assert_eq!(s.rank(1), Some(0));
        assert_eq!(s.rank(2000), Some(1001));
        assert_eq!(s.rank(3000), Some(1002));
        assert_eq!(s.rank(1500), None);
        assert_eq!(s.iter().count(), s.len());
        for bad in ["", "0", "a", "5-3", "1,,2", "1-", "-4", "99999999999"] {
            assert!(Recipients::parse(bad).is_err(), "{bad}");
        }
        assert!(s.check(3100).is_ok());
        assert!(s.check(3099).is_err());
        let mut w = Writer::body();
        s.encode(&mut w);
        let b = w.finish();
        assert_eq!(b.len(), s.encoded_len());
        assert_eq!(Recipients::decode(&mut Reader::new(&b), 3100).unwrap(), s);
        assert!(Recipients::decode(&mut Reader::new(&b), 3000).is_err());
        assert_eq!(UserIndex::parse(" 42 ").unwrap(), UserIndex(42));
        assert!(UserIndex::parse("0").is_err());
        assert!(UserIndex(5).check(4).is_err());
    }

    #[test]
    fn non_canonical_ranges_are_refused() {
        for ranges in [
            vec![(1u32, 2u32), (3, 4)],
            vec![(3, 4), (1, 1)],
            vec![(2, 1)],
            vec![],
        ] {
            let mut w = Writer::body();
            w.u32(ranges.len() as u32);
            for (a, b) in &ranges {
                w.u32(*a).u32(*b);
            }
            let b = w.finish();
            assert!(Recipients::decode(&mut Reader::new(&b), 100).is_err());
        }
    }
}
