//! Read plans: which chunks of a grid a resolved selection touches, and for each the
//! chunk-local selection together with where its elements go in the output.
//!
//! Plans are lazy: a plan stores one small description per dimension, and the chunks are the
//! cartesian product, computed one at a time in C order of chunk coordinates. Memory does not
//! grow with the number of chunks.

use super::axis::GridAxis;
use super::grid::ChunkGrid;
use super::selection::{AxisSelection, ResolvedSelection};
use crate::error::{ErrorCode, Result, ZomError};

/// A read of a selection from an array (or from a shard, see [`ChunkRead::inner_plan`]) cut
/// into chunks of one shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    grid: ChunkGrid,
    output_shape: Vec<u64>,
    axes: Vec<AxisPlan>,
}

/// One chunk a plan touches: its grid coordinates, its (full, stored) shape, and the selection
/// inside it, in chunk-local indices, with output indices into the plan's whole output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkRead {
    /// Grid coordinates of the chunk.
    pub coords: Vec<u64>,
    /// The chunk's full shape (edge chunks are stored full size).
    pub chunk_shape: Vec<u64>,
    /// The selected elements in chunk-local indices and their place in the output.
    pub selection: ResolvedSelection,
}

/// The chunks one dimension's selection touches.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AxisPlan {
    sel: AxisSelection,
    axis: GridAxis,
    /// The first chunk touched (unless `per_element`).
    first: u64,
    /// Number of chunks touched along this dimension (for explicit edges shorter than the
    /// step, at most: chunks the step skips over are passed by).
    chunks: u64,
    /// When the step is at least the longest chunk, every selected index is in its own chunk;
    /// otherwise the touched chunks are consecutive from the first index' chunk.
    per_element: bool,
}

fn overflow() -> ZomError {
    ZomError::new(ErrorCode::LimitExceeded, "read plan arithmetic overflowed")
}

fn invalid(message: String) -> ZomError {
    ZomError::new(ErrorCode::InvalidSelection, message)
}

/// Checks that `sel` fits a space of `shape` and writes inside `sel.output_shape`.
fn check_selection(shape: &[u64], sel: &ResolvedSelection) -> Result<()> {
    if sel.axes.len() != shape.len() {
        return Err(invalid(format!(
            "selection has {} dimensions; the shape {shape:?} has {}",
            sel.axes.len(),
            shape.len()
        )));
    }
    let mut out_dims = sel.output_shape.iter();
    for (dim, (axis, &len)) in sel.axes.iter().zip(shape).enumerate() {
        if axis.step == 0 {
            return Err(invalid(format!("dimension {dim} has step 0")));
        }
        let out_len = if axis.dropped {
            if axis.count != 1 {
                return Err(invalid(format!(
                    "dimension {dim} is dropped but selects {} elements",
                    axis.count
                )));
            }
            1
        } else {
            *out_dims.next().ok_or_else(|| {
                invalid(format!(
                    "output shape {:?} has fewer dimensions than the selection keeps",
                    sel.output_shape
                ))
            })?
        };
        if axis.count == 0 {
            continue;
        }
        let last = axis.count - 1;
        let last_index = axis.index(last).ok_or_else(overflow)?;
        if last_index >= len {
            return Err(invalid(format!(
                "dimension {dim} selects index {last_index}; its length is {len}"
            )));
        }
        let (lo, hi) = if axis.reversed {
            (axis.out_start.checked_sub(last), axis.out_start)
        } else {
            (Some(axis.out_start), axis.out_start.saturating_add(last))
        };
        if lo.is_none() || hi >= out_len {
            return Err(invalid(format!(
                "dimension {dim} writes outside output dimension of length {out_len}"
            )));
        }
    }
    if out_dims.next().is_some() {
        return Err(invalid(format!(
            "output shape {:?} has more dimensions than the selection keeps",
            sel.output_shape
        )));
    }
    Ok(())
}

