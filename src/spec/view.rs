//! The array view a spec's `array` schema is checked against: the same few facts for v2 and v3
//! arrays, under one set of names (ARCHITECTURE.md, "Hierarchy specs").
//!
//! `{"zarr_format", "rank", "shape", "chunk_shape", "data_type", "codecs", "dimension_names",
//! "fill_value"}`: `chunk_shape` is the regular grid's (v3) or `chunks` (v2), null when there
//! is none; `data_type` is the v3 name (v2 typestrings are translated, `<u2` → `uint16`; one
//! zom cannot read stays as written); `codecs` lists codec names (v3) or ids (v2: filters,
//! then the compressor); `dimension_names` is v3's, null in v2 (xarray's `_ARRAY_DIMENSIONS`
//! is an attribute).

use crate::dtype::DataType;
use crate::problem::name_of;
use crate::problem::LocStep;
use serde_json::{Map, Value};

/// The facts of the view, in its order.
const FACTS: [&str; 8] = [
    "zarr_format",
    "rank",
    "shape",
    "chunk_shape",
    "data_type",
    "codecs",
    "dimension_names",
    "fill_value",
];

/// The view of one array node, built from its ZOM JSON.
pub(crate) fn array_view(obj: &Map<String, Value>, version: u64) -> Value {
    Value::Object(
        FACTS
            .iter()
            .map(|f| (f.to_string(), array_fact(obj, version, f)))
            .collect(),
    )
}

/// One fact of the view (null when the node has none, or for a name the view does not have).
pub(crate) fn array_fact(obj: &Map<String, Value>, version: u64, name: &str) -> Value {
    let v3 = version == 3;
    let fact = match name {
        "zarr_format" => Some(Value::from(version)),
        "rank" => obj
            .get("shape")
            .and_then(Value::as_array)
            .map(|s| Value::from(s.len())),
        "shape" => obj.get("shape").cloned(),
        "chunk_shape" if v3 => obj
            .get("chunk_grid")
            .and_then(|g| g.get("configuration"))
            .and_then(|c| c.get("chunk_shape"))
            .cloned(),
        "chunk_shape" => obj.get("chunks").cloned(),
        "data_type" if v3 => obj.get("data_type").map(v3_type_name),
        "data_type" => obj.get("dtype").map(|d| {
            let (filters, compressor) = v2_codecs(obj);
            DataType::from_v2_codecs(d, filters.map(Vec::as_slice), compressor)
                .ok()
                .and_then(|(t, _)| match t.to_v3().to_value() {
                    Value::String(name) => Some(Value::String(name)),
                    Value::Object(o) => o.get("name").cloned(),
                    _ => None,
                })
                .unwrap_or_else(|| d.clone())
        }),
        "codecs" if v3 => obj.get("codecs").and_then(Value::as_array).map(|list| {
            list.iter()
                .map(|c| name_of(c).map_or(Value::Null, Value::from))
                .collect()
        }),
        "codecs" => {
            let (filters, compressor) = v2_codecs(obj);
            Some(
                filters
                    .into_iter()
                    .flatten()
                    .chain(compressor)
                    .map(|c| c.get("id").cloned().unwrap_or(Value::Null))
                    .collect(),
            )
        }
        "dimension_names" if v3 => obj.get("dimension_names").cloned(),
        "fill_value" => obj.get("fill_value").cloned(),
        _ => None,
    };
    fact.unwrap_or(Value::Null)
}

/// A v2 array's filters and its compressor (none when null).
fn v2_codecs(obj: &Map<String, Value>) -> (Option<&Vec<Value>>, Option<&Value>) {
    let filters = obj.get("filters").and_then(Value::as_array);
    let compressor = obj.get("compressor").filter(|c| !c.is_null());
    (filters, compressor)
}

fn v3_type_name(data_type: &Value) -> Value {
    name_of(data_type).map_or_else(|| data_type.clone(), Value::from)
}

/// Where a location inside the view points in the node's own JSON.
pub(crate) fn node_loc(
    view_loc: &[LocStep],
    obj: &Map<String, Value>,
    version: u64,
) -> Vec<LocStep> {
    let key = |k: &str| LocStep::Key(k.to_string());
    let (first, rest) = match view_loc.split_first() {
        Some((LocStep::Key(first), rest)) => (first.as_str(), rest),
        _ => return view_loc.to_vec(),
    };
    let mut loc = match (first, version) {
        ("rank", _) => return vec![key("shape")],
        ("chunk_shape", 3) => vec![key("chunk_grid"), key("configuration"), key("chunk_shape")],
        ("chunk_shape", _) => vec![key("chunks")],
        ("data_type", 2) => return vec![key("dtype")],
        ("codecs", 2) => {
            let filters = obj
                .get("filters")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            return match rest.first() {
                Some(LocStep::Index(i)) if *i < filters => vec![key("filters"), LocStep::Index(*i)],
                Some(LocStep::Index(_)) => vec![key("compressor")],
                _ => vec![key("compressor")],
            };
        }
        ("dimension_names", 2) => return vec![key("attributes")],
        (other, _) => vec![key(other)],
    };
    loc.extend_from_slice(rest);
    loc
}
