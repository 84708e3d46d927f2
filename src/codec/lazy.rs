//! Codecs whose decoders live outside the reader: DEFLATE (gzip, zlib, blosc's zlib blocks, zip
//! members), LZMA/xz, bzip2, pcodec and zfp, which a viewer's first tile rarely needs, decoded
//! by `kernels/parts` (ARCHITECTURE.md, "Parts"). Natively that crate is
//! linked and called directly. In the JS reader (feature `lazy-parts`) it is not: each codec
//! names the WebAssembly part that holds its decoder ([`LazyCodec::part`]), a pipeline lists
//! the parts its array needs ([`super::CodecPipeline::parts`]), the TypeScript wrapper loads
//! them before the array's first read on every thread that decodes, and the codec calls its
//! part synchronously through the host function the binding registers ([`set_host`]). Either
//! way the call happens inside the pipeline, so these codecs work anywhere in it, inside
//! shards too, and the output is bounded by what the metadata allows before it is allocated.

use super::registry::Stage;
use super::{codec_error, to_usize, ChunkRepr, DecodedChunk, SizeBound};
use crate::dtype::DataType;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::ProblemKind;

/// The part of the JS package that holds the DEFLATE decoder (gzip, zlib, blosc's zlib blocks).
pub(crate) const PART_DEFLATE: &str = "deflate";
/// The part of the JS package that holds the LZMA/xz decoder.
pub(crate) const PART_LZMA: &str = "lzma";
/// The part of the JS package that holds the bzip2 decoder.
pub(crate) const PART_BZIP2: &str = "bzip2";
/// The part of the JS package that holds the pcodec decoder.
pub(crate) const PART_PCODEC: &str = "pcodec";
/// The part of the JS package that holds the zfp decoder (numcodecs `zfpy`, zarr-extensions
/// `zfp`).
pub(crate) const PART_ZFP: &str = "zfp";

/// A codec decoded by a part: which part, and what the part's `decode` is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LazyCodec {
    /// The part that holds the decoder ([`PART_LZMA`], …).
    pub(crate) part: &'static str,
    /// The codec as the part names it (`"lzma"`, `"bz2"`, `"pcodec"`, `"zfpy"`, `"zfp"`).
    pub(crate) codec: &'static str,
    /// What the part needs beside the bytes (an lzma container, a data type name).
    pub(crate) variant: String,
}

impl LazyCodec {
    /// Decodes `input` into at most `bound.max()` bytes (exactly `bound`, checked), with the
    /// part's decoder; errors are `CodecError`s that start with `who`.
    pub(crate) fn decode(&self, input: &[u8], bound: SizeBound, who: &str) -> Result<Vec<u8>> {
        bounded(bound, who, |max| call(self, input, max))
    }

    /// Decodes `input` into a whole chunk of `decoded`'s fixed-size values (exactly their
    /// bytes), as [`LazyCodec::decode`].
    pub(crate) fn decode_chunk(
        &self,
        input: &[u8],
        decoded: &ChunkRepr,
        who: &str,
    ) -> Result<DecodedChunk> {
        let len = decoded
            .fixed_byte_len()?
            .ok_or_else(|| codec_error(format!("{who}: values of variable length")))?;
        Ok(DecodedChunk::Fixed(self.decode(
            input,
            SizeBound::Exact(len),
            who,
        )?))
    }
}

/// Inflates a DEFLATE stream in `container` (`"gzip"`, `"zlib"`, `"raw"`) into at most
/// `bound.max()` bytes (exactly `bound`, checked), with the part's decoder; errors are
/// `CodecError`s that start with `who`.
pub(crate) fn inflate(
    container: &str,
    input: &[u8],
    bound: SizeBound,
    who: &str,
) -> Result<Vec<u8>> {
    bounded(bound, who, |max| call_inflate(container, input, max))
}

/// What a part's `decode` produced within `bound`: `decode` is given the most bytes it may
/// produce, its refusal becomes a `CodecError` that starts with `who`, and the output's length
/// is checked against `bound`.
fn bounded(
    bound: SizeBound,
    who: &str,
    decode: impl FnOnce(usize) -> std::result::Result<Vec<u8>, String>,
) -> Result<Vec<u8>> {
    let max = to_usize(bound.max(), "a decoded chunk")?;
    let out = decode(max).map_err(|why| codec_error(format!("{who}: {why}")))?;
    bound.check(out.len(), who)?;
    Ok(out)
}

