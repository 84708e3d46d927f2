//! The registry of the fixed-size numeric data types (bool, integers, floats, complex): one
//! entry per type holding its v3 name, its numpy kind, its size and its bit layout, from which
//! its v2 typestring, its byte-order unit, its JS view, its packed width and the other per-type
//! facts are derived. A core type is one entry here and its `DataType` variant; a
//! zarr-extensions registry type (int4, bfloat16, the float8 family…) is one entry only
//! ([`DataType::Registry`] names it).

use super::float_format::FloatFormat;
use super::DataType;

/// What a numeric type's elements are, as numpy's typestring letter says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumericKind {
    /// `b`: one byte, 0 or 1.
    Bool,
    /// `i`: a two's-complement integer.
    Signed,
    /// `u`: an unsigned integer.
    Unsigned,
    /// `f`: an IEEE 754 float.
    Float,
    /// `c`: two IEEE 754 floats, real then imaginary.
    Complex,
}

impl NumericKind {
    /// numpy's typestring letter.
    pub fn letter(self) -> char {
        match self {
            NumericKind::Bool => 'b',
            NumericKind::Signed => 'i',
            NumericKind::Unsigned => 'u',
            NumericKind::Float => 'f',
            NumericKind::Complex => 'c',
        }
    }
}

/// How a numeric element's bits are laid out (each part's, for a complex).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One byte, 0 or 1.
    Bool,
    /// A two's-complement (signed kinds) or unsigned integer of this many bits, in the low
    /// bits of its bytes (the others are ignored when narrower).
    Int(u32),
    /// A binary float.
    Float(FloatFormat),
}

/// One numeric data type's entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Numeric {
    /// The type.
    pub data_type: DataType,
    /// Its v3 name (`"int16"`).
    pub name: &'static str,
    /// What its elements are.
    pub kind: NumericKind,
    /// Bytes per element.
    pub size: u64,
    /// The bit layout of an element (of each part of a complex).
    pub format: Format,
}

/// How a numeric type's decoded values reach JavaScript: the TypedArray kind (a core type's
/// v3 name: `"float32"`, `"int8"`, `"complex64"`…) and whether the element bytes are widened
/// to it first (the registry's small types, which no TypedArray holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsView {
    /// The kind the TypeScript side views the bytes as.
    pub kind: &'static str,
    /// Whether the bytes are converted to that kind's elements first.
    pub widened: bool,
}

impl Numeric {
    /// Whether it is one of the zarr-extensions registry's types (no v2 typestring).
    pub fn is_registry(&self) -> bool {
        matches!(self.data_type, DataType::Registry(_))
    }

    /// The v2 typestring without its byte-order character (`"i2"`, `"c16"`, `"b1"`).
    pub fn typestring_body(&self) -> String {
        format!("{}{}", self.kind.letter(), self.size)
    }

    /// The float format of a float type, or of each part of a complex.
    pub fn float_format(&self) -> Option<&FloatFormat> {
        match &self.format {
            Format::Float(f) => Some(f),
            _ => None,
        }
    }

    /// Bits per value (per part of a complex) that hold data: what `packbits` keeps.
    pub fn value_bits(&self) -> u32 {
        match self.format {
            Format::Bool => 1,
            Format::Int(bits) => bits,
            Format::Float(f) => f.bits(),
        }
    }

    /// Values per element: 2 for a complex, else 1.
    pub fn components(&self) -> usize {
        match self.kind {
            NumericKind::Complex => 2,
            _ => 1,
        }
    }

    /// How its values reach JavaScript.
    pub fn js_view(&self) -> JsView {
        let widened = |kind| JsView {
            kind,
            widened: true,
        };
        match (self.kind, self.format) {
            _ if !self.is_registry() => JsView {
                kind: self.name,
                widened: false,
            },
            (NumericKind::Signed, _) => widened("int8"),
            (NumericKind::Unsigned, _) => widened("uint8"),
            // complex_float32 and complex_float64 are complex64's and complex128's layouts.
            (NumericKind::Complex, Format::Float(f)) if f == F32 || f == F64 => JsView {
                kind: if f == F32 { "complex64" } else { "complex128" },
                widened: false,
            },
            (NumericKind::Complex, _) => widened("complex64"),
            _ => widened("float32"),
        }
    }

