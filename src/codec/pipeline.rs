//! The codec pipeline of one array: array → array codecs, one array → bytes codec, bytes →
//! bytes codecs, with the chunk representation at every step.

use super::external::ExternalStep;
use super::{
    codec_error, to_usize, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    DecodedChunk, SizeBound,
};
use crate::dtype::{DataType, FillValue};
use crate::error::{Result, ZomError};
use crate::limits::{Limit, Limits};
use std::borrow::Cow;

/// The codecs of one array, ready to decode its chunks.
#[derive(Debug)]
pub struct CodecPipeline {
    /// What a decoded chunk looks like.
    decoded: ChunkRepr,
    /// Array → array codecs in encode order, each with the representation it decodes to.
    a2a: Vec<(Box<dyn ArrayToArrayCodec>, ChunkRepr)>,
    /// The array → bytes codec and the representation it decodes to.
    a2b: Box<dyn ArrayToBytesCodec>,
    a2b_repr: ChunkRepr,
    /// Bytes → bytes codecs in encode order.
    b2b: Vec<Box<dyn BytesToBytesCodec>>,
    /// The fill value of the array.
    fill: FillValue,
    limits: Limits,
    /// Codecs the caller applies to the stored bytes first (see `super::external`).
    external: Vec<ExternalStep>,
}

impl CodecPipeline {
    /// Assembles a pipeline from its codecs (in encode order), checking that each array →
    /// array codec accepts what the previous one produces.
    pub fn new(
        decoded: ChunkRepr,
        a2a: Vec<Box<dyn ArrayToArrayCodec>>,
        a2b: Box<dyn ArrayToBytesCodec>,
        b2b: Vec<Box<dyn BytesToBytesCodec>>,
        fill: FillValue,
    ) -> Result<Self> {
        let mut repr = decoded.clone();
        let mut steps = Vec::with_capacity(a2a.len());
        for codec in a2a {
            let next = codec.encoded_repr(&repr)?;
            steps.push((codec, repr));
            repr = next;
        }
        Ok(CodecPipeline {
            decoded,
            a2a: steps,
            a2b,
            a2b_repr: repr,
            b2b,
            fill,
            limits: Limits::default(),
            external: Vec::new(),
        })
    }

    /// The same pipeline with caller-implemented codecs to apply to stored bytes first.
    pub(crate) fn with_external(mut self, external: Vec<ExternalStep>) -> Self {
        self.external = external;
        self
    }

    /// The codecs the caller implements, applied to a chunk's stored bytes (in this order)
    /// before this pipeline decodes them; empty for most arrays.
    pub fn external(&self) -> &[ExternalStep] {
        &self.external
    }

