//! Building a ZOM from a store's metadata documents (`fromDocuments`), and materialising a ZOM
//! into the documents that create it (`toDocuments`), consolidated or not, as zarr-python
//! writes them.

use super::named::NamedConfig;
use super::node::{join_path, Array, ArrayV2, Group, Node, ZarrFormat, MAX_DEPTH};
use super::v2::{ArrayMetadataV2, ConsolidatedMetadataV2, GroupMetadataV2};
use super::v3::{ArrayMetadataV3, NodeMetadataV3};
use crate::error::{ErrorCode, Result, ZomError};
use crate::json;
use crate::limits::Limits;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How [`to_documents`] writes a hierarchy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DocumentOptions {
    /// Also write consolidated metadata: v3 inline in the root `zarr.json`, v2 `.zmetadata`.
    pub consolidated: bool,
}

/// Builds the ZOM of a hierarchy from its metadata documents (store key → JSON), relative to
/// the hierarchy's root. Keys that are not metadata (chunks) are ignored. Consolidated metadata
/// (v3 inline, v2 `.zmetadata`) stands in for documents that are absent.
pub fn from_documents<K: AsRef<str>>(docs: impl IntoIterator<Item = (K, Value)>) -> Result<Node> {
    // Inserted one by one rather than collected: `collect` sorts first, and a sort is a lot of
    // code per element type in the WebAssembly module. The last of equal keys wins either way.
    let mut map: BTreeMap<String, Value> = BTreeMap::new();
    for (k, v) in docs {
        let k = k.as_ref();
        if is_metadata_key(k) {
            map.insert(k.trim_start_matches('/').to_string(), v);
        }
    }
    let docs = map;
    if docs.contains_key("zarr.json") {
        from_v3_documents(docs)
    } else if [".zgroup", ".zarray", ".zmetadata"]
        .iter()
        .any(|k| docs.contains_key(*k))
    {
        from_v2_documents(docs)
    } else {
        Err(ZomError::new(
            ErrorCode::NotFound,
            "no root metadata document (zarr.json, .zgroup, .zarray or .zmetadata)",
        )
        .at_path(""))
    }
}

/// Like [`from_documents`], for documents as bytes; each is parsed under the limits
/// `maxDocumentBytes` and `maxJsonDepth`.
pub fn from_document_bytes<K: AsRef<str>, B: AsRef<[u8]>>(
    docs: impl IntoIterator<Item = (K, B)>,
    limits: &Limits,
) -> Result<Node> {
    let mut parsed = Vec::new();
    for (key, bytes) in docs {
        let key = key.as_ref();
        if !is_metadata_key(key) {
            continue;
        }
        let value = json::parse_document(bytes.as_ref(), limits)
            .map_err(|e| e.at_key(key).at_path(node_path_of_key(key)))?;
        parsed.push((key.to_string(), value));
    }
    from_documents(parsed)
}

/// The names of the metadata documents a node may have: v3's `zarr.json`, v2's `.zarray`,
/// `.zgroup` and `.zattrs`, and v2's consolidated `.zmetadata`. Every other key is a chunk.
pub const METADATA_DOCUMENTS: [&str; 5] =
    ["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"];

/// Whether a store key names a metadata document ([`METADATA_DOCUMENTS`]).
pub fn is_metadata_key(key: &str) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key);
    METADATA_DOCUMENTS.contains(&name)
}

/// The node path of a metadata key ("a/b/zarr.json" → "a/b").
pub fn node_path_of_key(key: &str) -> &str {
    match key.trim_start_matches('/').rsplit_once('/') {
        Some((prefix, _)) => prefix,
        None => "",
    }
}

