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
