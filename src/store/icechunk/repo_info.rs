//! The repo info file of spec version 2 (`repo`): branches, tags, deleted tags and every
//! snapshot with its parent.

use super::flatbuffers::{Span, Table};
use super::header::{read_file, FileType};
use super::id::SnapshotId;
use super::{corrupt, object_id, required};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::Limits;

/// One snapshot as the repo info lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotSummary<'a> {
    /// The snapshot's id.
    pub id: SnapshotId,
    /// Its parent's id; `None` for the repository's first snapshot.
    pub parent: Option<SnapshotId>,
    /// When it was committed, in microseconds since the Unix epoch.
    pub flushed_at: u64,
    /// The commit message.
    pub message: &'a str,
}

#[derive(Clone, Debug)]
struct Entry {
    id: SnapshotId,
    parent: Option<u32>,
    flushed_at: u64,
    message: Span,
}

/// A parsed repo info file.
#[derive(Clone, Debug)]
pub struct RepoInfo {
    bytes: Vec<u8>,
    spec_version: u8,
    /// Sorted by id.
    snapshots: Vec<Entry>,
    /// Sorted by name; the index into `snapshots`.
    branches: Vec<(Span, u32)>,
    tags: Vec<(Span, u32)>,
    deleted_tags: Vec<Span>,
    config: Option<Span>,
}

// Slots of the schema's tables (repo.fbs), in declaration order.
const REPO_SPEC_VERSION: usize = 0;
const REPO_TAGS: usize = 1;
const REPO_BRANCHES: usize = 2;
const REPO_DELETED_TAGS: usize = 3;
const REPO_SNAPSHOTS: usize = 4;
const REPO_CONFIG: usize = 9;
const REF_NAME: usize = 0;
const REF_SNAPSHOT_INDEX: usize = 1;
const INFO_ID: usize = 0;
const INFO_PARENT_OFFSET: usize = 1;
const INFO_FLUSHED_AT: usize = 2;
const INFO_MESSAGE: usize = 3;

impl RepoInfo {
    /// Reads a repo info file (header and compressed payload), its payload bounded by
    /// [`Limits::max_document_bytes`].
    pub fn parse(file: &[u8], limits: &Limits) -> Result<RepoInfo> {
        let (header, bytes) = read_file(file, FileType::RepoInfo, limits.max_document_bytes)?;
        RepoInfo::from_payload(bytes, header.spec_version)
    }

    /// Reads a repo info file's decompressed flatbuffers payload; `spec_version` is the
    /// header's, for a payload that does not state its own.
    pub fn from_payload(bytes: Vec<u8>, spec_version: u8) -> Result<RepoInfo> {
        let root = Table::root(&bytes)?;
        let spec_version = root.u8(REPO_SPEC_VERSION, spec_version)?;
        let list = required(root.vector(REPO_SNAPSHOTS, 4)?, "repo info", "snapshots")?;
        let mut snapshots: Vec<Entry> = Vec::new();
        for i in 0..list.len() {
            let t = list.table(i)?;
            let id = required(t.inline(INFO_ID, 12)?, "snapshot info", "id")?;
            let id = object_id(id)?;
            if snapshots.last().is_some_and(|last| last.id >= id) {
                return Err(corrupt("the repo info's snapshots are not sorted by id"));
            }
            let parent = match t.i32(INFO_PARENT_OFFSET, 0)? {
                -1 => None,
                p if p >= 0 && (p as usize) < list.len() => Some(p as u32),
                p => {
                    return Err(corrupt(format!(
                        "snapshot {id} has parent index {p}, outside the {} snapshots",
                        list.len()
                    )))
                }
            };
            snapshots.push(Entry {
                id,
                parent,
                flushed_at: t.u64(INFO_FLUSHED_AT, 0)?,
                message: required(t.string_span(INFO_MESSAGE)?, "snapshot info", "message")?,
            });
        }
        let refs = |slot: usize, what: &str| -> Result<Vec<(Span, u32)>> {
            let list = required(root.vector(slot, 4)?, "repo info", what)?;
            let mut out: Vec<(Span, u32)> = Vec::new();
            for i in 0..list.len() {
                let t = list.table(i)?;
                let name = required(t.string_span(REF_NAME)?, what, "name")?;
                if out
                    .last()
                    .is_some_and(|(last, _)| last.of(&bytes) >= name.of(&bytes))
                {
                    return Err(corrupt(format!(
                        "the repo info's {what} are not sorted by name"
                    )));
                }
                let index = t.u32(REF_SNAPSHOT_INDEX, 0)?;
                if index as usize >= snapshots.len() {
                    return Err(corrupt(format!(
                        "a ref of the {what} points at snapshot {index} of {}",
                        snapshots.len()
                    )));
                }
                out.push((name, index));
            }
            Ok(out)
        };
        let branches = refs(REPO_BRANCHES, "branches")?;
        let tags = refs(REPO_TAGS, "tags")?;
        let deleted = required(
            root.vector(REPO_DELETED_TAGS, 4)?,
            "repo info",
            "deleted_tags",
        )?;
        let deleted_tags = (0..deleted.len())
            .map(|i| deleted.string_span(i))
            .collect::<Result<_>>()?;
        let config = root.bytes_span(REPO_CONFIG)?;
        Ok(RepoInfo {
            bytes,
            spec_version,
            snapshots,
            branches,
            tags,
            deleted_tags,
            config,
        })
    }

