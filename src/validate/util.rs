//! The problem collector shared by every check, location helpers, and typed getters that
//! report a problem when a value has the wrong type or range.

use super::{LocStep, Problem, ProblemKind, Report, Severity, ValidateOptions};
use serde_json::{Map, Value};

/// How deep documents may nest in one another (consolidated metadata, sharding in sharding).
pub(crate) const MAX_NESTING: usize = 32;

pub(crate) use crate::limits::MAX_SAFE_INTEGER;

/// Collects problems for one validation run.
pub(crate) struct Ctx<'o> {
    pub(crate) opts: &'o ValidateOptions,
    /// The node path problems are reported at.
    pub(crate) path: String,
    /// How many documents deep we are.
    pub(crate) depth: usize,
    problems: Vec<Problem>,
}

impl<'o> Ctx<'o> {
    pub(crate) fn new(opts: &'o ValidateOptions) -> Self {
        Ctx {
            opts,
            path: String::new(),
            depth: 0,
            problems: Vec::new(),
        }
    }

    pub(crate) fn into_report(self) -> Report {
        Report::from_problems(self.problems)
    }

    /// An error-severity problem at the current path.
    pub(crate) fn error(&mut self, loc: &[LocStep], kind: ProblemKind, message: impl Into<String>) {
        self.problems.push(Problem {
            path: self.path.clone(),
            loc: loc.to_vec(),
            kind,
            message: message.into(),
            severity: Severity::Error,
            spec: None,
            rule: None,
        });
    }

    /// A warning, recorded only in strict mode.
    pub(crate) fn warn(&mut self, loc: &[LocStep], kind: ProblemKind, message: impl Into<String>) {
        if self.opts.strict {
            self.problems.push(Problem {
                path: self.path.clone(),
                loc: loc.to_vec(),
                kind,
                message: message.into(),
                severity: Severity::Warning,
                spec: None,
                rule: None,
            });
        }
    }

    /// Runs `f` with the path switched to `path`, then restores it.
    pub(crate) fn at_path<R>(&mut self, path: String, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = std::mem::replace(&mut self.path, path);
        let out = f(self);
        self.path = saved;
        out
    }

    /// Runs the registered handler of `name`, if any; returns whether `name` is registered.
    pub(crate) fn run_handler(&mut self, name: &str, value: &Value, loc: &[LocStep]) -> bool {
        match self.opts.registry.lookup(name) {
            Some(Some(handler)) => {
                let found = handler.check(value, &self.path, loc);
                self.problems.extend(found);
                true
            }
            Some(None) => true,
            None => false,
        }
    }
}

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

/// Joins a node path and a relative path, `""` being the node itself
/// ([`crate::model::join_path`] otherwise).
pub(crate) fn join_path(parent: &str, child: &str) -> String {
    if child.is_empty() {
        parent.to_string()
    } else {
        crate::model::join_path(parent, child)
    }
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

/// A required member: reports `missing_key` when absent.
pub(crate) fn required<'v>(
    cx: &mut Ctx,
    obj: &'v Map<String, Value>,
    loc: &[LocStep],
    key: &str,
    what: &str,
) -> Option<&'v Value> {
    let found = obj.get(key);
    if found.is_none() {
        cx.error(
            &loc.key(key),
            ProblemKind::MissingKey,
            format!("{what} has no '{key}'"),
        );
    }
    found
}

/// Reports `unknown_key` for every member not in `allowed`.
pub(crate) fn unknown_keys(
    cx: &mut Ctx,
    obj: &Map<String, Value>,
    loc: &[LocStep],
    allowed: &[&str],
    what: &str,
) {
    for key in obj.keys() {
        if !allowed.contains(&key.as_str()) {
            cx.error(
                &loc.key(key),
                ProblemKind::UnknownKey,
                format!("'{key}' is not a key of {what}"),
            );
        }
    }
}

/// What is wrong with one value: its problem kind and message. The `check_*` functions return
/// it and the `expect_*` ones report it; the codec configuration reader
/// (`crate::codec::config`) reports it too, so one value check has one wording everywhere.
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

/// Reports a check's problem at `loc`; the value when there is none.
pub(crate) fn report<T>(cx: &mut Ctx, loc: &[LocStep], checked: Result<T, Bad>) -> Option<T> {
    match checked {
        Ok(v) => Some(v),
        Err((kind, message)) => {
            cx.error(loc, kind, message);
            None
        }
    }
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

/// An object, or an `invalid_type` problem.
pub(crate) fn expect_object<'v>(
    cx: &mut Ctx,
    value: &'v Value,
    loc: &[LocStep],
    what: &str,
) -> Option<&'v Map<String, Value>> {
    report(cx, loc, check_object(value, what))
}

/// An array, or an `invalid_type` problem.
pub(crate) fn expect_array<'v>(
    cx: &mut Ctx,
    value: &'v Value,
    loc: &[LocStep],
    what: &str,
) -> Option<&'v Vec<Value>> {
    report(cx, loc, check_array(value, what))
}

/// A string, or an `invalid_type` problem.
pub(crate) fn expect_str<'v>(
    cx: &mut Ctx,
    value: &'v Value,
    loc: &[LocStep],
    what: &str,
) -> Option<&'v str> {
    report(cx, loc, check_str(value, what))
}

/// A boolean, or an `invalid_type` problem.
pub(crate) fn expect_bool(
    cx: &mut Ctx,
    value: &Value,
    loc: &[LocStep],
    what: &str,
) -> Option<bool> {
    report(cx, loc, check_bool(value, what))
}

/// A string that must be one of `allowed`.
pub(crate) fn expect_one_of<'v>(
    cx: &mut Ctx,
    value: &'v Value,
    loc: &[LocStep],
    what: &str,
    allowed: &[&str],
) -> Option<&'v str> {
    report(cx, loc, check_one_of(value, what, allowed))
}

/// A non-negative integer at least `min` (see [`check_uint`]).
pub(crate) fn expect_uint(
    cx: &mut Ctx,
    value: &Value,
    loc: &[LocStep],
    what: &str,
    min: u64,
) -> Option<u64> {
    report(cx, loc, check_uint(value, what, min))
}

/// A list of non-negative integers (each at least `min`); `None` if any element is bad (every
/// bad element is reported).
pub(crate) fn expect_uint_list(
    cx: &mut Ctx,
    value: &Value,
    loc: &[LocStep],
    what: &str,
    min: u64,
) -> Option<Vec<u64>> {
    let items = expect_array(cx, value, loc, what)?;
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        // The location and name are built only for a problem.
        if let Some(v) = item.as_u64().filter(|&v| v >= min) {
            out.push(v);
            continue;
        }
        match expect_uint(cx, item, &loc.idx(i), &format!("{what}[{i}]"), min) {
            Some(v) => out.push(v),
            None => ok = false,
        }
    }
    ok.then_some(out)
}
