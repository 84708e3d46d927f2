//! What HTTP answers mean, for the TypeScript `FetchStore` (`ts/store/`): thin exports of
//! [`crate::store::wire`], so that the rules `HttpStore` follows in Rust are the ones the JS
//! store follows. The TypeScript side does the I/O and calls these for every parse and check.
//! The listing rules (S3 pages, HTML indexes) are in `listing`, a part of their own.

use super::fail;
use crate::error::{ErrorCode, ZomError};
use crate::store::wire::range::{
    keep_prefix, keep_suffix, parse_content_length, parse_content_range, ContentRange,
};
use crate::store::wire::{encode_key, MAX_SAFE};
use wasm_bindgen::prelude::*;

/// A byte count or offset from JS: a non-negative integer no larger than 2^53 − 1.
fn count(name: &str, x: f64) -> Result<u64, JsValue> {
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= MAX_SAFE as f64 {
        Ok(x as u64)
    } else {
        Err(fail(ZomError::invalid_argument(format!(
            "{name} must be a non-negative safe integer"
        ))))
    }
}

/// What to keep of a body, `[start, end)`, or the check's message as an HttpError.
fn kept(result: Result<std::ops::Range<u64>, String>) -> Result<Box<[f64]>, JsValue> {
    match result {
        Ok(r) => Ok(Box::new([r.start as f64, r.end as f64])),
        Err(message) => Err(fail(ZomError::new(ErrorCode::HttpError, message))),
    }
}

/// A `Content-Range` value parsed, as numbers (one boundary crossing; `parseContentRange` in
/// `ts/store/range.ts` makes the object): `[start, end, total]` for `bytes start-end/total`
/// (`total` −1 for `*`), `[-1, -1, total]` for the 416 form (`bytes *` then `/total`),
/// undefined when absent or malformed.
#[wasm_bindgen(js_name = httpContentRange)]
pub fn http_content_range(value: Option<String>) -> Option<Box<[f64]>> {
    let num = |n: u64| n as f64;
    Some(match value.as_deref().and_then(parse_content_range)? {
        ContentRange::Bytes { start, end, total } => {
            Box::new([num(start), num(end), total.map_or(-1.0, num)])
        }
        ContentRange::Unsatisfied { total } => Box::new([-1.0, -1.0, num(total)]),
    })
}

/// A `Content-Length` value as a number; undefined when absent or malformed.
#[wasm_bindgen(js_name = httpContentLength)]
pub fn http_content_length(value: Option<String>) -> Option<f64> {
    value
        .as_deref()
        .and_then(parse_content_length)
        .map(|n| n as f64)
}

/// Which bytes of the body of an answer to `bytes=offset-(offset+length-1)` to keep, as
/// `[start, end]` (a Float64Array): all of a checked 206 (`partial`), the range cut from any
/// other success. Throws an HttpError object whose message says what does not match.
#[wasm_bindgen(js_name = httpCheckPrefix)]
pub fn http_check_prefix(
    partial: bool,
    content_range: Option<String>,
    body_length: f64,
    offset: f64,
    length: f64,
) -> Result<Box<[f64]>, JsValue> {
    kept(keep_prefix(
        partial,
        content_range.as_deref(),
        count("body length", body_length)?,
        count("offset", offset)?,
        count("length", length)?,
    ))
}

/// Which bytes of the body of an answer to `bytes=-n` to keep, as `[start, end]`: all of a
/// checked 206 (`partial`), the last `n` of any other success. Throws an HttpError object.
#[wasm_bindgen(js_name = httpCheckSuffix)]
pub fn http_check_suffix(
    partial: bool,
    content_range: Option<String>,
    body_length: f64,
    n: f64,
) -> Result<Box<[f64]>, JsValue> {
    kept(keep_suffix(
        partial,
        content_range.as_deref(),
        count("body length", body_length)?,
        count("suffix length", n)?,
    ))
}

/// The URL path of a store key (without its leading '/'): each segment encoded as
/// `encodeURIComponent` does.
#[wasm_bindgen(js_name = httpEncodeKey)]
pub fn http_encode_key(key: &str) -> String {
    encode_key(key)
}
