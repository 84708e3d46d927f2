//! The copy engine: a chunk's selection turned into runs of elements, each run a contiguous
//! or strided sequence in the chunk and in the output. Dimensions whose elements are adjacent
//! in both (whole chunk-aligned rows, whole planes) are merged, so a chunk that maps to one
//! block of the output is a single run.

use super::selection::ResolvedSelection;
use crate::error::{ErrorCode, Result, ZomError};

/// One loop dimension: how many steps, and the element stride in the chunk and the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dim {
    pub count: i64,
    pub src: i64,
    pub dst: i64,
}

/// The runs of one chunk read: an odometer over `outer`, and at each position one `inner` run
/// starting at the current element offsets.
#[derive(Clone, Debug)]
pub(crate) struct Runs {
    outer: Vec<Dim>,
    pub inner: Dim,
    src_base: i64,
    dst_base: i64,
}

fn overflow() -> ZomError {
    ZomError::new(ErrorCode::LimitExceeded, "chunk copy arithmetic overflowed")
}

fn to_i64(v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| overflow())
}

fn to_i128(v: u64) -> i128 {
    i128::from(v)
}

impl Runs {
    /// The runs of `sel` (chunk-local, of a chunk with `chunk_len` elements in `chunk_shape`)
    /// into an output of `out_len` elements. `None` when nothing is selected.
    ///
    /// Every offset a run touches is checked to lie inside `0..chunk_len` and `0..out_len`.
    pub fn new(
        chunk_shape: &[u64],
        sel: &ResolvedSelection,
        chunk_len: u64,
        out_len: u64,
    ) -> Result<Option<Runs>> {
        if sel.axes.len() != chunk_shape.len() {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!(
                    "chunk selection has {} dimensions; the chunk shape {chunk_shape:?} has {}",
                    sel.axes.len(),
                    chunk_shape.len()
                ),
            ));
        }
        if sel.axes.iter().any(|a| a.count == 0) {
            return Ok(None);
        }
        let src_strides = super::c_strides(chunk_shape, "the chunk shape")?;
        let out_strides = super::c_strides(&sel.output_shape, "the output shape")?;
        let mut out_dims = out_strides.iter();
        let mul = |a: u64, b: u64| to_i128(a).checked_mul(to_i128(b)).ok_or_else(overflow);
        let add = |a: i128, b: i128| a.checked_add(b).ok_or_else(overflow);
        // Offsets of the first selected element (base) and the lowest and highest offsets any
        // selected element has, in the chunk (src) and in the output (dst).
        let (mut src_base, mut src_hi) = (0i128, 0i128);
        let (mut dst_base, mut dst_lo, mut dst_hi) = (0i128, 0i128, 0i128);
        let mut dims: Vec<Dim> = Vec::with_capacity(sel.axes.len());
        for (axis, &src_stride) in sel.axes.iter().zip(&src_strides) {
            let out_stride = if axis.dropped {
                if axis.count != 1 {
                    return Err(ZomError::new(
                        ErrorCode::InvalidSelection,
                        "a dropped dimension must select exactly one element",
                    ));
                }
                0
            } else {
                *out_dims.next().ok_or_else(|| {
                    ZomError::new(
                        ErrorCode::InvalidSelection,
                        "the output shape has fewer dimensions than the selection keeps",
                    )
                })?
            };
            let last = axis.count.checked_sub(1).ok_or_else(overflow)?;
            let step_src = mul(axis.step, src_stride)?;
            let first_src = mul(axis.start, src_stride)?;
            src_base = add(src_base, first_src)?;
            src_hi = add(
                add(src_hi, first_src)?,
                step_src.checked_mul(to_i128(last)).ok_or_else(overflow)?,
            )?;
            let first_dst = mul(axis.out_start, out_stride)?;
            let span_dst = mul(last, out_stride)?;
            dst_base = add(dst_base, first_dst)?;
            dst_lo = add(dst_lo, first_dst)?;
            dst_hi = add(dst_hi, first_dst)?;
            if axis.reversed {
                dst_lo = dst_lo.checked_sub(span_dst).ok_or_else(overflow)?;
            } else {
                dst_hi = add(dst_hi, span_dst)?;
            }
            if axis.count > 1 {
                let dst = to_i64(out_stride)?;
                let dim = Dim {
                    count: to_i64(axis.count)?,
                    src: i64::try_from(step_src).map_err(|_| overflow())?,
                    dst: if axis.reversed { -dst } else { dst },
                };
                push_merged(&mut dims, dim)?;
            }
        }
        if out_dims.next().is_some() {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                "the output shape has more dimensions than the selection keeps",
            ));
        }
        if src_hi >= to_i128(chunk_len) {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!(
                    "chunk selection reaches element {src_hi} of a chunk of {chunk_len} elements"
                ),
            ));
        }
        if dst_lo < 0 || dst_hi >= to_i128(out_len) {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!(
                    "chunk selection writes output elements {dst_lo}..={dst_hi} of an output of {out_len}"
                ),
            ));
        }
        let src_base = i64::try_from(src_base).map_err(|_| overflow())?;
        let dst_base = i64::try_from(dst_base).map_err(|_| overflow())?;
        let inner = dims.pop().unwrap_or(Dim {
            count: 1,
            src: 1,
            dst: 1,
        });
        Ok(Some(Runs {
            outer: dims,
            inner,
            src_base,
            dst_base,
        }))
    }

    /// Whether each run is contiguous in both the chunk and the output.
    pub fn contiguous(&self) -> bool {
        self.inner.src == 1 && self.inner.dst == 1
    }

    /// These runs as numbers for a copier outside WebAssembly (ts/pool/place.ts): the first
    /// run's element offset in the chunk and in the output, then `count, chunk step, output
    /// step` per dimension (outer first, the run last), in elements.
    pub fn describe(&self) -> Vec<f64> {
        let mut out = vec![self.src_base as f64, self.dst_base as f64];
        for d in self.outer.iter().chain([&self.inner]) {
            out.extend([d.count as f64, d.src as f64, d.dst as f64]);
        }
        out
    }

    /// Number of runs.
    pub fn num_runs(&self) -> Result<u64> {
        self.outer.iter().try_fold(1u64, |acc, d| {
            acc.checked_mul(u64::try_from(d.count).map_err(|_| overflow())?)
                .ok_or_else(overflow)
        })
    }

    /// Calls `f(src, dst)` with the element offsets of each run's first element.
    pub fn for_each(&self, mut f: impl FnMut(usize, usize) -> Result<()>) -> Result<()> {
        let mut position = vec![0i64; self.outer.len()];
        let mut src = self.src_base;
        let mut dst = self.dst_base;
        loop {
            f(to_usize(src)?, to_usize(dst)?)?;
            let mut advanced = false;
            for (p, d) in position.iter_mut().zip(&self.outer).rev() {
                *p = p.checked_add(1).ok_or_else(overflow)?;
                if *p < d.count {
                    src = src.checked_add(d.src).ok_or_else(overflow)?;
                    dst = dst.checked_add(d.dst).ok_or_else(overflow)?;
                    advanced = true;
                    break;
                }
                // Back to the start of this dimension.
                let back = d.count.checked_sub(1).ok_or_else(overflow)?;
                *p = 0;
                src = back
                    .checked_mul(d.src)
                    .and_then(|b| src.checked_sub(b))
                    .ok_or_else(overflow)?;
                dst = back
                    .checked_mul(d.dst)
                    .and_then(|b| dst.checked_sub(b))
                    .ok_or_else(overflow)?;
            }
            if !advanced {
                return Ok(());
            }
        }
    }
}

/// Appends `dim` (an inner dimension) to `dims`, merging it with the previous one when the
/// two walk adjacent elements in both the chunk and the output.
fn push_merged(dims: &mut Vec<Dim>, dim: Dim) -> Result<()> {
    if let Some(prev) = dims.last_mut() {
        let src_span = dim.count.checked_mul(dim.src);
        let dst_span = dim.count.checked_mul(dim.dst);
        if src_span == Some(prev.src) && dst_span == Some(prev.dst) {
            prev.count = prev.count.checked_mul(dim.count).ok_or_else(overflow)?;
            prev.src = dim.src;
            prev.dst = dim.dst;
            return Ok(());
        }
    }
    dims.push(dim);
    Ok(())
}

pub(crate) fn to_usize(v: i64) -> Result<usize> {
    usize::try_from(v).map_err(|_| overflow())
}
