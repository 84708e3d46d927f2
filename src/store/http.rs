//! [`HttpStore`]: a [`Store`] over the browser's `fetch` (through gloo-net), for Rust code
//! compiled to WebAssembly that reads Zarr hierarchies from an HTTP server or object store.

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
        let path: Vec<String> = key.split('/').map(percent_encode).collect();
        Ok(format!("{}/{}", self.base, path.join("/")))
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
            .and_then(|v| v.trim().parse::<u64>().ok());
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
            206 => checked_prefix(ans, key, start, last).map(Some),
            200..=299 => Ok(Some(cut(ans.body, start, length))),
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
                206 => return checked_suffix(ans, key, n).map(Some),
                200..=299 => return Ok(Some(tail(ans.body, n))),
                416 => match content_range(&ans.headers) {
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
            None => Ok(self
                .read_whole(key, u64::MAX)
                .await?
                .map(|whole| tail(whole, n))),
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
                    .and_then(|v| v.trim().parse::<u64>().ok()),
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
        for _ in 0..MAX_LIST_PAGES {
            let mut url = format!(
                "{}/?list-type=2&prefix={}&delimiter=%2F",
                s3.endpoint,
                percent_encode(&full)
            );
            if let Some(token) = &token {
                url.push_str("&continuation-token=");
                url.push_str(&percent_encode(token));
            }
            let ans = self.send(Method::GET, &url, None).await.map_err(fail)?;
            match ans.status {
                200..=299 => {}
                // No listing here (S3 answers 403 without the s3:ListBucket permission).
                400..=499 | 501 => return Ok(None),
                s => return Err(fail(format!("GET {url}: HTTP {s}"))),
            }
            let text = String::from_utf8_lossy(&ans.body);
            let Some(page) = parse_s3_page(&text) else {
                return Ok(None);
            };
            let relative = |k: &str| k.strip_prefix(&s3.root).map(str::to_string);
            // Entries outside the prefix, and the prefix itself (a "directory marker"), skipped.
            let inside = |k: &str| k.len() > full.len() && k.starts_with(&full);
            for key in page.keys.iter().filter(|k| inside(k)) {
                listing.keys.extend(relative(key));
            }
            for p in page.prefixes.iter().map(|p| p.trim_end_matches('/')) {
                if inside(p) {
                    listing.prefixes.extend(relative(p));
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

/// Percent-encodes everything but RFC 3986 unreserved characters (as `encodeURIComponent`).
fn percent_encode(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.extend(
                [b >> 4, b & 15]
                    .iter()
                    .filter_map(|&n| HEX.get(usize::from(n)).map(|&h| char::from(h))),
            );
        }
    }
    out
}

/// A parsed `Content-Range` header.
#[derive(Debug, PartialEq)]
enum ContentRange {
    /// `bytes start-end/total` (`total` `None` for `*`).
    Bytes {
        start: u64,
        end: u64,
        total: Option<u64>,
    },
    /// `bytes */total` (the 416 form).
    Unsatisfied { total: u64 },
}

fn content_range(headers: &Headers) -> Option<ContentRange> {
    parse_content_range(&headers.get("content-range")?)
}

fn parse_content_range(value: &str) -> Option<ContentRange> {
    let rest = value.trim().strip_prefix("bytes")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let (span, total) = rest.trim_start().split_once('/')?;
    let (span, total) = (span.trim(), total.trim());
    let total = match total {
        "*" => None,
        t => Some(t.parse::<u64>().ok()?),
    };
    if span == "*" {
        return total.map(|total| ContentRange::Unsatisfied { total });
    }
    let (start, end) = span.split_once('-')?;
    let (start, end) = (
        start.trim().parse::<u64>().ok()?,
        end.trim().parse::<u64>().ok()?,
    );
    if end < start || total.is_some_and(|t| end >= t) {
        return None;
    }
    Some(ContentRange::Bytes { start, end, total })
}

fn len_u64(body: &[u8]) -> u64 {
    u64::try_from(body.len()).unwrap_or(u64::MAX)
}

/// The body of a 206 answer to `bytes=start-last`, checked: the `Content-Range` names those
/// bytes (or fewer, ending at the end of the value) and the body has that many. Without a
/// `Content-Range` (not exposed by CORS) the body must be exactly as long as asked.
fn checked_prefix(ans: Answer, key: &str, start: u64, last: u64) -> Result<Vec<u8>> {
    let want = format!("bytes={start}-{last}");
    let got = len_u64(&ans.body);
    let Some(raw) = ans.headers.get("content-range") else {
        let asked = last.saturating_sub(start).saturating_add(1);
        return if got == asked {
            Ok(ans.body)
        } else {
            Err(http_error(
                key,
                format!("206 without Content-Range has {got} bytes for {want}"),
            ))
        };
    };
    let ok = match parse_content_range(&raw) {
        Some(ContentRange::Bytes {
            start: s,
            end,
            total,
        }) => {
            let short_at_end = end < last && total.is_some_and(|t| end.checked_add(1) == Some(t));
            s == start
                && (end == last || short_at_end)
                && got == end.saturating_sub(s).saturating_add(1)
        }
        _ => false,
    };
    if ok {
        Ok(ans.body)
    } else {
        Err(http_error(
            key,
            format!("206 with Content-Range '{raw}' and {got} bytes does not match {want}"),
        ))
    }
}

/// The body of a 206 answer to `bytes=-n`, checked: the `Content-Range` names the last
/// min(n, total) bytes and the body has that many. Without a `Content-Range` the body must not
/// be longer than n.
fn checked_suffix(ans: Answer, key: &str, n: u64) -> Result<Vec<u8>> {
    let got = len_u64(&ans.body);
    let Some(raw) = ans.headers.get("content-range") else {
        return if got <= n {
            Ok(ans.body)
        } else {
            Err(http_error(
                key,
                format!("206 without Content-Range has {got} bytes for bytes=-{n}"),
            ))
        };
    };
    let ok = match parse_content_range(&raw) {
        Some(ContentRange::Bytes { start, end, total }) => {
            let count = end.saturating_sub(start).saturating_add(1);
            let right_count = total.map_or(count == n, |t| count == n.min(t));
            let ends_at_end = total.is_none_or(|t| end.checked_add(1) == Some(t));
            right_count && ends_at_end && got == count
        }
        _ => false,
    };
    if ok {
        Ok(ans.body)
    } else {
        Err(http_error(
            key,
            format!("206 with Content-Range '{raw}' and {got} bytes does not match bytes=-{n}"),
        ))
    }
}

/// `length` bytes of a whole value from `start` (fewer at its end, none past it).
fn cut(mut whole: Vec<u8>, start: u64, length: u64) -> Vec<u8> {
    let len = whole.len();
    let start = usize::try_from(start).unwrap_or(len).min(len);
    let end = start
        .saturating_add(usize::try_from(length).unwrap_or(usize::MAX))
        .min(len);
    whole.truncate(end);
    whole.split_off(start)
}

/// The last `n` bytes of a whole value (all of a shorter one).
fn tail(mut whole: Vec<u8>, n: u64) -> Vec<u8> {
    let keep = usize::try_from(n).unwrap_or(usize::MAX);
    whole.split_off(whole.len().saturating_sub(keep))
}

/// One page of a ListObjectsV2 answer.
struct S3Page {
    keys: Vec<String>,
    prefixes: Vec<String>,
    truncated: bool,
    next: Option<String>,
}

/// Parses a ListObjectsV2 body (only `Contents/Key`, `CommonPrefixes/Prefix`, `IsTruncated`
/// and `NextContinuationToken`); `None` when it is not a `<ListBucketResult>`.
fn parse_s3_page(xml: &str) -> Option<S3Page> {
    let body = elements(xml, "ListBucketResult").into_iter().next()?;
    let first = |xml: &str, tag: &str| elements(xml, tag).into_iter().next().map(decode_entities);
    Some(S3Page {
        keys: elements(body, "Contents")
            .into_iter()
            .filter_map(|c| first(c, "Key"))
            .collect(),
        prefixes: elements(body, "CommonPrefixes")
            .into_iter()
            .filter_map(|c| first(c, "Prefix"))
            .collect(),
        truncated: first(body, "IsTruncated")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("true")),
        next: first(body, "NextContinuationToken").map(|t| t.trim().to_string()),
    })
}

/// The contents of every `<tag …>…</tag>` in `xml`, in order (no nesting of the same tag).
fn elements<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(at) = rest.find(&open) {
        let after = rest
            .get(at.saturating_add(open.len())..)
            .unwrap_or_default();
        // `<Key>` but not `<KeyCount>`.
        if !after.starts_with(|c: char| c == '>' || c.is_whitespace()) {
            rest = after;
            continue;
        }
        let Some(gt) = after.find('>') else { break };
        let inner = after.get(gt.saturating_add(1)..).unwrap_or_default();
        let Some(end) = inner.find(&close) else { break };
        out.push(inner.get(..end).unwrap_or_default());
        rest = inner
            .get(end.saturating_add(close.len())..)
            .unwrap_or_default();
    }
    out
}

/// Replaces the five XML entities and numeric character references.
fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(rest.get(..amp).unwrap_or_default());
        let after = rest.get(amp.saturating_add(1)..).unwrap_or_default();
        let decoded = after.find(';').and_then(|semi| {
            let name = after.get(..semi)?;
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let code = match name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => name.strip_prefix('#')?.parse::<u32>().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, semi))
        });
        match decoded {
            Some((c, semi)) => {
                out.push(c);
                rest = after.get(semi.saturating_add(1)..).unwrap_or_default();
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
