//! v2 documents: `.zarray`, `.zgroup`, `.zattrs` and consolidated `.zmetadata`.

use super::codecs::report_at;
use super::util::{
    expect_object, expect_one_of, expect_str, expect_uint_list, join_path, required, show,
    unknown_keys, Ctx, LocExt, MAX_NESTING,
};
use super::v3::{check_shape, check_zarr_format, relative_path_error, warn_chunk_larger};
use super::{LocStep, ProblemKind};
use crate::codec::registry::{self, Stage};
use crate::dtype::{DataType, FillValue};
use crate::model::v2::ARRAY_KEYS;
use serde_json::{Map, Value};

/// Checks a `.zarray`. With `zom`, the ZOM form's `attributes` is allowed (and must be an
/// object) and `members` is left to the hierarchy check.
pub(crate) fn check_zarray(cx: &mut Ctx, doc: &Value, base: &[LocStep], zom: bool) {
    let Some(obj) = expect_object(cx, doc, base, ".zarray") else {
        return;
    };
    let what = ".zarray";
    check_zarr_format(cx, obj, base, 2, what);
    let shape =
        required(cx, obj, base, "shape", what).and_then(|v| check_shape(cx, v, &base.key("shape")));
    if let Some(v) = required(cx, obj, base, "chunks", what) {
        let cloc = base.key("chunks");
        if let Some(chunks) = expect_uint_list(cx, v, &cloc, "'chunks'", 1) {
            if let Some(shape) = &shape {
                if chunks.len() != shape.len() {
                    cx.error(
                        &cloc,
                        ProblemKind::InvalidValue,
                        format!(
                            "chunks has {} dimensions; shape {shape:?} has {}",
                            chunks.len(),
                            shape.len()
                        ),
                    );
                } else {
                    warn_chunk_larger(cx, &chunks, shape, &cloc);
                }
            }
        }
    }
    let mut object_codec: Option<&str> = None;
    if let Some(v) = required(cx, obj, base, "filters", what) {
        let floc = base.key("filters");
        match v {
            Value::Null => {}
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let id = check_numcodec(cx, item, &floc.idx(i), "filter");
                    if object_codec.is_none() {
                        object_codec = id.filter(|id| is_object_codec(id));
                    }
                }
            }
            other => cx.error(
                &floc,
                ProblemKind::InvalidType,
                format!(
                    "'filters' must be null or a list of codec objects, not {}",
                    show(other)
                ),
            ),
        }
    }
    if let Some(v) = required(cx, obj, base, "compressor", what) {
        if !v.is_null() {
            let id = check_numcodec(cx, v, &base.key("compressor"), "compressor");
            if object_codec.is_none() {
                object_codec = id.filter(|id| is_object_codec(id));
            }
        }
    }
    let dtype = required(cx, obj, base, "dtype", what)
        .and_then(|v| check_dtype(cx, v, &base.key("dtype"), object_codec));
    if let Some(v) = required(cx, obj, base, "fill_value", what) {
        if let Some((dtype, endianness)) = &dtype {
            match FillValue::from_v2(dtype, *endianness, v) {
                Err(why) => cx.error(
                    &base.key("fill_value"),
                    ProblemKind::InvalidValue,
                    format!("fill_value {} does not fit the dtype: {why}", show(v)),
                ),
                Ok(Some(FillValue::String(_) | FillValue::Bytes(_)))
                    if v.is_number() && matches!(dtype, DataType::String | DataType::Bytes(_)) =>
                {
                    cx.warn(
                        &base.key("fill_value"),
                        ProblemKind::InvalidValue,
                        format!(
                        "fill_value {} for an object array of strings (zarr-python 2's default): \
                         missing elements read as \"{}\"",
                        show(v),
                        show(v)
                    ),
                    )
                }
                Ok(_) => {}
            }
        }
    }
    if let Some(v) = required(cx, obj, base, "order", what) {
        expect_one_of(cx, v, &base.key("order"), "'order'", &["C", "F"]);
    }
    match obj.get("dimension_separator") {
        Some(v) => {
            expect_one_of(
                cx,
                v,
                &base.key("dimension_separator"),
                "'dimension_separator'",
                &[".", "/"],
            );
        }
        None => cx.warn(
            &base.key("dimension_separator"),
            ProblemKind::MissingKey,
            ".zarray has no 'dimension_separator' (readers assume \".\")",
        ),
    }
    check_zom_keys(cx, obj, base, ARRAY_KEYS, zom, what);
}

