//! The limits of the JS API: defaults for the whole module (`setLimits`, `getLimits`), and the
//! `limits` option of one call, whose fields override them.

use super::{fail, option};
use crate::error::ZomError;
use crate::limits::{Limit, Limits};
use js_sys::Object;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    static DEFAULTS: Cell<Limits> = const { Cell::new(Limits::DEFAULT) };
}

/// A non-negative integer option (absent: `None`).
pub(super) fn count_option(options: &JsValue, name: &str) -> Result<Option<u64>, ZomError> {
    let value = option(options, name);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(f) if f == f64::INFINITY => Ok(Some(u64::MAX)),
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f as u64)),
        _ => Err(ZomError::invalid_argument(format!(
            "option '{name}' must be a non-negative integer"
        ))),
    }
}

/// The limits calls use when they are given none: those of `setLimits`.
pub(super) fn current() -> Limits {
    DEFAULTS.with(Cell::get)
}

/// `base` with the fields of the call's `limits` option applied.
pub(super) fn of_options(options: &JsValue, base: Limits) -> Result<Limits, ZomError> {
    apply(&option(options, "limits"), base)
}

/// The default limits with the fields of a JS object applied (a worker's copy of an array's).
pub(super) fn of_object(value: &JsValue) -> Result<Limits, ZomError> {
    apply(value, Limits::DEFAULT)
}

/// `limits` with the fields of a JS object (`{maxChunkBytes, …}`: non-negative integers or
/// `Infinity`) applied. Unknown fields are refused: a misspelt limit would be silently unset.
fn apply(value: &JsValue, mut limits: Limits) -> Result<Limits, ZomError> {
    if value.is_undefined() || value.is_null() {
        return Ok(limits);
    }
    if !value.is_object() {
        return Err(ZomError::invalid_argument("limits must be an object"));
    }
    let mut known = 0u32;
    for limit in Limit::ALL {
        if let Some(n) = count_option(value, limit.name())? {
            *limits.get_mut(limit) = n;
            known = known.saturating_add(1);
        }
    }
    if Object::keys(value.unchecked_ref::<Object>()).length() > known {
        return Err(ZomError::invalid_argument(
            "limits has a field that is not a limit (maxChunkBytes, maxBytes, maxChunks, \
             maxDocumentBytes, maxJsonDepth, maxNodes, maxShardIndexBytes)",
        ));
    }
    Ok(limits)
}

/// The limits as a JS object (`{maxChunkBytes, …}`, `Infinity` for none).
pub(super) fn to_js(limits: &Limits) -> JsValue {
    super::plain::limits(limits)
}

/// The default limits of every later call: `undefined` leaves them; an object's fields replace
/// the current ones; `null` puts every default back. Returns the limits now in force (the
/// TypeScript `setLimits` and `getLimits`).
#[wasm_bindgen(js_name = defaultLimits)]
pub fn default_limits(limits: JsValue) -> Result<JsValue, JsValue> {
    let next = if limits.is_null() {
        Limits::DEFAULT
    } else {
        apply(&limits, current()).map_err(fail)?
    };
    DEFAULTS.with(|d| d.set(next));
    Ok(to_js(&next))
}

/// Sets the codec names the caller implements in this instance (TypeScript `registerCodec`;
/// each decode worker's instance is sent the same list): arrays opened afterwards apply those
/// codecs through the read's `decodeExternal` function (see `crate::codec::ExternalStep`).
#[wasm_bindgen(js_name = setRegisteredCodecs)]
pub fn set_registered_codecs(names: Vec<String>) {
    crate::codec::set_registered(names);
}
