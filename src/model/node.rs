//! The ZOM node tree (ZEP 6): groups with members, arrays with their metadata and attributes.
//! Its JSON form is pydantic-zarr's (`GroupSpec.model_dump()`), field for field.

use super::named::NamedConfig;
use super::v2::ArrayMetadataV2;
use super::v3::ArrayMetadataV3;
use crate::error::{ErrorCode, Result, ZomError};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The deepest hierarchy zom builds, walks, validates or checks against a spec (levels of nodes
/// below the root). Deeper input is refused, or reported and not visited, so that the tree
/// operations can never overflow the stack and paths and work stay bounded.
pub const MAX_DEPTH: usize = 256;

/// The Zarr format version of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ZarrFormat {
    /// Zarr v2 (`.zarray`, `.zgroup`, `.zattrs`).
    V2,
    /// Zarr v3 (`zarr.json`).
    V3,
}

impl ZarrFormat {
    /// The number written in `zarr_format`.
    pub fn number(self) -> u64 {
        match self {
            ZarrFormat::V2 => 2,
            ZarrFormat::V3 => 3,
        }
    }

    /// The version for a `zarr_format` number.
    pub fn from_number(n: u64) -> Option<Self> {
        match n {
            2 => Some(ZarrFormat::V2),
            3 => Some(ZarrFormat::V3),
            _ => None,
        }
    }
}

/// A node of a hierarchy: a group or an array.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A group and its members.
    Group(Group),
    /// An array.
    Array(Array),
}

/// A group node.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Group {
    /// v2 or v3.
    pub zarr_format: Option<ZarrFormat>,
    /// User attributes.
    pub attributes: Map<String, Value>,
    /// Child nodes by name, sorted.
    pub members: BTreeMap<String, Node>,
    /// ZEP 10 (draft) generic extensions (v3), when present.
    pub extensions: Option<Vec<NamedConfig>>,
    /// Other keys of the group document (e.g. `must_understand: false` extensions), kept.
    pub extra: Map<String, Value>,
}

/// An array node: its metadata document and its attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    /// A v2 array: `.zarray` plus `.zattrs`.
    V2(Box<ArrayV2>),
    /// A v3 array: `zarr.json` (attributes inside).
    V3(Box<ArrayMetadataV3>),
}

/// A v2 array: its `.zarray` document and `.zattrs` attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayV2 {
    /// The `.zarray` document.
    pub metadata: ArrayMetadataV2,
    /// The `.zattrs` document.
    pub attributes: Map<String, Value>,
}

impl Group {
    /// The format of this group (v3 when unset).
    pub fn format(&self) -> ZarrFormat {
        self.zarr_format.unwrap_or(ZarrFormat::V3)
    }
}

impl Array {
    /// The format of this array.
    pub fn format(&self) -> ZarrFormat {
        match self {
            Array::V2(_) => ZarrFormat::V2,
            Array::V3(_) => ZarrFormat::V3,
        }
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        match self {
            Array::V2(a) => &a.metadata.shape,
            Array::V3(a) => &a.shape,
        }
    }

    /// The array's attributes.
    pub fn attributes(&self) -> Option<&Map<String, Value>> {
        match self {
            Array::V2(a) => Some(&a.attributes),
            Array::V3(a) => a.attributes.as_ref(),
        }
    }
}

impl Node {
    /// The node's Zarr format.
    pub fn format(&self) -> ZarrFormat {
        match self {
            Node::Group(g) => g.format(),
            Node::Array(a) => a.format(),
        }
    }

