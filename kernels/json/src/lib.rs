//! zom's JSON parsing and writing (see the crate description for why it is a crate).

mod find;
mod skim;

use serde_json::Value;
pub use skim::{skim_consolidated, Skim};

/// The first nesting depth over `max` that `bytes` reach (brackets inside strings do not
/// count), or `None`. Malformed text is left for the parser to report.
#[inline(never)] // compiled here, at this crate's optimisation level
pub fn depth_over(bytes: &[u8], max: u64) -> Option<u64> {
    let (mut depth, mut in_string, mut escaped) = (0u64, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth = depth.saturating_add(1);
                if depth > max {
                    return Some(depth);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parses JSON text into a `Value`.
#[inline(never)] // compiled here, at this crate's optimisation level
pub fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice(bytes)
}

/// Every JSON text zom writes goes through this one serializer: each other one would be a
/// copy of serde_json's serialisation code in the WebAssembly module.
pub fn write_json(value: &Value, formatter: JsonFormatter) -> Vec<u8> {
    use serde::Serialize;
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    // Writing a Value into a Vec cannot fail (no I/O, string keys only).
    if value.serialize(&mut serializer).is_err() {
        return Vec::new();
    }
    out
}

/// serde_json's compact and pretty layouts, and Python's `json.dumps` one (`spaced`: `", "`
/// and `": "` on one line; `ascii`: `ensure_ascii=True`).
pub struct JsonFormatter {
    /// Spaces per level (None: one line).
    pub indent: Option<usize>,
    /// `", "` and `": "` on one line.
    pub spaced: bool,
    /// Non-ASCII escaped as `\\uXXXX`.
    pub ascii: bool,
    level: usize,
    has_value: bool,
}

impl JsonFormatter {
    /// A formatter with these options.
    pub fn new(indent: Option<usize>, spaced: bool, ascii: bool) -> Self {
        JsonFormatter {
            indent,
            spaced,
            ascii,
            level: 0,
            has_value: false,
        }
    }
}

impl JsonFormatter {
    fn separator<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        match self.indent {
            Some(width) => {
                w.write_all(if first { b"\n" } else { b",\n" })?;
                for _ in 0..self.level.saturating_mul(width) {
                    w.write_all(b" ")?;
                }
                Ok(())
            }
            None if first => Ok(()),
            None if self.spaced => w.write_all(b", "),
            None => w.write_all(b","),
        }
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level = self.level.saturating_sub(1);
        if self.has_value {
            if let Some(width) = self.indent {
                w.write_all(b"\n")?;
                for _ in 0..self.level.saturating_mul(width) {
                    w.write_all(b" ")?;
                }
            }
        }
        self.has_value = true;
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for JsonFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if !self.ascii {
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
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.level = self.level.saturating_add(1);
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.separator(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.level = self.level.saturating_add(1);
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.separator(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(if self.spaced || self.indent.is_some() {
            b": "
        } else {
            b":"
        })
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}
