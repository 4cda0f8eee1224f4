//! Progress on stderr for the long operations (broadcast setup and key
//! generation for 10^6+ users; encrypting, decrypting and transforming
//! inputs above 16 MiB). indicatif draws only when stderr is a terminal,
//! so scripts and pipes see nothing.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Read};
use std::time::Duration;

/// Inputs up to this size are processed too fast for a bar.
pub const MIN_BYTES: u64 = 16 << 20;

/// Below this many users the operations take well under a second.
pub const MIN_USERS: u32 = 10_000;

/// A spinner with elapsed time for an operation of unknown length.
pub fn spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner().with_message(msg);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        pb.set_style(style);
    }
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// A bar over `total` bytes written.
pub fn bytes(total: u64, msg: String) -> ProgressBar {
    let pb = ProgressBar::new(total).with_message(msg);
    if let Ok(style) = ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

/// A spinner counting bytes, for an input of unknown length.
pub fn bytes_spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner().with_message(msg);
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {msg} {bytes} {bytes_per_sec} ({elapsed})")
    {
        pb.set_style(style);
    }
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Wraps an input of `len` bytes (`None`: unknown, e.g. stdin) so that
/// reading it advances a bar labelled `msg`: from the start when `len` is
/// above [`MIN_BYTES`], once `MIN_BYTES` have been read when unknown, and
/// never when stderr is not a terminal. The bar is cleared when the reader
/// is dropped, after success or failure alike.
pub fn reading(inner: Box<dyn Read>, len: Option<u64>, msg: &str) -> Box<dyn Read> {
    if !std::io::stderr().is_terminal() || len.is_some_and(|l| l <= MIN_BYTES) {
        return inner;
    }
    Box::new(Counting {
        inner,
        read: 0,
        len,
        msg: msg.to_owned(),
        bar: None,
    })
}

struct Counting {
    inner: Box<dyn Read>,
    read: u64,
    len: Option<u64>,
    msg: String,
    bar: Option<ProgressBar>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        match &self.bar {
            Some(bar) => bar.set_position(self.read),
            None if self.len.is_some() || self.read >= MIN_BYTES => {
                let bar = match self.len {
                    Some(total) => bytes(total, std::mem::take(&mut self.msg)),
                    None => bytes_spinner(std::mem::take(&mut self.msg)),
                };
                bar.set_position(self.read);
                self.bar = Some(bar);
            }
            None => {}
        }
        Ok(n)
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
