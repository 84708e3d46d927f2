//! Building a pipeline from a v3 `codecs` list (and whole v3 array metadata).

use super::registry::{self, Stage};
use super::{
    unknown_codec, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    CodecPipeline,
};
use crate::document::named::NamedConfig;
use crate::document::v2::ArrayMetadataV2;
use crate::document::v3::ArrayMetadataV3;
use crate::dtype::{DataType, FillValue};
use crate::error::{Result, ZomError};

/// The codec kinds, for ordering checks.
enum Built {
    ArrayToArray(Box<dyn ArrayToArrayCodec>),
    ArrayToBytes(Box<dyn ArrayToBytesCodec>),
    BytesToBytes(Box<dyn BytesToBytesCodec>),
}

/// Builds one codec for a chunk that looks like `repr` at its position.
fn build_codec(codec: &NamedConfig, repr: &ChunkRepr, fill: &FillValue) -> Result<Built> {
    let name = codec.name.as_str();
    let spec = registry::v3(name).ok_or_else(|| unknown_codec(name, ""))?;
    let mut stage = Stage {
        dtype: Some(repr.data_type.clone()),
        shape: Some(repr.shape.clone()),
        fill: Some(fill.clone()),
        ..Stage::default()
    };
    Ok(
        match registry::build(spec, name, codec.configuration.as_ref(), &mut stage)? {
            registry::Built::ArrayToArray(c) => Built::ArrayToArray(c),
            registry::Built::ArrayToBytes(c) => Built::ArrayToBytes(c),
            registry::Built::BytesToBytes(c) => Built::BytesToBytes(c),
            registry::Built::Filter(f) => Built::ArrayToArray(f.into_array_codec()),
        },
    )
}

/// Builds the pipeline for chunks that decode to `decoded`, from a v3 `codecs` list.
pub(crate) fn build(
    codecs: &[NamedConfig],
    decoded: ChunkRepr,
    fill: FillValue,
) -> Result<CodecPipeline> {
    let mut repr = decoded.clone();
    let mut stage_fill = fill.clone();
    let mut a2a = Vec::new();
    let mut a2b: Option<Box<dyn ArrayToBytesCodec>> = None;
    let mut b2b = Vec::new();
    for codec in codecs {
        match build_codec(codec, &repr, &stage_fill)? {
            Built::ArrayToArray(c) => {
                if a2b.is_some() {
                    return Err(ZomError::invalid_metadata(format!(
                        "codec '{}' is array → array but comes after the array → bytes codec",
                        codec.name
                    )));
                }
                stage_fill = c.encoded_fill(&stage_fill, &repr)?;
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

    /// Builds the pipeline of a v3 array from its whole metadata, for its first chunk's shape
    /// (every chunk's, on a regular grid).
    pub fn from_v3_metadata(meta: &ArrayMetadataV3) -> Result<CodecPipeline> {
        Self::from_v3_metadata_with(meta, &[])
    }

    /// [`CodecPipeline::from_v3_metadata`] for a caller that applies the codecs named
    /// `registered` itself (v3 names and numcodecs ids): the array's trailing run of them
    /// becomes the pipeline's [`CodecPipeline::external`] steps.
    pub fn from_v3_metadata_with(
        meta: &ArrayMetadataV3,
        registered: &[String],
    ) -> Result<CodecPipeline> {
        // The chunk grid's one reader, as the array's layout reads it.
        let grid = crate::chunk::ChunkGrid::from_v3(&meta.chunk_grid, &meta.shape)?;
        Self::from_v3_metadata_for(meta, registered, &grid.first_chunk_shape())
    }

    /// [`CodecPipeline::from_v3_metadata_with`] for the stored chunks of `chunk_shape` (the
    /// chunks of a rectilinear grid differ in shape).
    pub fn from_v3_metadata_for(
        meta: &ArrayMetadataV3,
        registered: &[String],
        chunk_shape: &[u64],
    ) -> Result<CodecPipeline> {
        let data_type = DataType::from_v3(&meta.data_type)
            .map_err(|e| ZomError::invalid_metadata(format!("data_type: {e}")))?;
        let fill = FillValue::from_v3(&data_type, &meta.fill_value)
            .map_err(|e| ZomError::invalid_metadata(format!("fill_value: {e}")))?;
        let (codecs, external) = super::external::split_v3(&meta.codecs, registered)?;
        Ok(Self::from_v3(&codecs, &data_type, chunk_shape, &fill)?.with_external(external))
    }

    /// Builds the pipeline of a v2 array from its `.zarray` (filters, compressor, order and
    /// the dtype's byte order).
    pub fn from_v2_metadata(meta: &ArrayMetadataV2) -> Result<CodecPipeline> {
        Self::from_v2_metadata_with(meta, &[])
    }

    /// [`CodecPipeline::from_v2_metadata`] for a caller that applies the codecs named
    /// `registered` itself (numcodecs ids), as [`CodecPipeline::from_v3_metadata_with`].
    pub fn from_v2_metadata_with(
        meta: &ArrayMetadataV2,
        registered: &[String],
    ) -> Result<CodecPipeline> {
        let (meta, external) = super::external::split_v2(meta, registered)?;
        Ok(super::v2::from_v2(&meta)?.with_external(external))
    }
}
