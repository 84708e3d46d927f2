//! Opening one node of a hierarchy through a [`Store`]: which metadata documents to ask for,
//! in which order, and how consolidated metadata makes one request enough.
//!
//! # Probe order
//! Keys are the node path joined with the document name (`"a/b/zarr.json"`).
//!
//! 1. Unless `format: 2` is hinted: `zarr.json`. Found: the node is Zarr v3, and when it is a
//!    group with inline consolidated metadata, its whole subtree comes with it. One request.
//! 2. Zarr v2 (or `format: 2` hinted): a leading `.zmetadata` alone, then the other candidates
//!    below and `.zattrs`, all at once (one round trip); the first candidate in this order
//!    that exists is the node:
//!    - `kind: "array"` → `.zarray`;
//!    - `kind: "group"` → `.zmetadata`, `.zgroup`;
//!    - no kind, at the root → `.zmetadata`, `.zgroup`, `.zarray` (hierarchies are rooted at
//!      groups, and consolidated ones have `.zmetadata` at the root);
//!    - no kind, below the root → `.zarray`, `.zmetadata`, `.zgroup`.
//!
//!    A `.zmetadata` holds every document of the subtree, the node's own `.zattrs`
//!    included. Otherwise the `.zattrs` gives the attributes (missing: none).
//!
//! So a v3 node costs 1 request and 1 round trip; a consolidated v2 hierarchy 1 request with
//! `format: 2` (2 without); another v2 node 1 round trip below the root (2 at the root or as
//! a hinted group, for the `.zmetadata`), one more without `format: 2` (for `zarr.json`), in
//! 2 to 4 requests (`kind: "array", format: 2`: `.zarray` and `.zattrs`).

use super::{document, document_text, keyed};
use crate::error::{ErrorCode, Result, ZomError};
use crate::json;
use crate::limits::Limits;
use crate::model::v2::ConsolidatedMetadataV2;
use crate::model::{from_documents, join_path, DeferredMembers, Node, ZarrFormat};
use crate::store::Store;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// The document an open asks for first unless `format: 2` is hinted (probe order, step 1):
/// JS asks for it while the module loads (ts/read/hierarchy.ts).
pub const FIRST_DOCUMENT: &str = "zarr.json";

/// Whether a node is an array or a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An array.
    Array,
    /// A group.
    Group,
}

impl NodeKind {
    /// "array" or "group".
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Array => "array",
            NodeKind::Group => "group",
        }
    }

    fn of(node: &Node) -> Self {
        match node {
            Node::Array(_) => NodeKind::Array,
            Node::Group(_) => NodeKind::Group,
        }
    }
}

/// What the caller already knows about a node: each hint skips probes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenHints {
    /// The node's kind; a node of the other kind is [`ErrorCode::NotFound`].
    pub kind: Option<NodeKind>,
    /// The node's Zarr format.
    pub format: Option<ZarrFormat>,
}

/// An opened node.
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    /// The node path (`""` for the store root, `"a/b"`).
    pub path: String,
    /// The node; a group opened from consolidated metadata with [`open`] has its whole
    /// subtree as members (with [`open_deferred`], none: see `deferred`).
    pub node: Node,
    /// Whether the node's members came from consolidated metadata (and so are all known).
    pub consolidated: bool,
    /// With [`open_deferred`]: a v3 group's consolidated members, not read yet (`node` then
    /// has no members). Always `None` from [`open`].
    pub deferred: Option<Box<DeferredMembers>>,
}

/// Which v2 documents exist at a node, when a listing told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct V2Keys {
    pub zarray: bool,
    pub zgroup: bool,
    pub zattrs: bool,
    pub zmetadata: bool,
}

/// Normalises a node path: no slashes at either end, no empty, `.` or `..` segments.
pub fn normalize_path(path: &str) -> Result<String> {
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    if trimmed
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err(ZomError::invalid_argument(format!(
            "node path '{path}' has an empty, '.' or '..' segment"
        )));
    }
    Ok(trimmed.to_string())
}

impl OpenHints {
    fn with_format(self, format: ZarrFormat) -> OpenHints {
        OpenHints {
            format: Some(format),
            ..self
        }
    }
}

/// Opens the node at `path` (see the module docs for the requests it makes) under the
/// default [`Limits`].
///
/// Errors: [`ErrorCode::NotFound`] (with the first key tried) when no metadata document is
/// there, or the node is not of the hinted kind; [`ErrorCode::InvalidMetadata`] (with the
/// document's key) for a document that is not JSON or not valid metadata;
/// [`ErrorCode::LimitExceeded`] for a document over `maxDocumentBytes` or `maxJsonDepth`;
/// the store's errors.
pub async fn open<S: Store>(store: &S, path: &str, hints: OpenHints) -> Result<Opened> {
    open_with(store, path, hints, &Limits::default()).await
}

