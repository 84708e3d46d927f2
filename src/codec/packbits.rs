//! Bit packing: numcodecs' `packbits` filter (booleans, most significant bit first, a leading
//! byte counting the padding bits) and the zarr-extensions `packbits` array → bytes codec
//! (any number of low bits of each element, least significant bit first).

use super::registry::{Built, CodecSpec, Filter, Kind, Stage};
use super::{
    codec_error, to_usize, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    DecodedChunk, Limits, SizeBound,
};
use crate::dtype::DataType;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{LocStep, ProblemKind};

/// numcodecs' `packbits`.
#[derive(Clone, Debug)]
pub(crate) struct NumcodecsPackBits {
    name: String,
}

impl NumcodecsPackBits {
    /// The filter.
    pub(crate) fn new(name: &str) -> NumcodecsPackBits {
        NumcodecsPackBits {
            name: name.to_string(),
        }
    }

    fn unpack(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        let (&padding, packed) = input
            .split_first()
            .ok_or_else(|| codec_error(format!("{}: empty input", self.name)))?;
        if padding > 7 || (packed.is_empty() && padding > 0) {
            return Err(codec_error(format!(
                "{}: bad padding count {padding}",
                self.name
            )));
        }
        let bits = packed
            .len()
            .checked_mul(8)
            .and_then(|b| b.checked_sub(usize::from(padding)))
            .ok_or_else(|| codec_error(format!("{}: size overflows", self.name)))?;
        bound.check(bits, &self.name)?;
        let mut out = Vec::with_capacity(bits);
        for &byte in packed {
            for shift in (0..8).rev() {
                out.push((byte >> shift) & 1);
            }
        }
        out.truncate(bits);
        Ok(out)
    }
}

impl Filter for NumcodecsPackBits {
    fn into_array_codec(self: Box<Self>) -> Box<dyn ArrayToArrayCodec> {
        self
    }

    fn into_bytes_codec(self: Box<Self>) -> Box<dyn BytesToBytesCodec> {
        self
    }
}

impl BytesToBytesCodec for NumcodecsPackBits {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_bound(&self, decoded: SizeBound, _limits: &Limits) -> SizeBound {
        match decoded {
            SizeBound::Exact(n) => SizeBound::Exact(n.div_ceil(8).saturating_add(1)),
            SizeBound::AtMost(n) => SizeBound::AtMost(n.div_ceil(8).saturating_add(1)),
        }
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        self.unpack(input, bound)
    }
}

impl ArrayToArrayCodec for NumcodecsPackBits {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr> {
        if decoded.data_type != DataType::Bool {
            return Err(codec_error(format!("{}: needs a bool array", self.name)));
        }
        let n = decoded.num_elements()?;
        Ok(ChunkRepr::new(
            vec![n.div_ceil(8).saturating_add(1)],
            DataType::UInt8,
        ))
    }

    fn decode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk> {
        decoding_built!();
        let DecodedChunk::Fixed(bytes) = input else {
            return Err(codec_error(format!("{}: expected bytes", self.name)));
        };
        let n = decoded.num_elements()?;
        self.unpack(&bytes, SizeBound::Exact(n))
            .map(DecodedChunk::Fixed)
    }
}

/// Where the zarr-extensions codec stores the padding bit count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Padding {
    None,
    FirstByte,
    LastByte,
}

/// The zarr-extensions `packbits` array → bytes codec.
#[derive(Clone, Debug)]
pub(crate) struct PackBitsCodec {
    name: String,
    padding: Padding,
    first_bit: Option<u64>,
    last_bit: Option<u64>,
}

/// Bits per component, components per element, and signedness (sign-extended when unpacked)
/// of a data type, from its numeric entry.
fn layout(data_type: &DataType) -> Option<(u32, usize, bool)> {
    let numeric = data_type.numeric()?;
    let signed = numeric.kind == crate::dtype::NumericKind::Signed;
    Some((numeric.value_bits(), numeric.components(), signed))
}

impl PackBitsCodec {
    /// (first bit, bits kept, bits per component, components, signed).
    fn params(&self, data_type: &DataType) -> Result<(u32, u32, u32, usize, bool)> {
        let (n, components, signed) = layout(data_type).ok_or_else(|| {
            codec_error(format!(
                "{}: data type {} cannot be packed",
                self.name,
                data_type.to_v3().name
            ))
        })?;
        let first = self.first_bit.unwrap_or(0);
        let last = self.last_bit.unwrap_or(u64::from(n) - 1);
        if last < first || last >= u64::from(n) {
            return Err(codec_error(format!(
                "{}: bad bit range {first}..={last}",
                self.name
            )));
        }
        let first = first as u32;
        Ok((first, last as u32 - first + 1, n, components, signed))
    }
}

