//! Chunk decoding, sans-I/O: the encoded bytes of a chunk (or a shard, or ranges of one) in,
//! decoded values out.
//!
//! Codecs come in three kinds, as in the Zarr v3 spec: array → array ([`ArrayToArrayCodec`]),
//! array → bytes ([`ArrayToBytesCodec`]) and bytes → bytes ([`BytesToBytesCodec`]). A
//! [`CodecPipeline`] strings them together; it is built from a v3 `codecs` list or from a v2
//! `.zarray` (filters, compressor, order, dtype byte order) and refuses unknown codecs when it is
//! built, not when the first chunk is read.
//!
//! Decoded fixed-size values are always little-endian and in C order. Every output size is
//! computed from the metadata with checked arithmetic before anything is allocated, and a
//! decompressor that produces more (or less) than that is a [`ErrorCode::CodecError`].

/// Returns from a decoding method with an error in a build without the `decode` feature (the
/// validator's part of the JS package, which reads codec configurations and never decodes), so
/// that the decoders are not linked in.
macro_rules! decoding_built {
    () => {
        #[cfg(not(feature = "decode"))]
        return Err(crate::codec::not_decoding());
    };
}

/// The error of a decoding method in a build without the `decode` feature.
#[cfg(not(feature = "decode"))]
pub(crate) fn not_decoding() -> crate::error::ZomError {
    crate::error::ZomError::new(
        crate::error::ErrorCode::UnknownCodec,
        "this part of zom does not decode chunks: read arrays with \"zom\"",
    )
}

mod blosc;
mod bytes;
mod cast_value;
mod checksum;
pub(crate) mod compress;
mod conditional;
#[cfg(feature = "encode")]
mod encode;
pub(crate) mod external;
mod filters;
pub(crate) mod lazy;
mod n5_default;
mod num_type;
mod object;
mod packbits;
mod pcodec;
mod pipeline;
pub(crate) mod registry;
mod reshape;
mod scale_offset;
pub mod sharding;
mod shuffle;
mod transpose;
mod v2;
mod v3;
mod vlen;
mod zfp;

pub use crate::document::named::NUMCODECS_PREFIX;
pub use crate::limits::Limits;
pub use external::ExternalStep;
pub(crate) use pipeline::object_fill;
pub use pipeline::CodecPipeline;
pub use registry::v3_names as codec_names;

use crate::dtype::{DataType, FillValue};
use crate::error::{ErrorCode, Result, ZomError};
use std::fmt::Debug;

/// A [`ErrorCode::CodecError`] with a message.
pub(crate) fn codec_error(message: impl Into<String>) -> ZomError {
    ZomError::new(ErrorCode::CodecError, message)
}

/// A [`ErrorCode::UnknownCodec`] error naming the codec.
pub(crate) fn unknown_codec(name: &str, why: impl Into<String>) -> ZomError {
    let why = why.into();
    let message = if why.is_empty() {
        format!("unknown codec '{name}'")
    } else {
        format!("codec '{name}': {why}")
    };
    ZomError::new(ErrorCode::UnknownCodec, message)
}

/// A NumPy typestring member of a codec configuration (`"<f8"`), checked with the dtype API.
pub(crate) fn typestring_member<'a>(
    cfg: &mut crate::problem::config::Config<'a>,
    key: &str,
    need: crate::problem::config::Need,
) -> Option<&'a str> {
    let s = cfg.str(key, need)?;
    let value = cfg.get(key)?;
    match crate::dtype::DataType::from_v2(value, None) {
        Ok(_) => Some(s),
        Err(why) => {
            let message = format!(
                "{} {} is not a data type: {why}",
                cfg.label(key),
                crate::problem::show(value)
            );
            let bad = (crate::problem::ProblemKind::InvalidValue, message);
            cfg.problem(crate::problem::config::key_loc(key), bad, need);
            None
        }
    }
}

