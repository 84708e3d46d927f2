//! The Rust side of the worker pool (ts/pool/): the decode hook the main instance's reader
//! hands chunks to, and the decoder each worker's instance runs.
//!
//! Main thread: [`JsDecodeHook`] wraps the JS object ts/array.ts passes as the `decodeHook`
//! read option: `buffer(n)` lends a Uint8Array of n bytes (recycled, so that no fresh memory
//! is touched per chunk) which the encoded chunk is copied into, `decode(inner, bytes)`
//! transfers it to a worker and gives a Promise of the decoded chunk, and `recycle(bytes)`
//! takes the decoded chunk back once the reader (crate::hierarchy) has assembled it. With
//! `share(len, fill)` (numeric values; ts/array.ts answers true where a SharedArrayBuffer can
//! be shared with the workers) the output is that buffer instead: `decode(inner, bytes,
//! placement)` then has the worker copy the chunk's selected elements straight into it, as
//! [`ChunkRead::placement`] says, and nothing comes back. Worker: [`PoolDecoder`] opens the
//! array from the same metadata and decodes one chunk per call.

use super::fail;
use super::limits;
use super::store::thrown_to_error;
use super::values::numeric_kind;
use crate::chunk::ChunkRead;
use crate::error::{ErrorCode, Result, ZomError};
use crate::hierarchy::{ArrayReader, ChunkPart, DecodeHook};
use crate::json;
use crate::limits::{Limit, Limits};
use crate::model::Node;
use js_sys::{Float64Array, Function, Promise, Uint8Array, WebAssembly};
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The JS side of the pool for one read (ts/pool/).
pub(super) struct JsDecodeHook {
    target: JsValue,
    buffer: Function,
    decode: Function,
    recycle: Function,
    /// `share(len, fill)`, when the read may keep its output in a SharedArrayBuffer (numeric
    /// values only: other fixed-size values become JS objects here, from the output's bytes).
    share: Option<Function>,
    /// The element size, and whether the output is shared (then each decode is given the
    /// placement of its chunk).
    item: u64,
    shared: Cell<bool>,
}

impl JsDecodeHook {
    /// The hook of a read: `options.decodeHook` when it has the three methods and the array's
    /// values are fixed-size (variable-length values decode on the calling thread).
    pub(super) fn of(options: &JsValue, reader: &ArrayReader) -> Option<JsDecodeHook> {
        let item = reader.data_type().fixed_size().filter(|&s| s > 0)?;
        let target = super::option(options, "decodeHook");
        let method = |name: &str| super::option(&target, name).dyn_into::<Function>().ok();
        Some(JsDecodeHook {
            buffer: method("buffer")?,
            decode: method("decode")?,
            recycle: method("recycle")?,
            share: method("share").filter(|_| numeric_kind(reader.data_type()).is_some()),
            item,
            shared: Cell::new(false),
            target,
        })
    }
}

fn hook_error(thrown: &JsValue) -> ZomError {
    let mut error = thrown_to_error(thrown, "decode", "");
    // The reader locates it at the chunk's key.
    error.key = None;
    error
}

impl DecodeHook for JsDecodeHook {
    type Decoded = Uint8Array;

    fn share(&self, len: u64, fill: &[u8]) -> Result<bool> {
        let Some(share) = &self.share else {
            return Ok(false);
        };
        let fill = Uint8Array::from(fill);
        let answer = share
            .call2(&self.target, &JsValue::from_f64(len as f64), &fill)
            .map_err(|e| hook_error(&e))?;
        self.shared.set(answer.is_truthy());
        Ok(self.shared.get())
    }

