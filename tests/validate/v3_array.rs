//! v3 arrays (keys, shape, grid, key encoding, data type, fill value) and groups.

use super::*;

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
        json!(["chunk_grid", "configuration", "chunk_shape"]),
        "missing_key",
    );
    let r = v3(&set(arr(), "/chunk_grid/configuration/extra", json!(1)));
    only(
        &r,
        "",
        json!(["chunk_grid", "configuration", "extra"]),
        "unknown_key",
    );
    // zarr-extensions' rectilinear grid (zarr-python 3.4): edges and [length, count] runs.
    let rect = |shapes: Value| json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": shapes}});
    let shape = shape_of(&arr());
    let edges = json!([[[shape[0] / 2, 2]], [shape[1]]]);
    clean(&v3(&set(arr(), "/chunk_grid", rect(edges.clone()))));
    only(
        &v3(&del(
            set(arr(), "/chunk_grid", rect(edges)),
            "/chunk_grid/configuration/kind",
        )),
        "",
        json!(["chunk_grid", "configuration", "kind"]),
        "missing_key",
    );
    only(
        &v3(&set(arr(), "/chunk_grid", rect(json!([[[1, 1]], 5])))),
        "",
        json!(["chunk_grid", "configuration", "chunk_shapes", 0]),
        "invalid_value",
    );
    // Unknown grids follow the must_understand rules.
    let unknown = json!({"name": "example.grid", "configuration": {"chunk_shapes": [[10], [20]]}});
    only(
        &v3(&set(arr(), "/chunk_grid", unknown.clone())),
        "",
        json!(["chunk_grid"]),
        "must_understand",
    );
    let ignorable = set(unknown, "/must_understand", json!(false));
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

/// The `shape` of an array document.
fn shape_of(doc: &Value) -> Vec<u64> {
    doc["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect()
}