impl AxisPlan {
    fn new(sel: AxisSelection, axis: GridAxis) -> Result<Self> {
        if sel.count == 0 {
            return Ok(AxisPlan {
                sel,
                axis,
                first: 0,
                chunks: 0,
                per_element: false,
            });
        }
        let per_element = sel.step >= axis.max_len();
        let first = axis.chunk_of(sel.start)?;
        let chunks = if per_element {
            sel.count
        } else {
            let last = sel
                .index(sel.count.saturating_sub(1))
                .ok_or_else(overflow)?;
            (axis.chunk_of(last)? - first)
                .checked_add(1)
                .ok_or_else(overflow)?
        };
        Ok(AxisPlan {
            sel,
            axis,
            first,
            chunks,
            per_element,
        })
    }

    /// The `j`-th touched chunk (`j < chunks`): its index, its (full) length and the
    /// chunk-local selection, or `None` for a chunk the step passes over.
    fn get(&self, j: u64) -> Result<Option<(u64, u64, AxisSelection)>> {
        let s = &self.sel;
        let c = if self.per_element {
            self.axis.chunk_of(s.index(j).ok_or_else(overflow)?)?
        } else {
            self.first.checked_add(j).ok_or_else(overflow)?
        };
        let (lo, len) = (self.axis.start(c)?, self.axis.len(c)?);
        // k_first..=k_last: the progression terms that fall in this chunk.
        let (k_first, k_count) = if self.per_element {
            (j, 1)
        } else {
            let hi_incl = lo.saturating_add(len.saturating_sub(1));
            let k_first = match lo.checked_sub(s.start) {
                Some(d) if d > 0 => d.div_ceil(s.step),
                _ => 0,
            };
            let k_last = hi_incl
                .checked_sub(s.start)
                .map(|d| d / s.step)
                .ok_or_else(overflow)?
                .min(s.count.saturating_sub(1));
            if k_last < k_first {
                return Ok(None);
            }
            (k_first, k_last - k_first + 1)
        };
        let first_index = s.index(k_first).ok_or_else(overflow)?;
        let local = AxisSelection {
            start: first_index.checked_sub(lo).ok_or_else(overflow)?,
            step: if k_count > 1 { s.step } else { 1 },
            count: k_count,
            out_start: s.out_index(k_first).ok_or_else(overflow)?,
            reversed: s.reversed && k_count > 1,
            dropped: s.dropped,
        };
        Ok(Some((c, len, local)))
    }
}

impl ReadPlan {
    /// Plans reading `selection` from a space of `shape` (an array, or a shard) cut into
    /// chunks of `chunk_shape`.
    ///
    /// The selection's output mapping is kept: chunk reads write into the same output that
    /// `selection` describes, which is how a shard's inner plan writes into the array's output.
    pub fn new(shape: &[u64], chunk_shape: &[u64], selection: &ResolvedSelection) -> Result<Self> {
        // Validates ranks and chunk lengths.
        Self::on(ChunkGrid::new(shape, chunk_shape)?, selection)
    }

    /// Plans reading `selection` from the space `grid` cuts into chunks (regular or
    /// rectilinear), as [`ReadPlan::new`].
    pub fn on(grid: ChunkGrid, selection: &ResolvedSelection) -> Result<Self> {
        check_selection(grid.shape(), selection)?;
        let mut axes = Vec::with_capacity(selection.axes.len());
        for (dim, &sel) in selection.axes.iter().enumerate() {
            let axis = grid.axis(dim).cloned().ok_or_else(overflow)?;
            axes.push(AxisPlan::new(sel, axis)?);
        }
        Ok(ReadPlan {
            grid,
            output_shape: selection.output_shape.clone(),
            axes,
        })
    }

    /// The shape of the space read from.
    pub fn shape(&self) -> &[u64] {
        self.grid.shape()
    }

    /// The chunk shape, when the grid is regular.
    pub fn chunk_shape(&self) -> Option<&[u64]> {
        self.grid.regular_chunk_shape()
    }

    /// The chunk grid read from. Inside a shard, [`ChunkGrid::linear_index`] of an inner
    /// chunk's coordinates is its entry in the shard index.
    pub fn grid(&self) -> &ChunkGrid {
        &self.grid
    }

    /// The shape of the output (integer-selected dimensions dropped).
    pub fn output_shape(&self) -> &[u64] {
        &self.output_shape
    }

    /// Number of output elements.
    pub fn output_len(&self) -> Result<u64> {
        super::checked_product(&self.output_shape, "the output shape")
    }

