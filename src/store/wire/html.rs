//! HTML directory indexes (`python -m http.server`, nginx autoindex, Apache) read without a
//! DOM: the `<a href>` links, resolved against the listed directory's URL as a browser's URL
//! parser does for http(s), and whether a body looks like HTML at all.

use super::listing::decode_entities;
use super::url::Url;
use super::{decode_component, is_js_space, js_trim};

/// Names directly below a directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectoryEntries {
    /// File names, sorted by code point (the order of every listing: `store::sorted_unique`).
    pub files: Vec<String>,
    /// Directory names, each ending in '/', sorted.
    pub dirs: Vec<String>,
}

/// The children an HTML directory index at `dir_url` links to: every `<a href>` that resolves
/// to a name directly below `dir_url` (same origin, no query or fragment). Parent links, sort
/// links (`?C=N;O=D`), links elsewhere and deeper links are skipped; names are
/// percent-decoded, and a name that does not decode is skipped.
///
/// `dir_url` is an absolute http(s) URL (a trailing '/' is implied; ws, wss and ftp work the
/// same); for anything else (`file:`, `data:`, a relative URL) the index is empty. Hosts are compared as written (lowercased, percent-decoded, default port
/// dropped), without IDNA or IPv4/IPv6 normalisation: a link naming the server in another
/// spelling reads as foreign.
pub fn parse_html_index(html: &str, dir_url: &str) -> DirectoryEntries {
    let Some(base) = Url::parse_absolute(dir_url) else {
        return DirectoryEntries::default();
    };
    let mut dir_path = base.path.clone();
    if !dir_path.ends_with('/') {
        dir_path.push('/');
    }
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let hrefs = Hrefs {
        html,
        pos: 0,
        searched_until: 0,
    };
    for href in hrefs {
        let raw = decode_entities(js_trim(href));
        if raw.is_empty() || raw.starts_with('?') || raw.starts_with('#') {
            continue;
        }
        let Some(target) = base.resolve(&raw, &dir_path) else {
            continue;
        };
        let Some(rest) = target.strip_prefix(dir_path.as_str()) else {
            continue;
        };
        let (segment, is_dir) = match rest.strip_suffix('/') {
            Some(s) => (s, true),
            None => (rest, false),
        };
        if segment.is_empty() || segment.contains('/') {
            continue;
        }
        let Some(name) = decode_component(segment) else {
            continue;
        };
        if name == "." || name == ".." || name.contains('/') {
            continue;
        }
        if is_dir {
            dirs.push(format!("{name}/"));
        } else {
            files.push(name);
        }
    }
    DirectoryEntries {
        files: crate::store::sorted_unique(files),
        dirs: crate::store::sorted_unique(dirs),
    }
}

/// True when a body looks like HTML: its Content-Type says html; or there is none, or it is
/// text/plain or octet-stream, and the text starts (after white space) with `<!doctype html`,
/// `<html`, `<head`, `<body`, `<pre`, `<ul`, `<table` or `<h1` (any case) ending there.
pub fn looks_like_html(content_type: Option<&str>, text: &str) -> bool {
    if let Some(ct) = content_type {
        let ct = ct.to_ascii_lowercase();
        if ct.contains("html") {
            return true;
        }
        if !ct.contains("text/plain") && !ct.contains("octet-stream") {
            return false;
        }
    }
    let Some(rest) = text.trim_start_matches(is_js_space).strip_prefix('<') else {
        return false;
    };
    let tag_end = |after: &str| !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
    if let Some(after) = after_word(rest, "!doctype") {
        let html = after.trim_start_matches(is_js_space);
        return html.len() < after.len() && after_word(html, "html").is_some_and(tag_end);
    }
    ["html", "head", "body", "pre", "ul", "table", "h1"]
        .iter()
        .any(|tag| after_word(rest, tag).is_some_and(tag_end))
}

/// The `href` values of `<a …>` tags, as the regular expression
/// `<a\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))` (case-insensitive) finds them:
/// the first `href` attribute inside each tag whose value is well formed.
struct Hrefs<'a> {
    html: &'a str,
    /// Where the search goes on.
    pos: usize,
    /// The end of the last tag searched without finding an `href`.
    searched_until: usize,
}

/// What follows `word` (any ASCII case) at the start of `s`.
fn after_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    s.get(..word.len())
        .filter(|head| head.eq_ignore_ascii_case(word))
        .and_then(|_| s.get(word.len()..))
}

/// `s` without its leading JavaScript white space.
fn skip_space(s: &str) -> &str {
    s.trim_start_matches(is_js_space)
}

