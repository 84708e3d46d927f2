//! LZMA decoding through lzma-rs. lzma-rs is generic, so its code is generated (and optimised)
//! in the crate that calls it: here, which the WebAssembly build compiles at opt-level "s".
//! Compiled in zom (at "z") LZMA decodes at half its speed; here at "s" it has 80% of it for
//! 3.4 KiB gzipped; at 3 it would cost 9 KiB.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::io::Write;

/// The lzma container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LzmaContainer {
    /// xz.
    Xz,
    /// The legacy "alone" format (.lzma).
    Alone,
}

/// A failed LZMA decode: the decoder's error and how many bytes were decoded before it.
#[derive(Debug)]
pub struct LzmaFailure {
    /// What lzma-rs reported.
    pub error: lzma_rs::error::Error,
    /// The number of bytes decoded before the error.
    pub decoded: usize,
}

/// A writer that refuses to hold more than `max` bytes.
struct LimitedWriter {
    out: Vec<u8>,
    max: usize,
}

impl Write for LimitedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.out.len().saturating_add(buf.len()) > self.max {
            return Err(std::io::Error::other("output over the limit"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Decodes `input` in `container`, producing at most `max` bytes (more is an error).
pub fn lzma_decode(
    input: &[u8],
    container: LzmaContainer,
    max: usize,
) -> Result<Vec<u8>, LzmaFailure> {
    let mut writer = LimitedWriter {
        out: Vec::new(),
        max,
    };
    let mut reader = input;
    let result = match container {
        LzmaContainer::Xz => lzma_rs::xz_decompress(&mut reader, &mut writer),
        LzmaContainer::Alone => {
            let options = lzma_rs::decompress::Options {
                memlimit: Some(max.max(4096)),
                ..Default::default()
            };
            lzma_rs::lzma_decompress_with_options(&mut reader, &mut writer, &options)
        }
    };
    match result {
        Ok(()) => Ok(writer.out),
        Err(error) => Err(LzmaFailure {
            error,
            decoded: writer.out.len(),
        }),
    }
}
