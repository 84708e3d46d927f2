//! The Rust side of the worker pool (ts/pool/): the decode hook the main instance's reader
//! hands chunks to, and the decoder each worker's instance runs.
//!
//! Main thread: [`JsDecodeHook`] wraps the JS object ts/read/array.ts passes as the `decodeHook`
//! read option (fixed-size values): `share(len, fill, decodes)` makes the read's output (a
//! SharedArrayBuffer where it can be shared with the workers and the read decodes more than
//! one chunk, else an ArrayBuffer), every element set to `fill`; `decode(inner, ptr, len,
//! placement)` copies the encoded chunk out of this instance's memory (its bytes at `ptr`, of
//! [`wasm_memory`]), has a worker decode it and gives a Promise that settles once the chunk's
//! selected elements are in the output, where [`ChunkRead::placement`] says (copied there by
//! the worker when the output is shared, else by the main thread from the decoded chunk the
//! worker transferred back), with the whole decoded chunk's bytes when the read has a chunk
//! cache (which keeps them); `place(ptr, len, placement)` copies a cached chunk (in this
//! instance's memory) into the output the same way; `output()` gives the output's bytes for
//! values that become JS values here (structs, fixed-length strings, raw bytes), which are not
//! numbers JS can view in place. Worker: [`PoolDecoder`] opens the array from the same
//! metadata and decodes one chunk per call.

