//! The v2 `dtype` encoding: NumPy typestrings (`<i4`, `|S7`, `<M8[10s]`) and structured lists
//! (`[["a", "<i4"], ["b", "<f8", [2, 3]]]`).

use super::element::check_struct_fields;
use super::fill::shorten;
use super::numeric;
use super::time::{check_scale_factor, unknown_unit};
use super::{
    BytesNaming, DataType, Endianness, ObjectFormat, StructField, StructNaming, TimeUnit,
    MAX_STRUCT_DEPTH,
};
use crate::json::type_name;
use serde_json::Value;

/// Reads a v2 `dtype`.
pub(super) fn from_v2(
    dtype: &Value,
    object_codec_id: Option<&str>,
) -> Result<(DataType, Endianness), String> {
    match dtype {
        Value::String(typestring) => parse_typestring(typestring, object_codec_id),
        Value::Array(list) => Ok((structured_from_v2(list, 0)?, Endianness::NotApplicable)),
        other => Err(format!(
            "dtype must be a typestring or a list of fields, got {}",
            type_name(other)
        )),
    }
}

/// numcodecs ids that give a `|O` array its meaning, as zarr-python 3 lists them.
const OBJECT_CODEC_IDS: &[&str] = &[
    "vlen-utf8",
    "vlen-bytes",
    "vlen-array",
    "pickle",
    "json2",
    "msgpack2",
];

/// Reads a v2 `dtype`, finding the object codec among `codecs` (filters, then compressor).
pub(super) fn from_v2_codecs(
    dtype: &Value,
    filters: &[Value],
    compressor: Option<&Value>,
) -> Result<(DataType, Endianness), String> {
    let mut categorize = false;
    let mut found = None;
    for codec in filters.iter().chain(compressor) {
        let Some(id) = codec.get("id").and_then(Value::as_str) else {
            continue;
        };
        if OBJECT_CODEC_IDS.contains(&id) {
            found = Some((id, codec));
            break;
        }
        categorize |= id == "categorize";
    }
    let is_object = matches!(dtype.as_str(), Some(s) if s.get(1..) == Some("O"));
    match found {
        Some(("vlen-array", codec)) if is_object => {
            let item = codec.get("dtype").unwrap_or(&Value::Null);
            Ok((vlen_array_item(item)?, Endianness::NotApplicable))
        }
        Some((id, _)) => from_v2(dtype, Some(id)),
        // zarr-python 2 let a categorize filter alone stand for the object codec.
        None if categorize => from_v2(dtype, Some("categorize")),
        None => from_v2(dtype, None),
    }
}

/// The [`DataType::VlenArray`] of a `vlen-array` codec's `dtype` (a numeric typestring).
fn vlen_array_item(item: &Value) -> Result<DataType, String> {
    let (item, _) = match item {
        Value::String(s) => parse_typestring(s, None)?,
        other => {
            return Err(format!(
                "the vlen-array codec's dtype must be a typestring, got {}",
                type_name(other)
            ))
        }
    };
    let numeric = item.numeric().is_some();
    if !numeric {
        return Err(
            "vlen-array items must be booleans, integers, floats or complex numbers".into(),
        );
    }
    Ok(DataType::VlenArray {
        item: Box::new(item),
    })
}

/// Reads a structured list; `depth` is how many structs enclose it.
fn structured_from_v2(list: &[Value], depth: usize) -> Result<DataType, String> {
    if depth >= MAX_STRUCT_DEPTH {
        return Err(format!(
            "structured dtype is nested more than {MAX_STRUCT_DEPTH} levels deep"
        ));
    }
    let mut fields = Vec::with_capacity(list.len().min(1024));
    for (index, entry) in list.iter().enumerate() {
        let parts = match entry {
            Value::Array(parts) => parts.as_slice(),
            _ => {
                return Err(format!(
                    "structured dtype: field {index} must be [name, dtype] or [name, dtype, shape]"
                ))
            }
        };
        let (name, type_json, shape_json) = match parts {
            [Value::String(name), t] => (name, t, None),
            [Value::String(name), t, shape] => (name, t, Some(shape)),
            _ => {
                return Err(format!(
                    "structured dtype: field {index} must be [name, dtype] or [name, dtype, shape]"
                ))
            }
        };
        let context = |e: String| format!("structured dtype: field '{}': {e}", shorten(name));
        let (data_type, endianness) = match type_json {
            // The object codec applies to whole elements, never to one field.
            Value::String(typestring) if typestring == "|O" => {
                return Err(context(
                    "a structured dtype cannot hold variable-length '|O' fields".into(),
                ))
            }
            Value::String(typestring) => parse_typestring(typestring, None).map_err(context)?,
            Value::Array(inner) => (
                structured_from_v2(inner, depth + 1).map_err(context)?,
                Endianness::NotApplicable,
            ),
            other => {
                return Err(context(format!(
                    "dtype must be a typestring or a list of fields, got {}",
                    type_name(other)
                )))
            }
        };
        let shape = match shape_json {
            None => Vec::new(),
            Some(Value::Array(dims)) => {
                let mut shape = Vec::with_capacity(dims.len());
                for d in dims {
                    shape.push(d.as_u64().ok_or_else(|| {
                        context("shape must be a list of non-negative integers".into())
                    })?);
                }
                shape
            }
            Some(_) => {
                return Err(context(
                    "shape must be a list of non-negative integers".into(),
                ))
            }
        };
        fields.push(StructField {
            name: name.clone(),
            data_type,
            shape,
            endianness,
        });
    }
    check_struct_fields("structured dtype", &fields)?;
    Ok(DataType::Struct {
        fields,
        naming: StructNaming::Structured,
    })
}

