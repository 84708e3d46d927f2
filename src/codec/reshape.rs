//! The `reshape` array → array codec (zarr-extensions): the chunk's elements in the same C
//! order under another shape, each output dimension a size, a product of input dimensions, or
//! `-1` (what the others leave). Decoding moves no byte.

use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{bad_config, ArrayToArrayCodec, ChunkRepr, DecodedChunk};
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::{show, LocStep, ProblemKind};
use serde_json::Value;

/// `reshape`.
pub(crate) const RESHAPE: CodecSpec = CodecSpec::v3("reshape", Kind::ArrayToArray, reshape);

/// One output dimension's size.
#[derive(Clone, Debug, PartialEq)]
enum OutputDim {
    /// A given size.
    Size(u64),
    /// The product of these input dimensions' sizes.
    Inputs(Vec<usize>),
    /// `-1`: the size that keeps the element count.
    Rest,
}

/// Reshapes a chunk: the encoded array has the shape the configuration gives for the decoded
/// one, with the elements in the same C order.
#[derive(Clone, Debug)]
pub(crate) struct ReshapeCodec {
    name: String,
    shape: Vec<OutputDim>,
}

fn reshape(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["shape"]);
    let items = cfg.array("shape", Need::Decode)?;
    let mut shape = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = |rest: Option<usize>| {
            let mut loc = vec![LocStep::Key("shape".into()), LocStep::Index(i)];
            loc.extend(rest.map(LocStep::Index));
            loc
        };
        let dim = match item {
            Value::Number(n) if n.as_i64() == Some(-1) => Some(OutputDim::Rest),
            Value::Number(n) => n.as_u64().filter(|&s| s > 0).map(OutputDim::Size),
            Value::Array(dims) => dims
                .iter()
                .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
                .collect::<Option<Vec<usize>>>()
                .map(OutputDim::Inputs),
            _ => None,
        };
        match dim {
            Some(dim) => shape.push(dim),
            None => {
                let message = format!(
                    "reshape 'shape'[{i}] must be a positive size, -1 or a list of input dimensions, not {}",
                    show(item)
                );
                cfg.problem(at(None), (ProblemKind::InvalidValue, message), Need::Decode);
            }
        }
    }
    if shape.iter().filter(|d| **d == OutputDim::Rest).count() > 1 {
        let message = "reshape 'shape' has -1 more than once".to_string();
        let at = vec![LocStep::Key("shape".into())];
        cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
    }
    let inputs = shape.iter().flat_map(|d| match d {
        OutputDim::Inputs(dims) => dims.as_slice(),
        _ => &[],
    });
    let mut last: Option<usize> = None;
    for d in inputs {
        if last.is_some_and(|l| *d <= l) {
            let message = "reshape 'shape' lists input dimensions out of increasing order (reshape never transposes)".to_string();
            let at = vec![LocStep::Key("shape".into())];
            cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
            break;
        }
        last = Some(*d);
    }
    if cfg.failed() {
        return None;
    }
    let codec = ReshapeCodec {
        name: cfg.name.to_string(),
        shape,
    };
    // Checked against the chunk shape where it is known (the validator's stage, and the
    // decoder's pipeline for each chunk shape).
    if let Some(input) = &stage.shape {
        let output = cfg.built(codec.output_shape(input))?;
        stage.shape = Some(output);
    }
    Some(Built::ArrayToArray(Box::new(codec)))
}

