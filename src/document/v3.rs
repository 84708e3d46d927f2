//! Zarr v3 metadata documents: `zarr.json` of arrays and groups, and inline consolidated metadata.

use super::named::{double_option, NamedConfig};
use super::read::{
    append, bool_of, invalid_type, map_into, map_of, named_list, names_of, names_value, object_of,
    option_into, option_of, required, string_into, string_of, u64_list, u64_of, vec_into, vec_of,
    Read,
};
use crate::error::{Result, ZomError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The keys the Zarr v3 core specification defines in an array's `zarr.json`, in the
/// specification's order. ZEP 10 `extensions` is not among them.
pub const ARRAY_KEYS: &[&str] = &[
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "storage_transformers",
];

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
        match Self::is_array(value)? {
            true => ArrayMetadataV3::read(value)
                .map(|a| NodeMetadataV3::Array(Box::new(a)))
                .map_err(array_error),
            false => GroupMetadataV3::read(value)
                .map(|g| NodeMetadataV3::Group(Box::new(g)))
                .map_err(group_error),
        }
    }

    /// [`Self::from_value`], consuming the value: an array's parts move into the result.
    pub fn from_owned(value: Value) -> Result<Self> {
        match Self::is_array(&value)? {
            true => ArrayMetadataV3::read_owned(value)
                .map(|a| NodeMetadataV3::Array(Box::new(a)))
                .map_err(array_error),
            false => GroupMetadataV3::read(&value)
                .map(|g| NodeMetadataV3::Group(Box::new(g)))
                .map_err(group_error),
        }
    }

    /// Whether a `zarr.json` value is an array's (else a group's), from `zarr_format` and
    /// `node_type`; an error when it is neither.
    fn is_array(value: &Value) -> Result<bool> {
        let object = value
            .as_object()
            .ok_or_else(|| ZomError::invalid_metadata("zarr.json must be a JSON object"))?;
        match object.get("zarr_format") {
            Some(Value::Number(n)) if n.as_u64() == Some(3) => {}
            Some(other) => {
                return Err(ZomError::invalid_metadata(format!(
                    "zarr.json has zarr_format {}, expected 3",
                    crate::json::to_compact(other)
                )))
            }
            None => return Err(ZomError::invalid_metadata("zarr.json has no zarr_format")),
        }
        match object.get("node_type").and_then(Value::as_str) {
            Some("array") => Ok(true),
            Some("group") => Ok(false),
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
        match self {
            NodeMetadataV3::Array(a) => a.to_value(),
            NodeMetadataV3::Group(g) => g.to_value(),
        }
    }
}

fn array_error(e: String) -> ZomError {
    ZomError::invalid_metadata(format!("invalid v3 array metadata: {e}"))
}

fn group_error(e: String) -> ZomError {
    ZomError::invalid_metadata(format!("invalid v3 group metadata: {e}"))
}

// Reading and writing by hand: see `read`. Each gives what the derived `Deserialize` and
// `Serialize` give (fields in declaration order, `None` skipped, `extra` last).

impl ArrayMetadataV3 {
    /// Reads a `zarr.json` of an array; the error is serde_json's message.
    pub(crate) fn read(value: &Value) -> Read<Self> {
        Self::read_owned(value.clone())
    }

    /// [`Self::read`], consuming the value: its parts move into the result, uncopied.
    pub(crate) fn read_owned(value: Value) -> Read<Self> {
        let object = match value {
            Value::Object(object) => object,
            other => return Err(invalid_type(&other, "struct ArrayMetadataV3")),
        };
        let (mut shape, mut data_type, mut chunk_grid, mut chunk_key_encoding) =
            (None, None, None, None);
        let (mut fill_value, mut codecs, mut attributes, mut dimension_names) =
            (None, None, None, None);
        let (mut zarr_format, mut node_type, mut storage_transformers, mut extensions) =
            (None, None, None, None);
        let mut extra = Map::new();
        let named_list = |v| vec_into(v, NamedConfig::from_owned);
        for (key, v) in object {
            match key.as_str() {
                "shape" => shape = Some(vec_of(&v, u64_of)?),
                "data_type" => data_type = Some(NamedConfig::from_owned(v)?),
                "chunk_grid" => chunk_grid = Some(NamedConfig::from_owned(v)?),
                "chunk_key_encoding" => chunk_key_encoding = Some(NamedConfig::from_owned(v)?),
                "fill_value" => fill_value = Some(v),
                "codecs" => codecs = Some(named_list(v)?),
                "attributes" => attributes = Some(option_into(v, map_into)?),
                "dimension_names" => dimension_names = Some(option_of(&v, names_of)?),
                "zarr_format" => zarr_format = Some(u64_of(&v)?),
                "node_type" => node_type = Some(string_into(v)?),
                "storage_transformers" => storage_transformers = Some(option_into(v, named_list)?),
                "extensions" => extensions = Some(option_into(v, named_list)?),
                _ => {
                    extra.insert(key, v);
                }
            }
        }
        Ok(ArrayMetadataV3 {
            shape: required(shape, "shape")?,
            data_type: required(data_type, "data_type")?,
            chunk_grid: required(chunk_grid, "chunk_grid")?,
            chunk_key_encoding: required(chunk_key_encoding, "chunk_key_encoding")?,
            fill_value: required(fill_value, "fill_value")?,
            codecs: required(codecs, "codecs")?,
            attributes: attributes.flatten(),
            dimension_names,
            zarr_format: required(zarr_format, "zarr_format")?,
            node_type: required(node_type, "node_type")?,
            storage_transformers: storage_transformers.flatten(),
            extensions: extensions.flatten(),
            extra,
        })
    }

