//! The output of a region read: one buffer allocated up front (size checked against a
//! limit), into which chunks decode (straight into place when a chunk is one block of the
//! output) or copy, and missing chunks write the fill value.

use crate::chunk::{ChunkRead, ReadPlan};
use crate::codec::{CodecPipeline, DecodedChunk};
use crate::dtype::{DataType, FillValue};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits};

/// The fill value in the form the output writes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Fill {
    /// One fixed-size element's bytes.
    Element(Vec<u8>),
    /// A string element.
    String(String),
    /// A byte-string element.
    Bytes(Vec<u8>),
    /// A JSON value (object arrays).
    Json(serde_json::Value),
}

impl Fill {
    /// The fill of an array of `data_type` (as the codec pipeline fills missing chunks:
    /// zeros or empty values when the fill value gives no element).
    pub fn of(data_type: &DataType, fill: &FillValue) -> Result<Fill> {
        Ok(match data_type {
            DataType::String => Fill::String(match fill {
                FillValue::String(s) => s.clone(),
                _ => String::new(),
            }),
            DataType::Object(_) => Fill::Json(crate::codec::object_fill(fill)),
            DataType::Bytes(_) | DataType::VlenArray { .. } => Fill::Bytes(match fill {
                FillValue::Bytes(b) => b.clone(),
                _ => Vec::new(),
            }),
            other => {
                let size = item_size(other)?;
                match fill.to_element_bytes(other) {
                    Some(bytes) if u64::try_from(bytes.len()).ok() == Some(size) => {
                        Fill::Element(bytes)
                    }
                    _ => Fill::Element(vec![0u8; usize::try_from(size).map_err(|_| too_large())?]),
                }
            }
        })
    }
}

fn too_large() -> ZomError {
    ZomError::new(ErrorCode::LimitExceeded, "an element is too large")
}

fn item_size(data_type: &DataType) -> Result<u64> {
    data_type
        .fixed_size()
        .filter(|&s| s > 0)
        .ok_or_else(|| ZomError::new(ErrorCode::CodecError, "a data type without element size"))
}

fn mismatch() -> ZomError {
    ZomError::new(
        ErrorCode::CodecError,
        "a chunk decoded to values of another kind than the array's data type",
    )
}

/// A whole read's output, in C order.
#[derive(Debug)]
pub(crate) enum Output {
    /// Fixed-size elements' bytes.
    Fixed {
        /// The bytes.
        bytes: Vec<u8>,
        /// Bytes per element.
        item: u64,
    },
    /// Strings.
    Strings(Vec<String>),
    /// Byte strings.
    Bytes(Vec<Vec<u8>>),
    /// JSON values.
    Json(Vec<serde_json::Value>),
    /// Fixed-size elements in a buffer outside (a [`super::DecodeHook`]'s output, filled with
    /// the fill value up front): the hook places decoded chunks, missing ones need nothing.
    Shared,
}

impl Output {
    /// The output of `plan` for `data_type`, refused with [`ErrorCode::LimitExceeded`] over
    /// the limit `maxBytes` (for variable-length data: elements × the size of one slot).
    pub fn allocate(plan: &ReadPlan, data_type: &DataType, limits: &Limits) -> Result<Output> {
        let item = Self::check_size(plan, data_type, limits)?;
        Ok(match data_type {
            DataType::String => Output::Strings(plan.allocate_elements(String::new(), u64::MAX)?),
            DataType::Bytes(_) | DataType::VlenArray { .. } => {
                Output::Bytes(plan.allocate_elements(Vec::new(), u64::MAX)?)
            }
            DataType::Object(_) => {
                Output::Json(plan.allocate_elements(serde_json::Value::Null, u64::MAX)?)
            }
            _ => Output::Fixed {
                bytes: plan.allocate_output(item, u64::MAX)?,
                item,
            },
        })
    }

    /// Refuses an output of `plan` for `data_type` over the limit `maxBytes` (cheap: nothing
    /// is allocated). Returns the size of one element or slot.
    pub fn check_size(plan: &ReadPlan, data_type: &DataType, limits: &Limits) -> Result<u64> {
        let slot = |size: usize| u64::try_from(size).unwrap_or(u64::MAX);
        let item = match data_type {
            DataType::String => slot(std::mem::size_of::<String>()),
            DataType::Bytes(_) | DataType::VlenArray { .. } => slot(std::mem::size_of::<Vec<u8>>()),
            DataType::Object(_) => slot(std::mem::size_of::<serde_json::Value>()),
            other => item_size(other)?,
        };
        let bytes = plan.output_len()?.saturating_mul(item);
        limits.check(Limit::Bytes, bytes, "the read's output size in bytes")?;
        Ok(item)
    }

    /// Writes the fill value wherever `read` (of a missing chunk) covers the output.
    pub fn fill(&mut self, read: &ChunkRead, fill: &Fill) -> Result<()> {
        match (self, fill) {
            (Output::Shared, _) => Ok(()),
            (Output::Fixed { bytes, .. }, Fill::Element(e)) => read.fill_into(bytes, e),
            (Output::Strings(out), Fill::String(s)) => read.fill_elements_into(out, s),
            (Output::Bytes(out), Fill::Bytes(b)) => read.fill_elements_into(out, b),
            (Output::Json(out), Fill::Json(v)) => read.fill_elements_into(out, v),
            _ => Err(mismatch()),
        }
    }

    /// Copies the selected part of a decoded chunk (the whole chunk's values).
    pub fn copy(&mut self, read: &ChunkRead, chunk: &DecodedChunk) -> Result<()> {
        match (self, chunk) {
            (Output::Fixed { bytes, item }, DecodedChunk::Fixed(c)) => {
                read.copy_into(bytes, *item, c)
            }
            (Output::Strings(out), DecodedChunk::Strings(c)) => read.copy_elements_into(out, c),
            (Output::Bytes(out), DecodedChunk::Bytes(c)) => read.copy_elements_into(out, c),
            (Output::Json(out), DecodedChunk::Json(c)) => read.copy_elements_into(out, c),
            _ => Err(mismatch()),
        }
    }

    /// Decodes a chunk's stored bytes with `pipeline` into place: straight into the output
    /// when the chunk is one block of it, else through a decoded chunk. With `keep`, returns
    /// the whole decoded chunk too (for a cache).
    pub fn decode(
        &mut self,
        read: &ChunkRead,
        pipeline: &CodecPipeline,
        encoded: &[u8],
        keep: bool,
    ) -> Result<Option<DecodedChunk>> {
        if let Output::Fixed { bytes, item } = self {
            if let Some(range) = read.direct_output_range(*item) {
                let target = bytes.get_mut(range).ok_or_else(mismatch)?;
                pipeline.decode_into(encoded, target)?;
                return Ok(keep.then(|| DecodedChunk::Fixed(target.to_vec())));
            }
        }
        let chunk = pipeline.decode(encoded)?;
        self.copy(read, &chunk)?;
        Ok(keep.then_some(chunk))
    }

    /// The values.
    pub fn into_chunk(self) -> DecodedChunk {
        match self {
            Output::Fixed { bytes, .. } => DecodedChunk::Fixed(bytes),
            Output::Strings(v) => DecodedChunk::Strings(v),
            Output::Bytes(v) => DecodedChunk::Bytes(v),
            Output::Json(v) => DecodedChunk::Json(v),
            Output::Shared => DecodedChunk::Fixed(Vec::new()),
        }
    }
}
