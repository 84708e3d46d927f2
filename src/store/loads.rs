//! Values read from a store once and kept for later reads: a shard's index, an Icechunk
//! manifest. The first read of a key loads it (one request); reads that ask while it is on
//! its way wait for that request instead of sending their own; later reads find it here. If
//! the read that loads a value fails or is dropped (cancelled), one of the waiting reads
//! loads it in turn.
//!
//! The cache is bounded by bytes ([`LoadCache::max_bytes`], each value weighing what
//! [`Weigh::memory_bytes`] says); the least recently used entries are evicted first. A value
//! heavier than the whole bound is returned but not kept.

use crate::error::Result;
use std::future::{poll_fn, Future};
use std::sync::{Mutex, MutexGuard};
use std::task::{Poll, Waker};

/// What a kept value costs in memory.
pub trait Weigh {
    /// The bytes the value holds.
    fn memory_bytes(&self) -> u64;
}

/// What an entry costs besides its key and its value.
const ENTRY_OVERHEAD: u64 = 64;

enum State<V> {
    /// A read is loading it; these tasks wait for it.
    Loading(Vec<Waker>),
    Ready {
        value: V,
        bytes: u64,
    },
}

struct Entry<V> {
    key: String,
    state: State<V>,
    used: u64,
}

struct Inner<V> {
    entries: Vec<Entry<V>>,
    bytes: u64,
    clock: u64,
    loads: u64,
}

/// Values loaded once per key and kept within a bound (see the module docs).
pub struct LoadCache<V> {
    max_bytes: u64,
    inner: Mutex<Inner<V>>,
}

impl<V> std::fmt::Debug for LoadCache<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("LoadCache")
            .field("max_bytes", &self.max_bytes)
            .field("entries", &inner.entries.len())
            .field("bytes", &inner.bytes)
            .finish()
    }
}

/// What a read found for a key.
enum Claim<V> {
    Known(V),
    /// Nobody has it: this read loads it.
    Load,
}

/// What keeping `value` under `key` costs.
pub fn entry_cost<V: Weigh>(key: &str, value: &V) -> u64 {
    ENTRY_OVERHEAD
        .saturating_add(u64::try_from(key.len()).unwrap_or(u64::MAX))
        .saturating_add(value.memory_bytes())
}

