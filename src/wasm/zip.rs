//! Zip archives for the TypeScript `ZipStore` (`ts/store/zip.ts`), in a part of their own
//! (Cargo.toml's `bind-zip`), loaded when an archive is opened: [`ZipArchive`] is the core's
//! [`ZipReader`] (the central directory, member lookup, local headers, inflating under the size
//! bound, the members kept whole for ranges) over the JS store holding the archive, read
//! through the JS store bridge (`store.rs`). The part links its inflater, so deflated members
//! need no codec part. The TypeScript side only says where the archive is.
//!
//! Few exports on purpose: each costs its own glue in the module.

use super::store::{absolute_listing, read_request, JsStore};
use super::{fail, promise};
use crate::store::zip::Want;
use crate::store::ZipReader;
use js_sys::{Promise, Uint8Array};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A zip archive held by a JS store, read as a store.
#[wasm_bindgen]
pub struct ZipArchive {
    shared: Rc<Archive>,
}

struct Archive {
    reader: ZipReader,
    /// The JS store holding the archive (zarrita's shape, with `getRange`).
    source: JsValue,
    /// The archive's key in `source`.
    key: String,
}

#[wasm_bindgen]
impl ZipArchive {
    /// Opens the archive at `key` of `source` (a JS store with `getRange`): a Promise of a
    /// ZipArchive. One suffix read, a second for a large central directory. `root`: the
    /// hierarchy's folder in the archive (undefined: found); `signal` aborts the reads.
    pub fn open(source: JsValue, key: String, root: Option<String>, signal: JsValue) -> Promise {
        promise(Box::pin(async move {
            let store = JsStore::new(&source, signal).map_err(fail)?;
            let reader = ZipReader::open(&store, &key, root.as_deref())
                .await
                .map_err(fail)?;
            let shared = Rc::new(Archive {
                reader,
                source,
                key,
            });
            Ok(ZipArchive { shared }.into())
        }))
    }

    /// The hierarchy's folder in the archive ("" or "data.zarr/").
    #[wasm_bindgen(getter)]
    pub fn root(&self) -> String {
        self.shared.reader.index().root().to_string()
    }

    /// A Promise of the member at `key` (undefined: no such member), checked and inflated:
    /// `mode`, `a`, `b` as [`read_request`] reads them (all of it: over `a` bytes rejects with
    /// LimitExceeded; a range: fewer at its end). `signal` aborts the reads.
    pub fn read(&self, key: String, mode: u8, a: f64, b: f64, signal: JsValue) -> Promise {
        let shared = self.shared.clone();
        promise(Box::pin(async move {
            let want = match read_request(mode, a, b) {
                (None, max) => Want::Whole(max),
                (Some(range), _) => Want::Range(range),
            };
            let store = JsStore::new(&shared.source, signal).map_err(fail)?;
            let read = shared.reader.read(&store, &shared.key, &key, want).await;
            // Errors are located: at the member's key, or the archive's for a failed read.
            Ok(match read.map_err(fail)? {
                Some(bytes) => Uint8Array::from(bytes.as_slice()).into(),
                None => JsValue::UNDEFINED,
            })
        }))
    }

    /// What is directly below `prefix` (a node path): `{keys, prefixes}`, absolute
    /// ("/a/zarr.json", "/a/b/").
    pub fn list(&self, prefix: &str) -> JsValue {
        absolute_listing(&self.shared.reader.list(prefix))
    }
}
