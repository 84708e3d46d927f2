//! Byte-order reversal of element bytes.

/// Reverses every `unit`-byte piece of `buf`; a trailing partial piece is left as it is.
pub fn swap_all(buf: &mut [u8], unit: usize) {
    match unit {
        2 => {
            for c in buf.chunks_exact_mut(2) {
                c.swap(0, 1);
            }
        }
        4 => {
            for c in buf.chunks_exact_mut(4) {
                let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                c.copy_from_slice(&v.swap_bytes().to_le_bytes());
            }
        }
        8 => {
            for c in buf.chunks_exact_mut(8) {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                c.copy_from_slice(&u64::from_le_bytes(a).swap_bytes().to_le_bytes());
            }
        }
        0 | 1 => {}
        _ => {
            for c in buf.chunks_exact_mut(unit) {
                c.reverse();
            }
        }
    }
}

/// Reverses, in every `element`-byte element of `buf`, each piece `(offset, length)` of
/// `units`; pieces that do not fit in the element are skipped.
pub fn swap_units(buf: &mut [u8], element: usize, units: &[(usize, usize)]) {
    if element == 0 {
        return;
    }
    for e in buf.chunks_exact_mut(element) {
        for &(offset, len) in units {
            if let Some(piece) = offset
                .checked_add(len)
                .and_then(|end| e.get_mut(offset..end))
            {
                piece.reverse();
            }
        }
    }
}
