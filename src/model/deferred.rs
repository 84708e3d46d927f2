//! Inline consolidated metadata kept as text until a member is asked for: a v3 group's
//! `zarr.json` that describes a whole large hierarchy opens at about the cost of scanning it.

use super::documents::from_documents;
use super::node::{join_path, Node};
use crate::error::{Result, ZomError};
use crate::json;
use serde_json::Value;
use std::ops::Range;
use std::sync::Arc;

/// The members a group's inline consolidated metadata describes, not read yet: each member's
/// document is checked JSON text, read into a node when asked for.
#[derive(Clone, PartialEq)]
pub struct DeferredMembers {
    /// The group's `zarr.json`, as fetched.
    text: Arc<Vec<u8>>,
    /// The group's document with `consolidated_metadata.metadata` empty.
    document: Value,
    /// Member path (relative to the group) → its document's range in `text`, in document order.
    entries: Vec<(String, Range<usize>)>,
    /// The group's node path (relative to the store root).
    path: String,
    /// The store key of the group's `zarr.json`.
    key: String,
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
    /// Members of the group at node `path` whose `zarr.json` (store key `key`) is `text`, as
    /// [`zom_json::skim_consolidated`] found them; `document` is the group's own.
    pub(crate) fn new(
        text: Arc<Vec<u8>>,
        document: Value,
        entries: Vec<(String, Range<usize>)>,
        path: &str,
        key: &str,
    ) -> Self {
        DeferredMembers {
            text,
            document,
            entries,
            path: path.to_string(),
            key: key.to_string(),
        }
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
        self.entries
            .iter()
            .map(|(path, _)| path.as_str())
            .filter(|path| !path.contains('/'))
            .collect()
    }

    /// The whole group with every member, as reading the document at once gives it.
    pub fn read_all(&self) -> Result<Node> {
        self.read_below("", self.document.clone())
    }

    /// The member at `relative` with its own members (read from the same consolidated
    /// metadata), or `None` when the consolidated metadata does not list it.
    pub fn read(&self, relative: &str) -> Result<Option<Node>> {
        let Some((path, range)) = self.entries.iter().rev().find(|(p, _)| p == relative) else {
            return Ok(None);
        };
        self.read_below(relative, self.parse(path, range)?)
            .map(Some)
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
