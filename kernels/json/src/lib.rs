//! zom's scans of JSON text: the nesting depth of a document, and where the members of a v3
//! group's inline consolidated metadata are (see the crate description for why it is a crate).

mod find;
mod skim;

pub use skim::{skim_consolidated, Skim};

/// The first nesting depth over `max` that `bytes` reach (brackets inside strings do not
/// count), or `None`. Malformed text is left for the parser to report.
#[inline(never)] // compiled here, at this crate's optimisation level
pub fn depth_over(bytes: &[u8], max: u64) -> Option<u64> {
    let (mut depth, mut in_string, mut escaped) = (0u64, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth = depth.saturating_add(1);
                if depth > max {
                    return Some(depth);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}
