//! Range answers: `Content-Range` and `Content-Length` values, and which bytes of an answer to
//! `Range: bytes=a-b` or `bytes=-n` to keep (or why the answer cannot be trusted).

use super::{is_js_space, js_trim, MAX_SAFE};
use std::ops::Range;

/// A parsed `Content-Range` header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentRange {
    /// `bytes start-end/total`, `total` `None` for `*`; `start <= end < total`.
    Bytes {
        /// The first byte sent.
        start: u64,
        /// The last byte sent (inclusive).
        end: u64,
        /// The value's length, when the server says.
        total: Option<u64>,
    },
    /// `bytes */total`: the form of a 416 answer, which names only the value's length.
    Unsatisfied {
        /// The value's length.
        total: u64,
    },
}

/// A run of ASCII digits as a number no larger than [`MAX_SAFE`].
fn safe_number(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut n: u64 = 0;
    for b in digits.bytes() {
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        if n > MAX_SAFE {
            return None;
        }
    }
    Some(n)
}

/// Parses a `Content-Range` value: `bytes start-end/total` (`total` may be `*`) or
/// `bytes */total`, "bytes" in any case, white space around the parts but not inside
/// `start-end`. `None` when malformed, when `end < start` or `end >= total`, or when a number
/// is over [`MAX_SAFE`].
pub fn parse_content_range(value: &str) -> Option<ContentRange> {
    let value = js_trim(value);
    let unit = value.get(..5)?;
    if !unit.eq_ignore_ascii_case("bytes") {
        return None;
    }
    let rest = value.get(5..)?;
    if !rest.starts_with(is_js_space) {
        return None;
    }
    let (span, total) = rest.trim_start_matches(is_js_space).split_once('/')?;
    let span = span.trim_end_matches(is_js_space);
    let total = match total.trim_start_matches(is_js_space) {
        "*" => None,
        t => Some(safe_number(t)?),
    };
    if span == "*" {
        return total.map(|total| ContentRange::Unsatisfied { total });
    }
    let (start, end) = span.split_once('-')?;
    let (start, end) = (safe_number(start)?, safe_number(end)?);
    if end < start || total.is_some_and(|t| end >= t) {
        return None;
    }
    Some(ContentRange::Bytes { start, end, total })
}

/// Parses a `Content-Length` value: ASCII digits with white space around, at most
/// [`MAX_SAFE`]; `None` otherwise.
pub fn parse_content_length(value: &str) -> Option<u64> {
    safe_number(js_trim(value))
}

/// Which bytes of the body of an answer to `Range: bytes=offset-(offset+length-1)` are the
/// ones asked for, `length` ≥ 1.
///
/// - A 206 (`partial`): all of them, once checked: its `Content-Range` names exactly those
///   bytes (or fewer, ending at the end of the value) and the body has that many. Without a
///   `Content-Range` (CORS setups that do not expose it) the body must be exactly as long as
///   asked.
/// - Any other success: the whole value, of which `length` bytes from `offset` are kept (fewer
///   at its end, none past it).
///
/// The error is the message of an HTTP error (the caller adds the method and URL).
pub fn keep_prefix(
    partial: bool,
    content_range: Option<&str>,
    body_len: u64,
    offset: u64,
    length: u64,
) -> Result<Range<u64>, String> {
    if !partial {
        let start = offset.min(body_len);
        return Ok(start..offset.saturating_add(length).min(body_len));
    }
    let last = offset
        .checked_add(length)
        .and_then(|end| end.checked_sub(1))
        .filter(|_| length > 0)
        .ok_or_else(|| format!("cannot check a 206 to an empty or unbounded range at {offset}"))?;
    let want = format!("bytes={offset}-{last}");
    let Some(raw) = content_range else {
        return if body_len == length {
            Ok(0..body_len)
        } else {
            Err(format!(
                "206 without Content-Range has {body_len} bytes for {want}"
            ))
        };
    };
    let Some(ContentRange::Bytes { start, end, total }) = parse_content_range(raw) else {
        return Err(format!("malformed Content-Range \"{raw}\" for {want}"));
    };
    let short_at_end = end < last && total.is_some_and(|t| end.checked_add(1) == Some(t));
    if start != offset || (end != last && !short_at_end) {
        return Err(format!(
            "Content-Range \"{raw}\" does not match the requested {want}"
        ));
    }
    body_of_length(body_len, end - start + 1, raw)
}

