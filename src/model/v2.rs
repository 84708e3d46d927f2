//! Zarr v2 metadata documents: `.zarray`, `.zgroup`, `.zattrs` and consolidated `.zmetadata`.

use crate::error::{Result, ZomError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

fn read<T: for<'de> Deserialize<'de>>(value: &Value, what: &str) -> Result<T> {
    if !value.is_object() {
        return Err(ZomError::invalid_metadata(format!(
            "{what} must be a JSON object"
        )));
    }
    T::deserialize(value).map_err(|e| ZomError::invalid_metadata(format!("invalid {what}: {e}")))
}

impl ArrayMetadataV2 {
    /// Reads a `.zarray` value.
    pub fn from_value(value: &Value) -> Result<Self> {
        let meta: Self = read(value, ".zarray")?;
        if meta.zarr_format != 2 {
            return Err(ZomError::invalid_metadata(format!(
                ".zarray has zarr_format {}, expected 2",
                meta.zarr_format
            )));
        }
        Ok(meta)
    }
}

impl GroupMetadataV2 {
    /// Reads a `.zgroup` value.
    pub fn from_value(value: &Value) -> Result<Self> {
        let meta: Self = read(value, ".zgroup")?;
        if meta.zarr_format != 2 {
            return Err(ZomError::invalid_metadata(format!(
                ".zgroup has zarr_format {}, expected 2",
                meta.zarr_format
            )));
        }
        Ok(meta)
    }
}

impl ConsolidatedMetadataV2 {
    /// Reads a `.zmetadata` value.
    pub fn from_value(value: &Value) -> Result<Self> {
        read(value, ".zmetadata")
    }
}

/// Serialises any of the v2 documents (they hold only JSON values, so this cannot fail).
pub(crate) fn to_value<T: Serialize>(doc: &T) -> Value {
    serde_json::to_value(doc).unwrap_or(Value::Null) // ok: plain JSON data, string keys
}
