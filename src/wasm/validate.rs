//! Validation bindings: documents, hierarchies and attributes, with extension handlers
//! written in JS.

use super::convert::{as_array, bytes_of, from_js, to_js};
use super::options::{self, ReturnedProblem};
use super::{fail, plain, JsResult};
use crate::json;
use crate::validate::{self, ExtensionHandler, LocStep, Problem, ProblemKind, Severity};
use js_sys::{Array, Function};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A ZEP 10 / extension handler written in JS: `(extension, path, loc) => problems`.
struct JsExtensionHandler {
    name: String,
    function: Function,
}

impl JsExtensionHandler {
    /// The handler `function` for the extension `name`.
    fn boxed(name: String, function: Function) -> std::sync::Arc<dyn ExtensionHandler> {
        std::sync::Arc::new(JsExtensionHandler { name, function })
    }
}

impl ExtensionHandler for JsExtensionHandler {
    fn check(&self, value: &Value, path: &str, loc: &[LocStep]) -> Vec<Problem> {
        let loc_js = to_js(&LocStep::list_value(loc));
        let result = self.function.call3(
            &JsValue::NULL,
            &to_js(value),
            &JsValue::from_str(path),
            &loc_js,
        );
        let problem = |message| Problem::error(path, loc, ProblemKind::InvalidValue, message);
        let returned = match result {
            Err(thrown) => {
                let text = thrown
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .unwrap_or_else(|| format!("{thrown:?}"));
                return vec![problem(format!(
                    "extension handler for '{}' threw: {text}",
                    self.name
                ))];
            }
            Ok(v) if v.is_undefined() || v.is_null() => return Vec::new(),
            Ok(v) => v,
        };
        if !Array::is_array(&returned) {
            return vec![problem(format!(
                "extension handler for '{}' must return an array of problems",
                self.name
            ))];
        }
        as_array(&returned)
            .iter()
            .map(|item| {
                let given = ReturnedProblem::of(&item);
                let kind = match given.kind.as_deref() {
                    Some("missing_key") => ProblemKind::MissingKey,
                    Some("invalid_type") => ProblemKind::InvalidType,
                    Some("unknown_key") => ProblemKind::UnknownKey,
                    Some("must_understand") => ProblemKind::MustUnderstand,
                    _ => ProblemKind::InvalidValue,
                };
                let severity = match given.severity.as_deref() {
                    Some("warning") => Severity::Warning,
                    _ => Severity::Error,
                };
                let mut full_loc = loc.to_vec();
                full_loc.extend(given.loc);
                Problem {
                    path: path.to_string(),
                    loc: full_loc,
                    kind,
                    message: given
                        .message
                        .unwrap_or_else(|| format!("rejected by the '{}' handler", self.name)),
                    severity,
                    spec: None,
                    rule: None,
                }
            })
            .collect()
    }
}

/// The options of a validation binding, under the module's limits, its JS extension handlers
/// made into [`ExtensionHandler`]s.
fn validate_options(options: &JsValue) -> Result<validate::ValidateOptions, JsValue> {
    options::validate_options(options, super::limits::current(), JsExtensionHandler::boxed)
}

/// Validates one metadata document (object, JSON text or bytes). Returns `{valid, problems}`.
#[wasm_bindgen(js_name = validateDocument)]
pub fn validate_document(doc: JsValue, options: JsValue) -> JsResult {
    let opts = validate_options(&options)?;
    let report = match bytes_of(&doc) {
        Some(bytes) => validate::validate_document_bytes(&bytes, &opts),
        None => validate::validate_document(&from_js(&doc).map_err(fail)?, &opts),
    };
    Ok(plain::report(&report))
}

/// Validates a whole hierarchy given as ZOM (object or JSON text). Returns `{valid, problems}`.
#[wasm_bindgen(js_name = validateHierarchy)]
pub fn validate_hierarchy(zom: JsValue, options: JsValue) -> JsResult {
    let opts = validate_options(&options)?;
    match bytes_of(&zom) {
        Some(bytes) => match json::parse_document(&bytes, &opts.limits) {
            Ok(value) => Ok(plain::report(&validate::validate_hierarchy(&value, &opts))),
            Err(_) => Ok(plain::report(&validate::validate_document_bytes(
                &bytes, &opts,
            ))),
        },
        None => Ok(plain::report(&validate::validate_hierarchy(
            &from_js(&zom).map_err(fail)?,
            &opts,
        ))),
    }
}

/// Validates a group's attributes (object or JSON text) alone against `options.specs`: what
/// the attributes decide, without the nodes they name. Returns `{valid, problems}`.
#[wasm_bindgen(js_name = validateAttributes)]
pub fn validate_attributes(attributes: JsValue, options: JsValue) -> JsResult {
    let opts = validate_options(&options)?;
    let value = match attributes.as_string() {
        Some(text) => json::parse_document(text.as_bytes(), &opts.limits).map_err(fail)?,
        None => from_js(&attributes).map_err(fail)?,
    };
    Ok(plain::report(&validate::validate_attributes(&value, &opts)))
}
