//! Finding the members of a v3 group's inline consolidated metadata in its `zarr.json` text
//! without parsing them: a large consolidated hierarchy's root then opens at about the cost
//! of one scan of its text, and each member is parsed when it is read.
//!
//! The scan follows strings and brackets only. It does not check the members' text as JSON
//! (a control character in a string, a missing comma, `tru`); parsing a member reports its
//! errors.

use std::ops::Range;

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
    let mut s = Scanner { text, pos: 0 };
    let consolidated = s.field_of_object("consolidated_metadata")?;
    let mut inner = Scanner {
        text,
        pos: consolidated.start,
    };
    let metadata = inner.field_of_object("metadata")?;
    let mut entries = Scanner {
        text,
        pos: metadata.start,
    };
    let members = entries.entries()?;
    let open = metadata.start;
    let close = metadata.end.checked_sub(1)?;
    let mut document = Vec::with_capacity(text.len() - (close - open) + 1);
    document.extend_from_slice(text.get(..=open)?);
    document.extend_from_slice(text.get(close..)?);
    Some(Skim { document, members })
}

struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
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

    /// The range of the string at the position, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        self.expect(b'"')?;
        let start = self.pos - 1;
        loop {
            let rest = self.text.get(self.pos..)?;
            let at = crate::find::quote_or_backslash(rest)?;
            let quote = rest.get(at) == Some(&b'"');
            self.pos += at + if quote { 1 } else { 2 };
            if quote {
                return Some(start..self.pos);
            }
        }
    }

    /// The range of the value at the position: brackets matched, strings skipped whole, a
    /// number or literal up to the first byte that cannot be part of one.
    fn value(&mut self) -> Option<Range<usize>> {
        let first = self.peek()?;
        let start = self.pos;
        let close = match first {
            b'"' => return self.string(),
            b'{' => b'}',
            b'[' => b']',
            _ => {
                let rest = self.text.get(start..)?;
                let len = rest
                    .iter()
                    .position(|&b| !matches!(b, b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z'))
                    .unwrap_or(rest.len());
                self.pos += len;
                return (len > 0).then_some(start..self.pos);
            }
        };
        let mut open = vec![close];
        self.pos += 1;
        while let Some(&expected) = open.last() {
            let rest = self.text.get(self.pos..)?;
            let at = crate::find::quote_or_bracket(rest)?;
            self.pos += at;
            match rest.get(at)? {
                b'"' => {
                    self.string()?;
                }
                b'{' => {
                    open.push(b'}');
                    self.pos += 1;
                }
                b'[' => {
                    open.push(b']');
                    self.pos += 1;
                }
                &b => {
                    if b != expected {
                        return None;
                    }
                    open.pop();
                    self.pos += 1;
                }
            }
        }
        Some(start..self.pos)
    }

    /// The entries of the object at the position: key and value range.
    fn entries(&mut self) -> Option<Vec<(String, Range<usize>)>> {
        self.expect(b'{')?;
        let mut out = Vec::new();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(out);
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            let value = self.value()?;
            // A key with an escape is left to the parser (rare: zarr-python escapes only
            // control characters and quotes in keys).
            let key = self.text.get(key.start + 1..key.end - 1)?;
            if key.contains(&b'\\') {
                return None;
            }
            let key = String::from_utf8(key.to_vec()).ok()?;
            out.push((key, value));
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(out);
                }
                _ => return None,
            }
            self.peek()?;
        }
    }

    /// The range of the object value of `key` in the object at the position, when the key is
    /// there and (the last time) its value is an object.
    fn field_of_object(&mut self, key: &str) -> Option<Range<usize>> {
        // The last of equal keys, as a JSON parser keeps it.
        let (_, found) = self.entries()?.into_iter().rev().find(|(k, _)| k == key)?;
        (self.text.get(found.start) == Some(&b'{')).then_some(found)
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
