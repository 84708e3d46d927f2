//! zfp, an array → bytes codec for 1- to 4-D numbers, decoded by `kernels/parts` (see
//! `super::lazy`), in its two forms:
//!
//! - numcodecs `zfpy` (`numcodecs.zfpy` in v3; in v2 the compressor, which then stands for the
//!   `bytes` step): each chunk is a stream with zfp's full header (field and mode), so the
//!   configuration (`mode`, `tolerance`, `rate`, `precision`) holds only the encoder's settings.
//! - the zarr-extensions `zfp` codec: no header; decoding takes the mode from the
//!   configuration and the zfp field from the chunk shape (`[nw, nz, ny, nx]`, a 0-d chunk as
//!   `nx = 1`, more than 4 dimensions refused), 8- and 16-bit integers are stored promoted
//!   to 32 bits, and a fixed rate is set for 3-D blocks whatever the chunk's rank: as zarrs,
//!   the codec's writer, sets it.

use super::lazy::{check_dtype, type_in, LazyCodec, PART_ZFP};
use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::error::Result;
use crate::problem::config::{key_loc, Config, Need};
use crate::problem::ProblemKind;

/// The data types zfpy encodes, as v3 names.
const ZFPY_TYPES: &[&str] = &["int32", "int64", "float32", "float64"];

/// The data types the zarr-extensions `zfp` codec encodes: its own, those zarrs promotes, and
/// numpy's datetime64 and timedelta64, which zarrs stores as `int64` (the spec allows types
/// "interpreted as" its own).
const ZFP_TYPES: &[&str] = &[
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
    "numpy.datetime64",
    "numpy.timedelta64",
];

/// A `zfpy` or `zfp` codec.
#[derive(Clone, Debug)]
pub(crate) struct ZfpCodec {
    name: String,
    /// `None` for zfpy (the stream's header says); the part's mode for the headerless codec.
    mode: Option<String>,
}

impl ZfpCodec {
    /// The part call for a chunk of `decoded`.
    fn lazy(&self, decoded: &ChunkRepr) -> Result<LazyCodec> {
        let types = if self.mode.is_some() {
            ZFP_TYPES
        } else {
            ZFPY_TYPES
        };
        let dtype = type_in(&decoded.data_type, types).ok_or_else(|| {
            codec_error(format!(
                "{}: zfp does not encode {} values",
                self.name,
                decoded.data_type.to_v3().name
            ))
        })?;
        let (codec, variant) = match &self.mode {
            None => ("zfpy", dtype.to_string()),
            Some(mode) => (
                "zfp",
                zom_parts::zfp_variant(dtype, mode, field(&decoded.shape)?),
            ),
        };
        Ok(LazyCodec {
            part: PART_ZFP,
            codec,
            variant,
        })
    }
}

/// The zfp field `[nx, ny, nz, nw]` of a chunk of `shape` (C order: its last dimension is x).
fn field(shape: &[u64]) -> Result<[u64; 4]> {
    if shape.len() > 4 {
        return Err(codec_error(format!(
            "zfp encodes chunks of 1 to 4 dimensions, not {}",
            shape.len()
        )));
    }
    let mut dims = [0u64; 4];
    for (slot, &d) in dims.iter_mut().zip(shape.iter().rev()) {
        *slot = d;
    }
    if shape.is_empty() {
        dims[0] = 1;
    }
    Ok(dims)
}

impl ArrayToBytesCodec for ZfpCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    #[cfg(feature = "decode")]
    fn parts(&self, out: &mut Vec<&'static str>) {
        out.push(PART_ZFP);
    }

    /// zfp's worst case is every value at full precision plus each block's header, with
    /// 8- and 16-bit integers as 32-bit ones: eight times the decoded size and 64 KiB bound it.
    fn encoded_size(&self, decoded: &ChunkRepr, _limits: &Limits) -> Result<SizeBound> {
        let n = decoded.fixed_byte_len()?.unwrap_or(0);
        Ok(SizeBound::AtMost(
            n.saturating_mul(8).saturating_add(64 << 10),
        ))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, _limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        self.lazy(decoded)?.decode_chunk(input, decoded, &self.name)
    }
}

/// numcodecs `zfpy`: its configuration as numcodecs 0.17 writes it (`mode` 2 fixed rate, 3
/// fixed precision, 4 fixed accuracy; 5, reversible, as zarrs writes it; `tolerance`, `rate`,
/// `precision`, and in v2 `compression_kwargs`), every member an encoder setting: the stream's
/// header holds what decoding needs.
pub(crate) const NC_ZFPY: CodecSpec = CodecSpec::numcodecs("zfpy", Kind::ArrayToBytes, nc_zfpy);