    /// Whether its elements have a byte order (more than one byte per number).
    pub fn has_byte_order(&self) -> bool {
        self.swap_unit().is_some()
    }

    /// Element bytes (little-endian, as decoded) converted to the elements of its
    /// [`JsView`]'s kind when it is widened: a narrow integer sign-extended (or masked) to a
    /// byte, a small float (each part of a complex) to binary32, which holds every value of
    /// these formats exactly. `None` for a type that is not widened.
    pub fn widen(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        if !self.js_view().widened {
            return None;
        }
        match self.format {
            Format::Int(bits) => {
                let shift = 8 - bits.min(8);
                let signed = self.kind == NumericKind::Signed;
                Some(
                    bytes
                        .iter()
                        .map(|&b| match signed {
                            true => (((b << shift) as i8) >> shift) as u8,
                            false => (b << shift) >> shift,
                        })
                        .collect(),
                )
            }
            Format::Float(format) => {
                let width = format.bits().div_ceil(8) as usize;
                let mut out = Vec::with_capacity(bytes.len() / width.max(1) * 4);
                if width == 1 {
                    // Every byte's value, once.
                    let table: Vec<[u8; 4]> = (0..=255u64)
                        .map(|b| (format.to_f64(b) as f32).to_le_bytes())
                        .collect();
                    for &b in bytes {
                        out.extend_from_slice(&table[usize::from(b)]);
                    }
                } else {
                    for part in bytes.chunks_exact(width) {
                        let mut word = [0u8; 8];
                        word[..width].copy_from_slice(part);
                        let bits = u64::from_le_bytes(word);
                        let x = match format {
                            // bfloat16 is binary32's top half.
                            f if f == BF16 => f32::from_bits((bits as u32) << 16),
                            f => f.to_f64(bits) as f32,
                        };
                        out.extend_from_slice(&x.to_le_bytes());
                    }
                }
                Some(out)
            }
            Format::Bool => None,
        }
    }

    /// The range of an integer type and whether it is signed; `None` for the others.
    pub fn int_bounds(&self) -> Option<(i128, i128, bool)> {
        let Format::Int(bits) = self.format else {
            return None;
        };
        if bits == 0 || bits > 64 {
            return None;
        }
        match self.kind {
            NumericKind::Signed => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1, true)),
            NumericKind::Unsigned => Some((0, (1i128 << bits) - 1, false)),
            _ => None,
        }
    }

    /// Bytes per float of a float or complex type (each part of a complex).
    pub fn float_width(&self) -> Option<usize> {
        let width = match self.kind {
            NumericKind::Float => self.size,
            NumericKind::Complex => self.size / 2,
            _ => return None,
        };
        usize::try_from(width).ok()
    }

    /// The size of the units a byte order reverses: the element, or each half of a complex.
    pub fn swap_unit(&self) -> Option<usize> {
        let unit = match self.kind {
            NumericKind::Complex => self.size / 2,
            _ => self.size,
        };
        usize::try_from(unit).ok().filter(|&u| u > 1)
    }
}

const fn entry(
    data_type: DataType,
    name: &'static str,
    kind: NumericKind,
    size: u64,
    format: Format,
) -> Numeric {
    Numeric {
        data_type,
        name,
        kind,
        size,
        format,
    }
}

const fn int(data_type: DataType, name: &'static str, signed: bool, bits: u32) -> Numeric {
    let kind = if signed {
        NumericKind::Signed
    } else {
        NumericKind::Unsigned
    };
    entry(
        data_type,
        name,
        kind,
        bits.div_ceil(8) as u64,
        Format::Int(bits),
    )
}

const fn float(data_type: DataType, name: &'static str, format: FloatFormat) -> Numeric {
    let size = format.bits().div_ceil(8) as u64;
    entry(
        data_type,
        name,
        NumericKind::Float,
        size,
        Format::Float(format),
    )
}

