//! Zip archives as stores: a hierarchy zipped by zarr-python's `ZipStore` (or any zip tool),
//! read with range requests from wherever the archive lives.
//!
//! Sans-I/O first: [`ZipIndex`] is built from the archive's last bytes (and, for a large
//! directory, one more range), and then says which byte range of the archive each read needs
//! and turns the bytes fetched into the member's bytes. [`ZipReader`] is the read loop over it,
//! through any [`Store`] holding the archive: [`ZipStore`] for Rust callers, and the
//! TypeScript `ZipStore` (`ts/store/zip.ts`, through `src/wasm/zip.rs`), which only says where
//! the archive is.
//!
//! Requests: opening reads the tail once ([`TAIL_LENGTH`] bytes, a suffix range); a second
//! read fetches the central directory only when it is larger than that. A whole member is one
//! range (its local header, checked, and its data); a range of a stored member is one range
//! of the archive, so a sharded array reads with the requests it makes over plain HTTP.
//! Deflated members are read whole and inflated. The CRC-32 of every whole member is checked.

mod bytes;
mod directory;
mod member;

pub use directory::{Entry, Method, Trailer, MAX_DIRECTORY_BYTES, TAIL_LENGTH};
pub use member::{cut, Fetch, Want};

use super::{ByteRange, Listing, Store};
use crate::error::{Result, ZomError};
use std::cell::RefCell;

/// The documents whose presence marks a hierarchy's root.
const ROOT_DOCUMENTS: [&str; 4] = ["zarr.json", ".zgroup", ".zarray", ".zmetadata"];

/// What the tail told: the index, or the range of the central directory still to read.
#[derive(Debug)]
pub enum Opened {
    /// The tail held the whole directory.
    Index(ZipIndex),
    /// Read this range of the archive and pass it to [`ZipIndex::with_directory`].
    NeedDirectory(std::ops::Range<u64>),
}

/// A zip archive's members by name, and the hierarchy root inside it.
#[derive(Debug)]
pub struct ZipIndex {
    /// Sorted by name.
    entries: Vec<Entry>,
    root: String,
}

impl ZipIndex {
    /// Reads the index from the archive's last bytes (a suffix read of [`TAIL_LENGTH`], or
    /// the whole archive when it is shorter). `root` is the folder of the hierarchy inside
    /// the archive; `None` finds it ([`ZipIndex::root`]).
    pub fn open(tail: &[u8], root: Option<&str>) -> Result<Opened> {
        let trailer = directory::read_trailer(tail)?;
        match trailer.within(tail) {
            Some(dir) => Ok(Opened::Index(Self::build(dir, &trailer, root)?)),
            None => Ok(Opened::NeedDirectory(trailer.range())),
        }
    }

    /// Reads the index from the tail and the central directory read separately.
    pub fn with_directory(tail: &[u8], directory: &[u8], root: Option<&str>) -> Result<ZipIndex> {
        let trailer = directory::read_trailer(tail)?;
        if directory.len() as u64 != trailer.length {
            return Err(ZomError::invalid_metadata(format!(
                "zip: the central directory read has {} bytes, the end record says {}",
                directory.len(),
                trailer.length
            )));
        }
        Self::build(directory, &trailer, root)
    }

    fn build(dir: &[u8], trailer: &Trailer, root: Option<&str>) -> Result<ZipIndex> {
        let entries = directory::read_directory(dir, trailer)?;
        let root = match root {
            Some(r) => folder(r),
            None => find_root(&entries),
        };
        Ok(ZipIndex { entries, root })
    }

