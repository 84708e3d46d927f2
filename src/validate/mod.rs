//! Validation of metadata documents and whole hierarchies (ZOM JSON) against the Zarr v2 and
//! v3 specs, ZEP 9 extension naming / `must_understand`, and (opt-in) ZEP 10 `extensions`.
//! Validation never stops at the first problem and never panics: it returns every problem.
//!
//! Problems carry the node `path` ("" for the root) and a `loc` inside the document that was
//! given. For documents nested in another (v3 `consolidated_metadata`, v2 `.zmetadata`), `path`
//! is the nested node's path and `loc` runs from the root of the outer document
//! (`["consolidated_metadata", "metadata", "a/b", "shape"]`), so it points into the bytes
//! the caller holds. In [`validate_hierarchy`], `loc` is relative to each node's own object.
//!
//! Severity: `error` for what the specs say MUST (or what makes a reader refuse or misread the
//! data); `warning` only with [`ValidateOptions::strict`], for SHOULD / SHOULD NOT and for
//! things readers may not support:
//!
//! - an extension name of valid form that is not a registered or known short name;
//! - an unknown extension point or top-level key ignored because `must_understand` is false;
//! - a numcodecs id (v2 `id`, v3 `numcodecs.*`) zom does not know, and the deprecated
//!   `numcodecs.bitround` alias of `bitround`;
//! - a dimension length over 2^53 (not exact in JavaScript numbers);
//! - a chunk (or shard) larger than the array along a dimension;
//! - duplicate non-null `dimension_names`;
//! - sharding `index_codecs` other than the RECOMMENDED `bytes` (little) + `crc32c`;
//! - a v2 `.zarray` without `dimension_separator`;
//! - a v2 `.zgroup` carrying zarr-python's `consolidated_metadata` quirk (in `.zmetadata`);
//! - a node name with characters outside `a-z A-Z 0-9 - _ .`;
//! - a v2 `|O` array whose object codec zom cannot represent (pickle, …).
//!
//! An unknown v2 numcodecs id is only a warning because the v2 spec has no codec registry:
//! any id is valid metadata, even if no reader can decode it. Struct data types need no
//! `endian` on the `bytes` codec (zarr-python writes none; their fields carry byte order).

mod codecs;
mod document;
mod extensions;
pub(crate) mod hierarchy;
mod json;
mod names;
pub(crate) mod util;
mod v2;
mod v3;

// The codec registry and the validator judge configurations alike (a test of both, so it
// lives above both).
#[cfg(test)]
mod registry_tests;

pub use crate::problem::{LocStep, Problem, ProblemKind, Report, Severity};

use serde_json::{Map, Value};
use std::sync::Arc;

/// Checks an extension's configuration; registered per extension name.
pub trait ExtensionHandler {
    /// Problems with one occurrence of the extension. `value` is its whole JSON
    /// (`{"name": …, "configuration": …}` or a bare name); `loc` is where it sits.
    fn check(&self, value: &Value, path: &str, loc: &[LocStep]) -> Vec<Problem>;
}

/// Extension names zom accepts beyond the built-in ones, each with an optional handler.
#[derive(Clone, Default)]
pub struct ExtensionRegistry {
    /// name → handler (`None`: known, nothing to check).
    pub handlers: Vec<(String, Option<Arc<dyn ExtensionHandler>>)>,
}

/// Which document a value is; chosen from the store key or, without one, from its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    /// v3 `zarr.json` (array or group).
    ZarrJson,
    /// v2 `.zarray`
    ZArray,
    /// v2 `.zgroup`
    ZGroup,
    /// v2 `.zattrs`
    ZAttrs,
    /// v2 `.zmetadata`
    ZMetadata,
}

/// Options of a validation.
#[derive(Clone, Default)]
pub struct ValidateOptions {
    /// The store key the document was read from (`"a/b/zarr.json"`): gives its kind and path.
    pub key: Option<String>,
    /// Also report what the spec says SHOULD NOT be there (as warnings).
    pub strict: bool,
    /// Check ZEP 10 (draft) `extensions` lists on arrays and groups.
    pub extensions: bool,
    /// Extension names known beyond the built-in ones, with their handlers.
    pub registry: ExtensionRegistry,
    /// The limits documents given as bytes are parsed under (`maxDocumentBytes`,
    /// `maxJsonDepth`).
    pub limits: crate::limits::Limits,
    /// Hierarchy specs (conventions) [`validate_hierarchy`] also checks.
    pub specs: Vec<crate::spec::SpecChoice>,
    /// What the walk that found the hierarchy could not settle: the specs' checks report no
    /// node missing there that was not asked for.
    pub unsettled: crate::spec::Unsettled,
}

