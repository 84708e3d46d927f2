//! The module's runtime plumbing: the panic hook installed at instantiation, the one
//! Promise-making function every async binding goes through, and how core errors reach JS.

use super::plain::error as error_to_js;
use crate::error::ZomError;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

/// What a binding returns: a JS value, or the error object it throws.
pub(super) type JsResult = Result<JsValue, JsValue>;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Runs when the module is instantiated: a panic (always a zom bug) is reported on the
/// console with its message and location before the instance stops.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("zom: internal error (please report it): {info}"));
    }));
}

/// The Promise of an async binding. Every one goes through this one non-generic function: one
/// copy of the executor glue (`future_to_promise` is generic over the future) for them all.
pub(super) fn promise(
    future: std::pin::Pin<Box<dyn std::future::Future<Output = JsResult>>>,
) -> Promise {
    wasm_bindgen_futures::future_to_promise(future)
}

/// A core error as the plain object JS receives (and ts/ turns into a ZomError).
pub(super) fn fail(error: ZomError) -> JsValue {
    error_to_js(&error)
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
