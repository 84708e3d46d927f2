//! numcodecs configurations (`{"id": …}`) and the v2 pipeline: filters, compressor, order
//! and the dtype's byte order.

use super::blosc::BloscCodec;
use super::bytes::BytesCodec;
use super::checksum::{Algorithm, ChecksumCodec, Location};
use super::compress::{Compressor, CompressorCodec};
use super::filters::{utf32_length, CategorizeStrings, FilterOp, NumFilter};
use super::numeric::{NumKind, NumType};
use super::object::ObjectCodec;
use super::packbits::NumcodecsPackBits;
use super::shuffle::ShuffleCodec;
use super::transpose::TransposeCodec;
use super::vlen::{VlenCodec, VlenKind};
use super::{
    bad_config, unknown_codec, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    CodecPipeline,
};
use crate::dtype::{DataType, Endianness, FillValue, ObjectFormat};
use crate::error::{Result, ZomError};
use crate::model::v2::ArrayMetadataV2;
use serde_json::{Map, Value};

/// numcodecs ids that give an object (`|O`) array its meaning.
const OBJECT_CODECS: &[&str] = &[
    "vlen-utf8",
    "vlen-bytes",
    "vlen-array",
    "json2",
    "msgpack2",
    "pickle",
];

/// A numcodecs bytes → bytes codec (compressor, checksum, shuffle), or `None` if `id` is
/// not one. `item_size` is the array's element size (shuffle's default in v3).
pub(crate) fn numcodecs_bytes_codec(
    name: &str,
    id: &str,
    config: &Map<String, Value>,
    item_size: Option<u64>,
) -> Result<Option<Box<dyn BytesToBytesCodec>>> {
    let location = |default: Location| -> Result<Location> {
        match config.get("location") {
            None | Some(Value::Null) => Ok(default),
            Some(Value::String(s)) if s == "start" => Ok(Location::Start),
            Some(Value::String(s)) if s == "end" => Ok(Location::End),
            Some(other) => Err(bad_config(
                name,
                format!("bad location {}", crate::json::to_compact(other)),
            )),
        }
    };
    let compressor = |kind| Ok(Some(Box::new(CompressorCodec::new(name, kind)) as Box<_>));
    let checksum = |algorithm, default| -> Result<Option<Box<dyn BytesToBytesCodec>>> {
        Ok(Some(Box::new(ChecksumCodec::new(
            name,
            algorithm,
            location(default)?,
        ))))
    };
    match id {
        "gzip" => compressor(Compressor::Gzip),
        "zlib" => compressor(Compressor::Zlib),
        "zstd" => compressor(Compressor::Zstd),
        "lz4" => compressor(Compressor::Lz4),
        "bz2" => compressor(Compressor::Bz2),
        "lzma" => {
            let format = config.get("format").and_then(Value::as_i64).unwrap_or(1);
            let kind = match format {
                0 => Compressor::LzmaAuto,
                1 => Compressor::Xz,
                2 => Compressor::LzmaAlone,
                _ => {
                    return Err(unknown_codec(
                        name,
                        format!("lzma format {format} (raw streams) is not supported"),
                    ))
                }
            };
            compressor(kind)
        }
        "blosc" => Ok(Some(Box::new(BloscCodec::new(name)))),
        "crc32" => checksum(Algorithm::Crc32, Location::Start),
        "adler32" => checksum(Algorithm::Adler32, Location::Start),
        "crc32c" => checksum(Algorithm::Crc32c, Location::End),
        "fletcher32" => checksum(Algorithm::Fletcher32, Location::End),
        "shuffle" => {
            let size = match config.get("elementsize") {
                None | Some(Value::Null) => item_size.unwrap_or(4),
                Some(v) => v
                    .as_u64()
                    .ok_or_else(|| bad_config(name, "elementsize must be an integer"))?,
            };
            let size =
                usize::try_from(size).map_err(|_| bad_config(name, "elementsize too large"))?;
            Ok(Some(Box::new(ShuffleCodec::new(name, size))))
        }
        _ => Ok(None),
    }
}

fn num_type(
    name: &str,
    config: &Map<String, Value>,
    key: &str,
    default: Option<NumType>,
) -> Result<NumType> {
    match config.get(key) {
        None | Some(Value::Null) => {
            default.ok_or_else(|| bad_config(name, format!("missing {key}")))
        }
        Some(Value::String(s)) => {
            NumType::parse(s).ok_or_else(|| unknown_codec(name, format!("unsupported {key} '{s}'")))
        }
        Some(other) => Err(bad_config(
            name,
            format!(
                "{key} must be a dtype string, not {}",
                crate::json::to_compact(other)
            ),
        )),
    }
}

fn number(name: &str, config: &Map<String, Value>, key: &str, default: f64) -> Result<f64> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_f64()
            .ok_or_else(|| bad_config(name, format!("{key} must be a number"))),
    }
}

