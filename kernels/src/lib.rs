//! zom's hot decode loops and checksums. They live in a crate of their own because Cargo sets optimisation
//! levels per crate: the WebAssembly build (`[profile.wasm-release]`) compiles zom for size
//! and this crate for speed. Every function here is non-generic, so that its code is generated
//! in this crate (generic code is generated, and optimised, in the crate that uses it).
//!
//! Every input is hostile: nothing here panics or reads or writes out of bounds.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod alloc;
mod blosclz;
mod bzip2;
mod checksum;
mod copy;
mod gather;
mod shuffle;
mod swap;

pub use alloc::try_zeroed;
pub use blosclz::blosclz_decompress;
pub use bzip2::{bzip2_decode, Bzip2Error};
pub use checksum::{adler32, crc32, crc32c, fletcher32, jenkins_lookup3};
pub use copy::copy_strided;
pub use gather::gather;
pub use lz4_flex::block::DecompressError as Lz4Error;
pub use shuffle::{bitunshuffle, unshuffle};
pub use swap::{swap_all, swap_units};

/// Decodes one LZ4 block into `out`; returns the number of bytes written.
pub fn lz4_block(block: &[u8], out: &mut [u8]) -> Result<usize, Lz4Error> {
    lz4_flex::block::decompress_into(block, out)
}
