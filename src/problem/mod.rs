//! The crate's problem vocabulary: what validation, codec configuration reading, conversion
//! and reference parsing report ([`Problem`], its [`ProblemKind`], [`Severity`] and [`LocStep`]
//! location), and the helpers that word problems the same everywhere ([`show`], the `check_*`
//! value checks, path joining), and [`config`], the one reader of an extension's configuration
//! that the decoder and the validator share. A leaf module: it knows JSON and nothing of Zarr,
//! so that any module may report a problem without importing the validator. `crate::validate` re-exports
//! the public types at their old paths.

pub(crate) mod config;

use serde::Serialize;
use serde_json::{Map, Value};

/// What is wrong, in zarr-metadata's vocabulary (plus `must_understand`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A required key is absent.
    MissingKey,
    /// A value has the wrong JSON type.
    InvalidType,
    /// A value has the right type but a wrong value.
    InvalidValue,
    /// A key the spec does not define (and no `must_understand: false` excuses it).
    UnknownKey,
    /// The document is not JSON.
    InvalidJson,
    /// An extension with `must_understand: true` (or absent) that zom does not know.
    MustUnderstand,
}

/// How serious a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The document breaks the spec (a reader must refuse or may misread it).
    Error,
    /// The spec says SHOULD / SHOULD NOT, or a reader may not support it (strict mode only).
    Warning,
}

/// One step in a location inside a JSON document: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum LocStep {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// One problem found by validation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    /// Node path inside the hierarchy ("" for the root, "a/b" for a member).
    pub path: String,
    /// Location inside the node's document, e.g. `["codecs", 1, "configuration", "level"]`.
    pub loc: Vec<LocStep>,
    /// What kind of problem it is.
    pub kind: ProblemKind,
    /// What is wrong, in words, with the offending value where useful.
    pub message: String,
    /// How serious it is.
    pub severity: Severity,
    /// The hierarchy spec whose rule failed (its `name`), for problems found by a spec.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The rule that failed: its `rule` name, or its JSON pointer in the spec document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl Problem {
    /// An error-severity problem at node `path` and document location `loc`, found by no
    /// hierarchy spec.
    pub fn error(path: &str, loc: &[LocStep], kind: ProblemKind, message: String) -> Problem {
        Problem {
            path: path.to_string(),
            loc: loc.to_vec(),
            kind,
            message,
            severity: Severity::Error,
            spec: None,
            rule: None,
        }
    }
}

/// The result of a validation: `valid` is true when no problem has severity `error`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// No error-severity problems.
    pub valid: bool,
    /// Every problem found, in document order.
    pub problems: Vec<Problem>,
}

impl Report {
    /// A report of these problems; `valid` when none has severity `error`.
    pub fn from_problems(problems: Vec<Problem>) -> Report {
        let valid = !problems.iter().any(|p| p.severity == Severity::Error);
        Report { valid, problems }
    }
}

pub(crate) use crate::limits::MAX_SAFE_INTEGER;

/// Builds child locations.
pub(crate) trait LocExt {
    /// The location of an object member.
    fn key(&self, key: &str) -> Vec<LocStep>;
    /// The location of an array element.
    fn idx(&self, index: usize) -> Vec<LocStep>;
}

impl LocExt for [LocStep] {
    fn key(&self, key: &str) -> Vec<LocStep> {
        let mut out = self.to_vec();
        out.push(LocStep::Key(key.to_string()));
        out
    }

    fn idx(&self, index: usize) -> Vec<LocStep> {
        let mut out = self.to_vec();
        out.push(LocStep::Index(index));
        out
    }
}

/// Joins a node path and a relative path ("" is the root).
pub(crate) fn join_path(parent: &str, child: &str) -> String {
    if child.is_empty() {
        parent.to_string()
    } else {
        join_member(parent, child)
    }
}

/// Joins a parent path and a member name ("" + "a" = "a", "a" + "b" = "a/b"): the crate's one
/// path joiner (`model::join_path` is this one).
pub(crate) fn join_member(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

/// The path of the group a node path is in ("a/b" → "a", "a" → ""; the root's is ""): the
/// inverse of [`join_member`].
pub(crate) fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// The name of a v3 named value (a codec, data type, grid…): the string itself, or the
/// object's `name`.
pub(crate) fn name_of(named: &Value) -> Option<&str> {
    match named {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("name").and_then(Value::as_str),
        _ => None,
    }
}

/// A short rendering of a value for messages: bounded in length and depth.
pub(crate) fn show(value: &Value) -> String {
    let mut out = String::new();
    render(value, 0, &mut out);
    if out.chars().count() > 80 {
        let cut: String = out.chars().take(77).collect();
        return format!("{cut}…");
    }
    out
}

fn render(value: &Value, depth: usize, out: &mut String) {
    match value {
        Value::String(s) => {
            let shown: String = s.chars().take(60).collect();
            out.push_str(&crate::json::to_compact(&Value::String(shown)));
            if s.chars().count() > 60 {
                out.push('…');
            }
        }
        Value::Array(items) => {
            if depth > 1 {
                out.push_str("[…]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate().take(8) {
                if i > 0 {
                    out.push_str(", ");
                }
                render(item, depth.saturating_add(1), out);
            }
            if items.len() > 8 {
                out.push_str(", …");
            }
            out.push(']');
        }
        Value::Object(map) => {
            if depth > 1 || map.len() > 4 {
                out.push_str("{…}");
                return;
            }
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&crate::json::to_compact(&Value::String(k.clone())));
                out.push_str(": ");
                render(v, depth.saturating_add(1), out);
            }
            out.push('}');
        }
        other => out.push_str(&crate::json::to_compact(other)),
    }
}

