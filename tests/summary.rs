//! `model::summarize`: what the CLI and the explorer print about a node, on zarr-python's
//! fixtures; sharded exactly when the reader reads the array as sharded.

mod common;

use common::{fixtures, read_documents};
use serde_json::{json, Value};
use zom::model::{from_document_bytes, summarize, summarize_tree, Node};

fn tree(name: &str) -> Node {
    from_document_bytes(
        read_documents(&fixtures().join(name)),
        &zom::Limits::default(),
    )
    .unwrap()
}

fn summary(root: &Node, path: &str) -> Value {
    summarize(root.get(path).unwrap()).to_value()
}

#[test]
fn arrays_and_groups_of_the_sample() {
    let root = tree("sample");
    assert_eq!(
        summary(&root, "image/gradient_circles"),
        json!({"kind": "array", "zarr_format": 3, "attributes": 3, "members": 0,
            "shape": [256, 256], "data_type": "uint16", "chunks": [32, 32],
            "shards": [128, 128], "grid": "regular", "codecs": "sharding_indexed(bytes → zstd)"})
    );
    let s = summary(&root, "measurements/timestamps");
    assert_eq!(s["data_type"], "datetime64[s]");
    assert_eq!(s["shards"], Value::Null);
    let s = summary(&root, "measurements/2024/run1/records");
    assert_eq!(s["data_type"], "structured{id, temp, ok}");
    let s = summary(&root, "measurements");
    assert_eq!(
        (s["kind"].as_str(), s["members"].as_u64()),
        (Some("group"), Some(4))
    );
    // Every node, by path.
    let all = summarize_tree(&root);
    assert_eq!(all.len(), 13);
    assert_eq!(all[""]["kind"], "group");
}

#[test]
fn v2_filters_then_compressor_and_typestrings() {
    let root = tree("v2");
    let s = summary(&root, "checksum_adler32");
    assert_eq!(s["codecs"], "adler32 → zlib");
    assert_eq!(s["chunks"], json!([4, 3]));
    let s = summary(&root, "dtype_struct");
    assert!(
        s["data_type"].as_str().unwrap().starts_with("structured{"),
        "{s}"
    );
    assert_eq!(summary(&root, "dtype_int32_be")["data_type"], ">i4");
    assert_eq!(summary(&root, "codec_none")["codecs"], "none");
}

#[test]
fn sharded_only_when_sharding_is_the_only_codec() {
    let root = tree("v3");
    let Some(Node::Array(zom::model::Array::V3(meta))) = root.get("shard_index_end") else {
        panic!("shard_index_end")
    };
    let sharded = summarize(&Node::Array(zom::model::Array::V3(meta.clone())));
    assert_eq!(sharded.shards, Some(vec![8, 8]));
    assert_eq!(sharded.chunks, Some(vec![4, 4]));
    let mut with_crc = meta.clone();
    with_crc
        .codecs
        .push(zom::model::named::NamedConfig::from_value(&json!({"name": "crc32c"})).unwrap());
    let s = summarize(&Node::Array(zom::model::Array::V3(with_crc)));
    assert_eq!(s.shards, None, "the reader reads it whole, as one chunk");
    assert_eq!(s.chunks, Some(vec![8, 8]));
    assert_eq!(s.codecs, "sharding_indexed(bytes → zstd) → crc32c");
}

#[test]
fn rectilinear_grids_say_so() {
    let root = tree("current/v3-rectilinear");
    let s = summary(&root, "edges_3d");
    assert_eq!(
        (&s["grid"], &s["chunks"]),
        (&json!("rectilinear"), &Value::Null)
    );
    // Rectilinear shards of regular inner chunks: the chunks reads are made of.
    let s = summary(&root, "sharded_uneven");
    assert_eq!(
        (&s["grid"], &s["chunks"]),
        (&json!("rectilinear"), &json!([5, 4]))
    );
    assert_eq!(summary(&tree("v2"), "checksum_adler32")["grid"], "regular");
}
