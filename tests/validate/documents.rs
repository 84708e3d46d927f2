//! Documents zarr-python writes, document kinds, invalid JSON, strict mode.

use super::*;

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
    // zarr-python writes `bytes` without `endian` for struct types.
    let st = set(
        arr(),
        "/data_type",
        json!({"name": "structured", "configuration": {"fields": [["id", "int32"], ["y", "float64"]]}}),
    );
    let st = set(st, "/fill_value", json!("AAAAAAAAAAAAAAAA"));
    clean(&v3(&set(st, "/codecs/0", json!({"name": "bytes"}))));
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