    /// The folder of the hierarchy inside the archive (`""`, or `"data.zarr/"`): given when
    /// opened, else the archive's top level when a root document (`zarr.json`, `.zgroup`,
    /// `.zarray`, `.zmetadata`) is there, else the one shallowest folder that holds one.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// How many files the archive holds (all of them, not only those below the root).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the archive holds no files.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every file of the archive, sorted by name (directory entries left out).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The member a store key names (keys relative to the root; a leading `/` is ignored).
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.get(self.position(key)?)
    }

    fn position(&self, key: &str) -> Option<usize> {
        let name = format!("{}{}", self.root, key.trim_start_matches('/'));
        self.entries
            .binary_search_by(|e| e.name.as_str().cmp(&name))
            .ok()
    }

    fn entry_mut(&mut self, key: &str) -> Option<&mut Entry> {
        let at = self.position(key)?;
        self.entries.get_mut(at)
    }

    /// What is directly below `prefix` (a node path: `""`, `"a/b"`), as full keys relative
    /// to the root: `"a/b/zarr.json"`, and sub-prefixes `"a/b/c"`.
    pub fn list(&self, prefix: &str) -> Listing {
        let root = self.root.as_str();
        let names = self
            .entries
            .iter()
            .filter_map(|e| e.name.strip_prefix(root));
        super::list_keys(&mut names.into_iter(), prefix)
    }
}

/// `r` as a folder name: no leading `/`, one trailing `/` unless empty.
fn folder(r: &str) -> String {
    let r = r.trim_matches('/');
    if r.is_empty() {
        String::new()
    } else {
        format!("{r}/")
    }
}

fn find_root(entries: &[Entry]) -> String {
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for name in entries.iter().map(|e| &e.name) {
        let (dir, file) = name
            .rsplit_once('/')
            .map_or(("", name.as_str()), |(d, f)| (d, f));
        if !ROOT_DOCUMENTS.contains(&file) {
            continue;
        }
        let depth = if dir.is_empty() {
            0
        } else {
            dir.split('/').count()
        };
        match best {
            Some((d, b)) if d < depth || (d == depth && b == dir) => {}
            Some((d, _)) if d == depth => tied = true,
            _ => {
                best = Some((depth, dir));
                tied = false;
            }
        }
    }
    match best {
        Some((_, dir)) if !tied => folder(dir),
        _ => String::new(),
    }
}

/// How many compressed members a [`ZipReader`] keeps whole for range reads of them.
const WHOLE_KEPT: usize = 4;

/// The read loop over a zip archive held by another store, for [`ZipStore`] and the JS
/// `ZipStore` (`src/wasm/zip.rs`) alike: the archive's index, and the compressed members last
/// read whole for ranges of them (a shard's index, then its inner chunks: a shard is fetched
/// and inflated once, not per range). The store holding the archive is passed to each read,
/// so a caller may read through a store made for one operation (with its AbortSignal).
#[derive(Debug)]
pub struct ZipReader {
    index: RefCell<ZipIndex>,
    /// The last [`WHOLE_KEPT`] compressed members read whole, oldest first.
    whole: RefCell<Vec<(String, Vec<u8>)>>,
}

impl ZipReader {
    /// A reader of the archive whose index is `index`.
    pub fn new(index: ZipIndex) -> ZipReader {
        ZipReader {
            index: RefCell::new(index),
            whole: RefCell::new(Vec::new()),
        }
    }

    /// Opens the archive at `key` of `inner` (one suffix read, or two for a large directory);
    /// `root` as for [`ZipIndex::open`].
    pub async fn open<S: Store>(inner: &S, key: &str, root: Option<&str>) -> Result<ZipReader> {
        let located = |e: ZomError| e.at_key(key);
        // The tail, then the directory when the tail does not hold it: one read in the code
        // (each read of a JS store is code in the module).
        let mut tail: Option<Vec<u8>> = None;
        let mut want = ByteRange::Suffix(TAIL_LENGTH);
        loop {
            let read = inner.get_range(key, want).await?;
            let Some(tail) = &tail else {
                let read = read.ok_or_else(|| {
                    ZomError::new(crate::ErrorCode::NotFound, "no zip archive").at_key(key)
                })?;
                match ZipIndex::open(&read, root).map_err(located)? {
                    Opened::Index(index) => return Ok(ZipReader::new(index)),
                    Opened::NeedDirectory(range) => want = ByteRange::Bounded(range),
                }
                tail = Some(read);
                continue;
            };
            let dir = read.unwrap_or_default();
            let index = ZipIndex::with_directory(tail, &dir, root).map_err(located)?;
            return Ok(ZipReader::new(index));
        }
    }

