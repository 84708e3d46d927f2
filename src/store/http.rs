//! [`HttpStore`]: a [`Store`] over the browser's `fetch` (through gloo-net), for Rust code
//! compiled to WebAssembly that reads Zarr hierarchies from an HTTP server or object store.

use super::wire::listing::{parse_s3_page, s3_child, s3_page_url, S3Child};
use super::wire::range::{
    keep_prefix, keep_suffix, parse_content_length, parse_content_range, ContentRange,
};
use super::wire::{body_text, encode_key};
use super::{ByteRange, Listing, Store};
use crate::error::{ErrorCode, Result, ZomError};
use gloo_net::http::{Headers, Method, RequestBuilder};
use std::cell::Cell;

/// The most ListObjectsV2 pages one [`Store::list_dir`] follows (1000 entries each on S3).
const MAX_LIST_PAGES: usize = 10_000;

/// A read-only [`Store`] over HTTP(S), for Rust-WASM callers: Leptos, Yew or Dioxus apps and
/// Rust code in web workers, which call [`crate::hierarchy::open`], [`crate::hierarchy::walk`]
/// and [`crate::hierarchy::read`] with it. JavaScript callers use the TypeScript `FetchStore`
/// instead (it adds retries, timeouts, abort signals, a concurrency limit, range coalescing
/// and a metadata cache).
///
/// Requests go through `fetch` (gloo-net), so they follow the page's or worker's CORS rules:
/// a server on another origin must allow the `Range` header and expose `Content-Range`.
///
/// - Keys are URLs below the base URL, each path segment percent-encoded.
/// - 404 and 410 read as missing (`None`); 403 too when [`Self::with_forbidden_as_missing`]
///   is set (S3 and CloudFront answer 403 for missing keys when listing is not allowed). Any
///   other failure, including network errors, is an [`ErrorCode::HttpError`] with the key.
/// - Ranges are `Range: bytes=a-b` and suffixes `bytes=-n`. A server that refuses suffix
///   ranges (400, 416, 501) is asked for the value's length with HEAD and then for an
///   absolute range, and is not asked for suffixes again. A server that answers a range with
///   200 and the whole value is handled by slicing. A 206 answer whose `Content-Range` or
///   body length does not match the request is an [`ErrorCode::HttpError`].
/// - [`Store::list_dir`] answers `None` unless [`Self::with_s3_listing`] names an S3
///   ListObjectsV2 endpoint.
/// - [`Store::get_within`] (how metadata documents are read) leaves a body unread whose
///   Content-Length is over the caller's limit: [`ErrorCode::LimitExceeded`]. A compressed
///   body or one without a length is read whole and checked after.
/// - No retries, timeouts or cancellation: a failed request fails the call. Callers that need
///   them wrap the store or the calls.
pub struct HttpStore {
    base: String,
    headers: Vec<(String, String)>,
    forbidden_as_missing: bool,
    s3: Option<S3Listing>,
    suffix_refused: Cell<bool>,
}

impl std::fmt::Debug for HttpStore {
    // Header values (credentials) are left out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpStore")
            .field("base", &self.base)
            .field("headers", &names)
            .field("forbidden_as_missing", &self.forbidden_as_missing)
            .field("s3", &self.s3)
            .field("suffix_refused", &self.suffix_refused.get())
            .finish()
    }
}

/// Where a store's S3 listing is.
#[derive(Debug)]
struct S3Listing {
    /// The bucket's URL (the ListObjectsV2 endpoint), without a trailing '/'.
    endpoint: String,
    /// The key prefix of the store's root inside the bucket: "" or "path/to/store/".
    root: String,
}

/// An HTTP answer, body read.
struct Answer {
    status: u16,
    headers: Headers,
    body: Vec<u8>,
    /// The identity Content-Length of a body left unread because it is longer than the
    /// caller accepts.
    too_long: Option<u64>,
}