fn nc_zfpy(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&[
        "mode",
        "tolerance",
        "rate",
        "precision",
        "compression_kwargs",
    ]);
    cfg.int("mode", 2, 5, Need::Spec);
    cfg.number("tolerance", Need::Spec);
    cfg.number("rate", Need::Spec);
    cfg.int("precision", -1, 64, Need::Spec);
    if let Some(kwargs) = cfg.get("compression_kwargs") {
        if !kwargs.is_object() {
            let message = format!("{} must be an object", cfg.label("compression_kwargs"));
            let bad = (ProblemKind::InvalidType, message);
            cfg.problem(key_loc("compression_kwargs"), bad, Need::Spec);
        }
    }
    if !check_dtype(cfg, stage, ZFPY_TYPES, "zfpy") {
        return None;
    }
    Some(Built::ArrayToBytes(Box::new(ZfpCodec {
        name: cfg.name.to_string(),
        mode: None,
    })))
}

/// The zarr-extensions `zfp` codec: `mode` and the members of that mode, which decoding needs
/// (the stream has no header).
pub(crate) const ZFP: CodecSpec = CodecSpec::v3("zfp", Kind::ArrayToBytes, zfp);

/// The members of each mode.
const MODES: &[(&str, &[&str])] = &[
    ("reversible", &[]),
    ("expert", &["minbits", "maxbits", "maxprec", "minexp"]),
    ("fixed_accuracy", &["tolerance"]),
    ("fixed_rate", &["rate"]),
    ("fixed_precision", &["precision"]),
];

fn zfp(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&[
        "mode",
        "minbits",
        "maxbits",
        "maxprec",
        "minexp",
        "tolerance",
        "rate",
        "precision",
    ]);
    let names: Vec<&str> = MODES.iter().map(|(m, _)| *m).collect();
    cfg.required("mode", Need::Decode);
    let mode = cfg.one_of("mode", &names, Need::Decode);
    let members = MODES
        .iter()
        .find(|(m, _)| Some(*m) == mode)
        .map_or(&[][..], |(_, k)| *k);
    if let Some(mode) = mode {
        for (_, keys) in MODES {
            for key in keys.iter().filter(|k| !members.contains(k)) {
                if cfg.get(key).is_some() {
                    let message = format!("'{key}' is not a member of zfp's mode '{mode}'");
                    cfg.problem(key_loc(key), (ProblemKind::UnknownKey, message), Need::Spec);
                }
            }
        }
        for key in members {
            cfg.required(key, Need::Decode);
        }
    }
    let u32_max = i64::from(u32::MAX);
    let part_mode = match mode {
        Some("reversible") => Some("reversible".to_string()),
        Some("expert") => {
            let minbits = cfg.int("minbits", 0, u32_max, Need::Decode);
            let maxbits = cfg.int("maxbits", 0, u32_max, Need::Decode);
            let maxprec = cfg.int("maxprec", 1, 64, Need::Decode);
            let minexp = cfg.int(
                "minexp",
                i64::from(i32::MIN),
                i64::from(i32::MAX),
                Need::Decode,
            );
            if let (Some(lo), Some(hi)) = (minbits, maxbits) {
                if lo > hi {
                    let message = format!("zfp 'minbits' {lo} is more than 'maxbits' {hi}");
                    cfg.problem(
                        key_loc("minbits"),
                        (ProblemKind::InvalidValue, message),
                        Need::Decode,
                    );
                }
            }
            match (minbits, maxbits, maxprec, minexp) {
                (Some(a), Some(b), Some(c), Some(d)) => Some(format!("expert:{a},{b},{c},{d}")),
                _ => None,
            }
        }
        Some("fixed_accuracy") => {
            let tolerance = cfg.number("tolerance", Need::Decode);
            if let Some(dtype) = &stage.dtype {
                if !dtype.to_v3().name.starts_with("float") {
                    let message =
                        "zfp's fixed_accuracy mode is for floating-point data types".to_string();
                    cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
                }
            }
            tolerance.map(|t| format!("accuracy:{}", t.to_bits()))
        }
        Some("fixed_rate") => {
            let rate = cfg.number("rate", Need::Decode);
            if rate.is_some_and(|r| !(r.is_finite() && r >= 0.0)) {
                let message = "zfp 'rate' must be a finite number, at least 0".to_string();
                cfg.problem(
                    key_loc("rate"),
                    (ProblemKind::InvalidValue, message),
                    Need::Decode,
                );
            }
            rate.map(|r| format!("rate:{}", r.to_bits()))
        }
        Some("fixed_precision") => cfg
            .uint("precision", 0, Need::Decode)
            // zfp takes at most 64 bits of precision, and clamps larger ones.
            .map(|p| format!("precision:{}", p.min(64))),
        _ => None,
    };
    if let Some(shape) = &stage.shape {
        if shape.len() > 4 {
            let message = format!(
                "zfp encodes chunks of 1 to 4 dimensions; the chunk shape has {}",
                shape.len()
            );
            cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
        }
    }
    if !check_dtype(cfg, stage, ZFP_TYPES, "zfp") || cfg.failed() {
        return None;
    }
    Some(Built::ArrayToBytes(Box::new(ZfpCodec {
        name: cfg.name.to_string(),
        mode: Some(part_mode?),
    })))
}
