//! Zarr data types (every data type of zarr-python 3 plus the zarr-extensions ones) and their
//! fill values, in both the v3 (`data_type`) and the v2 (`dtype` typestring) encodings.
//!
//! The encodings follow what zarr-python 3.1 writes (`zarr.json` / `.zarray`), checked against
//! it; where zarr-python is lenient and the specs are not (integers written as `1.0`, `"nan"`,
//! out-of-range floats that numpy silently turns into infinity), zom follows the specs and
//! reports an error.
//!
//! Choices where zarr-python and the specs leave room:
//! - Base64 fill values are decoded strictly (padding required); zarr-python skips bad
//!   characters.
//! - Hex float fill values must have exactly the type's width (4, 8 or 16 digits).
//! - Struct fill values given as base64 are kept as [`FillValue::Bytes`] in the byte order of
//!   the fields (v2 fields may be big-endian); [`FillValue::to_v3`] writes them little-endian
//!   (zarr-python copies the v2 bytes as they are), and as an object for zarr-extensions'
//!   `struct`, which has no base64 form.
//! - v3 has no subarray struct fields: [`DataType::to_v3`] writes a v2 field `["b", "<f8", [2]]`
//!   as `raw_bytes` of its size, as zarr-python does when it reads such a NumPy dtype.
//! - `|O` needs the object codec (`vlen-utf8` / `vlen-bytes` / `vlen-array`, or `categorize`,
//!   which zarr-python 2 accepted as the only filter of a string array); `=` counts as
//!   little-endian.

pub(crate) mod base64;
mod element;
mod fill;
mod fill_encode;
mod float_format;
pub mod numeric;
mod time;
mod v2;
mod v3;

#[cfg(test)]
mod fill_tests;
#[cfg(test)]
mod struct_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod v2_tests;

pub use float_format::{FloatFormat, Specials};
pub use numeric::{Format, JsView, Numeric, NumericKind, NUMERIC};
pub use time::MAX_SCALE_FACTOR;

use crate::document::named::NamedConfig;
use serde_json::Value;

/// The deepest nesting of struct data types zom accepts (deeper types are refused, so
/// recursion over a data type never overflows the stack).
pub const MAX_STRUCT_DEPTH: usize = 32;

/// The largest element [`FillValue::to_element_bytes`] builds (16 MiB); bigger elements give
/// `None` rather than a huge allocation.
pub const MAX_ELEMENT_BYTES: u64 = 16 << 20;

/// Byte order of a multi-byte v2 data type (`<`, `>`, or `|` for "does not apply").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endianness {
    /// `<`
    Little,
    /// `>`
    Big,
    /// `|`: single-byte or byte-string types.
    NotApplicable,
}

/// Units of `numpy.datetime64` / `numpy.timedelta64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// years
    Years,
    /// months
    Months,
    /// weeks
    Weeks,
    /// days
    Days,
    /// hours
    Hours,
    /// minutes
    Minutes,
    /// seconds
    Seconds,
    /// milliseconds
    Milliseconds,
    /// microseconds
    Microseconds,
    /// nanoseconds
    Nanoseconds,
    /// picoseconds
    Picoseconds,
    /// femtoseconds
    Femtoseconds,
    /// attoseconds
    Attoseconds,
    /// NumPy's generic unit (`M8` with no unit)
    Generic,
}

/// One field of a struct data type.
#[derive(Clone, Debug, PartialEq)]
pub struct StructField {
    /// The field's name.
    pub name: String,
    /// The field's element type.
    pub data_type: DataType,
    /// Subarray shape of the field (v2 `["b", "<f8", [2]]`); empty for a scalar field.
    pub shape: Vec<u64>,
    /// Byte order of the field in v2 typestrings.
    pub endianness: Endianness,
}

/// How a struct data type was named in v3 metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StructNaming {
    /// zarr-python 3.1's `structured` with `fields: [[name, type], …]`.
    Structured,
    /// zarr-extensions' `struct` with `fields: [{name, data_type}, …]`.
    Struct,
}

/// How a variable-length bytes data type was named in v3 metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BytesNaming {
    /// zarr-extensions' `bytes` (fill value: array of byte values).
    Bytes,
    /// zarr-python's `variable_length_bytes` (fill value: base64 string).
    VariableLengthBytes,
}