    /// The same pipeline with other limits (a sharding codec's inner and index pipelines
    /// too).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.set_limits(limits);
        self
    }

    /// Sets the limits of this pipeline and of the pipelines nested in its codecs.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.a2b.set_limits(limits);
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// What a decoded chunk looks like (shape and data type).
    pub fn decoded_repr(&self) -> &ChunkRepr {
        &self.decoded
    }

    /// The array's fill value.
    pub fn fill_value(&self) -> &FillValue {
        &self.fill
    }

    /// The parts of the JS package whose decoders this pipeline calls (LZMA/xz, bzip2,
    /// pcodec: see ARCHITECTURE.md, "Parts"), nested pipelines' included, sorted, each once:
    /// what must be loaded on a thread before it decodes a chunk of the array. Native builds
    /// link those decoders and never call a part.
    #[cfg(feature = "decode")]
    pub fn parts(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        self.collect_parts(&mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Adds the parts this pipeline's codecs call to `out`.
    #[cfg(feature = "decode")]
    pub(crate) fn collect_parts(&self, out: &mut Vec<&'static str>) {
        self.a2b.parts(out);
        for codec in &self.b2b {
            codec.parts(out);
        }
    }

    /// The array → bytes codec, e.g. to reach a sharding codec's partial-read API.
    pub fn array_to_bytes(&self) -> &dyn ArrayToBytesCodec {
        self.a2b.as_ref()
    }

    /// The sharding codec, when the pipeline is exactly one `sharding_indexed` codec (the form
    /// that allows partial reads of a shard).
    pub fn sharding(&self) -> Option<&super::sharding::ShardingCodec> {
        if !self.a2a.is_empty() || !self.b2b.is_empty() {
            return None;
        }
        super::sharding::ShardingCodec::downcast(self.a2b.as_ref())
    }

    /// The exact size of an encoded chunk, when the codecs make it fixed (no compression,
    /// fixed-size data type).
    pub fn encoded_size(&self) -> Result<SizeBound> {
        let mut bound = self.a2b.encoded_size(&self.a2b_repr, &self.limits)?;
        for codec in &self.b2b {
            bound = codec.encoded_bound(bound, &self.limits);
        }
        Ok(bound)
    }

    /// The most bytes a stored chunk can hold: what the codecs can produce from the largest
    /// chunk. None when that is not known here: caller-implemented codecs come first (what
    /// they take is unknown), or the chunk is over the limits (decoding refuses it). Stores are
    /// asked for at most this, so that a value that cannot be a chunk (a zip member declaring
    /// a gigabyte) is refused unread.
    pub fn stored_bound(&self) -> Option<u64> {
        if !self.external.is_empty() {
            return None;
        }
        self.encoded_size().ok().map(SizeBound::max)
    }

    /// Refuses fixed-size chunks over the limit before anything is allocated.
    fn check_limit(&self) -> Result<Option<u64>> {
        let len = self.decoded.fixed_byte_len()?;
        if let Some(len) = len {
            self.limits
                .check(Limit::ChunkBytes, len, "a decoded chunk's size in bytes")?;
        }
        Ok(len)
    }

    /// The bound of the bytes each bytes → bytes codec decodes to, in encode order.
    fn b2b_bounds(&self) -> Result<Vec<SizeBound>> {
        let mut bounds = Vec::with_capacity(self.b2b.len());
        let mut bound = self.a2b.encoded_size(&self.a2b_repr, &self.limits)?;
        for codec in &self.b2b {
            bounds.push(bound);
            bound = codec.encoded_bound(bound, &self.limits);
        }
        Ok(bounds)
    }

    /// Runs the bytes → bytes codecs backwards, skipping the first `skip` (closest to the
    /// array → bytes codec).
    fn decode_bytes<'a>(
        &self,
        input: &'a [u8],
        bounds: &[SizeBound],
        skip: usize,
    ) -> Result<Cow<'a, [u8]>> {
        let mut data: Cow<'a, [u8]> = Cow::Borrowed(input);
        for (codec, bound) in self.b2b.iter().zip(bounds).skip(skip).rev() {
            let out = codec.decode(&data, *bound)?;
            bound.check(out.len(), codec.name())?;
            data = Cow::Owned(out);
        }
        Ok(data)
    }

    /// Decodes the stored bytes of one chunk.
    pub fn decode(&self, input: &[u8]) -> Result<DecodedChunk> {
        self.check_limit()?;
        let bounds = self.b2b_bounds()?;
        let bytes = self.decode_bytes(input, &bounds, 0)?;
        let mut array = self.a2b.decode(&bytes, &self.a2b_repr, &self.limits)?;
        drop(bytes);
        array.check(&self.a2b_repr, self.a2b.name())?;
        for (codec, repr) in self.a2a.iter().rev() {
            array = codec.decode(array, repr)?;
            array.check(repr, codec.name())?;
        }
        Ok(array)
    }

    /// Decodes the stored bytes of one chunk of a fixed-size data type into `out`, which must
    /// be exactly the chunk's byte length. Without array → array codecs, the last decompressor
    /// writes straight into `out` (one copy from the encoded bytes).
    pub fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let len = self
            .check_limit()?
            .ok_or_else(|| ZomError::invalid_argument("decode_into needs a fixed-size type"))?;
        if out.len() as u64 != len {
            return Err(ZomError::invalid_argument(format!(
                "the output buffer has {} bytes, the chunk needs {len}",
                out.len()
            )));
        }
        if !self.a2a.is_empty() {
            return copy_fixed(self.decode(input)?, out);
        }
        let bounds = self.b2b_bounds()?;
        match self.b2b.first() {
            Some(first) if self.a2b.supports_in_place() => {
                let bytes = self.decode_bytes(input, &bounds, 1)?;
                first.decode_into(&bytes, out)?;
                self.a2b.decode_in_place(out, &self.a2b_repr)
            }
            _ => {
                let bytes = self.decode_bytes(input, &bounds, 0)?;
                self.a2b
                    .decode_into(&bytes, &self.a2b_repr, &self.limits, out)
            }
        }
    }

    /// Encodes one chunk (shaped and typed as [`CodecPipeline::decoded_repr`]) into the bytes
    /// a store holds: the array → array codecs, the array → bytes codec, then the bytes →
    /// bytes codecs, in encode order.
    #[cfg(feature = "encode")]
    pub fn encode(&self, chunk: &DecodedChunk) -> Result<Vec<u8>> {
        chunk.check(&self.decoded, "the chunk to encode")?;
        let mut array = std::borrow::Cow::Borrowed(chunk);
        for (codec, repr) in &self.a2a {
            let encoded = codec.encode(array.into_owned(), repr)?;
            array = std::borrow::Cow::Owned(encoded);
        }
        let mut bytes = self.a2b.encode(&array, &self.a2b_repr)?;
        for codec in &self.b2b {
            bytes = codec.encode(&bytes)?;
        }
        Ok(bytes)
    }

    /// A chunk where every element is the fill value (what a missing chunk reads as).
    pub fn fill_chunk(&self) -> Result<DecodedChunk> {
        let len = self.check_limit()?;
        fill_chunk(&self.decoded, &self.fill, len, &self.limits)
    }
}

