//! The decoded-chunk cache: its LRU order and byte bound, and reads through it over a
//! `MemoryStore` (which counts requests): a region read again makes no request (for shards not
//! even the index), overlapping selections share chunks, missing chunks and strings are cached
//! too, two arrays share one cache without mixing, and a decode hook's reads equal the others.

mod common;

use common::store::{block_on, open_array, store_from_dir};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use zom::chunk::{ChunkRead, DimSelection, Selection};
use zom::codec::DecodedChunk;
use zom::error::Result;
use zom::hierarchy::{
    read, read_cached, ArrayReader, CacheKey, CacheUse, ChunkCache, ChunkPart, ChunkValues,
    DecodeHook, NoHook, ReadContext, ReadOptions, ENTRY_OVERHEAD,
};
use zom::store::MemoryStore;

fn key(array: u64, name: &str) -> CacheKey {
    CacheKey {
        array,
        key: name.to_string(),
        inner: Vec::new(),
    }
}

fn fixed(n: usize) -> Option<Rc<DecodedChunk>> {
    Some(Rc::new(DecodedChunk::Fixed(vec![7; n])))
}

/// What an entry of `key(_, name)` holding `n` bytes costs.
fn cost(name: &str, n: u64) -> u64 {
    n + ENTRY_OVERHEAD + name.len() as u64
}

#[test]
fn least_recently_used_entries_go_first_within_the_byte_bound() {
    let mut cache = ChunkCache::new(3 * cost("a", 100));
    cache.insert(key(1, "a"), fixed(100));
    cache.insert(key(1, "b"), fixed(100));
    cache.insert(key(1, "c"), fixed(100));
    assert_eq!(cache.stats().entries, 3);
    assert_eq!(cache.stats().bytes, 3 * cost("a", 100));
    // "a" used last: "b" is now the oldest.
    assert!(cache.get(&key(1, "a")).is_some());
    cache.insert(key(1, "d"), fixed(100));
    assert!(cache.get(&key(1, "b")).is_none());
    for name in ["a", "c", "d"] {
        assert!(cache.get(&key(1, name)).is_some(), "{name}");
    }
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.evictions), (4, 1, 1));
    assert!(stats.bytes <= cache.max_bytes());
    // A large entry evicts as many as it needs, oldest first ("a", then "c").
    cache.insert(key(1, "e"), fixed(150));
    assert!(cache.get(&key(1, "a")).is_none());
    assert!(cache.get(&key(1, "c")).is_none());
    assert!(cache.get(&key(1, "d")).is_some());
    assert!(cache.stats().bytes <= cache.max_bytes());
    assert_eq!(cache.stats().evictions, 3);
}

#[test]
fn entries_over_the_bound_are_not_kept_and_keys_do_not_mix() {
    let mut cache = ChunkCache::new(cost("a", 100));
    cache.insert(key(1, "a"), fixed(101));
    assert_eq!(cache.stats().entries, 0);
    cache.insert(key(1, "a"), fixed(100));
    // Another array's chunk of the same key, and an inner chunk of it, are other entries.
    assert!(cache.get(&key(2, "a")).is_none());
    let inner = CacheKey {
        inner: vec![0, 0],
        ..key(1, "a")
    };
    assert!(cache.get(&inner).is_none());
    // Replacing an entry does not count it twice.
    cache.insert(key(1, "a"), fixed(100));
    assert_eq!(cache.stats().bytes, cost("a", 100));
    // Missing chunks are entries too; JSON values are not kept.
    let mut big = ChunkCache::new(1 << 20);
    big.insert(key(1, "missing"), None);
    assert_eq!(big.get(&key(1, "missing")), Some(None));
    big.insert(
        key(1, "json"),
        Some(Rc::new(DecodedChunk::Json(vec![serde_json::Value::Null]))),
    );
    assert!(big.get(&key(1, "json")).is_none());
    big.clear();
    assert_eq!((big.stats().entries, big.stats().bytes), (0, 0));
    assert_eq!(big.stats().hits, 1);
}

fn sample() -> MemoryStore {
    store_from_dir(&common::fixtures().join("sample"))
}

fn region(rows: (i64, i64), cols: (i64, i64)) -> Selection {
    Selection(vec![
        DimSelection::slice(Some(rows.0), Some(rows.1), None),
        DimSelection::slice(Some(cols.0), Some(cols.1), None),
    ])
}

