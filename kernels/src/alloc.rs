//! Buffer allocation.

/// A zeroed buffer of `n` bytes, or `None` when it cannot be allocated (instead of aborting).
pub fn try_zeroed(n: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).ok()?;
    // Here, at opt-level 3, this is a memset; in code compiled for size it is a loop over bytes.
    out.resize(n, 0);
    Some(out)
}
