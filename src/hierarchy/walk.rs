//! Walking a hierarchy into its ZOM.
//!
//! The start node is opened (see [`super::open`]); when it carries consolidated metadata the
//! walk is over (one request for a v3 hierarchy). Otherwise each group's members are found one
//! of two ways:
//! - **Named by its metadata**: the specs the walk follows ([`WalkOptions::follow`], the
//!   built-in conventions by default) say which paths a group's attributes name (an OME-Zarr
//!   multiscale's datasets, a plate's wells, a well's images, an image's `labels`; see
//!   [`crate::spec::Follower`]). Each is asked for directly, with the paths between (a plate's
//!   row groups), all of one level at once; one that is not there is recorded absent by that
//!   request. This is how members are found on a host that cannot list, and the same on any
//!   store, so that the ZOM is the same wherever the hierarchy is: a member that nothing names
//!   in a group whose metadata names others is not looked for ([`Follow::Nothing`] walks by
//!   listings alone).
//! - **Listed** with [`Store::list_dir`], when its attributes name none (the listing is for
//!   what no metadata names; a spec's exact member names, such as an image's `labels`, leave
//!   the others to the listing): every sub-prefix not already asked for is visited as a possible
//!   child. Zarr v3: the child's `zarr.json` (1 request); a group child is then
//!   listed (1 more). Zarr v2: the child is listed first (1 request), which says which of
//!   `.zarray`, `.zgroup`, `.zattrs`, `.zmetadata` exist, so only those are fetched, and a
//!   group's listing is its children's. A named v2 child is probed instead (its candidate
//!   documents in one round trip).
//!
//! A group whose consolidated metadata is found on the way brings its subtree. Prefixes with
//! no metadata document are not nodes and are skipped (as zarr-python does). Requests run
//! concurrently, up to [`WalkOptions::concurrency`] in flight; a queue keeps them in
//! breadth-first order, so nodes of one depth are fetched together, and a hierarchy costs as
//! many round trips as it is deep.
//!
//! Per-node failures (a broken document, a failed request, a named node whose parent is not a
//! group) are collected with their path and key while the rest of the tree is returned; groups
//! that could not be listed and whose metadata names no member are reported in
//! [`WalkResult::unlisted`], not guessed. Only a failure to open the start node, an abort,
//! or the node limit end the walk with an error.

use super::open::{
    normalize_path, open_at_once, open_v2_listed, open_with, try_open, NodeKind, OpenHints, Opened,
    V2Keys,
};
use super::pending::{stray, Asked, Done, Finished, Pending, Visit};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits};
use crate::model::documents::assemble;
use crate::model::node::MAX_DEPTH;
use crate::model::{join_path, Node, ZarrFormat};
use crate::problem::parent_of;
use crate::spec::{builtin_all, Follower, Spec};
use crate::store::{Listing, Store};
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

/// Which specs a walk follows to find the members a group's metadata names.
#[derive(Clone, Default)]
pub enum Follow {
    /// The built-in conventions' specs (OME-Zarr, xarray).
    #[default]
    Builtin,
    /// These specs (a user's own, with the built-in ones or without).
    Specs(Vec<Arc<Spec>>),
    /// None: members are found by consolidated metadata and listings only.
    Nothing,
}

impl std::fmt::Debug for Follow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Follow::Builtin => f.write_str("Builtin"),
            Follow::Specs(specs) => f
                .debug_list()
                .entries(specs.iter().map(|s| &s.name))
                .finish(),
            Follow::Nothing => f.write_str("Nothing"),
        }
    }
}

impl Follow {
    fn follower(&self) -> Follower {
        match self {
            Follow::Builtin => Follower::new(builtin_all()),
            Follow::Specs(specs) => Follower::new(specs.clone()),
            Follow::Nothing => Follower::default(),
        }
    }
}

/// How to walk.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// How many levels below the start node to visit (`None`: all; `Some(0)`: the start node
    /// only). Groups at the last level keep the members consolidated metadata gave them.
    pub depth: Option<usize>,
    /// Requests in flight at most. A level of a hierarchy is asked for at once when it fits:
    /// the default lets the store and the HTTP stack (6 connections per host over HTTP/1.1 in
    /// browsers) do the queueing.
    pub concurrency: usize,
    /// What is known about the start node.
    pub hints: OpenHints,
    /// The limits: documents are parsed under `max_document_bytes` and `max_json_depth`;
    /// a walk that finds more than `max_nodes` nodes, or asks for more than `max_nodes` paths
    /// its metadata names, stops with [`ErrorCode::LimitExceeded`].
    pub limits: Limits,
    /// The specs whose rules say which paths a group's metadata names.
    pub follow: Follow,
}

