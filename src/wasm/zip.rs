//! Zip archives for the TypeScript `ZipStore` (`ts/store/zip.ts`): [`ZipArchive`] wraps the
//! core's [`ZipIndex`], which says which bytes of the archive to fetch for a read and turns
//! the fetched bytes into the member's. The TypeScript side only fetches.
//!
//! Few exports on purpose: each costs its own glue in the module.

use super::fail;
use crate::store::wire::MAX_SAFE;
use crate::store::zip::{Fetch, Opened, Want, TAIL_LENGTH};
use crate::store::{ByteRange, ZipIndex};
use wasm_bindgen::prelude::*;

/// A zip archive's index (see `src/store/zip/`).
#[wasm_bindgen]
pub struct ZipArchive {
    index: ZipIndex,
}

/// A byte count from JS: a non-negative safe integer (anything else: the largest).
fn count(x: f64) -> u64 {
    if x.is_finite() && x >= 0.0 && x <= MAX_SAFE as f64 {
        x as u64
    } else {
        MAX_SAFE
    }
}

#[wasm_bindgen]
impl ZipArchive {
    /// How many bytes of the archive's end to read first (a suffix range).
    #[wasm_bindgen(js_name = tailLength)]
    pub fn tail_length() -> f64 {
        TAIL_LENGTH as f64
    }

    /// The index from the archive's last bytes (and the central directory, when read
    /// separately): a ZipArchive, or `[start, end]` (a Float64Array), the directory's range
    /// to read and pass in a second call. `root`: the hierarchy's folder in the archive
    /// (undefined: found).
    pub fn open(
        tail: &[u8],
        directory: Option<Box<[u8]>>,
        root: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let opened = match directory {
            Some(dir) => ZipIndex::with_directory(tail, &dir, root.as_deref()).map(Opened::Index),
            None => ZipIndex::open(tail, root.as_deref()),
        };
        Ok(match opened.map_err(fail)? {
            Opened::Index(index) => ZipArchive { index }.into(),
            Opened::NeedDirectory(r) => {
                js_sys::Float64Array::from(&[r.start as f64, r.end as f64][..]).into()
            }
        })
    }

    /// The hierarchy's folder in the archive ("" or "data.zarr/").
    #[wasm_bindgen(getter)]
    pub fn root(&self) -> String {
        self.index.root().to_string()
    }

    /// What to fetch for member `key` (undefined: no such member), as `[kind, start, end]`:
    /// `mode` 0 the whole member (over `a` bytes throws LimitExceeded), 1 `b` bytes from `a`,
    /// 2 the last `a` bytes. Kinds: 0 the local header and data, or 1 the local header: pass
    /// the bytes to `accept`; 2 this range of the archive is the answer; 3 the answer is
    /// empty; 4 read the member whole and keep bytes `start..end` of it.
    pub fn plan(&self, key: &str, mode: u8, a: f64, b: f64) -> Result<Option<Box<[f64]>>, JsValue> {
        let (a, b) = (count(a), count(b));
        let want = match mode {
            0 => Want::Whole(a),
            1 => Want::Range(ByteRange::Bounded(a..a.saturating_add(b))),
            _ => Want::Range(ByteRange::Suffix(a)),
        };
        let Some(fetch) = self.index.plan(key, &want).map_err(fail)? else {
            return Ok(None);
        };
        let (kind, range) = match fetch {
            Fetch::Member(r) => (0, r),
            Fetch::Header(r) => (1, r),
            Fetch::Archive(r) => (2, r),
            Fetch::Empty => (3, 0..0),
            Fetch::Decoded(r) => (4, r),
        };
        Ok(Some(Box::new([
            kind as f64,
            range.start as f64,
            range.end as f64,
        ])))
    }

    /// The member's bytes from what a plan of kind 0 or 1 fetched (checked, inflated), or
    /// undefined when the local header placed the data elsewhere: plan again.
    pub fn accept(
        &mut self,
        key: &str,
        fetched: &[u8],
        max: f64,
    ) -> Result<Option<Vec<u8>>, JsValue> {
        self.index.accept(key, fetched, count(max)).map_err(fail)
    }

    /// What is directly below `prefix` (a node path): `{keys, prefixes}`, absolute
    /// ("/a/zarr.json", "/a/b/").
    pub fn list(&self, prefix: &str) -> JsValue {
        let listing = self.index.list(prefix);
        let keys: Vec<String> = listing.keys.iter().map(|k| format!("/{k}")).collect();
        let prefixes: Vec<String> = listing.prefixes.iter().map(|p| format!("/{p}/")).collect();
        super::plain::listing(&keys, &prefixes)
    }
}
