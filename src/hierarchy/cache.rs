//! A cache of decoded chunks, shared by the reads that use it (sans-I/O: it only holds values).
//!
//! Entries are keyed by the array's identity (a number the caller gives each opened array),
//! the chunk's store key and, for an inner chunk of a shard, its coordinates in the shard. An
//! entry is the whole decoded chunk (every element, C order, as the codec pipeline gives it)
//! or the knowledge that the chunk does not exist (it reads as the fill value). The cache is
//! bounded by bytes: an entry costs its decoded bytes plus [`ENTRY_OVERHEAD`] and its key;
//! the least recently used entries are evicted to make room, and an entry larger than the
//! bound is not kept. Values of object arrays (JSON values) are not kept: their size in
//! memory is not known without walking them.
//!
//! A read checks the cache before it asks the store for anything (see `read.rs`): a region
//! whose chunks are all cached makes no request and decodes nothing.

use crate::codec::DecodedChunk;
use std::cell::RefCell;
use std::rc::Rc;

/// What an entry costs besides its values and its key: the map nodes, the counters.
pub const ENTRY_OVERHEAD: u64 = 64;

/// What a cache entry names: one chunk of one array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheKey {
    /// The array's identity (the caller's number for an opened array).
    pub array: u64,
    /// The chunk's store key (for a sharded array: the shard's).
    pub key: String,
    /// The inner chunk's coordinates in its shard; empty for a stored chunk.
    pub inner: Vec<u64>,
}

/// A cached chunk: its whole decoded values, or `None` for a chunk that does not exist.
pub type Cached = Option<Rc<DecodedChunk>>;

/// Counters and size of a [`ChunkCache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found their chunk.
    pub hits: u64,
    /// Lookups that did not (the chunk was then fetched and decoded).
    pub misses: u64,
    /// Entries dropped to make room.
    pub evictions: u64,
    /// What the entries cost, in bytes (at most the bound).
    pub bytes: u64,
    /// Entries held.
    pub entries: u64,
}

#[derive(Debug)]
struct Slot {
    key: CacheKey,
    value: Cached,
    bytes: u64,
}

/// A byte-bounded LRU cache of decoded chunks (see the module docs).
///
/// Two parallel vectors, scanned: each entry's last use (the least recently used is the
/// smallest) and its slot. A scan costs microseconds for the thousands of entries a viewer's
/// cache holds (a 256 MiB cache of 64 KiB chunks: 4,096), and the module already has every
/// piece of it; a map and an ordered index (`HashMap`, `BTreeMap`) would add their generic
/// code to the module for this one use.
#[derive(Debug)]
pub struct ChunkCache {
    max_bytes: u64,
    used: Vec<u64>,
    slots: Vec<Slot>,
    clock: u64,
    stats: CacheStats,
}

impl ChunkCache {
    /// An empty cache holding at most `max_bytes` bytes of entries.
    pub fn new(max_bytes: u64) -> Self {
        ChunkCache {
            max_bytes,
            used: Vec::new(),
            slots: Vec::new(),
            clock: 0,
            stats: CacheStats::default(),
        }
    }

