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
    if let ([rows, cols], [1, stride]) = (shape, strides) {
        if let Some(done) = transpose_tiles(src, item, *rows, *cols, *stride, out) {
            return done;
        }
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

/// Tile side, in elements: the 32 source columns of a tile stay in cache while it is copied.
const TILE: usize = 32;

/// [`gather`] of a transposed 2-D block (v2 `order: "F"`, a `transpose` of `[1, 0]`): the
/// element at `(r, c)` is `src[r + c × stride]`. Row by row, each read of a large block would
/// touch a new cache line; square tiles keep them in cache.
/// `None` for element sizes other than 2, 4 and 8, which take the general path.
fn transpose_tiles(
    src: &[u8],
    item: usize,
    rows: usize,
    cols: usize,
    stride: usize,
    out: &mut Vec<u8>,
) -> Option<bool> {
    if !matches!(item, 2 | 4 | 8) {
        return None;
    }
    let last = stride
        .checked_mul(cols - 1)
        .and_then(|c| c.checked_add(rows))
        .and_then(|n| n.checked_mul(item));
    let (Some(end), Some(len)) = (
        last,
        rows.checked_mul(cols).and_then(|n| n.checked_mul(item)),
    ) else {
        return Some(false);
    };
    if end > src.len() {
        return Some(false);
    }
    let start = out.len();
    out.resize(start + len, 0);
    let dst = out.get_mut(start..)?;
    match item {
        2 => tiles::<2>(src, dst, rows, cols, stride),
        4 => tiles::<4>(src, dst, rows, cols, stride),
        _ => tiles::<8>(src, dst, rows, cols, stride),
    }
    Some(true)
}

/// The copy of [`transpose_tiles`] for `N`-byte elements (`src` checked to hold every index).
fn tiles<const N: usize>(src: &[u8], dst: &mut [u8], rows: usize, cols: usize, stride: usize) {
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..rows.min(r0 + TILE) {
                for c in c0..cols.min(c0 + TILE) {
                    let (s, d) = ((r + c * stride) * N, (r * cols + c) * N);
                    if let (Some(to), Some(from)) = (dst.get_mut(d..d + N), src.get(s..s + N)) {
                        to.copy_from_slice(from);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The element-by-element definition.
    fn reference(src: &[u8], item: usize, shape: &[usize], strides: &[usize]) -> Vec<u8> {
        let n: usize = shape.iter().product();
        let mut out = Vec::new();
        for flat in 0..n {
            let (mut rest, mut at) = (flat, 0);
            for (&len, &stride) in shape.iter().zip(strides).rev() {
                at += (rest % len) * stride;
                rest /= len;
            }
            out.extend_from_slice(&src[at * item..at * item + item]);
        }
        out
    }

    #[test]
    fn matches_the_definition_for_permutations_and_sizes() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[70, 45], &[1, 70]),
            (&[70, 45], &[1, 75]),
            (&[45, 70], &[70, 1]),
            (&[1, 37], &[1, 1]),
            (&[37, 1], &[1, 37]),
            (&[3, 33, 40], &[1, 3, 99]),
            (&[5, 7, 9], &[63, 1, 7]),
            (&[2, 3, 4, 5], &[60, 1, 15, 3]),
            (&[6], &[2]),
            (&[4, 4], &[0, 1]),
        ];
        for item in [1, 2, 3, 4, 8, 16] {
            for &(shape, strides) in cases {
                let need = shape
                    .iter()
                    .zip(strides)
                    .map(|(l, s)| (l - 1) * s)
                    .sum::<usize>()
                    + 1;
                let src: Vec<u8> = (0..need * item).map(|i| (i * 7 + i / 251) as u8).collect();
                let mut out = vec![9u8];
                assert!(
                    gather(&src, item, shape, strides, &mut out),
                    "{shape:?} {strides:?}"
                );
                assert_eq!(out[0], 9);
                let expected = reference(&src, item, shape, strides);
                assert_eq!(&out[1..], expected, "{item} {shape:?} {strides:?}");
            }
        }
    }

    #[test]
    fn refuses_indexes_outside_the_source() {
        for item in [2, 3, 8] {
            let mut out = Vec::new();
            assert!(!gather(
                &vec![0u8; 6 * item - 1],
                item,
                &[2, 3],
                &[1, 2],
                &mut out
            ));
            assert!(!gather(
                &vec![0u8; 6 * item],
                item,
                &[2, usize::MAX],
                &[1, usize::MAX],
                &mut out
            ));
            assert!(gather(
                &vec![0u8; 6 * item],
                item,
                &[2, 3],
                &[1, 2],
                &mut out
            ));
        }
    }
}
