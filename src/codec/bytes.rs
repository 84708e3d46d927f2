//! The `bytes` array → bytes codec (fixed-size elements in a given byte order) and the byte
//! swapping every data type needs.

use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, to_usize, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::dtype::{DataType, Endianness, StructField};
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{LocStep, ProblemKind};
use zom_kernels::{swap_all, swap_units};

/// Which pieces of one element to byte-reverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SwapPlan {
    /// Bytes per element.
    element: usize,
    /// (offset, length) of each piece to reverse, inside one element.
    units: Vec<(usize, usize)>,
}

impl SwapPlan {
    /// The plan to convert elements of `data_type` stored in the byte order `order` to
    /// little-endian (or back: the operation is its own inverse). `None` means "each struct
    /// field in its own v2 byte order" (and little-endian for everything else).
    pub(crate) fn new(data_type: &DataType, order: Option<Endianness>) -> Result<SwapPlan> {
        let element = data_type
            .fixed_size()
            .ok_or_else(|| codec_error("byte order applies only to fixed-size types"))?;
        let element = to_usize(element, "an element")?;
        let mut units = Vec::new();
        collect_units(data_type, order, 0, &mut units)?;
        Ok(SwapPlan { element, units })
    }

    /// Byte-reverses the planned pieces of every element of `buf`.
    pub(crate) fn apply(&self, buf: &mut [u8]) -> Result<()> {
        if self.units.is_empty() {
            return Ok(());
        }
        if self.element == 0 || !buf.len().is_multiple_of(self.element) {
            return Err(codec_error("the buffer is not a whole number of elements"));
        }
        // Fast path: the element is a run of equal pieces (numbers, complex, UTF-32).
        if let Some(unit) = self.uniform() {
            swap_all(buf, unit);
            return Ok(());
        }
        swap_units(buf, self.element, &self.units);
        Ok(())
    }

    /// The piece size when the pieces tile the whole element.
    fn uniform(&self) -> Option<usize> {
        let (_, unit) = *self.units.first()?;
        let tiles = self
            .units
            .iter()
            .enumerate()
            .all(|(i, &(offset, len))| len == unit && i.checked_mul(unit) == Some(offset));
        (tiles && self.units.len().checked_mul(unit) == Some(self.element)).then_some(unit)
    }
}

