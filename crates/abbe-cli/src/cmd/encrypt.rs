//! `abbe encrypt`: a file or stdin to a policy, attributes or recipients.

use crate::dispatch::scheme_for;
use crate::keyfile::{open_public, read_signing_key};
use crate::{broadcast, io, ops, progress, CliError, Result};
use abbe::envelope;
use abbe::facade::Day;
use abbe::kem::{SideInput, SideKind};
use abbe::wire::ObjectKind;
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The public key.
    #[arg(long)]
    public: PathBuf,
    /// The access policy, for ciphertext-policy schemes, e.g. "(doctor and cardiology)
    /// or 2 of (nurse, ward25, age >= 30)". Infix, DET-ABE postfix ("A B 2of2") and
    /// AES4SeC formulas ("(A,B,2)") are accepted.
    #[arg(short = 'p', long)]
    policy: Option<String>,
    /// Attributes, for key-policy schemes.
    #[arg(short = 'a', long)]
    attrs: Option<String>,
    /// Recipients for broadcast schemes: indices and ranges, e.g. "1-1000,2000,3000-3100".
    #[arg(long)]
    to: Option<String>,
    /// Recipients for identity-based broadcast schemes: identities, e.g.
    /// "alice@example.com, bob@example.com".
    #[arg(long)]
    to_identities: Option<String>,
    /// A file of recipients: indices (whitespace, comma or newline separated,
    /// ranges allowed), or identities (one per line) for identity-based
    /// schemes.
    #[arg(long)]
    to_file: Option<PathBuf>,
    /// cca (the default), rcca (outsourceable through a proxy, checked), cpa
    /// (outsourceable, GHW11's CPA scheme; the default, and for some the only
    /// mode, of traitor-tracing schemes).
    #[arg(long, value_enum)]
    mode: Option<ops::Mode>,
    /// Refuse a policy or attributes that name an attribute missing from
    /// these files: lists of the authority's attribute names (separated by
    /// commas or newlines; `name = value` and `#` comments allowed) or keys.
    /// Catches a misspelt name before it makes a file nobody can open.
    #[arg(long, value_name = "FILE")]
    check_against: Vec<PathBuf>,
    /// ABE: no freshness condition, so keys past their --valid-until day
    /// open this file too (by default a file is dated today and they
    /// cannot).
    #[arg(long)]
    no_expiry: bool,
    /// ABE: date the file YYYY-MM-DD (UTC) instead of today: keys whose
    /// last day is before it cannot open it.
    #[arg(long, value_name = "DATE", conflicts_with = "no_expiry")]
    as_of: Option<String>,
    /// Sign the header and the whole plaintext with this signing key
    /// (`abbe signer-keygen`); the signature is encrypted with the data,
    /// so only readers who can decrypt learn who signed.
    #[arg(long, value_name = "KEY")]
    sign_with: Option<PathBuf>,
    /// Write the ciphertext as ASCII armor (BEGIN ABBE ENCRYPTED FILE).
    #[arg(long)]
    armor: bool,
    /// Output file (default: stdout).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(short = 'f', long)]
    force: bool,
    /// Input file (default: stdin).
    input: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        public,
        policy,
        attrs,
        to,
        to_identities,
        to_file,
        mode,
        check_against,
        no_expiry,
        as_of,
        sign_with,
        armor,
        output,
        force,
        input,
    } = args;
    let overwrite = io::Overwrite::checked(force, &output)?;
    let on = Day::of_file(no_expiry, as_of.as_deref())?;
    io::refuse_binary_to_terminal(output.as_ref(), armor, "a binary ciphertext")?;
    let (pre, src) = open_public(&public)?;
    let scheme = scheme_for(&pre)?;
    let info = scheme.info();
    // Each side flag is for one kind of scheme: `--to 1-3` given to an
    // identity-based scheme would otherwise name an identity "1-3".
    let identities = info.ciphertext_side == SideKind::Identities;
    let to_file = match to_file {
        Some(f) if identities => Some(broadcast::read_identity_file(&f)?),
        Some(f) if info.ciphertext_side == SideKind::Users => Some(broadcast::read_index_file(&f)?),
        Some(_) => {
            return Err(CliError::Other(format!(
            "{} ciphertexts are not for a list of recipients (--to-file is for broadcast schemes)",
            pre.scheme.name()
        )))
        }
        None => None,
    };
    let given = ops::pick_side(
        pre.scheme.name(),
        "encrypt",
        info.ciphertext_side,
        vec![
            ops::SideFlag {
                flag: "--policy",
                kinds: &[SideKind::Policy],
                value: policy,
            },
            ops::SideFlag {
                flag: "--attrs",
                kinds: &[SideKind::Attributes],
                value: attrs,
            },
            ops::SideFlag {
                flag: "--to",
                kinds: &[SideKind::Users, SideKind::Everyone],
                value: to,
            },
            ops::SideFlag {
                flag: "--to-identities",
                kinds: &[SideKind::Identities],
                value: to_identities,
            },
            ops::SideFlag {
                flag: "--to-file",
                kinds: &[SideKind::Users, SideKind::Identities],
                value: to_file,
            },
        ],
    )?;
    let (mut policy, mut attrs) = (None, None);
    for f in given {
        if f.flag == "--policy" {
            policy = f.value;
        } else {
            attrs = f.value;
        }
    }
    let is_policy = info.ciphertext_side == SideKind::Policy;
    // A scheme without recipient sets encrypts to everybody.
    let attrs = match (info.ciphertext_side, attrs) {
        (SideKind::Everyone, None) => Some("all".to_string()),
        (_, a) => a,
    };
    if let (None, None, Some(e)) = (
        &attrs,
        &policy,
        ops::missing_side(info.ciphertext_side, "encrypt"),
    ) {
        return Err(e);
    }
    let side = ops::side_text(is_policy, pre.scheme.name(), "encrypt", policy, attrs)?;
    crate::vocabulary::check(&side, info.ciphertext_side, &check_against)?;
    let mode = mode.map_or_else(|| info.default_mode(), Into::into);
    let (session, header) =
        scheme
            .public_key_at(src)?
            .encapsulate_on(SideInput::Text(&side), mode, on, &mut OsRng)?;
    let signer = sign_with.as_deref().map(read_signing_key).transpose()?;
    if let Some(s) = &signer {
        if s.curve() != pre.curve {
            return Err(CliError::Other(format!(
                    "the signing key is for level {} ({}), the public key for level {} ({}): make a signing key with `abbe signer-keygen --level {}`",
                    s.curve().level(),
                    s.curve().label(),
                    pre.curve.level(),
                    pre.curve.label(),
                    pre.curve.level()
                )));
        }
    }
    let (reader, len) = io::open_input_len(input.as_ref())?;
    let reader = progress::reading(reader, len, "encrypting");
    io::with_output(output.as_ref(), io::Secrecy::Public, overwrite, |w| {
        io::maybe_armored(w, armor, ObjectKind::EncryptedFile, |w| {
            let options = envelope::SealOptions {
                aead: None,
                signer: signer.as_ref(),
            };
            envelope::seal_with(&header, &session, &mut OsRng, reader, w, &options)?;
            Ok(())
        })
    })
}
