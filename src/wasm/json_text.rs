//! JSON across the boundary: documents given as JS values, JSON text or bytes, and JSON text
//! to and from JS values, BigInt-safe both ways.

use super::convert::{bytes_of, from_js, to_js};
use super::{fail, limits, JsResult};
use crate::json;
use crate::model::Node;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A JSON value from a JS object, or from JSON text / bytes (parsed under the default limits).
pub(super) fn json_input(value: &JsValue) -> Result<Value, JsValue> {
    json_input_with(value, &limits::current())
}

/// A JSON value from a JS object, or from JSON text / bytes parsed under `limits`.
pub(super) fn json_input_with(value: &JsValue, limits: &crate::Limits) -> Result<Value, JsValue> {
    match bytes_of(value) {
        Some(bytes) => json::parse_document(&bytes, limits).map_err(fail),
        None => from_js(value).map_err(fail),
    }
}

/// A ZOM node from a JS object, or from JSON text / bytes.
pub(super) fn zom_input(value: &JsValue) -> Result<Node, JsValue> {
    Node::from_value(&json_input(value)?).map_err(fail)
}

/// JSON text of any value (BigInt-safe), with `indent` spaces (0 = compact).
#[cfg(feature = "bind-tools")]
#[wasm_bindgen]
pub fn stringify(value: JsValue, indent: Option<u32>) -> Result<String, JsValue> {
    let json = from_js(&value).map_err(fail)?;
    Ok(match indent.unwrap_or(0) {
        0 => json::to_compact(&json),
        n => json::to_indented(&json, n.min(16) as usize),
    })
}

/// Parses JSON text; integers beyond ±(2^53 − 1) become BigInt.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen(js_name = parseJson)]
pub fn parse_json(text: &str) -> JsResult {
    let value = json::parse_document(text.as_bytes(), &limits::current()).map_err(fail)?;
    Ok(to_js(&value))
}
