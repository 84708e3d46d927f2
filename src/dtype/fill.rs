//! Decoding `fill_value` JSON (v3 and v2) into [`FillValue`]s.

use super::{BytesNaming, DataType, Endianness, FillValue, Numeric, NumericKind, StructNaming};
use crate::json::type_name;
use serde_json::{Map, Number, Value};

pub(super) use super::fill_encode::{to_v2, to_v3};

/// Which metadata version a fill value comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Version {
    /// `zarr.json`: strict numbers, hex floats, byte arrays for `bytes` and `r<bits>`.
    V3,
    /// `.zarray`: base64 for every byte type, integers may be written as `1.0`.
    V2,
}

/// `s` cut to 40 characters for error messages (input can be huge).
pub(super) fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or(s)),
        None => s.to_string(),
    }
}

/// A value as it appears in an error message, cut short.
fn show(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{}\"", shorten(s)),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        other => type_name(other).into(),
    }
}

/// The name of a type in messages (its v3 name).
pub(super) fn label(data_type: &DataType) -> String {
    match data_type {
        // Without building the whole configuration of every nested field.
        DataType::Struct {
            naming: StructNaming::Struct,
            ..
        } => "struct".into(),
        DataType::Struct { .. } => "structured".into(),
        other => other.to_v3().name,
    }
}

/// Decodes a v3 `fill_value`.
pub(super) fn from_v3(data_type: &DataType, value: &Value) -> Result<FillValue, String> {
    decode(data_type, value, Version::V3)
}

/// Decodes a v2 `fill_value`; `null` is no fill value.
pub(super) fn from_v2(
    data_type: &DataType,
    _endianness: Endianness,
    value: &Value,
) -> Result<Option<FillValue>, String> {
    if value.is_null() {
        return Ok(None);
    }
    decode(data_type, value, Version::V2).map(Some)
}

/// The entry of a float or complex type (its float format, each part's for a complex).
pub(super) fn float_type(data_type: &DataType) -> Option<&'static Numeric> {
    data_type.numeric().filter(|n| n.float_format().is_some())
}

/// The range of an integer type (datetime64 and timedelta64 count as int64), and whether it
/// is signed.
fn int_bounds(data_type: &DataType) -> Option<(i128, i128, bool)> {
    match data_type {
        DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => {
            Some((i64::MIN.into(), i64::MAX.into(), true))
        }
        other => other.numeric()?.int_bounds(),
    }
}

/// A fill value of a type held as a number (`kind`): a bool, an integer, a float or a complex.
fn number(
    kind: NumericKind,
    data_type: &DataType,
    name: &str,
    value: &Value,
    version: Version,
) -> Result<FillValue, String> {
    match kind {
        NumericKind::Bool => match (value, version) {
            (Value::Bool(b), _) => Ok(FillValue::Bool(*b)),
            // zarr-python reads 0 and 1 as booleans in v2 metadata.
            (Value::Number(n), Version::V2) if n.as_u64() == Some(0) => Ok(FillValue::Bool(false)),
            (Value::Number(n), Version::V2) if n.as_u64() == Some(1) => Ok(FillValue::Bool(true)),
            _ => Err(format!(
                "fill_value for bool must be true or false, got {}",
                show(value)
            )),
        },
        NumericKind::Signed | NumericKind::Unsigned => integer(data_type, name, value, version),
        NumericKind::Float => float(float_type(data_type), name, value, version),
        NumericKind::Complex => {
            let numeric = float_type(data_type);
            match value {
                Value::Array(parts) => match parts.as_slice() {
                    [re, im] => Ok(FillValue::Complex(
                        Box::new(float(numeric, name, re, version)?),
                        Box::new(float(numeric, name, im, version)?),
                    )),
                    _ => Err(format!(
                        "fill_value for {name} must be [real, imaginary], got an array of {} items",
                        parts.len()
                    )),
                },
                _ => Err(format!(
                    "fill_value for {name} must be [real, imaginary], got {}",
                    show(value)
                )),
            }
        }
    }
}