/// How many requests open a node of unknown format at once: `zarr.json`, `.zmetadata`,
/// `.zgroup`, `.zarray` and `.zattrs`.
const AT_ONCE: usize = 5;

/// [`WalkOptions::concurrency`]'s default.
pub const DEFAULT_CONCURRENCY: usize = 256;

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            depth: None,
            concurrency: DEFAULT_CONCURRENCY,
            hints: OpenHints::default(),
            limits: Limits::default(),
            follow: Follow::Builtin,
        }
    }
}

/// How far a walk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkProgress<'a> {
    /// Nodes found so far.
    pub nodes: u64,
    /// Requests (visits and listings) queued or in flight.
    pub pending: u64,
    /// Errors so far.
    pub errors: u64,
    /// The paths of the nodes found since the last call, relative to the start node, so that a
    /// caller can show the tree as it arrives.
    pub found: &'a [String],
}

/// A walked hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct WalkResult {
    /// The start node with every member found.
    pub root: Node,
    /// Whether the start node's consolidated metadata gave the whole tree.
    pub consolidated: bool,
    /// Nodes that could not be read (paths and keys relative to the store root): they are
    /// missing from the tree.
    pub errors: Vec<ZomError>,
    /// Groups whose members could not be listed and whose metadata names none (node paths
    /// relative to the store root).
    pub unlisted: Vec<String>,
    /// Paths that metadata names but the walk did not ask for, being below the depth asked
    /// for: whether a node is there is not known.
    pub unasked: Vec<String>,
}

enum Task {
    /// Open a possible child node.
    Visit(Asked),
    /// List a group's children (its metadata names none).
    List(String),
}

async fn run<S: Store>(store: &S, task: Task, format: ZarrFormat, limits: &Limits) -> Done {
    match task {
        Task::List(path) => {
            let listed = store
                .list_dir(&path)
                .await
                .map_err(|e| e.at_path(path.clone()));
            Done::Listed(path, listed)
        }
        Task::Visit(asked) => {
            let visited = visit(store, &asked.path, asked.named, format, limits).await;
            Done::Visited(asked, visited.map(|v| v.map(Box::new)))
        }
    }
}

/// Opens a possible child node. A `named` v2 one is probed without listing it first; one its
/// naming rules expect to be an array, for its `.zarray` and `.zattrs` only (when they are not
/// there it is probed for again: the metadata may be wrong). A group's candidates are more, and
/// an optional group (an image's `labels`) is often absent: it is probed for all at once.
async fn visit<S: Store>(
    store: &S,
    path: &str,
    named: Option<Option<NodeKind>>,
    format: ZarrFormat,
    limits: &Limits,
) -> Result<Option<Visit>> {
    let hints = OpenHints {
        kind: None,
        format: Some(format),
    };
    if format == ZarrFormat::V2 {
        if let Some(kind) = named {
            let mut opened = None;
            if kind == Some(NodeKind::Array) {
                let expected = OpenHints { kind, ..hints };
                opened = try_open(store, path, expected, limits, false, true)
                    .await?
                    .ok();
            }
            if opened.is_none() {
                opened = try_open(store, path, hints, limits, false, true)
                    .await?
                    .ok();
            }
            return Ok(opened.map(|opened| Visit {
                opened,
                listing: None,
            }));
        }
        let listing = store.list_dir(path).await.map_err(|e| e.at_path(path))?;
        if let Some(listing) = listing {
            let mut keys = V2Keys::default();
            for name in listing.key_names() {
                match name {
                    ".zarray" => keys.zarray = true,
                    ".zgroup" => keys.zgroup = true,
                    ".zattrs" => keys.zattrs = true,
                    ".zmetadata" => keys.zmetadata = true,
                    _ => {}
                }
            }
            if !(keys.zarray || keys.zgroup || keys.zmetadata) {
                return Ok(None);
            }
            return Ok(open_v2_listed(store, path, keys, limits)
                .await?
                .map(|opened| Visit {
                    opened,
                    listing: Some(Some(listing)),
                }));
        }
        let opened = try_open(store, path, hints, limits, false, false)
            .await?
            .ok();
        return Ok(opened.map(|opened| Visit {
            opened,
            listing: Some(None),
        }));
    }
    let opened = try_open(store, path, hints, limits, false, false)
        .await?
        .ok();
    Ok(opened.map(|opened| Visit {
        opened,
        listing: None,
    }))
}

/// Keeps `depth` levels of members below `node`.
fn prune(node: &mut Node, depth: usize) {
    if let Node::Group(group) = node {
        if depth == 0 {
            group.members.clear();
        } else {
            for member in group.members.values_mut() {
                prune(member, depth.saturating_sub(1));
            }
        }
    }
}

