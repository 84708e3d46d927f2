//! v2 → v3 conversion of a ZOM (`toV3`): what zarr-python's `migrate_v2_to_v3` does, plus the
//! cases it refuses but v3 can express (object arrays with `vlen-*`, xarray's
//! `_ARRAY_DIMENSIONS`). Everything that cannot convert is reported as a problem.

use super::named::{NamedConfig, NUMCODECS_PREFIX};
use super::node::{join_path, Array, ArrayV2, Group, Node, ZarrFormat};
use super::v3::ArrayMetadataV3;
use crate::codec::registry::{self, Kind, V3Form};
use crate::dtype::{DataType, Endianness, FillValue};
use crate::problem::{LocStep, Problem, ProblemKind, Severity};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A converted hierarchy and what could not be converted as it was.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversion {
    /// The v3 hierarchy. Arrays that cannot be expressed in v3 are left out.
    pub node: Node,
    /// One problem per thing that did not convert (error: left out; warning: changed).
    pub problems: Vec<Problem>,
}

/// Converts a v2 hierarchy (or a single v2 array) to v3. A v3 input comes back unchanged.
pub fn to_v3(node: &Node) -> Conversion {
    let mut problems = Vec::new();
    let node = match convert_node(node, "", &mut problems) {
        Some(n) => n,
        // The root array could not convert: an empty v3 group stands in for it.
        None => Node::Group(Group {
            zarr_format: Some(ZarrFormat::V3),
            ..Group::default()
        }),
    };
    Conversion { node, problems }
}

fn problem(path: &str, loc: &[&str], severity: Severity, message: String) -> Problem {
    problem_at(
        path,
        loc.iter().map(|s| LocStep::Key((*s).to_string())).collect(),
        severity,
        message,
    )
}

fn problem_at(path: &str, loc: Vec<LocStep>, severity: Severity, message: String) -> Problem {
    Problem {
        path: path.to_string(),
        loc,
        kind: ProblemKind::InvalidValue,
        message,
        severity,
        spec: None,
        rule: None,
    }
}

fn convert_node(node: &Node, path: &str, problems: &mut Vec<Problem>) -> Option<Node> {
    match node {
        Node::Group(g) => {
            let mut members = BTreeMap::new();
            for (name, child) in &g.members {
                if let Some(converted) = convert_node(child, &join_path(path, name), problems) {
                    members.insert(name.clone(), converted);
                }
            }
            Some(Node::Group(Group {
                zarr_format: Some(ZarrFormat::V3),
                attributes: g.attributes.clone(),
                members,
                extensions: g.extensions.clone(),
                extra: g.extra.clone(),
            }))
        }
        Node::Array(Array::V3(_)) => Some(node.clone()),
        Node::Array(Array::V2(a)) => {
            convert_array(a, path, problems).map(|a| Node::Array(Array::V3(Box::new(a))))
        }
    }
}

fn codec_id(codec: &Value) -> Option<&str> {
    codec.get("id").and_then(Value::as_str)
}

fn numcodecs_codec(codec: &Value) -> Option<NamedConfig> {
    let id = codec_id(codec)?;
    let mut configuration = codec.as_object().cloned().unwrap_or_default();
    configuration.shift_remove("id");
    Some(NamedConfig::new(
        format!("{NUMCODECS_PREFIX}{id}"),
        Some(configuration),
    ))
}

