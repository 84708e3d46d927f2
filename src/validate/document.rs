//! One metadata document: its kind (from the store key or its content) and its checks.

use super::util::{Ctx, LocExt};
use super::{v2, v3, DocumentKind, LocStep, ProblemKind};
use serde_json::Value;

/// The kind named by a store key's last segment, and the node path (the key's prefix).
pub(crate) fn kind_from_key(key: &str) -> (Option<DocumentKind>, String) {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (prefix, name),
        None => ("", key),
    };
    let kind = match name {
        "zarr.json" => Some(DocumentKind::ZarrJson),
        ".zarray" => Some(DocumentKind::ZArray),
        ".zgroup" => Some(DocumentKind::ZGroup),
        ".zattrs" => Some(DocumentKind::ZAttrs),
        ".zmetadata" => Some(DocumentKind::ZMetadata),
        _ => None,
    };
    (kind, prefix.trim_matches('/').to_string())
}

/// The kind a document's content suggests, if any.
pub(crate) fn kind_from_content(doc: &Value) -> Option<DocumentKind> {
    let obj = doc.as_object()?;
    if obj.contains_key("metadata") && obj.contains_key("zarr_consolidated_format") {
        return Some(DocumentKind::ZMetadata);
    }
    match obj.get("zarr_format").and_then(Value::as_u64) {
        Some(3) => Some(DocumentKind::ZarrJson),
        Some(2) if obj.contains_key("shape") => Some(DocumentKind::ZArray),
        Some(2) => Some(DocumentKind::ZGroup),
        _ if obj.contains_key("node_type") => Some(DocumentKind::ZarrJson),
        _ => None,
    }
}

/// Validates a document of the kind given by the options' key or by its content.
pub(crate) fn validate(cx: &mut Ctx, doc: &Value) {
    let (kind, path) = match &cx.opts.key {
        Some(key) => kind_from_key(key),
        None => (None, String::new()),
    };
    cx.path = path;
    let kind = kind.or_else(|| kind_from_content(doc));
    let base: &[LocStep] = &[];
    match kind {
        Some(kind) => check_kind(cx, kind, doc, base),
        None => match doc.as_object() {
            None => cx.error(
                base,
                ProblemKind::InvalidType,
                format!(
                    "a metadata document must be a JSON object, not {}",
                    super::util::tname(doc)
                ),
            ),
            Some(obj) => match obj.get("zarr_format") {
                None => cx.error(
                    &base.key("zarr_format"),
                    ProblemKind::MissingKey,
                    "the document has no 'zarr_format', so its kind is unknown \
                     (give its store key to validate .zattrs)",
                ),
                Some(v) => cx.error(
                    &base.key("zarr_format"),
                    ProblemKind::InvalidValue,
                    format!("zarr_format must be 2 or 3, not {}", super::util::show(v)),
                ),
            },
        },
    }
}

/// Validates a document of a known kind at `base`.
pub(crate) fn check_kind(cx: &mut Ctx, kind: DocumentKind, doc: &Value, base: &[LocStep]) {
    match kind {
        DocumentKind::ZarrJson => v3::check_zarr_json(cx, doc, base, false),
        DocumentKind::ZArray => v2::check_zarray(cx, doc, base, false),
        DocumentKind::ZGroup => v2::check_zgroup(cx, doc, base, false),
        DocumentKind::ZAttrs => v2::check_zattrs(cx, doc, base),
        DocumentKind::ZMetadata => v2::check_zmetadata(cx, doc, base),
    }
}

/// Parses then validates; a parse failure is one `invalid_json` problem.
pub(crate) fn validate_bytes(cx: &mut Ctx, bytes: &[u8]) {
    match crate::json::parse_document(bytes, &cx.opts.limits) {
        Ok(doc) => validate(cx, &doc),
        Err(e) => {
            if let Some(key) = &cx.opts.key {
                cx.path = kind_from_key(key).1;
            }
            cx.error(&[], ProblemKind::InvalidJson, e.message);
        }
    }
}
