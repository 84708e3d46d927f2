//! Chunk manifest files (`manifests/{id}`): per array (by node id), chunk coordinates to
//! chunk references, inline, native or virtual.

use super::flatbuffers::{Span, Table, Vector};
use super::header::{read_file, zstd_bounded, FileType};
use super::id::{ChunkId, ManifestId, NodeId};
use super::{corrupt, object_id, required};
use crate::error::Result;
use crate::limits::Limits;
use std::cmp::Ordering;

/// The longest virtual chunk location a dictionary-compressed one may decompress to.
pub const MAX_LOCATION_BYTES: u64 = 64 * 1024;

/// How a virtual chunk's target was when the reference was written, to detect a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checksum {
    /// The object's ETag.
    ETag(String),
    /// The object's last modification, in seconds since the Unix epoch: a target modified
    /// later is not the one referenced.
    LastModified(u32),
}

/// Where a chunk's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkRef {
    /// In the manifest itself.
    Inline(Vec<u8>),
    /// `length` bytes at `offset` of the repository's chunk file `chunks/{id}`.
    Native {
        /// The chunk file's id.
        id: ChunkId,
        /// The first byte.
        offset: u64,
        /// How many bytes.
        length: u64,
    },
    /// `length` bytes at `offset` of the object at an absolute URL, outside the repository.
    Virtual {
        /// The object's URL, as written (`s3://…`, `https://…`, `file:///…`).
        location: String,
        /// The first byte.
        offset: u64,
        /// How many bytes.
        length: u64,
        /// What the object must still match, when the writer recorded it.
        checksum: Option<Checksum>,
    },
}

/// A parsed manifest file. The chunk references are read from the decompressed file when
/// looked up, not copied out when it is parsed.
#[derive(Clone, Debug)]
pub struct Manifest {
    bytes: Vec<u8>,
    id: ManifestId,
    /// Sorted by node id: each array's ArrayManifest table position.
    arrays: Vec<(NodeId, usize)>,
    dictionary: Option<Span>,
}

// Slots of the schema's tables (manifest.fbs), in declaration order.
const MANIFEST_ID: usize = 0;
const MANIFEST_ARRAYS: usize = 1;
const MANIFEST_DICTIONARY: usize = 2;
const ARRAY_NODE_ID: usize = 0;
const ARRAY_REFS: usize = 1;
const REF_INDEX: usize = 0;
const REF_INLINE: usize = 1;
const REF_OFFSET: usize = 2;
const REF_LENGTH: usize = 3;
const REF_CHUNK_ID: usize = 4;
const REF_LOCATION: usize = 5;
const REF_ETAG: usize = 6;
const REF_LAST_MODIFIED: usize = 7;
const REF_COMPRESSED_LOCATION: usize = 8;

impl crate::store::loads::Weigh for std::rc::Rc<Manifest> {
    fn memory_bytes(&self) -> u64 {
        let arrays = self
            .arrays
            .len()
            .saturating_mul(std::mem::size_of::<(NodeId, usize)>());
        u64::try_from(self.bytes.len().saturating_add(arrays)).unwrap_or(u64::MAX)
    }
}

impl Manifest {
    /// Reads a manifest file (header and compressed payload), its payload bounded by
    /// [`Limits::max_document_bytes`].
    pub fn parse(file: &[u8], limits: &Limits) -> Result<Manifest> {
        let (_, bytes) = read_file(file, FileType::Manifest, limits.max_document_bytes)?;
        Manifest::from_payload(bytes)
    }

    /// Reads a manifest's decompressed flatbuffers payload.
    pub fn from_payload(bytes: Vec<u8>) -> Result<Manifest> {
        let root = Table::root(&bytes)?;
        let id = object_id(required(root.inline(MANIFEST_ID, 12)?, "manifest", "id")?)?;
        let list = required(root.vector(MANIFEST_ARRAYS, 4)?, "manifest", "arrays")?;
        let mut arrays: Vec<(NodeId, usize)> = Vec::new();
        for i in 0..list.len() {
            let t = list.table(i)?;
            let node = object_id(required(
                t.inline(ARRAY_NODE_ID, 8)?,
                "array manifest",
                "node_id",
            )?)?;
            if arrays.last().is_some_and(|(last, _)| *last >= node) {
                return Err(corrupt("the manifest's arrays are not sorted by node id"));
            }
            required(t.vector(ARRAY_REFS, 4)?, "array manifest", "refs")?;
            arrays.push((node, t.position()));
        }
        let dictionary = root.bytes_span(MANIFEST_DICTIONARY)?;
        Ok(Manifest {
            id,
            arrays,
            dictionary,
            bytes,
        })
    }

    /// The manifest's id.
    pub fn id(&self) -> ManifestId {
        self.id
    }

