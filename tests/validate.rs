//! Integration tests of zom's validation: one or more per check, asserting path, loc and kind.
//! Shared helpers and fixtures are here; the checks are grouped in `tests/validate/`.

use serde_json::{json, Value};
use std::sync::Arc;
use zom::validate::*;

#[path = "validate/documents.rs"]
mod documents;
#[path = "validate/extensions.rs"]
mod extensions;
#[path = "validate/hierarchy.rs"]
mod hierarchy;
#[path = "validate/robustness.rs"]
mod robustness;
#[path = "validate/v2.rs"]
mod v2;
#[path = "validate/v3_array.rs"]
mod v3_array;
#[path = "validate/v3_codecs.rs"]
mod v3_codecs;

// ---------- helpers ----------

pub(crate) fn opts() -> ValidateOptions {
    ValidateOptions::default()
}

pub(crate) fn strict() -> ValidateOptions {
    ValidateOptions {
        strict: true,
        ..Default::default()
    }
}

pub(crate) fn keyed(key: &str) -> ValidateOptions {
    ValidateOptions {
        key: Some(key.to_string()),
        ..Default::default()
    }
}

pub(crate) fn kind_str(kind: ProblemKind) -> String {
    serde_json::to_value(kind)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

pub(crate) fn dump(r: &Report) -> String {
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
pub(crate) fn has(r: &Report, path: &str, loc: Value, kind: &str, severity: Severity) {
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
pub(crate) fn err(r: &Report, path: &str, loc: Value, kind: &str) {
    has(r, path, loc, kind, Severity::Error);
    assert!(!r.valid);
}

#[track_caller]
pub(crate) fn warn(r: &Report, path: &str, loc: Value, kind: &str) {
    has(r, path, loc, kind, Severity::Warning);
}

/// Asserts the report holds exactly this one error.
#[track_caller]
pub(crate) fn only(r: &Report, path: &str, loc: Value, kind: &str) {
    assert_eq!(
        r.problems.len(),
        1,
        "expected one problem, got:\n{}",
        dump(r)
    );
    err(r, path, loc, kind);
}

#[track_caller]
pub(crate) fn clean(r: &Report) {
    assert!(
        r.valid && r.problems.is_empty(),
        "expected no problems, got:\n{}",
        dump(r)
    );
}

/// Sets the member at a JSON pointer (the parent must exist).
pub(crate) fn set(mut doc: Value, pointer: &str, value: Value) -> Value {
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

pub(crate) fn del(mut doc: Value, pointer: &str) -> Value {
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

pub(crate) fn v3(doc: &Value) -> Report {
    validate_document(doc, &opts())
}

/// A v3 int32 array as zarr-python 3.1.6 writes it.
pub(crate) fn arr() -> Value {
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

pub(crate) fn arr_with_codecs(codecs: Value) -> Value {
    set(arr(), "/codecs", codecs)
}

pub(crate) fn bytes_le() -> Value {
    json!({"name": "bytes", "configuration": {"endian": "little"}})
}

pub(crate) fn sharded() -> Value {
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

pub(crate) fn group() -> Value {
    json!({"attributes": {}, "zarr_format": 3, "node_type": "group"})
}

/// A v2 float64 array as zarr-python writes it.
pub(crate) fn zarray() -> Value {
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

pub(crate) fn za(doc: &Value) -> Report {
    validate_document(doc, &keyed(".zarray"))
}

// ---------- shared fixtures ----------

pub(crate) fn consolidated() -> Value {
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

pub(crate) struct Needs42;

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
            spec: None,
            rule: None,
        }]
    }
}

pub(crate) fn ext_opts() -> ValidateOptions {
    let mut registry = ExtensionRegistry::default();
    registry.register("acme.answer", Some(Arc::new(Needs42)));
    registry.register("acme.noted", None);
    ValidateOptions {
        extensions: true,
        registry,
        ..Default::default()
    }
}

pub(crate) fn zmetadata() -> Value {
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

pub(crate) fn zom3() -> Value {
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

pub(crate) fn zom2() -> Value {
    json!({
        "zarr_format": 2, "attributes": {"q": 1},
        "members": {
            "f": set(zarray(), "/attributes", json!({})),
            "sub": {"zarr_format": 2, "attributes": {}, "members": {"i": set(zarray(), "/attributes", json!({}))}}
        }
    })
}