fn convert_array(a: &ArrayV2, path: &str, problems: &mut Vec<Problem>) -> Option<ArrayMetadataV3> {
    let meta = &a.metadata;
    let filters = meta.filters.as_deref().unwrap_or(&[]);
    let object_codec = filters
        .iter()
        .chain(meta.compressor.iter())
        .filter_map(codec_id)
        .find(|id| id.starts_with("vlen-") || matches!(*id, "json2" | "msgpack2" | "pickle"));
    let (data_type, endianness) = match DataType::from_v2(&meta.dtype, object_codec) {
        Ok(found) => found,
        Err(e) => {
            problems.push(problem(
                path,
                &["dtype"],
                Severity::Error,
                format!(
                    "array not converted: data type {} has no v3 form: {e}",
                    crate::json::to_compact(&meta.dtype)
                ),
            ));
            return None;
        }
    };
    if has_big_endian_field(&data_type) {
        problems.push(problem(
            path,
            &["dtype"],
            Severity::Error,
            format!(
                "array not converted: struct data type {} has big-endian fields; v3 stores every \
             field in the one byte order of the bytes codec, which zarr-python writes little",
                crate::json::to_compact(&meta.dtype)
            ),
        ));
        return None;
    }
    let fill_value = convert_fill_value(a, &data_type, endianness, path, problems)?;

    let codecs = convert_codecs(a, &data_type, endianness, path, problems)?;

    let mut attributes = a.attributes.clone();
    let dimension_names = take_xarray_dimensions(&mut attributes, meta.shape.len());
    let separator = meta
        .dimension_separator
        .clone()
        .unwrap_or_else(|| ".".into());
    Some(ArrayMetadataV3 {
        shape: meta.shape.clone(),
        data_type: data_type.to_v3(),
        chunk_grid: NamedConfig::new(
            "regular",
            Some(Map::from_iter([(
                "chunk_shape".to_string(),
                Value::Array(meta.chunks.iter().map(|&n| Value::from(n)).collect()),
            )])),
        ),
        chunk_key_encoding: NamedConfig::new(
            "v2",
            Some(Map::from_iter([(
                "separator".to_string(),
                Value::String(separator),
            )])),
        ),
        fill_value,
        codecs,
        attributes: Some(attributes),
        dimension_names: Some(dimension_names),
        zarr_format: 3,
        node_type: "array".into(),
        storage_transformers: Some(Vec::new()),
        extensions: None,
        extra: Map::new(),
    })
}

