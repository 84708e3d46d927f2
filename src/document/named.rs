//! The v3 "named configuration" form shared by data types, chunk grids, chunk key
//! encodings, codecs, storage transformers and extensions.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// How a v3 document names a numcodecs codec (and zom a v2 object data type): this prefix and
/// the numcodecs `id` (`numcodecs.zlib`).
pub const NUMCODECS_PREFIX: &str = "numcodecs.";

/// A v3 extension point: a bare name (`"bytes"`) or an object
/// `{"name": …, "configuration": {…}, "must_understand": …}`.
/// Other keys and the written form are kept so that serialising gives back the same JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedConfig {
    /// The extension's name (ZEP 9: a registered name, a URL, or `vendor.name`).
    pub name: String,
    /// The `configuration` object, when present.
    pub configuration: Option<Map<String, Value>>,
    /// The `must_understand` flag, when present (absent means true).
    pub must_understand: Option<bool>,
    /// Any other keys of the object form, kept as they are.
    pub extra: Map<String, Value>,
    /// Whether it was written as a bare string.
    pub short_form: bool,
}

impl NamedConfig {
    /// A named configuration written as an object.
    pub fn new(name: impl Into<String>, configuration: Option<Map<String, Value>>) -> Self {
        NamedConfig {
            name: name.into(),
            configuration,
            must_understand: None,
            extra: Map::new(),
            short_form: false,
        }
    }

    /// A named configuration written as a bare string.
    pub fn short(name: impl Into<String>) -> Self {
        NamedConfig {
            short_form: true,
            ..Self::new(name, None)
        }
    }

    /// Whether a reader that does not know this extension must refuse the node.
    pub fn must_understand(&self) -> bool {
        self.must_understand.unwrap_or(true)
    }

    /// A configuration entry, if the configuration and the key exist.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.configuration.as_ref().and_then(|c| c.get(key))
    }

    /// The JSON form, exactly as it was written.
    pub fn to_value(&self) -> Value {
        self.clone().into_value()
    }

    /// [`Self::to_value`], consuming the configuration (no copy of its values).
    pub fn into_value(self) -> Value {
        if self.short_form && self.configuration.is_none() && self.must_understand.is_none() {
            return Value::String(self.name);
        }
        let mut object = Map::new();
        object.insert("name".into(), Value::String(self.name));
        if let Some(configuration) = self.configuration {
            object.insert("configuration".into(), Value::Object(configuration));
        }
        if let Some(must_understand) = self.must_understand {
            object.insert("must_understand".into(), Value::Bool(must_understand));
        }
        for (key, value) in self.extra {
            object.insert(key, value);
        }
        Value::Object(object)
    }

    /// Reads the JSON form; the error says what is wrong with it.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        Self::from_owned(value.clone())
    }

    /// [`Self::from_value`], consuming the value: its parts move into the result, uncopied.
    pub fn from_owned(value: Value) -> Result<Self, String> {
        match value {
            Value::String(name) => Ok(Self::short(name)),
            Value::Object(object) => {
                let mut out = Self::new(String::new(), None);
                let mut named = false;
                for (key, value) in object {
                    match (key.as_str(), value) {
                        ("name", Value::String(name)) => {
                            out.name = name;
                            named = true;
                        }
                        ("name", _) => return Err("'name' must be a string".into()),
                        ("configuration", Value::Object(c)) => out.configuration = Some(c),
                        ("configuration", _) => {
                            return Err("'configuration' must be an object".into())
                        }
                        ("must_understand", Value::Bool(b)) => out.must_understand = Some(b),
                        ("must_understand", _) => {
                            return Err("'must_understand' must be a boolean".into())
                        }
                        (_, value) => {
                            out.extra.insert(key, value);
                        }
                    }
                }
                if !named {
                    return Err("missing 'name'".into());
                }
                Ok(out)
            }
            _ => Err("must be a string or an object with a 'name'".into()),
        }
    }
}

impl Serialize for NamedConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for NamedConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        NamedConfig::from_value(&value).map_err(D::Error::custom)
    }
}

/// Serde helper for fields where absent, `null` and a value are three different things.
pub(crate) mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            // ok: callers skip serialising `None` (absent) with `skip_serializing_if`.
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}
