//! Checksum codecs: v3 `crc32c` and numcodecs' `crc32`, `crc32c`, `adler32`, `fletcher32` and
//! `jenkins_lookup3`.
//! Decoding verifies the stored checksum and strips it; a mismatch is
//! [`ErrorCode::ChecksumMismatch`].

use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, BytesToBytesCodec, Limits, SizeBound};
use crate::error::{ErrorCode, Result, ZomError};
use crate::problem::config::{Config, Need};

/// The checksum algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Algorithm {
    /// CRC-32C (Castagnoli).
    Crc32c,
    /// CRC-32 (zlib's).
    Crc32,
    /// Adler-32 (zlib's).
    Adler32,
    /// HDF5's Fletcher-32 over big-endian 16-bit words.
    Fletcher32,
    /// Bob Jenkins' lookup3 (HDF5's), with its seed.
    JenkinsLookup3(u32),
}

/// Where the 4 checksum bytes sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Location {
    /// Before the data.
    Start,
    /// After the data.
    End,
}

/// A 32-bit checksum codec.
#[derive(Clone, Debug)]
pub(crate) struct ChecksumCodec {
    name: String,
    algorithm: Algorithm,
    location: Location,
}

impl ChecksumCodec {
    /// A checksum codec.
    pub(crate) fn new(name: &str, algorithm: Algorithm, location: Location) -> ChecksumCodec {
        ChecksumCodec {
            name: name.to_string(),
            algorithm,
            location,
        }
    }

    fn split<'a>(&self, input: &'a [u8]) -> Result<(&'a [u8], u32)> {
        let payload_len = input.len().checked_sub(4).ok_or_else(|| {
            codec_error(format!(
                "{}: {} bytes is too short to hold a checksum",
                self.name,
                input.len()
            ))
        })?;
        let (payload, stored) = match self.location {
            Location::Start => (input.get(4..), input.get(..4)),
            Location::End => (input.get(..payload_len), input.get(payload_len..)),
        };
        match (payload, stored) {
            (Some(payload), Some(&[a, b, c, d])) => Ok((payload, u32::from_le_bytes([a, b, c, d]))),
            _ => Err(codec_error(format!("{}: malformed input", self.name))),
        }
    }

    fn verify<'a>(&self, input: &'a [u8]) -> Result<&'a [u8]> {
        let (payload, stored) = self.split(input)?;
        let computed = checksum(self.algorithm, payload);
        if computed != stored {
            return Err(ZomError::new(
                ErrorCode::ChecksumMismatch,
                format!(
                    "{}: stored checksum {stored:#010x} does not match the data's {computed:#010x}",
                    self.name
                ),
            ));
        }
        Ok(payload)
    }
}

impl BytesToBytesCodec for ChecksumCodec {
    fn name(&self) -> &str {
        &self.name
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let sum = checksum(self.algorithm, input).to_le_bytes();
        let mut out = Vec::with_capacity(input.len().saturating_add(4));
        match self.location {
            Location::Start => {
                out.extend_from_slice(&sum);
                out.extend_from_slice(input);
            }
            Location::End => {
                out.extend_from_slice(input);
                out.extend_from_slice(&sum);
            }
        }
        Ok(out)
    }

    fn encoded_bound(&self, decoded: SizeBound, _limits: &Limits) -> SizeBound {
        decoded.plus(4)
    }

    fn decode(&self, input: &[u8], bound: SizeBound) -> Result<Vec<u8>> {
        decoding_built!();
        let payload = self.verify(input)?;
        bound.check(payload.len(), &self.name)?;
        Ok(payload.to_vec())
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        decoding_built!();
        let payload = self.verify(input)?;
        SizeBound::Exact(out.len() as u64).check(payload.len(), &self.name)?;
        out.copy_from_slice(payload);
        Ok(())
    }
}

/// The checksum of `data`.
pub(crate) fn checksum(algorithm: Algorithm, data: &[u8]) -> u32 {
    match algorithm {
        Algorithm::Crc32c => zom_kernels::crc32c(data),
        Algorithm::Crc32 => zom_kernels::crc32(data),
        Algorithm::Adler32 => zom_kernels::adler32(data),
        Algorithm::Fletcher32 => zom_kernels::fletcher32(data),
        Algorithm::JenkinsLookup3(seed) => zom_kernels::jenkins_lookup3(data, seed),
    }
}

const fn checksum_spec(
    name: &'static str,
    numcodecs: bool,
    configure: super::registry::Configure,
) -> CodecSpec {
    let spec = if numcodecs {
        CodecSpec::numcodecs(name, Kind::BytesToBytes, configure)
    } else {
        CodecSpec::v3(name, Kind::BytesToBytes, configure)
    };
    CodecSpec {
        fixed_size: true,
        ..spec
    }
}

/// A checksum codec whose stored value sits at `location` unless the configuration says.
fn checksum_codec(cfg: &mut Config, algorithm: Algorithm, default: Location) -> Option<Built> {
    let location = match cfg.one_of("location", &["start", "end"], Need::Decode) {
        Some("start") => Location::Start,
        Some(_) => Location::End,
        None if cfg.failed() => return None,
        None => default,
    };
    Some(Built::BytesToBytes(Box::new(ChecksumCodec::new(
        cfg.name, algorithm, location,
    ))))
}

/// `crc32c` (v3): CRC-32C after the data.
pub(crate) const CRC32C: CodecSpec = checksum_spec("crc32c", false, crc32c);

fn crc32c(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&[]);
    checksum_codec(cfg, Algorithm::Crc32c, Location::End)
}

/// numcodecs `crc32` (stored before the data unless `location` says).
pub(crate) const NC_CRC32: CodecSpec = checksum_spec("crc32", true, |cfg, _| {
    located(cfg, Algorithm::Crc32, Location::Start)
});

/// numcodecs `crc32c` (stored after the data unless `location` says).
pub(crate) const NC_CRC32C: CodecSpec = checksum_spec("crc32c", true, |cfg, _| {
    located(cfg, Algorithm::Crc32c, Location::End)
});

/// numcodecs `adler32` (stored before the data unless `location` says).
pub(crate) const NC_ADLER32: CodecSpec = checksum_spec("adler32", true, |cfg, _| {
    located(cfg, Algorithm::Adler32, Location::Start)
});

/// A numcodecs checksum whose `location` member may move it.
fn located(cfg: &mut Config, algorithm: Algorithm, default: Location) -> Option<Built> {
    cfg.allow(&["location"]);
    checksum_codec(cfg, algorithm, default)
}

/// numcodecs `fletcher32` (HDF5's, after the data).
pub(crate) const NC_FLETCHER32: CodecSpec = checksum_spec("fletcher32", true, nc_fletcher32);

fn nc_fletcher32(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&[]);
    checksum_codec(cfg, Algorithm::Fletcher32, Location::End)
}

/// numcodecs `jenkins_lookup3`: after the data, seeded with `initval`; numcodecs' `prefix`
/// (bytes hashed before the data) has no JSON form, so only its absence is read.
pub(crate) const NC_JENKINS_LOOKUP3: CodecSpec =
    checksum_spec("jenkins_lookup3", true, nc_jenkins_lookup3);

fn nc_jenkins_lookup3(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.allow(&["initval", "prefix"]);
    let seed = cfg
        .int("initval", 0, i64::from(u32::MAX), Need::Decode)
        .unwrap_or(0);
    if cfg.get("prefix").is_some() {
        cfg.unsupported("jenkins_lookup3 with a 'prefix' is not supported".into());
    }
    checksum_codec(cfg, Algorithm::JenkinsLookup3(seed as u32), Location::End)
}
