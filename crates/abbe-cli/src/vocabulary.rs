//! `--check-against`: the attribute names in use, from a list the authority
//! publishes or from keys, so that a misspelt name in a policy or an
//! attribute list (`doctr`) is refused before it makes a file nobody can
//! open or a key that opens nothing.

use crate::{io, keyfile, CliError, Result};
use abbe::kem::SideKind;
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::{ObjectKind, Preamble};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Unknown names named in the message (with suggestions); the rest counted.
const SHOWN: usize = 8;

/// Refuses `side` (text of the given kind) if it names an attribute that
/// none of `lists` holds. No lists: nothing to check.
pub fn check(side: &str, kind: SideKind, lists: &[PathBuf]) -> Result<()> {
    if lists.is_empty() {
        return Ok(());
    }
    let used = match kind {
        SideKind::Policy => Policy::parse_any(side)
            .map_err(|e| e.with_input(side))?
            .names(),
        SideKind::Attributes => AttributeSet::parse(side)
            .map_err(|e| e.with_input(side))?
            .names(),
        _ => {
            return Err(CliError::Other(
                "--check-against checks attribute names: this scheme has none".into(),
            ))
        }
    };
    let mut known = BTreeSet::new();
    for list in lists {
        known.extend(names_in(list)?);
    }
    let unknown: Vec<&String> = used.iter().filter(|n| !known.contains(*n)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    // Suggestions cost a distance per known name: only for the names
    // shown, so a long policy against a long list stays cheap.
    let mut shown: Vec<String> = unknown
        .iter()
        .take(SHOWN)
        .map(|n| match closest(n, &known) {
            Some(k) => format!("'{n}' (did you mean '{k}'?)"),
            None => format!("'{n}'"),
        })
        .collect();
    if unknown.len() > SHOWN {
        shown.push(format!("and {} more", unknown.len() - SHOWN));
    }
    let unknown = shown;
    let what = match kind {
        SideKind::Policy => "the policy",
        _ => "the attribute list",
    };
    let lists: Vec<String> = lists.iter().map(|l| l.display().to_string()).collect();
    Err(CliError::Invalid(format!(
        "{what} names {}, not in {} (--check-against)",
        unknown.join(", "),
        lists.join(", ")
    )))
}

/// The attribute names of a list file (names or `name = value`, separated
/// by commas or newlines, `#` comments) or of an abbe key (its attributes,
/// or the names of its policy).
fn names_in(path: &Path) -> Result<Vec<String>> {
    let raw = io::read_small_file(path)?;
    if abbe::armor::is_armored(&raw) || Preamble::parse(&raw).is_ok() {
        return key_names(path);
    }
    let text = String::from_utf8(raw).map_err(|_| {
        CliError::Invalid(format!(
            "{}: neither an abbe key nor a UTF-8 list of attribute names",
            path.display()
        ))
    })?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(|l| l.split(','))
        .map(|item| {
            let name = item.split('=').next().unwrap_or("").trim();
            name.strip_prefix('"')
                .and_then(|n| n.strip_suffix('"'))
                .unwrap_or(name)
                .to_owned()
        })
        .filter(|n| !n.is_empty())
        .collect())
}

fn key_names(path: &Path) -> Result<Vec<String>> {
    let kinds = [ObjectKind::UserKey, ObjectKind::SchemeUserKey];
    let (_, bytes) = keyfile::read_object(path, &kinds)?;
    let fields = abbe::inspect::inspect(&bytes)?;
    let field = |name: &str| {
        fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| match &f.value {
                abbe::inspect::Value::Text(t) => t.clone(),
                _ => String::new(),
            })
    };
    if let Some(attrs) = field("attributes") {
        return Ok(AttributeSet::parse(&attrs)?.names());
    }
    if let Some(policy) = field("policy") {
        return Ok(Policy::parse_any(&policy)?.names());
    }
    Err(CliError::Invalid(format!(
        "{}: this key names no attributes (a broadcast key?)",
        path.display()
    )))
}

/// The known name `name` most likely misspells, if one is close.
fn closest<'k>(name: &str, known: &'k BTreeSet<String>) -> Option<&'k str> {
    let len = name.chars().count();
    known
        .iter()
        // The distance is at least the difference in length.
        .filter(|k| k.chars().count().abs_diff(len) <= 2)
        .map(|k| (strsim::levenshtein(name, k), k))
        .filter(|&(d, k)| d <= 2 && d < k.chars().count())
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_misspelling_is_matched_to_the_name_it_misses() {
        let k = known(&["doctor", "nurse", "cardiology"]);
        assert_eq!(closest("doctr", &k), Some("doctor"));
        assert_eq!(closest("cardiolgy", &k), Some("cardiology"));
        assert_eq!(closest("admin", &k), None);
        // A two-letter name is not "close" to every other short one.
        assert_eq!(closest("ab", &known(&["xy"])), None);
    }

    #[test]
    fn list_files_hold_names_values_and_comments() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("attrs.txt");
        std::fs::write(
            &f,
            "# the hospital's attributes\ndoctor, nurse\nage = 0  # numeric\n\"head of ward\"\n\n",
        )
        .unwrap();
        assert_eq!(
            names_in(&f).unwrap(),
            ["doctor", "nurse", "age", "head of ward"]
        );
        let list = [f];
        check("doctor and age >= 30", SideKind::Policy, &list).unwrap();
        check("\"head of ward\", age = 4", SideKind::Attributes, &list).unwrap();
        let e = check("doctr or nurse or admin", SideKind::Policy, &list)
            .unwrap_err()
            .message();
        assert!(
            e.starts_with("the policy names 'doctr' (did you mean 'doctor'?), 'admin', not in "),
            "{e}"
        );
        assert!(check("1-3", SideKind::Users, &list).is_err());
        // Many unknown names: the first few named, the rest counted.
        let many: Vec<String> = (0..20).map(|i| format!("x{i}")).collect();
        let e = check(&many.join(" or "), SideKind::Policy, &list)
            .unwrap_err()
            .message();
        assert!(e.contains("'x7', and 12 more, not in"), "{e}");
    }
}
