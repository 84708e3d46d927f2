//! The ZOM JSON Schemas: valid draft 2020-12, accept pydantic-zarr's dumps, refuse broken ZOMs.
//!
//! tests/data/schema/*.json are `json.loads(GroupSpec.from_zarr(g).model_dump_json())` (and one
//! `ArraySpec`) from pydantic-zarr 0.9.2 over hierarchies made with zarr-python 3.1.6 in a
//! MemoryStore: v3 with int8/float32 NaN/uint16 sharded/string/datetime64/complex64 with v2
//! key encoding/fixed bytes/0-d bool arrays and nested groups; v2 with blosc, filters, F order,
//! NaN and -Infinity fills, "/" separator, structured, unicode, object, datetime, bytes,
//! complex and bool dtypes and nested groups.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use zom::model::schema::{json_schema, DRAFT_2020_12};
use zom::ErrorCode;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/schema/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn validator(version: u8) -> jsonschema::Validator {
    jsonschema::draft202012::new(&json_schema(version).unwrap()).unwrap()
}

fn errors(version: u8, instance: &Value) -> Vec<String> {
    validator(version)
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

fn assert_valid(version: u8, instance: &Value) {
    let errors = errors(version, instance);
    assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
}

fn assert_invalid(version: u8, instance: &Value, why: &str) {
    assert!(
        !validator(version).is_valid(instance),
        "{why}: should not validate: {instance}"
    );
}

/// Sets the value at a JSON pointer (adding the key when the parent is an object).
fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match doc.pointer_mut(parent).unwrap() {
        Value::Object(object) => {
            object.insert(key.to_owned(), value);
        }
        Value::Array(items) => items[key.parse::<usize>().unwrap()] = value,
        other => panic!("cannot set {pointer} in {other}"),
    }
    doc
}

/// Removes the key at a JSON pointer.
fn without(mut doc: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    doc.pointer_mut(parent)
        .unwrap()
        .as_object_mut()
        .unwrap()
        .shift_remove(key)
        .unwrap();
    doc
}

#[test]
fn schemas_are_valid_draft_2020_12() {
    for version in [2, 3] {
        let schema = json_schema(version).unwrap();
        assert_eq!(schema["$schema"], DRAFT_2020_12);
        assert!(schema["$id"].as_str().unwrap().ends_with(".json"));
        assert!(schema["title"].is_string());
        assert!(schema["description"].is_string());
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!(
                "v{version} schema is not valid draft 2020-12: {e} at {}",
                e.instance_path
            );
        }
        validator(version);
    }
}

