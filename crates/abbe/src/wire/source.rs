//! Encoded bytes read at any offset ([`RandomAccess`]): an object in memory
//! or in a file, read with positioned reads. Large public keys are opened
//! from a [`Source`] and read element by element (`crate::bcast::table`).

use super::WireError;
use std::sync::Arc;

/// Bytes that can be read at any offset: an encoded object in memory or in
/// a file (read with positioned reads, never mapped).
pub trait RandomAccess: Send + Sync {
    /// Total length in bytes.
    fn size(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`; an error if they are not all
    /// there.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
}

impl RandomAccess for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(buf.len())
            .and_then(|end| self.get(start..end))
        {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(std::io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

impl RandomAccess for std::fs::File {
    fn size(&self) -> u64 {
        self.metadata().map(|m| m.len()).unwrap_or(0)
    }
    #[cfg(unix)]
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    #[cfg(windows)]
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(self, buf, offset)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
            }
        }
        Ok(())
    }
}

/// A shared source.
pub type Source = Arc<dyn RandomAccess>;

/// Reads `len` bytes at `offset` of `src` (an error names `what`).
pub(crate) fn read_at(
    src: &dyn RandomAccess,
    offset: u64,
    len: usize,
    what: &'static str,
) -> Result<Vec<u8>, WireError> {
    let mut buf = vec![0u8; len];
    src.read_exact_at(&mut buf, offset)
        .map_err(|_| WireError::Truncated(what))?;
    Ok(buf)
}
