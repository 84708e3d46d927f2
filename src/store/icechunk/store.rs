//! One snapshot of a repository as a Zarr store: `zarr.json` keys answer with the nodes'
//! metadata, chunk keys with the bytes the manifests point at.

use super::id::NodeId;
use super::manifest::{Checksum, ChunkRef, Manifest};
use super::repository::{chunk_key, fetch, manifest_key, RefSpec, Repository};
use super::snapshot::{NodeKind, Snapshot};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits};
use crate::store::{list_keys, ByteRange, Listing, Store};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Where one chunk's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkLocation {
    /// In the manifest: the bytes themselves.
    Inline(Vec<u8>),
    /// `length` bytes at `offset` of the repository's file `key` (`chunks/{id}`).
    Native {
        /// The chunk file's key in the repository's store.
        key: String,
        /// The first byte.
        offset: u64,
        /// How many bytes.
        length: u64,
    },
    /// `length` bytes at `offset` of the object at `url`, outside the repository.
    Virtual {
        /// The object's absolute URL.
        url: String,
        /// The first byte.
        offset: u64,
        /// How many bytes.
        length: u64,
        /// What the object must still match, when recorded.
        checksum: Option<Checksum>,
    },
}

/// How many parsed manifests a store keeps.
const MANIFESTS_KEPT: usize = 8;

/// One snapshot of an Icechunk repository read as a Zarr store. `inner` holds the
/// repository's files (`repo`, `snapshots/…`, `manifests/…`, `chunks/…`); virtual chunks are
/// read from `virtual_store`, keyed by their absolute URL (the caller decides which URLs it
/// can fetch). Keys: `zarr.json` and `a/b/zarr.json` (each node's metadata), and chunk keys as
/// each array's chunk key encoding makes them (`a/b/c/0/1`). Chunks no manifest holds are
/// absent (they read as the fill value).
pub struct IcechunkStore<S, V> {
    inner: S,
    virtual_store: V,
    snapshot: Snapshot,
    limits: Limits,
    /// The manifests last read, newest last.
    manifests: RefCell<Vec<Rc<Manifest>>>,
    /// Per array path, how its chunk keys are written.
    encodings: RefCell<BTreeMap<String, KeyEncoding>>,
}

/// A chunk key encoding (Zarr v3 `default` or `v2`).
#[derive(Clone, Debug)]
struct KeyEncoding {
    default: bool,
    separator: char,
}

impl<S: Store, V: Store> IcechunkStore<S, V> {
    /// The store of `snapshot`, read through `inner` and `virtual_store`.
    pub fn new(inner: S, virtual_store: V, snapshot: Snapshot, limits: &Limits) -> Self {
        IcechunkStore {
            inner,
            virtual_store,
            snapshot,
            limits: *limits,
            manifests: RefCell::new(Vec::new()),
            encodings: RefCell::new(BTreeMap::new()),
        }
    }

    /// Opens the repository in `inner` and the snapshot `spec` names.
    pub async fn open(inner: S, virtual_store: V, spec: &RefSpec, limits: &Limits) -> Result<Self> {
        let repository = Repository::open(&inner, limits).await?;
        let id = repository.resolve(&inner, spec).await?;
        let snapshot = repository.snapshot(&inner, &id).await?;
        Ok(IcechunkStore::new(inner, virtual_store, snapshot, limits))
    }

