//! File handling: bounded reads of key files, atomic writes (temp file in the
//! same directory + rename, so a failure or a signal leaves nothing behind;
//! an existing file replaced only with `--force`), and
//! stdin/stdout when no path is given. Ciphertext inputs are read through
//! [`open_ciphertext`], which accepts ASCII armor transparently and shows
//! progress for large inputs.

use crate::{interrupt, progress, CliError, Result};
use abbe::armor::ArmorWriter;
use abbe::wire::ObjectKind;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The largest key file read: BGW05's public key (and the user key bundles
/// that carry it) is linear in N — 1.28 GB at 10^7 users on BN254, 2.4 GB on
/// BLS12-381; anything larger is not a key.
const MAX_KEY_FILE: u64 = 4 << 30;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Secrecy {
    /// Mode 0600.
    Secret,
    /// Mode 0644.
    Public,
}

pub fn read_small_file(path: &Path) -> Result<Vec<u8>> {
    let f = File::open(path)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    // Sized up front: no reallocation leaves copies of a key behind.
    let len = f.metadata().map(|m| m.len()).unwrap_or(0).min(MAX_KEY_FILE);
    let mut buf = Vec::with_capacity(len as usize + 1);
    f.take(MAX_KEY_FILE + 1)
        .read_to_end(&mut buf)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    if buf.len() as u64 > MAX_KEY_FILE {
        return Err(CliError::Invalid(format!(
            "{} is too large to be a key",
            path.display()
        )));
    }
    Ok(buf)
}

#[allow(dead_code)] // every current caller wants the length too
pub fn open_input(path: Option<&PathBuf>) -> Result<Box<dyn Read>> {
    Ok(open_input_len(path)?.0)
}

/// Like [`open_input`], with the input's length when it is a file.
pub fn open_input_len(path: Option<&PathBuf>) -> Result<(Box<dyn Read>, Option<u64>)> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            let f = File::open(p)
                .map_err(|e| CliError::Other(format!("cannot read {}: {e}", p.display())))?;
            let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            Ok((Box::new(f), len))
        }
        _ => Ok((Box::new(std::io::stdin().lock()), None)),
    }
}

/// A ciphertext input (file or stdin), armored or not, with a progress
/// bar (`what`) when it is large and stderr is a terminal.
pub fn open_ciphertext(path: Option<&PathBuf>, what: &str) -> Result<Box<dyn Read>> {
    let (r, len) = open_input_len(path)?;
    let (r, _) = abbe::armor::dearmored(progress::reading(r, len, what))
        .map_err(|e| CliError::Other(format!("cannot read the input: {e}")))?;
    Ok(r)
}

/// Runs `write` against `w`, through an [`ArmorWriter`] labelled for
/// `kind` when `armor` is set (the END line is written on success).
pub fn maybe_armored<F>(w: &mut dyn Write, armor: bool, kind: ObjectKind, write: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> Result<()>,
{
    if !armor {
        return write(w);
    }
    let mut aw = ArmorWriter::new(w, kind);
    write(&mut aw)?;
    aw.finish()
        .map_err(|e| CliError::Other(format!("cannot write the output: {e}")))?;
    Ok(())
}

fn set_mode(f: &File, secrecy: Secrecy) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match secrecy {
            Secrecy::Secret => 0o600,
            Secrecy::Public => 0o644,
        };
        f.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (f, secrecy);
    Ok(())
}

/// Whether an output may replace an existing file: one rule for every
/// command that writes, `--force` or nothing is overwritten.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    Refuse,
    Allow,
}

impl Overwrite {
    /// The rule of a command's `--force` for its `outputs`, which are
    /// checked now, before any long work (and again by each write).
    pub fn checked<'a>(
        force: bool,
        outputs: impl IntoIterator<Item = &'a PathBuf>,
    ) -> Result<Overwrite> {
        if force {
            return Ok(Overwrite::Allow);
        }
        outputs
            .into_iter()
            .try_for_each(|p| Overwrite::Refuse.check(p))?;
        Ok(Overwrite::Refuse)
    }

    /// Refuses an existing `path` unless allowed; devices and pipes are
    /// written in place and never refused.
    fn check(self, path: &Path) -> Result<()> {
        if self == Overwrite::Allow {
            return Ok(());
        }
        // Through links: `-o /dev/stdout` (a link to a pipe or terminal) is
        // written in place; a link to a file, or a dangling one, is an
        // existing name the rename would replace.
        let exists = match std::fs::metadata(path) {
            Ok(meta) => meta.is_file(),
            Err(_) => std::fs::symlink_metadata(path).is_ok(),
        };
        if exists {
            return Err(already_exists(path));
        }
        Ok(())
    }
}

