//! `abbe keygen`: a user key (attributes, a policy or a user index).

use crate::dispatch::{check_same_scheme, scheme_for};
use crate::keyfile::read_object;
use crate::{keyfile, ops, progress, Result};
use abbe::facade::Day;
use abbe::kem::{SideInput, SideKind};
use abbe::wire::ObjectKind;
use rand_core::OsRng;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The master key.
    #[arg(short = 'm', long)]
    master: PathBuf,
    /// Attributes, e.g. "doctor, cardiology, age = 42" (ciphertext-policy schemes).
    #[arg(short = 'a', long)]
    attrs: Option<String>,
    /// A policy, for key-policy schemes.
    #[arg(short = 'p', long)]
    policy: Option<String>,
    /// A user index i in [1, N], for broadcast schemes.
    #[arg(long)]
    user: Option<u32>,
    /// An identity (a UTF-8 string, e.g. alice@example.com), for
    /// identity-based broadcast schemes.
    #[arg(long)]
    identity: Option<String>,
    /// The setup's public key, for broadcast schemes: read instead of
    /// recomputed from the master key (BGW05's is O(N) group operations).
    #[arg(long)]
    public: Option<PathBuf>,
    /// Refuse a policy or attributes that name an attribute missing from
    /// these files: lists of the authority's attribute names (separated by
    /// commas or newlines; `name = value` and `#` comments allowed) or keys.
    /// Catches a misspelt name before it makes a file nobody can open.
    #[arg(long, value_name = "FILE")]
    check_against: Vec<PathBuf>,
    /// The key's last day, YYYY-MM-DD (UTC): it cannot open files encrypted
    /// after it (ABE schemes; without it, the key does not expire).
    #[arg(long, value_name = "DATE")]
    valid_until: Option<String>,
    /// Where to write the key.
    #[arg(short = 'o', long)]
    output: PathBuf,
    /// Write the key as ASCII armor.
    #[arg(long)]
    armor: bool,
    /// Protect the key with a passphrase (from $ABBE_PASSPHRASE_FILE or the terminal).
    #[arg(long)]
    passphrase: bool,
    /// Overwrite an existing output file.
    #[arg(short = 'f', long)]
    force: bool,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        master,
        attrs,
        policy,
        user,
        identity,
        public,
        check_against,
        valid_until,
        output,
        armor,
        passphrase,
        force,
    } = args;
    let overwrite = crate::io::Overwrite::checked(force, [&output])?;
    let until = valid_until.as_deref().map(Day::parse).transpose()?;
    let (pre, bytes) = read_object(&master, &[ObjectKind::MasterKey])?;
    let public = match &public {
        Some(p) => {
            let (ppre, pk) = read_object(p, &[ObjectKind::PublicKey])?;
            check_same_scheme(&ppre, &pre, "public key", "master key")?;
            Some(pk)
        }
        None => None,
    };
    let keys = keyfile::KeyOut::new(armor, passphrase, &output.display().to_string(), overwrite)?;
    // GW09 and Waters09 keys are O(N) (the lab's chhatrapati22 tables).
    let pb = user.map(|u| progress::spinner(format!("key for user {u}")));
    let scheme = scheme_for(&pre)?;
    let info = scheme.info();
    if public.is_some() && !matches!(info.key_side, SideKind::User | SideKind::Identity) {
        return Err(crate::CliError::Other(format!(
            "{} keys do not need the public key (--public is for broadcast schemes)",
            pre.scheme.name()
        )));
    }
    // Each side flag is for one kind of scheme: a user index given to an
    // ABE scheme would otherwise become an attribute named "5".
    let given = ops::pick_side(
        pre.scheme.name(),
        "keygen",
        info.key_side,
        vec![
            ops::SideFlag {
                flag: "--attrs",
                kinds: &[SideKind::Attributes],
                value: attrs,
            },
            ops::SideFlag {
                flag: "--policy",
                kinds: &[SideKind::Policy],
                value: policy,
            },
            ops::SideFlag {
                flag: "--user",
                kinds: &[SideKind::User],
                value: user.map(|u| u.to_string()),
            },
            ops::SideFlag {
                flag: "--identity",
                kinds: &[SideKind::Identity],
                value: identity,
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
    let is_policy = info.key_side == SideKind::Policy;
    if let (None, None, Some(e)) = (&attrs, &policy, ops::missing_side(info.key_side, "keygen")) {
        return Err(e);
    }
    let side = ops::side_text(is_policy, pre.scheme.name(), "keygen", policy, attrs)?;
    crate::vocabulary::check(&side, info.key_side, &check_against)?;
    let key = scheme.keygen_until(
        &bytes,
        SideInput::Text(&side),
        public.as_deref().map(|p| &p[..]),
        until,
        &mut OsRng,
    );
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    keys.write_secret(&output, &key?)
}
