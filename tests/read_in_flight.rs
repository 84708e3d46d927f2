//! A read puts every request it needs in flight at once, as far as its byte budget
//! (`ReadOptions::bytes_in_flight`) allows: no waves of a fixed count.

mod common;

use common::store::{block_on, Slow};
use zom::chunk::Selection;
use zom::hierarchy::{open, read, ArrayReader, NodeKind, OpenHints, ReadOptions};
use zom::model::Node;
use zom::store::MemoryStore;

/// A 16×16 uint16 array in 4×4 chunks (16 chunks of 32 bytes), every chunk stored.
fn chunked() -> (MemoryStore, ArrayReader) {
    let meta = serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": [16, 16], "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
        "chunk_key_encoding": {"name": "default"},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "fill_value": 0,
    });
    let mut store = MemoryStore::new();
    store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
    for i in 0..4u16 {
        for j in 0..4u16 {
            let chunk: Vec<u8> = (0..16u16)
                .flat_map(|k| (i * 100 + j * 10 + k).to_le_bytes())
                .collect();
            store.insert(&format!("a/c/{i}/{j}"), chunk);
        }
    }
    let hints = OpenHints {
        kind: Some(NodeKind::Array),
        ..OpenHints::default()
    };
    let reader = match block_on(open(&store, "a", hints)).unwrap().node {
        Node::Array(array) => ArrayReader::open(&array, "a").unwrap(),
        Node::Group(_) => unreachable!(),
    };
    store.reset_counts();
    (store, reader)
}

fn max_in_flight(bytes_in_flight: u64) -> usize {
    let (store, reader) = chunked();
    let slow = Slow::new(&store);
    let options = ReadOptions {
        bytes_in_flight,
        ..ReadOptions::default()
    };
    let values = block_on(read(
        &slow,
        &reader,
        &Selection::all(),
        &options,
        &mut |_| {},
    ))
    .unwrap();
    assert_eq!(values.shape, [16, 16]);
    assert_eq!(store.counts().total(), 16);
    slow.max_in_flight.get()
}

#[test]
fn every_chunk_is_in_flight_at_once_by_default() {
    assert_eq!(max_in_flight(ReadOptions::default().bytes_in_flight), 16);
}

#[test]
fn the_byte_budget_bounds_the_chunks_in_flight() {
    assert_eq!(max_in_flight(3 * 32), 3);
    assert_eq!(max_in_flight(32), 1);
    // Always one at least, however small the budget.
    assert_eq!(max_in_flight(0), 1);
}
