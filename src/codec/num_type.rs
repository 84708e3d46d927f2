//! Numeric element types as numcodecs filters name them (`"<i4"`, `"float32"`), with NumPy's
//! casting rules for reading and writing single values.

use super::registry::Stage;
use crate::dtype::{numeric, DataType, FillValue};
use crate::problem::config::{Config, Need};
use crate::problem::ProblemKind;
use half::f16;
use serde_json::Value;

/// A numeric element kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumKind {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
}

/// A numeric element type with its byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NumType {
    pub(crate) kind: NumKind,
    pub(crate) big: bool,
}

/// One value, wide enough for every kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    Int(i128),
    Float(f64),
}

impl NumKind {
    /// The v3 name of its data type (`"int16"`).
    pub(crate) fn v3_name(self) -> String {
        self.data_type().to_v3().name
    }

    /// The range of an integer kind, from the data type registry; `None` for bool and floats.
    pub(crate) fn int_bounds(self) -> Option<(i128, i128)> {
        let (lo, hi, _) = self.data_type().numeric()?.int_bounds()?;
        Some((lo, hi))
    }

    /// Bytes per element.
    pub(crate) fn size(self) -> usize {
        match self {
            NumKind::Bool | NumKind::I8 | NumKind::U8 => 1,
            NumKind::I16 | NumKind::U16 | NumKind::F16 => 2,
            NumKind::I32 | NumKind::U32 | NumKind::F32 => 4,
            NumKind::I64 | NumKind::U64 | NumKind::F64 => 8,
        }
    }

    /// Whether values are floating point.
    pub(crate) fn is_float(self) -> bool {
        matches!(self, NumKind::F16 | NumKind::F32 | NumKind::F64)
    }

    /// The kind of a Zarr data type, if it is a plain number.
    pub(crate) fn from_data_type(data_type: &DataType) -> Option<NumKind> {
        Some(match data_type {
            DataType::Bool => NumKind::Bool,
            DataType::Int8 => NumKind::I8,
            DataType::Int16 => NumKind::I16,
            DataType::Int32 => NumKind::I32,
            DataType::Int64 => NumKind::I64,
            DataType::UInt8 => NumKind::U8,
            DataType::UInt16 => NumKind::U16,
            DataType::UInt32 => NumKind::U32,
            DataType::UInt64 => NumKind::U64,
            DataType::Float16 => NumKind::F16,
            DataType::Float32 => NumKind::F32,
            DataType::Float64 => NumKind::F64,
            _ => return None,
        })
    }

    /// The Zarr data type of this kind.
    pub(crate) fn data_type(self) -> DataType {
        match self {
            NumKind::Bool => DataType::Bool,
            NumKind::I8 => DataType::Int8,
            NumKind::I16 => DataType::Int16,
            NumKind::I32 => DataType::Int32,
            NumKind::I64 => DataType::Int64,
            NumKind::U8 => DataType::UInt8,
            NumKind::U16 => DataType::UInt16,
            NumKind::U32 => DataType::UInt32,
            NumKind::U64 => DataType::UInt64,
            NumKind::F16 => DataType::Float16,
            NumKind::F32 => DataType::Float32,
            NumKind::F64 => DataType::Float64,
        }
    }

    /// Converts a value to this kind as NumPy's `astype` does (integers wrap, floats truncate
    /// towards zero when they become integers, saturating where NumPy's result is undefined).
    pub(crate) fn cast(self, v: Scalar) -> Scalar {
        let int = |v: Scalar| -> i128 {
            match v {
                Scalar::Int(i) => i,
                Scalar::Float(f) => f as i128,
            }
        };
        match self {
            NumKind::Bool => Scalar::Int(match v {
                Scalar::Int(i) => i128::from(i != 0),
                Scalar::Float(f) => i128::from(f != 0.0),
            }),
            NumKind::I8 => Scalar::Int(i128::from(int(v) as i8)),
            NumKind::I16 => Scalar::Int(i128::from(int(v) as i16)),
            NumKind::I32 => Scalar::Int(i128::from(int(v) as i32)),
            NumKind::I64 => Scalar::Int(i128::from(int(v) as i64)),
            NumKind::U8 => Scalar::Int(i128::from(int(v) as u8)),
            NumKind::U16 => Scalar::Int(i128::from(int(v) as u16)),
            NumKind::U32 => Scalar::Int(i128::from(int(v) as u32)),
            NumKind::U64 => Scalar::Int(i128::from(int(v) as u64)),
            NumKind::F16 => Scalar::Float(f16::from_f64(as_f64(v)).to_f64()),
            NumKind::F32 => Scalar::Float(f64::from(as_f64(v) as f32)),
            NumKind::F64 => Scalar::Float(as_f64(v)),
        }
    }
}