    /// The document as JSON, with the keys it was read with.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("shape".into(), u64_list(&self.shape));
        o.insert("data_type".into(), self.data_type.to_value());
        o.insert("chunk_grid".into(), self.chunk_grid.to_value());
        o.insert(
            "chunk_key_encoding".into(),
            self.chunk_key_encoding.to_value(),
        );
        o.insert("fill_value".into(), self.fill_value.clone());
        o.insert("codecs".into(), named_list(&self.codecs));
        if let Some(attributes) = &self.attributes {
            o.insert("attributes".into(), Value::Object(attributes.clone()));
        }
        if let Some(names) = &self.dimension_names {
            o.insert("dimension_names".into(), names_value(names));
        }
        o.insert("zarr_format".into(), self.zarr_format.into());
        o.insert("node_type".into(), self.node_type.clone().into());
        if let Some(list) = &self.storage_transformers {
            o.insert("storage_transformers".into(), named_list(list));
        }
        if let Some(list) = &self.extensions {
            o.insert("extensions".into(), named_list(list));
        }
        append(&mut o, &self.extra);
        Value::Object(o)
    }
}

impl GroupMetadataV3 {
    /// Reads a `zarr.json` of a group; the error is serde_json's message.
    pub(crate) fn read(value: &Value) -> Read<Self> {
        let object = object_of(value, "struct GroupMetadataV3")?;
        let (mut attributes, mut zarr_format, mut consolidated, mut node_type) =
            (None, None, None, None);
        let mut extensions = None;
        let mut extra = Map::new();
        for (key, v) in object {
            match key.as_str() {
                "attributes" => attributes = Some(option_of(v, map_of)?),
                "zarr_format" => zarr_format = Some(u64_of(v)?),
                "consolidated_metadata" => {
                    consolidated = Some(option_of(v, ConsolidatedMetadataV3::read)?)
                }
                "node_type" => node_type = Some(string_of(v)?),
                "extensions" => {
                    extensions = Some(option_of(v, |v| vec_of(v, NamedConfig::from_value))?)
                }
                _ => {
                    extra.insert(key.clone(), v.clone());
                }
            }
        }
        Ok(GroupMetadataV3 {
            attributes: attributes.flatten(),
            zarr_format: required(zarr_format, "zarr_format")?,
            consolidated_metadata: consolidated,
            node_type: required(node_type, "node_type")?,
            extensions: extensions.flatten(),
            extra,
        })
    }

    /// The document as JSON, with the keys it was read with.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        if let Some(attributes) = &self.attributes {
            o.insert("attributes".into(), Value::Object(attributes.clone()));
        }
        o.insert("zarr_format".into(), self.zarr_format.into());
        if let Some(consolidated) = &self.consolidated_metadata {
            let c = consolidated
                .as_ref()
                .map_or(Value::Null, ConsolidatedMetadataV3::to_value);
            o.insert("consolidated_metadata".into(), c);
        }
        o.insert("node_type".into(), self.node_type.clone().into());
        if let Some(list) = &self.extensions {
            o.insert("extensions".into(), named_list(list));
        }
        append(&mut o, &self.extra);
        Value::Object(o)
    }
}

impl ConsolidatedMetadataV3 {
    /// Reads inline consolidated metadata; the error is serde_json's message.
    pub(crate) fn read(value: &Value) -> Read<Self> {
        let object = object_of(value, "struct ConsolidatedMetadataV3")?;
        let (mut kind, mut must_understand, mut metadata) = (None, None, None);
        let mut extra = Map::new();
        for (key, v) in object {
            match key.as_str() {
                "kind" => kind = Some(string_of(v)?),
                "must_understand" => must_understand = Some(bool_of(v)?),
                "metadata" => metadata = Some(map_of(v)?),
                _ => {
                    extra.insert(key.clone(), v.clone());
                }
            }
        }
        Ok(ConsolidatedMetadataV3 {
            kind: required(kind, "kind")?,
            must_understand: required(must_understand, "must_understand")?,
            metadata: required(metadata, "metadata")?,
            extra,
        })
    }

    /// The object as JSON.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("kind".into(), self.kind.clone().into());
        o.insert("must_understand".into(), self.must_understand.into());
        o.insert("metadata".into(), Value::Object(self.metadata.clone()));
        append(&mut o, &self.extra);
        Value::Object(o)
    }
}
