//! Compressors: gzip, zlib, zstd, numcodecs lz4, bz2, lzma. Every decoder is bounded: it
//! refuses to produce more than the metadata allows, and never allocates more than that. gzip,
//! zlib, bz2 and lzma are decoded by `kernels/parts` (see `super::lazy`).

use super::lazy::{LazyCodec, PART_BZIP2, PART_DEFLATE, PART_LZMA};
use super::registry::{Built, CodecSpec, Kind, Stage, V3Form};
use super::{codec_error, to_usize, BytesToBytesCodec, Limits, SizeBound};
use crate::document::named::NamedConfig;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use serde_json::{Map, Value};

/// Which compressor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compressor {
    /// gzip members (one or more, as Python's gzip module reads them).
    Gzip,
    /// One zlib stream.
    Zlib,
    /// zstd frames.
    Zstd,
    /// numcodecs LZ4: a u32 LE decoded size, then one LZ4 block.
    Lz4,
    /// bzip2 streams.
    Bz2,
    /// lzma in the xz container (numcodecs format 1).
    Xz,
    /// lzma in the legacy "alone" container (numcodecs format 2).
    LzmaAlone,
    /// xz or alone, whichever the data is (numcodecs format 0).
    LzmaAuto,
}

/// A compressor codec.
#[derive(Clone, Debug)]
pub(crate) struct CompressorCodec {
    name: String,
    kind: Compressor,
}

impl CompressorCodec {
    /// A compressor codec with a display name.
    pub(crate) fn new(name: &str, kind: Compressor) -> CompressorCodec {
        CompressorCodec {
            name: name.to_string(),
            kind,
        }
    }
}

impl CompressorCodec {
    /// Which compressor it is.
    #[cfg(feature = "encode")]
    pub(crate) fn kind(&self) -> Compressor {
        self.kind
    }

    /// Decodes with the part that holds its decoder (bounded, checked).
    fn decode_lazy(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        match self.lazy() {
            Some(lazy) => lazy.decode(input, bound, &self.name),
            None => Err(codec_error(format!("{}: not in a codec part", self.name))),
        }
    }

    /// The part that decodes it, for the compressors little data uses.
    fn lazy(&self) -> Option<LazyCodec> {
        let (part, codec, variant) = match self.kind {
            Compressor::Gzip => (PART_DEFLATE, "deflate", "gzip"),
            Compressor::Zlib => (PART_DEFLATE, "deflate", "zlib"),
            Compressor::Bz2 => (PART_BZIP2, "bz2", ""),
            Compressor::Xz => (PART_LZMA, "lzma", "xz"),
            Compressor::LzmaAlone => (PART_LZMA, "lzma", "alone"),
            Compressor::LzmaAuto => (PART_LZMA, "lzma", "auto"),
            Compressor::Zstd | Compressor::Lz4 => return None,
        };
        Some(LazyCodec {
            part,
            codec,
            variant: variant.into(),
        })
    }
}

impl BytesToBytesCodec for CompressorCodec {
    fn name(&self) -> &str {
        &self.name
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        self.compress(input)
    }

    fn encoded_bound(&self, decoded: SizeBound, _limits: &Limits) -> SizeBound {
        decoded.compressed()
    }

    #[cfg(feature = "decode")]
    fn parts(&self, out: &mut Vec<&'static str>) {
        out.extend(self.lazy().map(|lazy| lazy.part));
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        if self.lazy().is_some() {
            return self.decode_lazy(input, bound);
        }
        if let SizeBound::Exact(n) = bound {
            let mut out = vec![0u8; to_usize(n, "a decoded chunk")?];
            self.decode_into(input, &mut out)?;
            return Ok(out);
        }
        let max = to_usize(bound.max(), "a decoded chunk")?;
        let who = self.name.as_str();
        match self.kind {
            Compressor::Zstd => zstd_growing(input, max, who),
            Compressor::Lz4 => {
                let (size, block) = lz4_header(input, who)?;
                if size > max {
                    return Err(too_big(who, size as u64, max));
                }
                let mut out = vec![0u8; size];
                lz4_block(block, &mut out, who)?;
                Ok(out)
            }
            Compressor::Gzip
            | Compressor::Zlib
            | Compressor::Bz2
            | Compressor::Xz
            | Compressor::LzmaAlone
            | Compressor::LzmaAuto => self.decode_lazy(input, bound),
        }
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        decoding_built!();
        let who = self.name.as_str();
        match self.kind {
            Compressor::Zstd => zstd_into(&mut zstd::zstd_safe::DCtx::create(), input, out, who),
            Compressor::Lz4 => {
                let (size, block) = lz4_header(input, who)?;
                if size != out.len() {
                    return Err(codec_error(format!(
                        "{who}: the header says {size} bytes, the chunk holds {}",
                        out.len()
                    )));
                }
                lz4_block(block, out, who)
            }
            Compressor::Gzip
            | Compressor::Zlib
            | Compressor::Bz2
            | Compressor::Xz
            | Compressor::LzmaAlone
            | Compressor::LzmaAuto => {
                let bytes = self.decode_lazy(input, SizeBound::Exact(out.len() as u64))?;
                out.copy_from_slice(&bytes);
                Ok(())
            }
        }
    }
}

