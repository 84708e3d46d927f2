//! The fuzz harnesses of zom, one module per cargo-fuzz target. Each `run(data)` feeds
//! hostile bytes to one part of zom's public API, checks the invariants that must hold, and
//! returns an [`Outcome`]: which steps ran and which error code each ended with.
//!
//! `tests/fuzz_regressions.rs` includes this file by path (no `arbitrary`, no libFuzzer here)
//! and runs every saved crashing input through the same `run`, asserting the error it must
//! give now.

pub mod array_read;
pub mod codec_decode;
pub mod hierarchy_spec;
pub mod icechunk_files;
pub mod input;
pub mod metadata_document;
pub mod outcome;
pub mod selection_plan;
pub mod shard_index;
pub mod zip_archive;
pub mod zom_roundtrip;

pub use outcome::Outcome;

/// Every target by name, for the regression test and `seed` tooling.
pub const TARGETS: &[(&str, fn(&[u8]) -> Outcome)] = &[
    ("metadata_document", metadata_document::run),
    ("zom_roundtrip", zom_roundtrip::run),
    ("codec_decode", codec_decode::run),
    ("shard_index", shard_index::run),
    ("selection_plan", selection_plan::run),
    ("array_read", array_read::run),
    ("hierarchy_spec", hierarchy_spec::run),
    ("zip_archive", zip_archive::run),
    ("icechunk_files", icechunk_files::run),
];
