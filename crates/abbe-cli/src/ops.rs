//! What the commands share beyond the library's facade: the header mode
//! flag and which flag carries the policy.

use crate::{CliError, Result};

/// How `encrypt` protects the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// CCA-secure (Fujisaki–Okamoto re-encryption check). The default.
    Cca,
    /// RCCA-secure and outsourceable (GHW11 §3.2/§4.2): a proxy can transform
    /// it, and the final decryption detects a lying proxy.
    Rcca,
    /// Only CPA-secure, outsourceable (GHW11's CPA scheme): for benchmarks.
    Cpa,
}

impl From<Mode> for abbe::facade::Mode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Cca => abbe::facade::Mode::Cca,
            Mode::Rcca => abbe::facade::Mode::Rcca,
            Mode::Cpa => abbe::facade::Mode::Cpa,
        }
    }
}

/// A flag that carries a key's or a ciphertext's side, the side kinds it
/// is for, and its value.
pub struct SideFlag {
    pub flag: &'static str,
    pub kinds: &'static [abbe::kem::SideKind],
    pub value: Option<String>,
}

/// What a side kind is and the flag that gives it, for messages.
fn side_wanted(kind: abbe::kem::SideKind) -> (&'static str, &'static str) {
    use abbe::kem::SideKind;
    match kind {
        SideKind::Attributes => ("attributes", "--attrs \"a, b, age = 42\""),
        SideKind::Policy => ("a policy", "--policy \"a and b\""),
        SideKind::User => ("a user index", "--user N"),
        SideKind::Users => ("a set of users", "--to \"1-100, 200\" or --to-file"),
        SideKind::Everyone => ("every user of the setup", "no recipient flag"),
        SideKind::Identity => ("an identity", "--identity alice@example.com"),
        SideKind::Identities => (
            "identities",
            "--to-identities \"alice@example.com, bob@example.com\" or --to-file",
        ),
    }
}

/// The one side flag of `flags` given for a scheme whose side is `kind`:
/// a flag for another kind of scheme is refused, naming the one this
/// scheme takes (policy and attributes swapped are left to
/// [`side_text`], which says which side of ABE takes which).
pub fn pick_side(
    scheme: &str,
    command: &str,
    kind: abbe::kem::SideKind,
    flags: Vec<SideFlag>,
) -> Result<Vec<SideFlag>> {
    use abbe::kem::SideKind;
    let given: Vec<SideFlag> = flags.into_iter().filter(|f| f.value.is_some()).collect();
    if given.len() > 1 {
        let names: Vec<&str> = given.iter().map(|f| f.flag).collect();
        return Err(CliError::Other(format!(
            "give one of {} to `abbe {command}`, not several",
            names.join(", ")
        )));
    }
    let abe = |k: SideKind| matches!(k, SideKind::Attributes | SideKind::Policy);
    if let Some(f) = given.first() {
        // A policy flag given for attributes (or the reverse) is the same
        // scheme family: the scheme's own parser says which it wanted.
        let fits = f.kinds.contains(&kind) || (abe(kind) && f.kinds.iter().any(|k| abe(*k)));
        if !fits {
            let (what, flag) = side_wanted(kind);
            let objects = if command == "keygen" {
                "keys"
            } else {
                "ciphertexts"
            };
            let (for_what, _) = side_wanted(f.kinds[0]);
            return Err(CliError::Other(format!(
                "{scheme} {objects} are made for {what} ({flag}); {} gives {for_what}, which {scheme} does not take",
                f.flag
            )));
        }
    }
    Ok(given)
}

/// The flag a broadcast side is given with, when it is missing.
pub fn missing_side(kind: abbe::kem::SideKind, command: &str) -> Option<CliError> {
    use abbe::kem::SideKind;
    let flag = match kind {
        SideKind::User => "--user N",
        SideKind::Users => "--to \"1-100, 200\" (or --to-file)",
        SideKind::Identity => "--identity alice@example.com",
        SideKind::Identities => {
            "--to-identities \"alice@example.com, bob@example.com\" (or --to-file)"
        }
        SideKind::Attributes | SideKind::Policy | SideKind::Everyone => return None,
    };
    Some(CliError::Other(format!("`abbe {command}` needs {flag}")))
}

/// The text of the side this scheme's `command` ("keygen" or "encrypt")
/// takes: the policy (`is_policy`) or the attributes/users. Checks that the
/// user put the policy on the side this scheme takes it.
pub fn side_text(
    is_policy: bool,
    scheme: &str,
    command: &str,
    policy: Option<String>,
    attrs: Option<String>,
) -> Result<String> {
    let (wanted, other) = if is_policy {
        (policy, attrs)
    } else {
        (attrs, policy)
    };
    let (what, flag, example) = if is_policy {
        ("a policy", "--policy", "\"a and b\"")
    } else {
        ("attributes", "--attrs", "\"a, b, age = 42\"")
    };
    let (objects, there) = if command == "keygen" {
        ("keys", "encrypt")
    } else {
        ("ciphertexts", "keygen")
    };
    let kind = if is_policy == (command == "keygen") {
        "key-policy"
    } else {
        "ciphertext-policy"
    };
    let (other_what, other_flag) = if is_policy {
        ("attributes go", "--attrs")
    } else {
        ("the policy goes", "--policy")
    };
    match (wanted, other) {
        (Some(v), _) => Ok(v),
        (None, Some(_)) => Err(CliError::Other(format!(
            "{scheme} is {kind} ABE: {objects} take {what} ({flag} {example}); {other_what} to `abbe {there} {other_flag}`"
        ))),
        (None, None) => Err(CliError::Other(format!("`abbe {command}` needs {what} ({flag} {example})"))),
    }
}
