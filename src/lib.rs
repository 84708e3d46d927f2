//! zom: Zarr v2 and v3 hierarchies as Zarr Object Models (ZEP 6), their validation, and the
//! decoding of their chunks, for WebAssembly (browsers, Node) and native Rust.
//!
//! The core is sans-I/O: every function takes bytes or JSON values and returns values or
//! problems. Stores and HTTP come in through the [`store::Store`] trait.
#![warn(missing_docs)]
// Without `decode` (the validator's part of the JS package) the decoding methods return at
// their first statement (`codec::decoding_built!`).
#![cfg_attr(not(feature = "decode"), allow(unreachable_code, unused_variables))]

pub mod chunk;
pub mod codec;
mod document;
pub mod dtype;
pub mod error;
pub mod hierarchy;
pub mod json;
pub mod limits;
pub mod model;
mod problem;
pub(crate) mod sort;
pub mod spec;
pub mod store;
#[cfg(test)]
mod testing;
pub mod validate;
pub mod view;

pub use error::{ErrorCode, Result, ZomError};
pub use limits::Limits;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// The README's Rust examples, compiled and run as doc tests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of docs/rust.md, run as doc tests like the README's.
#[cfg(doctest)]
#[doc = include_str!("../docs/rust.md")]
pub struct RustDocDoctests;

/// The Rust examples of docs/security.md (limits), run as doc tests like the README's.
#[cfg(doctest)]
#[doc = include_str!("../docs/security.md")]
pub struct SecurityDocDoctests;
