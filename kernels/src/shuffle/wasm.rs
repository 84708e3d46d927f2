//! WebAssembly SIMD (simd128) (un)shuffle kernels: 16 elements (byte unshuffle) or 16 groups
//! of 8 elements (bit unshuffle) per step; the portable kernels finish the tails.

use super::portable::{self, arrays_mut, rows};
use core::arch::wasm32::{
    u16x8_shl, u16x8_shr, u8x16_shuffle, u8x16_splat, v128, v128_and, v128_load, v128_store,
    v128_xor,
};

#[inline(always)]
fn load(bytes: &[u8; 16]) -> v128 {
    // SAFETY: `bytes` is valid for reads of 16 bytes, and v128_load has no alignment
    // requirement (it emits a 1-aligned load).
    unsafe { v128_load(bytes.as_ptr().cast::<v128>()) }
}

#[inline(always)]
fn store(bytes: &mut [u8; 16], v: v128) {
    // SAFETY: `bytes` is valid for writes of 16 bytes, and v128_store has no alignment
    // requirement (it emits a 1-aligned store).
    unsafe { v128_store(bytes.as_mut_ptr().cast::<v128>(), v) }
}

/// Interleaves the bytes of `a` and `b`: (a0 b0 a1 b1 … a7 b7, a8 b8 … a15 b15).
#[inline(always)]
fn zip8(a: v128, b: v128) -> [v128; 2] {
    [
        u8x16_shuffle::<0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23>(a, b),
        u8x16_shuffle::<8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31>(a, b),
    ]
}

/// Interleaves the 16-bit lanes of `a` and `b`.
#[inline(always)]
fn zip16(a: v128, b: v128) -> [v128; 2] {
    [
        u8x16_shuffle::<0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23>(a, b),
        u8x16_shuffle::<8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31>(a, b),
    ]
}

/// Interleaves the 32-bit lanes of `a` and `b`.
#[inline(always)]
fn zip32(a: v128, b: v128) -> [v128; 2] {
    [
        u8x16_shuffle::<0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23>(a, b),
        u8x16_shuffle::<8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31>(a, b),
    ]
}

/// Byte `k` of `v[r]` → byte `8 k + r` of the 128 output bytes (an 8-way byte interleave).
#[inline(always)]
fn interleave8(v: [v128; 8]) -> [v128; 8] {
    let [a0, a1] = zip8(v[0], v[1]);
    let [b0, b1] = zip8(v[2], v[3]);
    let [c0, c1] = zip8(v[4], v[5]);
    let [d0, d1] = zip8(v[6], v[7]);
    let [ab0, ab1] = zip16(a0, b0);
    let [ab2, ab3] = zip16(a1, b1);
    let [cd0, cd1] = zip16(c0, d0);
    let [cd2, cd3] = zip16(c1, d1);
    let [o0, o1] = zip32(ab0, cd0);
    let [o2, o3] = zip32(ab1, cd1);
    let [o4, o5] = zip32(ab2, cd2);
    let [o6, o7] = zip32(ab3, cd3);
    [o0, o1, o2, o3, o4, o5, o6, o7]
}

/// Byte unshuffle (see [`portable::unshuffle`]).
pub(crate) fn unshuffle(src: &[u8], dst: &mut [u8], typesize: usize) {
    let done = match typesize {
        2 => unshuffle2(src, dst),
        4 => unshuffle4(src, dst),
        8 => unshuffle8(src, dst),
        _ => 0,
    };
    if done == 0 {
        portable::unshuffle(src, dst, typesize);
    } else {
        unshuffle_tail(src, dst, typesize, done);
    }
}

/// Elements `from..` of a byte unshuffle, one byte at a time.
fn unshuffle_tail(src: &[u8], dst: &mut [u8], typesize: usize, from: usize) {
    let n = dst.len() / typesize;
    if n == 0 {
        return;
    }
    for (j, row) in src.chunks_exact(n).take(typesize).enumerate() {
        let Some(column) = from
            .checked_mul(typesize)
            .and_then(|start| start.checked_add(j))
            .and_then(|start| dst.get_mut(start..))
        else {
            return;
        };
        for (d, &b) in column
            .iter_mut()
            .step_by(typesize)
            .zip(row.iter().skip(from))
        {
            *d = b;
        }
    }
}

// The SIMD byte unshuffles return the number of elements they did (a multiple of 16);
// unshuffle_tail does the rest.
fn unshuffle2(src: &[u8], dst: &mut [u8]) -> usize {
    let Some([r0, r1]) = rows::<2>(src, dst.len() / 2) else {
        return 0;
    };
    let mut done = 0;
    let ins = r0.chunks_exact(16).zip(r1.chunks_exact(16));
    for (o, (a, b)) in dst.chunks_exact_mut(32).zip(ins) {
        if let (Some([a, b]), Ok(o)) = (vectors([a, b]), o.try_into()) {
            store_all::<32, 2>(o, zip8(a, b));
        }
        done += 16;
    }
    done
}

