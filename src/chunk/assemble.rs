//! Assembly: output buffers allocated once with a checked size under a caller's limit, and
//! decoded chunks (or the fill value, for missing chunks) copied into them run by run.

use super::plan::{ChunkRead, ReadPlan};
use super::runs::{to_usize, Runs};
use crate::error::{ErrorCode, Result, ZomError};
use std::ops::Range;

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
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| limit(format!("cannot allocate {bytes} bytes for the output")))?;
        out.resize(n, 0);
        Ok(out)
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
    /// The runs of this read, after checking the output has exactly `out_len` elements.
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
        let src_step = to_usize(inner.src)?.checked_mul(isz).ok_or_else(overflow)?;
        let dst_step = inner
            .dst
            .checked_mul(i64::try_from(isz).map_err(|_| overflow())?);
        let dst_step = dst_step.ok_or_else(overflow)?;
        runs.for_each(|s, d| {
            let mut s = s.checked_mul(isz).ok_or_else(overflow)?;
            let mut d =
                i64::try_from(d.checked_mul(isz).ok_or_else(overflow)?).map_err(|_| overflow())?;
            for _ in 0..inner.count {
                let src = byte_range(decoded, s, isz)?;
                let dst = byte_range_mut(out, to_usize(d)?, isz)?;
                dst.copy_from_slice(src);
                s = s.wrapping_add(src_step);
                d = d.wrapping_add(dst_step);
            }
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
        let inner = runs.inner;
        if inner.dst == 1 {
            let run_bytes = mul_usize(
                u64::try_from(inner.count).map_err(|_| overflow())?,
                item_size,
            )?;
            return runs.for_each(|_, d| {
                let d = d.checked_mul(isz).ok_or_else(overflow)?;
                fill_pattern(byte_range_mut(out, d, run_bytes)?, fill);
                Ok(())
            });
        }
        let dst_step = inner
            .dst
            .checked_mul(i64::try_from(isz).map_err(|_| overflow())?)
            .ok_or_else(overflow)?;
        runs.for_each(|_, d| {
            let mut d =
                i64::try_from(d.checked_mul(isz).ok_or_else(overflow)?).map_err(|_| overflow())?;
            for _ in 0..inner.count {
                byte_range_mut(out, to_usize(d)?, isz)?.copy_from_slice(fill);
                d = d.wrapping_add(dst_step);
            }
            Ok(())
        })
    }

    /// [`ChunkRead::copy_into`] for element values (variable-length strings or byte strings):
    /// `decoded` holds the whole chunk's elements in C order.
    pub fn copy_elements_into<T: Clone>(&self, out: &mut [T], decoded: &[T]) -> Result<()> {
        let chunk_len = self.chunk_len()?;
        if u64::try_from(decoded.len()).ok() != Some(chunk_len) {
            return Err(ZomError::new(
                ErrorCode::CodecError,
                format!(
                    "decoded chunk has {} elements; a chunk of shape {:?} has {chunk_len}",
                    decoded.len(),
                    self.chunk_shape
                ),
            ));
        }
        let Some(runs) = self.runs(out.len(), chunk_len)? else {
            return Ok(());
        };
        let inner = runs.inner;
        let n = usize::try_from(inner.count).map_err(|_| overflow())?;
        runs.for_each(|s, d| {
            if inner.src == 1 && inner.dst == 1 {
                let src = decoded.get(s..s.saturating_add(n)).ok_or_else(overflow)?;
                let dst = out.get_mut(d..d.saturating_add(n)).ok_or_else(overflow)?;
                dst.clone_from_slice(src);
                return Ok(());
            }
            let mut s = i64::try_from(s).map_err(|_| overflow())?;
            let mut d = i64::try_from(d).map_err(|_| overflow())?;
            for _ in 0..n {
                let v = decoded.get(to_usize(s)?).ok_or_else(overflow)?;
                *out.get_mut(to_usize(d)?).ok_or_else(overflow)? = v.clone();
                s = s.wrapping_add(inner.src);
                d = d.wrapping_add(inner.dst);
            }
            Ok(())
        })
    }

    /// [`ChunkRead::fill_into`] for element values: sets every output element this chunk
    /// covers to `fill`.
    pub fn fill_elements_into<T: Clone>(&self, out: &mut [T], fill: &T) -> Result<()> {
        let Some(runs) = self.runs(out.len(), self.chunk_len()?)? else {
            return Ok(());
        };
        let inner = runs.inner;
        let n = usize::try_from(inner.count).map_err(|_| overflow())?;
        runs.for_each(|_, d| {
            if inner.dst == 1 {
                out.get_mut(d..d.saturating_add(n))
                    .ok_or_else(overflow)?
                    .fill(fill.clone());
                return Ok(());
            }
            let mut d = i64::try_from(d).map_err(|_| overflow())?;
            for _ in 0..n {
                *out.get_mut(to_usize(d)?).ok_or_else(overflow)? = fill.clone();
                d = d.wrapping_add(inner.dst);
            }
            Ok(())
        })
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

/// The number of elements in a buffer of `bytes` bytes of `item_size`-byte elements.
fn out_elements(bytes: usize, item_size: u64) -> Result<usize> {
    if item_size == 0 {
        return Err(ZomError::invalid_argument("element size must be positive"));
    }
    let isz = usize::try_from(item_size).map_err(|_| overflow())?;
    if bytes % isz != 0 {
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
