//! The JavaScript bindings: thin wrappers that convert values and errors and call the core.
//! The TypeScript wrapper in `ts/` is the public JS API; these are its raw imports.
//!
//! One file per domain: `runtime` (panic hook, promises, errors), `options` (every options
//! object, read through the fields `boundary` declares for both sides), `specs`, `validate`,
//! `model` (documents, flat forms, comparison), `json_text`, `decode` (`ChunkDecoder`),
//! `hierarchy` (open, walk, `ArrayHandle`), `cache`, `pool`, `limits`, `codecs`, `http`,
//! `zip`, `reference`, and the conversions (`convert`, `plain`, `values`) and the JS store
//! adapter (`store`) they share.

#[allow(dead_code)]
mod boundary;
mod cache;
mod codecs;
mod convert;
mod decode;
mod hierarchy;
mod http;
mod json_text;
mod limits;
mod model;
mod options;
mod plain;
mod pool;
mod reference;
mod runtime;
mod specs;
mod store;
mod validate;
mod values;
mod zarrita;
mod zip;

pub use decode::{float16_to_float32, ChunkDecoder};
pub use json_text::{parse_json, stringify};
pub use model::{
    diff, flatten, from_documents, like, summarize_tree, to_documents, to_v3, unflatten,
};
pub use runtime::{start, version};
pub use specs::detect_conventions;
#[cfg(not(feature = "builtin-specs"))]
pub use specs::set_builtin_specs;
pub use validate::{validate_attributes, validate_document, validate_hierarchy};

use runtime::{fail, promise, JsResult};
