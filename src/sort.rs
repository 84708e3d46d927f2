//! One small sort for the whole crate.
//!
//! The standard library's sorts are generic and large: each element type they are used with
//! instantiates several kilobytes of WebAssembly (a quicksort, small sorts, pivots, a heapsort
//! fallback). zom sorts short lists (names, byte ranges, directory entries) off every hot path,
//! so one heapsort, a few hundred bytes per element type, serves them all.

/// Sorts `v` by `less` in place (heapsort). Hand-written because the standard sorts are
/// generic and large: each element type instantiates several kilobytes in the module, this
/// a few hundred bytes.
pub(crate) fn heap_sort<T>(v: &mut [T], less: fn(&T, &T) -> bool) {
    fn sift<T>(v: &mut [T], mut root: usize, end: usize, less: fn(&T, &T) -> bool) {
        loop {
            let mut child = root.saturating_mul(2).saturating_add(1);
            if child >= end {
                return;
            }
            if child + 1 < end
                && v.get(child)
                    .zip(v.get(child + 1))
                    .is_some_and(|(a, b)| less(a, b))
            {
                child += 1;
            }
            if !v
                .get(root)
                .zip(v.get(child))
                .is_some_and(|(a, b)| less(a, b))
            {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let len = v.len();
    for start in (0..len / 2).rev() {
        sift(v, start, len, less);
    }
    for end in (1..len).rev() {
        v.swap(0, end);
        sift(v, 0, end, less);
    }
}

#[cfg(test)]
mod tests {
    use super::heap_sort;

    #[test]
    fn heap_sort_sorts_like_the_standard_sort() {
        let mut seed = 7u64;
        for len in 0..70 {
            let mut v: Vec<u64> = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 58) % 13
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            heap_sort(&mut v, |a, b| a < b);
            assert_eq!(v, want, "length {len}");
        }
    }
}
