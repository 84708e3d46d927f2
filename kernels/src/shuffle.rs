//! Byte and bit unshuffles (blosc, numcodecs `shuffle`): simd128 kernels on wasm32, portable
//! ones elsewhere.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use self::wasm as kernel;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use portable as kernel;

// On wasm32 the SIMD kernels use part of the portable ones (for tails).
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)] // simd128 loads and stores; each has its SAFETY comment
mod wasm;

/// Undoes a byte shuffle of `typesize`-byte elements: `src` holds byte 0 of every element,
/// then byte 1 of every element, …; trailing bytes that do not make a whole element are
/// copied as they are. `dst` must have the length of `src`.
pub fn unshuffle(src: &[u8], dst: &mut [u8], typesize: usize) {
    let len = src.len().min(dst.len());
    let (Some(src), Some(dst)) = (src.get(..len), dst.get_mut(..len)) else {
        return;
    };
    if typesize < 2 || len < typesize {
        dst.copy_from_slice(src);
        return;
    }
    let whole = len - len % typesize;
    let (Some(s), Some(d)) = (src.get(..whole), dst.get_mut(..whole)) else {
        return;
    };
    kernel::unshuffle(s, d, typesize);
    if let (Some(d), Some(s)) = (dst.get_mut(whole..), src.get(whole..)) {
        d.copy_from_slice(s);
    }
}

/// Undoes blosc's bitshuffle of one block. Blosc format 2 (c-blosc 1) leaves blocks whose
/// element count is not a multiple of 8 as they are; later formats bitshuffle the largest
/// multiple of 8 elements and copy the rest.
pub fn bitunshuffle(src: &[u8], dst: &mut [u8], typesize: usize, format_version: u8) {
    let len = src.len().min(dst.len());
    let count = len.checked_div(typesize).unwrap_or(0);
    let shuffled = if format_version <= 2 {
        if count % 8 == 0 {
            count
        } else {
            0
        }
    } else {
        count - count % 8
    };
    // shuffled * typesize <= len: no overflow.
    let done = shuffled * typesize;
    if let (Some(s), Some(d)) = (src.get(..done), dst.get_mut(..done)) {
        bit_untranspose(s, d, shuffled, typesize);
    }
    if let (Some(d), Some(s)) = (dst.get_mut(done..len), src.get(done..len)) {
        d.copy_from_slice(s);
    }
}

/// Bytes of the stack buffer that [`bit_untranspose`] assembles elements in.
const TILE: usize = 16384;

/// Undoes bitshuffle's bit transpose of `count` elements (a multiple of 8) of `typesize`
/// bytes: `src` holds, for each byte `j` and bit `b` of an element, a row of `count` bits.
/// A tile of elements at a time: each byte of them from its 8 rows (bits to bytes), into a
/// byte-shuffled tile small enough to stay in L1, then a byte unshuffle into `dst`.
fn bit_untranspose(src: &[u8], dst: &mut [u8], count: usize, typesize: usize) {
    let row = count / 8;
    if row == 0 || typesize == 0 {
        return;
    }
    if typesize == 1 {
        if let Some(rows) = portable::rows::<8>(src, row) {
            kernel::bit_plane(rows, dst);
        }
        return;
    }
    // Elements per tile: a multiple of 8 (whole bit groups); 8 for outlandish element sizes.
    let per = (TILE / typesize) / 8 * 8;
    let mut stack = [0u8; TILE];
    let mut heap = Vec::new();
    let (tile, per) = if per > 0 {
        (&mut stack[..], per)
    } else {
        let Some(size) = typesize.checked_mul(8) else {
            return;
        };
        heap.resize(size, 0);
        (&mut heap[..], 8)
    };
    let Some(tile_bytes) = per.checked_mul(typesize) else {
        return;
    };
    let mut first_group = 0usize;
    for out in dst.chunks_mut(tile_bytes) {
        let n = out.len() / typesize;
        let Some(end) = first_group.checked_add(n / 8) else {
            return;
        };
        let Some(t) = tile.get_mut(..out.len()) else {
            return;
        };
        for (plane, plane_out) in src.chunks_exact(count).zip(t.chunks_exact_mut(n)) {
            let Some(rows) = portable::rows::<8>(plane, row) else {
                return;
            };
            let mut part = [&[][..]; 8];
            for (p, r) in part.iter_mut().zip(rows) {
                *p = r.get(first_group..end).unwrap_or_default();
            }
            kernel::bit_plane(part, plane_out);
        }
        kernel::unshuffle(t, out, typesize);
        first_group = end;
    }
}