/// An [`ErrorCode::InvalidMetadata`] error about a codec's configuration.
pub(crate) fn bad_config(name: &str, why: impl std::fmt::Display) -> ZomError {
    ZomError::invalid_metadata(format!("codec '{name}': {why}"))
}

/// Converts a size to `usize`, or fails with [`ErrorCode::LimitExceeded`].
pub(crate) fn to_usize(n: u64, what: &str) -> Result<usize> {
    usize::try_from(n).map_err(|_| {
        ZomError::new(
            ErrorCode::LimitExceeded,
            format!("{what} of {n} bytes does not fit in this platform's memory"),
        )
    })
}

/// The shape and data type of a chunk at one point of the pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkRepr {
    /// Length of each dimension (empty for a 0-d chunk).
    pub shape: Vec<u64>,
    /// The element type.
    pub data_type: DataType,
}

impl ChunkRepr {
    /// A representation of `shape` elements of `data_type`.
    pub fn new(shape: Vec<u64>, data_type: DataType) -> Self {
        ChunkRepr { shape, data_type }
    }

    /// The number of elements (1 for a 0-d chunk), or an error if it overflows `u64`.
    pub fn num_elements(&self) -> Result<u64> {
        num_elements(&self.shape)
    }

    /// Bytes per element, or `None` for variable-length types.
    pub fn item_size(&self) -> Option<u64> {
        self.data_type.fixed_size()
    }

    /// The decoded byte length for fixed-size types (`None` for variable-length ones), or an
    /// error if it overflows.
    pub fn fixed_byte_len(&self) -> Result<Option<u64>> {
        match self.item_size() {
            None => Ok(None),
            Some(size) => self
                .num_elements()?
                .checked_mul(size)
                .map(Some)
                .ok_or_else(|| codec_error("the chunk's size in bytes overflows")),
        }
    }
}

/// The product of a shape's dimensions, checked.
pub(crate) fn num_elements(shape: &[u64]) -> Result<u64> {
    shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| codec_error("the chunk's element count overflows"))
}

/// A decoded chunk (or an intermediate array between array → array codecs).
#[derive(Clone, Debug, PartialEq)]
pub enum DecodedChunk {
    /// Fixed-size elements: little-endian element bytes in C order, exactly
    /// elements × item size bytes.
    Fixed(Vec<u8>),
    /// Variable-length UTF-8 strings (`string` data type), in C order.
    Strings(Vec<String>),
    /// Variable-length byte strings (`bytes` data types), in C order; for
    /// [`DataType::VlenArray`], each element's values as little-endian bytes.
    Bytes(Vec<Vec<u8>>),
    /// Any JSON values ([`DataType::Object`]: numcodecs `json2`, `msgpack2`), in C order.
    Json(Vec<serde_json::Value>),
}

impl DecodedChunk {
    /// The number of elements for variable-length chunks, or the byte length for fixed ones.
    pub fn len(&self) -> usize {
        match self {
            DecodedChunk::Fixed(b) => b.len(),
            DecodedChunk::Strings(s) => s.len(),
            DecodedChunk::Bytes(b) => b.len(),
            DecodedChunk::Json(v) => v.len(),
        }
    }

    /// Whether there is nothing in it.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks that the chunk has the size `repr` implies.
    pub(crate) fn check(&self, repr: &ChunkRepr, who: &str) -> Result<()> {
        let n = repr.num_elements()?;
        let (got, want, unit) = match (self, repr.fixed_byte_len()?) {
            (DecodedChunk::Fixed(b), Some(len)) => (b.len() as u64, len, "bytes"),
            (DecodedChunk::Strings(s), None) if repr.data_type == DataType::String => {
                (s.len() as u64, n, "elements")
            }
            (DecodedChunk::Bytes(b), None)
                if matches!(
                    repr.data_type,
                    DataType::Bytes(_) | DataType::VlenArray { .. }
                ) =>
            {
                (b.len() as u64, n, "elements")
            }
            (DecodedChunk::Json(v), None) if matches!(repr.data_type, DataType::Object(_)) => {
                (v.len() as u64, n, "elements")
            }
            _ => {
                return Err(codec_error(format!(
                    "{who} produced values of the wrong kind for data type {}",
                    repr.data_type.to_v3().name
                )))
            }
        };
        if got != want {
            return Err(codec_error(format!(
                "{who} decoded to {got} {unit}, but the chunk holds {want} {unit}"
            )));
        }
        Ok(())
    }
}

