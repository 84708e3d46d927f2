//! Chunk caches ([`crate::hierarchy::ChunkCache`]) that reads of any array share, by number:
//! ts/cache.ts makes one with [`new_chunk_cache`] and passes its number as the read option
//! `cacheId`. Numbers rather than a wasm-bindgen class: wasm-bindgen cannot take an optional
//! reference to a class (nor one inside an options object), and numbers need no glue.

use super::limits::count_option;
use crate::error::ZomError;
use crate::hierarchy::ChunkCache;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A cache shared by the reads given its number.
pub(super) type Shared = Rc<RefCell<ChunkCache>>;

thread_local! {
    /// The caches by number − 1; a freed one's place is reused.
    static CACHES: RefCell<Vec<Option<Shared>>> = const { RefCell::new(Vec::new()) };
}

/// A new cache of at most `max_bytes` bytes (decoded values plus a small overhead per entry;
/// `Infinity`: no bound): its number.
#[wasm_bindgen(js_name = newChunkCache)]
pub fn new_chunk_cache(max_bytes: f64) -> u32 {
    // A float beyond u64 saturates; NaN and negatives are 0 (TypeScript checks them).
    let cache = Some(Rc::new(RefCell::new(ChunkCache::new(max_bytes as u64))));
    CACHES.with(|all| {
        let mut all = all.borrow_mut();
        let at = match all.iter().position(Option::is_none) {
            Some(at) => at,
            None => {
                all.push(None);
                all.len() - 1
            }
        };
        all[at] = cache;
        u32::try_from(at + 1).unwrap_or(0)
    })
}

/// One figure of cache `id`: `what` 0 hits, 1 misses, 2 evictions, 3 bytes, 4 entries; or an
/// action (0 is returned): 5 clear (drop every entry; the counters go on), 6 free (the number
/// may then be reused). Numbers in and out: the least glue (ts/cache.ts makes the object).
#[wasm_bindgen(js_name = chunkCacheStat)]
pub fn chunk_cache_stat(id: u32, what: u32) -> f64 {
    let Some(cache) = cache_of(id) else {
        return 0.0;
    };
    if what == 6 {
        CACHES.with(|all| {
            if let Some(slot) = all.borrow_mut().get_mut((id as usize).wrapping_sub(1)) {
                *slot = None;
            }
        });
    }
    let Ok(mut cache) = cache.try_borrow_mut() else {
        return 0.0;
    };
    if what >= 5 {
        cache.clear();
    }
    let s = cache.stats();
    let n = match what {
        0 => s.hits,
        1 => s.misses,
        2 => s.evictions,
        3 => s.bytes,
        4 => s.entries,
        _ => 0,
    };
    n as f64
}

fn cache_of(id: u32) -> Option<Shared> {
    let at = (id as usize).checked_sub(1)?;
    CACHES.with(|all| all.borrow().get(at).cloned().flatten())
}

/// The cache of a read's option `cacheId`, if any.
pub(super) fn of_options(options: &JsValue) -> Result<Option<Shared>, ZomError> {
    let Some(id) = count_option(options, "cacheId")? else {
        return Ok(None);
    };
    u32::try_from(id)
        .ok()
        .and_then(cache_of)
        .map(Some)
        .ok_or_else(|| ZomError::invalid_argument("option 'cacheId' names no chunk cache"))
}
