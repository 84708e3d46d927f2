//! Flat forms of a hierarchy: pydantic-zarr's `to_flat` (path → node), v2 `.zmetadata` and the
//! root `zarr.json` with inline v3 consolidated metadata, and back.

use super::documents::{
    assemble, check_single_format, from_documents, to_documents, DocumentOptions,
};
use super::node::{Node, ZarrFormat};
use crate::error::{Result, ZomError};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Which flat form to write or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatForm {
    /// pydantic-zarr's `to_flat`: `{"": root, "/a": …, "/a/b": …}`, groups with `members: null`.
    Pydantic,
    /// The v2 `.zmetadata` document.
    ZMetadata,
    /// The v3 root `zarr.json` with `consolidated_metadata` inline.
    Consolidated,
}

impl FlatForm {
    /// Parses "pydantic", "zmetadata" or "consolidated".
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "pydantic" => Ok(FlatForm::Pydantic),
            "zmetadata" => Ok(FlatForm::ZMetadata),
            "consolidated" => Ok(FlatForm::Consolidated),
            other => Err(ZomError::invalid_argument(format!(
                "unknown flat form '{other}' (expected pydantic, zmetadata or consolidated)"
            ))),
        }
    }

    /// Recognises the form of a flat value.
    pub fn detect(value: &Value) -> Self {
        match value {
            Value::Object(o) if o.contains_key("zarr_consolidated_format") => FlatForm::ZMetadata,
            Value::Object(o) if o.contains_key("consolidated_metadata") => FlatForm::Consolidated,
            _ => FlatForm::Pydantic,
        }
    }
}

/// Flattens a hierarchy into the given form.
pub fn flatten(root: &Node, form: FlatForm) -> Result<Value> {
    match form {
        FlatForm::Pydantic => {
            // What unflatten (and to_documents) refuse, flatten refuses too.
            check_single_format(root)?;
            Ok(Value::Object(
                root.descendants()
                    .into_iter()
                    .map(|(path, node)| (flat_key(&path), flat_node(node)))
                    .collect(),
            ))
        }
        FlatForm::ZMetadata | FlatForm::Consolidated => {
            let expected = if form == FlatForm::ZMetadata {
                ZarrFormat::V2
            } else {
                ZarrFormat::V3
            };
            if root.format() != expected {
                return Err(ZomError::invalid_argument(format!(
                    "a Zarr v{} hierarchy has no {} form",
                    root.format().number(),
                    if expected == ZarrFormat::V2 {
                        ".zmetadata"
                    } else {
                        "inline consolidated"
                    }
                )));
            }
            if !matches!(root, Node::Group(_)) {
                return Err(ZomError::invalid_argument(
                    "only a group's hierarchy can be consolidated",
                ));
            }
            let docs = to_documents(root, DocumentOptions { consolidated: true })?;
            let key = if form == FlatForm::ZMetadata {
                ".zmetadata"
            } else {
                "zarr.json"
            };
            docs.into_iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .ok_or_else(|| ZomError::invalid_argument("nothing to consolidate"))
        }
    }
}

/// Rebuilds a hierarchy from a flat form.
pub fn unflatten(flat: &Value, form: FlatForm) -> Result<Node> {
    match form {
        FlatForm::ZMetadata => from_documents([(".zmetadata", flat.clone())]),
        FlatForm::Consolidated => from_documents([("zarr.json", flat.clone())]),
        FlatForm::Pydantic => {
            let entries = flat.as_object().ok_or_else(|| {
                ZomError::invalid_argument("a flat hierarchy must be an object of path → node")
            })?;
            let mut nodes = BTreeMap::new();
            for (key, value) in entries {
                let path = key.trim_matches('/').to_string();
                let node = node_without_members(value).map_err(|e| e.at_path(path.clone()))?;
                if nodes.insert(path.clone(), node).is_some() {
                    return Err(ZomError::invalid_argument(format!(
                        "two entries for node '{path}'"
                    )));
                }
            }
            assemble(nodes, &flat_key)
        }
    }
}

/// A node of pydantic-zarr's flat form: like the ZOM, but without members and, as
/// pydantic-zarr's `ArraySpec.model_dump()` writes it, without a null `dimension_names`.
fn flat_node(node: &Node) -> Value {
    let mut value = node.to_value_with(false);
    if let Value::Object(o) = &mut value {
        if o.get("node_type").and_then(Value::as_str) == Some("array")
            && o.get("dimension_names") == Some(&Value::Null)
        {
            o.shift_remove("dimension_names");
        }
    }
    value
}

fn node_without_members(value: &Value) -> Result<Node> {
    let mut object: Map<String, Value> = value
        .as_object()
        .cloned()
        .ok_or_else(|| ZomError::invalid_metadata("a ZOM node must be a JSON object"))?;
    if object
        .get("members")
        .is_some_and(|m| m.as_object().is_some_and(|o| !o.is_empty()))
    {
        return Err(ZomError::invalid_argument(
            "a flat entry must not carry members (they are entries of their own)",
        ));
    }
    object.shift_remove("members");
    Node::from_value(&Value::Object(object))
}

/// pydantic-zarr's key for a node path: "" for the root, "/a/b" otherwise.
fn flat_key(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("/{path}")
    }
}
