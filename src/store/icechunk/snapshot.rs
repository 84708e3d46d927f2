//! Snapshot files (`snapshots/{id}`): the node tree of one version of the repository, each
//! node's Zarr metadata, and for each array the manifests holding its chunk references.

use super::flatbuffers::{Span, Table};
use super::header::{read_file, FileType};
use super::id::{ManifestId, NodeId, SnapshotId};
use super::{corrupt, object_id, required};
use crate::error::Result;
use crate::limits::{Limit, Limits};

/// Whether a node is a group or an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A group.
    Group,
    /// An array.
    Array,
}

/// One node of a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeView<'a> {
    /// The node's id, stable across snapshots.
    pub id: NodeId,
    /// Its absolute path: `/` for the root, `/a/b` below it.
    pub path: &'a str,
    /// Group or array.
    pub kind: NodeKind,
    /// Its `zarr.json`, as Icechunk stores it and serves it to Zarr readers.
    pub zarr_json: &'a [u8],
}

/// A pointer from an array to a manifest holding some of its chunk references: those whose
/// coordinates are inside `extents` (per dimension, `from..to`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestRef {
    /// The manifest's id (its file is `manifests/{id}`).
    pub id: ManifestId,
    /// Per dimension, the chunk coordinates it covers, end exclusive.
    pub extents: Vec<std::ops::Range<u32>>,
}

impl ManifestRef {
    /// Whether the manifest covers the chunk at `coords`.
    pub fn covers(&self, coords: &[u32]) -> bool {
        self.extents.len() == coords.len()
            && self.extents.iter().zip(coords).all(|(r, c)| r.contains(c))
    }
}

/// A manifest file as the snapshot lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManifestFileInfo {
    /// The manifest's id.
    pub id: ManifestId,
    /// Its size in bytes, as the writer recorded it.
    pub size_bytes: u64,
    /// How many chunk references it holds.
    pub num_chunk_refs: u32,
}

#[derive(Clone, Debug)]
struct Node {
    id: NodeId,
    path: Span,
    zarr_json: Span,
    /// Where the node's ArrayNodeData table is; `None` for a group.
    array: Option<usize>,
}

/// A parsed snapshot file.
#[derive(Clone, Debug)]
pub struct Snapshot {
    bytes: Vec<u8>,
    spec_version: u8,
    id: SnapshotId,
    parent_id: Option<SnapshotId>,
    flushed_at: u64,
    message: Span,
    /// Sorted by path, byte-wise.
    nodes: Vec<Node>,
    manifest_files: Vec<ManifestFileInfo>,
}

// Slots of the schema's tables (snapshot.fbs), in declaration order; a union takes two slots,
// its type and its value.
const SNAPSHOT_ID: usize = 0;
const SNAPSHOT_PARENT_ID: usize = 1;
const SNAPSHOT_NODES: usize = 2;
const SNAPSHOT_FLUSHED_AT: usize = 3;
const SNAPSHOT_MESSAGE: usize = 4;
const SNAPSHOT_MANIFEST_FILES: usize = 6;
const SNAPSHOT_MANIFEST_FILES_V2: usize = 7;
const NODE_ID: usize = 0;
const NODE_PATH: usize = 1;
const NODE_USER_DATA: usize = 2;
const NODE_DATA_TYPE: usize = 3;
const NODE_DATA: usize = 4;
const ARRAY_MANIFESTS: usize = 2;
const MANIFEST_REF_ID: usize = 0;
const MANIFEST_REF_EXTENTS: usize = 1;
const FILE_INFO_V2_ID: usize = 0;
const FILE_INFO_V2_SIZE: usize = 1;
const FILE_INFO_V2_COUNT: usize = 2;
/// The union's type codes of `NodeData`.
const NODE_DATA_ARRAY: u8 = 1;
const NODE_DATA_GROUP: u8 = 2;
/// `ManifestFileInfo` (spec version 1): id (12 bytes), 4 of padding, size (u64), count (u32),
/// 4 of padding.
const FILE_INFO_V1_SIZE: usize = 32;

