//! numcodecs configurations (`{"id": …}`) and the v2 pipeline: filters, compressor, order
//! and the dtype's byte order.

use super::bytes::BytesCodec;
use super::registry::{self, Built, Stage};
use super::transpose::TransposeCodec;
use super::{
    unknown_codec, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    CodecPipeline,
};
use crate::document::v2::ArrayMetadataV2;
use crate::dtype::{DataType, Endianness, FillValue};
use crate::error::{Result, ZomError};
use serde_json::{Map, Value};

fn codec_id(value: &Value) -> Result<(&str, &Map<String, Value>)> {
    let object = value
        .as_object()
        .ok_or_else(|| ZomError::invalid_metadata("a numcodecs configuration must be an object"))?;
    let id = object
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| ZomError::invalid_metadata("a numcodecs configuration has no string id"))?;
    Ok((id, object))
}

/// Builds the numcodecs codec `id` for the decoder.
fn build(id: &str, config: &Map<String, Value>, stage: &mut Stage) -> Result<Built> {
    let spec = registry::numcodecs(id).ok_or_else(|| unknown_codec(id, ""))?;
    registry::build(spec, id, Some(config), stage)
}

/// Builds the pipeline of a v2 array from its `.zarray`.
pub(crate) fn from_v2(meta: &ArrayMetadataV2) -> Result<CodecPipeline> {
    let filters = meta.filters.as_deref().unwrap_or_default();
    let mut ids = Vec::with_capacity(filters.len());
    for filter in filters {
        ids.push(codec_id(filter)?);
    }
    let (data_type, endianness) =
        DataType::from_v2_codecs(&meta.dtype, Some(filters), meta.compressor.as_ref())
            .map_err(|e| ZomError::invalid_metadata(format!("dtype: {e}")))?;
    let fill = FillValue::from_v2(&data_type, endianness, &meta.fill_value)
        .map_err(|e| ZomError::invalid_metadata(format!("fill_value: {e}")))?;
    let fill = v2_fill_to_le(&data_type, fill)?;
    let decoded = ChunkRepr::new(meta.chunks.clone(), data_type.clone());

    let mut a2a: Vec<Box<dyn ArrayToArrayCodec>> = Vec::new();
    match meta.order.as_str() {
        "C" => {}
        "F" => a2a.push(Box::new(TransposeCodec::fortran())),
        other => {
            return Err(ZomError::invalid_metadata(format!(
                "order must be C or F, not '{other}'"
            )))
        }
    }
    let mut stage = Stage {
        dtype: Some(data_type.clone()),
        shape: Some(meta.chunks.clone()),
        big: endianness == Endianness::Big,
        ..Stage::default()
    };
    let mut b2b: Vec<Box<dyn BytesToBytesCodec>> = Vec::new();
    let mut a2b: Option<Box<dyn ArrayToBytesCodec>> = None;
    if data_type.fixed_size().is_none() {
        // Object arrays: the object codec is the array → bytes step; filters before it would
        // work on Python objects, which zom does not model.
        // zarr-python 2 let a categorize filter stand in for the object codec.
        let is_object = |id: &str, categorize: bool| {
            registry::numcodecs(id).is_some_and(|s| s.object && (id == "categorize") == categorize)
        };
        let position = ids
            .iter()
            .position(|(id, _)| is_object(id, false))
            .or_else(|| ids.iter().position(|(id, _)| is_object(id, true)))
            .ok_or_else(|| {
                unknown_codec(
                    "object",
                    "an object array needs vlen-utf8, vlen-bytes or vlen-array",
                )
            })?;
        if let Some((id, _)) = ids.get(..position).and_then(|before| before.first()) {
            return Err(unknown_codec(
                id,
                "filters before an object codec are not supported",
            ));
        }
        let (id, config) = ids
            .get(position)
            .copied()
            .ok_or_else(|| unknown_codec("object", "no object codec"))?;
        match build(id, config, &mut stage)? {
            Built::ArrayToBytes(codec) => a2b = Some(codec),
            _ => return Err(unknown_codec(id, "is not an object codec")),
        }
        ids.drain(..=position);
    }
    // Filters apply first when encoding: they come before the compressor.
    let compressor = match &meta.compressor {
        Some(c) if !c.is_null() => Some(codec_id(c)?),
        _ => None,
    };
    let filter_count = ids.len();
    for (i, (id, config)) in ids.into_iter().chain(compressor).enumerate() {
        b2b.push(match build(id, config, &mut stage)? {
            Built::BytesToBytes(codec) => codec,
            Built::Filter(filter) => filter.into_bytes_codec(),
            // A compressor that encodes the numbers themselves (numcodecs `pcodec`): it is
            // the array → bytes step, which bytes filters cannot follow when decoding.
            Built::ArrayToBytes(codec) if i == filter_count && a2b.is_none() => {
                if filter_count > 0 {
                    return Err(unknown_codec(id, "filters before it are not supported"));
                }
                a2b = Some(codec);
                continue;
            }
            Built::ArrayToArray(_) | Built::ArrayToBytes(_) => {
                return Err(unknown_codec(id, "cannot be a filter or compressor here"))
            }
        });
    }
    let a2b = match a2b {
        Some(a2b) => a2b,
        None => {
            let order = match (&data_type, endianness) {
                (DataType::Struct { .. }, _) => None,
                (_, e) => Some(e),
            };
            Box::new(BytesCodec::new("bytes", &data_type, order)?)
        }
    };
    CodecPipeline::new(decoded, a2a, a2b, b2b, fill.unwrap_or(FillValue::Int(0)))
}

/// v2 struct fill values come as bytes in the fields' own byte orders: make them
/// little-endian like everything zom decodes.
fn v2_fill_to_le(data_type: &DataType, fill: Option<FillValue>) -> Result<Option<FillValue>> {
    match (data_type, fill) {
        (DataType::Struct { .. }, Some(FillValue::Bytes(mut bytes))) => {
            super::bytes::SwapPlan::new(data_type, None)?.apply(&mut bytes)?;
            Ok(Some(FillValue::Bytes(bytes)))
        }
        (_, fill) => Ok(fill),
    }
}
