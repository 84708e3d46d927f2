//! The Zarr Object Model: metadata documents of both versions, the ZOM node tree (ZEP 6),
//! and the operations on it (documents, flattening, conversion, comparison, JSON Schema).

pub mod compare;
mod compare_json;
pub mod convert;
pub mod deferred;
pub mod documents;
pub mod flat;
pub mod node;
pub mod schema;
pub mod summary;
mod zom_text;
#[cfg(test)]
mod zom_text_tests;

pub use crate::document::{named, v2, v3};

pub use compare::{diff, like, CompareOptions, Difference, DifferenceKind};
pub use convert::{to_v3, Conversion};
pub use deferred::DeferredMembers;
pub use documents::{
    from_document_bytes, from_documents, to_document_bytes, to_documents, DocumentOptions,
};
pub use flat::{flatten, unflatten, FlatForm};
pub use node::{join_path, Array, ArrayV2, Group, Node, ZarrFormat};
pub use schema::json_schema;
pub use summary::{summaries, summarize, summarize_tree, NodeSummary};
pub use zom_text::write_zom;