/// Whether `path` is a node path as the spec defines it: absolute, `/`-separated, no trailing
/// `/` but for the root, no empty, `.` or `..` segment.
pub fn is_node_path(path: &str) -> bool {
    path == "/"
        || path.strip_prefix('/').is_some_and(|rest| {
            rest.split('/')
                .all(|s| !s.is_empty() && s != "." && s != "..")
        })
}

impl Snapshot {
    /// Reads a snapshot file (header and compressed payload), its payload bounded by
    /// [`Limits::max_document_bytes`] and its node count by [`Limits::max_nodes`].
    pub fn parse(file: &[u8], limits: &Limits) -> Result<Snapshot> {
        let (header, bytes) = read_file(file, FileType::Snapshot, limits.max_document_bytes)?;
        Snapshot::from_payload(bytes, header.spec_version, limits)
    }

    /// Reads a snapshot file's decompressed flatbuffers payload, written in `spec_version`,
    /// its node count bounded by [`Limits::max_nodes`].
    pub fn from_payload(bytes: Vec<u8>, spec_version: u8, limits: &Limits) -> Result<Snapshot> {
        let root = Table::root(&bytes)?;
        let id = object_id(required(root.inline(SNAPSHOT_ID, 12)?, "snapshot", "id")?)?;
        let parent_id = root
            .inline(SNAPSHOT_PARENT_ID, 12)?
            .map(object_id)
            .transpose()?;
        let list = required(root.vector(SNAPSHOT_NODES, 4)?, "snapshot", "nodes")?;
        limits.check(
            Limit::Nodes,
            list.len() as u64,
            "the number of nodes of an Icechunk snapshot",
        )?;
        let mut nodes: Vec<Node> = Vec::new();
        for i in 0..list.len() {
            let t = list.table(i)?;
            let path = required(t.string_span(NODE_PATH)?, "node", "path")?;
            let text = std::str::from_utf8(path.of(&bytes)).unwrap_or_default();
            if !is_node_path(text) {
                return Err(corrupt(format!("'{text}' is not a node path")));
            }
            // Strictly increasing paths: no node twice, so the tree has no cycle to follow.
            if nodes
                .last()
                .is_some_and(|last| last.path.of(&bytes) >= path.of(&bytes))
            {
                return Err(corrupt(format!(
                    "the snapshot's nodes are not sorted by path, or '{text}' is there twice"
                )));
            }
            let node_id = required(t.inline(NODE_ID, 8)?, "node", "id")?;
            let zarr_json = required(t.bytes_span(NODE_USER_DATA)?, "node", "user_data")?;
            let data = required(t.table(NODE_DATA)?, "node", "node_data")?;
            let array = match t.u8(NODE_DATA_TYPE, 0)? {
                NODE_DATA_ARRAY => {
                    required(data.vector(ARRAY_MANIFESTS, 4)?, "array node", "manifests")?;
                    Some(data.position())
                }
                NODE_DATA_GROUP => None,
                other => {
                    return Err(corrupt(format!(
                        "node '{text}' has node data of unknown type {other}"
                    )))
                }
            };
            nodes.push(Node {
                id: object_id(node_id)?,
                path,
                zarr_json,
                array,
            });
        }
        let manifest_files = match root.vector(SNAPSHOT_MANIFEST_FILES_V2, 4)? {
            Some(v2) if !v2.is_empty() => (0..v2.len())
                .map(|i| {
                    let t = v2.table(i)?;
                    Ok(ManifestFileInfo {
                        id: object_id(required(
                            t.inline(FILE_INFO_V2_ID, 12)?,
                            "manifest file info",
                            "id",
                        )?)?,
                        size_bytes: t.u64(FILE_INFO_V2_SIZE, 0)?,
                        num_chunk_refs: t.u32(FILE_INFO_V2_COUNT, 0)?,
                    })
                })
                .collect::<Result<_>>()?,
            _ => {
                let v1 = required(
                    root.vector(SNAPSHOT_MANIFEST_FILES, FILE_INFO_V1_SIZE)?,
                    "snapshot",
                    "manifest_files",
                )?;
                (0..v1.len())
                    .map(|i| {
                        let e = v1.element(i)?;
                        let u64_at = |at: usize| {
                            u64::from_le_bytes(e[at..at + 8].try_into().unwrap_or_default())
                        };
                        Ok(ManifestFileInfo {
                            id: object_id(&e[..12])?,
                            size_bytes: u64_at(16),
                            num_chunk_refs: u32::from_le_bytes(
                                e[24..28].try_into().unwrap_or_default(),
                            ),
                        })
                    })
                    .collect::<Result<_>>()?
            }
        };
        Ok(Snapshot {
            spec_version,
            id,
            parent_id,
            flushed_at: root.u64(SNAPSHOT_FLUSHED_AT, 0)?,
            message: required(root.string_span(SNAPSHOT_MESSAGE)?, "snapshot", "message")?,
            nodes,
            manifest_files,
            bytes,
        })
    }

