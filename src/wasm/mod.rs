//! The JavaScript bindings: thin wrappers that convert values and errors and call the core.
//! The TypeScript wrapper in `ts/` is the public JS API; these are its raw imports.
//!
//! One file per domain: `runtime` (panic hook, promises, errors), `options` (every options
//! object, read through the fields `boundary` declares for both sides), `specs`, `validate`,
//! `model` (documents, flat forms, comparison), `json_text`, `decode` (`ChunkDecoder`),
//! `hierarchy` (open, `ArrayHandle`), `walk`, `cache`, `pool`, `parts`, `limits`, `codecs`, `http`,
//! `listing`, `zip`, `reference`, `views`, and the conversions (`convert`, `plain`, `values`) and the JS store
//! adapter (`store`) they share.

// Each part of the JS package is this crate built with the bindings of its job (Cargo.toml's
// `bind-read`, `bind-tools`); the helpers a part does not call are left to the linker.
#![cfg_attr(
    not(all(feature = "bind-read", feature = "bind-tools")),
    allow(dead_code, unused_imports)
)]

#[allow(dead_code)]
mod boundary;
#[cfg(feature = "bind-read")]
mod cache;
#[cfg(feature = "bind-read")]
mod codecs;
mod convert;
#[cfg(feature = "bind-read")]
mod decode;
#[cfg(feature = "bind-read")]
mod hierarchy;
#[cfg(any(feature = "bind-read", feature = "bind-tools"))]
mod http;
#[cfg(feature = "bind-icechunk")]
mod icechunk;
mod json_text;
mod limits;
#[cfg(any(feature = "bind-tools", feature = "bind-listing"))]
mod listing;
#[cfg(any(feature = "bind-read", feature = "bind-tools"))]
mod model;
mod options;
#[cfg(feature = "bind-read")]
mod parts;
mod plain;
#[cfg(feature = "bind-read")]
mod pool;
#[cfg(feature = "bind-references")]
mod reference;
mod runtime;
mod specs;
mod store;
#[cfg(feature = "bind-tools")]
mod validate;
#[cfg(any(feature = "bind-read", feature = "bind-tools"))]
mod values;
#[cfg(feature = "bind-views")]
mod views;
#[cfg(feature = "bind-tools")]
mod walk;
#[cfg(feature = "bind-read")]
mod zarrita;
#[cfg(feature = "bind-zip")]
mod zip;

#[cfg(feature = "bind-read")]
pub use decode::{float16_to_float32, ChunkDecoder};
#[cfg(feature = "bind-tools")]
pub use json_text::{parse_json, stringify};
#[cfg(feature = "bind-read")]
pub use model::node_kinds;
#[cfg(feature = "bind-tools")]
pub use model::summarize_tree;
#[cfg(any(feature = "bind-read", feature = "bind-tools"))]
pub use model::to_documents;
#[cfg(feature = "bind-tools")]
pub use model::{diff, flatten, from_documents, like, to_v3, unflatten};
#[cfg(feature = "bind-read")]
pub use parts::set_part_caller;
pub use runtime::{start, version};
#[cfg(feature = "bind-tools")]
pub use specs::detect_conventions;
#[cfg(all(feature = "bind-tools", not(feature = "builtin-specs")))]
pub use specs::set_builtin_specs;
#[cfg(feature = "bind-tools")]
pub use validate::{validate_attributes, validate_document, validate_hierarchy};

use runtime::{fail, promise, JsResult};