fn decode(data_type: &DataType, value: &Value, version: Version) -> Result<FillValue, String> {
    let name = label(data_type);
    match data_type {
        DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. }
            if matches!(value, Value::String(s) if s == "NaT") =>
        {
            Ok(FillValue::Int(i64::MIN))
        }
        // zarr-python 2 wrote a number (its default 0) for object arrays; a missing element
        // of a vlen-array reads as an empty array whatever it says, so it is not kept.
        DataType::VlenArray { .. } if value.is_number() => Ok(FillValue::Int(0)),
        // Any JSON value fills an object array, as zarr-python 2 gives it: kept as its text.
        DataType::Object(_) => Ok(FillValue::String(crate::json::to_compact(value))),
        DataType::VlenArray { .. } => {
            Err("fill_value for a numcodecs vlen-array must be null or a number".into())
        }
        // zarr-python 2 writes its default 0 for object (`|O`) arrays of strings and bytes;
        // zarr-python 2 (`dtype=str`) and 3 read a missing element of such a string array as
        // "0": the number's text, for byte strings too (zarr-python 2 gives the integer, which
        // a byte string cannot hold; zarr-python 3 refuses). See docs/js-api.md's data types.
        DataType::String | DataType::Bytes(_) if version == Version::V2 && value.is_number() => {
            let text = crate::json::to_compact(value);
            Ok(match data_type {
                DataType::String => FillValue::String(text),
                _ => FillValue::Bytes(text.into_bytes()),
            })
        }
        DataType::String => match value {
            Value::String(s) => Ok(FillValue::String(s.clone())),
            _ => Err(format!(
                "fill_value for string must be a string, got {}",
                show(value)
            )),
        },
        DataType::FixedLengthUtf32 { length_bytes } => match value {
            Value::String(s) => {
                let max = length_bytes / 4;
                let count = s.chars().count() as u64;
                if count > max {
                    return Err(format!(
                        "fill_value \"{}\" has {count} characters, more than the {max} of fixed_length_utf32 with length_bytes {length_bytes}",
                        shorten(s)
                    ));
                }
                Ok(FillValue::String(s.clone()))
            }
            _ => Err(format!(
                "fill_value for fixed_length_utf32 must be a string, got {}",
                show(value)
            )),
        },
        DataType::Bytes(BytesNaming::Bytes) if version == Version::V3 => {
            byte_array(&name, value, None).map(FillValue::Bytes)
        }
        DataType::RawBytes {
            length_bytes,
            r_name: true,
        } if version == Version::V3 => {
            byte_array(&name, value, Some(*length_bytes)).map(FillValue::Bytes)
        }
        DataType::Bytes(_) => base64(&name, value).map(FillValue::Bytes),
        DataType::NullTerminatedBytes { length_bytes }
        | DataType::RawBytes { length_bytes, .. } => {
            let bytes = base64(&name, value)?;
            if bytes.len() as u64 > *length_bytes {
                return Err(format!(
                    "fill_value decodes to {} bytes, more than the {length_bytes} of {name}",
                    bytes.len()
                ));
            }
            Ok(FillValue::Bytes(bytes))
        }
        DataType::Struct { fields, naming } => match (value, version, naming) {
            (Value::String(_), Version::V2, _) | (Value::String(_), _, StructNaming::Structured) => {
                let size = data_type.fixed_size();
                let bytes = base64(&name, value)?;
                if size != Some(bytes.len() as u64) {
                    return Err(format!(
                        "fill_value decodes to {} bytes, but one {name} element is {} bytes",
                        bytes.len(),
                        size.unwrap_or(0)
                    ));
                }
                Ok(FillValue::Bytes(bytes))
            }
            (Value::Object(object), Version::V3, _) => {
                let mut values = Vec::with_capacity(fields.len());
                for field in fields {
                    let v = object.get(&field.name).ok_or_else(|| {
                        format!(
                            "fill_value is missing field '{}' of the {name} data type",
                            shorten(&field.name)
                        )
                    })?;
                    let decoded = decode(&field.data_type, v, version)
                        .map_err(|e| format!("field '{}': {e}", shorten(&field.name)))?;
                    values.push((field.name.clone(), decoded));
                }
                // Every field is present, so more keys means one the type does not have.
                if object.len() > fields.len() {
                    let mut known = crate::json::NameSet::default();
                    for field in fields {
                        known.insert(&field.name);
                    }
                    if let Some(key) = object.keys().find(|k| !known.contains(k.as_str())) {
                        return Err(format!(
                            "fill_value has a field '{}' that the {name} data type does not have",
                            shorten(key)
                        ));
                    }
                }
                Ok(FillValue::Struct(values))
            }
            (_, Version::V2, _) => Err(format!(
                "fill_value for a structured dtype must be a base64 string, got {}",
                show(value)
            )),
            (_, _, StructNaming::Structured) => Err(format!(
                "fill_value for structured must be an object mapping each field to its value (or a base64 string), got {}",
                show(value)
            )),
            (_, _, StructNaming::Struct) => Err(format!(
                "fill_value for struct must be an object mapping each field to its value, got {}",
                show(value)
            )),
        },
        numeric => match numeric.number_kind() {
            Some(kind) => number(kind, data_type, &name, value, version),
            None => Err(format!("fill_value for {name} cannot be read")),
        },
    }
}

