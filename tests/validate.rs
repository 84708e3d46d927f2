//! Integration tests of zom's validation: one or more per check, asserting path, loc and kind.

use serde_json::{json, Value};
use std::sync::Arc;
use zom::validate::*;

// ---------- helpers ----------

fn opts() -> ValidateOptions {
    ValidateOptions::default()
}

fn strict() -> ValidateOptions {
    ValidateOptions {
        strict: true,
        ..Default::default()
    }
}

fn keyed(key: &str) -> ValidateOptions {
    ValidateOptions {
        key: Some(key.to_string()),
        ..Default::default()
    }
}

fn kind_str(kind: ProblemKind) -> String {
    serde_json::to_value(kind)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

fn dump(r: &Report) -> String {
    r.problems
        .iter()
        .map(|p| {
            format!(
                "  {:?} path={:?} loc={} kind={} {}",
                p.severity,
                p.path,
                serde_json::to_string(&p.loc).unwrap(),
                kind_str(p.kind),
                p.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts a problem with this path, loc, kind and severity is in the report.
#[track_caller]
fn has(r: &Report, path: &str, loc: Value, kind: &str, severity: Severity) {
    let found = r.problems.iter().any(|p| {
        p.path == path
            && serde_json::to_value(&p.loc).unwrap() == loc
            && kind_str(p.kind) == kind
            && p.severity == severity
    });
    assert!(
        found,
        "expected {severity:?} {kind} at path={path:?} loc={loc}; got:\n{}",
        dump(r)
    );
}

#[track_caller]
fn err(r: &Report, path: &str, loc: Value, kind: &str) {
    has(r, path, loc, kind, Severity::Error);
    assert!(!r.valid);
}

#[track_caller]
fn warn(r: &Report, path: &str, loc: Value, kind: &str) {
    has(r, path, loc, kind, Severity::Warning);
}

/// Asserts the report holds exactly this one error.
#[track_caller]
fn only(r: &Report, path: &str, loc: Value, kind: &str) {
    assert_eq!(
        r.problems.len(),
        1,
        "expected one problem, got:\n{}",
        dump(r)
    );
    err(r, path, loc, kind);
}

#[track_caller]
fn clean(r: &Report) {
    assert!(
        r.valid && r.problems.is_empty(),
        "expected no problems, got:\n{}",
        dump(r)
    );
}

/// Sets the member at a JSON pointer (the parent must exist).
fn set(mut doc: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let key = &key.replace("~1", "/").replace("~0", "~");
    let target = doc.pointer_mut(parent).unwrap();
    match target {
        Value::Object(o) => {
            o.insert(key.to_string(), value);
        }
        Value::Array(a) => {
            let i: usize = key.parse().unwrap();
            if i < a.len() {
                a[i] = value;
            } else {
                a.push(value);
            }
        }
        _ => panic!("bad pointer"),
    }
    doc
}

fn del(mut doc: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match doc.pointer_mut(parent).unwrap() {
        Value::Object(o) => {
            o.shift_remove(key);
        }
        Value::Array(a) => {
            a.remove(key.parse().unwrap());
        }
        _ => panic!("bad pointer"),
    }
    doc
}

fn v3(doc: &Value) -> Report {
    validate_document(doc, &opts())
}

/// A v3 int32 array as zarr-python 3.1.6 writes it.
fn arr() -> Value {
    json!({
        "shape": [100, 20],
        "data_type": "int32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 10]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0,
        "codecs": [
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "zstd", "configuration": {"level": 0, "checksum": false}}
        ],
        "attributes": {},
        "zarr_format": 3,
        "node_type": "array",
        "storage_transformers": []
    })
}

fn arr_with_codecs(codecs: Value) -> Value {
    set(arr(), "/codecs", codecs)
}

fn bytes_le() -> Value {
    json!({"name": "bytes", "configuration": {"endian": "little"}})
}

fn sharded() -> Value {
    arr_with_codecs(json!([{
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [5, 5],
            "codecs": [bytes_le(), {"name": "gzip", "configuration": {"level": 1}}],
            "index_codecs": [bytes_le(), {"name": "crc32c"}],
            "index_location": "end"
        }
    }]))
}

fn group() -> Value {
    json!({"attributes": {}, "zarr_format": 3, "node_type": "group"})
}

/// A v2 float64 array as zarr-python writes it.
fn zarray() -> Value {
    json!({
        "shape": [4, 3],
        "chunks": [2, 2],
        "dtype": "<f8",
        "fill_value": 0.0,
        "order": "C",
        "filters": [{"id": "delta", "dtype": "<f8", "astype": "<f8"}],
        "dimension_separator": ".",
        "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
        "zarr_format": 2
    })
}

fn za(doc: &Value) -> Report {
    validate_document(doc, &keyed(".zarray"))
}

// ---------- documents zarr-python writes are valid ----------

#[test]
fn zarr_python_v3_documents_are_valid() {
    for doc in [arr(), sharded(), group()] {
        clean(&v3(&doc));
        clean(&validate_document(&doc, &strict()));
    }
    let strings = set(
        set(arr(), "/data_type", json!("string")),
        "/codecs",
        json!([{"name": "vlen-utf8", "configuration": {}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]),
    );
    clean(&v3(&set(strings, "/fill_value", json!(""))));
    let u8 = set(arr(), "/data_type", json!("uint8"));
    clean(&v3(&set(u8, "/codecs/0", json!({"name": "bytes"}))));
    let numcodecs = arr_with_codecs(json!([
        {"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}},
        bytes_le(),
        {"name": "numcodecs.zlib", "configuration": {"level": 3}},
        {"name": "numcodecs.crc32", "configuration": {}}
    ]));
    clean(&validate_document(&numcodecs, &strict()));
    let dt = set(
        arr(),
        "/data_type",
        json!({"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}}),
    );
    clean(&v3(&set(dt, "/fill_value", json!(-9223372036854775808i64))));
}

#[test]
fn zarr_python_v2_documents_are_valid() {
    clean(&za(&zarray()));
    clean(&validate_document(
        &zarray(),
        &ValidateOptions {
            strict: true,
            ..keyed("a/.zarray")
        },
    ));
    let strings = json!({"shape": [4], "chunks": [2], "dtype": "|O", "fill_value": "", "order": "C",
        "filters": [{"id": "vlen-utf8"}], "dimension_separator": ".", "compressor": null, "zarr_format": 2});
    clean(&za(&strings));
    clean(&validate_document(
        &json!({"zarr_format": 2}),
        &keyed(".zgroup"),
    ));
    clean(&validate_document(
        &json!({"q": [1, {"x": null}]}),
        &keyed(".zattrs"),
    ));
}

// ---------- document kind ----------

#[test]
fn kind_and_path_come_from_the_key() {
    // A .zattrs may hold anything object-shaped, even keys that look like other documents.
    let doc = json!({"zarr_format": 3, "shape": "not checked"});
    clean(&validate_document(&doc, &keyed("a/b/.zattrs")));
    let r = validate_document(&set(arr(), "/shape", json!("x")), &keyed("a/b/zarr.json"));
    only(&r, "a/b", json!(["shape"]), "invalid_type");
    let r = validate_document(&json!({"zarr_format": 3}), &keyed("g/.zgroup"));
    only(&r, "g", json!(["zarr_format"]), "invalid_value");
}

#[test]
fn kind_is_inferred_from_content() {
    clean(&validate_document(&zarray(), &opts()));
    clean(&validate_document(&json!({"zarr_format": 2}), &opts()));
    let zmeta = json!({"metadata": {".zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1});
    clean(&validate_document(&zmeta, &opts()));
    only(
        &validate_document(&json!({"a": 1}), &opts()),
        "",
        json!(["zarr_format"]),
        "missing_key",
    );
    only(
        &validate_document(&json!({"zarr_format": 7}), &opts()),
        "",
        json!(["zarr_format"]),
        "invalid_value",
    );
    only(
        &validate_document(&json!([1]), &opts()),
        "",
        json!([]),
        "invalid_type",
    );
}

#[test]
fn invalid_json_reports_line_and_column() {
    let r = validate_document_bytes(
        b"{\n  \"zarr_format\": 3,\n  \"node_type\": }",
        &keyed("a/zarr.json"),
    );
    only(&r, "a", json!([]), "invalid_json");
    assert!(
        r.problems[0].message.contains("line 3"),
        "{}",
        r.problems[0].message
    );
    let r = validate_document_bytes(serde_json::to_vec(&arr()).unwrap().as_slice(), &opts());
    clean(&r);
}

// ---------- v3 array: keys, types, shape ----------

#[test]
fn v3_array_required_keys() {
    for key in [
        "zarr_format",
        "node_type",
        "shape",
        "data_type",
        "chunk_grid",
        "chunk_key_encoding",
        "fill_value",
        "codecs",
    ] {
        let r = v3(&del(arr(), &format!("/{key}")));
        err(&r, "", json!([key]), "missing_key");
    }
}

#[test]
fn v3_zarr_format_and_node_type() {
    only(
        &v3(&set(arr(), "/zarr_format", json!("3"))),
        "",
        json!(["zarr_format"]),
        "invalid_type",
    );
    let r = validate_document(&set(arr(), "/zarr_format", json!(2)), &keyed("zarr.json"));
    only(&r, "", json!(["zarr_format"]), "invalid_value");
    // A bad node_type is reported, and the array is still checked as an array.
    let r = v3(&set(
        set(arr(), "/node_type", json!("arr")),
        "/shape",
        json!([-1, 20]),
    ));
    err(&r, "", json!(["node_type"]), "invalid_value");
    err(&r, "", json!(["shape", 0]), "invalid_value");
}

#[test]
fn v3_shape() {
    only(
        &v3(&set(arr(), "/shape", json!([-1, 20]))),
        "",
        json!(["shape", 0]),
        "invalid_value",
    );
    let r = v3(&set(arr(), "/shape", json!([1.5, 20])));
    err(&r, "", json!(["shape", 0]), "invalid_type");
    let r = v3(&set(arr(), "/shape", json!([1e30, 20])));
    err(&r, "", json!(["shape", 0]), "invalid_type");
    only(
        &v3(&set(arr(), "/shape", json!({"a": 1}))),
        "",
        json!(["shape"]),
        "invalid_type",
    );
    // 2^53 is fine; 2^60 is valid but warned about in strict mode (JS numbers).
    clean(&v3(&set(arr(), "/shape", json!([9007199254740992u64, 20]))));
    let big = set(arr(), "/shape", json!([1u64 << 60, 20]));
    clean(&v3(&big));
    let r = validate_document(&big, &strict());
    assert!(r.valid);
    warn(&r, "", json!(["shape", 0]), "invalid_value");
}

#[test]
fn v3_chunk_grid() {
    let r = v3(&set(
        arr(),
        "/chunk_grid/configuration/chunk_shape",
        json!([10]),
    ));
    only(
        &r,
        "",
        json!(["chunk_grid", "configuration", "chunk_shape"]),
        "invalid_value",
    );
    let r = v3(&set(
        arr(),
        "/chunk_grid/configuration/chunk_shape",
        json!([10, 0]),
    ));
    only(
        &r,
        "",
        json!(["chunk_grid", "configuration", "chunk_shape", 1]),
        "invalid_value",
    );
    let r = v3(&del(arr(), "/chunk_grid/configuration"));
    only(
        &r,
        "",
        json!(["chunk_grid", "configuration"]),
        "missing_key",
    );
    let r = v3(&set(arr(), "/chunk_grid/configuration/extra", json!(1)));
    only(
        &r,
        "",
        json!(["chunk_grid", "configuration", "extra"]),
        "unknown_key",
    );
    // Unknown grids follow the must_understand rules.
    let rect = json!({"name": "rectilinear", "configuration": {"chunk_shapes": [[10], [20]]}});
    only(
        &v3(&set(arr(), "/chunk_grid", rect.clone())),
        "",
        json!(["chunk_grid"]),
        "must_understand",
    );
    let ignorable = set(rect, "/must_understand", json!(false));
    clean(&v3(&set(arr(), "/chunk_grid", ignorable.clone())));
    warn(
        &validate_document(&set(arr(), "/chunk_grid", ignorable), &strict()),
        "",
        json!(["chunk_grid"]),
        "must_understand",
    );
}

#[test]
fn v3_chunk_key_encoding() {
    let r = v3(&set(
        arr(),
        "/chunk_key_encoding/configuration/separator",
        json!("-"),
    ));
    only(
        &r,
        "",
        json!(["chunk_key_encoding", "configuration", "separator"]),
        "invalid_value",
    );
    clean(&v3(&set(
        arr(),
        "/chunk_key_encoding",
        json!({"name": "default"}),
    )));
    clean(&v3(&set(
        arr(),
        "/chunk_key_encoding",
        json!({"name": "v2", "configuration": {"separator": "/"}}),
    )));
    clean(&v3(&set(arr(), "/chunk_key_encoding", json!("v2"))));
    let r = v3(&set(
        arr(),
        "/chunk_key_encoding",
        json!({"name": "fanout"}),
    ));
    only(&r, "", json!(["chunk_key_encoding"]), "must_understand");
    let r = v3(&set(arr(), "/chunk_key_encoding", json!(7)));
    only(&r, "", json!(["chunk_key_encoding"]), "invalid_type");
}

#[test]
fn v3_data_type_and_fill_value() {
    only(
        &v3(&set(arr(), "/data_type", json!("acme.int7"))),
        "",
        json!(["data_type"]),
        "must_understand",
    );
    let ignorable = json!({"name": "acme.int7", "must_understand": false});
    let r = v3(&set(arr(), "/data_type", ignorable));
    assert!(r.valid, "{}", dump(&r));
    let r = v3(&set(arr(), "/fill_value", json!("abc")));
    only(&r, "", json!(["fill_value"]), "invalid_value");
    let r = v3(&set(arr(), "/fill_value", json!("NaN")));
    only(&r, "", json!(["fill_value"]), "invalid_value");
    let r = v3(&set(arr(), "/fill_value", json!(1e300)));
    only(&r, "", json!(["fill_value"]), "invalid_value");
    let r = v3(&set(
        arr(),
        "/data_type",
        json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 3}}),
    ));
    err(&r, "", json!(["data_type"]), "invalid_value");
    let r = v3(&set(arr(), "/data_type", json!({"configuration": {}})));
    err(&r, "", json!(["data_type", "name"]), "missing_key");
}

// ---------- v3 codecs ----------

#[test]
fn v3_codec_pipeline_order() {
    let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
    let transpose = json!({"name": "transpose", "configuration": {"order": [1, 0]}});
    let r = v3(&arr_with_codecs(json!([gzip, bytes_le()])));
    only(&r, "", json!(["codecs", 0]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([bytes_le(), bytes_le()])));
    only(&r, "", json!(["codecs", 1]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([bytes_le(), transpose])));
    only(&r, "", json!(["codecs", 1]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([transpose, gzip])));
    err(&r, "", json!(["codecs"]), "invalid_value");
    only(
        &v3(&arr_with_codecs(json!([]))),
        "",
        json!(["codecs"]),
        "invalid_value",
    );
    only(
        &v3(&arr_with_codecs(json!({"name": "bytes"}))),
        "",
        json!(["codecs"]),
        "invalid_type",
    );
    clean(&v3(&arr_with_codecs(json!([transpose, bytes_le(), gzip]))));
}

#[test]
fn v3_bytes_codec() {
    let r = v3(&arr_with_codecs(json!([{"name": "bytes"}])));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "endian"]),
        "missing_key",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "bytes", "configuration": {"endian": "middle"}}]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "endian"]),
        "invalid_value",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "bytes", "configuration": {"endian": "big", "x": 1}}]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "x"]),
        "unknown_key",
    );
    // Single-byte types may omit endian (or give it).
    let bools = set(
        set(arr(), "/data_type", json!("bool")),
        "/fill_value",
        json!(false),
    );
    clean(&v3(&set(bools.clone(), "/codecs", json!(["bytes"]))));
    clean(&v3(&set(bools, "/codecs", json!([bytes_le()]))));
    // Variable-length types cannot go through bytes.
    let strings = set(
        set(arr(), "/data_type", json!("string")),
        "/fill_value",
        json!(""),
    );
    only(
        &v3(&set(strings, "/codecs", json!([bytes_le()]))),
        "",
        json!(["codecs", 0]),
        "invalid_value",
    );
}

