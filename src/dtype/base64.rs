//! Standard base64 (RFC 4648 alphabet, `=` padding required), the `fill_value` form of byte,
//! void and structured types. It gives the bytes, and the error messages, of the base64 crate's
//! `STANDARD` engine, which zom used before (the tests compare the two): that crate's unrolled
//! decoder is several KiB of the WebAssembly module for a few fill values per array.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as base64, padded.
pub(super) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3).saturating_mul(4));
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        // A chunk of k bytes takes k + 1 symbols, then padding up to 4.
        for i in 0..4 {
            let symbol = if i <= chunk.len() {
                ALPHABET
                    .get(((n >> (18 - 6 * i)) & 63) as usize)
                    .copied()
                    .unwrap_or(b'=')
            } else {
                b'='
            };
            out.push(char::from(symbol));
        }
    }
    out
}

/// The 6 bits of a base64 symbol (`=` is not one).
fn value(symbol: u8) -> Option<u32> {
    let v = match symbol {
        b'A'..=b'Z' => symbol - b'A',
        b'a'..=b'z' => symbol - b'a' + 26,
        b'0'..=b'9' => symbol - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

fn invalid_symbol(offset: usize, symbol: u8) -> String {
    format!("Invalid symbol {symbol}, offset {offset}.")
}

/// The bytes of base64 `text`, or what is wrong with it, in the base64 crate's words.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let input = text.as_bytes();
    let len = input.len();
    let rem = len % 4;
    // The checks run in the base64 crate's order, so that the first error found is the same.
    if rem == 1 {
        if let Some(&last) = input.last() {
            if last != b'=' && value(last).is_none() {
                return Err(invalid_symbol(len - 1, last));
            }
        }
    }
    // Every quad but the last is 4 symbols, without padding.
    let body = len
        .saturating_sub(rem)
        .saturating_sub(if rem == 0 { 4 } else { 0 });
    let (head, tail) = input.split_at(body.min(len));
    let mut out = Vec::with_capacity((len / 4).saturating_add(1).saturating_mul(3));
    let mut n = 0u32;
    for (offset, &symbol) in head.iter().enumerate() {
        n = (n << 6) | value(symbol).ok_or_else(|| invalid_symbol(offset, symbol))?;
        if offset % 4 == 3 {
            out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
        }
    }
    // The last 2 to 4 symbols, then their padding.
    let (mut n, mut symbols, mut padding, mut first_padding, mut last) = (0u32, 0usize, 0, 0, 0u8);
    for (k, &symbol) in tail.iter().enumerate() {
        if symbol == b'=' {
            if k < 2 {
                return Err(invalid_symbol(body + k, symbol));
            }
            if padding == 0 {
                first_padding = k;
            }
            padding += 1;
            continue;
        }
        if padding > 0 {
            return Err(invalid_symbol(body + first_padding, b'='));
        }
        last = symbol;
        // At most 4 symbols: the tail is at most 4 bytes.
        n |= value(symbol).ok_or_else(|| invalid_symbol(body + k, symbol))? << (26 - 6 * symbols);
        symbols += 1;
    }
    if !input.is_empty() && symbols < 2 {
        return Err(format!("Invalid input length: {}", body + symbols));
    }
    if (padding + symbols) % 4 != 0 {
        return Err("Invalid padding".into());
    }
    let bytes = symbols * 6 / 8;
    // Bits of the last symbol beyond the last byte must be zero.
    if n & (u32::MAX >> (bytes * 8)) != 0 {
        return Err(format!(
            "Invalid last symbol {last}, offset {}.",
            (body + symbols).saturating_sub(1)
        ));
    }
    out.extend(n.to_be_bytes().iter().take(bytes));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;

    fn theirs(text: &str) -> Result<Vec<u8>, String> {
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn encodes_as_the_base64_crate() {
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for end in 0..bytes.len() {
            for start in 0..3.min(end + 1) {
                let slice = &bytes[start..end];
                assert_eq!(
                    super::encode(slice),
                    base64::engine::general_purpose::STANDARD.encode(slice)
                );
            }
        }
    }

    #[test]
    fn decodes_and_fails_as_the_base64_crate() {
        // Every string of up to 6 symbols over an alphabet with valid symbols of each kind
        // (some with nonzero low bits), padding and invalid bytes.
        let alphabet = ['A', 'B', 'Q', 'g', 'w', '/', '+', '9', '=', '!', ' ', 'é'];
        let mut texts = vec![String::new()];
        let mut level = vec![String::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for text in &level {
                for c in alphabet {
                    next.push(format!("{text}{c}"));
                }
            }
            texts.extend(next.iter().cloned());
            level = next;
        }
        // Longer ones: valid text with one byte changed at each place.
        let valid = super::encode(b"zom reads Zarr hierarchies, 1234567890!");
        for i in 0..valid.len() {
            for c in ['=', '!', 'A', '/'] {
                let mut t: Vec<char> = valid.chars().collect();
                t[i] = c;
                texts.push(t.into_iter().collect());
                texts.push(format!("{}{c}", &valid[..i]));
            }
        }
        for text in &texts {
            assert_eq!(super::decode(text), theirs(text), "{text:?}");
        }
    }
}
