//! Key expiry by date: a key valid until day D opens a file encrypted on
//! day T only when T ≤ D, with no re-keying of anyone. The condition rides
//! on the scheme's own attributes and policies, so every ABE scheme gets
//! it unchanged.
//!
//! # Encoding
//!
//! A day is a count of days since 1970-01-01 in `WIDTH` = 16 bits (to
//! 2149-06-06), in UTC. "T ≤ D" is a range check, which a monotone policy
//! makes with the dyadic intervals of the day line (a binary tree over its
//! 2^16 days): one side holds the 16 intervals that contain its day
//! (`prefixes`: `abbe:<base>:<j>:<day >> j>` for j = 0…15), the other
//! asks for one of the ≤ 16 intervals that cover its range (`cover`).
//! Decryption uses one leaf of that OR.
//!
//! * CP-ABE: a key valid until D holds the intervals of D
//!   (`abbe:valid-until:…`); a key that does not expire holds
//!   `abbe:no-expiry` instead. A file encrypted on T asks for
//!   `P and (one interval covering [T, 2^16) or abbe:no-expiry)`.
//! * KP-ABE: a file encrypted on T carries the intervals of T
//!   (`abbe:encrypted-on:…`; a file without the freshness condition is
//!   dated 1970-01-01); a key valid until D has the policy
//!   `P and (one interval covering [0, D])`; a key that does not expire
//!   keeps `P`.
//!
//! The cost is in the ciphertext: up to 17 policy rows (CP) or 16
//! attributes (KP) more; the key holds 16 attributes more (CP) or up to 16
//! leaves (KP).
//!
//! # Assumptions
//!
//! The day is the encryptor's (its clock, in UTC): an encryptor chooses
//! who may read anyway, so it may also date a file earlier or leave the
//! condition out (`abbe encrypt --no-expiry`). A key opens every file
//! dated up to its last day, the files encrypted before it was issued
//! too; files encrypted before a key expired stay readable by it.
//! Attribute names beginning with `abbe:` are reserved for this encoding:
//! front ends refuse them in the attributes and policies users give.

use super::ast::Policy;
use super::attrs::AttributeSet;
use super::error::{ErrorKind, PolicyError};
use super::limits::MAX_LEAVES;

/// Bits of a day number.
const WIDTH: u32 = 16;
/// The prefix of every reserved attribute name.
pub const RESERVED: &str = "abbe:";
/// CP: what a key that does not expire holds.
const NO_EXPIRY: &str = "abbe:no-expiry";
const VALID_UNTIL: &str = "valid-until";
const ENCRYPTED_ON: &str = "encrypted-on";

/// A day: days since 1970-01-01 (UTC), below 2^16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day(u16);

impl Day {
    /// The day `YYYY-MM-DD` (a valid Gregorian date from 1970-01-01 to
    /// 2149-06-06).
    pub fn parse(text: &str) -> Result<Day, PolicyError> {
        let bad = || {
            PolicyError::new(
                ErrorKind::Argument,
                "a date YYYY-MM-DD from 1970-01-01 to 2149-06-06",
                format!("'{}'", super::lex::truncate(text, 40)),
            )
        };
        let parts: Vec<&str> = text.trim().split('-').collect();
        let [y, m, d] = parts[..] else {
            return Err(bad());
        };
        if y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return Err(bad());
        }
        let num = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| s.parse::<i64>().ok())
                .flatten()
        };
        let (Some(y), Some(m), Some(d)) = (num(y), num(m), num(d)) else {
            return Err(bad());
        };
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return Err(bad());
        }
        u16::try_from(days_from_civil(y, m, d))
            .map(Day)
            .map_err(|_| bad())
    }

    /// Today, by this machine's clock, in UTC.
    pub fn today() -> Result<Day, PolicyError> {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| clock_error("before 1970"))?
            .as_secs();
        u16::try_from(secs / 86_400)
            .map(Day)
            .map_err(|_| clock_error("after 2149-06-06"))
    }

    /// The day a file is dated: today, or `as_of` (YYYY-MM-DD), or none
    /// with `no_expiry` (no freshness condition). Both at once is refused.
    pub fn of_file(no_expiry: bool, as_of: Option<&str>) -> Result<Option<Day>, PolicyError> {
        match (no_expiry, as_of) {
            (true, Some(_)) => Err(PolicyError::new(
                ErrorKind::Argument,
                "either no expiry or a date for the file",
                "both",
            )),
            (true, None) => Ok(None),
            (false, Some(d)) => Day::parse(d).map(Some),
            (false, None) => Day::today().map(Some),
        }
    }
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (y, m, d) = civil_from_days(i64::from(self.0));
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