/// How large a decoded byte stream may or must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeBound {
    /// Exactly this many bytes.
    Exact(u64),
    /// At most this many bytes.
    AtMost(u64),
}

impl SizeBound {
    /// The largest size allowed.
    pub fn max(self) -> u64 {
        match self {
            SizeBound::Exact(n) | SizeBound::AtMost(n) => n,
        }
    }

    /// Checks a produced size against the bound.
    pub fn check(self, got: usize, who: &str) -> Result<()> {
        let got = got as u64;
        match self {
            SizeBound::Exact(n) if got != n => Err(codec_error(format!(
                "{who} decoded to {got} bytes, expected {n}"
            ))),
            SizeBound::AtMost(n) if got > n => Err(codec_error(format!(
                "{who} decoded to {got} bytes, more than the {n} allowed"
            ))),
            _ => Ok(()),
        }
    }

    /// The same bound with `extra` bytes added (a checksum's), saturating.
    /// The most bytes any compressor zom decodes (deflate, zstd, LZ4, bzip2, LZMA/xz, blosc)
    /// can write for data of this size: its worst-case expansion of incompressible data
    /// (bzip2's 1% + 600 bytes is the largest) is under 1/64 of the size plus 4 KiB of frame
    /// headers. A stored chunk longer than this was not written by such a compressor, so a
    /// shard index entry claiming more is refused before it is fetched.
    pub(crate) fn compressed(self) -> SizeBound {
        let n = self.max();
        SizeBound::AtMost(n.saturating_add(n / 64).saturating_add(4096))
    }

    pub(crate) fn plus(self, extra: u64) -> SizeBound {
        match self {
            SizeBound::Exact(n) => n
                .checked_add(extra)
                .map_or(SizeBound::AtMost(u64::MAX), SizeBound::Exact),
            SizeBound::AtMost(n) => SizeBound::AtMost(n.saturating_add(extra)),
        }
    }
}

/// An array → array codec (transpose, numcodecs filters on typed values).
pub trait ArrayToArrayCodec: Send + Sync {
    /// The codec's name, for messages.
    fn name(&self) -> &str;
    /// What the next codec receives when this one encodes an array of `decoded`.
    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr>;
    /// Decodes `input` (shaped as `encoded_repr(decoded)`) into an array shaped as `decoded`.
    fn decode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk>;
    /// The fill value as the next codec sees it, for an array of `decoded` filled with `fill`
    /// (what a shard's unwritten inner chunks hold after this codec): unchanged unless the
    /// codec changes values.
    fn encoded_fill(&self, fill: &FillValue, _decoded: &ChunkRepr) -> Result<FillValue> {
        Ok(fill.clone())
    }
    /// Encodes an array shaped as `decoded` (feature `encode`).
    #[cfg(feature = "encode")]
    fn encode(&self, _input: DecodedChunk, _decoded: &ChunkRepr) -> Result<DecodedChunk> {
        Err(encode::unsupported(self.name()))
    }
}

