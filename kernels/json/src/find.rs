//! Finding the next byte of interest in JSON text, 16 bytes at a time with wasm SIMD.

/// The first `"` or `\` in `s`.
pub(crate) fn quote_or_backslash(s: &[u8]) -> Option<usize> {
    find(s, |b| b == b'"' || b == b'\\', simd::quote_or_backslash)
}

/// The first `"`, `{`, `}`, `[` or `]` in `s`.
pub(crate) fn quote_or_bracket(s: &[u8]) -> Option<usize> {
    find(
        s,
        |b| matches!(b, b'"' | b'{' | b'}' | b'[' | b']'),
        simd::quote_or_bracket,
    )
}

/// The first byte of `s` that is `wanted`; `candidates` marks (a superset of) them in 16
/// bytes at once, as a bit mask.
#[inline(always)]
fn find(s: &[u8], wanted: impl Fn(u8) -> bool, candidates: fn(&[u8; 16]) -> u16) -> Option<usize> {
    let mut blocks = s.chunks_exact(16);
    let mut offset = 0;
    for block in blocks.by_ref() {
        let Ok(block) = <&[u8; 16]>::try_from(block) else {
            break;
        };
        let mut mask = candidates(block);
        while mask != 0 {
            let at = mask.trailing_zeros() as usize;
            if block.get(at).is_some_and(|&b| wanted(b)) {
                return Some(offset + at);
            }
            mask &= mask - 1;
        }
        offset += 16;
    }
    let rest = blocks.remainder();
    rest.iter().position(|&b| wanted(b)).map(|at| offset + at)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    fn load(block: &[u8; 16]) -> v128 {
        // SAFETY: 16 readable bytes; v128_load needs no alignment.
        unsafe { v128_load(block.as_ptr().cast::<v128>()) }
    }

    pub(super) fn quote_or_backslash(block: &[u8; 16]) -> u16 {
        let v = load(block);
        let hit = v128_or(
            u8x16_eq(v, u8x16_splat(b'"')),
            u8x16_eq(v, u8x16_splat(b'\\')),
        );
        u8x16_bitmask(hit)
    }

    /// `"`, and the brackets by one mask: `{`, `}`, `[`, `]` are 0x7B, 0x7D, 0x5B, 0x5D, which
    /// are 0x59 without the bits 0x26 (also true of `Y`, `_`, `y` and DEL, weeded out later).
    pub(super) fn quote_or_bracket(block: &[u8; 16]) -> u16 {
        let v = load(block);
        let quote = u8x16_eq(v, u8x16_splat(b'"'));
        let bracket = u8x16_eq(v128_and(v, u8x16_splat(!0x26)), u8x16_splat(0x59));
        u8x16_bitmask(v128_or(quote, bracket))
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod simd {
    pub(super) fn quote_or_backslash(block: &[u8; 16]) -> u16 {
        mask(block, |b| b == b'"' || b == b'\\')
    }

    pub(super) fn quote_or_bracket(block: &[u8; 16]) -> u16 {
        mask(block, |b| matches!(b, b'"' | b'{' | b'}' | b'[' | b']'))
    }

    fn mask(block: &[u8; 16], wanted: impl Fn(u8) -> bool) -> u16 {
        block
            .iter()
            .enumerate()
            .fold(0, |m, (i, &b)| if wanted(b) { m | 1 << i } else { m })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_wanted_byte_at_every_offset() {
        for len in 0..70 {
            for at in 0..=len {
                for (byte, fill) in [(b'"', b'a'), (b'\\', b'Y'), (b'{', b'_'), (b']', b'y')] {
                    let mut s = vec![fill; len];
                    if at < len {
                        s[at] = byte;
                    }
                    let expected = (at < len).then_some(at);
                    let by_bracket = if byte == b'\\' { None } else { expected };
                    let by_quote = if matches!(byte, b'"' | b'\\') {
                        expected
                    } else {
                        None
                    };
                    assert_eq!(quote_or_bracket(&s), by_bracket, "{len} {at} {byte}");
                    assert_eq!(quote_or_backslash(&s), by_quote, "{len} {at} {byte}");
                }
            }
        }
    }
}
