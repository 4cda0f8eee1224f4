//! The attribute hashes H(x) a public key has computed, so encryption and
//! key generation under that key hash each attribute once (perazzo §6.1 notes
//! the hashes "can be precomputed").
//!
//! Each public key owns its cache (a `cached` field; clones share it), so
//! tenants of one process (the proxy serves many) never share entries or
//! learn each other's attributes from timing, and a dropped key frees its
//! hashes. The values are public: nothing to wipe.

use crate::curve::Group;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Bound on the number of hashes one key caches; the cache is emptied when
/// full, so a stream of fresh attribute names costs memory linear in the bound.
const MAX_ENTRIES: usize = 1 << 16;

/// Bumped by [`clear`]; a cache whose epoch is older forgets its entries.
static EPOCH: AtomicU64 = AtomicU64::new(0);

struct Entries<T> {
    epoch: u64,
    map: HashMap<String, T>,
}

/// The hashes one public key has computed, keyed by attribute (or by any
/// string the scheme hashes). Clones share the entries.
pub(crate) struct AttrHashes<T>(Arc<Mutex<Entries<T>>>);

impl<T: Copy> AttrHashes<T> {
    /// The value for `key`, computed by `compute` on its first request.
    pub(crate) fn get_or_insert(&self, key: &str, compute: impl FnOnce() -> T) -> T {
        self.get_at(EPOCH.load(Ordering::Relaxed), key, compute)
    }

    /// [`Self::get_or_insert`] as of [`clear`]'s count `epoch`.
    fn get_at(&self, epoch: u64, key: &str, compute: impl FnOnce() -> T) -> T {
        if let Ok(mut e) = self.0.lock() {
            if e.epoch != epoch {
                e.map.clear();
                e.epoch = epoch;
            }
            if let Some(v) = e.map.get(key) {
                return *v;
            }
        }
        // Computed outside the lock: the threads of one encryption hash
        // different attributes in parallel.
        let v = compute();
        if let Ok(mut e) = self.0.lock() {
            if e.map.len() >= MAX_ENTRIES {
                e.map.clear();
            }
            e.map.insert(key.to_owned(), v);
        }
        v
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.lock().map(|e| e.map.len()).unwrap_or(0)
    }
}

/// The domain tag of a scheme's attribute hash: `ABBE-V1-<scheme>-H-<curve>`
/// (part of the format: a header's elements depend on it).
pub(crate) fn hash_tag(scheme: &str, curve: &str) -> Vec<u8> {
    format!("ABBE-V1-{scheme}-H-{curve}").into_bytes()
}

impl<G: Group> AttrHashes<G> {
    /// H(x) ∈ G (RFC 9380 hash-to-curve under [`hash_tag`]), computed once
    /// per key.
    pub(crate) fn hash(&self, scheme: &str, curve: &str, attr: &str) -> G {
        self.get_or_insert(attr, || {
            G::hash_to_curve(attr.as_bytes(), &hash_tag(scheme, curve))
        })
    }
}

impl<T> Default for AttrHashes<T> {
    fn default() -> Self {
        AttrHashes(Arc::new(Mutex::new(Entries {
            epoch: EPOCH.load(Ordering::Relaxed),
            map: HashMap::new(),
        })))
    }
}

impl<T> Clone for AttrHashes<T> {
    fn clone(&self) -> Self {
        AttrHashes(Arc::clone(&self.0))
    }
}

impl<T> core::fmt::Debug for AttrHashes<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("AttrHashes")
    }
}

/// Makes every public key in the process forget its cached hashes, so a
/// benchmark measures the cold path (as a fresh process would run it).
pub fn clear() {
    EPOCH.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_per_owner_and_shares_between_clones() {
        let a = AttrHashes::<u32>::default();
        let b = AttrHashes::<u32>::default();
        let mut calls = 0;
        assert_eq!(
            a.get_or_insert("x", || {
                calls += 1;
                7
            }),
            7
        );
        assert_eq!(
            a.get_or_insert("x", || {
                calls += 1;
                8
            }),
            7
        );
        assert_eq!(calls, 1, "the second request is served from the cache");
        // Another owner computes its own value; a clone shares the first's.
        assert_eq!(b.get_or_insert("x", || 9), 9);
        assert_eq!(a.clone().get_or_insert("x", || 10), 7);
        assert_eq!(a.len(), 1);
    }

    /// After a [`clear`] (a new epoch) every key recomputes. Tested through
    /// `get_at`: calling `clear` here would empty the caches of concurrent
    /// tests that count hash operations.
    #[test]
    fn a_new_epoch_forgets_entries() {
        let a = AttrHashes::<u32>::default();
        let now = EPOCH.load(Ordering::Relaxed);
        assert_eq!(a.get_at(now, "x", || 1), 1);
        assert_eq!(a.get_at(now, "x", || 2), 1);
        assert_eq!(a.get_at(now + 1, "x", || 3), 3);
        assert_eq!(a.get_at(now + 1, "x", || 4), 3);
    }

    #[test]
    fn memory_is_bounded() {
        let a = AttrHashes::<u32>::default();
        for i in 0..MAX_ENTRIES as u32 + 5 {
            a.get_or_insert(&i.to_string(), || i);
        }
        assert!(a.len() <= MAX_ENTRIES);
        assert_eq!(a.len(), 5);
    }
}
