//! Chunk grids: v3 `chunk_grid` `regular` with `chunk_shape`, v2 `chunks`, and `rectilinear`
//! grids (per dimension one repeated length or explicit edges, [`GridAxis`]).

use super::axis::GridAxis;
use super::Rectilinear;
use crate::document::named::NamedConfig;
use crate::error::{ErrorCode, Result, ZomError};
use crate::problem::config::Need;
use crate::problem::config::{decoder_result, key_loc, read_extension, Config, ConfigProblem};
use crate::problem::ProblemKind;
use serde_json::{Map, Value};

/// A chunk grid zom reads: its name and the reader of its configuration, one for the decoder
/// and the validator. See ARCHITECTURE.md, "Adding a chunk grid or key encoding".
pub(crate) struct GridSpec {
    /// The v3 `chunk_grid` name.
    pub(crate) name: &'static str,
    /// The configuration key that holds one chunk shape, for the validator's strict remarks.
    pub(crate) chunk_shape_key: Option<&'static str>,
    /// Reads the configuration for an array of `shape` (when known).
    read: fn(&mut Config, Option<&[u64]>) -> Option<ChunkGrid>,
}

impl GridSpec {
    /// Reads `config` for an array of `shape` (when known): the problems found, and the grid
    /// when there is no problem that stops decoding and the shape is known.
    pub(crate) fn read(
        &self,
        config: Option<&Map<String, Value>>,
        shape: Option<&[u64]>,
    ) -> (Vec<ConfigProblem>, Option<ChunkGrid>) {
        read_extension(self.name, "chunk grid", config, |cfg| {
            (self.read)(cfg, shape)
        })
    }
}

const REGULAR: GridSpec = GridSpec {
    name: "regular",
    chunk_shape_key: Some("chunk_shape"),
    read: read_regular,
};

const RECTILINEAR: GridSpec = GridSpec {
    name: "rectilinear",
    chunk_shape_key: None,
    read: read_rectilinear,
};

/// Every chunk grid zom reads.
static GRIDS: &[&GridSpec] = &[&REGULAR, &RECTILINEAR];

/// The chunk grid of this name.
pub(crate) fn grid_spec(name: &str) -> Option<&'static GridSpec> {
    GRIDS.iter().copied().find(|g| g.name == name)
}

fn read_regular(cfg: &mut Config, shape: Option<&[u64]>) -> Option<ChunkGrid> {
    cfg.allow(&["chunk_shape"]);
    cfg.required("chunk_shape", Need::Decode);
    let chunks = cfg.uint_list("chunk_shape", 1, Need::Decode)?;
    let shape = shape?;
    if chunks.len() != shape.len() {
        let message = format!(
            "chunk_shape {chunks:?} has {} dimensions; shape {shape:?} has {}",
            chunks.len(),
            shape.len()
        );
        let bad = (ProblemKind::InvalidValue, message);
        cfg.problem(key_loc("chunk_shape"), bad, Need::Decode);
        return None;
    }
    cfg.built(ChunkGrid::new(shape, &chunks))
}

fn read_rectilinear(cfg: &mut Config, shape: Option<&[u64]>) -> Option<ChunkGrid> {
    let grid = Rectilinear::read(cfg, shape)?;
    cfg.built(ChunkGrid::rectilinear(shape?, &grid))
}