/// Reads a positive decimal length (`7` in `|S7`).
fn positive_length(digits: &str, typestring: &str) -> Result<u64, String> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(typestring));
    }
    match digits.parse::<u64>() {
        Ok(0) => Err(format!(
            "'{}': the length must be at least 1",
            shorten(typestring)
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "'{}': the length is too large",
            shorten(typestring)
        )),
    }
}

/// The error for a typestring zom cannot read.
fn invalid(typestring: &str) -> String {
    format!("'{}' is not a valid v2 dtype", shorten(typestring))
}

/// Reads one typestring.
fn parse_typestring(
    typestring: &str,
    object_codec_id: Option<&str>,
) -> Result<(DataType, Endianness), String> {
    let mut chars = typestring.chars();
    let order = match chars.next() {
        Some('<') | Some('=') => Endianness::Little,
        Some('>') => Endianness::Big,
        Some('|') => Endianness::NotApplicable,
        _ => {
            return Err(format!(
                "'{}' is not a valid v2 dtype: it must start with '<', '>', '|' or '='",
                shorten(typestring)
            ))
        }
    };
    let rest = chars.as_str();
    let data_type = if let Some(n) = numeric::by_typestring_body(rest) {
        n.data_type.clone()
    } else {
        match rest {
        "O" => match object_codec_id {
            Some("vlen-utf8") => DataType::String,
            Some("vlen-bytes") => DataType::Bytes(BytesNaming::VariableLengthBytes),
            // A categorize filter alone (zarr-python 2) decodes to strings.
            Some("categorize") => DataType::String,
            Some("json2") => DataType::Object(ObjectFormat::Json),
            Some("msgpack2") => DataType::Object(ObjectFormat::MsgPack),
            Some("vlen-array") => {
                return Err(
                    "dtype '|O' with object codec 'vlen-array' takes its item type from the codec's dtype (DataType::from_v2_codecs)"
                        .into(),
                )
            }
            Some(other) => {
                return Err(format!(
                    "dtype '|O' with object codec '{}' is not supported (zom reads vlen-utf8, vlen-bytes, vlen-array, json2, msgpack2 and categorize)",
                    shorten(other)
                ))
            }
            None => {
                return Err(
                    "dtype '|O' needs an object codec (vlen-utf8, vlen-bytes, vlen-array, json2 or msgpack2) in filters or compressor"
                        .into(),
                )
            }
        },
        _ => {
            if let Some(digits) = rest.strip_prefix('U') {
                let chars = positive_length(digits, typestring)?;
                let length_bytes = chars
                    .checked_mul(4)
                    .ok_or_else(|| format!("'{}': the length is too large", shorten(typestring)))?;
                DataType::FixedLengthUtf32 { length_bytes }
            } else if let Some(digits) = rest.strip_prefix('S') {
                DataType::NullTerminatedBytes {
                    length_bytes: positive_length(digits, typestring)?,
                }
            } else if let Some(digits) = rest.strip_prefix('V') {
                DataType::RawBytes {
                    length_bytes: positive_length(digits, typestring)?,
                    r_name: false,
                }
            } else if let Some(unit) = rest.strip_prefix("M8") {
                let (unit, scale_factor) = parse_time_unit(unit, typestring)?;
                DataType::DateTime64 { unit, scale_factor }
            } else if let Some(unit) = rest.strip_prefix("m8") {
                let (unit, scale_factor) = parse_time_unit(unit, typestring)?;
                DataType::TimeDelta64 { unit, scale_factor }
            } else {
                return Err(invalid(typestring));
            }
        }
    }
    };
    // NumPy writes `|` exactly for the types without a byte order, and `<`/`>` for the others.
    let needs_order = data_type.has_byte_order();
    match (order, needs_order) {
        (Endianness::NotApplicable, true) => Err(format!(
            "'{}' is not a valid v2 dtype: a multi-byte type needs '<' or '>'",
            shorten(typestring)
        )),
        (Endianness::Little | Endianness::Big, false) => Err(format!(
            "'{}' is not a valid v2 dtype: a single-byte or byte-string type takes '|'",
            shorten(typestring)
        )),
        _ => Ok((data_type, order)),
    }
}

