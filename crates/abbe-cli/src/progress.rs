//! Progress on stderr for the long operations (broadcast setup and key
//! generation for 10^6+ users). indicatif draws only when stderr is a
//! terminal, so scripts and pipes see nothing.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

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