/// The JSON type name of a value.
pub(crate) fn tname(value: &Value) -> &'static str {
    crate::json::type_name(value)
}

/// What is wrong with one value: its problem kind and message. The `check_*` functions return
/// it and the `expect_*` ones report it; the codec configuration reader
/// (`crate::problem::config`) reports it too, so one value check has one wording everywhere.
pub(crate) type Bad = (ProblemKind, String);

fn wrong_type(what: &str, want: &str, value: &Value) -> Bad {
    (
        ProblemKind::InvalidType,
        format!(
            "{what} must be {want}, not {} {}",
            tname(value),
            show(value)
        ),
    )
}

/// An object.
pub(crate) fn check_object<'v>(
    value: &'v Value,
    what: &str,
) -> Result<&'v Map<String, Value>, Bad> {
    value
        .as_object()
        .ok_or_else(|| wrong_type(what, "an object", value))
}

/// An array.
pub(crate) fn check_array<'v>(value: &'v Value, what: &str) -> Result<&'v Vec<Value>, Bad> {
    value
        .as_array()
        .ok_or_else(|| wrong_type(what, "an array", value))
}

/// A string.
pub(crate) fn check_str<'v>(value: &'v Value, what: &str) -> Result<&'v str, Bad> {
    value
        .as_str()
        .ok_or_else(|| wrong_type(what, "a string", value))
}

/// A boolean.
pub(crate) fn check_bool(value: &Value, what: &str) -> Result<bool, Bad> {
    value
        .as_bool()
        .ok_or_else(|| wrong_type(what, "a boolean", value))
}

/// A number (integer or float).
pub(crate) fn check_number(value: &Value, what: &str) -> Result<f64, Bad> {
    value
        .as_f64()
        .ok_or_else(|| wrong_type(what, "a number", value))
}

/// A string that is one of `allowed`.
pub(crate) fn check_one_of<'v>(
    value: &'v Value,
    what: &str,
    allowed: &[&str],
) -> Result<&'v str, Bad> {
    let s = check_str(value, what)?;
    if allowed.contains(&s) {
        return Ok(s);
    }
    let list: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
    Err((
        ProblemKind::InvalidValue,
        format!(
            "{what} must be one of {}, not {}",
            list.join(", "),
            show(value)
        ),
    ))
}

/// An integer in `lo..=hi`: `invalid_type` for non-integers (floats included), `invalid_value`
/// for integers out of range.
pub(crate) fn check_int_range(value: &Value, what: &str, lo: i64, hi: i64) -> Result<i64, Bad> {
    let range = if lo == i64::MIN && hi == i64::MAX {
        "an integer".to_string()
    } else if hi == i64::MAX {
        format!("an integer ≥ {lo}")
    } else {
        format!("an integer from {lo} to {hi}")
    };
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => match n.as_i64() {
            Some(v) if (lo..=hi).contains(&v) => Ok(v),
            _ => Err((
                ProblemKind::InvalidValue,
                format!("{what} must be {range}, not {n}"),
            )),
        },
        other => Err(wrong_type(what, &range, other)),
    }
}

/// A non-negative integer at least `min` (as u64): `invalid_type` for non-integers (floats
/// included, and integers too large for JSON parsing to keep exact), `invalid_value` for
/// negatives or values below `min`.
pub(crate) fn check_uint(value: &Value, what: &str, min: u64) -> Result<u64, Bad> {
    // The usual case first: nothing to build for a message.
    if let Some(v) = value.as_u64().filter(|&v| v >= min) {
        return Ok(v);
    }
    let want = if min == 0 {
        "a non-negative integer".to_string()
    } else {
        format!("an integer ≥ {min}")
    };
    match value {
        Value::Number(n) if n.is_u64() || n.is_i64() => Err((
            ProblemKind::InvalidValue,
            format!("{what} must be {want}, not {n}"),
        )),
        other => Err(wrong_type(what, &want, other)),
    }
}
