//! JSON text classified 64 bytes at a time, as simdjson's first stage does: one bit per byte
//! for quotes, backslashes and brackets (with WebAssembly SIMD where the build has it), then
//! plain 64-bit arithmetic for which quotes are escaped and which bytes are inside strings.
//! The scans (`depth_over`, the consolidated-metadata skim) then visit only the bytes that
//! matter to them instead of every byte.

/// One block's bits: bit `i` stands for byte `i` of the block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Block {
    /// Quotes that open or close a string (not escaped).
    pub quotes: u64,
    /// `{` and `[` outside strings (and not after a backslash, which only invalid text has
    /// outside strings).
    pub open: u64,
    /// `}` and `]` outside strings (idem).
    pub close: u64,
}

/// The bytes of one block that are quotes, backslashes, openers and closers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Raw {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

/// Classifies text block by block, carrying the string and escape state across blocks.
pub(crate) struct Classifier<'a> {
    text: &'a [u8],
    /// Where the next block starts.
    next: usize,
    /// The first byte of the next block is escaped (a block ended in an odd backslash run).
    escaped_carry: u64,
    /// All ones when the previous block ended inside a string.
    in_string_carry: u64,
}

impl<'a> Classifier<'a> {
    /// Starts at `from`, which must not be inside a string.
    pub(crate) fn new(text: &'a [u8], from: usize) -> Self {
        Classifier {
            text,
            next: from,
            escaped_carry: 0,
            in_string_carry: 0,
        }
    }

    /// The next block's start and bits, or `None` at the end of the text. The last block
    /// is padded with spaces.
    pub(crate) fn next_block(&mut self) -> Option<(usize, Block)> {
        let start = self.next;
        let rest = self.text.get(start..).filter(|r| !r.is_empty())?;
        let raw = match rest.get(..64) {
            Some(full) => classify(full),
            None => {
                let mut padded = [b' '; 64];
                padded.get_mut(..rest.len())?.copy_from_slice(rest);
                classify(&padded)
            }
        };
        self.next = start.saturating_add(64);
        let escaped = self.escaped(raw.backslash);
        let quotes = raw.quote & !escaped;
        let in_string = prefix_xor(quotes) ^ self.in_string_carry;
        self.in_string_carry = ((in_string as i64) >> 63) as u64;
        Some((
            start,
            Block {
                quotes,
                open: raw.open & !in_string & !escaped,
                close: raw.close & !in_string & !escaped,
            },
        ))
    }

    /// The bytes escaped by a backslash (simdjson's odd-backslash-run rule), updating the
    /// carry into the next block.
    fn escaped(&mut self, backslash: u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let backslash = backslash & !self.escaped_carry;
        let follows = (backslash << 1) | self.escaped_carry;
        let odd_starts = backslash & !EVEN & !follows;
        let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
        self.escaped_carry = u64::from(overflow);
        (EVEN ^ (even_starts << 1)) & follows
    }
}

/// Bit `i` is the XOR of bits `0..=i`: ones from an opening quote up to its closing one.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn classify(block: &[u8]) -> Raw {
    use core::arch::wasm32::*;
    let (quote, backslash, brace_open, brace_close) = (
        u8x16_splat(b'"'),
        u8x16_splat(b'\\'),
        u8x16_splat(b'{'),
        u8x16_splat(b'}'),
    );
    // '[' | 0x20 is '{' and ']' | 0x20 is '}': one comparison finds both kinds.
    let case = u8x16_splat(0x20);
    let mut raw = Raw::default();
    for (i, lane) in block.chunks_exact(16).take(4).enumerate() {
        // SAFETY: `lane` is 16 readable bytes; v128_load has no alignment requirement.
        let v = unsafe { v128_load(lane.as_ptr().cast::<v128>()) };
        let folded = v128_or(v, case);
        let shift = 16 * i as u32;
        raw.quote |= u64::from(u8x16_bitmask(u8x16_eq(v, quote))) << shift;
        raw.backslash |= u64::from(u8x16_bitmask(u8x16_eq(v, backslash))) << shift;
        raw.open |= u64::from(u8x16_bitmask(u8x16_eq(folded, brace_open))) << shift;
        raw.close |= u64::from(u8x16_bitmask(u8x16_eq(folded, brace_close))) << shift;
    }
    raw
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn classify(block: &[u8]) -> Raw {
    classify_scalar(block)
}