#[test]
fn v3_vlen_codecs() {
    let r = v3(&arr_with_codecs(
        json!([{"name": "vlen-utf8", "configuration": {}}]),
    ));
    only(&r, "", json!(["codecs", 0]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([{"name": "vlen-bytes"}])));
    only(&r, "", json!(["codecs", 0]), "invalid_value");
}

#[test]
fn v3_transpose() {
    let t = |order: Value| {
        arr_with_codecs(
            json!([{"name": "transpose", "configuration": {"order": order}}, bytes_le()]),
        )
    };
    only(
        &v3(&t(json!([0, 0]))),
        "",
        json!(["codecs", 0, "configuration", "order", 1]),
        "invalid_value",
    );
    only(
        &v3(&t(json!([0, 2]))),
        "",
        json!(["codecs", 0, "configuration", "order", 1]),
        "invalid_value",
    );
    err(
        &v3(&t(json!([0, 1, 2]))),
        "",
        json!(["codecs", 0, "configuration", "order"]),
        "invalid_value",
    );
    only(
        &v3(&t(json!("C"))),
        "",
        json!(["codecs", 0, "configuration", "order"]),
        "invalid_type",
    );
    let r = v3(&arr_with_codecs(json!([{"name": "transpose"}, bytes_le()])));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "order"]),
        "missing_key",
    );
}