/// `attributes` (ZOM only) and unknown keys.
/// Unknown keys of a v2 document. The v2 spec says other keys SHOULD NOT be in `.zarray`
/// (readers SHOULD ignore them: a strict-mode warning) and MUST NOT be in `.zgroup` (an error).
fn check_zom_keys(
    cx: &mut Ctx,
    obj: &Map<String, Value>,
    base: &[LocStep],
    known: &[&str],
    zom: bool,
    what: &str,
) {
    let forbidden = what == ".zgroup";
    if zom {
        if let Some(v) = obj.get("attributes") {
            expect_object(cx, v, &base.key("attributes"), "'attributes'");
        }
    }
    for key in obj.keys() {
        let allowed =
            known.contains(&key.as_str()) || (zom && (key == "attributes" || key == "members"));
        if !allowed {
            let message = format!("'{key}' is not a key of {what}");
            if forbidden {
                cx.error(&base.key(key), ProblemKind::UnknownKey, message);
            } else {
                cx.warn(&base.key(key), ProblemKind::UnknownKey, message);
            }
        }
    }
}

/// Whether the numcodecs `id` gives a `|O` array its meaning.
fn is_object_codec(id: &str) -> bool {
    registry::numcodecs(id).is_some_and(|spec| spec.object)
}

/// The ids of the object codecs.
fn object_codecs() -> Vec<&'static str> {
    let specs = registry::all().iter();
    specs
        .filter(|s| s.numcodecs && s.object)
        .map(|s| s.name)
        .collect()
}

/// A numcodecs configuration object `{id, …}`; returns its id.
fn check_numcodec<'v>(
    cx: &mut Ctx,
    value: &'v Value,
    loc: &[LocStep],
    what: &str,
) -> Option<&'v str> {
    let obj = expect_object(cx, value, loc, &format!("a {what}"))?;
    let id = required(cx, obj, loc, "id", &format!("a {what}"))
        .and_then(|v| expect_str(cx, v, &loc.key("id"), &format!("{what} 'id'")))?;
    if id.is_empty() {
        cx.error(
            &loc.key("id"),
            ProblemKind::InvalidValue,
            format!("{what} 'id' is empty: it names no codec"),
        );
    } else if let Some(spec) = registry::numcodecs(id) {
        let (problems, _) = spec.read(id, Some(obj), &mut Stage::default());
        report_at(cx, loc, loc, &problems);
    } else if cx.run_handler(id, value, loc) {
        // A codec the caller implements (JS `registerCodec`).
    } else {
        cx.warn(
            &loc.key("id"),
            ProblemKind::InvalidValue,
            format!("numcodecs id '{id}' is not one zom knows; readers may not support it"),
        );
    }
    Some(id)
}

fn check_dtype(
    cx: &mut Ctx,
    v: &Value,
    loc: &[LocStep],
    object_codec: Option<&str>,
) -> Option<(DataType, crate::dtype::Endianness)> {
    let is_object = matches!(v.as_str(), Some("|O" | "O" | "<O" | ">O"));
    if is_object && object_codec.is_none() {
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            format!(
                "dtype {} needs an object codec among the filters (one of {})",
                show(v),
                object_codecs().join(", ")
            ),
        );
        return None;
    }
    match DataType::from_v2(v, object_codec) {
        Ok(found) => Some(found),
        // The item type is the codec's `dtype`, which its configuration check covers.
        Err(_) if is_object && object_codec == Some("vlen-array") => None,
        Err(why) if is_object => {
            cx.warn(
                loc,
                ProblemKind::InvalidValue,
                format!(
                    "dtype {} with object codec '{}' has no zom data type: {why}",
                    show(v),
                    object_codec.unwrap_or_default()
                ),
            );
            None
        }
        Err(why) => {
            cx.error(
                loc,
                ProblemKind::InvalidValue,
                format!("dtype {} is not valid: {why}", show(v)),
            );
            None
        }
    }
}