fn clock_error(what: &str) -> PolicyError {
    PolicyError::new(
        ErrorKind::Argument,
        "a clock between 1970 and 2149",
        format!("this machine's clock reads {what}"),
    )
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The Gregorian date of a day count (the inverse of [`days_from_civil`]).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// The name of the dyadic interval of level `j` (2^j days) numbered `k`.
fn interval(base: &str, j: u32, k: u32) -> String {
    format!("{RESERVED}{base}:{j}:{k}")
}

/// The 16 intervals that contain `day`, finest first.
fn prefixes(base: &str, day: Day) -> Vec<String> {
    let v = u32::from(day.0);
    (0..WIDTH).map(|j| interval(base, j, v >> j)).collect()
}

/// The fewest dyadic intervals (of at most 2^15 days) whose union is
/// [lo, hi]; at most 2·16 − 2, and at most 16 when lo = 0 or hi = 2^16 − 1.
fn cover(base: &str, lo: Day, hi: Day) -> Vec<String> {
    let (mut lo, hi) = (u32::from(lo.0), u32::from(hi.0));
    let mut out = Vec::new();
    while lo <= hi {
        let mut j = 0;
        while j + 1 < WIDTH && lo % (1 << (j + 1)) == 0 && lo + (1 << (j + 1)) - 1 <= hi {
            j += 1;
        }
        out.push(interval(base, j, lo >> j));
        lo += 1 << j;
    }
    out
}

fn any_of(mut leaves: Vec<String>) -> Policy {
    if leaves.len() == 1 {
        Policy::Attr(leaves.remove(0))
    } else {
        Policy::Or(leaves.into_iter().map(Policy::Attr).collect())
    }
}

/// `p AND condition`, within the leaf limit.
fn both(p: Policy, condition: Policy) -> Result<Policy, PolicyError> {
    let (n, extra) = (p.expanded_leaf_count(), condition.expanded_leaf_count());
    if n.saturating_add(extra) > MAX_LEAVES {
        return Err(PolicyError::new(
            ErrorKind::Limit,
            format!(
                "at most {} leaves, to leave room for the {extra} of the expiry condition (encrypt --no-expiry, or a key without --valid-until, has none)",
                MAX_LEAVES - extra
            ),
            format!("{n} leaves"),
        ));
    }
    Policy::And(vec![p, condition]).normalize()
}

/// Fails on a name the user gave that begins with [`RESERVED`].
pub fn refuse_reserved<'a>(names: impl IntoIterator<Item = &'a String>) -> Result<(), PolicyError> {
    for n in names {
        if n.get(..RESERVED.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(RESERVED))
        {
            return Err(PolicyError::new(
                ErrorKind::Name,
                "no attribute name beginning with 'abbe:' (reserved for key expiry: keygen --valid-until, encrypt --no-expiry)",
                format!("'{}'", super::lex::truncate(n, 40)),
            ));
        }
    }
    Ok(())
}

/// CP-ABE: the attributes of a key valid until `until` (`None`: it does
/// not expire).
pub fn cp_key(attrs: AttributeSet, until: Option<Day>) -> Result<AttributeSet, PolicyError> {
    refuse_reserved(&attrs.names())?;
    let mut attrs = attrs;
    match until {
        Some(d) => prefixes(VALID_UNTIL, d)
            .iter()
            .try_for_each(|a| attrs.insert(a))?,
        None => attrs.insert(NO_EXPIRY)?,
    }
    Ok(attrs)
}

/// CP-ABE: the policy of a file encrypted on `on` (`None`: no condition).
pub fn cp_ciphertext(policy: Policy, on: Option<Day>) -> Result<Policy, PolicyError> {
    refuse_reserved(&policy.names())?;
    let Some(t) = on else { return Ok(policy) };
    let mut leaves = cover(VALID_UNTIL, t, Day(u16::MAX));
    leaves.push(NO_EXPIRY.into());
    both(policy, any_of(leaves))
}

