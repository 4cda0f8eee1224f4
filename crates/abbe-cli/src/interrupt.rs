//! Interrupted commands leave no partial output. An output is written to a
//! temporary file renamed into place at the end ([`crate::io::atomic`]);
//! that file is registered here, and SIGINT, SIGTERM or SIGHUP removes it
//! before the process exits with 128 + the signal's number (what a shell
//! reports for a process the signal killed). The handlers are installed
//! with the first registration, so commands that write no file keep the
//! default signal behaviour.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex, MutexGuard, Once};

static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static WATCH: Once = Once::new();

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary output file, removed if a signal ends the process first.
pub struct Pending {
    path: PathBuf,
}

/// Registers `path`; the handlers are in place when this returns.
pub fn register(path: &Path) -> Pending {
    WATCH.call_once(watch);
    pending().push(path.to_path_buf());
    Pending {
        path: path.to_path_buf(),
    }
}

impl Pending {
    /// Runs `rename` (which moves the file into place) while no signal can
    /// remove it: a signal during the rename ends the process after it, with
    /// the output complete. Dropping `self` then forgets the file.
    pub fn finish<T>(self, rename: impl FnOnce() -> T) -> T {
        let _no_removal = pending();
        rename()
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        pending().retain(|p| p != &self.path);
    }
}

/// Installs the handlers on a thread of their own (a current-thread tokio
/// runtime: tokio is in the build for the proxy and MQTT) and waits until
/// they are installed. A signal the process inherited as ignored (`nohup`'s
/// SIGHUP, SIGINT of a shell's background job) stays ignored. If the
/// handlers cannot be installed, signals keep their default action: the
/// command still runs, as before.
fn watch() {
    use tokio::signal::unix::{signal, Signal, SignalKind};
    const WATCHED: [(i32, fn() -> SignalKind); 3] = [
        (2, SignalKind::interrupt),
        (15, SignalKind::terminate),
        (1, SignalKind::hangup),
    ];
    async fn received(s: &mut Option<Signal>) {
        match s {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    let ignored = ignored_signals();
    let (ready, installed) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("abbe-signals".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
            else {
                let _ = ready.send(());
                return;
            };
            rt.block_on(async move {
                let [mut int, mut term, mut hup] = WATCHED.map(|(number, kind)| {
                    let wanted = ignored & (1 << (number - 1)) == 0;
                    wanted.then(|| signal(kind()).ok()).flatten()
                });
                let _ = ready.send(());
                let number = tokio::select! {
                    _ = received(&mut int) => 2,
                    _ = received(&mut term) => 15,
                    _ = received(&mut hup) => 1,
                };
                // Holding the list: no rename can start after this.
                let list = pending();
                for p in list.iter() {
                    let _ = std::fs::remove_file(p);
                }
                std::process::exit(128 + number);
            });
        });
    if spawned.is_ok() {
        let _ = installed.recv();
    }
}

/// The signals this process ignores (bit n − 1 for signal n), from Linux's
/// `/proc/self/status`; none known elsewhere.
fn ignored_signals() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let mask = s.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_ignored_signals_of_this_process() {
        // The test harness ignores SIGPIPE (Rust's runtime does).
        assert_ne!(super::ignored_signals() & (1 << (13 - 1)), 0);
    }
}
