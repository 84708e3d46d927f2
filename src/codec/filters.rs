//! numcodecs filters on typed values: delta, fixedscaleoffset, quantize, astype, bitround and
//! categorize. In v2 they work on bytes in the byte orders their configurations name; in v3
//! (`numcodecs.<id>`) they are array → array codecs on little-endian values.

use super::num_type::{as_f64, NumKind, NumType, Scalar};
use super::registry::{Built, CodecSpec, Filter, Kind, Stage, V3Form};
use super::{
    codec_error, to_usize, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkRepr,
    DecodedChunk, Limits, SizeBound,
};
use crate::dtype::DataType;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::ProblemKind;

/// What a numeric filter does on decode.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FilterOp {
    /// Cumulative sum in the decoded type.
    Delta,
    /// `encoded / scale + offset`, then a cast.
    FixedScaleOffset {
        /// The scale.
        scale: f64,
        /// The offset.
        offset: f64,
    },
    /// A plain cast (quantize, astype).
    Cast,
    /// Labels by 1-based index (0 is the empty string), written as UTF-32 of `length_bytes`.
    Categorize {
        /// The labels.
        labels: Vec<String>,
        /// Bytes per decoded element.
        length_bytes: usize,
        /// Whether the decoded UTF-32 is big-endian.
        big: bool,
    },
    /// Identity (bitround's decode).
    Identity,
}

/// A numcodecs filter: encoded values of `encoded` type, decoded values of `decoded` type.
#[derive(Clone, Debug)]
pub(crate) struct NumFilter {
    name: String,
    op: FilterOp,
    decoded: NumType,
    encoded: NumType,
}

impl NumFilter {
    /// A filter from its decoded and encoded types.
    pub(crate) fn new(name: &str, op: FilterOp, decoded: NumType, encoded: NumType) -> NumFilter {
        NumFilter {
            name: name.to_string(),
            op,
            decoded,
            encoded,
        }
    }

    /// The same filter on little-endian values (its v3 array → array form).
    pub(crate) fn little_endian(mut self) -> NumFilter {
        self.decoded.big = false;
        self.encoded.big = false;
        if let FilterOp::Categorize { big, .. } = &mut self.op {
            *big = false;
        }
        self
    }

    fn decoded_size(&self) -> usize {
        match &self.op {
            FilterOp::Categorize { length_bytes, .. } => *length_bytes,
            _ => self.decoded.kind.size(),
        }
    }

    /// The decoded byte length for `encoded_len` encoded bytes.
    fn decoded_len(&self, encoded_len: usize) -> Result<usize> {
        let esize = self.encoded.kind.size();
        if !encoded_len.is_multiple_of(esize) {
            return Err(codec_error(format!(
                "{}: {encoded_len} bytes is not a whole number of {esize}-byte values",
                self.name
            )));
        }
        (encoded_len / esize)
            .checked_mul(self.decoded_size())
            .ok_or_else(|| codec_error(format!("{}: the output size overflows", self.name)))
    }