/// A numcodecs filter on typed values, or `None` if `id` is not one. `array_type` is the
/// type the filter decodes to when its configuration does not say.
pub(crate) fn numcodecs_filter(
    name: &str,
    id: &str,
    config: &Map<String, Value>,
    array_type: Option<NumType>,
) -> Result<Option<NumFilter>> {
    Ok(Some(match id {
        "delta" => {
            let dtype = num_type(name, config, "dtype", array_type)?;
            let astype = num_type(name, config, "astype", Some(dtype))?;
            NumFilter::new(name, FilterOp::Delta, dtype, astype)
        }
        "fixedscaleoffset" => {
            let dtype = num_type(name, config, "dtype", array_type)?;
            let astype = num_type(name, config, "astype", Some(dtype))?;
            let op = FilterOp::FixedScaleOffset {
                scale: number(name, config, "scale", 1.0)?,
                offset: number(name, config, "offset", 0.0)?,
            };
            NumFilter::new(name, op, dtype, astype)
        }
        "quantize" => {
            let dtype = num_type(name, config, "dtype", array_type)?;
            let astype = num_type(name, config, "astype", Some(dtype))?;
            NumFilter::new(name, FilterOp::Cast, dtype, astype)
        }
        "astype" => {
            let decode = num_type(name, config, "decode_dtype", array_type)?;
            let encode = num_type(name, config, "encode_dtype", Some(decode))?;
            NumFilter::new(name, FilterOp::Cast, decode, encode)
        }
        "bitround" => {
            let t = array_type.unwrap_or(NumType::le(NumKind::F64));
            NumFilter::new(name, FilterOp::Identity, t, t)
        }
        _ => return Ok(None),
    }))
}

/// The `labels` of a categorize configuration.
fn labels(name: &str, config: &Map<String, Value>) -> Result<Vec<String>> {
    config
        .get("labels")
        .and_then(Value::as_array)
        .ok_or_else(|| bad_config(name, "labels must be an array"))?
        .iter()
        .try_fold(Vec::new(), |mut labels, l| {
            labels.push(
                l.as_str()
                    .ok_or_else(|| bad_config(name, "labels must be strings"))?
                    .to_string(),
            );
            Ok(labels)
        })
}

/// numcodecs `categorize` decoding to fixed-length UTF-32 (`<U…` dtypes).
fn categorize(
    name: &str,
    config: &Map<String, Value>,
    data_type: &DataType,
    big: bool,
) -> Result<NumFilter> {
    let labels = labels(name, config)?;
    let length_bytes = utf32_length(data_type).ok_or_else(|| {
        unknown_codec(
            name,
            "categorize is supported for fixed-length unicode arrays only",
        )
    })?;
    let astype = num_type(name, config, "astype", Some(NumType::le(NumKind::U8)))?;
    let op = FilterOp::Categorize {
        labels,
        length_bytes,
        big,
    };
    Ok(NumFilter::new(name, op, NumType::le(NumKind::U8), astype))
}

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
    let item = data_type.fixed_size();
    let array_num = NumKind::from_data_type(&data_type).map(|kind| NumType {
        kind,
        big: endianness == Endianness::Big,
    });
    let big = endianness == Endianness::Big;

    let mut b2b: Vec<Box<dyn BytesToBytesCodec>> = Vec::new();
    let mut a2b: Option<Box<dyn ArrayToBytesCodec>> = None;
    if item.is_none() {
        // Object arrays: the object codec is the array → bytes step; filters before it would
        // work on Python objects, which zom does not model.
        // zarr-python 2 let a categorize filter stand in for the object codec.
        let position = ids
            .iter()
            .position(|(id, _)| OBJECT_CODECS.contains(id))
            .or_else(|| ids.iter().position(|(id, _)| *id == "categorize"))
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
        a2b = Some(object_codec(id, config, &data_type)?);
        ids.drain(..=position);
    }
    for (id, config) in ids {
        if let Some(codec) = numcodecs_bytes_codec(id, id, config, item)? {
            b2b.push(codec);
        } else if let Some(filter) = numcodecs_filter(id, id, config, array_num)? {
            b2b.push(Box::new(filter));
        } else if id == "packbits" {
            b2b.push(Box::new(NumcodecsPackBits::new(id)));
        } else if id == "categorize" {
            b2b.push(Box::new(categorize(id, config, &data_type, big)?));
        } else {
            return Err(unknown_codec(id, ""));
        }
    }
    // Filters apply first when encoding: they come before the compressor.
    if let Some(compressor) = &meta.compressor {
        if !compressor.is_null() {
            let (id, config) = codec_id(compressor)?;
            let codec = numcodecs_bytes_codec(id, id, config, item)?
                .ok_or_else(|| unknown_codec(id, ""))?;
            b2b.push(codec);
        }
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

/// The array → bytes codec standing for a v2 object codec.
fn object_codec(
    id: &str,
    config: &Map<String, Value>,
    data_type: &DataType,
) -> Result<Box<dyn ArrayToBytesCodec>> {
    let kind = match id {
        "vlen-utf8" => VlenKind::Utf8,
        "vlen-bytes" => VlenKind::Bytes,
        "vlen-array" => {
            let DataType::VlenArray { item } = data_type else {
                return Err(bad_config(id, "the array's dtype must be |O"));
            };
            let item_size = item
                .fixed_size()
                .and_then(|s| usize::try_from(s).ok())
                .filter(|&s| s > 0)
                .ok_or_else(|| bad_config(id, "dtype must be a numeric type"))?;
            // numcodecs writes the items in the byte order its dtype names.
            let big = config
                .get("dtype")
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with('>'));
            let complex = matches!(**item, DataType::Complex64 | DataType::Complex128);
            VlenKind::Array {
                item_size,
                swap_unit: big.then_some(if complex { item_size / 2 } else { item_size }),
            }
        }
        "json2" => return Ok(Box::new(ObjectCodec::new(ObjectFormat::Json))),
        "msgpack2" => return Ok(Box::new(ObjectCodec::new(ObjectFormat::MsgPack))),
        "categorize" => {
            let astype = num_type(id, config, "astype", Some(NumType::le(NumKind::U8)))?;
            return Ok(Box::new(CategorizeStrings::new(
                id,
                labels(id, config)?,
                astype,
            )));
        }
        other => return Err(unknown_codec(other, "")),
    };
    Ok(Box::new(VlenCodec::new(id, kind)))
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