impl ArrayToBytesCodec for PackBitsCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn encoded_size(&self, decoded: &ChunkRepr, _limits: &Limits) -> Result<SizeBound> {
        let (_, b, _, components, _) = self.params(&decoded.data_type)?;
        let bits = decoded
            .num_elements()?
            .checked_mul(components as u64)
            .and_then(|c| c.checked_mul(u64::from(b)))
            .ok_or_else(|| codec_error("packbits: size overflows"))?;
        let extra = u64::from(self.padding != Padding::None);
        Ok(SizeBound::Exact(bits.div_ceil(8).saturating_add(extra)))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        self.encoded_size(decoded, limits)?
            .check(input.len(), &self.name)?;
        let (first, b, n, components, signed) = self.params(&decoded.data_type)?;
        let packed = match self.padding {
            Padding::None => input,
            Padding::FirstByte => input.get(1..).unwrap_or_default(),
            Padding::LastByte => input
                .get(..input.len().saturating_sub(1))
                .unwrap_or_default(),
        };
        let count = to_usize(decoded.num_elements()?, "a chunk")?
            .checked_mul(components)
            .ok_or_else(|| codec_error("packbits: size overflows"))?;
        let unit = ((n as usize) / 8).max(1);
        let mut out = vec![
            0u8;
            count
                .checked_mul(unit)
                .ok_or_else(|| codec_error("overflow"))?
        ];
        // Bit positions in u64: on wasm32 a chunk of over 512 MiB has more bits than a usize
        // counts.
        let mut bitpos = 0u64;
        for slot in out.chunks_exact_mut(unit) {
            let mut v = 0u64;
            for k in 0..b {
                let pos = bitpos.saturating_add(u64::from(k));
                let bit = usize::try_from(pos / 8)
                    .ok()
                    .and_then(|i| packed.get(i))
                    .map_or(0, |byte| (byte >> (pos % 8)) & 1);
                v |= u64::from(bit) << k;
            }
            bitpos = bitpos.saturating_add(u64::from(b));
            let mut v = v << first;
            let top = first + b;
            if signed && top < 64 && (v >> (top - 1)) & 1 == 1 {
                v |= u64::MAX << top;
            }
            let bytes = v.to_le_bytes();
            slot.copy_from_slice(bytes.get(..unit).unwrap_or_default());
        }
        Ok(DecodedChunk::Fixed(out))
    }
}

/// numcodecs `packbits` (booleans).
pub(crate) const NC_PACKBITS: CodecSpec =
    CodecSpec::numcodecs("packbits", Kind::ArrayToArray, nc_packbits);

fn nc_packbits(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&[]);
    Some(Built::Filter(Box::new(NumcodecsPackBits::new(cfg.name))))
}

/// `packbits` (zarr-extensions): bits `first_bit..=last_bit` of each element (or component).
pub(crate) const PACKBITS: CodecSpec = CodecSpec::v3("packbits", Kind::ArrayToBytes, packbits);

fn packbits(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["padding_encoding", "first_bit", "last_bit"]);
    // `start_byte` / `end_byte` are the names of an earlier draft.
    let encodings = &["first_byte", "last_byte", "none", "start_byte", "end_byte"];
    let padding = match cfg.one_of("padding_encoding", encodings, Need::Decode) {
        Some("first_byte" | "start_byte") => Padding::FirstByte,
        Some("last_byte" | "end_byte") => Padding::LastByte,
        _ => Padding::None,
    };
    let bits = match &stage.dtype {
        Some(dtype) => match layout(dtype) {
            Some((bits, _, _)) => Some(u64::from(bits)),
            None => {
                let message = format!(
                    "packbits does not support the data type '{}'",
                    dtype.to_v3().name
                );
                cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
                None
            }
        },
        None => None,
    };
    let max = bits.map_or(i64::MAX, |b| {
        i64::try_from(b).unwrap_or(i64::MAX).saturating_sub(1)
    });
    let first = cfg.int("first_bit", 0, max, Need::Decode);
    let last = cfg.int("last_bit", 0, max, Need::Decode);
    if let (Some(first), Some(last)) = (first, last) {
        if last < first {
            let message = format!("packbits 'last_bit' {last} is below 'first_bit' {first}");
            let at = vec![LocStep::Key("last_bit".into())];
            cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
        }
    }
    if cfg.failed() {
        return None;
    }
    let bit = |b: Option<i64>| b.and_then(|b| u64::try_from(b).ok());
    Some(Built::ArrayToBytes(Box::new(PackBitsCodec {
        name: cfg.name.to_string(),
        padding,
        first_bit: bit(first),
        last_bit: bit(last),
    })))
}
