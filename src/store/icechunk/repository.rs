//! A repository's refs and history over a store holding its files: spec version 2 reads them
//! from the repo info file, spec version 1 from the JSON files under `refs/` and the parent
//! ids in snapshots.

use super::config::{self, VirtualChunkContainer, CONFIG_KEY};
use super::id::{ChunkId, ManifestId, SnapshotId};
use super::repo_info::RepoInfo;
use super::snapshot::Snapshot;
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits};
use crate::store::Store;
use std::collections::BTreeSet;

/// The key of the repo info file (spec version 2).
pub const REPO_KEY: &str = "repo";

/// The key of snapshot `id`'s file.
pub fn snapshot_key(id: &SnapshotId) -> String {
    format!("snapshots/{id}")
}

/// The key of manifest `id`'s file.
pub fn manifest_key(id: &ManifestId) -> String {
    format!("manifests/{id}")
}

/// The key of chunk file `id`.
pub fn chunk_key(id: &ChunkId) -> String {
    format!("chunks/{id}")
}

fn ref_name(name: &str) -> Result<&str> {
    if name.is_empty() || name.contains('/') {
        return Err(ZomError::invalid_argument(format!(
            "icechunk: '{name}' is not a branch or tag name (empty, or with a '/')"
        )));
    }
    Ok(name)
}

/// The key of branch `name`'s ref file in spec version 1.
pub fn v1_branch_key(name: &str) -> Result<String> {
    Ok(format!("refs/branch.{}/ref.json", ref_name(name)?))
}

/// The key of tag `name`'s ref file in spec version 1.
pub fn v1_tag_key(name: &str) -> Result<String> {
    Ok(format!("refs/tag.{}/ref.json", ref_name(name)?))
}

/// The key of the file whose presence marks tag `name` deleted in spec version 1 (the spec
/// text says `refs/tags.NAME/…`; Icechunk writes `refs/tag.NAME/ref.json.deleted`).
pub fn v1_tag_tombstone_key(name: &str) -> Result<String> {
    Ok(format!("{}.deleted", v1_tag_key(name)?))
}

/// Reads a spec version 1 ref file: `{"snapshot": "<id>"}`.
pub fn parse_v1_ref(bytes: &[u8]) -> Result<SnapshotId> {
    let not_a_ref =
        |why: &str| super::corrupt(format!("a ref file is not {{\"snapshot\": id}}: {why}"));
    let file = crate::json::parse_text(bytes).map_err(|e| not_a_ref(&e.message))?;
    let snapshot = match file.get("snapshot") {
        Some(serde_json::Value::String(id)) => id,
        Some(_) => return Err(not_a_ref("its snapshot is not a string")),
        None if file.is_object() => return Err(not_a_ref("it has no snapshot")),
        None => return Err(not_a_ref("it is not an object")),
    };
    SnapshotId::parse(snapshot).map_err(|e| super::corrupt(e.message))
}

/// Which version of a repository to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefSpec {
    /// The tip of a branch.
    Branch(String),
    /// A tag.
    Tag(String),
    /// A snapshot by id.
    Snapshot(SnapshotId),
}

impl Default for RefSpec {
    /// Branch `main`, the branch every repository has.
    fn default() -> Self {
        RefSpec::Branch("main".to_string())
    }
}

/// How a repository keeps its refs.
#[derive(Clone, Debug)]
enum Layout {
    /// Spec version 2: the repo info file.
    V2(Box<RepoInfo>),
    /// Spec version 1: ref files under `refs/`.
    V1,
}

/// A repository opened for reading: its refs, its history, its snapshots, and the virtual
/// chunk containers its configuration declares.
#[derive(Clone, Debug)]
pub struct Repository {
    layout: Layout,
    limits: Limits,
    containers: Vec<VirtualChunkContainer>,
}

fn not_found(what: String, key: &str) -> ZomError {
    ZomError::new(ErrorCode::NotFound, format!("icechunk: {what}")).at_key(key)
}

/// The file at `key` of `store`, bounded by [`Limits::max_document_bytes`].
pub(crate) async fn fetch<S: Store>(
    store: &S,
    key: &str,
    limits: &Limits,
    what: &str,
) -> Result<Vec<u8>> {
    let bytes = store
        .get_within(key, limits.max_document_bytes)
        .await
        .map_err(|e| e.at_key(key))?
        .ok_or_else(|| not_found(format!("no {what}"), key))?;
    limits
        .check(
            Limit::DocumentBytes,
            bytes.len() as u64,
            "an Icechunk file's size in bytes",
        )
        .map_err(|e| e.at_key(key))?;
    Ok(bytes)
}

