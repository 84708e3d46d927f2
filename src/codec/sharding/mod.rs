//! The `sharding_indexed` codec, with a sans-I/O API for partial reads: the index's byte
//! range, index decoding, read plans with merged ranges, and inner chunk decoding. Whole
//! shards decode too (missing inner chunks read as the fill value; sharding may nest).

mod index;

pub use index::{ChunkLocation, IndexRange, PlannedChunk, ReadPlan, ShardIndex};

use super::pipeline::fill_chunk;
use super::registry::{Built, CodecSpec, Kind, Nested, Stage};
use super::{
    codec_error, num_elements, to_usize, v3, ArrayToBytesCodec, ChunkRepr, CodecPipeline,
    DecodedChunk, Limits, SizeBound,
};
use crate::document::named::NamedConfig;
use crate::dtype::{DataType, FillValue};
use crate::error::Result;
use crate::limits::Limit;
use crate::problem::config::{Config, Need};
use crate::problem::{LocStep, ProblemKind};
use serde_json::Value;

/// The `sharding_indexed` codec of one array (or of an outer shard's inner chunks).
#[derive(Debug)]
pub struct ShardingCodec {
    name: String,
    shard_shape: Vec<u64>,
    inner_shape: Vec<u64>,
    chunks_per_shard: Vec<u64>,
    inner: CodecPipeline,
    index: CodecPipeline,
    index_at_start: bool,
}

impl ShardingCodec {
    /// The sharding codec behind an array → bytes codec, if it is one.
    pub fn downcast(codec: &dyn ArrayToBytesCodec) -> Option<&ShardingCodec> {
        codec.as_any().downcast_ref::<ShardingCodec>()
    }

    /// The shape of a shard (the outer chunk).
    pub fn shard_shape(&self) -> &[u64] {
        &self.shard_shape
    }

    /// The shape of an inner chunk.
    pub fn inner_chunk_shape(&self) -> &[u64] {
        &self.inner_shape
    }

    /// How many inner chunks a shard holds along each dimension.
    pub fn chunks_per_shard(&self) -> &[u64] {
        &self.chunks_per_shard
    }

    /// The pipeline that decodes one inner chunk.
    pub fn inner_pipeline(&self) -> &CodecPipeline {
        &self.inner
    }

    /// Where the index is: its length, at the start or the end of the shard. An index
    /// longer than the limit `maxShardIndexBytes` is refused before it is read.
    pub fn index_range(&self) -> Result<IndexRange> {
        let len = match self.index.encoded_size()? {
            SizeBound::Exact(n) => n,
            SizeBound::AtMost(_) => {
                return Err(codec_error(format!(
                    "{}: the index codecs do not give the index a fixed size",
                    self.name
                )))
            }
        };
        self.index.limits().check(
            Limit::ShardIndexBytes,
            len,
            &format!("{}: the shard index's size in bytes", self.name),
        )?;
        Ok(if self.index_at_start {
            IndexRange::Prefix(len)
        } else {
            IndexRange::Suffix(len)
        })
    }

    /// Decodes the index bytes (through the index codecs; a `crc32c` among them is verified).
    pub fn decode_index(&self, bytes: &[u8]) -> Result<ShardIndex> {
        let DecodedChunk::Fixed(raw) = self.index.decode(bytes)? else {
            return Err(codec_error("the shard index did not decode to numbers"));
        };
        let words: Vec<u64> = raw
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect();
        ShardIndex::from_pairs(self.chunks_per_shard.clone(), &words)
    }

    /// Refuses an index entry (of those at `linear`, every one when `None`) longer than the
    /// inner codecs can produce from an inner chunk ([`CodecPipeline::encoded_size`]:
    /// compressors at their worst-case expansion), or ending past 2^53 − 1 (beyond what a
    /// JavaScript number, hence a Range request, holds exactly): a hostile index must not make
    /// a reader fetch hundreds of megabytes for a small chunk. Only the entries read are
    /// checked, so the shard's other inner chunks still read.
    fn check_lengths(&self, index: &ShardIndex, linear: Option<&[usize]>) -> Result<()> {
        use crate::limits::MAX_SAFE_INTEGER;
        let max_len = self.inner.encoded_size()?.max();
        let entries = index.entries();
        let all: Vec<usize>;
        let wanted = match linear {
            Some(l) => l,
            None => {
                all = (0..entries.len()).collect();
                &all
            }
        };
        for &i in wanted {
            let Some(Some(range)) = entries.get(i) else {
                continue;
            };
            let len = range.end.saturating_sub(range.start);
            if len > max_len {
                return Err(codec_error(format!(
                    "{}: shard index entry {i} claims {len} bytes for an inner chunk, more than its \
                     codecs can produce ({max_len})",
                    self.name
                )));
            }
            if range.end > MAX_SAFE_INTEGER {
                return Err(codec_error(format!(
                    "{}: shard index entry {i} ends at byte {}, past 2^53 - 1",
                    self.name, range.end
                )));
            }
        }
        Ok(())
    }

