//! `abbe decrypt`: a ciphertext with a user key, a transformed ciphertext
//! with a retrieval key, or a ciphertext through a proxy.

use crate::dispatch::{check_same_scheme, scheme_for};
use crate::keyfile::{open_public, read_object, read_verifying_key};
use crate::{io, proxy, CliError, Result};
use abbe::envelope;
use abbe::wire::ObjectKind;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A user key, or a retrieval key for a transformed ciphertext or --proxy.
    #[arg(short = 'k', long)]
    key: PathBuf,
    /// The setup's public key, which broadcast keys decrypt with (their
    /// key files do not carry it); BGW05's is read only where a decryption
    /// needs it.
    #[arg(long, value_name = "PUBLIC KEY")]
    public: Option<PathBuf>,
    /// An outsourcing proxy (`abbe proxy serve`), e.g. http://127.0.0.1:8700 or https://...
    #[arg(long, requires = "tk_id")]
    proxy: Option<String>,
    /// The id of your transformation key on the proxy (`abbe proxy register`).
    #[arg(long, requires = "proxy")]
    tk_id: Option<String>,
    /// Trust only the CA certificate(s) of this PEM file for an https:// proxy (default: Mozilla's roots).
    #[arg(long, value_name = "FILE", requires = "proxy")]
    proxy_ca: Option<PathBuf>,
    /// A file holding your tenant's bearer token (default: $ABBE_PROXY_TOKEN).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Require a valid signature by this verifying key (`abbe
    /// signer-keygen`): unsigned files and files signed by anyone else are
    /// refused. (A signature that is present is always checked.)
    #[arg(long, value_name = "PUBLIC KEY")]
    verify_with: Option<PathBuf>,
    /// Accept a CPA ciphertext or CPA transformation (`encrypt --mode
    /// cpa`): nothing checks those, so whoever made it chose its content.
    #[arg(long)]
    allow_cpa: bool,
    /// The original ciphertext a transformed file must be a transformation
    /// of (its header is read; a proxy that returns whole transformed files
    /// could otherwise substitute any ciphertext it can create). A
    /// transformed file needs this, --expect-header or --any-original.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["expect_header", "any_original", "proxy"])]
    original: Option<PathBuf>,
    /// The header id of that original (`abbe inspect --json FILE` prints it
    /// as `header_id`), when the original is not at hand.
    #[arg(long, value_name = "HEADER ID", conflicts_with = "any_original")]
    expect_header: Option<String>,
    /// Decrypt a transformed file of whatever ciphertext the proxy chose,
    /// unchecked.
    #[arg(long)]
    any_original: bool,
    /// Where to write the plaintext (default: stdout); written only once
    /// all of it is authentic.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(short = 'f', long)]
    force: bool,
    /// The ciphertext or transformed file (armored or binary; default:
    /// stdin).
    input: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let Args {
        key,
        public,
        proxy: proxy_url,
        tk_id,
        proxy_ca,
        token_file,
        verify_with,
        allow_cpa,
        original,
        expect_header,
        any_original,
        output,
        force,
        input,
    } = args;
    let overwrite = io::Overwrite::checked(force, &output)?;
    let expect_header = match original {
        Some(path) => Some(original_header_id(&path)?),
        None => expect_header,
    };
    let mut expect = expected(expect_header.as_deref(), allow_cpa)?;
    expect.any_original = any_original;
    let verify_with = verify_with.as_deref().map(read_verifying_key).transpose()?;
    if let (Some(url), Some(id)) = (proxy_url, tk_id) {
        let client = proxy::client(&url, token_file.as_deref(), proxy_ca.as_deref())?;
        return proxy::decrypt(
            &key,
            &client,
            &id,
            verify_with.as_deref(),
            &expect,
            (output, overwrite),
            input,
        );
    }
    let (kpre, kbytes) = read_object(
        &key,
        &[
            ObjectKind::UserKey,
            ObjectKind::SchemeUserKey,
            ObjectKind::RetrievalKey,
            ObjectKind::CpaRetrievalKey,
        ],
    )?;
    let mut reader = io::open_ciphertext(input.as_ref(), "decrypting")?;
    let head = envelope::read_head(&mut reader)?;
    let public = match &public {
        Some(p) => {
            let (ppre, src) = open_public(p)?;
            check_same_scheme(&ppre, &kpre, "public key", "key")?;
            Some(src)
        }
        None => None,
    };
    let session = abbe::facade::session_of(scheme_for(&kpre)?, &kbytes, public, &head, &expect)
        .map_err(|e| CliError::from(e).for_key_of(kpre.scheme))?;
    open_payload(
        &head,
        &session,
        reader,
        verify_with.as_deref(),
        output.as_ref(),
        overwrite,
    )
}

