//! Portable (un)shuffle kernels: plain Rust that the compiler vectorises where it can, used
//! natively, for the tails the SIMD kernels leave, and for element sizes without a SIMD kernel.
//!
//! The kernels expect slices of matching sizes (the callers cut them so); a mismatch leaves
//! bytes unwritten rather than panicking.

/// Splits `src` into `T` rows of `n` bytes each, or `None` when it is too short.
pub(crate) fn rows<const T: usize>(src: &[u8], n: usize) -> Option<[&[u8]; T]> {
    let mut rest = src;
    let mut out = [&[][..]; T];
    for row in out.iter_mut() {
        let (head, tail) = rest.split_at_checked(n)?;
        *row = head;
        rest = tail;
    }
    Some(out)
}

/// The `N`-byte arrays of `s`, in order, to write (a shorter remainder is left out).
#[inline(always)]
pub(crate) fn arrays_mut<const N: usize>(s: &mut [u8]) -> impl Iterator<Item = &mut [u8; N]> + '_ {
    s.chunks_exact_mut(N).filter_map(|c| c.try_into().ok())
}

/// Byte unshuffle of `dst.len() / typesize` whole elements: `src` holds byte 0 of every
/// element, then byte 1 of every element, …. Bytes of `dst` past the last whole element
/// are left alone.
pub(crate) fn unshuffle(src: &[u8], dst: &mut [u8], typesize: usize) {
    match typesize {
        0 => {}
        1 => {
            let len = src.len().min(dst.len());
            if let (Some(d), Some(s)) = (dst.get_mut(..len), src.get(..len)) {
                d.copy_from_slice(s);
            }
        }
        2 => unshuffle2(src, dst),
        4 => unshuffle4(src, dst),
        8 => unshuffle8(src, dst),
        _ => unshuffle_any(src, dst, typesize),
    }
}

fn unshuffle2(src: &[u8], dst: &mut [u8]) {
    let Some([r0, r1]) = rows::<2>(src, dst.len() / 2) else {
        return;
    };
    for (o, (&a, &b)) in dst.chunks_exact_mut(2).zip(r0.iter().zip(r1)) {
        o.copy_from_slice(&[a, b]);
    }
}

// Written as widening shifts and ORs, which LLVM vectorises on x86-64's baseline SSE2 (a
// plain byte interleave of 4 or 8 rows it does not).
fn unshuffle4(src: &[u8], dst: &mut [u8]) {
    let Some([r0, r1, r2, r3]) = rows::<4>(src, dst.len() / 4) else {
        return;
    };
    let ins = r0.iter().zip(r1).zip(r2.iter().zip(r3));
    for (o, ((&a, &b), (&c, &d))) in dst.chunks_exact_mut(4).zip(ins) {
        o.copy_from_slice(&word([a, b, c, d]).to_le_bytes());
    }
}

fn unshuffle8(src: &[u8], dst: &mut [u8]) {
    let Some([r0, r1, r2, r3, r4, r5, r6, r7]) = rows::<8>(src, dst.len() / 8) else {
        return;
    };
    let lo = r0.iter().zip(r1).zip(r2.iter().zip(r3));
    let hi = r4.iter().zip(r5).zip(r6.iter().zip(r7));
    for (o, (((&a, &b), (&c, &d)), ((&e, &f), (&g, &h)))) in dst.chunks_exact_mut(8).zip(lo.zip(hi))
    {
        let (o0, o1) = o.split_at_mut(4);
        o0.copy_from_slice(&word([a, b, c, d]).to_le_bytes());
        o1.copy_from_slice(&word([e, f, g, h]).to_le_bytes());
    }
}

/// The little-endian u32 of 4 bytes, as shifts (see above).
#[inline(always)]
fn word([a, b, c, d]: [u8; 4]) -> u32 {
    u32::from(a) | u32::from(b) << 8 | u32::from(c) << 16 | u32::from(d) << 24
}

/// Any element size: one strided pass over `dst` per byte of the element.
fn unshuffle_any(src: &[u8], dst: &mut [u8], typesize: usize) {
    let n = dst.len() / typesize;
    if n == 0 {
        return;
    }
    for (j, row) in src.chunks_exact(n).take(typesize).enumerate() {
        let Some(column) = dst.get_mut(j..) else {
            return;
        };
        for (d, &b) in column.iter_mut().step_by(typesize).zip(row) {
            *d = b;
        }
    }
}