fn too_big(who: &str, got: u64, max: usize) -> crate::error::ZomError {
    codec_error(format!(
        "{who}: the data decodes to more than the {max} bytes the chunk allows (at least {got})"
    ))
}

/// Splits numcodecs' LZ4 framing into the declared size and the block.
fn lz4_header<'a>(input: &'a [u8], who: &str) -> Result<(usize, &'a [u8])> {
    match input {
        [a, b, c, d, block @ ..] => {
            let size = u32::from_le_bytes([*a, *b, *c, *d]);
            Ok((to_usize(u64::from(size), "a decoded chunk")?, block))
        }
        _ => Err(codec_error(format!(
            "{who}: input too short for its header"
        ))),
    }
}

/// Decodes one LZ4 block into exactly `out`.
pub(crate) fn lz4_block(block: &[u8], out: &mut [u8], who: &str) -> Result<()> {
    let n = zom_kernels::lz4_block(block, out).map_err(|e| codec_error(format!("{who}: {e}")))?;
    SizeBound::Exact(out.len() as u64).check(n, who)
}

fn initial_capacity(input_len: usize, max: usize) -> usize {
    input_len
        .saturating_mul(4)
        .clamp(4096, 1 << 22)
        .min(max.saturating_add(1))
}

/// Decodes zstd frames (one or more) into a vector that grows with the output, up to `max`
/// bytes.
fn zstd_growing(input: &[u8], max: usize, who: &str) -> Result<Vec<u8>> {
    let mut dctx = zstd::zstd_safe::DCtx::create();
    let first = initial_capacity(input.len(), max);
    zstd_stream(&mut dctx, input, first, max).map_err(|failure| match failure {
        ZstdFailure::TooBig(got) => too_big(who, got, max),
        ZstdFailure::Zstd(code) => zstd_error(who, code),
        ZstdFailure::Truncated => codec_error(format!("{who}: the data is truncated")),
    })
}

/// Why [`zstd_stream`] stopped.
#[derive(Debug)]
pub(crate) enum ZstdFailure {
    /// The output reached this many bytes, past the bound.
    TooBig(u64),
    /// zstd's result code.
    Zstd(usize),
    /// The input ended inside a frame.
    Truncated,
}

/// Decodes zstd frames (one or more) with `dctx` (a dictionary loaded or not) into a vector
/// that starts at `first` bytes of capacity and grows with the output, up to `max` bytes.
/// zstd-safe's streaming call directly: the zstd crate's `Read` adapter costs more
/// WebAssembly than this loop.
pub(crate) fn zstd_stream(
    dctx: &mut zstd::zstd_safe::DCtx<'_>,
    input: &[u8],
    first: usize,
    max: usize,
) -> std::result::Result<Vec<u8>, ZstdFailure> {
    use zstd::zstd_safe::{InBuffer, OutBuffer};
    let mut out: Vec<u8> = Vec::with_capacity(first.min(max.saturating_add(1)));
    let mut src = InBuffer::around(input);
    // What the last call returned: 0 once a frame is complete.
    let mut pending = 0usize;
    while src.pos() < input.len() || pending != 0 {
        if out.len() == out.capacity() {
            let room = max.saturating_add(1).saturating_sub(out.len());
            if room == 0 {
                return Err(ZstdFailure::TooBig(out.len() as u64));
            }
            out.reserve(out.capacity().max(4096).min(room));
        }
        let (in0, out0) = (src.pos(), out.len());
        let result = dctx.decompress_stream(&mut OutBuffer::around_pos(&mut out, out0), &mut src);
        pending = result.map_err(ZstdFailure::Zstd)?;
        if out.len() > max {
            return Err(ZstdFailure::TooBig(out.len() as u64));
        }
        if src.pos() == in0 && out.len() == out0 && out.len() < out.capacity() {
            return Err(ZstdFailure::Truncated);
        }
    }
    Ok(out)
}

/// Decodes zstd frames into `out`, which they must fill exactly.
pub(crate) fn zstd_into(
    dctx: &mut zstd::zstd_safe::DCtx<'static>,
    input: &[u8],
    out: &mut [u8],
    who: &str,
) -> Result<()> {
    let n = dctx
        .decompress(out, input)
        .map_err(|code| zstd_error(who, code))?;
    SizeBound::Exact(out.len() as u64).check(n, who)
}

