//! Assembly: output buffers allocated once with a checked size under a caller's limit, and
//! decoded chunks (or the fill value, for missing chunks) copied into them run by run.

use super::plan::{ChunkRead, ReadPlan};
use super::runs::{to_usize, Runs};
use crate::error::{ErrorCode, Result, ZomError};
use std::ops::Range;
use zom_kernels::copy_strided;

fn limit(message: String) -> ZomError {
    ZomError::new(ErrorCode::LimitExceeded, message)
}

fn overflow() -> ZomError {
    limit("chunk assembly arithmetic overflowed".into())
}

/// `a * b` as a `usize`, or an overflow error.
fn mul_usize(a: u64, b: u64) -> Result<usize> {
    a.checked_mul(b)
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(overflow)
}

impl ReadPlan {
    /// A zeroed output buffer of exactly `output_len × item_size` bytes.
    ///
    /// Refused with [`ErrorCode::LimitExceeded`] when that is more than `max_bytes`, does not
    /// fit in memory's address space, or cannot be allocated.
    pub fn allocate_output(&self, item_size: u64, max_bytes: u64) -> Result<Vec<u8>> {
        let elements = self.output_len()?;
        let bytes = elements.checked_mul(item_size).ok_or_else(|| {
            limit(format!(
                "the output of {elements} elements of {item_size} bytes is larger than 2^64 bytes"
            ))
        })?;
        if bytes > max_bytes {
            return Err(limit(format!(
                "the output of shape {:?} needs {bytes} bytes; the limit is {max_bytes}",
                self.output_shape()
            )));
        }
        let n = usize::try_from(bytes)
            .map_err(|_| limit(format!("the output needs {bytes} bytes, more than memory")))?;
        zom_kernels::try_zeroed(n)
            .ok_or_else(|| limit(format!("cannot allocate {bytes} bytes for the output")))
    }

    /// An output of `output_len` elements for variable-length types (strings, byte strings),
    /// each set to `fill`. Refused with [`ErrorCode::LimitExceeded`] over `max_elements`.
    pub fn allocate_elements<T: Clone>(&self, fill: T, max_elements: u64) -> Result<Vec<T>> {
        let elements = self.output_len()?;
        if elements > max_elements {
            return Err(limit(format!(
                "the output of shape {:?} has {elements} elements; the limit is {max_elements}",
                self.output_shape()
            )));
        }
        let n = usize::try_from(elements).map_err(|_| {
            limit(format!(
                "the output has {elements} elements, more than memory"
            ))
        })?;
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| limit(format!("cannot allocate {elements} output elements")))?;
        out.resize(n, fill);
        Ok(out)
    }
}

impl ChunkRead {
    /// The runs of this read, after checking the output has exactly `out_elements` elements.
    fn runs(&self, out_elements: usize, chunk_len: u64) -> Result<Option<Runs>> {
        let expected = self.selection.output_len()?;
        if u64::try_from(out_elements).ok() != Some(expected) {
            return Err(ZomError::invalid_argument(format!(
                "the output buffer holds {out_elements} elements; the output shape {:?} needs {expected}",
                self.selection.output_shape
            )));
        }
        Runs::new(&self.chunk_shape, &self.selection, chunk_len, expected)
    }

    fn chunk_len(&self) -> Result<u64> {
        super::checked_product(&self.chunk_shape, "the chunk shape")
    }

    /// Copies the selected elements of a decoded chunk into `out`.
    ///
    /// `decoded` holds the whole chunk (its full shape, edge chunks included) in C order,
    /// `item_size` bytes per element; `out` is the whole output (`output_len × item_size`
    /// bytes). A decoded chunk of the wrong size is an [`ErrorCode::CodecError`].
    pub fn copy_into(&self, out: &mut [u8], item_size: u64, decoded: &[u8]) -> Result<()> {
        let chunk_len = self.chunk_len()?;
        let chunk_bytes = chunk_len.checked_mul(item_size).ok_or_else(overflow)?;
        if u64::try_from(decoded.len()).ok() != Some(chunk_bytes) {
            return Err(ZomError::new(
                ErrorCode::CodecError,
                format!(
                    "decoded chunk has {} bytes; a chunk of shape {:?} with {item_size}-byte elements has {chunk_bytes}",
                    decoded.len(),
                    self.chunk_shape
                ),
            ));
        }
        let Some(runs) = self.runs(out_elements(out.len(), item_size)?, chunk_len)? else {
            return Ok(());
        };
        let isz = usize::try_from(item_size).map_err(|_| overflow())?;
        let inner = runs.inner;
        if runs.contiguous() {
            let run_bytes = mul_usize(
                u64::try_from(inner.count).map_err(|_| overflow())?,
                item_size,
            )?;
            return runs.for_each(|s, d| {
                let s = s.checked_mul(isz).ok_or_else(overflow)?;
                let d = d.checked_mul(isz).ok_or_else(overflow)?;
                let src = byte_range(decoded, s, run_bytes)?;
                let dst = byte_range_mut(out, d, run_bytes)?;
                dst.copy_from_slice(src);
                Ok(())
            });
        }
        let win = Windows::new(&runs)?;
        runs.for_each(|s, d| {
            let (src, dst) = win.at(s, d)?;
            let src = byte_range(decoded, mul(src.start, isz)?, mul(src.len(), isz)?)?;
            let dst = byte_range_mut(out, mul(dst.start, isz)?, mul(dst.len(), isz)?)?;
            copy_strided(src, dst, win.src_step, win.dst_step, win.reversed, isz);
            Ok(())
        })
    }

