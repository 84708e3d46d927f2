//! Element sizes, byte orders and the binary form of one element (what a fill value looks
//! like inside a chunk).

use super::fill::shorten;
use super::{
    DataType, Endianness, FillValue, FloatFormat, Format, Numeric, NumericKind, StructField,
    MAX_ELEMENT_BYTES,
};

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
            NumericKind::Float => float_bytes(value, data_type.numeric()?)?,
            NumericKind::Complex => match value {
                FillValue::Complex(re, im) => {
                    let numeric = data_type.numeric()?;
                    let mut out = float_bytes(re, numeric)?;
                    out.extend(float_bytes(im, numeric)?);
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

/// One float (one part of a complex) of `numeric`'s format, little-endian: its bits, or the
/// value rounded to the format (binary32 and binary64 as Rust casts, the others by their bit
/// layout). `None` for a value the format cannot hold (a NaN of a format without one).
fn float_bytes(value: &FillValue, numeric: &Numeric) -> Option<Vec<u8>> {
    let format = numeric.float_format()?;
    let width = usize::try_from(format.bits().div_ceil(8)).ok()?;
    let bits = match value {
        FillValue::Bits(bits) => *bits,
        FillValue::Float(x) => float_bits(*x, format)?,
        FillValue::Int(i) => float_bits(*i as f64, format)?,
        FillValue::UInt(u) => float_bits(*u as f64, format)?,
        _ => return None,
    };
    bits.to_le_bytes().get(..width).map(<[u8]>::to_vec)
}

/// The bits of `x` in `format`.
fn float_bits(x: f64, format: &FloatFormat) -> Option<u64> {
    match format.bits() {
        64 => Some(x.to_bits()),
        32 => Some(u64::from((x as f32).to_bits())),
        _ => format.from_f64(x),
    }
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
            NumericKind::Signed | NumericKind::Unsigned => {
                let signed = kind == NumericKind::Signed;
                match data_type.numeric().map(|n| n.format) {
                    // A narrow integer (int2, int4) in the low bits of its byte.
                    Some(Format::Int(bits)) if bits < 8 => {
                        let shift = 64 - bits;
                        let raw = u64::from(*bytes.first()?) << shift;
                        match signed {
                            true => FillValue::Int((raw as i64) >> shift),
                            false => FillValue::UInt(raw >> shift),
                        }
                    }
                    _ => word(signed)?,
                }
            }
            NumericKind::Float => float_from_bytes(bytes, data_type.numeric()?)?,
            NumericKind::Complex => {
                let (re, im) = bytes.split_at(bytes.len() / 2);
                let numeric = data_type.numeric()?;
                FillValue::Complex(
                    Box::new(float_from_bytes(re, numeric)?),
                    Box::new(float_from_bytes(im, numeric)?),
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

/// A float of `numeric`'s format from its little-endian bytes: `Float` for every value but
/// the NaNs other than the format's own, which keep their bits.
fn float_from_bytes(bytes: &[u8], numeric: &Numeric) -> Option<FillValue> {
    let format = numeric.float_format()?;
    if bytes.len() > 8 {
        return None;
    }
    let mut word = [0u8; 8];
    word.get_mut(..bytes.len())?.copy_from_slice(bytes);
    let bits = u64::from_le_bytes(word) & (u64::MAX >> (64 - format.bits()));
    let x = match format.bits() {
        64 => f64::from_bits(bits),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => format.to_f64(bits),
    };
    let canonical_nan = format.nan.unwrap_or(u64::MAX);
    Some(if x.is_nan() && bits != canonical_nan {
        FillValue::Bits(bits)
    } else if x.is_nan() {
        FillValue::Float(f64::NAN)
    } else {
        FillValue::Float(x)
    })
}
