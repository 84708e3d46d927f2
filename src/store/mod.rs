//! The storage abstraction the hierarchy code reads through. zom's core never does I/O of
//! its own: the HTTP store (TypeScript `FetchStore`, or gloo-net for Rust callers) and any JS
//! store are adapted to this trait.

#[cfg(target_arch = "wasm32")]
mod http;
pub mod icechunk;
pub mod loads;
mod memory;
pub mod reference;
pub mod wire;
pub mod zip;

#[cfg(target_arch = "wasm32")]
pub use http::HttpStore;
pub use memory::{MemoryStore, RequestCounts};
pub use reference::{ReferenceStore, References};
pub use zip::{ZipIndex, ZipReader, ZipStore};

use crate::error::Result;
use std::collections::BTreeMap;
use std::ops::Range;

/// A read-only key/value store of a Zarr hierarchy.
///
/// Futures are not `Send`: in browsers every store lives on one thread (or one worker).
#[allow(async_fn_in_trait)]
pub trait Store {
    /// The whole value at `key`, or `None` when the key does not exist.
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>>;

    /// The whole value at `key` when the caller refuses values longer than `max` bytes (a
    /// metadata document under `maxDocumentBytes`). A store that can tell a value's length
    /// before holding it all refuses a longer one with [`ErrorCode::LimitExceeded`] instead of
    /// reading it; any other store answers as [`Store::get`] does and the caller checks.
    ///
    /// [`ErrorCode::LimitExceeded`]: crate::ErrorCode::LimitExceeded
    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        let _ = max;
        self.get(key).await
    }

    /// Bytes `range` of the value at `key`, or `None` when the key does not exist.
    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>>;

    /// The last `length` bytes of the value at `key` (a suffix request).
    async fn get_suffix(&self, key: &str, length: u64) -> Result<Option<Vec<u8>>> {
        self.get_range(key, ByteRange::Suffix(length)).await
    }

    /// The keys and sub-prefixes directly below `prefix` (a node path: `""` for the root,
    /// `"a/b"`, without slashes at either end), or `None` when the store cannot list.
    async fn list_dir(&self, _prefix: &str) -> Result<Option<Listing>> {
        Ok(None)
    }
}

/// A store read through a reference is the store itself: one store can serve several readers
/// (snapshots of one repository, archives in one folder) while its owner keeps it.
impl<S: Store + ?Sized> Store for &S {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        (**self).get(key).await
    }

    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        (**self).get_within(key, max).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        (**self).get_range(key, range).await
    }

    async fn get_suffix(&self, key: &str, length: u64) -> Result<Option<Vec<u8>>> {
        (**self).get_suffix(key, length).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        (**self).list_dir(prefix).await
    }
}

/// A byte range of a stored value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ByteRange {
    /// Bytes `start..end`.
    Bounded(Range<u64>),
    /// The last n bytes.
    Suffix(u64),
}

/// What is directly below a prefix. Entries may be full keys (`"a/b/zarr.json"`, `"a/b/c"`)
/// or bare names (`"zarr.json"`, `"c"`); readers use the last path segment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Keys directly below the prefix.
    pub keys: Vec<String>,
    /// Sub-prefixes ("directories") directly below the prefix, without trailing '/'.
    pub prefixes: Vec<String>,
}

impl Listing {
    /// The last segment of each key (the names of the values directly below the prefix).
    pub fn key_names(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().filter_map(|k| last_segment(k))
    }

    /// The last segment of each sub-prefix (the names of the "directories" below it).
    pub fn prefix_names(&self) -> impl Iterator<Item = &str> {
        self.prefixes.iter().filter_map(|k| last_segment(k))
    }
}

/// The last non-empty segment of a slash-separated key, if any.
fn last_segment(key: &str) -> Option<&str> {
    key.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
}

/// What is directly below `prefix` (a node path) among `keys` (relative to a store's root, in
/// any order; a leading `/` is ignored): full keys (`"a/b/zarr.json"`) and sub-prefixes
/// (`"a/b/c"`), each once, sorted by code point as S3 lists (prefixes with their `/`). Empty segments name nothing: `"a//b"` and `"a/"` add
/// no child. The one listing rule of the stores that hold their keys (memory, zip, references,
/// a JS `Map`); `dyn` so that it is one copy in the module.
pub(crate) fn list_keys(keys: &mut dyn Iterator<Item = &str>, prefix: &str) -> Listing {
    let prefix = prefix.trim_matches('/');
    let start = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    let (mut found, mut dirs) = (Vec::new(), Vec::new());
    for key in keys {
        let key = key.trim_start_matches('/');
        let Some(rest) = key.strip_prefix(start.as_str()) else {
            continue;
        };
        match rest.split_once('/') {
            None if !rest.is_empty() => found.push(key.to_string()),
            Some((dir, _)) if !dir.is_empty() => dirs.push(format!("{start}{dir}/")),
            _ => {}
        }
    }
    Listing {
        keys: sorted_unique(found),
        // Sorted with their '/' (S3's order: "a-b/" before "a/"), listed without it.
        prefixes: sorted_unique(dirs)
            .into_iter()
            .map(|mut dir| {
                dir.pop();
                dir
            })
            .collect(),
    }
}

/// `items` sorted by code point (UTF-8 byte order, S3's listing order), without duplicates:
/// the one order of every listing (keys, zip members, references, HTML indexes). Through a map of `String` to JSON value (which the
/// document readers have anyway) rather than a sort of `String`s: a sort is a lot of code per
/// element type in the WebAssembly module.
pub(crate) fn sorted_unique(items: Vec<String>) -> Vec<String> {
    let mut set: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    for item in items {
        set.insert(item, serde_json::Value::Null);
    }
    set.into_keys().collect()
}

#[cfg(test)]
mod tests {
    use super::list_keys;

    #[test]
    fn one_listing_rule() {
        let keys = [
            "/a/",
            "a/\u{1f600}",
            "a/\u{ff61}",
            "a/b/c",
            "a//d",
            "z",
            "a/B",
            "a/B",
            "a-b/c",
        ];
        let list = |prefix: &str| list_keys(&mut keys.iter().copied(), prefix);
        assert_eq!(list("").keys, ["z"]);
        // "a-b/" sorts before "a/", as S3 lists them.
        assert_eq!(list("").prefixes, ["a-b", "a"]);
        for prefix in ["a", "/a/", "a//"] {
            let listing = list(prefix);
            // "a/" and "a//d" name no child of "a"; code point order, each once.
            assert_eq!(
                listing.keys,
                ["a/B", "a/\u{ff61}", "a/\u{1f600}"],
                "{prefix}"
            );
            assert_eq!(listing.prefixes, ["a/b"], "{prefix}");
        }
    }
}
