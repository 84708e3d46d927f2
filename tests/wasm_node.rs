//! The Rust API compiled to WebAssembly and run in Node (wasm-bindgen-test-runner): the same
//! calls as the native tests, to catch what only breaks on wasm32 (usize width, float
//! formatting, panics that abort). Run by `npm test`:
//! `cargo test --target wasm32-unknown-unknown --test wasm_node` with
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner`.
#![cfg(target_arch = "wasm32")]

use serde_json::{json, Value};
use wasm_bindgen_test::wasm_bindgen_test;
use zom::model::{self, DocumentOptions, Node};
use zom::validate::{self, ProblemKind, Severity, ValidateOptions};

fn array_doc() -> Value {
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": [10, 20],
        "data_type": "int64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 20]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": i64::MIN,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {"units": "m"},
        "dimension_names": ["y", "x"]
    })
}

fn group_doc() -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": {"title": "t"}})
}

fn opts(key: &str) -> ValidateOptions {
    ValidateOptions {
        key: Some(key.to_string()),
        ..Default::default()
    }
}

#[wasm_bindgen_test]
fn validate_document_accepts_a_valid_array() {
    let report = validate::validate_document(&array_doc(), &opts("a/zarr.json"));
    assert!(report.valid, "{:?}", report.problems);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[wasm_bindgen_test]
fn validate_document_lists_the_problems_of_a_broken_array() {
    let mut doc = array_doc();
    let object = doc.as_object_mut().unwrap();
    object.remove("chunk_grid");
    object.insert("shape".into(), json!("ten"));
    let report = validate::validate_document(&doc, &opts("a/zarr.json"));
    assert!(!report.valid);
    let find = |kind: ProblemKind, key: &str| {
        report
            .problems
            .iter()
            .find(|p| p.kind == kind && serde_json::to_value(&p.loc).unwrap() == json!([key]))
            .unwrap_or_else(|| panic!("no {kind:?} at [{key}] in {:?}", report.problems))
    };
    let missing = find(ProblemKind::MissingKey, "chunk_grid");
    assert_eq!(missing.path, "a");
    assert_eq!(missing.severity, Severity::Error);
    find(ProblemKind::InvalidType, "shape");
}

/// Numbers beyond the exact small decimals are converted by the host's `parseFloat` in
/// WebAssembly: each must be the nearest `f64`, as core's parser (in this test binary) says.
#[wasm_bindgen_test]
fn json_numbers_parse_to_the_nearest_f64_through_the_host() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut texts: Vec<String> = [
        "0.30000000000000004",
        "2.2250738585072014e-308",
        "4.9e-324",
        "1.7976931348623157e308",
        "123456789012345678901234567890",
        "9007199254740993.0",
        "1e-400",
        "-0.0",
        "3.141592653589793238462643383279",
    ]
    .map(String::from)
    .to_vec();
    for _ in 0..2000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let f = f64::from_bits(state);
        if f.is_finite() {
            texts.push(format!("{f:?}"));
            texts.push(format!("{f:e}"));
        }
    }
    let limits = zom::Limits::default();
    for text in &texts {
        let parsed = zom::json::parse_document(text.as_bytes(), &limits).unwrap();
        let want: f64 = text.parse().unwrap();
        assert_eq!(
            parsed.as_f64().map(f64::to_bits),
            Some(want.to_bits()),
            "{text}"
        );
    }
    let e = zom::json::parse_document(b"[1e400]", &limits).unwrap_err();
    assert!(e.message.contains("number out of range"), "{}", e.message);
}

#[wasm_bindgen_test]
fn validate_document_bytes_reports_invalid_json() {
    let report = validate::validate_document_bytes(b"{\"zarr_format\": 3,", &opts("zarr.json"));
    assert!(!report.valid);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.problems[0].kind, ProblemKind::InvalidJson);
}

#[wasm_bindgen_test]
fn zom_from_documents_and_back() {
    let docs = vec![
        ("zarr.json".to_string(), group_doc()),
        ("a/zarr.json".to_string(), array_doc()),
        ("g/zarr.json".to_string(), group_doc()),
        ("a/c/0/0".to_string(), json!("chunk keys are ignored")),
    ];
    let root = model::from_documents(docs.clone()).unwrap();
    assert_eq!(root.kind(), "group");
    let paths: Vec<String> = root.descendants().into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["", "a", "g"]);

    let zom = root.to_value();
    assert_eq!(zom["members"]["a"]["shape"], json!([10, 20]));
    // The int64 minimum survives wasm32 (no detour through f64).
    assert_eq!(zom["members"]["a"]["fill_value"], json!(i64::MIN));
    assert_eq!(zom["members"]["g"]["attributes"], json!({"title": "t"}));
    assert_eq!(Node::from_value(&zom).unwrap().to_value(), zom);

    // ZOM -> documents -> ZOM is a fixed point.
    let written = model::to_documents(&root, DocumentOptions::default()).unwrap();
    let keys: Vec<&str> = written.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    for key in ["zarr.json", "a/zarr.json", "g/zarr.json"] {
        assert!(keys.contains(&key), "{key} not in {keys:?}");
    }
    assert_eq!(model::from_documents(written).unwrap().to_value(), zom);
}

#[wasm_bindgen_test]
fn from_document_bytes_refuses_garbage_with_its_key() {
    let docs = vec![("zarr.json", b"\x00 not json".to_vec())];
    let err = model::from_document_bytes(docs, &zom::Limits::default()).unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::InvalidMetadata);
    assert_eq!(err.key.as_deref(), Some("zarr.json"));
}

/// The consolidated-metadata scan on wasm32: strings with brackets, escapes, and names with
/// `Y`, `_`, `y`, at every alignment.
#[wasm_bindgen_test]
fn consolidated_members_are_found_by_the_scan() {
    let member = r#"{"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}, "attributes": {"Y_y": "}]\"\\{[", "list": [[1, 2], {"a": [], "b": {}}], "z": "\u00e9"}}"#;
    for pad in 0..20 {
        let members = format!(
            r#""a": {member}, "b/c{}": {member}, "d": 12, "e": "Y]""#,
            "_".repeat(pad)
        );
        let text = format!(
            r#"{{"consolidated_metadata": {{"metadata": {{{members}}}}}, "node_type": "group"}}"#
        );
        let skim = zom_json::skim_consolidated(text.as_bytes()).expect("members found");
        let found: Vec<&str> = skim
            .members
            .iter()
            .map(|(_, r)| std::str::from_utf8(&text.as_bytes()[r.clone()]).unwrap())
            .collect();
        assert_eq!(found, [member, member, "12", r#""Y]""#], "pad {pad}");
        let broken = text.replacen(r#""list": [[1, 2]"#, r#""list": [[1, 2}"#, 1);
        assert!(
            zom_json::skim_consolidated(broken.as_bytes()).is_none(),
            "pad {pad}"
        );
    }
}
