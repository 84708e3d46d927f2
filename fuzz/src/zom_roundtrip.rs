//! Target `zom_roundtrip`: ZOM JSON (pydantic-zarr's form) through `validate_hierarchy`,
//! `Node::from_value` and every operation on a node, checking the round trips that must hold:
//!
//! - ZOM JSON: `to_value ∘ from_value` is idempotent on what `to_value` wrote;
//! - documents: what `to_documents` writes, `from_documents` reads, and writing that again
//!   gives the same documents (plain and consolidated);
//! - flat forms: `flatten ∘ unflatten ∘ flatten` = `flatten` (pydantic, `.zmetadata`, inline
//!   consolidated);
//! - `to_v3` of its own output changes nothing;
//! - `diff(x, x)` is empty;
//! - every array opens or fails with an error, and its first chunk reads as the fill value.
//!
//! Input: JSON bytes (anything else is skipped).

use super::outcome::Outcome;
use serde_json::Value;
use zom::codec::Limits;
use zom::hierarchy::ArrayReader;
use zom::model::{
    diff, flatten, from_documents, to_documents, to_v3, unflatten, CompareOptions, DocumentOptions,
    FlatForm, Node,
};
use zom::validate::{validate_hierarchy, ValidateOptions};

/// The decode limit of the harnesses: what the metadata allows, kept small so a run stays
/// fast (any allocation near libFuzzer's 1 GiB malloc limit is then a bug).
pub const LIMITS: Limits = Limits {
    max_chunk_bytes: 16 << 20,
    max_bytes: 16 << 20,
    max_chunks: 4096,
    ..Limits::DEFAULT
};

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return out;
    };
    for strict in [false, true] {
        let options = ValidateOptions {
            strict,
            extensions: strict,
            ..ValidateOptions::default()
        };
        super::metadata_document::check_report(&validate_hierarchy(&value, &options));
    }
    assert!(diff(&value, &value, &CompareOptions::default()).is_empty());
    let Some(node) = out.step("from_value", Node::from_value(&value)) else {
        return out;
    };
    exercise(&mut out, &node);
    out
}

/// Every operation on a node, with the round trips that must hold.
pub fn exercise(out: &mut Outcome, node: &Node) {
    let value = node.to_value();
    let again = Node::from_value(&value).map(|n| n.to_value());
    assert_eq!(
        again.as_ref().ok(),
        Some(&value),
        "ZOM JSON does not read back: {again:?}"
    );
    super::metadata_document::check_report(&validate_hierarchy(
        &value,
        &ValidateOptions::default(),
    ));

    for consolidated in [false, true] {
        let options = DocumentOptions { consolidated };
        let Some(docs) = out.step("to_documents", to_documents(node, options)) else {
            continue;
        };
        let back = from_documents(docs.clone());
        let back = back.unwrap_or_else(|e| panic!("to_documents output does not read: {e}"));
        let docs2 = to_documents(&back, options)
            .unwrap_or_else(|e| panic!("to_documents of its own reading fails: {e}"));
        assert_eq!(
            docs, docs2,
            "to_documents ∘ from_documents is not idempotent"
        );
    }

    for form in [
        FlatForm::Pydantic,
        FlatForm::ZMetadata,
        FlatForm::Consolidated,
    ] {
        let Some(flat) = out.step("flatten", flatten(node, form)) else {
            continue;
        };
        let back = unflatten(&flat, form)
            .unwrap_or_else(|e| panic!("{form:?} flat form does not unflatten: {e}"));
        let flat2 = flatten(&back, form)
            .unwrap_or_else(|e| panic!("{form:?} flat form of its own reading fails: {e}"));
        assert_eq!(
            flat, flat2,
            "{form:?}: flatten ∘ unflatten is not idempotent"
        );
    }

    let converted = to_v3(node);
    let twice = to_v3(&converted.node);
    assert_eq!(twice.node, converted.node, "to_v3 changed its own output");

    for (path, member) in node.descendants() {
        let Node::Array(array) = member else { continue };
        let Some(reader) = out.step(
            "open_array",
            ArrayReader::open_with_limits(array, &path, LIMITS),
        ) else {
            continue;
        };
        let origin = vec![0u64; reader.shape().len()];
        out.step("chunk_key", reader.chunk_key(&origin));
        out.step("fill_chunk", reader.decode_chunk(&origin, None));
    }
}