/// The value of an attribute right after `href`, and the text after it.
fn href_value(after_name: &str) -> Option<(&str, &str)> {
    let v = skip_space(skip_space(after_name).strip_prefix('=')?);
    for quote in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(quote) {
            if let Some(end) = inner.find(quote) {
                return Some((inner.get(..end)?, inner.get(end + 1..)?));
            }
        }
    }
    let end = v
        .find(|c: char| is_js_space(c) || c == '"' || c == '\'' || c == '>')
        .unwrap_or(v.len());
    if end == 0 {
        return None;
    }
    Some((v.get(..end)?, v.get(end..)?))
}

impl<'a> Iterator for Hrefs<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let rest = self.html.get(self.pos..)?;
            let lt = self.pos + rest.find('<')?;
            self.pos = lt + 1;
            let Some(attrs) = self
                .html
                .get(lt + 1..)
                .and_then(|tag| tag.strip_prefix(['a', 'A']))
                .filter(|a| a.starts_with(is_js_space))
            else {
                continue;
            };
            // The lazy `[^>]*?`: each place before the tag's '>' where `href` starts a word.
            let scope_len = attrs.find('>').unwrap_or(attrs.len());
            let scope_end = lt + 2 + scope_len;
            if scope_end <= self.searched_until {
                // A tag inside one already searched to the same '>' has no href either.
                continue;
            }
            let scope = attrs.get(..scope_len).unwrap_or_default();
            let mut prev_word = false;
            for (i, c) in scope.char_indices() {
                let here = attrs.get(i..).unwrap_or_default();
                if !prev_word && after_word(here, "href").is_some() {
                    if let Some((value, after)) = href_value(here.get(4..).unwrap_or_default()) {
                        self.pos = self.html.len() - after.len();
                        return Some(value);
                    }
                }
                prev_word = c.is_ascii_alphanumeric() || c == '_';
            }
            self.searched_until = scope_end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(html: &str, url: &str) -> (Vec<String>, Vec<String>) {
        let e = parse_html_index(html, url);
        (e.files, e.dirs)
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn servers_indexes() {
        let python = r#"<ul><li><a href="a%20b/">a b/</a></li><li><a href=".zarray">.zarray</a></li><li><a href="zarr.json">zarr.json</a></li></ul>"#;
        assert_eq!(
            index(python, "http://h/data/x/"),
            (names(&[".zarray", "zarr.json"]), names(&["a b/"]))
        );
        // The directory URL without its trailing "/" (before a redirect) lists the same.
        assert_eq!(
            index(python, "http://h/data/x"),
            index(python, "http://h/data/x/")
        );
        let nginx = "<html><head><title>Index of /x/</title></head><body><h1>Index of /x/</h1><hr><pre><a href=\"../\">../</a>\n<a href=\"c/\">c/</a>      21-Nov-2026 10:05       -\n<a href=\"zarr.json\">zarr.json</a>     21-Nov-2026 10:05     851\n</pre><hr></body></html>";
        assert_eq!(
            index(nginx, "http://h/x/"),
            (names(&["zarr.json"]), names(&["c/"]))
        );
        let apache = "<table><tr><th><a href=\"?C=N;O=D\">Name</a></th></tr>\n<tr><td><a href=\"/x/\">Parent Directory</a></td></tr><tr><td><a href='0.0'>0.0</a></td></tr>\n<tr><td><a HREF=sub/>sub/</a></td></tr><tr><td><a href=\"#top\">top</a></td></tr></table>";
        assert_eq!(
            index(apache, "http://h/x/y/"),
            (names(&["0.0"]), names(&["sub/"]))
        );
    }

    #[test]
    fn absolute_foreign_and_odd_links() {
        let links = "<a href=\"/x/abs.json\">abs</a><a href=\"http://other/x/evil\">evil</a><a href=\"deep/er/file\">deep</a>\n<a href=\"http://h/x/full\">full</a><a href=\"q?x=1\">q</a><a href=\"a&amp;b\">amp</a><a href=\"./dot\">dot</a><a href=\"%zz\">bad</a>";
        assert_eq!(
            index(links, "http://h/x/"),
            (names(&["a&b", "abs.json", "dot", "full"]), vec![])
        );
        let more = concat!(
            r#"<a href="HTTP://H:80/x/port">"#,
            r#"<a href="//h/x/scheme-relative">"#,
            r#"<a href="https://h/x/other-scheme">"#,
            r#"<a href="http:rel">"#,
            r#"<a href="\x\back">"#,
            r#"<a href="sub/../up">"#,
            r#"<a href="%2e%2E/x/dots">"#,
            r#"<a href="e?">"#,
            r#"<a href="f#">"#,
            r#"<a href="g#h">"#,
            r#"<a href="mailto:me@h">"#,
            r#"<a href="javascript:alert(1)">"#,
            r#"<a href="u@h">"#,
            r#"<a href="http://user:pw@h/x/cred">"#,
            r#"<a href="http://h:99999/x/badport">"#,
            r#"<a href="http://h:8080/x/otherport">"#,
            r#"<a href="%C3%A9t%C3%A9">"#,
            r#"<a href="sp ace">"#,
            r#"<a href="%2F">"#,
            r#"<a href="..">"#,
            r#"<a href=".">"#,
            r#"<a href="  &#32;padded&#9;  ">"#,
            r#"<a href="x&#10;y">"#,
        );
        assert_eq!(
            index(more, "http://h/x/"),
            (
                names(&[
                    "back",
                    "cred",
                    "dots",
                    "e",
                    "f",
                    "padded",
                    "port",
                    "rel",
                    "scheme-relative",
                    "sp ace",
                    "u@h",
                    "up",
                    "xy",
                    "été"
                ]),
                vec![]
            )
        );
    }

    #[test]
    fn tag_scanning() {
        let tags = concat!(
            r#"<A	HREF = "one">"#,
            r#"<a data-href="two" href="three">"#,
            r#"<a xhref="four">"#,
            r#"<abbr href="five">"#,
            r#"<a title='>' href="six">"#,
            r#"<a href=seven>"#,
            r#"<a href="eight>x">"#,
            r#"<a href="unterminated>"#,
        );
        assert_eq!(
            index(tags, "http://h/"),
            (names(&["eight>x", "one", "seven", "two"]), vec![])
        );
        // A tag that never closes, a '<' at the end, an attribute without a value.
        assert_eq!(index("<a href", "http://h/"), (vec![], vec![]));
        assert_eq!(index("<a href=", "http://h/"), (vec![], vec![]));
        assert_eq!(index("<", "http://h/"), (vec![], vec![]));
        assert_eq!(index("<a ", "http://h/"), (vec![], vec![]));
        assert_eq!(
            index("<a href=\"a\" <a href=\"b\">", "http://h/"),
            (names(&["a", "b"]), vec![])
        );
    }

    #[test]
    fn hostile_and_bad_bases() {
        for base in [
            "",
            "not a url",
            "file:///x/",
            "http://",
            "http://h:x/",
            "data:,x",
        ] {
            assert_eq!(index("<a href=\"a\">", base), (vec![], vec![]), "{base}");
        }
        // Other special schemes work as http does; `http:///x` is host "x", as browsers read it.
        for base in ["ftp://h/x/", "wss://h/x/", "http:///x"] {
            assert_eq!(
                index("<a href=\"a\">", base),
                (names(&["a"]), vec![]),
                "{base}"
            );
        }
        let many = "<a href=\"f\">".repeat(20_000) + &"<a ".repeat(20_000);
        assert_eq!(index(&many, "http://h/"), (names(&["f"]), vec![]));
        let deep = format!("<a href=\"{}\">", "../".repeat(10_000));
        assert_eq!(index(&deep, "http://h/x/"), (vec![], vec![]));
        let entity = "<a href=\"&#x110000;&#xD800;\">";
        // "&#x110000;" stays as it is: a fragment.
        assert_eq!(index(entity, "http://h/"), (vec![], vec![]));
        let control = "<a href=\"\u{0}é\u{fffd}\">";
        assert_eq!(index(control, "http://h/"), (names(&["é\u{fffd}"]), vec![]));
    }

    #[test]
    fn sorts_as_every_listing() {
        // U+FF5E sorts before U+1F600 by code point (store::sorted_unique, every listing's
        // order), after it by UTF-16 code unit.
        let html = "<a href=\"\u{1F600}\"><a href=\"\u{FF5E}\"><a href=\"a\">";
        assert_eq!(
            index(html, "http://h/").0,
            names(&["a", "\u{FF5E}", "\u{1F600}"])
        );
    }

    #[test]
    fn html_detection() {
        assert!(looks_like_html(Some("text/HTML; charset=utf-8"), ""));
        assert!(!looks_like_html(Some("application/xml"), "<html>"));
        assert!(looks_like_html(
            Some("text/plain"),
            "\u{feff}\n <!DOCTYPE  html>"
        ));
        assert!(looks_like_html(None, "<PRE>"));
        assert!(looks_like_html(
            Some("application/octet-stream"),
            "<h1 class=x>"
        ));
        assert!(looks_like_html(None, "<ul"));
        for no in [
            "",
            "<",
            "<!doctype",
            "<!doctypehtml>",
            "<htmlx>",
            "<h2>",
            "x<html>",
            "<?xml?>",
            "<ListBucketResult>",
        ] {
            assert!(!looks_like_html(None, no), "{no}");
        }
    }
}
