//! How values cross the JS/WebAssembly boundary, measured three ways for every kind of value
//! zom's bindings (`src/wasm/`) pass: serde-wasm-bindgen (`to_value` / `from_value`), JSON text
//! (`JSON.parse` of text Rust writes, or `JSON.stringify` in JS and a parse in Rust), and JS
//! values built one by one with js_sys (zom's `to_js_each` / `from_js` and its hand-written
//! option readers). bench/crossing/crossing.mjs builds this module and times its exports in Node.
//!
//! A module of its own, so that nothing here reaches zom's: it depends on zom for the value
//! types, fixtures and conversions it measures, and includes zom's `src/wasm/convert.rs`
//! (see build.rs). Without the feature `swb` it leaves serde-wasm-bindgen out; the build
//! script compares the two modules' sizes.

#[allow(dead_code)] // zom's file: the benchmark uses part of it.
mod convert {
    include!(concat!(env!("OUT_DIR"), "/convert.rs"));
}
mod fixtures;
/// zom's typed values as JS objects (the way "js_sys, names once").
#[allow(dead_code)] // zom's file: the benchmark uses part of it.
#[path = "../../../src/wasm/plain.rs"]
mod plain;
/// The boundary's field names, which `plain.rs` writes some results with.
#[allow(dead_code)] // zom's file: the benchmark uses part of it.
#[path = "../../../src/wasm/boundary.rs"]
mod boundary;
mod settings;
#[cfg(feature = "swb-typed")]
mod swb;
mod today;

/// What `convert.rs` and `plain.rs` call `crate::error`, `crate::limits`, `crate::hierarchy`,
/// `crate::json`, `crate::model` and `crate::validate` in zom.
mod error {
    pub use zom::error::*;
}
mod limits {
    pub use zom::limits::*;
}
mod hierarchy {
    pub use zom::hierarchy::*;
}
mod model {
    pub use zom::model::*;
}
mod validate {
    pub use zom::validate::*;
}
mod json {
    pub use zom::json::*;

    /// A number as Rust displays it (zom's `json::display_f64` is crate-private).
    pub fn display_f64(x: f64) -> String {
        x.to_string()
    }
}

use fixtures::Fixtures;
use serde_json::{json, Value};
use settings::{Settings, ValidateIn, WalkIn};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use zom::chunk::Selection;
use zom::limits::{Limit, Limits};
use zom::ZomError;

thread_local! {
    static FIXTURES: RefCell<Option<Fixtures>> = const { RefCell::new(None) };
}

/// How a value crosses.
#[derive(Clone, Copy)]
enum Way {
    /// serde-wasm-bindgen.
    Swb,
    /// JSON text.
    Json,
    /// JS values built one by one with js_sys.
    JsSys,
    /// The same, with property names made once: zom's `src/wasm/plain.rs` (typed values
    /// only).
    Keyed,
}

fn way_of(n: u32) -> Result<Way, JsValue> {
    match n {
        0 if cfg!(feature = "swb-typed") => Ok(Way::Swb),
        1 => Ok(Way::Json),
        2 => Ok(Way::JsSys),
        3 => Ok(Way::Keyed),
        _ => Err(fail(ZomError::invalid_argument(format!("no way {n}")))),
    }
}

fn fail(error: ZomError) -> JsValue {
    convert::error_to_js(&error)
}

/// A value going to JS: (crossing, what it is in zom).
#[derive(Clone, Copy)]
enum Out {
    /// A ZOM tree (`fromDocuments`, `walk`, `open`, `unflatten`, `toV3`, `ArrayHandle.zom`).
    Zom(usize),
    /// A validation report (`validateDocument`, `validateHierarchy`).
    Report(usize),
    /// Node summaries by path (`summarizeTree`).
    Summaries(usize),
    /// A walk's per-node errors (`walkHierarchy`'s `errors`).
    Errors(usize),
    /// A decoded chunk's strings (`chunk_to_js` for vlen-utf8).
    Strings(usize),
    /// An S3 listing page (`httpS3Page`).
    Listing,
    /// The limits (`getLimits`, `ArrayHandle.limits`).
    Limits,
    /// A shape (`ArrayHandle.shape`, `.chunks`, `.shards`).
    Shape,
}

