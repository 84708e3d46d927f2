//! Finding the members of a v3 group's inline consolidated metadata in its `zarr.json` text
//! without parsing them: a large consolidated hierarchy's root then opens at about the cost
//! of one scan of its text, and each member is parsed when it is read.
//!
//! The scan follows strings and brackets only. It does not check the members' text as JSON
//! (a control character in a string, a missing comma, `tru`); parsing a member reports its
//! errors.

use crate::blocks::Tokens;
use std::ops::Range;

/// Each member's key and the byte range of its document.
type Members = Vec<(String, Range<usize>)>;

/// Where the members are in a document's text.
pub struct Skim {
    /// The document's text with `consolidated_metadata.metadata` emptied (`{}`).
    pub document: Vec<u8>,
    /// Each member's key (its path) and the byte range of its document in the text, in document order.
    pub members: Vec<(String, Range<usize>)>,
}

/// The members of `text` (a `zarr.json`) when it is an object whose `consolidated_metadata`
/// is an object whose `metadata` is an object (of equal keys, the last); `None` otherwise, or
/// when the text breaks on the way (the caller parses the whole text and reports it).
#[inline(never)] // compiled here, at this crate's optimisation level
pub fn skim_consolidated(text: &[u8]) -> Option<Skim> {
    skim_object_at(text, &[b"consolidated_metadata", b"metadata"])
}

/// The documents of a v2 `.zmetadata` (`text`): the entries of its `metadata` object, keyed
/// by store key, as [`skim_consolidated`] finds a v3 group's members.
#[inline(never)]
pub fn skim_zmetadata(text: &[u8]) -> Option<Skim> {
    skim_object_at(text, &[b"metadata"])
}

/// The entries of the object reached from the top-level object through the keys of `path`
/// (each an object), and the text with that object emptied.
fn skim_object_at(text: &[u8], path: &[&[u8]]) -> Option<Skim> {
    let mut s = Scanner {
        text,
        pos: 0,
        tokens: Tokens::new(text, 0),
    };
    let mut found: Option<(Range<usize>, Members)> = None;
    descend(&mut s, path, &mut found)?;
    let (metadata, members) = found?;
    let open = metadata.start;
    let close = metadata.end.checked_sub(1)?;
    let mut document = Vec::with_capacity(text.len() - (close - open) + 1);
    document.extend_from_slice(text.get(..=open)?);
    document.extend_from_slice(text.get(close..)?);
    Some(Skim { document, members })
}

/// Steps through the object at the scanner's position in one pass: the objects on the way
/// down `path` are entered, everything else skipped whole; the last object of `path` has its
/// entries collected into `found`. Of equal keys the last counts, so each occurrence of a
/// key on the path starts over.
fn descend(
    s: &mut Scanner<'_>,
    path: &[&[u8]],
    found: &mut Option<(Range<usize>, Members)>,
) -> Option<()> {
    let (first, rest) = path.split_first()?;
    s.object(&mut |s, key| {
        if key != *first {
            return s.skip_value();
        }
        *found = None;
        if s.peek()? != b'{' {
            return s.skip_value();
        }
        if rest.is_empty() {
            let open = s.pos;
            let members = s.entries()?;
            *found = Some((open..s.pos, members));
            Some(())
        } else {
            descend(s, rest, found)
        }
    })
}

/// A position in the text and the tokens (quotes, brackets outside strings) from it on: the
/// scanner steps over whitespace, `:` and `,` itself and asks the tokens for the rest.
struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    tokens: Tokens<'a>,
}