/// A Zarr data type.
#[derive(Clone, Debug, PartialEq)]
pub enum DataType {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `int32`
    Int32,
    /// `int64`
    Int64,
    /// `uint8`
    UInt8,
    /// `uint16`
    UInt16,
    /// `uint32`
    UInt32,
    /// `uint64`
    UInt64,
    /// `float16`
    Float16,
    /// `float32`
    Float32,
    /// `float64`
    Float64,
    /// `complex64`
    Complex64,
    /// `complex128`
    Complex128,
    /// A numeric type of the zarr-extensions registry (`int4`, `bfloat16`, the float8
    /// family, `complex_bfloat16`…), named by its v3 name: every fact about it is its
    /// [`Numeric`] entry's.
    Registry(&'static str),
    /// `string`: variable-length UTF-8.
    String,
    /// `bytes` / `variable_length_bytes`: variable-length byte strings.
    Bytes(BytesNaming),
    /// `fixed_length_utf32` with `length_bytes` (a multiple of 4).
    FixedLengthUtf32 {
        /// Bytes per element.
        length_bytes: u64,
    },
    /// `null_terminated_bytes` with `length_bytes`.
    NullTerminatedBytes {
        /// Bytes per element.
        length_bytes: u64,
    },
    /// `raw_bytes` with `length_bytes`, or the core spec's `r<bits>`.
    RawBytes {
        /// Bytes per element.
        length_bytes: u64,
        /// Written as `r<bits>` rather than `raw_bytes`.
        r_name: bool,
    },
    /// `numpy.datetime64`
    DateTime64 {
        /// The time unit.
        unit: TimeUnit,
        /// How many units one step is.
        scale_factor: u64,
    },
    /// `numpy.timedelta64`
    TimeDelta64 {
        /// The time unit.
        unit: TimeUnit,
        /// How many units one step is.
        scale_factor: u64,
    },
    /// numcodecs `vlen-array` (a v2 `|O` array whose object codec is `vlen-array`): every
    /// element is a 1-D array of `item` values, of any length. It has no v3 form; its v3 JSON
    /// (for messages and `dataType`) is zom's own `{"name": "numcodecs.vlen-array",
    /// "configuration": {"data_type": <item>}}`.
    VlenArray {
        /// The numeric type of the items.
        item: Box<DataType>,
    },
    /// numcodecs `json2` or `msgpack2` (a v2 `|O` array whose object codec is one of them):
    /// every element is any JSON value. It has no v3 form; its v3 JSON is zom's own
    /// `{"name": "numcodecs.json2"}` (or `numcodecs.msgpack2`).
    Object(ObjectFormat),
    /// `structured` / `struct`
    Struct {
        /// The fields in order.
        fields: Vec<StructField>,
        /// How it was named in v3 metadata.
        naming: StructNaming,
    },
}

/// How a [`DataType::Object`] array's chunks are serialised: numcodecs' `json2` or `msgpack2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectFormat {
    /// numcodecs `JSON` (id `json2`): UTF-8 JSON text.
    Json,
    /// numcodecs `MsgPack` (id `msgpack2`).
    MsgPack,
}

impl ObjectFormat {
    /// The numcodecs id.
    pub fn id(self) -> &'static str {
        match self {
            ObjectFormat::Json => "json2",
            ObjectFormat::MsgPack => "msgpack2",
        }
    }
}

/// A decoded fill value.
#[derive(Clone, Debug, PartialEq)]
pub enum FillValue {
    /// bool
    Bool(bool),
    /// signed integers, datetime64/timedelta64 (NaT is `i64::MIN`)
    Int(i64),
    /// unsigned integers
    UInt(u64),
    /// float16/32/64 (NaN payloads from hex kept in `Bits`)
    Float(f64),
    /// A float given as full-width hex (`0x7fc00000`): its exact bits.
    Bits(u64),
    /// complex: real and imaginary parts
    Complex(Box<FillValue>, Box<FillValue>),
    /// string, fixed_length_utf32
    String(String),
    /// bytes, variable_length_bytes, null_terminated_bytes, raw_bytes, r*
    Bytes(Vec<u8>),
    /// struct / structured: field name → value
    Struct(Vec<(String, FillValue)>),
}

impl DataType {
    /// Reads a v3 `data_type` (bare name or named configuration).
    pub fn from_v3(named: &NamedConfig) -> Result<DataType, String> {
        v3::from_v3(named, 0)
    }

    /// The v3 `data_type` JSON of this type.
    pub fn to_v3(&self) -> NamedConfig {
        v3::to_v3(self)
    }