fn from_v3_documents(docs: BTreeMap<String, Value>) -> Result<Node> {
    let mut nodes: BTreeMap<String, Node> = BTreeMap::new();
    // Documents given directly first; consolidated metadata fills the gaps below. Documents
    // are moved, not cloned: a consolidated zarr.json can hold a whole large hierarchy.
    let mut pending: Vec<(String, String, Value)> = docs
        .into_iter()
        .filter(|(k, _)| k.rsplit('/').next() == Some("zarr.json"))
        .map(|(k, v)| (node_path_of_key(&k).to_string(), k, v))
        .collect();
    let mut consolidated: Vec<(String, String, Value)> = Vec::new();
    loop {
        for (path, key, mut value) in pending.drain(..) {
            if nodes.contains_key(&path) {
                continue;
            }
            // The members' documents are moved out before the group is read, which would
            // clone them: a consolidated zarr.json can hold a whole large hierarchy. An empty
            // object reads as the object did (only its type is checked). An array keeps its
            // (unknown) consolidated_metadata whole.
            let group = value.get("node_type").and_then(Value::as_str) == Some("group");
            let members = match field_mut(&mut value, "consolidated_metadata")
                .filter(|_| group)
                .and_then(|c| field_mut(c, "metadata"))
            {
                Some(Value::Object(members)) => Some(std::mem::take(members)),
                _ => None,
            };
            let meta = NodeMetadataV3::from_owned(value)
                .map_err(|e| e.at_key(key.clone()).at_path(path.clone()))?;
            let node = match meta {
                NodeMetadataV3::Array(mut a) => {
                    super::node::normalise_v3(&mut a);
                    Node::Array(Array::V3(a))
                }
                NodeMetadataV3::Group(mut g) => {
                    if let (Some(Some(_)), Some(members)) =
                        (g.consolidated_metadata.take(), members)
                    {
                        for (member, doc) in members {
                            consolidated.push((join_path(&path, &member), key.clone(), doc));
                        }
                    }
                    Node::Group(Group {
                        zarr_format: Some(ZarrFormat::V3),
                        attributes: g.attributes.unwrap_or_default(),
                        members: BTreeMap::new(),
                        extensions: g.extensions,
                        extra: g.extra,
                    })
                }
            };
            nodes.insert(path, node);
        }
        if consolidated.is_empty() {
            break;
        }
        pending.append(&mut consolidated);
    }
    assemble(nodes, &|path| join_path(path, "zarr.json"))
}

/// The value of `key` in an object (found by a scan: a lookup by hash would be one more copy
/// of the hash table code in the WebAssembly module, for two lookups per document).
fn field_mut<'a>(value: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match value {
        Value::Object(object) => object.iter_mut().find(|(k, _)| *k == key).map(|(_, v)| v),
        _ => None,
    }
}

// Neither this nor `assemble` removes from a `BTreeMap`: its removal (rebalancing, merging) is
// the largest part of the map's code, and the reader has no other use for it.
fn from_v2_documents(mut docs: BTreeMap<String, Value>) -> Result<Node> {
    if let Some(entry) = docs.get_mut(".zmetadata") {
        // The documents are moved out before the rest is read (which would copy them), as in
        // from_v3_documents; an empty object reads as the object did. The key is left holding
        // null, which names no node.
        let mut zmetadata = std::mem::take(entry);
        let members = match field_mut(&mut zmetadata, "metadata") {
            Some(Value::Object(members)) => std::mem::take(members),
            _ => Map::new(),
        };
        ConsolidatedMetadataV2::from_value(&zmetadata)
            .map_err(|e| e.at_key(".zmetadata").at_path(""))?;
        for (key, value) in members {
            if is_metadata_key(&key) {
                docs.entry(key.trim_start_matches('/').to_string())
                    .or_insert(value);
            }
        }
    }
    // Attributes by node path, moved out of the documents into their nodes (taken when used).
    let mut attributes: BTreeMap<String, Option<Value>> = BTreeMap::new();
    let mut documents: Vec<(String, Value)> = Vec::new();
    for (key, value) in docs {
        if key.rsplit('/').next() == Some(".zattrs") {
            attributes.insert(node_path_of_key(&key).to_string(), Some(value));
        } else {
            documents.push((key, value));
        }
    }
    let mut nodes: BTreeMap<String, Node> = BTreeMap::new();
    for (key, value) in &documents {
        let path = node_path_of_key(key).to_string();
        let name = key.rsplit('/').next().unwrap_or_default();
        let locate = |e: ZomError| e.at_key(key.clone()).at_path(path.clone());
        let node = match name {
            ".zarray" => {
                let metadata = ArrayMetadataV2::from_value(value).map_err(locate)?;
                Node::Array(Array::V2(Box::new(ArrayV2 {
                    metadata,
                    attributes: attributes_at(&mut attributes, &path)?,
                })))
            }
            ".zgroup" => {
                let mut meta = GroupMetadataV2::from_value(value).map_err(locate)?;
                // zarr-python 3 writes an empty `consolidated_metadata` into the `.zgroup`
                // entries of `.zmetadata`; it is not part of the node.
                meta.extra.shift_remove("consolidated_metadata");
                Node::Group(Group {
                    zarr_format: Some(ZarrFormat::V2),
                    attributes: attributes_at(&mut attributes, &path)?,
                    members: BTreeMap::new(),
                    extensions: None,
                    extra: meta.extra,
                })
            }
            _ => continue,
        };
        if nodes.insert(path.clone(), node).is_some() {
            return Err(ZomError::invalid_metadata(format!(
                "both .zarray and .zgroup at node '{path}'"
            ))
            .at_path(path)
            .at_key(key.clone()));
        }
    }
    // The attributes no node took.
    if let Some((path, _)) = attributes.iter().find(|(_, a)| a.is_some()) {
        let key = join_path(path, ".zattrs");
        return Err(ZomError::invalid_metadata(format!(
            "'{key}' has no .zarray or .zgroup beside it"
        ))
        .at_path(path.clone())
        .at_key(key));
    }
    assemble(nodes, &|path| join_path(path, ".zgroup"))
}

