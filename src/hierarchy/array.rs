//! An opened array: its chunk layout, its codec pipeline and its fill value, checked once when
//! opened, so that an unknown codec is reported before any chunk is read.

use super::indexes::{ShardIndexes, DEFAULT_INDEX_CACHE_BYTES};
use crate::chunk::{ArrayLayout, DimSelection, Selection};
use crate::codec::{CodecPipeline, DecodedChunk, Limits};
use crate::dtype::{DataType, FillValue};
use crate::error::{ErrorCode, Result, ZomError};
use crate::model::{Array, Node};

/// Decoded values of a region of an array, in C order.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkValues {
    /// The region's shape.
    pub shape: Vec<u64>,
    /// Its values: little-endian element bytes, or strings, or byte strings.
    pub data: DecodedChunk,
}

/// An array ready to decode chunks, with the shard indexes its reads have fetched.
#[derive(Debug)]
pub struct ArrayReader {
    layout: ArrayLayout,
    pipeline: CodecPipeline,
    data_type: DataType,
    shape: Vec<u64>,
    indexes: ShardIndexes,
}

impl ArrayReader {
    /// Opens an array node at node path `path`. Unknown codecs, data types and invalid
    /// configurations are refused here, with the path.
    pub fn open(array: &Array, path: &str) -> Result<Self> {
        Self::open_with_limits(array, path, Limits::default())
    }

    /// Like [`ArrayReader::open`], with decoding limits.
    pub fn open_with_limits(array: &Array, path: &str, limits: Limits) -> Result<Self> {
        Self::open_with_extensions(array, path, limits, &[])
    }

    /// Like [`ArrayReader::open_with_limits`], for a caller that implements the extensions
    /// named in `understood`. Any other extension a v3 document says readers must understand
    /// (an unknown key, storage transformer or ZEP 10 extension without
    /// `"must_understand": false`) is refused with
    /// [`ErrorCode::UnsupportedExtension`], as [`crate::validate::reader_refusal`] decides.
    pub fn open_with_extensions(
        array: &Array,
        path: &str,
        limits: Limits,
        understood: &[String],
    ) -> Result<Self> {
        Self::open_with_codecs(array, path, limits, understood, &[])
    }

    /// Like [`ArrayReader::open_with_extensions`], for a caller that also applies the codecs
    /// named `registered` itself: the array's trailing run of them is left to the read's
    /// [`ExternalCodecs`](super::ExternalCodecs)
    /// ([`CodecPipeline::from_v3_metadata_with`]).
    pub fn open_with_codecs(
        array: &Array,
        path: &str,
        limits: Limits,
        understood: &[String],
        registered: &[String],
    ) -> Result<Self> {
        if let Some(refusal) = Self::refusal(array, understood) {
            return Err(refusal.at_path(path.trim_matches('/')));
        }
        Self::open_unchecked(array, path, limits, registered)
    }

    /// Why a reader that implements the extensions `understood` must refuse `array` (see
    /// [`ArrayReader::open_with_extensions`]), or `None`.
    pub fn refusal(array: &Array, understood: &[String]) -> Option<ZomError> {
        match array {
            Array::V3(meta) => match meta.to_value() {
                serde_json::Value::Object(doc) => crate::validate::reader_refusal(&doc, understood),
                _ => None,
            },
            Array::V2(_) => None,
        }
    }

