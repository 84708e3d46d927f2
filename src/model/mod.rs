//! The Zarr Object Model: metadata documents of both versions, the ZOM node tree (ZEP 6),
//! and the operations on it (documents, flattening, conversion, comparison, JSON Schema).

pub mod named;
pub mod node;
pub mod v2;
pub mod v3;

pub use node::{join_path, Array, ArrayV2, Group, Node, ZarrFormat};
pub mod documents;
pub use documents::{
    from_document_bytes, from_documents, to_document_bytes, to_documents, DocumentOptions,
};
pub mod flat;
pub use flat::{flatten, unflatten, FlatForm};
pub mod convert;
pub use convert::{to_v3, Conversion};