/// The attributes of the node at `path` (taken out of `attributes`), `{}` without a `.zattrs`.
fn attributes_at(
    attributes: &mut BTreeMap<String, Option<Value>>,
    path: &str,
) -> Result<Map<String, Value>> {
    match attributes.get_mut(path).and_then(Option::take) {
        None => Ok(Map::new()),
        Some(Value::Object(a)) => Ok(a),
        Some(_) => {
            let key = join_path(path, ".zattrs");
            Err(ZomError::invalid_metadata(".zattrs must be a JSON object")
                .at_key(key)
                .at_path(path))
        }
    }
}

/// Puts nodes keyed by path into one tree. Every node's parent must be a group.
pub(crate) fn assemble(
    nodes: BTreeMap<String, Node>,
    parent_key: &dyn Fn(&str) -> String,
) -> Result<Node> {
    // In path order (the map's), each node taken out when it moves into its parent.
    let mut slots: Vec<(String, Option<Node>)> = nodes
        .into_iter()
        .map(|(path, node)| (path, Some(node)))
        .collect();
    for (path, _) in &slots {
        let depth = if path.is_empty() {
            0
        } else {
            path.split('/').count()
        };
        if depth > MAX_DEPTH {
            return Err(ZomError::new(
                ErrorCode::LimitExceeded,
                format!("hierarchy is deeper than {MAX_DEPTH} levels"),
            )
            .at_path(path.clone()));
        }
        if path.split('/').any(str::is_empty) && !path.is_empty() {
            return Err(ZomError::invalid_metadata(format!(
                "node path '{path}' has an empty name"
            ))
            .at_path(path.clone()));
        }
    }
    let slot = |slots: &[(String, Option<Node>)], path: &str| {
        slots.binary_search_by(|(p, _)| p.as_str().cmp(path)).ok()
    };
    // Deepest first, so that every node is complete before it moves into its parent; paths of
    // one depth in key order. Grouped rather than sorted: a sort is a lot of code in the
    // WebAssembly module. (Depths are at most MAX_DEPTH, checked above.)
    let depth = |p: &str| p.matches('/').count() + usize::from(!p.is_empty());
    let mut by_depth: Vec<Vec<usize>> = Vec::new();
    for (i, (path, _)) in slots.iter().enumerate() {
        let d = depth(path);
        if by_depth.len() <= d {
            by_depth.resize_with(d + 1, Vec::new);
        }
        if let Some(bucket) = by_depth.get_mut(d) {
            bucket.push(i);
        }
    }
    for i in by_depth.into_iter().rev().flatten() {
        let Some((path, taken)) = slots.get_mut(i) else {
            continue;
        };
        let path = path.clone();
        let Some((parent, name)) = split_parent(&path) else {
            continue;
        };
        let Some(node) = taken.take() else {
            continue;
        };
        let parent_node = slot(&slots, parent)
            .and_then(|j| slots.get_mut(j))
            .and_then(|(_, n)| n.as_mut());
        match parent_node {
            Some(Node::Group(group)) => {
                group.members.insert(name.to_string(), node);
            }
            Some(Node::Array(_)) => {
                return Err(ZomError::invalid_metadata(format!(
                    "node '{path}' is inside array '{parent}'"
                ))
                .at_path(path))
            }
            None => {
                return Err(ZomError::invalid_metadata(format!(
                    "node '{path}' has no parent group: '{}' is missing",
                    parent_key(parent)
                ))
                .at_path(path))
            }
        }
    }
    let root = slot(&slots, "")
        .and_then(|i| slots.get_mut(i))
        .and_then(|(_, n)| n.take())
        .ok_or_else(|| {
            ZomError::new(ErrorCode::NotFound, "the hierarchy has no root node").at_path("")
        })?;
    check_single_format(&root)?;
    Ok(root)
}

