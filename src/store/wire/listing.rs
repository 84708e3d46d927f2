//! S3 ListObjectsV2: the request URL of a page, what a page says, which of its names are
//! children of the listed prefix, where a store's bucket may be; and the XML/HTML character
//! references its text (and HTML indexes) use.

use super::{decode_component, encode_component, js_trim};

/// One page of a ListObjectsV2 answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct S3Page {
    /// The `<Contents><Key>` values, entities decoded.
    pub keys: Vec<String>,
    /// The `<CommonPrefixes><Prefix>` values, entities decoded.
    pub prefixes: Vec<String>,
    /// `<IsTruncated>` is `true` (in any case): more pages follow.
    pub truncated: bool,
    /// `<NextContinuationToken>`, trimmed and entities decoded, when present.
    pub next: Option<String>,
}

/// Parses a ListObjectsV2 body: only `Contents/Key`, `CommonPrefixes/Prefix`, `IsTruncated`
/// and `NextContinuationToken` are read. `None` when it has no `<ListBucketResult>` (an S3
/// error document, an HTML page).
pub fn parse_s3_page(xml: &str) -> Option<S3Page> {
    let body = Elements::new(xml, "ListBucketResult").next()?;
    let first = |xml: &'_ str, tag: &str| Elements::new(xml, tag).next().map(decode_entities);
    let truncated = Elements::new(body, "IsTruncated")
        .next()
        .is_some_and(|t| js_trim(t).eq_ignore_ascii_case("true"));
    let next = Elements::new(body, "NextContinuationToken")
        .next()
        .map(|t| decode_entities(js_trim(t)));
    Some(S3Page {
        keys: Elements::new(body, "Contents")
            .filter_map(|c| first(c, "Key"))
            .collect(),
        prefixes: Elements::new(body, "CommonPrefixes")
            .filter_map(|c| first(c, "Prefix"))
            .collect(),
        truncated,
        next,
    })
}

/// The contents of each `<tag>…</tag>` (or `<tag attributes…>…</tag>`) of a text, in order,
/// each ending at the first `</tag>` after it (the same tag is not nested in ListObjectsV2).
/// An element without its end tag ends the sequence.
struct Elements<'a> {
    rest: &'a str,
    open: String,
    close: String,
}

impl<'a> Elements<'a> {
    fn new(xml: &'a str, tag: &str) -> Self {
        Elements {
            rest: xml,
            open: format!("<{tag}"),
            close: format!("</{tag}>"),
        }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let at = self.rest.find(&self.open)?;
            let after = self.rest.get(at + self.open.len()..).unwrap_or_default();
            // `<Key>` and `<Key attr="…">`, but not `<KeyCount>`.
            let attributes = after.starts_with(super::is_js_space);
            if !after.starts_with('>') && !attributes {
                self.rest = after;
                continue;
            }
            let Some(inner) = after.find('>').and_then(|gt| after.get(gt + 1..)) else {
                self.rest = "";
                return None;
            };
            let Some(end) = inner.find(&self.close) else {
                self.rest = "";
                return None;
            };
            self.rest = inner.get(end + self.close.len()..).unwrap_or_default();
            return inner.get(..end);
        }
    }
}

/// The character `name` in `&name;` stands for: the five XML entities, `nbsp`, `#` decimal
/// and `#x` hexadecimal (a lowercase `x`) numbers up to U+10FFFF. A surrogate's number gives
/// U+FFFD. `None` for anything else (left as it is).
fn reference(name: &str) -> Option<char> {
    let code = if let Some(hex) = name.strip_prefix("#x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(hex.trim_start_matches('0'), 16)
            .ok()
            .or(hex.bytes().all(|b| b == b'0').then_some(0))?
    } else if let Some(dec) = name.strip_prefix('#') {
        if dec.is_empty() || !dec.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        dec.parse::<u32>().ok()?
    } else {
        return match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ => None,
        };
    };
    if code > 0x10_FFFF {
        return None;
    }
    Some(char::from_u32(code).unwrap_or('\u{fffd}'))
}

