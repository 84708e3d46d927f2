//! One dimension of a chunk grid: chunks of one length, or the explicit edges of a
//! rectilinear grid kept as runs (a run of 2^53 equal chunks is one entry), with the lookups a
//! read plan needs (which chunk holds an index, where a chunk starts, how long it is) in
//! logarithmic time.

use super::RectilinearAxis;
use crate::error::{ErrorCode, Result, ZomError};
use std::sync::Arc;

/// How one dimension of a [`super::ChunkGrid`] is cut into chunks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GridAxis {
    /// Chunks of one length; the last may reach past the array.
    Regular(u64),
    /// Explicit chunk edges, cut to the chunks that hold part of the array.
    Edges(EdgeAxis),
}

/// Explicit chunk edges as runs of equal chunks, each with the chunk index and array index
/// it starts at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeAxis {
    runs: Arc<[EdgeRun]>,
    /// The first edge written, the nominal length when the array's extent is 0.
    first_len: u64,
    max_len: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EdgeRun {
    len: u64,
    count: u64,
    /// Index of the run's first chunk.
    first: u64,
    /// Array index of the run's first element.
    offset: u64,
}

fn overflow() -> ZomError {
    ZomError::new(ErrorCode::LimitExceeded, "chunk grid arithmetic overflowed")
}

impl EdgeRun {
    /// One past the array index of the run's last element (saturating: only the last run
    /// can reach that far, and nothing past the array is asked of it).
    fn end(&self) -> u64 {
        self.offset
            .saturating_add(self.len.saturating_mul(self.count))
    }
}

impl GridAxis {
    /// The axis of a rectilinear grid's dimension of length `extent`: the runs of equal edges
    /// up to the chunk holding the array's last index (edges beyond hold nothing).
    pub fn from_rectilinear(axis: &RectilinearAxis, extent: u64) -> Result<GridAxis> {
        let runs = match axis {
            RectilinearAxis::Repeat(len) => return Ok(GridAxis::Regular(*len)),
            RectilinearAxis::Edges(runs) => runs,
        };
        let first_len = runs.first().map_or(1, |&(len, _)| len);
        let mut kept = Vec::new();
        let (mut first, mut offset) = (0u64, 0u64);
        for &(len, count) in runs {
            if offset >= extent {
                break;
            }
            if len == 0 || count == 0 {
                continue;
            }
            let needed = (extent - offset).div_ceil(len).min(count);
            kept.push(EdgeRun {
                len,
                count: needed,
                first,
                offset,
            });
            first = first.checked_add(needed).ok_or_else(overflow)?;
            offset = offset.saturating_add(len.saturating_mul(needed));
        }
        if offset < extent {
            return Err(ZomError::invalid_metadata(format!(
                "the chunk edges reach {offset}, short of the array's length {extent}"
            )));
        }
        let max_len = kept.iter().map(|r| r.len).max().unwrap_or(first_len);
        Ok(GridAxis::Edges(EdgeAxis {
            runs: kept.into(),
            first_len,
            max_len,
        }))
    }

    /// The number of chunks along a dimension of length `extent`.
    pub fn count(&self, extent: u64) -> u64 {
        match self {
            GridAxis::Regular(len) => extent.div_ceil(*len),
            GridAxis::Edges(e) => e.runs.last().map_or(0, |r| r.first + r.count),
        }
    }

    /// The longest chunk.
    pub fn max_len(&self) -> u64 {
        match self {
            GridAxis::Regular(len) => *len,
            GridAxis::Edges(e) => e.max_len,
        }
    }

    /// The length of the first chunk as written (for a grid with no chunk, the length a
    /// chunk would have).
    pub fn first_len(&self) -> u64 {
        match self {
            GridAxis::Regular(len) => *len,
            GridAxis::Edges(e) => e.first_len,
        }
    }

    fn run_of_chunk(e: &EdgeAxis, chunk: u64) -> Result<&EdgeRun> {
        let at = e.runs.partition_point(|r| r.first + r.count <= chunk);
        e.runs.get(at).ok_or_else(overflow)
    }

    /// The array index chunk `chunk` starts at.
    pub fn start(&self, chunk: u64) -> Result<u64> {
        match self {
            GridAxis::Regular(len) => chunk.checked_mul(*len).ok_or_else(overflow),
            GridAxis::Edges(e) => {
                let run = Self::run_of_chunk(e, chunk)?;
                ((chunk - run.first).checked_mul(run.len))
                    .and_then(|d| d.checked_add(run.offset))
                    .ok_or_else(overflow)
            }
        }
    }