    /// Decodes a buffer of encoded values.
    pub(crate) fn decode_bytes(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        let out_len = self.decoded_len(input.len())?;
        bound.check(out_len, &self.name)?;
        let esize = self.encoded.kind.size();
        let dsize = self.decoded_size();
        let mut out = vec![0u8; out_len];
        let pairs = input
            .chunks_exact(esize)
            .zip(out.chunks_exact_mut(dsize.max(1)));
        match &self.op {
            FilterOp::Identity => out.copy_from_slice(input),
            FilterOp::Cast => {
                for (src, dst) in pairs {
                    self.decoded.write(self.encoded.read(src), dst);
                }
            }
            FilterOp::Delta => {
                let kind = self.decoded.kind;
                let mut acc: Option<Scalar> = None;
                for (src, dst) in pairs {
                    let v = kind.cast(self.encoded.read(src));
                    let next = match (acc, v) {
                        (None, v) => v,
                        (Some(Scalar::Int(a)), Scalar::Int(b)) => {
                            kind.cast(Scalar::Int(a.wrapping_add(b)))
                        }
                        (Some(a), b) => kind.cast(Scalar::Float(as_f64(a) + as_f64(b))),
                    };
                    self.decoded.write(next, dst);
                    acc = Some(next);
                }
            }
            FilterOp::FixedScaleOffset { scale, offset } => {
                // NumPy computes in the encoded type when it is a float (Python scalars are
                // "weak"), else in float64.
                let work = if self.encoded.kind.is_float() {
                    self.encoded.kind
                } else {
                    NumKind::F64
                };
                let (scale, offset) = (
                    as_f64(work.cast(Scalar::Float(*scale))),
                    as_f64(work.cast(Scalar::Float(*offset))),
                );
                for (src, dst) in pairs {
                    let e = as_f64(work.cast(self.encoded.read(src)));
                    let q = as_f64(work.cast(Scalar::Float(e / scale)));
                    let v = work.cast(Scalar::Float(q + offset));
                    self.decoded.write(v, dst);
                }
            }
            FilterOp::Categorize {
                labels,
                length_bytes,
                big,
            } => {
                for (src, dst) in pairs {
                    if let Some(label) = label_at(labels, self.encoded.read(src)) {
                        let units = dst.chunks_exact_mut(4).take(*length_bytes / 4);
                        for (unit, ch) in units.zip(label.chars()) {
                            let code = u32::from(ch);
                            unit.copy_from_slice(&if *big {
                                code.to_be_bytes()
                            } else {
                                code.to_le_bytes()
                            });
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

impl Filter for NumFilter {
    fn into_array_codec(self: Box<Self>) -> Box<dyn ArrayToArrayCodec> {
        Box::new(NumFilterArrayCodec::new(*self))
    }

    fn into_bytes_codec(self: Box<Self>) -> Box<dyn BytesToBytesCodec> {
        self
    }
}

impl BytesToBytesCodec for NumFilter {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_bound(&self, decoded: SizeBound, _limits: &Limits) -> SizeBound {
        let (esize, dsize) = (self.encoded.kind.size() as u64, self.decoded_size() as u64);
        match decoded {
            SizeBound::Exact(n) if dsize > 0 && n % dsize == 0 => (n / dsize)
                .checked_mul(esize)
                .map_or(SizeBound::AtMost(u64::MAX), SizeBound::Exact),
            other => SizeBound::AtMost(other.max().saturating_mul(esize)),
        }
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        self.decode_bytes(input, bound)
    }
}

/// A numcodecs filter as a v3 array → array codec (`numcodecs.delta`, …).
#[derive(Clone, Debug)]
pub(crate) struct NumFilterArrayCodec {
    filter: NumFilter,
}

impl NumFilterArrayCodec {
    /// Wraps a filter (made little-endian).
    pub(crate) fn new(filter: NumFilter) -> NumFilterArrayCodec {
        NumFilterArrayCodec {
            filter: filter.little_endian(),
        }
    }
}

impl ArrayToArrayCodec for NumFilterArrayCodec {
    fn name(&self) -> &str {
        &self.filter.name
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr> {
        let size = decoded.item_size().unwrap_or(0);
        if let FilterOp::Categorize { .. } = self.filter.op {
            if !matches!(decoded.data_type, DataType::FixedLengthUtf32 { .. }) {
                return Err(codec_error(format!(
                    "{}: only fixed-length UTF-32 arrays can be categorized",
                    self.filter.name
                )));
            }
        } else if size != self.filter.decoded.kind.size() as u64 {
            return Err(codec_error(format!(
                "{}: the filter's dtype does not match the array's data type",
                self.filter.name
            )));
        }
        Ok(ChunkRepr::new(
            decoded.shape.clone(),
            self.filter.encoded.kind.data_type(),
        ))
    }

    fn decode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk> {
        decoding_built!();
        let DecodedChunk::Fixed(bytes) = input else {
            return Err(codec_error(format!(
                "{}: expected numbers",
                self.filter.name
            )));
        };
        let len = decoded
            .fixed_byte_len()?
            .ok_or_else(|| codec_error("numcodecs filters need fixed-size types"))?;
        let out = self.filter.decode_bytes(&bytes, SizeBound::Exact(len))?;
        Ok(DecodedChunk::Fixed(out))
    }
}

/// The label a categorize index stands for (1-based; 0 and unknown indices have none).
fn label_at(labels: &[String], index: Scalar) -> Option<&String> {
    let index = match index {
        Scalar::Int(i) => i,
        Scalar::Float(f) => f as i128,
    };
    usize::try_from(index)
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| labels.get(i))
}

/// numcodecs `categorize` on an object (`|O`) array, the form zarr-python 2 wrote with the
/// categorize filter as the array's only object codec: the encoded bytes are one `astype`
/// index per element, decoded to the label strings (0 and unknown indices give `""`).
#[derive(Clone, Debug)]
pub(crate) struct CategorizeStrings {
    name: String,
    labels: Vec<String>,
    astype: NumType,
}

impl CategorizeStrings {
    /// The codec for `labels`, indices stored as `astype`.
    pub(crate) fn new(name: &str, labels: Vec<String>, astype: NumType) -> CategorizeStrings {
        CategorizeStrings {
            name: name.to_string(),
            labels,
            astype,
        }
    }
}

impl ArrayToBytesCodec for CategorizeStrings {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn encoded_size(&self, decoded: &ChunkRepr, _limits: &Limits) -> Result<SizeBound> {
        decoded
            .num_elements()?
            .checked_mul(self.astype.kind.size() as u64)
            .map(SizeBound::Exact)
            .ok_or_else(|| codec_error(format!("{}: the chunk's size overflows", self.name)))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        self.encoded_size(decoded, limits)?
            .check(input.len(), &self.name)?;
        let size = self.astype.kind.size();
        let mut strings = Vec::with_capacity(input.len() / size.max(1));
        for src in input.chunks_exact(size) {
            let label = label_at(&self.labels, self.astype.read(src));
            strings.push(label.cloned().unwrap_or_default());
        }
        Ok(DecodedChunk::Strings(strings))
    }
}

/// Bytes per element of a categorize output type (`<U3` → 12).
pub(crate) fn utf32_length(data_type: &DataType) -> Option<usize> {
    match data_type {
        DataType::FixedLengthUtf32 { length_bytes } => to_usize(*length_bytes, "a string").ok(),
        _ => None,
    }
}

/// A numeric type member (`"<f8"`): `default` when absent; `None` with a problem when bad or
/// not one the filters support (and without one when absent with no default: the member's
/// `required` check reports that).
fn num_type(cfg: &mut Config, key: &str, default: Option<NumType>) -> Option<NumType> {
    match super::typestring_member(cfg, key, Need::Decode) {
        Some(s) => {
            let parsed = NumType::parse(s);
            if parsed.is_none() {
                cfg.unsupported(format!("unsupported {key} '{s}'"));
            }
            parsed
        }
        None if cfg.failed() => None,
        None => default,
    }
}

/// A filter spec's `dtype` (required by numcodecs, defaulting to the array's type when
/// absent) and `astype` (defaulting to `dtype`).
fn dtypes(cfg: &mut Config, stage: &Stage) -> Option<(NumType, NumType)> {
    cfg.required("dtype", Need::Spec);
    let dtype = num_type(cfg, "dtype", stage.num_type());
    let astype = num_type(cfg, "astype", dtype);
    Some((dtype?, astype?))
}

fn filter(cfg: &Config, op: FilterOp, decoded: NumType, encoded: NumType) -> Option<Built> {
    Some(Built::Filter(Box::new(NumFilter::new(
        cfg.name, op, decoded, encoded,
    ))))
}

/// numcodecs `delta`.
pub(crate) const NC_DELTA: CodecSpec = CodecSpec::numcodecs("delta", Kind::ArrayToArray, delta);

fn delta(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["dtype", "astype"]);
    let (dtype, astype) = dtypes(cfg, stage)?;
    filter(cfg, FilterOp::Delta, dtype, astype)
}

/// numcodecs `fixedscaleoffset`.
pub(crate) const NC_FIXEDSCALEOFFSET: CodecSpec =
    CodecSpec::numcodecs("fixedscaleoffset", Kind::ArrayToArray, fixedscaleoffset);

fn fixedscaleoffset(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["offset", "scale", "dtype", "astype"]);
    let types = dtypes(cfg, stage);
    stage.dtype = None;
    let mut number = |key: &str, default: f64| {
        cfg.required(key, Need::Spec);
        cfg.number(key, Need::Decode).unwrap_or(default)
    };
    let op = FilterOp::FixedScaleOffset {
        scale: number("scale", 1.0),
        offset: number("offset", 0.0),
    };
    let (dtype, astype) = types?;
    if cfg.failed() {
        return None;
    }
    filter(cfg, op, dtype, astype)
}

/// numcodecs `quantize` (decoding is a cast back).
pub(crate) const NC_QUANTIZE: CodecSpec =
    CodecSpec::numcodecs("quantize", Kind::ArrayToArray, quantize);

fn quantize(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["digits", "dtype", "astype"]);
    if cfg.required("digits", Need::Spec).is_some() {
        cfg.int("digits", i64::MIN, i64::MAX, Need::Spec);
    }
    let (dtype, astype) = dtypes(cfg, stage)?;
    filter(cfg, FilterOp::Cast, dtype, astype)
}

/// numcodecs `astype`.
pub(crate) const NC_ASTYPE: CodecSpec = CodecSpec::numcodecs("astype", Kind::ArrayToArray, astype);

fn astype(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["encode_dtype", "decode_dtype"]);
    cfg.required("encode_dtype", Need::Spec);
    cfg.required("decode_dtype", Need::Spec);
    let decode = num_type(cfg, "decode_dtype", stage.num_type());
    let encode = num_type(cfg, "encode_dtype", decode);
    stage.dtype = None;
    filter(cfg, FilterOp::Cast, decode?, encode?)
}

/// `bitround` (v3): decoding is the identity.
pub(crate) const BITROUND: CodecSpec = CodecSpec::v3("bitround", Kind::ArrayToArray, bitround);

fn bitround(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["keepbits"]);
    if cfg.required("keepbits", Need::Spec).is_some() {
        let keep = cfg.uint("keepbits", 1, Need::Spec);
        let mantissa = stage
            .dtype
            .as_ref()
            .and_then(DataType::numeric)
            .and_then(|n| n.float_format())
            .map(|f| u64::from(f.mantissa_bits));
        if let (Some(keep), Some(max), Some(dtype)) = (keep, mantissa, &stage.dtype) {
            if keep > max {
                let message = format!(
                    "bitround 'keepbits' {keep} is over the {max} mantissa bits of '{}'",
                    dtype.to_v3().name
                );
                let at = vec![crate::problem::LocStep::Key("keepbits".into())];
                cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Spec);
            }
        }
    }
    let t = stage.num_type().unwrap_or(NumType::le(NumKind::F64));
    filter(cfg, FilterOp::Identity, t, t)
}

/// numcodecs `bitround` (v3 `numcodecs.bitround` is a deprecated alias of `bitround`).
pub(crate) const NC_BITROUND: CodecSpec = CodecSpec {
    deprecated_in_v3: Some(
        "'numcodecs.bitround' is a deprecated alias; new data should use 'bitround'",
    ),
    ..CodecSpec::numcodecs("bitround", Kind::ArrayToArray, nc_bitround)
};

fn nc_bitround(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["keepbits"]);
    if cfg.required("keepbits", Need::Spec).is_some() {
        cfg.uint("keepbits", 0, Need::Spec);
    }
    let t = stage.num_type().unwrap_or(NumType::le(NumKind::F64));
    filter(cfg, FilterOp::Identity, t, t)
}