/// [`classify`] a byte at a time (the native build's, and the reference of the tests).
#[cfg(any(test, not(all(target_arch = "wasm32", target_feature = "simd128"))))]
fn classify_scalar(block: &[u8]) -> Raw {
    let mut raw = Raw::default();
    for (i, &b) in block.iter().take(64).enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => raw.quote |= bit,
            b'\\' => raw.backslash |= bit,
            b'{' | b'[' => raw.open |= bit,
            b'}' | b']' => raw.close |= bit,
            _ => {}
        }
    }
    raw
}

/// The positions of the quotes (opening and closing) and of the brackets outside strings, in
/// order, from a position outside any string.
pub(crate) struct Tokens<'a> {
    classifier: Classifier<'a>,
    start: usize,
    bits: u64,
}

impl<'a> Tokens<'a> {
    /// The tokens of `text` from `from` (which must not be inside a string).
    pub(crate) fn new(text: &'a [u8], from: usize) -> Self {
        Tokens {
            classifier: Classifier::new(text, from),
            start: from,
            bits: 0,
        }
    }
}

impl Iterator for Tokens<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            let (start, block) = self.classifier.next_block()?;
            self.start = start;
            self.bits = block.quotes | block.open | block.close;
        }
        let at = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.start + at)
    }
}

/// The first nesting depth over `max` that `bytes` reach, block by block: a block whose
/// openers cannot take the depth over `max` and whose closers cannot take it below zero is
/// counted whole.
pub(crate) fn depth_over(bytes: &[u8], max: u64) -> Option<u64> {
    let mut classifier = Classifier::new(bytes, 0);
    let mut depth = 0u64;
    while let Some((_, block)) = classifier.next_block() {
        let (opens, closes) = (
            u64::from(block.open.count_ones()),
            u64::from(block.close.count_ones()),
        );
        if depth.saturating_add(opens) <= max && closes <= depth {
            depth = depth + opens - closes;
            continue;
        }
        let mut bits = block.open | block.close;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            if block.open & bit != 0 {
                depth = depth.saturating_add(1);
                if depth > max {
                    return Some(depth);
                }
            } else {
                depth = depth.saturating_sub(1);
            }
            bits &= bits - 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens and depth by a byte-at-a-time state machine (a backslash escapes the next
    /// byte everywhere, as the block rule does).
    fn reference(text: &[u8]) -> Vec<usize> {
        let (mut out, mut in_string, mut escaped) = (Vec::new(), false, false);
        for (i, &b) in text.iter().enumerate() {
            if escaped {
                escaped = false;
                continue;
            }
            match b {
                b'\\' => escaped = true,
                b'"' => {
                    in_string = !in_string;
                    out.push(i);
                }
                b'{' | b'[' | b'}' | b']' if !in_string => out.push(i),
                _ => {}
            }
        }
        out
    }

    fn reference_depth(text: &[u8], max: u64) -> Option<u64> {
        let mut depth = 0u64;
        for &i in &reference(text) {
            match text[i] {
                b'{' | b'[' => {
                    depth += 1;
                    if depth > max {
                        return Some(depth);
                    }
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        None
    }

    /// A small deterministic generator (xorshift), so that failures reproduce.
    fn texts() -> Vec<Vec<u8>> {
        const ALPHABET: &[u8] = b"\"\\\\{}[]a :,\n";
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut out = Vec::new();
        for len in (0..300).chain([511, 512, 513, 1000]) {
            let mut text = Vec::with_capacity(len);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(ALPHABET[(state % ALPHABET.len() as u64) as usize]);
            }
            out.push(text);
        }
        out.push(br#"{"a": "x\\\"}", "b\\": [1, {"c": "\\\\"}]}"#.to_vec());
        out.push([b'\\'; 130].iter().chain(b"\"{\"").copied().collect());
        out
    }

    #[test]
    fn tokens_match_a_byte_at_a_time_scan() {
        for text in texts() {
            assert_eq!(
                Tokens::new(&text, 0).collect::<Vec<_>>(),
                reference(&text),
                "{}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    fn depth_matches_a_byte_at_a_time_scan() {
        for text in texts() {
            for max in [0, 1, 2, 3, 5, 8, 32] {
                assert_eq!(
                    depth_over(&text, max),
                    reference_depth(&text, max),
                    "max {max}: {}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    #[test]
    fn the_scalar_classifier_is_the_reference() {
        for text in texts() {
            for block in text.chunks(64).filter(|b| b.len() == 64) {
                assert_eq!(classify(block), classify_scalar(block));
            }
        }
    }
}
