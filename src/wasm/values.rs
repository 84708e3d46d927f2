//! Decoded chunks as JS values (docs/js-api.md's "Values by data type"): element bytes for numeric types, which
//! the TypeScript side views as the matching TypedArray, JS values for strings, byte strings
//! and structs, and one element-bytes buffer per element for vlen-array (viewed likewise).

use super::convert::set_own;
use crate::codec::DecodedChunk;
use crate::dtype::{DataType, MAX_STRUCT_DEPTH};
use crate::error::{ErrorCode, Result, ZomError};
use crate::hierarchy::ChunkValues;
use js_sys::{Array, BigInt, Object, Uint8Array};
use wasm_bindgen::JsValue;

/// The `kind` the TypeScript side turns element bytes into a TypedArray with, for types whose
/// element bytes are that TypedArray's as they are (a widened type's are converted here
/// first: see [`chunk_to_js`]).
pub(super) fn numeric_kind(data_type: &DataType) -> Option<&'static str> {
    match data_type {
        DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => Some("int64"),
        other => other
            .numeric()
            .map(|n| n.js_view())
            .filter(|view| !view.widened)
            .map(|view| view.kind),
    }
}

fn shape_to_js(shape: &[u64]) -> Array {
    let out = Array::new();
    for &n in shape {
        out.push(&JsValue::from_f64(n as f64));
    }
    out
}

/// `{shape, kind, bytes}` for numeric data, `{shape, kind: "values", values}` otherwise.
/// Numeric values of `target`'s exact length are copied straight from WebAssembly memory into
/// `target` (one copy, no new buffer), which becomes `bytes`. With `stored_bits`, a widened
/// type's bytes as stored, viewed as unsigned integers of its (part's) size.
pub fn chunk_to_js(
    data_type: &DataType,
    chunk: ChunkValues,
    target: Option<&Uint8Array>,
    stored_bits: bool,
) -> Result<JsValue> {
    let out = Object::new();
    set_own(&out, "shape", &shape_to_js(&chunk.shape));
    match (chunk.data, numeric_kind(data_type)) {
        (DecodedChunk::Fixed(bytes), Some(kind)) => {
            set_own(&out, "kind", &JsValue::from_str(kind));
            let fits = |t: &&Uint8Array| usize::try_from(t.length()).ok() == Some(bytes.len());
            let view = match target.filter(fits) {
                Some(t) => {
                    t.copy_from(&bytes);
                    t.clone()
                }
                None => Uint8Array::from(bytes.as_slice()),
            };
            set_own(&out, "bytes", &view);
        }
        (DecodedChunk::Fixed(bytes), None) if data_type.numeric().is_some() => {
            // A registry type no TypedArray holds: widened (int4 to Int8Array, the small
            // floats to Float32Array…).
            let numeric = data_type.numeric();
            let widened = match numeric {
                Some(n) if stored_bits => {
                    let kind = if n.size / n.components() as u64 == 2 {
                        "uint16"
                    } else {
                        "uint8"
                    };
                    Some((kind, bytes))
                }
                Some(n) => n.widen(&bytes).map(|b| (n.js_view().kind, b)),
                None => None,
            };
            let (kind, bytes) = widened.ok_or_else(|| {
                ZomError::new(ErrorCode::CodecError, "no JS view of this data type")
            })?;
            set_own(&out, "kind", &JsValue::from_str(kind));
            set_own(&out, "bytes", &Uint8Array::from(bytes.as_slice()));
        }
        (DecodedChunk::Fixed(bytes), None) => {
            let size = data_type
                .fixed_size()
                .and_then(|s| usize::try_from(s).ok())
                .filter(|&s| s > 0)
                .ok_or_else(|| ZomError::new(ErrorCode::CodecError, "element size is zero"))?;
            let values = Array::new();
            for element in bytes.chunks_exact(size) {
                values.push(&element_to_js(data_type, element, 0)?);
            }
            set_own(&out, "kind", &JsValue::from_str("values"));
            set_own(&out, "values", &values);
        }
        (DecodedChunk::Strings(strings), _) => {
            let values = Array::new();
            for s in strings {
                values.push(&JsValue::from_str(&s));
            }
            set_own(&out, "kind", &JsValue::from_str("values"));
            set_own(&out, "values", &values);
        }
        (DecodedChunk::Json(items), _) => {
            let values = Array::new();
            for item in &items {
                values.push(&super::convert::to_js(item));
            }
            set_own(&out, "kind", &JsValue::from_str("values"));
            set_own(&out, "values", &values);
        }
        (DecodedChunk::Bytes(items), _) => {
            let values = Array::new();
            for b in items {
                values.push(&Uint8Array::from(b.as_slice()));
            }
            // vlen-array elements: each one's element bytes, viewed as `item` on the TS side.
            let item = match data_type {
                DataType::VlenArray { item } => numeric_kind(item),
                _ => None,
            };
            match item {
                Some(kind) => {
                    set_own(&out, "kind", &JsValue::from_str("arrays"));
                    set_own(&out, "item", &JsValue::from_str(kind));
                }
                None => set_own(&out, "kind", &JsValue::from_str("values")),
            }
            set_own(&out, "values", &values);
        }
    }
    Ok(out.into())
}

