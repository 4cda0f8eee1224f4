//! Per-tenant admission: how many requests of one tenant may be in progress
//! at once, and how many it may start per second (a token bucket). Both
//! are answered with 429 and `Retry-After`, so one tenant cannot take the
//! workers (and the memory their requests buffer) from the others.
//!
//! The state is per instance: behind a fleet the quotas are per instance,
//! which bounds each instance's resources — what they are for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The limits of one tenant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuotaConfig {
    /// Requests of one tenant in progress at once (0: no limit).
    pub concurrency: usize,
    /// Requests one tenant may start per second, sustained (0: no limit).
    pub rate: f64,
    /// Requests one tenant may start at once after being idle.
    pub burst: f64,
}

impl QuotaConfig {
    /// As many requests in progress as there are `workers` (so one tenant
    /// can use the whole machine but never queue ahead of everyone), 20
    /// per second with bursts of 40: far above what one device needs, far
    /// below what saturates a proxy.
    pub fn for_workers(workers: usize) -> Self {
        QuotaConfig {
            concurrency: workers.max(1),
            rate: 20.0,
            burst: 40.0,
        }
    }
}

/// Why a request was not admitted, and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub retry_after: Duration,
    pub why: &'static str,
}

struct Tenant {
    in_progress: usize,
    tokens: f64,
    refilled: Instant,
}

/// The admission state of every tenant seen.
pub struct Quotas {
    cfg: QuotaConfig,
    tenants: Mutex<HashMap<String, Tenant>>,
}

/// A request in progress; dropping it frees the tenant's slot.
pub struct Slot {
    quotas: Arc<Quotas>,
    tenant: String,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut tenants = self.quotas.lock();
        if let Some(t) = tenants.get_mut(&self.tenant) {
            t.in_progress = t.in_progress.saturating_sub(1);
        }
    }
}

impl Quotas {
    pub fn new(cfg: QuotaConfig) -> Arc<Quotas> {
        Arc::new(Quotas {
            cfg,
            tenants: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tenant>> {
        // A panic while holding the lock cannot leave the counts
        // inconsistent beyond one request: keep serving.
        self.tenants.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits one request of `tenant` now, or says when to retry.
    pub fn admit(self: &Arc<Self>, tenant: &str) -> Result<Slot, Refused> {
        self.admit_at(tenant, Instant::now())
    }

    fn admit_at(self: &Arc<Self>, tenant: &str, now: Instant) -> Result<Slot, Refused> {
        let cfg = self.cfg;
        let mut tenants = self.lock();
        let t = tenants.entry(tenant.to_owned()).or_insert(Tenant {
            in_progress: 0,
            tokens: cfg.burst,
            refilled: now,
        });
        if cfg.concurrency > 0 && t.in_progress >= cfg.concurrency {
            return Err(Refused {
                retry_after: Duration::from_secs(1),
                why: "too many requests of this tenant in progress",
            });
        }
        if cfg.rate > 0.0 {
            let elapsed = now.saturating_duration_since(t.refilled).as_secs_f64();
            t.tokens = (t.tokens + elapsed * cfg.rate).min(cfg.burst.max(1.0));
            t.refilled = now;
            if t.tokens < 1.0 {
                let wait = (1.0 - t.tokens) / cfg.rate;
                return Err(Refused {
                    retry_after: Duration::from_secs_f64(wait.ceil().max(1.0)),
                    why: "this tenant's request rate is above its limit",
                });
            }
            t.tokens -= 1.0;
        }
        t.in_progress += 1;
        Ok(Slot {
            quotas: self.clone(),
            tenant: tenant.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_is_per_tenant_and_freed_on_drop() {
        let q = Quotas::new(QuotaConfig {
            concurrency: 2,
            rate: 0.0,
            burst: 0.0,
        });
        let a1 = q.admit("a").unwrap();
        let _a2 = q.admit("a").unwrap();
        let refused = q.admit("a").err().unwrap();
        assert_eq!(refused.retry_after, Duration::from_secs(1));
        // Another tenant is not affected.
        let _b = q.admit("b").unwrap();
        drop(a1);
        assert!(q.admit("a").is_ok());
    }

    #[test]
    fn rate_is_a_token_bucket() {
        let q = Quotas::new(QuotaConfig {
            concurrency: 0,
            rate: 2.0,
            burst: 3.0,
        });
        let t0 = Instant::now();
        for _ in 0..3 {
            drop(q.admit_at("a", t0).unwrap());
        }
        let r = q.admit_at("a", t0).err().unwrap();
        assert_eq!(r.retry_after, Duration::from_secs(1));
        assert!(r.why.contains("rate"));
        assert!(q.admit_at("b", t0).is_ok());
        // Half a second later one token is back (2 per second), not two.
        let t1 = t0 + Duration::from_millis(500);
        drop(q.admit_at("a", t1).unwrap());
        assert!(q.admit_at("a", t1).is_err());
        // After a long pause the bucket holds the burst, not more.
        let t2 = t1 + Duration::from_secs(60);
        for _ in 0..3 {
            drop(q.admit_at("a", t2).unwrap());
        }
        assert!(q.admit_at("a", t2).is_err());
    }
}