#[test]
fn v3_gzip_zstd_crc32c() {
    let c = |codec: Value| arr_with_codecs(json!([bytes_le(), codec]));
    let r = v3(&c(json!({"name": "gzip", "configuration": {"level": 12}})));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_value",
    );
    let r = v3(&c(json!({"name": "gzip", "configuration": {"level": 1.5}})));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_type",
    );
    let r = v3(&c(json!({"name": "gzip"})));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "missing_key",
    );
    let r = v3(&c(
        json!({"name": "zstd", "configuration": {"level": 23, "checksum": "no"}}),
    ));
    err(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_value",
    );
    err(
        &r,
        "",
        json!(["codecs", 1, "configuration", "checksum"]),
        "invalid_type",
    );
    clean(&v3(&c(
        json!({"name": "zstd", "configuration": {"level": -131072}}),
    )));
    let r = v3(&c(
        json!({"name": "crc32c", "configuration": {"location": "end"}}),
    ));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "location"]),
        "unknown_key",
    );
}

#[test]
fn v3_blosc() {
    let b = |conf: Value| {
        arr_with_codecs(json!([bytes_le(), {"name": "blosc", "configuration": conf}]))
    };
    clean(&v3(&b(
        json!({"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}),
    )));
    clean(&v3(&b(
        json!({"cname": "lz4", "clevel": 0, "shuffle": "noshuffle", "blocksize": 0}),
    )));
    let r = v3(&b(
        json!({"cname": "gzip", "clevel": 10, "shuffle": 1, "typesize": 0, "blocksize": -1}),
    ));
    let at = |k: &str| json!(["codecs", 1, "configuration", k]);
    err(&r, "", at("cname"), "invalid_value");
    err(&r, "", at("clevel"), "invalid_value");
    err(&r, "", at("shuffle"), "invalid_type");
    err(&r, "", at("typesize"), "invalid_value");
    err(&r, "", at("blocksize"), "invalid_value");
    assert_eq!(r.problems.len(), 5, "{}", dump(&r));
    let r = v3(&b(
        json!({"cname": "lz4", "clevel": 1, "shuffle": "bitshuffle", "blocksize": 0}),
    ));
    only(&r, "", at("typesize"), "missing_key");
}

#[test]
fn v3_sharding() {
    let cfg = "/codecs/0/configuration";
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/chunk_shape"),
        json!([5, 3]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "chunk_shape", 1]),
        "invalid_value",
    );
    let r = v3(&set(sharded(), &format!("{cfg}/chunk_shape"), json!([5])));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "chunk_shape"]),
        "invalid_value",
    );
    // The nested pipeline is checked recursively, with its own loc.
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/codecs/1/configuration/level"),
        json!(99),
    ));
    only(
        &r,
        "",
        json!([
            "codecs",
            0,
            "configuration",
            "codecs",
            1,
            "configuration",
            "level"
        ]),
        "invalid_value",
    );
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/codecs/0"),
        json!({"name": "bytes"}),
    ));
    only(
        &r,
        "",
        json!([
            "codecs",
            0,
            "configuration",
            "codecs",
            0,
            "configuration",
            "endian"
        ]),
        "missing_key",
    );
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/index_codecs/1"),
        json!({"name": "gzip", "configuration": {"level": 1}}),
    ));
    err(
        &r,
        "",
        json!(["codecs", 0, "configuration", "index_codecs", 1]),
        "invalid_value",
    );
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/index_location"),
        json!("middle"),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "index_location"]),
        "invalid_value",
    );
    let r = v3(&del(sharded(), &format!("{cfg}/index_codecs")));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "index_codecs"]),
        "missing_key",
    );
    clean(&v3(&del(sharded(), &format!("{cfg}/index_location"))));
    // RECOMMENDED index codecs: strict warning only.
    let plain = del(sharded(), &format!("{cfg}/index_codecs/1"));
    clean(&v3(&plain));
    warn(
        &validate_document(&plain, &strict()),
        "",
        json!(["codecs", 0, "configuration", "index_codecs"]),
        "invalid_value",
    );
}