/// Replaces XML/HTML character references: `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&nbsp;`,
/// `&#65;` and `&#x41;`. Any other `&…;`, one out of range or without its `;` is left as
/// it is.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(rest.get(..amp).unwrap_or_default());
        let after = rest.get(amp + 1..).unwrap_or_default();
        // A reference is `#x` hex digits, `#` digits or letters, then ';'.
        let len = match after.strip_prefix("#x").or_else(|| after.strip_prefix('#')) {
            Some(digits) => {
                let hex = after.starts_with("#x");
                let n = digits
                    .bytes()
                    .take_while(|b| {
                        if hex {
                            b.is_ascii_hexdigit()
                        } else {
                            b.is_ascii_digit()
                        }
                    })
                    .count();
                after.len() - digits.len() + n
            }
            None => after.bytes().take_while(u8::is_ascii_alphabetic).count(),
        };
        let decoded = after
            .get(..len)
            .filter(|_| after.get(len..).is_some_and(|r| r.starts_with(';')))
            .and_then(reference);
        match decoded {
            Some(c) => {
                out.push(c);
                rest = after.get(len + 1..).unwrap_or_default();
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

/// What a name of a listing page is to the listed prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum S3Child<'a> {
    /// A value directly below: its name.
    Key(&'a str),
    /// A sub-prefix: its name with a trailing '/'.
    Prefix(&'a str),
}

/// What `name` (a key or common prefix of a page listing `full`) is directly below `full`:
/// a key without a further '/', or the sub-prefix up to its first '/' (also when the server
/// ignored the delimiter and lists deeper keys). `None` for names outside `full`, `full`
/// itself (a "directory marker") and names with an empty segment right after it.
pub fn s3_child<'a>(name: &'a str, full: &str) -> Option<S3Child<'a>> {
    let rel = name.strip_prefix(full).filter(|r| !r.is_empty())?;
    match rel.find('/') {
        None => Some(S3Child::Key(rel)),
        Some(0) => None,
        Some(slash) => rel.get(..=slash).map(S3Child::Prefix),
    }
}

/// The URL of a ListObjectsV2 page: `root` is the bucket's URL ending in '/', `full` the key
/// prefix listed, `token` the continuation token of the page before.
pub fn s3_page_url(root: &str, full: &str, token: Option<&str>) -> String {
    let mut url = format!(
        "{root}?list-type=2&prefix={}&delimiter=%2F",
        encode_component(full)
    );
    if let Some(token) = token {
        url.push_str("&continuation-token=");
        url.push_str(&encode_component(token));
    }
    url
}

/// Where a bucket's ListObjectsV2 endpoint may be for a store at the URL with `origin`
/// (`https://host`) and `path` (the URL's path, percent-encoded, the store's root): the
/// origin first (virtual-hosted buckets, custom domains), then each path prefix (path-style
/// buckets, `https://host/bucket/…`). Each is the listing URL (ending in '/') and the key
/// prefix of the store's root inside that bucket (segments percent-decoded where they decode).
pub fn s3_candidates(origin: &str, path: &str) -> Vec<(String, String)> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    (0..=segments.len())
        .map(|i| {
            let (outside, inside) = segments.split_at(i);
            let mut root = format!("{origin}/");
            for s in outside {
                root.push_str(s);
                root.push('/');
            }
            let mut prefix = String::new();
            for s in inside {
                prefix.push_str(&decode_component(s).unwrap_or_else(|| (*s).to_string()));
                prefix.push('/');
            }
            (root, prefix)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn s3_page_with_entities() {
        let xml = r#"<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>
<Contents><Key>a/b&amp;c.json</Key><Size>3</Size></Contents><CommonPrefixes><Prefix>a/&lt;d&gt;/</Prefix></CommonPrefixes>
<NextContinuationToken> t&#x2B;1 </NextContinuationToken></ListBucketResult>"#;
        assert_eq!(
            parse_s3_page(xml),
            Some(S3Page {
                keys: strings(&["a/b&c.json"]),
                prefixes: strings(&["a/<d>/"]),
                truncated: true,
                next: Some("t+1".into()),
            })
        );
        assert_eq!(
            parse_s3_page("<ListBucketResult></ListBucketResult>"),
            Some(S3Page::default())
        );
        assert_eq!(
            parse_s3_page("<Error><Code>AccessDenied</Code></Error>"),
            None
        );
        assert_eq!(parse_s3_page("<html>index</html>"), None);
    }

    #[test]
    fn s3_page_hostile() {
        // Unterminated elements end the sequence; nothing panics.
        for xml in [
            "<ListBucketResult>",
            "<ListBucketResult",
            "<ListBucketResult ",
            "<ListBucketResult><Contents><Key>a</Key>",
            "<ListBucketResult>\u{0}é<",
            "",
            "<",
            "</ListBucketResult>",
        ] {
            assert_eq!(parse_s3_page(xml), None, "{xml:?}");
        }
        let page = parse_s3_page(
            "<ListBucketResult><Contents><Key>a</Key></Contents><Contents><Key>b</Contents>\
             <Contents><Key>c</Key></Contents><IsTruncated>TRUE</IsTruncated></ListBucketResult>",
        );
        // The second <Key> runs to the next </Key>: as the TypeScript regex did.
        assert_eq!(page.as_ref().map(|p| p.keys.len()), Some(2));
        assert_eq!(page.map(|p| p.truncated), Some(true));
        let big = format!(
            "<ListBucketResult>{}</ListBucketResult>",
            "<Contents><Key>k</Key></Contents>".repeat(10_000)
        );
        assert_eq!(parse_s3_page(&big).map(|p| p.keys.len()), Some(10_000));
        let attrs = parse_s3_page(
            "<ListBucketResult a='>'><Contents\tx><Key>k</Key></Contents></ListBucketResult>",
        );
        assert_eq!(attrs.map(|p| p.keys), Some(strings(&["k"])));
    }

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a&amp;b&lt;&gt;&quot;&apos;&nbsp;"),
            "a&b<>\"'\u{a0}"
        );
        assert_eq!(decode_entities("&#65;&#x41;&#x1F600;&#0;"), "AA😀\0");
        assert_eq!(decode_entities("&#00000000000000065;"), "A");
        assert_eq!(decode_entities("&#x000000000000041;"), "A");
        // Left alone: unknown, uppercase X, out of range, no ';', empty, not closed at once.
        for kept in [
            "&AMP;",
            "&foo;",
            "&#X41;",
            "&#x110000;",
            "&#1114112;",
            "&#99999999999999999999;",
            "&#xFFFFFFFFFFFFFFFFFFFF;",
            "&amp",
            "&;",
            "&#;",
            "&#x;",
            "&am p;",
            "&#x4G;",
            "&",
            "&&&",
            "&constructor;",
        ] {
            assert_eq!(decode_entities(kept), kept, "{kept}");
        }
        assert_eq!(decode_entities("&#xD800;&#57343;"), "\u{fffd}\u{fffd}");
        assert_eq!(decode_entities("&a&amp;"), "&a&");
        assert_eq!(decode_entities("é&amp;é"), "é&é");
        assert_eq!(decode_entities(&"&amp;".repeat(50_000)).len(), 50_000);
    }

    #[test]
    fn children() {
        use S3Child::{Key, Prefix};
        assert_eq!(s3_child("d/a.json", "d/"), Some(Key("a.json")));
        assert_eq!(s3_child("d/sub/", "d/"), Some(Prefix("sub/")));
        assert_eq!(s3_child("d/sub/deeper/x", "d/"), Some(Prefix("sub/")));
        assert_eq!(s3_child("d/", "d/"), None);
        assert_eq!(s3_child("e/x", "d/"), None);
        assert_eq!(s3_child("d//x", "d/"), None);
        assert_eq!(s3_child("x", ""), Some(Key("x")));
    }

    #[test]
    fn page_urls() {
        assert_eq!(
            s3_page_url("https://b.s3.amazonaws.com/", "a b/", None),
            "https://b.s3.amazonaws.com/?list-type=2&prefix=a%20b%2F&delimiter=%2F"
        );
        assert_eq!(
            s3_page_url("https://h/b/", "", Some("t+/=")),
            "https://h/b/?list-type=2&prefix=&delimiter=%2F&continuation-token=t%2B%2F%3D"
        );
    }

    #[test]
    fn candidates() {
        let c = s3_candidates("https://s3.example.com", "/bucket/my%20data.zarr/");
        let pairs: Vec<(&str, &str)> = c.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("https://s3.example.com/", "bucket/my data.zarr/"),
                ("https://s3.example.com/bucket/", "my data.zarr/"),
                ("https://s3.example.com/bucket/my%20data.zarr/", ""),
            ]
        );
        assert_eq!(
            s3_candidates("http://h", "/"),
            vec![("http://h/".to_string(), String::new())]
        );
        let bad = s3_candidates("http://h", "/%zz//x");
        assert_eq!(bad.first().map(|c| c.1.as_str()), Some("%zz/x/"));
    }
}
