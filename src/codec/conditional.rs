//! The `conditional` bytes → bytes codec (zarr-extensions): a list of bytes → bytes codecs,
//! each applied to a chunk or not as the chunk's header says (bit `i` of its first
//! `header_bits / 8` bytes, little-endian bit order: codec `i` was applied).

use super::registry::{self, Built, CodecSpec, Kind, Stage};
use super::{codec_error, BytesToBytesCodec, SizeBound};
use crate::document::named::NamedConfig;
use crate::error::Result;
use crate::limits::Limits;
use crate::problem::config::{Config, ConfigProblem, Effect, Need};
use crate::problem::{show, LocStep, ProblemKind};

/// `conditional`.
pub(crate) const CONDITIONAL: CodecSpec =
    CodecSpec::v3("conditional", Kind::BytesToBytes, conditional);

/// The nested codecs and the header's length.
#[derive(Debug)]
pub(crate) struct ConditionalCodec {
    name: String,
    codecs: Vec<Box<dyn BytesToBytesCodec>>,
    header_bytes: usize,
}

/// Reports a nested codec's problems at its place in `codecs`, with their effect.
fn nested_problems(cfg: &mut Config, i: usize, problems: Vec<ConfigProblem>) {
    for p in problems {
        let mut loc = vec![LocStep::Key("codecs".into()), LocStep::Index(i)];
        if !p.loc.is_empty() {
            loc.push(LocStep::Key("configuration".into()));
            loc.extend(p.loc);
        }
        match p.effect {
            Effect::Fatal => cfg.problem(loc, (p.kind, p.message), Need::Decode),
            Effect::Spec => cfg.problem(loc, (p.kind, p.message), Need::Spec),
            Effect::Unsupported => cfg.unsupported(p.message),
            Effect::Warning => cfg.warn(p.message),
        }
    }
}

fn conditional(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["codecs", "header_bits"]);
    let items = cfg.array("codecs", Need::Decode)?;
    let mut codecs: Vec<Box<dyn BytesToBytesCodec>> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = vec![LocStep::Key("codecs".into()), LocStep::Index(i)];
        let named = match NamedConfig::from_value(item) {
            Ok(named) => named,
            Err(e) => {
                let message = format!("conditional 'codecs'[{i}]: {e}");
                cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
                continue;
            }
        };
        let Some(spec) = registry::v3(&named.name) else {
            cfg.unsupported(format!("codec '{}' is not supported", named.name));
            continue;
        };
        if spec.kind != Kind::BytesToBytes {
            let message = format!(
                "conditional 'codecs'[{i}] '{}' is not a bytes → bytes codec",
                named.name
            );
            cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
            continue;
        }
        let (problems, built) = spec.read(
            &named.name,
            named.configuration.as_ref(),
            &mut Stage::default(),
        );
        nested_problems(cfg, i, problems);
        if let Some(Built::BytesToBytes(codec)) = built {
            codecs.push(codec);
        }
    }
    let least = items.len().div_ceil(8) * 8;
    let header_bits = match cfg.get("header_bits") {
        None => Some(least as u64),
        Some(value) => match value.as_u64() {
            Some(bits) if bits % 8 == 0 && bits >= least as u64 => Some(bits),
            _ => {
                let message = format!(
                    "conditional 'header_bits' must be a multiple of 8 of at least {least} (one bit per codec), not {}",
                    show(value)
                );
                let at = vec![LocStep::Key("header_bits".into())];
                cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
                None
            }
        },
    };
    if cfg.failed() {
        return None;
    }
    let header_bytes = usize::try_from(header_bits? / 8).ok()?;
    Some(Built::BytesToBytes(Box::new(ConditionalCodec {
        name: cfg.name.to_string(),
        codecs,
        header_bytes,
    })))
}