/// Validates one metadata document given as JSON.
pub fn validate_document(doc: &Value, options: &ValidateOptions) -> Report {
    let mut cx = util::Ctx::new(options);
    document::validate(&mut cx, doc);
    cx.into_report()
}

/// Validates one metadata document given as bytes (reports `invalid_json` with line and column
/// when it does not parse).
pub fn validate_document_bytes(bytes: &[u8], options: &ValidateOptions) -> Report {
    let mut cx = util::Ctx::new(options);
    document::validate_bytes(&mut cx, bytes);
    cx.into_report()
}

/// Validates a whole hierarchy given as ZOM JSON (pydantic-zarr's form: groups with
/// `members`), node by node, plus what only the tree shows (member names, mixed versions),
/// and then against the hierarchy specs of [`ValidateOptions::specs`].
pub fn validate_hierarchy(zom: &Value, options: &ValidateOptions) -> Report {
    let mut cx = util::Ctx::new(options);
    hierarchy::validate(&mut cx, zom);
    let mut report = cx.into_report();
    if !options.specs.is_empty() {
        report.problems.extend(crate::spec::check_walked(
            zom,
            &options.specs,
            options.strict,
            &options.unsettled,
        ));
        report = Report::from_problems(report.problems);
    }
    report
}

/// Validates a group's attributes alone against the hierarchy specs of
/// [`ValidateOptions::specs`] (`spec::check_attributes`): what the attributes decide, without
/// the nodes they name. Not an object: one `invalid_type` problem.
pub fn validate_attributes(attributes: &Value, options: &ValidateOptions) -> Report {
    if !attributes.is_object() {
        let message = format!(
            "attributes must be a JSON object, not {}",
            util::show(attributes)
        );
        let problem = Problem::error("", &[], ProblemKind::InvalidType, message);
        return Report::from_problems(vec![problem]);
    }
    let problems = crate::spec::check_attributes(attributes, &options.specs, options.strict);
    Report::from_problems(problems)
}

/// Why a reader must refuse a v3 array document, or `None` when it may read it: an unknown
/// top-level key, storage transformer or ZEP 10 extension that is not marked
/// `"must_understand": false` (ZEP 9) and is not among `understood`, the extension names the
/// caller implements. The same check [`validate_document`] reports as `MustUnderstand`
/// errors; ZEP 10 `extensions` lists are read as such. An
/// [`ErrorCode::UnsupportedExtension`](crate::ErrorCode::UnsupportedExtension) error.
pub fn reader_refusal(doc: &Map<String, Value>, understood: &[String]) -> Option<crate::ZomError> {
    let mut options = ValidateOptions {
        extensions: true,
        ..ValidateOptions::default()
    };
    for name in understood {
        options.registry.register(name.clone(), None);
    }
    let mut cx = util::Ctx::new(&options);
    v3::check_array_extensions(&mut cx, doc, &[], false);
    let problem = cx
        .into_report()
        .problems
        .into_iter()
        .find(|p| p.kind == ProblemKind::MustUnderstand && p.severity == Severity::Error)?;
    Some(crate::ZomError::new(
        crate::ErrorCode::UnsupportedExtension,
        problem.message,
    ))
}

impl ExtensionRegistry {
    /// Registers `name`, with a handler that checks each occurrence (or `None`).
    pub fn register(
        &mut self,
        name: impl Into<String>,
        handler: Option<Arc<dyn ExtensionHandler>>,
    ) {
        self.handlers.push((name.into(), handler));
    }

    /// Whether `name` is registered; the handler when it has one.
    pub fn lookup(&self, name: &str) -> Option<Option<&Arc<dyn ExtensionHandler>>> {
        self.handlers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, h)| h.as_ref())
    }
}
