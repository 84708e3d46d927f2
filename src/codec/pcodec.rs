//! numcodecs `pcodec` (`numcodecs.pcodec` in v3, where it is the array → bytes codec): a chunk
//! of numbers in pco's standalone format, decoded by `kernels/parts` (see `super::lazy`). The
//! configuration holds only the encoder's settings; the format records what decoding needs.

use super::config::{Config, Need};
use super::lazy::{LazyCodec, PART_PCODEC};
use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::dtype::DataType;
use crate::error::Result;
use crate::problem::ProblemKind;

/// The data types pco encodes, as v3 names.
const NUMBERS: &[&str] = &[
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float16", "float32",
    "float64",
];

/// The v3 name of `dtype` when pco encodes it.
fn pco_type(dtype: &DataType) -> Option<&'static str> {
    let name = dtype.to_v3().name;
    NUMBERS.iter().copied().find(|&n| n == name)
}

/// The `pcodec` codec.
#[derive(Clone, Debug)]
pub(crate) struct PcodecCodec {
    name: String,
}

impl PcodecCodec {
    /// The part call for chunks of `dtype`.
    fn lazy(&self, dtype: &DataType) -> Result<LazyCodec> {
        let variant = pco_type(dtype).ok_or_else(|| {
            codec_error(format!(
                "{}: pcodec does not encode {} values",
                self.name,
                dtype.to_v3().name
            ))
        })?;
        Ok(LazyCodec {
            part: PART_PCODEC,
            codec: "pcodec",
            variant: variant.into(),
        })
    }
}

impl ArrayToBytesCodec for PcodecCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    #[cfg(feature = "decode")]
    fn parts(&self, out: &mut Vec<&'static str>) {
        out.push(PART_PCODEC);
    }

    /// pco stores incompressible numbers at about their size, plus per-chunk and per-page
    /// headers and bin tables: an eighth and 64 KiB over the decoded size bound them.
    fn encoded_size(&self, decoded: &ChunkRepr, _limits: &Limits) -> Result<SizeBound> {
        let n = decoded.fixed_byte_len()?.unwrap_or(0);
        Ok(SizeBound::AtMost(
            n.saturating_add(n / 8).saturating_add(64 << 10),
        ))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, _limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        let lazy = self.lazy(&decoded.data_type)?;
        let len = decoded
            .fixed_byte_len()?
            .ok_or_else(|| codec_error(format!("{}: values of variable length", self.name)))?;
        let bytes = lazy.decode(input, SizeBound::Exact(len), &self.name)?;
        Ok(DecodedChunk::Fixed(bytes))
    }
}

/// numcodecs `pcodec`: its configuration as numcodecs 0.17 writes it (`level`, `mode_spec`,
/// `delta_spec`, `paging_spec`, `delta_encoding_order`, `equal_pages_up_to`), every member an
/// encoder setting that decoding does not need.
pub(crate) const NC_PCODEC: CodecSpec =
    CodecSpec::numcodecs("pcodec", Kind::ArrayToBytes, nc_pcodec);

fn nc_pcodec(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&[
        "level",
        "mode_spec",
        "delta_spec",
        "paging_spec",
        "delta_encoding_order",
        "equal_pages_up_to",
    ]);
    cfg.int("level", 0, 12, Need::Spec);
    cfg.one_of("mode_spec", &["auto", "classic"], Need::Spec);
    let deltas = ["auto", "no_op", "none", "try_consecutive", "try_lookback"];
    let delta = cfg.one_of("delta_spec", &deltas, Need::Spec);
    cfg.one_of("paging_spec", &["equal_pages_up_to"], Need::Spec);
    let order = cfg.int("delta_encoding_order", 0, 7, Need::Spec);
    if order.is_some() && !matches!(delta, None | Some("auto" | "try_consecutive")) {
        let message = format!(
            "{} applies only with delta_spec 'try_consecutive' (or 'auto')",
            cfg.label("delta_encoding_order")
        );
        cfg.refuse(ProblemKind::InvalidValue, message, Need::Spec);
    }
    cfg.uint("equal_pages_up_to", 1, Need::Spec);
    if let Some(dtype) = &stage.dtype {
        if pco_type(dtype).is_none() {
            let message = format!(
                "pcodec does not encode the data type '{}'",
                dtype.to_v3().name
            );
            cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
            return None;
        }
    }
    Some(Built::ArrayToBytes(Box::new(PcodecCodec {
        name: cfg.name.to_string(),
    })))
}