use super::fail;
use super::options::{DecodeHookFns, LimitsSet};
use super::store::thrown_to_error;
use super::values::numeric_kind;
use crate::chunk::ChunkRead;
use crate::codec::DecodedChunk;
use crate::dtype::DataType;
use crate::error::{ErrorCode, Result, ZomError};
use crate::hierarchy::{ArrayReader, ChunkPart, ChunkValues, DecodeHook};
use crate::json;
use crate::limits::{Limit, Limits};
use crate::model::Node;
use js_sys::{Float64Array, Function, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The JS side of the pool for one read (ts/pool/).
pub(super) struct JsDecodeHook {
    target: JsValue,
    share: Function,
    decode: Function,
    place: Function,
    output: Function,
    /// Whether the array's chunks differ in shape (a rectilinear grid): the workers are then
    /// told each chunk's.
    shaped: bool,
}

impl JsDecodeHook {
    /// The hook of a read: the read option `decodeHook` (with every method), when the array's
    /// values are fixed-size (variable-length values decode on the calling thread).
    pub(super) fn of(hook: DecodeHookFns, reader: &ArrayReader) -> Option<JsDecodeHook> {
        reader.data_type().fixed_size().filter(|&s| s > 0)?;
        Some(JsDecodeHook {
            share: hook.share,
            decode: hook.decode,
            place: hook.place,
            output: hook.output,
            target: hook.target,
            shaped: reader.layout().grid.regular_chunk_shape().is_none(),
        })
    }
}

/// Where `bytes` lie in this instance's memory, as JS numbers: the hook views them there
/// itself when it copies them. A view made here and handed over as a value could be stale on
/// arrival: handing over a new JS value may allocate in this memory (wasm-bindgen's table of
/// JS values), and a memory that grows detaches every view of its old buffer.
fn location(bytes: &[u8]) -> (JsValue, JsValue) {
    // WebAssembly addresses are 32-bit; the bytes lie inside the memory.
    let ptr = bytes.as_ptr() as usize as f64;
    (
        JsValue::from_f64(ptr),
        JsValue::from_f64(bytes.len() as f64),
    )
}

/// This instance's `WebAssembly.Memory`, for the JS that views bytes at the locations the
/// core gives (the decode hook, the workers): its `buffer` at the moment of the copy.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

impl JsDecodeHook {
    /// For values that become JS values here (not numbers: JS views those where the hook
    /// keeps them), the bytes of the hook's output in place of the none the read gave.
    pub(super) fn values(&self, data_type: &DataType, values: &mut ChunkValues) -> Result<()> {
        if numeric_kind(data_type).is_none() {
            let out = self
                .output
                .call0(&self.target)
                .map_err(|e| hook_error(&e))?;
            values.data = DecodedChunk::Fixed(out.unchecked_into::<Uint8Array>().to_vec());
        }
        Ok(())
    }
}

fn hook_error(thrown: &JsValue) -> ZomError {
    let mut error = thrown_to_error(thrown, "decode", "");
    // The reader locates it at the chunk's key.
    error.key = None;
    error
}

impl DecodeHook for JsDecodeHook {
    fn share(&self, len: u64, fill: &[u8], decodes: u64) -> Result<()> {
        self.share
            .call3(
                &self.target,
                &JsValue::from_f64(len as f64),
                &Uint8Array::from(fill),
                &JsValue::from_f64(decodes as f64),
            )
            .map_err(|e| hook_error(&e))?;
        Ok(())
    }

    async fn decode(&self, encoded: &[u8], part: ChunkPart, read: &ChunkRead) -> Result<()> {
        self.run(encoded, part, read).await.map(|_| ())
    }

    async fn decode_keep(
        &self,
        encoded: &[u8],
        part: ChunkPart,
        read: &ChunkRead,
    ) -> Result<Option<Vec<u8>>> {
        // `bytes_of`, the module's one reader of JS bytes (a Uint8Array here; undefined
        // without a cache).
        Ok(super::convert::bytes_of(
            &self.run(encoded, part, read).await?,
        ))
    }

    fn place(&self, decoded: &[u8], read: &ChunkRead) -> Result<()> {
        let placement = Float64Array::from(read.placement()?.as_slice());
        let (ptr, len) = location(decoded);
        self.place
            .call3(&self.target, &ptr, &len, &placement)
            .map_err(|e| hook_error(&e))?;
        Ok(())
    }
}

impl JsDecodeHook {
    /// Calls the hook's `decode` and awaits what it resolves with: the decoded chunk when
    /// the read has a cache.
    async fn run(&self, encoded: &[u8], part: ChunkPart, read: &ChunkRead) -> Result<JsValue> {
        let inner = JsValue::from_bool(part == ChunkPart::Inner);
        let placement = Float64Array::from(read.placement()?.as_slice());
        let shape = match self.shaped && part == ChunkPart::Chunk {
            true => {
                let dims: Vec<f64> = read.chunk_shape.iter().map(|&n| n as f64).collect();
                Float64Array::from(dims.as_slice()).into()
            }
            false => JsValue::UNDEFINED,
        };
        let (ptr, len) = location(encoded);
        // The hook copies the bytes out before anything else runs here.
        let returned = self
            .decode
            .call5(&self.target, &inner, &ptr, &len, &placement, &shape)
            .map_err(|e| hook_error(&e))?;
        JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(|e| hook_error(&e))
    }
}

/// A worker's decoder of one array's chunks: whole chunks with the array's codec pipeline,
/// inner chunks of shards with the sharding codec's inner pipeline. The decoded bytes are
/// written into one buffer reused between calls, then copied out once by the worker
/// (at [`PoolDecoder::ptr`]).
#[wasm_bindgen]
pub struct PoolDecoder {
    reader: ArrayReader,
    scratch: Vec<u8>,
}

#[wasm_bindgen]
impl PoolDecoder {
    /// Opens the array from its ZOM node as JSON text (what ArrayHandle.metadataJson gives)
    /// under the array's limits (what ArrayHandle.limits gives); `path` is its node path, used
    /// in errors; `codecs`, the registered codecs, split off the array's pipeline as on the
    /// calling thread (their steps are applied there).
    #[wasm_bindgen(constructor)]
    pub fn new(
        zom_json: &str,
        path: &str,
        limits: JsValue,
        codecs: Vec<String>,
    ) -> std::result::Result<PoolDecoder, JsValue> {
        let open = || -> Result<ArrayReader> {
            let limits = LimitsSet::of(&limits)?.over(Limits::DEFAULT);
            let value = json::parse_document(zom_json.as_bytes(), &Limits::DEFAULT)?;
            match Node::from_value(&value)? {
                Node::Array(array) => ArrayReader::open_unchecked(&array, path, limits, &codecs),
                Node::Group(_) => Err(ZomError::invalid_argument("array metadata expected")),
            }
        };
        Ok(PoolDecoder {
            reader: open().map_err(fail)?,
            scratch: Vec::new(),
        })
    }

    /// Decodes a chunk's stored bytes (`inner`: an inner chunk of a shard) into a whole
    /// chunk's element bytes, C order, kept until the next call: returns their length.
    /// `shape`: the chunk's shape, for an array whose chunks differ in shape (a rectilinear
    /// grid), else none.
    pub fn decode(
        &mut self,
        bytes: &[u8],
        inner: bool,
        shape: Option<Vec<f64>>,
    ) -> std::result::Result<usize, JsValue> {
        let shape = shape
            .map(super::convert::chunk_coords)
            .transpose()
            .map_err(fail)?;
        let run = |scratch: &mut Vec<u8>| -> Result<usize> {
            let chunk_shape =
                shape.unwrap_or_else(|| self.reader.layout().grid.first_chunk_shape());
            let shaped = self.reader.pipeline_for(&chunk_shape)?;
            let (pipeline, shape) = if inner {
                let sharding = self.reader.pipeline().sharding().ok_or_else(|| {
                    ZomError::invalid_argument("an inner chunk of an array without shards")
                })?;
                (sharding.inner_pipeline(), sharding.inner_chunk_shape())
            } else {
                (shaped.as_ref(), chunk_shape.as_slice())
            };
            let item = self
                .reader
                .data_type()
                .fixed_size()
                .filter(|&s| s > 0)
                .ok_or_else(|| ZomError::invalid_argument("a data type without element size"))?;
            let len = crate::chunk::checked_product(shape, "the chunk shape")?
                .checked_mul(item)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| ZomError::new(ErrorCode::LimitExceeded, "the chunk is too large"))?;
            pipeline.limits().check(
                Limit::ChunkBytes,
                u64::try_from(len).unwrap_or(u64::MAX),
                "a decoded chunk's size in bytes",
            )?;
            // Only grown, never cleared: decode_into overwrites every byte.
            scratch.resize(len, 0);
            pipeline.decode_into(bytes, scratch)?;
            Ok(len)
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = run(&mut scratch);
        self.scratch = scratch;
        result.map_err(|e| fail(e.at_path(self.reader.layout().path.clone())))
    }

    /// Where the last decoded chunk lies in this instance's memory (its length is what
    /// `decode` returned): the worker views it there (`wasmMemory().buffer`) and copies it out
    /// before its next call into the instance.
    pub fn ptr(&self) -> f64 {
        self.scratch.as_ptr() as usize as f64
    }

    /// The size of this instance's memory in bytes: what the worker holds for good (a
    /// WebAssembly memory never shrinks), so that the pool can replace a worker a large chunk
    /// made large.
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        (core::arch::wasm32::memory_size::<0>() as f64) * 65536.0
    }
}