impl Repository {
    /// The repository of a parsed repo info file (spec version 2), its virtual chunk
    /// containers read from the configuration the file holds.
    pub fn from_repo_info(info: RepoInfo, limits: &Limits) -> Result<Repository> {
        let containers = match info.config() {
            Some(bytes) => config::containers_of_repo_config(bytes, limits)?,
            None => Vec::new(),
        };
        Ok(Repository {
            layout: Layout::V2(Box::new(info)),
            limits: *limits,
            containers,
        })
    }

    /// A repository of spec version 1, whose refs are read from `refs/` as needed, and whose
    /// virtual chunk containers are those of `config_yaml` (its `config.yaml`, when it has one).
    pub fn v1(config_yaml: Option<&[u8]>, limits: &Limits) -> Result<Repository> {
        let containers = match config_yaml {
            Some(bytes) => config::containers_of_config_yaml(bytes, limits)?,
            None => Vec::new(),
        };
        Ok(Repository {
            layout: Layout::V1,
            limits: *limits,
            containers,
        })
    }

    /// Opens the repository whose files `store` holds: the repo info file when there is one
    /// (spec version 2), else branch `main`'s ref file and `config.yaml` (spec version 1).
    pub async fn open<S: Store>(store: &S, limits: &Limits) -> Result<Repository> {
        if let Some(file) = store
            .get_within(REPO_KEY, limits.max_document_bytes)
            .await?
        {
            let info = RepoInfo::parse(&file, limits).map_err(|e| e.at_key(REPO_KEY))?;
            return Repository::from_repo_info(info, limits).map_err(|e| e.at_key(REPO_KEY));
        }
        let main = v1_branch_key("main")?;
        if store.get(&main).await?.is_some() {
            let config = store
                .get_within(CONFIG_KEY, limits.max_document_bytes)
                .await
                .map_err(|e| e.at_key(CONFIG_KEY))?;
            return Repository::v1(config.as_deref(), limits).map_err(|e| e.at_key(CONFIG_KEY));
        }
        Err(not_found(
            "no Icechunk repository here: neither a repo file (spec version 2) nor refs/branch.main/ref.json (spec version 1)".to_string(),
            REPO_KEY,
        ))
    }

    /// The virtual chunk containers the repository's configuration declares, sorted by URL
    /// prefix (those icechunk itself ignores left out: see [`VirtualChunkContainer::new`]).
    pub fn virtual_chunk_containers(&self) -> &[VirtualChunkContainer] {
        &self.containers
    }

    /// The spec version of the repository's layout: 2 with a repo info file, else 1.
    pub fn spec_version(&self) -> u8 {
        match &self.layout {
            Layout::V2(info) => info.spec_version(),
            Layout::V1 => 1,
        }
    }

    /// The repo info (spec version 2).
    pub fn repo_info(&self) -> Option<&RepoInfo> {
        match &self.layout {
            Layout::V2(info) => Some(info),
            Layout::V1 => None,
        }
    }

    /// The snapshot `spec` names. A snapshot id is checked against the repo info when there
    /// is one (spec version 1 has no list of snapshots: it is checked when read).
    pub async fn resolve<S: Store>(&self, store: &S, spec: &RefSpec) -> Result<SnapshotId> {
        match (&self.layout, spec) {
            (Layout::V2(info), RefSpec::Branch(name)) => info
                .branch(name)
                .ok_or_else(|| not_found(format!("no branch '{name}'"), REPO_KEY)),
            (Layout::V2(info), RefSpec::Tag(name)) => info
                .tag(name)
                .ok_or_else(|| not_found(format!("no tag '{name}'"), REPO_KEY)),
            (Layout::V2(info), RefSpec::Snapshot(id)) => match info.snapshot(id) {
                Some(_) => Ok(*id),
                None => Err(not_found(format!("no snapshot {id}"), REPO_KEY)),
            },
            (Layout::V1, RefSpec::Branch(name)) => {
                let key = v1_branch_key(name)?;
                let file = fetch(store, &key, &self.limits, &format!("branch '{name}'")).await?;
                parse_v1_ref(&file).map_err(|e| e.at_key(key))
            }
            (Layout::V1, RefSpec::Tag(name)) => {
                let tombstone = v1_tag_tombstone_key(name)?;
                if store
                    .get_within(&tombstone, self.limits.max_document_bytes)
                    .await?
                    .is_some()
                {
                    return Err(not_found(format!("tag '{name}' was deleted"), &tombstone));
                }
                let key = v1_tag_key(name)?;
                let file = fetch(store, &key, &self.limits, &format!("tag '{name}'")).await?;
                parse_v1_ref(&file).map_err(|e| e.at_key(key))
            }
            (Layout::V1, RefSpec::Snapshot(id)) => Ok(*id),
        }
    }

