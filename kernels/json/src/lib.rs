//! zom's JSON text work: parsing (`parse`) and writing values (`text`), the nesting depth of a document,
//! and where the members of a v3 group's inline consolidated metadata are (see the crate
//! description for why it is a crate).

mod blocks;
mod parse;
mod skim;
pub mod text;

pub use parse::ParseError;

pub use skim::{skim_consolidated, skim_zmetadata, Skim};

/// The first nesting depth over `max` that `bytes` reach (brackets inside strings do not
/// count), or `None`. Malformed text is left for the parser to report.
#[inline(never)] // compiled here, at this crate's optimisation level
pub fn depth_over(bytes: &[u8], max: u64) -> Option<u64> {
    blocks::depth_over(bytes, max)
}
