//! The `vlen-utf8`, `vlen-bytes` and `vlen-array` array → bytes codecs (numcodecs' framing: a
//! u32 LE item count, then for each item a u32 LE length and its bytes). A `vlen-array` item
//! is a 1-D array of numbers in the codec's `dtype` byte order; it decodes to its
//! little-endian element bytes.

use super::registry::{Built, CodecSpec, Kind, Stage, V3Form};
use super::{codec_error, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::dtype::DataType;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::ProblemKind;

/// Which kind of values a vlen codec holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VlenKind {
    /// UTF-8 strings.
    Utf8,
    /// Byte strings.
    Bytes,
    /// 1-D numeric arrays of `item_size`-byte values, byte-swapped in `swap_unit`-byte units
    /// when the codec's dtype is big-endian.
    Array {
        /// Bytes per value.
        item_size: usize,
        /// The unit to reverse (the value, or each half of a complex), or `None` to keep.
        swap_unit: Option<usize>,
    },
}

/// `vlen-utf8` / `vlen-bytes`.
#[derive(Clone, Debug)]
pub(crate) struct VlenCodec {
    name: String,
    kind: VlenKind,
}

impl VlenCodec {
    /// A vlen codec of the given kind.
    pub(crate) fn new(name: &str, kind: VlenKind) -> VlenCodec {
        VlenCodec {
            name: name.to_string(),
            kind,
        }
    }
}

impl VlenCodec {
    /// One `vlen-array` item's values, little-endian.
    fn array_item(
        &self,
        i: usize,
        bytes: &[u8],
        item_size: usize,
        swap_unit: Option<usize>,
    ) -> Result<Vec<u8>> {
        if item_size == 0 || !bytes.len().is_multiple_of(item_size) {
            return Err(codec_error(format!(
                "{}: item {i} has {} bytes, not a whole number of {item_size}-byte values",
                self.name,
                bytes.len()
            )));
        }
        let mut out = bytes.to_vec();
        if let Some(unit) = swap_unit.filter(|&u| u > 1) {
            for value in out.chunks_exact_mut(unit) {
                value.reverse();
            }
        }
        Ok(out)
    }
}

fn read_u32(input: &[u8], pos: &mut usize) -> Option<usize> {
    let end = pos.checked_add(4)?;
    let b = input.get(*pos..end)?;
    *pos = end;
    usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
}

/// Splits a vlen-encoded buffer into its `expected` items.
pub(crate) fn split_items<'a>(input: &'a [u8], expected: u64, who: &str) -> Result<Vec<&'a [u8]>> {
    let mut pos = 0usize;
    let n = read_u32(input, &mut pos)
        .ok_or_else(|| codec_error(format!("{who}: the buffer is too short for its header")))?;
    if n as u64 != expected {
        return Err(codec_error(format!(
            "{who}: the buffer holds {n} items, the chunk has {expected} elements"
        )));
    }
    // Every item needs at least its 4-byte length, so this bounds the allocation by the input.
    let mut items = Vec::with_capacity(n.min(input.len() / 4));
    for i in 0..n {
        let len = read_u32(input, &mut pos)
            .ok_or_else(|| codec_error(format!("{who}: item {i} has no length")))?;
        let end = pos
            .checked_add(len)
            .filter(|&e| e <= input.len())
            .ok_or_else(|| codec_error(format!("{who}: item {i} runs past the buffer")))?;
        items.push(input.get(pos..end).unwrap_or_default());
        pos = end;
    }
    if pos != input.len() {
        return Err(codec_error(format!(
            "{who}: {} bytes left over after the last item",
            input.len() - pos
        )));
    }
    Ok(items)
}

impl ArrayToBytesCodec for VlenCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: &DecodedChunk, _decoded: &ChunkRepr) -> Result<Vec<u8>> {
        use super::encode::vlen_frame;
        match (self.kind, input) {
            (VlenKind::Utf8 | VlenKind::Bytes, DecodedChunk::Strings(s)) => {
                vlen_frame(s.iter().map(|s| s.as_bytes()))
            }
            (VlenKind::Bytes, DecodedChunk::Bytes(b)) => vlen_frame(b.iter().map(Vec::as_slice)),
            (
                VlenKind::Array {
                    item_size,
                    swap_unit,
                },
                DecodedChunk::Bytes(b),
            ) => {
                // Back to the codec's byte order: the same swap as on decode.
                let mut items = Vec::with_capacity(b.len());
                for (i, v) in b.iter().enumerate() {
                    items.push(self.array_item(i, v, item_size, swap_unit)?);
                }
                vlen_frame(items.iter().map(Vec::as_slice))
            }
            _ => Err(codec_error(format!(
                "{}: the values do not fit the codec",
                self.name
            ))),
        }
    }

    fn encoded_size(&self, _decoded: &ChunkRepr, limits: &Limits) -> Result<SizeBound> {
        Ok(SizeBound::AtMost(limits.max_chunk_bytes))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, _limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        let items = split_items(input, decoded.num_elements()?, &self.name)?;
        match (self.kind, &decoded.data_type) {
            (VlenKind::Utf8, DataType::String) => {
                let mut strings = Vec::with_capacity(items.len());
                for (i, b) in items.into_iter().enumerate() {
                    strings.push(String::from_utf8(b.to_vec()).map_err(|_| {
                        codec_error(format!("{}: item {i} is not valid UTF-8", self.name))
                    })?);
                }
                Ok(DecodedChunk::Strings(strings))
            }
            (_, DataType::Bytes(_)) => Ok(DecodedChunk::Bytes(
                items.into_iter().map(<[u8]>::to_vec).collect(),
            )),
            (
                VlenKind::Array {
                    item_size,
                    swap_unit,
                },
                DataType::VlenArray { .. },
            ) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, b) in items.into_iter().enumerate() {
                    out.push(self.array_item(i, b, item_size, swap_unit)?);
                }
                Ok(DecodedChunk::Bytes(out))
            }
            (VlenKind::Array { .. }, _) | (_, DataType::VlenArray { .. }) => Err(codec_error(
                format!("{} does not match the array's data type", self.name),
            )),
            (VlenKind::Bytes, DataType::String) => Ok(DecodedChunk::Strings(
                items
                    .into_iter()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .collect(),
            )),
            (_, other) => Err(codec_error(format!(
                "{} cannot decode data type {}",
                self.name,
                other.to_v3().name
            ))),
        }
    }
}