#[test]
fn v3_packbits_and_bitround() {
    let p = |conf: Value| arr_with_codecs(json!([{"name": "packbits", "configuration": conf}]));
    clean(&v3(&p(
        json!({"padding_encoding": "first_byte", "first_bit": 0, "last_bit": 3}),
    )));
    let r = v3(&p(json!({"padding_encoding": "sometimes"})));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "padding_encoding"]),
        "invalid_value",
    );
    let r = v3(&p(json!({"first_bit": 4, "last_bit": 2})));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "last_bit"]),
        "invalid_value",
    );
    let r = v3(&p(json!({"last_bit": 32})));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "last_bit"]),
        "invalid_value",
    );
    let strings = set(
        set(arr(), "/data_type", json!("string")),
        "/fill_value",
        json!(""),
    );
    let r = v3(&set(strings, "/codecs", json!([{"name": "packbits"}])));
    only(&r, "", json!(["codecs", 0]), "invalid_value");

    let b = |keep: Value, dt: &str| {
        let doc = set(set(arr(), "/data_type", json!(dt)), "/fill_value", json!(0));
        set(
            doc,
            "/codecs",
            json!([{"name": "bitround", "configuration": {"keepbits": keep}}, bytes_le()]),
        )
    };
    clean(&v3(&b(json!(10), "float32")));
    only(
        &v3(&b(json!(0), "float32")),
        "",
        json!(["codecs", 0, "configuration", "keepbits"]),
        "invalid_value",
    );
    only(
        &v3(&b(json!(11), "float16")),
        "",
        json!(["codecs", 0, "configuration", "keepbits"]),
        "invalid_value",
    );
    only(
        &v3(&b(json!(-1), "float32")),
        "",
        json!(["codecs", 0, "configuration", "keepbits"]),
        "invalid_value",
    );
}

#[test]
fn v3_numcodecs_names() {
    let n = |codec: Value| arr_with_codecs(json!([bytes_le(), codec]));
    let r = v3(&n(
        json!({"name": "numcodecs.zlib", "configuration": {"level": 11}}),
    ));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_value",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "numcodecs.delta", "configuration": {"dtype": "<x9"}}, bytes_le()]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "dtype"]),
        "invalid_value",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "numcodecs.delta", "configuration": {}}, bytes_le()]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "dtype"]),
        "missing_key",
    );
    let r = v3(&n(
        json!({"name": "numcodecs.blosc", "configuration": {"shuffle": 7}}),
    ));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "shuffle"]),
        "invalid_value",
    );
    // A numcodecs filter after the array→bytes codec is out of order.
    let r = v3(&n(
        json!({"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}),
    ));
    only(&r, "", json!(["codecs", 1]), "invalid_value");
    // numcodecs ids zom does not know are accepted (strict: warning).
    let other = n(json!({"name": "numcodecs.someday", "configuration": {"x": 1}}));
    clean(&v3(&other));
    let r = validate_document(&other, &strict());
    assert!(r.valid);
    warn(&r, "", json!(["codecs", 1]), "invalid_value");
    let old = arr_with_codecs(
        json!([{"name": "numcodecs.bitround", "configuration": {"keepbits": 3}}, bytes_le()]),
    );
    clean(&v3(&old));
    let r = validate_document(&old, &strict());
    assert!(r.valid);
    warn(&r, "", json!(["codecs", 0]), "invalid_value");
}

#[test]
fn v3_unknown_codecs_follow_must_understand() {
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "acme.magic"}]),
    ));
    only(&r, "", json!(["codecs", 1]), "must_understand");
    let ok = arr_with_codecs(json!([bytes_le(), {"name": "acme.magic", "must_understand": false}]));
    clean(&v3(&ok));
    warn(
        &validate_document(&ok, &strict()),
        "",
        json!(["codecs", 1]),
        "must_understand",
    );
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "gzip", "configuration": {"level": 1}, "extra": 1}]),
    ));
    only(&r, "", json!(["codecs", 1, "extra"]), "unknown_key");
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "gzip", "configuration": [1]}]),
    ));
    err(
        &r,
        "",
        json!(["codecs", 1, "configuration"]),
        "invalid_type",
    );
}

