//! JSON values across the JS boundary. Integers a JS number cannot hold exactly (beyond
//! ±(2^53 − 1)) travel as BigInt, in both directions; everything else is plain JS data.

use crate::error::ZomError;
use crate::limits::MAX_JSON_DEPTH;
use js_sys::{Array, BigInt, Function, Object, Reflect, Uint8Array};
use serde_json::{Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

const MAX_SAFE_INTEGER: f64 = crate::limits::MAX_SAFE_INTEGER as f64;

/// Chunk coordinates from JS numbers (a non-number is NaN): each a non-negative integer no
/// larger than 2^53 − 1, or InvalidSelection. The one check of the bindings that take
/// coordinates.
pub fn chunk_coords(values: impl IntoIterator<Item = f64>) -> Result<Vec<u64>, ZomError> {
    let mut out = Vec::new();
    for c in values {
        if !(c >= 0.0 && c.fract() == 0.0 && c <= MAX_SAFE_INTEGER) {
            return Err(ZomError::new(
                crate::ErrorCode::InvalidSelection,
                "chunk coordinates must be non-negative integers",
            ));
        }
        out.push(c as u64);
    }
    Ok(out)
}

/// Converts a JSON value into a JS value.
///
/// Containers with many values go as JSON text through `JSON.parse`: one boundary crossing
/// instead of one per value and key.
/// Values with an integer a JS number cannot hold (a BigInt in JS) are built piece by piece.
pub fn to_js(value: &Value) -> JsValue {
    let large = match value {
        Value::Array(items) => items.len() > 8,
        Value::Object(map) => map.len() > 8 || map.values().any(|v| v.is_object()),
        _ => false,
    };
    if large {
        let (text, written) = crate::json::to_compact_checked(value);
        if let Some(parsed) = parse_written(&text, written) {
            return parsed;
        }
    }
    to_js_each(value)
}

/// The ZOM JSON of a node as a JS value: its text written straight from the node
/// ([`crate::model::write_zom`]) through `JSON.parse`, or its value built piece by piece when
/// the text holds an integer a JS number cannot hold or nests deeper than JSON text may.
pub fn node_to_js(node: crate::model::Node) -> JsValue {
    let (text, written) = crate::model::write_zom(&node);
    let parsed = String::from_utf8(text)
        .ok()
        .and_then(|text| parse_written(&text, written));
    // Built piece by piece, the value gives the same JS values (BigInt where they must be).
    parsed.unwrap_or_else(|| to_js_each(&node.into_value()))
}

/// `JSON.parse` of text zom wrote, when it holds no integer a JS number cannot hold and nests
/// no deeper than JSON text may; `None` otherwise (the value is then built piece by piece).
fn parse_written(text: &str, written: zom_json::text::Written) -> Option<JsValue> {
    let depth_ok = u64::try_from(written.depth).is_ok_and(|d| d <= MAX_JSON_DEPTH);
    if written.unsafe_integer || !depth_ok {
        return None;
    }
    js_sys::JSON::parse(text).ok()
}

/// [`to_js`], one value at a time.
fn to_js_each(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => number_to_js(n),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => {
            let array = Array::new_with_length(u32::try_from(items.len()).unwrap_or(u32::MAX));
            for (i, item) in items.iter().enumerate() {
                array.set(u32::try_from(i).unwrap_or(u32::MAX), to_js_each(item));
            }
            array.into()
        }
        Value::Object(map) => {
            let object = Object::new();
            for (key, item) in map {
                set_own(&object, key, &to_js_each(item));
            }
            object.into()
        }
    }
}

/// Sets an own data property, also for the key `__proto__` (which plain assignment would
/// treat as a prototype change).
pub fn set_own(object: &Object, key: &str, value: &JsValue) {
    if key == "__proto__" {
        let descriptor = Object::new();
        let _ = Reflect::set(&descriptor, &"value".into(), value);
        let _ = Reflect::set(&descriptor, &"enumerable".into(), &JsValue::TRUE);
        let _ = Reflect::set(&descriptor, &"writable".into(), &JsValue::TRUE);
        let _ = Reflect::set(&descriptor, &"configurable".into(), &JsValue::TRUE);
        Object::define_property(object, &JsValue::from_str(key), &descriptor);
    } else {
        let _ = Reflect::set(object, &JsValue::from_str(key), value);
    }
}

