//! Hierarchy specs across the boundary: the `specs` value (names, spec documents), the
//! built-in specs' texts, and where a hierarchy claims a convention.

use super::convert::as_array;
use super::json_text::json_input;
use super::{fail, plain, JsResult};
use crate::error::ZomError;
use crate::spec::{self, SpecChoice};
use js_sys::Array;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A `specs` value: `"auto"`, a built-in name, a spec (object, JSON text or bytes), or an
/// array of those.
pub(super) fn choices(value: &JsValue) -> Result<Vec<SpecChoice>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let one = |item: &JsValue| -> Result<SpecChoice, JsValue> {
        if let Some(name) = item
            .as_string()
            .filter(|s| !s.trim_start().starts_with('{'))
        {
            return SpecChoice::named(&name).map_err(fail);
        }
        let doc = json_input(item)?;
        if !spec::is_spec(&doc) {
            return Err(fail(ZomError::invalid_argument(
                "a spec must be \"auto\", a built-in name or a spec document (with \"zom_spec\": 1)",
            )));
        }
        Ok(SpecChoice::Spec(Arc::new(
            spec::Spec::from_value(&doc).map_err(fail)?,
        )))
    };
    if Array::is_array(value) {
        as_array(value).iter().map(|item| one(&item)).collect()
    } else {
        Ok(vec![one(value)?])
    }
}

/// Where a hierarchy (ZOM object, JSON text or bytes) claims zom's built-in conventions, or
/// the given specs: `[{convention, spec, version, claim, path}]`.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen(js_name = detectConventions)]
pub fn detect_conventions(zom: JsValue, specs: JsValue) -> JsResult {
    let value = json_input(&zom)?;
    let choices = choices(&specs)?;
    let found = if choices.is_empty() {
        spec::detect_conventions(&value)
    } else {
        let list: Vec<_> = choices.iter().flat_map(SpecChoice::specs).collect();
        spec::detect(&value, &list)
    };
    Ok(plain::detected(&found))
}

/// Gives the module the built-in specs' texts (pkg/zom_schemas.js carries them): called once
/// by ts/parts/reader.ts after instantiation, in builds without the `builtin-specs` feature.
#[cfg(not(feature = "builtin-specs"))]
#[cfg(feature = "bind-tools")]
#[wasm_bindgen(js_name = setBuiltinSpecs)]
pub fn set_builtin_specs(names: Vec<String>, texts: Vec<String>) {
    spec::set_builtin_texts(names, texts);
}
