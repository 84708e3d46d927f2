//! What HTTP answers mean, without doing any I/O: the one implementation of the rules both HTTP
//! stores follow — the Rust [`super::HttpStore`] (gloo-net) and the TypeScript `FetchStore`,
//! which calls these through the `http*` exports of `src/wasm/http.rs`.
//!
//! - [`range`]: `Content-Range` and `Content-Length` values, and what to keep of an answer to a
//!   range request (a 206 checked against what was asked, a 200 cut).
//! - [`listing`]: S3 ListObjectsV2 pages, XML/HTML character references, the places an S3
//!   listing may be for a store's URL.
//! - [`html`]: HTML directory indexes (`python -m http.server`, nginx, Apache) and whether a
//!   body looks like HTML.
//! - [`url`]: absolute http(s) URLs and relative references resolved against them, as a
//!   browser's URL parser does.
//! - Here: percent-encoding of keys and percent-decoding of names, as JavaScript's
//!   `encodeURIComponent` and `decodeURIComponent` do.
//!
//! Everything here takes text as it came off the wire and never panics on it. Byte counts and
//! offsets above 2^53 − 1 ([`MAX_SAFE`]) are refused as malformed: no value is that long, and
//! the JS side could not hold them exactly.

pub mod html;
pub mod listing;
pub mod range;
pub mod url;

/// The largest byte count or offset read from a header: [`crate::limits::MAX_SAFE_INTEGER`].
pub use crate::limits::MAX_SAFE_INTEGER as MAX_SAFE;

/// Whether `c` is white space as JavaScript's `\s` and `String.prototype.trim` see it (which
/// differs from [`char::is_whitespace`]: U+FEFF is, U+0085 is not).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `s` without JavaScript white space at either end (`String.prototype.trim`).
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `%XY` for byte `b`.
fn push_escape(out: &mut String, b: u8) {
    out.push('%');
    for nibble in [b >> 4, b & 15] {
        if let Some(&h) = HEX.get(usize::from(nibble)) {
            out.push(char::from(h));
        }
    }
}

/// The bytes besides ASCII letters and digits that [`encode_component`] keeps as they are.
pub const COMPONENT_VERBATIM: &[u8] = b"-_.!~*'()";

/// Percent-encodes `s` as `encodeURIComponent` does: everything but ASCII letters, digits and
/// [`COMPONENT_VERBATIM`], byte by byte of its UTF-8.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || COMPONENT_VERBATIM.contains(&b) {
            out.push(char::from(b));
        } else {
            push_escape(&mut out, b);
        }
    }
    out
}

/// The URL path of a store key below the store's URL: each '/'-separated segment of `key`
/// (given without its leading '/') encoded with [`encode_component`], the '/'s kept.
pub fn encode_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for (i, segment) in key.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&encode_component(segment));
    }
    out
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes every `%XY` of `s` as `decodeURIComponent` does; `None` where that throws: a '%'
/// not followed by two hex digits, or escapes that do not form UTF-8.
pub fn decode_component(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hi = hex_value(*bytes.get(i.saturating_add(1))?)?;
            let lo = hex_value(*bytes.get(i.saturating_add(2))?)?;
            out.push(hi << 4 | lo);
            i = i.saturating_add(3);
        } else {
            out.push(b);
            i = i.saturating_add(1);
        }
    }
    String::from_utf8(out).ok()
}

/// Text of a body as `TextDecoder` gives it: UTF-8 with U+FFFD for bytes that are not, and a
/// leading byte order mark dropped.
pub fn body_text(body: &[u8]) -> std::borrow::Cow<'_, str> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    String::from_utf8_lossy(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_component_is_encode_uri_component() {
        assert_eq!(encode_component("a b/c?d#e%f"), "a%20b%2Fc%3Fd%23e%25f");
        assert_eq!(encode_component("-_.!~*'()"), "-_.!~*'()");
        assert_eq!(encode_component("é€😀"), "%C3%A9%E2%82%AC%F0%9F%98%80");
        assert_eq!(encode_component(""), "");
        assert_eq!(encode_component("\0\u{7f}"), "%00%7F");
    }

    #[test]
    fn encode_key_keeps_slashes() {
        assert_eq!(encode_key("a b/c.zarr/zarr.json"), "a%20b/c.zarr/zarr.json");
        assert_eq!(encode_key("x//y/"), "x//y/");
        assert_eq!(encode_key(""), "");
    }

    #[test]
    fn decode_component_is_decode_uri_component() {
        assert_eq!(decode_component("a%20b%2Fc").as_deref(), Some("a b/c"));
        assert_eq!(decode_component("%C3%a9").as_deref(), Some("é"));
        assert_eq!(decode_component("plain").as_deref(), Some("plain"));
        for bad in [
            "%",
            "%2",
            "%zz",
            "%C3",
            "%C3x",
            "%80",
            "%ED%A0%80",
            "%C0%AF",
            "a%",
        ] {
            assert_eq!(decode_component(bad), None, "{bad}");
        }
        assert_eq!(decode_component("é%41").as_deref(), Some("éA"));
        let long = "%41".repeat(100_000);
        assert_eq!(decode_component(&long).map(|s| s.len()), Some(100_000));
    }

    #[test]
    fn js_space_and_trim() {
        assert!(is_js_space('\u{feff}') && is_js_space('\u{a0}') && is_js_space('\u{3000}'));
        assert!(!is_js_space('\u{85}') && !is_js_space('x') && !is_js_space('\u{200b}'));
        assert_eq!(js_trim("\u{feff} a b\n\u{2028}"), "a b");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }

    #[test]
    fn body_text_is_text_decoder() {
        assert_eq!(body_text(b"\xEF\xBB\xBFabc"), "abc");
        assert_eq!(body_text(b"a\xFFb"), "a\u{fffd}b");
        assert_eq!(body_text(b""), "");
    }
}