/// Like [`open`], with documents parsed under `limits`.
pub fn open_with<'a, S: Store>(
    store: &'a S,
    path: &'a str,
    hints: OpenHints,
    limits: &'a Limits,
) -> impl Future<Output = Result<Opened>> + 'a {
    open_at(store, path, hints, limits, false)
}

/// Like [`open_with`], but a v3 group's inline consolidated metadata is only checked as
/// JSON and located: the members are read when asked for ([`Opened::deferred`]). Opening the
/// root of a large consolidated hierarchy then costs about one scan of its `zarr.json`;
/// a member's invalid metadata is reported when that member is read.
pub fn open_deferred<'a, S: Store>(
    store: &'a S,
    path: &'a str,
    hints: OpenHints,
    limits: &'a Limits,
) -> impl Future<Output = Result<Opened>> + 'a {
    open_at(store, path, hints, limits, true)
}

/// [`open_with`] (`defer` false) or [`open_deferred`] (true).
async fn open_at<S: Store>(
    store: &S,
    path: &str,
    hints: OpenHints,
    limits: &Limits,
    defer: bool,
) -> Result<Opened> {
    let path = normalize_path(path)?;
    match try_open(store, &path, hints, limits, defer, false).await? {
        Ok(opened) => Ok(opened),
        Err(tried) => Err(not_found(&path, &tried)),
    }
}

/// The member at `relative` ("a" or "a/b", as the consolidated metadata writes it) of the
/// group at `group_path` opened with [`open_deferred`], read from its deferred `members` with
/// the member's own members: no request. `None` when they do not list it. Errors: the
/// member's invalid metadata, or a node of the other kind than hinted
/// ([`ErrorCode::NotFound`]).
pub fn open_member(
    members: &DeferredMembers,
    group_path: &str,
    relative: &str,
    hints: OpenHints,
) -> Result<Option<Opened>> {
    let Some(node) = members.read(relative)? else {
        return Ok(None);
    };
    let opened = Opened {
        path: join_path(group_path, relative),
        node,
        consolidated: true,
        deferred: None,
    };
    finish(opened, hints, members.key()).map(Some)
}

/// Opens the node at a normalised `path` whose format is not hinted with every document of
/// both formats asked for at once: one round trip whichever the format (a v3 node wins; the
/// v2 probe's errors then do not count). With a format hinted, as [`open_with`].
pub(crate) async fn open_at_once<S: Store>(
    store: &S,
    path: &str,
    hints: OpenHints,
    limits: &Limits,
) -> Result<Opened> {
    if hints.format.is_some() {
        return open_with(store, path, hints, limits).await;
    }
    let (v3, v2) = futures_util::future::join(
        try_open(
            store,
            path,
            hints.with_format(ZarrFormat::V3),
            limits,
            false,
            false,
        ),
        try_open(
            store,
            path,
            hints.with_format(ZarrFormat::V2),
            limits,
            false,
            true,
        ),
    )
    .await;
    let mut tried = match v3? {
        Ok(opened) => return Ok(opened),
        Err(tried) => tried,
    };
    match v2? {
        Ok(opened) => Ok(opened),
        Err(more) => {
            tried.extend(more);
            Err(not_found(path, &tried))
        }
    }
}

