//! ZEP 9 names, must_understand, ZEP 10 extensions.

use super::*;

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
