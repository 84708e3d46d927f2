//! Building a pipeline from a v3 `codecs` list (and whole v3 array metadata).

use super::bytes::BytesCodec;
use super::checksum::{Algorithm, ChecksumCodec, Location};
use super::compress::{Compressor, CompressorCodec};
use super::filters::{FilterOp, NumFilter, NumFilterArrayCodec};
use super::numeric::{NumKind, NumType};
use super::packbits::{NumcodecsPackBits, PackBitsCodec};
use super::sharding::ShardingCodec;
use super::transpose::TransposeCodec;
use super::v2::{numcodecs_bytes_codec, numcodecs_filter};
use super::vlen::{VlenCodec, VlenKind};
use super::{
    bad_config, unknown_codec, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    CodecPipeline,
};
use crate::dtype::{DataType, Endianness, FillValue};
use crate::error::{ErrorCode, Result, ZomError};
use crate::model::named::NamedConfig;
use crate::model::v2::ArrayMetadataV2;
use crate::model::v3::ArrayMetadataV3;
use serde_json::{Map, Value};

/// The codec kinds, for ordering checks.
enum Built {
    ArrayToArray(Box<dyn ArrayToArrayCodec>),
    ArrayToBytes(Box<dyn ArrayToBytesCodec>),
    BytesToBytes(Box<dyn BytesToBytesCodec>),
}

static NO_CONFIG: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();

/// Builds one codec for a chunk that looks like `repr` at its position.
fn build_codec(codec: &NamedConfig, repr: &ChunkRepr, fill: &FillValue) -> Result<Built> {
    let name = codec.name.as_str();
    let config = codec
        .configuration
        .as_ref()
        .unwrap_or_else(|| NO_CONFIG.get_or_init(Map::new));
    let array_num = NumKind::from_data_type(&repr.data_type).map(NumType::le);
    let b2b = |c: Box<dyn BytesToBytesCodec>| Ok(Built::BytesToBytes(c));
    match name {
        "transpose" => Ok(Built::ArrayToArray(Box::new(TransposeCodec::from_config(
            name,
            config.get("order"),
        )?))),
        "bitround" => {
            let t = array_num.unwrap_or(NumType::le(NumKind::F64));
            let filter = NumFilter::new(name, FilterOp::Identity, t, t);
            Ok(Built::ArrayToArray(Box::new(NumFilterArrayCodec::new(
                filter,
            ))))
        }
        "bytes" | "endian" => {
            let order = match config.get("endian").and_then(Value::as_str) {
                Some("little") => Endianness::Little,
                Some("big") => Endianness::Big,
                None if repr.data_type.has_byte_order() => {
                    return Err(bad_config(
                        name,
                        "endian is required for multi-byte data types",
                    ))
                }
                None => Endianness::Little,
                Some(other) => return Err(bad_config(name, format!("bad endian '{other}'"))),
            };
            if repr.data_type.fixed_size().is_none() {
                return Err(bad_config(name, "needs a fixed-size data type"));
            }
            Ok(Built::ArrayToBytes(Box::new(BytesCodec::new(
                name,
                &repr.data_type,
                Some(order),
            )?)))
        }
        "vlen-utf8" | "numcodecs.vlen-utf8" => Ok(Built::ArrayToBytes(Box::new(VlenCodec::new(
            name,
            VlenKind::Utf8,
        )))),
        "vlen-bytes" | "numcodecs.vlen-bytes" => Ok(Built::ArrayToBytes(Box::new(VlenCodec::new(
            name,
            VlenKind::Bytes,
        )))),
        "packbits" => Ok(Built::ArrayToBytes(Box::new(PackBitsCodec::from_config(
            name,
            codec.configuration.as_ref(),
        )?))),
        "sharding_indexed" => Ok(Built::ArrayToBytes(Box::new(ShardingCodec::from_config(
            name, config, repr, fill,
        )?))),
        "gzip" => b2b(Box::new(CompressorCodec::new(name, Compressor::Gzip))),
        "zstd" => b2b(Box::new(CompressorCodec::new(name, Compressor::Zstd))),
        "blosc" => b2b(Box::new(super::blosc::BloscCodec::new(name))),
        "crc32c" => b2b(Box::new(ChecksumCodec::new(
            name,
            Algorithm::Crc32c,
            Location::End,
        ))),
        _ => {
            let Some(id) = name.strip_prefix("numcodecs.") else {
                return Err(unknown_codec(name, ""));
            };
            if id == "packbits" {
                return Ok(Built::ArrayToArray(Box::new(NumcodecsPackBits::new(name))));
            }
            if let Some(filter) = numcodecs_filter(name, id, config, array_num)? {
                return Ok(Built::ArrayToArray(Box::new(NumFilterArrayCodec::new(
                    filter,
                ))));
            }
            match numcodecs_bytes_codec(name, id, config, repr.data_type.fixed_size())? {
                Some(codec) => b2b(codec),
                None => Err(unknown_codec(name, "")),
            }
        }
    }
}