fn take<const N: usize>(bytes: &[u8]) -> Result<[u8; N]> {
    bytes
        .get(..N)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| ZomError::new(ErrorCode::CodecError, "element shorter than its type"))
}

/// One element of a fixed-size type as a JS value (struct fields, utf32 strings, byte strings).
fn element_to_js(data_type: &DataType, b: &[u8], depth: usize) -> Result<JsValue> {
    Ok(match data_type {
        DataType::Bool => JsValue::from_bool(take::<1>(b)?[0] != 0),
        DataType::Int8 => JsValue::from_f64(i8::from_le_bytes(take(b)?) as f64),
        DataType::Int16 => JsValue::from_f64(i16::from_le_bytes(take(b)?) as f64),
        DataType::Int32 => JsValue::from_f64(i32::from_le_bytes(take(b)?) as f64),
        DataType::UInt8 => JsValue::from_f64(u8::from_le_bytes(take(b)?) as f64),
        DataType::UInt16 => JsValue::from_f64(u16::from_le_bytes(take(b)?) as f64),
        DataType::UInt32 => JsValue::from_f64(u32::from_le_bytes(take(b)?) as f64),
        // 64-bit integers are always BigInt, as in BigInt64Array.
        DataType::Int64 | DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => {
            BigInt::from(i64::from_le_bytes(take(b)?)).into()
        }
        DataType::UInt64 => BigInt::from(u64::from_le_bytes(take(b)?)).into(),
        DataType::Float16 => JsValue::from_f64(half::f16::from_le_bytes(take(b)?).to_f64()),
        DataType::Float32 => JsValue::from_f64(f32::from_le_bytes(take(b)?) as f64),
        DataType::Float64 => JsValue::from_f64(f64::from_le_bytes(take(b)?)),
        DataType::Complex64 | DataType::Complex128 => {
            let half_len = b.len() / 2;
            let part = if matches!(data_type, DataType::Complex64) {
                DataType::Float32
            } else {
                DataType::Float64
            };
            Array::of2(
                &element_to_js(&part, b.get(..half_len).unwrap_or_default(), depth)?,
                &element_to_js(&part, b.get(half_len..).unwrap_or_default(), depth)?,
            )
            .into()
        }
        DataType::FixedLengthUtf32 { .. } => {
            let text: String = b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .take_while(|&c| c != 0)
                .map(|c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            JsValue::from_str(&text)
        }
        DataType::NullTerminatedBytes { .. } => {
            // As NumPy reads `S` values: trailing NULs are padding.
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            Uint8Array::from(b.get(..end).unwrap_or_default()).into()
        }
        DataType::RawBytes { .. } => Uint8Array::from(b).into(),
        DataType::Struct { fields, .. } => {
            if depth >= MAX_STRUCT_DEPTH {
                return Err(ZomError::new(
                    ErrorCode::CodecError,
                    "struct nested too deep",
                ));
            }
            let object = Object::new();
            let mut at = 0usize;
            for field in fields {
                let size = field
                    .data_type
                    .fixed_size()
                    .and_then(|s| usize::try_from(s).ok())
                    .unwrap_or(0);
                let count = field
                    .shape
                    .iter()
                    .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
                    .unwrap_or(0);
                let total = size.saturating_mul(count);
                let end = at.saturating_add(total);
                let bytes = b.get(at..end).ok_or_else(|| {
                    ZomError::new(
                        ErrorCode::CodecError,
                        "struct element shorter than its fields",
                    )
                })?;
                let value = if field.shape.is_empty() {
                    element_to_js(&field.data_type, bytes, depth + 1)?
                } else {
                    let items = Array::new();
                    for item in bytes.chunks_exact(size.max(1)) {
                        items.push(&element_to_js(&field.data_type, item, depth + 1)?);
                    }
                    items.into()
                };
                set_own(&object, &field.name, &value);
                at = end;
            }
            object.into()
        }
        DataType::Registry(_) => {
            let value = crate::dtype::FillValue::from_element_bytes(data_type, b);
            let number = |v: &crate::dtype::FillValue| match v {
                crate::dtype::FillValue::Int(i) => JsValue::from_f64(*i as f64),
                crate::dtype::FillValue::UInt(u) => JsValue::from_f64(*u as f64),
                crate::dtype::FillValue::Float(x) => JsValue::from_f64(*x),
                _ => JsValue::from_f64(f64::NAN),
            };
            match value {
                Some(crate::dtype::FillValue::Complex(re, im)) => {
                    Array::of2(&number(&re), &number(&im)).into()
                }
                Some(v) => number(&v),
                None => JsValue::from_f64(f64::NAN),
            }
        }
        DataType::String
        | DataType::Bytes(_)
        | DataType::VlenArray { .. }
        | DataType::Object(_) => {
            return Err(ZomError::new(
                ErrorCode::CodecError,
                "variable-length values have no element bytes",
            ))
        }
    })
}
