//! The shard indexes an opened array has read, kept for its later reads: a shard's index is
//! metadata of the shard, read once per array rather than once per read.
//!
//! Reads of a sharded array ask [`ShardIndexes::get_or_load`] for a shard's index. The first
//! read of a shard loads it (one request); reads that ask while it is on its way wait for
//! that request instead of sending their own; later reads find it here and cost only the
//! byte ranges of their inner chunks. A shard that does not exist is remembered too (its
//! chunks read as the fill value without a request). If the read that loads an index fails
//! or is dropped (cancelled), one of the waiting reads loads it in turn.
//!
//! Entries are as stale as the array's metadata: an index read once is trusted until it is
//! evicted or the array is opened again. A read whose ranges no longer match the shard (the
//! shard was rewritten, shrank or went away) fails, and drops the index so that the next read
//! loads it afresh ([`ShardIndexes::forget`]).
//!
//! The cache is bounded by bytes ([`ShardIndexes::max_bytes`]); the least recently used
//! entries are evicted first. An index larger than the whole bound is not kept.

use crate::codec::sharding::ShardIndex;
use crate::error::Result;
use std::future::{poll_fn, Future};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

/// The default bound of an array's [`ShardIndexes`], in bytes: a few thousand shards of 8×8
/// inner chunks.
pub const DEFAULT_INDEX_CACHE_BYTES: u64 = 4 << 20;

/// What an entry costs besides its key and its ranges.
const ENTRY_OVERHEAD: u64 = 64;

/// A shard's index as a read uses it: `None` when the shard does not exist.
pub type KnownIndex = Option<Arc<ShardIndex>>;

enum State {
    /// A read is loading it; these tasks wait for it.
    Loading(Vec<Waker>),
    Ready {
        index: KnownIndex,
        bytes: u64,
    },
}

struct Entry {
    key: String,
    state: State,
    used: u64,
}

#[derive(Default)]
struct Inner {
    entries: Vec<Entry>,
    bytes: u64,
    clock: u64,
    loads: u64,
}

/// The shard indexes of one opened array (see the module docs).
pub struct ShardIndexes {
    max_bytes: u64,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for ShardIndexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("ShardIndexes")
            .field("max_bytes", &self.max_bytes)
            .field("entries", &inner.entries.len())
            .field("bytes", &inner.bytes)
            .finish()
    }
}

/// What a read found for a key.
enum Claim {
    Known(KnownIndex),
    /// Nobody has it: this read loads it.
    Load,
}