    /// "group" or "array".
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Group(_) => "group",
            Node::Array(_) => "array",
        }
    }

    /// The member at a relative path ("a/b"), or the node itself for "".
    pub fn get(&self, path: &str) -> Option<&Node> {
        let mut node = self;
        for name in path.split('/').filter(|s| !s.is_empty()) {
            match node {
                Node::Group(g) => node = g.members.get(name)?,
                Node::Array(_) => return None,
            }
        }
        Some(node)
    }

    /// Every node with its path ("" for this one), parents before children, members sorted.
    pub fn descendants(&self) -> Vec<(String, &Node)> {
        let mut out = Vec::new();
        let mut stack = vec![(String::new(), self)];
        while let Some((path, node)) = stack.pop() {
            if let Node::Group(g) = node {
                // Reversed so that the stack pops members in sorted order.
                for (name, child) in g.members.iter().rev() {
                    stack.push((join_path(&path, name), child));
                }
            }
            out.push((path, node));
        }
        out
    }

    /// The ZOM JSON of this node (pydantic-zarr's form), members included.
    pub fn to_value(&self) -> Value {
        self.to_value_with(true)
    }

    /// The ZOM JSON; with `members: false`, groups carry `"members": null` (flattened form).
    pub fn to_value_with(&self, members: bool) -> Value {
        match self {
            // Only the group's own fields are copied, not its members' (which it may drop).
            Node::Group(g) if !members => Node::Group(Group {
                members: BTreeMap::new(),
                ..g.clone()
            })
            .into_value_with(false),
            _ => self.clone().into_value_with(members),
        }
    }

    /// [`Self::to_value`], consuming the node: its values move into the JSON, uncopied.
    pub fn into_value(self) -> Value {
        self.into_value_with(true)
    }

    /// [`Self::to_value_with`], consuming the node.
    pub fn into_value_with(self, members: bool) -> Value {
        match self {
            Node::Group(g) => {
                let format = g.format();
                let mut o = Map::new();
                o.insert("zarr_format".into(), format.number().into());
                if format == ZarrFormat::V3 {
                    o.insert("node_type".into(), "group".into());
                }
                o.insert("attributes".into(), Value::Object(g.attributes));
                if let Some(ext) = g.extensions {
                    o.insert("extensions".into(), named_list(ext));
                }
                for (k, v) in g.extra {
                    // Unknown document keys named like the ZOM's own would replace the
                    // group's attributes or members, or make it read back as an array (a v2
                    // node with `shape` is one); the documents keep them.
                    let kind_key = format == ZarrFormat::V2 && k == "shape";
                    if !kind_key && !is_zom_key(&k) {
                        o.insert(k, v);
                    }
                }
                let member_value = if members {
                    Value::Object(
                        g.members
                            .into_iter()
                            .map(|(name, node)| (name, node.into_value_with(true)))
                            .collect(),
                    )
                } else {
                    Value::Null
                };
                o.insert("members".into(), member_value);
                Value::Object(o)
            }
            Node::Array(Array::V3(a)) => v3_array_zom(*a),
            Node::Array(Array::V2(a)) => {
                let ArrayV2 {
                    mut metadata,
                    attributes,
                } = *a;
                let mut o = Map::new();
                o.insert("zarr_format".into(), 2.into());
                o.insert("attributes".into(), Value::Object(attributes));
                // The v2 spec's default; pydantic-zarr (through zarr-python) writes it out.
                metadata
                    .dimension_separator
                    .get_or_insert_with(|| ".".into());
                if let Value::Object(doc) = metadata.to_value() {
                    for (k, v) in doc {
                        // Unknown keys named like the ZOM's own: see the group case.
                        if !is_zom_key(&k) {
                            o.insert(k, v);
                        }
                    }
                }
                Value::Object(o)
            }
        }
    }

    /// Reads ZOM JSON (nested, or a single flattened node whose `members` is null or absent).
    pub fn from_value(value: &Value) -> Result<Node> {
        node_from_value(value, "", 0)
    }
}

/// Joins a parent path and a member name ("" + "a" = "a", "a" + "b" = "a/b").
pub fn join_path(parent: &str, name: &str) -> String {
    crate::problem::join_member(parent, name)
}

fn named_list(list: Vec<NamedConfig>) -> Value {
    Value::Array(list.into_iter().map(NamedConfig::into_value).collect())
}

fn v3_array_zom(a: ArrayMetadataV3) -> Value {
    let mut o = Map::new();
    o.insert("zarr_format".into(), a.zarr_format.into());
    o.insert("node_type".into(), a.node_type.into());
    o.insert(
        "attributes".into(),
        Value::Object(a.attributes.unwrap_or_default()),
    );
    o.insert(
        "shape".into(),
        Value::Array(a.shape.iter().map(|&n| n.into()).collect()),
    );
    o.insert("data_type".into(), a.data_type.into_value());
    o.insert("chunk_grid".into(), a.chunk_grid.into_value());
    o.insert(
        "chunk_key_encoding".into(),
        a.chunk_key_encoding.into_value(),
    );
    o.insert("fill_value".into(), a.fill_value);
    o.insert("codecs".into(), named_list(a.codecs));
    o.insert(
        "storage_transformers".into(),
        named_list(a.storage_transformers.unwrap_or_default()),
    );
    let names = match a.dimension_names {
        Some(Some(names)) => Value::Array(
            names
                .into_iter()
                .map(|n| n.map_or(Value::Null, Value::String))
                .collect(),
        ),
        _ => Value::Null,
    };
    o.insert("dimension_names".into(), names);
    if let Some(ext) = a.extensions {
        o.insert("extensions".into(), named_list(ext));
    }
    for (k, v) in a.extra {
        // An unknown `members` key would make the array node unreadable (see above).
        if !is_zom_key(&k) {
            o.insert(k, v);
        }
    }
    Value::Object(o)
}

/// Whether a document key is one the ZOM JSON gives its own meaning (kind, format,
/// attributes, members): an unknown key of that name is not copied into it.
pub(crate) fn is_zom_key(key: &str) -> bool {
    matches!(key, "zarr_format" | "node_type" | "attributes" | "members")
}

/// In the ZOM, an absent and a `null` `dimension_names` are the same thing (the spec only
/// knows absent; pydantic-zarr's JSON writes null).
pub(crate) fn normalise_v3(a: &mut ArrayMetadataV3) {
    if a.dimension_names == Some(None) {
        a.dimension_names = None;
    }
}

fn invalid(path: &str, message: impl Into<String>) -> ZomError {
    ZomError::invalid_metadata(message).at_path(path)
}