/// Which bytes of the body of an answer to `Range: bytes=-n` are the ones asked for.
///
/// - A 206 (`partial`): all of them, once checked: its `Content-Range` names the last
///   min(n, total) bytes and the body has that many. Without a `Content-Range` the body must
///   not be longer than `n`.
/// - Any other success: the whole value, of which the last `n` bytes are kept (all of a
///   shorter one).
pub fn keep_suffix(
    partial: bool,
    content_range: Option<&str>,
    body_len: u64,
    n: u64,
) -> Result<Range<u64>, String> {
    if !partial {
        return Ok(body_len.saturating_sub(n)..body_len);
    }
    let Some(raw) = content_range else {
        return if body_len <= n {
            Ok(0..body_len)
        } else {
            Err(format!(
                "206 without Content-Range has {body_len} bytes for bytes=-{n}"
            ))
        };
    };
    let Some(ContentRange::Bytes { start, end, total }) = parse_content_range(raw) else {
        return Err(format!("malformed Content-Range \"{raw}\" for bytes=-{n}"));
    };
    let count = end - start + 1;
    let ends_at_end = total.is_none_or(|t| end.checked_add(1) == Some(t));
    let right_count = total.map_or(count == n, |t| count == n.min(t));
    if !ends_at_end || !right_count {
        return Err(format!(
            "Content-Range \"{raw}\" does not match the requested bytes=-{n}"
        ));
    }
    body_of_length(body_len, count, raw)
}