const fn complex(data_type: DataType, name: &'static str, format: FloatFormat) -> Numeric {
    let size = 2 * format.bits().div_ceil(8) as u64;
    entry(
        data_type,
        name,
        NumericKind::Complex,
        size,
        Format::Float(format),
    )
}

/// A registry type's entry, named once: its `DataType` is its name.
const fn registry(name: &'static str, kind: NumericKind, bits: u32, format: Format) -> Numeric {
    let parts = if matches!(kind, NumericKind::Complex) {
        2
    } else {
        1
    };
    let size = parts * bits.div_ceil(8) as u64;
    entry(DataType::Registry(name), name, kind, size, format)
}

const fn registry_int(name: &'static str, signed: bool, bits: u32) -> Numeric {
    let kind = if signed {
        NumericKind::Signed
    } else {
        NumericKind::Unsigned
    };
    registry(name, kind, bits, Format::Int(bits))
}

const fn registry_float(name: &'static str, format: FloatFormat) -> Numeric {
    registry(
        name,
        NumericKind::Float,
        format.bits(),
        Format::Float(format),
    )
}

const fn registry_complex(name: &'static str, format: FloatFormat) -> Numeric {
    registry(
        name,
        NumericKind::Complex,
        format.bits(),
        Format::Float(format),
    )
}

const F16: FloatFormat = FloatFormat::BINARY16;
const F32: FloatFormat = FloatFormat::BINARY32;
const F64: FloatFormat = FloatFormat::BINARY64;
const BF16: FloatFormat = FloatFormat::BFLOAT16;
const E3M4: FloatFormat = FloatFormat::E3M4;
const E4M3: FloatFormat = FloatFormat::E4M3;
const E5M2: FloatFormat = FloatFormat::E5M2;
const E4M3B11FNUZ: FloatFormat = FloatFormat::E4M3B11FNUZ;
const E4M3FNUZ: FloatFormat = FloatFormat::E4M3FNUZ;
const E5M2FNUZ: FloatFormat = FloatFormat::E5M2FNUZ;
const E8M0FNU: FloatFormat = FloatFormat::E8M0FNU;
const E2M3FN: FloatFormat = FloatFormat::E2M3FN;
const E3M2FN: FloatFormat = FloatFormat::E3M2FN;
const E2M1FN: FloatFormat = FloatFormat::E2M1FN;

/// Every numeric data type zom reads: the core spec's, then the zarr-extensions registry's.
pub const NUMERIC: &[Numeric] = &[
    entry(DataType::Bool, "bool", NumericKind::Bool, 1, Format::Bool),
    int(DataType::Int8, "int8", true, 8),
    int(DataType::Int16, "int16", true, 16),
    int(DataType::Int32, "int32", true, 32),
    int(DataType::Int64, "int64", true, 64),
    int(DataType::UInt8, "uint8", false, 8),
    int(DataType::UInt16, "uint16", false, 16),
    int(DataType::UInt32, "uint32", false, 32),
    int(DataType::UInt64, "uint64", false, 64),
    float(DataType::Float16, "float16", F16),
    float(DataType::Float32, "float32", F32),
    float(DataType::Float64, "float64", F64),
    complex(DataType::Complex64, "complex64", F32),
    complex(DataType::Complex128, "complex128", F64),
    registry_int("int2", true, 2),
    registry_int("uint2", false, 2),
    registry_int("int4", true, 4),
    registry_int("uint4", false, 4),
    registry_float("bfloat16", BF16),
    registry_float("float8_e3m4", E3M4),
    registry_float("float8_e4m3", E4M3),
    registry_float("float8_e5m2", E5M2),
    registry_float("float8_e4m3b11fnuz", E4M3B11FNUZ),
    registry_float("float8_e4m3fnuz", E4M3FNUZ),
    registry_float("float8_e5m2fnuz", E5M2FNUZ),
    registry_float("float8_e8m0fnu", E8M0FNU),
    registry_float("float6_e2m3fn", E2M3FN),
    registry_float("float6_e3m2fn", E3M2FN),
    registry_float("float4_e2m1fn", E2M1FN),
    registry_complex("complex_bfloat16", BF16),
    registry_complex("complex_float16", F16),
    registry_complex("complex_float32", F32),
    registry_complex("complex_float64", F64),
    registry_complex("complex_float8_e3m4", E3M4),
    registry_complex("complex_float8_e4m3", E4M3),
    registry_complex("complex_float8_e5m2", E5M2),
    registry_complex("complex_float8_e4m3b11fnuz", E4M3B11FNUZ),
    registry_complex("complex_float8_e4m3fnuz", E4M3FNUZ),
    registry_complex("complex_float8_e5m2fnuz", E5M2FNUZ),
    registry_complex("complex_float8_e8m0fnu", E8M0FNU),
    registry_complex("complex_float6_e2m3fn", E2M3FN),
    registry_complex("complex_float6_e3m2fn", E3M2FN),
    registry_complex("complex_float4_e2m1fn", E2M1FN),
];