impl HttpStore {
    /// A store whose root is `base_url` (absolute, or relative to the page or worker; a
    /// trailing '/' is ignored).
    pub fn new(base_url: &str) -> Self {
        HttpStore {
            base: base_url.trim_end_matches('/').to_string(),
            headers: Vec::new(),
            forbidden_as_missing: false,
            s3: None,
            suffix_refused: Cell::new(false),
        }
    }

    /// Whether a 403 answer means the key is missing (for S3/CloudFront) rather than an error.
    pub fn with_forbidden_as_missing(mut self, yes: bool) -> Self {
        self.forbidden_as_missing = yes;
        self
    }

    /// Adds a header sent with every request (for example `Authorization`).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Lists through the S3 ListObjectsV2 API: `endpoint` is the bucket's URL (listings are
    /// `GET endpoint/?list-type=2&prefix=…&delimiter=/`) and `root` the key prefix of this
    /// store's root inside the bucket (`""`, or `"path/to/store"`).
    pub fn with_s3_listing(mut self, endpoint: &str, root: &str) -> Self {
        let root = root.trim_matches('/');
        self.s3 = Some(S3Listing {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            root: if root.is_empty() {
                String::new()
            } else {
                format!("{root}/")
            },
        });
        self
    }

    /// The URL of `key`. Errors for a key with a `.` or `..` segment (it would leave the store).
    pub fn url_of(&self, key: &str) -> Result<String> {
        let key = key.trim_start_matches('/');
        if key.split('/').any(|s| s == "." || s == "..") {
            return Err(
                ZomError::invalid_argument("store key has a '.' or '..' segment").at_key(key),
            );
        }
        Ok(format!("{}/{}", self.base, encode_key(key)))
    }

    fn is_missing(&self, status: u16) -> bool {
        status == 404 || status == 410 || (status == 403 && self.forbidden_as_missing)
    }

    /// One request; a network or body error is the message of an HTTP error.
    async fn send(
        &self,
        method: Method,
        url: &str,
        range: Option<&str>,
    ) -> std::result::Result<Answer, String> {
        self.send_within(method, url, range, u64::MAX).await
    }

    /// [`Self::send`], leaving unread a body whose identity Content-Length is over `max`
    /// ([`Answer::too_long`]).
    async fn send_within(
        &self,
        method: Method,
        url: &str,
        range: Option<&str>,
        max: u64,
    ) -> std::result::Result<Answer, String> {
        let what = format!(
            "{method} {url}{}",
            range.map(|r| format!(" ({r})")).unwrap_or_default()
        );
        let mut request = RequestBuilder::new(url).method(method);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(range) = range {
            request = request.header("Range", range);
        }
        let fail = |e: gloo_net::Error| format!("{what}: {e}");
        let response = request.send().await.map_err(fail)?;
        let headers = response.headers();
        let identity = headers
            .get("content-encoding")
            .is_none_or(|e| e.trim().eq_ignore_ascii_case("identity"));
        let declared = headers
            .get("content-length")
            .and_then(|v| parse_content_length(&v));
        if let Some(n) = declared.filter(|&n| identity && n > max) {
            return Ok(Answer {
                status: response.status(),
                headers,
                body: Vec::new(),
                too_long: Some(n),
            });
        }
        let body = response.binary().await.map_err(fail)?;
        Ok(Answer {
            status: response.status(),
            headers,
            body,
            too_long: None,
        })
    }

    async fn read_whole(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        let url = self.url_of(key)?;
        let ans = self
            .send_within(Method::GET, &url, None, max)
            .await
            .map_err(|m| http_error(key, m))?;
        match (ans.status, ans.too_long) {
            (s, _) if self.is_missing(s) => Ok(None),
            (200..=299, Some(n)) => Err(ZomError::new(
                ErrorCode::LimitExceeded,
                format!(
                    "GET {url}: the response body is {n} bytes (Content-Length), more than the {max} asked for"
                ),
            )
            .at_key(key)),
            (206, _) => Err(http_error(
                key,
                format!("GET {url}: 206 to a request without Range"),
            )),
            (200..=299, None) => Ok(Some(ans.body)),
            (s, _) => Err(http_error(key, format!("GET {url}: HTTP {s}"))),
        }
    }

