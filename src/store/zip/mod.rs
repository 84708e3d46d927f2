//! Zip archives as stores: a hierarchy zipped by zarr-python's `ZipStore` (or any zip tool),
//! read with range requests from wherever the archive lives.
//!
//! Sans-I/O first: [`ZipIndex`] is built from the archive's last bytes (and, for a large
//! directory, one more range), and then says which byte range of the archive each read needs
//! and turns the bytes fetched into the member's bytes. The TypeScript `ZipStore`
//! (`ts/store/zip.ts`) does the I/O through any other store; [`ZipStore`] is the same for Rust
//! callers over a [`Store`].
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

/// A zip archive stored under `key` in another store, read as a store.
#[derive(Debug)]
pub struct ZipStore<S> {
    inner: S,
    key: String,
    index: std::cell::RefCell<ZipIndex>,
}

impl<S: Store> ZipStore<S> {
    /// Opens the archive at `key` of `inner` (one suffix read, or two for a large directory);
    /// `root` as for [`ZipIndex::open`].
    pub async fn open(inner: S, key: &str, root: Option<&str>) -> Result<ZipStore<S>> {
        let located = |e: ZomError| e.at_key(key);
        let tail = inner.get_suffix(key, TAIL_LENGTH).await?.ok_or_else(|| {
            ZomError::new(crate::ErrorCode::NotFound, "no zip archive").at_key(key)
        })?;
        let index = match ZipIndex::open(&tail, root).map_err(located)? {
            Opened::Index(index) => index,
            Opened::NeedDirectory(range) => {
                let dir = inner
                    .get_range(key, ByteRange::Bounded(range))
                    .await?
                    .unwrap_or_default();
                ZipIndex::with_directory(&tail, &dir, root).map_err(located)?
            }
        };
        Ok(ZipStore {
            inner,
            key: key.to_string(),
            index: std::cell::RefCell::new(index),
        })
    }

    /// The archive's index.
    pub fn index(&self) -> std::cell::Ref<'_, ZipIndex> {
        self.index.borrow()
    }

    /// The store the archive is read from.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    async fn fetch(&self, range: std::ops::Range<u64>) -> Result<Vec<u8>> {
        self.inner
            .get_range(&self.key, ByteRange::Bounded(range))
            .await?
            .ok_or_else(|| {
                ZomError::new(crate::ErrorCode::NotFound, "the zip archive is gone")
                    .at_key(&self.key)
            })
    }
}

impl<S: Store> ZipStore<S> {
    /// Reads `want` of the member at `key`: at most three rounds (the local header when the
    /// layout did not tell where the data starts, the data; for a range of a compressed
    /// member, the member whole).
    async fn read(&self, key: &str, want: Want) -> Result<Option<Vec<u8>>> {
        let max = match want {
            Want::Whole(max) => max,
            Want::Range(_) => u64::MAX,
        };
        for _ in 0..3 {
            let plan = self.index.borrow().plan(key, &want)?;
            let range = match plan {
                None => return Ok(None),
                Some(Fetch::Empty) => return Ok(Some(Vec::new())),
                Some(Fetch::Archive(r)) => return self.fetch(r).await.map(Some),
                Some(Fetch::Decoded(r)) => {
                    let whole = Box::pin(self.read(key, Want::Whole(max))).await?;
                    return Ok(whole.map(|w| cut(&w, r).to_vec()));
                }
                Some(Fetch::Member(r) | Fetch::Header(r)) => r,
            };
            let bytes = self.fetch(range).await?;
            if let Some(value) = self.index.borrow_mut().accept(key, &bytes, max)? {
                return Ok(Some(value));
            }
        }
        let message = "zip: the member's local header does not match the directory";
        Err(ZomError::invalid_metadata(message).at_key(key))
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
        Ok(Some(self.index.borrow().list(prefix)))
    }
}