/// KP-ABE: the policy of a key valid until `until` (`None`: it does not
/// expire).
pub fn kp_key(policy: Policy, until: Option<Day>) -> Result<Policy, PolicyError> {
    refuse_reserved(&policy.names())?;
    match until {
        Some(d) => both(policy, any_of(cover(ENCRYPTED_ON, Day(0), d))),
        None => Ok(policy),
    }
}

/// KP-ABE: the attributes of a file encrypted on `on` (`None`: dated
/// 1970-01-01, which every key's last day is on or after, since an
/// expiring key's policy asks for a date).
pub fn kp_ciphertext(attrs: AttributeSet, on: Option<Day>) -> Result<AttributeSet, PolicyError> {
    refuse_reserved(&attrs.names())?;
    let mut attrs = attrs;
    prefixes(ENCRYPTED_ON, on.unwrap_or(Day(0)))
        .iter()
        .try_for_each(|a| attrs.insert(a))?;
    Ok(attrs)
}

/// The day a CP key's or a KP file's intervals (`prefixes`) hold.
fn day<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<Day> {
    intervals(names)
        .into_iter()
        .find(|(j, _)| *j == 0)
        .map(|(_, k)| k)?
        .try_into()
        .ok()
        .map(Day)
}

/// The first day a cover asks for (a CP file's [T, 2^16)).
fn first_day<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<Day> {
    let d = intervals(names).into_iter().map(|(j, k)| k << j).min()?;
    u16::try_from(d).ok().map(Day)
}

/// The last day a cover asks for (a KP key's [0, D]).
fn last_day<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<Day> {
    let d = intervals(names)
        .into_iter()
        .map(|(j, k)| ((k + 1) << j) - 1)
        .max()?;
    u16::try_from(d).ok().map(Day)
}

/// What a key or a ciphertext says about expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dated {
    /// Nothing: a side of a scheme without dates, a KP key that does not
    /// expire, a file encrypted with `--no-expiry`.
    None,
    /// A CP key that does not expire (`abbe:no-expiry`).
    NoExpiry,
    /// A key's last day.
    Until(Day),
    /// A KP file's day.
    On(Day),
    /// A CP file's day: its policy asks for keys valid on it (or that do
    /// not expire).
    Asks(Day),
}

impl Dated {
    /// A CP key's attributes (its last day, or no expiry) or a KP file's
    /// (its day).
    pub fn of_attributes<'a>(names: impl IntoIterator<Item = &'a str>) -> Dated {
        let names: Vec<&str> = names.into_iter().collect();
        if names.contains(&NO_EXPIRY) {
            return Dated::NoExpiry;
        }
        match (pick(&names, VALID_UNTIL), pick(&names, ENCRYPTED_ON)) {
            (Some(d), _) => day(d).map_or(Dated::None, Dated::Until),
            (None, Some(t)) => day(t).map_or(Dated::None, Dated::On),
            _ => Dated::None,
        }
    }

    /// A CP file's policy (its day) or a KP key's (its last day).
    pub fn of_policy(names: &[String]) -> Dated {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        match (pick(&names, VALID_UNTIL), pick(&names, ENCRYPTED_ON)) {
            (Some(t), _) => first_day(t).map_or(Dated::None, Dated::Asks),
            (None, Some(d)) => last_day(d).map_or(Dated::None, Dated::Until),
            _ => Dated::None,
        }
    }

    /// The `inspect` line for a key (`as_key`) or a ciphertext of an ABE
    /// scheme with dates.
    pub fn describe(self, as_key: bool) -> String {
        match (self, as_key) {
            (Dated::Until(d), _) => format!("valid until {d} (opens the files dated up to it)"),
            (Dated::NoExpiry | Dated::None, true) => "does not expire".into(),
            (Dated::On(Day(0)), false) => "undated (--no-expiry): expired keys open it too".into(),
            (Dated::On(t) | Dated::Asks(t), _) => {
                format!("dated {t}: keys whose last day is before it cannot open it")
            }
            (_, false) => "undated (--no-expiry): expired keys open it too".into(),
        }
    }
}