    /// Opens without the `must_understand` check, for an array whose refusal was decided
    /// already: a decode worker's (its calling thread opened it), or one reopened under
    /// other limits; `registered` as for [`ArrayReader::open_with_codecs`].
    pub(crate) fn open_unchecked(
        array: &Array,
        path: &str,
        limits: Limits,
        registered: &[String],
    ) -> Result<Self> {
        let path = path.trim_matches('/');
        let build = || -> Result<Self> {
            let (layout, pipeline, data_type, shape) = match array {
                Array::V3(meta) => {
                    let data_type = DataType::from_v3(&meta.data_type)
                        .map_err(|e| ZomError::invalid_metadata(format!("data_type: {e}")))?;
                    (
                        ArrayLayout::from_v3(meta, path)?,
                        CodecPipeline::from_v3_metadata_with(meta, registered)?,
                        data_type,
                        meta.shape.clone(),
                    )
                }
                Array::V2(a) => {
                    let meta = &a.metadata;
                    // The pipeline reads the dtype with its object codec (vlen-array's
                    // item type is in its configuration): one reading of it.
                    let pipeline = CodecPipeline::from_v2_metadata_with(meta, registered)?;
                    let data_type = pipeline.decoded_repr().data_type.clone();
                    (
                        ArrayLayout::from_v2(meta, path)?,
                        pipeline,
                        data_type,
                        meta.shape.clone(),
                    )
                }
            };
            Ok(ArrayReader {
                layout,
                pipeline: pipeline.with_limits(limits),
                data_type,
                shape,
                indexes: ShardIndexes::new(DEFAULT_INDEX_CACHE_BYTES),
            })
        };
        build().map_err(|e| e.at_path(path))
    }

    /// Opens the array at `path` inside a ZOM tree.
    pub fn open_in(root: &Node, path: &str) -> Result<Self> {
        match root.get(path) {
            Some(Node::Array(array)) => Self::open(array, path),
            Some(Node::Group(_)) => Err(ZomError::new(
                ErrorCode::NotFound,
                format!("'{path}' is a group, not an array"),
            )
            .at_path(path)),
            None => Err(
                ZomError::new(ErrorCode::NotFound, format!("no node at '{path}'")).at_path(path),
            ),
        }
    }

    /// The array's data type.
    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The chunk layout (grid, key encoding, path).
    pub fn layout(&self) -> &ArrayLayout {
        &self.layout
    }

    /// The codec pipeline.
    pub fn pipeline(&self) -> &CodecPipeline {
        &self.pipeline
    }

    /// The shape of the chunks reads are made of, as zarr-python's `Array.chunks` gives it:
    /// for a sharded array (exactly one `sharding_indexed` codec) the inner chunk shape,
    /// otherwise the chunk grid's chunk shape.
    pub fn read_chunk_shape(&self) -> &[u64] {
        match self.pipeline.sharding() {
            Some(sharding) => sharding.inner_chunk_shape(),
            None => self.layout.grid.chunk_shape(),
        }
    }

    /// The shard shape of a sharded array (zarr-python's `Array.shards`), else `None`.
    pub fn shard_shape(&self) -> Option<&[u64]> {
        self.pipeline
            .sharding()
            .map(|_| self.layout.grid.chunk_shape())
    }

    /// The shard indexes this array's reads have fetched, shared by all of them (see
    /// [`ShardIndexes`]).
    pub fn shard_indexes(&self) -> &ShardIndexes {
        &self.indexes
    }

    /// The array with its shard index cache bounded by `max_bytes` (default
    /// [`DEFAULT_INDEX_CACHE_BYTES`]; 0 keeps none), emptied.
    pub fn with_index_cache(mut self, max_bytes: u64) -> Self {
        self.indexes = ShardIndexes::new(max_bytes);
        self
    }

    /// The fill value.
    pub fn fill_value(&self) -> &FillValue {
        self.pipeline.fill_value()
    }

    /// The store key of the chunk at `coords`.
    pub fn chunk_key(&self, coords: &[u64]) -> Result<String> {
        self.layout
            .chunk_key(coords)
            .map_err(|e| self.locate(e, None))
    }

    fn locate(&self, error: ZomError, key: Option<&str>) -> ZomError {
        let error = error.at_path(self.layout.path.clone());
        match key {
            Some(k) => error.at_key(k),
            None => error,
        }
    }

