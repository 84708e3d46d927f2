//! Named configurations (ZEP 9), `must_understand`, unknown top-level keys, and ZEP 10
//! (draft) `extensions` lists.

use super::names::{is_registered_short, name_form, NameForm};
use super::util::{expect_array, show, tname, Ctx, LocExt};
use super::{LocStep, ProblemKind};
use serde_json::{Map, Value};

/// A well-formed named configuration.
pub(crate) struct Named<'v> {
    /// The extension's name.
    pub(crate) name: &'v str,
    /// `configuration`, when present and an object.
    pub(crate) config: Option<&'v Map<String, Value>>,
    /// `must_understand`, when present and a boolean.
    pub(crate) must_understand: Option<bool>,
    /// Where the name sits (`loc` for a bare string, `loc + "name"` otherwise).
    pub(crate) name_loc: Vec<LocStep>,
}

/// Reads a named configuration (bare name or `{name, configuration, must_understand}`),
/// reporting structural problems and the name's form. `None` when there is no usable name.
pub(crate) fn parse_named<'v>(
    cx: &mut Ctx,
    value: &'v Value,
    loc: &[LocStep],
    what: &str,
) -> Option<Named<'v>> {
    let named = match value {
        Value::String(name) => Named {
            name,
            config: None,
            must_understand: None,
            name_loc: loc.to_vec(),
        },
        Value::Object(obj) => {
            let mut config = None;
            let mut must_understand = None;
            let mut name = None;
            for (key, member) in obj {
                match (key.as_str(), member) {
                    ("name", Value::String(n)) => name = Some(n.as_str()),
                    ("configuration", Value::Object(c)) => config = Some(c),
                    ("must_understand", Value::Bool(b)) => must_understand = Some(*b),
                    ("name", other) | ("configuration", other) | ("must_understand", other) => {
                        let want = match key.as_str() {
                            "name" => "a string",
                            "configuration" => "an object",
                            _ => "a boolean",
                        };
                        cx.error(
                            &loc.key(key),
                            ProblemKind::InvalidType,
                            format!(
                                "{what} '{key}' must be {want}, not {} {}",
                                tname(other),
                                show(other)
                            ),
                        );
                    }
                    _ => cx.error(
                        &loc.key(key),
                        ProblemKind::UnknownKey,
                        format!(
                            "'{key}' is not a key of a named configuration (name, configuration, \
                             must_understand)"
                        ),
                    ),
                }
            }
            if !obj.contains_key("name") {
                cx.error(
                    &loc.key("name"),
                    ProblemKind::MissingKey,
                    format!("{what} has no 'name'"),
                );
            }
            Named {
                name: name?,
                config,
                must_understand,
                name_loc: loc.key("name"),
            }
        }
        other => {
            cx.error(
                loc,
                ProblemKind::InvalidType,
                format!(
                    "{what} must be a name or an object with a 'name', not {} {}",
                    tname(other),
                    show(other)
                ),
            );
            return None;
        }
    };
    match name_form(named.name) {
        Err(message) => {
            cx.error(&named.name_loc, ProblemKind::InvalidValue, message);
            None
        }
        Ok(NameForm::Short)
            if !is_registered_short(named.name)
                && cx.opts.registry.lookup(named.name).is_none() =>
        {
            cx.warn(
                &named.name_loc,
                ProblemKind::InvalidValue,
                format!(
                    "{what} name '{}' is a short name that is not registered in zarr-extensions; \
                     unregistered extensions should use a URI or a 'vendor.name'",
                    named.name
                ),
            );
            Some(named)
        }
        Ok(_) => Some(named),
    }
}

/// An extension point value zom does not implement: registered names run their handler;
/// others are fine with `must_understand: false` (a strict warning) and an error otherwise.
pub(crate) fn unknown_extension(
    cx: &mut Ctx,
    named: &Named,
    value: &Value,
    loc: &[LocStep],
    what: &str,
) {
    if cx.run_handler(named.name, value, loc) {
        return;
    }
    if named.must_understand == Some(false) {
        cx.warn(
            loc,
            ProblemKind::MustUnderstand,
            format!(
                "unknown {what} '{}' is ignored (must_understand: false)",
                named.name
            ),
        );
    } else {
        cx.error(
            loc,
            ProblemKind::MustUnderstand,
            format!(
                "unknown {what} '{}': readers must refuse it unless it has \
                 \"must_understand\": false",
                named.name
            ),
        );
    }
}

/// A top-level key of `zarr.json` that the spec does not define: allowed (ignored) when its
/// value is an object with `"must_understand": false` or its name is registered, an error
/// otherwise.
pub(crate) fn unknown_top_level_key(cx: &mut Ctx, key: &str, value: &Value, loc: &[LocStep]) {
    let here = loc.key(key);
    if cx.run_handler(key, value, &here) {
        return;
    }
    let ignorable = value
        .as_object()
        .and_then(|o| o.get("must_understand"))
        .and_then(Value::as_bool)
        == Some(false);
    if ignorable {
        cx.warn(
            &here,
            ProblemKind::UnknownKey,
            format!("unknown key '{key}' is ignored (must_understand: false)"),
        );
    } else {
        cx.error(
            &here,
            ProblemKind::MustUnderstand,
            format!(
                "unknown key '{key}': readers must refuse it unless its value is an object with \
                 \"must_understand\": false"
            ),
        );
    }
}

/// ZEP 10 (draft) generic extensions zom knows without a registry entry (none yet).
const BUILTIN_EXTENSIONS: &[&str] = &[];

/// A ZEP 10 `extensions` list on an array or group.
pub(crate) fn check_extensions_list(cx: &mut Ctx, value: &Value, loc: &[LocStep]) {
    let Some(items) = expect_array(cx, value, loc, "'extensions'") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let here = loc.idx(i);
        let Some(named) = parse_named(cx, item, &here, "extension") else {
            continue;
        };
        if BUILTIN_EXTENSIONS.contains(&named.name) {
            continue;
        }
        unknown_extension(cx, &named, item, &here, "extension");
    }
}