fn collect_units(
    data_type: &DataType,
    order: Option<Endianness>,
    base: usize,
    units: &mut Vec<(usize, usize)>,
) -> Result<()> {
    let big = order == Some(Endianness::Big);
    let push = |units: &mut Vec<(usize, usize)>, offset: usize, len: usize| {
        if big {
            units.push((base.saturating_add(offset), len));
        }
    };
    if data_type.number_kind().is_some() {
        // One unit per number: the element, or each half of a complex.
        if let (Some(unit), Some(size)) = (data_type.byte_order_unit(), data_type.fixed_size()) {
            for offset in (0..to_usize(size, "an element")?).step_by(unit) {
                push(units, offset, unit);
            }
        }
        return Ok(());
    }
    match data_type {
        DataType::FixedLengthUtf32 { length_bytes } if big => {
            let n = to_usize(*length_bytes / 4, "a string")?;
            for i in 0..n {
                push(units, i.saturating_mul(4), 4);
            }
        }
        DataType::Struct { fields, .. } => {
            let mut offset = base;
            for field in fields {
                let field_order = order.or(Some(field.endianness));
                offset = collect_field(field, field_order, offset, units)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Collects one struct field's pieces (each element of its subarray); returns the offset
/// after the field.
fn collect_field(
    field: &StructField,
    order: Option<Endianness>,
    mut offset: usize,
    units: &mut Vec<(usize, usize)>,
) -> Result<usize> {
    let size = field
        .data_type
        .fixed_size()
        .ok_or_else(|| codec_error("a struct field has a variable-length type"))?;
    let size = to_usize(size, "a struct field")?;
    let count = field
        .shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| codec_error("a struct field's shape overflows"))?;
    for _ in 0..count {
        collect_units(&field.data_type, order, offset, units)?;
        offset = offset
            .checked_add(size)
            .ok_or_else(|| codec_error("a struct is too large"))?;
    }
    Ok(offset)
}

/// The `bytes` codec: the element bytes in C order, little- or big-endian.
#[derive(Clone, Debug)]
pub(crate) struct BytesCodec {
    name: String,
    plan: SwapPlan,
}

impl BytesCodec {
    /// A `bytes` codec for `data_type` stored in `order` (`None`: v2 struct fields each in
    /// their own order).
    pub(crate) fn new(
        name: &str,
        data_type: &DataType,
        order: Option<Endianness>,
    ) -> Result<BytesCodec> {
        Ok(BytesCodec {
            name: name.to_string(),
            plan: SwapPlan::new(data_type, order)?,
        })
    }
}

impl ArrayToBytesCodec for BytesCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn encoded_size(&self, decoded: &ChunkRepr, _limits: &Limits) -> Result<SizeBound> {
        decoded
            .fixed_byte_len()?
            .map(SizeBound::Exact)
            .ok_or_else(|| codec_error("the bytes codec needs a fixed-size data type"))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        self.encoded_size(decoded, limits)?
            .check(input.len(), &self.name)?;
        let mut out = input.to_vec();
        self.plan.apply(&mut out)?;
        Ok(DecodedChunk::Fixed(out))
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: &DecodedChunk, decoded: &ChunkRepr) -> Result<Vec<u8>> {
        let DecodedChunk::Fixed(bytes) = input else {
            return Err(codec_error("the bytes codec needs fixed-size values"));
        };
        self.encoded_size(decoded, &Limits::default())?
            .check(bytes.len(), &self.name)?;
        // Swapping to the stored order is the same swap as from it.
        let mut out = bytes.clone();
        self.plan.apply(&mut out)?;
        Ok(out)
    }

    fn supports_in_place(&self) -> bool {
        true
    }

    fn decode_in_place(&self, buf: &mut [u8], _decoded: &ChunkRepr) -> Result<()> {
        decoding_built!();
        self.plan.apply(buf)
    }

    fn decode_into(
        &self,
        input: &[u8],
        decoded: &ChunkRepr,
        limits: &Limits,
        out: &mut [u8],
    ) -> Result<()> {
        decoding_built!();
        self.encoded_size(decoded, limits)?
            .check(input.len(), &self.name)?;
        if input.len() != out.len() {
            return Err(codec_error("the output buffer does not fit the chunk"));
        }
        out.copy_from_slice(input);
        self.plan.apply(out)
    }
}

/// `bytes` (alias `endian`, its name in early v3 drafts).
pub(crate) const BYTES: CodecSpec = CodecSpec {
    aliases: &["endian"],
    ..CodecSpec::v3("bytes", Kind::ArrayToBytes, configure)
};

fn configure(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["endian"]);
    let endian = cfg.one_of("endian", &["little", "big"], Need::Decode);
    let dtype = stage.dtype.as_ref()?;
    if matches!(dtype, DataType::String | DataType::Bytes(_)) || dtype.fixed_size().is_none() {
        let vlen = if matches!(dtype, DataType::String) {
            "vlen-utf8"
        } else {
            "vlen-bytes"
        };
        let message = format!(
            "the bytes codec cannot encode the variable-length type '{}'; use '{vlen}'",
            dtype.to_v3().name
        );
        cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
        return None;
    }
    // Types whose elements have a byte order need `endian`; struct types have none (zarr-python
    // writes `bytes` without it for them: their fields carry their own).
    let order = match endian {
        Some("big") => Endianness::Big,
        Some(_) => Endianness::Little,
        None if dtype.has_byte_order() && cfg.get("endian").is_none() => {
            let message = format!(
                "the bytes codec needs 'endian' for the multi-byte type '{}'",
                dtype.to_v3().name
            );
            cfg.problem(
                vec![LocStep::Key("endian".into())],
                (ProblemKind::MissingKey, message),
                Need::Decode,
            );
            return None;
        }
        None if cfg.failed() => return None,
        None => Endianness::Little,
    };
    let name = cfg.name;
    let codec = cfg.built(BytesCodec::new(name, dtype, Some(order)))?;
    Some(Built::ArrayToBytes(Box::new(codec)))
}
