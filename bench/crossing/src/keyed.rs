//! A fourth way for typed values: JS objects built one by one with js_sys, as `to_js_each`
//! does, but with what serde-wasm-bindgen does differently for them: property names (and
//! other `&'static str`s: a problem's kind and severity, an error's code) become JS strings
//! once and are reused, and properties are set with `obj[key] = value` instead of the
//! fallible `Reflect.set`. It tells whether serde-wasm-bindgen's advantage on typed values is
//! serde-wasm-bindgen or those two choices.

use js_sys::{Array, JsString, Object};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use zom::limits::{Limit, Limits};
use zom::model::NodeSummary;
use zom::validate::{LocStep, Report};
use zom::ZomError;

#[wasm_bindgen]
extern "C" {
    /// A plain object whose properties are set without `Reflect`.
    #[wasm_bindgen(extends = Object)]
    type Plain;

    #[wasm_bindgen(method, indexing_setter)]
    fn set(this: &Plain, key: &JsString, value: &JsValue);
}

thread_local! {
    /// JS strings of `&'static str`s, by address: few, so a list.
    static STATIC: RefCell<Vec<(usize, usize, JsString)>> = const { RefCell::new(Vec::new()) };
}

/// The JS string of a `&'static str`, made once.
fn cached(s: &'static str) -> JsString {
    STATIC.with(|cache| {
        let mut cache = cache.borrow_mut();
        let id = (s.as_ptr() as usize, s.len());
        if let Some((_, _, js)) = cache.iter().find(|(p, n, _)| (*p, *n) == id) {
            return js.clone();
        }
        let js = JsString::from(s);
        cache.push((id.0, id.1, js.clone()));
        js
    })
}

fn object() -> Plain {
    Object::new().unchecked_into()
}

fn text(s: &str) -> JsValue {
    JsValue::from_str(s)
}

fn optional(s: &Option<String>) -> JsValue {
    s.as_deref().map_or(JsValue::NULL, JsValue::from_str)
}

fn numbers(values: &[u64]) -> JsValue {
    let out = Array::new_with_length(values.len() as u32);
    for (i, &v) in values.iter().enumerate() {
        out.set(i as u32, JsValue::from_f64(v as f64));
    }
    out.into()
}

/// A validation report: `{valid, problems: [{path, loc, kind, message, severity}]}`.
pub fn report(report: &Report) -> JsValue {
    let problems = Array::new_with_length(report.problems.len() as u32);
    for (i, p) in report.problems.iter().enumerate() {
        let loc = Array::new_with_length(p.loc.len() as u32);
        for (j, step) in p.loc.iter().enumerate() {
            let value = match step {
                LocStep::Key(key) => text(key),
                LocStep::Index(index) => JsValue::from_f64(*index as f64),
            };
            loc.set(j as u32, value);
        }
        let o = object();
        o.set(&cached("path"), &text(&p.path));
        o.set(&cached("loc"), &loc);
        o.set(&cached("kind"), &cached(p.kind.as_str()));
        o.set(&cached("message"), &text(&p.message));
        o.set(&cached("severity"), &cached(p.severity.as_str()));
        problems.set(i as u32, o.into());
    }
    let out = object();
    out.set(&cached("valid"), &JsValue::from_bool(report.valid));
    out.set(&cached("problems"), &problems);
    out.into()
}

fn summary(s: &NodeSummary) -> JsValue {
    let o = object();
    let optional = |v: &Option<Vec<u64>>| v.as_deref().map_or(JsValue::NULL, numbers);
    o.set(&cached("kind"), &cached(s.kind));
    o.set(
        &cached("zarr_format"),
        &JsValue::from_f64(s.zarr_format as f64),
    );
    o.set(
        &cached("attributes"),
        &JsValue::from_f64(s.attributes as f64),
    );
    o.set(&cached("members"), &JsValue::from_f64(s.members as f64));
    o.set(&cached("shape"), &numbers(&s.shape));
    o.set(&cached("data_type"), &text(&s.data_type));
    o.set(&cached("chunks"), &optional(&s.chunks));
    o.set(&cached("shards"), &optional(&s.shards));
    o.set(&cached("codecs"), &text(&s.codecs));
    o.into()
}

/// Summaries by node path. Paths are data (a node may be named `__proto__`): they are set
/// as own properties with zom's `set_own`.
pub fn summaries(list: &[(String, NodeSummary)]) -> JsValue {
    let out = Object::new();
    for (path, s) in list {
        crate::convert::set_own(&out, path, &summary(s));
    }
    out.into()
}

fn error(e: &ZomError) -> JsValue {
    let o = object();
    o.set(&cached("code"), &cached(e.code.as_str()));
    o.set(&cached("message"), &text(&e.message));
    o.set(&cached("path"), &optional(&e.path));
    o.set(&cached("key"), &optional(&e.key));
    o.into()
}

/// Errors as a list of `{code, message, path, key}`.
pub fn errors(list: &[ZomError]) -> JsValue {
    let out = Array::new_with_length(list.len() as u32);
    for (i, e) in list.iter().enumerate() {
        out.set(i as u32, error(e));
    }
    out.into()
}

/// The limits (`Infinity` for none).
pub fn limits(limits: &Limits) -> JsValue {
    let o = object();
    for limit in Limit::ALL {
        let value = match limits.get(limit) {
            u64::MAX => f64::INFINITY,
            n => n as f64,
        };
        o.set(&cached(limit.name()), &JsValue::from_f64(value));
    }
    o.into()
}

/// A listing page `{keys, prefixes, truncated, next}`.
pub fn listing(l: &crate::fixtures::Listing) -> JsValue {
    let strings = |list: &[String]| {
        let out = Array::new_with_length(list.len() as u32);
        for (i, s) in list.iter().enumerate() {
            out.set(i as u32, text(s));
        }
        out
    };
    let o = object();
    o.set(&cached("keys"), &strings(&l.keys));
    o.set(&cached("prefixes"), &strings(&l.prefixes));
    o.set(&cached("truncated"), &JsValue::from_bool(l.truncated));
    o.set(&cached("next"), &optional(&l.next));
    o.into()
}
