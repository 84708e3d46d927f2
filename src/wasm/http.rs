//! What HTTP answers mean, for the TypeScript `FetchStore` (`ts/store/`): thin exports of
//! [`crate::store::wire`], so that the rules `HttpStore` follows in Rust are the ones the JS
//! store follows. The TypeScript side does the I/O and calls these for every parse and check.

use super::convert::bytes_of;
use super::fail;
use crate::error::{ErrorCode, ZomError};
use crate::store::wire::html::{looks_like_html, parse_html_index};
use crate::store::wire::listing::{parse_s3_page, s3_candidates, s3_child, s3_page_url, S3Child};
use crate::store::wire::range::{
    keep_prefix, keep_suffix, parse_content_length, parse_content_range, ContentRange,
};
use crate::store::wire::{body_text, encode_key, MAX_SAFE};
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

/// The text of a body given as a string or bytes (decoded as `TextDecoder` does).
fn text_of(body: &JsValue) -> Result<String, JsValue> {
    if let Some(s) = body.as_string() {
        return Ok(s);
    }
    let bytes = bytes_of(body).ok_or_else(|| {
        fail(ZomError::invalid_argument(
            "a body is a string, a Uint8Array or an ArrayBuffer",
        ))
    })?;
    match String::from_utf8(bytes) {
        Ok(text) if !text.starts_with('\u{feff}') => Ok(text),
        Ok(text) => Ok(body_text(text.as_bytes()).into_owned()),
        Err(e) => Ok(body_text(e.as_bytes()).into_owned()),
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

/// A ListObjectsV2 body (string or bytes) read: `{keys, prefixes, truncated, next}`, or null
/// when it is not a `<ListBucketResult>`. With `full` (the key prefix listed) `keys` and
/// `prefixes` are the names directly below it (prefixes ending in '/'), from the page's keys
/// and common prefixes alike; without it they are the page's own.
#[wasm_bindgen(js_name = httpS3Page)]
pub fn http_s3_page(body: JsValue, full: Option<String>) -> Result<JsValue, JsValue> {
    let text = text_of(&body)?;
    let Some(page) = parse_s3_page(&text) else {
        return Ok(JsValue::NULL);
    };
    let (keys, prefixes) = match &full {
        None => (page.keys, page.prefixes),
        Some(full) => {
            let (mut keys, mut prefixes) = (Vec::new(), Vec::new());
            for name in page.keys.iter().chain(&page.prefixes) {
                match s3_child(name, full) {
                    Some(S3Child::Key(k)) => keys.push(k.to_string()),
                    Some(S3Child::Prefix(p)) => prefixes.push(p.to_string()),
                    None => {}
                }
            }
            (keys, prefixes)
        }
    };
    Ok(super::plain::s3_page(
        &keys,
        &prefixes,
        page.truncated,
        &page.next,
    ))
}

/// The URL of a ListObjectsV2 page (`root` ending in '/', the key prefix `full`, the
/// continuation token of the page before).
#[wasm_bindgen(js_name = httpS3PageUrl)]
pub fn http_s3_page_url(root: &str, full: &str, token: Option<String>) -> String {
    s3_page_url(root, full, token.as_deref())
}

/// The HTML directory index at `dirUrl` read: `{files, dirs}` (dirs ending in '/'). When
/// `contentType` is given (a string, or null for no header) a body that does not look like
/// HTML gives null.
#[wasm_bindgen(js_name = httpHtmlIndex)]
pub fn http_html_index(
    body: JsValue,
    dir_url: &str,
    content_type: JsValue,
) -> Result<JsValue, JsValue> {
    let text = text_of(&body)?;
    if !content_type.is_undefined() && !looks_like_html(content_type.as_string().as_deref(), &text)
    {
        return Ok(JsValue::NULL);
    }
    let index = parse_html_index(&text, dir_url);
    Ok(super::plain::directory(&index.files, &index.dirs))
}

/// Where an S3 listing may be for a store at the URL with `origin` and (percent-encoded)
/// `path`: `[{root, storePrefix}]`, the origin first.
#[wasm_bindgen(js_name = httpS3Candidates)]
pub fn http_s3_candidates(origin: &str, path: &str) -> JsValue {
    super::plain::s3_candidates(&s3_candidates(origin, path))
}

/// The URL path of a store key (without its leading '/'): each segment encoded as
/// `encodeURIComponent` does.
#[wasm_bindgen(js_name = httpEncodeKey)]
pub fn http_encode_key(key: &str) -> String {
    encode_key(key)
}
