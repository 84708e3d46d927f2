//! v3 `zarr.json`: arrays, groups, and zarr-python's inline consolidated metadata.

use super::codecs::{check_pipeline, report};
use super::extensions::{
    check_extensions_list, parse_named, unknown_extension, unknown_top_level_key,
};
use super::names::node_name_error;
use super::util::{
    expect_array, expect_bool, expect_object, expect_one_of, expect_uint_list, join_path, required,
    show, tname, unknown_keys, Ctx, LocExt, MAX_NESTING, MAX_SAFE_INTEGER,
};
use super::{LocStep, ProblemKind};
use crate::chunk::{grid_spec, key_encoding_spec};
use crate::codec::registry::Stage;
use crate::dtype::{DataType, FillValue};
use crate::model::named::NamedConfig;
use crate::model::v3::ARRAY_KEYS;
use serde_json::{Map, Value};

/// Checks a `zarr.json` document (array or group). `base` is where it sits in the document
/// the caller gave; `zom` skips the `members` key of ZOM nodes.
pub(crate) fn check_zarr_json(cx: &mut Ctx, doc: &Value, base: &[LocStep], zom: bool) {
    let Some(obj) = expect_object(cx, doc, base, "zarr.json") else {
        return;
    };
    check_zarr_format(cx, obj, base, 3, "zarr.json");
    let node_type = required(cx, obj, base, "node_type", "zarr.json").and_then(|v| {
        expect_one_of(
            cx,
            v,
            &base.key("node_type"),
            "'node_type'",
            &["array", "group"],
        )
    });
    let is_array = match node_type {
        Some(t) => t == "array",
        // Without a usable node_type, judge by the keys present.
        None => ["shape", "data_type", "codecs", "chunk_grid"]
            .iter()
            .any(|k| obj.contains_key(*k)),
    };
    if is_array {
        check_array(cx, obj, base, zom);
    } else {
        check_group(cx, obj, base, zom);
    }
}

/// `zarr_format` must be the integer `want`.
pub(crate) fn check_zarr_format(
    cx: &mut Ctx,
    obj: &Map<String, Value>,
    base: &[LocStep],
    want: u64,
    what: &str,
) {
    let Some(v) = required(cx, obj, base, "zarr_format", what) else {
        return;
    };
    let loc = base.key("zarr_format");
    match v {
        Value::Number(n) if n.as_u64() == Some(want) => {}
        Value::Number(n) if n.is_i64() || n.is_u64() => cx.error(
            &loc,
            ProblemKind::InvalidValue,
            format!("{what} must have zarr_format {want}, not {n}"),
        ),
        other => cx.error(
            &loc,
            ProblemKind::InvalidType,
            format!(
                "zarr_format must be the integer {want}, not {} {}",
                tname(other),
                show(other)
            ),
        ),
    }
}

fn check_array(cx: &mut Ctx, obj: &Map<String, Value>, base: &[LocStep], zom: bool) {
    let what = "array zarr.json";
    let shape =
        required(cx, obj, base, "shape", what).and_then(|v| check_shape(cx, v, &base.key("shape")));
    let dtype = required(cx, obj, base, "data_type", what)
        .and_then(|v| check_data_type(cx, v, &base.key("data_type")));
    let chunk_shape = required(cx, obj, base, "chunk_grid", what)
        .and_then(|v| check_chunk_grid(cx, v, &base.key("chunk_grid"), shape.as_deref()));
    if let Some(v) = required(cx, obj, base, "chunk_key_encoding", what) {
        check_key_encoding(cx, v, &base.key("chunk_key_encoding"));
    }
    if let Some(v) = required(cx, obj, base, "fill_value", what) {
        if let Some(dtype) = &dtype {
            if let Err(why) = FillValue::from_v3(dtype, v) {
                cx.error(
                    &base.key("fill_value"),
                    ProblemKind::InvalidValue,
                    format!("fill_value {} does not fit the data type: {why}", show(v)),
                );
            }
        }
    }
    if let Some(v) = required(cx, obj, base, "codecs", what) {
        let input = Stage {
            dtype,
            shape: chunk_shape,
            ..Stage::default()
        };
        check_pipeline(cx, v, &base.key("codecs"), input, false);
    }
    if let Some(v) = obj.get("dimension_names") {
        check_dimension_names(
            cx,
            v,
            &base.key("dimension_names"),
            shape.as_ref().map(Vec::len),
        );
    }
    if let Some(v) = obj.get("attributes") {
        expect_object(cx, v, &base.key("attributes"), "'attributes'");
    }
    check_array_extensions(cx, obj, base, zom);
}

