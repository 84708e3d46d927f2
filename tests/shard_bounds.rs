//! A hostile shard index cannot make a reader fetch more than an inner chunk's codecs can
//! produce: an entry claiming 300 MB for a 64-byte inner chunk, or one ending near 2^63, is a
//! `CodecError` (path, key) after the index request alone, for partial and whole reads.

mod common;

use common::fixtures;
use common::store::{block_on, store_from_dir};
use zom::chunk::{DimSelection, Selection};
use zom::hierarchy::{open, read, ArrayReader, OpenHints, ReadOptions};
use zom::model::Node;
use zom::store::MemoryStore;
use zom::ErrorCode;

const SHARD: &str = "shard_index_end/c/0/0";

/// The v3 fixtures with shard c/0/0 of `shard_index_end` (2 × 2 inner chunks of 4 × 4 int32,
/// bytes + zstd; index at the end: 4 (offset, nbytes) u64 pairs + crc32c) changed so that
/// inner chunk [1, 0] has `entry`, its checksum made right again.
fn store_with_entry(offset: u64, nbytes: u64) -> MemoryStore {
    let dir = fixtures().join("v3");
    let mut store = store_from_dir(&dir);
    let mut shard = std::fs::read(dir.join(SHARD)).unwrap();
    let index_start = shard.len() - 4 * 16 - 4;
    let entry = index_start + 2 * 16;
    shard[entry..entry + 8].copy_from_slice(&offset.to_le_bytes());
    shard[entry + 8..entry + 16].copy_from_slice(&nbytes.to_le_bytes());
    let crc = crc32c::crc32c(&shard[index_start..shard.len() - 4]);
    let at = shard.len() - 4;
    shard[at..].copy_from_slice(&crc.to_le_bytes());
    store.insert(SHARD, shard);
    store
}

fn reader(store: &MemoryStore) -> ArrayReader {
    match block_on(open(store, "shard_index_end", OpenHints::default()))
        .unwrap()
        .node
    {
        Node::Array(a) => ArrayReader::open(&a, "shard_index_end").unwrap(),
        Node::Group(_) => panic!("a group"),
    }
}

/// Reads rows 4..8, columns 0..4: inner chunk [1, 0] alone (a partial read), or everything.
fn read_region(store: &MemoryStore, whole: bool) -> zom::Result<()> {
    let reader = reader(store);
    let selection = if whole {
        Selection::all()
    } else {
        Selection::new(vec![
            DimSelection::slice(Some(4), Some(8), None),
            DimSelection::slice(Some(0), Some(4), None),
        ])
    };
    block_on(read(
        store,
        &reader,
        &selection,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .map(|_| ())
}

fn assert_refused(store: &MemoryStore, whole: bool, message: &str) {
    let before = store.log().len();
    let e = read_region(store, whole).unwrap_err();
    assert_eq!(e.code, ErrorCode::CodecError, "{e}");
    assert!(e.message.contains(message), "{message:?} not in {e}");
    assert_eq!(e.path.as_deref(), Some("shard_index_end"));
    assert!(
        e.key.as_deref().is_some_and(|k| k.ends_with("c/0/0")),
        "{e:?}"
    );
    let requests: Vec<String> = store.log().split_off(before);
    if !whole {
        // The index (a suffix read), then nothing for the refused inner chunk.
        assert!(
            requests
                .iter()
                .filter(|r| r.contains("c/0/0"))
                .all(|r| r.starts_with("suffix")),
            "{requests:?}"
        );
    }
}

#[test]
fn an_entry_longer_than_the_codecs_can_produce_is_refused_before_it_is_fetched() {
    let store = store_with_entry(0, 300 << 20);
    // 64 bytes decoded: bytes + zstd can store at most 64 + 64/64 + 4096 bytes.
    assert_refused(&store, false, "entry 2 claims 314572800 bytes for an inner chunk, more than its codecs can produce (4161)");
    // A whole read has the shard already: the entry lies outside it.
    assert_refused(&store, true, "lies outside the 235-byte shard");
}

#[test]
fn an_entry_past_2_53_is_refused_before_it_is_fetched() {
    let store = store_with_entry((1 << 63) - 100, 50);
    assert_refused(
        &store,
        false,
        "ends at byte 9223372036854775758, past 2^53 - 1",
    );
}

#[test]
fn the_unchanged_fixture_still_reads() {
    let store = store_from_dir(&fixtures().join("v3"));
    read_region(&store, false).unwrap();
    read_region(&store, true).unwrap();
}
