//! Target `metadata_document`: one metadata document's bytes (zarr.json, .zarray, .zgroup,
//! .zattrs, .zmetadata) through the bounded JSON parser, the spec validator, the typed
//! readers and `from_documents`; whatever node comes out goes through every ZOM operation
//! (see [`super::zom_roundtrip::exercise`]).
//!
//! Input: one flag byte (document kind, nested key, strict, extensions), then the document.

use super::input::Input;
use super::outcome::Outcome;
use zom::json::parse_document;
use zom::model::v2::{ArrayMetadataV2, ConsolidatedMetadataV2, GroupMetadataV2};
use zom::model::v3::NodeMetadataV3;
use zom::model::{from_document_bytes, from_documents};
use zom::validate::{
    validate_document, validate_document_bytes, Report, Severity, ValidateOptions,
};
use zom::Limits;

/// The document names, chosen by the low bits of the flag byte.
pub const KINDS: [&str; 5] = ["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"];

/// A report's `valid` must say whether it holds an error.
pub fn check_report(report: &Report) {
    let has_error = report
        .problems
        .iter()
        .any(|p| p.severity == Severity::Error);
    assert_eq!(
        report.valid, !has_error,
        "report.valid disagrees with its problems"
    );
}

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let mut input = Input::new(data);
    let flags = input.u8();
    let kind = KINDS[usize::from(flags) % KINDS.len()];
    let key = if flags & 0x08 != 0 {
        format!("a/b/{kind}")
    } else {
        kind.to_string()
    };
    let bytes = input.rest();
    let options = ValidateOptions {
        key: Some(key.clone()),
        strict: flags & 0x10 != 0,
        extensions: flags & 0x20 != 0,
        ..ValidateOptions::default()
    };
    let report = validate_document_bytes(bytes, &options);
    check_report(&report);
    let unkeyed = ValidateOptions {
        key: None,
        ..options.clone()
    };
    check_report(&validate_document_bytes(bytes, &unkeyed));

    let parsed = parse_document(bytes, &Limits::DEFAULT);
    same_as_serde_json(bytes, &parsed);
    let Some(doc) = out.step("parse", parsed) else {
        return out;
    };
    // Bytes and parsed value validate alike.
    assert_eq!(validate_document(&doc, &options), report);

    out.step("node_v3", NodeMetadataV3::from_value(&doc));
    out.step("array_v2", ArrayMetadataV2::from_value(&doc));
    out.step("group_v2", GroupMetadataV2::from_value(&doc));
    out.step("consolidated_v2", ConsolidatedMetadataV2::from_value(&doc));

    // As the root document of a hierarchy (a nested key has no root to read).
    let node = from_documents([(kind, doc.clone())]);
    let from_bytes = from_document_bytes([(kind, bytes)], &Limits::DEFAULT);
    assert_eq!(
        node, from_bytes,
        "from_documents and from_document_bytes disagree"
    );
    let Some(node) = out.step("from_documents", node) else {
        return out;
    };
    super::zom_roundtrip::exercise(&mut out, &node);
    out
}

/// zom's JSON parser gives serde_json's value, or its error at its line and column (where the
/// document is within the limits zom checks first).
fn same_as_serde_json(bytes: &[u8], ours: &zom::Result<serde_json::Value>) {
    let theirs = serde_json::from_slice::<serde_json::Value>(bytes);
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(*ours, theirs, "the parsers disagree on the value"),
        (Err(e), _) if e.code == zom::ErrorCode::LimitExceeded => {}
        (Err(e), Err(theirs)) => assert!(
            e.message.ends_with(&theirs.to_string()),
            "{} / {theirs}",
            e.message
        ),
        (ours, theirs) => panic!("the parsers disagree: {ours:?} / {theirs:?}"),
    }
}
