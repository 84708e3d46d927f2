//! The registry of the fixed-size numeric data types (bool, integers, floats, complex): one
//! entry per type holding its v3 name, its numpy kind and its size, from which its v2
//! typestring, its byte-order unit and the other per-type facts are derived. A new numeric
//! type is one entry here (and its `DataType` variant).

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
}

impl Numeric {
    /// The v2 typestring without its byte-order character (`"i2"`, `"c16"`, `"b1"`).
    pub fn typestring_body(&self) -> String {
        format!("{}{}", self.kind.letter(), self.size)
    }

    /// Whether its elements have a byte order (more than one byte per number).
    pub fn has_byte_order(&self) -> bool {
        self.swap_unit().is_some()
    }

    /// The range of an integer type and whether it is signed; `None` for the others.
    pub fn int_bounds(&self) -> Option<(i128, i128, bool)> {
        let bits = u32::try_from(self.size.checked_mul(8)?)
            .ok()
            .filter(|&b| b <= 64)?;
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

const fn entry(data_type: DataType, name: &'static str, kind: NumericKind, size: u64) -> Numeric {
    Numeric {
        data_type,
        name,
        kind,
        size,
    }
}

/// Every numeric data type zom reads.
pub const NUMERIC: &[Numeric] = &[
    entry(DataType::Bool, "bool", NumericKind::Bool, 1),
    entry(DataType::Int8, "int8", NumericKind::Signed, 1),
    entry(DataType::Int16, "int16", NumericKind::Signed, 2),
    entry(DataType::Int32, "int32", NumericKind::Signed, 4),
    entry(DataType::Int64, "int64", NumericKind::Signed, 8),
    entry(DataType::UInt8, "uint8", NumericKind::Unsigned, 1),
    entry(DataType::UInt16, "uint16", NumericKind::Unsigned, 2),
    entry(DataType::UInt32, "uint32", NumericKind::Unsigned, 4),
    entry(DataType::UInt64, "uint64", NumericKind::Unsigned, 8),
    entry(DataType::Float16, "float16", NumericKind::Float, 2),
    entry(DataType::Float32, "float32", NumericKind::Float, 4),
    entry(DataType::Float64, "float64", NumericKind::Float, 8),
    entry(DataType::Complex64, "complex64", NumericKind::Complex, 8),
    entry(DataType::Complex128, "complex128", NumericKind::Complex, 16),
];

/// The entry of the numeric type with v3 name `name`.
pub fn by_name(name: &str) -> Option<&'static Numeric> {
    NUMERIC.iter().find(|n| n.name == name)
}

/// The entry of the numeric type whose v2 typestring, less its byte-order character, is `body`.
pub fn by_typestring_body(body: &str) -> Option<&'static Numeric> {
    NUMERIC.iter().find(|n| n.typestring_body() == body)
}

impl DataType {
    /// This type's numeric entry, or `None` for the other types.
    pub fn numeric(&self) -> Option<&'static Numeric> {
        NUMERIC.iter().find(|n| n.data_type == *self)
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
            assert_eq!(by_typestring_body(&n.typestring_body()), Some(n));
            assert_eq!(n.data_type.numeric(), Some(n));
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
