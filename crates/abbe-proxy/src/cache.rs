//! A bounded in-memory cache of decoded transformation keys, keyed by TK id.
//!
//! Decoding a TK validates every point (subgroup checks), and Waters11 then
//! computes the Miller-loop lines of the key elements on first use:
//! together about as much work as the transformation itself
//! (`cargo run --release -p abbe-proxy --example latency`). A decoded key
//! keeps its lines, so the cache holds
//! [`PreparedTransformKey`]s ready for the next request.
//!
//! The cache is only for the decoded value, never for authorisation: the
//! server checks in the store, on every request, that the id exists and
//! belongs to the tenant (an indexed primary-key lookup), so a TK deleted
//! through another instance of a fleet is never used. DELETE through this
//! instance also evicts the entry at once.
//!
//! Bounded by entries and by an estimate of memory: a decoded key is
//! counted as [`MEMORY_FACTOR`] times its encoded size (a BLS12-381 G2 key
//! element is 96 bytes encoded but about 20 KB with its 68 Miller-loop lines;
//! BN254's are similar). Least recently used entries are evicted first.

use abbe::facade::PreparedTransformKey;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

/// Estimated bytes in memory per encoded byte of a decoded, prepared key.
pub const MEMORY_FACTOR: usize = 256;

struct Entry {
    tenant: String,
    key: Arc<PreparedTransformKey>,
    weight: usize,
    tick: u64,
}

#[derive(Default)]
struct Inner {
    map: HashMap<String, Entry>,
    /// tick of last use → id: the least recently used entry comes first.
    order: BTreeMap<u64, String>,
    tick: u64,
    weight: usize,
}

/// The cache of decoded TKs (thread-safe; cheap to share in an `Arc`).
pub struct TkCache {
    inner: Mutex<Inner>,
    max_entries: usize,
    max_weight: usize,
}

impl TkCache {
    /// At most `max_entries` keys and about `max_memory` bytes; 0 for
    /// either disables the cache.
    pub fn new(max_entries: usize, max_memory: usize) -> Self {
        TkCache {
            inner: Mutex::new(Inner::default()),
            max_entries,
            max_weight: max_memory,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // No code panics while holding the lock; if it ever did, the map is
        // still consistent enough to keep serving.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The decoded key `id` of `tenant`, marking it recently used.
    pub fn get(&self, tenant: &str, id: &str) -> Option<Arc<PreparedTransformKey>> {
        let mut g = self.lock();
        let inner = &mut *g;
        inner.tick += 1;
        let tick = inner.tick;
        let e = inner.map.get_mut(id)?;
        if e.tenant != tenant {
            return None;
        }
        inner.order.remove(&e.tick);
        e.tick = tick;
        inner.order.insert(tick, id.to_owned());
        Some(e.key.clone())
    }

    /// Caches `key` (decoded from `encoded_len` bytes) as `id` of `tenant`,
    /// evicting the least recently used entries to make room.
    pub fn insert(
        &self,
        tenant: &str,
        id: &str,
        key: Arc<PreparedTransformKey>,
        encoded_len: usize,
    ) {
        let weight = encoded_len.saturating_mul(MEMORY_FACTOR);
        if self.max_entries == 0 || weight > self.max_weight {
            return;
        }
        let mut g = self.lock();
        let inner = &mut *g;
        Self::remove_locked(inner, id);
        while inner.map.len() >= self.max_entries || inner.weight + weight > self.max_weight {
            let Some((_, victim)) = inner.order.pop_first() else {
                break;
            };
            if let Some(e) = inner.map.remove(&victim) {
                inner.weight -= e.weight;
            }
        }
        inner.tick += 1;
        let tick = inner.tick;
        inner.order.insert(tick, id.to_owned());
        inner.weight += weight;
        inner.map.insert(
            id.to_owned(),
            Entry {
                tenant: tenant.to_owned(),
                key,
                weight,
                tick,
            },
        );
    }

    fn remove_locked(inner: &mut Inner, id: &str) {
        if let Some(e) = inner.map.remove(id) {
            inner.order.remove(&e.tick);
            inner.weight -= e.weight;
        }
    }

    /// Forgets `id` (deleted, or found missing in the store).
    pub fn remove(&self, id: &str) {
        Self::remove_locked(&mut self.lock(), id);
    }

    /// Number of cached keys.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Estimated memory of the cached keys, bytes.
    pub fn memory(&self) -> usize {
        self.lock().weight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real (small) decoded key; the cache never looks inside.
    fn key() -> Arc<PreparedTransformKey> {
        use abbe::abe::cca::CcaKey;
        use abbe::abe::{Cca, Rcca, Waters11};
        use abbe::curve::Bls12;
        use abbe::kem::{Authority, Outsourcing};
        use abbe::policy::AttributeSet;
        type W = Waters11<Bls12>;
        let mut rng = rand_core::OsRng;
        let (pk, mk) = W::setup(&Default::default(), &mut rng).unwrap();
        let k: CcaKey<W> =
            abbe::kem::keygen::<Cca<W>>(&pk, &mk, &AttributeSet::parse("a").unwrap(), &mut rng)
                .unwrap();
        let (tk, _) = Rcca::<W>::transform_key(&k, &mut rng);
        Arc::new(PreparedTransformKey::decode(&tk.to_bytes()).unwrap())
    }

    #[test]
    fn lru_bounds_and_tenants() {
        let k = key();
        let c = TkCache::new(2, 1 << 30);
        c.insert("t", "a", k.clone(), 10);
        c.insert("t", "b", k.clone(), 10);
        assert!(c.get("t", "a").is_some()); // a is now the most recent
        c.insert("t", "c", k.clone(), 10); // evicts b
        assert!(c.get("t", "b").is_none());
        assert!(c.get("t", "a").is_some());
        assert!(c.get("t", "c").is_some());
        assert_eq!(c.len(), 2);
        // Another tenant never gets the entry.
        assert!(c.get("u", "a").is_none());
        c.remove("a");
        assert!(c.get("t", "a").is_none());
        assert_eq!(c.len(), 1);
        assert_eq!(c.memory(), 10 * MEMORY_FACTOR);
        // Re-inserting an id replaces it without double counting.
        c.insert("t", "c", k.clone(), 20);
        assert_eq!(c.len(), 1);
        assert_eq!(c.memory(), 20 * MEMORY_FACTOR);

        // The memory bound evicts too; an entry above it is not cached.
        let c = TkCache::new(100, 25 * MEMORY_FACTOR);
        c.insert("t", "a", k.clone(), 10);
        c.insert("t", "b", k.clone(), 10);
        c.insert("t", "c", k.clone(), 10);
        assert_eq!(c.len(), 2);
        assert!(c.get("t", "a").is_none());
        c.insert("t", "big", k.clone(), 26);
        assert!(c.get("t", "big").is_none());
        assert_eq!(c.len(), 2);

        // Disabled.
        let c = TkCache::new(0, 1 << 30);
        c.insert("t", "a", k, 10);
        assert!(c.is_empty());
    }
}