    /// The (stored, full) length of chunk `chunk`.
    pub fn len(&self, chunk: u64) -> Result<u64> {
        match self {
            GridAxis::Regular(len) => Ok(*len),
            GridAxis::Edges(e) => Ok(Self::run_of_chunk(e, chunk)?.len),
        }
    }

    /// The first chunk after `chunk` that may differ in length from it: the next run's first
    /// (`u64::MAX` for a regular axis, whose chunks are all alike).
    pub fn next_run(&self, chunk: u64) -> u64 {
        match self {
            GridAxis::Regular(_) => u64::MAX,
            GridAxis::Edges(e) => {
                Self::run_of_chunk(e, chunk).map_or(u64::MAX, |r| r.first.saturating_add(r.count))
            }
        }
    }

    /// The chunk that holds array index `index` (inside the array).
    pub fn chunk_of(&self, index: u64) -> Result<u64> {
        match self {
            GridAxis::Regular(len) => Ok(index / len),
            GridAxis::Edges(e) => {
                let at = e.runs.partition_point(|r| r.end() <= index);
                let run = e.runs.get(at).ok_or_else(overflow)?;
                Ok(run.first + (index - run.offset) / run.len)
            }
        }
    }

    /// The lengths of the chunks along a dimension of length `extent`, each cut to the array
    /// (zarr-python's `read_chunk_sizes` for one dimension); at most `max` of them.
    pub fn sizes(&self, extent: u64, max: u64) -> Result<Vec<u64>> {
        let count = self.count(extent);
        if count > max {
            return Err(crate::limits::exceeded(
                crate::limits::Limit::Chunks,
                max,
                count,
                "the number of chunks along one dimension",
            ));
        }
        let mut sizes = Vec::with_capacity(usize::try_from(count).map_err(|_| overflow())?);
        for c in 0..count {
            let start = self.start(c)?;
            sizes.push(self.len(c)?.min(extent - start));
        }
        Ok(sizes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(runs: &[(u64, u64)], extent: u64) -> GridAxis {
        GridAxis::from_rectilinear(&RectilinearAxis::Edges(runs.to_vec()), extent).unwrap()
    }

    #[test]
    fn edges_find_chunks_starts_and_lengths() {
        // 10, 10, 5, then 1 × 2^53 (only three of which the array reaches).
        let axis = edges(&[(10, 2), (5, 1), (1, 1 << 53)], 28);
        assert_eq!(axis.count(28), 6);
        assert_eq!(axis.max_len(), 10);
        let starts: Vec<u64> = (0..6).map(|c| axis.start(c).unwrap()).collect();
        assert_eq!(starts, [0, 10, 20, 25, 26, 27]);
        let lens: Vec<u64> = (0..6).map(|c| axis.len(c).unwrap()).collect();
        assert_eq!(lens, [10, 10, 5, 1, 1, 1]);
        let of: Vec<u64> = [0, 9, 10, 19, 20, 24, 25, 27]
            .iter()
            .map(|&i| axis.chunk_of(i).unwrap())
            .collect();
        assert_eq!(of, [0, 0, 1, 1, 2, 2, 3, 5]);
        assert_eq!(axis.sizes(28, 100).unwrap(), [10, 10, 5, 1, 1, 1]);
        assert!(axis.sizes(28, 5).is_err());
        assert!(axis.start(6).is_err());
    }

    #[test]
    fn edges_past_the_array_are_cut_and_a_short_grid_is_refused() {
        let axis = edges(&[(5, 3)], 12);
        assert_eq!(axis.count(12), 3);
        assert_eq!(axis.sizes(12, 10).unwrap(), [5, 5, 2]);
        let empty = edges(&[(7, 1 << 60)], 0);
        assert_eq!(empty.count(0), 0);
        assert_eq!(empty.first_len(), 7);
        let short = GridAxis::from_rectilinear(&RectilinearAxis::Edges(vec![(5, 2)]), 11);
        assert!(short.is_err());
        let huge = edges(&[(u64::MAX, 3)], u64::MAX);
        assert_eq!(huge.count(u64::MAX), 1);
    }
}