/// A read through `cache` as array `array`: its values and the requests it made.
fn cached_read(
    store: &MemoryStore,
    reader: &ArrayReader,
    selection: &Selection,
    cache: &RefCell<ChunkCache>,
    array: u64,
) -> (ChunkValues, u64) {
    store.reset_counts();
    let context = ReadContext {
        cache: Some(CacheUse { cache, array }),
        ..ReadContext::default()
    };
    let options = ReadOptions::default();
    let values = block_on(read_cached::<_, NoHook>(
        store,
        reader,
        selection,
        &options,
        None,
        context,
        &mut |_| {},
    ))
    .unwrap();
    (values, store.counts().total())
}

fn plain_read(store: &MemoryStore, reader: &ArrayReader, selection: &Selection) -> ChunkValues {
    block_on(read(
        store,
        reader,
        selection,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap()
}

#[test]
fn a_region_read_again_makes_no_request_and_overlaps_share_chunks() {
    let store = sample();
    let reader = open_array(&store, "measurements/temperature"); // 64 × 48, chunks 16 × 16
    let cache = RefCell::new(ChunkCache::new(64 << 20));
    let first = region((0, 20), (0, 20));
    let (values, requests) = cached_read(&store, &reader, &first, &cache, 1);
    assert_eq!(requests, 4);
    assert_eq!(values, plain_read(&store, &reader, &first));
    let (again, requests) = cached_read(&store, &reader, &first, &cache, 1);
    assert_eq!(requests, 0);
    assert_eq!(again, values);
    let stats = cache.borrow().stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (4, 4, 4));
    // Rows 10..40 touch chunk rows 0, 1, 2: the first four chunks are cached.
    let overlap = region((10, 40), (0, 20));
    let (values, requests) = cached_read(&store, &reader, &overlap, &cache, 1);
    assert_eq!(requests, 2);
    assert_eq!(values, plain_read(&store, &reader, &overlap));
    let stats = cache.borrow().stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (8, 6, 6));
}

#[test]
fn missing_chunks_and_strings_are_cached() {
    let mut store = sample();
    let reader = open_array(&store, "measurements/temperature");
    assert!(store.remove(&reader.chunk_key(&[0, 0]).unwrap()).is_some());
    let cache = RefCell::new(ChunkCache::new(64 << 20));
    let first = region((0, 20), (0, 20));
    let (values, requests) = cached_read(&store, &reader, &first, &cache, 1);
    assert_eq!(requests, 4);
    assert_eq!(values, plain_read(&store, &reader, &first));
    assert_eq!(cached_read(&store, &reader, &first, &cache, 1), (values, 0));

    let labels = open_array(&store, "measurements/labels"); // strings, chunks of 3
    let all = Selection(Vec::new());
    let (values, requests) = cached_read(&store, &labels, &all, &cache, 2);
    assert!(requests > 0);
    assert!(matches!(values.data, DecodedChunk::Strings(_)));
    assert_eq!(values, plain_read(&store, &labels, &all));
    assert_eq!(cached_read(&store, &labels, &all, &cache, 2), (values, 0));
}

#[test]
fn a_cached_shard_region_makes_no_request_not_even_the_index() {
    let store = sample();
    // 256 × 256, shards 128 × 128 of inner chunks 32 × 32.
    let reader = open_array(&store, "image/gradient_circles");
    let cache = RefCell::new(ChunkCache::new(64 << 20));
    // Four inner chunks of one shard: the index and their ranges.
    let small = region((0, 40), (0, 40));
    let (values, requests) = cached_read(&store, &reader, &small, &cache, 1);
    assert!(requests >= 2);
    assert_eq!(values, plain_read(&store, &reader, &small));
    assert_eq!(cached_read(&store, &reader, &small, &cache, 1), (values, 0));
    // Most of a shard (whole-shard request) and one shard entirely new.
    let large = region((0, 128), (0, 200));
    let (values, requests) = cached_read(&store, &reader, &large, &cache, 1);
    assert!(requests >= 2);
    assert_eq!(values, plain_read(&store, &reader, &large));
    assert_eq!(cached_read(&store, &reader, &large, &cache, 1), (values, 0));
    assert_eq!(cache.borrow().stats().entries, 4 * 7);
}