fn number_to_js(n: &Number) -> JsValue {
    if let Some(u) = n.as_u64() {
        if (u as f64) <= MAX_SAFE_INTEGER {
            JsValue::from_f64(u as f64)
        } else {
            BigInt::from(u).into()
        }
    } else if let Some(i) = n.as_i64() {
        if (i as f64) >= -MAX_SAFE_INTEGER {
            JsValue::from_f64(i as f64)
        } else {
            BigInt::from(i).into()
        }
    } else {
        JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Converts a JS value into JSON. `undefined` is `null`; functions, symbols, NaN and
/// infinities are refused; a Map becomes an object; BigInts become 64-bit integers.
pub fn from_js(value: &JsValue) -> Result<Value, ZomError> {
    from_js_at(value, 0)
}

fn from_js_at(value: &JsValue, depth: usize) -> Result<Value, ZomError> {
    if u64::try_from(depth).map_or(true, |d| d > MAX_JSON_DEPTH) {
        return Err(ZomError::invalid_argument(format!(
            "value is nested deeper than {MAX_JSON_DEPTH} levels"
        )));
    }
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(f) = value.as_f64() {
        return number_from_f64(f);
    }
    if let Some(s) = value.as_string() {
        return Ok(Value::String(s));
    }
    if value.is_bigint() {
        let text: String = BigInt::unchecked_from_js_ref(value)
            .to_string(10)
            .map(String::from)
            .unwrap_or_default();
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(ZomError::invalid_argument(format!(
            "BigInt {text} does not fit in 64 bits"
        )));
    }
    if Array::is_array(value) {
        let array = as_array(value);
        let mut items = Vec::with_capacity(array.length() as usize);
        for item in array.iter() {
            items.push(from_js_at(&item, depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    if let Some(map) = value.dyn_ref::<js_sys::Map>() {
        let mut out = Map::new();
        let mut failure = None;
        map.for_each(&mut |item, key| {
            if failure.is_some() {
                return;
            }
            match (key.as_string(), from_js_at(&item, depth + 1)) {
                (Some(k), Ok(v)) => {
                    out.insert(k, v);
                }
                (None, _) => failure = Some(ZomError::invalid_argument("Map keys must be strings")),
                (_, Err(e)) => failure = Some(e),
            }
        });
        return match failure {
            Some(e) => Err(e),
            None => Ok(Value::Object(out)),
        };
    }
    if value.is_instance_of::<Uint8Array>() {
        return Err(ZomError::invalid_argument(
            "bytes (Uint8Array) are not a JSON value here",
        ));
    }
    if value.is_object() && !value.is_function() {
        let mut out = Map::new();
        for entry in Object::entries(Object::unchecked_from_js_ref(value)).iter() {
            let pair = as_array(&entry);
            let key = pair.get(0).as_string().unwrap_or_default();
            let item = pair.get(1);
            if item.is_undefined() {
                continue; // as JSON.stringify does
            }
            out.insert(key, from_js_at(&item, depth + 1)?);
        }
        return Ok(Value::Object(out));
    }
    Err(ZomError::invalid_argument(
        "functions and symbols are not JSON values",
    ))
}

fn number_from_f64(f: f64) -> Result<Value, ZomError> {
    if !f.is_finite() {
        return Err(ZomError::invalid_argument(format!(
            "{} is not a JSON number (write \"NaN\", \"Infinity\" or \"-Infinity\" as strings)",
            crate::json::display_f64(f)
        )));
    }
    // -0 stays a float: zarr-python writes a fill value of -0.0, and an integer would lose the sign.
    if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER && !(f == 0.0 && f.is_sign_negative()) {
        // Exact: |f| ≤ 2^53 fits i64 without rounding.
        return Ok(Value::from(f as i64));
    }
    Ok(Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null))
}

/// Bytes of a JS value that holds a document: a Uint8Array, an ArrayBuffer or a string.
pub fn bytes_of(value: &JsValue) -> Option<Vec<u8>> {
    if let Some(s) = value.as_string() {
        return Some(s.into_bytes());
    }
    if value.is_instance_of::<Uint8Array>() {
        return Some(value.unchecked_ref::<Uint8Array>().to_vec());
    }
    if value.is_instance_of::<js_sys::ArrayBuffer>() {
        return Some(Uint8Array::new(value).to_vec());
    }
    None
}

/// A JS value known to be an array, seen as one.
pub fn as_array(value: &JsValue) -> &Array {
    value.unchecked_ref::<Array>()
}

/// Calls a progress callback, ignoring what it throws.
/// The event has the fields `names` (a progress shape of `boundary`) with `values`, and the
/// fields of `more` besides.
pub fn report<const N: usize>(
    callback: Option<&Function>,
    names: [&str; N],
    values: [u64; N],
    more: &[(&str, &JsValue)],
) {
    let Some(function) = callback else {
        return;
    };
    let event = Object::new();
    for (name, value) in names.into_iter().zip(values) {
        set_own(&event, name, &JsValue::from_f64(value as f64));
    }
    for (name, value) in more {
        set_own(&event, name, value);
    }
    let _ = function.call1(&JsValue::NULL, &event);
}
