//! v2 .zarray, .zgroup, .zattrs, .zmetadata.

use super::*;

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
    // Other keys SHOULD NOT be in a .zarray and readers SHOULD ignore them (v2 spec): valid,
    // with a warning in strict mode.
    let extra = set(zarray(), "/extra", json!(1));
    assert!(za(&extra).problems.is_empty(), "{}", dump(&za(&extra)));
    let strict_report = validate_document(
        &extra,
        &ValidateOptions {
            key: Some(".zarray".into()),
            strict: true,
            ..Default::default()
        },
    );
    has(
        &strict_report,
        "",
        json!(["extra"]),
        "unknown_key",
        Severity::Warning,
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
    // An empty id names no codec: an error, not an unknown codec's warning.
    only(
        &za(&set(zarray(), "/filters", json!([{"id": ""}]))),
        "",
        json!(["filters", 0, "id"]),
        "invalid_value",
    );
    only(
        &za(&set(zarray(), "/compressor", json!({"id": ""}))),
        "",
        json!(["compressor", "id"]),
        "invalid_value",
    );
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

#[test]
fn v2_object_arrays_with_zarr_python_2s_default_fill_value() {
    // What zarr-python 2.18 writes for `dtype=str` (and object arrays with a vlen-bytes
    // codec): fill_value 0. Valid (never refused), with a strict warning saying how it reads.
    for codec in ["vlen-utf8", "vlen-bytes"] {
        let doc = json!({"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "|O",
            "compressor": null, "fill_value": 0, "order": "C", "filters": [{"id": codec}],
            "dimension_separator": "."});
        clean(&za(&doc));
        let r = validate_document(&doc, &strict());
        assert!(r.valid, "{}", dump(&r));
        warn(&r, "", json!(["fill_value"]), "invalid_value");
        assert!(
            dump(&r).contains(r#"missing elements read as "0""#),
            "{}",
            dump(&r)
        );
    }
}
