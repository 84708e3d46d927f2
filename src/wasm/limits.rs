//! The limits of the JS API: defaults for the whole module (`setLimits`, `getLimits`); the
//! `limits` option of one call, whose fields override them, is read in `options.rs`.

use super::fail;
use super::options::LimitsSet;
use crate::limits::Limits;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    static DEFAULTS: Cell<Limits> = const { Cell::new(Limits::DEFAULT) };
}

/// The limits calls use when they are given none: those of `setLimits`.
pub(super) fn current() -> Limits {
    DEFAULTS.with(Cell::get)
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
        LimitsSet::of(&limits).map_err(fail)?.over(current())
    };
    DEFAULTS.with(|d| d.set(next));
    Ok(to_js(&next))
}