    /// The spec version of the file.
    pub fn spec_version(&self) -> u8 {
        self.spec_version
    }

    /// The snapshot's id.
    pub fn id(&self) -> SnapshotId {
        self.id
    }

    /// The parent's id as the file states it: spec version 1 only (version 2 keeps parents in
    /// the repo info).
    pub fn parent_id(&self) -> Option<SnapshotId> {
        self.parent_id
    }

    /// When it was committed, in microseconds since the Unix epoch.
    pub fn flushed_at(&self) -> u64 {
        self.flushed_at
    }

    /// The commit message.
    pub fn message(&self) -> &str {
        self.text(self.message)
    }

    fn text(&self, span: Span) -> &str {
        std::str::from_utf8(span.of(&self.bytes)).unwrap_or_default()
    }

    fn view(&self, node: &Node) -> NodeView<'_> {
        NodeView {
            id: node.id,
            path: self.text(node.path),
            kind: if node.array.is_some() {
                NodeKind::Array
            } else {
                NodeKind::Group
            },
            zarr_json: node.zarr_json.of(&self.bytes),
        }
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether it has no node (a repository's first snapshot has none).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node, sorted by path.
    pub fn nodes(&self) -> impl Iterator<Item = NodeView<'_>> {
        self.nodes.iter().map(|n| self.view(n))
    }

    fn find(&self, path: &str) -> Option<&Node> {
        let at = self
            .nodes
            .binary_search_by(|n| n.path.of(&self.bytes).cmp(path.as_bytes()))
            .ok()?;
        self.nodes.get(at)
    }

    /// The node at `path` (absolute: `/`, `/a/b`).
    pub fn node(&self, path: &str) -> Option<NodeView<'_>> {
        self.find(path).map(|n| self.view(n))
    }

    /// The manifests of the array at `path` (empty when it has no chunk written; `None` when
    /// there is no array there).
    pub fn manifest_refs(&self, path: &str) -> Result<Option<Vec<ManifestRef>>> {
        let Some(at) = self.find(path).and_then(|n| n.array) else {
            return Ok(None);
        };
        let data = Table::at(&self.bytes, at)?;
        let list = required(data.vector(ARRAY_MANIFESTS, 4)?, "array node", "manifests")?;
        let mut out = Vec::new();
        for i in 0..list.len() {
            let t = list.table(i)?;
            let id = object_id(required(
                t.inline(MANIFEST_REF_ID, 12)?,
                "manifest ref",
                "object_id",
            )?)?;
            let extents = required(
                t.vector(MANIFEST_REF_EXTENTS, 8)?,
                "manifest ref",
                "extents",
            )?;
            let extents = (0..extents.len())
                .map(|d| {
                    let e = extents.element(d)?;
                    let from = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                    let to = u32::from_le_bytes([e[4], e[5], e[6], e[7]]);
                    Ok(from..to)
                })
                .collect::<Result<_>>()?;
            out.push(ManifestRef { id, extents });
        }
        Ok(Some(out))
    }

    /// The manifest files the snapshot points to, as it lists them.
    pub fn manifest_files(&self) -> &[ManifestFileInfo] {
        &self.manifest_files
    }
}