/// A chunk grid: an array shape cut into chunks, of one shape (regular) or, along a
/// rectilinear grid's dimensions with explicit edges, of lengths that vary. Chunks at the high
/// end of a dimension may overhang the array (they are stored full size; only the part inside
/// the array holds data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkGrid {
    shape: Vec<u64>,
    axes: Vec<GridAxis>,
    /// The shape of every chunk, when every dimension is regular.
    chunk_shape: Option<Vec<u64>>,
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
            axes: chunk_shape.iter().map(|&c| GridAxis::Regular(c)).collect(),
            chunk_shape: Some(chunk_shape.to_vec()),
            grid_shape,
        })
    }

    /// The grid of a rectilinear `grid` over an array of `shape` (as
    /// [`Rectilinear::read`] checked it for that shape).
    pub fn rectilinear(shape: &[u64], grid: &Rectilinear) -> Result<Self> {
        if let Some(chunk_shape) = grid.as_regular() {
            return Self::new(shape, &chunk_shape);
        }
        if grid.axes.len() != shape.len() {
            return Err(grid_error(format!(
                "the rectilinear grid has {} dimensions; the array shape {shape:?} has {}",
                grid.axes.len(),
                shape.len()
            )));
        }
        let mut axes = Vec::with_capacity(shape.len());
        for (dim, (axis, &len)) in grid.axes.iter().zip(shape).enumerate() {
            let axis = GridAxis::from_rectilinear(axis, len)
                .map_err(|e| grid_error(format!("chunk_shapes[{dim}]: {}", e.message)))?;
            if axis.max_len() == 0 {
                return Err(grid_error(format!(
                    "chunk_shapes[{dim}] has a chunk of length 0; chunk lengths must be positive"
                )));
            }
            axes.push(axis);
        }
        let grid_shape = axes.iter().zip(shape).map(|(a, &n)| a.count(n)).collect();
        Ok(ChunkGrid {
            shape: shape.to_vec(),
            axes,
            chunk_shape: None,
            grid_shape,
        })
    }

    /// Reads a v3 `chunk_grid` for an array of `shape`: `regular` (the core spec's) or
    /// `rectilinear` (zarr-extensions).
    pub fn from_v3(chunk_grid: &NamedConfig, shape: &[u64]) -> Result<Self> {
        let Some(spec) = grid_spec(&chunk_grid.name) else {
            let known: Vec<String> = GRIDS.iter().map(|g| format!("'{}'", g.name)).collect();
            return Err(ZomError::new(
                ErrorCode::UnsupportedExtension,
                format!(
                    "chunk grid '{}' is not supported (zom reads {})",
                    chunk_grid.name,
                    known.join(" and ")
                ),
            ));
        };
        let read = spec.read(chunk_grid.configuration.as_ref(), Some(shape));
        decoder_result(read, spec.name, "chunk grid")
    }

    /// A v2 grid from `.zarray` `shape` and `chunks`.
    pub fn from_v2(shape: &[u64], chunks: &[u64]) -> Result<Self> {
        Self::new(shape, chunks)
    }

    /// The array shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The shape of every chunk when the grid is regular (edge chunks included: they are
    /// stored full size); `None` when a dimension has explicit edges.
    pub fn regular_chunk_shape(&self) -> Option<&[u64]> {
        self.chunk_shape.as_deref()
    }

    /// The (stored, full) shape of the chunk at `coords`.
    pub fn chunk_shape_at(&self, coords: &[u64]) -> Result<Vec<u64>> {
        self.check_coords(coords)?;
        coords
            .iter()
            .zip(&self.axes)
            .map(|(&c, axis)| axis.len(c))
            .collect()
    }

    /// The shape of the first chunk as written: the chunk shape of a regular grid; the first
    /// edges of a rectilinear one.
    pub fn first_chunk_shape(&self) -> Vec<u64> {
        self.axes.iter().map(GridAxis::first_len).collect()
    }

    /// How dimension `dim` is cut.
    pub fn axis(&self, dim: usize) -> Option<&GridAxis> {
        self.axes.get(dim)
    }

    /// The lengths of the chunks along each dimension, each cut to the array (zarr-python's
    /// `read_chunk_sizes`); refused when a dimension has more than `max` chunks.
    pub fn chunk_sizes(&self, max: u64) -> Result<Vec<Vec<u64>>> {
        self.axes
            .iter()
            .zip(&self.shape)
            .map(|(axis, &n)| axis.sizes(n, max))
            .collect()
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
        for ((&c, axis), &len) in coords.iter().zip(&self.axes).zip(&self.shape) {
            // c < grid_shape, so the chunk starts inside the array.
            let first = axis.start(c)?;
            let inside = len
                .checked_sub(first)
                .ok_or_else(overflow)?
                .min(axis.len(c)?);
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