fn split_parent(path: &str) -> Option<(&str, &str)> {
    if path.is_empty() {
        return None;
    }
    Some(path.rsplit_once('/').unwrap_or(("", path)))
}

pub(super) fn check_single_format(root: &Node) -> Result<()> {
    let format = root.format();
    for (path, node) in root.descendants() {
        if node.format() != format {
            return Err(ZomError::invalid_metadata(format!(
                "node '{path}' is Zarr v{} inside a Zarr v{} hierarchy",
                node.format().number(),
                format.number()
            ))
            .at_path(path));
        }
    }
    Ok(())
}

/// The documents that create the hierarchy, parents before children, as (store key, JSON).
/// v3: one `zarr.json` per node; v2: `.zgroup`/`.zarray` and `.zattrs` per node.
pub fn to_documents(root: &Node, options: DocumentOptions) -> Result<Vec<(String, Value)>> {
    check_single_format(root)?;
    let nodes = root.descendants();
    match root.format() {
        ZarrFormat::V3 => {
            let mut out: Vec<(String, Value)> = nodes
                .iter()
                .map(|(path, node)| (join_path(path, "zarr.json"), v3_document(node, false)))
                .collect();
            if options.consolidated {
                if let (Some((_, Value::Object(root_doc))), Node::Group(_)) =
                    (out.first_mut(), root)
                {
                    let metadata: Map<String, Value> = breadth_first(&nodes)
                        .into_iter()
                        .skip(1)
                        .map(|(path, node)| (path.clone(), v3_document(node, true)))
                        .collect();
                    insert_before(
                        root_doc,
                        "node_type",
                        "consolidated_metadata",
                        // Not json!: it serialises an interpolated value with serde_json::to_value.
                        inline_consolidated(metadata),
                    );
                }
            }
            Ok(out)
        }
        ZarrFormat::V2 => {
            let mut out = Vec::new();
            for (path, node) in &nodes {
                let (name, doc, attributes) = v2_documents(node);
                out.push((join_path(path, name), doc));
                out.push((join_path(path, ".zattrs"), attributes));
            }
            if options.consolidated {
                out.push((".zmetadata".into(), zmetadata(&nodes)));
            }
            Ok(out)
        }
    }
}

/// The `.zmetadata` document of a v2 hierarchy, as zarr-python 3 writes it.
fn zmetadata(nodes: &[(String, &Node)]) -> Value {
    let mut metadata = Map::new();
    for (index, (path, node)) in breadth_first(nodes).into_iter().enumerate() {
        let (name, mut doc, attributes) = v2_documents(node);
        if let Value::Object(d) = &mut doc {
            match node {
                // zarr-python fills in the spec's default separator in `.zmetadata`.
                Node::Array(_) if !d.contains_key("dimension_separator") => {
                    insert_before(d, "compressor", "dimension_separator", ".".into());
                }
                // zarr-python 3 writes this into subgroup entries; copied for fidelity.
                Node::Group(_) if index > 0 => {
                    d.insert("consolidated_metadata".into(), {
                        let mut o = Map::new();
                        o.insert("metadata".into(), Value::Object(Map::new()));
                        o.insert("must_understand".into(), false.into());
                        o.insert("kind".into(), "inline".into());
                        Value::Object(o)
                    });
                }
                _ => {}
            }
        }
        let (node_key, attrs_key) = (join_path(path, name), join_path(path, ".zattrs"));
        // The root's documents come node first; every other node's, attributes first.
        if index == 0 {
            metadata.insert(node_key, doc);
            metadata.insert(attrs_key, attributes);
        } else {
            metadata.insert(attrs_key, attributes);
            metadata.insert(node_key, doc);
        }
    }
    // Not json!: it serialises an interpolated value with serde_json::to_value (its own copy of
    // serde_json's serialiser in the WebAssembly module).
    let mut zmetadata = Map::new();
    zmetadata.insert("metadata".into(), Value::Object(metadata));
    zmetadata.insert("zarr_consolidated_format".into(), 1.into());
    Value::Object(zmetadata)
}