/// The v3 codecs of a v2 array: `order: F` as a transpose, filters by their role, the
/// bytes codec (or an array→bytes codec that stands in for it), then the compressor.
fn convert_codecs(
    a: &ArrayV2,
    data_type: &DataType,
    endianness: Endianness,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<Vec<NamedConfig>> {
    let meta = &a.metadata;
    let mut array_to_array = Vec::new();
    if meta.order == "F" && meta.shape.len() > 1 {
        let order: Vec<Value> = (0..meta.shape.len()).rev().map(Value::from).collect();
        array_to_array.push(NamedConfig::new(
            "transpose",
            Some(Map::from_iter([("order".to_string(), Value::Array(order))])),
        ));
    }
    let item_size = data_type.fixed_size();
    let mut array_to_bytes = None;
    let mut bytes_to_bytes = Vec::new();
    let filters = meta.filters.as_deref().unwrap_or(&[]);
    let stages = filters
        .iter()
        .enumerate()
        .map(|(i, f)| (vec![LocStep::Key("filters".into()), LocStep::Index(i)], f))
        .chain(
            meta.compressor
                .iter()
                .map(|c| (vec![LocStep::Key("compressor".into())], c)),
        );
    for (loc, codec) in stages {
        let refuse = |problems: &mut Vec<Problem>, why: String| {
            problems.push(problem_at(
                path,
                loc.clone(),
                Severity::Error,
                format!("array not converted: {why}"),
            ));
        };
        let Some(id) = codec_id(codec) else {
            refuse(problems, "a codec has no string 'id'".into());
            return None;
        };
        let Some(spec) = registry::numcodecs(id) else {
            problems.push(problem_at(
                path,
                loc.clone(),
                Severity::Warning,
                format!("codec '{id}' is unknown; written as {NUMCODECS_PREFIX}{id}, assumed bytes→bytes"),
            ));
            bytes_to_bytes.extend(numcodecs_codec(codec));
            continue;
        };
        let made_bytes = array_to_bytes.is_some() || !bytes_to_bytes.is_empty();
        let is_compressor = loc.first() == Some(&LocStep::Key("compressor".into()));
        let converted = match spec.v3_form {
            V3Form::None => {
                refuse(
                    problems,
                    format!("object codec '{id}' has no v3 equivalent"),
                );
                return None;
            }
            V3Form::Named(name) => Some(NamedConfig::new(name, Some(Map::new()))),
            V3Form::Compressor(make) if is_compressor => codec
                .as_object()
                .map(|config| make(config, item_size.unwrap_or(8))),
            V3Form::Numcodecs(Some(warning)) => {
                problems.push(problem_at(
                    path,
                    loc.clone(),
                    Severity::Warning,
                    warning.into(),
                ));
                numcodecs_codec(codec)
            }
            V3Form::Compressor(_) | V3Form::Numcodecs(None) => numcodecs_codec(codec),
        };
        match spec.kind {
            Kind::ArrayToArray if made_bytes => {
                refuse(
                    problems,
                    format!(
                        "filter '{id}' works on the array after a codec that made bytes; \
                     v3 cannot order codecs that way"
                    ),
                );
                return None;
            }
            Kind::ArrayToBytes if made_bytes => {
                refuse(
                    problems,
                    format!("codec '{id}' cannot follow a codec that made bytes"),
                );
                return None;
            }
            Kind::ArrayToArray => array_to_array.extend(converted),
            Kind::ArrayToBytes => array_to_bytes = converted,
            Kind::BytesToBytes => bytes_to_bytes.extend(converted),
        }
    }
    let mut codecs = array_to_array;
    codecs.push(array_to_bytes.unwrap_or_else(|| bytes_codec(item_size, endianness)));
    codecs.extend(bytes_to_bytes);
    Some(codecs)
}

fn convert_fill_value(
    a: &ArrayV2,
    data_type: &DataType,
    endianness: Endianness,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<Value> {
    match FillValue::from_v2(data_type, endianness, &a.metadata.fill_value) {
        Ok(Some(fill)) => Some(fill.to_v3(data_type)),
        Ok(None) => {
            // v3 has no "no fill value": zarr-python reads such arrays with the type's zero.
            let default = default_fill_value(data_type);
            if default.is_none() {
                problems.push(problem(
                    path,
                    &["fill_value"],
                    Severity::Error,
                    "array not converted: fill_value null and the data type has no default".into(),
                ));
            } else {
                problems.push(problem(
                    path,
                    &["fill_value"],
                    Severity::Warning,
                    "fill_value null has no v3 form; the data type's default was used".into(),
                ));
            }
            default
        }
        Err(e) => {
            problems.push(problem(
                path,
                &["fill_value"],
                Severity::Error,
                format!(
                    "array not converted: fill_value {} does not fit the data type: {e}",
                    crate::json::to_compact(&a.metadata.fill_value)
                ),
            ));
            None
        }
    }
}

/// The zero value of a data type in its v3 encoding, found by trying the candidates.
fn default_fill_value(data_type: &DataType) -> Option<Value> {
    // Built directly: json! serialises numbers and strings through serde_json::to_value.
    let candidates = [
        Value::from(0u64),
        Value::from(0.0),
        Value::Bool(false),
        Value::String(String::new()),
        Value::Array(vec![Value::from(0.0), Value::from(0.0)]),
        Value::Array(Vec::new()),
    ];
    candidates.iter().find_map(|candidate| {
        FillValue::from_v3(data_type, candidate)
            .ok()
            .map(|f| f.to_v3(data_type))
    })
}

/// Whether a struct type has a big-endian multi-byte field (at any depth).
fn has_big_endian_field(data_type: &DataType) -> bool {
    let DataType::Struct { fields, .. } = data_type else {
        return false;
    };
    // A stack rather than recursion: nested fields are visited without growing the call stack.
    let mut stack: Vec<&crate::dtype::StructField> = fields.iter().collect();
    while let Some(field) = stack.pop() {
        match &field.data_type {
            DataType::Struct { fields, .. } => stack.extend(fields.iter()),
            other if other.fixed_size().unwrap_or(0) > 1 && field.endianness == Endianness::Big => {
                return true
            }
            _ => {}
        }
    }
    false
}

fn bytes_codec(item_size: Option<u64>, endianness: Endianness) -> NamedConfig {
    let endian = match endianness {
        Endianness::Little => "little",
        Endianness::Big => "big",
        Endianness::NotApplicable => return NamedConfig::new("bytes", None),
    };
    if item_size.unwrap_or(0) <= 1 {
        return NamedConfig::new("bytes", None);
    }
    NamedConfig::new(
        "bytes",
        Some(Map::from_iter([(
            "endian".to_string(),
            Value::from(endian),
        )])),
    )
}

/// xarray keeps v2 dimension names in the `_ARRAY_DIMENSIONS` attribute; v3 has a field.
fn take_xarray_dimensions(
    attributes: &mut Map<String, Value>,
    rank: usize,
) -> Option<Vec<Option<String>>> {
    let names: Vec<Option<String>> = match attributes.get("_ARRAY_DIMENSIONS") {
        Some(Value::Array(items)) if items.len() == rank => {
            let mut names = Vec::with_capacity(items.len());
            for v in items {
                names.push(Some(v.as_str()?.to_string()));
            }
            names
        }
        _ => return None,
    };
    attributes.shift_remove("_ARRAY_DIMENSIONS");
    Some(names)
}