impl<V> LoadCache<V> {
    fn lock(&self) -> MutexGuard<'_, Inner<V>> {
        // Nothing panics while it is held; a poisoned lock still holds consistent entries.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<V: Clone + Weigh> LoadCache<V> {
    /// An empty cache of at most `max_bytes` bytes of entries.
    pub fn new(max_bytes: u64) -> Self {
        LoadCache {
            max_bytes,
            inner: Mutex::new(Inner {
                entries: Vec::new(),
                bytes: 0,
                clock: 0,
                loads: 0,
            }),
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

    /// Values kept.
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

    /// Values loaded so far (each a store request), those kept by [`LoadCache::put`] included.
    pub fn loads(&self) -> u64 {
        self.lock().loads
    }

    /// The value of `key` without loading it, if it is kept.
    pub fn get(&self, key: &str) -> Option<V> {
        let mut inner = self.lock();
        inner.clock = inner.clock.saturating_add(1);
        let clock = inner.clock;
        let entry = inner.entries.iter_mut().find(|e| e.key == key)?;
        match &entry.state {
            State::Ready { value, .. } => {
                entry.used = clock;
                Some(value.clone())
            }
            State::Loading(_) => None,
        }
    }

    /// The value of `key`: kept, or loaded by `load`, or awaited while another read loads
    /// it. `load` runs at most once.
    pub async fn get_or_load<F, Fut>(&self, key: &str, load: F) -> Result<V>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V>>,
    {
        match poll_fn(|cx| self.claim(key, cx.waker())).await {
            Claim::Known(value) => Ok(value),
            Claim::Load => {
                let guard = Loading { cache: self, key };
                let value = load().await?;
                guard.finish(value.clone());
                Ok(value)
            }
        }
    }

    fn claim(&self, key: &str, waker: &Waker) -> Poll<Claim<V>> {
        let mut inner = self.lock();
        inner.clock = inner.clock.saturating_add(1);
        let clock = inner.clock;
        match inner.entries.iter_mut().find(|e| e.key == key) {
            Some(entry) => match &mut entry.state {
                State::Ready { value, .. } => {
                    entry.used = clock;
                    Poll::Ready(Claim::Known(value.clone()))
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

    /// Keeps a value a read came by otherwise, unless one is kept or loading.
    pub fn put(&self, key: &str, value: V) {
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
        self.settle(&mut inner, key, Some(value));
    }

    /// Drops what is kept of `key` (it no longer matches the store).
    pub fn forget(&self, key: &str) {
        let mut inner = self.lock();
        if let Some(at) = inner.entries.iter().position(|e| e.key == key) {
            if let State::Ready { bytes, .. } = inner.entries[at].state {
                inner.bytes = inner.bytes.saturating_sub(bytes);
                inner.entries.swap_remove(at);
            }
        }
    }

    /// Ends the loading of `key`: kept with `value`, or (`None`: the load failed or was
    /// dropped) removed; the waiting reads are woken either way.
    fn settle(&self, inner: &mut Inner<V>, key: &str, value: Option<V>) {
        let Some(at) = inner.entries.iter().position(|e| e.key == key) else {
            return;
        };
        let waiting = match &mut inner.entries[at].state {
            State::Loading(waiting) => std::mem::take(waiting),
            State::Ready { .. } => return,
        };
        if value.is_some() {
            inner.loads = inner.loads.saturating_add(1);
        }
        match value {
            Some(value) if entry_cost(key, &value) <= self.max_bytes => {
                let bytes = entry_cost(key, &value);
                inner.entries[at].state = State::Ready { value, bytes };
                inner.bytes = inner.bytes.saturating_add(bytes);
                evict(inner, self.max_bytes, key);
            }
            _ => {
                inner.entries.swap_remove(at);
            }
        }
        for waker in waiting {
            waker.wake();
        }
    }
}

/// Evicts the least recently used kept entries other than `keep` until the cache fits.
fn evict<V>(inner: &mut Inner<V>, max_bytes: u64, keep: &str) {
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
struct Loading<'a, V: Clone + Weigh> {
    cache: &'a LoadCache<V>,
    key: &'a str,
}

impl<V: Clone + Weigh> Loading<'_, V> {
    fn finish(self, value: V) {
        let mut inner = self.cache.lock();
        self.cache.settle(&mut inner, self.key, Some(value));
        drop(inner);
        std::mem::forget(self);
    }
}

impl<V: Clone + Weigh> Drop for Loading<'_, V> {
    fn drop(&mut self) {
        let mut inner = self.cache.lock();
        self.cache.settle(&mut inner, self.key, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::block_on;
    use std::cell::Cell;
    use std::task::Context;

    /// A value weighing `.0` bytes.
    #[derive(Clone, Debug, PartialEq)]
    struct Blob(u64);

    impl Weigh for Blob {
        fn memory_bytes(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn loads_once_and_forgets_on_demand() {
        let cache = LoadCache::new(1 << 20);
        let calls = Cell::new(0);
        let load = |n: u64| {
            calls.set(calls.get() + 1);
            async move { Ok(Blob(n)) }
        };
        assert_eq!(
            block_on(cache.get_or_load("a", || load(4))).unwrap(),
            Blob(4)
        );
        assert_eq!(
            block_on(cache.get_or_load("a", || load(5))).unwrap(),
            Blob(4)
        );
        assert_eq!(
            block_on(cache.get_or_load("b", || load(6))).unwrap(),
            Blob(6)
        );
        assert_eq!(calls.get(), 2);
        assert_eq!((cache.len(), cache.loads()), (2, 2));
        cache.forget("a");
        assert!(cache.get("a").is_none());
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_failed_load_is_not_kept() {
        let cache: LoadCache<Blob> = LoadCache::new(1 << 20);
        let failed = block_on(cache.get_or_load("a", || async {
            Err(crate::ZomError::invalid_argument("no"))
        }));
        assert!(failed.is_err());
        assert!(cache.is_empty());
        assert_eq!(
            block_on(cache.get_or_load("a", || async { Ok(Blob(1)) })).unwrap(),
            Blob(1)
        );
    }

    /// Ready once `gate` is set.
    async fn opened(gate: &Cell<bool>) {
        poll_fn(|_| {
            if gate.get() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }

    #[test]
    fn a_waiting_read_shares_the_load_and_takes_over_a_dropped_one() {
        let cache = LoadCache::new(1 << 20);
        let mut cx = Context::from_waker(Waker::noop());
        let gate = Cell::new(false);
        let pending_load = || async {
            opened(&gate).await;
            Ok(Blob(2))
        };
        let mut first = Box::pin(cache.get_or_load("k", pending_load));
        assert!(first.as_mut().poll(&mut cx).is_pending());
        let mut second = Box::pin(cache.get_or_load("k", || async { Ok(Blob(3)) }));
        assert!(
            second.as_mut().poll(&mut cx).is_pending(),
            "waits for the first"
        );
        drop(first);
        // The first read was dropped: the second loads it itself.
        assert!(matches!(
            second.as_mut().poll(&mut cx),
            Poll::Ready(Ok(Blob(3)))
        ));
        gate.set(true);
        let mut third = Box::pin(cache.get_or_load("k", || async { Ok(Blob(9)) }));
        assert!(matches!(
            third.as_mut().poll(&mut cx),
            Poll::Ready(Ok(Blob(3)))
        ));
        assert_eq!(cache.loads(), 1);
    }

    #[test]
    fn waiting_reads_get_the_loaded_value_without_loading() {
        let cache = LoadCache::new(1 << 20);
        let mut cx = Context::from_waker(Waker::noop());
        let gate = Cell::new(false);
        let calls = Cell::new(0);
        let gated = || async {
            calls.set(calls.get() + 1);
            opened(&gate).await;
            Ok(Blob(7))
        };
        let mut first = Box::pin(cache.get_or_load("k", gated));
        let mut others: Vec<_> = (0..5)
            .map(|_| Box::pin(cache.get_or_load("k", gated)))
            .collect();
        assert!(first.as_mut().poll(&mut cx).is_pending());
        for other in &mut others {
            assert!(other.as_mut().poll(&mut cx).is_pending());
        }
        gate.set(true);
        assert!(matches!(
            first.as_mut().poll(&mut cx),
            Poll::Ready(Ok(Blob(7)))
        ));
        for other in &mut others {
            assert!(matches!(
                other.as_mut().poll(&mut cx),
                Poll::Ready(Ok(Blob(7)))
            ));
        }
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn stays_within_its_bound() {
        let one = entry_cost("s/0", &Blob(1000));
        let cache = LoadCache::new(3 * one);
        for i in 0..10 {
            let key = format!("s/{i}");
            block_on(cache.get_or_load(&key, || async { Ok(Blob(1000)) })).unwrap();
            assert!(cache.bytes() <= cache.max_bytes());
        }
        assert_eq!(cache.len(), 3);
        // The most recent ones are kept.
        assert!(cache.get("s/9").is_some() && cache.get("s/0").is_none());
        // Heavier than the whole bound: returned, not kept.
        let small = LoadCache::new(16);
        let got = block_on(small.get_or_load("s", || async { Ok(Blob(1000)) })).unwrap();
        assert!(got == Blob(1000) && small.is_empty());
    }
}
