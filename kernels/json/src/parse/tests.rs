//! The parser against serde_json's `from_slice`: the same values (floats to the bit), the same
//! errors at the same positions.

use super::parse;
use serde_json::Value;

/// Parses `text` with both parsers and fails where they differ.
fn same(text: &[u8]) {
    let ours = parse(text).map_err(|e| e.to_string());
    let theirs = serde_json::from_slice::<Value>(text).map_err(|e| e.to_string());
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert!(
            identical(a, b),
            "{:?}: {a} vs {b}",
            String::from_utf8_lossy(text)
        ),
        _ => assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(text)),
    }
}

/// Equal values, floats compared by their bits (so -0.0 differs from 0.0) and members in order.
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), x.is_f64(), y.is_f64()) {
            (Some(f), true, true) => Some(f.to_bits()) == y.as_f64().map(f64::to_bits),
            _ => x == y && x.is_u64() == y.is_u64() && x.is_i64() == y.is_i64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| identical(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, a), (kb, b))| ka == kb && identical(a, b))
        }
        _ => a == b,
    }
}

#[test]
fn values_and_errors_are_serde_jsons() {
    let cases: &[&[u8]] = &[
        b"",
        b" ",
        b"null",
        b"nul",
        b"nulx",
        b"true",
        b"tru",
        b"false",
        b"f",
        b"x",
        b"\n\n  x",
        b"0",
        b"-0",
        b"-",
        b"-x",
        b"00",
        b"01",
        b"-01",
        b"1.",
        b"1.x",
        b"1.5",
        b"-1.5e3",
        b"1e",
        b"1e+",
        b"1ex",
        b"1E-3",
        b"1e400",
        b"-1e400",
        b"1e-400",
        b"0e999999999999",
        b"1e999999999999",
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775808",
        b"-9223372036854775809",
        b"123456789012345678901234567890",
        b"0.1",
        b"0.30000000000000004",
        b"2.2250738585072014e-308",
        b"4.9e-324",
        b"1.7976931348623157e308",
        b"1.7976931348623159e308",
        b"9007199254740993",
        b"9007199254740993.0",
        b"3.141592653589793238462643383279",
        b"[",
        b"[]",
        b"[ ]",
        b"[1",
        b"[1,",
        b"[1,]",
        b"[1 2]",
        b"[,1]",
        b"[1,,2]",
        b"[[[]]]",
        b"{",
        b"{}",
        b"{\"a\"",
        b"{\"a\":",
        b"{\"a\" 1}",
        b"{\"a\":1",
        b"{\"a\":1,",
        b"{\"a\":1,}",
        b"{\"a\":1 \"b\":2}",
        b"{1:2}",
        b"{\"a\":1,2:3}",
        b"{\"a\":1,\"a\":2,\"b\":3}",
        b"{,}",
        b"\"",
        b"\"abc",
        b"\"a\\\"b\"",
        b"\"\\u00e9\"",
        b"\"\\u00\"",
        b"\"\\u00zz\"",
        b"\"\\x\"",
        b"\"\\",
        b"\"\\ud83d\\ude00\"",
        b"\"\\ud83d\"",
        b"\"\\ud83dx\"",
        b"\"\\ud83d\\n\"",
        b"\"\\ud83d\\u0041\"",
        b"\"\\ude00\"",
        b"\"\x01\"",
        b"\"a\tb\"",
        "\"é😀\"".as_bytes(),
        b"\"\xff\"",
        b"\"\\u00e9\xff\"",
        b"\"\\/\\b\\f\\n\\r\\t\\\\\"",
        b"1 2",
        b"{} x",
        b"[]\n\n ]",
        b"{\n  \"zarr_format\": 3,\n  \"node_type\": }",
        b"\t[1,\r\n 2]",
        b"\"\\ud83d\\",
        b"\"\\ud83d\\u",
    ];
    for case in cases {
        same(case);
    }
}

#[test]
fn nesting_stops_where_serde_jsons_does() {
    for depth in [126, 127, 128, 129] {
        same(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).as_bytes());
        same(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)).as_bytes());
    }
}

#[test]
fn floats_parse_to_the_nearest() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let f = f64::from_bits(state);
        if !f.is_finite() {
            continue;
        }
        same(format!("{f:?}").as_bytes());
        same(format!("{f:e}").as_bytes());
        same(format!("{:.3}", (state % 100_000) as f64 / 7.0).as_bytes());
        same(format!("{}e{}", state % 1_000_000, (state >> 40) as i64 % 40 - 20).as_bytes());
    }
}

#[test]
fn fixtures_parse_alike_whole_and_cut() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut files = vec![root];
    let mut seen = 0;
    while let Some(path) = files.pop() {
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files.push(path);
            } else if path.extension().is_some_and(|e| e == "json")
                || path.ends_with(".zarray")
                || path.ends_with(".zattrs")
                || path.ends_with(".zgroup")
                || path.ends_with(".zmetadata")
            {
                let Ok(text) = std::fs::read(&path) else {
                    continue;
                };
                if text.len() > 1 << 20 {
                    continue;
                }
                same(&text);
                // Cut and corrupted: the errors and their positions too.
                for i in (0..text.len()).step_by(1 + text.len() / 24) {
                    same(&text[..i]);
                    let mut broken = text.clone();
                    broken[i] = b"}]\",:x1\\"[i % 8];
                    same(&broken);
                }
                seen += 1;
            }
        }
    }
    assert!(seen > 100, "only {seen} JSON files under tests/fixtures");
}
