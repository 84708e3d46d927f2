//! A Blosc1 frame decoder (what numcodecs and zarr-python write): a 16-byte header, block
//! offsets, blocks split into per-byte streams, each stream compressed with BloscLZ, LZ4,
//! Snappy, zlib or zstd, then byte- or bit-unshuffled.

use super::compress::lz4_block;
use super::registry::{Built, CodecSpec, Kind, Stage, V3Form};
use super::{codec_error, to_usize, BytesToBytesCodec, Limits, SizeBound};
use crate::document::named::NamedConfig;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{LocStep, ProblemKind};
use serde_json::{Map, Value};
use zom_kernels::{bitunshuffle, blosclz_decompress, unshuffle};

const HEADER: usize = 16;
const DOSHUFFLE: u8 = 0x01;
const MEMCPYED: u8 = 0x02;
const DOBITSHUFFLE: u8 = 0x04;
const DONT_SPLIT: u8 = 0x10;
const MAX_SPLITS: usize = 16;
const MIN_BUFFERSIZE: usize = 128;

/// The `blosc` codec (v3 `blosc`, numcodecs `blosc`).
#[derive(Clone, Debug)]
pub(crate) struct BloscCodec {
    name: String,
    /// Whether the configuration names zlib, whose decoder is a part (`super::lazy`).
    #[cfg_attr(not(feature = "decode"), allow(dead_code))]
    zlib: bool,
}

impl BloscCodec {
    /// A blosc decoder of the configuration `cfg`.
    fn new(cfg: &Config) -> BloscCodec {
        let cname = cfg.get("cname").and_then(Value::as_str);
        BloscCodec {
            name: cfg.name.to_string(),
            zlib: cname == Some("zlib"),
        }
    }
}

/// The fields of a Blosc1 header.
#[derive(Clone, Copy, Debug)]
struct Header {
    version: u8,
    flags: u8,
    typesize: usize,
    nbytes: usize,
    blocksize: usize,
    cbytes: usize,
}

