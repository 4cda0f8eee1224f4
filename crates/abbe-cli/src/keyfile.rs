//! Key files on disk: armor and passphrase protection, both read
//! transparently and written on request (`--armor`, `--passphrase`).

use crate::{io, passphrase, CliError, Result};
use abbe::armor;
use abbe::protect::{self, ProtectError};
use abbe::wire::{ObjectKind, Preamble};
use rand_core::OsRng;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The bytes of the key object in `path`: de-armored if armored, decrypted
/// (asking for the passphrase) if passphrase-protected and one of the
/// `expected` kinds is a secret key. The caller checks the kind.
/// Also returns the passphrase that unprotected it (`None` when it was not
/// protected).
pub fn read_unprotecting(
    path: &Path,
    expected: &[ObjectKind],
) -> Result<(SecretBytes, Option<SecretBytes>)> {
    let invalid = |m: String| CliError::Invalid(format!("{}: {m}", path.display()));
    let raw = Zeroizing::new(io::read_small_file(path)?);
    let bytes = if armor::is_armored(&raw) {
        armor::dearmor(&raw).map_err(|e| invalid(e.to_string()))?
    } else {
        raw
    };
    match Preamble::parse(&bytes) {
        Ok(p) if p.kind == ObjectKind::ProtectedKey => {}
        _ => return Ok((bytes, None)),
    }
    if !expected.iter().any(|k| k.is_secret_key()) {
        return Err(invalid(format!(
            "this is a passphrase-protected key, expected {}",
            kinds_text(expected)
        )));
    }
    // Layout and scrypt parameters are checked before asking.
    protect::inspect(&bytes).map_err(|e| invalid(e.to_string()))?;
    let pass = passphrase::for_reading(path)?;
    let key = protect::unprotect(&bytes, &pass).map_err(|e| match e {
        ProtectError::WrongPassphrase => invalid(e.to_string()),
        other => invalid(format!("corrupt passphrase-protected key: {other}")),
    })?;
    Ok((key, Some(pass)))
}

/// Secret bytes: a key, a passphrase.
type SecretBytes = Zeroizing<Vec<u8>>;

/// How to write a key: armored or not, protected or not, over an existing
/// file or not.
pub struct KeyOut {
    pub armor: bool,
    pub overwrite: io::Overwrite,
    passphrase: Option<Zeroizing<Vec<u8>>>,
}

impl KeyOut {
    /// A key written as another one was read: protected with the same
    /// passphrase (`None`: unprotected).
    pub fn with_passphrase(
        armor: bool,
        passphrase: Option<Zeroizing<Vec<u8>>>,
        overwrite: io::Overwrite,
    ) -> KeyOut {
        KeyOut {
            armor,
            overwrite,
            passphrase,
        }
    }

    /// With `protect`, gets the new passphrase for `what` now (before any
    /// long computation).
    pub fn new(armor: bool, protect: bool, what: &str, overwrite: io::Overwrite) -> Result<KeyOut> {
        Ok(KeyOut {
            armor,
            overwrite,
            passphrase: if protect {
                Some(passphrase::for_creating(what)?)
            } else {
                None
            },
        })
    }

    /// Writes the secret key object `obj` to `path` (mode 0600, atomic).
    pub fn write_secret(&self, path: &Path, obj: &[u8]) -> Result<()> {
        let protected;
        let obj = match &self.passphrase {
            Some(p) => {
                protected = protect::protect(obj, p, &mut OsRng).map_err(|e| {
                    CliError::Other(format!("cannot protect {}: {e}", path.display()))
                })?;
                &protected[..]
            }
            None => obj,
        };
        write(path, obj, self.armor, io::Secrecy::Secret, self.overwrite)
    }

    /// Writes the public object `obj` (armored if asked; never protected).
    pub fn write_public(&self, path: &Path, obj: &[u8]) -> Result<()> {
        write(path, obj, self.armor, io::Secrecy::Public, self.overwrite)
    }

    /// Writes a public key that `produce` hands, piece by piece, to the sink
    /// it is given (atomic, armored if asked, never whole in memory), and
    /// returns what `produce` returns.
    pub fn write_public_streamed<T>(
        &self,
        path: &Path,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<T>,
    ) -> Result<T> {
        let mut produced = None;
        io::atomic(path, io::Secrecy::Public, self.overwrite, |w| {
            io::maybe_armored(w, self.armor, ObjectKind::PublicKey, |w| {
                let mut failed = None;
                let value = produce(&mut |piece: &[u8]| {
                    if failed.is_none() {
                        failed = w.write_all(piece).err();
                    }
                })?;
                if let Some(e) = failed {
                    return Err(CliError::Other(format!(
                        "cannot write {}: {e}",
                        path.display()
                    )));
                }
                produced = Some(value);
                Ok(())
            })
        })?;
        produced.ok_or_else(|| CliError::Other(format!("nothing written to {}", path.display())))
    }
}

