//! Selections: per dimension an integer, a Python slice or the whole dimension, resolved
//! against an array shape into arithmetic progressions of indices.
//!
//! Semantics are NumPy's basic indexing: negative integers and slice bounds count from the
//! end, slice bounds are clamped, integers drop their dimension from the output, missing
//! trailing entries select whole dimensions. Negative steps are supported as in NumPy (the
//! output runs backwards along that dimension); a zero step is an error. zarr-python refuses
//! negative steps, so a selection it accepts gives the same result here.

use crate::error::{ErrorCode, Result, ZomError};
use serde_json::Value;

/// What one dimension of a selection asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimSelection {
    /// The whole dimension (`null` / `:`).
    All,
    /// One index; negative counts from the end. The dimension is dropped from the output.
    Index(i64),
    /// A Python slice `start:stop:step`; `None` takes Python's defaults.
    Slice {
        /// First index (inclusive), or `None`.
        start: Option<i64>,
        /// End index (exclusive), or `None`.
        stop: Option<i64>,
        /// Step (not 0; negative walks backwards), or `None` for 1.
        step: Option<i64>,
    },
}

impl DimSelection {
    /// A slice `start:stop:step`.
    pub fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Self {
        DimSelection::Slice { start, stop, step }
    }
}

/// A selection: one entry per leading dimension; dimensions without an entry are whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection(pub Vec<DimSelection>);

/// One resolved dimension: the selected indices as an ascending arithmetic progression
/// `start, start + step, …` (`count` of them), and where they go in the output.
///
/// The `k`-th index of the progression goes to output index `out_start + k`, or
/// `out_start - k` when `reversed` (a negative step). Integer selections are `dropped`: their
/// one index has no output dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisSelection {
    /// The smallest selected index.
    pub start: u64,
    /// Distance between selected indices (at least 1).
    pub step: u64,
    /// Number of selected indices.
    pub count: u64,
    /// Output index of the element at `start` (along this axis' output dimension).
    pub out_start: u64,
    /// Whether output indices decrease as array indices increase.
    pub reversed: bool,
    /// Whether this dimension has no output dimension (an integer selection).
    pub dropped: bool,
}

impl AxisSelection {
    /// The whole of a dimension of length `len`.
    pub fn all(len: u64) -> Self {
        AxisSelection {
            start: 0,
            step: 1,
            count: len,
            out_start: 0,
            reversed: false,
            dropped: false,
        }
    }

    /// Array index of the `k`-th selected element (`k < count`).
    pub fn index(&self, k: u64) -> Option<u64> {
        if k >= self.count {
            return None;
        }
        k.checked_mul(self.step)?.checked_add(self.start)
    }

    /// Output index of the `k`-th selected element (`k < count`).
    pub fn out_index(&self, k: u64) -> Option<u64> {
        if k >= self.count {
            return None;
        }
        if self.reversed {
            self.out_start.checked_sub(k)
        } else {
            self.out_start.checked_add(k)
        }
    }
}

/// A selection resolved against a shape: one [`AxisSelection`] per dimension, and the shape
/// of the output (the non-dropped dimensions' counts, in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedSelection {
    /// Per array dimension.
    pub axes: Vec<AxisSelection>,
    /// Shape of the whole output this selection writes into.
    pub output_shape: Vec<u64>,
}

impl ResolvedSelection {
    /// The whole of an array of `shape`.
    pub fn all(shape: &[u64]) -> Self {
        ResolvedSelection {
            axes: shape.iter().map(|&len| AxisSelection::all(len)).collect(),
            output_shape: shape.to_vec(),
        }
    }

    /// Number of output elements (1 for a 0-d output).
    pub fn output_len(&self) -> Result<u64> {
        super::checked_product(&self.output_shape, "the output shape")
    }
}

fn invalid(message: String) -> ZomError {
    ZomError::new(ErrorCode::InvalidSelection, message)
}

/// Python's `slice(start, stop, step).indices(len)`: the first index, the bound (exclusive)
/// and the step the slice takes in a dimension of length `len`, negative values counted from
/// the end and bounds clamped as Python clamps them. `None` for a zero step.
pub fn slice_indices(
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
    len: u64,
) -> Option<(i128, i128, i128)> {
    let step = i128::from(step.unwrap_or(1));
    if step == 0 {
        return None;
    }
    // i128: every operand is a 64-bit value and every intermediate stays below 2^67.
    let len = i128::from(len);
    let clamp = |v: Option<i64>, default: i128, lo: i128, hi: i128| -> i128 {
        match v {
            None => default,
            Some(v) => {
                let v = i128::from(v);
                let v = if v < 0 { v + len } else { v };
                v.clamp(lo, hi)
            }
        }
    };
    Some(if step > 0 {
        (clamp(start, 0, 0, len), clamp(stop, len, 0, len), step)
    } else {
        (
            clamp(start, len - 1, -1, len - 1),
            clamp(stop, -1, -1, len - 1),
            step,
        )
    })
}

