//! What user interfaces say about a node, decided once: its kind, format, shape, a data-type
//! label, the chunks a read decodes and the shards they are stored in, a codec summary and
//! counts. The CLI (`zom tree`, `zom info`) and the explorer print these fields and decide
//! nothing themselves, so the two cannot disagree (ARCHITECTURE.md, "The explorer and the
//! CLI").

use super::named::NamedConfig;
use super::node::{join_path, Array, Node, ZarrFormat};
use crate::codec::CodecPipeline;
use serde_json::{Map, Value};

/// A node's summary. Arrays: `shape`, `data_type`, `chunks`, `shards` (when sharded),
/// `codecs`; groups: `members`.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSummary {
    /// `"array"` or `"group"`.
    pub kind: &'static str,
    /// 2 or 3.
    pub zarr_format: u64,
    /// How many attributes the node has.
    pub attributes: usize,
    /// How many direct members a group has (0 for an array).
    pub members: usize,
    /// The array's shape.
    pub shape: Vec<u64>,
    /// The data type in a word or two: `uint16`, `datetime64[s]`, `fixed_length_utf32[20]`,
    /// `struct{id, temp, ok}`, a v2 typestring as written (`<f8`).
    pub data_type: String,
    /// The shape of the chunks a read decodes: a sharded array's inner chunks.
    pub chunks: Option<Vec<u64>>,
    /// The shape of a sharded array's shards (its chunk grid), when the reader reads it as
    /// sharded: `sharding_indexed` is its only codec (see [`CodecPipeline::sharding`]).
    pub shards: Option<Vec<u64>>,
    /// The chunk grid's name: `"regular"` (v2 arrays too), `"rectilinear"` (whose chunks
    /// differ in shape: `chunks` and `shards` are then those of a regular part only), or
    /// another as written; `""` for a group.
    pub grid: String,
    /// The codecs, in order, `→` between them, a sharding codec's inner codecs in
    /// parentheses: `sharding_indexed(bytes → zstd) → crc32c`; v2 filters, then the
    /// compressor: `delta → blosc`; `none` for a v2 array with neither.
    pub codecs: String,
}

impl NodeSummary {
    /// The summary as JSON, with `chunks` and `shards` null when absent.
    pub fn to_value(&self) -> Value {
        let list = |v: &[u64]| Value::Array(v.iter().map(|&n| Value::from(n)).collect());
        let optional = |v: &Option<Vec<u64>>| v.as_deref().map_or(Value::Null, list);
        let mut o = Map::new();
        o.insert("kind".into(), self.kind.into());
        o.insert("zarr_format".into(), self.zarr_format.into());
        o.insert("attributes".into(), Value::from(self.attributes as u64));
        o.insert("members".into(), Value::from(self.members as u64));
        o.insert("shape".into(), list(&self.shape));
        o.insert("data_type".into(), self.data_type.as_str().into());
        o.insert("chunks".into(), optional(&self.chunks));
        o.insert("shards".into(), optional(&self.shards));
        o.insert("grid".into(), self.grid.as_str().into());
        o.insert("codecs".into(), self.codecs.as_str().into());
        Value::Object(o)
    }
}

/// The summary of one node (its members are not looked at, only counted).
pub fn summarize(node: &Node) -> NodeSummary {
    match node {
        Node::Group(g) => NodeSummary {
            kind: "group",
            zarr_format: match g.format() {
                ZarrFormat::V2 => 2,
                ZarrFormat::V3 => 3,
            },
            attributes: g.attributes.len(),
            members: g.members.len(),
            shape: Vec::new(),
            data_type: String::new(),
            chunks: None,
            shards: None,
            grid: String::new(),
            codecs: String::new(),
        },
        Node::Array(Array::V3(meta)) => {
            // The regular grid's chunk shape as written: a summary shows broken metadata too
            // (a chunk shape of the wrong rank), which the grid's reader refuses.
            let grid = meta
                .chunk_grid
                .configuration
                .as_ref()
                .and_then(|c| c.get("chunk_shape"))
                .and_then(uint_list);
            let inner = CodecPipeline::from_v3_metadata(meta)
                .ok()
                .and_then(|p| p.sharding().map(|s| s.inner_chunk_shape().to_vec()));
            let (chunks, shards) = match inner {
                Some(inner) => (Some(inner), grid),
                None => (grid, None),
            };
            NodeSummary {
                kind: "array",
                zarr_format: 3,
                attributes: meta.attributes.as_ref().map_or(0, Map::len),
                members: 0,
                shape: meta.shape.clone(),
                data_type: v3_type_label(&meta.data_type),
                chunks,
                shards,
                grid: meta.chunk_grid.name.clone(),
                codecs: codec_list(meta.codecs.iter().map(named_codec)),
            }
        }
        Node::Array(Array::V2(a)) => {
            let m = &a.metadata;
            let codecs = m.filters.iter().flatten().chain(m.compressor.as_ref());
            let codecs = codecs.filter(|c| !c.is_null()).map(v2_codec);
            NodeSummary {
                kind: "array",
                zarr_format: 2,
                attributes: a.attributes.len(),
                members: 0,
                shape: m.shape.clone(),
                data_type: v2_type_label(&m.dtype),
                chunks: Some(m.chunks.clone()),
                shards: None,
                grid: "regular".into(),
                codecs: match codec_list(codecs) {
                    s if s.is_empty() => "none".into(),
                    s => s,
                },
            }
        }
    }
}

