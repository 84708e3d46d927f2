//! Kerchunk references for the TypeScript `ReferenceStore` (`ts/store/reference.ts`), in a
//! part of their own (Cargo.toml's `bind-references`), loaded when a store is made or a
//! document checked: the document is read here once ([`crate::store::reference`]), and each read is the core's
//! [`References::read`] (the plan of a key's bytes, the limits, the checks of what a target
//! gave) over the caller's targets (HTTP or local files) as a store keyed by URL, which only
//! fetches.

use super::convert::bytes_of;
use super::store::{absolute_listing, JsStore};
use super::{fail, limits, plain, promise};
use crate::error::ZomError;
use crate::store::reference::check_references;
use crate::store::{ByteRange, References};
use js_sys::{Promise, Uint8Array};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The document's bytes: a string, a Uint8Array or an ArrayBuffer.
fn document(text: &JsValue) -> Result<Vec<u8>, JsValue> {
    bytes_of(text).ok_or_else(|| {
        fail(ZomError::invalid_argument(
            "kerchunk references are JSON text: a string, a Uint8Array or an ArrayBuffer",
        ))
    })
}

/// A kerchunk reference document read into a table (key → inline bytes or a target range),
/// with the targets its values are read from.
#[wasm_bindgen]
pub struct ReferenceIndex {
    shared: Rc<(References, JsValue)>,
}

#[wasm_bindgen]
impl ReferenceIndex {
    /// Reads the document `text` whose own URL or path is `base` (targets are resolved against
    /// it) and whose targets `targets` reads: a store with zarrita's shape whose keys are the
    /// target URLs (`get` with `maxBytes`, `getRange`). Throws an InvalidMetadata
    /// error naming the JSON pointer of the first problem, with `key` set to `base`
    /// (LimitExceeded for a document over the current limits).
    #[wasm_bindgen(constructor)]
    pub fn new(text: JsValue, base: &str, targets: JsValue) -> Result<ReferenceIndex, JsValue> {
        let bytes = document(&text)?;
        let refs = References::parse(&bytes, base, &limits::current()).map_err(fail)?;
        Ok(ReferenceIndex {
            shared: Rc::new((refs, targets)),
        })
    }

    /// A Promise of the value of `key` (undefined: no such key), or part of it (`offset` ≥ 0:
    /// `length` bytes from there; `offset` < 0 and `length` ≥ 0: the last `length` bytes; both
    /// < 0: all of it), at most `max` bytes (LimitExceeded). `signal` aborts the reads.
    pub fn read(
        &self,
        key: String,
        offset: f64,
        length: f64,
        max: f64,
        signal: JsValue,
    ) -> Promise {
        let shared = self.shared.clone();
        promise(Box::pin(async move {
            let (refs, targets) = (&shared.0, &shared.1);
            let range = match (offset >= 0.0, length >= 0.0) {
                (true, _) => Some(ByteRange::Bounded(
                    offset as u64..(offset as u64).saturating_add(length.max(0.0) as u64),
                )),
                (false, true) => Some(ByteRange::Suffix(length as u64)),
                (false, false) => None,
            };
            let store = JsStore::new(targets, signal).map_err(fail)?.verbatim();
            let max = if max.is_finite() && max >= 0.0 {
                max as u64
            } else {
                u64::MAX
            };
            Ok(
                match refs.read(&store, &key, range, max).await.map_err(fail)? {
                    Some(bytes) => Uint8Array::from(bytes.as_slice()).into(),
                    None => JsValue::UNDEFINED,
                },
            )
        }))
    }

    /// What is directly below `prefix` (a node path): `{keys, prefixes}`, absolute
    /// ("/a/.zarray", "/a/b/").
    pub fn list(&self, prefix: &str) -> JsValue {
        absolute_listing(&self.shared.0.list_dir(prefix))
    }

    /// How many keys the references hold.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> f64 {
        self.shared.0.len() as f64
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
