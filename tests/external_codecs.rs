//! Codecs the caller applies itself (JS `registerCodec`) through the Rust API: an array whose
//! last codec is a registered one opens with `ArrayReader::open_with_codecs`, its pipeline
//! ends before that codec, and a read applies it with the `ExternalCodecs` of its
//! `ReadContext`; without one the read is refused at the chunk's key.

mod common;

use common::store::block_on;
use futures_util::future::LocalBoxFuture;
use serde_json::json;
use std::cell::Cell;
use zom::chunk::Selection;
use zom::codec::{DecodedChunk, ExternalStep};
use zom::error::{ErrorCode, Result};
use zom::hierarchy::{
    read, read_cached, ArrayReader, ExternalCodecs, NoHook, ReadContext, ReadOptions,
};
use zom::model::{Array, Node};
use zom::store::MemoryStore;

/// A caller's codec `xor` (configuration `{"key": n}`): every stored byte XORed with `key`.
struct Xor {
    calls: Cell<usize>,
}

impl ExternalCodecs for Xor {
    fn apply<'a>(
        &'a self,
        key: &'a str,
        steps: &'a [ExternalStep],
        bytes: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>>> {
        self.calls.set(self.calls.get() + 1);
        assert!(key.starts_with("c/"), "{key}");
        let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["xor"]);
        let k = steps[0].configuration["key"].as_u64().unwrap() as u8;
        Box::pin(async move { Ok(bytes.into_iter().map(|b| b ^ k).collect()) })
    }
}

/// A 4-element uint16 array in two chunks, stored little-endian and XORed with 0x5a.
fn fixture() -> (MemoryStore, Array) {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0,
        "codecs": [
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "xor", "configuration": {"key": 0x5a}}
        ]
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    for (i, values) in [[1u16, 2], [300, 65535]].iter().enumerate() {
        let bytes = values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .map(|b| b ^ 0x5a);
        store.insert(&format!("c/{i}"), bytes.collect());
    }
    let Node::Array(array) = Node::from_value(&meta).unwrap() else {
        unreachable!()
    };
    (store, array)
}

/// The array opened by a caller that applies `xor` itself.
fn open_registered(array: &Array) -> ArrayReader {
    let registered = ["xor".to_string()];
    ArrayReader::open_with_codecs(array, "", Default::default(), &[], &registered).unwrap()
}

#[test]
fn a_registered_codec_is_applied_by_the_reads_external_codecs() {
    let (store, array) = fixture();
    let reader = open_registered(&array);
    let names: Vec<&str> = reader
        .pipeline()
        .external()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["xor"]);
    let xor = Xor {
        calls: Cell::new(0),
    };
    let context = ReadContext {
        external: Some(&xor),
        ..ReadContext::default()
    };
    let selection = Selection::all();
    let options = ReadOptions::default();
    let values = block_on(read_cached::<_, NoHook>(
        &store,
        &reader,
        &selection,
        &options,
        None,
        context,
        &mut |_| {},
    ))
    .unwrap();
    let DecodedChunk::Fixed(bytes) = values.data else {
        panic!("fixed-size values expected")
    };
    let got: Vec<u16> = bytes
        .chunks(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(got, [1, 2, 300, 65535]);
    assert_eq!(xor.calls.get(), 2);
}

#[test]
fn without_external_codecs_a_read_is_refused_at_the_chunks_key() {
    let (store, array) = fixture();
    let reader = open_registered(&array);
    let selection = Selection::all();
    let e = block_on(read(
        &store,
        &reader,
        &selection,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownCodec);
    assert!(e.message.contains("'xor' is registered"), "{}", e.message);
    assert!(
        e.key.as_deref().is_some_and(|k| k.starts_with("c/")),
        "{:?}",
        e.key
    );
}

#[test]
fn unregistered_the_same_codec_is_unknown_when_the_array_opens() {
    let (_, array) = fixture();
    let e = ArrayReader::open(&array, "").unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownCodec);
}
