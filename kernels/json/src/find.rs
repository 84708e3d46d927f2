//! Finding the next byte of interest in JSON text.

/// The first `"` or `\` in `s`.
pub(crate) fn quote_or_backslash(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'"' || b == b'\\')
}

/// The first `"`, `{`, `}`, `[` or `]` in `s`.
pub(crate) fn quote_or_bracket(s: &[u8]) -> Option<usize> {
    s.iter()
        .position(|&b| matches!(b, b'"' | b'{' | b'}' | b'[' | b']'))
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