    /// The branches and their snapshots, sorted by name. Spec version 1 lists `refs/`, so
    /// the store must be able to list.
    pub async fn branches<S: Store>(&self, store: &S) -> Result<Vec<(String, SnapshotId)>> {
        match &self.layout {
            Layout::V2(info) => Ok(owned(info.branches())),
            Layout::V1 => self.v1_refs(store, "branch.").await,
        }
    }

    /// The tags and their snapshots, sorted by name, deleted tags left out. Spec version 1
    /// lists `refs/`, as for [`Repository::branches`].
    pub async fn tags<S: Store>(&self, store: &S) -> Result<Vec<(String, SnapshotId)>> {
        match &self.layout {
            Layout::V2(info) => Ok(owned(info.tags())),
            Layout::V1 => self.v1_refs(store, "tag.").await,
        }
    }

    async fn v1_refs<S: Store>(&self, store: &S, kind: &str) -> Result<Vec<(String, SnapshotId)>> {
        let listing = store.list_dir("refs").await?.ok_or_else(|| {
            ZomError::invalid_argument(
                "icechunk: the store cannot list, and a spec version 1 repository's refs are found by listing refs/",
            )
        })?;
        let mut out = Vec::new();
        for name in listing.prefix_names().filter_map(|p| p.strip_prefix(kind)) {
            let spec = match kind {
                "tag." => RefSpec::Tag(name.to_string()),
                _ => RefSpec::Branch(name.to_string()),
            };
            match self.resolve(store, &spec).await {
                Ok(id) => out.push((name.to_string(), id)),
                Err(e) if e.code == ErrorCode::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// Reads snapshot `id`.
    pub async fn snapshot<S: Store>(&self, store: &S, id: &SnapshotId) -> Result<Snapshot> {
        let key = snapshot_key(id);
        let file = fetch(store, &key, &self.limits, &format!("snapshot {id}")).await?;
        let snapshot = Snapshot::parse(&file, &self.limits).map_err(|e| e.at_key(&key))?;
        if snapshot.id() != *id {
            let message = format!("the file of snapshot {id} holds snapshot {}", snapshot.id());
            return Err(super::corrupt(message).at_key(key));
        }
        Ok(snapshot)
    }

    /// The ancestry of snapshot `id`, newest first: itself, its parent, and so on to the
    /// repository's first snapshot. Spec version 1 reads each snapshot for its parent, at
    /// most [`Limits::max_nodes`] of them; a parent chain that loops is an error.
    pub async fn ancestry<S: Store>(&self, store: &S, id: &SnapshotId) -> Result<Vec<SnapshotId>> {
        if let Layout::V2(info) = &self.layout {
            let chain = info.ancestry(id).map_err(|e| e.at_key(REPO_KEY))?;
            return Ok(chain.into_iter().map(|s| s.id).collect());
        }
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let mut at = Some(*id);
        while let Some(id) = at {
            if !seen.insert(id) {
                let message = format!("the ancestry of snapshot {} loops at {id}", out[0]);
                return Err(super::corrupt(message).at_key(snapshot_key(&id)));
            }
            self.limits.check(
                Limit::Nodes,
                out.len() as u64 + 1,
                "the length of an Icechunk ancestry",
            )?;
            out.push(id);
            at = self.snapshot(store, &id).await?.parent_id();
        }
        Ok(out)
    }
}

fn owned(list: Vec<(&str, SnapshotId)>) -> Vec<(String, SnapshotId)> {
    list.into_iter()
        .map(|(n, id)| (n.to_string(), id))
        .collect()
}