fn write(
    path: &Path,
    obj: &[u8],
    armored: bool,
    secrecy: io::Secrecy,
    overwrite: io::Overwrite,
) -> Result<()> {
    if !armored {
        return io::write_atomic(path, obj, secrecy, overwrite);
    }
    let text = Zeroizing::new(
        armor::armor(obj)
            .map_err(|e| CliError::Other(format!("cannot armor {}: {e}", path.display())))?,
    );
    io::write_atomic(path, &text, secrecy, overwrite)
}

/// Reads a key file (armored or not, passphrase-protected or not: see
/// `read_unprotecting`) and checks its preamble.
pub(crate) fn read_object(
    path: &std::path::Path,
    expected: &[ObjectKind],
) -> Result<(Preamble, zeroize::Zeroizing<Vec<u8>>)> {
    read_object_unprotecting(path, expected).map(|(pre, bytes, _)| (pre, bytes))
}

/// [`read_object`], with the passphrase that unprotected the key.
pub(crate) fn read_object_unprotecting(
    path: &std::path::Path,
    expected: &[ObjectKind],
) -> Result<(Preamble, SecretBytes, Option<SecretBytes>)> {
    let (bytes, pass) = read_unprotecting(path, expected)?;
    let pre = Preamble::parse(&bytes)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    if !expected.contains(&pre.kind) {
        return Err(CliError::Invalid(format!(
            "{}: this is a {}, expected {}",
            path.display(),
            pre.kind.describe(),
            kinds_text(expected)
        )));
    }
    Ok((pre, bytes, pass))
}

/// The public key in `path` as a source to read from: the file itself when
/// it is binary (BGW05's is then read element by element, never whole),
/// its de-armored bytes when armored.
pub(crate) fn open_public(path: &std::path::Path) -> Result<(Preamble, abbe::bcast::Source)> {
    use std::io::Read;
    let cannot =
        |e: std::io::Error| CliError::Other(format!("cannot read {}: {e}", path.display()));
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    let mut head = [0u8; abbe::wire::PREAMBLE_LEN];
    let binary = f.read_exact(&mut head).is_ok() && &head[..4] == b"ABBE";
    if !binary {
        let (pre, bytes) = read_object(path, &[ObjectKind::PublicKey])?;
        return Ok((pre, std::sync::Arc::new(bytes.to_vec())));
    }
    let pre = Preamble::parse(&head)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    if pre.kind != ObjectKind::PublicKey {
        return Err(CliError::Invalid(format!(
            "{}: this is a {}, expected a public key",
            path.display(),
            pre.kind.describe()
        )));
    }
    Ok((pre, std::sync::Arc::new(f)))
}

/// "a user decryption key or a retrieval key": each kind's name once,
/// without the parenthesised detail that tells its variants apart.
fn kinds_text(kinds: &[ObjectKind]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for k in kinds {
        let name = k.describe().split(" (").next().unwrap_or_default();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
        .iter()
        .map(|n| format!("a {n}"))
        .collect::<Vec<_>>()
        .join(" or ")
}

pub(crate) fn default_public_path(signing_key: &std::path::Path) -> PathBuf {
    match signing_key.extension() {
        Some(e) if e == "key" => signing_key.with_extension("pub"),
        _ => {
            let mut p = signing_key.as_os_str().to_owned();
            p.push(".pub");
            PathBuf::from(p)
        }
    }
}

pub(crate) fn read_signing_key(path: &std::path::Path) -> Result<abbe::signature::AnySigningKey> {
    let (_, bytes) = read_object(path, &[ObjectKind::SigningKey])?;
    abbe::signature::AnySigningKey::from_bytes(&bytes)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))
}

/// Reads a verifying-key file; returns the object's bytes.
pub(crate) fn read_verifying_key(path: &std::path::Path) -> Result<Vec<u8>> {
    let (_, bytes) = read_object(path, &[ObjectKind::VerifyingKey])?;
    abbe::signature::verifying_key_point(&bytes)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    Ok(bytes.to_vec())
}