fn u32_at(input: &[u8], pos: usize) -> Option<u32> {
    let b = input.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl BloscCodec {
    fn header(&self, input: &[u8]) -> Result<Header> {
        let err = |why: &str| codec_error(format!("{}: {why}", self.name));
        if input.len() < HEADER {
            return Err(err("input too short for a blosc header"));
        }
        let field = |pos| -> Result<usize> {
            let v = u32_at(input, pos).ok_or_else(|| err("truncated header"))?;
            to_usize(u64::from(v), "a blosc field")
        };
        let header = Header {
            version: input.first().copied().unwrap_or(0),
            flags: input.get(2).copied().unwrap_or(0),
            typesize: usize::from(input.get(3).copied().unwrap_or(0)),
            nbytes: field(4)?,
            blocksize: field(8)?,
            cbytes: field(12)?,
        };
        if header.version == 0 || header.version > 4 {
            return Err(err(&format!(
                "unsupported format version {}",
                header.version
            )));
        }
        if header.flags & 0x08 != 0
            || header.flags & (DOSHUFFLE | DOBITSHUFFLE) == DOSHUFFLE | DOBITSHUFFLE
        {
            return Err(err("Blosc2 extended headers are not supported"));
        }
        if header.cbytes > input.len() {
            return Err(err(&format!(
                "the header says {} compressed bytes, the input has {}",
                header.cbytes,
                input.len()
            )));
        }
        if header.cbytes < HEADER {
            return Err(err(
                "the header's compressed size is smaller than the header",
            ));
        }
        Ok(header)
    }

    fn decode_frame(&self, input: &[u8], h: &Header, out: &mut [u8]) -> Result<()> {
        let err = |why: String| codec_error(format!("{}: {why}", self.name));
        if out.len() != h.nbytes {
            return Err(err(format!(
                "the output holds {} bytes, the header says {}",
                out.len(),
                h.nbytes
            )));
        }
        if h.nbytes == 0 {
            return Ok(());
        }
        let input = input.get(..h.cbytes).unwrap_or_default();
        if h.flags & MEMCPYED != 0 {
            let data = HEADER
                .checked_add(h.nbytes)
                .and_then(|end| input.get(HEADER..end))
                .ok_or_else(|| err("the stored data is truncated".into()))?;
            out.copy_from_slice(data);
            return Ok(());
        }
        if h.blocksize == 0 || h.typesize == 0 {
            return Err(err("zero block size or type size".into()));
        }
        let nblocks = h.nbytes.div_ceil(h.blocksize);
        let offsets_end = nblocks
            .checked_mul(4)
            .and_then(|n| n.checked_add(HEADER))
            .filter(|&end| end <= input.len())
            .ok_or_else(|| err("the block offsets are truncated".into()))?;
        let compformat = h.flags >> 5;
        let shuffle = h.flags & DOSHUFFLE != 0 && h.typesize > 1;
        let bitshuffle = h.flags & DOBITSHUFFLE != 0;
        let mut tmp = if shuffle || bitshuffle {
            vec![0u8; h.blocksize.min(h.nbytes)]
        } else {
            Vec::new()
        };
        let mut zstd = None;
        for (k, block) in out.chunks_mut(h.blocksize).enumerate() {
            let start =
                u32_at(input, HEADER + 4 * k).ok_or_else(|| err("missing block offset".into()))?;
            let start = to_usize(u64::from(start), "a block offset")?;
            if start < offsets_end || start > input.len() {
                return Err(err(format!("block {k} starts outside the data")));
            }
            let bsize = block.len();
            let leftover = bsize < h.blocksize;
            if !(shuffle || bitshuffle) {
                self.decode_block(input, start, h, compformat, leftover, block, &mut zstd)
                    .map_err(|e| err(format!("block {k}: {}", e.message)))?;
                continue;
            }
            let target = tmp
                .get_mut(..bsize)
                .ok_or_else(|| err("bad block size".into()))?;
            self.decode_block(input, start, h, compformat, leftover, target, &mut zstd)
                .map_err(|e| err(format!("block {k}: {}", e.message)))?;
            if shuffle {
                unshuffle(target, block, h.typesize);
            } else if bsize >= h.typesize {
                bitunshuffle(target, block, h.typesize, h.version);
            } else {
                block.copy_from_slice(target);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn decode_block(
        &self,
        input: &[u8],
        mut pos: usize,
        h: &Header,
        compformat: u8,
        leftover: bool,
        target: &mut [u8],
        zstd: &mut Option<zstd::zstd_safe::DCtx<'static>>,
    ) -> Result<()> {
        let bsize = target.len();
        let split = h.flags & DONT_SPLIT == 0
            && h.typesize <= MAX_SPLITS
            && bsize / h.typesize >= MIN_BUFFERSIZE
            && !leftover;
        let nsplits = if split { h.typesize } else { 1 };
        let neblock = bsize / nsplits;
        if neblock.checked_mul(nsplits) != Some(bsize) {
            return Err(codec_error("the block is not a whole number of streams"));
        }
        for stream in target.chunks_mut(neblock.max(1)) {
            let csize = u32_at(input, pos).ok_or_else(|| codec_error("truncated stream size"))?;
            let csize = to_usize(u64::from(csize), "a stream")?;
            pos += 4;
            let end = pos
                .checked_add(csize)
                .filter(|&e| e <= input.len())
                .ok_or_else(|| codec_error("a stream runs past the data"))?;
            let src = input.get(pos..end).unwrap_or_default();
            pos = end;
            if csize == stream.len() {
                stream.copy_from_slice(src);
                continue;
            }
            match compformat {
                0 => {
                    let n = blosclz_decompress(src, stream)
                        .ok_or_else(|| codec_error("corrupt blosclz stream"))?;
                    SizeBound::Exact(stream.len() as u64).check(n, "blosclz")?;
                }
                1 => lz4_block(src, stream, "lz4")?,
                2 => {
                    let n = snap::raw::Decoder::new()
                        .decompress(src, stream)
                        .map_err(|_| codec_error("corrupt snappy stream"))?;
                    SizeBound::Exact(stream.len() as u64).check(n, "snappy")?;
                }
                3 => super::lazy::inflate_into("zlib", src, stream, "zlib")?,
                4 => {
                    let dctx = zstd.get_or_insert_with(zstd::zstd_safe::DCtx::create);
                    super::compress::zstd_into(dctx, src, stream, "zstd")?;
                }
                other => {
                    return Err(codec_error(format!("unknown inner compressor {other}")));
                }
            }
        }
        Ok(())
    }
}

impl BytesToBytesCodec for BloscCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_bound(&self, decoded: SizeBound, _limits: &Limits) -> SizeBound {
        decoded.compressed()
    }

    #[cfg(feature = "decode")]
    fn parts(&self, out: &mut Vec<&'static str>) {
        if self.zlib {
            out.push(super::lazy::PART_DEFLATE);
        }
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        let h = self.header(input)?;
        // The header's size is checked against what the metadata allows before allocating.
        bound.check(h.nbytes, &self.name)?;
        let mut out = vec![0u8; h.nbytes];
        self.decode_frame(input, &h, &mut out)?;
        Ok(out)
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        decoding_built!();
        let h = self.header(input)?;
        SizeBound::Exact(out.len() as u64).check(h.nbytes, &self.name)?;
        self.decode_frame(input, &h, out)
    }
}

const CNAMES: &[&str] = &["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

/// `blosc` (v3: `shuffle` as a word, every key required). Decoding reads the frame's own
/// header, so no configuration value is needed to decode.
pub(crate) const BLOSC: CodecSpec = CodecSpec::v3("blosc", Kind::BytesToBytes, blosc);

fn blosc(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["cname", "clevel", "shuffle", "typesize", "blocksize"]);
    if cfg.required("cname", Need::Spec).is_some() {
        cfg.one_of("cname", CNAMES, Need::Spec);
    }
    if cfg.required("clevel", Need::Spec).is_some() {
        cfg.int("clevel", 0, 9, Need::Spec);
    }
    let shuffles = &["noshuffle", "shuffle", "bitshuffle"];
    let shuffle = match cfg.required("shuffle", Need::Spec) {
        Some(_) => cfg.one_of("shuffle", shuffles, Need::Spec),
        None => None,
    };
    if cfg.get("typesize").is_some() {
        cfg.uint("typesize", 1, Need::Spec);
    } else if shuffle.is_some_and(|s| s != "noshuffle") {
        let message = "blosc needs 'typesize' unless 'shuffle' is \"noshuffle\"".to_string();
        let at = vec![LocStep::Key("typesize".into())];
        cfg.problem(at, (ProblemKind::MissingKey, message), Need::Spec);
    }
    if cfg.required("blocksize", Need::Spec).is_some() {
        cfg.uint("blocksize", 0, Need::Spec);
    }
    Some(Built::BytesToBytes(Box::new(BloscCodec::new(cfg))))
}

/// numcodecs `blosc` (`shuffle` as a number: -1 auto, 0 none, 1 byte, 2 bit).
pub(crate) const NC_BLOSC: CodecSpec = CodecSpec {
    v3_form: V3Form::Compressor(blosc_v3),
    ..CodecSpec::numcodecs("blosc", Kind::BytesToBytes, nc_blosc)
};

/// The v3 `blosc` of a numcodecs compressor on `item_size`-byte elements.
fn blosc_v3(config: &Map<String, Value>, item_size: u64) -> NamedConfig {
    let shuffle = match config.get("shuffle").and_then(Value::as_i64) {
        Some(0) => "noshuffle",
        Some(2) => "bitshuffle",
        // numcodecs' AUTOSHUFFLE (-1): bit shuffle for 1-byte items, else byte shuffle.
        Some(-1) if item_size == 1 => "bitshuffle",
        _ => "shuffle",
    };
    let get = |key: &str, default: Value| config.get(key).cloned().unwrap_or(default);
    let config = [
        ("typesize", Value::from(item_size.max(1))),
        ("cname", get("cname", "lz4".into())),
        ("clevel", get("clevel", 5.into())),
        ("shuffle", shuffle.into()),
        ("blocksize", get("blocksize", 0.into())),
    ];
    let config = config.into_iter().map(|(k, v)| (k.to_string(), v));
    NamedConfig::new("blosc", Some(Map::from_iter(config)))
}

fn nc_blosc(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["cname", "clevel", "shuffle", "blocksize", "typesize"]);
    cfg.one_of("cname", CNAMES, Need::Spec);
    cfg.int("clevel", 0, 9, Need::Spec);
    cfg.int("shuffle", -1, 2, Need::Spec);
    cfg.uint("blocksize", 0, Need::Spec);
    cfg.uint("typesize", 1, Need::Spec);
    Some(Built::BytesToBytes(Box::new(BloscCodec::new(cfg))))
}