const OUT: [Out; 16] = [
    Out::Zom(0),
    Out::Zom(1),
    Out::Zom(2),
    Out::Report(0),
    Out::Report(1),
    Out::Report(2),
    Out::Summaries(0),
    Out::Summaries(1),
    Out::Summaries(2),
    Out::Errors(0),
    Out::Errors(1),
    Out::Strings(0),
    Out::Strings(1),
    Out::Listing,
    Out::Limits,
    Out::Shape,
];

/// A value coming from JS.
#[derive(Clone, Copy)]
enum In {
    /// A ZOM tree given to `validateHierarchy`, `toDocuments`, `flatten`, `summarizeTree`,
    /// `toV3`, `like`, `diff` (the JS value: the `Out::Zom` of the same index).
    Zom(usize),
    /// `walkHierarchy` / `openNode` options of plain data.
    Walk,
    /// `validateDocument` / `validateHierarchy` options of plain data.
    Validate,
    /// A selection (`ArrayHandle.get`).
    Selection,
}

const IN: [In; 6] = [
    In::Zom(0),
    In::Zom(1),
    In::Zom(2),
    In::Walk,
    In::Validate,
    In::Selection,
];

/// Builds the fixtures from the root `zarr.json` of bench/lib/generate.py's 1001-node and
/// 10,000-node consolidated hierarchies, and returns the cases as JSON text:
/// `{swb, out: [{crossing, size, items, json_bytes}], in: [{crossing, size, input}]}`
/// (`input`: `{out: i}` for the JS value `out(i, 1)` gives, or the name of a literal).
#[wasm_bindgen]
pub fn load(walk1k: &[u8], walk10k: &[u8]) -> Result<String, JsValue> {
    let f = fixtures::build(walk1k, walk10k).map_err(fail)?;
    let text = |v: &Value| zom::json::to_compact(v).len();
    let out: Vec<Value> = OUT
        .iter()
        .map(|case| {
            let (crossing, size, items, bytes) = match *case {
                Out::Zom(i) => ("ZOM tree", f.zoms[i].0.clone(), 0, text(&f.zoms[i].1)),
                Out::Report(i) => {
                    let n = f.reports[i].problems.len();
                    let v = f.reports[i].to_value();
                    ("validation report", format!("{n} problems"), n, text(&v))
                }
                Out::Summaries(i) => {
                    let n = f.summaries[i].len();
                    let v = summaries_value(&f.summaries[i]);
                    ("node summaries", format!("{n} nodes"), n, text(&v))
                }
                Out::Errors(i) => {
                    let n = f.errors[i].len();
                    let v = errors_value(&f.errors[i]);
                    ("walk errors", format!("{n} errors"), n, text(&v))
                }
                Out::Strings(i) => {
                    let n = f.strings[i].len();
                    let bytes = serde_json::to_string(&f.strings[i]).map_or(0, |s| s.len());
                    ("chunk of strings", format!("{n} strings"), n, bytes)
                }
                Out::Listing => {
                    let n = f.listing.keys.len();
                    let v = listing_value(&f.listing);
                    ("S3 listing page", format!("{n} keys"), n, text(&v))
                }
                Out::Limits => (
                    "limits",
                    "7 numbers".to_string(),
                    7,
                    limits_text(&f.limits).len(),
                ),
                Out::Shape => (
                    "shape",
                    format!("{} numbers", f.shape.len()),
                    f.shape.len(),
                    text(&Value::from(f.shape.clone())),
                ),
            };
            let keyed = matches!(
                case,
                Out::Report(_) | Out::Summaries(_) | Out::Errors(_) | Out::Listing | Out::Limits
            );
            json!({ "crossing": crossing, "size": size, "items": items, "json_bytes": bytes, "keyed": keyed })
        })
        .collect();
    let zom_out = |i: usize| OUT.iter().position(|c| matches!(c, Out::Zom(j) if *j == i));
    let ins: Vec<Value> = IN
        .iter()
        .map(|case| match *case {
            In::Zom(i) => json!({
                "crossing": "ZOM tree (in)",
                "size": f.zoms[i].0,
                "input": { "out": zom_out(i) },
            }),
            In::Walk => json!({ "crossing": "walk options (in)", "size": "5 fields, limits 2", "input": "walk" }),
            In::Validate => json!({ "crossing": "validate options (in)", "size": "3 fields", "input": "validate" }),
            In::Selection => json!({ "crossing": "selection (in)", "size": "3 dimensions", "input": "selection" }),
        })
        .collect();
    FIXTURES.with(|cell| *cell.borrow_mut() = Some(f));
    Ok(zom::json::to_compact(&json!({
        "swb": cfg!(feature = "swb"),
        "out": out,
        "in": ins,
    })))
}

