//! Encoding [`FillValue`]s as `fill_value` JSON, the way zarr-python writes it.

use super::element::{from_element_bytes, swap_element, to_element_bytes};
use super::fill::{float_json, float_type, object, Version};
use super::{BytesNaming, DataType, Endianness, FillValue, StructNaming};
use serde_json::Value;

/// The v3 `fill_value` of `value`.
pub(super) fn to_v3(value: &FillValue, data_type: &DataType) -> Value {
    encode(value, data_type, Version::V3, Endianness::NotApplicable)
}

/// The v2 `fill_value` of `value`; `endianness` is the one given to [`DataType::to_v2`].
pub(super) fn to_v2(value: &FillValue, data_type: &DataType, endianness: Endianness) -> Value {
    encode(value, data_type, Version::V2, endianness)
}

fn base64(bytes: &[u8]) -> Value {
    Value::String(super::base64::encode(bytes))
}

fn encode(value: &FillValue, data_type: &DataType, version: Version, order: Endianness) -> Value {
    let float = float_type(data_type);
    let width = float.map(|n| n.size as usize / n.components());
    match value {
        FillValue::Bool(b) => Value::Bool(*b),
        // Integers given for a float type are written as floats, as zarr-python does.
        FillValue::Int(i) if width.is_some() => float_json(*i as f64),
        FillValue::UInt(u) if width.is_some() => float_json(*u as f64),
        FillValue::Int(i) => Value::from(*i),
        FillValue::UInt(u) => Value::from(*u),
        FillValue::Float(x) => float_json(*x),
        FillValue::Bits(bits) => {
            let width = width.unwrap_or(8);
            let digits = width * 2;
            let mask = u64::MAX >> (64 - 8 * width.clamp(1, 8));
            match version {
                Version::V3 => Value::String(format!("0x{:0digits$x}", bits & mask)),
                // v2 has no hex floats: write the value the bits stand for.
                Version::V2 => float_json(bits_to_f64(*bits, float.and_then(|n| n.float_format()))),
            }
        }
        FillValue::Complex(re, im) => Value::Array(vec![
            encode(re, data_type, version, order),
            encode(im, data_type, version, order),
        ]),
        FillValue::String(s) => Value::String(s.clone()),
        FillValue::Bytes(bytes) => match (data_type, version) {
            (DataType::Bytes(BytesNaming::Bytes), Version::V3)
            | (DataType::RawBytes { r_name: true, .. }, Version::V3) => {
                Value::Array(bytes.iter().map(|&b| Value::from(b)).collect())
            }
            (DataType::Struct { .. }, _) => {
                // The bytes are in the order of the struct's fields; v3 is little-endian, v2
                // is in `order` (or the fields' own order when NotApplicable).
                let mut out = bytes.clone();
                let converted = swap_element(data_type, Endianness::NotApplicable, None, &mut out)
                    .and_then(|()| match (version, order) {
                        (Version::V2, Endianness::NotApplicable) => {
                            swap_element(data_type, order, None, &mut out)
                        }
                        (Version::V2, forced) => {
                            swap_element(data_type, forced, Some(forced), &mut out)
                        }
                        (Version::V3, _) => Some(()),
                    });
                match (converted, data_type, version) {
                    // zarr-extensions' `struct` only has the object form.
                    (
                        Some(()),
                        DataType::Struct {
                            naming: StructNaming::Struct,
                            ..
                        },
                        Version::V3,
                    ) => match from_element_bytes(data_type, &out) {
                        Some(decoded) => encode(&decoded, data_type, version, order),
                        None => base64(&out),
                    },
                    (Some(()), _, _) => base64(&out),
                    (None, _, _) => base64(bytes),
                }
            }
            _ => base64(bytes),
        },
        FillValue::Struct(values) => match (data_type, version) {
            (DataType::Struct { .. }, Version::V2) => {
                let mut bytes = match to_element_bytes(value, data_type) {
                    Some(bytes) => bytes,
                    None => return Value::Null,
                };
                let converted = match order {
                    Endianness::NotApplicable => swap_element(data_type, order, None, &mut bytes),
                    forced => swap_element(data_type, forced, Some(forced), &mut bytes),
                };
                match converted {
                    Some(()) => base64(&bytes),
                    None => Value::Null,
                }
            }
            (DataType::Struct { fields, .. }, Version::V3) => object(
                values
                    .iter()
                    .enumerate()
                    .map(|(index, (name, v))| {
                        let field = match fields.get(index) {
                            Some(f) if &f.name == name => Some(f),
                            _ => fields.iter().find(|f| &f.name == name),
                        };
                        let encoded = match field {
                            Some(field) => encode(v, &field.data_type, version, order),
                            None => encode_untyped(v),
                        };
                        (name.clone(), encoded)
                    })
                    .collect(),
            ),
            _ => object(
                values
                    .iter()
                    .map(|(name, v)| (name.clone(), encode_untyped(v)))
                    .collect(),
            ),
        },
    }
}

/// A value whose type is unknown (a struct field missing from the type): encoded by its kind.
fn encode_untyped(value: &FillValue) -> Value {
    encode(
        value,
        &DataType::Float64,
        Version::V3,
        Endianness::NotApplicable,
    )
}

/// The float that `bits` stand for in `format` (binary64 when unknown).
fn bits_to_f64(bits: u64, format: Option<&super::FloatFormat>) -> f64 {
    match format {
        Some(f) if f.bits() == 32 => f64::from(f32::from_bits(bits as u32)),
        Some(f) if f.bits() < 32 => f.to_f64(bits),
        _ => f64::from_bits(bits),
    }
}
