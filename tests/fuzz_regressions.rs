//! Every input a fuzzer crashed zom with, kept in tests/fixtures/fuzz-regressions/<target>/,
//! run through the same harness as the fuzz target (fuzz/src, included by path): no panic,
//! no arithmetic overflow (tests are debug builds), and the error expected.json records for
//! the step that used to crash.
//!
//! `ZOM_FUZZ_CORPUS=fuzz/corpus cargo test --test fuzz_regressions -- --ignored` also runs a
//! whole fuzz corpus through the debug build (overflow checks on every unit).

#[allow(dead_code, clippy::all)]
#[path = "../fuzz/src/lib.rs"]
mod harness;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz-regressions")
}

fn target_fn(name: &str) -> fn(&[u8]) -> harness::Outcome {
    harness::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("no fuzz target '{name}'"))
}

/// "ok" or an error code's name, as expected.json writes it.
fn describe(result: Option<Option<zom::ErrorCode>>) -> String {
    match result {
        None => "not run".into(),
        Some(None) => "ok".into(),
        Some(Some(code)) => code.as_str().into(),
    }
}

#[test]
fn saved_crashes_give_their_error() {
    let dir = regressions_dir();
    let expected: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    let mut ran = 0;
    for target in std::fs::read_dir(&dir).unwrap() {
        let target = target.unwrap().path();
        if !target.is_dir() {
            continue;
        }
        let name = target.file_name().unwrap().to_str().unwrap().to_string();
        let run = target_fn(&name);
        for input in std::fs::read_dir(&target).unwrap() {
            let input = input.unwrap().path();
            let id = format!("{name}/{}", input.file_name().unwrap().to_str().unwrap());
            let want = expected
                .get(&id)
                .unwrap_or_else(|| panic!("{id}: no entry in expected.json"));
            let outcome = run(&std::fs::read(&input).unwrap());
            let step = want["step"].as_str().unwrap();
            assert_eq!(
                describe(outcome.result_of(step)),
                want["result"].as_str().unwrap(),
                "{id}: step '{step}' (all steps: {:?})",
                outcome.steps
            );
            ran += 1;
        }
    }
    assert_eq!(
        ran,
        expected.len(),
        "expected.json lists inputs that are not there"
    );
}

#[test]
#[ignore = "runs a whole fuzz corpus: set ZOM_FUZZ_CORPUS (e.g. fuzz/corpus)"]
fn corpus_runs_in_debug() {
    let Ok(root) = std::env::var("ZOM_FUZZ_CORPUS") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    for (name, run) in harness::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(name)) else {
            continue;
        };
        let mut n = 0;
        // How far the inputs get: (step, result) → count.
        let mut reached = std::collections::BTreeMap::new();
        for entry in entries {
            // A running fuzzer may have replaced the unit meanwhile.
            if let Ok(bytes) = std::fs::read(entry.unwrap().path()) {
                for (step, code) in run(&bytes).steps {
                    *reached.entry((step, describe(Some(code)))).or_insert(0u64) += 1;
                }
                n += 1;
            }
        }
        eprintln!("{name}: {n} inputs; steps reached: {reached:?}");
    }
}

/// What the `zgroup-with-array-keys` input showed, for each ZOM key: a document's unknown key
/// named like one the ZOM JSON gives its own meaning does not change the node it reads as.
#[test]
fn unknown_document_keys_named_like_zom_keys_stay_out_of_the_zom() {
    use serde_json::json;
    use zom::model::{from_documents, Node};
    let zarray = json!({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<i4",
        "fill_value": 0, "order": "C", "filters": null, "compressor": null,
        "attributes": {"from": "zarray"}, "members": {}});
    let zgroup = json!({"zarr_format": 2, "shape": [3], "attributes": {"from": "zgroup"}});
    let zarr_json = json!({"zarr_format": 3, "node_type": "array", "shape": [2],
        "data_type": "int32", "chunk_grid": {"name": "regular",
        "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"},
        "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {"from": "attributes"}, "members": {"must_understand": false}});
    let cases = [
        (
            vec![(".zarray", zarray), (".zattrs", json!({"from": "zattrs"}))],
            "zattrs",
        ),
        (
            vec![(".zgroup", zgroup), (".zattrs", json!({"from": "zattrs"}))],
            "zattrs",
        ),
        (vec![("zarr.json", zarr_json)], "attributes"),
    ];
    for (docs, from) in cases {
        let node = from_documents(docs).unwrap();
        let value = node.to_value();
        assert_eq!(value["attributes"], json!({"from": from}), "{value}");
        let again = Node::from_value(&value).unwrap();
        assert_eq!(again.kind(), node.kind());
        assert_eq!(again.to_value(), value);
    }
}
