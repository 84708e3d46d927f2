//! The `cast_value` array → array codec (zarr-extensions, zarr-python 3.2+): the values are
//! converted to another numeric data type by value (a rounding mode, an out-of-range mode and
//! explicit scalar mappings), and converted back on decode.
//!
//! What the reference writer (cast-value-rs) does decides the corners the spec leaves open: a
//! float target takes IEEE rounding of every value, overflow included (±∞, not an
//! out-of-range error); only integer targets have out-of-range handling.

use super::num_type::{
    fill_of, number_kind, number_text, scalar_of, stage_number_kind, NumKind, NumType, Scalar,
};
use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, ArrayToArrayCodec, ChunkRepr, DecodedChunk};
use crate::document::named::NamedConfig;
use crate::dtype::{DataType, FillValue};
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{show, LocStep, ProblemKind};
use half::f16;
use serde_json::Value;

/// How a value that the target cannot hold exactly is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rounding {
    NearestEven,
    TowardsZero,
    TowardsPositive,
    TowardsNegative,
    NearestAway,
}

const ROUNDING: [&str; 5] = [
    "nearest-even",
    "towards-zero",
    "towards-positive",
    "towards-negative",
    "nearest-away",
];

impl Rounding {
    fn parse(name: &str) -> Rounding {
        match name {
            "towards-zero" => Rounding::TowardsZero,
            "towards-positive" => Rounding::TowardsPositive,
            "towards-negative" => Rounding::TowardsNegative,
            "nearest-away" => Rounding::NearestAway,
            _ => Rounding::NearestEven,
        }
    }

    /// `x` rounded to an integer (a float holding one).
    fn to_integer(self, x: f64) -> f64 {
        match self {
            Rounding::NearestEven => x.round_ties_even(),
            Rounding::TowardsZero => x.trunc(),
            Rounding::TowardsPositive => x.ceil(),
            Rounding::TowardsNegative => x.floor(),
            Rounding::NearestAway => x.round(),
        }
    }
}

/// What happens to a value outside an integer target's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutOfRange {
    Error,
    Clamp,
    Wrap,
}

/// One direction of the cast: values of `from` to values of `to`.
#[derive(Clone, Debug)]
struct Conversion {
    from: NumKind,
    to: NumKind,
    rounding: Rounding,
    out_of_range: OutOfRange,
    /// The scalar map of this direction: (a `from` value, the `to` value it becomes).
    map: Vec<(Scalar, Scalar)>,
}

