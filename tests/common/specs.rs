//! The hierarchy-spec tests' helpers: a fixture folder's ZOM as its documents are, and
//! problems shown for a failing assertion.

use serde_json::{json, Value};
use std::path::Path;
use zom::validate::{LocStep, Problem};

/// The ZOM of a fixture folder, nested from its documents as they are (no interpretation, so
/// that metadata zom would refuse to read can still be checked): v3 `zarr.json` documents, v2
/// `.zarray`/`.zgroup` with `.zattrs` as `attributes`.
pub fn raw_zom(dir: &Path) -> Value {
    let mut docs: Vec<(String, Value)> = super::read_documents(dir)
        .into_iter()
        .map(|(k, b)| (k, serde_json::from_slice(&b).unwrap()))
        .collect();
    docs.sort_by_key(|(k, _)| k.matches('/').count());
    let mut root = Value::Null;
    let mut attrs: Vec<(String, Value)> = Vec::new();
    for (key, doc) in docs {
        let (path, file) = key.rsplit_once('/').unwrap_or(("", key.as_str()));
        let mut node = match file {
            "zarr.json" | ".zarray" | ".zgroup" => doc,
            ".zattrs" => {
                attrs.push((path.to_string(), doc));
                continue;
            }
            _ => continue,
        };
        let obj = node.as_object_mut().unwrap();
        obj.remove("consolidated_metadata");
        let is_group = file == ".zgroup" || obj.get("node_type") == Some(&json!("group"));
        if is_group {
            obj.insert("members".into(), json!({}));
        }
        if file != "zarr.json" {
            obj.entry("attributes").or_insert(json!({}));
        }
        *slot(&mut root, path) = node;
    }
    for (path, a) in attrs {
        slot(&mut root, &path)["attributes"] = a;
    }
    root
}

fn slot<'v>(root: &'v mut Value, path: &str) -> &'v mut Value {
    let mut at = root;
    for name in path.split('/').filter(|s| !s.is_empty()) {
        let members = at
            .as_object_mut()
            .unwrap()
            .entry("members")
            .or_insert(json!({}));
        at = members
            .as_object_mut()
            .unwrap()
            .entry(name)
            .or_insert(Value::Null);
    }
    at
}

pub fn loc_value(loc: &[LocStep]) -> Value {
    LocStep::list_value(loc)
}

pub fn show(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| {
            format!(
                "  {} {} {}: {} [{:?} {:?}]",
                p.path,
                loc_value(&p.loc),
                p.kind.as_str(),
                p.message,
                p.spec,
                p.rule
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
