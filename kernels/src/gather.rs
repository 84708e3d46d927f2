//! Gathering elements in a permuted order (the `transpose` codec).

/// Appends to `out` the `item`-byte elements of `src` in C order of `shape`, element
/// `(i0, i1, …)` being the one at index `Σ ik × strides[k]` of `src`. Returns `false` (after
/// appending the elements before it) when an index lies outside `src`, or when `strides` does
/// not have one entry per dimension.
pub fn gather(
    src: &[u8],
    item: usize,
    shape: &[usize],
    strides: &[usize],
    out: &mut Vec<u8>,
) -> bool {
    if shape.contains(&0) {
        return true;
    }
    if strides.len() != shape.len() {
        return false;
    }
    let (Some(&last_len), Some(&last_stride)) = (shape.last(), strides.last()) else {
        return copy_one(src, 0, item, out);
    };
    let ndim = shape.len();
    let mut index = vec![0usize; ndim];
    let mut base = 0usize;
    loop {
        let mut at = base;
        for _ in 0..last_len {
            if !copy_one(src, at, item, out) {
                return false;
            }
            at = at.wrapping_add(last_stride);
        }
        // Advance the odometer over all dimensions but the last.
        let mut dim = ndim.saturating_sub(1);
        loop {
            if dim == 0 {
                return true;
            }
            dim -= 1;
            let (Some(i), Some(&len), Some(&stride)) =
                (index.get_mut(dim), shape.get(dim), strides.get(dim))
            else {
                return false;
            };
            *i += 1;
            base = base.wrapping_add(stride);
            if *i < len {
                break;
            }
            *i = 0;
            base = base.wrapping_sub(stride.wrapping_mul(len));
        }
    }
}

#[inline(always)]
fn copy_one(src: &[u8], index: usize, item: usize, out: &mut Vec<u8>) -> bool {
    let piece = index
        .checked_mul(item)
        .and_then(|start| src.get(start..start.checked_add(item)?));
    match piece {
        Some(p) => {
            out.extend_from_slice(p);
            true
        }
        None => false,
    }
}
