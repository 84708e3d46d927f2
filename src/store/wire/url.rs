//! Absolute http(s) URLs split as far as comparing origins and paths needs, and relative
//! references resolved against them as the WHATWG URL parser does for special schemes: what
//! HTML directory indexes ([`super::html`]) and kerchunk references
//! ([`crate::store::reference`]) resolve their links and targets with.

use super::decode_component;

/// An absolute http(s) (ws, wss, ftp) URL, split as far as comparing origins and paths needs.
pub(crate) struct Url {
    pub(crate) scheme: String,
    /// Host (lowercased, percent-decoded) and port, the scheme's default port dropped.
    pub(crate) host: (String, Option<u16>),
    /// The path, dot segments resolved and percent-encoded as a browser's URL parser does.
    pub(crate) path: String,
}

/// The characters of a URL that are not part of it (ASCII tab and newlines).
fn strip_tabs(s: &str) -> String {
    s.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// The scheme of `s` (lowercased) and what follows its ':'; `None` when it has none.
fn scheme_of(s: &str) -> Option<(String, &str)> {
    let colon = s.find(':')?;
    let scheme = s.get(..colon)?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let ok = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| Some((scheme.to_ascii_lowercase(), s.get(colon + 1..)?)))
        .flatten()
}

fn is_slash(c: char) -> bool {
    c == '/' || c == '\\'
}

/// The host and port of an authority (`user@host:port`), `None` where a URL parser fails.
fn host_of(authority: &str, scheme: &str) -> Option<(String, Option<u16>)> {
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.rfind(':') {
        Some(colon) if !host_port.get(colon..)?.contains(']') => {
            (host_port.get(..colon)?, host_port.get(colon + 1..)?)
        }
        _ => (host_port, ""),
    };
    let host = decode_component(host)?.to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let port = if port.is_empty() {
        None
    } else if port.bytes().all(|b| b.is_ascii_digit()) {
        let digits = port.trim_start_matches('0');
        Some(if digits.is_empty() {
            0
        } else {
            digits.parse::<u16>().ok()?
        })
    } else {
        return None;
    };
    let default = default_port(scheme);
    Some((host, port.filter(|&p| Some(p) != default)))
}

/// The default port of the special schemes this parser reads (all but `file`).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