    /// Decodes the chunk at `coords` from its stored bytes (`None`: the chunk is missing and
    /// reads as the fill value). An edge chunk is cut to the part inside the array.
    pub fn decode_chunk(&self, coords: &[u64], bytes: Option<&[u8]>) -> Result<ChunkValues> {
        let key = self
            .layout
            .chunk_key(coords)
            .map_err(|e| self.locate(e, None))?;
        let run = || -> Result<ChunkValues> {
            let region = self.layout.grid.chunk_region(coords)?;
            if let (Some(step), Some(_)) = (self.pipeline.external().first(), bytes) {
                return Err(ZomError::new(
                    ErrorCode::UnknownCodec,
                    format!(
                        "codec '{}' is registered: chunks of this array decode through a read \
                         (get, getChunk), which applies it",
                        step.name
                    ),
                ));
            }
            let full = match bytes {
                Some(b) => self.pipeline.decode(b)?,
                None => self.pipeline.fill_chunk()?,
            };
            let chunk_shape = self.layout.grid.chunk_shape();
            if region.shape.as_slice() == chunk_shape {
                return Ok(ChunkValues {
                    shape: region.shape,
                    data: full,
                });
            }
            self.crop(&region.start, &region.shape, full)
        };
        run().map_err(|e| self.locate(e, Some(&key)))
    }

    /// Keeps the part of a full decoded chunk that lies inside the array.
    fn crop(&self, start: &[u64], shape: &[u64], full: DecodedChunk) -> Result<ChunkValues> {
        let to_i64 = |v: u64| i64::try_from(v).map_err(|_| too_large());
        let mut dims = Vec::with_capacity(start.len());
        for (&s, &n) in start.iter().zip(shape) {
            dims.push(DimSelection::slice(
                Some(to_i64(s)?),
                Some(to_i64(s.saturating_add(n))?),
                None,
            ));
        }
        let selection = Selection(dims);
        let plan = self.layout.plan(&selection)?;
        let mut chunks = plan.chunks();
        let read = match chunks.next() {
            Some(read) => read?,
            None => {
                return Ok(ChunkValues {
                    shape: shape.to_vec(),
                    data: empty_like(&full),
                })
            }
        };
        let limit = self.pipeline.limits().max_chunk_bytes;
        let data = match full {
            DecodedChunk::Fixed(bytes) => {
                let item = self.data_type.fixed_size().unwrap_or(1);
                let mut out = plan.allocate_output(item, limit)?;
                read.copy_into(&mut out, item, &bytes)?;
                DecodedChunk::Fixed(out)
            }
            DecodedChunk::Strings(values) => {
                let mut out = plan.allocate_elements(String::new(), limit)?;
                read.copy_elements_into(&mut out, &values)?;
                DecodedChunk::Strings(out)
            }
            DecodedChunk::Bytes(values) => {
                let mut out = plan.allocate_elements(Vec::new(), limit)?;
                read.copy_elements_into(&mut out, &values)?;
                DecodedChunk::Bytes(out)
            }
            DecodedChunk::Json(values) => {
                let mut out = plan.allocate_elements(serde_json::Value::Null, limit)?;
                read.copy_elements_into(&mut out, &values)?;
                DecodedChunk::Json(out)
            }
        };
        Ok(ChunkValues {
            shape: shape.to_vec(),
            data,
        })
    }
}

fn too_large() -> ZomError {
    ZomError::new(
        ErrorCode::LimitExceeded,
        "array dimension beyond 2^63 elements",
    )
}

fn empty_like(chunk: &DecodedChunk) -> DecodedChunk {
    match chunk {
        DecodedChunk::Fixed(_) => DecodedChunk::Fixed(Vec::new()),
        DecodedChunk::Strings(_) => DecodedChunk::Strings(Vec::new()),
        DecodedChunk::Bytes(_) => DecodedChunk::Bytes(Vec::new()),
        DecodedChunk::Json(_) => DecodedChunk::Json(Vec::new()),
    }
}
