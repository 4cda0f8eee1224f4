//! The access log (`abbe proxy serve --access-log FILE`, `-` for stderr):
//! one line per request — time, peer, method, route, status, duration:
//!
//! ```text
//! 2026-11-28T12:00:00Z 127.0.0.1:53124 POST /v1/tks/{id}/transform 200 3.2ms
//! ```
//!
//! The route is the template, so neither a TK id nor a query is logged;
//! no token, key or body ever is.

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where the lines go; shared by every request.
#[derive(Clone)]
pub struct AccessLog(Arc<Mutex<Box<dyn Write + Send>>>);

impl std::fmt::Debug for AccessLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessLog")
    }
}

impl AccessLog {
    /// Appends to `path` (created 0600), or writes to stderr for `-`.
    pub fn open(path: &Path) -> std::io::Result<AccessLog> {
        let out: Box<dyn Write + Send> = if path.as_os_str() == "-" {
            Box::new(std::io::stderr())
        } else {
            let mut options = std::fs::OpenOptions::new();
            options.create(true).append(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            Box::new(options.open(path)?)
        };
        Ok(AccessLog(Arc::new(Mutex::new(out))))
    }

    /// Writes one request's line. A log that cannot be written costs the
    /// line, never the request.
    pub fn record(
        &self,
        peer: Option<SocketAddr>,
        method: &str,
        route: &str,
        status: u16,
        took: Duration,
    ) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let peer = peer.map_or_else(|| "-".to_owned(), |p| p.to_string());
        let line = format!(
            "{} {peer} {method} {route} {status} {:.1}ms\n",
            utc(now),
            took.as_secs_f64() * 1e3
        );
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
    }
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, UTC).
pub fn utc(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(utc(-1), "1969-12-31T23:59:59Z");
        assert_eq!(utc(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn a_line_per_request_without_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("access.log");
        let log = super::AccessLog::open(&path).unwrap();
        let peer = "127.0.0.1:4000".parse().ok();
        let took = std::time::Duration::from_micros(3_250);
        log.record(peer, "POST", "/v1/tks/{id}/transform", 200, took);
        log.record(None, "GET", "/healthz", 200, took);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].ends_with(" 127.0.0.1:4000 POST /v1/tks/{id}/transform 200 3.2ms"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].ends_with(" - GET /healthz 200 3.2ms"),
            "{}",
            lines[1]
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}
