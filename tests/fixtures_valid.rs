//! Everything zarr-python and pydantic-zarr wrote for the fixtures validates without an error;
//! the sample's deliberate problem is found where it is.

mod common;

use common::{fixtures, read_documents, read_json};
use zom::model::{self, DocumentOptions};
use zom::validate::{
    validate_document_bytes, validate_hierarchy, ProblemKind, Severity, ValidateOptions,
};

fn errors(report: &zom::validate::Report) -> Vec<String> {
    report
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| format!("/{} {:?} {:?}: {}", p.path, p.loc, p.kind, p.message))
        .collect()
}

#[test]
fn every_fixture_document_is_valid() {
    for name in [
        "v3",
        "v3-consolidated",
        "v2",
        "v2-consolidated",
        "v2-numcodecs",
        "zarr2",
        "zarr2-nested",
        "current/v3",
        "current/v2",
        "current/v3-rectilinear",
    ] {
        for (key, bytes) in read_documents(&fixtures().join(name)) {
            let options = ValidateOptions {
                key: Some(key.clone()),
                ..Default::default()
            };
            let report = validate_document_bytes(&bytes, &options);
            assert!(report.valid, "{name}/{key}: {:#?}", errors(&report));
        }
    }
}

#[test]
fn current_writers_documents_validate_strictly_without_problems() {
    // scale_offset, cast_value (with scalar maps, before sharding) and numcodecs 0.17's v3
    // forms are registered codecs: not even a strict-mode warning.
    for (key, bytes) in read_documents(&fixtures().join("current/v3")) {
        let options = ValidateOptions {
            key: Some(key.clone()),
            strict: true,
            ..Default::default()
        };
        let report = validate_document_bytes(&bytes, &options);
        let problems: Vec<String> = report.problems.iter().map(|p| format!("{p:?}")).collect();
        assert!(report.valid, "{key}: {problems:#?}");
        let unexpected: Vec<&String> = problems
            .iter()
            .filter(|p| !p.contains("numcodecs"))
            .collect();
        assert!(unexpected.is_empty(), "{key}: {unexpected:#?}");
    }
}

#[test]
fn zarr_python_2_object_arrays_validate_strictly_without_problems() {
    for (key, bytes) in read_documents(&fixtures().join("v2-numcodecs")) {
        let options = ValidateOptions {
            key: Some(key.clone()),
            strict: true,
            ..Default::default()
        };
        let report = validate_document_bytes(&bytes, &options);
        assert!(report.problems.is_empty(), "{key}: {:#?}", report.problems);
    }
}

#[test]
fn every_pydantic_zarr_dump_is_a_valid_hierarchy() {
    for name in ["v3", "v3-consolidated", "v2", "v2-consolidated"] {
        let zom = read_json(&fixtures().join(format!("expected/{name}.zom.json")));
        let report = validate_hierarchy(&zom, &ValidateOptions::default());
        assert!(report.valid, "{name}: {:#?}", errors(&report));
    }
}

#[test]
fn converted_v2_hierarchy_is_valid_v3() {
    let docs = read_documents(&fixtures().join("v2"));
    let v2 = model::from_document_bytes(docs, &zom::Limits::default()).unwrap();
    let converted = model::to_v3(&v2).node;
    let report = validate_hierarchy(&converted.to_value(), &ValidateOptions::default());
    assert!(report.valid, "{:#?}", errors(&report));
    for (key, doc) in model::to_documents(&converted, DocumentOptions::default()).unwrap() {
        let options = ValidateOptions {
            key: Some(key.clone()),
            ..Default::default()
        };
        let report = zom::validate::validate_document(&doc, &options);
        assert!(report.valid, "{key}: {:#?}", errors(&report));
    }
}

#[test]
fn sample_deliberate_problem_is_reported_with_its_location() {
    let docs = read_documents(&fixtures().join("sample"));
    let sample = model::from_document_bytes(docs, &zom::Limits::default()).unwrap();
    let report = validate_hierarchy(&sample.to_value(), &ValidateOptions::default());
    assert!(!report.valid);
    let errors: Vec<_> = report
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let problem = errors[0];
    assert_eq!(problem.path, "broken/bad_chunk_rank");
    assert_eq!(problem.kind, ProblemKind::InvalidValue);
    let loc = serde_json::to_value(&problem.loc).unwrap();
    assert_eq!(
        loc,
        serde_json::json!(["chunk_grid", "configuration", "chunk_shape"])
    );
}

#[test]
fn rectilinear_grids_are_checked_with_located_problems_and_bounded_cost() {
    let doc = |grid: serde_json::Value, shape: serde_json::Value| {
        let mut d = read_json(&fixtures().join("current/v3-rectilinear/edges_1d/zarr.json"));
        d["chunk_grid"] = grid;
        d["shape"] = shape;
        serde_json::to_vec(&d).unwrap()
    };
    let check = |bytes: Vec<u8>| validate_document_bytes(&bytes, &ValidateOptions::default());
    // A run of 2^53 edges of length 1 covers 2^53 elements: nothing is expanded.
    let huge = serde_json::json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[[1, 9007199254740992u64]]]}});
    let started = std::time::Instant::now();
    assert!(check(doc(huge, serde_json::json!([9007199254740992u64]))).valid);
    // Expanding the run would not finish: a bound on that hang, not on speed.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let bad = serde_json::json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[[10, 2], [5, 0]]]}});
    let report = check(doc(bad, serde_json::json!([25])));
    assert_eq!(
        errors(&report),
        vec!["/ [Key(\"chunk_grid\"), Key(\"configuration\"), Key(\"chunk_shapes\"), Index(0), Index(1)] InvalidValue: chunk_shapes[0][1]'s count must be an integer ≥ 1, not 0".to_string()]
    );
    let short = serde_json::json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[[10, 2]]]}});
    let report = check(doc(short, serde_json::json!([25])));
    assert!(!report.valid);
    assert!(
        errors(&report)[0].contains("reach 20, short of the array's length 25"),
        "{:?}",
        errors(&report)
    );
}
