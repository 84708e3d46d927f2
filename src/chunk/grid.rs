//! The regular chunk grid: v3 `chunk_grid` `regular` with `chunk_shape`, v2 `chunks`, and a
//! `rectilinear` grid whose every dimension repeats one length.

use crate::document::named::NamedConfig;
use crate::error::{ErrorCode, Result, ZomError};
use serde_json::Value;

/// A regular chunk grid: an array shape cut into chunks of one shape. Chunks at the high
/// end of a dimension may overhang the array (they are stored full size; only the part inside
/// the array holds data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkGrid {
    shape: Vec<u64>,
    chunk_shape: Vec<u64>,
    grid_shape: Vec<u64>,
}

/// The part of the array one chunk covers: where it starts and how far it reaches inside the
/// array (an edge chunk's `shape` is smaller than the chunk shape).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkRegion {
    /// Array index of the chunk's first element, per dimension.
    pub start: Vec<u64>,
    /// Number of elements of the chunk that lie inside the array, per dimension.
    pub shape: Vec<u64>,
}

fn grid_error(message: String) -> ZomError {
    ZomError::invalid_metadata(message)
}

impl ChunkGrid {
    /// A regular grid of `chunk_shape` chunks over an array of `shape`.
    ///
    /// Both must have the same rank and every chunk length must be positive (a zero-length
    /// array dimension has zero chunks). 0-d arrays have one chunk of shape `[]`.
    pub fn new(shape: &[u64], chunk_shape: &[u64]) -> Result<Self> {
        if shape.len() != chunk_shape.len() {
            return Err(grid_error(format!(
                "chunk shape {chunk_shape:?} has {} dimensions; the array shape {shape:?} has {}",
                chunk_shape.len(),
                shape.len()
            )));
        }
        let mut grid_shape = Vec::with_capacity(shape.len());
        for (dim, (&len, &chunk)) in shape.iter().zip(chunk_shape).enumerate() {
            if chunk == 0 {
                return Err(grid_error(format!(
                    "chunk shape {chunk_shape:?} has length 0 in dimension {dim}; chunk lengths must be positive"
                )));
            }
            grid_shape.push(len.div_ceil(chunk));
        }
        Ok(ChunkGrid {
            shape: shape.to_vec(),
            chunk_shape: chunk_shape.to_vec(),
            grid_shape,
        })
    }

    /// Reads a v3 `chunk_grid` for an array of `shape`: `regular` (the core spec's), or a
    /// `rectilinear` one whose every dimension repeats one chunk length (one with explicit
    /// edges is checked, then refused: reading it is not supported yet).
    pub fn from_v3(chunk_grid: &NamedConfig, shape: &[u64]) -> Result<Self> {
        if chunk_grid.name == "rectilinear" {
            let config = chunk_grid
                .configuration
                .as_ref()
                .map(|c| Value::Object(c.clone()));
            let grid =
                super::Rectilinear::read(config.as_ref(), Some(shape)).map_err(|problems| {
                    let first = problems
                        .into_iter()
                        .next()
                        .map_or_else(String::new, |p| p.message);
                    grid_error(first)
                })?;
            return match grid.as_regular() {
                Some(chunk_shape) => Self::new(shape, &chunk_shape),
                None => Err(ZomError::new(
                    ErrorCode::UnsupportedExtension,
                    "chunk grid 'rectilinear' with explicit chunk edges is not supported yet (zom reads rectilinear grids whose every dimension repeats one length)",
                )),
            };
        }
        if chunk_grid.name != "regular" {
            return Err(ZomError::new(
                ErrorCode::UnsupportedExtension,
                format!(
                    "chunk grid '{}' is not supported (only 'regular')",
                    chunk_grid.name
                ),
            ));
        }
        let list = chunk_grid.get("chunk_shape").ok_or_else(|| {
            grid_error("the regular chunk grid has no configuration.chunk_shape".into())
        })?;
        let chunk_shape = uint_list(list).ok_or_else(|| {
            grid_error(format!(
                "chunk_shape must be a list of non-negative integers, not {}",
                crate::json::to_compact(list)
            ))
        })?;
        Self::new(shape, &chunk_shape)
    }

