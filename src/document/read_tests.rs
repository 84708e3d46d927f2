//! The hand-written document readers and writers (`read`, `v2`, `v3`) against the derived
//! serde implementations: same documents, same errors, same JSON out.

use super::v2::{self, ArrayMetadataV2, ConsolidatedMetadataV2, GroupMetadataV2};
use super::v3::{self, ArrayMetadataV3, ConsolidatedMetadataV3, GroupMetadataV3};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt::Debug;
use std::path::Path;

fn documents(dir: &Path, names: &[&str], out: &mut Vec<Value>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            documents(&path, names, out);
        } else if names
            .iter()
            .any(|n| path.file_name().is_some_and(|f| f == *n))
        {
            let text = std::fs::read(&path).unwrap();
            out.push(serde_json::from_slice(&text).unwrap());
        }
    }
}

fn palette() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(3),
        json!(-1),
        json!(1.5),
        json!(3.0),
        json!(-2.5),
        json!(1e300),
        json!(5e-324),
        json!(18446744073709551615u64),
        json!(-9223372036854775808i64),
        json!(18446744073709551616.0),
        json!(""),
        json!("x"),
        json!("a\"b\\c\n\t\u{1}é\u{7f}\u{200b}"),
        json!([]),
        json!([1]),
        json!([1, -1]),
        json!([1.5]),
        json!(["a"]),
        json!([null, "b"]),
        json!([null, 1]),
        json!([[1]]),
        json!({}),
        json!({"name": "x"}),
        json!({"name": 1}),
        json!([{"name": "bytes"}, "zstd", {"configuration": {}}]),
        json!({"kind": "inline", "must_understand": false, "metadata": {}}),
        json!({"kind": "inline", "must_understand": "no", "metadata": {}}),
        json!({"kind": "inline", "metadata": {}, "x": 1}),
    ]
}

/// Every document, and every document with each key (its own and others) replaced by each
/// palette value or removed.
fn variants(docs: &[Value], keys: &[&str]) -> Vec<Value> {
    let mut out = Vec::new();
    for doc in docs {
        out.push(doc.clone());
        let Some(object) = doc.as_object() else {
            continue;
        };
        let mut all: Vec<String> = object.keys().cloned().collect();
        all.extend(keys.iter().map(|k| k.to_string()));
        all.push("extra".into());
        all.push("unknown_key".into());
        for key in &all {
            let mut removed = object.clone();
            removed.shift_remove(key);
            out.push(Value::Object(removed));
            for value in palette() {
                let mut changed = object.clone();
                changed.insert(key.clone(), value);
                out.push(Value::Object(changed));
            }
        }
    }
    for value in palette() {
        out.push(value);
    }
    out
}

/// An error message with the quoted string of `invalid type: string "…"` cut out.
fn without_string(message: &str) -> String {
    const START: &str = "invalid type: string \"";
    match (message.find(START), message.rfind("\", expected")) {
        (Some(start), Some(end)) if end >= start + START.len() => {
            format!("{}string …{}", &message[..start + 14], &message[end + 1..])
        }
        _ => message.to_string(),
    }
}

fn same<T>(
    docs: &[Value],
    keys: &[&str],
    read: fn(&Value) -> Result<T, String>,
    write: fn(&T) -> Value,
) -> usize
where
    T: DeserializeOwned + Serialize + PartialEq + Debug,
{
    let mut ok = 0;
    for v in variants(docs, keys) {
        let derived = T::deserialize(&v).map_err(|e| e.to_string());
        let ours = read(&v);
        // zom quotes an unexpected string as JSON, serde with Rust's Debug escapes (they differ
        // only for control and non-ASCII characters): compare the messages around the string.
        let unquoted = |r: &Result<T, String>| r.as_ref().err().map(|e| without_string(e));
        assert_eq!(unquoted(&ours), unquoted(&derived), "reading {v}");
        assert_eq!(ours.is_ok(), derived.is_ok(), "reading {v}");
        if let (Ok(a), Ok(b)) = (&ours, &derived) {
            assert_eq!(a, b, "reading {v}");
        }
        if let Ok(doc) = ours {
            assert_eq!(
                write(&doc),
                serde_json::to_value(&doc).unwrap(),
                "writing {v}"
            );
            ok += 1;
        }
    }
    ok
}

fn fixtures(names: &[&str]) -> Vec<Value> {
    let mut docs = Vec::new();
    documents(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        names,
        &mut docs,
    );
    assert!(!docs.is_empty());
    docs
}

#[test]
fn v3_documents_read_and_write_as_serde_does() {
    let docs = fixtures(&["zarr.json"]);
    let arrays: Vec<Value> = docs
        .iter()
        .filter(|d| d["node_type"] == "array")
        .cloned()
        .collect();
    let groups: Vec<Value> = docs
        .iter()
        .filter(|d| d["node_type"] == "group")
        .cloned()
        .collect();
    // The struct reads ZEP 10 `extensions` too.
    let array_keys = [v3::ARRAY_KEYS, &["extensions"]].concat();
    assert!(
        same(
            &arrays,
            &array_keys,
            ArrayMetadataV3::read,
            ArrayMetadataV3::to_value
        ) > 1000
    );
    let group_keys = [
        "attributes",
        "zarr_format",
        "consolidated_metadata",
        "node_type",
        "extensions",
    ];
    assert!(
        same(
            &groups,
            &group_keys,
            GroupMetadataV3::read,
            GroupMetadataV3::to_value
        ) > 100
    );
    let consolidated: Vec<Value> = groups
        .iter()
        .filter_map(|g| {
            g.get("consolidated_metadata")
                .filter(|c| c.is_object())
                .cloned()
        })
        .collect();
    let keys = ["kind", "must_understand", "metadata"];
    assert!(
        same(
            &consolidated,
            &keys,
            ConsolidatedMetadataV3::read,
            ConsolidatedMetadataV3::to_value
        ) > 10
    );
}

#[test]
fn v2_documents_read_and_write_as_serde_does() {
    let arrays = fixtures(&[".zarray"]);
    assert!(
        same(
            &arrays,
            v2::ARRAY_KEYS,
            ArrayMetadataV2::read,
            ArrayMetadataV2::to_value
        ) > 1000
    );
    let groups = fixtures(&[".zgroup"]);
    assert!(
        same(
            &groups,
            &["zarr_format"],
            GroupMetadataV2::read,
            GroupMetadataV2::to_value
        ) > 10
    );
    let consolidated = fixtures(&[".zmetadata"]);
    let keys = ["metadata", "zarr_consolidated_format"];
    assert!(
        same(
            &consolidated,
            &keys,
            ConsolidatedMetadataV2::read,
            ConsolidatedMetadataV2::to_value
        ) > 10
    );
}