// ---------- ZEP 9 names, must_understand ----------

#[test]
fn zep9_extension_names() {
    let r = v3(&arr_with_codecs(json!([bytes_le(), {"name": "Bad Name"}])));
    only(&r, "", json!(["codecs", 1, "name"]), "invalid_value");
    only(
        &v3(&set(arr(), "/data_type", json!("9lives"))),
        "",
        json!(["data_type"]),
        "invalid_value",
    );
    only(
        &v3(&set(arr(), "/data_type", json!(""))),
        "",
        json!(["data_type"]),
        "invalid_value",
    );
    // URLs and dotted names are well-formed (here: unknown, ignorable).
    for name in [
        "https://example.com/codecs/magic",
        "tag:example.com,2025:magic",
        "acme.magic",
    ] {
        let doc = arr_with_codecs(json!([bytes_le(), {"name": name, "must_understand": false}]));
        clean(&v3(&doc));
    }
    // Unregistered short names: a strict warning on the name.
    let doc = arr_with_codecs(json!([bytes_le(), {"name": "magic", "must_understand": false}]));
    clean(&v3(&doc));
    let r = validate_document(&doc, &strict());
    assert!(r.valid);
    warn(&r, "", json!(["codecs", 1, "name"]), "invalid_value");
    warn(&r, "", json!(["codecs", 1]), "must_understand");
}

#[test]
fn unknown_top_level_keys() {
    let ignorable = set(arr(), "/acme", json!({"must_understand": false, "x": 1}));
    clean(&v3(&ignorable));
    warn(
        &validate_document(&ignorable, &strict()),
        "",
        json!(["acme"]),
        "unknown_key",
    );
    only(
        &v3(&set(arr(), "/acme", json!(1))),
        "",
        json!(["acme"]),
        "must_understand",
    );
    only(
        &v3(&set(group(), "/acme", json!({"x": 1}))),
        "",
        json!(["acme"]),
        "must_understand",
    );
    let r = v3(&set(group(), "/acme", json!({"must_understand": true})));
    only(&r, "", json!(["acme"]), "must_understand");
}

#[test]
fn v3_dimension_names_attributes_storage_transformers() {
    only(
        &v3(&set(arr(), "/dimension_names", json!(["x"]))),
        "",
        json!(["dimension_names"]),
        "invalid_value",
    );
    only(
        &v3(&set(arr(), "/dimension_names", json!(["x", 3]))),
        "",
        json!(["dimension_names", 1]),
        "invalid_type",
    );
    clean(&v3(&set(arr(), "/dimension_names", json!(["x", null]))));
    clean(&v3(&set(arr(), "/dimension_names", Value::Null)));
    let dup = set(arr(), "/dimension_names", json!(["x", "x"]));
    clean(&v3(&dup));
    warn(
        &validate_document(&dup, &strict()),
        "",
        json!(["dimension_names", 1]),
        "invalid_value",
    );
    only(
        &v3(&set(arr(), "/attributes", json!([]))),
        "",
        json!(["attributes"]),
        "invalid_type",
    );
    only(
        &v3(&set(arr(), "/storage_transformers", json!({}))),
        "",
        json!(["storage_transformers"]),
        "invalid_type",
    );
    let r = v3(&set(
        arr(),
        "/storage_transformers",
        json!([{"name": "acme.cache"}]),
    ));
    only(
        &r,
        "",
        json!(["storage_transformers", 0]),
        "must_understand",
    );
    clean(&v3(&set(
        arr(),
        "/storage_transformers",
        json!([{"name": "acme.cache", "must_understand": false}]),
    )));
}

// ---------- v3 group, consolidated metadata ----------

#[test]
fn v3_group() {
    only(
        &v3(&del(group(), "/zarr_format")),
        "",
        json!(["zarr_format"]),
        "missing_key",
    );
    only(
        &v3(&set(group(), "/attributes", json!("x"))),
        "",
        json!(["attributes"]),
        "invalid_type",
    );
    clean(&v3(&del(group(), "/attributes")));
    only(
        &v3(&set(group(), "/node_type", json!("folder"))),
        "",
        json!(["node_type"]),
        "invalid_value",
    );
    clean(&v3(&set(group(), "/consolidated_metadata", Value::Null)));
}