/// Builds the pipeline for chunks that decode to `decoded`, from a v3 `codecs` list.
pub(crate) fn build(
    codecs: &[NamedConfig],
    decoded: ChunkRepr,
    fill: FillValue,
) -> Result<CodecPipeline> {
    let mut repr = decoded.clone();
    let mut a2a = Vec::new();
    let mut a2b: Option<Box<dyn ArrayToBytesCodec>> = None;
    let mut b2b = Vec::new();
    for codec in codecs {
        match build_codec(codec, &repr, &fill)? {
            Built::ArrayToArray(c) => {
                if a2b.is_some() {
                    return Err(ZomError::invalid_metadata(format!(
                        "codec '{}' is array → array but comes after the array → bytes codec",
                        codec.name
                    )));
                }
                repr = c.encoded_repr(&repr)?;
                a2a.push(c);
            }
            Built::ArrayToBytes(c) => {
                if a2b.is_some() {
                    return Err(ZomError::invalid_metadata(format!(
                        "codec '{}' is a second array → bytes codec",
                        codec.name
                    )));
                }
                a2b = Some(c);
            }
            Built::BytesToBytes(c) => {
                if a2b.is_none() {
                    return Err(ZomError::invalid_metadata(format!(
                        "codec '{}' is bytes → bytes but comes before the array → bytes codec",
                        codec.name
                    )));
                }
                b2b.push(c);
            }
        }
    }
    let a2b = a2b.ok_or_else(|| {
        ZomError::invalid_metadata("the codecs have no array → bytes codec (such as 'bytes')")
    })?;
    CodecPipeline::new(decoded, a2a, a2b, b2b, fill)
}

impl CodecPipeline {
    /// Builds the pipeline of a v3 array from its `codecs`, data type, chunk shape and fill
    /// value. Unknown codecs are an [`ErrorCode::UnknownCodec`] error naming the codec.
    pub fn from_v3(
        codecs: &[NamedConfig],
        data_type: &DataType,
        chunk_shape: &[u64],
        fill_value: &FillValue,
    ) -> Result<CodecPipeline> {
        build(
            codecs,
            ChunkRepr::new(chunk_shape.to_vec(), data_type.clone()),
            fill_value.clone(),
        )
    }

    /// Builds the pipeline of a v3 array from its whole metadata (regular chunk grid).
    pub fn from_v3_metadata(meta: &ArrayMetadataV3) -> Result<CodecPipeline> {
        let data_type = DataType::from_v3(&meta.data_type)
            .map_err(|e| ZomError::invalid_metadata(format!("data_type: {e}")))?;
        let fill = FillValue::from_v3(&data_type, &meta.fill_value)
            .map_err(|e| ZomError::invalid_metadata(format!("fill_value: {e}")))?;
        if meta.chunk_grid.name != "regular" {
            return Err(ZomError::new(
                ErrorCode::UnsupportedExtension,
                format!("chunk grid '{}' is not supported", meta.chunk_grid.name),
            ));
        }
        let shape = meta
            .chunk_grid
            .get("chunk_shape")
            .and_then(Value::as_array)
            .ok_or_else(|| ZomError::invalid_metadata("the regular chunk grid has no chunk_shape"))?
            .iter()
            .try_fold(Vec::new(), |mut shape, d| {
                shape.push(
                    d.as_u64().ok_or_else(|| {
                        ZomError::invalid_metadata("chunk_shape must hold integers")
                    })?,
                );
                Ok::<_, ZomError>(shape)
            })?;
        Self::from_v3(&meta.codecs, &data_type, &shape, &fill)
    }

    /// Builds the pipeline of a v2 array from its `.zarray` (filters, compressor, order and
    /// the dtype's byte order).
    pub fn from_v2_metadata(meta: &ArrayMetadataV2) -> Result<CodecPipeline> {
        super::v2::from_v2(meta)
    }
}
