//! Strided element copies (chunk assembly).

/// Copies every `src_step`-th item of `src` to every `dst_step`-th item of `dst` (items of
/// `isz` bytes), front to back, or into `dst` back to front when `reversed`. Stops at the end
/// of the shorter side.
pub fn copy_strided(
    src: &[u8],
    dst: &mut [u8],
    src_step: usize,
    dst_step: usize,
    reversed: bool,
    isz: usize,
) {
    let w = Steps {
        src_step,
        dst_step,
        reversed,
    };
    match isz {
        1 => copy_items::<1>(src, dst, &w),
        2 => copy_items::<2>(src, dst, &w),
        4 => copy_items::<4>(src, dst, &w),
        8 => copy_items::<8>(src, dst, &w),
        16 => copy_items::<16>(src, dst, &w),
        0 => {}
        _ => copy_items_dyn(src, dst, &w, isz),
    }
}

struct Steps {
    src_step: usize,
    dst_step: usize,
    reversed: bool,
}

/// [`copy_strided`] for a constant item size: each instance is its own tight loop.
#[inline(never)]
fn copy_items<const N: usize>(src: &[u8], dst: &mut [u8], w: &Steps) {
    copy_items_dyn(src, dst, w, N);
}

#[inline(always)]
fn copy_items_dyn(src: &[u8], dst: &mut [u8], w: &Steps, isz: usize) {
    if isz == 0 || w.src_step == 0 || w.dst_step == 0 {
        return;
    }
    let src = src.chunks_exact(isz);
    let dst = dst.chunks_exact_mut(isz);
    match (w.reversed, w.src_step, w.dst_step) {
        // A reversed row: plain chunk iterators are much faster than stepped ones.
        (true, 1, 1) => dst.rev().zip(src).for_each(|(d, s)| d.copy_from_slice(s)),
        (true, a, b) => dst
            .step_by(b)
            .rev()
            .zip(src.step_by(a))
            .for_each(|(d, s)| d.copy_from_slice(s)),
        (false, a, b) => dst
            .step_by(b)
            .zip(src.step_by(a))
            .for_each(|(d, s)| d.copy_from_slice(s)),
    }
}