/// The part of `path` below the start node `root` ("" for the start node itself).
fn relative<'a>(root: &str, path: &'a str) -> &'a str {
    if root.is_empty() {
        return path;
    }
    path.strip_prefix(root)
        .map(|rest| rest.trim_start_matches('/'))
        .unwrap_or(path)
}

struct State<'o> {
    root: String,
    max_depth: usize,
    nodes: BTreeMap<String, Node>,
    errors: Vec<ZomError>,
    unlisted: Vec<String>,
    unasked: Vec<String>,
    queue: VecDeque<Task>,
    /// The nodes found since progress was last told (paths relative to the start node).
    recent: Vec<String>,
    /// Every path visited or queued for a visit, with its depth (a map of the type the crate
    /// already builds, rather than a set of one more: module bytes).
    asked: HashMap<String, usize>,
    /// Named paths asked for.
    named: u64,
    /// The parents of the paths attributes name: groups with members that metadata names.
    parents: Vec<String>,
    found: u64,
    limits: Limits,
    follow: &'o Follow,
    /// The follower of `follow`, made when a group first needs it.
    follower: Option<Follower>,
}

impl State<'_> {
    fn fail(&mut self, error: ZomError) -> Result<()> {
        if error.code == ErrorCode::Aborted {
            return Err(error);
        }
        self.errors.push(error);
        Ok(())
    }

    /// Queues a visit of `path` (below the start node) unless it was asked for already.
    fn ask(
        &mut self,
        path: String,
        named: Option<Option<NodeKind>>,
        rules: Vec<crate::spec::RuleRef>,
        between: bool,
    ) -> Result<()> {
        let below = relative(&self.root, &path);
        if !self.root.is_empty() && below.len() == path.len() {
            return Ok(());
        }
        let depth = below.split('/').count();
        if depth > self.max_depth {
            if named.is_some() {
                self.unasked.push(path);
            }
            return Ok(());
        }
        if self.asked.insert(path.clone(), depth).is_some() {
            return Ok(());
        }
        if named.is_some() {
            self.named = self.named.saturating_add(1);
            self.limits
                .check(
                    Limit::Nodes,
                    self.named,
                    "the paths the walk's metadata names",
                )
                .map_err(|e| e.at_path(path.clone()))?;
        }
        self.queue.push_back(Task::Visit(Asked {
            path,
            depth,
            between,
            named,
            rules,
        }));
        Ok(())
    }

    /// A group's listing; `names`: whether metadata names members of it (then a group that
    /// cannot be listed is not reported unlisted).
    fn listed(&mut self, path: &str, names: bool, listed: Result<Option<Listing>>) -> Result<()> {
        match listed {
            Err(e) => {
                if !names {
                    self.unlisted.push(path.to_string());
                }
                self.fail(e)
            }
            Ok(None) => {
                if !names {
                    self.unlisted.push(path.to_string());
                }
                Ok(())
            }
            Ok(Some(listing)) => {
                let names: Vec<String> = listing
                    .prefix_names()
                    .filter(|n| *n != "." && *n != "..")
                    .map(str::to_string)
                    .collect();
                for name in crate::store::sorted_unique(names) {
                    self.ask(join_path(path, &name), None, Vec::new(), false)?;
                }
                Ok(())
            }
        }
    }

    fn visited(&mut self, asked: Asked, visited: Result<Option<Box<Visit>>>) -> Result<()> {
        let visit = match visited {
            Err(e) => return self.fail(e),
            Ok(None) => return Ok(()),
            Ok(Some(visit)) => visit,
        };
        let Asked {
            path,
            depth,
            rules,
            between,
            ..
        } = asked;
        self.found = self.found.saturating_add(1);
        self.limits
            .check(Limit::Nodes, self.found, "the walk's node count")
            .map_err(|e| e.at_path(path.clone()))?;
        let Visit { opened, listing } = *visit;
        let Opened {
            mut node,
            consolidated,
            ..
        } = opened;
        let group = matches!(node, Node::Group(_)) && !consolidated;
        let expand = group && depth < self.max_depth;
        // At the last level too, so that what it names is reported unasked.
        let named = if group {
            let follow = self.follow;
            let follower = self.follower.get_or_insert_with(|| follow.follower());
            match follower.is_empty() {
                true => Vec::new(),
                false => follower.named(&path, &node.to_value_with(false), &rules),
            }
        } else {
            Vec::new()
        };
        prune(&mut node, self.max_depth.saturating_sub(depth));
        let below = relative(&self.root, &path).to_string();
        self.recent.push(below.clone());
        self.nodes.insert(below, node);
        let names = between || named.iter().any(|n| !n.fixed);
        for n in named {
            if !n.fixed {
                self.parents.push(parent_of(&n.path).to_string());
            }
            let kind = n.array.map(|array| match array {
                true => NodeKind::Array,
                false => NodeKind::Group,
            });
            self.ask(n.path, Some(kind), n.rules, n.between)?;
        }
        // A group whose attributes name members is not listed: the listing is for what no
        // metadata names (a v2 child's listing, made to find its documents, is used anyway).
        match listing {
            Some(listing) if expand => self.listed(&path, names, Ok(listing))?,
            None if expand && !names => self.queue.push_back(Task::List(path)),
            _ => {}
        }
        Ok(())
    }

    /// Takes out of the tree every node whose parent was not found or is an array (a named
    /// path below a missing or array node), each reported.
    fn orphans(&mut self) {
        let paths: Vec<String> = self.nodes.keys().skip(1).cloned().collect();
        for path in paths {
            let parent = parent_of(&path);
            if matches!(self.nodes.get(parent), Some(Node::Group(_))) {
                continue;
            }
            self.nodes.remove(&path);
            let whole = join_path(&self.root, &path);
            let message = format!("'{whole}' is named, but its parent is no group");
            self.errors
                .push(ZomError::invalid_metadata(message).at_path(whole));
        }
    }
}

