//! Chunk decoding without a store: [`ChunkDecoder`] opens an array from its metadata and
//! decodes the chunks the caller fetched itself.

use super::json_text::json_input_with;
use super::options::{DecoderOptions, Understood};
use super::{fail, limits, values, JsResult};
use crate::error::ZomError;
use crate::hierarchy::ArrayReader;
use crate::model::Node;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

fn array_input(
    meta: &JsValue,
    path: &str,
    limits: crate::Limits,
    understood: &Understood,
) -> Result<ArrayReader, JsValue> {
    match json_input_with(meta, &limits).and_then(|v| Node::from_value(&v).map_err(fail))? {
        Node::Array(array) => {
            let Understood { extensions, codecs } = understood;
            ArrayReader::open_with_codecs(&array, path, limits, extensions, codecs).map_err(fail)
        }
        Node::Group(_) => Err(fail(ZomError::invalid_argument(
            "array metadata expected (a zarr.json of an array, a .zarray, or an array ZOM node)",
        ))),
    }
}

fn coords_input(coords: &[f64]) -> Result<Vec<u64>, JsValue> {
    super::convert::chunk_coords(coords.iter().copied()).map_err(fail)
}

/// An array opened for decoding: its codecs are checked once, then chunks decode.
#[wasm_bindgen]
pub struct ChunkDecoder {
    reader: ArrayReader,
}

#[wasm_bindgen]
impl ChunkDecoder {
    /// Opens an array from its metadata (`zarr.json` of an array, `.zarray`, or a ZOM array
    /// node); `path` is its node path, used in errors and chunk keys. Options: `limits`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        meta: JsValue,
        path: Option<String>,
        options: JsValue,
    ) -> Result<ChunkDecoder, JsValue> {
        let options = DecoderOptions::read(&options).map_err(fail)?;
        Ok(ChunkDecoder {
            reader: array_input(
                &meta,
                path.as_deref().unwrap_or(""),
                options.limits.over(limits::current()),
                &options.understood,
            )?,
        })
    }

    /// Decodes the chunk at `coords` from its bytes (`null`/`undefined`: missing, read as the
    /// fill value): `{shape, kind, bytes}` or `{shape, kind: "values", values}`. Numeric
    /// values go straight into `out` when it has their exact length (then `bytes` is `out`).
    pub fn decode(
        &self,
        bytes: Option<Vec<u8>>,
        coords: Vec<f64>,
        out: Option<Uint8Array>,
    ) -> JsResult {
        let coords = coords_input(&coords)?;
        let chunk = self
            .reader
            .decode_chunk(&coords, bytes.as_deref())
            .map_err(fail)?;
        values::chunk_to_js(self.reader.data_type(), chunk, out.as_ref(), false).map_err(fail)
    }

    /// The store key of the chunk at `coords`, relative to the store root.
    #[wasm_bindgen(js_name = chunkKey)]
    pub fn chunk_key(&self, coords: Vec<f64>) -> Result<String, JsValue> {
        self.reader.chunk_key(&coords_input(&coords)?).map_err(fail)
    }

    /// The array's shape.
    #[wasm_bindgen(getter)]
    pub fn shape(&self) -> Vec<f64> {
        self.reader.shape().iter().map(|&n| n as f64).collect()
    }

    /// The shape of a (stored) chunk; for a sharded array, of a shard. On a rectilinear grid
    /// whose chunks differ in shape, the first chunk's (`decode` cuts each to its own).
    #[wasm_bindgen(getter, js_name = chunkShape)]
    pub fn chunk_shape(&self) -> Vec<f64> {
        let grid = &self.reader.layout().grid;
        grid.first_chunk_shape().iter().map(|&n| n as f64).collect()
    }

    /// The number of chunks along each dimension.
    #[wasm_bindgen(getter, js_name = gridShape)]
    pub fn grid_shape(&self) -> Vec<f64> {
        self.reader
            .layout()
            .grid
            .grid_shape()
            .iter()
            .map(|&n| n as f64)
            .collect()
    }

    /// The data type in its v3 JSON form.
    #[wasm_bindgen(getter, js_name = dataType)]
    pub fn data_type(&self) -> JsValue {
        super::convert::to_js(&self.reader.data_type().to_v3().to_value())
    }
}

/// float16 element bytes as float32 values, for runtimes without `Float16Array`.
#[wasm_bindgen(js_name = float16ToFloat32)]
pub fn float16_to_float32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect()
}