/// An array → bytes codec (bytes, vlen-utf8, vlen-bytes, packbits, sharding_indexed).
pub trait ArrayToBytesCodec: Send + Sync {
    /// The codec's name, for messages.
    fn name(&self) -> &str;
    /// The size of the encoded bytes of a chunk shaped as `decoded`.
    fn encoded_size(&self, decoded: &ChunkRepr, limits: &Limits) -> Result<SizeBound>;
    /// Decodes the bytes of a chunk shaped as `decoded`.
    fn decode(&self, input: &[u8], decoded: &ChunkRepr, limits: &Limits) -> Result<DecodedChunk>;
    /// The codec itself, so that callers can reach a concrete codec's own API.
    fn as_any(&self) -> &dyn std::any::Any;
    /// Encodes a chunk shaped as `decoded` (feature `encode`).
    #[cfg(feature = "encode")]
    fn encode(&self, _input: &DecodedChunk, _decoded: &ChunkRepr) -> Result<Vec<u8>> {
        Err(encode::unsupported(self.name()))
    }
    /// Whether the encoded bytes are the decoded element bytes up to an in-place fix-up
    /// ([`ArrayToBytesCodec::decode_in_place`]), so a decompressor can write straight into
    /// the caller's buffer.
    fn supports_in_place(&self) -> bool {
        false
    }
    /// Turns encoded bytes already in `buf` into decoded ones (byte swapping).
    fn decode_in_place(&self, _buf: &mut [u8], _decoded: &ChunkRepr) -> Result<()> {
        Err(not_in_place(self.name()))
    }
    /// Passes the pipeline's limits on to pipelines nested in the codec (sharding's).
    fn set_limits(&mut self, _limits: Limits) {}
    /// Adds the parts of the JS package whose decoders it calls (see [`lazy`]), its nested
    /// pipelines' included.
    #[cfg(feature = "decode")]
    fn parts(&self, _out: &mut Vec<&'static str>) {}
    /// Decodes fixed-size elements straight into `out` (exactly the chunk's byte length).
    fn decode_into(
        &self,
        input: &[u8],
        decoded: &ChunkRepr,
        limits: &Limits,
        out: &mut [u8],
    ) -> Result<()> {
        copy_decoded(self.decode(input, decoded, limits)?, self.name(), out)
    }
}

// The default methods' bodies, out of line: a default method is compiled once per codec.
fn not_in_place(who: &str) -> ZomError {
    codec_error(format!("{who} cannot decode in place"))
}

fn copy_decoded(chunk: DecodedChunk, who: &str, out: &mut [u8]) -> Result<()> {
    match chunk {
        DecodedChunk::Fixed(bytes) if bytes.len() == out.len() => {
            out.copy_from_slice(&bytes);
            Ok(())
        }
        _ => Err(codec_error(format!(
            "{who} did not decode to {} bytes",
            out.len()
        ))),
    }
}

fn copy_exact(bytes: Vec<u8>, who: &str, out: &mut [u8]) -> Result<()> {
    SizeBound::Exact(out.len() as u64).check(bytes.len(), who)?;
    out.copy_from_slice(&bytes);
    Ok(())
}

/// A bytes → bytes codec (compressors, checksums, byte shuffles, numcodecs filters on bytes).
pub trait BytesToBytesCodec: Send + Sync {
    /// The codec's name, for messages.
    fn name(&self) -> &str;
    /// The size of the encoded bytes, given the size of the decoded ones.
    fn encoded_bound(&self, decoded: SizeBound, limits: &Limits) -> SizeBound;
    /// Decodes `input`; the output must fit `bound` (the codec refuses to produce more).
    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>>;
    /// Adds the part of the JS package whose decoder it calls, if any (see [`lazy`]).
    #[cfg(feature = "decode")]
    fn parts(&self, _out: &mut Vec<&'static str>) {}
    /// Encodes `input` (feature `encode`).
    #[cfg(feature = "encode")]
    fn encode(&self, _input: &[u8]) -> Result<Vec<u8>> {
        Err(encode::unsupported(self.name()))
    }
    /// Decodes `input` into `out`, which it must fill exactly.
    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let bytes = self.decode(input, SizeBound::Exact(out.len() as u64))?;
        copy_exact(bytes, self.name(), out)
    }
}

// Debug of a codec is its name. Not a supertrait: a trait object's vtable holds its supertraits'
// methods, so every codec's derived Debug (fill values, and with them float formatting) would
// be in the WebAssembly module whether printed or not.
macro_rules! debug_by_name {
    ($($t:ident),*) => {$(
        impl Debug for dyn $t + '_ {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    )*};
}
debug_by_name!(ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec);
