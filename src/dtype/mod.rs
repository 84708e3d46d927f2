//! Zarr data types (every data type of zarr-python 3 plus the zarr-extensions ones) and their
//! fill values, in both the v3 (`data_type`) and the v2 (`dtype` typestring) encodings.
//!
//! INTERFACE STUB: the signatures below are the contract other modules code against.
//! Bodies are filled in by the dtype work; keep the signatures (add, do not rename).

use crate::model::named::NamedConfig;
use serde_json::Value;

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
    /// `structured` / `struct`
    Struct {
        /// The fields in order.
        fields: Vec<StructField>,
        /// How it was named in v3 metadata.
        naming: StructNaming,
    },
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
    pub fn from_v3(_named: &NamedConfig) -> Result<DataType, String> {
        todo!("dtype work")
    }

    /// The v3 `data_type` JSON of this type.
    pub fn to_v3(&self) -> NamedConfig {
        todo!("dtype work")
    }

    /// Reads a v2 `dtype` (typestring or structured list). `object_codec_id` is the id of the
    /// filter (or compressor) that gives `|O` its meaning: `vlen-utf8`, `vlen-bytes`, ….
    pub fn from_v2(
        _dtype: &Value,
        _object_codec_id: Option<&str>,
    ) -> Result<(DataType, Endianness), String> {
        todo!("dtype work")
    }

    /// The v2 `dtype` JSON of this type with the given byte order.
    pub fn to_v2(&self, _endianness: Endianness) -> Result<Value, String> {
        todo!("dtype work")
    }

    /// Bytes per element, or `None` for variable-length types.
    pub fn fixed_size(&self) -> Option<u64> {
        todo!("dtype work")
    }

    /// Whether `name` is a v3 data type name zom knows (`int8`, `numpy.datetime64`, `r16`, …).
    pub fn is_known_v3_name(_name: &str) -> bool {
        todo!("dtype work")
    }
}

impl FillValue {
    /// Decodes a v3 `fill_value` for `data_type`; the error says why it does not fit.
    pub fn from_v3(_data_type: &DataType, _value: &Value) -> Result<FillValue, String> {
        todo!("dtype work")
    }

    /// Decodes a v2 `fill_value` (`null` → `None`).
    pub fn from_v2(
        _data_type: &DataType,
        _endianness: Endianness,
        _value: &Value,
    ) -> Result<Option<FillValue>, String> {
        todo!("dtype work")
    }

    /// Encodes as a v3 `fill_value`, as zarr-python writes it.
    pub fn to_v3(&self, _data_type: &DataType) -> Value {
        todo!("dtype work")
    }

    /// Encodes as a v2 `fill_value`, as zarr-python writes it.
    pub fn to_v2(&self, _data_type: &DataType, _endianness: Endianness) -> Value {
        todo!("dtype work")
    }

    /// One element's bytes, little-endian, for fixed-size types (`None` for variable-length).
    pub fn to_element_bytes(&self, _data_type: &DataType) -> Option<Vec<u8>> {
        todo!("dtype work")
    }
}
