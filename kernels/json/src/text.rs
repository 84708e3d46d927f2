//! Parsing JSON text into `serde_json::Value` and writing it back, monomorphised here so that
//! the WebAssembly build compiles serde_json's parser and serializer at this crate's
//! optimisation level (ARCHITECTURE.md, "Build and size").

use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::Value;
use std::io::{self, Write};

/// The largest integer a JS number holds exactly (2^53 − 1).
const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// Parses JSON text into a value, as serde_json's `from_slice` does (its errors, with line and
/// column).
#[inline(never)]
pub fn parse(bytes: &[u8]) -> Result<Value, crate::ParseError> {
    crate::parse::parse(bytes)
}

/// How [`write`] lays the text out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout {
    /// Spaces per level (None: one line).
    pub indent: Option<usize>,
    /// `", "` and `": "` on one line (Python's `json.dumps` without indent).
    pub spaced: bool,
    /// Every non-ASCII character escaped as `\uXXXX` (Python's `ensure_ascii`).
    pub ascii: bool,
}

/// What [`write`] noticed on the way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// An integer beyond ±(2^53 − 1), which a JS number cannot hold exactly.
    pub unsafe_integer: bool,
    /// The deepest nesting of arrays and objects.
    pub depth: usize,
}

/// Writes `value` as JSON text in `layout`.
#[inline(never)]
pub fn write(value: &Value, layout: Layout) -> (Vec<u8>, Written) {
    let mut out = Vec::new();
    match append_in(&mut out, value, layout) {
        Some(written) => (out, written),
        None => (Vec::new(), Written::default()),
    }
}

/// Appends `value` to `out` as compact JSON text (serde_json's `to_string`), and returns what
/// writing it noticed, for writers that put values inside text of their own.
#[inline(never)]
pub fn append(out: &mut Vec<u8>, value: &Value) -> Written {
    append_in(out, value, Layout::default()).unwrap_or_default()
}

/// [`append`] for an object's members.
#[inline(never)]
pub fn append_map(out: &mut Vec<u8>, map: &serde_json::Map<String, Value>) -> Written {
    append_in(out, map, Layout::default()).unwrap_or_default()
}

/// Appends `value` to `out` in `layout`; `None` if serde refuses it, which JSON values never
/// make it do (no I/O, string keys only).
fn append_in<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    layout: Layout,
) -> Option<Written> {
    let mut formatter = TextFormatter {
        layout,
        level: 0,
        has_value: false,
        written: Written::default(),
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, &mut formatter);
    value.serialize(&mut serializer).ok()?;
    Some(formatter.written)
}

/// Appends `text` to `out` as a JSON string, quoted and escaped as serde_json writes it.
#[inline(never)]
pub fn append_str(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = text.serialize(&mut serde_json::Serializer::new(out));
}

/// serde_json's compact and pretty layouts, and Python's `json.dumps` one.
struct TextFormatter {
    layout: Layout,
    level: usize,
    has_value: bool,
    written: Written,
}

impl TextFormatter {
    fn separator<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        match self.layout.indent {
            Some(width) => {
                w.write_all(if first { b"\n" } else { b",\n" })?;
                indent(w, self.level.saturating_mul(width))
            }
            None if first => Ok(()),
            None if self.layout.spaced => w.write_all(b", "),
            None => w.write_all(b","),
        }
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level = self.level.saturating_add(1);
        self.written.depth = self.written.depth.max(self.level);
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level = self.level.saturating_sub(1);
        if self.has_value {
            if let Some(width) = self.layout.indent {
                w.write_all(b"\n")?;
                indent(w, self.level.saturating_mul(width))?;
            }
        }
        self.has_value = true;
        w.write_all(bracket)
    }
}

fn indent<W: ?Sized + Write>(w: &mut W, spaces: usize) -> io::Result<()> {
    const SPACES: &[u8; 64] = &[b' '; 64];
    let mut left = spaces;
    while left > 0 {
        let n = left.min(SPACES.len());
        w.write_all(SPACES.get(..n).unwrap_or_default())?;
        left -= n;
    }
    Ok(())
}

impl Formatter for &mut TextFormatter {
    fn write_u64<W: ?Sized + Write>(&mut self, w: &mut W, value: u64) -> io::Result<()> {
        self.written.unsafe_integer |= value > MAX_SAFE_INTEGER;
        w.write_all(itoa::Buffer::new().format(value).as_bytes())
    }
    fn write_i64<W: ?Sized + Write>(&mut self, w: &mut W, value: i64) -> io::Result<()> {
        self.written.unsafe_integer |= value.unsigned_abs() > MAX_SAFE_INTEGER;
        w.write_all(itoa::Buffer::new().format(value).as_bytes())
    }
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.layout.ascii || fragment.is_ascii() {
            return writer.write_all(fragment.as_bytes());
        }
        let mut units = [0u16; 2];
        for c in fragment.chars() {
            if c.is_ascii() {
                writer.write_all(&[c as u8])?;
            } else {
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.separator(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.separator(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.layout.spaced || self.layout.indent.is_some() {
            b": "
        } else {
            b":"
        })
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &Value, layout: Layout) -> String {
        String::from_utf8(write(value, layout).0).unwrap()
    }

    #[test]
    fn compact_and_pretty_match_serde_json() {
        let v: Value =
            serde_json::from_str(r#"{"a":[1,2.5,{"b":null}],"c":"é","d":{},"e":[]}"#).unwrap();
        assert_eq!(
            text(&v, Layout::default()),
            serde_json::to_string(&v).unwrap()
        );
        let pretty = Layout {
            indent: Some(2),
            ..Layout::default()
        };
        assert_eq!(text(&v, pretty), serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn python_layout_escapes_non_ascii() {
        let v: Value = serde_json::from_str(r#"{"a":["é😀",1]}"#).unwrap();
        let python = Layout {
            indent: None,
            spaced: true,
            ascii: true,
        };
        assert_eq!(text(&v, python), r#"{"a": ["\u00e9\ud83d\ude00", 1]}"#);
    }

    #[test]
    fn appended_values_and_strings_are_serde_json_s_text() {
        let v: Value = serde_json::from_str(r#"{"a":[1,{"b":"x\"\u0001é"}]}"#).unwrap();
        let mut out = b"[".to_vec();
        let written = append(&mut out, &v);
        append_str(&mut out, "q\"\n\u{1f}é");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "[{}{}",
                serde_json::to_string(&v).unwrap(),
                serde_json::to_string("q\"\n\u{1f}é").unwrap()
            )
        );
        assert_eq!(written.depth, 3);
    }

    #[test]
    fn reports_unsafe_integers_and_depth() {
        let v: Value = serde_json::from_str(r#"[[9007199254740991, -9007199254740991]]"#).unwrap();
        assert_eq!(
            write(&v, Layout::default()).1,
            Written {
                unsafe_integer: false,
                depth: 2
            }
        );
        for big in [
            "9007199254740992",
            "-9007199254740992",
            "18446744073709551615",
        ] {
            let v: Value = serde_json::from_str(&format!("{{\"a\":{big}}}")).unwrap();
            assert!(write(&v, Layout::default()).1.unsafe_integer, "{big}");
        }
    }
}