impl ShardIndexes {
    /// An empty cache of at most `max_bytes` bytes of entries.
    pub fn new(max_bytes: u64) -> Self {
        ShardIndexes {
            max_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The bound, in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// What the kept entries cost, in bytes.
    pub fn bytes(&self) -> u64 {
        self.lock().bytes
    }

    /// Indexes (and missing shards) kept.
    pub fn len(&self) -> usize {
        self.lock()
            .entries
            .iter()
            .filter(|e| matches!(e.state, State::Ready { .. }))
            .count()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Indexes loaded so far (each a store request), found missing included.
    pub fn loads(&self) -> u64 {
        self.lock().loads
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics while it is held; a poisoned lock still holds consistent entries.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The index of shard `key` without loading it, if it is kept.
    pub fn get(&self, key: &str) -> Option<KnownIndex> {
        let mut inner = self.lock();
        inner.clock = inner.clock.saturating_add(1);
        let clock = inner.clock;
        let entry = inner.entries.iter_mut().find(|e| e.key == key)?;
        match &entry.state {
            State::Ready { index, .. } => {
                entry.used = clock;
                Some(index.clone())
            }
            State::Loading(_) => None,
        }
    }

    /// The index of shard `key`: kept, or loaded by `load` (`Ok(None)`: the shard does not
    /// exist), or awaited while another read loads it. `load` runs at most once.
    pub async fn get_or_load<F, Fut>(&self, key: &str, load: F) -> Result<KnownIndex>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Option<ShardIndex>>>,
    {
        match poll_fn(|cx| self.claim(key, cx.waker())).await {
            Claim::Known(index) => Ok(index),
            Claim::Load => {
                let guard = Loading { cache: self, key };
                let index = load().await?.map(Arc::new);
                guard.finish(index.clone());
                Ok(index)
            }
        }
    }

    fn claim(&self, key: &str, waker: &Waker) -> Poll<Claim> {
        let mut inner = self.lock();
        inner.clock = inner.clock.saturating_add(1);
        let clock = inner.clock;
        match inner.entries.iter_mut().find(|e| e.key == key) {
            Some(entry) => match &mut entry.state {
                State::Ready { index, .. } => {
                    entry.used = clock;
                    Poll::Ready(Claim::Known(index.clone()))
                }
                State::Loading(waiting) => {
                    if !waiting.iter().any(|w| w.will_wake(waker)) {
                        waiting.push(waker.clone());
                    }
                    Poll::Pending
                }
            },
            None => {
                inner.entries.push(Entry {
                    key: key.to_string(),
                    state: State::Loading(Vec::new()),
                    used: clock,
                });
                Poll::Ready(Claim::Load)
            }
        }
    }

    /// Keeps an index a read came by otherwise (from a whole shard it fetched; `None`: the
    /// shard does not exist), unless one is kept or loading.
    pub fn put(&self, key: &str, index: KnownIndex) {
        let mut inner = self.lock();
        if inner.entries.iter().any(|e| e.key == key) {
            return;
        }
        inner.clock = inner.clock.saturating_add(1);
        let used = inner.clock;
        inner.entries.push(Entry {
            key: key.to_string(),
            state: State::Loading(Vec::new()),
            used,
        });
        self.settle(&mut inner, key, Some(index));
    }

    /// Drops what is kept of shard `key` (its ranges did not match the shard).
    pub fn forget(&self, key: &str) {
        let mut inner = self.lock();
        if let Some(at) = inner.entries.iter().position(|e| e.key == key) {
            if let State::Ready { bytes, .. } = inner.entries[at].state {
                inner.bytes = inner.bytes.saturating_sub(bytes);
                inner.entries.swap_remove(at);
            }
        }
    }

    /// Ends the loading of `key`: kept with `index`, or (`None`: the load failed or was
    /// dropped) removed; the waiting reads are woken either way.
    fn settle(&self, inner: &mut Inner, key: &str, index: Option<KnownIndex>) {
        let Some(at) = inner.entries.iter().position(|e| e.key == key) else {
            return;
        };
        let waiting = match &mut inner.entries[at].state {
            State::Loading(waiting) => std::mem::take(waiting),
            State::Ready { .. } => return,
        };
        let bytes = index.as_ref().map(|index| cost(key, index.as_deref()));
        match (index, bytes) {
            (Some(index), Some(bytes)) if bytes <= self.max_bytes => {
                inner.loads = inner.loads.saturating_add(1);
                inner.entries[at].state = State::Ready { index, bytes };
                inner.bytes = inner.bytes.saturating_add(bytes);
                evict(inner, self.max_bytes, key);
            }
            (index, _) => {
                if index.is_some() {
                    inner.loads = inner.loads.saturating_add(1);
                }
                inner.entries.swap_remove(at);
            }
        }
        for waker in waiting {
            waker.wake();
        }
    }
}

/// What keeping `index` for `key` costs.
fn cost(key: &str, index: Option<&ShardIndex>) -> u64 {
    let ranges = index.map_or(0, |i| i.memory_bytes());
    ENTRY_OVERHEAD
        .saturating_add(u64::try_from(key.len()).unwrap_or(u64::MAX))
        .saturating_add(ranges)
}

/// Evicts the least recently used kept entries other than `keep` until the cache fits.
fn evict(inner: &mut Inner, max_bytes: u64, keep: &str) {
    while inner.bytes > max_bytes {
        let oldest = inner
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.key != keep)
            .filter_map(|(i, e)| match e.state {
                State::Ready { bytes, .. } => Some((i, e.used, bytes)),
                State::Loading(_) => None,
            })
            .min_by_key(|&(_, used, _)| used);
        let Some((at, _, bytes)) = oldest else {
            return;
        };
        inner.entries.swap_remove(at);
        inner.bytes = inner.bytes.saturating_sub(bytes);
    }
}

/// A load under way: dropped before [`Loading::finish`] (the load failed, or the read was
/// dropped), it gives the key back to the waiting reads, one of which loads it.
struct Loading<'a> {
    cache: &'a ShardIndexes,
    key: &'a str,
}

impl Loading<'_> {
    fn finish(self, index: KnownIndex) {
        let mut inner = self.cache.lock();
        self.cache.settle(&mut inner, self.key, Some(index));
        drop(inner);
        std::mem::forget(self);
    }
}

impl Drop for Loading<'_> {
    fn drop(&mut self) {
        let mut inner = self.cache.lock();
        self.cache.settle(&mut inner, self.key, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::pin::pin;
    use std::task::Context;

    fn index(n: u64) -> ShardIndex {
        let words: Vec<u64> = (0..n).flat_map(|i| [i * 10, 10]).collect();
        ShardIndex::from_pairs(vec![n], &words).unwrap()
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn loads_once_and_remembers_missing_shards() {
        let cache = ShardIndexes::new(1 << 20);
        let calls = Cell::new(0);
        let load = |missing: bool| {
            calls.set(calls.get() + 1);
            async move { Ok(if missing { None } else { Some(index(4)) }) }
        };
        assert!(block_on(cache.get_or_load("a", || load(false)))
            .unwrap()
            .is_some());
        assert!(block_on(cache.get_or_load("a", || load(false)))
            .unwrap()
            .is_some());
        assert!(block_on(cache.get_or_load("b", || load(true)))
            .unwrap()
            .is_none());
        assert!(block_on(cache.get_or_load("b", || load(true)))
            .unwrap()
            .is_none());
        assert_eq!(calls.get(), 2);
        assert_eq!((cache.len(), cache.loads()), (2, 2));
        cache.forget("a");
        assert!(cache.get("a").is_none());
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_waiting_read_shares_the_load_and_takes_over_a_dropped_one() {
        let cache = ShardIndexes::new(1 << 20);
        let mut cx = Context::from_waker(Waker::noop());
        let gate = Cell::new(false);
        let pending_load = || async {
            poll_fn(|_| {
                if gate.get() {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            Ok(Some(index(2)))
        };
        let mut first = Box::pin(cache.get_or_load("k", pending_load));
        assert!(first.as_mut().poll(&mut cx).is_pending());
        let mut second = Box::pin(cache.get_or_load("k", || async { Ok(Some(index(3))) }));
        assert!(
            second.as_mut().poll(&mut cx).is_pending(),
            "waits for the first"
        );
        drop(first);
        // The first read was dropped: the second loads it itself.
        match second.as_mut().poll(&mut cx) {
            Poll::Ready(Ok(Some(i))) => assert_eq!(i.chunk(&[2]).unwrap(), Some(20..30)),
            other => panic!("{other:?}"),
        }
        gate.set(true);
        let mut third = Box::pin(cache.get_or_load("k", || async { Ok(None) }));
        assert!(matches!(
            third.as_mut().poll(&mut cx),
            Poll::Ready(Ok(Some(_)))
        ));
        assert_eq!(cache.loads(), 1);
    }

    #[test]
    fn stays_within_its_bound() {
        let one = cost("s/0", Some(&index(64)));
        let cache = ShardIndexes::new(3 * one);
        for i in 0..10 {
            let key = format!("s/{i}");
            block_on(cache.get_or_load(&key, || async { Ok(Some(index(64))) })).unwrap();
            assert!(cache.bytes() <= cache.max_bytes());
        }
        assert_eq!(cache.len(), 3);
        // The most recent ones are kept.
        assert!(cache.get("s/9").is_some() && cache.get("s/0").is_none());
        // Larger than the whole bound: returned, not kept.
        let small = ShardIndexes::new(16);
        let got = block_on(small.get_or_load("s", || async { Ok(Some(index(64))) })).unwrap();
        assert!(got.is_some() && small.is_empty());
    }
}