    /// The index of a whole shard's bytes, every range checked to lie inside the shard.
    pub fn index_of(&self, shard: &[u8]) -> Result<ShardIndex> {
        let len = u64::try_from(shard.len()).map_err(|_| codec_error("shard too large"))?;
        let range = self.index_range()?.resolve(len)?;
        let bytes = to_usize(range.start, "an index")
            .and_then(|s| Ok(s..to_usize(range.end, "an index")?))
            .ok()
            .and_then(|r| shard.get(r))
            .ok_or_else(|| codec_error("the shard is shorter than its index"))?;
        let index = self.decode_index(bytes)?;
        index.validate(len)?;
        Ok(index)
    }

    /// Plans the reads of `wanted` inner chunks (see [`ReadPlan::new`]).
    pub fn plan(
        &self,
        index: &ShardIndex,
        wanted: &[Vec<u64>],
        shard_len: Option<u64>,
        max_gap: u64,
    ) -> Result<ReadPlan> {
        let linear = wanted
            .iter()
            .map(|c| index.linear(c))
            .collect::<Result<Vec<_>>>()?;
        self.check_lengths(index, Some(&linear))?;
        ReadPlan::new(index, wanted, shard_len, max_gap)
    }

    /// Decodes one inner chunk's bytes (`None`: the chunk is empty and reads as the fill
    /// value).
    pub fn decode_inner(&self, bytes: Option<&[u8]>) -> Result<DecodedChunk> {
        match bytes {
            Some(bytes) => self.inner.decode(bytes),
            None => self.inner.fill_chunk(),
        }
    }

    /// Decodes a whole shard into `out` (fixed-size types) or a new chunk.
    fn decode_shard(
        &self,
        input: &[u8],
        decoded: &ChunkRepr,
        limits: &Limits,
        mut out: Option<&mut [u8]>,
    ) -> Result<Option<DecodedChunk>> {
        if decoded.shape != self.shard_shape {
            return Err(codec_error(format!(
                "{}: a shard of shape {:?} was expected, not {:?}",
                self.name, self.shard_shape, decoded.shape
            )));
        }
        let index = self.index_of(input)?;
        self.check_lengths(&index, None)?;

        let shard_shape = dims(&self.shard_shape)?;
        let inner_shape = dims(&self.inner_shape)?;
        let grid = dims(&self.chunks_per_shard)?;
        let n_inner = to_usize(num_elements(&self.chunks_per_shard)?, "a shard")?;
        let item = decoded
            .item_size()
            .map(|s| to_usize(s, "an element"))
            .transpose()?;

        let mut owned: Option<DecodedChunk> = None;
        if out.is_none() {
            let len = decoded.fixed_byte_len()?;
            owned = Some(match (item, len) {
                (Some(_), Some(len)) => {
                    limits.check(Limit::ChunkBytes, len, "a decoded shard's size in bytes")?;
                    DecodedChunk::Fixed(vec![0u8; to_usize(len, "a shard")?])
                }
                _ => fill_chunk(decoded, self.inner.fill_value(), None, limits)?,
            });
        }
        let mut coords = vec![0usize; grid.len()];
        for linear in 0..n_inner {
            let entry = index
                .entries()
                .get(linear)
                .cloned()
                .ok_or_else(|| codec_error("the shard index is shorter than its grid"))?;
            let bytes = match entry {
                Some(r) => Some(
                    input
                        .get(to_usize(r.start, "a chunk")?..to_usize(r.end, "a chunk")?)
                        .ok_or_else(|| codec_error("an inner chunk lies outside the shard"))?,
                ),
                None => None,
            };
            let chunk = self.decode_inner(bytes)?;
            let origin: Vec<usize> = coords
                .iter()
                .zip(&inner_shape)
                .map(|(&c, &s)| c.saturating_mul(s))
                .collect();
            let target = match (&mut out, &mut owned) {
                (Some(buf), _) => Target::Bytes(buf),
                (None, Some(DecodedChunk::Fixed(buf))) => Target::Bytes(buf.as_mut_slice()),
                (None, Some(DecodedChunk::Strings(v))) => Target::Strings(v),
                (None, Some(DecodedChunk::Bytes(v))) => Target::ByteStrings(v),
                // Object arrays are v2 only: no shard holds them.
                (None, Some(DecodedChunk::Json(_))) => {
                    return Err(codec_error("a shard of an object array"))
                }
                (None, None) => return Err(codec_error("no output for the shard")),
            };
            place(
                target,
                chunk,
                &shard_shape,
                &inner_shape,
                &origin,
                item.unwrap_or(1),
            )?;
            // Next inner chunk coordinates, C order.
            for (c, &n) in coords.iter_mut().zip(&grid).rev() {
                *c += 1;
                if *c < n {
                    break;
                }
                *c = 0;
            }
        }
        Ok(owned)
    }
}

