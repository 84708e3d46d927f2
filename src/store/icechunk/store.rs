//! One snapshot of a repository as a Zarr store: `zarr.json` keys answer with the nodes'
//! metadata, chunk keys with the bytes the manifests point at.

use super::checksum::{NoValidatedReads, ValidatedRead};
use super::config::{self, VirtualChunkContainer};
use super::id::NodeId;
use super::manifest::{Checksum, ChunkRef, Manifest};
use super::repository::{chunk_key, fetch, manifest_key, RefSpec, Repository};
use super::snapshot::{NodeKind, Snapshot};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits};
use crate::store::loads::LoadCache;
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
        /// The object's absolute URL (a location relative to a named container,
        /// `vcc://NAME/…`, is resolved against the container's prefix when the store knows it).
        url: String,
        /// The first byte.
        offset: u64,
        /// How many bytes.
        length: u64,
        /// What the object must still match, when recorded.
        checksum: Option<Checksum>,
    },
}

/// A byte range of an object: one of the repository's files (`chunks/{id}`), or a virtual
/// chunk's object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectRange {
    /// The file's key in the repository's store (a virtual chunk's object: its URL).
    pub key: String,
    /// The first byte.
    pub offset: u64,
    /// How many bytes.
    pub length: u64,
}

/// What reading (a range of) a chunk takes.
enum ChunkRead {
    /// No manifest holds it.
    Absent,
    /// Its bytes, from the manifest.
    Bytes(Vec<u8>),
    /// A range of a repository file.
    Native(ObjectRange),
    /// A range of a virtual chunk's object, and what the object must still match.
    Virtual(ObjectRange, Option<Checksum>),
}

/// How many of the largest manifests ([`Limits::max_document_bytes`] each) a store keeps.
const MANIFESTS_KEPT: u64 = 4;

/// One snapshot of an Icechunk repository read as a Zarr store. `inner` holds the
/// repository's files (`repo`, `snapshots/…`, `manifests/…`, `chunks/…`); virtual chunks are
/// read from `virtual_store`, keyed by their absolute URL (`s3://` and `gs://` as their public
/// HTTPS URL), only those inside the virtual chunk containers the store knows (the
/// repository's, from [`IcechunkStore::open`], or the caller's): any other is refused before
/// it is requested. Keys: `zarr.json` and `a/b/zarr.json` (each node's metadata), and chunk
/// keys as each array's chunk key encoding makes them (`a/b/c/0/1`). Chunks no manifest holds
/// are absent (they read as the fill value). `C` reads the virtual chunks that record a
/// checksum, telling whether their object changed ([`IcechunkStore::with_validated_reads`]).
pub struct IcechunkStore<S, V, C = NoValidatedReads> {
    inner: S,
    virtual_store: V,
    snapshot: Snapshot,
    limits: Limits,
    /// The containers virtual chunks may be read from, sorted by prefix; `None`: any URL.
    containers: Option<Vec<VirtualChunkContainer>>,
    validated: Option<C>,
    /// The manifests read, the least recently used evicted first.
    manifests: LoadCache<Rc<Manifest>>,
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
    /// The store of `snapshot`, read through `inner` and `virtual_store`. It knows no virtual
    /// chunk container: every virtual chunk URL is read until containers are given
    /// ([`IcechunkStore::with_virtual_chunk_containers`]); [`IcechunkStore::open`] gives the
    /// repository's.
    pub fn new(inner: S, virtual_store: V, snapshot: Snapshot, limits: &Limits) -> Self {
        IcechunkStore {
            inner,
            virtual_store,
            snapshot,
            limits: *limits,
            containers: None,
            validated: None,
            manifests: LoadCache::new(limits.max_document_bytes.saturating_mul(MANIFESTS_KEPT)),
            encodings: RefCell::new(BTreeMap::new()),
        }
    }

    /// Opens the repository in `inner` and the snapshot `spec` names; virtual chunks are read
    /// only inside the virtual chunk containers the repository declares.
    pub async fn open(inner: S, virtual_store: V, spec: &RefSpec, limits: &Limits) -> Result<Self> {
        let repository = Repository::open(&inner, limits).await?;
        let id = repository.resolve(&inner, spec).await?;
        let snapshot = repository.snapshot(&inner, &id).await?;
        let containers = repository.virtual_chunk_containers().to_vec();
        Ok(IcechunkStore::new(inner, virtual_store, snapshot, limits)
            .with_virtual_chunk_containers(containers))
    }
}