/// The summary of every node of a tree, by node path ("" for the root).
pub fn summarize_tree(root: &Node) -> Map<String, Value> {
    summaries(root)
        .into_iter()
        .map(|(path, summary)| (path, summary.to_value()))
        .collect()
}

/// The summary of every node of a tree with its node path ("" for the root), the root first,
/// then each group's members in order, depth first.
pub fn summaries(root: &Node) -> Vec<(String, NodeSummary)> {
    let mut out = Vec::new();
    visit(root, "", &mut out);
    out
}

fn visit(node: &Node, path: &str, out: &mut Vec<(String, NodeSummary)>) {
    out.push((path.to_string(), summarize(node)));
    if let Node::Group(g) = node {
        for (name, member) in &g.members {
            visit(member, &join_path(path, name), out);
        }
    }
}

fn uint_list(value: &Value) -> Option<Vec<u64>> {
    value.as_array()?.iter().map(Value::as_u64).collect()
}

fn codec_list(codecs: impl Iterator<Item = String>) -> String {
    codecs.collect::<Vec<_>>().join(" → ")
}

/// A v3 codec's name; a sharding codec's inner codecs follow in parentheses.
fn named_codec(codec: &NamedConfig) -> String {
    let inner = codec
        .configuration
        .as_ref()
        .and_then(|c| c.get("codecs"))
        .and_then(Value::as_array);
    match inner {
        Some(list) => format!("{}({})", codec.name, codec_list(list.iter().map(any_codec))),
        None => codec.name.clone(),
    }
}

/// A codec given as JSON: a v3 name or named configuration, or a numcodecs `{id, …}`.
fn any_codec(value: &Value) -> String {
    match NamedConfig::from_value(value) {
        Ok(named) => named_codec(&named),
        Err(_) => v2_codec(value),
    }
}

fn v2_codec(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        _ => value
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string(),
    }
}

/// `uint16`; `datetime64[s]` (the `numpy.` prefix dropped); `fixed_length_utf32[20]`
/// (length in bytes); `struct{id, temp, ok}`.
fn v3_type_label(data_type: &NamedConfig) -> String {
    let name = data_type
        .name
        .strip_prefix("numpy.")
        .unwrap_or(&data_type.name);
    let config = data_type.configuration.as_ref();
    let get = |key: &str| config.and_then(|c| c.get(key));
    if let Some(unit) = get("unit").and_then(Value::as_str) {
        return format!("{name}[{unit}]");
    }
    if let Some(fields) = get("fields").and_then(Value::as_array) {
        return format!("{name}{{{}}}", field_names(fields));
    }
    if let Some(n) = get("length_bytes").and_then(Value::as_u64) {
        return format!("{name}[{n}]");
    }
    name.to_string()
}

/// A v2 typestring as written (`<f8`, `|O`); a structured dtype as `structured{id, temp}`.
fn v2_type_label(dtype: &Value) -> String {
    match dtype {
        Value::String(s) => s.clone(),
        Value::Array(fields) => format!("structured{{{}}}", field_names(fields)),
        other => crate::json::to_compact(other),
    }
}

/// The names of struct fields given as `[name, type]` pairs or `{name, data_type}` objects.
fn field_names(fields: &[Value]) -> String {
    let name = |f: &Value| -> String {
        f.get(0)
            .or_else(|| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    fields.iter().map(name).collect::<Vec<_>>().join(", ")
}
