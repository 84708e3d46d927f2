//! The `scale_offset` array → array codec (zarr-extensions, zarr-python 3.2+): stored values
//! are `(x - offset) * scale`, decoded as `x / scale + offset`, in the arithmetic of the
//! array's own data type. Integers must divide exactly and stay in range; floats round as
//! NumPy rounds them (float16 through float32, one rounding per operation).

use super::num_type::{
    as_f64, fill_of, number_kind, number_text, scalar_of, stage_number_kind, NumKind, NumType,
    Scalar,
};
use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, ArrayToArrayCodec, ChunkRepr, DecodedChunk};
use crate::dtype::{DataType, FillValue};
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{show, LocStep, ProblemKind};
use half::f16;

/// The `scale_offset` codec for values of `kind`.
#[derive(Clone, Debug)]
pub(crate) struct ScaleOffsetCodec {
    kind: NumKind,
    offset: Scalar,
    scale: Scalar,
}

/// `a op b` in the float arithmetic of `kind`.
fn float_op(kind: NumKind, a: f64, b: f64, op: fn(f64, f64) -> f64) -> f64 {
    match kind {
        NumKind::F16 => {
            let r = op(f64::from(a as f32), f64::from(b as f32)) as f32;
            f16::from_f32(r).to_f64()
        }
        NumKind::F32 => f64::from(op(a, b) as f32),
        _ => op(a, b),
    }
}

impl ScaleOffsetCodec {
    fn int(v: Scalar) -> i128 {
        match v {
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i128,
        }
    }

    /// `x / scale + offset`, or why it is not a value of the type.
    fn decode_one(&self, x: Scalar) -> std::result::Result<Scalar, String> {
        if self.kind.is_float() {
            let q = float_op(self.kind, as_f64(x), as_f64(self.scale), |a, b| a / b);
            let r = float_op(self.kind, q, as_f64(self.offset), |a, b| a + b);
            return Ok(Scalar::Float(r));
        }
        let (x, scale, offset) = (Self::int(x), Self::int(self.scale), Self::int(self.offset));
        if x % scale != 0 {
            return Err(format!(
                "{} is not a multiple of the scale {}",
                number_text(Scalar::Int(x)),
                number_text(Scalar::Int(scale))
            ));
        }
        self.in_range(Some(x / scale + offset))
    }

    /// `(x - offset) * scale`, or why it is not a value of the type.
    fn encode_one(&self, x: Scalar) -> std::result::Result<Scalar, String> {
        if self.kind.is_float() {
            let d = float_op(self.kind, as_f64(x), as_f64(self.offset), |a, b| a - b);
            let r = float_op(self.kind, d, as_f64(self.scale), |a, b| a * b);
            return Ok(Scalar::Float(r));
        }
        let (x, scale, offset) = (Self::int(x), Self::int(self.scale), Self::int(self.offset));
        // The difference of two 64-bit values fits i128; its product with a third may not.
        self.in_range((x - offset).checked_mul(scale))
    }

    fn in_range(&self, v: Option<i128>) -> std::result::Result<Scalar, String> {
        // Called for integer kinds only, which all have bounds (an empty range otherwise).
        let (lo, hi) = self.kind.int_bounds().unwrap_or((0, -1));
        match v {
            Some(v) if (lo..=hi).contains(&v) => Ok(Scalar::Int(v)),
            _ => Err(format!(
                "{} is outside the range of {}",
                v.map_or_else(|| "the result".into(), |v| number_text(Scalar::Int(v))),
                self.kind.v3_name()
            )),
        }
    }
}