/// The entry of the numeric type with v3 name `name`.
pub fn by_name(name: &str) -> Option<&'static Numeric> {
    NUMERIC.iter().find(|n| n.name == name)
}

/// The entry of the core numeric type whose v2 typestring, less its byte-order character, is
/// `body` (the registry's types have none).
pub fn by_typestring_body(body: &str) -> Option<&'static Numeric> {
    NUMERIC
        .iter()
        .find(|n| !n.is_registry() && n.typestring_body() == body)
}

impl DataType {
    /// This type's numeric entry, or `None` for the other types.
    pub fn numeric(&self) -> Option<&'static Numeric> {
        match self {
            DataType::Registry(name) => by_name(name),
            _ => NUMERIC.iter().find(|n| n.data_type == *self),
        }
    }

    /// How an element is held as a number: its numeric kind, and `Signed` for datetime64 and
    /// timedelta64 (int64 counts); `None` for strings, bytes and structs.
    pub fn number_kind(&self) -> Option<NumericKind> {
        match self {
            DataType::DateTime64 { .. } | DataType::TimeDelta64 { .. } => Some(NumericKind::Signed),
            other => other.numeric().map(|n| n.kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_typestrings_are_unique_and_round_trip() {
        for n in NUMERIC {
            assert_eq!(by_name(n.name), Some(n));
            if !n.is_registry() {
                assert_eq!(by_typestring_body(&n.typestring_body()), Some(n));
            }
            assert_eq!(n.data_type.numeric(), Some(n));
            if let DataType::Registry(name) = n.data_type {
                assert_eq!(name, n.name, "a registry type is named by its entry's name");
            }
        }
        assert_eq!(by_name("int128"), None);
        assert_eq!(DataType::String.numeric(), None);
    }

    #[test]
    fn byte_order_units() {
        let unit = |name| by_name(name).and_then(Numeric::swap_unit);
        assert_eq!(unit("bool"), None);
        assert_eq!(unit("uint8"), None);
        assert_eq!(unit("int16"), Some(2));
        assert_eq!(unit("complex64"), Some(4));
        assert_eq!(unit("complex128"), Some(8));
        assert_eq!(
            by_name("float64").map(|n| n.typestring_body()),
            Some("f8".into())
        );
    }

    #[test]
    fn integer_bounds_and_float_widths() {
        let bounds = |name| by_name(name).and_then(Numeric::int_bounds);
        assert_eq!(bounds("int8"), Some((-128, 127, true)));
        assert_eq!(bounds("uint16"), Some((0, 65535, false)));
        assert_eq!(
            bounds("int64"),
            Some((i64::MIN.into(), i64::MAX.into(), true))
        );
        assert_eq!(bounds("uint64"), Some((0, u64::MAX.into(), false)));
        assert_eq!(bounds("float32"), None);
        let width = |name| by_name(name).and_then(Numeric::float_width);
        assert_eq!(width("float16"), Some(2));
        assert_eq!(width("complex128"), Some(8));
        assert_eq!(width("int32"), None);
    }
}