    /// `length` (> 0) bytes from `start`: fewer at the end of the value, none past it.
    async fn read_range(&self, key: &str, start: u64, length: u64) -> Result<Option<Vec<u8>>> {
        let url = self.url_of(key)?;
        let last = start
            .checked_add(length)
            .and_then(|end| end.checked_sub(1))
            .ok_or_else(|| ZomError::invalid_argument("byte range beyond 2^64").at_key(key))?;
        let range = format!("bytes={start}-{last}");
        let ans = self
            .send(Method::GET, &url, Some(&range))
            .await
            .map_err(|m| http_error(key, m))?;
        match ans.status {
            s if self.is_missing(s) => Ok(None),
            200..=299 => kept(ans, key, &format!("GET {url}"), |partial, cr, got| {
                keep_prefix(partial, cr, got, start, length)
            })
            .map(Some),
            416 => Ok(Some(Vec::new())),
            s => Err(http_error(key, format!("GET {url} ({range}): HTTP {s}"))),
        }
    }

    async fn read_suffix(&self, key: &str, n: u64) -> Result<Option<Vec<u8>>> {
        let mut total = None;
        if !self.suffix_refused.get() {
            let url = self.url_of(key)?;
            let range = format!("bytes=-{n}");
            let ans = self
                .send(Method::GET, &url, Some(&range))
                .await
                .map_err(|m| http_error(key, m))?;
            match ans.status {
                s if self.is_missing(s) => return Ok(None),
                200..=299 => {
                    return kept(ans, key, &format!("GET {url}"), |partial, cr, got| {
                        keep_suffix(partial, cr, got, n)
                    })
                    .map(Some)
                }
                416 => match ans
                    .headers
                    .get("content-range")
                    .and_then(|v| parse_content_range(&v))
                {
                    Some(ContentRange::Unsatisfied { total: 0 }) => return Ok(Some(Vec::new())),
                    Some(ContentRange::Unsatisfied { total: t }) => total = Some(t),
                    _ => {}
                },
                400 | 501 => {}
                s => return Err(http_error(key, format!("GET {url} ({range}): HTTP {s}"))),
            }
            self.suffix_refused.set(true);
        }
        let total = match total {
            Some(t) => Some(t),
            None => match self.size(key).await? {
                None => return Ok(None),
                Some(size) => size,
            },
        };
        match total {
            // The server does not tell the length: the whole value, cut.
            None => Ok(self.read_whole(key, u64::MAX).await?.map(|whole| {
                let range = keep_suffix(false, None, len_u64(&whole), n).unwrap_or_default();
                keep(whole, range)
            })),
            Some(0) => Ok(Some(Vec::new())),
            Some(total) => {
                let length = n.min(total);
                self.read_range(key, total.saturating_sub(length), length)
                    .await
            }
        }
    }

    /// The value's length from HEAD: `None` when missing, `Some(None)` when not told.
    async fn size(&self, key: &str) -> Result<Option<Option<u64>>> {
        let url = self.url_of(key)?;
        let ans = self
            .send(Method::HEAD, &url, None)
            .await
            .map_err(|m| http_error(key, m))?;
        match ans.status {
            s if self.is_missing(s) => Ok(None),
            405 | 501 => Ok(Some(None)),
            200..=299 => Ok(Some(
                ans.headers
                    .get("content-length")
                    .and_then(|v| parse_content_length(&v)),
            )),
            s => Err(http_error(key, format!("HEAD {url}: HTTP {s}"))),
        }
    }

    /// An empty read: an empty value when the key exists.
    async fn empty_if_present(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.size(key).await?.map(|_| Vec::new()))
    }
}