    /// Number of chunks the selection touches (along a dimension with explicit edges shorter
    /// than the selection's step: at most that many, see [`ReadPlan::chunks`]).
    pub fn num_chunks(&self) -> Result<u64> {
        self.axes.iter().try_fold(1u64, |acc, a| {
            acc.checked_mul(a.chunks).ok_or_else(|| {
                ZomError::new(
                    ErrorCode::LimitExceeded,
                    "the selection touches more than 2^64 chunks",
                )
            })
        })
    }

    /// For each dimension, the range of chunk indices touched (`first..=last`), or `None`
    /// when the selection is empty. With steps larger than a chunk not every chunk in the
    /// range is touched.
    pub fn chunk_ranges(&self) -> Option<Vec<(u64, u64)>> {
        let mut ranges = Vec::with_capacity(self.axes.len());
        for a in &self.axes {
            if a.chunks == 0 {
                return None;
            }
            let first = a.axis.chunk_of(a.sel.start).ok()?;
            let last = a.axis.chunk_of(a.sel.index(a.sel.count - 1)?).ok()?;
            ranges.push((first, last));
        }
        Some(ranges)
    }

    /// The chunks the selection touches, in C order of their coordinates (an error item only
    /// if the plan's arithmetic overflowed, which [`ReadPlan::new`]'s checks rule out).
    pub fn chunks(&self) -> ChunkIter<'_> {
        let empty = self.axes.iter().any(|a| a.chunks == 0);
        ChunkIter {
            plan: self,
            position: vec![0; self.axes.len()],
            done: empty,
        }
    }

    /// The chunk at `position` of the touched chunks, `None` when the selection's step
    /// passes over it.
    fn chunk_at(&self, position: &[u64]) -> Result<Option<ChunkRead>> {
        let mut coords = Vec::with_capacity(self.axes.len());
        let mut chunk_shape = Vec::with_capacity(self.axes.len());
        let mut axes = Vec::with_capacity(self.axes.len());
        for (axis, &j) in self.axes.iter().zip(position) {
            let Some((c, len, local)) = axis.get(j)? else {
                return Ok(None);
            };
            chunk_shape.push(len);
            coords.push(c);
            axes.push(local);
        }
        Ok(Some(ChunkRead {
            coords,
            chunk_shape,
            selection: ResolvedSelection {
                axes,
                output_shape: self.output_shape.clone(),
            },
        }))
    }
}

/// Iterator over the chunks of a [`ReadPlan`] (see [`ReadPlan::chunks`]).
#[derive(Clone, Debug)]
pub struct ChunkIter<'a> {
    plan: &'a ReadPlan,
    position: Vec<u64>,
    done: bool,
}

impl Iterator for ChunkIter<'_> {
    type Item = Result<ChunkRead>;

    fn next(&mut self) -> Option<Result<ChunkRead>> {
        while !self.done {
            // A plan that passed ReadPlan::new does not fail here; if it did, the error is
            // the last item.
            let item = self.plan.chunk_at(&self.position);
            // Advance the odometer, last dimension fastest.
            self.done = true;
            for (p, axis) in self.position.iter_mut().zip(&self.plan.axes).rev() {
                let next = p.saturating_add(1);
                if next < axis.chunks {
                    *p = next;
                    self.done = false;
                    break;
                }
                *p = 0;
            }
            match item {
                Ok(None) => {}
                Ok(Some(read)) => return Some(Ok(read)),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

impl ChunkRead {
    /// Plans the read of this chunk's selection from its inner chunks of `inner_chunk_shape`:
    /// for a shard, which inner chunks intersect. Their reads write into the same output.
    pub fn inner_plan(&self, inner_chunk_shape: &[u64]) -> Result<ReadPlan> {
        ReadPlan::new(&self.chunk_shape, inner_chunk_shape, &self.selection)
    }

    /// Whether every element of the chunk is selected, in order along every axis (the chunk
    /// lies wholly inside the array and the selection).
    pub fn is_whole_chunk(&self) -> bool {
        self.selection
            .axes
            .iter()
            .zip(&self.chunk_shape)
            .all(|(a, &n)| a.start == 0 && a.count == n && (a.step == 1 || n <= 1) && !a.reversed)
    }
}