/// Transposes an 8×8 bit matrix held in a u64 (byte `r`, bit `c` ↔ byte `c`, bit `r`).
pub(crate) fn transpose_bits_8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x = x ^ t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x = x ^ t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Swaps the bits of `x` selected by `mask << shift` with the bits of `y` selected by `mask`.
#[inline(always)]
fn swap_bits(x: &mut u64, y: &mut u64, shift: u32, mask: u64) {
    let t = ((*x >> shift) ^ *y) & mask;
    *x ^= t << shift;
    *y ^= t;
}

/// Transposes the 8×8 matrix whose row `r` is `v[r]` and column `c` is the piece of `v[r]`
/// selected by `mask_c << (c * width)` for pieces `width` bits wide (1: bits, 8: bytes).
#[inline(always)]
fn transpose_8x8(v: [u64; 8], width: u32, masks: [u64; 3]) -> [u64; 8] {
    let [m4, m2, m1] = masks;
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = v;
    swap_bits(&mut a, &mut e, 4 * width, m4);
    swap_bits(&mut b, &mut f, 4 * width, m4);
    swap_bits(&mut c, &mut g, 4 * width, m4);
    swap_bits(&mut d, &mut h, 4 * width, m4);
    swap_bits(&mut a, &mut c, 2 * width, m2);
    swap_bits(&mut b, &mut d, 2 * width, m2);
    swap_bits(&mut e, &mut g, 2 * width, m2);
    swap_bits(&mut f, &mut h, 2 * width, m2);
    swap_bits(&mut a, &mut b, width, m1);
    swap_bits(&mut c, &mut d, width, m1);
    swap_bits(&mut e, &mut f, width, m1);
    swap_bits(&mut g, &mut h, width, m1);
    [a, b, c, d, e, f, g, h]
}

/// Each byte of a u64 as its own 8×8 bit matrix (rows across the 8 words).
const BIT_MASKS: [u64; 3] = [
    0x0F0F_0F0F_0F0F_0F0F,
    0x3333_3333_3333_3333,
    0x5555_5555_5555_5555,
];
/// The 8 words as one 8×8 byte matrix.
const BYTE_MASKS: [u64; 3] = [
    0x0000_0000_FFFF_FFFF,
    0x0000_FFFF_0000_FFFF,
    0x00FF_00FF_00FF_00FF,
];

/// Undoes bitshuffle's bit transpose for one byte `j` of `8 n` elements: `rows[b]` holds `n`
/// bytes whose byte `g`, bit `t` is bit `b` of byte `j` of element `8 g + t`; `out` (`8 n`
/// bytes) receives byte `j` of each element.
pub(crate) fn bit_plane(rows: [&[u8]; 8], out: &mut [u8]) {
    let done = plane_words(rows, out);
    plane_tail(rows, out, done);
}

/// The bulk of one byte plane, 8 groups of 8 elements (64 bytes) at a time, in u64 words:
/// the bits of the 8 rows' bytes are transposed within each byte lane, then the bytes across
/// the words. Returns the number of groups done.
fn plane_words(rows: [&[u8]; 8], out: &mut [u8]) -> usize {
    let [a, b, c, d, e, f, g, h] = rows.map(|r| r.chunks_exact(8));
    let ins = a.zip(b).zip(c.zip(d)).zip(e.zip(f).zip(g.zip(h)));
    let mut done = 0;
    for (o, (((a, b), (c, d)), ((e, f), (g, h)))) in out.chunks_exact_mut(64).zip(ins) {
        let v = [a, b, c, d, e, f, g, h].map(|w| w.try_into().map_or(0, u64::from_le_bytes));
        let v = transpose_8x8(transpose_8x8(v, 1, BIT_MASKS), 8, BYTE_MASKS);
        for (d, x) in o.chunks_exact_mut(8).zip(v) {
            d.copy_from_slice(&x.to_le_bytes());
        }
        done += 8;
    }
    done
}

/// Groups `from..` of one byte plane, one 8×8 bit matrix at a time.
pub(crate) fn plane_tail(rows: [&[u8]; 8], out: &mut [u8], from: usize) {
    let Some(out) = from.checked_mul(8).and_then(|start| out.get_mut(start..)) else {
        return;
    };
    for (g, o) in arrays_mut::<8>(out).enumerate() {
        let Some(group) = g.checked_add(from) else {
            return;
        };
        let mut x = 0u64;
        for (b, r) in rows.iter().enumerate() {
            x |= u64::from(r.get(group).copied().unwrap_or(0)) << (8 * b);
        }
        *o = transpose_bits_8x8(x).to_le_bytes();
    }
}
