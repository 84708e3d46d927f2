//! Every limit of `zom::Limits`, exceeded: a `LimitExceeded` error whose message names the
//! limit (its JS option name) and the value, located at the node and key, before anything
//! large is allocated; and the same inputs within the limits read correctly.

mod common;

use common::fixtures;
use common::store::{block_on, store_from_dir};
use serde_json::json;
use zom::chunk::Selection;
use zom::hierarchy::{
    open, open_with, read, walk, ArrayReader, OpenHints, ReadOptions, WalkOptions,
};
use zom::json::parse_document;
use zom::model::{Array, Node};
use zom::store::MemoryStore;
use zom::{ErrorCode, Limits, ZomError};

fn limits(f: impl FnOnce(&mut Limits)) -> Limits {
    let mut l = Limits::default();
    f(&mut l);
    l
}

fn assert_limit(e: &ZomError, name: &str, value: &str) {
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.message.contains(name), "{name} not in: {e}");
    assert!(e.message.contains(value), "{value} not in: {e}");
}

fn array_at(store: &MemoryStore, path: &str) -> Array {
    match block_on(open(store, path, OpenHints::default()))
        .unwrap()
        .node
    {
        Node::Array(a) => a,
        Node::Group(_) => panic!("{path} is a group"),
    }
}

#[test]
fn the_defaults_are_documented_values() {
    let d = Limits::default();
    assert_eq!(d.max_chunk_bytes, 1 << 30);
    assert_eq!(d.max_bytes, 1 << 30);
    assert_eq!(d.max_chunks, 1 << 20);
    assert_eq!(d.max_document_bytes, 64 << 20);
    assert_eq!(d.max_json_depth, 127);
    assert_eq!(d.max_nodes, 1_000_000);
    assert_eq!(d.max_shard_index_bytes, 16 << 20);
}