/// Like [`open`] for a normalised path; when no metadata document exists, the keys tried.
/// `eager`: a leading `.zmetadata` is asked for with the other v2 documents, not first.
pub(crate) async fn try_open<S: Store>(
    store: &S,
    path: &str,
    hints: OpenHints,
    limits: &Limits,
    defer: bool,
    eager: bool,
) -> Result<Result<Opened, Vec<String>>> {
    let mut tried: Vec<String> = Vec::new();
    if hints.format != Some(ZarrFormat::V2) {
        let key = join_path(path, FIRST_DOCUMENT);
        if let Some(text) = document_text(store, &key, path, limits).await? {
            let opened = open_v3_text(path, &key, text, limits, defer)?;
            return finish(opened, hints, &key).map(Ok);
        }
        tried.push(key);
    }
    if hints.format != Some(ZarrFormat::V3) {
        let candidates: &[&str] = match (hints.kind, path.is_empty()) {
            (Some(NodeKind::Array), _) => &[".zarray"],
            (Some(NodeKind::Group), _) => &[".zmetadata", ".zgroup"],
            (None, true) => &[".zmetadata", ".zgroup", ".zarray"],
            (None, false) => &[".zarray", ".zmetadata", ".zgroup"],
        };
        // A leading `.zmetadata` is asked for alone: a consolidated hierarchy then opens in
        // one request. The other candidates and the .zattrs go in one round trip (a v2 node
        // costs one round trip, not one per candidate); the first candidate in this order that
        // exists is the node, and the errors of those after it do not count. The .zattrs
        // error counts only if a node is found.
        let split = usize::from(!eager && candidates.first() == Some(&".zmetadata"));
        for stage in [&candidates[..split], &candidates[split..]] {
            if stage.is_empty() {
                continue;
            }
            let keys: Vec<String> = stage.iter().map(|name| join_path(path, name)).collect();
            let with_attributes = stage.iter().any(|name| *name != ".zmetadata");
            let attrs_key = join_path(path, ".zattrs");
            let nth = |i: usize| {
                let key = keys.get(i);
                async move {
                    match key {
                        Some(key) => document_text(store, key, path, limits).await,
                        None => Ok(None),
                    }
                }
            };
            // Three at most: `join3` rather than `join_all`, whose generic code costs more.
            let ((a, b, c), attributes) = futures_util::future::join(
                futures_util::future::join3(nth(0), nth(1), nth(2)),
                async {
                    match with_attributes {
                        true => document(store, &attrs_key, path, limits).await,
                        false => Ok(None),
                    }
                },
            )
            .await;
            let texts = [a, b, c];
            for ((name, key), text) in stage.iter().zip(keys).zip(texts) {
                let Some(text) = text? else {
                    tried.push(key);
                    continue;
                };
                let located = |e: ZomError| e.at_key(key.as_str()).at_path(path);
                if *name == ".zmetadata" {
                    let opened = match defer {
                        true => open_zmetadata_text(path, &key, text, limits)?,
                        false => open_zmetadata(
                            path,
                            json::parse_document(&text, limits).map_err(located)?,
                        )?,
                    };
                    return finish(opened, hints, &key).map(Ok);
                }
                let doc = json::parse_document(&text, limits).map_err(located)?;
                let attributes = Some(attributes?);
                let opened = open_v2_from(store, path, name, doc, None, attributes, limits).await?;
                return finish(opened, hints, &key).map(Ok);
            }
        }
    }
    Ok(Err(tried))
}

fn not_found(path: &str, tried: &[String]) -> ZomError {
    let names: Vec<&str> = tried
        .iter()
        .map(|k| k.rsplit('/').next().unwrap_or(k))
        .collect();
    let shown = if path.is_empty() { "/" } else { path };
    let error = ZomError::new(
        ErrorCode::NotFound,
        format!(
            "no Zarr node at '{shown}' (none of {} exists)",
            names.join(", ")
        ),
    )
    .at_path(path);
    match tried.first() {
        Some(key) => error.at_key(key.clone()),
        None => error,
    }
}

/// Checks the hinted kind.
fn finish(opened: Opened, hints: OpenHints, key: &str) -> Result<Opened> {
    opened.of_kind(hints).map_err(|e| e.at_key(key))
}

impl Opened {
    /// The node when it is of the hinted kind (or none is hinted); a node of the other kind
    /// is [`ErrorCode::NotFound`] ("'a' is an array, not a group"), located at its path. The
    /// one place that decides whether a node is the array or group asked for (the bindings
    /// ask it for nodes they make from a ZOM too).
    pub fn of_kind(self, hints: OpenHints) -> Result<Opened> {
        let found = NodeKind::of(&self.node);
        match hints.kind {
            Some(kind) if kind != found => Err(ZomError::new(
                ErrorCode::NotFound,
                format!(
                    "'{}' is {} {}, not {} {}",
                    if self.path.is_empty() {
                        "/"
                    } else {
                        &self.path
                    },
                    article(found),
                    found.as_str(),
                    article(kind),
                    kind.as_str()
                ),
            )
            .at_path(self.path)),
            _ => Ok(self),
        }
    }
}

fn article(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Array => "an",
        NodeKind::Group => "a",
    }
}

/// A v3 node from the text of its `zarr.json`. With `defer`, a group's inline consolidated
/// members are left in [`Opened::deferred`].
fn open_v3_text(
    path: &str,
    key: &str,
    text: Vec<u8>,
    limits: &Limits,
    defer: bool,
) -> Result<Opened> {
    let located = |e: ZomError| e.at_key(key).at_path(path);
    json::check_document(&text, limits).map_err(located)?;
    if let Some(skim) = defer.then(|| zom_json::skim_consolidated(&text)).flatten() {
        // Broken text outside the members: the whole text is parsed below, which says where.
        if let Ok(document) = json::parse_text(&skim.document) {
            if document.get("node_type").and_then(Value::as_str) == Some("group") {
                let mut opened = open_v3(path, key, document.clone())?;
                let members = DeferredMembers::new(
                    ZarrFormat::V3,
                    Arc::new(text),
                    document,
                    skim.members,
                    path,
                    key,
                );
                opened.deferred = Some(Box::new(members));
                return Ok(opened);
            }
        }
    }
    open_v3(path, key, json::parse_text(&text).map_err(located)?)
}

