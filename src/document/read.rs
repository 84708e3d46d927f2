//! Typed reads of JSON values, with the error messages serde_json gives when it deserializes
//! the same Rust types from a `Value` ("invalid type: string \"x\", expected u64", "missing
//! field `shape`"). The documents in `v2` and `v3` read themselves with these rather than
//! through their derived `Deserialize`: serde's generic machinery (and with it Rust's float
//! formatting, which serde's messages reach) is a large part of the WebAssembly module.
//! `read_tests` checks both give the same results and messages.

use super::named::NamedConfig;
use serde_json::{Map, Number, Value};

/// A read's result: the error is the message serde_json would give.
pub(crate) type Read<T> = std::result::Result<T, String>;

/// How serde_json names a value in "invalid type" messages.
fn unexpected(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => number_unexpected(n),
        Value::String(_) => format!("string {}", crate::json::to_compact(value)),
        Value::Array(_) => "sequence".into(),
        Value::Object(_) => "map".into(),
    }
}

fn number_unexpected(n: &Number) -> String {
    if let Some(u) = n.as_u64() {
        format!("integer `{u}`")
    } else if let Some(i) = n.as_i64() {
        format!("integer `{i}`")
    } else {
        // serde_json's Display of a float Number is the same shortest form its messages use.
        format!("floating point `{n}`")
    }
}

/// serde's "invalid type" message for `value` where `expected` was wanted.
pub(crate) fn invalid_type(value: &Value, expected: &str) -> String {
    format!("invalid type: {}, expected {expected}", unexpected(value))
}

/// serde's message for a required field that is absent.
pub(crate) fn missing(field: &str) -> String {
    format!("missing field `{field}`")
}

/// A required field: its value, or serde's "missing field" message.
pub(crate) fn required<T>(value: Option<T>, field: &str) -> Read<T> {
    value.ok_or_else(|| missing(field))
}

/// A `u64`.
pub(crate) fn u64_of(value: &Value) -> Read<u64> {
    match value {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Ok(u),
            (None, Some(i)) => Err(format!("invalid value: integer `{i}`, expected u64")),
            (None, None) => Err(invalid_type(value, "u64")),
        },
        _ => Err(invalid_type(value, "u64")),
    }
}

/// A `String`.
pub(crate) fn string_of(value: &Value) -> Read<String> {
    string_into(value.clone())
}

/// [`string_of`], consuming the value.
pub(crate) fn string_into(value: Value) -> Read<String> {
    match value {
        Value::String(s) => Ok(s),
        _ => Err(invalid_type(&value, "a string")),
    }
}

/// A `bool`.
pub(crate) fn bool_of(value: &Value) -> Read<bool> {
    match value {
        Value::Bool(b) => Ok(*b),
        _ => Err(invalid_type(value, "a boolean")),
    }
}

/// A `Map<String, Value>`.
pub(crate) fn map_of(value: &Value) -> Read<Map<String, Value>> {
    map_into(value.clone())
}

/// [`map_of`], consuming the value.
pub(crate) fn map_into(value: Value) -> Read<Map<String, Value>> {
    match value {
        Value::Object(object) => Ok(object),
        _ => Err(invalid_type(&value, "a map")),
    }
}

/// A `Value` (any JSON).
pub(crate) fn value_of(value: &Value) -> Read<Value> {
    Ok(value.clone())
}

/// A `Vec<T>`, each item read with `item`.
pub(crate) fn vec_of<T>(value: &Value, item: fn(&Value) -> Read<T>) -> Read<Vec<T>> {
    match value {
        // A loop, not `collect` into a Result: that is an adapter of its own per item type in
        // the WebAssembly module.
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for v in items {
                out.push(item(v)?);
            }
            Ok(out)
        }
        _ => Err(invalid_type(value, "a sequence")),
    }
}

/// An `Option<T>`: `null` is `None`.
/// [`vec_of`], consuming the value.
pub(crate) fn vec_into<T>(value: Value, item: fn(Value) -> Read<T>) -> Read<Vec<T>> {
    match value {
        Value::Array(items) => items.into_iter().map(item).collect(),
        _ => Err(invalid_type(&value, "a sequence")),
    }
}

/// [`option_of`], consuming the value.
pub(crate) fn option_into<T>(value: Value, read: impl Fn(Value) -> Read<T>) -> Read<Option<T>> {
    match value {
        Value::Null => Ok(None),
        _ => read(value).map(Some),
    }
}

pub(crate) fn option_of<T>(value: &Value, read: impl Fn(&Value) -> Read<T>) -> Read<Option<T>> {
    match value {
        Value::Null => Ok(None),
        _ => read(value).map(Some),
    }
}

/// A `Vec<Option<String>>` (dimension names).
pub(crate) fn names_of(value: &Value) -> Read<Vec<Option<String>>> {
    vec_of(value, |v| option_of(v, string_of))
}

/// The object of a struct, or serde's message for `struct NAME` (`expected`).
pub(crate) fn object_of<'a>(value: &'a Value, expected: &str) -> Read<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| invalid_type(value, expected))
}

/// A list of `u64` as JSON.
pub(crate) fn u64_list(items: &[u64]) -> Value {
    Value::Array(items.iter().map(|&n| n.into()).collect())
}

/// A list of named configurations as JSON.
pub(crate) fn named_list(items: &[NamedConfig]) -> Value {
    Value::Array(items.iter().map(NamedConfig::to_value).collect())
}

/// Dimension names as JSON.
pub(crate) fn names_value(names: &Option<Vec<Option<String>>>) -> Value {
    match names {
        Some(names) => Value::Array(
            names
                .iter()
                .map(|n| n.clone().map_or(Value::Null, Value::String))
                .collect(),
        ),
        None => Value::Null,
    }
}

/// Appends `extra` to `object` as `#[serde(flatten)]` serialises it (a key already present
/// keeps its place and takes the new value).
pub(crate) fn append(object: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        object.insert(k.clone(), v.clone());
    }
}