fn already_exists(path: &Path) -> CliError {
    CliError::Other(format!(
        "{} already exists (use --force to overwrite)",
        path.display()
    ))
}

/// Writes `path` atomically through `write`: a temporary file in the same
/// directory is renamed over `path` only if `write` succeeds, and removed
/// if a signal interrupts the command ([`crate::interrupt`]). An existing
/// file is replaced only with [`Overwrite::Allow`] (checked first, and again
/// by the rename itself). An existing `path` that is not a regular file
/// (`/dev/null`, a FIFO, a terminal) is written in place: renaming over it
/// would replace the device or pipe with a file (as root, `-o /dev/null`
/// did).
pub fn atomic<F>(path: &Path, secrecy: Secrecy, overwrite: Overwrite, write: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> Result<()>,
{
    let cannot =
        |e: std::io::Error| CliError::Other(format!("cannot write {}: {e}", path.display()));
    overwrite.check(path)?;
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() && !meta.is_dir() {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(cannot)?;
            let mut w = BufWriter::with_capacity(1 << 20, f);
            write(&mut w)?;
            return w.flush().map_err(cannot);
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".abbe-tmp-")
        .tempfile_in(&dir)
        .map_err(|e| CliError::Other(format!("cannot create a file in {}: {e}", dir.display())))?;
    let pending = interrupt::register(tmp.path());
    // NamedTempFile is created 0600; widen only public outputs.
    set_mode(tmp.as_file(), secrecy)
        .map_err(|e| CliError::Other(format!("cannot set permissions: {e}")))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file());
        write(&mut w)?;
        w.flush()
            .map_err(|e| CliError::Other(format!("cannot write {}: {e}", path.display())))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| CliError::Other(format!("cannot write {}: {e}", path.display())))?;
    // On error the temporary file is removed when `tmp` is dropped.
    pending
        .finish(|| match overwrite {
            Overwrite::Allow => tmp.persist(path).map(drop),
            Overwrite::Refuse => tmp.persist_noclobber(path).map(drop),
        })
        .map_err(|e| match e.error.kind() {
            std::io::ErrorKind::AlreadyExists => already_exists(path),
            _ => CliError::Other(format!("cannot write {}: {}", path.display(), e.error)),
        })
}

pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    secrecy: Secrecy,
    overwrite: Overwrite,
) -> Result<()> {
    atomic(path, secrecy, overwrite, |w| {
        w.write_all(bytes)
            .map_err(|e| CliError::Other(format!("cannot write {}: {e}", path.display())))
    })
}

/// Runs `write` against the output file (atomically) or stdout.
pub fn with_output<F>(
    path: Option<&PathBuf>,
    secrecy: Secrecy,
    overwrite: Overwrite,
    write: F,
) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> Result<()>,
{
    match path {
        Some(p) if p.as_os_str() != "-" => atomic(p, secrecy, overwrite, write),
        _ => {
            let stdout = std::io::stdout();
            let mut w = BufWriter::with_capacity(1 << 20, stdout.lock());
            write(&mut w)?;
            w.flush()
                .map_err(|e| CliError::Other(format!("cannot write to stdout: {e}")))
        }
    }
}

/// Refuses to write binary output (`what`) to stdout when stdout is a
/// terminal: it would garble the terminal and the ciphertext with it.
/// Armored output, `-o FILE` and pipes are fine.
pub fn refuse_binary_to_terminal(path: Option<&PathBuf>, armored: bool, what: &str) -> Result<()> {
    use std::io::IsTerminal;
    let to_stdout = path.is_none_or(|p| p.as_os_str() == "-");
    if to_stdout && !armored && std::io::stdout().is_terminal() {
        return Err(CliError::Other(format!(
            "refusing to write {what} to a terminal: use --armor, or -o FILE, or a pipe"
        )));
    }
    Ok(())
}
