//! The codecs the caller implements in JS (ts/codecs.ts `registerCodec`).

use wasm_bindgen::prelude::*;

/// Sets the codec names the caller implements in this instance (TypeScript `registerCodec`;
/// each decode worker's instance is sent the same list): arrays opened afterwards apply those
/// codecs through the read's `decodeExternal` function (see `crate::codec::ExternalStep`).
#[wasm_bindgen(js_name = setRegisteredCodecs)]
pub fn set_registered_codecs(names: Vec<String>) {
    crate::codec::set_registered(names);
}
