//! numcodecs' `json2` and `msgpack2` object codecs (v2 `|O` arrays of any values).
//!
//! numcodecs encodes a chunk as one list: the chunk's items (`ndarray.tolist()`, so nested
//! one level per dimension beyond the first), then the dtype string and the shape. Decoding
//! takes the items, flattened in C order as far as the shape says, and checks their count.

use super::{codec_error, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::dtype::ObjectFormat;
use crate::error::Result;
use crate::limits::MAX_JSON_DEPTH;
use serde_json::Value;

/// A `json2` or `msgpack2` codec.
#[derive(Debug)]
pub(crate) struct ObjectCodec {
    format: ObjectFormat,
}

impl ObjectCodec {
    /// The codec for `format`.
    pub(crate) fn new(format: ObjectFormat) -> Self {
        ObjectCodec { format }
    }

    /// The whole encoded list.
    fn parse(&self, input: &[u8]) -> Result<Value> {
        let who = self.format.id();
        match self.format {
            ObjectFormat::Json => {
                if let Some(depth) = zom_json::depth_over(input, MAX_JSON_DEPTH) {
                    return Err(codec_error(format!("{who}: the values nest {depth} deep")));
                }
                serde_json::from_slice(input).map_err(|e| codec_error(format!("{who}: {e}")))
            }
            ObjectFormat::MsgPack => {
                let mut de = rmp_serde::Deserializer::from_read_ref(input);
                de.set_max_depth(usize::try_from(MAX_JSON_DEPTH).unwrap_or(usize::MAX));
                serde::Deserialize::deserialize(&mut de)
                    .map_err(|e| codec_error(format!("{who}: {e}")))
            }
        }
    }
}

/// The items of a chunk of rank `rank`: `items` flattened `rank - 1` levels, in C order.
fn flatten(items: Vec<Value>, rank: usize, out: &mut Vec<Value>, who: &str) -> Result<()> {
    if rank <= 1 {
        out.extend(items);
        return Ok(());
    }
    for item in items {
        match item {
            Value::Array(inner) => flatten(inner, rank - 1, out, who)?,
            _ => {
                return Err(codec_error(format!(
                    "{who}: the values do not nest as the chunk's shape"
                )))
            }
        }
    }
    Ok(())
}

impl ArrayToBytesCodec for ObjectCodec {
    fn name(&self) -> &str {
        self.format.id()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn encoded_size(&self, _decoded: &ChunkRepr, limits: &Limits) -> Result<SizeBound> {
        Ok(SizeBound::AtMost(limits.max_chunk_bytes))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, _limits: &Limits) -> Result<DecodedChunk> {
        let who = self.format.id();
        let Value::Array(mut list) = self.parse(input)? else {
            return Err(codec_error(format!("{who}: the chunk is not a list")));
        };
        // The last two entries: the dtype string and the chunk's shape.
        if list.len() < 2 {
            return Err(codec_error(format!(
                "{who}: the list has no dtype and shape"
            )));
        }
        list.truncate(list.len() - 2);
        let n = usize::try_from(decoded.num_elements()?).unwrap_or(usize::MAX);
        let mut items = Vec::with_capacity(n.min(list.len()));
        flatten(list, decoded.shape.len(), &mut items, who)?;
        if items.len() != n {
            return Err(codec_error(format!(
                "{who}: decoded to {} values, but the chunk holds {n}",
                items.len()
            )));
        }
        Ok(DecodedChunk::Json(items))
    }
}