impl ConditionalCodec {
    /// What the data may weigh before each codec is applied (index `i`) and after the last,
    /// for decoded data of `decoded`: a codec may have been skipped, so each stage's bound is
    /// the larger of the two.
    fn stage_bounds(&self, decoded: SizeBound, limits: &Limits) -> Vec<SizeBound> {
        let mut bounds = Vec::with_capacity(self.codecs.len() + 1);
        bounds.push(decoded);
        let mut current = decoded;
        for codec in &self.codecs {
            let applied = codec.encoded_bound(current, limits);
            current = match (current, applied) {
                (SizeBound::Exact(a), SizeBound::Exact(b)) if a == b => current,
                _ => SizeBound::AtMost(current.max().max(applied.max())),
            };
            bounds.push(current);
        }
        bounds
    }
}

impl BytesToBytesCodec for ConditionalCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_bound(&self, decoded: SizeBound, limits: &Limits) -> SizeBound {
        let last = self.stage_bounds(decoded, limits).pop().unwrap_or(decoded);
        last.plus(self.header_bytes as u64)
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        let header = input.get(..self.header_bytes).ok_or_else(|| {
            codec_error(format!(
                "{}: the chunk is shorter than its {}-byte header",
                self.name, self.header_bytes
            ))
        })?;
        let applied = |i: usize| header.get(i / 8).is_some_and(|b| (b >> (i % 8)) & 1 == 1);
        let count = self.codecs.len();
        if (count..self.header_bytes * 8).any(applied) {
            return Err(codec_error(format!(
                "{}: the header sets a bit past its {count} codecs",
                self.name
            )));
        }
        let bounds = self.stage_bounds(bound, &Limits::default());
        let mut data = input.get(self.header_bytes..).unwrap_or_default().to_vec();
        for (i, codec) in self.codecs.iter().enumerate().rev() {
            if applied(i) {
                let before = bounds.get(i).copied().unwrap_or(bound);
                data = codec.decode(&data, before)?;
            }
        }
        bound.check(data.len(), &self.name)?;
        Ok(data)
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::{CodecPipeline, DecodedChunk};
    use crate::document::named::NamedConfig;
    use crate::dtype::{DataType, FillValue};
    use serde_json::{json, Value};
    use std::io::Write;

    fn pipeline(conditional: Value) -> crate::error::Result<CodecPipeline> {
        let codecs: Vec<NamedConfig> = [json!({"name": "bytes"}), conditional]
            .iter()
            .map(|c| NamedConfig::from_value(c).unwrap())
            .collect();
        CodecPipeline::from_v3(&codecs, &DataType::UInt8, &[200], &FillValue::UInt(0))
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn applies_the_codecs_the_header_names() {
        let gz = json!({"name": "gzip", "configuration": {"level": 1}});
        let codec =
            pipeline(json!({"name": "conditional", "configuration": {"codecs": [gz]}})).unwrap();
        let data: Vec<u8> = (0..200u8).collect();
        let decoded = |bytes: &[u8]| {
            codec
                .decode(bytes)
                .map(|d| d == DecodedChunk::Fixed(data.clone()))
        };
        let mut applied = vec![1u8];
        applied.extend(gzip(&data));
        assert!(decoded(&applied).unwrap());
        let mut skipped = vec![0u8];
        skipped.extend(&data);
        assert!(decoded(&skipped).unwrap());
        let mut reserved = vec![2u8];
        reserved.extend(&data);
        assert!(decoded(&reserved).is_err());
        assert!(decoded(&[]).is_err());
        let wide =
            json!({"name": "conditional", "configuration": {"codecs": [gz], "header_bits": 16}});
        let wide = pipeline(wide).unwrap();
        let mut two = vec![1u8, 0];
        two.extend(gzip(&data));
        assert_eq!(
            wide.decode(&two).unwrap(),
            DecodedChunk::Fixed(data.clone())
        );
    }

    #[test]
    fn refuses_what_the_spec_forbids() {
        let gz = json!({"name": "gzip", "configuration": {"level": 1}});
        for bad in [
            json!({"codecs": [{"name": "bytes"}]}),
            json!({"codecs": [gz], "header_bits": 4}),
            json!({"codecs": [gz], "header_bits": 12}),
            json!({"codecs": "gzip"}),
            json!({}),
        ] {
            let conditional = json!({"name": "conditional", "configuration": bad});
            assert!(pipeline(conditional).is_err(), "{bad}");
        }
    }
}