    /// Reads a v2 `dtype` (typestring or structured list). `object_codec_id` is the id of the
    /// filter (or compressor) that gives `|O` its meaning: `vlen-utf8`, `vlen-bytes`, ….
    ///
    /// The byte order returned is the typestring's (`=` counts as little-endian); structured
    /// types give [`Endianness::NotApplicable`] and keep each field's order in its
    /// [`StructField::endianness`].
    pub fn from_v2(
        dtype: &Value,
        object_codec_id: Option<&str>,
    ) -> Result<(DataType, Endianness), String> {
        v2::from_v2(dtype, object_codec_id)
    }

    /// The v2 `dtype` JSON of this type with the given byte order.
    ///
    /// For a struct, [`Endianness::NotApplicable`] keeps each field's own byte order, while
    /// `Little` or `Big` applies that order to every multi-byte field.
    pub fn to_v2(&self, endianness: Endianness) -> Result<Value, String> {
        v2::to_v2(self, endianness)
    }

    /// Reads a v2 `dtype` with the array's `filters` and `compressor`, finding the object
    /// codec as zarr-python does (the first codec, filters then compressor, with an object
    /// codec id), so that `|O` with `vlen-array` gets its item type from the codec's `dtype`.
    pub fn from_v2_codecs(
        dtype: &Value,
        filters: Option<&[Value]>,
        compressor: Option<&Value>,
    ) -> Result<(DataType, Endianness), String> {
        v2::from_v2_codecs(dtype, filters.unwrap_or_default(), compressor)
    }

    /// Bytes per element, or `None` for variable-length types.
    pub fn fixed_size(&self) -> Option<u64> {
        element::fixed_size(self)
    }

    /// Whether `name` is a v3 data type name zom knows (`int8`, `numpy.datetime64`, `r16`, …).
    pub fn is_known_v3_name(name: &str) -> bool {
        v3::is_known_name(name)
    }

    /// Whether elements of this type have a byte order (multi-byte numbers, UTF-32 text,
    /// datetimes); `false` for one-byte types, byte strings, variable-length types and structs
    /// (whose fields carry their own order).
    pub fn has_byte_order(&self) -> bool {
        element::swap_unit(self).is_some()
    }

    /// The size of the units a byte order reverses (the number, each half of a complex, each
    /// UTF-32 code unit), or `None` when the type has no byte order.
    pub fn byte_order_unit(&self) -> Option<usize> {
        element::swap_unit(self)
    }
}

impl FillValue {
    /// Decodes a v3 `fill_value` for `data_type`; the error says why it does not fit.
    pub fn from_v3(data_type: &DataType, value: &Value) -> Result<FillValue, String> {
        fill::from_v3(data_type, value)
    }

    /// Decodes a v2 `fill_value` (`null` → `None`).
    ///
    /// Base64 fill values of structured types are kept as [`FillValue::Bytes`] in the byte
    /// order of the v2 fields.
    pub fn from_v2(
        data_type: &DataType,
        endianness: Endianness,
        value: &Value,
    ) -> Result<Option<FillValue>, String> {
        fill::from_v2(data_type, endianness, value)
    }

    /// Encodes as a v3 `fill_value`, as zarr-python writes it.
    pub fn to_v3(&self, data_type: &DataType) -> Value {
        fill::to_v3(self, data_type)
    }

    /// Encodes as a v2 `fill_value`, as zarr-python writes it.
    pub fn to_v2(&self, data_type: &DataType, endianness: Endianness) -> Value {
        fill::to_v2(self, data_type, endianness)
    }

    /// One element's bytes, little-endian, for fixed-size types (`None` for variable-length).
    ///
    /// Also `None` when the value does not fit the type (a string longer than the type) or the
    /// element is larger than [`MAX_ELEMENT_BYTES`].
    pub fn to_element_bytes(&self, data_type: &DataType) -> Option<Vec<u8>> {
        element::to_element_bytes(self, data_type)
    }

    /// Decodes one little-endian element of `data_type` (the inverse of
    /// [`FillValue::to_element_bytes`]); structs give [`FillValue::Struct`].
    ///
    /// `None` for variable-length types, a wrong length, or bytes that are no value of the
    /// type (a bool byte of 2, an invalid UTF-32 code point, a subarray field whose elements
    /// differ).
    pub fn from_element_bytes(data_type: &DataType, bytes: &[u8]) -> Option<FillValue> {
        element::from_element_bytes(data_type, bytes)
    }
}
