//! For zom/zarrita (`ts/zarrita/`): what zarrita-style metadata means, asked of the core
//! rather than decided again in TypeScript.

use crate::codec::registry::{self, Kind};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

/// The kind of the codec a `{name, configuration}` entry names (a v3 name, `numcodecs.<id>`
/// or a bare numcodecs id), from the core's codec registry; `None` for one zom does not know.
fn kind_of(codec: &JsValue) -> Option<Kind> {
    let name = Reflect::get(codec, &JsValue::from_str("name"))
        .ok()?
        .as_string()?;
    registry::v3(&name)
        .or_else(|| registry::numcodecs(&name))
        .map(|spec| spec.kind)
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
