//! Little-endian fields of zip records, read without panicking on short input.

/// The `u16` at `at`, if the bytes are there.
pub(super) fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(field(bytes, at)?))
}

/// The `u32` at `at`, if the bytes are there.
pub(super) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(field(bytes, at)?))
}

/// The `u64` at `at`, if the bytes are there.
pub(super) fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(field(bytes, at)?))
}

fn field<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Reads a record's fields one after another.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    pub(super) fn position(&self) -> usize {
        self.at
    }

    pub(super) fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// The next `n` bytes, if there are that many.
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }

    pub(super) fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// Sorts `v` by `less` in place (heapsort). Hand-written because the standard sorts are
/// generic and large: each element type instantiates several kilobytes in the module, this
/// a few hundred bytes.
pub(super) fn heap_sort<T>(v: &mut [T], less: fn(&T, &T) -> bool) {
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
