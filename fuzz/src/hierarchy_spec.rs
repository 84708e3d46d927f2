//! Target `hierarchy_spec`: a hierarchy spec document and a ZOM, both hostile. The spec goes
//! through the spec reader (selectors, patterns, JSON Schemas, node references); a spec that
//! reads is checked against the ZOM, and so are the built-in conventions (`auto` and by name),
//! as a store's metadata would be; `detect_conventions` and `validate_hierarchy` with specs
//! run on the same ZOM.
//!
//! Input: one flag byte (strict, which built-in to name), then the spec's JSON and the ZOM's
//! JSON separated by the first 0xFF byte (a byte no UTF-8 text holds).

use super::input::Input;
use super::metadata_document::check_report;
use super::outcome::Outcome;
use std::sync::Arc;
use zom::json::parse_document;
use zom::spec::{self, Spec, SpecChoice};
use zom::validate::{validate_hierarchy, ValidateOptions};
use zom::Limits;

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let mut input = Input::new(data);
    let flags = input.u8();
    let strict = flags & 0x01 != 0;
    let rest = input.rest();
    let (spec_bytes, zom_bytes) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &b"{}"[..]),
    };
    let zom = out
        .step("parse zom", parse_document(zom_bytes, &Limits::DEFAULT))
        .unwrap_or(serde_json::Value::Null);

    let mut choices = vec![SpecChoice::Auto];
    let names = spec::builtin_names();
    let named = names[usize::from(flags >> 1) % names.len()];
    if let Ok(specs) = spec::builtin(named) {
        choices.push(SpecChoice::Convention(named.to_string(), specs));
    }
    if let Some(doc) = out.step("parse spec", parse_document(spec_bytes, &Limits::DEFAULT)) {
        let is_spec = spec::is_spec(&doc);
        if let Some(user) = out.step("read spec", Spec::from_value(&doc)) {
            assert!(is_spec, "a document without zom_spec read as a spec");
            let user = Arc::new(user);
            choices.push(SpecChoice::Spec(user.clone()));
            let _ = spec::detect(&zom, &[user]);
        }
    }
    for choice in &choices {
        let problems = spec::check(&zom, std::slice::from_ref(choice), strict);
        assert!(
            problems.iter().all(|p| p.spec.is_some()),
            "a spec problem without its spec"
        );
    }
    let _ = spec::detect_conventions(&zom);
    let options = ValidateOptions {
        strict,
        specs: choices,
        ..ValidateOptions::default()
    };
    check_report(&validate_hierarchy(&zom, &options));
    out
}