    /// The snapshot read.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The store holding the repository's files.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    async fn manifest(&self, id: &super::id::ManifestId) -> Result<Rc<Manifest>> {
        if let Some(m) = self.manifests.borrow().iter().find(|m| m.id() == *id) {
            return Ok(Rc::clone(m));
        }
        let key = manifest_key(id);
        let file = fetch(&self.inner, &key, &self.limits, &format!("manifest {id}")).await?;
        let manifest = Manifest::parse(&file, &self.limits).map_err(|e| e.at_key(&key))?;
        if manifest.id() != *id {
            let message = format!("the file of manifest {id} holds manifest {}", manifest.id());
            return Err(super::corrupt(message).at_key(key));
        }
        let manifest = Rc::new(manifest);
        let mut kept = self.manifests.borrow_mut();
        if kept.len() >= MANIFESTS_KEPT {
            kept.remove(0);
        }
        kept.push(Rc::clone(&manifest));
        Ok(manifest)
    }

    /// Where the chunk at `coords` of the array at `path` (a node path: `""` or `"a/b"`) is;
    /// `None` when no manifest holds it.
    pub async fn chunk_location(
        &self,
        path: &str,
        coords: &[u64],
    ) -> Result<Option<ChunkLocation>> {
        let at = |e: ZomError| e.at_path(path);
        let node_path = node_path(path);
        let node = self.array(&node_path).map_err(at)?;
        let coords: Vec<u32> = coords
            .iter()
            .map(|&c| u32::try_from(c))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| {
                at(ZomError::invalid_argument(
                    "icechunk: chunk coordinates past 2^32 - 1",
                ))
            })?;
        let refs = self
            .snapshot
            .manifest_refs(&node_path)
            .map_err(at)?
            .unwrap_or_default();
        let Some(manifest_ref) = refs.iter().find(|r| r.covers(&coords)) else {
            return Ok(None);
        };
        let manifest = self.manifest(&manifest_ref.id).await.map_err(at)?;
        let found = manifest
            .lookup(&node, &coords)
            .map_err(|e| at(e.at_key(manifest_key(&manifest_ref.id))))?;
        Ok(found.map(|chunk| match chunk {
            ChunkRef::Inline(bytes) => ChunkLocation::Inline(bytes),
            ChunkRef::Native { id, offset, length } => ChunkLocation::Native {
                key: chunk_key(&id),
                offset,
                length,
            },
            ChunkRef::Virtual {
                location,
                offset,
                length,
                checksum,
            } => ChunkLocation::Virtual {
                url: location,
                offset,
                length,
                checksum,
            },
        }))
    }

    fn array(&self, node_path: &str) -> Result<NodeId> {
        match self.snapshot.node(node_path) {
            Some(n) if n.kind == NodeKind::Array => Ok(n.id),
            _ => Err(ZomError::new(
                ErrorCode::NotFound,
                "icechunk: no array there",
            )),
        }
    }

    /// The array and chunk coordinates a chunk key names, when it names a chunk.
    fn parse_chunk_key(&self, key: &str) -> Result<Option<(String, Vec<u64>)>> {
        // An array has no child nodes, so the shortest prefix that is an array is the one.
        let mut cut = Some(0usize);
        while let Some(at) = cut {
            let (dir, rest) = if at == 0 {
                ("", key)
            } else {
                (&key[..at - 1], &key[at..])
            };
            if let Some(node) = self.snapshot.node(&node_path(dir)) {
                if node.kind == NodeKind::Array {
                    let encoding = self.encoding(dir, node.zarr_json)?;
                    return Ok(encoding.coords(rest).map(|c| (dir.to_string(), c)));
                }
            }
            cut = key[at..].find('/').map(|i| at + i + 1);
        }
        Ok(None)
    }

    fn encoding(&self, path: &str, zarr_json: &[u8]) -> Result<KeyEncoding> {
        if let Some(e) = self.encodings.borrow().get(path) {
            return Ok(e.clone());
        }
        let doc =
            crate::json::parse_document(zarr_json, &self.limits).map_err(|e| e.at_path(path))?;
        let encoding = KeyEncoding::of(&doc).map_err(|e| e.at_path(path))?;
        self.encodings
            .borrow_mut()
            .insert(path.to_string(), encoding.clone());
        Ok(encoding)
    }

    async fn read_chunk(
        &self,
        key: &str,
        path: &str,
        coords: &[u64],
        range: Option<ByteRange>,
        max: u64,
    ) -> Result<Option<Vec<u8>>> {
        let Some(location) = self.chunk_location(path, coords).await? else {
            return Ok(None);
        };
        let (store_key, offset, length, is_virtual) = match location {
            ChunkLocation::Inline(bytes) => {
                let len = bytes.len() as u64;
                let Some(r) = range else {
                    check_size(len, max, key)?;
                    return Ok(Some(bytes));
                };
                let (from, to) = sub_range(&r, len, key)?;
                return Ok(Some(bytes[from as usize..to as usize].to_vec()));
            }
            ChunkLocation::Native {
                key,
                offset,
                length,
            } => (key, offset, length, false),
            ChunkLocation::Virtual {
                url,
                offset,
                length,
                ..
            } => (url, offset, length, true),
        };
        let (from, to) = match &range {
            None => {
                check_size(length, max, key)?;
                (0, length)
            }
            Some(r) => sub_range(r, length, key)?,
        };
        let want = ByteRange::Bounded(offset + from..offset + to);
        let read = if is_virtual {
            let Some(url) = crate::store::wire::url::public_object_url(&store_key) else {
                let message = format!(
                    "icechunk: the chunk of '{key}' is in '{store_key}', whose scheme zom cannot fetch (http, https, s3, gs)"
                );
                return Err(
                    ZomError::new(ErrorCode::UnsupportedExtension, message).at_key(&store_key)
                );
            };
            self.virtual_store.get_range(&url, want).await
        } else {
            self.inner.get_range(&store_key, want).await
        };
        let bytes = read.map_err(|e| e.at_key(&store_key))?.ok_or_else(|| {
            ZomError::new(
                ErrorCode::NotFound,
                format!(
                    "icechunk: the chunk of '{key}' points at '{store_key}', which is not there"
                ),
            )
            .at_key(&store_key)
        })?;
        if bytes.len() as u64 != to - from {
            let message = format!(
                "icechunk: '{store_key}' holds {} of the {} bytes of chunk '{key}'",
                bytes.len(),
                to - from
            );
            return Err(ZomError::invalid_metadata(message).at_key(store_key));
        }
        Ok(Some(bytes))
    }

    async fn read(&self, key: &str, range: Option<ByteRange>, max: u64) -> Result<Option<Vec<u8>>> {
        let key = key.trim_start_matches('/');
        let doc_dir = if key == "zarr.json" {
            Some("")
        } else {
            key.strip_suffix("/zarr.json")
        };
        if let Some(dir) = doc_dir {
            let Some(node) = self.snapshot.node(&node_path(dir)) else {
                return Ok(None);
            };
            let doc = node.zarr_json;
            return Ok(Some(match range {
                None => {
                    check_size(doc.len() as u64, max, key)?;
                    doc.to_vec()
                }
                Some(r) => {
                    let (from, to) = sub_range(&r, doc.len() as u64, key)?;
                    doc[from as usize..to as usize].to_vec()
                }
            }));
        }
        match self.parse_chunk_key(key)? {
            Some((path, coords)) => self
                .read_chunk(key, &path, &coords, range, max)
                .await
                .map_err(|e| e.at_key(key)),
            None => Ok(None),
        }
    }
}