fn node_from_value(value: &Value, path: &str, depth: usize) -> Result<Node> {
    if depth > MAX_DEPTH {
        return Err(ZomError::new(
            ErrorCode::LimitExceeded,
            format!("hierarchy is deeper than {MAX_DEPTH} levels"),
        )
        .at_path(path));
    }
    let object = value
        .as_object()
        .ok_or_else(|| invalid(path, "a ZOM node must be a JSON object"))?;
    let format = match object.get("zarr_format").and_then(Value::as_u64) {
        Some(n) => ZarrFormat::from_number(n)
            .ok_or_else(|| invalid(path, format!("unsupported zarr_format {n}")))?,
        None => return Err(invalid(path, "a ZOM node needs an integer zarr_format")),
    };
    let is_group = match format {
        ZarrFormat::V3 => match object.get("node_type").and_then(Value::as_str) {
            Some("group") => true,
            Some("array") => false,
            _ => return Err(invalid(path, "node_type must be \"group\" or \"array\"")),
        },
        ZarrFormat::V2 => !object.contains_key("shape"),
    };
    if is_group {
        group_from_value(object, format, path, depth).map(Node::Group)
    } else {
        array_from_value(object, format, path).map(Node::Array)
    }
}

fn group_from_value(
    object: &Map<String, Value>,
    format: ZarrFormat,
    path: &str,
    depth: usize,
) -> Result<Group> {
    let mut group = Group {
        zarr_format: Some(format),
        ..Group::default()
    };
    for (key, value) in object {
        match key.as_str() {
            "zarr_format" | "node_type" => {}
            "attributes" => {
                group.attributes = value
                    .as_object()
                    .cloned()
                    .ok_or_else(|| invalid(path, "attributes must be an object"))?;
            }
            "members" => match value {
                Value::Null => {}
                Value::Object(members) => {
                    for (name, member) in members {
                        // Such a name would make another node's path (or the store keys of
                        // one): "a/b" is b inside a, "" and "." the group itself.
                        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                            return Err(invalid(
                                path,
                                format!("member name '{name}' is not a node name (empty, '.', '..' or with '/')"),
                            ));
                        }
                        let child = join_path(path, name);
                        let node = node_from_value(member, &child, depth.saturating_add(1))?;
                        group.members.insert(name.clone(), node);
                    }
                }
                _ => return Err(invalid(path, "members must be an object or null")),
            },
            "extensions" if format == ZarrFormat::V3 => {
                group.extensions = Some(
                    crate::document::read::vec_of(value, NamedConfig::from_value)
                        .map_err(|e| invalid(path, format!("extensions: {e}")))?,
                );
            }
            // Consolidated metadata is a property of the store, not of the ZOM.
            "consolidated_metadata" => {}
            _ => {
                group.extra.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(group)
}

fn array_from_value(object: &Map<String, Value>, format: ZarrFormat, path: &str) -> Result<Array> {
    if object.get("members").is_some_and(|m| !m.is_null()) {
        return Err(invalid(path, "an array node cannot have members"));
    }
    let mut doc = object.clone();
    doc.shift_remove("members");
    match format {
        ZarrFormat::V3 => ArrayMetadataV3::read(&Value::Object(doc))
            .map(|mut a| {
                normalise_v3(&mut a);
                Array::V3(Box::new(a))
            })
            .map_err(|e| invalid(path, format!("invalid v3 array: {e}"))),
        ZarrFormat::V2 => {
            let attributes = match doc.shift_remove("attributes") {
                None => Map::new(),
                Some(Value::Object(a)) => a,
                Some(_) => return Err(invalid(path, "attributes must be an object")),
            };
            let metadata = ArrayMetadataV2::read(&Value::Object(doc))
                .map_err(|e| invalid(path, format!("invalid v2 array: {e}")))?;
            Ok(Array::V2(Box::new(ArrayV2 {
                metadata,
                attributes,
            })))
        }
    }
}

// ZOM JSON facts that the validator and the hierarchy specs both read a tree by (which read
// no deeper than [`MAX_DEPTH`]: deeper nodes are reported, not visited).

/// The node's own `zarr_format` when it is 2 or 3.
pub(crate) fn format_of(node: &Value) -> Option<u64> {
    node.get("zarr_format")
        .and_then(Value::as_u64)
        .filter(|f| matches!(f, 2 | 3))
}

/// The Zarr version a ZOM node is read as and whether it is an array. `format` is its own
/// usable `zarr_format` or else the root's; nodes with neither are v3 when they look like it
/// (the `zarr_format` problem itself comes from the document check).
pub(crate) fn node_kind(obj: &Map<String, Value>, format: Option<u64>) -> (u64, bool) {
    let version = format.unwrap_or(if obj.contains_key("node_type") { 3 } else { 2 });
    let is_array = if version == 3 {
        match obj.get("node_type").and_then(Value::as_str) {
            Some("array") => true,
            Some("group") => false,
            _ => obj.contains_key("shape") || obj.contains_key("data_type"),
        }
    } else {
        ["shape", "chunks", "dtype"]
            .iter()
            .any(|k| obj.contains_key(*k))
    };
    (version, is_array)
}