/// A v3 node from its `zarr.json`, with the subtree of its inline consolidated metadata.
pub(crate) fn open_v3(path: &str, key: &str, doc: Value) -> Result<Opened> {
    // Looked up rather than parsed: from_documents parses (and checks) the document, and a
    // consolidated one can hold a whole large hierarchy.
    let consolidated = doc.get("node_type").and_then(Value::as_str) == Some("group")
        && doc
            .get("consolidated_metadata")
            .is_some_and(|c| c.get("metadata").is_some_and(Value::is_object));
    let node = from_documents([("zarr.json", doc)]).map_err(|e| keyed(e, path).at_key(key))?;
    Ok(Opened {
        path: path.to_string(),
        node,
        consolidated,
        deferred: None,
    })
}

/// A v2 group from its `.zmetadata` (the whole subtree).
fn open_zmetadata(path: &str, doc: Value) -> Result<Opened> {
    let node = from_documents([(".zmetadata", doc)]).map_err(|e| keyed(e, path))?;
    let consolidated = matches!(node, Node::Group(_));
    Ok(Opened {
        path: path.to_string(),
        node,
        consolidated,
        deferred: None,
    })
}

/// A v2 group from the text of its `.zmetadata`, its members left in [`Opened::deferred`]
/// when the text scans as expected and describes the group itself; else read whole.
fn open_zmetadata_text(path: &str, key: &str, text: Vec<u8>, limits: &Limits) -> Result<Opened> {
    let located = |e: ZomError| e.at_key(key).at_path(path);
    json::check_document(&text, limits).map_err(located)?;
    if let Some(skim) = zom_json::skim_zmetadata(&text) {
        // Broken text outside the members: the whole text is parsed below, which says where.
        if let Ok(document) = json::parse_text(&skim.document) {
            ConsolidatedMetadataV2::from_value(&document).map_err(located)?;
            let members = DeferredMembers::new(
                ZarrFormat::V2,
                Arc::new(text),
                document,
                skim.members,
                path,
                key,
            );
            if let Some(group) = members.v2_group() {
                return Ok(Opened {
                    path: path.to_string(),
                    node: group?,
                    consolidated: true,
                    deferred: Some(Box::new(members)),
                });
            }
            return open_zmetadata(
                path,
                json::parse_text(&members.into_text()).map_err(located)?,
            );
        }
    }
    open_zmetadata(path, json::parse_text(&text).map_err(located)?)
}

/// A v2 node from the first of its documents found (`name`: `.zmetadata`, `.zarray` or
/// `.zgroup`). `listed`: which documents a listing showed (absent ones are not asked for);
/// `prefetched`: the node's `.zattrs` when it was already asked for.
pub(crate) async fn open_v2_from<S: Store>(
    store: &S,
    path: &str,
    name: &str,
    doc: Value,
    listed: Option<V2Keys>,
    prefetched: Option<Option<Value>>,
    limits: &Limits,
) -> Result<Opened> {
    if name == ".zmetadata" {
        return open_zmetadata(path, doc);
    }
    let attrs_key = join_path(path, ".zattrs");
    let attributes = match prefetched {
        Some(attributes) => attributes,
        None if listed.is_none_or(|k| k.zattrs) => {
            document(store, &attrs_key, path, limits).await?
        }
        None => None,
    };
    let mut docs: Vec<(&str, Value)> = vec![(name, doc)];
    if let Some(attributes) = attributes {
        docs.push((".zattrs", attributes));
    }
    let node = from_documents(docs).map_err(|e| keyed(e, path))?;
    Ok(Opened {
        path: path.to_string(),
        node,
        consolidated: false,
        deferred: None,
    })
}

/// Opens a v2 node whose documents a listing showed: only the documents that exist are
/// fetched. `None` when the listing shows no node document.
pub(crate) async fn open_v2_listed<S: Store>(
    store: &S,
    path: &str,
    keys: V2Keys,
    limits: &Limits,
) -> Result<Option<Opened>> {
    let order: [(&str, bool); 3] = [
        (
            ".zmetadata",
            keys.zmetadata && (keys.zgroup || !keys.zarray),
        ),
        (".zarray", keys.zarray),
        (".zgroup", keys.zgroup),
    ];
    for (name, present) in order {
        if !present {
            continue;
        }
        let key = join_path(path, name);
        // Listed but gone (or unreadable as missing): try the next candidate.
        if let Some(doc) = document(store, &key, path, limits).await? {
            return open_v2_from(store, path, name, doc, Some(keys), None, limits)
                .await
                .map(Some);
        }
    }
    Ok(None)
}