/// Resolves one dimension of length `len`.
fn resolve_dim(sel: DimSelection, dim: usize, len: u64) -> Result<AxisSelection> {
    let len_i = i128::from(len);
    match sel {
        DimSelection::All => Ok(AxisSelection::all(len)),
        DimSelection::Index(i) => {
            let i = i128::from(i); // i128: i + len cannot overflow
            let index = if i < 0 { i + len_i } else { i };
            if index < 0 || index >= len_i {
                let msg = if len == 0 {
                    format!("index {i} is out of bounds for dimension {dim} of length 0")
                } else {
                    format!(
                        "index {i} is out of bounds for dimension {dim} of length {len} (valid: -{len} to {})",
                        len.saturating_sub(1)
                    )
                };
                return Err(invalid(msg));
            }
            Ok(AxisSelection {
                // 0 <= index < len <= u64::MAX
                start: u64::try_from(index).map_err(|_| invalid(format!("index {i} too large")))?,
                step: 1,
                count: 1,
                out_start: 0,
                reversed: false,
                dropped: true,
            })
        }
        DimSelection::Slice { start, stop, step } => {
            let (start, stop, step) = slice_indices(start, stop, step, len)
                .ok_or_else(|| invalid(format!("slice step cannot be zero (dimension {dim})")))?;
            let (first, count) = if step > 0 {
                let count = if stop > start {
                    (stop - start + step - 1) / step
                } else {
                    0
                };
                (start, count)
            } else {
                let count = if start > stop {
                    (start - stop - step - 1) / -step
                } else {
                    0
                };
                // The smallest selected index: the last one visited.
                let first = if count > 0 {
                    start + (count - 1) * step
                } else {
                    0
                };
                (first, count)
            };
            let to_u64 = |v: i128| {
                u64::try_from(v).map_err(|_| invalid(format!("slice in dimension {dim} overflows")))
            };
            let count = to_u64(count)?;
            let reversed = step < 0 && count > 1;
            Ok(AxisSelection {
                start: if count == 0 { 0 } else { to_u64(first)? },
                step: if count > 1 { to_u64(step.abs())? } else { 1 },
                count,
                out_start: if reversed { count.saturating_sub(1) } else { 0 },
                reversed,
                dropped: false,
            })
        }
    }
}

impl Selection {
    /// A selection from its entries.
    pub fn new(dims: Vec<DimSelection>) -> Self {
        Selection(dims)
    }

    /// The whole array.
    pub fn all() -> Self {
        Selection(Vec::new())
    }

    /// Resolves the selection against an array `shape`.
    ///
    /// Errors ([`ErrorCode::InvalidSelection`]): more entries than dimensions, an integer out
    /// of bounds (the message names the dimension and the valid range), a zero step.
    pub fn resolve(&self, shape: &[u64]) -> Result<ResolvedSelection> {
        if self.0.len() > shape.len() {
            return Err(invalid(format!(
                "selection has {} entries; the array has {} dimensions (shape {shape:?})",
                self.0.len(),
                shape.len()
            )));
        }
        let mut axes = Vec::with_capacity(shape.len());
        let mut output_shape = Vec::with_capacity(shape.len());
        for (dim, &len) in shape.iter().enumerate() {
            let sel = self.0.get(dim).copied().unwrap_or(DimSelection::All);
            let axis = resolve_dim(sel, dim, len)?;
            if !axis.dropped {
                output_shape.push(axis.count);
            }
            axes.push(axis);
        }
        Ok(ResolvedSelection { axes, output_shape })
    }

    /// Reads a selection from JSON, the form the JS API passes: `null` (everything) or a list
    /// whose entries are an integer, `null` (whole dimension) or a slice object
    /// `{"start": …, "stop": …, "step": …}` (each an integer or `null`/absent; zarrita's
    /// `slice()` gives this shape).
    pub fn from_json(value: &Value) -> Result<Self> {
        let items = match value {
            Value::Null => return Ok(Selection::all()),
            Value::Array(items) => items,
            other => {
                return Err(invalid(format!(
                    "a selection must be null or a list, not {}",
                    short(other)
                )))
            }
        };
        let mut dims = Vec::with_capacity(items.len());
        for (dim, item) in items.iter().enumerate() {
            dims.push(match item {
                Value::Null => DimSelection::All,
                Value::Number(_) => DimSelection::Index(json_int(item, dim, "index")?),
                Value::Object(o) => {
                    if let Some(k) = o
                        .keys()
                        .find(|k| !matches!(k.as_str(), "start" | "stop" | "step"))
                    {
                        return Err(invalid(format!(
                            "slice in dimension {dim} has unknown key '{k}' (expected start, stop, step)"
                        )));
                    }
                    let field = |name: &str| -> Result<Option<i64>> {
                        match o.get(name) {
                            None | Some(Value::Null) => Ok(None),
                            Some(v) => json_int(v, dim, name).map(Some),
                        }
                    };
                    DimSelection::Slice {
                        start: field("start")?,
                        stop: field("stop")?,
                        step: field("step")?,
                    }
                }
                other => {
                    return Err(invalid(format!(
                        "selection entry {dim} must be an integer, null or a slice, not {}",
                        short(other)
                    )))
                }
            });
        }
        Ok(Selection(dims))
    }
}

/// An integer from JSON; integral floats (JS numbers) are accepted within ±2^53.
fn json_int(value: &Value, dim: usize, what: &str) -> Result<i64> {
    const SAFE: f64 = 9_007_199_254_740_992.0; // 2^53
    if let Some(i) = value.as_i64() {
        return Ok(i);
    }
    if let Some(f) = value.as_f64() {
        if f.fract() == 0.0 && f.abs() <= SAFE {
            // Integral and within ±2^53: exact in i64.
            return Ok(f as i64);
        }
    }
    Err(invalid(format!(
        "{what} in dimension {dim} must be an integer, not {}",
        short(value)
    )))
}

fn short(value: &Value) -> String {
    let text = crate::json::to_compact(value);
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", text.get(..cut).unwrap_or("")),
        None => text,
    }
}
