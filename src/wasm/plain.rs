//! Typed values as JS objects whose property names are fixed: validation reports, problem and
//! difference lists, node summaries, errors, limits, HTTP listings. Each name (and each other `&'static str`
//! they hold: a problem's kind, an error's code) becomes a JS string once per instance and is
//! reused, and properties are set with `object[name] = value`, not the fallible `Reflect.set`.
//! That is what makes serde-wasm-bindgen fast on structs, without its code in the module; JSON
//! text is slower for these, since Rust writes the text slower than JS builds the objects
//! (docs/benchmarks.md, "Values across the boundary"; bench/crossing/crossing.mjs measures all the ways).
//!
//! Names that are data (node paths) are not fixed: they are made per property, and `__proto__`
//! is defined as an own property ([`set_own`]), where assignment would set the prototype.

use super::convert::{set_own, to_js};
use crate::error::ZomError;
use crate::hierarchy::CacheStats;
use crate::limits::{Limit, Limits};
use crate::model::{Difference, NodeSummary};
use crate::validate::{LocStep, Problem, Report};
use js_sys::{Array, JsString, Object};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A plain object whose fixed-name properties are set without `Reflect`.
    #[wasm_bindgen(extends = Object)]
    type Plain;

    /// `this[name] = value`.
    #[wasm_bindgen(method, indexing_setter)]
    fn set(this: &Plain, name: &JsString, value: &JsValue);

    /// `this[name] = value`, the name made from Rust text.
    #[wasm_bindgen(method, indexing_setter)]
    fn set_text(this: &Plain, name: &str, value: &JsValue);
}

thread_local! {
    /// The JS strings of the `&'static str`s set so far, by address and length: a few dozen,
    /// so a list.
    static NAMES: RefCell<Vec<(usize, usize, JsString)>> = const { RefCell::new(Vec::new()) };
}

/// The JS string of a `&'static str`, made on first use.
fn name(s: &'static str) -> JsString {
    let id = (s.as_ptr() as usize, s.len());
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some((_, _, js)) = names.iter().find(|(at, len, _)| (*at, *len) == id) {
            return js.clone();
        }
        let js = JsString::from(s);
        names.push((id.0, id.1, js.clone()));
        js
    })
}

impl Plain {
    fn new() -> Plain {
        Object::new().unchecked_into()
    }

    /// Sets the property `key`, a fixed name (never `__proto__`).
    fn put(&self, key: &'static str, value: &JsValue) {
        self.set(&name(key), value);
    }

    /// Sets the own property `key`, a name that is data: assignment as for fixed names,
    /// except for `__proto__`, where it would set the prototype ([`set_own`] defines it).
    fn put_data(&self, key: &str, value: &JsValue) {
        if key == "__proto__" {
            set_own(self, key, value);
        } else {
            self.set_text(key, value);
        }
    }
}

/// A list of JS values, one per item, each set at the end of an empty array (one made with
/// its length would have holes until filled, which V8 keeps as a slower kind of array; `push`
/// is a method call that also returns the length).
fn list<T>(items: &[T], item: impl Fn(&T) -> JsValue) -> JsValue {
    let out = Array::new();
    for (i, value) in items.iter().enumerate() {
        out.set(u32::try_from(i).unwrap_or(u32::MAX), item(value));
    }
    out.into()
}

fn text(s: &str) -> JsValue {
    JsValue::from_str(s)
}

