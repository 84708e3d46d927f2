//! The metadata documents as typed values: v2 `.zarray`, `.zgroup`, `.zmetadata` (`v2`), v3
//! `zarr.json` (`v3`), and the v3 named-configuration form (`named`) that data types, chunk
//! grids, key encodings and codecs share. A low module: data types, chunks and codecs read
//! their parts of a document here without knowing the ZOM; `crate::model` re-exports the
//! three modules at their public paths (`zom::model::v2`, `zom::model::v3`,
//! `zom::model::named`).

pub mod named;
pub(crate) mod read;
#[cfg(test)]
mod read_tests;
pub mod v2;
pub mod v3;