const fn object_spec(id: &'static str, configure: super::registry::Configure) -> CodecSpec {
    CodecSpec {
        object: true,
        ..CodecSpec::numcodecs(id, Kind::ArrayToBytes, configure)
    }
}

/// `vlen-utf8` (also written `numcodecs.vlen-utf8`).
pub(crate) const VLEN_UTF8: CodecSpec = CodecSpec {
    aliases: &["numcodecs.vlen-utf8"],
    ..CodecSpec::v3("vlen-utf8", Kind::ArrayToBytes, utf8)
};

/// `vlen-bytes` (also written `numcodecs.vlen-bytes`).
pub(crate) const VLEN_BYTES: CodecSpec = CodecSpec {
    aliases: &["numcodecs.vlen-bytes"],
    ..CodecSpec::v3("vlen-bytes", Kind::ArrayToBytes, bytes)
};

/// numcodecs `vlen-utf8`, a v2 object codec.
pub(crate) const NC_VLEN_UTF8: CodecSpec = CodecSpec {
    v3_form: V3Form::Named("vlen-utf8"),
    ..object_spec("vlen-utf8", utf8)
};

/// numcodecs `vlen-bytes`, a v2 object codec.
pub(crate) const NC_VLEN_BYTES: CodecSpec = CodecSpec {
    v3_form: V3Form::Named("vlen-bytes"),
    ..object_spec("vlen-bytes", bytes)
};

/// numcodecs `vlen-array`, a v2 object codec: each element a 1-D array of `dtype`.
pub(crate) const NC_VLEN_ARRAY: CodecSpec = CodecSpec {
    v3_form: V3Form::None,
    ..object_spec("vlen-array", array)
};

fn utf8(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    vlen(cfg, stage, VlenKind::Utf8)
}

fn bytes(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    vlen(cfg, stage, VlenKind::Bytes)
}

fn vlen(cfg: &mut Config, stage: &Stage, kind: VlenKind) -> Option<Built> {
    cfg.allow(&[]);
    if let Some(dtype) = &stage.dtype {
        let (fits, want) = match kind {
            VlenKind::Utf8 => (matches!(dtype, DataType::String), "string"),
            _ => (matches!(dtype, DataType::Bytes(_)), "bytes"),
        };
        if !fits {
            let message = format!(
                "'{}' encodes only the {want} data type, not '{}'",
                cfg.name,
                dtype.to_v3().name
            );
            cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
            return None;
        }
    }
    Some(Built::ArrayToBytes(Box::new(VlenCodec::new(
        cfg.name, kind,
    ))))
}

fn array(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["dtype"]);
    cfg.required("dtype", Need::Spec);
    let written = super::typestring_member(cfg, "dtype", Need::Spec);
    let item = match &stage.dtype {
        Some(DataType::VlenArray { item }) => item,
        None => return None,
        Some(_) => {
            let message = "vlen-array needs an object (|O) array".to_string();
            cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
            return None;
        }
    };
    let Some(item_size) = item
        .fixed_size()
        .and_then(|s| usize::try_from(s).ok())
        .filter(|&s| s > 0)
    else {
        let message = "vlen-array 'dtype' must be a numeric type".to_string();
        cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
        return None;
    };
    // numcodecs writes the items in the byte order its dtype names.
    let big = written.is_some_and(|s| s.starts_with('>'));
    let complex = matches!(**item, DataType::Complex64 | DataType::Complex128);
    let unit = if complex { item_size / 2 } else { item_size };
    let kind = VlenKind::Array {
        item_size,
        swap_unit: big.then_some(unit),
    };
    Some(Built::ArrayToBytes(Box::new(VlenCodec::new(
        cfg.name, kind,
    ))))
}
