//! The `n5_default` array → bytes codec (zarr-extensions): N5 blocks in "default" mode. A
//! block is a header (mode `0x0000`, the number of dimensions, then each dimension's length,
//! big-endian, in N5's axis order, the reverse of Zarr's) and the data, which the nested
//! `codecs` (a full `transpose`, a big-endian `bytes`, at most one bytes → bytes codec)
//! decode in the block's own shape. A block smaller or larger than the chunk (N5 writers
//! truncate edge blocks, or pad them) is cut or padded with the fill value to the chunk.

use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{
    bad_config, codec_error, v3, ArrayToBytesCodec, ChunkRepr, CodecPipeline, DecodedChunk, Limits,
    SizeBound,
};
use crate::chunk::{AxisSelection, ChunkRead, ResolvedSelection};
use crate::document::named::NamedConfig;
use crate::dtype::FillValue;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{LocStep, ProblemKind};

/// `n5_default`.
pub(crate) const N5_DEFAULT: CodecSpec =
    CodecSpec::v3("n5_default", Kind::ArrayToBytes, n5_default);

/// Decodes N5 default-mode blocks.
#[derive(Debug)]
pub(crate) struct N5DefaultCodec {
    name: String,
    codecs: Vec<NamedConfig>,
    fill: FillValue,
    /// The nested pipeline for blocks of the chunk's own shape.
    whole: CodecPipeline,
}

fn n5_default(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["codecs"]);
    let items = cfg.array("codecs", Need::Decode)?;
    let mut codecs = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match NamedConfig::from_value(item) {
            Ok(named) => codecs.push(named),
            Err(e) => {
                let at = vec![LocStep::Key("codecs".into()), LocStep::Index(i)];
                let message = format!("n5_default 'codecs'[{i}]: {e}");
                cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
            }
        }
    }
    let rank = stage.shape.as_ref().map(Vec::len);
    let names: Vec<&str> = codecs.iter().map(|c| c.name.as_str()).collect();
    let order_reversed = codecs
        .first()
        .and_then(|t| t.get("order"))
        .is_some_and(|o| {
            let order: Option<Vec<u64>> = o
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_u64()).collect());
            match (order, rank) {
                (Some(order), Some(rank)) => {
                    order.len() == rank
                        && order.iter().rev().enumerate().all(|(i, &a)| a == i as u64)
                }
                (Some(_), None) => true,
                _ => false,
            }
        });
    let shape_ok = matches!(
        names.as_slice(),
        ["transpose", "bytes"] | ["transpose", "bytes", _]
    );
    if !shape_ok || !order_reversed {
        let message = "n5_default 'codecs' must be a transpose reversing every dimension, a big-endian bytes, and at most one bytes → bytes codec".to_string();
        let at = vec![LocStep::Key("codecs".into())];
        cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
    }
    let big_endian = codecs
        .get(1)
        .and_then(|b| b.get("endian"))
        .and_then(|e| e.as_str());
    let one_byte = stage
        .dtype
        .as_ref()
        .and_then(|d| d.fixed_size())
        .is_some_and(|s| s == 1);
    if shape_ok && big_endian != Some("big") && !(one_byte && big_endian.is_none()) {
        let message =
            "n5_default's bytes codec must be big-endian (\"endian\": \"big\")".to_string();
        let at = vec![LocStep::Key("codecs".into()), LocStep::Index(1)];
        cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
    }
    if cfg.failed() {
        return None;
    }
    // The nested pipeline, where the chunk is known (the decoder's build).
    let (Some(dtype), Some(shape), Some(fill)) = (&stage.dtype, &stage.shape, &stage.fill) else {
        return None;
    };
    let whole = cfg.built(v3::build(
        &codecs,
        ChunkRepr::new(shape.clone(), dtype.clone()),
        fill.clone(),
    ))?;
    Some(Built::ArrayToBytes(Box::new(N5DefaultCodec {
        name: cfg.name.to_string(),
        codecs,
        fill: fill.clone(),
        whole,
    })))
}

/// A big-endian integer of `N` bytes at `at`.
fn be<const N: usize>(input: &[u8], at: usize) -> Option<[u8; N]> {
    input.get(at..at.checked_add(N)?)?.try_into().ok()
}

impl N5DefaultCodec {
    /// The block's shape in Zarr's axis order, and where its data starts.
    fn header(&self, input: &[u8], rank: usize) -> Result<(Vec<u64>, usize)> {
        let bad = |what: &str| codec_error(format!("{}: {what}", self.name));
        let mode = be::<2>(input, 0).map(u16::from_be_bytes);
        match mode {
            Some(0) => {}
            Some(1) => {
                return Err(bad(
                    "the block is in N5's varlength mode; only default mode is read",
                ))
            }
            Some(m) => {
                return Err(bad(&format!(
                    "the block's mode is {m}; only default mode (0) is read"
                )))
            }
            None => return Err(bad("the block is shorter than its header")),
        }
        let ndim = be::<2>(input, 2)
            .map(u16::from_be_bytes)
            .ok_or_else(|| bad("the block is shorter than its header"))?;
        if usize::from(ndim) != rank {
            return Err(bad(&format!(
                "the block has {ndim} dimensions; the array has {rank}"
            )));
        }
        let mut shape = Vec::with_capacity(rank);
        for d in 0..rank {
            let len = be::<4>(input, 4 + 4 * d)
                .map(u32::from_be_bytes)
                .ok_or_else(|| bad("the block is shorter than its header"))?;
            shape.push(u64::from(len));
        }
        shape.reverse();
        Ok((shape, 4 + 4 * rank))
    }

