//! `write_zom` against the definition of the ZOM form (`Node::to_value`, written by
//! `json::to_compact`): the same text for every fixture hierarchy and for nodes with the
//! unusual parts (extensions, unknown keys, short names, absent and null fields, escapes).

use super::node::Node;
use super::write_zom;
use crate::json::to_compact;
use serde_json::{json, Value};

fn same_text(node: &Node, what: &str) {
    let (text, written) = write_zom(node);
    let text = String::from_utf8(text).unwrap();
    let value = node.to_value();
    assert_eq!(text, to_compact(&value), "{what}");
    let (_, expected) = crate::json::to_compact_checked(&value);
    assert_eq!(written.unsafe_integer, expected.unsafe_integer, "{what}");
    assert!(
        written.depth >= expected.depth,
        "{what}: depth {} < {}",
        written.depth,
        expected.depth
    );
}

#[test]
fn every_fixture_hierarchy_is_written_as_to_value_writes_it() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/expected");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".zom.json") {
            continue;
        }
        let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let node = Node::from_value(&value).unwrap();
        same_text(&node, &path.display().to_string());
        seen += 1;
    }
    assert!(seen >= 4);
}

#[test]
fn unusual_parts_are_written_as_to_value_writes_them() {
    let array = |extra: Value| {
        let mut a = json!({"zarr_format": 3, "node_type": "array", "shape": [9007199254740993u64, 2],
            "data_type": "uint8", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 2]}},
            "chunk_key_encoding": {"configuration": {"separator": "."}, "name": "default"},
            "fill_value": "NaN", "codecs": ["bytes", {"name": "zstd", "must_understand": false, "configuration": {"level": 1}}],
            "attributes": {"q\"\n\u{1}é": [1.5, null, {"big": 18446744073709551615u64}]}});
        a.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        a
    };
    let tree = json!({"zarr_format": 3, "node_type": "group", "attributes": {},
    "extensions": [{"name": "x", "must_understand": false}], "unknown": {"a": [1]},
    "members": {
        "a\"b": array(json!({"dimension_names": ["y", null], "storage_transformers": [], "x": 1})),
        "plain": array(json!({})),
        "ext": array(json!({"extensions": [{"name": "e", "configuration": {}}], "dimension_names": null})),
        "sub": {"zarr_format": 3, "node_type": "group", "attributes": {"a": 1}, "members": {}},
        "old": {"zarr_format": 2, "attributes": {}, "members": {
            "arr": {"zarr_format": 2, "attributes": {"t": 1}, "shape": [2], "chunks": [2], "dtype": "<i4",
                "fill_value": 0, "order": "C", "filters": null, "compressor": null}}}
    }});
    let node = Node::from_value(&tree).unwrap();
    same_text(&node, "unusual");
}
