//! The Zarr Object Model: metadata documents of both versions, the ZOM node tree (ZEP 6),
//! and the operations on it (documents, flattening, conversion, comparison, JSON Schema).

pub mod compare;
pub mod named;
pub mod schema;
pub mod v2;
pub mod v3;