#[test]
fn other_versions_are_invalid_arguments() {
    for version in [0, 1, 4, 255] {
        assert_eq!(
            json_schema(version).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }
}

#[test]
fn pydantic_zarr_dumps_validate() {
    assert_valid(3, &load("v3_hierarchy.json"));
    assert_valid(3, &load("v3_single_array.json"));
    assert_valid(2, &load("v2_hierarchy.json"));
}

#[test]
fn versions_do_not_mix() {
    assert_invalid(2, &load("v3_hierarchy.json"), "v3 tree against v2 schema");
    assert_invalid(3, &load("v2_hierarchy.json"), "v2 tree against v3 schema");
    let v3 = load("v3_hierarchy.json");
    let v2_array = load("v2_hierarchy.json")["members"]["a"].clone();
    assert_invalid(3, &with(v3, "/members/a", v2_array), "v2 member in v3 tree");
}

#[test]
fn v3_broken_nodes_fail() {
    let tree = load("v3_hierarchy.json");
    let cases = [
        (
            with(tree.clone(), "/node_type", json!("grop")),
            "wrong node_type",
        ),
        (
            with(tree.clone(), "/members/a/node_type", json!("group")),
            "array with group node_type",
        ),
        (
            with(tree.clone(), "/zarr_format", json!(2)),
            "wrong zarr_format",
        ),
        (
            with(tree.clone(), "/members/a/shape/0", json!(-1)),
            "negative shape",
        ),
        (
            with(tree.clone(), "/members/a/shape/0", json!(2.5)),
            "fractional shape",
        ),
        (
            with(
                tree.clone(),
                "/members/a/chunk_grid/configuration/chunk_shape/0",
                json!(0),
            ),
            "zero chunk length",
        ),
        (without(tree.clone(), "/members/a/codecs"), "missing codecs"),
        (
            without(tree.clone(), "/members/a/fill_value"),
            "missing fill_value",
        ),
        (
            without(tree.clone(), "/members/sub/attributes"),
            "missing attributes",
        ),
        (without(tree.clone(), "/members"), "missing members"),
        (
            with(tree.clone(), "/members/sub/members", Value::Null),
            "flattened members",
        ),
        (
            with(tree.clone(), "/members/a/codecs", json!([])),
            "empty codecs",
        ),
        (
            with(
                tree.clone(),
                "/members/a/codecs/0",
                json!({"configuration": {}}),
            ),
            "codec without name",
        ),
        (
            with(
                tree.clone(),
                "/members/a/codecs/0",
                json!({"name": "bytes", "extra": 1}),
            ),
            "unknown key in named config",
        ),
        (
            with(tree.clone(), "/members/a/data_type", json!(8)),
            "data_type not a name",
        ),
        (
            with(tree.clone(), "/members/a/fill_value", json!(300)),
            "int8 fill out of range",
        ),
        (
            with(tree.clone(), "/members/a/fill_value", json!("NaN")),
            "int8 fill NaN",
        ),
        (
            with(
                tree.clone(),
                "/members/sub/members/f/fill_value",
                json!("nan"),
            ),
            "float fill 'nan'",
        ),
        (
            with(tree.clone(), "/members/sub/members/b/fill_value", json!(1)),
            "bool fill 1",
        ),
        (
            with(
                tree.clone(),
                "/members/sub/members/c/fill_value",
                json!([0.0]),
            ),
            "complex fill of one",
        ),
        (
            with(
                tree.clone(),
                "/members/a/chunk_key_encoding/configuration/separator",
                json!("-"),
            ),
            "bad separator",
        ),
        (
            with(tree.clone(), "/members/a/dimension_names", json!(["y", 1])),
            "dimension name 1",
        ),
        (
            with(tree.clone(), "/attributes", json!([1])),
            "attributes not an object",
        ),
        (
            with(tree.clone(), "/members/a/members", json!({})),
            "array with members",
        ),
    ];
    for (doc, why) in cases {
        assert_invalid(3, &doc, why);
    }
}

#[test]
fn v3_allowed_variants() {
    let tree = load("v3_hierarchy.json");
    let cases = [
        with(tree.clone(), "/members/a/codecs/0", json!("bytes")),
        with(
            tree.clone(),
            "/members/a/codecs/0",
            json!({"name": "bytes", "configuration": {"endian": "big"}, "must_understand": true}),
        ),
        with(
            tree.clone(),
            "/members/a/extensions",
            json!([{"name": "x.y", "must_understand": false}]),
        ),
        with(
            tree.clone(),
            "/members/a/my_extension",
            json!({"must_understand": false}),
        ),
        with(
            tree.clone(),
            "/members/sub/members/f/fill_value",
            json!("0x7fc00000"),
        ),
        with(
            tree.clone(),
            "/members/sub/members/f/fill_value",
            json!(-1.5e10),
        ),
        with(tree.clone(), "/members/a/fill_value", json!(-128)),
        with(
            tree.clone(),
            "/members/a/chunk_grid",
            json!({"name": "rectilinear", "configuration": {}}),
        ),
        with(
            tree.clone(),
            "/members/a/attributes",
            json!({"nested": {"deep": [1, {"x": null}]}}),
        ),
        without(tree.clone(), "/members/a/dimension_names"),
        without(tree.clone(), "/members/a/storage_transformers"),
        with(
            tree.clone(),
            "/members/sub/members/e.v-1_x",
            json!({
                "zarr_format": 3, "node_type": "group", "attributes": {}, "members": {}
            }),
        ),
    ];
    for doc in cases {
        assert_valid(3, &doc);
    }
}

#[test]
fn bad_member_names_fail() {
    let group = json!({"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {}});
    for name in ["", "a/b", "/", ".", "..", "...", "__private", "__"] {
        let tree = json!({
            "zarr_format": 3, "node_type": "group", "attributes": {},
            "members": {name: group.clone()}
        });
        assert_invalid(3, &tree, &format!("member name {name:?}"));
        let v2 = json!({
            "zarr_format": 2, "attributes": {},
            "members": {name: {"zarr_format": 2, "attributes": {}, "members": {}}}
        });
        assert_invalid(2, &v2, &format!("v2 member name {name:?}"));
    }
    for name in ["a", ".a", "a..b", "_x", "x__", "é"] {
        let tree = json!({
            "zarr_format": 3, "node_type": "group", "attributes": {},
            "members": {name: group.clone()}
        });
        assert_valid(3, &tree);
    }
}

#[test]
fn v2_broken_nodes_fail() {
    let tree = load("v2_hierarchy.json");
    let cases = [
        (
            with(tree.clone(), "/members/a/shape/0", json!(-3)),
            "negative shape",
        ),
        (
            with(tree.clone(), "/members/a/chunks/0", json!(0)),
            "zero chunk",
        ),
        (without(tree.clone(), "/members/a/chunks"), "missing chunks"),
        (without(tree.clone(), "/members/a/dtype"), "missing dtype"),
        (
            without(tree.clone(), "/members/a/compressor"),
            "missing compressor",
        ),
        (
            without(tree.clone(), "/members/h/members"),
            "group without members",
        ),
        (
            with(tree.clone(), "/members/a/node_type", json!("array")),
            "v3 key in v2 array",
        ),
        (
            with(tree.clone(), "/members/a/order", json!("K")),
            "bad order",
        ),
        (
            with(tree.clone(), "/members/a/dimension_separator", json!("-")),
            "bad separator",
        ),
        (
            with(tree.clone(), "/members/a/dtype", json!("int32")),
            "v3 dtype name",
        ),
        (
            with(tree.clone(), "/members/a/dtype", json!("=i4")),
            "native byte order",
        ),
        (
            with(tree.clone(), "/members/a/dtype", json!([["x"]])),
            "structured field without type",
        ),
        (
            with(tree.clone(), "/members/a/dtype", json!([["x", "<i4"]])),
            "structured dtype with integer fill",
        ),
        (
            with(
                tree.clone(),
                "/members/a/compressor",
                json!({"cname": "lz4"}),
            ),
            "compressor without id",
        ),
        (
            with(tree.clone(), "/members/a/filters", json!([{"id": 3}])),
            "filter id not a string",
        ),
        (
            with(tree.clone(), "/members/a/fill_value", json!(0.5)),
            "fractional int fill",
        ),
        (
            with(tree.clone(), "/members/b/fill_value", json!("nan")),
            "float fill 'nan'",
        ),
        (
            with(
                tree.clone(),
                "/members/h/members/bytes/fill_value",
                json!("not base64!"),
            ),
            "bytes fill",
        ),
        (
            with(tree.clone(), "/members/h/members/flag/fill_value", json!(0)),
            "bool fill 0",
        ),
        (
            with(tree.clone(), "/zarr_format", json!(3)),
            "wrong zarr_format",
        ),
        (
            with(
                tree.clone(),
                "/members/h/members/deep/members/er/shape",
                json!([1]),
            ),
            "group with shape",
        ),
    ];
    for (doc, why) in cases {
        assert_invalid(2, &doc, why);
    }
}

#[test]
fn v2_allowed_variants() {
    let tree = load("v2_hierarchy.json");
    let cases = [
        with(
            with(tree.clone(), "/members/a/fill_value", json!("AAAA")),
            "/members/a/dtype",
            json!([
                ["x", "<i4"],
                ["y", "<f8", [2, 3]],
                ["z", [["inner", "|u1"]]]
            ]),
        ),
        with(tree.clone(), "/members/a/fill_value", Value::Null),
        with(tree.clone(), "/members/b/fill_value", json!("Infinity")),
        with(
            tree.clone(),
            "/members/h/members/bytes/fill_value",
            json!("AAAAAA=="),
        ),
        with(tree.clone(), "/members/a/dtype", json!("<m8[10s]")),
        without(tree.clone(), "/members/a/dimension_separator"),
        with(tree.clone(), "/members/a/filters", json!([])),
        load("v2_hierarchy.json")["members"]["a"].clone(),
    ];
    for doc in cases {
        assert_valid(2, &doc);
    }
}
