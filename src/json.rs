//! Bounded JSON parsing for bytes that come from a store or a caller.

use crate::error::{Result, ZomError};
use crate::limits::{Limit, Limits, MAX_JSON_DEPTH};
use serde_json::Value;
use std::collections::BTreeMap;
use zom_json::text::Layout;

/// Parses a metadata document, refusing documents over the limits `maxDocumentBytes` and
/// `maxJsonDepth` ([`crate::ErrorCode::LimitExceeded`]). Errors name the line and column
/// where the JSON broke.
pub fn parse_document(bytes: &[u8], limits: &Limits) -> Result<Value> {
    check_document(bytes, limits)?;
    parse_text(bytes)
}

/// Refuses a document over the limits `maxDocumentBytes` and `maxJsonDepth`.
pub(crate) fn check_document(bytes: &[u8], limits: &Limits) -> Result<()> {
    limits.check(
        Limit::DocumentBytes,
        u64::try_from(bytes.len()).unwrap_or(u64::MAX),
        "a metadata document's size in bytes",
    )?;
    check_depth(bytes, limits)
}

/// Parses JSON text (within the limits already); errors name the line and column.
pub(crate) fn parse_text(bytes: &[u8]) -> Result<Value> {
    zom_json::text::parse(bytes).map_err(|e| {
        ZomError::invalid_metadata(format!(
            "invalid JSON at line {}, column {}: {}",
            e.line(),
            e.column(),
            e
        ))
    })
}

/// Refuses JSON text nested deeper than `maxJsonDepth` (at most [`MAX_JSON_DEPTH`], where
/// serde_json itself stops). Brackets inside strings do not count; malformed text is left for
/// the parser to report.
fn check_depth(bytes: &[u8], limits: &Limits) -> Result<()> {
    let max = limits.max_json_depth.min(MAX_JSON_DEPTH);
    match zom_json::depth_over(bytes, max) {
        Some(depth) => Err(crate::limits::exceeded(
            Limit::JsonDepth,
            max,
            depth,
            "a metadata document's nesting depth",
        )),
        None => Ok(()),
    }
}

/// Serialises like Python's `json.dumps(value)` with `indent` (None: one line with `", "` and
/// `": "` separators, as zarr-python writes `.zmetadata`), non-ASCII escaped.
pub fn to_python_json(value: &Value, indent: Option<usize>) -> Vec<u8> {
    let layout = Layout {
        indent,
        spaced: true,
        ascii: true,
    };
    zom_json::text::write(value, layout).0
}

/// The JSON text serde_json's `to_string` writes (and a `Value`'s `Display`).
pub fn to_compact(value: &Value) -> String {
    to_text(value, None)
}

/// The JSON text serde_json's `PrettyFormatter` writes with an indent of `indent` spaces.
pub fn to_indented(value: &Value, indent: usize) -> String {
    to_text(value, Some(indent))
}

/// Compact JSON text and what writing it noticed (integers a JS number cannot hold, the
/// nesting depth): the WebAssembly bindings hand large values to `JSON.parse` with it.
#[cfg(any(test, target_arch = "wasm32"))]
pub fn to_compact_checked(value: &Value) -> (String, zom_json::text::Written) {
    let (bytes, written) = zom_json::text::write(value, Layout::default());
    // Only whole UTF-8 strings are written: this cannot fail.
    (String::from_utf8(bytes).unwrap_or_default(), written)
}

fn to_text(value: &Value, indent: Option<usize>) -> String {
    let layout = Layout {
        indent,
        ..Layout::default()
    };
    // Only whole UTF-8 strings are written: this cannot fail.
    String::from_utf8(zom_json::text::write(value, layout).0).unwrap_or_default()
}