/// Why a key whose attributes fit cannot open a file, when expiry is the
/// reason: the file is dated after the key's last day, or the file is
/// dated and the key (a CP key made before key expiry) holds neither a
/// last day nor `abbe:no-expiry`.
pub fn why_refused(key: Dated, file: Dated) -> Option<String> {
    match (key, file) {
        (Dated::Until(d), Dated::On(t) | Dated::Asks(t)) if t > d => Some(format!(
            "your key expired: its last day was {d}, and this file was encrypted on {t} (files encrypted up to {d} still open)"
        )),
        (Dated::None, Dated::Asks(t)) => Some(format!(
            "this file was encrypted on {t} for keys that say how long they are valid, and your key predates key expiry: ask for a new key, or have the file encrypted with --no-expiry"
        )),
        _ => None,
    }
}

/// `policy` without the expiry condition [`cp_ciphertext`] or [`kp_key`]
/// added (for display).
pub fn without_condition(policy: &Policy) -> Policy {
    let reserved = |p: &Policy| p.names().iter().all(|n| n.starts_with(RESERVED));
    match policy {
        Policy::And(children) => {
            let mut kept: Vec<Policy> = children.iter().filter(|c| !reserved(c)).cloned().collect();
            match kept.len() {
                1 => kept.remove(0),
                n if n == children.len() => policy.clone(),
                _ => Policy::And(kept),
            }
        }
        _ => policy.clone(),
    }
}

/// The names of the intervals of `base`.
fn pick<'a>(names: &[&'a str], base: &str) -> Option<Vec<&'a str>> {
    let prefix = format!("{RESERVED}{base}:");
    let v: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with(&prefix))
        .collect();
    (!v.is_empty()).then_some(v)
}

