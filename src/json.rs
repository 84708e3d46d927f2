//! Bounded JSON parsing for bytes that come from a store or a caller.

use crate::error::{ErrorCode, Result, ZomError};
use serde_json::Value;

/// The largest metadata document zom parses by default (64 MiB).
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 64 << 20;

/// The deepest nesting of arrays and objects zom accepts. serde_json refuses anything
/// deeper than 128 levels, so parsing never overflows the stack.
pub const MAX_JSON_DEPTH: usize = 128;

/// Parses a metadata document, refusing documents over `max_bytes`.
/// Errors name the line and column where the JSON broke.
pub fn parse_document(bytes: &[u8], max_bytes: usize) -> Result<Value> {
    if bytes.len() > max_bytes {
        return Err(ZomError::new(
            ErrorCode::LimitExceeded,
            format!(
                "metadata document is {} bytes, over the limit of {max_bytes} bytes",
                bytes.len()
            ),
        ));
    }
    serde_json::from_slice(bytes).map_err(|e| {
        ZomError::invalid_metadata(format!(
            "invalid JSON at line {}, column {}: {}",
            e.line(),
            e.column(),
            e
        ))
    })
}

/// Serialises a document the way zarr-python writes them (Python's `json.dumps` with
/// `indent=2`): two-space indent, every non-ASCII character escaped as `\\uXXXX`.
pub fn to_pretty_bytes(value: &Value) -> Vec<u8> {
    to_python_json(value, Some(2))
}

/// Serialises like Python's `json.dumps(value)` with `indent` (None: one line with `", "` and
/// `": "` separators, as zarr-python writes `.zmetadata`), non-ASCII escaped.
pub fn to_python_json(value: &Value, indent: Option<usize>) -> Vec<u8> {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = PythonFormatter {
        indent,
        level: 0,
        has_value: false,
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    // Writing a Value into a Vec cannot fail (no I/O, string keys only).
    if value.serialize(&mut serializer).is_err() {
        return Vec::new();
    }
    out
}

/// Python's `json.dumps` layout with `ensure_ascii=True`.
struct PythonFormatter {
    indent: Option<usize>,
    level: usize,
    has_value: bool,
}

impl PythonFormatter {
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
            None => w.write_all(b", "),
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

impl serde_json::ser::Formatter for PythonFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
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
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The JSON type name of a value, as used in problem messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