impl<S: Store, V: Store, C: ValidatedRead> IcechunkStore<S, V, C> {
    /// The same store, reading virtual chunks only inside `containers` (in place of those it
    /// knew; a prefix given twice is the last one given).
    pub fn with_virtual_chunk_containers(
        mut self,
        mut containers: Vec<VirtualChunkContainer>,
    ) -> Self {
        config::sort_containers(&mut containers);
        self.containers = Some(containers);
        self
    }

    /// Allows virtual chunks inside `container` too (in place of a known container of the
    /// same prefix). A store that knew no container then knows this one only.
    pub fn add_virtual_chunk_container(&mut self, container: VirtualChunkContainer) {
        let mut containers = self.containers.take().unwrap_or_default();
        containers.push(container);
        config::sort_containers(&mut containers);
        self.containers = Some(containers);
    }

    /// The virtual chunk containers virtual chunks are read from, sorted by prefix; `None`
    /// when the store knows none (every URL is read).
    pub fn virtual_chunk_containers(&self) -> Option<&[VirtualChunkContainer]> {
        self.containers.as_deref()
    }

    /// The same store, reading the virtual chunks that record a checksum through `reader`,
    /// whose answers tell whether the object changed (without one, checksums are not
    /// verified): a changed object is a [`ErrorCode::ChecksumMismatch`] error.
    pub fn with_validated_reads<R: ValidatedRead>(self, reader: R) -> IcechunkStore<S, V, R> {
        IcechunkStore {
            inner: self.inner,
            virtual_store: self.virtual_store,
            snapshot: self.snapshot,
            limits: self.limits,
            containers: self.containers,
            validated: Some(reader),
            manifests: self.manifests,
            encodings: self.encodings,
        }
    }

    /// The snapshot read.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The store holding the repository's files.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Manifest `id`: kept, or fetched once however many reads ask for it at the same time.
    async fn manifest(&self, id: &super::id::ManifestId) -> Result<Rc<Manifest>> {
        let key = manifest_key(id);
        let load = || async {
            let file = fetch(&self.inner, &key, &self.limits, &format!("manifest {id}")).await?;
            let manifest = Manifest::parse(&file, &self.limits).map_err(|e| e.at_key(&key))?;
            if manifest.id() != *id {
                let message = format!("the file of manifest {id} holds manifest {}", manifest.id());
                return Err(super::corrupt(message).at_key(&key));
            }
            Ok(Rc::new(manifest))
        };
        self.manifests.get_or_load(&key, load).await
    }