fn number(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

fn numbers(values: &[u64]) -> JsValue {
    list(values, |&n| number(n))
}

fn optional_text(s: &Option<String>) -> JsValue {
    s.as_deref().map_or(JsValue::NULL, JsValue::from_str)
}

fn loc(steps: &[LocStep]) -> JsValue {
    list(steps, |step| match step {
        LocStep::Key(key) => text(key),
        LocStep::Index(index) => number(*index as u64),
    })
}

fn problem(p: &Problem) -> JsValue {
    let o = Plain::new();
    o.put("path", &text(&p.path));
    o.put("loc", &loc(&p.loc));
    o.put("kind", &name(p.kind.as_str()));
    o.put("message", &text(&p.message));
    o.put("severity", &name(p.severity.as_str()));
    if let Some(spec) = &p.spec {
        o.put("spec", &text(spec));
    }
    if let Some(rule) = &p.rule {
        o.put("rule", &text(rule));
    }
    o.into()
}

/// Problems: `[{path, loc, kind, message, severity}]` ([`Problem::to_value`]).
pub fn problems(list_of: &[Problem]) -> JsValue {
    list(list_of, problem)
}

/// Where conventions are claimed: `[{convention, spec, version, claim, path}]`.
pub fn detected(list_of: &[crate::spec::Detected]) -> JsValue {
    list(list_of, |d| {
        let o = Plain::new();
        o.put("convention", &text(&d.convention));
        o.put("spec", &text(&d.spec));
        o.put("version", &d.version.as_deref().map_or(JsValue::NULL, text));
        o.put("claim", &text(&d.claim));
        o.put("path", &text(&d.path));
        o.into()
    })
}

/// A validation report: `{valid, problems}` ([`Report::to_value`]).
pub fn report(report: &Report) -> JsValue {
    let o = Plain::new();
    o.put("valid", &JsValue::from_bool(report.valid));
    o.put("problems", &problems(&report.problems));
    o.into()
}

/// Differences: `[{path, loc, kind, expected?, actual?, message}]` ([`Difference::to_value`]).
pub fn differences(list_of: &[Difference]) -> JsValue {
    list(list_of, |d| {
        let o = Plain::new();
        o.put("path", &text(&d.path));
        o.put("loc", &loc(&d.loc));
        o.put("kind", &name(d.kind.as_str()));
        if let Some(expected) = &d.expected {
            o.put("expected", &to_js(expected));
        }
        if let Some(actual) = &d.actual {
            o.put("actual", &to_js(actual));
        }
        o.put("message", &text(&d.message));
        o.into()
    })
}

fn summary(s: &NodeSummary) -> JsValue {
    let optional = |v: &Option<Vec<u64>>| v.as_deref().map_or(JsValue::NULL, numbers);
    let o = Plain::new();
    o.put("kind", &name(s.kind));
    o.put("zarr_format", &number(s.zarr_format));
    o.put("attributes", &number(s.attributes as u64));
    o.put("members", &number(s.members as u64));
    o.put("shape", &numbers(&s.shape));
    o.put("data_type", &text(&s.data_type));
    o.put("chunks", &optional(&s.chunks));
    o.put("shards", &optional(&s.shards));
    o.put("grid", &text(&s.grid));
    o.put("codecs", &text(&s.codecs));
    o.into()
}

/// Node summaries by node path ([`NodeSummary::to_value`] each).
pub fn summaries(by_path: &[(String, NodeSummary)]) -> JsValue {
    let out = Plain::new();
    for (path, s) in by_path {
        out.put_data(path, &summary(s));
    }
    out.into()
}

/// An error: `{code, message, path, key}`.
pub fn error(error: &ZomError) -> JsValue {
    let o = Plain::new();
    o.put("code", &name(error.code.as_str()));
    o.put("message", &text(&error.message));
    o.put("path", &optional_text(&error.path));
    o.put("key", &optional_text(&error.key));
    o.into()
}

/// The limits: `{maxChunkBytes, …}`, `Infinity` for none.
pub fn limits(limits: &Limits) -> JsValue {
    let o = Plain::new();
    for limit in Limit::ALL {
        let value = match limits.get(limit) {
            u64::MAX => f64::INFINITY,
            n => n as f64,
        };
        o.put(limit.name(), &JsValue::from_f64(value));
    }
    o.into()
}

/// A chunk cache's figures: [`super::boundary::CACHE_STATS`] (`{hits, misses, evictions,
/// bytes, entries}`).
pub fn cache_stats(stats: &CacheStats) -> JsValue {
    const NAMES: [&str; 5] = super::boundary::names(&super::boundary::CACHE_STATS);
    let o = Plain::new();
    let figures = [
        stats.hits,
        stats.misses,
        stats.evictions,
        stats.bytes,
        stats.entries,
    ];
    for (name, n) in NAMES.into_iter().zip(figures) {
        o.put(name, &number(n));
    }
    o.into()
}

fn strings(items: &[String]) -> JsValue {
    list(items, |s| text(s))
}

/// A ListObjectsV2 page: `{keys, prefixes, truncated, next}` (`next`: null when absent).
pub fn s3_page(
    keys: &[String],
    prefixes: &[String],
    truncated: bool,
    next: &Option<String>,
) -> JsValue {
    let o = Plain::new();
    o.put("keys", &strings(keys));
    o.put("prefixes", &strings(prefixes));
    o.put("truncated", &JsValue::from_bool(truncated));
    o.put("next", &optional_text(next));
    o.into()
}

/// A directory index: `{files, dirs}`.
pub fn directory(files: &[String], dirs: &[String]) -> JsValue {
    let o = Plain::new();
    o.put("files", &strings(files));
    o.put("dirs", &strings(dirs));
    o.into()
}

/// A store listing: `{keys, prefixes}`.
pub fn listing(keys: &[String], prefixes: &[String]) -> JsValue {
    let o = Plain::new();
    o.put("keys", &strings(keys));
    o.put("prefixes", &strings(prefixes));
    o.into()
}

/// Where an S3 listing may be: `[{root, storePrefix}]`.
pub fn s3_candidates(candidates: &[(String, String)]) -> JsValue {
    list(candidates, |(root, prefix)| {
        let o = Plain::new();
        o.put("root", &text(root));
        o.put("storePrefix", &text(prefix));
        o.into()
    })
}
