//! For zom/zarrita (`ts/zarrita/`): what zarrita-style metadata means, asked of the core
//! rather than decided again in TypeScript.

use crate::codec::registry::{self, Kind};
use crate::error::{ErrorCode, ZomError};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

/// The kind of the codec `name` names (a v3 name, `numcodecs.<id>` or a bare numcodecs id),
/// from the core's codec registry; `None` for one zom does not know.
fn kind_named(name: &str) -> Option<Kind> {
    registry::v3(name)
        .or_else(|| registry::numcodecs(name))
        .map(|spec| spec.kind)
}

/// The kind of the codec a `{name, configuration}` entry names ([`kind_named`]).
fn kind_of(codec: &JsValue) -> Option<Kind> {
    let name = Reflect::get(codec, &JsValue::from_str("name"))
        .ok()?
        .as_string()?;
    kind_named(&name)
}

/// `codecs` (v3 `{name, configuration}` entries) with `fallback` (the array → bytes codec of
/// the data type) before the first bytes → bytes codec when none takes the array to bytes:
/// zarrita leaves the `bytes` codec implicit. The same array when one does.
#[wasm_bindgen(js_name = withArrayToBytes)]
pub fn with_array_to_bytes(codecs: Array, fallback: JsValue) -> Array {
    if codecs
        .iter()
        .any(|c| kind_of(&c) == Some(Kind::ArrayToBytes))
    {
        return codecs;
    }
    let at = codecs
        .iter()
        .position(|c| kind_of(&c) == Some(Kind::BytesToBytes))
        .unwrap_or(codecs.length() as usize);
    let out = Array::new();
    for (i, codec) in codecs.iter().enumerate() {
        if i == at {
            out.push(&fallback);
        }
        out.push(&codec);
    }
    if at == codecs.length() as usize {
        out.push(&fallback);
    }
    out
}

/// The layout zarrita gives an array's values in, from its metadata (a `zarr.json`, a
/// `.zarray` or a ZOM array node): the order of the first `transpose` codec of the chunks'
/// pipeline (for a sharded array its inner codecs) — `"F"` or a permutation — else v2's
/// `order`, else `"C"`.
#[wasm_bindgen(js_name = storedOrder)]
pub fn stored_order(meta: JsValue) -> JsValue {
    let get = |v: &JsValue, key: &str| {
        Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    };
    let name_is = |c: &JsValue, name: &str| get(c, "name").as_string().as_deref() == Some(name);
    let codecs = get(&meta, "codecs");
    if Array::is_array(&codecs) {
        let mut list = Array::from(&codecs);
        if let Some(sharding) = list.iter().find(|c| name_is(c, "sharding_indexed")) {
            let inner = get(&get(&sharding, "configuration"), "codecs");
            list = if Array::is_array(&inner) {
                Array::from(&inner)
            } else {
                Array::new()
            };
        }
        if let Some(transpose) = list.iter().find(|c| name_is(c, "transpose")) {
            let order = get(&get(&transpose, "configuration"), "order");
            if Array::is_array(&order) || order.as_string().as_deref() == Some("F") {
                return order;
            }
        }
        return JsValue::from_str("C");
    }
    let order = get(&meta, "order").as_string();
    JsValue::from_str(if order.as_deref() == Some("F") {
        "F"
    } else {
        "C"
    })
}

/// An integer selection bound from JS (`null`/`undefined`: none), or a located error.
fn bound(value: Option<f64>, what: &str) -> Result<Option<i64>, JsValue> {
    match value {
        None => Ok(None),
        Some(v) if v.fract() == 0.0 && v.abs() <= 9_007_199_254_740_991.0 => Ok(Some(v as i64)),
        Some(v) => Err(invalid_selection(format!(
            "slice {what} {} is not an integer",
            crate::json::display_f64(v)
        ))),
    }
}

fn invalid_selection(message: String) -> JsValue {
    super::fail(ZomError::new(ErrorCode::InvalidSelection, message))
}

/// Python's `slice(start, stop, step).indices(length)` as `[start, stop, step]` (zarrita's
/// `sliceIndices`), by the rule the core's selections use.
#[wasm_bindgen(js_name = sliceIndices)]
pub fn slice_indices(
    start: Option<f64>,
    stop: Option<f64>,
    step: Option<f64>,
    length: f64,
) -> Result<Array, JsValue> {
    let len = bound(Some(length), "length")?
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| {
            invalid_selection(format!(
                "a dimension's length must be a non-negative integer, not {}",
                crate::json::display_f64(length)
            ))
        })?;
    let (start, stop, step) = crate::chunk::slice_indices(
        bound(start, "start")?,
        bound(stop, "stop")?,
        bound(step, "step")?,
        len,
    )
    .ok_or_else(|| invalid_selection("slice step cannot be zero".into()))?;
    // Each is within ±(2^53 + 1): exact as a JS number.
    Ok(Array::of3(
        &JsValue::from_f64(start as f64),
        &JsValue::from_f64(stop as f64),
        &JsValue::from_f64(step as f64),
    ))
}

/// The kind of the codec `name` names (a v3 name, `numcodecs.<id>` or a bare numcodecs id) in
/// zarrita's words: `"array_to_array"`, `"array_to_bytes"` or `"bytes_to_bytes"`; `undefined`
/// for one zom does not know.
#[wasm_bindgen(js_name = codecKind)]
pub fn codec_kind(name: &str) -> Option<String> {
    Some(
        match kind_named(name)? {
            Kind::ArrayToArray => "array_to_array",
            Kind::ArrayToBytes => "array_to_bytes",
            Kind::BytesToBytes => "bytes_to_bytes",
        }
        .to_string(),
    )
}