    /// The archive's index.
    pub fn index(&self) -> std::cell::Ref<'_, ZipIndex> {
        self.index.borrow()
    }

    /// What is directly below `prefix` ([`ZipIndex::list`]).
    pub fn list(&self, prefix: &str) -> Listing {
        self.index.borrow().list(prefix)
    }

    /// Reads `want` of the member at `key` of the archive at `archive` in `inner`: at most
    /// four rounds (for a range of a compressed member, the member whole, kept for the next
    /// ranges; the local header when the layout did not tell where the data starts; the data).
    pub async fn read<S: Store>(
        &self,
        inner: &S,
        archive: &str,
        key: &str,
        mut want: Want,
    ) -> Result<Option<Vec<u8>>> {
        let kept_key = key.trim_start_matches('/');
        // The range of the member read whole that the answer is, for a compressed member.
        let mut decoded = None;
        for _ in 0..4 {
            let max = match want {
                Want::Whole(max) => max,
                Want::Range(_) => u64::MAX,
            };
            let plan = self.index.borrow().plan(key, &want)?;
            // One place that reads the archive (each read of a JS store is code in the module).
            let (range, answer) = match plan {
                None => return Ok(None),
                Some(Fetch::Empty) => return Ok(Some(Vec::new())),
                Some(Fetch::Archive(r)) => (r, true),
                Some(Fetch::Decoded(r)) => {
                    let kept = self.whole.borrow();
                    if let Some((_, whole)) = kept.iter().find(|(k, _)| k == kept_key) {
                        return Ok(Some(cut(whole, r).to_vec()));
                    }
                    // Not the range's bound: that bounds the range, not the member.
                    decoded = Some(r);
                    want = Want::Whole(u64::MAX);
                    continue;
                }
                Some(Fetch::Member(r) | Fetch::Header(r)) => (r, false),
            };
            let bytes = fetch(inner, archive, range).await?;
            if answer {
                return Ok(Some(bytes));
            }
            let Some(value) = self.index.borrow_mut().accept(key, &bytes, max)? else {
                continue;
            };
            let Some(r) = decoded else {
                return Ok(Some(value));
            };
            let part = cut(&value, r).to_vec();
            let mut kept = self.whole.borrow_mut();
            if kept.len() >= WHOLE_KEPT {
                kept.remove(0);
            }
            kept.push((kept_key.to_string(), value));
            return Ok(Some(part));
        }
        let message = "zip: the member's local header does not match the directory";
        Err(ZomError::invalid_metadata(message).at_key(key))
    }
}

/// Bytes `range` of the archive at `archive` in `inner`, which must still be there.
async fn fetch<S: Store>(inner: &S, archive: &str, range: std::ops::Range<u64>) -> Result<Vec<u8>> {
    inner
        .get_range(archive, ByteRange::Bounded(range))
        .await?
        .ok_or_else(|| {
            ZomError::new(crate::ErrorCode::NotFound, "the zip archive is gone").at_key(archive)
        })
}

/// A zip archive stored under `key` in another store, read as a store.
#[derive(Debug)]
pub struct ZipStore<S> {
    inner: S,
    key: String,
    reader: ZipReader,
}

impl<S: Store> ZipStore<S> {
    /// Opens the archive at `key` of `inner` (one suffix read, or two for a large directory);
    /// `root` as for [`ZipIndex::open`].
    pub async fn open(inner: S, key: &str, root: Option<&str>) -> Result<ZipStore<S>> {
        let reader = ZipReader::open(&inner, key, root).await?;
        Ok(ZipStore {
            inner,
            key: key.to_string(),
            reader,
        })
    }

    /// The archive's index.
    pub fn index(&self) -> std::cell::Ref<'_, ZipIndex> {
        self.reader.index()
    }

    /// The store the archive is read from.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    async fn read(&self, key: &str, want: Want) -> Result<Option<Vec<u8>>> {
        self.reader.read(&self.inner, &self.key, key, want).await
    }
}

impl<S: Store> Store for ZipStore<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.read(key, Want::Whole(u64::MAX)).await
    }

    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        self.read(key, Want::Whole(max)).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.read(key, Want::Range(range)).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        Ok(Some(self.reader.list(prefix)))
    }
}
