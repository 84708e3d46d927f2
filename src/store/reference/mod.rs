//! Kerchunk references (fsspec's `ReferenceFileSystem` format, versions 0 and 1): a JSON
//! document that maps each key of a virtual Zarr hierarchy to inline bytes or to a byte range
//! of another file (NetCDF, HDF5, TIFF…), so that zom reads such files as Zarr.
//!
//! Sans-I/O: [`References::parse`] reads the document into a table of key → [`Target`], target
//! URLs resolved against the reference file's own URL ([`resolve_url`]); [`check_references`]
//! returns its problems, located by JSON pointer like every other document's. Reading is the
//! store's business: [`ReferenceStore`] reads the targets through one inner [`Store`] keyed by
//! resolved URL (the TypeScript `ReferenceStore` does the same with HTTP or files).
//!
//! Everything in the document is hostile: sizes are checked against [`Limits`], offsets and
//! lengths must be integers up to 2^53 − 1, generators make at most [`MAX_GENERATED`]
//! references, template expressions are bounded in depth and rendered length.

mod parse;
mod template;

use super::wire::url::join;
use super::{ByteRange, Listing, Store};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::Limits;
use crate::problem::{Problem, ProblemKind};
use serde_json::Value;
use std::collections::BTreeMap;

/// The most references the generators (`gen`) of one document may make.
pub const MAX_GENERATED: u64 = 1 << 20;

/// One table entry: inline bytes, or a target URL (an index into [`Table::urls`]).
#[derive(Clone, Debug)]
enum Entry {
    Inline(Vec<u8>),
    Whole(u32),
    Range(u32, u64, u64),
}

/// The references: each key maps to the index of its entry in `list`. The map's values are
/// JSON numbers because the module has `BTreeMap<String, Value>` already (the document readers'
/// maps, `sorted_unique`): a map of another value type is kilobytes more WebAssembly.
#[derive(Clone, Debug, Default)]
struct Table {
    entries: BTreeMap<String, Value>,
    list: Vec<Entry>,
    urls: Vec<String>,
}

impl Table {
    /// Sets the entry of `key` (a later one replaces an earlier one, as in fsspec).
    fn insert(&mut self, key: &str, entry: Entry) {
        self.entries
            .insert(key.to_string(), Value::from(self.list.len()));
        self.list.push(entry);
    }

    fn get(&self, key: &str) -> Option<&Entry> {
        let index = self.entries.get(key)?.as_u64()?;
        self.list.get(usize::try_from(index).ok()?)
    }
}

/// Where the value of a key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// The value itself, held in the reference document.
    Inline(&'a [u8]),
    /// All of the file at this URL.
    Whole(&'a str),
    /// `length` bytes from `offset` of the file at `url`.
    Range {
        /// The resolved target URL.
        url: &'a str,
        /// The first byte.
        offset: u64,
        /// How many bytes.
        length: u64,
    },
}

/// A kerchunk reference document read into a table of key → [`Target`].
#[derive(Clone, Debug, Default)]
pub struct References {
    table: Table,
}

/// Whether `url` has a scheme of its own (`http:`, `file:`, `s3:`…; a one-letter "scheme" is a
/// Windows drive, not a scheme).
fn has_scheme(url: &str) -> bool {
    url.split_once(':').is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// A target URL resolved against `base`, the reference file's URL or path: a URL with a scheme
/// as it is; against an http(s) base as a browser resolves a link; against a local path (or a
/// `file:` URL, or none) as a path, `.` and `..` segments resolved. `None` when it does not
/// resolve.
pub fn resolve_url(base: &str, url: &str) -> Option<String> {
    if url.is_empty() {
        return None;
    }
    if has_scheme(url) {
        return Some(url.to_string());
    }
    let lower = base.get(..8).unwrap_or(base).to_ascii_lowercase();
    if lower.starts_with("http:") || lower.starts_with("https:") {
        return join(base, url);
    }
    let (root, dir) = match url.strip_prefix('/') {
        Some(_) => ("", ""),
        None => {
            let dir = base.get(..base.rfind('/').map_or(0, |i| i.saturating_add(1)))?;
            match dir.strip_prefix("file://") {
                Some(rest) => ("file://", rest),
                None => ("", dir),
            }
        }
    };
    let joined = format!("{dir}{url}");
    let mut segments: Vec<&str> = Vec::new();
    for s in joined.split('/') {
        match s {
            "." => {}
            ".." if segments.last().is_some_and(|l| !l.is_empty() && *l != "..") => {
                segments.pop();
            }
            ".." if segments.first() == Some(&"") => {}
            _ => segments.push(s),
        }
    }
    Some(format!("{root}{}", segments.join("/")))
}

/// The problems of a kerchunk reference document (JSON text), each located by `loc` (its JSON
/// pointer is in the message of [`References::parse`]'s error). Empty when it reads.
pub fn check_references(text: &[u8], limits: &Limits) -> Vec<Problem> {
    match read(text, "", limits) {
        Ok(reader) => reader.problems,
        Err(e) => vec![Problem::error("", &[], ProblemKind::InvalidJson, e.message)],
    }
}

/// Parses the document; problems are collected, a document that is not JSON is an error.
fn read<'b>(text: &[u8], base: &'b str, limits: &Limits) -> Result<parse::Reader<'b>> {
    if text.starts_with(b"PAR1") {
        return Err(ZomError::invalid_metadata(
            "parquet references are not supported: convert them to JSON references (kerchunk)",
        ));
    }
    let doc = crate::json::parse_document(text, limits)?;
    let mut reader = parse::Reader::new(base);
    reader.document(&doc);
    Ok(reader)
}