/// A value as a float.
pub(crate) fn as_f64(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

impl NumType {
    /// A little-endian type of a kind.
    pub(crate) fn le(kind: NumKind) -> NumType {
        NumType { kind, big: false }
    }

    /// Reads a NumPy typestring (`"<i4"`, `">f8"`, `"|u1"`, `"b1"`) or name (`"int32"`,
    /// `"float64"`, `"bool"`).
    pub(crate) fn parse(text: &str) -> Option<NumType> {
        if let Some(entry) = numeric::by_name(text) {
            return Some(NumType::le(NumKind::from_data_type(&entry.data_type)?));
        }
        let (big, rest) = match text.as_bytes().first() {
            Some(b'>') => (true, text.get(1..)?),
            Some(b'<' | b'|' | b'=') => (false, text.get(1..)?),
            _ => (false, text),
        };
        // "?" is NumPy's character code for bool.
        let rest = if rest == "?" { "b1" } else { rest };
        let kind = NumKind::from_data_type(&numeric::by_typestring_body(rest)?.data_type)?;
        Some(NumType {
            kind,
            big: big && kind.size() > 1,
        })
    }

    /// Reads one element from exactly `size()` bytes.
    pub(crate) fn read(self, bytes: &[u8]) -> Scalar {
        let mut buf = [0u8; 8];
        let n = self.kind.size();
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), bytes.get(..n)) {
            dst.copy_from_slice(src);
            if self.big {
                dst.reverse();
            }
        }
        let u = u64::from_le_bytes(buf);
        match self.kind {
            NumKind::Bool | NumKind::U8 | NumKind::U16 | NumKind::U32 | NumKind::U64 => {
                Scalar::Int(i128::from(u))
            }
            NumKind::I8 => Scalar::Int(i128::from(u as u8 as i8)),
            NumKind::I16 => Scalar::Int(i128::from(u as u16 as i16)),
            NumKind::I32 => Scalar::Int(i128::from(u as u32 as i32)),
            NumKind::I64 => Scalar::Int(i128::from(u as i64)),
            NumKind::F16 => Scalar::Float(f16::from_bits(u as u16).to_f64()),
            NumKind::F32 => Scalar::Float(f64::from(f32::from_bits(u as u32))),
            NumKind::F64 => Scalar::Float(f64::from_bits(u)),
        }
    }

    /// Writes one element (cast to this type) into exactly `size()` bytes.
    pub(crate) fn write(self, v: Scalar, out: &mut [u8]) {
        let bits: u64 = match (self.kind, self.kind.cast(v)) {
            (NumKind::F16, Scalar::Float(f)) => u64::from(f16::from_f64(f).to_bits()),
            (NumKind::F32, Scalar::Float(f)) => u64::from((f as f32).to_bits()),
            (NumKind::F64, Scalar::Float(f)) => f.to_bits(),
            (_, Scalar::Int(i)) => i as u64,
            (_, Scalar::Float(f)) => f as i64 as u64,
        };
        let n = self.kind.size();
        let bytes = bits.to_le_bytes();
        if let (Some(dst), Some(src)) = (out.get_mut(..n), bytes.get(..n)) {
            dst.copy_from_slice(src);
            if self.big {
                dst.reverse();
            }
        }
    }
}

/// A value for messages, written as JSON writes numbers (Rust's own float and 128-bit integer
/// formatting is a large amount of code in the WebAssembly module, where nothing else needs it).
pub(crate) fn number_text(v: Scalar) -> String {
    match v {
        Scalar::Int(i) => match (i64::try_from(i), u64::try_from(i)) {
            (Ok(n), _) => n.to_string(),
            (_, Ok(n)) => n.to_string(),
            _ => number_text(Scalar::Float(i as f64)),
        },
        Scalar::Float(x) if x.is_nan() => "NaN".into(),
        Scalar::Float(x) if x.is_infinite() => {
            if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
        }
        Scalar::Float(x) => crate::json::to_compact(&Value::from(x)),
    }
}

/// A numeric value of a data type as a [`Scalar`], or `None` when it has no numeric form.
pub(crate) fn scalar_of(value: &FillValue, data_type: &DataType) -> Option<Scalar> {
    let kind = NumKind::from_data_type(data_type)?;
    let bytes = value.to_element_bytes(data_type)?;
    Some(NumType::le(kind).read(&bytes))
}

/// A [`Scalar`] of `kind` as a fill value of its data type.
pub(crate) fn fill_of(v: Scalar, kind: NumKind) -> Option<FillValue> {
    let mut bytes = [0u8; 8];
    let slot = bytes.get_mut(..kind.size())?;
    NumType::le(kind).write(v, slot);
    FillValue::from_element_bytes(&kind.data_type(), slot)
}

/// The numeric kind of a data type `cast_value` and `scale_offset` accept: an integer or a
/// float (not bool).
pub(crate) fn number_kind(data_type: &DataType) -> Option<NumKind> {
    NumKind::from_data_type(data_type).filter(|k| *k != NumKind::Bool)
}

/// The numeric kind of the data a codec receives at `stage` (when known), reporting data that
/// is not integer or floating-point (`what`: "cast_value casts", "scale_offset works on").
pub(crate) fn stage_number_kind(cfg: &mut Config, stage: &Stage, what: &str) -> Option<NumKind> {
    let dt = stage.dtype.as_ref()?;
    let kind = number_kind(dt);
    if kind.is_none() {
        let message = format!(
            "{what} integer and floating-point data, not '{}'",
            dt.to_v3().name
        );
        cfg.problem(
            Vec::new(),
            (ProblemKind::InvalidValue, message),
            Need::Decode,
        );
    }
    kind
}
