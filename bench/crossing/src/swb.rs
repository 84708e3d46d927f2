//! The serde-wasm-bindgen way, set up to give what zom gives: maps as plain objects, `null`
//! (not `undefined`) for absent values, and integers as numbers except where zom uses BigInt
//! (JSON integers beyond ±(2^53 − 1)).
//!
//! serde-wasm-bindgen turns every `u64` or `i64` into a BigInt when its BigInt setting is on,
//! and refuses those beyond 2^53 when it is off; zom's rule is in between. So JSON values go
//! through [`Safe`], which hands safe integers to the serializer as `f64` and only the others
//! as 64-bit integers (the serializer [`VALUE`] then makes those BigInt); typed values, whose
//! integers are counts and indexes, use [`TYPED`] (numbers, BigInt off). Coming in,
//! [`JsonSeed`] reads a JSON value by zom's rules as far as serde-wasm-bindgen lets it: it
//! passes -0 as the integer 0, and `undefined` in an object as `null` (zom keeps -0 and skips
//! `undefined`), so those two differ from `from_js`.
// With the feature `swb-typed` alone only the typed values' part is used.
#![cfg_attr(not(feature = "swb"), allow(dead_code))]

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, SerializeStruct};
use serde::Serialize;
use serde_json::{Map, Number, Value};
use serde_wasm_bindgen::Serializer;
use wasm_bindgen::JsValue;
use zom::limits::{Limit, Limits, MAX_JSON_DEPTH};
use zom::model::NodeSummary;
use zom::ZomError;

const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// For JSON values through [`Safe`]: 64-bit integers become BigInt.
pub const VALUE: Serializer = Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true)
    .serialize_large_number_types_as_bigints(true);

/// For typed values: integers are numbers.
pub const TYPED: Serializer = Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true);

fn failed(error: serde_wasm_bindgen::Error) -> JsValue {
    crate::convert::error_to_js(&ZomError::invalid_argument(error.to_string()))
}

/// `value` serialized with `serializer`.
pub fn to_js<T: Serialize + ?Sized>(
    value: &T,
    serializer: &Serializer,
) -> Result<JsValue, JsValue> {
    value.serialize(serializer).map_err(failed)
}

/// A JSON value serialized by zom's number rule.
pub struct Safe<'a>(pub &'a Value);

impl Serialize for Safe<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) if u <= MAX_SAFE_INTEGER => s.serialize_f64(u as f64),
                (Some(u), _) => s.serialize_u64(u),
                (None, Some(i)) if i.unsigned_abs() <= MAX_SAFE_INTEGER => {
                    s.serialize_f64(i as f64)
                }
                (None, Some(i)) => s.serialize_i64(i),
                (None, None) => s.serialize_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(text) => s.serialize_str(text),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Safe(item))?;
                }
                seq.end()
            }
            Value::Object(map) => {
                let mut out = s.serialize_map(Some(map.len()))?;
                for (key, item) in map {
                    out.serialize_entry(key, &Safe(item))?;
                }
                out.end()
            }
        }
    }
}

/// A node summary as the derived `Serialize` of [`NodeSummary`] would write it.
pub struct Summary<'a>(pub &'a NodeSummary);

impl Serialize for Summary<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0;
        let mut out = s.serialize_struct("NodeSummary", 9)?;
        out.serialize_field("kind", n.kind)?;
        out.serialize_field("zarr_format", &n.zarr_format)?;
        out.serialize_field("attributes", &n.attributes)?;
        out.serialize_field("members", &n.members)?;
        out.serialize_field("shape", &n.shape)?;
        out.serialize_field("data_type", &n.data_type)?;
        out.serialize_field("chunks", &n.chunks)?;
        out.serialize_field("shards", &n.shards)?;
        out.serialize_field("codecs", &n.codecs)?;
        out.end()
    }
}

/// Summaries by node path, as `summarizeTree` returns them.
pub struct Summaries<'a>(pub &'a [(String, NodeSummary)]);

impl Serialize for Summaries<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_map(Some(self.0.len()))?;
        for (path, summary) in self.0 {
            out.serialize_entry(path, &Summary(summary))?;
        }
        out.end()
    }
}

/// An error as `error_to_js` writes it: `{code, message, path, key}`.
pub struct Error<'a>(pub &'a ZomError);

impl Serialize for Error<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut out = s.serialize_struct("ZomError", 4)?;
        out.serialize_field("code", e.code.as_str())?;
        out.serialize_field("message", &e.message)?;
        out.serialize_field("path", &e.path)?;
        out.serialize_field("key", &e.key)?;
        out.end()
    }
}

/// Errors as a list.
pub struct Errors<'a>(pub &'a [ZomError]);

impl Serialize for Errors<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Error))
    }
}

/// The limits as `limits::to_js` writes them (`Infinity` for none).
pub struct LimitsOut<'a>(pub &'a Limits);

impl Serialize for LimitsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_struct("Limits", Limit::ALL.len())?;
        for limit in Limit::ALL {
            let value = match self.0.get(limit) {
                u64::MAX => f64::INFINITY,
                n => n as f64,
            };
            out.serialize_field(limit.name(), &value)?;
        }
        out.end()
    }
}

/// Reads a JSON value, as deep as zom allows.
#[derive(Clone, Copy)]
pub struct JsonSeed {
    depth: u64,
}

impl JsonSeed {
    /// At the top of a value.
    pub const TOP: JsonSeed = JsonSeed { depth: 0 };
}

/// `JsonSeed::TOP` over `value`, errors as zom's error objects.
pub fn from_js(value: JsValue) -> Result<Value, JsValue> {
    JsonSeed::TOP
        .deserialize(serde_wasm_bindgen::Deserializer::from(value))
        .map_err(failed)
}

impl<'de> DeserializeSeed<'de> for JsonSeed {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.depth > MAX_JSON_DEPTH {
            return Err(de::Error::custom(format!(
                "value is nested deeper than {MAX_JSON_DEPTH} levels"
            )));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for JsonSeed {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        // Safe integers arrive as visit_i64: here only fractions, large and non-finite numbers.
        Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            E::custom(format!(
                "{f} is not a JSON number (write \"NaN\", \"Infinity\" or \"-Infinity\" as strings)"
            ))
        })
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_byte_buf<E: de::Error>(self, _: Vec<u8>) -> Result<Value, E> {
        Err(E::custom("bytes (Uint8Array) are not a JSON value here"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = JsonSeed {
            depth: self.depth + 1,
        };
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = JsonSeed {
            depth: self.depth + 1,
        };
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(inner)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// `T` read from a JS value with serde-wasm-bindgen.
pub fn from_value<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(failed)
}
