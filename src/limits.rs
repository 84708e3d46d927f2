//! Resource limits: how large a document, a chunk, a read, a walk or a shard index zom accepts
//! from a store or a caller before it refuses with [`ErrorCode::LimitExceeded`].
//!
//! Every size is checked against the metadata before anything is allocated, so hostile
//! metadata or bytes can neither exhaust memory nor freeze a page. One [`Limits`] value is
//! threaded through opening ([`crate::hierarchy::open_with`]), walking
//! ([`crate::hierarchy::WalkOptions::limits`]), reading ([`crate::hierarchy::ReadOptions::limits`])
//! and decoding ([`crate::codec::CodecPipeline::with_limits`],
//! [`crate::hierarchy::ArrayReader::open_with_limits`]). JS callers pass the same fields in
//! camelCase as `limits: {maxChunkBytes, …}` options, or change the defaults with `setLimits`.

use crate::error::{ErrorCode, Result, ZomError};

/// The limits zom applies to what it reads. [`Limits::default`] gives the defaults below;
/// `u64::MAX` (JS: `Infinity`) switches a limit off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest decoded chunk (a shard decoded whole counts as one), and the largest
    /// intermediate byte stream of a chunk's codecs, in bytes. Checked against the metadata
    /// before allocation. JS `maxChunkBytes`; default 1 GiB.
    pub max_chunk_bytes: u64,
    /// The largest output of one read (`get`), in bytes (variable-length data: slots × slot
    /// size). JS `maxBytes`; default 1 GiB.
    pub max_bytes: u64,
    /// The most chunks one read may touch (and the most inner chunks of one shard). JS
    /// `maxChunks`; default 1,048,576.
    pub max_chunks: u64,
    /// The largest metadata document (`zarr.json`, `.zmetadata`, …), in bytes. JS
    /// `maxDocumentBytes`; default 64 MiB.
    pub max_document_bytes: u64,
    /// The deepest nesting of JSON arrays and objects in a document. JS `maxJsonDepth`;
    /// default and maximum 127 (serde_json's own bound, which keeps parsing off the end of the
    /// stack).
    pub max_json_depth: u64,
    /// The most nodes one walk visits. JS `maxNodes`; default 1,000,000.
    pub max_nodes: u64,
    /// The largest shard index (16 bytes per inner chunk, plus its checksum), in bytes. JS
    /// `maxShardIndexBytes`; default 16 MiB (about a million inner chunks per shard).
    pub max_shard_index_bytes: u64,
}

/// The largest integer a JavaScript number holds exactly, 2^53 − 1 (`Number.MAX_SAFE_INTEGER`):
/// byte counts, offsets, chunk coordinates and JSON integers past it are refused where they
/// cross to JS or into a request. The one definition.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The deepest JSON nesting serde_json parses (its recursion limit of 128 counts the value
/// that fails), and so the highest [`Limits::max_json_depth`] that has an effect.
pub const MAX_JSON_DEPTH: u64 = 127;

impl Limits {
    /// The defaults (documented on each field).
    pub const DEFAULT: Limits = Limits {
        max_chunk_bytes: 1 << 30,
        max_bytes: 1 << 30,
        max_chunks: 1 << 20,
        max_document_bytes: 64 << 20,
        max_json_depth: MAX_JSON_DEPTH,
        max_nodes: 1_000_000,
        max_shard_index_bytes: 16 << 20,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// One of the [`Limits`], named as JS callers name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_chunk_bytes`].
    ChunkBytes,
    /// [`Limits::max_bytes`].
    Bytes,
    /// [`Limits::max_chunks`].
    Chunks,
    /// [`Limits::max_document_bytes`].
    DocumentBytes,
    /// [`Limits::max_json_depth`].
    JsonDepth,
    /// [`Limits::max_nodes`].
    Nodes,
    /// [`Limits::max_shard_index_bytes`].
    ShardIndexBytes,
}

impl Limit {
    /// Every limit, in the order of the [`Limits`] fields.
    pub const ALL: [Limit; 7] = [
        Limit::ChunkBytes,
        Limit::Bytes,
        Limit::Chunks,
        Limit::DocumentBytes,
        Limit::JsonDepth,
        Limit::Nodes,
        Limit::ShardIndexBytes,
    ];

    /// The JS option name (`"maxChunkBytes"`), which error messages quote.
    pub fn name(self) -> &'static str {
        match self {
            Limit::ChunkBytes => "maxChunkBytes",
            Limit::Bytes => "maxBytes",
            Limit::Chunks => "maxChunks",
            Limit::DocumentBytes => "maxDocumentBytes",
            Limit::JsonDepth => "maxJsonDepth",
            Limit::Nodes => "maxNodes",
            Limit::ShardIndexBytes => "maxShardIndexBytes",
        }
    }
}

impl Limits {
    /// The value of one limit.
    pub fn get(&self, limit: Limit) -> u64 {
        match limit {
            Limit::ChunkBytes => self.max_chunk_bytes,
            Limit::Bytes => self.max_bytes,
            Limit::Chunks => self.max_chunks,
            Limit::DocumentBytes => self.max_document_bytes,
            Limit::JsonDepth => self.max_json_depth,
            Limit::Nodes => self.max_nodes,
            Limit::ShardIndexBytes => self.max_shard_index_bytes,
        }
    }

    /// A mutable reference to one limit.
    pub fn get_mut(&mut self, limit: Limit) -> &mut u64 {
        match limit {
            Limit::ChunkBytes => &mut self.max_chunk_bytes,
            Limit::Bytes => &mut self.max_bytes,
            Limit::Chunks => &mut self.max_chunks,
            Limit::DocumentBytes => &mut self.max_document_bytes,
            Limit::JsonDepth => &mut self.max_json_depth,
            Limit::Nodes => &mut self.max_nodes,
            Limit::ShardIndexBytes => &mut self.max_shard_index_bytes,
        }
    }

    /// Refuses `value` over `limit` with a [`ErrorCode::LimitExceeded`] error whose message
    /// says what (`what`, e.g. "a decoded chunk's size in bytes"), the value, the limit's JS name and
    /// its value.
    pub fn check(&self, limit: Limit, value: u64, what: &str) -> Result<()> {
        let max = self.get(limit);
        if value > max {
            return Err(exceeded(limit, max, value, what));
        }
        Ok(())
    }
}

/// The [`ErrorCode::LimitExceeded`] error of `value` over `max`, the value of `limit`.
pub fn exceeded(limit: Limit, max: u64, value: u64, what: &str) -> ZomError {
    ZomError::new(
        ErrorCode::LimitExceeded,
        format!("{what} is {value}, over the limit {} = {max}", limit.name()),
    )
}

#[cfg(test)]
mod tests {
    use super::{Limit, Limits};
    use crate::ErrorCode;

    #[test]
    fn check_names_the_limit_and_both_values() {
        let mut limits = Limits::default();
        *limits.get_mut(Limit::Nodes) = 3;
        assert!(limits.check(Limit::Nodes, 3, "nodes").is_ok());
        let e = limits
            .check(Limit::Nodes, 4, "the walk's node count")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert_eq!(
            e.message,
            "the walk's node count is 4, over the limit maxNodes = 3"
        );
        for limit in Limit::ALL {
            assert_eq!(
                Limits::default().get(limit),
                *Limits::default().get_mut(limit)
            );
            assert!(limit.name().starts_with("max"));
        }
    }
}
