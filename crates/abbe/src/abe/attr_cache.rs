//! A process-wide cache of attribute hashes H(x), so encryption and key
//! generation hash each attribute once per process (perazzo §6.1 notes the
//! hashes "can be precomputed"). Keyed by the group type and the attribute.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Bound on the number of cached hashes; the cache is cleared when full.
const MAX_ENTRIES: usize = 1 << 16;

/// Keyed by the value's type, the hash's domain-separation tag and the
/// attribute, so two schemes hashing into the same group under different
/// tags never see each other's values.
type Map = HashMap<(TypeId, Vec<u8>, String), Box<dyn Any + Send + Sync>>;

fn map() -> &'static Mutex<Map> {
    static CACHE: OnceLock<Mutex<Map>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// H(attr) under the tag `dst`, computed by `compute` on the first request.
pub(crate) fn get_or_insert<G: Copy + Send + Sync + 'static>(
    dst: &[u8],
    attr: &str,
    compute: impl FnOnce() -> G,
) -> G {
    let key = (TypeId::of::<G>(), dst.to_vec(), attr.to_owned());
    if let Ok(m) = map().lock() {
        if let Some(v) = m.get(&key).and_then(|b| b.downcast_ref::<G>()) {
            return *v;
        }
    }
    let v = compute();
    if let Ok(mut m) = map().lock() {
        if m.len() >= MAX_ENTRIES {
            m.clear();
        }
        m.insert(key, Box::new(v));
    }
    v
}

/// Empties the cache (benchmarks measure cold and warm paths).
pub fn clear() {
    if let Ok(mut m) = map().lock() {
        m.clear();
    }
}
