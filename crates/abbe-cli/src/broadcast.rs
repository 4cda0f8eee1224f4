//! Broadcast-encryption specifics of the CLI: recipient files.

use crate::{CliError, Result};
use std::path::Path;

/// Largest recipient file read (indices are short; 10^7 users fit).
const MAX_INDEX_FILE: u64 = 256 << 20;

/// Reads a recipient file (at most [`MAX_INDEX_FILE`] bytes of UTF-8).
fn read_recipient_file(path: &Path) -> Result<String> {
    use std::io::Read;
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    let mut text = String::new();
    f.take(MAX_INDEX_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    if text.len() as u64 > MAX_INDEX_FILE {
        return Err(CliError::Invalid(format!(
            "{} is too large for a recipient list",
            path.display()
        )));
    }
    Ok(text)
}

/// Reads a file of identities, one per line (blank lines skipped), into the
/// `--to-identities` syntax; an identity cannot hold a comma.
pub fn read_identity_file(path: &Path) -> Result<String> {
    let text = read_recipient_file(path)?;
    let ids: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if let Some(bad) = ids.iter().find(|i| i.contains(',')) {
        return Err(CliError::Invalid(format!(
            "{}: the identity {bad:?} holds a comma, which identities cannot",
            path.display()
        )));
    }
    Ok(ids.join(","))
}

/// Reads a file of recipient indices and ranges into the `--to` syntax.
pub fn read_index_file(path: &Path) -> Result<String> {
    let text = read_recipient_file(path)?;
    Ok(text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(","))
}