/// Resolves the dot segments of a path (starting with a separator) and percent-encodes its
/// segments; '\\' separates as '/' does (http and https are "special" schemes).
fn normalize_path(path: &str) -> String {
    let mut segments: Vec<String> = Vec::new();
    let mut parts = path.split(is_slash).skip(1).peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        let dot = |s: &str| s == "." || s.eq_ignore_ascii_case("%2e");
        let single = dot(part);
        let double = [1, 3]
            .iter()
            .any(|&cut| part.get(..cut).is_some_and(dot) && part.get(cut..).is_some_and(dot));
        if double {
            segments.pop();
            if last {
                segments.push(String::new());
            }
        } else if single {
            if last {
                segments.push(String::new());
            }
        } else {
            segments.push(encode_path_segment(part));
        }
    }
    let mut out = String::with_capacity(path.len());
    for s in &segments {
        out.push('/');
        out.push_str(s);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// A path segment percent-encoded with the URL standard's path percent-encode set.
fn encode_path_segment(s: &str) -> String {
    let encoded = |b: u8| b <= 0x20 || b >= 0x7f || b"\"#<>?`{}".contains(&b);
    if !s.bytes().any(encoded) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if encoded(b) {
            super::push_escape(&mut out, b);
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Splits `rest` at the first '?' or '#': the part before, and whether a non-empty query or
/// fragment follows.
fn split_query(rest: &str) -> (&str, bool) {
    match rest.find(['?', '#']) {
        None => (rest, false),
        Some(at) => {
            let tail = rest.get(at + 1..).unwrap_or_default();
            let more = match rest.get(at..).and_then(|t| t.strip_prefix('?')) {
                // `?query#fragment`: either may be empty.
                Some(_) => tail
                    .split_once('#')
                    .map_or(!tail.is_empty(), |(q, f)| !q.is_empty() || !f.is_empty()),
                None => !tail.is_empty(),
            };
            (rest.get(..at).unwrap_or_default(), more)
        }
    }
}

impl Url {
    /// Parses an absolute URL of a special scheme but `file` (http, https, ws, wss, ftp);
    /// `None` for any other.
    pub(crate) fn parse_absolute(s: &str) -> Option<Url> {
        let s = strip_tabs(s);
        let (scheme, rest) = scheme_of(&s)?;
        default_port(&scheme)?;
        let (rest, _) = split_query(rest.trim_start_matches(is_slash));
        let end = rest.find(is_slash).unwrap_or(rest.len());
        let host = host_of(rest.get(..end)?, &scheme)?;
        let path = normalize_path(rest.get(end..)?);
        Some(Url { scheme, host, path })
    }

    /// The path of `href` resolved against this URL with `dir_path` as its path; `None` when
    /// it names another origin, has a non-empty query or fragment, or does not parse.
    pub(crate) fn resolve(&self, href: &str, dir_path: &str) -> Option<String> {
        let href = strip_tabs(href);
        let mut rest = href.as_str();
        if let Some((scheme, after)) = scheme_of(rest) {
            if scheme != self.scheme {
                return None;
            }
            rest = after;
        }
        let (rest, more) = split_query(rest);
        if more {
            return None;
        }
        let mut chars = rest.chars();
        let authority = chars.next().is_some_and(is_slash) && chars.next().is_some_and(is_slash);
        if authority {
            let rest = rest.trim_start_matches(is_slash);
            let end = rest.find(is_slash).unwrap_or(rest.len());
            if host_of(rest.get(..end)?, &self.scheme)? != self.host {
                return None;
            }
            return Some(normalize_path(rest.get(end..)?));
        }
        if rest.starts_with(is_slash) {
            return Some(normalize_path(rest));
        }
        Some(normalize_path(&format!("{dir_path}{rest}")))
    }
}

/// `href` resolved against `base`, an absolute http(s) (ws, wss, ftp) URL, as a browser
/// resolves a link: the whole URL, with `href`'s own query and without its fragment. An `href`
/// with a scheme is returned as it is, a scheme-relative one (`//host/x`) gets `base`'s scheme.
/// `None` when `base` is not such a URL or `href` is empty or does not parse.
pub fn join(base: &str, href: &str) -> Option<String> {
    let base = Url::parse_absolute(base)?;
    let href = strip_tabs(href);
    let href = href.split('#').next().unwrap_or_default();
    if href.is_empty() {
        return None;
    }
    if scheme_of(href).is_some() {
        return Some(href.to_string());
    }
    let mut chars = href.chars();
    if chars.next().is_some_and(is_slash) && chars.next().is_some_and(is_slash) {
        return Some(format!("{}:{href}", base.scheme));
    }
    let (body, query) = href.split_at(href.find('?').unwrap_or(href.len()));
    let dir = base.path.get(..=base.path.rfind('/')?)?;
    let path = base.resolve(body, dir)?;
    let (host, port) = &base.host;
    let port = port
        .map(|p| format!(":{}", u32::from(p)))
        .unwrap_or_default();
    Some(format!("{}://{host}{port}{path}{query}", base.scheme))
}

/// Where an S3 client reaches a bucket's objects (the S3 options of icechunk, zarr-python's
/// `s3fs` and the AWS SDKs that say where): the default is Amazon S3's global endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct S3Endpoint {
    /// The bucket's region (`us-west-2`): its regional endpoint.
    pub region: Option<String>,
    /// The service's own endpoint (`https://minio.example:9000`), for S3-compatible stores.
    pub endpoint_url: Option<String>,
    /// Path-style URLs (`endpoint/bucket/key`) rather than virtual-hosted ones
    /// (`bucket.endpoint/key`).
    pub force_path_style: bool,
}

impl S3Endpoint {
    /// The HTTP(S) URL of object `key` of `bucket`, as the AWS SDKs make it: virtual-hosted
    /// unless path style is forced or the bucket name cannot be a host name label (dots,
    /// which TLS certificates of the endpoint do not cover, or other characters). `None`
    /// when the endpoint URL is not an http(s) URL.
    pub fn object_url(&self, bucket: &str, key: &str) -> Option<String> {
        let virtual_hosted = !self.force_path_style
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        let (scheme, host) = match (&self.endpoint_url, &self.region) {
            (Some(endpoint), _) => {
                let (scheme, host) = endpoint.trim_end_matches('/').split_once("://")?;
                let scheme = scheme.to_ascii_lowercase();
                if !matches!(scheme.as_str(), "http" | "https") || host.is_empty() {
                    return None;
                }
                (scheme, host.to_string())
            }
            (None, Some(region)) => ("https".to_string(), format!("s3.{region}.amazonaws.com")),
            (None, None) => ("https".to_string(), "s3.amazonaws.com".to_string()),
        };
        Some(if virtual_hosted {
            format!("{scheme}://{bucket}.{host}/{key}")
        } else {
            format!("{scheme}://{host}/{bucket}/{key}")
        })
    }
}

/// The bucket and key of an `s3://bucket/key` (or `s3a://`, `tigris://`) URL.
pub fn s3_bucket_key(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = scheme_of(url)?;
    if !matches!(scheme.as_str(), "s3" | "s3a" | "tigris") {
        return None;
    }
    let (bucket, key) = rest.strip_prefix("//")?.split_once('/')?;
    (!bucket.is_empty()).then_some((bucket, key))
}

/// The URL an object at `url` is fetched from over HTTP: http(s) URLs as they are; an S3
/// object (`s3://bucket/key`) at Amazon S3's global endpoint ([`S3Endpoint::default`]:
/// `https://bucket.s3.amazonaws.com/key`, or `https://s3.amazonaws.com/bucket/key` for a
/// bucket name with dots); a Google Cloud Storage object (`gs://bucket/key`, `gcs://`) at
/// `https://storage.googleapis.com/bucket/key`. `None` for other schemes.
pub fn public_object_url(url: &str) -> Option<String> {
    let (scheme, rest) = scheme_of(url)?;
    match scheme.as_str() {
        "http" | "https" => Some(url.to_string()),
        "s3" | "s3a" => {
            let (bucket, key) = s3_bucket_key(url)?;
            S3Endpoint::default().object_url(bucket, key)
        }
        "gs" | "gcs" => {
            let (bucket, key) = rest.strip_prefix("//")?.split_once('/')?;
            (!bucket.is_empty()).then(|| format!("https://storage.googleapis.com/{bucket}/{key}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{join, public_object_url, s3_bucket_key, S3Endpoint};

    #[test]
    fn s3_objects_where_the_sdks_reach_them() {
        let at = |region: Option<&str>, endpoint: Option<&str>, path_style: bool| S3Endpoint {
            region: region.map(str::to_string),
            endpoint_url: endpoint.map(str::to_string),
            force_path_style: path_style,
        };
        for (endpoint, bucket, want) in [
            (
                at(None, None, false),
                "b-1",
                "https://b-1.s3.amazonaws.com/k/x.nc",
            ),
            (
                at(Some("eu-west-1"), None, false),
                "b",
                "https://b.s3.eu-west-1.amazonaws.com/k/x.nc",
            ),
            (
                at(Some("eu-west-1"), None, true),
                "b",
                "https://s3.eu-west-1.amazonaws.com/b/k/x.nc",
            ),
            (
                at(Some("eu-west-1"), None, false),
                "my.b",
                "https://s3.eu-west-1.amazonaws.com/my.b/k/x.nc",
            ),
            (
                at(Some("x"), Some("https://minio.example:9000"), false),
                "b",
                "https://b.minio.example:9000/k/x.nc",
            ),
            (
                at(None, Some("http://127.0.0.1:9000/"), true),
                "b",
                "http://127.0.0.1:9000/b/k/x.nc",
            ),
            (
                at(None, Some("https://h/base"), true),
                "B_b",
                "https://h/base/B_b/k/x.nc",
            ),
            (
                at(None, Some("https://h/base"), false),
                "B_b",
                "https://h/base/B_b/k/x.nc",
            ),
        ] {
            assert_eq!(
                endpoint.object_url(bucket, "k/x.nc").as_deref(),
                Some(want),
                "{endpoint:?}"
            );
        }
        for not_http in [
            "s://h:9000",
            "minio.example",
            "file:///x",
            "https://",
            "javascript:x",
        ] {
            let endpoint = at(None, Some(not_http), false);
            assert_eq!(endpoint.object_url("b", "k"), None, "{not_http}");
        }
        assert_eq!(s3_bucket_key("tigris://tb/a/b"), Some(("tb", "a/b")));
        assert_eq!(s3_bucket_key("s3://b"), None);
        assert_eq!(s3_bucket_key("gs://b/k"), None);
    }

    #[test]
    fn object_urls_at_their_public_endpoints() {
        for (url, want) in [
            ("https://h/x.nc", Some("https://h/x.nc")),
            (
                "s3://bucket/a/b.nc",
                Some("https://bucket.s3.amazonaws.com/a/b.nc"),
            ),
            (
                "s3://my.bucket/b.nc",
                Some("https://s3.amazonaws.com/my.bucket/b.nc"),
            ),
            (
                "gs://bucket/a b.nc",
                Some("https://storage.googleapis.com/bucket/a b.nc"),
            ),
            (
                "gcs://bucket/k",
                Some("https://storage.googleapis.com/bucket/k"),
            ),
            ("s3://bucket", None),
            ("s3:///k", None),
            ("file:///tmp/x", None),
            ("az://c/k", None),
        ] {
            assert_eq!(public_object_url(url).as_deref(), want, "{url}");
        }
    }

    #[test]
    fn joins_like_a_browser() {
        let base = "http://H:8080/data/refs/x.json?sig=1#f";
        for (href, want) in [
            ("a.h5", "http://h:8080/data/refs/a.h5"),
            ("../b c.nc", "http://h:8080/data/b%20c.nc"),
            ("/root.h5", "http://h:8080/root.h5"),
            (
                "sub/./d.h5?v=2#frag",
                "http://h:8080/data/refs/sub/d.h5?v=2",
            ),
            ("//other/x.h5", "http://other/x.h5"),
            ("s3://bucket/x.h5", "s3://bucket/x.h5"),
            ("https://e/x", "https://e/x"),
            ("../../../../up", "http://h:8080/up"),
            ("\\back", "http://h:8080/back"),
        ] {
            assert_eq!(join(base, href).as_deref(), Some(want), "{href}");
        }
        assert_eq!(join("http://h:80/", "x").as_deref(), Some("http://h/x"));
        for (base, href) in [
            ("file:///x/r.json", "a"),
            ("r.json", "a"),
            ("http://h/", ""),
            ("", "a"),
        ] {
            assert_eq!(join(base, href), None, "{base} {href}");
        }
    }
}
