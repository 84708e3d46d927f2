//! Kerchunk references for the TypeScript `ReferenceStore` (`ts/store/reference.ts`): the
//! document is read here once ([`crate::store::reference`]) and TypeScript asks where each key's
//! value is, then does the I/O. Targets cross as small arrays: no JSON text for a few fields.

use super::convert::bytes_of;
use super::{fail, limits, plain};
use crate::error::ZomError;
use crate::store::reference::{check_references, Plan};
use crate::store::{ByteRange, References};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

/// The document's bytes: a string, a Uint8Array or an ArrayBuffer.
fn document(text: &JsValue) -> Result<Vec<u8>, JsValue> {
    bytes_of(text).ok_or_else(|| {
        fail(ZomError::invalid_argument(
            "kerchunk references are JSON text: a string, a Uint8Array or an ArrayBuffer",
        ))
    })
}

/// A kerchunk reference document read into a table (key → inline bytes or a target range).
#[wasm_bindgen]
pub struct ReferenceIndex {
    refs: References,
}

#[wasm_bindgen]
impl ReferenceIndex {
    /// Reads the document `text` whose own URL or path is `base` (targets are resolved against
    /// it). Throws an InvalidMetadata error naming the JSON pointer of the first problem, with
    /// `key` set to `base` (LimitExceeded for a document over the current limits).
    #[wasm_bindgen(constructor)]
    pub fn new(text: JsValue, base: &str) -> Result<ReferenceIndex, JsValue> {
        let bytes = document(&text)?;
        let refs = References::parse(&bytes, base, &limits::current()).map_err(fail)?;
        Ok(ReferenceIndex { refs })
    }

    /// What to read for the value of `key`, or part of it (`offset` ≥ 0: `length` bytes from
    /// there; `offset` < 0 and `length` ≥ 0: the last `length` bytes; both < 0: all of it), as
    /// [`References::plan`] says: undefined (no such key), a Uint8Array (the bytes
    /// themselves), or `[url, kind, x, y]` — kind 0: all of the target; 1: bytes `x..y`, which
    /// must all be there; 2: bytes `x..y`, cut to the target; 3: its last `x` bytes.
    pub fn plan(&self, key: &str, offset: f64, length: f64) -> JsValue {
        let range = match (offset >= 0.0, length >= 0.0) {
            (true, _) => Some(ByteRange::Bounded(
                offset as u64..(offset as u64).saturating_add(length.max(0.0) as u64),
            )),
            (false, true) => Some(ByteRange::Suffix(length as u64)),
            (false, false) => None,
        };
        let (url, kind, x, y) = match self.refs.plan(key, range) {
            None => return JsValue::UNDEFINED,
            Some(Plan::Bytes(bytes)) => return Uint8Array::from(bytes).into(),
            Some(Plan::Read { url, range, exact }) => match range {
                None => (url, 0, 0, 0),
                Some(ByteRange::Bounded(r)) => (url, if exact { 1 } else { 2 }, r.start, r.end),
                Some(ByteRange::Suffix(n)) => (url, 3, n, 0),
            },
        };
        let num = |n: u64| JsValue::from_f64(n as f64);
        Array::of4(
            &JsValue::from_str(url),
            &JsValue::from(kind),
            &num(x),
            &num(y),
        )
        .into()
    }

    /// What is directly below `prefix` (a node path): the keys, then the sub-prefixes each
    /// ending in '/', all without a leading '/'.
    pub fn list(&self, prefix: &str) -> Vec<String> {
        let listing = self.refs.list_dir(prefix);
        let mut out = listing.keys;
        out.extend(listing.prefixes.into_iter().map(|p| p + "/"));
        out
    }

    /// How many keys the references hold.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> f64 {
        self.refs.len() as f64
    }
}

/// The problems of a kerchunk reference document (string or bytes):
/// `[{path, loc, kind, message, severity}]`, empty when it reads.
#[wasm_bindgen(js_name = checkReferences)]
pub fn check_references_js(text: JsValue) -> Result<JsValue, JsValue> {
    let bytes = document(&text)?;
    Ok(plain::problems(&check_references(
        &bytes,
        &limits::current(),
    )))
}
