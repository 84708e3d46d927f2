//! What directory listings mean, for `FetchStore.list` (`ts/store/http-list.ts`): thin exports of
//! [`crate::store::wire::listing`] and [`crate::store::wire::html`], the rules `HttpStore`
//! follows in Rust. They are in the validator (which walks stores by listing them) and, for
//! the reader's pages, in the listing part (Cargo.toml's `bind-listing`), loaded by the first
//! listing of an HTTP store: a viewer's open and reads list nothing.

use super::convert::bytes_of;
use super::fail;
use crate::error::ZomError;
use crate::store::wire::body_text;
use crate::store::wire::html::{looks_like_html, parse_html_index};
use crate::store::wire::listing::{parse_s3_page, s3_candidates, s3_child, s3_page_url, S3Child};
use wasm_bindgen::prelude::*;

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
