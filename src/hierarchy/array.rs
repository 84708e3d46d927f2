//! An opened array: its chunk layout, its codec pipeline and its fill value, checked once when
//! opened, so that an unknown codec is reported before any chunk is read.

use super::indexes::{ShardIndexes, DEFAULT_INDEX_CACHE_BYTES};
use crate::chunk::{ArrayLayout, ChunkGrid, DimSelection, Selection};
use crate::codec::{CodecPipeline, DecodedChunk, Limits};
use crate::document::v3::ArrayMetadataV3;
use crate::dtype::{DataType, FillValue};
use crate::error::{ErrorCode, Result, ZomError};
use crate::model::{Array, Node};
use std::sync::{Arc, Mutex};

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
    /// The pipeline of the grid's first chunk shape (of every chunk, for a regular grid).
    pipeline: Arc<CodecPipeline>,
    /// The other chunk shapes' pipelines, for a grid whose chunks differ in shape.
    shaped: Option<ShapedPipelines>,
    data_type: DataType,
    shape: Vec<u64>,
    indexes: ShardIndexes,
}

/// The codec pipelines of an array whose chunks differ in shape (a rectilinear grid with
/// explicit edges): one per chunk shape, built from the metadata when a read first meets it,
/// the most recent few kept.
#[derive(Debug)]
struct ShapedPipelines {
    meta: ArrayMetadataV3,
    registered: Vec<String>,
    built: Mutex<Vec<Arc<CodecPipeline>>>,
}

/// How many chunk shapes' pipelines an array keeps besides its first.
const SHAPED_PIPELINES: usize = 16;

impl ShapedPipelines {
    fn get(&self, shape: &[u64], limits: Limits) -> Result<Arc<CodecPipeline>> {
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = built.iter().find(|p| p.decoded_repr().shape == shape) {
            return Ok(found.clone());
        }
        let pipeline = Arc::new(
            CodecPipeline::from_v3_metadata_for(&self.meta, &self.registered, shape)?
                .with_limits(limits),
        );
        if built.len() >= SHAPED_PIPELINES {
            built.remove(0);
        }
        built.push(pipeline.clone());
        Ok(pipeline)
    }
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
            let (layout, pipeline, data_type, shape, shaped) = match array {
                Array::V3(meta) => {
                    let data_type = DataType::from_v3(&meta.data_type)
                        .map_err(|e| ZomError::invalid_metadata(format!("data_type: {e}")))?;
                    let layout = ArrayLayout::from_v3(meta, path)?;
                    let first = layout.grid.first_chunk_shape();
                    let pipeline = CodecPipeline::from_v3_metadata_for(meta, registered, &first)?;
                    let shaped = match layout.grid.regular_chunk_shape() {
                        Some(_) => None,
                        None => {
                            check_shard_edges(&layout.grid, &pipeline)?;
                            Some(ShapedPipelines {
                                meta: meta.as_ref().clone(),
                                registered: registered.to_vec(),
                                built: Mutex::new(Vec::new()),
                            })
                        }
                    };
                    (layout, pipeline, data_type, meta.shape.clone(), shaped)
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
                        None,
                    )
                }
            };
            Ok(ArrayReader {
                layout,
                pipeline: Arc::new(pipeline.with_limits(limits)),
                shaped,
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

    /// The codec pipeline of the grid's first chunk, which is every chunk's for a regular
    /// grid: what the array's codecs are ([`ArrayReader::pipeline_for`] decodes a chunk).
    pub fn pipeline(&self) -> &CodecPipeline {
        &self.pipeline
    }

    /// The codec pipeline that decodes a stored chunk of `chunk_shape` (chunks of a
    /// rectilinear grid differ in shape, and the codecs depend on it).
    pub fn pipeline_for(&self, chunk_shape: &[u64]) -> Result<Arc<CodecPipeline>> {
        match &self.shaped {
            Some(shaped) if self.pipeline.decoded_repr().shape != chunk_shape => shaped
                .get(chunk_shape, *self.pipeline.limits())
                .map_err(|e| e.at_path(self.layout.path.clone())),
            _ => Ok(self.pipeline.clone()),
        }
    }

    /// The grid of the chunks reads are made of, as zarr-python's `read_chunk_sizes` gives
    /// it: for a sharded array (exactly one `sharding_indexed` codec) the regular grid of
    /// inner chunks, otherwise the array's chunk grid.
    pub fn read_grid(&self) -> Result<ChunkGrid> {
        match self.pipeline.sharding() {
            Some(sharding) => ChunkGrid::new(&self.shape, sharding.inner_chunk_shape()),
            None => Ok(self.layout.grid.clone()),
        }
    }

    /// The shape of the chunks reads are made of, as zarr-python's `Array.chunks` gives it:
    /// for a sharded array the inner chunk shape, otherwise the chunk grid's chunk shape;
    /// `None` when the chunks differ in shape (see [`ArrayReader::read_grid`]).
    pub fn read_chunk_shape(&self) -> Option<&[u64]> {
        match self.pipeline.sharding() {
            Some(sharding) => Some(sharding.inner_chunk_shape()),
            None => self.layout.grid.regular_chunk_shape(),
        }
    }

    /// The shard shape of a sharded array on a regular grid (zarr-python's `Array.shards`),
    /// else `None`.
    pub fn shard_shape(&self) -> Option<&[u64]> {
        self.pipeline
            .sharding()
            .and(self.layout.grid.regular_chunk_shape())
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
            let chunk_shape = self.layout.grid.chunk_shape_at(coords)?;
            let pipeline = self.pipeline_for(&chunk_shape)?;
            let full = match bytes {
                Some(b) => pipeline.decode(b)?,
                None => pipeline.fill_chunk()?,
            };
            if region.shape == chunk_shape {
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

/// Refuses a sharded array on a grid whose shard edges are not whole multiples of the inner
/// chunk length: the shards' inner grids would not line up.
fn check_shard_edges(grid: &ChunkGrid, pipeline: &CodecPipeline) -> Result<()> {
    let Some(sharding) = pipeline.sharding() else {
        return Ok(());
    };
    for (dim, &inner) in sharding.inner_chunk_shape().iter().enumerate() {
        let Some(axis) = grid.axis(dim) else {
            continue;
        };
        let count = axis.count(grid.shape()[dim]);
        let mut c = 0;
        while c < count {
            let len = axis.len(c)?;
            if inner == 0 || len % inner != 0 {
                return Err(ZomError::invalid_metadata(format!(
                    "shard {c} of dimension {dim} is {len} long, not a multiple of the inner chunk length {inner}"
                )));
            }
            c = axis.next_run(c);
        }
    }
    Ok(())
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