/// A shape's dimensions as `usize`.
pub(crate) fn dims(shape: &[u64]) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(shape.len());
    for &d in shape {
        out.push(to_usize(d, "a dimension")?);
    }
    Ok(out)
}

enum Target<'a> {
    Bytes(&'a mut [u8]),
    Strings(&'a mut Vec<String>),
    ByteStrings(&'a mut Vec<Vec<u8>>),
}

/// Copies an inner chunk (C order, shape `block`) into the shard at `origin`.
fn place(
    target: Target<'_>,
    chunk: DecodedChunk,
    shard: &[usize],
    block: &[usize],
    origin: &[usize],
    item: usize,
) -> Result<()> {
    let mismatch = || codec_error("an inner chunk does not fit its place in the shard");
    match (target, chunk) {
        (Target::Bytes(dst), DecodedChunk::Fixed(src)) => {
            copy_block(dst, shard, &src, block, origin, item).ok_or_else(mismatch)
        }
        (Target::Strings(dst), DecodedChunk::Strings(src)) => {
            copy_block(dst, shard, &src, block, origin, 1).ok_or_else(mismatch)
        }
        (Target::ByteStrings(dst), DecodedChunk::Bytes(src)) => {
            copy_block(dst, shard, &src, block, origin, 1).ok_or_else(mismatch)
        }
        _ => Err(mismatch()),
    }
}

/// Copies `src` (C order, shape `block`, `unit` slots per element) into `dst` (C order,
/// shape `shape`) at `origin`, one contiguous row at a time.
fn copy_block<T: Clone>(
    dst: &mut [T],
    shape: &[usize],
    src: &[T],
    block: &[usize],
    origin: &[usize],
    unit: usize,
) -> Option<()> {
    let ndim = shape.len();
    if block.contains(&0) {
        return Some(());
    }
    let Some((&row, outer)) = block.split_last() else {
        dst.get_mut(..unit)?.clone_from_slice(src.get(..unit)?);
        return Some(());
    };
    let row_len = row.checked_mul(unit)?;
    // Strides of the destination, in slots.
    let mut strides = vec![0usize; ndim];
    let mut acc = unit;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc = acc.checked_mul(d)?;
    }
    let mut index = vec![0usize; outer.len()];
    let mut src_pos = 0usize;
    loop {
        let mut dst_pos = 0usize;
        for (d, (&o, &s)) in origin.iter().zip(&strides).enumerate() {
            let i = index.get(d).copied().unwrap_or(0);
            dst_pos = dst_pos.checked_add(o.checked_add(i)?.checked_mul(s)?)?;
        }
        let src_end = src_pos.checked_add(row_len)?;
        dst.get_mut(dst_pos..dst_pos.checked_add(row_len)?)?
            .clone_from_slice(src.get(src_pos..src_end)?);
        src_pos = src_end;
        let mut d = outer.len();
        loop {
            if d == 0 {
                return Some(());
            }
            d -= 1;
            let i = index.get_mut(d)?;
            *i += 1;
            if *i < *outer.get(d)? {
                break;
            }
            *i = 0;
        }
    }
}

impl ArrayToBytesCodec for ShardingCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn encoded_size(&self, _decoded: &ChunkRepr, limits: &Limits) -> Result<SizeBound> {
        Ok(SizeBound::AtMost(limits.max_chunk_bytes))
    }

    #[cfg(feature = "decode")]
    fn parts(&self, out: &mut Vec<&'static str>) {
        self.inner.collect_parts(out);
        self.index.collect_parts(out);
    }

    fn set_limits(&mut self, limits: Limits) {
        self.inner.set_limits(limits);
        self.index.set_limits(limits);
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        self.decode_shard(input, decoded, limits, None)?
            .ok_or_else(|| codec_error("the shard decoded to nothing"))
    }

    fn decode_into(
        &self,
        input: &[u8],
        decoded: &ChunkRepr,
        limits: &Limits,
        out: &mut [u8],
    ) -> Result<()> {
        decoding_built!();
        let len = decoded
            .fixed_byte_len()?
            .ok_or_else(|| codec_error("decode_into needs a fixed-size type"))?;
        if out.len() as u64 != len {
            return Err(codec_error("the output buffer does not fit the shard"));
        }
        self.decode_shard(input, decoded, limits, Some(out))
            .map(|_| ())
    }
}

