//! Walking a hierarchy into its ZOM.
//!
//! The start node is opened (see [`super::open`]); when it carries consolidated metadata the
//! walk is over (one request for a v3 hierarchy). Otherwise groups are listed with
//! [`Store::list_dir`] and every sub-prefix is visited as a possible child:
//! - Zarr v3: the child's `zarr.json` (1 request); a group child is then listed (1 more).
//! - Zarr v2: the child is listed first (1 request), which says which of `.zarray`,
//!   `.zgroup`, `.zattrs`, `.zmetadata` exist, so only those are fetched, and a group's
//!   listing is its children's.
//!
//! A group whose consolidated metadata is found on the way brings its subtree. Prefixes with
//! no metadata document are not nodes and are skipped (as zarr-python does). Requests run
//! concurrently, up to [`WalkOptions::concurrency`] in flight; a queue keeps them in
//! breadth-first order, so nodes of one depth are fetched together.
//!
//! Per-node failures (a broken document, a failed request) are collected with their path and
//! key while the rest of the tree is returned; groups that could not be listed are reported
//! in [`WalkResult::unlisted`], not guessed. Only a failure to open the start node, an abort,
//! or the node limit end the walk with an error.

use super::open::{normalize_path, open_v2_listed, open_with, try_open, OpenHints, Opened, V2Keys};
use super::pending::{stray, Done, Finished, Pending, Visit};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits};
use crate::model::documents::assemble;
use crate::model::node::MAX_DEPTH;
use crate::model::{join_path, Node, ZarrFormat};
use crate::store::{Listing, Store};
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::collections::{BTreeMap, VecDeque};

/// How to walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// How many levels below the start node to visit (`None`: all; `Some(0)`: the start node
    /// only). Groups at the last level keep the members consolidated metadata gave them.
    pub depth: Option<usize>,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// What is known about the start node.
    pub hints: OpenHints,
    /// The limits: documents are parsed under `max_document_bytes` and `max_json_depth`;
    /// a walk that finds more than `max_nodes` nodes stops with [`ErrorCode::LimitExceeded`].
    pub limits: Limits,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            depth: None,
            concurrency: 16,
            hints: OpenHints::default(),
            limits: Limits::default(),
        }
    }
}

/// How far a walk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkProgress {
    /// Nodes found so far.
    pub nodes: u64,
    /// Requests (visits and listings) queued or in flight.
    pub pending: u64,
    /// Errors so far.
    pub errors: u64,
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
    /// Groups whose members could not be listed (node paths relative to the store root).
    pub unlisted: Vec<String>,
}

enum Task {
    /// Open a possible child node.
    Visit(String, usize),
    /// List a group's children.
    List(String, usize),
}

async fn run<S: Store>(store: &S, task: Task, format: ZarrFormat, limits: &Limits) -> Done {
    match task {
        Task::List(path, depth) => {
            let listed = store
                .list_dir(&path)
                .await
                .map_err(|e| e.at_path(path.clone()));
            Done::Listed(path, depth, listed)
        }
        Task::Visit(path, depth) => {
            let visited = visit(store, &path, format, limits).await;
            Done::Visited(path, depth, visited.map(|v| v.map(Box::new)))
        }
    }
}

async fn visit<S: Store>(
    store: &S,
    path: &str,
    format: ZarrFormat,
    limits: &Limits,
) -> Result<Option<Visit>> {
    let hints = OpenHints {
        kind: None,
        format: Some(format),
    };
    if format == ZarrFormat::V2 {
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
        let opened = try_open(store, path, hints, limits, false).await?.ok();
        return Ok(opened.map(|opened| Visit {
            opened,
            listing: Some(None),
        }));
    }
    let opened = try_open(store, path, hints, limits, false).await?.ok();
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

struct State {
    root: String,
    max_depth: usize,
    nodes: BTreeMap<String, Node>,
    errors: Vec<ZomError>,
    unlisted: Vec<String>,
    queue: VecDeque<Task>,
    found: u64,
    limits: Limits,
}

impl State {
    fn fail(&mut self, error: ZomError) -> Result<()> {
        if error.code == ErrorCode::Aborted {
            return Err(error);
        }
        self.errors.push(error);
        Ok(())
    }

    fn listed(&mut self, path: &str, depth: usize, listed: Result<Option<Listing>>) -> Result<()> {
        match listed {
            Err(e) => {
                self.unlisted.push(path.to_string());
                self.fail(e)
            }
            Ok(None) => {
                self.unlisted.push(path.to_string());
                Ok(())
            }
            Ok(Some(listing)) => {
                let names: Vec<String> = listing
                    .prefix_names()
                    .filter(|n| *n != "." && *n != "..")
                    .map(str::to_string)
                    .collect();
                for name in crate::store::sorted_unique(names) {
                    self.queue
                        .push_back(Task::Visit(join_path(path, &name), depth.saturating_add(1)));
                }
                Ok(())
            }
        }
    }

    fn visited(
        &mut self,
        path: &str,
        depth: usize,
        visited: Result<Option<Box<Visit>>>,
    ) -> Result<()> {
        let visit = match visited {
            Err(e) => return self.fail(e),
            Ok(None) => return Ok(()),
            Ok(Some(visit)) => visit,
        };
        self.found = self.found.saturating_add(1);
        self.limits
            .check(Limit::Nodes, self.found, "the walk's node count")
            .map_err(|e| e.at_path(path))?;
        let Opened {
            mut node,
            consolidated,
            ..
        } = visit.opened;
        let expand = matches!(node, Node::Group(_)) && !consolidated && depth < self.max_depth;
        prune(&mut node, self.max_depth.saturating_sub(depth));
        self.nodes
            .insert(relative(&self.root, path).to_string(), node);
        if expand {
            match visit.listing {
                Some(listing) => self.listed(path, depth, Ok(listing))?,
                None => self.queue.push_back(Task::List(path.to_string(), depth)),
            }
        }
        Ok(())
    }
}

/// Walks the hierarchy below node `path` (see the module docs). `progress` is called after
/// each request.
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
    let opened = open_with(store, &path, options.hints, &options.limits).await?;
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
        queue: VecDeque::new(),
        found: 0,
        limits: options.limits,
    };
    state.visited(
        &path,
        0,
        Ok(Some(Box::new(Visit {
            opened,
            listing: None,
        }))),
    )?;
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
            Done::Visited(p, depth, result) => state.visited(&p, depth, result)?,
            Done::Listed(p, depth, result) => state.listed(&p, depth, result)?,
        }
        let pending = running.len().saturating_add(state.queue.len());
        progress(WalkProgress {
            nodes: state.found,
            pending: u64::try_from(pending).unwrap_or(u64::MAX),
            errors: u64::try_from(state.errors.len()).unwrap_or(u64::MAX),
        });
    }
    let root = assemble(std::mem::take(&mut state.nodes), &|p| p.to_string())?;
    Ok(WalkResult {
        root,
        consolidated,
        errors: state.errors,
        unlisted: state.unlisted,
    })
}
