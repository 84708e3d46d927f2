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

/// Serialises a document the way zarr-python writes them: two-space indent.
pub fn to_pretty_bytes(value: &Value) -> Vec<u8> {
    // ok: serialising a serde_json::Value into a Vec cannot fail (no I/O, string keys only).
    serde_json::to_vec_pretty(value).unwrap_or_default()
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
