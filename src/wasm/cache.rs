//! Chunk caches ([`crate::hierarchy::ChunkCache`]) that reads of any array share, by number:
//! ts/read/cache.ts makes one with [`new_chunk_cache`] and passes its number as the read option
//! `cacheId`. Numbers rather than a wasm-bindgen class: wasm-bindgen cannot take an optional
//! reference to a class (nor one inside an options object), and numbers need no glue.

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

/// What cache `id` has done and holds: `{hits, misses, evictions, bytes, entries}` (all 0 for
/// a number that names no cache).
#[wasm_bindgen(js_name = chunkCacheStats)]
pub fn chunk_cache_stats(id: u32) -> JsValue {
    let stats = cache_of(id)
        .and_then(|cache| cache.try_borrow().ok().map(|c| c.stats()))
        .unwrap_or_default();
    super::plain::cache_stats(&stats)
}

/// Drops every entry of cache `id` (the counters go on).
#[wasm_bindgen(js_name = chunkCacheClear)]
pub fn chunk_cache_clear(id: u32) {
    if let Some(Ok(mut cache)) = cache_of(id).as_deref().map(RefCell::try_borrow_mut) {
        cache.clear();
    }
}

/// Frees cache `id`: its entries are dropped and the number may be reused.
#[wasm_bindgen(js_name = chunkCacheFree)]
pub fn chunk_cache_free(id: u32) {
    chunk_cache_clear(id);
    CACHES.with(|all| {
        if let Some(slot) = all.borrow_mut().get_mut((id as usize).wrapping_sub(1)) {
            *slot = None;
        }
    });
}

fn cache_of(id: u32) -> Option<Shared> {
    let at = (id as usize).checked_sub(1)?;
    CACHES.with(|all| all.borrow().get(at).cloned().flatten())
}

/// The cache of a read's option `cacheId`, if any.
pub(super) fn of_id(id: Option<u64>) -> Result<Option<Shared>, ZomError> {
    let Some(id) = id else {
        return Ok(None);
    };
    u32::try_from(id)
        .ok()
        .and_then(cache_of)
        .map(Some)
        .ok_or_else(|| ZomError::invalid_argument("option 'cacheId' names no chunk cache"))
}