fn product(dims: &[u64]) -> Option<u64> {
    dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

impl ReshapeCodec {
    /// The encoded shape of a chunk of `input`'s shape, with the spec's checks.
    fn output_shape(&self, input: &[u64]) -> Result<Vec<u64>> {
        let bad = |message: String| bad_config(&self.name, message);
        let total = product(input).ok_or_else(|| bad("the chunk has too many elements".into()))?;
        let mut output = Vec::with_capacity(self.shape.len());
        for dim in &self.shape {
            output.push(match dim {
                OutputDim::Size(n) => *n,
                OutputDim::Rest => 0,
                OutputDim::Inputs(dims) => {
                    let mut sizes = Vec::with_capacity(dims.len());
                    for &d in dims {
                        sizes.push(*input.get(d).ok_or_else(|| {
                            bad(format!(
                                "'shape' names input dimension {d}; the chunk has {}",
                                input.len()
                            ))
                        })?);
                    }
                    product(&sizes).ok_or_else(|| bad("a dimension overflows".into()))?
                }
            });
        }
        if let Some(rest) = self.shape.iter().position(|d| *d == OutputDim::Rest) {
            let known = self
                .shape
                .iter()
                .zip(&output)
                .filter(|(d, _)| **d != OutputDim::Rest)
                .try_fold(1u64, |acc, (_, &n)| acc.checked_mul(n))
                .ok_or_else(|| bad("the shape overflows".into()))?;
            let size = match (known, total) {
                (0, 0) => 0,
                (0, _) => {
                    return Err(bad(
                        "-1 cannot be resolved: the other sizes hold no element".into(),
                    ))
                }
                (k, t) if t % k == 0 => t / k,
                (k, t) => {
                    return Err(bad(format!(
                        "{t} elements do not divide into {k}-element parts for -1"
                    )))
                }
            };
            if let Some(slot) = output.get_mut(rest) {
                *slot = size;
            }
        }
        if product(&output) != Some(total) {
            return Err(bad(format!(
                "shape {output:?} holds a different number of elements than the chunk's {input:?}"
            )));
        }
        // An output dimension made of input dimensions must line up with them.
        for (i, dim) in self.shape.iter().enumerate() {
            let OutputDim::Inputs(dims) = dim else {
                continue;
            };
            let (Some(&first), Some(&last)) = (dims.first(), dims.last()) else {
                continue;
            };
            let before = product(&output[..i]) == product(&input[..first]);
            let after = product(&output[i + 1..]) == product(&input[last + 1..]);
            if !(before && after) {
                return Err(bad(format!(
                    "output dimension {i} ({dims:?}) does not line up with those input dimensions"
                )));
            }
        }
        Ok(output)
    }
}

impl ArrayToArrayCodec for ReshapeCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr> {
        Ok(ChunkRepr::new(
            self.output_shape(&decoded.shape)?,
            decoded.data_type.clone(),
        ))
    }

    fn decode(&self, input: DecodedChunk, _decoded: &ChunkRepr) -> Result<DecodedChunk> {
        Ok(input)
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: DecodedChunk, _decoded: &ChunkRepr) -> Result<DecodedChunk> {
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec(shape: Vec<OutputDim>) -> ReshapeCodec {
        ReshapeCodec {
            name: "reshape".into(),
            shape,
        }
    }

    #[test]
    fn shapes_follow_the_spec() {
        use OutputDim::{Inputs, Rest, Size};
        let example = codec(vec![Inputs(vec![0, 1]), Inputs(vec![2]), Size(3)]);
        assert_eq!(
            example.output_shape(&[100, 50, 64, 3]).unwrap(),
            [5000, 64, 3]
        );
        assert_eq!(
            codec(vec![Rest, Size(4)]).output_shape(&[6, 2]).unwrap(),
            [3, 4]
        );
        assert!(codec(vec![Rest, Size(5)]).output_shape(&[6, 2]).is_err());
        assert!(codec(vec![Size(7)]).output_shape(&[6]).is_err());
        // [1] then [0] would read as a transpose: refused where the configuration is read.
        let lined = codec(vec![Size(2), Inputs(vec![1])]);
        assert!(lined.output_shape(&[2, 3]).is_ok());
        let skewed = codec(vec![Inputs(vec![1]), Size(2)]);
        assert!(skewed.output_shape(&[2, 3]).is_err());
    }

    #[test]
    fn decodes_through_a_pipeline_with_transpose() {
        use crate::codec::CodecPipeline;
        use crate::document::named::NamedConfig;
        use crate::dtype::{DataType, FillValue};
        use serde_json::json;
        // [2, 3] transposed to [3, 2], reshaped to [6]: the stored bytes are the transpose's.
        let codecs: Vec<NamedConfig> = [
            json!({"name": "transpose", "configuration": {"order": [1, 0]}}),
            json!({"name": "reshape", "configuration": {"shape": [-1]}}),
            json!({"name": "bytes", "configuration": {"endian": "little"}}),
        ]
        .iter()
        .map(|c| NamedConfig::from_value(c).unwrap())
        .collect();
        let pipeline =
            CodecPipeline::from_v3(&codecs, &DataType::UInt8, &[2, 3], &FillValue::UInt(0))
                .unwrap();
        let decoded = pipeline.decode(&[0, 3, 1, 4, 2, 5]).unwrap();
        assert_eq!(decoded, DecodedChunk::Fixed(vec![0, 1, 2, 3, 4, 5]));
        let bad = json!({"name": "reshape", "configuration": {"shape": [[1], [0]]}});
        let bad = [
            NamedConfig::from_value(&bad).unwrap(),
            NamedConfig::from_value(&json!({"name": "bytes"})).unwrap(),
        ];
        assert!(
            CodecPipeline::from_v3(&bad, &DataType::UInt8, &[2, 3], &FillValue::UInt(0)).is_err()
        );
    }
}
