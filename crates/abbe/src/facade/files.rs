//! Whole files through the registry: encrypt, decrypt, and the session key
//! of a ciphertext file's head.

use super::{of_object, Error, Mode, PublicKey, Scheme, UserKey};
use crate::armor::unarmored;
use crate::bcast::Source;
use crate::curve::CurveId;
use crate::envelope::{self, EnvelopeError, SealOptions};
use crate::kem::{SessionKey, SideInput};
use crate::outsource;
use crate::wire::{ObjectKind, Preamble, SchemeId};
use rand_core::CryptoRngCore;
use std::io::{Read, Write};

/// Encrypts `input` to `output` for `target` (text, or a list of items:
/// [`SideInput`]) under the public key `pk`: a new session key, its header
/// (in `mode`), the payload; signed when `options.signer` is given. Returns
/// the plaintext length.
pub fn encrypt<'t>(
    pk: &[u8],
    target: impl Into<SideInput<'t>>,
    mode: Mode,
    input: impl Read,
    output: impl Write,
    options: &SealOptions<'_>,
    rng: &mut dyn CryptoRngCore,
) -> Result<u64, Error> {
    let pk = unarmored(pk)?;
    let pk = of_object(&pk)?.public_key(&pk)?;
    encrypt_with(&*pk, target, mode, input, output, options, rng)
}

/// [`encrypt`] under a public key decoded once ([`Scheme::public_key`]).
pub fn encrypt_with<'t>(
    pk: &dyn PublicKey,
    target: impl Into<SideInput<'t>>,
    mode: Mode,
    input: impl Read,
    output: impl Write,
    options: &SealOptions<'_>,
    rng: &mut dyn CryptoRngCore,
) -> Result<u64, Error> {
    let (session, header) = pk.encapsulate_for(target.into(), mode, rng)?;
    Ok(envelope::seal_with(
        &header,
        &session,
        &mut &mut *rng,
        input,
        output,
        options,
    )?)
}

/// Decrypts a ciphertext file from `input` to `output` with a user key
/// bundle. The output is written one authenticated chunk at a time: on
/// error, discard it. With `verify_with` (a verifying key), only a file
/// signed by it is accepted. A transformed file (with a retrieval key)
/// needs [`decrypt_expecting`]: its original must be named.
pub fn decrypt(
    key: &[u8],
    input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
) -> Result<envelope::Opened, Error> {
    decrypt_expecting(
        key,
        input,
        output,
        verify_with,
        &outsource::Expect::default(),
    )
}

/// [`decrypt`] with what a final outsourced decryption checks (`expect`):
/// a transformed file is decrypted with a retrieval key only as a
/// transformation of the original whose header id `expect` names, unless
/// `expect.any_original`.
pub fn decrypt_expecting(
    key: &[u8],
    input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
    expect: &outsource::Expect,
) -> Result<envelope::Opened, Error> {
    let key = unarmored(key)?;
    let mut input = crate::armor::dearmored(input).map_err(EnvelopeError::Io)?.0;
    let head = envelope::read_head(&mut input)?;
    let session = session_of(of_object(&key)?, &key, None, &head, expect)?;
    Ok(envelope::open_with(
        &head,
        &session,
        input,
        output,
        verify_with,
    )?)
}

/// What the proxy does to a file: transforms an outsourceable (RCCA or
/// CPA) ciphertext file with a transformation key, both armored or not; the
/// payload streams through unchanged. Decrypting the result with the
/// retrieval key finishes it.
pub fn transform(tk: &[u8], input: impl Read, output: impl Write) -> Result<(), Error> {
    let tk = unarmored(tk)?;
    let mut input = crate::armor::dearmored(input).map_err(EnvelopeError::Io)?.0;
    let head = envelope::read_head(&mut input)?;
    if head.preamble.kind != ObjectKind::EncryptedFile {
        return Err(Error::Invalid(
            "this ciphertext is already transformed".into(),
        ));
    }
    let transformed = super::transform_bytes(&tk, &head.header)?;
    envelope::write_transformed(&head, &transformed, input, output)?;
    Ok(())
}

/// Decrypts an original (not transformed) ciphertext file with a user key
/// decoded once ([`Scheme::user_key`]); as [`decrypt`] without
/// `allow_cpa`: a key bundle refuses CPA headers (a bare scheme key opens
/// only those).
pub fn decrypt_with(
    key: &dyn UserKey,
    input: impl Read,
    output: impl Write,
    verify_with: Option<&[u8]>,
) -> Result<envelope::Opened, Error> {
    let mut input = crate::armor::dearmored(input).map_err(EnvelopeError::Io)?.0;
    let head = envelope::read_head(&mut input)?;
    let info = key.info();
    same_setup((info.scheme, info.curve), &Preamble::parse(&head.header)?)?;
    if head.preamble.kind != ObjectKind::EncryptedFile {
        return Err(Error::Invalid(
            "this is a transformed ciphertext: decrypt it with the retrieval key".into(),
        ));
    }
    let session = key.decapsulate(&head.header, false)?;
    Ok(envelope::open_with(
        &head,
        &session,
        input,
        output,
        verify_with,
    )?)
}

/// Refuses a header of another scheme or curve than the key's.
pub(super) fn same_setup(key: (SchemeId, CurveId), header: &Preamble) -> Result<(), Error> {
    if key != (header.scheme, header.curve) {
        return Err(Error::Invalid(format!(
            "the key is for {} on {}, the ciphertext for {} on {}",
            key.0.name(),
            key.1.label(),
            header.scheme.name(),
            header.curve.label()
        )));
    }
    Ok(())
}

/// The session key of a ciphertext file's head: a user key of `scheme`
/// opens an original file, a retrieval key a transformed one (with
/// `expect`'s checks). Key and ciphertext must be of the same scheme and
/// curve.
pub fn session_of(
    scheme: &dyn Scheme,
    key: &[u8],
    public: Option<Source>,
    head: &envelope::Head,
    expect: &outsource::Expect,
) -> Result<SessionKey, Error> {
    let kp = Preamble::parse(key)?;
    same_setup((kp.scheme, kp.curve), &Preamble::parse(&head.header)?)?;
    if let (ObjectKind::EncryptedFile, Some(want)) = (head.preamble.kind, expect.header_id) {
        if super::header_id(&head.header)? != want {
            return Err(Error::Invalid(
                "this ciphertext's header id is not the one given with --expect-header".into(),
            ));
        }
    }
    match (head.preamble.kind, kp.kind) {
        (ObjectKind::EncryptedFile, ObjectKind::UserKey | ObjectKind::SchemeUserKey) => scheme
            .user_key_with(key, public)?
            .decapsulate(&head.header, expect.allow_cpa),
        (ObjectKind::TransformedFile, ObjectKind::RetrievalKey | ObjectKind::CpaRetrievalKey) => {
            Ok(super::decrypt_transformed_bytes(key, &head.header, expect)?)
        }
        (ObjectKind::TransformedFile, _) => Err(Error::Invalid(
            "this is a transformed ciphertext: decrypt it with the retrieval key (--key alice.rk)"
                .into(),
        )),
        _ => Err(Error::Invalid(
            "a retrieval key only decrypts transformed ciphertexts (run `abbe transform` first, or use the user key)".into(),
        )),
    }
}