    /// Copies the part of `block` (of `block_shape`) inside a chunk of `chunk_shape` into
    /// `out`, which holds the fill value elsewhere: the block read as a chunk whose
    /// selection is the part both cover.
    fn place(
        block: &[u8],
        block_shape: &[u64],
        chunk_shape: &[u64],
        item: usize,
        out: &mut [u8],
    ) -> Result<()> {
        let common = block_shape
            .iter()
            .zip(chunk_shape)
            .map(|(b, c)| AxisSelection::all(*b.min(c)));
        let read = ChunkRead {
            coords: vec![0; chunk_shape.len()],
            chunk_shape: block_shape.to_vec(),
            selection: ResolvedSelection {
                axes: common.collect(),
                output_shape: chunk_shape.to_vec(),
            },
        };
        read.copy_into(out, item as u64, block)
    }
}

impl ArrayToBytesCodec for N5DefaultCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn encoded_size(&self, decoded: &ChunkRepr, limits: &Limits) -> Result<SizeBound> {
        // A block may be padded past the chunk or truncated; its header names its shape.
        let header = 4 + 4 * decoded.shape.len() as u64;
        let data = self.whole.encoded_size()?;
        let _ = limits;
        Ok(SizeBound::AtMost(data.max().saturating_add(header)).compressed())
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        let rank = decoded.shape.len();
        let (block_shape, start) = self.header(input, rank)?;
        let data = input.get(start..).unwrap_or_default();
        if block_shape == decoded.shape {
            return self.whole.decode(data);
        }
        let item = decoded
            .data_type
            .fixed_size()
            .and_then(|s| usize::try_from(s).ok())
            .filter(|&s| s > 0)
            .ok_or_else(|| bad_config(&self.name, "N5 blocks hold fixed-size numbers only"))?;
        // The block's elements may not outnumber what the limits allow a chunk.
        let elements = crate::chunk::checked_product(&block_shape, "the N5 block")?;
        limits.check(
            crate::limits::Limit::ChunkBytes,
            elements.saturating_mul(item as u64),
            "an N5 block's size in bytes",
        )?;
        let block = v3::build(
            &self.codecs,
            ChunkRepr::new(block_shape.clone(), decoded.data_type.clone()),
            self.fill.clone(),
        )?
        .with_limits(*limits)
        .decode(data)?;
        let DecodedChunk::Fixed(block) = block else {
            return Err(bad_config(
                &self.name,
                "N5 blocks hold fixed-size numbers only",
            ));
        };
        let DecodedChunk::Fixed(mut out) = self.whole.fill_chunk()? else {
            return Err(bad_config(
                &self.name,
                "N5 blocks hold fixed-size numbers only",
            ));
        };
        Self::place(&block, &block_shape, &decoded.shape, item, &mut out)?;
        Ok(DecodedChunk::Fixed(out))
    }

    fn set_limits(&mut self, limits: Limits) {
        self.whole.set_limits(limits);
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::{CodecPipeline, DecodedChunk};
    use crate::document::named::NamedConfig;
    use crate::dtype::{DataType, FillValue};
    use serde_json::{json, Value};

    fn pipeline(nested: Value, chunk: &[u64]) -> crate::error::Result<CodecPipeline> {
        let codec = json!({"name": "n5_default", "configuration": {"codecs": nested}});
        let codecs = [NamedConfig::from_value(&codec).unwrap()];
        CodecPipeline::from_v3(&codecs, &DataType::UInt16, chunk, &FillValue::UInt(9))
    }

    /// A default-mode block of Zarr shape `shape` holding `values` in N5's order.
    fn block(shape: &[u32], values: &[u16]) -> Vec<u8> {
        let mut out = vec![0, 0];
        out.extend((shape.len() as u16).to_be_bytes());
        for &d in shape.iter().rev() {
            out.extend(d.to_be_bytes());
        }
        for v in values {
            out.extend(v.to_be_bytes());
        }
        out
    }

    fn u16s(chunk: DecodedChunk) -> Vec<u16> {
        match chunk {
            DecodedChunk::Fixed(b) => b
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_whole_truncated_and_padded_blocks() {
        let nested = json!([{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "big"}}]);
        let codec = pipeline(nested.clone(), &[2, 3]).unwrap();
        // Zarr [[1, 2, 3], [4, 5, 6]] is N5's column-major 1, 4, 2, 5, 3, 6.
        let whole = block(&[2, 3], &[1, 4, 2, 5, 3, 6]);
        assert_eq!(u16s(codec.decode(&whole).unwrap()), [1, 2, 3, 4, 5, 6]);
        // A truncated edge block: [[1, 2], [4, 5]], the rest the fill value.
        let truncated = block(&[2, 2], &[1, 4, 2, 5]);
        assert_eq!(u16s(codec.decode(&truncated).unwrap()), [1, 2, 9, 4, 5, 9]);
        // A block larger than the chunk is cut.
        let padded = block(&[3, 3], &[1, 4, 7, 2, 5, 8, 3, 6, 9]);
        assert_eq!(u16s(codec.decode(&padded).unwrap()), [1, 2, 3, 4, 5, 6]);
        let mut varlength = whole.clone();
        varlength[1] = 1;
        assert!(codec.decode(&varlength).is_err());
        assert!(codec.decode(&whole[..5]).is_err());
    }

    #[test]
    fn refuses_nested_codecs_the_spec_forbids() {
        for bad in [
            json!([{"name": "bytes", "configuration": {"endian": "big"}}]),
            json!([{"name": "transpose", "configuration": {"order": [0, 1]}}, {"name": "bytes", "configuration": {"endian": "big"}}]),
            json!([{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}]),
        ] {
            assert!(pipeline(bad.clone(), &[2, 3]).is_err(), "{bad}");
        }
    }
}