impl References {
    /// Reads a reference document (JSON text) whose own URL or path is `base` (target URLs are
    /// resolved against it; `""` keeps them as they are). The first problem fails with
    /// [`ErrorCode::InvalidMetadata`] naming its JSON pointer, `key` the reference file's
    /// `base`; a document over the limits fails with [`ErrorCode::LimitExceeded`].
    pub fn parse(text: &[u8], base: &str, limits: &Limits) -> Result<References> {
        let reader = read(text, base, limits).map_err(|e| e.at_key(base))?;
        if let Some(p) = reader.problems.first() {
            let at = parse::pointer(&p.loc);
            let at = if at.is_empty() { "the document" } else { &at };
            return Err(ZomError::invalid_metadata(format!(
                "kerchunk references: {} (at {at})",
                p.message
            ))
            .at_key(base));
        }
        Ok(References {
            table: reader.table,
        })
    }

    /// How many keys the references hold.
    pub fn len(&self) -> usize {
        self.table.entries.len()
    }

    /// Whether there are no references at all.
    pub fn is_empty(&self) -> bool {
        self.table.entries.is_empty()
    }

    /// The keys, sorted (without a leading '/').
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.table.entries.keys().map(String::as_str)
    }

    /// Where the value of `key` (with or without a leading '/') is; `None` for a key the
    /// references do not hold.
    pub fn locate(&self, key: &str) -> Option<Target<'_>> {
        let url = |id: &u32| {
            self.table
                .urls
                .get(usize::try_from(*id).unwrap_or(usize::MAX))
                .map_or("", String::as_str)
        };
        Some(match self.table.get(key.trim_start_matches('/'))? {
            Entry::Inline(bytes) => Target::Inline(bytes),
            Entry::Whole(id) => Target::Whole(url(id)),
            Entry::Range(id, offset, length) => Target::Range {
                url: url(id),
                offset: *offset,
                length: *length,
            },
        })
    }

    /// The keys and sub-prefixes directly below `prefix` (a node path, `""` for the root),
    /// as full keys without a leading '/' (prefixes without a trailing '/').
    pub fn list_dir(&self, prefix: &str) -> Listing {
        crate::store::list_keys(&mut self.table.entries.keys().map(String::as_str), prefix)
    }
}

/// What to read for a key, or part of it ([`References::plan`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan<'a> {
    /// The bytes themselves (inline, already cut to the range asked for).
    Bytes(&'a [u8]),
    /// Read `range` of the target at `url` (`None`: all of it). With `exact`, the target must
    /// hold every byte of the range (it is part of a reference's byte range); otherwise it is
    /// cut to the target as HTTP cuts a range.
    Read {
        /// The resolved target URL.
        url: &'a str,
        /// The bytes of the target to read.
        range: Option<ByteRange>,
        /// Whether the whole range must be there.
        exact: bool,
    },
}

/// `start..end` of a value of `len` bytes for `range`, cut to the value as HTTP does.
fn cut(range: &ByteRange, len: u64) -> (u64, u64) {
    match range {
        ByteRange::Bounded(r) => (r.start.min(len), r.end.min(len).max(r.start.min(len))),
        ByteRange::Suffix(n) => (len.saturating_sub(*n), len),
    }
}

impl References {
    /// What to read for `range` of the value of `key` (`None`: all of it); `None` for a key
    /// the references do not hold. The one place a reference's range and the caller's meet.
    pub fn plan(&self, key: &str, range: Option<ByteRange>) -> Option<Plan<'_>> {
        Some(match (self.locate(key)?, range) {
            (Target::Inline(bytes), None) => Plan::Bytes(bytes),
            (Target::Inline(bytes), Some(r)) => {
                let (a, b) = cut(&r, u64::try_from(bytes.len()).unwrap_or(u64::MAX));
                let (a, b) = (
                    usize::try_from(a).unwrap_or(0),
                    usize::try_from(b).unwrap_or(0),
                );
                Plan::Bytes(bytes.get(a..b).unwrap_or_default())
            }
            (Target::Whole(url), range) => Plan::Read {
                url,
                range,
                exact: false,
            },
            (
                Target::Range {
                    url,
                    offset,
                    length,
                },
                range,
            ) => {
                let (a, b) = range.map_or((0, length), |r| cut(&r, length));
                let range = Some(ByteRange::Bounded(
                    offset.saturating_add(a)..offset.saturating_add(b),
                ));
                Plan::Read {
                    url,
                    range,
                    exact: true,
                }
            }
        })
    }
}

