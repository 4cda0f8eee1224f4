//! Prometheus text-format metrics, kept by hand (a few counters and
//! histograms; no extra dependency).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Histogram bucket bounds, seconds.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Default, Clone)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, secs: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS.len()];
        }
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                self.counts[i] += 1;
            }
        }
        self.sum += secs;
        self.count += 1;
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        for (i, b) in BUCKETS.iter().enumerate() {
            let c = self.counts.get(i).copied().unwrap_or(0);
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {c}");
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}",
            self.count
        );
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

#[derive(Default)]
struct Inner {
    /// (method, route, status) → count.
    requests: BTreeMap<(String, String, u16), u64>,
    /// (method, route) → latency.
    latency: BTreeMap<(String, String), Histogram>,
    /// (scheme, curve, mode, outcome) → count.
    transforms: BTreeMap<(String, String, String, &'static str), u64>,
    /// (scheme, curve, mode) → time of the pairing work alone.
    transform_time: BTreeMap<(String, String, String), Histogram>,
    /// How streamed files' pass-throughs ended → count.
    streams: BTreeMap<&'static str, u64>,
}

/// The proxy's metrics.
#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
    in_flight: AtomicI64,
    tk_cache_hits: AtomicU64,
    tk_cache_misses: AtomicU64,
    streamed_bytes: AtomicU64,
}

impl Metrics {
    pub fn request(&self, method: &str, route: &str, status: u16, took: Duration) {
        if let Ok(mut m) = self.inner.lock() {
            *m.requests
                .entry((method.to_owned(), route.to_owned(), status))
                .or_default() += 1;
            m.latency
                .entry((method.to_owned(), route.to_owned()))
                .or_default()
                .observe(took.as_secs_f64());
        }
    }

    pub fn transform(&self, scheme: &str, curve: &str, mode: &str, ok: bool, took: Duration) {
        if let Ok(mut m) = self.inner.lock() {
            let outcome = if ok { "ok" } else { "error" };
            *m.transforms
                .entry((
                    scheme.to_owned(),
                    curve.to_owned(),
                    mode.to_owned(),
                    outcome,
                ))
                .or_default() += 1;
            if ok {
                m.transform_time
                    .entry((scheme.to_owned(), curve.to_owned(), mode.to_owned()))
                    .or_default()
                    .observe(took.as_secs_f64());
            }
        }
    }

    /// A transformation found its decoded TK in the cache (`hit`) or
    /// decoded it from the store's bytes.
    pub fn tk_cache(&self, hit: bool) {
        let c = if hit {
            &self.tk_cache_hits
        } else {
            &self.tk_cache_misses
        };
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// Payload bytes of a streamed file passed through.
    pub fn streamed(&self, bytes: u64) {
        self.streamed_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// A streamed file's pass-through ended: "ok", "too_large",
    /// "idle_timeout", "client_error" or "abandoned" (the answer was
    /// dropped before the end, e.g. the client went away).
    pub fn stream_ended(&self, outcome: &'static str) {
        if let Ok(mut m) = self.inner.lock() {
            *m.streams.entry(outcome).or_default() += 1;
        }
    }

    /// +1 / −1 around the pairing work.
    pub fn in_flight(&self, delta: i64) {
        self.in_flight.fetch_add(delta, Ordering::Relaxed);
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let Ok(m) = self.inner.lock() else {
            return out;
        };
        out.push_str("# HELP abbe_proxy_requests_total HTTP requests by method, route and status.\n# TYPE abbe_proxy_requests_total counter\n");
        for ((method, route, status), n) in &m.requests {
            let _ = writeln!(
                out,
                "abbe_proxy_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str("# HELP abbe_proxy_request_duration_seconds HTTP request latency.\n# TYPE abbe_proxy_request_duration_seconds histogram\n");
        for ((method, route), h) in &m.latency {
            h.render(
                &mut out,
                "abbe_proxy_request_duration_seconds",
                &format!("method=\"{method}\",route=\"{route}\""),
            );
        }
        out.push_str("# HELP abbe_proxy_transforms_total Transformations by scheme, curve, mode and outcome.\n# TYPE abbe_proxy_transforms_total counter\n");
        for ((scheme, curve, mode, outcome), n) in &m.transforms {
            let _ = writeln!(
                out,
                "abbe_proxy_transforms_total{{scheme=\"{scheme}\",curve=\"{curve}\",mode=\"{mode}\",outcome=\"{outcome}\"}} {n}"
            );
        }
        out.push_str("# HELP abbe_proxy_transform_duration_seconds Time of the transformation itself (pairings), without queueing.\n# TYPE abbe_proxy_transform_duration_seconds histogram\n");
        for ((scheme, curve, mode), h) in &m.transform_time {
            h.render(
                &mut out,
                "abbe_proxy_transform_duration_seconds",
                &format!("scheme=\"{scheme}\",curve=\"{curve}\",mode=\"{mode}\""),
            );
        }
        out.push_str("# HELP abbe_proxy_streams_total Pushed files whose payload was streamed through, by how the stream ended.\n# TYPE abbe_proxy_streams_total counter\n");
        for (outcome, n) in &m.streams {
            let _ = writeln!(out, "abbe_proxy_streams_total{{outcome=\"{outcome}\"}} {n}");
        }
        let _ = writeln!(
            out,
            "# HELP abbe_proxy_streamed_bytes_total Payload bytes of pushed files passed through unchanged.\n# TYPE abbe_proxy_streamed_bytes_total counter\nabbe_proxy_streamed_bytes_total {}",
            self.streamed_bytes.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP abbe_proxy_transforms_in_flight Transformations running now.\n# TYPE abbe_proxy_transforms_in_flight gauge\nabbe_proxy_transforms_in_flight {}",
            self.in_flight.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP abbe_proxy_tk_cache_lookups_total Decoded-TK cache lookups of transformations.\n# TYPE abbe_proxy_tk_cache_lookups_total counter\nabbe_proxy_tk_cache_lookups_total{{result=\"hit\"}} {}\nabbe_proxy_tk_cache_lookups_total{{result=\"miss\"}} {}",
            self.tk_cache_hits.load(Ordering::Relaxed),
            self.tk_cache_misses.load(Ordering::Relaxed)
        );
        out
    }
}