/// An array's extension points beyond the codecs and data type: storage transformers, ZEP 10
/// `extensions` and keys the spec does not define. What readers must refuse here is an error
/// of kind `MustUnderstand` (see [`super::reader_refusal`]).
pub(crate) fn check_array_extensions(
    cx: &mut Ctx,
    obj: &Map<String, Value>,
    base: &[LocStep],
    zom: bool,
) {
    if let Some(v) = obj.get("storage_transformers") {
        let loc = base.key("storage_transformers");
        if let Some(items) = expect_array(cx, v, &loc, "'storage_transformers'") {
            for (i, item) in items.iter().enumerate() {
                let here = loc.idx(i);
                if let Some(named) = parse_named(cx, item, &here, "storage transformer") {
                    unknown_extension(cx, &named, item, &here, "storage transformer");
                }
            }
        }
    }
    check_other_keys(cx, obj, base, ARRAY_KEYS, zom);
}

fn check_group(cx: &mut Ctx, obj: &Map<String, Value>, base: &[LocStep], zom: bool) {
    if let Some(v) = obj.get("attributes") {
        expect_object(cx, v, &base.key("attributes"), "'attributes'");
    }
    if let Some(v) = obj.get("consolidated_metadata") {
        check_consolidated(cx, v, &base.key("consolidated_metadata"));
    }
    check_other_keys(
        cx,
        obj,
        base,
        &[
            "zarr_format",
            "node_type",
            "attributes",
            "consolidated_metadata",
        ],
        zom,
    );
}

/// ZEP 10 `extensions` (when enabled) and keys the spec does not define.
fn check_other_keys(
    cx: &mut Ctx,
    obj: &Map<String, Value>,
    base: &[LocStep],
    known: &[&str],
    zom: bool,
) {
    for (key, value) in obj {
        if known.contains(&key.as_str()) || (zom && key == "members") {
            continue;
        }
        if key == "extensions" && cx.opts.extensions {
            check_extensions_list(cx, value, &base.key(key));
        } else {
            unknown_top_level_key(cx, key, value, base);
        }
    }
}

/// `shape`: non-negative integers (strict: warns above 2^53).
pub(crate) fn check_shape(cx: &mut Ctx, v: &Value, loc: &[LocStep]) -> Option<Vec<u64>> {
    let shape = expect_uint_list(cx, v, loc, "'shape'", 0)?;
    for (i, &n) in shape.iter().enumerate() {
        if n > MAX_SAFE_INTEGER {
            cx.warn(
                &loc.idx(i),
                ProblemKind::InvalidValue,
                format!("shape[{i}] = {n} is over 2^53 and not exact as a JavaScript number"),
            );
        }
    }
    Some(shape)
}

/// Strict: a chunk longer than the array along a dimension.
pub(crate) fn warn_chunk_larger(cx: &mut Ctx, chunks: &[u64], shape: &[u64], loc: &[LocStep]) {
    for (i, (&c, &s)) in chunks.iter().zip(shape.iter()).enumerate() {
        if s > 0 && c > s {
            cx.warn(
                &loc.idx(i),
                ProblemKind::InvalidValue,
                format!("chunk length {c} is larger than the array length {s}"),
            );
        }
    }
}

fn check_data_type(cx: &mut Ctx, v: &Value, loc: &[LocStep]) -> Option<DataType> {
    let named = parse_named(cx, v, loc, "data type")?;
    if !DataType::is_known_v3_name(named.name) {
        unknown_extension(cx, &named, v, loc, "data type");
        return None;
    }
    cx.run_handler(named.name, v, loc);
    // A malformed named configuration was reported by parse_named already.
    let named = NamedConfig::from_value(v).ok()?;
    match DataType::from_v3(&named) {
        Ok(dtype) => Some(dtype),
        Err(why) => {
            cx.error(
                loc,
                ProblemKind::InvalidValue,
                format!("data_type {} is not valid: {why}", show(v)),
            );
            None
        }
    }
}