fn with_fixtures<T>(f: impl FnOnce(&Fixtures) -> Result<T, JsValue>) -> Result<T, JsValue> {
    FIXTURES.with(|cell| match cell.borrow().as_ref() {
        Some(fixtures) => f(fixtures),
        None => Err(fail(ZomError::invalid_argument("call load() first"))),
    })
}

fn json_parse(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text)
}

fn summaries_value(summaries: &[(String, zom::model::NodeSummary)]) -> Value {
    Value::Object(
        summaries
            .iter()
            .map(|(path, s)| (path.clone(), s.to_value()))
            .collect(),
    )
}

fn error_value(e: &ZomError) -> Value {
    json!({ "code": e.code.as_str(), "message": e.message, "path": e.path, "key": e.key })
}

fn errors_value(errors: &[ZomError]) -> Value {
    Value::Array(errors.iter().map(error_value).collect())
}

fn listing_value(l: &fixtures::Listing) -> Value {
    json!({ "keys": l.keys, "prefixes": l.prefixes, "truncated": l.truncated, "next": l.next })
}

/// The limits as JSON text; `1e999` is `Infinity` to `JSON.parse` (no limit).
fn limits_text(limits: &Limits) -> String {
    let fields: Vec<String> = Limit::ALL
        .iter()
        .map(|&limit| match limits.get(limit) {
            u64::MAX => format!("\"{}\":1e999", limit.name()),
            n => format!("\"{}\":{n}", limit.name()),
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// Case `case` of the values going to JS (`load`'s `out`), converted the way `way` (0:
/// serde-wasm-bindgen, 1: JSON text, 2: js_sys, 3: js_sys with names made once, where the
/// case says `keyed`).
#[wasm_bindgen]
pub fn out(case: u32, way: u32) -> Result<JsValue, JsValue> {
    let way = way_of(way)?;
    let case = *OUT
        .get(case as usize)
        .ok_or_else(|| fail(ZomError::invalid_argument("no such case")))?;
    with_fixtures(|f| out_case(f, case, way))
}

fn out_case(f: &Fixtures, case: Out, way: Way) -> Result<JsValue, JsValue> {
    use convert::to_js_each;
    match (case, way) {
        #[cfg(feature = "swb-typed")]
        (case, Way::Swb) => out_swb(f, case),
        #[cfg(not(feature = "swb-typed"))]
        (_, Way::Swb) => Err(fail(ZomError::invalid_argument("built without swb"))),
        // zom's to_js: large containers as JSON text (after a scan for BigInt numbers).
        (Out::Zom(i), Way::Json) => Ok(convert::to_js(&f.zoms[i].1)),
        (_, Way::Json) => json_parse(&json_text(f, case)?),
        (Out::Zom(i), Way::JsSys) => Ok(to_js_each(&f.zoms[i].1)),
        (Out::Report(i), Way::JsSys) => Ok(to_js_each(&f.reports[i].to_value())),
        (Out::Summaries(i), Way::JsSys) => Ok(to_js_each(&summaries_value(&f.summaries[i]))),
        (Out::Errors(i), Way::JsSys) => Ok(to_js_each(&errors_value(&f.errors[i]))),
        (Out::Strings(i), Way::JsSys) => Ok(today::strings(&f.strings[i])),
        (Out::Listing, Way::JsSys) => Ok(to_js_each(&listing_value(&f.listing))),
        (Out::Limits, Way::JsSys) => Ok(today::limits_to_js(&f.limits)),
        (Out::Shape, Way::JsSys) => Ok(today::numbers(&f.shape)),
        (Out::Report(i), Way::Keyed) => Ok(plain::report(&f.reports[i])),
        (Out::Summaries(i), Way::Keyed) => Ok(plain::summaries(&f.summaries[i])),
        (Out::Errors(i), Way::Keyed) => {
            Ok(js_sys::Array::from_iter(f.errors[i].iter().map(plain::error)).into())
        }
        (Out::Limits, Way::Keyed) => Ok(plain::limits(&f.limits)),
        (Out::Listing, Way::Keyed) => {
            let l = &f.listing;
            Ok(plain::s3_page(&l.keys, &l.prefixes, l.truncated, &l.next))
        }
        (_, Way::Keyed) => Err(fail(ZomError::invalid_argument(
            "no keyed way for this case",
        ))),
    }
}

/// The JSON text the JSON way parses.
fn json_text(f: &Fixtures, case: Out) -> Result<String, JsValue> {
    use zom::json::to_compact;
    Ok(match case {
        Out::Zom(i) => to_compact(&f.zoms[i].1),
        Out::Report(i) => to_compact(&f.reports[i].to_value()),
        Out::Summaries(i) => to_compact(&summaries_value(&f.summaries[i])),
        Out::Errors(i) => to_compact(&errors_value(&f.errors[i])),
        // As zom would write them: its one JSON writer, over the chunk's strings (moved into
        // the JSON value there; copied here, where the fixture is kept).
        Out::Strings(i) => to_compact(&Value::Array(
            f.strings[i].iter().cloned().map(Value::String).collect(),
        )),
        Out::Listing => to_compact(&listing_value(&f.listing)),
        Out::Limits => limits_text(&f.limits),
        Out::Shape => to_compact(&Value::from(f.shape.clone())),
    })
}

/// The JSON text of case `case` of the values going to JS: JS times `JSON.parse` of it
/// alone, to tell the JSON way's Rust part from its JS part.
#[wasm_bindgen(js_name = jsonText)]
pub fn json_text_of(case: u32) -> Result<String, JsValue> {
    let case = *OUT
        .get(case as usize)
        .ok_or_else(|| fail(ZomError::invalid_argument("no such case")))?;
    with_fixtures(|f| json_text(f, case))
}

/// The length of [`json_text_of`] without passing it to JS: the time of the JSON way's Rust
/// part.
#[wasm_bindgen(js_name = jsonTextLength)]
pub fn json_text_length(case: u32) -> Result<usize, JsValue> {
    let case = *OUT
        .get(case as usize)
        .ok_or_else(|| fail(ZomError::invalid_argument("no such case")))?;
    with_fixtures(|f| json_text(f, case).map(|t| t.len()))
}

#[cfg(feature = "swb-typed")]
fn out_swb(f: &Fixtures, case: Out) -> Result<JsValue, JsValue> {
    use swb::{to_js, Errors, LimitsOut, Summaries, TYPED};
    match case {
        Out::Report(i) => to_js(&f.reports[i], &TYPED),
        Out::Summaries(i) => to_js(&Summaries(&f.summaries[i]), &TYPED),
        Out::Errors(i) => to_js(&Errors(&f.errors[i]), &TYPED),
        Out::Limits => to_js(&LimitsOut(&f.limits), &TYPED),
        #[cfg(feature = "swb")]
        Out::Zom(i) => to_js(&swb::Safe(&f.zoms[i].1), &swb::VALUE),
        #[cfg(feature = "swb")]
        Out::Strings(i) => to_js(&f.strings[i], &TYPED),
        #[cfg(feature = "swb")]
        Out::Listing => to_js(&f.listing, &TYPED),
        #[cfg(feature = "swb")]
        Out::Shape => to_js(&f.shape, &TYPED),
        #[cfg(not(feature = "swb"))]
        _ => Err(fail(ZomError::invalid_argument(
            "built with swb-typed only",
        ))),
    }
}

/// What a value coming in became.
enum Got {
    Json(Value),
    Settings(Settings),
    Selection(Selection),
}

impl Got {
    fn text(&self) -> String {
        match self {
            Got::Json(v) => zom::json::to_compact(v),
            Got::Settings(s) => format!("{s:?}"),
            Got::Selection(s) => format!("{s:?}"),
        }
    }
}

fn text_of(value: &JsValue) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| fail(ZomError::invalid_argument("the JSON way takes JSON text")))
}

fn parse(text: &str) -> Result<Value, JsValue> {
    zom::json::parse_document(text.as_bytes(), &Limits::DEFAULT).map_err(fail)
}

fn in_case(case: In, way: Way, value: JsValue) -> Result<Got, JsValue> {
    let serde_error = |e: serde_json::Error| fail(ZomError::invalid_argument(e.to_string()));
    let json = match (case, way) {
        #[cfg(feature = "swb")]
        (case, Way::Swb) => return in_swb(case, value),
        #[cfg(not(feature = "swb"))]
        (_, Way::Swb) => return Err(fail(ZomError::invalid_argument("built without swb"))),
        (In::Walk, Way::Json) => {
            let options: WalkIn = serde_json::from_str(&text_of(&value)?).map_err(serde_error)?;
            return options.settle().map(Got::Settings).map_err(fail);
        }
        (In::Walk, Way::JsSys) => {
            return today::walk_options(&value).map(Got::Settings).map_err(fail)
        }
        (In::Validate, Way::Json) => {
            let options: ValidateIn =
                serde_json::from_str(&text_of(&value)?).map_err(serde_error)?;
            return Ok(Got::Settings(options.settle()));
        }
        (In::Validate, Way::JsSys) => {
            return today::validate_options(&value)
                .map(Got::Settings)
                .map_err(fail)
        }
        (In::Zom(_) | In::Selection, Way::Json) => parse(&text_of(&value)?)?,
        (In::Zom(_) | In::Selection, Way::JsSys) => convert::from_js(&value).map_err(fail)?,
        (_, Way::Keyed) => return Err(fail(ZomError::invalid_argument("no keyed way coming in"))),
    };
    json_got(case, json)
}

fn json_got(case: In, json: Value) -> Result<Got, JsValue> {
    match case {
        In::Selection => Selection::from_json(&json)
            .map(Got::Selection)
            .map_err(fail),
        _ => Ok(Got::Json(json)),
    }
}

#[cfg(feature = "swb")]
fn in_swb(case: In, value: JsValue) -> Result<Got, JsValue> {
    match case {
        In::Walk => swb::from_value::<WalkIn>(value)?
            .settle()
            .map(Got::Settings)
            .map_err(fail),
        In::Validate => Ok(Got::Settings(
            swb::from_value::<ValidateIn>(value)?.settle(),
        )),
        In::Zom(_) | In::Selection => json_got(case, swb::from_js(value)?),
    }
}

fn in_of(case: u32, way: u32, value: JsValue) -> Result<Got, JsValue> {
    let way = way_of(way)?;
    let case = *IN
        .get(case as usize)
        .ok_or_else(|| fail(ZomError::invalid_argument("no such case")))?;
    in_case(case, way, value)
}

/// Case `case` of the values coming from JS (`load`'s `in`) read the way `way` (for JSON text,
/// `value` is the text JS wrote); returns 0.
#[wasm_bindgen(js_name = "into")]
pub fn into_wasm(case: u32, way: u32, value: JsValue) -> Result<u32, JsValue> {
    in_of(case, way, value).map(|_| 0)
}

/// What [`into_wasm`] read, as text: the ways are compared by it.
#[wasm_bindgen(js_name = intoText)]
pub fn into_text(case: u32, way: u32, value: JsValue) -> Result<String, JsValue> {
    in_of(case, way, value).map(|got| got.text())
}
