//! An opened array keeps the shard indexes its reads fetch: a tile of a shard already touched
//! costs one request, reads of one shard under way together share one index request, a read
//! dropped while it loads an index hands the load to a waiting read, and an index that no
//! longer matches its shard is dropped after the failed read.

mod common;

use common::fixtures;
use common::store::{block_on, open_array, slices, store_from_dir, Slow};
use futures_util::future::join;
use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use zom::chunk::Selection;
use zom::hierarchy::{read, ArrayReader, ReadOptions};
use zom::store::{MemoryStore, Store};

fn read_values<S: Store>(store: &S, reader: &ArrayReader, selection: &Selection) -> Vec<u8> {
    let values = block_on(read(
        store,
        reader,
        selection,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap();
    match values.data {
        zom::codec::DecodedChunk::Fixed(bytes) => bytes,
        other => panic!("{other:?}"),
    }
}

/// The v3 fixture store, and its `shard_index_end` array: 12×10 in shards of 8×8 made of
/// inner chunks of 4×4.
fn sharded() -> (MemoryStore, ArrayReader) {
    let store = store_from_dir(&fixtures().join("v3"));
    let reader = open_array(&store, "shard_index_end");
    store.reset_counts();
    (store, reader)
}

#[test]
fn a_tile_of_a_shard_already_touched_costs_one_request() {
    let (store, reader) = sharded();
    read_values(&store, &reader, &slices(&[(0, 4), (0, 4)]));
    assert_eq!(store.log().len(), 2, "index and range: {:?}", store.log());
    for tile in [(0, 4, 4, 8), (4, 8, 0, 4), (4, 8, 4, 8)] {
        store.reset_counts();
        read_values(
            &store,
            &reader,
            &slices(&[(tile.0, tile.1), (tile.2, tile.3)]),
        );
        let log = store.log();
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(
            log[0].starts_with("range shard_index_end/c/0/0 "),
            "{log:?}"
        );
    }
    // Read whole once, a shard's index is known too: its tiles are ranges only.
    store.reset_counts();
    read_values(&store, &reader, &Selection::all());
    store.reset_counts();
    read_values(&store, &reader, &slices(&[(8, 12), (0, 4)]));
    let log = store.log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].starts_with("range shard_index_end/c/1/0 "),
        "{log:?}"
    );
    // A missing shard is remembered as missing: its tiles cost nothing.
    store.reset_counts();
    let fill = read_values(&store, &reader, &slices(&[(8, 12), (8, 10)]));
    assert!(store.log().is_empty(), "{:?}", store.log());
    let fresh = open_array(&store, "shard_index_end");
    assert_eq!(
        fill,
        read_values(&store, &fresh, &slices(&[(8, 12), (8, 10)]))
    );
    assert_eq!(reader.shard_indexes().len(), 4);
}

#[test]
fn the_values_are_those_of_a_fresh_array() {
    let (store, reader) = sharded();
    for selection in [
        slices(&[(0, 4), (4, 8)]),
        Selection::all(),
        slices(&[(2, 11), (3, 9)]),
        slices(&[(0, 4), (4, 8)]),
    ] {
        let fresh = open_array(&store, "shard_index_end");
        assert_eq!(
            read_values(&store, &reader, &selection),
            read_values(&store, &fresh, &selection)
        );
    }
}

#[test]
fn reads_under_way_together_share_one_index_request() {
    let (store, reader) = sharded();
    let slow = Slow::new(&store);
    let (a, b) = (slices(&[(0, 4), (0, 4)]), slices(&[(4, 8), (4, 8)]));
    block_on(join(async { read_values(&slow, &reader, &a) }, async {
        read_values(&slow, &reader, &b)
    }));
    let log = store.log();
    let index = log.iter().filter(|l| l.starts_with("suffix")).count();
    assert_eq!((index, log.len()), (1, 3), "{log:?}");
    assert_eq!(reader.shard_indexes().loads(), 1);
}

#[test]
fn a_read_dropped_while_it_loads_an_index_hands_the_load_on() {
    let (store, reader) = sharded();
    let slow = Slow::new(&store);
    let options = ReadOptions::default();
    let (a, b) = (slices(&[(0, 4), (0, 4)]), slices(&[(4, 8), (4, 8)]));
    let (mut quiet_a, mut quiet_b) = (|_| {}, |_| {});
    let mut first = Box::pin(read(&slow, &reader, &a, &options, &mut quiet_a));
    let mut second = pin!(read(&slow, &reader, &b, &options, &mut quiet_b));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(first.as_mut().poll(&mut cx).is_pending());
    assert!(second.as_mut().poll(&mut cx).is_pending());
    // The first read, which asked for the index, goes away (a tile no longer wanted).
    drop(first);
    let done = Cell::new(None);
    for _ in 0..10 {
        if let Poll::Ready(result) = second.as_mut().poll(&mut cx) {
            done.set(Some(result.map(|v| v.shape)));
            break;
        }
    }
    assert_eq!(done.take().unwrap().unwrap(), [4, 4]);
    let log = store.log();
    let index = log.iter().filter(|l| l.starts_with("suffix")).count();
    // The first index request was sent before the read was dropped; the second read sent
    // its own.
    assert_eq!(index, 2, "{log:?}");
    assert_eq!(reader.shard_indexes().loads(), 1);
}

#[test]
fn an_index_that_no_longer_matches_its_shard_is_read_again() {
    let (mut store, reader) = sharded();
    read_values(&store, &reader, &slices(&[(0, 4), (0, 4)]));
    // The shard is rewritten shorter: the kept index points past its end.
    let key = "shard_index_end/c/0/0";
    let whole = block_on(store.get(key)).unwrap().unwrap();
    let fresh = open_array(&store, "shard_index_end");
    let expected = read_values(&store, &fresh, &slices(&[(4, 8), (4, 8)]));
    let short = whole[whole.len() - 68..].to_vec();
    store.insert(key, short);
    let error = block_on(read(
        &store,
        &reader,
        &slices(&[(4, 8), (4, 8)]),
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap_err();
    assert_eq!(error.key.as_deref(), Some(key), "{error}");
    assert!(reader.shard_indexes().get(key).is_none());
    // Written back whole, the next read loads the index again and reads the values.
    store.insert(key, whole);
    store.reset_counts();
    assert_eq!(
        read_values(&store, &reader, &slices(&[(4, 8), (4, 8)])),
        expected
    );
    assert_eq!(store.log().len(), 2, "{:?}", store.log());
}

#[test]
fn the_cache_is_bounded_by_bytes() {
    let (store, reader) = sharded();
    let reader = reader.with_index_cache(0);
    read_values(&store, &reader, &slices(&[(0, 4), (0, 4)]));
    store.reset_counts();
    read_values(&store, &reader, &slices(&[(0, 4), (4, 8)]));
    assert_eq!(store.log().len(), 2, "nothing kept: {:?}", store.log());
    assert!(reader.shard_indexes().is_empty());
}