/// The icechunk node path of a zom node path (`""` → `/`, `a/b` → `/a/b`).
fn node_path(path: &str) -> String {
    format!("/{}", path.trim_matches('/'))
}

fn check_size(len: u64, max: u64, key: &str) -> Result<()> {
    if len > max {
        return Err(crate::limits::exceeded(
            Limit::DocumentBytes,
            max,
            len,
            "a value's size in bytes",
        )
        .at_key(key));
    }
    Ok(())
}

/// `range` of a value of `len` bytes, as start and end, cut to the value as HTTP cuts it.
fn sub_range(range: &ByteRange, len: u64, key: &str) -> Result<(u64, u64)> {
    let (from, to) = match range {
        ByteRange::Bounded(r) => (r.start.min(len), r.end.min(len)),
        ByteRange::Suffix(n) => (len.saturating_sub(*n), len),
    };
    if from > to {
        let message = format!("icechunk: bytes {from}..{to} of a value");
        return Err(ZomError::new(ErrorCode::InvalidArgument, message).at_key(key));
    }
    Ok((from, to))
}

impl KeyEncoding {
    fn of(doc: &serde_json::Value) -> Result<KeyEncoding> {
        let encoding = &doc["chunk_key_encoding"];
        let name = encoding["name"].as_str().unwrap_or("default");
        let separator = match encoding["configuration"]["separator"].as_str() {
            Some("/") => '/',
            Some(".") => '.',
            None if name == "v2" => '.',
            None => '/',
            Some(other) => {
                return Err(ZomError::invalid_metadata(format!(
                    "icechunk: chunk key separator '{other}'"
                )))
            }
        };
        match name {
            "default" | "v2" => Ok(KeyEncoding {
                default: name == "default",
                separator,
            }),
            other => Err(ZomError::new(
                ErrorCode::UnsupportedExtension,
                format!("icechunk: chunk key encoding '{other}'"),
            )),
        }
    }

    /// The coordinates `rest` (the key after the array's path) names.
    fn coords(&self, rest: &str) -> Option<Vec<u64>> {
        let rest = if self.default {
            match rest.strip_prefix('c') {
                Some("") => return Some(Vec::new()),
                Some(r) => r.strip_prefix(self.separator)?,
                None => return None,
            }
        } else {
            rest
        };
        rest.split(self.separator)
            .map(|s| {
                if s.starts_with('+') {
                    None
                } else {
                    s.parse::<u64>().ok()
                }
            })
            .collect()
    }
}

impl<S: Store, V: Store> Store for IcechunkStore<S, V> {
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
        let keys: Vec<String> = self
            .snapshot
            .nodes()
            .map(|n| match n.path {
                "/" => "zarr.json".to_string(),
                p => format!("{}/zarr.json", &p[1..]),
            })
            .collect();
        Ok(Some(list_keys(
            &mut keys.iter().map(String::as_str),
            prefix,
        )))
    }
}
