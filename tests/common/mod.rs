//! Helpers shared by the integration tests: fixture loading and JSON comparison with paths.
#![allow(dead_code)]

pub mod codec;
pub mod specs;
pub mod store;
pub mod values;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The fixtures folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every file below `dir` as (key relative to `dir` with '/' separators, path), sorted.
pub fn files_below(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let key = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((key, path));
            }
        }
    }
    out.sort();
    out
}

/// Every metadata document below `dir` as (store key, bytes), keys relative to `dir`.
pub fn read_documents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_below(dir)
        .into_iter()
        .filter(|(key, _)| zom::model::documents::is_metadata_key(key))
        .map(|(key, path)| (key, std::fs::read(path).unwrap()))
        .collect()
}

/// Parses a JSON file.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every place two JSON values differ, as "a.b[2]: left != right" lines. Numbers compare by
/// value (0 and 0.0 are equal) since JSON does not distinguish them.
pub fn json_differences(left: &Value, right: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(left, right, "$", &mut out);
    out
}

fn walk(left: &Value, right: &Value, at: &str, out: &mut Vec<String>) {
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) => walk(v, w, &format!("{at}.{k}"), out),
                    None => out.push(format!("{at}.{k}: only on the left ({v})")),
                }
            }
            for (k, w) in b {
                if !a.contains_key(k) {
                    out.push(format!("{at}.{k}: only on the right ({w})"));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                walk(v, w, &format!("{at}[{i}]"), out);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            if !same {
                out.push(format!("{at}: {a} != {b}"));
            }
        }
        _ if left == right => {}
        _ => out.push(format!("{at}: {left} != {right}")),
    }
}

/// Panics with every difference when two JSON values differ.
pub fn assert_json_eq(left: &Value, right: &Value, what: &str) {
    let diffs = json_differences(left, right);
    assert!(
        diffs.is_empty(),
        "{what}: {} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