#[test]
fn two_arrays_share_one_cache_without_mixing() {
    let store = sample();
    let a = open_array(&store, "image/gradient_circles");
    let b = open_array(&store, "image/gradient_circles_blosc");
    let cache = RefCell::new(ChunkCache::new(64 << 20));
    let sel = region((0, 32), (0, 32));
    let (va, _) = cached_read(&store, &a, &sel, &cache, 1);
    let (vb, _) = cached_read(&store, &b, &sel, &cache, 2);
    assert_eq!(va, plain_read(&store, &a, &sel));
    assert_eq!(vb, plain_read(&store, &b, &sel));
    assert_ne!(va, vb);
    assert_eq!(cached_read(&store, &a, &sel, &cache, 1), (va, 0));
    assert_eq!(cached_read(&store, &b, &sel, &cache, 2), (vb, 0));
}

#[test]
fn the_byte_bound_holds_through_reads() {
    let store = sample();
    let reader = open_array(&store, "measurements/temperature");
    // Room for three 16 × 16 float32 chunks (1 KiB each).
    let cache = RefCell::new(ChunkCache::new(3 * (1024 + ENTRY_OVERHEAD + 64)));
    let all = Selection(Vec::new());
    let (values, requests) = cached_read(&store, &reader, &all, &cache, 1);
    assert_eq!(requests, 12);
    assert_eq!(values, plain_read(&store, &reader, &all));
    let stats = cache.borrow().stats();
    assert!(stats.bytes <= 3 * (1024 + ENTRY_OVERHEAD + 64));
    assert_eq!((stats.entries, stats.evictions), (3, 9));
}

/// A hook that decodes on this thread into an output it keeps, as the JS pool does.
struct Hook {
    reader: ArrayReader,
    out: RefCell<Vec<u8>>,
    decodes: Cell<u32>,
}

impl Hook {
    fn decoded(&self, encoded: &[u8], part: ChunkPart, read: &ChunkRead) -> Result<Vec<u8>> {
        self.decodes.set(self.decodes.get() + 1);
        let pipeline = match part {
            ChunkPart::Chunk => self.reader.pipeline(),
            ChunkPart::Inner => self.reader.pipeline().sharding().unwrap().inner_pipeline(),
        };
        let DecodedChunk::Fixed(bytes) = pipeline.decode(encoded)? else {
            panic!("fixed-size values expected")
        };
        self.place(&bytes, read)?;
        Ok(bytes)
    }
}

impl DecodeHook for Hook {
    fn share(&self, len: u64, fill: &[u8], _: u64) -> Result<()> {
        *self.out.borrow_mut() = fill.repeat(len as usize / fill.len());
        Ok(())
    }

    async fn decode(&self, encoded: &[u8], part: ChunkPart, read: &ChunkRead) -> Result<()> {
        self.decoded(encoded, part, read).map(|_| ())
    }

    async fn decode_keep(
        &self,
        encoded: &[u8],
        part: ChunkPart,
        read: &ChunkRead,
    ) -> Result<Option<Vec<u8>>> {
        self.decoded(encoded, part, read).map(Some)
    }

    fn place(&self, decoded: &[u8], read: &ChunkRead) -> Result<()> {
        let item = self.reader.data_type().fixed_size().unwrap();
        read.copy_into(&mut self.out.borrow_mut(), item, decoded)
    }
}

#[test]
fn a_hook_places_cached_chunks_and_decodes_only_misses() {
    let store = sample();
    for path in ["image/gradient_circles", "measurements/temperature"] {
        let reader = open_array(&store, path);
        let hook = Hook {
            reader: open_array(&store, path),
            out: RefCell::new(Vec::new()),
            decodes: Cell::new(0),
        };
        let cache = RefCell::new(ChunkCache::new(64 << 20));
        for (i, sel) in [
            region((0, 40), (0, 40)),
            region((0, 40), (0, 40)),
            region((20, 60), (5, 45)),
        ]
        .iter()
        .enumerate()
        {
            store.reset_counts();
            let before = hook.decodes.get();
            let got = block_on(read_cached(
                &store,
                &reader,
                sel,
                &ReadOptions::default(),
                Some(&hook),
                ReadContext {
                    cache: Some(CacheUse {
                        cache: &cache,
                        array: 1,
                    }),
                    ..ReadContext::default()
                },
                &mut |_| {},
            ))
            .unwrap();
            let requests = store.counts().total();
            let expected = plain_read(&store, &reader, sel);
            assert_eq!(got.shape, expected.shape);
            assert_eq!(
                DecodedChunk::Fixed(hook.out.take()),
                expected.data,
                "{path} {i}"
            );
            if i == 1 {
                assert_eq!(hook.decodes.get(), before, "{path}");
                assert_eq!(requests, 0, "{path}");
            }
        }
    }
}