/// Walks the hierarchy below node `path` (see the module docs). `progress` is called after
/// each request, with the nodes found since the call before.
pub async fn walk<S: Store>(
    store: &S,
    path: &str,
    options: &WalkOptions,
    progress: &mut dyn FnMut(WalkProgress),
) -> Result<WalkResult> {
    let path = normalize_path(path)?;
    let start_depth = if path.is_empty() {
        0
    } else {
        path.split('/').count()
    };
    // The start node's documents of both formats at once, when that many may be in flight.
    let opened = match options.concurrency >= AT_ONCE {
        true => open_at_once(store, &path, options.hints, &options.limits).await?,
        false => open_with(store, &path, options.hints, &options.limits).await?,
    };
    let format = opened.node.format();
    let consolidated = opened.consolidated;
    let mut state = State {
        max_depth: options
            .depth
            .unwrap_or(usize::MAX)
            .min(MAX_DEPTH.saturating_sub(start_depth)),
        root: path.clone(),
        nodes: BTreeMap::new(),
        errors: Vec::new(),
        unlisted: Vec::new(),
        unasked: Vec::new(),
        queue: VecDeque::new(),
        recent: Vec::new(),
        asked: HashMap::new(),
        named: 0,
        parents: Vec::new(),
        found: 0,
        limits: options.limits,
        follow: &options.follow,
        follower: None,
    };
    state.asked.insert(path.clone(), 0);
    let start = Asked {
        path: path.clone(),
        depth: 0,
        between: false,
        named: None,
        rules: Vec::new(),
    };
    let visit = Visit {
        opened,
        listing: None,
    };
    state.visited(start, Ok(Some(Box::new(visit))))?;
    let concurrency = options.concurrency.max(1);
    let mut running: FuturesUnordered<Pending<'_>> = FuturesUnordered::new();
    loop {
        while running.len() < concurrency {
            match state.queue.pop_front() {
                Some(task) => running.push(Box::pin(async move {
                    Finished::Walked(run(store, task, format, &options.limits).await)
                })),
                None => break,
            }
        }
        let Some(finished) = running.next().await else {
            break;
        };
        let Finished::Walked(done) = finished else {
            return Err(stray());
        };
        match done {
            Done::Visited(asked, result) => state.visited(asked, result)?,
            Done::Listed(p, result) => state.listed(&p, false, result)?,
        }
        let pending = running.len().saturating_add(state.queue.len());
        progress(WalkProgress {
            nodes: state.found,
            pending: u64::try_from(pending).unwrap_or(u64::MAX),
            errors: u64::try_from(state.errors.len()).unwrap_or(u64::MAX),
            found: &state.recent,
        });
        state.recent.clear();
    }
    state.orphans();
    // Named from elsewhere (a bioformats2raw collection's series, named by its OME group), a
    // group's members are known though it could not be listed.
    let parents = crate::store::sorted_unique(std::mem::take(&mut state.parents));
    state.unlisted.retain(|g| parents.binary_search(g).is_err());
    let root = assemble(std::mem::take(&mut state.nodes), &|p| p.to_string())?;
    Ok(WalkResult {
        root,
        consolidated,
        errors: state.errors,
        unlisted: state.unlisted,
        unasked: state.unasked,
    })
}
