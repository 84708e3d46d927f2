//! The limits of the JS API: defaults for the whole module (`setLimits`, `getLimits`), and the
//! `limits` option of one call, whose fields override them.

use super::convert::set_own;
use super::hierarchy::count_option;
use super::{fail, option};
use crate::error::ZomError;
use crate::limits::{Limit, Limits};
use js_sys::Object;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    static DEFAULTS: Cell<Limits> = Cell::new(Limits::default());
}

/// The limits calls use when they are given none: those of `setLimits`.
pub(super) fn current() -> Limits {
    DEFAULTS.with(Cell::get)
}

/// `base` with the fields of the call's `limits` option applied.
pub(super) fn of_options(options: &JsValue, base: Limits) -> Result<Limits, ZomError> {
    apply(&option(options, "limits"), base)
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
    for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        let Some(limit) = Limit::ALL.into_iter().find(|l| l.name() == key) else {
            let names: Vec<&str> = Limit::ALL.iter().map(|l| l.name()).collect();
            return Err(ZomError::invalid_argument(format!(
                "unknown limit '{key}' (the limits are {})",
                names.join(", ")
            )));
        };
        if let Some(n) = count_option(value, limit.name())? {
            *limits.get_mut(limit) = n;
        }
    }
    Ok(limits)
}

fn to_js(limits: &Limits) -> JsValue {
    let out = Object::new();
    for limit in Limit::ALL {
        let value = match limits.get(limit) {
            u64::MAX => f64::INFINITY,
            n => n as f64,
        };
        set_own(&out, limit.name(), &JsValue::from_f64(value));
    }
    out.into()
}

/// Changes the default limits of every later call: the fields given replace the current
/// ones (`null`: every default back). Returns the limits now in force.
#[wasm_bindgen(js_name = setLimits)]
pub fn set_limits(limits: JsValue) -> Result<JsValue, JsValue> {
    let next = if limits.is_null() {
        Limits::default()
    } else {
        apply(&limits, current()).map_err(fail)?
    };
    DEFAULTS.with(|d| d.set(next));
    Ok(to_js(&next))
}

/// The default limits in force.
#[wasm_bindgen(js_name = getLimits)]
pub fn get_limits() -> JsValue {
    to_js(&current())
}