    /// The repository's spec version, as the repo info states it.
    pub fn spec_version(&self) -> u8 {
        self.spec_version
    }

    /// The repository's configuration as the file keeps it (FlexBuffers), when it has one:
    /// read with [`containers_of_repo_config`](super::containers_of_repo_config).
    pub fn config(&self) -> Option<&[u8]> {
        self.config.map(|span| span.of(&self.bytes))
    }

    fn text(&self, span: Span) -> &str {
        std::str::from_utf8(span.of(&self.bytes)).unwrap_or_default()
    }

    fn named(&self, list: &[(Span, u32)]) -> Vec<(&str, SnapshotId)> {
        list.iter()
            .map(|&(name, i)| (self.text(name), self.snapshots[i as usize].id))
            .collect()
    }

    /// The branches and the snapshot each points at, sorted by name.
    pub fn branches(&self) -> Vec<(&str, SnapshotId)> {
        self.named(&self.branches)
    }

    /// The tags and the snapshot each points at, sorted by name (deleted tags left out).
    pub fn tags(&self) -> Vec<(&str, SnapshotId)> {
        self.named(&self.tags)
    }

    /// The names of deleted tags (never to be reused).
    pub fn deleted_tags(&self) -> Vec<&str> {
        self.deleted_tags.iter().map(|&s| self.text(s)).collect()
    }

    /// The snapshot branch `name` points at.
    pub fn branch(&self, name: &str) -> Option<SnapshotId> {
        self.find(&self.branches, name)
    }

    /// The snapshot tag `name` points at.
    pub fn tag(&self, name: &str) -> Option<SnapshotId> {
        self.find(&self.tags, name)
    }

    fn find(&self, list: &[(Span, u32)], name: &str) -> Option<SnapshotId> {
        let at = list
            .binary_search_by(|(n, _)| n.of(&self.bytes).cmp(name.as_bytes()))
            .ok()?;
        Some(self.snapshots[list[at].1 as usize].id)
    }

    /// Every snapshot of the repository, sorted by id.
    pub fn snapshots(&self) -> impl Iterator<Item = SnapshotSummary<'_>> {
        self.snapshots.iter().map(|e| self.summary(e))
    }

    fn summary(&self, e: &Entry) -> SnapshotSummary<'_> {
        SnapshotSummary {
            id: e.id,
            parent: e.parent.map(|p| self.snapshots[p as usize].id),
            flushed_at: e.flushed_at,
            message: self.text(e.message),
        }
    }

    fn index(&self, id: &SnapshotId) -> Option<usize> {
        self.snapshots.binary_search_by(|e| e.id.cmp(id)).ok()
    }

    /// The snapshot `id`, when the repository has it.
    pub fn snapshot(&self, id: &SnapshotId) -> Option<SnapshotSummary<'_>> {
        self.index(id).map(|i| self.summary(&self.snapshots[i]))
    }

    /// The ancestry of snapshot `id`: itself, its parent, and so on to the first snapshot.
    /// A parent chain that loops is an error.
    pub fn ancestry(&self, id: &SnapshotId) -> Result<Vec<SnapshotSummary<'_>>> {
        let mut at = self.index(id).ok_or_else(|| {
            ZomError::new(
                ErrorCode::NotFound,
                format!("icechunk: the repository has no snapshot {id}"),
            )
        })?;
        let mut out = Vec::new();
        loop {
            if out.len() >= self.snapshots.len() {
                return Err(corrupt(format!("the ancestry of snapshot {id} loops")));
            }
            let entry = &self.snapshots[at];
            out.push(self.summary(entry));
            match entry.parent {
                Some(p) => at = p as usize,
                None => return Ok(out),
            }
        }
    }
}