/// `sharding_indexed`. Its nested `codecs` and `index_codecs` are pipelines of their own:
/// the decoder builds them here, the validator checks them as pipelines, with their own
/// locations (`crate::validate::sharding`).
pub(crate) const SHARDING: CodecSpec =
    CodecSpec::v3("sharding_indexed", Kind::ArrayToBytes, configure);

fn configure(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["chunk_shape", "codecs", "index_codecs", "index_location"]);
    if stage.index {
        let message =
            "sharding_indexed gives a variable-size encoding; not allowed in index_codecs";
        cfg.refuse(ProblemKind::InvalidValue, message.into(), Need::Spec);
    }
    cfg.required("chunk_shape", Need::Decode);
    let inner = cfg.uint_list("chunk_shape", 1, Need::Decode);
    let index_at_start =
        cfg.one_of("index_location", &["start", "end"], Need::Decode) == Some("start");
    let codecs = cfg.required("codecs", Need::Decode);
    let index_codecs = cfg.required("index_codecs", Need::Decode);
    let mut per_shard = None;
    if let (Some(inner), Some(outer)) = (&inner, &stage.shape) {
        per_shard = chunks_per_shard(cfg, inner, outer);
    }
    // What the nested pipelines receive, for the validator.
    let nested = Nested {
        inner: Stage {
            shape: inner.clone(),
            nested: None,
            index: false,
            ..stage.clone()
        },
        chunks_per_shard: per_shard.clone(),
    };
    let fill = stage.fill.clone();
    stage.nested = Some(Box::new(nested));
    let (fill, inner, per_shard, dtype) = (fill?, inner?, per_shard?, stage.dtype.clone()?);
    let (codecs, index_codecs) = (
        list(cfg, "codecs", codecs?)?,
        list(cfg, "index_codecs", index_codecs?)?,
    );
    if cfg.failed() {
        return None;
    }
    let inner_pipeline = cfg.built(v3::build(
        &codecs,
        ChunkRepr::new(inner.clone(), dtype),
        fill,
    ))?;
    let mut index_shape = per_shard.clone();
    index_shape.push(2);
    let index = cfg.built(v3::build(
        &index_codecs,
        ChunkRepr::new(index_shape, DataType::UInt64),
        FillValue::UInt(u64::MAX),
    ))?;
    Some(Built::ArrayToBytes(Box::new(ShardingCodec {
        name: cfg.name.to_string(),
        shard_shape: stage.shape.clone()?,
        inner_shape: inner,
        chunks_per_shard: per_shard,
        inner: inner_pipeline,
        index,
        index_at_start,
    })))
}

/// Inner chunks per shard along each dimension, or `None` (with problems) when the inner
/// chunk shape does not divide the shard shape.
fn chunks_per_shard(cfg: &mut Config, inner: &[u64], outer: &[u64]) -> Option<Vec<u64>> {
    let at = |i: Option<usize>| {
        let mut loc = vec![LocStep::Key("chunk_shape".into())];
        loc.extend(i.map(LocStep::Index));
        loc
    };
    if inner.len() != outer.len() {
        let message = format!(
            "sharding 'chunk_shape' has {} dimensions; the shard shape {outer:?} has {}",
            inner.len(),
            outer.len()
        );
        cfg.problem(at(None), (ProblemKind::InvalidValue, message), Need::Decode);
        return None;
    }
    let mut counts = Vec::with_capacity(inner.len());
    for (i, (&n, &m)) in inner.iter().zip(outer).enumerate() {
        match (m.checked_rem(n), m.checked_div(n)) {
            (Some(0), Some(count)) => counts.push(count),
            _ => {
                let message =
                    format!("inner chunk length {n} does not divide the shard length {m}");
                cfg.problem(
                    at(Some(i)),
                    (ProblemKind::InvalidValue, message),
                    Need::Decode,
                );
            }
        }
    }
    (counts.len() == inner.len()).then_some(counts)
}

/// A nested codec list, parsed.
fn list(cfg: &mut Config, key: &str, value: &Value) -> Option<Vec<NamedConfig>> {
    let Some(items) = value.as_array() else {
        let message = format!("sharding '{key}' must be an array");
        cfg.problem(
            vec![LocStep::Key(key.into())],
            (ProblemKind::InvalidType, message),
            Need::Decode,
        );
        return None;
    };
    let mut codecs = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match NamedConfig::from_value(item) {
            Ok(named) => codecs.push(named),
            Err(e) => {
                let at = vec![LocStep::Key(key.into()), LocStep::Index(i)];
                cfg.problem(
                    at,
                    (ProblemKind::InvalidValue, format!("{key}: {e}")),
                    Need::Decode,
                );
                return None;
            }
        }
    }
    Some(codecs)
}