impl References {
    /// The value at `key` (or `range` of it), its target read through `inner` (whose keys are
    /// the resolved target URLs): the read loop of [`ReferenceStore`] and of the JS
    /// `ReferenceStore` (`src/wasm/reference.rs`). A value longer than `max` is refused before
    /// it is read when its length is known (inline bytes, a reference's own range), and the
    /// target store is asked for at most `max` otherwise. A target's error is located at
    /// `key` (not at the target's URL).
    pub async fn read<S: Store>(
        &self,
        inner: &S,
        key: &str,
        range: Option<ByteRange>,
        max: u64,
    ) -> Result<Option<Vec<u8>>> {
        let too_long = |len: u64| {
            ZomError::new(
                ErrorCode::LimitExceeded,
                format!("the reference's value has {len} bytes, over the {max} asked for at most"),
            )
            .at_key(key)
        };
        let (url, range, exact) = match self.plan(key, range) {
            None => return Ok(None),
            Some(Plan::Bytes(bytes)) if bytes.len() as u64 > max => {
                return Err(too_long(bytes.len() as u64))
            }
            Some(Plan::Bytes(bytes)) => return Ok(Some(bytes.to_vec())),
            Some(Plan::Read { url, range, exact }) => (url, range, exact),
        };
        let want = match &range {
            Some(ByteRange::Bounded(r)) if exact => Some(r.end.saturating_sub(r.start)),
            _ => None,
        };
        if let Some(n) = want.filter(|&n| n > max) {
            return Err(too_long(n));
        }
        let ranged = range.is_some();
        let got = match range {
            None => inner.get_within(url, max).await,
            Some(range) => inner.get_range(url, range).await,
        };
        let bytes = got
            .map_err(|mut e| {
                e.key = Some(key.to_string());
                e
            })?
            .ok_or_else(|| {
                ZomError::new(
                    ErrorCode::NotFound,
                    format!("the reference's target {url} does not exist"),
                )
                .at_key(key)
            })?;
        if want.is_some_and(|n| u64::try_from(bytes.len()).ok() != Some(n)) {
            return Err(ZomError::invalid_metadata(format!(
                "the reference's target {url} ends before the reference's bytes"
            ))
            .at_key(key));
        }
        if ranged && bytes.len() as u64 > max {
            return Err(too_long(bytes.len() as u64));
        }
        Ok(Some(bytes))
    }
}

/// A [`Store`] over kerchunk references: each key's value is read from its [`Target`] through
/// `inner`, whose keys are the resolved target URLs (a [`super::MemoryStore`] in tests; any
/// store that maps URLs to files). Lists from the reference keys.
#[derive(Debug)]
pub struct ReferenceStore<S> {
    references: References,
    inner: S,
}

impl<S: Store> ReferenceStore<S> {
    /// A store of `references` whose targets `inner` reads.
    pub fn new(references: References, inner: S) -> Self {
        ReferenceStore { references, inner }
    }

    /// The references.
    pub fn references(&self) -> &References {
        &self.references
    }

    /// The store the targets are read from.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    async fn read(&self, key: &str, range: Option<ByteRange>, max: u64) -> Result<Option<Vec<u8>>> {
        self.references.read(&self.inner, key, range, max).await
    }
}

impl<S: Store> Store for ReferenceStore<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.read(key, None, u64::MAX).await
    }

    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        self.read(key, None, max).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.read(key, Some(range), u64::MAX).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        Ok(Some(self.references.list_dir(prefix)))
    }
}

#[cfg(test)]
mod tests {
    use super::resolve_url;

    #[test]
    fn resolves_targets() {
        for (base, url, want) in [
            ("http://h/a/refs.json", "x.h5", "http://h/a/x.h5"),
            ("https://h/a/refs.json", "../x.h5", "https://h/x.h5"),
            ("http://h/a/refs.json", "s3://b/x.h5", "s3://b/x.h5"),
            ("/data/refs/r.json", "x.h5", "/data/refs/x.h5"),
            ("/data/refs/r.json", "../x.h5", "/data/x.h5"),
            ("/data/r.json", "../../../x.h5", "/x.h5"),
            ("refs/r.json", "../../x.h5", "../x.h5"),
            ("r.json", "x.h5", "x.h5"),
            ("", "sub/./x.h5", "sub/x.h5"),
            ("file:///d/r.json", "x.h5", "file:///d/x.h5"),
            ("/d/r.json", "/abs/x.h5", "/abs/x.h5"),
        ] {
            assert_eq!(
                resolve_url(base, url).as_deref(),
                Some(want),
                "{base} {url}"
            );
        }
        assert_eq!(resolve_url("/d/r.json", ""), None);
    }
}