/// Reads the `[10s]` of `<M8[10s]` (empty: the generic unit).
fn parse_time_unit(spec: &str, typestring: &str) -> Result<(TimeUnit, u64), String> {
    if spec.is_empty() {
        return Ok((TimeUnit::Generic, 1));
    }
    let inner = spec
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| invalid(typestring))?;
    let split = inner
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(inner.len());
    let (digits, unit) = inner.split_at(split);
    let scale_factor = if digits.is_empty() {
        1
    } else {
        let scale: u64 = digits
            .parse()
            .map_err(|_| format!("'{}': the scale factor is too large", shorten(typestring)))?;
        check_scale_factor(scale).map_err(|e| format!("'{}': {e}", shorten(typestring)))?
    };
    let unit = TimeUnit::parse(unit).ok_or_else(|| unknown_unit(unit))?;
    Ok((unit, scale_factor))
}

/// The byte-order character of a multi-byte type.
fn order_char(endianness: Endianness) -> char {
    match endianness {
        Endianness::Big => '>',
        Endianness::Little | Endianness::NotApplicable => '<',
    }
}

/// The v2 `dtype` of `data_type`; for a struct, `NotApplicable` keeps each field's own order.
pub(super) fn to_v2(data_type: &DataType, endianness: Endianness) -> Result<Value, String> {
    to_v2_inner(data_type, endianness, 0)
}

fn to_v2_inner(
    data_type: &DataType,
    endianness: Endianness,
    depth: usize,
) -> Result<Value, String> {
    if let DataType::Struct { fields, .. } = data_type {
        if depth >= MAX_STRUCT_DEPTH {
            return Err(format!(
                "struct types are nested more than {MAX_STRUCT_DEPTH} levels deep"
            ));
        }
        let mut list = Vec::with_capacity(fields.len());
        for field in fields {
            let order = match endianness {
                Endianness::NotApplicable => field.endianness,
                forced => forced,
            };
            let mut entry = vec![
                Value::String(field.name.clone()),
                to_v2_inner(&field.data_type, order, depth + 1)?,
            ];
            if !field.shape.is_empty() {
                entry.push(Value::Array(
                    field.shape.iter().map(|&d| Value::from(d)).collect(),
                ));
            }
            list.push(Value::Array(entry));
        }
        return Ok(Value::Array(list));
    }
    let o = order_char(endianness);
    let typestring = match data_type {
        DataType::String
        | DataType::Bytes(_)
        | DataType::VlenArray { .. }
        | DataType::Object(_) => "|O".to_string(),
        DataType::FixedLengthUtf32 { length_bytes } => {
            if length_bytes % 4 != 0 || *length_bytes == 0 {
                return Err(format!(
                    "fixed_length_utf32 with length_bytes {length_bytes} has no v2 dtype (it must be a positive multiple of 4)"
                ));
            }
            format!("{o}U{}", length_bytes / 4)
        }
        DataType::NullTerminatedBytes { length_bytes } => format!("|S{length_bytes}"),
        DataType::RawBytes { length_bytes, .. } => format!("|V{length_bytes}"),
        DataType::DateTime64 { unit, scale_factor } => {
            format!("{o}M8{}", time_suffix(*unit, *scale_factor)?)
        }
        DataType::TimeDelta64 { unit, scale_factor } => {
            format!("{o}m8{}", time_suffix(*unit, *scale_factor)?)
        }
        DataType::Struct { .. } => unreachable_struct()?,
        DataType::Registry(name) => {
            return Err(format!(
                "the data type '{name}' (zarr-extensions) has no Zarr v2 dtype"
            ))
        }
        numeric => {
            let n = numeric
                .numeric()
                .ok_or("internal error: a data type without a v2 typestring")?;
            let o = if n.has_byte_order() { o } else { '|' };
            format!("{o}{}", n.typestring_body())
        }
    };
    Ok(Value::String(typestring))
}

/// Structs are handled before the match; kept as an error rather than a panic.
fn unreachable_struct() -> Result<String, String> {
    Err("internal error: struct reached the typestring encoder".into())
}

/// `[10s]`, `[s]`, or nothing for the generic unit, as NumPy writes them.
fn time_suffix(unit: TimeUnit, scale_factor: u64) -> Result<String, String> {
    match (unit, scale_factor) {
        (TimeUnit::Generic, 1) => Ok(String::new()),
        (TimeUnit::Generic, _) => Err(format!(
            "the generic time unit with scale_factor {scale_factor} has no v2 dtype"
        )),
        (unit, 1) => Ok(format!("[{}]", unit.as_str())),
        (unit, scale) => Ok(format!("[{scale}{}]", unit.as_str())),
    }
}
