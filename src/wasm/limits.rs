//! The limits of the JS API: the defaults for the whole module (set by `defaultLimits` in
//! `options.rs`, which also reads the `limits` option of one call, whose fields override them).

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

/// Makes `limits` the defaults of every later call.
pub(super) fn set_current(limits: Limits) {
    DEFAULTS.with(|d| d.set(limits));
}