    /// A v2 grid from `.zarray` `shape` and `chunks`.
    pub fn from_v2(shape: &[u64], chunks: &[u64]) -> Result<Self> {
        Self::new(shape, chunks)
    }

    /// The array shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The shape of every chunk (edge chunks included: they are stored full size).
    pub fn chunk_shape(&self) -> &[u64] {
        &self.chunk_shape
    }

    /// Number of chunks along each dimension (ceiling division; 0 for a zero-length dimension).
    pub fn grid_shape(&self) -> &[u64] {
        &self.grid_shape
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The total number of chunks (1 for a 0-d array, 0 when any dimension is empty).
    pub fn num_chunks(&self) -> Result<u64> {
        super::checked_product(&self.grid_shape, "the chunk grid")
    }

    /// Elements per chunk (the product of the chunk shape).
    pub fn chunk_len(&self) -> Result<u64> {
        super::checked_product(&self.chunk_shape, "the chunk shape")
    }

    /// An error unless `coords` name a chunk of this grid.
    pub fn check_coords(&self, coords: &[u64]) -> Result<()> {
        if coords.len() != self.rank() {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!(
                    "chunk coordinates {coords:?} have {} dimensions; the array has {}",
                    coords.len(),
                    self.rank()
                ),
            ));
        }
        if coords.iter().zip(&self.grid_shape).any(|(c, g)| c >= g) {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!(
                    "chunk coordinates {coords:?} are outside the chunk grid of shape {:?}",
                    self.grid_shape
                ),
            ));
        }
        Ok(())
    }

    /// The part of the array the chunk at `coords` covers.
    pub fn chunk_region(&self, coords: &[u64]) -> Result<ChunkRegion> {
        self.check_coords(coords)?;
        let mut start = Vec::with_capacity(coords.len());
        let mut shape = Vec::with_capacity(coords.len());
        for ((&c, &chunk), &len) in coords.iter().zip(&self.chunk_shape).zip(&self.shape) {
            // c < grid_shape = ceil(len / chunk), so c * chunk < len: no overflow.
            let first = c.checked_mul(chunk).ok_or_else(overflow)?;
            let inside = len.checked_sub(first).ok_or_else(overflow)?.min(chunk);
            start.push(first);
            shape.push(inside);
        }
        Ok(ChunkRegion { start, shape })
    }

    /// The position of `coords` among all chunks in C order (the order of a shard index).
    pub fn linear_index(&self, coords: &[u64]) -> Result<u64> {
        self.check_coords(coords)?;
        coords
            .iter()
            .zip(&self.grid_shape)
            .try_fold(0u64, |acc, (&c, &g)| {
                acc.checked_mul(g).and_then(|a| a.checked_add(c))
            })
            .ok_or_else(overflow)
    }

    /// Chunk coordinates of the chunk at `index` in C order (the inverse of
    /// [`ChunkGrid::linear_index`]).
    pub fn coords_of(&self, index: u64) -> Result<Vec<u64>> {
        let total = self.num_chunks()?;
        if index >= total {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!("chunk index {index} is outside a grid of {total} chunks"),
            ));
        }
        let mut coords = vec![0u64; self.rank()];
        let mut rest = index;
        for (c, &g) in coords.iter_mut().zip(&self.grid_shape).rev() {
            // g > 0 here: total > index >= 0 means no dimension is empty.
            *c = rest.checked_rem(g).ok_or_else(overflow)?;
            rest = rest.checked_div(g).ok_or_else(overflow)?;
        }
        Ok(coords)
    }
}

fn overflow() -> ZomError {
    ZomError::new(ErrorCode::LimitExceeded, "chunk grid arithmetic overflowed")
}

fn uint_list(value: &Value) -> Option<Vec<u64>> {
    value.as_array()?.iter().map(Value::as_u64).collect()
}