fn unshuffle4(src: &[u8], dst: &mut [u8]) -> usize {
    let Some([r0, r1, r2, r3]) = rows::<4>(src, dst.len() / 4) else {
        return 0;
    };
    let ins = r0
        .chunks_exact(16)
        .zip(r1.chunks_exact(16))
        .zip(r2.chunks_exact(16).zip(r3.chunks_exact(16)));
    let mut done = 0;
    for (o, ((a, b), (c, d))) in dst.chunks_exact_mut(64).zip(ins) {
        if let (Some([a, b, c, d]), Ok(o)) = (vectors([a, b, c, d]), o.try_into()) {
            let [ab0, ab1] = zip8(a, b);
            let [cd0, cd1] = zip8(c, d);
            let [o0, o1] = zip16(ab0, cd0);
            let [o2, o3] = zip16(ab1, cd1);
            store_all::<64, 4>(o, [o0, o1, o2, o3]);
        }
        done += 16;
    }
    done
}

fn unshuffle8(src: &[u8], dst: &mut [u8]) -> usize {
    let Some(rows) = rows::<8>(src, dst.len() / 8) else {
        return 0;
    };
    let mut done = 0;
    for (o, ins) in dst.chunks_exact_mut(128).zip(zip_rows(rows)) {
        if let (Some(v), Ok(o)) = (vectors(ins), o.try_into()) {
            store_all::<128, 8>(o, interleave8(v));
        }
        done += 16;
    }
    done
}

/// The 16-byte pieces of 8 rows, side by side.
#[inline(always)]
fn zip_rows(rows: [&[u8]; 8]) -> impl Iterator<Item = [&[u8]; 8]> {
    let [a, b, c, d, e, f, g, h] = rows.map(|r| r.chunks_exact(16));
    a.zip(b)
        .zip(c.zip(d))
        .zip(e.zip(f).zip(g.zip(h)))
        .map(|(((a, b), (c, d)), ((e, f), (g, h)))| [a, b, c, d, e, f, g, h])
}

/// Loads `N` 16-byte pieces (`None` if one is not 16 bytes long).
#[inline(always)]
fn vectors<const N: usize>(pieces: [&[u8]; N]) -> Option<[v128; N]> {
    let mut out = [u8x16_splat(0); N];
    for (v, p) in out.iter_mut().zip(pieces) {
        *v = load(p.try_into().ok()?);
    }
    Some(out)
}

/// Stores `N` vectors into `M` = 16 `N` bytes.
#[inline(always)]
fn store_all<const M: usize, const N: usize>(out: &mut [u8; M], v: [v128; N]) {
    for (d, v) in arrays_mut::<16>(out).zip(v) {
        store(d, v);
    }
}

/// Swaps the bits of `x` selected by `mask << SHIFT` with the bits of `y` selected by `mask`
/// (16-bit shifts: the mask drops what crosses a byte).
#[inline(always)]
fn swap_bits<const SHIFT: u32>(x: &mut v128, y: &mut v128, mask: v128) {
    let t = v128_and(v128_xor(u16x8_shr(*x, SHIFT), *y), mask);
    *x = v128_xor(*x, u16x8_shl(t, SHIFT));
    *y = v128_xor(*y, t);
}

/// Transposes the 8×8 bit matrix in each byte lane whose row `r` is that lane of `v[r]`.
#[inline(always)]
fn transpose_bits(v: [v128; 8]) -> [v128; 8] {
    let (m4, m2, m1) = (u8x16_splat(0x0F), u8x16_splat(0x33), u8x16_splat(0x55));
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = v;
    swap_bits::<4>(&mut a, &mut e, m4);
    swap_bits::<4>(&mut b, &mut f, m4);
    swap_bits::<4>(&mut c, &mut g, m4);
    swap_bits::<4>(&mut d, &mut h, m4);
    swap_bits::<2>(&mut a, &mut c, m2);
    swap_bits::<2>(&mut b, &mut d, m2);
    swap_bits::<2>(&mut e, &mut g, m2);
    swap_bits::<2>(&mut f, &mut h, m2);
    swap_bits::<1>(&mut a, &mut b, m1);
    swap_bits::<1>(&mut c, &mut d, m1);
    swap_bits::<1>(&mut e, &mut f, m1);
    swap_bits::<1>(&mut g, &mut h, m1);
    [a, b, c, d, e, f, g, h]
}

/// See [`portable::bit_plane`].
pub(crate) fn bit_plane(rows: [&[u8]; 8], out: &mut [u8]) {
    let mut done = 0;
    for (o, ins) in out.chunks_exact_mut(128).zip(zip_rows(rows)) {
        if let (Some(v), Ok(o)) = (vectors(ins), o.try_into()) {
            store_all::<128, 8>(o, interleave8(transpose_bits(v)));
        }
        done += 16;
    }
    portable::plane_tail(rows, out, done);
}