/// Returns the chunk shape when the grid is usable and regular.
fn check_chunk_grid(
    cx: &mut Ctx,
    v: &Value,
    loc: &[LocStep],
    shape: Option<&[u64]>,
) -> Option<Vec<u64>> {
    let named = parse_named(cx, v, loc, "chunk grid")?;
    let Some(spec) = grid_spec(named.name) else {
        unknown_extension(cx, &named, v, loc, "chunk grid");
        return None;
    };
    cx.run_handler(named.name, v, loc);
    let (problems, grid) = spec.read(named.config, shape);
    report(cx, loc, &problems);
    let chunks = grid?.regular_chunk_shape()?.to_vec();
    if let (Some(key), Some(shape)) = (spec.chunk_shape_key, shape) {
        warn_chunk_larger(cx, &chunks, shape, &loc.key("configuration").key(key));
    }
    Some(chunks)
}

fn check_key_encoding(cx: &mut Ctx, v: &Value, loc: &[LocStep]) {
    let Some(named) = parse_named(cx, v, loc, "chunk key encoding") else {
        return;
    };
    let Some(spec) = key_encoding_spec(named.name) else {
        unknown_extension(cx, &named, v, loc, "chunk key encoding");
        return;
    };
    cx.run_handler(named.name, v, loc);
    let (problems, _) = spec.read(named.config);
    report(cx, loc, &problems);
}

fn check_dimension_names(cx: &mut Ctx, v: &Value, loc: &[LocStep], rank: Option<usize>) {
    if v.is_null() {
        return;
    }
    let Some(items) = expect_array(cx, v, loc, "'dimension_names'") else {
        return;
    };
    if let Some(rank) = rank {
        if items.len() != rank {
            cx.error(
                loc,
                ProblemKind::InvalidValue,
                format!(
                    "dimension_names has {} entries; the array has {rank} dimensions",
                    items.len()
                ),
            );
        }
    }
    let mut seen = crate::json::NameSet::default();
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::Null => {}
            Value::String(name) => {
                if !seen.insert(name.as_str()) {
                    cx.warn(
                        &loc.idx(i),
                        ProblemKind::InvalidValue,
                        format!("dimension name '{name}' is used twice"),
                    );
                }
            }
            other => cx.error(
                &loc.idx(i),
                ProblemKind::InvalidType,
                format!(
                    "dimension_names[{i}] must be a string or null, not {} {}",
                    tname(other),
                    show(other)
                ),
            ),
        }
    }
}

/// zarr-python's inline consolidated metadata on a group.
fn check_consolidated(cx: &mut Ctx, v: &Value, loc: &[LocStep]) {
    if v.is_null() {
        return;
    }
    let Some(obj) = expect_object(cx, v, loc, "'consolidated_metadata'") else {
        return;
    };
    let what = "'consolidated_metadata'";
    unknown_keys(cx, obj, loc, &["kind", "must_understand", "metadata"], what);
    if let Some(kind) = required(cx, obj, loc, "kind", what) {
        expect_one_of(
            cx,
            kind,
            &loc.key("kind"),
            "consolidated_metadata 'kind'",
            &["inline"],
        );
    }
    if let Some(mu) = required(cx, obj, loc, "must_understand", what) {
        let mloc = loc.key("must_understand");
        if expect_bool(cx, mu, &mloc, "consolidated_metadata 'must_understand'") == Some(true) {
            cx.error(
                &mloc,
                ProblemKind::InvalidValue,
                "consolidated_metadata 'must_understand' must be false",
            );
        }
    }
    let Some(meta) = required(cx, obj, loc, "metadata", what) else {
        return;
    };
    let mloc = loc.key("metadata");
    let Some(meta) = expect_object(cx, meta, &mloc, "consolidated_metadata 'metadata'") else {
        return;
    };
    if cx.depth >= MAX_NESTING {
        cx.error(
            &mloc,
            ProblemKind::InvalidValue,
            "consolidated metadata nests too deeply",
        );
        return;
    }
    for (key, doc) in meta {
        let kloc = mloc.key(key);
        if let Some(why) = relative_path_error(key) {
            cx.error(&kloc, ProblemKind::InvalidValue, why);
            continue;
        }
        let path = join_path(&cx.path, key);
        cx.depth = cx.depth.saturating_add(1);
        cx.at_path(path, |cx| check_zarr_json(cx, doc, &kloc, false));
        cx.depth = cx.depth.saturating_sub(1);
    }
}

/// Why a relative node path (`a/b`) is invalid.
pub(crate) fn relative_path_error(key: &str) -> Option<String> {
    if key.is_empty() {
        return Some("a node path must not be empty".into());
    }
    key.split('/')
        .find_map(node_name_error)
        .map(|why| format!("node path '{key}': {why}"))
}
