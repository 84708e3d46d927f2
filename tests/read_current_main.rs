//! The main fixture arrays (tests/fixtures/fixture_specs.py) as zarr-python 3.4.2 writes them
//! (tests/fixtures/zarr-3.4.2, `generate.py --copy` in .venv-current), beside zarr 3.1.6's
//! (tests/read_fixtures.rs): every array, read whole through the store, equals the values
//! zarr-python 3.4.2 reads, and every document is valid.

mod common;

use common::store::{read_whole, store_from_dir};
use common::values::encode_all;
use common::{fixtures, read_documents, read_json};
use serde_json::{json, Value};
use zom::hierarchy::ArrayReader;
use zom::model::{self, Node};
use zom::validate::{validate_document_bytes, validate_hierarchy, Severity, ValidateOptions};

const COPY: &str = "zarr-3.4.2";

/// Reads every array of `COPY/name` whole and compares it with `COPY/name.values.json`.
fn check(name: &str, at_least: usize) {
    let dir = fixtures().join(COPY).join(name);
    let store = store_from_dir(&dir);
    let root = model::from_document_bytes(read_documents(&dir), &zom::Limits::default())
        .unwrap_or_else(|e| panic!("{COPY}/{name}: {e}"));
    let expected = read_json(&fixtures().join(COPY).join(format!("{name}.values.json")));
    let mut checked = 0;
    for (path, entry) in expected.as_object().unwrap() {
        let at = format!("{COPY}/{name}/{path}");
        let reader = ArrayReader::open_in(&root, path).unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(json!(reader.shape()), entry["shape"], "{at} shape");
        let got = read_whole(&store, &reader);
        assert_eq!(json!(got.shape), entry["shape"], "{at} read shape");
        let got = Value::Array(encode_all(reader.data_type(), &got.data));
        let diffs = common::json_differences(&got, &entry["values"]);
        assert!(diffs.is_empty(), "{at}:\n{}", diffs.join("\n"));
        checked += 1;
    }
    assert!(
        checked >= at_least,
        "{COPY}/{name}: {checked} arrays checked"
    );
    let arrays = root
        .descendants()
        .into_iter()
        .filter(|(_, n)| matches!(n, Node::Array(_)))
        .count();
    assert_eq!(
        arrays, checked,
        "{COPY}/{name}: every array has expected values"
    );
}

#[test]
fn v3_arrays_read_as_zarr_python_3_4_reads_them() {
    check("v3", 50);
}

#[test]
fn v2_arrays_read_as_zarr_python_3_4_reads_them() {
    // dtype_struct_nested among them: zarr 3.1.6 could not read its own nested struct back.
    check("v2", 50);
}

#[test]
fn the_arrays_are_those_of_zarr_3_1_6_with_the_same_values() {
    // zarr-python 3.4.2 writes the same arrays and chunks; only its refusals differ (see
    // generate.py's docstring): every array zarr 3.1.6 wrote holds the same values.
    for name in ["v3", "v2"] {
        let old = read_json(&fixtures().join(format!("expected/{name}.values.json")));
        let new = read_json(&fixtures().join(COPY).join(format!("{name}.values.json")));
        for (path, entry) in old.as_object().unwrap() {
            let diffs = common::json_differences(entry, &new[path]);
            assert!(diffs.is_empty(), "{name}/{path}:\n{}", diffs.join("\n"));
        }
    }
}

#[test]
fn every_document_and_hierarchy_is_valid() {
    for name in ["v3", "v2"] {
        let dir = fixtures().join(COPY).join(name);
        for (key, bytes) in read_documents(&dir) {
            let options = ValidateOptions {
                key: Some(key.clone()),
                ..Default::default()
            };
            let report = validate_document_bytes(&bytes, &options);
            let errors: Vec<_> = report
                .problems
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            assert!(report.valid, "{COPY}/{name}/{key}: {errors:#?}");
        }
        let root =
            model::from_document_bytes(read_documents(&dir), &zom::Limits::default()).unwrap();
        let report = validate_hierarchy(&root.to_value(), &ValidateOptions::default());
        assert!(report.valid, "{COPY}/{name}: {:#?}", report.problems);
    }
}