    async fn decode(
        &self,
        encoded: &[u8],
        part: ChunkPart,
        read: &ChunkRead,
    ) -> Result<Uint8Array> {
        let bytes = self
            .buffer
            .call1(&self.target, &JsValue::from_f64(encoded.len() as f64))
            .map_err(|e| hook_error(&e))?
            .dyn_into::<Uint8Array>()
            .ok()
            .filter(|b| b.length() as usize == encoded.len())
            .ok_or_else(|| {
                ZomError::new(
                    ErrorCode::CodecError,
                    "the pool lent a buffer of another size",
                )
            })?;
        bytes.copy_from(encoded);
        let inner = JsValue::from_bool(part == ChunkPart::Inner);
        let placement = if self.shared.get() {
            Float64Array::from(read.placement(self.item)?.as_slice()).into()
        } else {
            JsValue::UNDEFINED
        };
        let returned = self
            .decode
            .call3(&self.target, &inner, &bytes, &placement)
            .map_err(|e| hook_error(&e))?;
        let value = JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(|e| hook_error(&e))?;
        value.dyn_into::<Uint8Array>().map_err(|_| {
            ZomError::new(
                ErrorCode::CodecError,
                "the decode hook must give a Uint8Array",
            )
        })
    }

    fn len(decoded: &Uint8Array) -> usize {
        decoded.length() as usize
    }

    fn copy_to(decoded: &Uint8Array, target: &mut [u8]) -> Result<()> {
        // Uint8Array::copy_to panics on a length mismatch: check first.
        if decoded.length() as usize != target.len() {
            return Err(ZomError::new(
                ErrorCode::CodecError,
                format!(
                    "a chunk decoded to {} bytes; it has {}",
                    decoded.length(),
                    target.len()
                ),
            ));
        }
        decoded.copy_to(target);
        Ok(())
    }

    fn recycle(&self, decoded: Uint8Array) {
        // Nothing to do if it throws: the buffer is then garbage-collected.
        let _ = self.recycle.call1(&self.target, &decoded);
    }
}

/// A worker's decoder of one array's chunks: whole chunks with the array's codec pipeline,
/// inner chunks of shards with the sharding codec's inner pipeline. The decoded bytes are
/// written into one buffer reused between calls, then copied out once by the worker
/// ([`PoolDecoder::view`]).
#[wasm_bindgen]
pub struct PoolDecoder {
    reader: ArrayReader,
    scratch: Vec<u8>,
}

#[wasm_bindgen]
impl PoolDecoder {
    /// Opens the array from its ZOM node as JSON text (what ArrayHandle.metadataJson gives)
    /// under the array's limits (what ArrayHandle.limits gives); `path` is its node path, used
    /// in errors.
    #[wasm_bindgen(constructor)]
    pub fn new(
        zom_json: &str,
        path: &str,
        limits: JsValue,
    ) -> std::result::Result<PoolDecoder, JsValue> {
        let open = || -> Result<ArrayReader> {
            let limits = limits::of_object(&limits)?;
            let value = json::parse_document(zom_json.as_bytes(), &Limits::DEFAULT)?;
            match Node::from_value(&value)? {
                Node::Array(array) => ArrayReader::open_with_limits(&array, path, limits),
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
    pub fn decode(&mut self, bytes: &[u8], inner: bool) -> std::result::Result<usize, JsValue> {
        let run = |scratch: &mut Vec<u8>| -> Result<usize> {
            let (pipeline, shape) = if inner {
                let sharding = self.reader.pipeline().sharding().ok_or_else(|| {
                    ZomError::invalid_argument("an inner chunk of an array without shards")
                })?;
                (sharding.inner_pipeline(), sharding.inner_chunk_shape())
            } else {
                (
                    self.reader.pipeline(),
                    self.reader.layout().grid.chunk_shape(),
                )
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

    /// The last decoded chunk: a view of this instance's memory, valid until the next call
    /// into it (the worker copies it out at once: into the shared output, or a buffer).
    pub fn view(&self) -> Uint8Array {
        let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        // WebAssembly addresses are 32-bit; the scratch lies inside the memory.
        let start = self.scratch.as_ptr() as usize as u32;
        let end = start.saturating_add(self.scratch.len() as u32);
        Uint8Array::new(&memory.buffer()).subarray(start, end)
    }
}