impl Scanner<'_> {
    fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.text.get(self.pos) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// The next token, which must be at the position (the scanner and the tokens agree on
    /// where every quote and bracket is, or the text is not what the scan expects).
    fn token_here(&mut self) -> Option<u8> {
        let at = self.tokens.next()?;
        (at == self.pos).then_some(())?;
        self.text.get(at).copied()
    }

    /// The range of the string at the position, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        (self.peek()? == b'"').then_some(())?;
        let start = self.pos;
        self.token_here()?;
        let close = self.tokens.next()?;
        self.pos = close + 1;
        Some(start..self.pos)
    }

    /// Steps over the value at the position: brackets matched, strings whole, a number or
    /// literal up to the first byte that cannot be part of one.
    fn skip_value(&mut self) -> Option<()> {
        self.value().map(|_| ())
    }

    /// The range of the value at the position (see [`Self::skip_value`]).
    fn value(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        let close = match self.peek()? {
            b'"' => return self.string(),
            b'{' => b'}',
            b'[' => b']',
            _ => {
                let rest = self.text.get(self.pos..)?;
                let len = rest
                    .iter()
                    .position(|&b| !matches!(b, b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z'))
                    .unwrap_or(rest.len());
                self.pos += len;
                return (len > 0).then_some(self.pos - len..self.pos);
            }
        };
        let start = start.max(self.pos);
        self.token_here()?;
        let mut open = vec![close];
        while let Some(&expected) = open.last() {
            let at = self.tokens.next()?;
            match self.text.get(at)? {
                // An opening quote: the next token closes the string.
                b'"' => {
                    self.tokens.next()?;
                }
                b'{' => open.push(b'}'),
                b'[' => open.push(b']'),
                &b => {
                    if b != expected {
                        return None;
                    }
                    open.pop();
                    self.pos = at + 1;
                }
            }
        }
        Some(start..self.pos)
    }

    /// Steps through the object at the position, calling `field` with each key (its raw
    /// text, without quotes) and the position at its value, which `field` must step over.
    fn object(&mut self, field: &mut dyn FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        (self.peek()? == b'{').then_some(())?;
        self.token_here()?;
        self.pos += 1;
        if self.peek()? == b'}' {
            self.token_here()?;
            self.pos += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            let text = self.text;
            let key = text.get(key.start + 1..key.end - 1)?;
            // A key with an escape is left to the parser (rare: zarr-python escapes only
            // control characters and quotes in keys).
            if key.contains(&b'\\') {
                return None;
            }
            self.expect(b':')?;
            field(self, key)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.token_here()?;
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The entries of the object at the position: key and value range.
    fn entries(&mut self) -> Option<Members> {
        let mut out = Vec::new();
        self.object(&mut |s, key| {
            let key = String::from_utf8(key.to_vec()).ok()?;
            let value = s.value()?;
            out.push((key, value));
            Some(())
        })?;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of<'a>(bytes: &'a [u8], r: &Range<usize>) -> &'a str {
        std::str::from_utf8(&bytes[r.clone()]).unwrap()
    }

    #[test]
    fn members_are_located_and_the_rest_is_kept() {
        let bytes = br#"{"attributes": {"a": [1, -2.5e3, null, true, "x\u00e9\"}"]}, "zarr_format": 3,
            "consolidated_metadata": {"kind": "inline", "metadata": {"b": {"node_type": "array"},
            "b/c": [1, {"x": "}"}], "d": 12, "e": "s", "f": true}, "must_understand": false}, "node_type": "group"}"#;
        let skim = skim_consolidated(bytes).unwrap();
        let document: serde_json::Value = serde_json::from_slice(&skim.document).unwrap();
        assert_eq!(
            document,
            serde_json::json!({"attributes": {"a": [1, -2.5e3, null, true, "xé\"}"]}, "zarr_format": 3,
                "consolidated_metadata": {"kind": "inline", "metadata": {}, "must_understand": false},
                "node_type": "group"})
        );
        let found: Vec<(&str, &str)> = skim
            .members
            .iter()
            .map(|(k, r)| (k.as_str(), text_of(bytes, r)))
            .collect();
        assert_eq!(
            found,
            [
                ("b", r#"{"node_type": "array"}"#),
                ("b/c", r#"[1, {"x": "}"}]"#),
                ("d", "12"),
                ("e", r#""s""#),
                ("f", "true"),
            ]
        );
        let unicode =
            skim_consolidated("{\"consolidated_metadata\":{\"metadata\":{\"aé\":1}}}".as_bytes());
        assert_eq!(unicode.unwrap().members[0].0, "aé");
    }

    #[test]
    fn of_equal_keys_the_last_counts() {
        let text = br#"{"consolidated_metadata": {"metadata": {"a": 1}}, "consolidated_metadata": {"metadata": {"b": 2}}}"#;
        let skim = skim_consolidated(text).unwrap();
        assert_eq!(skim.members.len(), 1);
        assert_eq!(skim.members[0].0, "b");
        let document: serde_json::Value = serde_json::from_slice(&skim.document).unwrap();
        assert_eq!(
            document,
            serde_json::json!({"consolidated_metadata": {"metadata": {}}})
        );
    }

    #[test]
    fn zmetadata_documents_are_located() {
        let text = br#"{"metadata": {".zgroup": {"zarr_format": 2}, "a/.zarray": {"shape": [1]}, "a/.zattrs": {}}, "zarr_consolidated_format": 1}"#;
        let skim = skim_zmetadata(text).unwrap();
        let keys: Vec<&str> = skim.members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, [".zgroup", "a/.zarray", "a/.zattrs"]);
        assert_eq!(text_of(text, &skim.members[1].1), r#"{"shape": [1]}"#);
        assert_eq!(
            skim.document,
            br#"{"metadata": {}, "zarr_consolidated_format": 1}"#
        );
        assert!(skim_zmetadata(br#"{"metadata": [1]}"#).is_none());
    }

    #[test]
    fn empty_metadata_has_no_members() {
        let skim = skim_consolidated(br#"{"consolidated_metadata":{"metadata":{}}}"#).unwrap();
        assert!(skim.members.is_empty());
        assert_eq!(
            skim.document,
            br#"{"consolidated_metadata":{"metadata":{}}}"#
        );
    }

    #[test]
    fn other_shapes_and_broken_text_are_left_to_the_parser() {
        for text in [
            r#"{"node_type": "group", "zarr_format": 3}"#,
            r#"{"consolidated_metadata": null}"#,
            r#"{"consolidated_metadata": {"metadata": [1]}}"#,
            r#"{"consolidated_metadata": {"kind": "inline"}}"#,
            r#"{"metadata": {"a": {}}}"#,
            r#"{"consolidated_metadata":{"metadata":{"a\u00e9/\"":1}}}"#,
            r#"{"consolidated\u005fmetadata":{"metadata":{"a":1}}}"#,
            r#"[{"consolidated_metadata": {"metadata": {"a": {}}}}]"#,
            r#""text""#,
            r#"{"consolidated_metadata": {"metadata": {"a": {}}}, "consolidated_metadata": null}"#,
            r#"{"consolidated_metadata": {"metadata": {"a": {"x": [}}}}"#,
            r#"{"consolidated_metadata": {"metadata": {"a": {"x": 1}}}"#,
            r#"{"consolidated_metadata": {"metadata": {"a" {"x": 1}}}}"#,
            r#"{"consolidated_metadata": {"metadata": {"a": 1 2}}}"#,
            r#"{"consolidated_metadata": {"metadata": {"a": "x}}}"#,
            "",
            "{",
        ] {
            assert!(skim_consolidated(text.as_bytes()).is_none(), "{text}");
        }
    }
}
