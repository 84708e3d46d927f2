//! Decoded elements in the JSON encoding tests/fixtures/generate.py writes expected values in.

use base64::Engine;
use serde_json::{json, Value};
use zom::codec::DecodedChunk;
use zom::dtype::DataType;

/// A float as generate.py writes it (NaN and infinities as strings).
pub fn enc_float(x: f64) -> Value {
    if x.is_nan() {
        json!("NaN")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(x)
    }
}

fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    b.try_into().unwrap()
}

/// One element (little-endian bytes) as generate.py's `enc` writes it.
pub fn encode(dt: &DataType, b: &[u8]) -> Value {
    let b64 = |x: &[u8]| json!(base64::engine::general_purpose::STANDARD.encode(x));
    match dt {
        DataType::Bool => json!(b[0] != 0),
        DataType::Int8 => json!(b[0] as i8),
        DataType::Int16 => json!(i16::from_le_bytes(le(b))),
        DataType::Int32 => json!(i32::from_le_bytes(le(b))),
        DataType::Int64 | DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => {
            json!(i64::from_le_bytes(le(b)))
        }
        DataType::UInt8 => json!(b[0]),
        DataType::UInt16 => json!(u16::from_le_bytes(le(b))),
        DataType::UInt32 => json!(u32::from_le_bytes(le(b))),
        DataType::UInt64 => json!(u64::from_le_bytes(le(b))),
        DataType::Float16 => enc_float(half::f16::from_le_bytes(le(b)).to_f64()),
        DataType::Float32 => enc_float(f32::from_le_bytes(le(b)) as f64),
        DataType::Float64 => enc_float(f64::from_le_bytes(le(b))),
        DataType::Complex64 => json!([
            enc_float(f32::from_le_bytes(le(&b[..4])) as f64),
            enc_float(f32::from_le_bytes(le(&b[4..])) as f64)
        ]),
        DataType::Complex128 => json!([
            enc_float(f64::from_le_bytes(le(&b[..8]))),
            enc_float(f64::from_le_bytes(le(&b[8..])))
        ]),
        DataType::FixedLengthUtf32 { .. } => {
            let text: String = b
                .chunks(4)
                .map(|c| u32::from_le_bytes(le(c)))
                .take_while(|&c| c != 0)
                .map(|c| char::from_u32(c).unwrap())
                .collect();
            json!(text)
        }
        DataType::NullTerminatedBytes { .. } | DataType::RawBytes { .. } => b64(b),
        DataType::Struct { fields, .. } => {
            let mut out = serde_json::Map::new();
            let mut at = 0usize;
            for field in fields {
                assert!(field.shape.is_empty(), "no subarray fields in the fixtures");
                let size = field.data_type.fixed_size().unwrap() as usize;
                out.insert(
                    field.name.clone(),
                    encode(&field.data_type, &b[at..at + size]),
                );
                at += size;
            }
            Value::Object(out)
        }
        // A registry type: its value as zom decodes it (the tests give the values the specs
        // define, so a wrong decoding fails them).
        DataType::Registry(_) => {
            let value = zom::dtype::FillValue::from_element_bytes(dt, b).expect("an element");
            let number = |v: &zom::dtype::FillValue| match v {
                zom::dtype::FillValue::Int(i) => json!(i),
                zom::dtype::FillValue::UInt(u) => json!(u),
                zom::dtype::FillValue::Float(x) => enc_float(*x),
                zom::dtype::FillValue::Bits(_) => json!("NaN"),
                other => panic!("{other:?}"),
            };
            match &value {
                zom::dtype::FillValue::Complex(re, im) => json!([number(re), number(im)]),
                v => number(v),
            }
        }
        other => panic!("no element bytes for {other:?}"),
    }
}

/// Every element of decoded values, encoded.
pub fn encode_all(dt: &DataType, data: &DecodedChunk) -> Vec<Value> {
    match data {
        DecodedChunk::Fixed(bytes) => {
            let size = dt.fixed_size().unwrap() as usize;
            bytes.chunks_exact(size).map(|e| encode(dt, e)).collect()
        }
        DecodedChunk::Strings(s) => s.iter().map(|s| json!(s)).collect(),
        DecodedChunk::Bytes(b) => b.iter().map(|b| encode_variable(dt, b)).collect(),
        DecodedChunk::Json(v) => v.clone(),
    }
}

/// One element of a `DecodedChunk::Bytes`: a vlen-array's items as a list of encoded items,
/// a byte string as base64.
pub fn encode_variable(dt: &DataType, b: &[u8]) -> Value {
    match dt {
        DataType::VlenArray { item } => {
            let size = item.fixed_size().unwrap() as usize;
            Value::Array(b.chunks_exact(size).map(|x| encode(item, x)).collect())
        }
        _ => json!(base64::engine::general_purpose::STANDARD.encode(b)),
    }
}