#[test]
fn json_size_and_depth() {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    // serde_json's own bound is the default: 127 levels parse, 128 are a limit, not a crash.
    assert!(parse_document(nested(127).as_bytes(), &Limits::default()).is_ok());
    let e = parse_document(nested(128).as_bytes(), &Limits::default()).unwrap_err();
    assert_limit(&e, "maxJsonDepth = 127", "128");
    let e = parse_document(nested(100_000).as_bytes(), &Limits::default()).unwrap_err();
    assert_limit(&e, "maxJsonDepth", "128");
    let shallow = limits(|l| l.max_json_depth = 3);
    let doc = br#"{"a": [{"b": "[[[[{{{{ \" ]]]"}]}"#;
    assert!(parse_document(doc, &shallow).is_ok());
    let e = parse_document(br#"{"a": [{"b": [1]}]}"#, &shallow).unwrap_err();
    assert_limit(&e, "maxJsonDepth = 3", "is 4");
    // Above serde_json's bound a larger setting changes nothing.
    let deep = limits(|l| l.max_json_depth = 10_000);
    assert_limit(
        &parse_document(nested(200).as_bytes(), &deep).unwrap_err(),
        "maxJsonDepth",
        "128",
    );
    let small = limits(|l| l.max_document_bytes = 10);
    let e = parse_document(b"{\"zarr_format\": 3}", &small).unwrap_err();
    assert_limit(&e, "maxDocumentBytes = 10", "18");
    // Broken JSON stays InvalidMetadata.
    let e = parse_document(b"[[[", &Limits::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
}

#[test]
fn documents_over_the_limits_name_their_key_and_node() {
    let store = store_from_dir(&fixtures().join("v3"));
    let small = limits(|l| l.max_document_bytes = 100);
    let e = block_on(open_with(&store, "group1", OpenHints::default(), &small)).unwrap_err();
    assert_limit(&e, "maxDocumentBytes = 100", "bytes is");
    assert_eq!(e.key.as_deref(), Some("group1/zarr.json"));
    assert_eq!(e.path.as_deref(), Some("group1"));
    let store = store_from_dir(&fixtures().join("v2"));
    let e = block_on(open_with(&store, "", OpenHints::default(), &small)).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert!(e.key.is_some(), "{e:?}");
    let docs = [(
        "zarr.json",
        br#"{"zarr_format": 3, "node_type": "group"}"#.to_vec(),
    )];
    let shallow = limits(|l| l.max_json_depth = 0);
    let e = zom::model::from_document_bytes(docs, &shallow).unwrap_err();
    assert_limit(&e, "maxJsonDepth = 0", "is 1");
    assert_eq!(e.key.as_deref(), Some("zarr.json"));
}

#[test]
fn walks_stop_past_max_nodes() {
    let store = store_from_dir(&fixtures().join("v3"));
    let all = block_on(walk(&store, "", &WalkOptions::default(), &mut |_| {})).unwrap();
    let n = count(&all.root);
    assert!(n > 10, "{n}");
    let options = |max: u64| WalkOptions {
        limits: limits(|l| l.max_nodes = max),
        ..WalkOptions::default()
    };
    let e = block_on(walk(&store, "", &options(n - 1), &mut |_| {})).unwrap_err();
    assert_limit(&e, &format!("maxNodes = {}", n - 1), &format!("is {n}"));
    assert!(block_on(walk(&store, "", &options(n), &mut |_| {})).is_ok());
    // The walk's documents are parsed under its limits too.
    let tiny = WalkOptions {
        limits: limits(|l| l.max_document_bytes = 10),
        ..WalkOptions::default()
    };
    let e = block_on(walk(&store, "", &tiny, &mut |_| {})).unwrap_err();
    assert_limit(&e, "maxDocumentBytes = 10", "bytes is");
}

fn count(node: &Node) -> u64 {
    match node {
        Node::Array(_) => 1,
        Node::Group(g) => 1 + g.members.values().map(count).sum::<u64>(),
    }
}

#[test]
fn reads_are_bounded_by_max_bytes_and_max_chunks() {
    let store = store_from_dir(&fixtures().join("v3"));
    let array = array_at(&store, "codec_crc32c");
    let reader = ArrayReader::open(&array, "codec_crc32c").unwrap();
    let read_with = |l: Limits| {
        let options = ReadOptions {
            limits: l,
            ..ReadOptions::default()
        };
        block_on(read(
            &store,
            &reader,
            &Selection::all(),
            &options,
            &mut |_| {},
        ))
    };
    // 6 × 5 int32 in 2 × 2 chunks.
    assert_eq!(
        read_with(limits(|l| l.max_bytes = 120)).unwrap().shape,
        [6, 5]
    );
    let e = read_with(limits(|l| l.max_bytes = 119)).unwrap_err();
    assert_limit(&e, "maxBytes = 119", "is 120");
    assert_eq!(e.path.as_deref(), Some("codec_crc32c"));
    assert!(read_with(limits(|l| l.max_chunks = 4)).is_ok());
    let e = read_with(limits(|l| l.max_chunks = 3)).unwrap_err();
    assert_limit(&e, "maxChunks = 3", "is 4");
}

#[test]
fn decoded_chunks_are_bounded_by_max_chunk_bytes() {
    let store = store_from_dir(&fixtures().join("v3"));
    let array = array_at(&store, "codec_crc32c");
    let bytes = std::fs::read(fixtures().join("v3/codec_crc32c/c/0/0")).unwrap();
    // 4 × 3 int32: 48 bytes.
    let ok = ArrayReader::open_with_limits(&array, "a", limits(|l| l.max_chunk_bytes = 48));
    assert!(ok.unwrap().decode_chunk(&[0, 0], Some(&bytes)).is_ok());
    let small = ArrayReader::open_with_limits(&array, "a", limits(|l| l.max_chunk_bytes = 47));
    let e = small
        .unwrap()
        .decode_chunk(&[0, 0], Some(&bytes))
        .unwrap_err();
    assert_limit(&e, "maxChunkBytes = 47", "is 48");
    assert_eq!(e.path.as_deref(), Some("a"));
    assert_eq!(e.key.as_deref(), Some("a/c/0/0"));
}

/// A v3 array of `data_type` with one chunk of `chunk` elements.
fn meta(data_type: &str, chunk: u64, codecs: serde_json::Value) -> Array {
    let fill = if data_type == "string" {
        json!("")
    } else {
        json!(0)
    };
    let doc = json!({"zarr_format": 3, "node_type": "array", "shape": [chunk],
        "data_type": data_type, "chunk_grid": {"name": "regular",
        "configuration": {"chunk_shape": [chunk]}}, "chunk_key_encoding": {"name": "default"},
        "fill_value": fill, "codecs": codecs});
    match Node::from_value(&doc).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => unreachable!(),
    }
}

#[test]
fn hostile_chunk_shapes_are_refused_before_allocation() {
    // 2^40 empty strings would be 24 TiB of slots: refused, not attempted.
    let strings = meta("string", 1 << 40, json!([{"name": "vlen-utf8"}]));
    let reader = ArrayReader::open(&strings, "s").unwrap();
    let e = reader.decode_chunk(&[0], None).unwrap_err();
    assert_limit(&e, "maxChunkBytes", "fill values");
    let e = reader.decode_chunk(&[0], Some(&[0u8; 8])).unwrap_err();
    assert_ne!(e.code, ErrorCode::InvalidArgument);
    let ints = meta(
        "int64",
        1 << 60,
        json!([{"name": "bytes", "configuration": {"endian": "little"}}]),
    );
    let reader = ArrayReader::open(&ints, "i").unwrap();
    let e = reader.decode_chunk(&[0], Some(&[0u8; 8])).unwrap_err();
    assert_limit(&e, "maxChunkBytes", "is 9223372036854775808");
}

#[test]
fn shard_indexes_are_bounded_by_max_shard_index_bytes() {
    // 2^30 inner chunks of one element: a 16 GiB index, refused before any request.
    let sharded = meta(
        "uint8",
        1 << 30,
        json!([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1],
            "codecs": [{"name": "bytes"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "crc32c"}]}}]),
    );
    let store = MemoryStore::new();
    let reader = ArrayReader::open(&sharded, "h").unwrap();
    let one = Selection::from_json(&json!([{"start": 0, "stop": 1}])).unwrap();
    let e = block_on(read(
        &store,
        &reader,
        &one,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap_err();
    assert_limit(&e, "maxShardIndexBytes = 16777216", "is 17179869188");
    assert_eq!(store.counts().total(), 0);
    assert_eq!(e.key.as_deref(), Some("h/c/0"));
    // A real shard within a lower limit reads; below its index size it is refused.
    let store = store_from_dir(&fixtures().join("v3"));
    let array = array_at(&store, "shard_index_end");
    let index_bytes = {
        let reader = ArrayReader::open(&array, "shard_index_end").unwrap();
        reader
            .pipeline()
            .sharding()
            .unwrap()
            .index_range()
            .unwrap()
            .len()
    };
    for (max, ok) in [(index_bytes, true), (index_bytes - 1, false)] {
        let l = limits(|l| l.max_shard_index_bytes = max);
        let reader = ArrayReader::open_with_limits(&array, "shard_index_end", l).unwrap();
        let got = block_on(read(
            &store,
            &reader,
            &Selection::all(),
            &ReadOptions::default(),
            &mut |_| {},
        ));
        let got_chunk = block_on(zom::hierarchy::read_chunk(
            &store,
            &reader,
            &[0, 0],
            &ReadOptions::default(),
        ));
        assert_eq!(got.is_ok(), ok, "{got:?}");
        assert_eq!(got_chunk.is_ok(), ok, "{got_chunk:?}");
        if !ok {
            assert_limit(&got.unwrap_err(), "maxShardIndexBytes", "index's size");
        }
    }
}
