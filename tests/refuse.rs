//! What the spec says readers MUST refuse (ZEP 9 `must_understand`): an unknown top-level key,
//! storage transformer or ZEP 10 extension that is not marked `"must_understand": false`
//! makes opening an array for reading fail with `UnsupportedExtension`, as `validate_document`
//! reports it; marked ones, empty lists and extensions the caller implements read as before.

mod common;

use common::fixtures;
use common::store::{block_on, store_from_dir};
use serde_json::{json, Value};
use zom::chunk::Selection;
use zom::hierarchy::{open, read, ArrayReader, OpenHints, ReadOptions};
use zom::model::{Array, Node};
use zom::validate::{validate_document, ValidateOptions};
use zom::{ErrorCode, Limits};

/// The zarr.json of fixture array v3/dtype_int32 (zarr-python 3) with `change` applied.
fn document(change: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let text = std::fs::read(fixtures().join("v3/dtype_int32/zarr.json")).unwrap();
    let mut doc: Value = serde_json::from_slice(&text).unwrap();
    change(doc.as_object_mut().unwrap());
    doc
}

/// The fixture hierarchy v3 with `doc` as the zarr.json of its array `dtype_int32`.
fn store_with(doc: &Value) -> zom::store::MemoryStore {
    let mut store = store_from_dir(&fixtures().join("v3"));
    store.insert("dtype_int32/zarr.json", serde_json::to_vec(doc).unwrap());
    store
}

/// The array node of `doc`, opened through a store.
fn opened(doc: &Value) -> Array {
    let store = store_with(doc);
    match block_on(open(&store, "dtype_int32", OpenHints::default()))
        .unwrap()
        .node
    {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    }
}

/// Opens `doc` for reading with `understood` and reads it whole.
fn read_all(doc: &Value, understood: &[String]) -> zom::Result<Vec<u8>> {
    let store = store_with(doc);
    let array = opened(doc);
    let reader =
        ArrayReader::open_with_extensions(&array, "dtype_int32", Limits::default(), understood)?;
    let values = block_on(read(
        &store,
        &reader,
        &Selection::all(),
        &ReadOptions::default(),
        &mut |_| {},
    ))?;
    match values.data {
        zom::codec::DecodedChunk::Fixed(b) => Ok(b),
        other => panic!("bytes expected, got {other:?}"),
    }
}

/// The fixture's values, read from its unchanged document (tests/read_fixtures.rs checks
/// them against zarr-python's).
fn expected() -> Vec<u8> {
    let values = read_all(&document(|_| {}), &[]).unwrap();
    assert_eq!(values.len(), 5 * 4);
    values
}

fn refused(doc: &Value, message: &str) {
    let e = read_all(doc, &[]).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedExtension, "{e}");
    assert_eq!(e.path.as_deref(), Some("dtype_int32"));
    assert!(e.message.contains(message), "{message:?} not in {e}");
    // The validator says the same, as an error of kind must_understand.
    let options = ValidateOptions {
        extensions: true,
        ..ValidateOptions::default()
    };
    let report = validate_document(doc, &options);
    assert!(!report.valid);
    assert!(report
        .problems
        .iter()
        .any(|p| p.message == e.message && p.kind == zom::validate::ProblemKind::MustUnderstand));
}

#[test]
fn an_unknown_key_that_must_be_understood_is_refused() {
    refused(
        &document(|d| {
            d.insert("vendor.checksums".into(), json!({"must_understand": true}));
        }),
        "unknown key 'vendor.checksums': readers must refuse it",
    );
    // Without must_understand, or with a value that is not an object, it must be understood.
    refused(
        &document(|d| {
            d.insert("vendor.tiles".into(), json!({"size": 4}));
        }),
        "unknown key 'vendor.tiles'",
    );
    refused(
        &document(|d| {
            d.insert("vendor.flag".into(), json!(true));
        }),
        "unknown key 'vendor.flag'",
    );
}

#[test]
fn an_unknown_storage_transformer_is_refused() {
    refused(
        &document(|d| {
            d.insert(
                "storage_transformers".into(),
                json!([{"name": "vendor.offset", "configuration": {"by": 1}}]),
            );
        }),
        "unknown storage transformer 'vendor.offset'",
    );
}

#[test]
fn an_unknown_zep10_extension_is_refused() {
    refused(
        &document(|d| {
            d.insert("extensions".into(), json!([{"name": "vendor.offset"}]));
        }),
        "unknown extension 'vendor.offset'",
    );
}

#[test]
fn what_may_be_ignored_reads_as_before() {
    let ignorable = [
        document(|d| {
            d.insert(
                "vendor.note".into(),
                json!({"must_understand": false, "x": 1}),
            );
        }),
        document(|d| {
            d.insert("storage_transformers".into(), json!([]));
        }),
        document(|d| {
            d.remove("storage_transformers");
        }),
        document(|d| {
            d.insert(
                "storage_transformers".into(),
                json!([{"name": "vendor.cache", "must_understand": false}]),
            );
        }),
        document(|d| {
            d.insert(
                "extensions".into(),
                json!([{"name": "vendor.stats", "must_understand": false, "configuration": {}}]),
            );
        }),
    ];
    for doc in &ignorable {
        assert_eq!(read_all(doc, &[]).unwrap(), expected(), "{doc}");
    }
}

#[test]
fn extensions_the_caller_implements_are_read() {
    let understood = ["vendor.offset".to_string(), "vendor.checksums".to_string()];
    let docs = [
        document(|d| {
            d.insert("extensions".into(), json!([{"name": "vendor.offset"}]));
        }),
        document(|d| {
            d.insert(
                "storage_transformers".into(),
                json!([{"name": "vendor.offset"}]),
            );
        }),
        document(|d| {
            d.insert("vendor.checksums".into(), json!({"must_understand": true}));
        }),
    ];
    for doc in &docs {
        assert_eq!(read_all(doc, &understood).unwrap(), expected(), "{doc}");
        assert!(read_all(doc, &[]).is_err(), "{doc}");
    }
}

#[test]
fn the_zom_still_describes_a_refused_array() {
    // Opening as a node (walk, the ZOM) keeps the document: validation reports it.
    let doc = document(|d| {
        d.insert("vendor.checksums".into(), json!({"must_understand": true}));
    });
    let Array::V3(meta) = opened(&doc) else {
        panic!("v3")
    };
    assert_eq!(
        meta.extra.get("vendor.checksums"),
        Some(&json!({"must_understand": true}))
    );
}