fn body_of_length(body_len: u64, count: u64, raw: &str) -> Result<Range<u64>, String> {
    if body_len == count {
        Ok(0..body_len)
    } else {
        Err(format!(
            "body has {body_len} bytes, Content-Range \"{raw}\" says {count}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContentRange::{Bytes, Unsatisfied};

    #[test]
    fn content_range_forms() {
        let b = |start, end, total| Some(Bytes { start, end, total });
        assert_eq!(parse_content_range("bytes 0-9/10"), b(0, 9, Some(10)));
        assert_eq!(parse_content_range("  BYTES\t5-5 / * "), b(5, 5, None));
        assert_eq!(parse_content_range("Bytes 0-0/1"), b(0, 0, Some(1)));
        assert_eq!(parse_content_range("bytes 007-8/009"), b(7, 8, Some(9)));
        assert_eq!(
            parse_content_range("bytes */42"),
            Some(Unsatisfied { total: 42 })
        );
        assert_eq!(
            parse_content_range("bytes * / 0"),
            Some(Unsatisfied { total: 0 })
        );
        let max = MAX_SAFE;
        assert_eq!(
            parse_content_range(&format!("bytes 0-{}/{max}", max - 1)),
            b(0, max - 1, Some(max))
        );
    }

    #[test]
    fn content_range_malformed() {
        for bad in [
            "",
            "bytes",
            "bytes ",
            "bytes0-1/2",
            "bits 0-1/2",
            "bytes 0 - 1/2",
            "bytes +0-1/2",
            "bytes -1-1/2",
            "bytes 0-1",
            "bytes 0-1/2/3",
            "bytes */*",
            "bytes 2-1/5",
            "bytes 0-5/5",
            "bytes 0-1/0",
            "bytes 0x1-2/3",
            "bytes 1.0-2/3",
            "bytes ١-٢/٣",
            "bytes 0-1/2 junk",
            "bytes 0-9007199254740992/*",
            "bytes 0-99999999999999999999999999/*",
            "bytes */99999999999999999999",
            "nonsense",
            "bytes 0-1/é",
            "é",
            "\u{85}bytes 0-1/2",
        ] {
            assert_eq!(parse_content_range(bad), None, "{bad:?}");
        }
        let huge = "9".repeat(100_000);
        assert_eq!(parse_content_range(&format!("bytes 0-{huge}/*")), None);
    }

    #[test]
    fn content_length() {
        assert_eq!(parse_content_length(" 12 "), Some(12));
        assert_eq!(parse_content_length("0"), Some(0));
        for bad in ["", "-1", "+1", "1e3", "1 2", "9007199254740992", "abc"] {
            assert_eq!(parse_content_length(bad), None, "{bad}");
        }
    }

    #[test]
    fn prefix_partial() {
        let ok = |cr, len, off, n| keep_prefix(true, cr, len, off, n);
        assert_eq!(ok(Some("bytes 10-29/100"), 20, 10, 20), Ok(0..20));
        // Fewer at the end of the value.
        assert_eq!(ok(Some("bytes 0-9/10"), 10, 0, 20), Ok(0..10));
        assert_eq!(ok(None, 10, 0, 10), Ok(0..10));
        let err = |cr, len, off, n| keep_prefix(true, cr, len, off, n).unwrap_err();
        assert_eq!(
            err(Some("bytes 11-30/4213"), 20, 10, 20),
            "Content-Range \"bytes 11-30/4213\" does not match the requested bytes=10-29"
        );
        assert_eq!(
            err(Some("bytes 0-9/11"), 10, 0, 20),
            "Content-Range \"bytes 0-9/11\" does not match the requested bytes=0-19"
        );
        assert_eq!(
            err(Some("bytes 0-9/*"), 10, 0, 20),
            "Content-Range \"bytes 0-9/*\" does not match the requested bytes=0-19"
        );
        assert_eq!(
            err(Some("bytes 0-9/100"), 5, 0, 10),
            "body has 5 bytes, Content-Range \"bytes 0-9/100\" says 10"
        );
        assert_eq!(
            err(Some("nonsense"), 10, 0, 10),
            "malformed Content-Range \"nonsense\" for bytes=0-9"
        );
        assert_eq!(
            err(Some("bytes */10"), 0, 0, 10),
            "malformed Content-Range \"bytes */10\" for bytes=0-9"
        );
        assert_eq!(
            err(None, 9, 0, 10),
            "206 without Content-Range has 9 bytes for bytes=0-9"
        );
        assert!(keep_prefix(true, None, 0, 0, 0).is_err());
        assert!(keep_prefix(true, None, 0, u64::MAX, 2).is_err());
        assert!(keep_prefix(true, Some("bytes 0-0/1"), u64::MAX, 0, u64::MAX).is_err());
    }

    #[test]
    fn prefix_whole_value_cut() {
        assert_eq!(keep_prefix(false, None, 100, 10, 20), Ok(10..30));
        assert_eq!(keep_prefix(false, None, 25, 10, 20), Ok(10..25));
        assert_eq!(keep_prefix(false, None, 5, 10, 20), Ok(5..5));
        assert_eq!(keep_prefix(false, Some("junk"), 5, 0, 100), Ok(0..5));
        assert_eq!(
            keep_prefix(false, None, u64::MAX, u64::MAX, u64::MAX),
            Ok(u64::MAX..u64::MAX)
        );
    }

    #[test]
    fn suffix_partial() {
        let s = |cr, len, n| keep_suffix(true, cr, len, n);
        assert_eq!(s(Some("bytes 4194-4213/4214"), 20, 20), Ok(0..20));
        assert_eq!(s(Some("bytes 0-3/4"), 4, 10), Ok(0..4));
        assert_eq!(s(Some("bytes 6-9/*"), 4, 4), Ok(0..4));
        assert_eq!(s(None, 4, 10), Ok(0..4));
        assert_eq!(
            s(Some("bytes 0-3/8"), 4, 4).unwrap_err(),
            "Content-Range \"bytes 0-3/8\" does not match the requested bytes=-4"
        );
        assert_eq!(
            s(Some("bytes 4194-4213/4213"), 20, 20).unwrap_err(),
            "malformed Content-Range \"bytes 4194-4213/4213\" for bytes=-20"
        );
        assert_eq!(
            s(Some("bytes 0-3/*"), 4, 5).unwrap_err(),
            "Content-Range \"bytes 0-3/*\" does not match the requested bytes=-5"
        );
        assert_eq!(
            s(Some("bytes 0-3/4"), 3, 4).unwrap_err(),
            "body has 3 bytes, Content-Range \"bytes 0-3/4\" says 4"
        );
        assert_eq!(
            s(None, 11, 10).unwrap_err(),
            "206 without Content-Range has 11 bytes for bytes=-10"
        );
        assert!(s(Some(""), 0, 0).is_err());
        assert!(s(Some("bytes 0-9007199254740990/*"), 0, u64::MAX).is_err());
    }

    #[test]
    fn suffix_whole_value_tail() {
        assert_eq!(keep_suffix(false, None, 100, 10), Ok(90..100));
        assert_eq!(keep_suffix(false, None, 5, 10), Ok(0..5));
        assert_eq!(keep_suffix(false, None, 0, u64::MAX), Ok(0..0));
    }
}