impl ArrayToArrayCodec for ScaleOffsetCodec {
    fn name(&self) -> &str {
        "scale_offset"
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr> {
        if number_kind(&decoded.data_type) != Some(self.kind) {
            return Err(codec_error(format!(
                "scale_offset: built for {}, given {}",
                self.kind.v3_name(),
                decoded.data_type.to_v3().name
            )));
        }
        Ok(decoded.clone())
    }

    fn encoded_fill(&self, fill: &FillValue, decoded: &ChunkRepr) -> Result<FillValue> {
        // Only a decoder fills a shard's unwritten chunks.
        #[cfg(not(feature = "decode"))]
        return Ok(fill.clone());
        scalar_of(fill, &decoded.data_type)
            .ok_or_else(|| "the fill value is not a number".to_string())
            .and_then(|v| self.encode_one(v))
            .and_then(|v| fill_of(v, self.kind).ok_or_else(|| "no value".to_string()))
            .map_err(|why| codec_error(format!("scale_offset: the fill value: {why}")))
    }

    fn decode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk> {
        decoding_built!();
        let DecodedChunk::Fixed(mut bytes) = input else {
            return Err(codec_error("scale_offset: expected numbers"));
        };
        let t = NumType::le(self.kind);
        let size = self.kind.size();
        let want = decoded.num_elements()?.saturating_mul(size as u64);
        if bytes.len() as u64 != want {
            return Err(codec_error(format!(
                "scale_offset: {} bytes where the chunk holds {want}",
                bytes.len()
            )));
        }
        for (i, item) in bytes.chunks_exact_mut(size).enumerate() {
            let v = self
                .decode_one(t.read(item))
                .map_err(|why| codec_error(format!("scale_offset: element {i}: {why}")))?;
            t.write(v, item);
        }
        Ok(DecodedChunk::Fixed(bytes))
    }
}

/// `scale_offset`.
pub(crate) const SCALE_OFFSET: CodecSpec =
    CodecSpec::v3("scale_offset", Kind::ArrayToArray, scale_offset);

fn scale_offset(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["offset", "scale"]);
    let kind = stage_number_kind(cfg, stage, "scale_offset works on");
    let dtype = kind.map(NumKind::data_type);
    let offset = member(cfg, "offset", dtype.as_ref(), Scalar::Int(0));
    let scale = member(cfg, "scale", dtype.as_ref(), Scalar::Int(1));
    if let Some(scale) = scale {
        let zero = match scale {
            Scalar::Int(i) => i == 0,
            Scalar::Float(f) => f == 0.0,
        };
        if zero {
            let at = vec![LocStep::Key("scale".into())];
            let message = "scale_offset 'scale' must not be zero".to_string();
            cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
        }
    }
    let (kind, offset, scale) = (kind?, offset?, scale?);
    if cfg.failed() {
        return None;
    }
    Some(Built::ArrayToArray(Box::new(ScaleOffsetCodec {
        kind,
        offset,
        scale,
    })))
}

/// `offset` or `scale`: a value of the array's data type, written as its fill values are.
fn member(
    cfg: &mut Config,
    key: &str,
    dtype: Option<&DataType>,
    default: Scalar,
) -> Option<Scalar> {
    let Some(value) = cfg.get(key) else {
        return Some(default);
    };
    let dtype = dtype?;
    let parsed = FillValue::from_v3(dtype, value)
        .ok()
        .and_then(|fill| scalar_of(&fill, dtype));
    if parsed.is_none() {
        let message = format!(
            "scale_offset '{key}' {} is not a value of '{}'",
            show(value),
            dtype.to_v3().name
        );
        let at = vec![LocStep::Key(key.into())];
        cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_divide_exactly_and_stay_in_range() {
        let c = ScaleOffsetCodec {
            kind: NumKind::I8,
            offset: Scalar::Int(-100),
            scale: Scalar::Int(3),
        };
        assert_eq!(c.decode_one(Scalar::Int(9)), Ok(Scalar::Int(-97)));
        assert!(c.decode_one(Scalar::Int(10)).is_err());
        assert!(c.decode_one(Scalar::Int(-90)).is_err()); // -130 < -128
        assert_eq!(c.encode_one(Scalar::Int(-97)), Ok(Scalar::Int(9)));
        // A product beyond 128 bits is out of range, not wrapped.
        let max = i128::from(u64::MAX);
        let big = ScaleOffsetCodec {
            kind: NumKind::U64,
            offset: Scalar::Int(0),
            scale: Scalar::Int(max),
        };
        assert!(big.encode_one(Scalar::Int(max)).is_err());
    }

    #[test]
    fn floats_round_in_their_own_precision() {
        let c = ScaleOffsetCodec {
            kind: NumKind::F32,
            offset: Scalar::Float(f64::from(0.1f32)),
            scale: Scalar::Float(10.0),
        };
        let x = f64::from(-1.0f32);
        let want = f64::from(-1.0f32 / 10.0 + 0.1f32);
        assert_eq!(c.decode_one(Scalar::Float(x)), Ok(Scalar::Float(want)));
    }
}