impl Store for HttpStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.read_whole(key, u64::MAX).await
    }

    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        self.read_whole(key, max).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        match range {
            ByteRange::Bounded(r) if r.end <= r.start => self.empty_if_present(key).await,
            ByteRange::Bounded(r) => {
                self.read_range(key, r.start, r.end.saturating_sub(r.start))
                    .await
            }
            ByteRange::Suffix(0) => self.empty_if_present(key).await,
            ByteRange::Suffix(n) => self.read_suffix(key, n).await,
        }
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        let Some(s3) = &self.s3 else {
            return Ok(None);
        };
        let prefix = prefix.trim_matches('/');
        // The store-relative prefix of the entries ("" or "a/b/") and the bucket's one.
        let below = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        };
        let full = format!("{}{below}", s3.root);
        let fail = |m: String| ZomError::new(ErrorCode::HttpError, m).at_path(prefix);
        let mut listing = Listing::default();
        let mut token: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..MAX_LIST_PAGES {
            let url = s3_page_url(&format!("{}/", s3.endpoint), &full, token.as_deref());
            let ans = self.send(Method::GET, &url, None).await.map_err(fail)?;
            match ans.status {
                200..=299 => {}
                // No listing here (S3 answers 403 without the s3:ListBucket permission).
                400..=499 | 501 => return Ok(None),
                s => return Err(fail(format!("GET {url}: HTTP {s}"))),
            }
            let Some(page) = parse_s3_page(&body_text(&ans.body)) else {
                return Ok(None);
            };
            // Names outside the prefix, the prefix itself (a "directory marker") and deeper
            // keys of a server that ignores the delimiter are sorted out by `s3_child`.
            for name in page.keys.iter().chain(&page.prefixes) {
                match s3_child(name, &full) {
                    Some(S3Child::Key(k)) => listing.keys.push(format!("{below}{k}")),
                    Some(S3Child::Prefix(p)) => {
                        let p = format!("{below}{}", p.trim_end_matches('/'));
                        if seen.insert(p.clone()) {
                            listing.prefixes.push(p);
                        }
                    }
                    None => {}
                }
            }
            match (page.truncated, page.next) {
                (false, _) => return Ok(Some(listing)),
                (true, Some(next)) => token = Some(next),
                (true, None) => {
                    return Err(fail(format!(
                        "GET {url}: truncated listing without NextContinuationToken"
                    )))
                }
            }
        }
        Err(ZomError::new(
            ErrorCode::LimitExceeded,
            format!("listing has more than {MAX_LIST_PAGES} pages"),
        )
        .at_path(prefix))
    }
}

fn http_error(key: &str, message: String) -> ZomError {
    ZomError::new(ErrorCode::HttpError, message).at_key(key)
}

/// The bytes of `body` that [`super::wire::range`] says to keep.
fn keep(mut body: Vec<u8>, range: std::ops::Range<u64>) -> Vec<u8> {
    let len = body.len();
    let end = usize::try_from(range.end).unwrap_or(len).min(len);
    let start = usize::try_from(range.start).unwrap_or(len).min(end);
    body.truncate(end);
    if start == 0 {
        body
    } else {
        body.split_off(start)
    }
}

fn len_u64(body: &[u8]) -> u64 {
    u64::try_from(body.len()).unwrap_or(u64::MAX)
}

/// What to keep of an answer to a range request (`keep_prefix` or `keep_suffix` applied to
/// the answer), its failure an HTTP error naming the request.
fn kept(
    ans: Answer,
    key: &str,
    what: &str,
    check: impl FnOnce(bool, Option<&str>, u64) -> std::result::Result<std::ops::Range<u64>, String>,
) -> Result<Vec<u8>> {
    let header = ans.headers.get("content-range");
    match check(ans.status == 206, header.as_deref(), len_u64(&ans.body)) {
        Ok(range) => Ok(keep(ans.body, range)),
        Err(message) => Err(http_error(key, format!("{what}: {message}"))),
    }
}
