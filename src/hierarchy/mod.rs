//! Hierarchy access over a store: opening arrays and reading their chunks and regions.
//! Everything here is sans-I/O for now: callers hand in the bytes they fetched.

mod array;

pub use array::{ArrayReader, ChunkValues};
