//! Icechunk repositories (read-only): spec version 2 (Icechunk 2.x, the `repo` file) and
//! spec version 1 (the `refs/` layout), read as Zarr stores.
//!
//! Sans-I/O first: every file is parsed from bytes the caller fetched: [`FileHeader`] (magic,
//! spec version, file type, compression), [`RepoInfo`] (branches, tags, snapshots and their
//! parents), [`Snapshot`] (the node tree, each node's `zarr.json`, each array's manifests),
//! [`Manifest`] (chunk references: inline, native, virtual), [`parse_v1_ref`] (a spec
//! version 1 ref file), [`containers_of_repo_config`] and [`containers_of_config_yaml`] (the
//! virtual chunk containers a configuration declares: spec version 2 keeps it in the repo info
//! file, FlexBuffers; spec version 1 in `config.yaml`). [`Repository`] resolves refs and
//! ancestry through a [`Store`] holding the repository's files, and [`IcechunkStore`] serves
//! one snapshot as a Zarr store, reading a virtual chunk only inside a known container.
//!
//! Everything read is hostile: payloads decompress to at most
//! [`Limits::max_document_bytes`](crate::Limits::max_document_bytes), a snapshot has at most
//! [`Limits::max_nodes`](crate::Limits::max_nodes) nodes, every flatbuffers offset and vector
//! length is checked against the file before it is followed, node paths must be strictly
//! sorted (so no node is there twice) and a parent chain that loops is refused; a
//! configuration's containers are at most [`Limits::max_nodes`](crate::Limits::max_nodes),
//! their text within [`Limits::max_document_bytes`](crate::Limits::max_document_bytes), and
//! `config.yaml` nests at most [`Limits::max_json_depth`](crate::Limits::max_json_depth) deep.
//!
//! [`Store`]: crate::store::Store

#[cfg(test)]
mod build;
mod checksum;
mod config;
#[cfg(test)]
mod config_tests;
pub mod flatbuffers;
mod flexbuffers;
mod header;
mod id;
mod manifest;
mod repo_info;
mod repository;
mod snapshot;
mod store;
#[cfg(test)]
mod tests;
mod yaml;

pub use checksum::{NoValidatedReads, ValidatedRead, Validators};
pub use config::{
    containers_of_config_yaml, containers_of_repo_config, ContainerStore, VirtualChunkContainer,
    CONFIG_KEY,
};
pub use header::{
    read_file, Compression, FileHeader, FileType, HEADER_LEN, MAGIC, MAX_SPEC_VERSION,
};
pub use id::{ChunkId, ManifestId, NodeId, ObjectId, SnapshotId};
pub use manifest::{Checksum, ChunkRef, Manifest, MAX_LOCATION_BYTES};
pub use repo_info::{RepoInfo, SnapshotSummary};
pub use repository::{
    chunk_key, manifest_key, parse_v1_ref, snapshot_key, v1_branch_key, v1_tag_key,
    v1_tag_tombstone_key, RefSpec, Repository, REPO_KEY,
};
pub use snapshot::{is_node_path, ManifestFileInfo, ManifestRef, NodeKind, NodeView, Snapshot};
pub use store::{ChunkLocation, IcechunkStore, ObjectRange};

use crate::error::{Result, ZomError};

/// The error of a file that is not what Icechunk writes.
pub(crate) fn corrupt(message: impl std::fmt::Display) -> ZomError {
    ZomError::invalid_metadata(format!("icechunk: {message}"))
}

/// A field the schema marks required.
fn required<T>(value: Option<T>, table: &str, field: &str) -> Result<T> {
    value.ok_or_else(|| corrupt(format!("a {table} has no '{field}'")))
}

/// The id in `bytes` (of exactly `N` bytes: the readers pass struct fields of that size).
fn object_id<const N: usize>(bytes: &[u8]) -> Result<ObjectId<N>> {
    ObjectId::from_slice(bytes)
        .ok_or_else(|| corrupt(format!("an id of {} bytes, not {N}", bytes.len())))
}