fn consolidated() -> Value {
    let cm = json!({
        "kind": "inline",
        "must_understand": false,
        "metadata": {
            "h": {"attributes": {}, "zarr_format": 3, "node_type": "group",
                  "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {}}},
            "h/a": arr()
        }
    });
    set(group(), "/consolidated_metadata", cm)
}

#[test]
fn v3_consolidated_metadata() {
    clean(&v3(&consolidated()));
    let r = v3(&set(
        consolidated(),
        "/consolidated_metadata/kind",
        json!("external"),
    ));
    only(
        &r,
        "",
        json!(["consolidated_metadata", "kind"]),
        "invalid_value",
    );
    let r = v3(&set(
        consolidated(),
        "/consolidated_metadata/must_understand",
        json!(true),
    ));
    only(
        &r,
        "",
        json!(["consolidated_metadata", "must_understand"]),
        "invalid_value",
    );
    let r = v3(&del(consolidated(), "/consolidated_metadata/metadata"));
    only(
        &r,
        "",
        json!(["consolidated_metadata", "metadata"]),
        "missing_key",
    );
    // Nested documents: path is the nested node, loc runs from the outer document.
    let doc = set(
        consolidated(),
        "/consolidated_metadata/metadata/h~1a/shape",
        json!([-3, 20]),
    );
    let r = validate_document(&doc, &keyed("root/zarr.json"));
    only(
        &r,
        "root/h/a",
        json!(["consolidated_metadata", "metadata", "h/a", "shape", 0]),
        "invalid_value",
    );
    let r = v3(&set(
        consolidated(),
        "/consolidated_metadata/metadata/__x",
        group(),
    ));
    only(
        &r,
        "",
        json!(["consolidated_metadata", "metadata", "__x"]),
        "invalid_value",
    );
}

// ---------- ZEP 10 extensions ----------

struct Needs42;

impl ExtensionHandler for Needs42 {
    fn check(&self, value: &Value, path: &str, loc: &[LocStep]) -> Vec<Problem> {
        if value.pointer("/configuration/answer") == Some(&json!(42)) {
            return vec![];
        }
        let mut loc = loc.to_vec();
        loc.push(LocStep::Key("configuration".into()));
        vec![Problem {
            path: path.to_string(),
            loc,
            kind: ProblemKind::InvalidValue,
            message: "answer must be 42".into(),
            severity: Severity::Error,
        }]
    }
}

fn ext_opts() -> ValidateOptions {
    let mut registry = ExtensionRegistry::default();
    registry.register("acme.answer", Some(Arc::new(Needs42)));
    registry.register("acme.noted", None);
    ValidateOptions {
        extensions: true,
        registry,
        ..Default::default()
    }
}

#[test]
fn zep10_extensions() {
    let with = |list: Value| set(arr(), "/extensions", list);
    // Off: "extensions" is an unknown key like any other.
    only(
        &v3(&with(json!([]))),
        "",
        json!(["extensions"]),
        "must_understand",
    );
    let o = ext_opts();
    clean(&validate_document(&with(json!([])), &o));
    clean(&validate_document(
        &set(group(), "/extensions", json!([])),
        &o,
    ));
    let r = validate_document(&with(json!([{"name": "acme.unknown"}])), &o);
    only(&r, "", json!(["extensions", 0]), "must_understand");
    clean(&validate_document(
        &with(json!([{"name": "acme.unknown", "must_understand": false}])),
        &o,
    ));
    clean(&validate_document(
        &with(json!([{"name": "acme.noted"}])),
        &o,
    ));
    clean(&validate_document(
        &with(json!([{"name": "acme.answer", "configuration": {"answer": 42}}])),
        &o,
    ));
    let r = validate_document(
        &with(
            json!([{"name": "acme.noted"}, {"name": "acme.answer", "configuration": {"answer": 41}}]),
        ),
        &ValidateOptions {
            key: Some("a/zarr.json".into()),
            ..o.clone()
        },
    );
    only(
        &r,
        "a",
        json!(["extensions", 1, "configuration"]),
        "invalid_value",
    );
    only(
        &validate_document(&with(json!({})), &o),
        "",
        json!(["extensions"]),
        "invalid_type",
    );
    // Registered names are known at every extension point.
    clean(&validate_document(
        &arr_with_codecs(json!([bytes_le(), {"name": "acme.noted"}])),
        &o,
    ));
}

// ---------- v2 ----------

#[test]
fn v2_zarray_keys_and_shapes() {
    for key in [
        "zarr_format",
        "shape",
        "chunks",
        "dtype",
        "compressor",
        "fill_value",
        "order",
        "filters",
    ] {
        err(
            &za(&del(zarray(), &format!("/{key}"))),
            "",
            json!([key]),
            "missing_key",
        );
    }
    only(
        &za(&set(zarray(), "/chunks", json!([2]))),
        "",
        json!(["chunks"]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/chunks", json!([2, 0]))),
        "",
        json!(["chunks", 1]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/shape", json!([4, -3]))),
        "",
        json!(["shape", 1]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/zarr_format", json!(3))),
        "",
        json!(["zarr_format"]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/extra", json!(1))),
        "",
        json!(["extra"]),
        "unknown_key",
    );
    only(
        &za(&set(zarray(), "/order", json!("X"))),
        "",
        json!(["order"]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/dimension_separator", json!("-"))),
        "",
        json!(["dimension_separator"]),
        "invalid_value",
    );
    let r = validate_document(
        &del(zarray(), "/dimension_separator"),
        &ValidateOptions {
            strict: true,
            ..keyed(".zarray")
        },
    );
    assert!(r.valid);
    warn(&r, "", json!(["dimension_separator"]), "missing_key");
}

#[test]
fn v2_zarray_dtype_and_fill_value() {
    only(
        &za(&set(zarray(), "/dtype", json!("<x9"))),
        "",
        json!(["dtype"]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/fill_value", json!("abc"))),
        "",
        json!(["fill_value"]),
        "invalid_value",
    );
    clean(&za(&set(zarray(), "/fill_value", Value::Null)));
    clean(&za(&set(zarray(), "/fill_value", json!("NaN"))));
    let ints = set(
        set(zarray(), "/dtype", json!("<i4")),
        "/filters",
        Value::Null,
    );
    only(
        &za(&set(ints, "/fill_value", json!(1.5))),
        "",
        json!(["fill_value"]),
        "invalid_value",
    );
    // |O needs an object codec.
    let obj = set(
        set(zarray(), "/dtype", json!("|O")),
        "/filters",
        Value::Null,
    );
    only(
        &za(&set(obj.clone(), "/fill_value", json!(""))),
        "",
        json!(["dtype"]),
        "invalid_value",
    );
    let r = za(&set(
        set(obj, "/fill_value", Value::Null),
        "/filters",
        json!([{"id": "json2"}]),
    ));
    assert!(r.valid, "{}", dump(&r));
}

#[test]
fn v2_zarray_codecs() {
    only(
        &za(&set(zarray(), "/filters", json!("delta"))),
        "",
        json!(["filters"]),
        "invalid_type",
    );
    only(
        &za(&set(zarray(), "/filters", json!([{"dtype": "<f8"}]))),
        "",
        json!(["filters", 0, "id"]),
        "missing_key",
    );
    only(
        &za(&set(zarray(), "/compressor", json!("blosc"))),
        "",
        json!(["compressor"]),
        "invalid_type",
    );
    only(
        &za(&set(zarray(), "/compressor/shuffle", json!(5))),
        "",
        json!(["compressor", "shuffle"]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/compressor/cname", json!("brotli"))),
        "",
        json!(["compressor", "cname"]),
        "invalid_value",
    );
    only(
        &za(&set(
            zarray(),
            "/compressor",
            json!({"id": "zlib", "level": 10}),
        )),
        "",
        json!(["compressor", "level"]),
        "invalid_value",
    );
    only(
        &za(&set(
            zarray(),
            "/compressor",
            json!({"id": "zstd", "level": 99}),
        )),
        "",
        json!(["compressor", "level"]),
        "invalid_value",
    );
    only(
        &za(&set(
            zarray(),
            "/compressor",
            json!({"id": "lz4", "acceleration": "x"}),
        )),
        "",
        json!(["compressor", "acceleration"]),
        "invalid_type",
    );
    only(
        &za(&set(
            zarray(),
            "/compressor",
            json!({"id": "gzip", "lvl": 1}),
        )),
        "",
        json!(["compressor", "lvl"]),
        "unknown_key",
    );
    only(
        &za(&set(zarray(), "/filters/0/dtype", json!("<q7"))),
        "",
        json!(["filters", 0, "dtype"]),
        "invalid_value",
    );
    clean(&za(&set(zarray(), "/compressor", Value::Null)));
    clean(&za(&set(zarray(), "/filters", Value::Null)));
    // Unknown ids: valid (the v2 spec has no registry), strict warning.
    let other = set(
        zarray(),
        "/compressor",
        json!({"id": "acme-squash", "power": 11}),
    );
    clean(&za(&other));
    let r = validate_document(
        &other,
        &ValidateOptions {
            strict: true,
            ..keyed(".zarray")
        },
    );
    assert!(r.valid);
    warn(&r, "", json!(["compressor", "id"]), "invalid_value");
}

#[test]
fn v2_zgroup_and_zattrs() {
    let zg = |doc: Value| validate_document(&doc, &keyed("g/.zgroup"));
    only(
        &zg(json!({"zarr_format": 1})),
        "g",
        json!(["zarr_format"]),
        "invalid_value",
    );
    only(&zg(json!({})), "g", json!(["zarr_format"]), "missing_key");
    only(
        &zg(json!({"zarr_format": 2, "x": 1})),
        "g",
        json!(["x"]),
        "unknown_key",
    );
    only(
        &validate_document(&json!([1, 2]), &keyed("g/.zattrs")),
        "g",
        json!([]),
        "invalid_type",
    );
}

fn zmetadata() -> Value {
    json!({
        "metadata": {
            ".zgroup": {"zarr_format": 2},
            ".zattrs": {"q": 1},
            "a/.zarray": zarray(),
            "a/.zattrs": {},
            "sub/.zgroup": {"zarr_format": 2, "consolidated_metadata": {"metadata": {}, "must_understand": false, "kind": "inline"}}
        },
        "zarr_consolidated_format": 1
    })
}

#[test]
fn v2_zmetadata() {
    let zm = |doc: Value| validate_document(&doc, &keyed(".zmetadata"));
    clean(&zm(zmetadata()));
    only(
        &zm(set(zmetadata(), "/zarr_consolidated_format", json!(2))),
        "",
        json!(["zarr_consolidated_format"]),
        "invalid_value",
    );
    only(
        &zm(del(zmetadata(), "/metadata")),
        "",
        json!(["metadata"]),
        "missing_key",
    );
    only(
        &zm(set(zmetadata(), "/metadata/a~1foo", json!({}))),
        "",
        json!(["metadata", "a/foo"]),
        "invalid_value",
    );
    let r = zm(set(zmetadata(), "/metadata/a~1.zarray/chunks", json!([2])));
    only(
        &r,
        "a",
        json!(["metadata", "a/.zarray", "chunks"]),
        "invalid_value",
    );
    let r = zm(set(zmetadata(), "/metadata/a~1.zattrs", json!(3)));
    only(&r, "a", json!(["metadata", "a/.zattrs"]), "invalid_type");
    let r = zm(set(
        zmetadata(),
        "/metadata/a~1.zgroup",
        json!({"zarr_format": 2}),
    ));
    only(&r, "a", json!(["metadata", "a/.zgroup"]), "invalid_value");
    // zarr-python's consolidated_metadata in nested .zgroup copies: strict warning only.
    let r = validate_document(
        &zmetadata(),
        &ValidateOptions {
            strict: true,
            ..keyed(".zmetadata")
        },
    );
    assert!(r.valid);
    warn(
        &r,
        "sub",
        json!(["metadata", "sub/.zgroup", "consolidated_metadata"]),
        "unknown_key",
    );
}

// ---------- strict mode ----------

#[test]
fn strict_only_warnings() {
    let big_chunks = set(
        arr(),
        "/chunk_grid/configuration/chunk_shape",
        json!([10, 50]),
    );
    clean(&v3(&big_chunks));
    let r = validate_document(&big_chunks, &strict());
    assert!(r.valid, "warnings keep a document valid");
    warn(
        &r,
        "",
        json!(["chunk_grid", "configuration", "chunk_shape", 1]),
        "invalid_value",
    );
    let r = validate_document(
        &set(zarray(), "/chunks", json!([8, 2])),
        &ValidateOptions {
            strict: true,
            ..keyed(".zarray")
        },
    );
    warn(&r, "", json!(["chunks", 0]), "invalid_value");
}

// ---------- hierarchies ----------

fn zom3() -> Value {
    json!({
        "zarr_format": 3, "node_type": "group", "attributes": {"a": 1},
        "members": {
            "g": {"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {
                "a": set(set(set(arr(), "/dimension_names", Value::Null), "/storage_transformers", json!([])), "/attributes", json!({}))
            }},
            "x": arr()
        }
    })
}

fn zom2() -> Value {
    json!({
        "zarr_format": 2, "attributes": {"q": 1},
        "members": {
            "f": set(zarray(), "/attributes", json!({})),
            "sub": {"zarr_format": 2, "attributes": {}, "members": {"i": set(zarray(), "/attributes", json!({}))}}
        }
    })
}

#[test]
fn hierarchy_pydantic_zarr_forms_are_valid() {
    clean(&validate_hierarchy(&zom3(), &opts()));
    clean(&validate_hierarchy(&zom2(), &opts()));
    clean(&validate_hierarchy(
        &set(zom2(), "/members/sub/members", Value::Null),
        &opts(),
    ));
}

#[test]
fn hierarchy_nodes_are_validated_with_their_paths() {
    let r = validate_hierarchy(
        &set(zom3(), "/members/g/members/a/shape", json!([1.5, 20])),
        &opts(),
    );
    only(&r, "g/a", json!(["shape", 0]), "invalid_type");
    let r = validate_hierarchy(
        &set(zom2(), "/members/sub/members/i/order", json!("Z")),
        &opts(),
    );
    only(&r, "sub/i", json!(["order"]), "invalid_value");
    let r = validate_hierarchy(&set(zom2(), "/members/f/attributes", json!(1)), &opts());
    only(&r, "f", json!(["attributes"]), "invalid_type");
    let r = validate_hierarchy(&set(zom3(), "/members/g/attributes", json!(1)), &opts());
    only(&r, "g", json!(["attributes"]), "invalid_type");
}

#[test]
fn hierarchy_member_names() {
    for bad in ["", "a/b", "..", ".", "__meta"] {
        let doc = set(
            zom3(),
            &format!("/members/{}", bad.replace('/', "~1")),
            group(),
        );
        let r = validate_hierarchy(&doc, &opts());
        err(&r, "", json!(["members", bad]), "invalid_value");
    }
    let doc = set(zom3(), "/members/caf\u{e9}", group());
    clean(&validate_hierarchy(&doc, &opts()));
    warn(
        &validate_hierarchy(&doc, &strict()),
        "",
        json!(["members", "caf\u{e9}"]),
        "invalid_value",
    );
}

#[test]
fn hierarchy_mixed_versions_and_array_members() {
    let r = validate_hierarchy(
        &set(
            zom3(),
            "/members/v2",
            json!({"zarr_format": 2, "attributes": {}, "members": {}}),
        ),
        &opts(),
    );
    only(&r, "v2", json!(["zarr_format"]), "invalid_value");
    let r = validate_hierarchy(&set(zom3(), "/members/x/members", json!({})), &opts());
    only(&r, "x", json!(["members"]), "invalid_value");
    let r = validate_hierarchy(
        &set(
            zom2(),
            "/members/f/members",
            json!({"y": {"zarr_format": 2}}),
        ),
        &opts(),
    );
    only(&r, "f", json!(["members"]), "invalid_value");
    let r = validate_hierarchy(&set(zom3(), "/members", json!([])), &opts());
    only(&r, "", json!(["members"]), "invalid_type");
    let r = validate_hierarchy(&set(zom3(), "/members/g/members/n", json!(5)), &opts());
    only(&r, "g/n", json!([]), "invalid_type");
}

#[test]
fn hierarchy_depth_is_capped() {
    // Built by hand: deeper than the JSON parser would allow.
    let mut node = group();
    for _ in 0..400 {
        node = set(group(), "/members", json!({ "n": node }));
    }
    let r = validate_hierarchy(&node, &opts());
    assert_eq!(r.problems.len(), 1, "{}", dump(&r));
    assert_eq!(r.problems[0].loc, vec![LocStep::Key("members".into())]);
    assert_eq!(r.problems[0].path.split('/').count(), 256);
    // Free the deep value without recursing through 800 levels of drops.
    let mut stack = vec![node];
    while let Some(mut v) = stack.pop() {
        if let Some(m) = v.as_object_mut().and_then(|o| o.remove("members")) {
            stack.push(m);
        }
        if let Some(n) = v.as_object_mut().and_then(|o| o.remove("n")) {
            stack.push(n);
        }
    }
}

// ---------- never panics ----------

fn hostile_values() -> Vec<Value> {
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    vec![
        Value::Null,
        json!(true),
        json!(-1),
        json!(-9223372036854775808i64),
        json!(18446744073709551615u64),
        json!(1e308),
        json!(-0.5),
        json!(""),
        json!("\u{0}\u{ffff}"),
        json!([]),
        json!([null, -1, 1.5, "x", [], {}]),
        json!([18446744073709551615u64, 0]),
        json!({}),
        json!({"name": 1, "configuration": [], "must_understand": "no"}),
        json!({"name": "sharding_indexed", "configuration": {"chunk_shape": [0], "codecs": {}, "index_codecs": [1]}}),
        deep,
    ]
}

fn poke_everywhere(doc: &Value, mut f: impl FnMut(&Value)) {
    fn pointers(v: &Value, here: String, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => o.iter().for_each(|(k, c)| {
                let p = format!("{here}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(c, p, out);
            }),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| {
                let p = format!("{here}/{i}");
                out.push(p.clone());
                pointers(c, p, out);
            }),
            _ => {}
        }
    }
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    for p in all {
        for h in hostile_values() {
            f(&set(doc.clone(), &p, h));
        }
    }
}

#[test]
fn never_panics_on_hostile_documents() {
    let o = ValidateOptions {
        strict: true,
        ..ext_opts()
    };
    for doc in [arr(), sharded(), consolidated()] {
        poke_everywhere(&doc, |d| {
            validate_document(d, &o);
        });
    }
    for key in [".zarray", ".zmetadata"] {
        let doc = if key == ".zarray" {
            zarray()
        } else {
            zmetadata()
        };
        let o = ValidateOptions {
            key: Some(key.into()),
            strict: true,
            ..Default::default()
        };
        poke_everywhere(&doc, |d| {
            validate_document(d, &o);
        });
    }
    poke_everywhere(&zom3(), |d| {
        validate_hierarchy(d, &o);
    });
    poke_everywhere(&zom2(), |d| {
        validate_hierarchy(d, &o);
    });
    for h in hostile_values() {
        for key in [
            "zarr.json",
            ".zarray",
            ".zgroup",
            ".zattrs",
            ".zmetadata",
            "x",
        ] {
            validate_document(&h, &keyed(key));
        }
        validate_hierarchy(&h, &o);
    }
    for bytes in [
        &b""[..],
        b"{",
        b"\xff\xfe",
        b"[[[[[[[[[[",
        b"{\"zarr_format\": 3e999}",
    ] {
        assert!(!validate_document_bytes(bytes, &opts()).valid);
    }
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let r = validate_document_bytes(nested.as_bytes(), &opts());
    only(&r, "", json!([]), "invalid_json");
}

#[test]
fn problems_serialise_in_the_contract_shape() {
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "gzip", "configuration": {"level": 12}}]),
    ));
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["valid"], json!(false));
    assert_eq!(
        v["problems"][0]["loc"],
        json!(["codecs", 1, "configuration", "level"])
    );
    assert_eq!(v["problems"][0]["kind"], json!("invalid_value"));
    assert_eq!(v["problems"][0]["severity"], json!("error"));
    assert!(v["problems"][0]["message"].as_str().unwrap().contains("12"));
}