/// `{"kind": "inline", "must_understand": false, "metadata": …}`
fn inline_consolidated(metadata: Map<String, Value>) -> Value {
    let mut o = Map::new();
    o.insert("kind".into(), "inline".into());
    o.insert("must_understand".into(), false.into());
    o.insert("metadata".into(), Value::Object(metadata));
    Value::Object(o)
}

/// Like [`to_documents`], with each document serialised as zarr-python writes it (indent 2).
pub fn to_document_bytes(root: &Node, options: DocumentOptions) -> Result<Vec<(String, Vec<u8>)>> {
    Ok(to_documents(root, options)?
        .into_iter()
        .map(|(k, v)| {
            // zarr-python writes `.zmetadata` on one line, every other document indented.
            let indent = if k == ".zmetadata" { None } else { Some(2) };
            let bytes = json::to_python_json(&v, indent);
            (k, bytes)
        })
        .collect())
}

/// Nodes ordered by depth, then by path: the order of zarr-python's consolidated metadata.
///
/// Ordered by a map keyed by the depth (fixed width) followed by the path, rather than by a
/// sort: a sort is a lot of code per element type in the WebAssembly module, and a map of
/// `String` to `Value` is there already.
fn breadth_first<'a>(nodes: &'a [(String, &'a Node)]) -> Vec<&'a (String, &'a Node)> {
    let mut order: BTreeMap<String, Value> = BTreeMap::new();
    for (index, (path, _)) in nodes.iter().enumerate() {
        let depth = if path.is_empty() {
            0
        } else {
            path.matches('/').count().saturating_add(1)
        };
        // usize has at most 20 digits: equal-width depths compare as numbers, then paths.
        order.insert(format!("{depth:020}{path}"), Value::from(index));
    }
    order
        .values()
        .filter_map(|index| nodes.get(usize::try_from(index.as_u64()?).ok()?))
        .collect()
}

fn insert_before(map: &mut Map<String, Value>, before: &str, key: &str, value: Value) {
    let entries = std::mem::take(map);
    for (k, v) in entries {
        if k == before {
            map.insert(key.to_string(), value.clone());
        }
        map.insert(k, v);
    }
    if !map.contains_key(key) {
        map.insert(key.to_string(), value);
    }
}

/// The `zarr.json` of one v3 node (without its members). Inside consolidated metadata,
/// zarr-python gives every group an empty `consolidated_metadata` of its own.
fn v3_document(node: &Node, inside_consolidated: bool) -> Value {
    match node {
        Node::Group(g) => {
            let mut o = Map::new();
            o.insert("attributes".into(), Value::Object(g.attributes.clone()));
            o.insert("zarr_format".into(), 3.into());
            if inside_consolidated {
                o.insert(
                    "consolidated_metadata".into(),
                    inline_consolidated(Map::new()),
                );
            }
            o.insert("node_type".into(), "group".into());
            if let Some(ext) = &g.extensions {
                o.insert(
                    "extensions".into(),
                    Value::Array(ext.iter().map(NamedConfig::to_value).collect()),
                );
            }
            for (k, v) in &g.extra {
                o.insert(k.clone(), v.clone());
            }
            Value::Object(o)
        }
        Node::Array(Array::V3(a)) => {
            let mut doc: ArrayMetadataV3 = (**a).clone();
            doc.attributes.get_or_insert_with(Map::new);
            if doc.dimension_names == Some(None) {
                doc.dimension_names = None;
            }
            doc.to_value()
        }
        // A v2 node in a v3 tree is refused by check_single_format before this is reached.
        Node::Array(Array::V2(_)) => Value::Null,
    }
}

/// The node document's name, the document, and the `.zattrs` of one v2 node.
fn v2_documents(node: &Node) -> (&'static str, Value, Value) {
    match node {
        Node::Group(g) => {
            let meta = GroupMetadataV2 {
                zarr_format: 2,
                extra: g.extra.clone(),
            };
            (
                ".zgroup",
                meta.to_value(),
                Value::Object(g.attributes.clone()),
            )
        }
        Node::Array(Array::V2(a)) => (
            ".zarray",
            a.metadata.to_value(),
            Value::Object(a.attributes.clone()),
        ),
        Node::Array(Array::V3(_)) => (".zarray", Value::Null, Value::Null),
    }
}
