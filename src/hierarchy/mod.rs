//! Hierarchy access over a [`Store`]: opening nodes (consolidated metadata used when present),
//! walking a whole hierarchy into its ZOM, and reading regions of arrays with concurrent,
//! minimal requests (only the chunks a selection touches; for shards only the index and the
//! inner chunks' byte ranges).
//!
//! Everything here is generic over the async [`Store`] trait and runs on one thread: the
//! concurrency is that of the I/O (up to a limit of requests in flight), not of threads.
//! The sans-I/O pieces ([`ArrayReader`], [`crate::chunk`], [`crate::codec`]) do the work.

mod array;
mod cache;
mod hook;
mod indexes;
mod open;
mod output;
mod pending;
mod read;
mod shard;
mod walk;

pub use array::{ArrayReader, ChunkValues};
pub use cache::{CacheKey, CacheStats, CacheUse, Cached, ChunkCache, ENTRY_OVERHEAD};
pub use hook::{ChunkPart, DecodeHook, ExternalCodecs, NoHook, ReadContext, ReadOptions};
pub use indexes::{KnownIndex, ShardIndexes, DEFAULT_INDEX_CACHE_BYTES};
pub use open::{
    normalize_path, open, open_deferred, open_member, open_with, NodeKind, OpenHints, Opened,
    FIRST_DOCUMENT,
};
pub use read::{
    chunk_selection, read, read_cached, read_chunk, read_chunk_with, read_with, ReadProgress,
};
pub use walk::{walk, Follow, WalkOptions, WalkProgress, WalkResult, DEFAULT_CONCURRENCY};

use crate::error::{ErrorCode, Result, ZomError};
use crate::json;
use crate::limits::{Limit, Limits};
use crate::model::join_path;
use crate::store::Store;
use serde_json::Value;

/// The JSON document at `key` (node `path`), or `None` when the key does not exist. Store
/// errors, JSON errors and documents over the limits carry the key and the path.
pub(crate) async fn document<S: Store>(
    store: &S,
    key: &str,
    path: &str,
    limits: &Limits,
) -> Result<Option<Value>> {
    match document_text(store, key, path, limits).await? {
        None => Ok(None),
        Some(bytes) => json::parse_document(&bytes, limits)
            .map(Some)
            .map_err(|e| e.at_key(key).at_path(path)),
    }
}

/// The bytes at `key` (node `path`), unparsed, or `None` when the key does not exist. The
/// store is asked to stop reading past `maxDocumentBytes` (a hostile server's document must
/// not be held whole before it is refused). Store errors carry the key and the path.
pub(crate) async fn document_text<S: Store>(
    store: &S,
    key: &str,
    path: &str,
    limits: &Limits,
) -> Result<Option<Vec<u8>>> {
    let max = limits.max_document_bytes;
    store
        .get_within(key, max)
        .await
        .map_err(|e| match e.code {
            ErrorCode::LimitExceeded => ZomError::new(
                ErrorCode::LimitExceeded,
                format!(
                    "a metadata document's size in bytes is over the limit {} = {max} ({})",
                    Limit::DocumentBytes.name(),
                    e.message
                ),
            ),
            _ => e,
        })
        .map_err(|e| e.at_key(key).at_path(path))
}

/// An error of [`crate::model::from_documents`] run on documents relative to node `path`,
/// relocated: its key and path become relative to the store root.
pub(crate) fn keyed(mut error: ZomError, path: &str) -> ZomError {
    if path.is_empty() {
        error.path.get_or_insert_with(String::new);
        return error;
    }
    error.key = error
        .key
        .map(|k| join_path(path, k.trim_start_matches('/')));
    error.path = Some(match error.path {
        Some(p) if !p.is_empty() => join_path(path, &p),
        _ => path.to_string(),
    });
    error
}