    /// The bound, in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The counters and the size now.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            entries: u64::try_from(self.slots.len()).unwrap_or(u64::MAX),
            ..self.stats
        }
    }

    fn find(&self, key: &CacheKey) -> Option<usize> {
        self.slots.iter().position(|s| s.key == *key)
    }

    /// The least recently used entry.
    fn oldest(&self) -> Option<usize> {
        let mut best: Option<(usize, u64)> = None;
        for (i, &u) in self.used.iter().enumerate() {
            if best.is_none_or(|(_, b)| u < b) {
                best = Some((i, u));
            }
        }
        best.map(|(i, _)| i)
    }

    fn tick(&mut self) -> u64 {
        self.clock = self.clock.saturating_add(1);
        self.clock
    }

    fn remove(&mut self, i: usize) -> Option<Slot> {
        if i >= self.slots.len() {
            return None;
        }
        self.used.swap_remove(i);
        let slot = self.slots.swap_remove(i);
        self.stats.bytes = self.stats.bytes.saturating_sub(slot.bytes);
        Some(slot)
    }

    /// The entry of `key`, made the most recently used (counted as a hit), or `None`
    /// (counted as a miss).
    pub fn get(&mut self, key: &CacheKey) -> Option<Cached> {
        let now = self.tick();
        let found = self.find(key);
        let counter = match found {
            Some(_) => &mut self.stats.hits,
            None => &mut self.stats.misses,
        };
        *counter = counter.saturating_add(1);
        let i = found?;
        *self.used.get_mut(i)? = now;
        Some(self.slots.get(i)?.value.clone())
    }

    /// Keeps `value` as the entry of `key` (replacing one there), evicting the least
    /// recently used entries to stay within the bound. Not kept: an entry larger than the
    /// bound, and JSON values.
    pub fn insert(&mut self, key: CacheKey, value: Cached) {
        let Some(bytes) = entry_bytes(&key, &value) else {
            return;
        };
        if let Some(i) = self.find(&key) {
            self.remove(i);
        }
        if bytes > self.max_bytes {
            return;
        }
        while self.stats.bytes.saturating_add(bytes) > self.max_bytes {
            if self.oldest().and_then(|i| self.remove(i)).is_none() {
                break;
            }
            self.stats.evictions = self.stats.evictions.saturating_add(1);
        }
        let now = self.tick();
        self.used.push(now);
        self.slots.push(Slot { key, value, bytes });
        self.stats.bytes = self.stats.bytes.saturating_add(bytes);
    }

    /// Drops every entry; the hit, miss and eviction counters go on.
    pub fn clear(&mut self) {
        self.used.clear();
        self.slots.clear();
        self.stats.bytes = 0;
    }
}

/// What an entry costs (see the module docs), `None` for values not kept.
fn entry_bytes(key: &CacheKey, value: &Cached) -> Option<u64> {
    let len = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    let slot = len(std::mem::size_of::<Vec<u8>>());
    let values = match value.as_deref() {
        None => 0,
        Some(DecodedChunk::Fixed(bytes)) => len(bytes.len()),
        Some(DecodedChunk::Strings(v)) => v.iter().fold(0u64, |n, s| {
            n.saturating_add(len(s.len())).saturating_add(slot)
        }),
        Some(DecodedChunk::Bytes(v)) => v.iter().fold(0u64, |n, b| {
            n.saturating_add(len(b.len())).saturating_add(slot)
        }),
        Some(DecodedChunk::Json(_)) => return None,
    };
    Some(
        values
            .saturating_add(ENTRY_OVERHEAD)
            .saturating_add(len(key.key.len()))
            .saturating_add(len(key.inner.len()).saturating_mul(8)),
    )
}

/// A read's use of a cache: the cache, and the identity of the array read.
#[derive(Clone, Copy, Debug)]
pub struct CacheUse<'a> {
    /// The cache (shared with other reads; borrowed only between awaits).
    pub cache: &'a RefCell<ChunkCache>,
    /// The array's identity ([`CacheKey::array`]).
    pub array: u64,
}

impl CacheUse<'_> {
    fn key(&self, key: &str, inner: &[u64]) -> CacheKey {
        CacheKey {
            array: self.array,
            key: key.to_string(),
            inner: inner.to_vec(),
        }
    }

    /// The cached chunk `key` (`inner`: coordinates of an inner chunk in that shard).
    pub(crate) fn get(&self, key: &str, inner: &[u64]) -> Option<Cached> {
        // Never borrowed across an await, so always free; if not, a miss rather than a panic.
        self.cache.try_borrow_mut().ok()?.get(&self.key(key, inner))
    }

    /// Keeps a decoded chunk (see [`CacheUse::get`] for `key` and `inner`).
    pub(crate) fn put(&self, key: &str, inner: &[u64], value: Cached) {
        if let Ok(mut cache) = self.cache.try_borrow_mut() {
            cache.insert(self.key(key, inner), value);
        }
    }
}
