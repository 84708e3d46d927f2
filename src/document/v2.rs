//! Zarr v2 metadata documents: `.zarray`, `.zgroup`, `.zattrs` and consolidated `.zmetadata`.

use super::read::{
    append, map_of, object_of, option_of, required, string_of, u64_list, u64_of, value_of, vec_of,
    Read,
};
use crate::error::{Result, ZomError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The keys the Zarr v2 specification defines in an array's `.zarray`, in the specification's
/// order.
pub const ARRAY_KEYS: &[&str] = &[
    "zarr_format",
    "shape",
    "chunks",
    "dtype",
    "compressor",
    "fill_value",
    "order",
    "filters",
    "dimension_separator",
];

/// The `.zarray` document of a v2 array. Unknown keys are kept in `extra`.
/// Field order is the order zarr-python writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayMetadataV2 {
    /// Length of each dimension.
    pub shape: Vec<u64>,
    /// Length of each dimension of a chunk.
    pub chunks: Vec<u64>,
    /// A NumPy typestring (`"<f8"`), or a list of fields for structured types.
    pub dtype: Value,
    /// The value of elements that were never written, or `null`.
    pub fill_value: Value,
    /// Memory layout of a chunk: `"C"` or `"F"`.
    pub order: String,
    /// numcodecs filter configurations (`{"id": …}`), or `null`.
    #[serde(default)]
    pub filters: Option<Vec<Value>>,
    /// Separator between chunk coordinates in keys (`"."` or `"/"`), when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension_separator: Option<String>,
    /// numcodecs compressor configuration (`{"id": …}`), or `null`.
    #[serde(default)]
    pub compressor: Option<Value>,
    /// Always 2.
    pub zarr_format: u64,
    /// Any other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `.zgroup` document of a v2 group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupMetadataV2 {
    /// Always 2.
    pub zarr_format: u64,
    /// Any other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The consolidated `.zmetadata` document of a v2 hierarchy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConsolidatedMetadataV2 {
    /// Store key (`"a/.zarray"`) → that document's JSON.
    pub metadata: Map<String, Value>,
    /// Always 1.
    pub zarr_consolidated_format: u64,
    /// Any other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn read<T>(value: &Value, what: &str, read: fn(&Value) -> Read<T>) -> Result<T> {
    if !value.is_object() {
        return Err(ZomError::invalid_metadata(format!(
            "{what} must be a JSON object"
        )));
    }
    read(value).map_err(|e| ZomError::invalid_metadata(format!("invalid {what}: {e}")))
}

/// A v2 document's `zarr_format`, which must be 2.
fn format_2(what: &str, zarr_format: u64) -> Result<()> {
    if zarr_format == 2 {
        return Ok(());
    }
    Err(ZomError::invalid_metadata(format!(
        "{what} has zarr_format {zarr_format}, expected 2"
    )))
}

impl ArrayMetadataV2 {
    /// Reads a `.zarray` value.
    pub fn from_value(value: &Value) -> Result<Self> {
        let meta = read(value, ".zarray", Self::read)?;
        format_2(".zarray", meta.zarr_format)?;
        Ok(meta)
    }
}

impl GroupMetadataV2 {
    /// Reads a `.zgroup` value.
    pub fn from_value(value: &Value) -> Result<Self> {
        let meta = read(value, ".zgroup", Self::read)?;
        format_2(".zgroup", meta.zarr_format)?;
        Ok(meta)
    }
}

impl ConsolidatedMetadataV2 {
    /// Reads a `.zmetadata` value.
    pub fn from_value(value: &Value) -> Result<Self> {
        read(value, ".zmetadata", Self::read)
    }
}

// Reading and writing by hand: see `read`. Each gives what the derived `Deserialize` and
// `Serialize` give (fields in declaration order, `None` skipped, `extra` last).

