//! The js_sys way of the crossings whose code is private to zom's `src/wasm/` outside
//! `convert.rs` and `plain.rs`: written here as zom writes it (the function each mirrors is
//! named; for the limits, as zom wrote them before `plain.rs`), so the benchmark times the
//! same calls. `convert.rs` and `plain.rs` are zom's own files (see build.rs).

use crate::convert::set_own;
use crate::settings::{Settings, ValidateSettings, WalkSettings};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use zom::limits::{Limit, Limits};
use zom::ZomError;

/// `src/wasm/options.rs` `get`.
fn option(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// `src/wasm/options.rs` `count`.
fn count_option(options: &JsValue, name: &str) -> Result<Option<u64>, ZomError> {
    let value = option(options, name);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(f) if f == f64::INFINITY => Ok(Some(u64::MAX)),
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f as u64)),
        _ => Err(ZomError::invalid_argument(format!(
            "option '{name}' must be a non-negative integer"
        ))),
    }
}

/// `src/wasm/options.rs` `LimitsSet::of` and `over`.
fn limits_apply(value: &JsValue, mut limits: Limits) -> Result<Limits, ZomError> {
    if value.is_undefined() || value.is_null() {
        return Ok(limits);
    }
    if !value.is_object() {
        return Err(ZomError::invalid_argument("limits must be an object"));
    }
    let mut known = 0u32;
    for limit in Limit::ALL {
        if let Some(n) = count_option(value, limit.name())? {
            *limits.get_mut(limit) = n;
            known = known.saturating_add(1);
        }
    }
    if Object::keys(value.unchecked_ref::<Object>()).length() > known {
        return Err(ZomError::invalid_argument(
            "limits has a field that is not a limit",
        ));
    }
    Ok(limits)
}

/// `walkHierarchy`'s options as `src/wasm/options.rs` reads them (`WalkOptions::read`:
/// `hints`, `count`, `LimitsSet`).
pub fn walk_options(options: &JsValue) -> Result<Settings, ZomError> {
    let kind = option(options, "kind").as_string();
    Ok(Settings::Walk(WalkSettings::checked(
        kind,
        count_option(options, "format")?,
        count_option(options, "depth")?,
        count_option(options, "concurrency")?,
        limits_apply(&option(options, "limits"), Limits::DEFAULT)?,
    )?))
}

/// `validateDocument`'s options as `src/wasm/options.rs` `validate_options` reads them.
pub fn validate_options(options: &JsValue) -> Result<Settings, ZomError> {
    Ok(Settings::Validate(ValidateSettings {
        key: option(options, "key").as_string(),
        strict: option(options, "strict").as_bool().unwrap_or(false),
        extensions: option(options, "extensions").as_bool().unwrap_or(false),
    }))
}

/// `src/wasm/limits.rs` `to_js` with a new JS string per name (before `plain.rs`).
pub fn limits_to_js(limits: &Limits) -> JsValue {
    let out = Object::new();
    for limit in Limit::ALL {
        let value = match limits.get(limit) {
            u64::MAX => f64::INFINITY,
            n => n as f64,
        };
        set_own(&out, limit.name(), &JsValue::from_f64(value));
    }
    out.into()
}

/// `src/wasm/hierarchy.rs` `numbers` (`ArrayHandle.shape`, `.chunks`, `.shards`).
pub fn numbers(values: &[u64]) -> JsValue {
    let out = Array::new();
    for &v in values {
        out.push(&JsValue::from_f64(v as f64));
    }
    out.into()
}

/// `src/wasm/values.rs` `chunk_to_js`, a chunk of strings: its `values`.
pub fn strings(strings: &[String]) -> JsValue {
    let values = Array::new();
    for s in strings {
        values.push(&JsValue::from_str(s));
    }
    values.into()
}
