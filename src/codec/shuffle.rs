//! The numcodecs `shuffle` bytes → bytes codec (the unshuffle itself is in zom-kernels).

use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, BytesToBytesCodec, Limits, SizeBound};
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::ProblemKind;
use zom_kernels::unshuffle;

/// numcodecs' `shuffle` codec: a byte shuffle of the whole buffer.
#[derive(Clone, Debug)]
pub(crate) struct ShuffleCodec {
    name: String,
    element_size: usize,
}

impl ShuffleCodec {
    /// A shuffle codec for elements of `element_size` bytes.
    pub(crate) fn new(name: &str, element_size: usize) -> ShuffleCodec {
        ShuffleCodec {
            name: name.to_string(),
            element_size,
        }
    }
}

impl BytesToBytesCodec for ShuffleCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_bound(&self, decoded: SizeBound, _limits: &Limits) -> SizeBound {
        decoded
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        bound.check(input.len(), &self.name)?;
        let mut out = vec![0u8; input.len()];
        self.decode_into(input, &mut out)?;
        Ok(out)
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        decoding_built!();
        SizeBound::Exact(out.len() as u64).check(input.len(), &self.name)?;
        if self.element_size > 1 && !input.len().is_multiple_of(self.element_size) {
            return Err(codec_error(format!(
                "{}: {} bytes is not a whole number of {}-byte elements",
                self.name,
                input.len(),
                self.element_size
            )));
        }
        unshuffle(input, out, self.element_size);
        Ok(())
    }
}

/// numcodecs `shuffle`; `elementsize` defaults to the array's element size.
pub(crate) const NC_SHUFFLE: CodecSpec =
    CodecSpec::numcodecs("shuffle", Kind::BytesToBytes, configure);

fn configure(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["elementsize"]);
    let item = stage.dtype.as_ref().and_then(|d| d.fixed_size());
    let size = match cfg.uint("elementsize", 0, Need::Decode) {
        Some(size) => size,
        None if cfg.failed() => return None,
        None => item.unwrap_or(4),
    };
    let Ok(size) = usize::try_from(size) else {
        let message = "shuffle 'elementsize' is too large".to_string();
        cfg.refuse(ProblemKind::InvalidValue, message, Need::Decode);
        return None;
    };
    Some(Built::BytesToBytes(Box::new(ShuffleCodec::new(
        cfg.name, size,
    ))))
}