/// Decrypts the payload to the output (atomically, or stdout), checking a
/// signature that is present and requiring one by `verify_with` if given;
/// says who signed on stderr.
pub(crate) fn open_payload(
    head: &envelope::Head,
    session: &abbe::kem::SessionKey,
    reader: impl std::io::Read,
    verify_with: Option<&[u8]>,
    output: Option<&PathBuf>,
    overwrite: io::Overwrite,
) -> Result<()> {
    if verify_with.is_some() && output.is_none() && head.is_signed() && !head.signer_known_first() {
        // Its signer is known only after the last byte, and a stream cannot
        // take back what it already wrote.
        return Err(CliError::Invalid(
            "this file has the first signed layout, whose signer is known only at its end: with --verify-with, decrypt it to a file (-o), which is written only once the signer is verified".into(),
        ));
    }
    let mut signer = None;
    io::with_output(output, io::Secrecy::Secret, overwrite, |w| {
        signer = envelope::open_with(head, session, reader, w, verify_with)?.signer;
        Ok(())
    })?;
    if let Some(s) = signer {
        let how = if verify_with.is_some() {
            "verified"
        } else {
            "valid; pass --verify-with to require this signer"
        };
        eprintln!("abbe: signed by {} ({how})", s.fingerprint);
    }
    Ok(())
}

/// The checks of a final outsourced decryption: `--expect-header` (64 hex
/// digits, as `abbe inspect` prints them) and `--allow-cpa`.
pub(crate) fn expected(
    header_id: Option<&str>,
    allow_cpa: bool,
) -> Result<abbe::outsource::Expect> {
    let header_id = header_id
        .map(|h| {
            let h = h.trim();
            let bytes: Option<Vec<u8>> = (h.len() == 64 && h.is_ascii())
                .then(|| {
                    (0..32)
                        .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
                        .collect()
                })
                .flatten();
            bytes
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .ok_or_else(|| {
                    CliError::Other(format!(
                        "--expect-header takes the 64 hex digits of a header id (`abbe inspect` prints it), not '{h}'"
                    ))
                })
        })
        .transpose()?;
    Ok(abbe::outsource::Expect {
        header_id,
        allow_cpa,
        ..abbe::outsource::Expect::default()
    })
}

/// The header id (hex) of the original ciphertext file at `path`.
fn original_header_id(path: &std::path::Path) -> Result<String> {
    let mut reader = io::open_ciphertext(Some(&path.to_path_buf()), "reading --original")?;
    let head = envelope::read_head(&mut reader)?;
    if head.preamble.kind != ObjectKind::EncryptedFile {
        return Err(CliError::Invalid(format!(
            "--original {}: a transformed file; give the ciphertext it was made from",
            path.display()
        )));
    }
    let id = abbe::facade::header_id(&head.header)
        .map_err(|e| CliError::Invalid(format!("--original {}: {e}", path.display())))?;
    Ok(abbe::wire::hex(&id))
}

/// Refuses an original ciphertext's KEM header whose header id is not the
/// one given with `--expect-header` (if one was).
pub(crate) fn check_expected_header(header: &[u8], expect: &abbe::outsource::Expect) -> Result<()> {
    let Some(want) = expect.header_id else {
        return Ok(());
    };
    let id = abbe::facade::header_id(header)?;
    if id != want {
        return Err(CliError::Invalid(
            "this ciphertext's header id is not the one given with --expect-header".into(),
        ));
    }
    Ok(())
}