/// Copies a fixed-size chunk into a buffer of exactly its size.
fn copy_fixed(chunk: DecodedChunk, out: &mut [u8]) -> Result<()> {
    match chunk {
        DecodedChunk::Fixed(bytes) if bytes.len() == out.len() => {
            out.copy_from_slice(&bytes);
            Ok(())
        }
        _ => Err(codec_error("the chunk did not decode to the expected size")),
    }
}

/// The element bytes of a fill value (zeros when the value does not give them).
pub(crate) fn fill_element(data_type: &DataType, fill: &FillValue) -> Result<Vec<u8>> {
    let size = data_type
        .fixed_size()
        .ok_or_else(|| codec_error("a variable-length type has no element bytes"))?;
    match fill.to_element_bytes(data_type) {
        Some(bytes) if bytes.len() as u64 == size => Ok(bytes),
        _ => Ok(vec![0u8; to_usize(size, "an element")?]),
    }
}

/// A chunk of `repr` where every element is `fill`.
pub(crate) fn fill_chunk(
    repr: &ChunkRepr,
    fill: &FillValue,
    byte_len: Option<u64>,
    limits: &Limits,
) -> Result<DecodedChunk> {
    let n = repr.num_elements()?;
    match (&repr.data_type, byte_len) {
        (DataType::String, _) => {
            let value = match fill {
                FillValue::String(s) => s.clone(),
                _ => String::new(),
            };
            check_total(
                slots_bytes(value.len(), std::mem::size_of::<String>(), n),
                limits,
            )?;
            Ok(DecodedChunk::Strings(vec![value; to_usize(n, "a chunk")?]))
        }
        (DataType::Object(_), _) => {
            let value = object_fill(fill);
            check_total(
                slots_bytes(0, std::mem::size_of::<serde_json::Value>(), n),
                limits,
            )?;
            Ok(DecodedChunk::Json(vec![value; to_usize(n, "a chunk")?]))
        }
        // A vlen-array's fill value gives no array: missing elements are empty arrays.
        (DataType::Bytes(_) | DataType::VlenArray { .. }, _) => {
            let value = match fill {
                FillValue::Bytes(b) => b.clone(),
                _ => Vec::new(),
            };
            check_total(
                slots_bytes(value.len(), std::mem::size_of::<Vec<u8>>(), n),
                limits,
            )?;
            Ok(DecodedChunk::Bytes(vec![value; to_usize(n, "a chunk")?]))
        }
        (data_type, Some(len)) => {
            check_total(len, limits)?;
            let element = fill_element(data_type, fill)?;
            let len = to_usize(len, "a chunk")?;
            if element.iter().all(|&b| b == 0) {
                return Ok(DecodedChunk::Fixed(vec![0u8; len]));
            }
            let mut out = Vec::with_capacity(len);
            while out.len() < len {
                out.extend_from_slice(&element);
            }
            out.truncate(len);
            Ok(DecodedChunk::Fixed(out))
        }
        (_, None) => Err(codec_error("a fixed-size type without a byte length")),
    }
}

fn check_total(total: u64, limits: &Limits) -> Result<()> {
    limits.check(Limit::ChunkBytes, total, "a chunk of fill values, in bytes")
}

/// The memory `n` variable-length values of `len` bytes each take: their bytes and their
/// slots (an empty fill value still costs a slot per element).
fn slots_bytes(len: usize, slot: usize, n: u64) -> u64 {
    u64::try_from(len.saturating_add(slot))
        .unwrap_or(u64::MAX)
        .saturating_mul(n)
}

/// The element a missing chunk of an object array holds: its fill value (kept as JSON text,
/// see [`FillValue`]), null when it has none.
pub(crate) fn object_fill(fill: &FillValue) -> serde_json::Value {
    match fill {
        FillValue::String(text) => {
            zom_json::text::parse(text.as_bytes()).unwrap_or(serde_json::Value::Null)
        }
        _ => serde_json::Value::Null,
    }
}
