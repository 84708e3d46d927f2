//! Zarr v3 metadata documents: `zarr.json` of arrays and groups, and inline consolidated metadata.

use super::named::{double_option, NamedConfig};
use crate::error::{Result, ZomError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `zarr.json` document of a v3 array. Unknown keys are kept in `extra`.
/// Field order is the order zarr-python writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayMetadataV3 {
    /// Length of each dimension.
    pub shape: Vec<u64>,
    /// The data type (a bare name or a named configuration).
    pub data_type: NamedConfig,
    /// How the array is split into chunks (`regular` with `chunk_shape`).
    pub chunk_grid: NamedConfig,
    /// How chunk coordinates become store keys (`default` or `v2`).
    pub chunk_key_encoding: NamedConfig,
    /// The value of elements that were never written, encoded for the data type.
    pub fill_value: Value,
    /// The codec pipeline, from array to bytes.
    pub codecs: Vec<NamedConfig>,
    /// User attributes; absent in the document is `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Map<String, Value>>,
    /// Names of the dimensions; `Some(None)` is an explicit `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub dimension_names: Option<Option<Vec<Option<String>>>>,
    /// Always 3.
    pub zarr_format: u64,
    /// Always `"array"`.
    pub node_type: String,
    /// Storage transformers, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_transformers: Option<Vec<NamedConfig>>,
    /// ZEP 10 (draft) generic extensions, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<NamedConfig>>,
    /// Any other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `zarr.json` document of a v3 group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupMetadataV3 {
    /// User attributes; absent in the document is `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Map<String, Value>>,
    /// Always 3.
    pub zarr_format: u64,
    /// Inline consolidated metadata; `Some(None)` is an explicit `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub consolidated_metadata: Option<Option<ConsolidatedMetadataV3>>,
    /// Always `"group"`.
    pub node_type: String,
    /// ZEP 10 (draft) generic extensions, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<NamedConfig>>,
    /// Any other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Inline consolidated metadata as zarr-python writes it in a group's `zarr.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConsolidatedMetadataV3 {
    /// Always `"inline"`.
    pub kind: String,
    /// Always false: readers may ignore it.
    pub must_understand: bool,
    /// Relative node path → that node's `zarr.json` (without consolidated metadata of its own
    /// members' members).
    pub metadata: Map<String, Value>,
    /// Any other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Either kind of v3 `zarr.json`.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeMetadataV3 {
    /// An array's document.
    Array(Box<ArrayMetadataV3>),
    /// A group's document.
    Group(Box<GroupMetadataV3>),
}

impl NodeMetadataV3 {
    /// Reads a `zarr.json` value, choosing the kind from `node_type`.
    pub fn from_value(value: &Value) -> Result<Self> {
        let object = value
            .as_object()
            .ok_or_else(|| ZomError::invalid_metadata("zarr.json must be a JSON object"))?;
        match object.get("zarr_format") {
            Some(Value::Number(n)) if n.as_u64() == Some(3) => {}
            Some(other) => {
                return Err(ZomError::invalid_metadata(format!(
                    "zarr.json has zarr_format {other}, expected 3"
                )))
            }
            None => return Err(ZomError::invalid_metadata("zarr.json has no zarr_format")),
        }
        match object.get("node_type").and_then(Value::as_str) {
            Some("array") => ArrayMetadataV3::deserialize(value)
                .map(|a| NodeMetadataV3::Array(Box::new(a)))
                .map_err(|e| ZomError::invalid_metadata(format!("invalid v3 array metadata: {e}"))),
            Some("group") => GroupMetadataV3::deserialize(value)
                .map(|g| NodeMetadataV3::Group(Box::new(g)))
                .map_err(|e| ZomError::invalid_metadata(format!("invalid v3 group metadata: {e}"))),
            Some(other) => Err(ZomError::invalid_metadata(format!(
                "node_type must be \"array\" or \"group\", not \"{other}\""
            ))),
            None => Err(ZomError::invalid_metadata(
                "zarr.json has no string node_type",
            )),
        }
    }

    /// The document as JSON, with the keys it was read with.
    pub fn to_value(&self) -> Value {
        let result = match self {
            NodeMetadataV3::Array(a) => serde_json::to_value(a),
            NodeMetadataV3::Group(g) => serde_json::to_value(g),
        };
        // ok: these structs hold only JSON values and string keys; serialising cannot fail.
        result.unwrap_or(Value::Null)
    }
}
