//! Byte and bit unshuffling, as numcodecs' `shuffle` codec and blosc do it.

/// Undoes a byte shuffle of `typesize`-byte elements: `src` holds byte 0 of every element,
/// then byte 1 of every element, …; trailing bytes that do not make a whole element are
/// copied as they are. `dst` must have the length of `src`.
pub fn unshuffle(src: &[u8], dst: &mut [u8], typesize: usize) {
    let len = src.len().min(dst.len());
    if typesize < 2 || len < typesize {
        dst.get_mut(..len)
            .unwrap_or_default()
            .copy_from_slice(src.get(..len).unwrap_or_default());
        return;
    }
    let n = len / typesize;
    let whole = n * typesize;
    match typesize {
        2 => unshuffle_n::<2>(src, dst, n),
        4 => unshuffle_n::<4>(src, dst, n),
        8 => unshuffle_n::<8>(src, dst, n),
        _ => {
            for (j, row) in src.chunks_exact(n).take(typesize).enumerate() {
                for (i, &b) in row.iter().enumerate() {
                    if let Some(d) = dst.get_mut(i * typesize + j) {
                        *d = b;
                    }
                }
            }
        }
    }
    if let (Some(d), Some(s)) = (dst.get_mut(whole..len), src.get(whole..len)) {
        d.copy_from_slice(s);
    }
}

/// Byte unshuffle for a compile-time element size (lets the compiler vectorise).
fn unshuffle_n<const T: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let rows: [&[u8]; T] = std::array::from_fn(|j| src.get(j * n..(j + 1) * n).unwrap_or_default());
    if rows.iter().any(|r| r.len() != n) {
        return;
    }
    for (i, out) in dst.chunks_exact_mut(T).take(n).enumerate() {
        for (o, row) in out.iter_mut().zip(rows.iter()) {
            *o = row.get(i).copied().unwrap_or(0);
        }
    }
}

/// Transposes an 8×8 bit matrix held in a u64 (byte `r`, bit `c` ↔ byte `c`, bit `r`).
fn transpose_bits_8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x = x ^ t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x = x ^ t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Undoes bitshuffle's bit transpose of `count` elements (a multiple of 8) of `typesize`
/// bytes: `src` holds, for each byte `j` and bit `b` of an element, a row of `count` bits.
fn bit_untranspose(src: &[u8], dst: &mut [u8], count: usize, typesize: usize) {
    let row = count / 8;
    for j in 0..typesize {
        for g in 0..row {
            let mut x = 0u64;
            for b in 0..8 {
                let byte = src.get((j * 8 + b) * row + g).copied().unwrap_or(0);
                x |= u64::from(byte) << (8 * b);
            }
            let y = transpose_bits_8x8(x);
            for t in 0..8 {
                if let Some(d) = dst.get_mut((8 * g + t) * typesize + j) {
                    *d = (y >> (8 * t)) as u8;
                }
            }
        }
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
    let done = shuffled * typesize;
    if shuffled > 0 {
        bit_untranspose(src, dst, shuffled, typesize);
    }
    if let (Some(d), Some(s)) = (dst.get_mut(done..len), src.get(done..len)) {
        d.copy_from_slice(s);
    }
}
