//! Consolidated metadata kept as text until a member is asked for: a v3 group's `zarr.json`
//! or a v2 `.zmetadata` that describes a whole large hierarchy opens at about the cost of
//! scanning it.

use super::documents::{from_documents, node_path_of_key};
use super::node::{join_path, Node, ZarrFormat};
use crate::error::{Result, ZomError};
use crate::json;
use serde_json::Value;
use std::ops::Range;
use std::sync::Arc;

/// The members a group's consolidated metadata describes, not read yet: each member's
/// document is located JSON text, read into a node when asked for.
#[derive(Clone, PartialEq)]
pub struct DeferredMembers {
    /// The group's `zarr.json` or `.zmetadata`, as fetched.
    text: Arc<Vec<u8>>,
    /// The group's document with `consolidated_metadata.metadata` (v2: `metadata`) empty.
    document: Value,
    /// v3: member path (relative to the group) → its `zarr.json`'s range in `text`; v2:
    /// document key (relative to the group) → its range. In document order.
    entries: Vec<(String, Range<usize>)>,
    /// The group's node path (relative to the store root).
    path: String,
    /// The store key of the document that holds them.
    key: String,
    /// Which consolidated metadata: v3 inline, or a v2 `.zmetadata`.
    format: ZarrFormat,
}

impl std::fmt::Debug for DeferredMembers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeferredMembers({} at '{}')",
            self.entries.len(),
            self.key
        )
    }
}

impl DeferredMembers {
    /// Members of the group at node `path` whose consolidated metadata (store key `key`) is
    /// `text`, as [`zom_json::skim_consolidated`] (v3 `zarr.json`) or
    /// [`zom_json::skim_zmetadata`] (v2 `.zmetadata`) found them; `document` is the group's
    /// own.
    pub(crate) fn new(
        format: ZarrFormat,
        text: Arc<Vec<u8>>,
        document: Value,
        entries: Vec<(String, Range<usize>)>,
        path: &str,
        key: &str,
    ) -> Self {
        let entries = match format {
            ZarrFormat::V3 => entries,
            ZarrFormat::V2 => entries
                .into_iter()
                .map(|(k, r)| (k.trim_start_matches('/').to_string(), r))
                .collect(),
        };
        DeferredMembers {
            text,
            document,
            entries,
            path: path.to_string(),
            key: key.to_string(),
            format,
        }
    }

    /// The text the members are in (the document as fetched).
    pub(crate) fn into_text(self) -> Vec<u8> {
        Arc::try_unwrap(self.text).unwrap_or_else(|shared| shared.as_ref().clone())
    }