impl ArrayMetadataV2 {
    /// Reads the fields of a `.zarray`; the error is serde_json's message.
    pub(crate) fn read(value: &Value) -> Read<Self> {
        let object = object_of(value, "struct ArrayMetadataV2")?;
        let (mut shape, mut chunks, mut dtype, mut fill_value, mut order) =
            (None, None, None, None, None);
        let (mut filters, mut dimension_separator, mut compressor, mut zarr_format) =
            (None, None, None, None);
        let mut extra = Map::new();
        for (key, v) in object {
            match key.as_str() {
                "shape" => shape = Some(vec_of(v, u64_of)?),
                "chunks" => chunks = Some(vec_of(v, u64_of)?),
                "dtype" => dtype = Some(v.clone()),
                "fill_value" => fill_value = Some(v.clone()),
                "order" => order = Some(string_of(v)?),
                "filters" => filters = Some(option_of(v, |v| vec_of(v, value_of))?),
                "dimension_separator" => dimension_separator = Some(option_of(v, string_of)?),
                "compressor" => compressor = Some(option_of(v, value_of)?),
                "zarr_format" => zarr_format = Some(u64_of(v)?),
                _ => {
                    extra.insert(key.clone(), v.clone());
                }
            }
        }
        Ok(ArrayMetadataV2 {
            shape: required(shape, "shape")?,
            chunks: required(chunks, "chunks")?,
            dtype: required(dtype, "dtype")?,
            fill_value: required(fill_value, "fill_value")?,
            order: required(order, "order")?,
            filters: filters.flatten(),
            dimension_separator: dimension_separator.flatten(),
            compressor: compressor.flatten(),
            zarr_format: required(zarr_format, "zarr_format")?,
            extra,
        })
    }

    /// The document as JSON, with the keys it was read with.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("shape".into(), u64_list(&self.shape));
        o.insert("chunks".into(), u64_list(&self.chunks));
        o.insert("dtype".into(), self.dtype.clone());
        o.insert("fill_value".into(), self.fill_value.clone());
        o.insert("order".into(), self.order.clone().into());
        let filters = self.filters.clone().map_or(Value::Null, Value::Array);
        o.insert("filters".into(), filters);
        if let Some(separator) = &self.dimension_separator {
            o.insert("dimension_separator".into(), separator.clone().into());
        }
        o.insert(
            "compressor".into(),
            self.compressor.clone().unwrap_or(Value::Null),
        );
        o.insert("zarr_format".into(), self.zarr_format.into());
        append(&mut o, &self.extra);
        Value::Object(o)
    }
}

impl GroupMetadataV2 {
    /// Reads the fields of a `.zgroup`; the error is serde_json's message.
    pub(crate) fn read(value: &Value) -> Read<Self> {
        let object = object_of(value, "struct GroupMetadataV2")?;
        let mut zarr_format = None;
        let mut extra = Map::new();
        for (key, v) in object {
            match key.as_str() {
                "zarr_format" => zarr_format = Some(u64_of(v)?),
                _ => {
                    extra.insert(key.clone(), v.clone());
                }
            }
        }
        Ok(GroupMetadataV2 {
            zarr_format: required(zarr_format, "zarr_format")?,
            extra,
        })
    }

    /// The document as JSON, with the keys it was read with.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("zarr_format".into(), self.zarr_format.into());
        append(&mut o, &self.extra);
        Value::Object(o)
    }
}

impl ConsolidatedMetadataV2 {
    /// Reads the fields of a `.zmetadata`; the error is serde_json's message.
    pub(crate) fn read(value: &Value) -> Read<Self> {
        let object = object_of(value, "struct ConsolidatedMetadataV2")?;
        let (mut metadata, mut format) = (None, None);
        let mut extra = Map::new();
        for (key, v) in object {
            match key.as_str() {
                "metadata" => metadata = Some(map_of(v)?),
                "zarr_consolidated_format" => format = Some(u64_of(v)?),
                _ => {
                    extra.insert(key.clone(), v.clone());
                }
            }
        }
        Ok(ConsolidatedMetadataV2 {
            metadata: required(metadata, "metadata")?,
            zarr_consolidated_format: required(format, "zarr_consolidated_format")?,
            extra,
        })
    }

    /// The document as JSON, with the keys it was read with.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("metadata".into(), Value::Object(self.metadata.clone()));
        o.insert(
            "zarr_consolidated_format".into(),
            self.zarr_consolidated_format.into(),
        );
        append(&mut o, &self.extra);
        Value::Object(o)
    }
}