/// The CodecError of a zstd failure. zstd's own texts are stripped from the WebAssembly
/// build (`ZSTD_getErrorName` says "Error strings stripped"), so the stable codes of
/// `zstd_errors.h` (a result of `(size_t)-code`) are named here.
fn zstd_error(who: &str, result: usize) -> crate::error::ZomError {
    let code = result.wrapping_neg();
    let why = match code {
        10 => "not a zstd frame (unknown frame descriptor)",
        12 => "unsupported zstd format version",
        14 => "unsupported frame parameter",
        16 => "the frame needs a window larger than allowed",
        20 => "corrupted data",
        22 => "the frame's checksum does not match its content",
        24 => "corrupted literals header",
        30 | 32 => "the frame needs a dictionary",
        64 => "out of memory",
        70 => "the data decodes to more bytes than expected",
        72 => "truncated data, or bytes after the last frame",
        82 => "truncated data",
        _ => return codec_error(format!("{who}: zstd error {code}")),
    };
    codec_error(format!("{who}: {why}"))
}

fn compressor(cfg: &Config, kind: Compressor) -> Option<Built> {
    Some(Built::BytesToBytes(Box::new(CompressorCodec::new(
        cfg.name, kind,
    ))))
}

/// `gzip` (v3).
pub(crate) const GZIP: CodecSpec = CodecSpec::v3("gzip", Kind::BytesToBytes, gzip);

fn gzip(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["level"]);
    if cfg.required("level", Need::Spec).is_some() {
        cfg.int("level", 0, 9, Need::Spec);
    }
    compressor(cfg, Compressor::Gzip)
}

/// `zstd` (v3).
pub(crate) const ZSTD: CodecSpec = CodecSpec::v3("zstd", Kind::BytesToBytes, zstd);

fn zstd(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["level", "checksum"]);
    if cfg.required("level", Need::Spec).is_some() {
        cfg.int("level", -131072, 22, Need::Spec);
    }
    cfg.bool("checksum", Need::Spec);
    compressor(cfg, Compressor::Zstd)
}

/// numcodecs `gzip`.
pub(crate) const NC_GZIP: CodecSpec = CodecSpec {
    v3_form: V3Form::Compressor(|config, _| {
        let level = config.get("level").cloned().unwrap_or_else(|| 1.into());
        NamedConfig::new("gzip", Some(Map::from_iter([("level".into(), level)])))
    }),
    ..CodecSpec::numcodecs("gzip", Kind::BytesToBytes, nc_gzip)
};

fn nc_gzip(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["level"]);
    cfg.int("level", 0, 9, Need::Spec);
    compressor(cfg, Compressor::Gzip)
}

/// numcodecs `zlib`.
pub(crate) const NC_ZLIB: CodecSpec = CodecSpec::numcodecs("zlib", Kind::BytesToBytes, nc_zlib);

fn nc_zlib(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["level"]);
    cfg.int("level", -1, 9, Need::Spec);
    compressor(cfg, Compressor::Zlib)
}

/// numcodecs `bz2`.
pub(crate) const NC_BZ2: CodecSpec = CodecSpec::numcodecs("bz2", Kind::BytesToBytes, nc_bz2);

fn nc_bz2(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["level"]);
    cfg.int("level", 1, 9, Need::Spec);
    compressor(cfg, Compressor::Bz2)
}

/// numcodecs `zstd`.
pub(crate) const NC_ZSTD: CodecSpec = CodecSpec {
    v3_form: V3Form::Compressor(|config, _| {
        let level = config.get("level").cloned().unwrap_or_else(|| 0.into());
        let checksum = config
            .get("checksum")
            .cloned()
            .unwrap_or(Value::Bool(false));
        let config = [("level".into(), level), ("checksum".into(), checksum)];
        NamedConfig::new("zstd", Some(Map::from_iter(config)))
    }),
    ..CodecSpec::numcodecs("zstd", Kind::BytesToBytes, nc_zstd)
};

fn nc_zstd(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["level", "checksum"]);
    cfg.int("level", -131072, 22, Need::Spec);
    cfg.bool("checksum", Need::Spec);
    compressor(cfg, Compressor::Zstd)
}

/// numcodecs `lz4`.
pub(crate) const NC_LZ4: CodecSpec = CodecSpec::numcodecs("lz4", Kind::BytesToBytes, nc_lz4);

fn nc_lz4(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["acceleration"]);
    cfg.int("acceleration", i64::MIN, i64::MAX, Need::Spec);
    compressor(cfg, Compressor::Lz4)
}

/// numcodecs `lzma`: xz (`format` 1, the default), LZMA alone (2) or either (0); raw streams
/// (3) need the `filters` the stream does not record, which zom does not implement.
pub(crate) const NC_LZMA: CodecSpec = CodecSpec::numcodecs("lzma", Kind::BytesToBytes, nc_lzma);

fn nc_lzma(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["format", "check", "preset", "filters"]);
    let format = cfg.int("format", 0, 3, Need::Decode);
    cfg.int("check", -1, 15, Need::Spec);
    cfg.uint("preset", 0, Need::Spec);
    cfg.array("filters", Need::Spec);
    let kind = match format {
        Some(0) => Compressor::LzmaAuto,
        None if cfg.failed() => return None,
        Some(1) | None => Compressor::Xz,
        Some(2) => Compressor::LzmaAlone,
        Some(_) => {
            cfg.unsupported("lzma format 3 (raw streams) is not supported".into());
            return None;
        }
    };
    compressor(cfg, kind)
}
