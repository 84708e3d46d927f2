//! The problem collector shared by every check, location helpers, and typed getters that
//! report a problem when a value has the wrong type or range.

use super::{LocStep, Problem, ProblemKind, Report, Severity, ValidateOptions};
pub(crate) use crate::problem::{
    check_array, check_bool, check_object, check_one_of, check_str, check_uint, join_path, name_of,
    show, tname, Bad, LocExt, MAX_SAFE_INTEGER,
};
use serde_json::{Map, Value};

/// How deep documents may nest in one another (consolidated metadata, sharding in sharding).
pub(crate) const MAX_NESTING: usize = 32;

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
        let problem = Problem::error(&self.path, loc, kind, message.into());
        self.problems.push(problem);
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