/// [`inflate`] into exactly `out`.
pub(crate) fn inflate_into(container: &str, input: &[u8], out: &mut [u8], who: &str) -> Result<()> {
    let bytes = inflate(container, input, SizeBound::Exact(out.len() as u64), who)?;
    out.copy_from_slice(&bytes);
    Ok(())
}

/// The v3 name of `dtype` when it is one of `types` (the data types a part's codec encodes).
pub(crate) fn type_in(dtype: &DataType, types: &[&'static str]) -> Option<&'static str> {
    let name = dtype.to_v3().name;
    types.iter().copied().find(|&n| n == name)
}

/// Refuses, as a problem of decoding (no stream of it can exist), a v2 big-endian array or a
/// data type outside `types` for the numcodecs codec `who`: numcodecs hands these codecs the
/// chunk's numbers, and they encode only native (little-endian) ones of their types.
pub(crate) fn check_dtype(
    cfg: &mut Config,
    stage: &Stage,
    types: &[&'static str],
    who: &str,
) -> bool {
    if stage.big {
        let message = format!("{who} does not encode big-endian values");
        cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
        return false;
    }
    if let Some(dtype) = &stage.dtype {
        if type_in(dtype, types).is_none() {
            let message = format!(
                "{who} does not encode the data type '{}'",
                dtype.to_v3().name
            );
            cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
            return false;
        }
    }
    true
}

/// What the host calls a part with: part, codec, variant, encoded bytes and the most bytes
/// the output may have; the decoded bytes, or why not.
#[cfg_attr(
    not(all(target_arch = "wasm32", feature = "bind-read")),
    allow(dead_code)
)]
pub(crate) type Host = fn(&str, &str, &str, &[u8], usize) -> std::result::Result<Vec<u8>, String>;

#[cfg(feature = "lazy-parts")]
static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();

/// Registers the function that calls the parts (the binding, once per instance). Without one,
/// every lazy codec fails with a `CodecError` saying so.
#[cfg_attr(
    not(all(target_arch = "wasm32", feature = "bind-read")),
    allow(dead_code)
)]
pub(crate) fn set_host(host: Host) {
    #[cfg(feature = "lazy-parts")]
    let _ = HOST.set(host);
    #[cfg(not(feature = "lazy-parts"))]
    let _ = host;
}

#[cfg(feature = "lazy-parts")]
fn call(codec: &LazyCodec, input: &[u8], max: usize) -> std::result::Result<Vec<u8>, String> {
    let host = HOST.get().ok_or_else(|| {
        format!(
            "its decoder is zom's part \"{}\", which this build cannot load",
            codec.part
        )
    })?;
    host(codec.part, codec.codec, &codec.variant, input, max)
}

#[cfg(not(feature = "lazy-parts"))]
fn call(codec: &LazyCodec, input: &[u8], max: usize) -> std::result::Result<Vec<u8>, String> {
    zom_parts::decode(codec.codec, &codec.variant, input, max)
}

#[cfg(feature = "lazy-parts")]
fn call_inflate(container: &str, input: &[u8], max: usize) -> std::result::Result<Vec<u8>, String> {
    let codec = LazyCodec {
        part: PART_DEFLATE,
        codec: "deflate",
        variant: container.into(),
    };
    call(&codec, input, max)
}

/// Natively, and in the parts that link the inflater (the validator's zip store): that
/// decoder alone, not every part's.
#[cfg(not(feature = "lazy-parts"))]
fn call_inflate(container: &str, input: &[u8], max: usize) -> std::result::Result<Vec<u8>, String> {
    zom_parts::inflate(container, input, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_decodes_bounded_and_names_the_codec_in_errors() {
        let codec = LazyCodec {
            part: PART_LZMA,
            codec: "lzma",
            variant: "xz".into(),
        };
        let e = codec
            .decode(b"not xz", SizeBound::Exact(4), "numcodecs.lzma")
            .unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::CodecError);
        assert!(e.message.starts_with("numcodecs.lzma: "), "{}", e.message);
    }
}
