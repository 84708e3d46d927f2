//! The storage abstraction the hierarchy code reads through. zom's core never does I/O of
//! its own: the HTTP store (TypeScript `FetchStore`, or gloo-net for Rust callers) and any JS
//! store are adapted to this trait.

use crate::error::Result;
use std::ops::Range;

/// A read-only key/value store of a Zarr hierarchy.
///
/// Futures are not `Send`: in browsers every store lives on one thread (or one worker).
#[allow(async_fn_in_trait)]
pub trait Store {
    /// The whole value at `key`, or `None` when the key does not exist.
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>>;

    /// Bytes `range` of the value at `key`, or `None` when the key does not exist.
    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>>;

    /// The last `length` bytes of the value at `key` (a suffix request).
    async fn get_suffix(&self, key: &str, length: u64) -> Result<Option<Vec<u8>>> {
        self.get_range(key, ByteRange::Suffix(length)).await
    }

    /// The keys and sub-prefixes directly below `prefix`, if the store can list.
    async fn list_dir(&self, _prefix: &str) -> Result<Option<Listing>> {
        Ok(None)
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

/// What is directly below a prefix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Keys directly below the prefix.
    pub keys: Vec<String>,
    /// Sub-prefixes ("directories") directly below the prefix, without trailing '/'.
    pub prefixes: Vec<String>,
}