    /// Writes `fill` (one element's bytes) to every output element this chunk covers: the
    /// read of a missing chunk.
    pub fn fill_into(&self, out: &mut [u8], fill: &[u8]) -> Result<()> {
        let item_size = u64::try_from(fill.len()).map_err(|_| overflow())?;
        let Some(runs) = self.runs(out_elements(out.len(), item_size)?, self.chunk_len()?)? else {
            return Ok(());
        };
        let isz = fill.len();
        let win = Windows::new(&runs)?;
        runs.for_each(|_, d| {
            let (_, dst) = win.at(0, d)?;
            let dst = byte_range_mut(out, mul(dst.start, isz)?, mul(dst.len(), isz)?)?;
            if win.dst_step == 1 {
                // Contiguous in the output (either direction): order does not matter.
                fill_pattern(dst, fill);
            } else if isz > 0 {
                for item in dst.chunks_exact_mut(isz).step_by(win.dst_step) {
                    item.copy_from_slice(fill);
                }
            }
            Ok(())
        })
    }

    /// [`ChunkRead::copy_into`] for element values (variable-length strings or byte strings):
    /// `decoded` holds the whole chunk's elements in C order.
    pub fn copy_elements_into<T: Clone>(&self, out: &mut [T], decoded: &[T]) -> Result<()> {
        self.element_runs(out.len(), Some(decoded.len()), &mut |src, dst, win| {
            let src = decoded.get(src).ok_or_else(overflow)?;
            let dst = out.get_mut(dst).ok_or_else(overflow)?;
            if win.src_step == 1 && win.dst_step == 1 && !win.reversed {
                dst.clone_from_slice(src);
                return Ok(());
            }
            let src = src.iter().step_by(win.src_step);
            let dst = dst.iter_mut().step_by(win.dst_step);
            if win.reversed {
                dst.rev().zip(src).for_each(|(d, s)| d.clone_from(s));
            } else {
                dst.zip(src).for_each(|(d, s)| d.clone_from(s));
            }
            Ok(())
        })
    }

    /// [`ChunkRead::fill_into`] for element values: sets every output element this chunk
    /// covers to `fill`.
    pub fn fill_elements_into<T: Clone>(&self, out: &mut [T], fill: &T) -> Result<()> {
        self.element_runs(out.len(), None, &mut |_, dst, win| {
            let dst = out.get_mut(dst).ok_or_else(overflow)?;
            if win.dst_step == 1 {
                dst.fill(fill.clone());
            } else {
                dst.iter_mut()
                    .step_by(win.dst_step)
                    .for_each(|d| d.clone_from(fill));
            }
            Ok(())
        })
    }

    /// The element windows of every run of this read into an output of `out_len` elements
    /// (after checking a decoded chunk's length, when there is one): the part of
    /// [`ChunkRead::copy_elements_into`] and [`ChunkRead::fill_elements_into`] that does not
    /// depend on the element type, compiled once.
    fn element_runs(
        &self,
        out_len: usize,
        decoded_len: Option<usize>,
        each: &mut ElementRun<'_>,
    ) -> Result<()> {
        let chunk_len = self.chunk_len()?;
        if let Some(len) = decoded_len {
            if u64::try_from(len).ok() != Some(chunk_len) {
                return Err(ZomError::new(
                    ErrorCode::CodecError,
                    format!(
                        "decoded chunk has {len} elements; a chunk of shape {:?} has {chunk_len}",
                        self.chunk_shape
                    ),
                ));
            }
        }
        let Some(runs) = self.runs(out_len, chunk_len)? else {
            return Ok(());
        };
        let win = Windows::new(&runs)?;
        runs.for_each(|s, d| {
            let (src, dst) = if decoded_len.is_some() {
                win.at(s, d)?
            } else {
                win.at(0, d)?
            };
            each(src, dst, &win)
        })
    }

    /// Where this read's elements go, for a copier outside WebAssembly (the worker pool's
    /// shared output): the first run's element offset in the decoded chunk and in the output,
    /// then `count, chunk step, output step` per dimension (outer first, the run last), in
    /// elements, checked to stay inside the chunk and the output; empty when nothing is
    /// selected.
    pub fn placement(&self) -> Result<Vec<f64>> {
        let out = usize::try_from(self.selection.output_len()?).map_err(|_| overflow())?;
        Ok(self
            .runs(out, self.chunk_len()?)?
            .map_or_else(Vec::new, |runs| runs.describe()))
    }