    /// The v2 documents of the node at `relative` ("" for the group itself): its own
    /// `.zgroup`, `.zarray` and `.zattrs` among the entries.
    fn v2_own<'a>(
        &'a self,
        relative: &'a str,
    ) -> impl Iterator<Item = &'a (String, Range<usize>)> + 'a {
        self.entries
            .iter()
            .filter(move |(k, _)| node_path_of_key(k) == relative && !k.ends_with(".zmetadata"))
    }

    /// The group's own node (no members): v2 only, from its own documents; `None` when the
    /// `.zmetadata` does not describe the group itself as a group.
    pub(crate) fn v2_group(&self) -> Option<Result<Node>> {
        let own: Vec<&(String, Range<usize>)> = self.v2_own("").collect();
        if !own.iter().any(|(k, _)| k == ".zgroup") || own.iter().any(|(k, _)| k == ".zarray") {
            return None;
        }
        let docs: Result<Vec<(String, Value)>> = own
            .into_iter()
            .map(|(k, r)| Ok((k.clone(), self.parse("", r)?)))
            .collect();
        Some(docs.and_then(|docs| from_documents(docs).map_err(|e| self.locate(e, ""))))
    }

    /// The store key of the group's `zarr.json`, which holds every member's document.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// How many members the consolidated metadata lists (at every depth).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it lists none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names of the group's direct members, in document order (a name the document gives
    /// twice is listed twice).
    pub fn names(&self) -> Vec<&str> {
        match self.format {
            ZarrFormat::V3 => self
                .entries
                .iter()
                .map(|(path, _)| path.as_str())
                .filter(|path| !path.contains('/'))
                .collect(),
            ZarrFormat::V2 => self
                .entries
                .iter()
                .filter_map(|(key, _)| {
                    key.strip_suffix("/.zarray")
                        .or_else(|| key.strip_suffix("/.zgroup"))
                })
                .filter(|name| !name.contains('/'))
                .collect(),
        }
    }

    /// The whole group with every member, as reading the document at once gives it.
    pub fn read_all(&self) -> Result<Node> {
        match self.format {
            ZarrFormat::V3 => self.read_below("", self.document.clone()),
            ZarrFormat::V2 => {
                let doc = json::parse_text(&self.text).map_err(|e| self.locate(e, ""))?;
                from_documents([(".zmetadata", doc)]).map_err(|e| self.locate(e, ""))
            }
        }
    }

    /// The member at `relative` with its own members (read from the same consolidated
    /// metadata), or `None` when the consolidated metadata does not list it.
    pub fn read(&self, relative: &str) -> Result<Option<Node>> {
        if self.format == ZarrFormat::V2 {
            return self.read_v2(relative);
        }
        let Some((path, range)) = self.entries.iter().rev().find(|(p, _)| p == relative) else {
            return Ok(None);
        };
        self.read_below(relative, self.parse(path, range)?)
            .map(Some)
    }

    /// [`Self::read`] of a v2 `.zmetadata`: the node's documents and those below it.
    fn read_v2(&self, relative: &str) -> Result<Option<Node>> {
        let is_node =
            |(k, _): &&(String, Range<usize>)| k.ends_with(".zarray") || k.ends_with(".zgroup");
        if relative.is_empty() || !self.v2_own(relative).any(|e| is_node(&e)) {
            return Ok(None);
        }
        let mut docs: Vec<(String, Value)> = Vec::new();
        for (key, range) in &self.entries {
            let below = key
                .strip_prefix(relative)
                .and_then(|rest| rest.strip_prefix('/'));
            if let Some(below) = below.filter(|b| !b.is_empty()) {
                docs.push((below.to_string(), self.parse(node_path_of_key(key), range)?));
            }
        }
        from_documents(docs)
            .map(Some)
            .map_err(|e| self.locate(e, relative))
    }

    /// The node at `relative` from its document `top`, with every member listed below it.
    fn read_below(&self, relative: &str, top: Value) -> Result<Node> {
        let mut docs: Vec<(String, Value)> = vec![("zarr.json".into(), top)];
        for (path, range) in &self.entries {
            let below = match relative {
                "" => Some(path.as_str()),
                _ => path
                    .strip_prefix(relative)
                    .and_then(|rest| rest.strip_prefix('/')),
            };
            if let Some(below) = below {
                docs.push((join_path(below, "zarr.json"), self.parse(path, range)?));
            }
        }
        from_documents(docs).map_err(|e| self.locate(e, relative))
    }

    /// A member's document. Its text was only located, not checked: an error says where it
    /// broke in the member's document, counted from its first byte.
    fn parse(&self, path: &str, range: &Range<usize>) -> Result<Value> {
        let text = self.text.get(range.clone()).unwrap_or_default();
        json::parse_text(text).map_err(|e| self.locate(e.at_path(path), ""))
    }

    /// An error of reading documents relative to the member at `relative`, located: the
    /// member's path from the store root, and the key of the document that holds it.
    fn locate(&self, mut error: ZomError, relative: &str) -> ZomError {
        let base = match relative {
            "" => self.path.clone(),
            _ => join_path(&self.path, relative),
        };
        error.path = Some(match error.path.take() {
            Some(below) if !below.is_empty() => join_path(&base, &below),
            _ => base,
        });
        error.key = Some(self.key.clone());
        error
    }
}