/// Whether `v` is the scalar map key `key` (NaN matches every NaN).
fn same(v: Scalar, key: Scalar) -> bool {
    match (v, key) {
        (Scalar::Float(a), Scalar::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
        (Scalar::Int(a), Scalar::Int(b)) => a == b,
        _ => false,
    }
}

impl Conversion {
    /// `v` as a value of `to`, or why it cannot be.
    fn apply(&self, v: Scalar) -> std::result::Result<Scalar, String> {
        if let Some(&(_, mapped)) = self.map.iter().find(|(key, _)| same(v, *key)) {
            return Ok(mapped);
        }
        if self.to.is_float() {
            return Ok(Scalar::Float(match v {
                Scalar::Float(x) => narrow(x, self.to, self.rounding),
                Scalar::Int(i) => int_to_float(i, self.to, self.rounding),
            }));
        }
        let Some((lo, hi)) = self.to.int_bounds() else {
            return Err(format!("{} is not a number type", self.to.v3_name()));
        };
        let count = hi - lo + 1;
        let to = self.to.v3_name();
        let int = match v {
            Scalar::Int(i) => i,
            Scalar::Float(x) if x.is_nan() => {
                return Err(format!(
                    "NaN cannot become {to} (no scalar_map entry for it)"
                ))
            }
            Scalar::Float(x) if x.is_infinite() => {
                return match self.out_of_range {
                    OutOfRange::Clamp => Ok(Scalar::Int(if x > 0.0 { hi } else { lo })),
                    _ => Err(format!("{} is outside the range of {to}", number_text(v))),
                };
            }
            Scalar::Float(x) => {
                let r = self.rounding.to_integer(x);
                // Every finite f64 under 2^127 in magnitude converts to i128 exactly; beyond
                // the integer kinds' ranges the value only matters modulo 2^64, which the
                // remainder keeps exactly.
                if r.abs() >= 2f64.powi(100) {
                    match self.out_of_range {
                        OutOfRange::Clamp => return Ok(Scalar::Int(if r > 0.0 { hi } else { lo })),
                        OutOfRange::Wrap => r.rem_euclid(count as f64) as i128,
                        OutOfRange::Error => {
                            return Err(format!("{} is outside the range of {to}", number_text(v)))
                        }
                    }
                } else {
                    r as i128
                }
            }
        };
        if (lo..=hi).contains(&int) {
            return Ok(Scalar::Int(int));
        }
        match self.out_of_range {
            OutOfRange::Clamp => Ok(Scalar::Int(int.clamp(lo, hi))),
            OutOfRange::Wrap => {
                let w = int.rem_euclid(count);
                Ok(Scalar::Int(if w > hi { w - count } else { w }))
            }
            OutOfRange::Error => Err(format!(
                "{} is outside the range of {to} ({} to {})",
                number_text(Scalar::Int(int)),
                number_text(Scalar::Int(lo)),
                number_text(Scalar::Int(hi))
            )),
        }
    }
}

/// `x` rounded to the precision of the float kind `to` (IEEE, with `rounding`'s direction).
fn narrow(x: f64, to: NumKind, rounding: Rounding) -> f64 {
    match to {
        NumKind::F32 => round_with(
            x,
            rounding,
            |v| f64::from(v as f32),
            |n, up| f64::from(step_f32(n as f32, up)),
        ),
        NumKind::F16 => round_with(
            x,
            rounding,
            |v| f16::from_f64(v).to_f64(),
            |n, up| step_f16(f16::from_f64(n), up).to_f64(),
        ),
        _ => x,
    }
}

/// An integer as the float kind `to`, rounded with `rounding`.
fn int_to_float(i: i128, to: NumKind, rounding: Rounding) -> f64 {
    // Each nearest(i) rounds the exact integer once (i128 → f32/f64 round to nearest-even;
    // integers past f16's range overflow to ±∞ whatever the double rounding).
    let (nearest, step): (f64, fn(f64, bool) -> f64) = match to {
        NumKind::F32 => (f64::from(i as f32), |n, up| {
            f64::from(step_f32(n as f32, up))
        }),
        NumKind::F16 => (f16::from_f64(i as f64).to_f64(), |n, up| {
            step_f16(f16::from_f64(n), up).to_f64()
        }),
        _ => (i as f64, step_f64),
    };
    if rounding == Rounding::NearestEven || !nearest.is_finite() || nearest as i128 == i {
        return nearest;
    }
    let (below, above) = if nearest as i128 > i {
        (step(nearest, false), nearest)
    } else {
        (nearest, step(nearest, true))
    };
    pick(i > 0, below, above, nearest, rounding, || {
        i - below as i128 == above as i128 - i
    })
}

/// Rounds `x` to a coarser float grid: `nearest(x)` is IEEE nearest-even on it, `step(n, up)`
/// the grid's neighbour of `n`.
fn round_with(
    x: f64,
    rounding: Rounding,
    nearest: impl Fn(f64) -> f64,
    step: impl Fn(f64, bool) -> f64,
) -> f64 {
    let n = nearest(x);
    if n == x || x.is_nan() || rounding == Rounding::NearestEven {
        return n;
    }
    let (below, above) = if n > x {
        (step(n, false), n)
    } else {
        (n, step(n, true))
    };
    pick(x > 0.0, below, above, n, rounding, || {
        x - below == above - x
    })
}

/// Of the grid neighbours `below` and `above` of a value (positive or not), the one `rounding`
/// picks: `nearest` (IEEE nearest-even's) off a tie, and on one (`tie()`) for nearest-away the
/// one away from zero.
fn pick(
    positive: bool,
    below: f64,
    above: f64,
    nearest: f64,
    rounding: Rounding,
    tie: impl Fn() -> bool,
) -> f64 {
    match rounding {
        Rounding::TowardsPositive => above,
        Rounding::TowardsNegative => below,
        Rounding::TowardsZero if positive => below,
        Rounding::TowardsZero => above,
        Rounding::NearestAway if tie() => {
            if positive {
                above
            } else {
                below
            }
        }
        Rounding::NearestAway | Rounding::NearestEven => nearest,
    }
}

fn step_f64(v: f64, up: bool) -> f64 {
    if v.is_nan() || (up && v == f64::INFINITY) || (!up && v == f64::NEG_INFINITY) {
        return v;
    }
    if v == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = v.to_bits();
    f64::from_bits(if (v > 0.0) == up { bits + 1 } else { bits - 1 })
}

fn step_f32(v: f32, up: bool) -> f32 {
    if v.is_nan() || (up && v == f32::INFINITY) || (!up && v == f32::NEG_INFINITY) {
        return v;
    }
    if v == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = v.to_bits();
    f32::from_bits(if (v > 0.0) == up { bits + 1 } else { bits - 1 })
}

fn step_f16(v: f16, up: bool) -> f16 {
    if v.is_nan() || (up && v == f16::INFINITY) || (!up && v == f16::NEG_INFINITY) {
        return v;
    }
    if v == f16::ZERO || v == f16::NEG_ZERO {
        let tiny = f16::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = v.to_bits();
    let positive = v > f16::ZERO;
    f16::from_bits(if positive == up { bits + 1 } else { bits - 1 })
}

/// The `cast_value` codec: its decoding and encoding conversions.
#[derive(Clone, Debug)]
pub(crate) struct CastValueCodec {
    decode: Conversion,
    encode: Conversion,
}

impl ArrayToArrayCodec for CastValueCodec {
    fn name(&self) -> &str {
        "cast_value"
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr> {
        if number_kind(&decoded.data_type) != Some(self.decode.to) {
            return Err(codec_error(format!(
                "cast_value: built for {}, given {}",
                self.decode.to.v3_name(),
                decoded.data_type.to_v3().name
            )));
        }
        Ok(ChunkRepr::new(
            decoded.shape.clone(),
            self.decode.from.data_type(),
        ))
    }

    fn encoded_fill(&self, fill: &FillValue, decoded: &ChunkRepr) -> Result<FillValue> {
        // Only a decoder fills a shard's unwritten chunks.
        #[cfg(not(feature = "decode"))]
        return Ok(fill.clone());
        let value = scalar_of(fill, &decoded.data_type)
            .ok_or_else(|| codec_error("cast_value: the fill value is not a number"))?;
        let cast = self.encode.apply(value).map_err(|why| {
            codec_error(format!(
                "cast_value: the fill value cannot be stored: {why}"
            ))
        })?;
        fill_of(cast, self.encode.to)
            .ok_or_else(|| codec_error("cast_value: the fill value cannot be stored"))
    }

    fn decode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk> {
        decoding_built!();
        let DecodedChunk::Fixed(bytes) = input else {
            return Err(codec_error("cast_value: expected numbers"));
        };
        let (from, to) = (NumType::le(self.decode.from), NumType::le(self.decode.to));
        let n = decoded.num_elements()?;
        let (esize, dsize) = (from.kind.size(), to.kind.size());
        if bytes.len() as u64 != n.saturating_mul(esize as u64) {
            return Err(codec_error(format!(
                "cast_value: {} bytes for {n} values of {}",
                bytes.len(),
                from.kind.v3_name()
            )));
        }
        let mut out = vec![0u8; bytes.len() / esize * dsize];
        for (i, (src, dst)) in bytes
            .chunks_exact(esize)
            .zip(out.chunks_exact_mut(dsize))
            .enumerate()
        {
            let v = self
                .decode
                .apply(from.read(src))
                .map_err(|why| codec_error(format!("cast_value: element {i}: {why}")))?;
            to.write(v, dst);
        }
        Ok(DecodedChunk::Fixed(out))
    }
}

/// `cast_value`.
pub(crate) const CAST_VALUE: CodecSpec =
    CodecSpec::v3("cast_value", Kind::ArrayToArray, cast_value);

fn cast_value(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["data_type", "rounding", "out_of_range", "scalar_map"]);
    let target = target_type(cfg);
    let rounding = cfg
        .one_of("rounding", &ROUNDING, Need::Decode)
        .map_or(Rounding::NearestEven, Rounding::parse);
    let out_of_range = match cfg.one_of("out_of_range", &["error", "clamp", "wrap"], Need::Decode) {
        Some("clamp") => OutOfRange::Clamp,
        Some("wrap") => OutOfRange::Wrap,
        _ => OutOfRange::Error,
    };
    let source = stage_number_kind(cfg, stage, "cast_value casts");
    if let (Some(target), OutOfRange::Wrap) = (target, out_of_range) {
        if target.is_float() {
            let message = format!(
                "cast_value 'out_of_range' \"wrap\" is for integer targets, not '{}'",
                target.v3_name()
            );
            let at = vec![LocStep::Key("out_of_range".into())];
            cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Spec);
        }
    }
    let maps = scalar_maps(cfg, source, target);
    if let Some(target) = target {
        stage.dtype = Some(target.data_type());
    }
    let (source, target, (encode_map, decode_map)) = (source?, target?, maps?);
    if cfg.failed() {
        return None;
    }
    Some(Built::ArrayToArray(Box::new(CastValueCodec {
        decode: Conversion {
            from: target,
            to: source,
            rounding,
            out_of_range,
            map: decode_map,
        },
        encode: Conversion {
            from: source,
            to: target,
            rounding,
            out_of_range,
            map: encode_map,
        },
    })))
}

/// The `data_type` member: an integer or float data type zom has.
fn target_type(cfg: &mut Config) -> Option<NumKind> {
    let value = cfg.required("data_type", Need::Decode)?;
    let at = || vec![LocStep::Key("data_type".into())];
    let parsed = NamedConfig::from_value(value).and_then(|named| DataType::from_v3(&named));
    match parsed {
        Ok(dt) => {
            let kind = number_kind(&dt);
            if kind.is_none() && dt.numeric().is_some_and(|n| n.is_registry()) {
                // A registry type (int4, bfloat16, the float8 family…): zom reads arrays of
                // it, but casts neither to nor from it.
                let name = dt.to_v3().name;
                cfg.unsupported(format!("cast_value to data type '{name}' is not supported"));
            } else if kind.is_none() {
                let message = format!(
                    "cast_value 'data_type' must be an integer or floating-point type, not {}",
                    show(value)
                );
                cfg.problem(at(), (ProblemKind::InvalidValue, message), Need::Decode);
            }
            kind
        }
        Err(why) => {
            // A name zom knows with a configuration it cannot read is unsupported here;
            // anything else is invalid.
            let name = value
                .as_str()
                .or_else(|| value.get("name").and_then(Value::as_str));
            match name {
                Some(name) if DataType::is_known_v3_name(name) => {
                    cfg.unsupported(format!("cast_value to data type '{name}' is not supported"));
                }
                _ => {
                    let message = format!("cast_value 'data_type' {}: {why}", show(value));
                    cfg.problem(at(), (ProblemKind::InvalidValue, message), Need::Decode);
                }
            }
            None
        }
    }
}

type ScalarMap = Vec<(Scalar, Scalar)>;

/// The `scalar_map` member: its `encode` pairs (source → target values) and `decode` pairs
/// (target → source values), each value read as its data type reads a fill value. `None`
/// when a problem stops decoding, or when a type is unknown.
fn scalar_maps(
    cfg: &mut Config,
    source: Option<NumKind>,
    target: Option<NumKind>,
) -> Option<(ScalarMap, ScalarMap)> {
    let Some(map) = cfg.get("scalar_map") else {
        return Some((Vec::new(), Vec::new()));
    };
    let Some(object) = map.as_object() else {
        let message = format!(
            "cast_value 'scalar_map' must be an object, not {}",
            show(map)
        );
        let at = vec![LocStep::Key("scalar_map".into())];
        cfg.problem(at, (ProblemKind::InvalidType, message), Need::Decode);
        return None;
    };
    let mut ok = true;
    for key in object
        .keys()
        .filter(|k| !matches!(k.as_str(), "encode" | "decode"))
    {
        let message = format!("cast_value 'scalar_map' has an unknown member '{key}'");
        let at = vec![LocStep::Key("scalar_map".into()), LocStep::Key(key.clone())];
        cfg.problem(at, (ProblemKind::UnknownKey, message), Need::Spec);
    }
    let mut read = |direction: &str, from: Option<NumKind>, to: Option<NumKind>| -> ScalarMap {
        let mut out = Vec::new();
        let Some(entries) = object.get(direction).filter(|v| !v.is_null()) else {
            return out;
        };
        let at = |i: Option<usize>| {
            let mut loc = vec![
                LocStep::Key("scalar_map".into()),
                LocStep::Key(direction.into()),
            ];
            loc.extend(i.map(LocStep::Index));
            loc
        };
        let Some(list) = entries.as_array() else {
            let message = format!("cast_value 'scalar_map.{direction}' must be a list of pairs");
            cfg.problem(at(None), (ProblemKind::InvalidType, message), Need::Decode);
            ok = false;
            return out;
        };
        for (i, pair) in list.iter().enumerate() {
            let parsed = match pair.as_array().map(Vec::as_slice) {
                Some([k, v]) => match (from, to) {
                    (Some(from), Some(to)) => entry(k, from).and_then(|k| Ok((k, entry(v, to)?))),
                    _ => continue,
                },
                _ => Err(format!("must be a pair [from, to], not {}", show(pair))),
            };
            match parsed {
                Ok(kv) => out.push(kv),
                Err(why) => {
                    let message = format!("cast_value 'scalar_map.{direction}[{i}]' {why}");
                    cfg.problem(
                        at(Some(i)),
                        (ProblemKind::InvalidValue, message),
                        Need::Decode,
                    );
                    ok = false;
                }
            }
        }
        out
    };
    let encode = read("encode", source, target);
    let decode = read("decode", target, source);
    ok.then_some((encode, decode))
}

/// One scalar map value, read as a fill value of `kind`'s data type.
fn entry(value: &Value, kind: NumKind) -> std::result::Result<Scalar, String> {
    let dt = kind.data_type();
    FillValue::from_v3(&dt, value)
        .ok()
        .and_then(|fill| scalar_of(&fill, &dt))
        .ok_or_else(|| format!("{} is not a value of {}", show(value), kind.v3_name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(from: NumKind, to: NumKind, rounding: Rounding, oor: OutOfRange) -> Conversion {
        Conversion {
            from,
            to,
            rounding,
            out_of_range: oor,
            map: Vec::new(),
        }
    }

    #[test]
    fn float_to_int_rounds_and_handles_range() {
        let c = conv(
            NumKind::F64,
            NumKind::I8,
            Rounding::NearestEven,
            OutOfRange::Error,
        );
        assert_eq!(c.apply(Scalar::Float(2.5)), Ok(Scalar::Int(2)));
        assert_eq!(c.apply(Scalar::Float(-2.5)), Ok(Scalar::Int(-2)));
        assert!(c.apply(Scalar::Float(128.0)).is_err());
        assert!(c.apply(Scalar::Float(f64::NAN)).is_err());
        let c = conv(
            NumKind::F64,
            NumKind::I8,
            Rounding::NearestAway,
            OutOfRange::Clamp,
        );
        assert_eq!(c.apply(Scalar::Float(2.5)), Ok(Scalar::Int(3)));
        assert_eq!(c.apply(Scalar::Float(-2.5)), Ok(Scalar::Int(-3)));
        assert_eq!(c.apply(Scalar::Float(1e300)), Ok(Scalar::Int(127)));
        assert_eq!(
            c.apply(Scalar::Float(f64::NEG_INFINITY)),
            Ok(Scalar::Int(-128))
        );
        let c = conv(
            NumKind::F64,
            NumKind::U8,
            Rounding::TowardsZero,
            OutOfRange::Wrap,
        );
        assert_eq!(c.apply(Scalar::Float(257.9)), Ok(Scalar::Int(1)));
        assert_eq!(c.apply(Scalar::Float(-1.5)), Ok(Scalar::Int(255)));
        assert_eq!(c.apply(Scalar::Float(2f64.powi(120))), Ok(Scalar::Int(0)));
        let c = conv(
            NumKind::F64,
            NumKind::U64,
            Rounding::NearestEven,
            OutOfRange::Error,
        );
        assert!(c.apply(Scalar::Float(2f64.powi(64))).is_err());
        assert_eq!(
            c.apply(Scalar::Float(2f64.powi(63))),
            Ok(Scalar::Int(1i128 << 63))
        );
    }

    #[test]
    fn int_to_int_wraps_and_clamps() {
        let c = conv(
            NumKind::I32,
            NumKind::I8,
            Rounding::NearestEven,
            OutOfRange::Wrap,
        );
        assert_eq!(c.apply(Scalar::Int(-300)), Ok(Scalar::Int(-44)));
        assert_eq!(c.apply(Scalar::Int(128)), Ok(Scalar::Int(-128)));
        assert_eq!(c.apply(Scalar::Int(1000)), Ok(Scalar::Int(-24)));
        let c = conv(
            NumKind::I64,
            NumKind::U16,
            Rounding::NearestEven,
            OutOfRange::Clamp,
        );
        assert_eq!(c.apply(Scalar::Int(-5)), Ok(Scalar::Int(0)));
        assert_eq!(c.apply(Scalar::Int(70000)), Ok(Scalar::Int(65535)));
    }

    #[test]
    fn to_float_rounds_in_the_target_precision() {
        let c = conv(
            NumKind::F64,
            NumKind::F32,
            Rounding::NearestEven,
            OutOfRange::Error,
        );
        assert_eq!(
            c.apply(Scalar::Float(0.1)),
            Ok(Scalar::Float(f64::from(0.1f32)))
        );
        let up = conv(
            NumKind::F64,
            NumKind::F32,
            Rounding::TowardsPositive,
            OutOfRange::Error,
        );
        let down = conv(
            NumKind::F64,
            NumKind::F32,
            Rounding::TowardsNegative,
            OutOfRange::Error,
        );
        let (Ok(Scalar::Float(u)), Ok(Scalar::Float(d))) =
            (up.apply(Scalar::Float(0.1)), down.apply(Scalar::Float(0.1)))
        else {
            panic!("not floats")
        };
        assert!(d < 0.1 && 0.1 < u && step_f32(d as f32, true) == u as f32);
        let half = conv(
            NumKind::F32,
            NumKind::F16,
            Rounding::NearestEven,
            OutOfRange::Clamp,
        );
        assert_eq!(
            half.apply(Scalar::Float(70000.0)),
            Ok(Scalar::Float(f64::INFINITY))
        );
        let big = conv(
            NumKind::I64,
            NumKind::F64,
            Rounding::TowardsZero,
            OutOfRange::Error,
        );
        let v = (1i128 << 53) + 1;
        assert_eq!(big.apply(Scalar::Int(v)), Ok(Scalar::Float(2f64.powi(53))));
        let away = conv(
            NumKind::I64,
            NumKind::F64,
            Rounding::NearestAway,
            OutOfRange::Error,
        );
        assert_eq!(
            away.apply(Scalar::Int(v)),
            Ok(Scalar::Float(2f64.powi(53) + 2.0))
        );
    }

    #[test]
    fn the_scalar_map_comes_first() {
        let mut c = conv(
            NumKind::I16,
            NumKind::F32,
            Rounding::NearestEven,
            OutOfRange::Error,
        );
        c.map.push((Scalar::Int(-32768), Scalar::Float(f64::NAN)));
        assert!(matches!(c.apply(Scalar::Int(-32768)), Ok(Scalar::Float(x)) if x.is_nan()));
        let mut e = conv(
            NumKind::F32,
            NumKind::I16,
            Rounding::NearestEven,
            OutOfRange::Error,
        );
        e.map.push((Scalar::Float(f64::NAN), Scalar::Int(-32768)));
        assert_eq!(e.apply(Scalar::Float(f64::NAN)), Ok(Scalar::Int(-32768)));
    }
}