/// The (level, number) of every reserved interval name among `names`.
fn intervals<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(u32, u32)> {
    names
        .into_iter()
        .filter_map(|n| {
            let rest = n.strip_prefix(RESERVED)?;
            let (_, level) = rest.split_once(':')?;
            let (j, k) = level.split_once(':')?;
            let (j, k): (u32, u32) = (j.parse().ok()?, k.parse().ok()?);
            (j < WIDTH && k < (1 << (WIDTH - j))).then_some((j, k))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn dates_round_trip_and_bad_ones_are_refused() {
        for (text, n) in [
            ("1970-01-01", 0),
            ("2000-02-29", 11_016),
            ("2026-11-29", 20_786),
            ("2149-06-06", 65_535),
        ] {
            let d = Day::parse(text).unwrap();
            assert_eq!(d.0, n, "{text}");
            assert_eq!(d.to_string(), text);
        }
        for bad in [
            "2149-06-07",
            "1969-12-31",
            "2026-02-29",
            "2026-13-01",
            "2026-1-01",
            "26-01-01",
            "2026-01-01T00",
            "+026-01-01",
            "",
        ] {
            assert!(Day::parse(bad).is_err(), "{bad}");
        }
        assert!(Day::today().unwrap() > Day::parse("2026-01-01").unwrap());
        super::super::ast::validate_name(NO_EXPIRY).unwrap();
        super::super::ast::validate_name(&interval(VALID_UNTIL, 15, 1)).unwrap();
    }

    #[test]
    fn reserved_names_are_refused_in_any_case() {
        let set = AttributeSet::parse("doctor, ABBE:no-expiry").unwrap();
        assert!(cp_key(set, None).is_err());
        let p = Policy::parse("doctor and abbe:valid-until:0:1").unwrap();
        assert!(cp_ciphertext(p.clone(), None).is_err());
        assert!(kp_key(p, None).is_err());
        let set = AttributeSet::parse("abbe:x = 3").unwrap();
        assert!(kp_ciphertext(set, None).is_err());
    }

    fn cp_opens(until: Option<u16>, on: Option<u16>) -> bool {
        let key = cp_key(AttributeSet::parse("doctor").unwrap(), until.map(Day)).unwrap();
        let policy = cp_ciphertext(Policy::parse("doctor").unwrap(), on.map(Day)).unwrap();
        policy.to_tree().unwrap().is_satisfied(&key)
    }

    fn kp_opens(until: Option<u16>, on: Option<u16>) -> bool {
        let key = kp_key(Policy::parse("doctor").unwrap(), until.map(Day)).unwrap();
        let attrs = kp_ciphertext(AttributeSet::parse("doctor").unwrap(), on.map(Day)).unwrap();
        key.to_tree().unwrap().is_satisfied(&attrs)
    }

    proptest! {
        /// A key opens a dated file exactly when the file's day is not
        /// after the key's last day; undated keys and undated files always.
        #[test]
        fn a_key_opens_exactly_the_files_up_to_its_last_day(
            until in proptest::option::of(any::<u16>()),
            on in proptest::option::of(any::<u16>()),
        ) {
            let expect = match (until, on) {
                (Some(d), Some(t)) => t <= d,
                _ => true,
            };
            prop_assert_eq!(cp_opens(until, on), expect);
            prop_assert_eq!(kp_opens(until, on), expect);
        }

        /// The cover is exact and small, and the dates read back.
        #[test]
        fn covers_are_exact_and_small(a in any::<u16>(), b in any::<u16>()) {
            let (lo, hi) = (a.min(b), a.max(b));
            let c = cover("t", Day(lo), Day(hi));
            prop_assert!(c.len() <= 30);
            for probe in [lo, hi, lo / 2 + hi / 2, 0, u16::MAX] {
                let inside = (lo..=hi).contains(&probe);
                let hit = prefixes("t", Day(probe)).iter().any(|p| c.contains(p));
                prop_assert_eq!(hit, inside, "{} in [{}, {}]", probe, lo, hi);
            }
            prop_assert_eq!(first_day(c.iter().map(String::as_str)), Some(Day(lo)));
            prop_assert_eq!(last_day(c.iter().map(String::as_str)), Some(Day(hi)));
            let p = prefixes("t", Day(a));
            prop_assert_eq!(day(p.iter().map(String::as_str)), Some(Day(a)));
        }
    }

    /// Each side says its date, and only expiry is blamed for expiry.
    #[test]
    fn sides_say_their_dates() {
        let (d, t) = (Day(20_000), Day(20_421));
        let key = cp_key(AttributeSet::parse("a").unwrap(), Some(d)).unwrap();
        let never = cp_key(AttributeSet::parse("a").unwrap(), None).unwrap();
        let file = cp_ciphertext(Policy::parse("a").unwrap(), Some(t)).unwrap();
        let (key, never) = (
            Dated::of_attributes(key.iter()),
            Dated::of_attributes(never.iter()),
        );
        let file = Dated::of_policy(&file.attributes());
        assert_eq!(
            (key, never, file),
            (Dated::Until(d), Dated::NoExpiry, Dated::Asks(t))
        );
        assert!(why_refused(key, file).unwrap().contains("expired"));
        assert_eq!(why_refused(never, file), None);
        let old = Dated::of_attributes(AttributeSet::parse("a").unwrap().iter());
        assert!(why_refused(old, file).unwrap().contains("predates"));
        assert_eq!(why_refused(Dated::Until(t), file), None);
        let kp_key = kp_key(Policy::parse("a").unwrap(), Some(d)).unwrap();
        let kp_file = kp_ciphertext(AttributeSet::parse("a").unwrap(), Some(t)).unwrap();
        let (kk, kf) = (
            Dated::of_policy(&kp_key.attributes()),
            Dated::of_attributes(kp_file.iter()),
        );
        assert_eq!((kk, kf), (Dated::Until(d), Dated::On(t)));
        assert!(why_refused(kk, kf).unwrap().contains("expired"));
        // A KP key that does not expire is refused for its policy alone.
        assert_eq!(why_refused(Dated::None, kf), None);
    }

    #[test]
    fn the_condition_is_hidden_from_display() {
        for text in [
            "doctor",
            "doctor and nurse",
            "doctor or nurse",
            "2 of (a, b, c)",
        ] {
            let p = Policy::parse(text).unwrap();
            let dated = cp_ciphertext(p.clone(), Some(Day(20_786))).unwrap();
            assert_eq!(without_condition(&dated), p);
            let key = kp_key(p.clone(), Some(Day(20_786))).unwrap();
            assert_eq!(without_condition(&key), p);
        }
    }

    #[test]
    fn one_sided_covers_have_at_most_16_intervals() {
        for t in [1u16, 20_421, 32_767, 32_768, 65_534, u16::MAX] {
            assert!(cover("t", Day(t), Day(u16::MAX)).len() <= 16);
            assert!(cover("t", Day(0), Day(t)).len() <= 16);
        }
    }
}
