//! Chunk encoding (feature `encode`, native builds): the inverse of each codec's decode where
//! the crate has it at hand — `bytes` (both endians), `transpose` / order F, gzip, zlib, zstd,
//! the checksums (crc32c, crc32, adler32, fletcher32) and the vlen framings. Other codecs
//! refuse with [`ErrorCode::UnknownCodec`]. Compressors use their default levels (the level in
//! a configuration only matters to the writer; every reader decodes any level).

use super::compress::{Compressor, CompressorCodec};
use super::{codec_error, BytesToBytesCodec};
use crate::error::{ErrorCode, Result, ZomError};
use std::io::Write;

/// The error of a codec that cannot encode.
pub(crate) fn unsupported(name: &str) -> ZomError {
    ZomError::new(
        ErrorCode::UnknownCodec,
        format!("codec '{name}' cannot encode (zom encodes bytes, transpose, gzip, zlib, zstd, checksums and vlen codecs)"),
    )
}

/// numcodecs' vlen framing: a u32 LE count, then per item a u32 LE length and its bytes.
pub(crate) fn vlen_frame<'a>(items: impl ExactSizeIterator<Item = &'a [u8]>) -> Result<Vec<u8>> {
    let too_long = || codec_error("vlen: more than 2^32-1 items or bytes in one item");
    let mut out = Vec::new();
    out.extend_from_slice(
        &u32::try_from(items.len())
            .map_err(|_| too_long())?
            .to_le_bytes(),
    );
    for item in items {
        out.extend_from_slice(
            &u32::try_from(item.len())
                .map_err(|_| too_long())?
                .to_le_bytes(),
        );
        out.extend_from_slice(item);
    }
    Ok(out)
}

impl CompressorCodec {
    /// Compresses `input` with the codec's default level.
    pub(crate) fn compress(&self, input: &[u8]) -> Result<Vec<u8>> {
        let failed = |e: std::io::Error| codec_error(format!("{}: {e}", self.name()));
        let level = flate2::Compression::default();
        match self.kind() {
            Compressor::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
                e.write_all(input).map_err(failed)?;
                e.finish().map_err(failed)
            }
            Compressor::Zlib => {
                let mut e = flate2::write::ZlibEncoder::new(Vec::new(), level);
                e.write_all(input).map_err(failed)?;
                e.finish().map_err(failed)
            }
            Compressor::Zstd => {
                zstd::bulk::compress(input, zstd::DEFAULT_COMPRESSION_LEVEL).map_err(failed)
            }
            _ => Err(unsupported(self.name())),
        }
    }
}
