//! LZMA decoding for numcodecs' `lzma` codec: the xz container (LZMA2 filter; CRC32, CRC64 or
//! no check) and the legacy "alone" format (.lzma). A decoder of its own rather than lzma-rs:
//! lzma-rs instantiates its generic decoder once per container (and per reader and writer
//! type), each copy more code in the WebAssembly module; this one decodes straight into the
//! output vector, which is also the dictionary, and is one non-generic copy.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod lzma;
mod xz;

use std::fmt;

/// The lzma container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LzmaContainer {
    /// xz.
    Xz,
    /// The legacy "alone" format (.lzma).
    Alone,
}

/// Why LZMA data did not decode.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error(&'static str);

impl Error {
    /// The output would be larger than allowed.
    const TOO_BIG: Error = Error("output over the limit");
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// A failed LZMA decode: the error and how many bytes were decoded before it (at least the
/// maximum when the data decodes to more than allowed).
#[derive(Debug)]
pub struct LzmaFailure {
    /// What went wrong.
    pub error: Error,
    /// The number of bytes decoded before the error.
    pub decoded: usize,
}

/// Decodes `input` in `container`, producing at most `max` bytes (more is an error).
pub fn lzma_decode(
    input: &[u8],
    container: LzmaContainer,
    max: usize,
) -> Result<Vec<u8>, LzmaFailure> {
    let mut out = Vec::new();
    let result = match container {
        LzmaContainer::Xz => xz::decode(input, &mut out, max),
        LzmaContainer::Alone => alone(input, &mut out, max),
    };
    match result {
        Ok(()) => Ok(out),
        Err(error) => Err(LzmaFailure {
            decoded: if error == Error::TOO_BIG {
                max.max(out.len())
            } else {
                out.len()
            },
            error,
        }),
    }
}

/// The alone format: properties byte, dictionary size (u32 LE), uncompressed size (u64 LE,
/// all ones when unknown: the data then ends with the end marker), then the LZMA data.
fn alone(input: &[u8], out: &mut Vec<u8>, max: usize) -> Result<(), Error> {
    let Some((header, data)) = input.split_first_chunk::<13>() else {
        return Err(Error("the lzma data is truncated"));
    };
    let mut decoder = lzma::Lzma::new(header[0])?;
    let size = u64::from_le_bytes([
        header[5], header[6], header[7], header[8], header[9], header[10], header[11], header[12],
    ]);
    let mut rc = lzma::RangeDecoder::new(data)?;
    if size == u64::MAX {
        decoder.decode(&mut rc, out, 0, max, lzma::End::AtMarker)
    } else {
        let size = usize::try_from(size).map_err(|_| Error::TOO_BIG)?;
        if size > max {
            return Err(Error::TOO_BIG);
        }
        out.reserve_exact(size);
        decoder.decode(&mut rc, out, 0, size, lzma::End::AtLimit)?;
        if rc.finished() {
            Ok(())
        } else {
            Err(Error("corrupt lzma data"))
        }
    }
}