/// Checks a `.zgroup` (with `zom`: the ZOM group form with `attributes` and `members`).
pub(crate) fn check_zgroup(cx: &mut Ctx, doc: &Value, base: &[LocStep], zom: bool) {
    let Some(obj) = expect_object(cx, doc, base, ".zgroup") else {
        return;
    };
    check_zarr_format(cx, obj, base, 2, ".zgroup");
    if obj.contains_key("consolidated_metadata") {
        // zarr-python 3 writes this into the .zgroup copies inside .zmetadata.
        cx.warn(
            &base.key("consolidated_metadata"),
            ProblemKind::UnknownKey,
            "'consolidated_metadata' in a .zgroup is a zarr-python extension, not v2 metadata",
        );
    }
    check_zom_keys(
        cx,
        obj,
        base,
        &["zarr_format", "consolidated_metadata"],
        zom,
        ".zgroup",
    );
}

/// Checks a `.zattrs`: any JSON object.
pub(crate) fn check_zattrs(cx: &mut Ctx, doc: &Value, base: &[LocStep]) {
    expect_object(cx, doc, base, ".zattrs");
}

/// Checks a consolidated `.zmetadata` and every document in it.
pub(crate) fn check_zmetadata(cx: &mut Ctx, doc: &Value, base: &[LocStep]) {
    let Some(obj) = expect_object(cx, doc, base, ".zmetadata") else {
        return;
    };
    let what = ".zmetadata";
    unknown_keys(
        cx,
        obj,
        base,
        &["metadata", "zarr_consolidated_format"],
        what,
    );
    if let Some(v) = required(cx, obj, base, "zarr_consolidated_format", what) {
        if v.as_u64() != Some(1) {
            let kind = if v.is_i64() || v.is_u64() {
                ProblemKind::InvalidValue
            } else {
                ProblemKind::InvalidType
            };
            cx.error(
                &base.key("zarr_consolidated_format"),
                kind,
                format!("zarr_consolidated_format must be 1, not {}", show(v)),
            );
        }
    }
    let Some(meta) = required(cx, obj, base, "metadata", what) else {
        return;
    };
    let mloc = base.key("metadata");
    let Some(meta) = expect_object(cx, meta, &mloc, ".zmetadata 'metadata'") else {
        return;
    };
    if cx.depth >= MAX_NESTING {
        return;
    }
    let mut arrays: Vec<&str> = Vec::new();
    let mut groups = crate::json::NameSet::default();
    for (key, nested) in meta {
        let kloc = mloc.key(key);
        let (prefix, name) = match key.rsplit_once('/') {
            Some((prefix, name)) => (prefix, name),
            None => ("", key.as_str()),
        };
        if !matches!(name, ".zarray" | ".zgroup" | ".zattrs") {
            cx.error(
                &kloc,
                ProblemKind::InvalidValue,
                format!("key '{key}' does not end in .zarray, .zgroup or .zattrs"),
            );
            continue;
        }
        if !prefix.is_empty() {
            if let Some(why) = relative_path_error(prefix) {
                cx.error(&kloc, ProblemKind::InvalidValue, why);
                continue;
            }
        }
        match name {
            ".zarray" => arrays.push(prefix),
            ".zgroup" => {
                groups.insert(prefix);
            }
            _ => {}
        }
        let path = join_path(&cx.path, prefix);
        cx.depth = cx.depth.saturating_add(1);
        cx.at_path(path, |cx| match name {
            ".zarray" => check_zarray(cx, nested, &kloc, false),
            ".zgroup" => check_zgroup(cx, nested, &kloc, false),
            _ => check_zattrs(cx, nested, &kloc),
        });
        cx.depth = cx.depth.saturating_sub(1);
    }
    for prefix in arrays.iter().filter(|p| groups.contains(p)) {
        let key = if prefix.is_empty() {
            ".zgroup".to_string()
        } else {
            format!("{prefix}/.zgroup")
        };
        let path = join_path(&cx.path, prefix);
        cx.at_path(path, |cx| {
            cx.error(
                &mloc.key(&key),
                ProblemKind::InvalidValue,
                format!("node '{prefix}' has both a .zarray and a .zgroup"),
            );
        });
    }
}