    /// Manifest files fetched so far.
    pub fn manifest_loads(&self) -> u64 {
        self.manifests.loads()
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
                url: self.resolve_relative(location),
                offset,
                length,
                checksum,
            },
        }))
    }

    /// `location` with a `vcc://NAME/` start replaced by the prefix of the known container
    /// named NAME; unchanged when it has no such start or no such container is known.
    fn resolve_relative(&self, location: String) -> String {
        let Some((name, path)) = location
            .strip_prefix(config::RELATIVE_SCHEME)
            .and_then(|rest| rest.split_once('/'))
        else {
            return location;
        };
        let containers = self.containers.as_deref().unwrap_or_default();
        match containers.iter().find(|c| c.name() == Some(name)) {
            Some(c) => format!("{}{path}", c.url_prefix()),
            None => location,
        }
    }

    /// The HTTP(S) URL the object of a virtual chunk at `url` is fetched from: as its
    /// container reaches it (an S3 object at the container's endpoint), or, for a store that
    /// knows no container, at the object's public endpoint.
    fn object_url(&self, url: &str) -> Option<String> {
        match &self.containers {
            Some(containers) => config::container_of(url, containers)?.object_url(url),
            None => crate::store::wire::url::public_object_url(url),
        }
    }

    /// Refuses a virtual chunk at `url` that no known container holds.
    fn admit(&self, url: &str) -> Result<()> {
        match &self.containers {
            Some(containers) if config::container_of(url, containers).is_none() => {
                Err(config::outside(url, containers))
            }
            None if url.starts_with(config::RELATIVE_SCHEME) => Err(config::outside(url, &[])),
            _ => Ok(()),
        }
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

    /// What reading `range` (all: `None`, at most `max` bytes) of the chunk at `coords` of the
    /// array at `path` takes.
    async fn plan_chunk(
        &self,
        key: &str,
        path: &str,
        coords: &[u64],
        range: Option<ByteRange>,
        max: u64,
    ) -> Result<ChunkRead> {
        let Some(location) = self.chunk_location(path, coords).await? else {
            return Ok(ChunkRead::Absent);
        };
        let (store_key, offset, length, checksum, is_virtual) = match location {
            ChunkLocation::Inline(bytes) => {
                let len = bytes.len() as u64;
                let Some(r) = range else {
                    check_size(len, max, key)?;
                    return Ok(ChunkRead::Bytes(bytes));
                };
                let (from, to) = sub_range(&r, len, key)?;
                return Ok(ChunkRead::Bytes(bytes[from as usize..to as usize].to_vec()));
            }
            ChunkLocation::Native {
                key,
                offset,
                length,
            } => (key, offset, length, None, false),
            ChunkLocation::Virtual {
                url,
                offset,
                length,
                checksum,
            } => {
                self.admit(&url).map_err(|e| e.at_path(path).at_key(key))?;
                (url, offset, length, checksum, true)
            }
        };
        let (from, to) = match &range {
            None => {
                check_size(length, max, key)?;
                (0, length)
            }
            Some(r) => sub_range(r, length, key)?,
        };
        let range = ObjectRange {
            key: store_key,
            offset: offset + from,
            length: to - from,
        };
        Ok(if is_virtual {
            ChunkRead::Virtual(range, checksum)
        } else {
            ChunkRead::Native(range)
        })
    }

    /// Reads what `plan` says, for the value at `key`.
    async fn read_chunk(&self, key: &str, plan: ChunkRead) -> Result<Option<Vec<u8>>> {
        let (at, checksum, is_virtual) = match plan {
            ChunkRead::Absent => return Ok(None),
            ChunkRead::Bytes(bytes) => return Ok(Some(bytes)),
            ChunkRead::Native(at) => (at, None, false),
            ChunkRead::Virtual(at, checksum) => (at, checksum, true),
        };
        let ObjectRange {
            key: store_key,
            offset,
            length,
        } = at;
        let want = ByteRange::Bounded(offset..offset + length);
        let mut fetched_at = String::new();
        let read = if is_virtual {
            let Some(url) = self.object_url(&store_key) else {
                let message = format!(
                    "icechunk: the chunk of '{key}' is in '{store_key}', whose scheme zom cannot fetch (http, https, s3, gs, tigris)"
                );
                return Err(
                    ZomError::new(ErrorCode::UnsupportedExtension, message).at_key(&store_key)
                );
            };
            if url != store_key {
                fetched_at = format!(" (fetched at '{url}')");
            }
            match (&self.validated, &checksum) {
                (Some(reader), Some(checksum)) => {
                    match reader.get_range_validated(&url, want).await {
                        Ok(Some((bytes, seen))) => {
                            checksum.verify(&url, &seen).map(|()| Some(bytes))
                        }
                        Ok(None) => Ok(None),
                        Err(e) => Err(e),
                    }
                }
                _ => self.virtual_store.get_range(&url, want).await,
            }
        } else {
            self.inner.get_range(&store_key, want).await
        };
        let bytes = read.map_err(|e| e.at_key(&store_key))?.ok_or_else(|| {
            ZomError::new(
                ErrorCode::NotFound,
                format!(
                    "icechunk: the chunk of '{key}' points at '{store_key}'{fetched_at}, which is not there"
                ),
            )
            .at_key(&store_key)
        })?;
        if bytes.len() as u64 != length {
            let message = format!(
                "icechunk: '{store_key}' holds {} of the {} bytes of chunk '{key}'",
                bytes.len(),
                length
            );
            return Err(ZomError::invalid_metadata(message).at_key(store_key));
        }
        Ok(Some(bytes))
    }

    /// Where the bytes of `range` (all: `None`, at most `max` bytes) of the value at `key`
    /// are, when they are a range of one of the repository's `chunks/` files (a native chunk),
    /// for a caller that fetches them itself; `None` for any other key (read it with
    /// [`Store::get`] and friends, which also say what is wrong with one that cannot be read).
    /// A caller that gets fewer or more bytes than `length` reads the key through the store
    /// instead, to be told why.
    pub async fn native_range(
        &self,
        key: &str,
        range: Option<ByteRange>,
        max: u64,
    ) -> Result<Option<ObjectRange>> {
        let key = key.trim_start_matches('/');
        if key == "zarr.json" || key.ends_with("/zarr.json") {
            return Ok(None);
        }
        let Some((path, coords)) = self.parse_chunk_key(key)? else {
            return Ok(None);
        };
        match self.plan_chunk(key, &path, &coords, range, max).await {
            Ok(ChunkRead::Native(at)) => Ok(Some(at)),
            Ok(_) => Ok(None),
            Err(e) => Err(e.at_key(key)),
        }
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
        let Some((path, coords)) = self.parse_chunk_key(key)? else {
            return Ok(None);
        };
        let read = async {
            let plan = self.plan_chunk(key, &path, &coords, range, max).await?;
            self.read_chunk(key, plan).await
        };
        read.await.map_err(|e| e.at_key(key))
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

impl<S: Store, V: Store, C: ValidatedRead> Store for IcechunkStore<S, V, C> {
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