    /// The zstd dictionary its virtual chunk locations are compressed with, when they are.
    pub fn location_dictionary(&self) -> Option<&[u8]> {
        self.dictionary.map(|d| d.of(&self.bytes))
    }

    /// The node ids of the arrays it holds references of.
    pub fn arrays(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.arrays.iter().map(|(id, _)| *id)
    }

    fn refs(&self, node: &NodeId) -> Result<Option<Vector<'_>>> {
        let Ok(at) = self.arrays.binary_search_by(|(id, _)| id.cmp(node)) else {
            return Ok(None);
        };
        let t = Table::at(&self.bytes, self.arrays[at].1)?;
        Ok(Some(required(
            t.vector(ARRAY_REFS, 4)?,
            "array manifest",
            "refs",
        )?))
    }

    /// How many chunk references the manifest holds for the array `node`.
    pub fn len(&self, node: &NodeId) -> Result<usize> {
        Ok(self.refs(node)?.map_or(0, |v| v.len()))
    }

    /// The reference of the chunk at `coords` of the array `node`, `None` when the manifest
    /// has none (the chunk was never written: it reads as the fill value).
    pub fn lookup(&self, node: &NodeId, coords: &[u32]) -> Result<Option<ChunkRef>> {
        let Some(refs) = self.refs(node)? else {
            return Ok(None);
        };
        // The references are sorted by coordinates (lexicographically): a binary search,
        // every probe read with bounds checks.
        let (mut low, mut high) = (0usize, refs.len());
        while low < high {
            let mid = low + (high - low) / 2;
            let t = refs.table(mid)?;
            match compare_index(&t, coords)? {
                Ordering::Less => low = mid + 1,
                Ordering::Greater => high = mid,
                Ordering::Equal => return self.chunk_ref(&t, coords).map(Some),
            }
        }
        Ok(None)
    }

    fn chunk_ref(&self, t: &Table<'_>, coords: &[u32]) -> Result<ChunkRef> {
        let at = || format!("the chunk reference at {coords:?}");
        if let Some(bytes) = t.bytes(REF_INLINE)? {
            return Ok(ChunkRef::Inline(bytes.to_vec()));
        }
        let chunk_id = t.inline(REF_CHUNK_ID, 12)?;
        let location = t.string(REF_LOCATION)?;
        let compressed = t.bytes(REF_COMPRESSED_LOCATION)?;
        if chunk_id.is_none() && location.is_none() && compressed.is_none() {
            return Err(corrupt(format!(
                "{} is neither inline, native nor virtual",
                at()
            )));
        }
        let offset = t.u64(REF_OFFSET, 0)?;
        let length = t.u64(REF_LENGTH, 0)?;
        if offset.checked_add(length).is_none() {
            return Err(corrupt(format!(
                "{}: offset {offset} plus length {length} overflows",
                at()
            )));
        }
        if length == 0 {
            return Err(corrupt(format!("{} has length zero", at())));
        }
        if let Some(id) = chunk_id {
            return Ok(ChunkRef::Native {
                id: object_id(id)?,
                offset,
                length,
            });
        }
        let location = match (location, compressed) {
            (Some(location), _) => location.to_string(),
            (None, Some(compressed)) => {
                let dictionary = self.dictionary.map(|d| d.of(&self.bytes)).ok_or_else(|| {
                    corrupt(format!(
                        "{}: a compressed location, and no dictionary in the manifest",
                        at()
                    ))
                })?;
                let text = zstd_bounded(compressed, MAX_LOCATION_BYTES, Some(dictionary)).map_err(
                    |e| corrupt(format!("{}: its compressed location: {}", at(), e.message)),
                )?;
                String::from_utf8(text)
                    .map_err(|_| corrupt(format!("{}: the location is not UTF-8", at())))?
            }
            (None, None) => return Err(corrupt(format!("{} has no location", at()))),
        };
        let checksum = match (t.string(REF_ETAG)?, t.u32(REF_LAST_MODIFIED, 0)?) {
            (Some(etag), _) => Some(Checksum::ETag(etag.to_string())),
            (None, 0) => None,
            (None, seconds) => Some(Checksum::LastModified(seconds)),
        };
        Ok(ChunkRef::Virtual {
            location,
            offset,
            length,
            checksum,
        })
    }
}

/// How the coordinates of the chunk reference `t` compare with `coords`.
fn compare_index(t: &Table<'_>, coords: &[u32]) -> Result<Ordering> {
    let index = required(t.vector(REF_INDEX, 4)?, "chunk ref", "index")?;
    for (d, &c) in coords.iter().enumerate() {
        if d >= index.len() {
            return Ok(Ordering::Less);
        }
        match index.u32(d)?.cmp(&c) {
            Ordering::Equal => {}
            other => return Ok(other),
        }
    }
    Ok(index.len().cmp(&coords.len()))
}
