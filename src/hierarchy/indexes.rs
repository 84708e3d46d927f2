//! The shard indexes an opened array has read, kept for its later reads: a shard's index is
//! metadata of the shard, read once per array rather than once per read.
//!
//! Reads of a sharded array ask [`ShardIndexes::get_or_load`] for a shard's index: the first
//! read of a shard loads it, reads that ask while it is on its way wait for it, later reads
//! cost only the byte ranges of their inner chunks ([`LoadCache`]). A shard that does not
//! exist is remembered too (its chunks read as the fill value without a request).
//!
//! Entries are as stale as the array's metadata: an index read once is trusted until it is
//! evicted or the array is opened again. A read whose ranges no longer match the shard (the
//! shard was rewritten, shrank or went away) fails, and drops the index so that the next read
//! loads it afresh ([`LoadCache::forget`]).

use crate::codec::sharding::ShardIndex;
use crate::store::loads::{LoadCache, Weigh};
use std::sync::Arc;

/// The default bound of an array's [`ShardIndexes`], in bytes: a few thousand shards of 8×8
/// inner chunks.
pub const DEFAULT_INDEX_CACHE_BYTES: u64 = 4 << 20;

/// A shard's index as a read uses it: `None` when the shard does not exist.
pub type KnownIndex = Option<Arc<ShardIndex>>;

/// The shard indexes of one opened array (see the module docs), bounded by bytes.
pub type ShardIndexes = LoadCache<KnownIndex>;

impl Weigh for KnownIndex {
    fn memory_bytes(&self) -> u64 {
        self.as_ref().map_or(0, |i| i.memory_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::block_on;
    use std::cell::Cell;

    fn index(n: u64) -> ShardIndex {
        let words: Vec<u64> = (0..n).flat_map(|i| [i * 10, 10]).collect();
        ShardIndex::from_pairs(vec![n], &words).unwrap()
    }

    #[test]
    fn loads_once_and_remembers_missing_shards() {
        let cache = ShardIndexes::new(1 << 20);
        let calls = Cell::new(0);
        let load = |missing: bool| {
            calls.set(calls.get() + 1);
            async move { Ok((!missing).then(|| Arc::new(index(4)))) }
        };
        for missing in [false, false] {
            assert!(block_on(cache.get_or_load("a", || load(missing)))
                .unwrap()
                .is_some());
        }
        for missing in [true, true] {
            assert!(block_on(cache.get_or_load("b", || load(missing)))
                .unwrap()
                .is_none());
        }
        assert_eq!(calls.get(), 2);
        assert_eq!((cache.len(), cache.loads()), (2, 2));
        // A missing shard weighs its entry only; an index its ranges too.
        let (a, b) = (Some(Arc::new(index(64))), None);
        assert!(entry_weight(&a) > entry_weight(&b));
    }

    fn entry_weight(index: &KnownIndex) -> u64 {
        crate::store::loads::entry_cost("s", index)
    }
}
