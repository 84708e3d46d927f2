//! Sans-I/O planning of array reads: chunk grids (regular and rectilinear), chunk key encodings, selections
//! (integers, Python slices, whole dimensions), read plans (which chunks a selection touches
//! and where their elements go) and the assembly of decoded chunks into one C-order output.
//!
//! Everything here works on shapes and bytes only; fetching and decoding chunks is the
//! caller's job. The same planning applies one level down inside a shard: a [`ChunkRead`] of
//! an outer chunk (the shard) turns into a [`ReadPlan`] over the shard's inner chunk grid with
//! [`ChunkRead::inner_plan`], and its inner chunks copy straight into the same output.
//!
//! ```
//! use zom::chunk::{ReadPlan, Selection, DimSelection};
//! // A 6×5 array in 4×3 chunks; read rows 1..5, column 3 (dropped from the output).
//! let sel = Selection::new(vec![DimSelection::slice(Some(1), Some(5), None), DimSelection::Index(3)]);
//! let resolved = sel.resolve(&[6, 5])?;
//! let plan = ReadPlan::new(&[6, 5], &[4, 3], &resolved)?;
//! assert_eq!(plan.output_shape(), &[4]);
//! let mut out = plan.allocate_output(4, 1 << 20)?;
//! for chunk in plan.chunks() {
//!     let chunk = chunk?;
//!     // Fetch and decode the chunk at `chunk.coords` here, then `chunk.copy_into(…)`;
//!     // a missing chunk reads as the fill value:
//!     chunk.fill_into(&mut out, &7i32.to_le_bytes())?;
//! }
//! assert_eq!(out, [7i32.to_le_bytes(); 4].concat());
//! # Ok::<(), zom::ZomError>(())
//! ```
//!
//! Sizes and offsets are `u64` everywhere (WASM is 32-bit) and every computation is checked:
//! no input makes these functions panic or allocate without a bound.

mod assemble;
mod axis;
mod grid;
mod key;
mod layout;
mod plan;
mod rectilinear;
mod runs;
mod selection;

pub use axis::GridAxis;
pub use grid::{ChunkGrid, ChunkRegion};
pub use key::ChunkKeyEncoding;
pub use layout::{ArrayLayout, PlannedChunk};
pub use plan::{ChunkIter, ChunkRead, ReadPlan};
pub use rectilinear::{Rectilinear, RectilinearAxis};

pub(crate) use grid::grid_spec;
pub(crate) use key::key_encoding_spec;
pub use selection::{slice_indices, AxisSelection, DimSelection, ResolvedSelection, Selection};

use crate::error::{ErrorCode, Result, ZomError};

/// The product of `dims`, or an error naming `what` when it does not fit in a `u64`.
pub(crate) fn checked_product(dims: &[u64], what: &str) -> Result<u64> {
    dims.iter().try_fold(1u64, |acc, &d| {
        acc.checked_mul(d).ok_or_else(|| {
            ZomError::new(
                ErrorCode::LimitExceeded,
                format!("{what} {dims:?} has more than 2^64 elements"),
            )
        })
    })
}

/// C-order strides (in elements) of `shape`: the last dimension has stride 1.
pub(crate) fn c_strides(shape: &[u64], what: &str) -> Result<Vec<u64>> {
    let mut strides = vec![0u64; shape.len()];
    let mut acc = 1u64;
    for (stride, &d) in strides.iter_mut().zip(shape).rev() {
        *stride = acc;
        acc = acc.checked_mul(d).ok_or_else(|| {
            ZomError::new(
                ErrorCode::LimitExceeded,
                format!("{what} {shape:?} has more than 2^64 elements"),
            )
        })?;
    }
    Ok(strides)
}
