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

    /// The names of the direct members of the member at `relative` (`""`: the group), in
    /// document order, each once.
    pub fn names(&self, relative: &str) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (path, _) in &self.entries {
            let name = match (relative.is_empty(), path.rsplit_once('/')) {
                (true, None) => path.as_str(),
                (false, Some((parent, name))) if parent == relative => name,
                _ => continue,
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// The whole group with every member, exactly as reading the document at once gives it.
    pub fn read_all(&self) -> Result<Node> {
        let mut document = self.document.clone();
        if let Some(Value::Object(metadata)) = document
            .get_mut("consolidated_metadata")
            .and_then(|c| c.get_mut("metadata"))
        {
            for (path, range) in &self.entries {
                metadata.insert(path.clone(), self.parse(path, range)?);
            }
        }
        from_documents([("zarr.json", document)]).map_err(|e| self.locate(e, ""))
    }

    /// The member at `relative` with its own members (read from the same consolidated
    /// metadata), or `None` when the consolidated metadata does not list it.
    pub fn read(&self, relative: &str) -> Result<Option<Node>> {
        if relative.is_empty() {
            return self.read_all().map(Some);
        }
        let prefix = format!("{relative}/");
        let mut docs = Vec::new();
        for (path, range) in &self.entries {
            let key = if path == relative {
                "zarr.json".to_string()
            } else if let Some(below) = path.strip_prefix(&prefix) {
                join_path(below, "zarr.json")
            } else {
                continue;
            };
            docs.push((key, self.parse(path, range)?));
        }
        if !docs.iter().any(|(k, _)| k == "zarr.json") {
            return Ok(None);
        }
        from_documents(docs)
            .map(Some)
            .map_err(|e| self.locate(e, relative))
    }

    /// A member's document. Its text was only located, not checked: errors say where it
    /// broke in the whole `zarr.json`.
    fn parse(&self, path: &str, range: &Range<usize>) -> Result<Value> {
        let text = self.text.get(range.clone()).unwrap_or_default();
        zom_json::parse(text).map_err(|e| {
            let before = self.text.get(..range.start).unwrap_or_default();
            let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let (line, column) = if e.line() <= 1 {
                (0, range.start - line_start + e.column())
            } else {
                (e.line() - 1, e.column())
            };
            let line = line + 1 + before.iter().filter(|&&b| b == b'\n').count();
            let error = ZomError::invalid_metadata(format!(
                "invalid JSON in the consolidated metadata of '{path}' at line {line}, column {column}: {}",
                json::error_text(&e)
            ));
            self.locate(error.at_path(path), "")
        })
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