    /// When the decoded chunk, exactly as it is, is one contiguous block of the output: that
    /// block's byte range. A decoder can then write the chunk straight into the output.
    ///
    /// This holds for a whole chunk inside the array and the selection whose rows are whole
    /// output rows (or whose output has the chunk's shape).
    pub fn direct_output_range(&self, item_size: u64) -> Option<Range<usize>> {
        if !self.is_whole_chunk() {
            return None;
        }
        let chunk_len = self.chunk_len().ok()?;
        let out_len = self.selection.output_len().ok()?;
        let runs = Runs::new(&self.chunk_shape, &self.selection, chunk_len, out_len).ok()??;
        if !runs.contiguous() || runs.num_runs().ok()? != 1 {
            return None;
        }
        let mut start = None;
        runs.for_each(|_, d| {
            start = Some(d);
            Ok(())
        })
        .ok()?;
        let start = start?.checked_mul(usize::try_from(item_size).ok()?)?;
        let len = mul_usize(chunk_len, item_size).ok()?;
        Some(start..start.checked_add(len)?)
    }
}

/// What [`ChunkRead::element_runs`] calls per run: the run's source and output element windows.
type ElementRun<'a> = dyn FnMut(Range<usize>, Range<usize>, &Windows) -> Result<()> + 'a;

/// The element windows one run touches, as ranges: in the chunk from its first to its last
/// element, in the output from its lowest to its highest element (a reversed run writes the
/// window back to front).
struct Windows {
    src_span: usize,
    dst_span: usize,
    src_step: usize,
    dst_step: usize,
    reversed: bool,
}

impl Windows {
    fn new(runs: &Runs) -> Result<Self> {
        let inner = runs.inner;
        let last = usize::try_from(inner.count.checked_sub(1).ok_or_else(overflow)?)
            .map_err(|_| overflow())?;
        let src_step = to_usize(inner.src)?;
        let dst_step = usize::try_from(inner.dst.unsigned_abs()).map_err(|_| overflow())?;
        if src_step == 0 || dst_step == 0 {
            return Err(overflow());
        }
        Ok(Windows {
            src_span: mul(last, src_step)?,
            dst_span: mul(last, dst_step)?,
            src_step,
            dst_step,
            reversed: inner.dst < 0,
        })
    }

    /// The windows of the run whose first element is at `s` in the chunk and `d` in the output.
    fn at(&self, s: usize, d: usize) -> Result<(Range<usize>, Range<usize>)> {
        let src_end = s
            .checked_add(self.src_span)
            .and_then(|e| e.checked_add(1))
            .ok_or_else(overflow)?;
        let (dst_lo, dst_hi) = if self.reversed {
            (d.checked_sub(self.dst_span).ok_or_else(overflow)?, d)
        } else {
            (d, d.checked_add(self.dst_span).ok_or_else(overflow)?)
        };
        let dst_end = dst_hi.checked_add(1).ok_or_else(overflow)?;
        Ok((s..src_end, dst_lo..dst_end))
    }
}

fn mul(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(overflow)
}

/// The number of elements in a buffer of `bytes` bytes of `item_size`-byte elements.
fn out_elements(bytes: usize, item_size: u64) -> Result<usize> {
    if item_size == 0 {
        return Err(ZomError::invalid_argument("element size must be positive"));
    }
    let isz = usize::try_from(item_size).map_err(|_| overflow())?;
    if !bytes.is_multiple_of(isz) {
        return Err(ZomError::invalid_argument(format!(
            "the output buffer has {bytes} bytes, not a multiple of the element size {item_size}"
        )));
    }
    Ok(bytes / isz)
}

fn byte_range(buf: &[u8], start: usize, len: usize) -> Result<&[u8]> {
    let end = start.checked_add(len).ok_or_else(overflow)?;
    buf.get(start..end).ok_or_else(overflow)
}

fn byte_range_mut(buf: &mut [u8], start: usize, len: usize) -> Result<&mut [u8]> {
    let end = start.checked_add(len).ok_or_else(overflow)?;
    buf.get_mut(start..end).ok_or_else(overflow)
}

/// Fills `dst` with repetitions of `pattern` (`dst.len()` is a multiple of its length).
fn fill_pattern(dst: &mut [u8], pattern: &[u8]) {
    match pattern {
        [] => {}
        [b] => dst.fill(*b),
        [first, rest @ ..] if rest.iter().all(|b| b == first) => dst.fill(*first),
        _ => {
            // One copy of the pattern, then double the filled prefix until done.
            let Some(head) = dst.get_mut(..pattern.len()) else {
                return;
            };
            head.copy_from_slice(pattern);
            let mut filled = pattern.len();
            while filled < dst.len() {
                let n = filled.min(dst.len() - filled);
                dst.copy_within(..n, filled);
                filled += n;
            }
        }
    }
}
