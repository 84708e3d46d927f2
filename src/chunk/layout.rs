//! An array's chunk layout from its metadata: grid, key encoding and node path together, so
//! a selection becomes the list of store keys to fetch.

use super::grid::ChunkGrid;
use super::key::ChunkKeyEncoding;
use super::plan::{ChunkRead, ReadPlan};
use super::selection::Selection;
use crate::document::v2::ArrayMetadataV2;
use crate::document::v3::ArrayMetadataV3;
use crate::error::Result;
use crate::limits::{exceeded, Limit};

/// Where an array's chunks are: its grid, how chunk coordinates become keys, and the
/// array's node path in the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayLayout {
    /// The chunk grid (for a sharded v3 array: the grid of shards).
    pub grid: ChunkGrid,
    /// The chunk key encoding.
    pub encoding: ChunkKeyEncoding,
    /// The array's node path (`""` for the root, `"a/b"` for a member).
    pub path: String,
}

/// One chunk to read: its store key and what to take from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedChunk {
    /// The full store key (`"a/b/c/0/1"`).
    pub key: String,
    /// The chunk's coordinates and selection.
    pub read: ChunkRead,
}

impl ArrayLayout {
    /// The layout of a v3 array at node path `path`. Errors name the path.
    pub fn from_v3(meta: &ArrayMetadataV3, path: &str) -> Result<Self> {
        let build = || -> Result<Self> {
            Ok(ArrayLayout {
                grid: ChunkGrid::from_v3(&meta.chunk_grid, &meta.shape)?,
                encoding: ChunkKeyEncoding::from_v3(&meta.chunk_key_encoding)?,
                path: path.trim_matches('/').to_string(),
            })
        };
        build().map_err(|e| e.at_path(path.trim_matches('/')))
    }

    /// The layout of a v2 array at node path `path`. Errors name the path.
    pub fn from_v2(meta: &ArrayMetadataV2, path: &str) -> Result<Self> {
        let build = || -> Result<Self> {
            Ok(ArrayLayout {
                grid: ChunkGrid::from_v2(&meta.shape, &meta.chunks)?,
                encoding: ChunkKeyEncoding::from_v2(meta.dimension_separator.as_deref())?,
                path: path.trim_matches('/').to_string(),
            })
        };
        build().map_err(|e| e.at_path(path.trim_matches('/')))
    }

    /// The store key of the chunk at `coords`; coordinates outside the grid are an
    /// [`ErrorCode::InvalidSelection`].
    pub fn chunk_key(&self, coords: &[u64]) -> Result<String> {
        self.grid
            .check_coords(coords)
            .map_err(|e| e.at_path(self.path.clone()))?;
        Ok(self.encoding.encode_at(&self.path, coords))
    }

    /// Resolves `selection` against the array's shape and plans its read.
    pub fn plan(&self, selection: &Selection) -> Result<ReadPlan> {
        let plan = || -> Result<ReadPlan> {
            let resolved = selection.resolve(self.grid.shape())?;
            ReadPlan::on(self.grid.clone(), &resolved)
        };
        plan().map_err(|e| e.at_path(self.path.clone()))
    }

    /// Every chunk of `plan` with its store key, in C order of coordinates. Refused with
    /// [`crate::ErrorCode::LimitExceeded`] when the plan touches more than `max_chunks`
    /// chunks (the limit `maxChunks`).
    pub fn planned_chunks(&self, plan: &ReadPlan, max_chunks: u64) -> Result<Vec<PlannedChunk>> {
        let n = plan.num_chunks()?;
        if n > max_chunks {
            let what = "the number of chunks the selection touches";
            return Err(exceeded(Limit::Chunks, max_chunks, n, what).at_path(self.path.clone()));
        }
        let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        for read in plan.chunks() {
            let read = read?;
            let key = self.chunk_key(&read.coords)?;
            out.push(PlannedChunk { key, read });
        }
        Ok(out)
    }
}
