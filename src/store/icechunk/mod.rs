//! Icechunk repositories (read-only): spec version 2 (Icechunk 2.x, the `repo` file) and
//! spec version 1 (the `refs/` layout).
//!
//! Sans-I/O: every file is parsed from bytes the caller fetched: [`FileHeader`] (magic, spec
//! version, file type, compression) and the payload after it, decompressed within a bound;
//! object ids ([`ObjectId`]) in their Crockford base 32 form.

mod header;
mod id;

pub use header::{
    read_file, Compression, FileHeader, FileType, HEADER_LEN, MAGIC, MAX_SPEC_VERSION,
};
pub use id::{ChunkId, ManifestId, NodeId, ObjectId, SnapshotId};

use crate::error::ZomError;

/// The error of a file that is not what Icechunk writes.
pub(crate) fn corrupt(message: impl std::fmt::Display) -> ZomError {
    ZomError::invalid_metadata(format!("icechunk: {message}"))
}