/// An integer fill value within the range of `data_type`.
fn integer(
    data_type: &DataType,
    name: &str,
    value: &Value,
    version: Version,
) -> Result<FillValue, String> {
    let (min, max, signed) = int_bounds(data_type).unwrap_or((0, 0, false));
    let n = match value {
        Value::Number(n) => n,
        _ => {
            return Err(format!(
                "fill_value for {name} must be an integer, got {}",
                show(value)
            ))
        }
    };
    let v: i128 = if let Some(i) = n.as_i64() {
        i.into()
    } else if let Some(u) = n.as_u64() {
        u.into()
    } else {
        let x = n.as_f64().unwrap_or(f64::NAN);
        let integral = x.is_finite() && x.fract() == 0.0;
        if integral && x.abs() >= 18_446_744_073_709_551_616.0 {
            return Err(format!("{n} is out of range for {name}"));
        }
        if !integral || version == Version::V3 {
            return Err(format!("fill_value for {name} must be an integer, got {n}"));
        }
        // v2: zarr-python accepts integers written as floats (`1.0`).
        x as i128
    };
    if v < min || v > max {
        return Err(format!("{n} is out of range for {name}"));
    }
    Ok(if signed {
        FillValue::Int(v as i64)
    } else {
        FillValue::UInt(v as u64)
    })
}

/// A float fill value for floats of `numeric`'s format (binary64 when unknown).
fn float(
    numeric: Option<&Numeric>,
    name: &str,
    value: &Value,
    version: Version,
) -> Result<FillValue, String> {
    let format = numeric.and_then(Numeric::float_format);
    let width = numeric.map_or(8, |n| n.size as usize / n.components());
    // The v3 spec rounds a number to the nearest representable value, so one beyond
    // float16/float32's range reads as ±infinity, as zarr-python reads it; a format without
    // infinity or NaN cannot hold what it lacks.
    let held = |x: f64| -> Result<FillValue, String> {
        match format {
            Some(f) if f.bits() < 32 && f.from_f64(x).is_none() => Err(format!(
                "fill_value {} is not a value of {name}",
                show(value)
            )),
            _ => Ok(FillValue::Float(x)),
        }
    };
    match value {
        Value::Number(n) => held(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => match s.as_str() {
            "NaN" => held(f64::NAN),
            "Infinity" => held(f64::INFINITY),
            "-Infinity" => held(f64::NEG_INFINITY),
            _ => match (s.strip_prefix("0x"), version) {
                (Some(hex), Version::V3) => {
                    let digits = width * 2;
                    if hex.len() != digits || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(format!(
                            "fill_value \"{}\" is not a valid hex float for {name}: expected 0x followed by exactly {digits} hex digits",
                            shorten(s)
                        ));
                    }
                    u64::from_str_radix(hex, 16)
                        .map(FillValue::Bits)
                        .map_err(|e| format!("fill_value \"{}\": {e}", shorten(s)))
                }
                (_, Version::V3) => Err(format!(
                    "fill_value \"{}\" is not valid for {name}: expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or a 0x hex string",
                    shorten(s)
                )),
                (_, Version::V2) => Err(format!(
                    "fill_value \"{}\" is not valid for {name}: expected a number, \"NaN\", \"Infinity\" or \"-Infinity\"",
                    shorten(s)
                )),
            },
        },
        _ => Err(format!(
            "fill_value for {name} must be a number or \"NaN\", \"Infinity\", \"-Infinity\", got {}",
            show(value)
        )),
    }
}

/// Bytes given as a base64 string.
fn base64(name: &str, value: &Value) -> Result<Vec<u8>, String> {
    match value {
        Value::String(s) => super::base64::decode(s).map_err(|e| {
            format!(
                "fill_value \"{}\" for {name} is not valid base64: {e}",
                shorten(s)
            )
        }),
        _ => Err(format!(
            "fill_value for {name} must be a base64 string, got {}",
            show(value)
        )),
    }
}

/// Bytes given as an array of integers 0..=255, of exactly `exact` items when given.
fn byte_array(name: &str, value: &Value, exact: Option<u64>) -> Result<Vec<u8>, String> {
    let items = match value {
        Value::Array(items) => items,
        _ => {
            return Err(format!(
                "fill_value for {name} must be an array of byte values (0-255), got {}",
                show(value)
            ))
        }
    };
    if let Some(n) = exact {
        if items.len() as u64 != n {
            return Err(format!(
                "fill_value for {name} must have exactly {n} byte values, got {}",
                items.len()
            ));
        }
    }
    let mut bytes = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_u64().and_then(|b| u8::try_from(b).ok()) {
            Some(b) => bytes.push(b),
            None => {
                return Err(format!(
                    "fill_value for {name}: item {i} ({}) is not a byte value 0-255",
                    show(item)
                ))
            }
        }
    }
    Ok(bytes)
}

/// A float as zarr-python writes it: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
pub(super) fn float_json(x: f64) -> Value {
    if x.is_nan() {
        Value::String("NaN".into())
    } else if x.is_infinite() {
        Value::String(if x > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// An object from entries (keeps their order).
pub(super) fn object(entries: Vec<(String, Value)>) -> Value {
    Value::Object(entries.into_iter().collect::<Map<String, Value>>())
}