/// The JSON type name of a value, as used in problem messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `x` as `format!("{x}")` writes it (shortest round-trip digits, never an exponent), built
/// from serde_json's float formatting: Rust's own is a large amount of code in the
/// WebAssembly module, where nothing else needs it.
#[cfg(any(test, target_arch = "wasm32"))]
pub(crate) fn display_f64(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // serde_json writes "1.5", "100.0", "1e300", "1.5e-7", "0.0", …
    let text = serde_json::Number::from_f64(x.abs()).map_or_else(String::new, |n| n.to_string());
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (text.as_str(), 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0');
    if digits.is_empty() {
        return format!("{sign}0");
    }
    // The value is 0.DIGITS × 10^point.
    let mut point = (int.len() as i64)
        .saturating_sub(lead as i64)
        .saturating_add(exp);
    let mut digits = digits.to_string();
    let n = digits.len() as i64;
    // serde_json breaks a tie between two shortest candidates towards the even one, Rust
    // upwards.
    if is_midpoint(x.abs(), &digits, point.saturating_sub(n)) {
        digits = increment(&digits);
        if digits.len() as i64 > n {
            point = point.saturating_add(1);
        }
        digits = digits.trim_end_matches('0').to_string();
    }
    let n = digits.len() as i64;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point >= n {
        format!("{digits}{}", "0".repeat((point - n) as usize))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{body}")
}

/// Whether `x` (finite, positive) is exactly halfway between `digits × 10^k` and the next
/// number of as many digits: `2x = (2 × digits + 1) × 10^k`.
#[cfg(any(test, target_arch = "wasm32"))]
fn is_midpoint(x: f64, digits: &str, k: i64) -> bool {
    let Ok(d) = digits.parse::<u64>() else {
        return false;
    };
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1 << 52) - 1);
    // x = m × 2^q
    let (m, q) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    };
    if m == 0 {
        return false;
    }
    let twos = i64::from(m.trailing_zeros());
    let odd = u128::from(m >> twos);
    let target = u128::from(d) * 2 + 1;
    // 2x = odd × 2^(twos + q + 1) must equal target × 5^k × 2^k, with target and 5^k odd.
    if twos + q + 1 != k {
        return false;
    }
    let Ok(j) = u32::try_from(k.unsigned_abs()) else {
        return false;
    };
    let Some(p5) = 5u128.checked_pow(j) else {
        return false;
    };
    if k >= 0 {
        target.checked_mul(p5) == Some(odd)
    } else {
        odd.checked_mul(p5) == Some(target)
    }
}

/// A decimal digit string plus one.
#[cfg(any(test, target_arch = "wasm32"))]
fn increment(digits: &str) -> String {
    let mut out: Vec<u8> = digits.bytes().collect();
    for b in out.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return String::from_utf8(out).unwrap_or_default();
        }
    }
    format!("1{}", String::from_utf8(out).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::{display_f64, to_compact, to_indented};
    use serde::Serialize;
    use serde_json::{json, Value};

    fn values() -> Vec<Value> {
        let mut out = vec![
            json!(null),
            json!(true),
            json!(0),
            json!(-7),
            json!(18446744073709551615u64),
            json!(1.5),
            json!(1e300),
            json!(-0.0),
            json!(""),
            json!("plain"),
            json!("quote \" backslash \\ slash / nl \n tab \t cr \r bs \u{8} ff \u{c}"),
            json!("\u{0} \u{1f} \u{7f} é 中 😀 \u{2028}"),
            json!([]),
            json!({}),
            json!([[], {}, [[]], {"a": {}}]),
            json!({"a": [1, 2, {"b": null, "c": [true, false]}], "é": "x", "": ""}),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/expected");
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if let Ok(v) = serde_json::from_slice::<Value>(&std::fs::read(entry.path()).unwrap()) {
                out.push(v);
            }
        }
        out
    }

    #[test]
    fn compact_and_indented_text_is_serde_jsons() {
        for v in values() {
            assert_eq!(to_compact(&v), serde_json::to_string(&v).unwrap());
            assert_eq!(to_compact(&v), v.to_string());
            for n in [1usize, 2, 4, 16] {
                let pad = " ".repeat(n);
                let mut out = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(pad.as_bytes());
                let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
                v.serialize(&mut serializer).unwrap();
                assert_eq!(to_indented(&v, n), String::from_utf8(out).unwrap());
            }
        }
    }

    #[test]
    fn display_f64_is_rusts_display() {
        let mut cases = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            0.1,
            100.0,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e-5,
            1e-7,
            1.5e-7,
            123456.789,
            9_007_199_254_740_993.0,
            0.3,
            2.0f64.powi(60),
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // A deterministic spread of bit patterns over the whole range (40 million passed
        // once in a release build).
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            cases.push(f64::from_bits(s));
            cases.push((s % 2_000_001) as f64 / 1000.0 - 1000.0);
        }
        // Exact ties between two shortest candidates.
        for i in 0..20_000u64 {
            let big = (1u64 << 50) + i * 7919;
            cases.push(big as f64 + 0.25);
            cases.push(big as f64 + 0.75);
            cases.push((big * 2) as f64 + 0.5);
            cases.push((big * 4) as f64 + 1.0);
            cases.push(f64::from_bits(0x4317_9085_685d_83c9 + i));
        }
        for x in cases {
            assert_eq!(display_f64(x), format!("{x}"), "bits {:#x}", x.to_bits());
        }
    }
}

/// A set of names, for duplicate and membership checks. A map of `String` to `Value`
/// underneath: the document readers have that map in the WebAssembly module anyway, where a
/// `HashSet<&str>` would be one more copy of the hash table code.
#[derive(Default)]
pub(crate) struct NameSet(BTreeMap<String, Value>);

impl NameSet {
    /// Adds `name`; false when it was there already.
    pub(crate) fn insert(&mut self, name: &str) -> bool {
        self.0.insert(name.to_string(), Value::Null).is_none()
    }

    /// Whether `name` is in the set.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}