/// numcodecs `categorize`: labels by index. On a fixed-length unicode array it is a filter;
/// on an object (`|O`) array, where zarr-python 2 let it stand in for the object codec, it is
/// the array → bytes step that makes strings.
pub(crate) const NC_CATEGORIZE: CodecSpec = CodecSpec {
    object: true,
    v3_form: V3Form::Numcodecs(Some(
        "numcodecs.categorize has no zarr-python 3 implementation; \
         other readers may refuse the converted array",
    )),
    ..CodecSpec::numcodecs("categorize", Kind::ArrayToArray, categorize)
};

fn categorize(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["labels", "dtype", "astype"]);
    // The `dtype` is the array's (`<U3`, or `|O` for object arrays): not a numeric type.
    if let Some(v) = cfg.required("dtype", Need::Spec) {
        if !matches!(v.as_str(), Some("|O" | "O")) {
            super::typestring_member(cfg, "dtype", Need::Spec);
        }
    }
    cfg.required("labels", Need::Decode);
    let labels = cfg.str_list("labels", Need::Decode);
    let astype = num_type(cfg, "astype", Some(NumType::le(NumKind::U8)));
    let dtype = stage.dtype.take();
    let (labels, astype, dtype) = (labels?, astype?, dtype?);
    if dtype.fixed_size().is_none() {
        let codec = CategorizeStrings::new(cfg.name, labels, astype);
        return Some(Built::ArrayToBytes(Box::new(codec)));
    }
    let Some(length_bytes) = utf32_length(&dtype) else {
        cfg.unsupported("categorize is supported for fixed-length unicode arrays only".into());
        return None;
    };
    let op = FilterOp::Categorize {
        labels,
        length_bytes,
        big: stage.big,
    };
    filter(cfg, op, NumType::le(NumKind::U8), astype)
}
