//! Where a key's passphrase comes from: the file named by
//! `ABBE_PASSPHRASE_FILE` (its first line), or else the terminal (asked
//! without echo; twice when protecting a new key). Without either the
//! command fails and says how to provide one; it never reads a passphrase
//! from stdin, which carries data.

use crate::{CliError, Result};
use std::io::{IsTerminal, Read};
use std::path::Path;
use zeroize::Zeroizing;

/// The environment variable naming a file whose first line is the passphrase.
pub const ENV: &str = "ABBE_PASSPHRASE_FILE";
/// A passphrase file's first line must end within this many bytes.
const MAX_LEN: usize = 4096;

/// The passphrase of an existing protected key (`path`, for the prompt).
pub fn for_reading(path: &Path) -> Result<Zeroizing<Vec<u8>>> {
    if let Some(p) = from_env()? {
        return Ok(p);
    }
    let what = path.display().to_string();
    need_terminal(&what)?;
    let p = prompt(&format!("abbe: passphrase for {what}: "))?;
    if p.is_empty() {
        return Err(CliError::Other("empty passphrase".into()));
    }
    Ok(p)
}

/// A new passphrase to protect `what` with (asked twice on a terminal).
pub fn for_creating(what: &str) -> Result<Zeroizing<Vec<u8>>> {
    if let Some(p) = from_env()? {
        return Ok(p);
    }
    need_terminal(what)?;
    let p = prompt(&format!("abbe: new passphrase for {what}: "))?;
    if p.is_empty() {
        return Err(CliError::Other("empty passphrase".into()));
    }
    let again = prompt("abbe: repeat the passphrase: ")?;
    if *again != *p {
        return Err(CliError::Other("the passphrases differ".into()));
    }
    Ok(p)
}

fn from_env() -> Result<Option<Zeroizing<Vec<u8>>>> {
    match std::env::var_os(ENV) {
        Some(f) if !f.is_empty() => from_file(Path::new(&f)).map(Some),
        _ => Ok(None),
    }
}

/// The first line of `path`, without its line end.
fn from_file(path: &Path) -> Result<Zeroizing<Vec<u8>>> {
    let cannot = |e: std::io::Error| {
        CliError::Other(format!(
            "cannot read the passphrase file {} (${ENV}): {e}",
            path.display()
        ))
    };
    let f = std::fs::File::open(path).map_err(cannot)?;
    let mut buf = Zeroizing::new(Vec::with_capacity(MAX_LEN + 1));
    f.take(MAX_LEN as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(cannot)?;
    let line_len = match buf.iter().position(|&b| b == b'\n') {
        Some(i) => i,
        None if buf.len() > MAX_LEN => {
            return Err(CliError::Other(format!(
                "the passphrase file {} (${ENV}) has a first line above {MAX_LEN} bytes",
                path.display()
            )))
        }
        None => buf.len(),
    };
    let mut line = &buf[..line_len];
    if let Some(l) = line.strip_suffix(b"\r") {
        line = l;
    }
    if line.is_empty() {
        return Err(CliError::Other(format!(
            "the passphrase file {} (${ENV}) is empty: its first line is the passphrase",
            path.display()
        )));
    }
    Ok(Zeroizing::new(line.to_vec()))
}

fn need_terminal(what: &str) -> Result<()> {
    if std::io::stdin().is_terminal() || std::io::stderr().is_terminal() {
        return Ok(());
    }
    Err(CliError::Other(format!(
        "{what} needs a passphrase and there is no terminal to ask on: set {ENV} to a file whose first line is the passphrase"
    )))
}

/// Asks on the terminal (/dev/tty) without echo.
fn prompt(text: &str) -> Result<Zeroizing<Vec<u8>>> {
    let s = Zeroizing::new(rpassword::prompt_password(text).map_err(|e| {
        CliError::Other(format!("cannot read a passphrase from the terminal: {e}"))
    })?);
    Ok(Zeroizing::new(s.as_bytes().to_vec()))
}
