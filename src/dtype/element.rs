//! Element sizes, byte orders and the binary form of one element (what a fill value looks
//! like inside a chunk).

use super::fill::shorten;
use super::{DataType, Endianness, FillValue, NumericKind, StructField, MAX_ELEMENT_BYTES};

/// Bytes per element, or `None` for variable-length types (and sizes that overflow `u64`,
/// which the parsers refuse).
pub(super) fn fixed_size(data_type: &DataType) -> Option<u64> {
    match data_type {
        DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => Some(8),
        DataType::String
        | DataType::Bytes(_)
        | DataType::VlenArray { .. }
        | DataType::Object(_) => None,
        DataType::FixedLengthUtf32 { length_bytes }
        | DataType::NullTerminatedBytes { length_bytes }
        | DataType::RawBytes { length_bytes, .. } => Some(*length_bytes),
        DataType::Struct { fields, .. } => fixed_size_of_fields(fields),
        numeric => numeric.numeric().map(|n| n.size),
    }
}

/// Bytes of one field: its type's size times its subarray's element count.
fn field_size(field: &StructField) -> Option<u64> {
    field
        .shape
        .iter()
        .try_fold(fixed_size(&field.data_type)?, |acc, &d| acc.checked_mul(d))
}

/// The element count of a field's subarray (1 for a scalar field).
fn field_count(field: &StructField) -> Option<u64> {
    field
        .shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

/// The size of the units whose bytes a byte order reverses (4 for a float32, 4 for each half
/// of a complex64, 4 for each UTF-32 code unit), or `None` when the type has no byte order.
pub(super) fn swap_unit(data_type: &DataType) -> Option<usize> {
    if let Some(n) = data_type.numeric() {
        return n.swap_unit();
    }
    match data_type {
        DataType::FixedLengthUtf32 { .. } => Some(4),
        DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => Some(8),
        _ => None,
    }
}

/// Checks the fields of a struct: at least one, unique non-empty names, fixed-size types, and
/// a total size that fits in `u64`.
pub(super) fn check_struct_fields(what: &str, fields: &[StructField]) -> Result<(), String> {
    if fields.is_empty() {
        return Err(format!("{what}: a struct needs at least one field"));
    }
    // A set, not a list: a hostile document can hold millions of fields.
    let mut names = crate::json::NameSet::default();
    for field in fields {
        if field.name.is_empty() {
            return Err(format!("{what}: field names must not be empty"));
        }
        if !names.insert(&field.name) {
            return Err(format!(
                "{what}: duplicate field name '{}'",
                shorten(&field.name)
            ));
        }
        if fixed_size(&field.data_type).is_none() {
            return Err(format!(
                "{what}: field '{}' has a variable-length type, which a struct cannot hold",
                shorten(&field.name)
            ));
        }
        if field_size(field).is_none() {
            return Err(format!(
                "{what}: field '{}' is too large",
                shorten(&field.name)
            ));
        }
    }
    if fixed_size_of_fields(fields).is_none() {
        return Err(format!("{what}: the struct is too large"));
    }
    Ok(())
}

/// The packed size of a list of fields.
fn fixed_size_of_fields(fields: &[StructField]) -> Option<u64> {
    fields
        .iter()
        .try_fold(0u64, |total, field| total.checked_add(field_size(field)?))
}

/// Reverses the byte order of one element of `data_type` held in `buf` if `order` is big-endian
/// (so it converts big → little and little → big alike). Struct fields use their own order
/// unless `force` gives one for all. `None` if `buf` does not have the element's size.
pub(super) fn swap_element(
    data_type: &DataType,
    order: Endianness,
    force: Option<Endianness>,
    buf: &mut [u8],
) -> Option<()> {
    if let DataType::Struct { fields, .. } = data_type {
        let mut offset = 0usize;
        for field in fields {
            let size = usize::try_from(fixed_size(&field.data_type)?).ok()?;
            if size == 0 {
                continue;
            }
            let count = field_count(field)?;
            let field_order = force.unwrap_or(field.endianness);
            for _ in 0..count {
                let end = offset.checked_add(size)?;
                swap_element(
                    &field.data_type,
                    field_order,
                    force,
                    buf.get_mut(offset..end)?,
                )?;
                offset = end;
            }
        }
        return (offset == buf.len()).then_some(());
    }
    if u64::try_from(buf.len()).ok()? != fixed_size(data_type)? {
        return None;
    }
    if let (Some(unit), Endianness::Big) = (swap_unit(data_type), order) {
        for chunk in buf.chunks_exact_mut(unit) {
            chunk.reverse();
        }
    }
    Some(())
}

/// One element of `data_type` holding `value`, little-endian.
pub(super) fn to_element_bytes(value: &FillValue, data_type: &DataType) -> Option<Vec<u8>> {
    let size = fixed_size(data_type)?;
    if size > MAX_ELEMENT_BYTES {
        return None;
    }
    let size = usize::try_from(size).ok()?;
    let bytes = element(value, data_type, size)?;
    (bytes.len() == size).then_some(bytes)
}

/// The little-endian bytes of `value` as one `data_type` of `size` bytes.
fn element(value: &FillValue, data_type: &DataType, size: usize) -> Option<Vec<u8>> {
    if let Some(kind) = data_type.number_kind() {
        return Some(match kind {
            NumericKind::Bool => vec![u8::from(as_bool(value)?)],
            NumericKind::Signed | NumericKind::Unsigned => {
                let bits: u64 = match value {
                    FillValue::Int(i) => *i as u64,
                    FillValue::UInt(u) => *u,
                    FillValue::Bool(b) => u64::from(*b),
                    _ => return None,
                };
                bits.to_le_bytes().get(..size)?.to_vec()
            }
            NumericKind::Float => float_bytes(value, size)?,
            NumericKind::Complex => match value {
                FillValue::Complex(re, im) => {
                    let half = size / 2;
                    let mut out = float_bytes(re, half)?;
                    out.extend(float_bytes(im, half)?);
                    out
                }
                _ => return None,
            },
        });
    }
    Some(match data_type {
        DataType::FixedLengthUtf32 { .. } => match value {
            FillValue::String(s) => {
                let mut out = Vec::with_capacity(size);
                for c in s.chars() {
                    out.extend_from_slice(&u32::from(c).to_le_bytes());
                }
                padded(out, size)?
            }
            _ => return None,
        },
        DataType::NullTerminatedBytes { .. } | DataType::RawBytes { .. } => match value {
            FillValue::Bytes(b) => padded(b.clone(), size)?,
            _ => return None,
        },
        DataType::Struct { fields, .. } => match value {
            // Packed bytes as decoded from base64, in the byte order of the fields.
            FillValue::Bytes(b) => {
                let mut out = b.clone();
                swap_element(data_type, Endianness::NotApplicable, None, &mut out)?;
                out
            }
            FillValue::Struct(values) => {
                let mut out = Vec::with_capacity(size);
                for (index, field) in fields.iter().enumerate() {
                    let v = field_value(values, index, &field.name)?;
                    let field_size = usize::try_from(fixed_size(&field.data_type)?).ok()?;
                    let one = element(v, &field.data_type, field_size)?;
                    if one.len() != field_size {
                        return None;
                    }
                    if field_size == 0 {
                        continue;
                    }
                    for _ in 0..field_count(field)? {
                        out.extend_from_slice(&one);
                    }
                }
                out
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// A bool value (an integer 0 or 1 counts too).
fn as_bool(value: &FillValue) -> Option<bool> {
    match value {
        FillValue::Bool(b) => Some(*b),
        FillValue::Int(0) | FillValue::UInt(0) => Some(false),
        FillValue::Int(1) | FillValue::UInt(1) => Some(true),
        _ => None,
    }
}

/// `bytes` padded with zeros to `size`; `None` if longer.
fn padded(mut bytes: Vec<u8>, size: usize) -> Option<Vec<u8>> {
    if bytes.len() > size {
        return None;
    }
    bytes.resize(size, 0);
    Some(bytes)
}

/// A float of `size` bytes (2, 4 or 8), little-endian.
fn float_bytes(value: &FillValue, size: usize) -> Option<Vec<u8>> {
    let x = match value {
        FillValue::Bits(bits) => {
            return Some(match size {
                2 => (*bits as u16).to_le_bytes().to_vec(),
                4 => (*bits as u32).to_le_bytes().to_vec(),
                8 => bits.to_le_bytes().to_vec(),
                _ => return None,
            })
        }
        FillValue::Float(x) => *x,
        FillValue::Int(i) => *i as f64,
        FillValue::UInt(u) => *u as f64,
        _ => return None,
    };
    Some(match size {
        2 => half::f16::from_f64(x).to_bits().to_le_bytes().to_vec(),
        4 => (x as f32).to_le_bytes().to_vec(),
        8 => x.to_le_bytes().to_vec(),
        _ => return None,
    })
}

/// The value of field `name`, looked for first at `index` (where a decoded struct value has
/// it), so that matching a struct's fields stays linear.
pub(super) fn field_value<'a>(
    values: &'a [(String, FillValue)],
    index: usize,
    name: &str,
) -> Option<&'a FillValue> {
    match values.get(index) {
        Some((n, v)) if n == name => Some(v),
        _ => values.iter().find(|(n, _)| n == name).map(|(_, v)| v),
    }
}

/// Decodes one little-endian element of `data_type` (the inverse of
/// [`to_element_bytes`]). `None` for variable-length types, a wrong length, or bytes that are
/// no value of the type (a bool byte of 2, an invalid UTF-32 code point, a subarray field
/// whose elements differ).
pub(super) fn from_element_bytes(data_type: &DataType, bytes: &[u8]) -> Option<FillValue> {
    if u64::try_from(bytes.len()).ok()? != fixed_size(data_type)? {
        return None;
    }
    let word = |signed: bool| -> Option<FillValue> {
        let mut buf = [0u8; 8];
        buf.get_mut(..bytes.len())?.copy_from_slice(bytes);
        let bits = u64::from_le_bytes(buf);
        if !signed {
            return Some(FillValue::UInt(bits));
        }
        // Sign-extend from the type's width.
        let shift = 64u32.checked_sub(u32::try_from(bytes.len()).ok()?.checked_mul(8)?)?;
        Some(FillValue::Int(
            (bits.checked_shl(shift)? as i64).checked_shr(shift)?,
        ))
    };
    if let Some(kind) = data_type.number_kind() {
        return Some(match kind {
            NumericKind::Bool => match bytes {
                [0] => FillValue::Bool(false),
                [1] => FillValue::Bool(true),
                _ => return None,
            },
            NumericKind::Signed => word(true)?,
            NumericKind::Unsigned => word(false)?,
            NumericKind::Float => float_from_bytes(bytes)?,
            NumericKind::Complex => {
                let (re, im) = bytes.split_at(bytes.len() / 2);
                FillValue::Complex(
                    Box::new(float_from_bytes(re)?),
                    Box::new(float_from_bytes(im)?),
                )
            }
        });
    }
    Some(match data_type {
        DataType::FixedLengthUtf32 { .. } => {
            let mut text = String::new();
            let mut units: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| <[u8; 4]>::try_from(c).map_or(0, u32::from_le_bytes))
                .collect();
            while units.last() == Some(&0) {
                units.pop();
            }
            for unit in units {
                text.push(char::from_u32(unit)?);
            }
            FillValue::String(text)
        }
        DataType::NullTerminatedBytes { .. } => {
            let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            FillValue::Bytes(bytes.get(..end)?.to_vec())
        }
        DataType::RawBytes { .. } => FillValue::Bytes(bytes.to_vec()),
        DataType::Struct { fields, .. } => {
            let mut values = Vec::with_capacity(fields.len());
            let mut offset = 0usize;
            for field in fields {
                let size = usize::try_from(fixed_size(&field.data_type)?).ok()?;
                let total = usize::try_from(field_size(field)?).ok()?;
                let end = offset.checked_add(total)?;
                let region = bytes.get(offset..end)?;
                offset = end;
                let first = if size == 0 {
                    &[][..]
                } else {
                    let first = region.get(..size)?;
                    // A subarray holds one value only when all its elements are the same.
                    if region.chunks_exact(size).any(|c| c != first) {
                        return None;
                    }
                    first
                };
                values.push((
                    field.name.clone(),
                    from_element_bytes(&field.data_type, first)?,
                ));
            }
            FillValue::Struct(values)
        }
        _ => return None,
    })
}

/// A float from its little-endian bytes: `Float` for every value but the non-canonical NaNs,
/// which keep their bits.
fn float_from_bytes(bytes: &[u8]) -> Option<FillValue> {
    let (x, bits, canonical_nan) = match bytes {
        [a, b] => {
            let bits = u16::from_le_bytes([*a, *b]);
            (half::f16::from_bits(bits).to_f64(), u64::from(bits), 0x7e00)
        }
        [a, b, c, d] => {
            let bits = u32::from_le_bytes([*a, *b, *c, *d]);
            (
                f64::from(f32::from_bits(bits)),
                u64::from(bits),
                0x7fc0_0000,
            )
        }
        [a, b, c, d, e, f, g, h] => {
            let bits = u64::from_le_bytes([*a, *b, *c, *d, *e, *f, *g, *h]);
            (f64::from_bits(bits), bits, 0x7ff8_0000_0000_0000)
        }
        _ => return None,
    };
    Some(if x.is_nan() && bits != canonical_nan {
        FillValue::Bits(bits)
    } else if x.is_nan() {
        FillValue::Float(f64::NAN)
    } else {
        FillValue::Float(x)
    })
}
