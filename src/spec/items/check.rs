//! Checking item rules on a node's attributes.

use super::{Across, Compare, Direction, Head, ItemRules, Matches, Monotone, Order, Part, Unique};
use crate::problem::show;
use crate::problem::{LocStep, ProblemKind};
use crate::spec::pointer::{Found, Selector};
use crate::spec::view::array_fact;
use serde_json::Value;
use std::collections::HashMap;

/// What an item rule found wrong: where (from the node), and why.
pub(crate) struct Finding {
    pub loc: Vec<LocStep>,
    pub kind: ProblemKind,
    pub message: String,
}

/// A node's attributes and the nodes around it, as item rules see them.
#[derive(Clone, Copy)]
pub(crate) struct Context<'z> {
    pub attributes: &'z Value,
    /// Whether findings need their locations (a first pass without them finds whether there
    /// is anything to report at all).
    pub locate: bool,
    /// One array fact (`shape`, `data_type`, … as in a spec's `array` view) of the node at a
    /// path relative to this node, if that node is an array.
    pub array_at: &'z dyn Fn(&str, &str) -> Option<Value>,
    /// The attributes of the node at a path relative to this node (`..` steps up).
    pub attributes_at: &'z dyn Fn(&str) -> Option<&'z Value>,
}

fn attribute_base(cx: &Context) -> Vec<LocStep> {
    if cx.locate {
        vec![LocStep::Key("attributes".to_string())]
    } else {
        Vec::new()
    }
}

fn finding(loc: &[LocStep], message: String) -> Finding {
    Finding {
        loc: loc.to_vec(),
        kind: ProblemKind::InvalidValue,
        message,
    }
}

/// The first value `selector` finds in `value`.
fn first<'v>(
    cx: &Context,
    selector: &Selector,
    value: &'v Value,
    base: &[LocStep],
) -> Option<Found<'v>> {
    selector
        .select_in(value, base, cx.locate)
        .into_iter()
        .next()
}

/// A location as people read it (`attributes/ome/axes/0/name`).
pub(crate) fn loc_text(loc: &[LocStep]) -> String {
    loc.iter()
        .map(|s| match s {
            LocStep::Key(k) => k.clone(),
            LocStep::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Checks one rule: first without locations (most nodes conform, and then nothing is
/// allocated for them), again with them when it found something.
fn run<'r>(
    head: &'r Head,
    check: impl Fn(&Context) -> Vec<Finding>,
    cx: &Context,
    out: &mut Vec<(&'r Head, Finding)>,
) {
    let quick = Context {
        locate: false,
        ..*cx
    };
    if !check(&quick).is_empty() {
        out.extend(check(cx).into_iter().map(|f| (head, f)));
    }
}

impl ItemRules {
    /// Checks every item rule on a node (`cx` with `locate`); each finding with its rule's
    /// name and severity.
    pub(crate) fn check<'r>(&'r self, cx: &Context) -> Vec<(&'r Head, Finding)> {
        let mut out = Vec::new();
        for r in &self.unique {
            run(&r.head, |cx| r.check(cx), cx, &mut out);
        }
        for r in &self.order {
            run(&r.head, |cx| r.check(cx), cx, &mut out);
        }
        for r in &self.monotone {
            run(&r.head, |cx| r.check(cx), cx, &mut out);
        }
        for r in &self.matches {
            run(&r.head, |cx| r.check(cx), cx, &mut out);
        }
        for r in &self.across {
            run(&r.head, |cx| r.check(cx), cx, &mut out);
        }
        out
    }
}

impl Head {
    /// The items of the attributes the rule applies within.
    fn scopes<'v>(&self, cx: &Context<'v>) -> Vec<Found<'v>> {
        self.for_each
            .select_in(cx.attributes, &attribute_base(cx), cx.locate)
    }
}

impl Unique {
    fn check(&self, cx: &Context) -> Vec<Finding> {
        let mut out = Vec::new();
        for scope in self.head.scopes(cx) {
            let mut seen: HashMap<String, Vec<LocStep>> = HashMap::new();
            for item in self.items.select_in(scope.value, &scope.loc, cx.locate) {
                let Some(key) = first(cx, &self.key, item.value, &item.loc) else {
                    continue;
                };
                let text = serde_json::to_string(key.value).unwrap_or_default();
                match seen.get(&text) {
                    Some(earlier) => out.push(finding(
                        &key.loc,
                        format!(
                            "{} is a duplicate of {} (must be unique)",
                            show(key.value),
                            loc_text(earlier)
                        ),
                    )),
                    None => {
                        seen.insert(text, key.loc);
                    }
                }
            }
        }
        out
    }
}

impl Order {
    fn category(&self, value: &Value) -> Option<usize> {
        self.categories
            .iter()
            .position(|c| c.contains(value))
            .or(self.wildcard)
    }

    fn check(&self, cx: &Context) -> Vec<Finding> {
        let mut out = Vec::new();
        for scope in self.head.scopes(cx) {
            // The highest category so far, with the value and location that set it.
            let mut highest: Option<(usize, &Value, Vec<LocStep>)> = None;
            for item in self.items.select_in(scope.value, &scope.loc, cx.locate) {
                let Some(key) = first(cx, &self.key, item.value, &item.loc) else {
                    continue;
                };
                let Some(c) = self.category(key.value) else {
                    continue;
                };
                match &highest {
                    Some((h, value, loc)) if c < *h => out.push(finding(
                        &item.loc,
                        format!(
                            "{} must come before {} (at {})",
                            show(key.value),
                            show(value),
                            loc_text(loc)
                        ),
                    )),
                    Some((h, _, _)) if c == *h => {}
                    _ => highest = Some((c, key.value, item.loc.clone())),
                }
            }
        }
        out
    }
}

/// Numbers, or lists of numbers of one length, in order; any two values for `Equal`.
fn in_order(direction: Direction, before: &Value, after: &Value) -> Option<bool> {
    if direction == Direction::Equal {
        return Some(before == after);
    }
    let pair = |a: f64, b: f64| match direction {
        Direction::Equal => a == b,
        Direction::NonDecreasing => b >= a,
        Direction::NonIncreasing => b <= a,
        Direction::Increasing => b > a,
        Direction::Decreasing => b < a,
    };
    match (before, after) {
        (Value::Number(a), Value::Number(b)) => Some(pair(a.as_f64()?, b.as_f64()?)),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            let mut ok = true;
            for (x, y) in a.iter().zip(b) {
                ok &= pair(x.as_f64()?, y.as_f64()?);
            }
            Some(ok)
        }
        _ => None,
    }
}

fn direction_text(direction: Direction) -> &'static str {
    match direction {
        Direction::NonDecreasing => "at least",
        Direction::NonIncreasing => "at most",
        Direction::Increasing => "greater than",
        Direction::Decreasing => "less than",
        Direction::Equal => "equal to",
    }
}

impl Monotone {
    fn check(&self, cx: &Context) -> Vec<Finding> {
        let mut out = Vec::new();
        for scope in self.head.scopes(cx) {
            let mut previous: Option<(Value, String)> = None;
            for item in self.items.select_in(scope.value, &scope.loc, cx.locate) {
                // The value, where a finding is reported, and how it is named in messages.
                let (value, loc, name) = match &self.node_path {
                    None => {
                        let Some(found) = first(cx, &self.key, item.value, &item.loc) else {
                            continue;
                        };
                        let name = loc_text(&found.loc);
                        (found.value.clone(), found.loc, name)
                    }
                    Some(sel) => {
                        let Some(path) = first(cx, sel, item.value, &item.loc) else {
                            continue;
                        };
                        let Some(name) = path.value.as_str() else {
                            continue;
                        };
                        let Some((fact, rest)) = self.key.split_first_key() else {
                            continue;
                        };
                        let Some(fact_value) = (cx.array_at)(name, fact) else {
                            continue;
                        };
                        let Some(found) = first(cx, &rest, &fact_value, &[]) else {
                            continue;
                        };
                        let what = if cx.locate {
                            format!("{} of '{name}'", self.key.text().trim_start_matches('/'))
                        } else {
                            String::new()
                        };
                        (found.value.clone(), path.loc, what)
                    }
                };
                if let Some((before, before_name)) = &previous {
                    if in_order(self.direction, before, &value) == Some(false) {
                        let message = format!(
                            "{} ({name}) must be {} {} ({before_name}){}",
                            show(&value),
                            direction_text(self.direction),
                            show(before),
                            if value.is_array() {
                                " in every entry"
                            } else {
                                ""
                            }
                        );
                        out.push(finding(&loc, message));
                    }
                }
                previous = Some((value, name));
            }
        }
        out
    }
}

/// A string as itself, any other value as JSON.
fn push_text(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.push_str(s),
        other => out.push_str(&show(other)),
    }
}

impl Matches {
    /// The string the parts build for `item`, or why they cannot (None: a part is absent,
    /// which the attributes' schema reports).
    fn expected(
        &self,
        cx: &Context,
        item: &Found,
        sources: &mut Vec<String>,
    ) -> Option<Result<String, Finding>> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Own { key } => {
                    let value = first(cx, key, item.value, &item.loc)?;
                    sources.push(loc_text(&value.loc));
                    push_text(&mut out, value.value);
                }
                Part::Item { from, index, key } => {
                    let list = first(cx, from, cx.attributes, &attribute_base(cx))?;
                    let items = list.value.as_array()?;
                    let at = first(cx, index, item.value, &item.loc)?;
                    let i = at.value.as_u64()?;
                    let Some(chosen) = usize::try_from(i).ok().and_then(|i| items.get(i)) else {
                        return Some(Err(finding(
                            &at.loc,
                            format!(
                                "{i} is no index of {} ({} items)",
                                loc_text(&list.loc),
                                items.len()
                            ),
                        )));
                    };
                    let mut loc = list.loc.clone();
                    loc.push(LocStep::Index(i as usize));
                    let value = first(cx, key, chosen, &loc)?;
                    sources.push(loc_text(&value.loc));
                    push_text(&mut out, value.value);
                }
            }
        }
        Some(Ok(out))
    }

    fn check(&self, cx: &Context) -> Vec<Finding> {
        let mut out = Vec::new();
        for item in self.head.scopes(cx) {
            let Some(value) = first(cx, &self.value, item.value, &item.loc) else {
                continue;
            };
            let mut sources = Vec::new();
            match self.expected(cx, &item, &mut sources) {
                None => {}
                Some(Err(f)) => out.push(f),
                Some(Ok(expected)) if value.value.as_str() != Some(expected.as_str()) => {
                    let from = if sources.is_empty() {
                        String::new()
                    } else {
                        format!(" (from {})", sources.join(", "))
                    };
                    out.push(finding(
                        &value.loc,
                        format!("{} must be \"{expected}\"{from}", show(value.value)),
                    ));
                }
                Some(Ok(_)) => {}
            }
        }
        out
    }
}

impl Across {
    fn check(&self, cx: &Context) -> Vec<Finding> {
        let mut out = Vec::new();
        let Some(other_attributes) = (cx.attributes_at)(&self.node) else {
            return out;
        };
        let others = self.other.select_in(other_attributes, &[], cx.locate);
        let Some(other) = others.first() else {
            return out;
        };
        let there = format!(
            "{} of the node '{}'",
            loc_text(&other.loc).trim_start_matches('/'),
            self.node
        );
        for scope in self.head.scopes(cx) {
            let Some(mine) = first(cx, &self.value, scope.value, &scope.loc) else {
                continue;
            };
            let message = match self.compare {
                Compare::Length => match (mine.value.as_array(), other.value.as_array()) {
                    (Some(a), Some(b)) if a.len() != b.len() => Some(format!(
                        "has {} entries, but {there} has {}",
                        a.len(),
                        b.len()
                    )),
                    _ => None,
                },
                Compare::Value => (mine.value != other.value).then(|| {
                    format!(
                        "{} must equal {there}: {}",
                        show(mine.value),
                        show(other.value)
                    )
                }),
                Compare::OneOf => (!others.iter().any(|o| o.value == mine.value)).then(|| {
                    let values: Vec<Value> = others.iter().map(|o| o.value.clone()).collect();
                    format!(
                        "{} must be one of {} (at {} of the node '{}')",
                        show(mine.value),
                        show(&Value::Array(values)),
                        self.other.text().trim_start_matches('/'),
                        self.node
                    )
                }),
            };
            if let Some(message) = message {
                out.push(finding(&mine.loc, message));
            }
        }
        out
    }
}

/// The path `relative` leads to from the node at `path` (`..` steps up; None above the root).
pub(crate) fn relative_path(path: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    for step in relative.split('/') {
        match step {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// Fact `name` of `node`'s array view when it is an array.
pub(crate) fn array_fact_of(node: &Value, root_format: Option<u64>, name: &str) -> Option<Value> {
    let n = crate::spec::eval::NodeRef::of(node, root_format)?;
    n.is_array.then(|| array_fact(n.obj, n.version, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_step_up_and_down() {
        assert_eq!(relative_path("a/labels/l", "../..").as_deref(), Some("a"));
        assert_eq!(relative_path("a", "0").as_deref(), Some("a/0"));
        assert_eq!(relative_path("", "./x/y").as_deref(), Some("x/y"));
        assert_eq!(relative_path("a", "../..").as_deref(), None);
    }

    #[test]
    fn monotone_compares_numbers_and_lists() {
        use Direction::*;
        let v = |t: &str| serde_json::from_str::<Value>(t).unwrap();
        assert_eq!(
            in_order(NonDecreasing, &v("[1,2]"), &v("[2,2]")),
            Some(true)
        );
        assert_eq!(
            in_order(NonDecreasing, &v("[1,2]"), &v("[2,1]")),
            Some(false)
        );
        assert_eq!(in_order(Increasing, &v("2"), &v("2")), Some(false));
        assert_eq!(in_order(NonIncreasing, &v("[1]"), &v("[1,2]")), None);
        assert_eq!(in_order(Decreasing, &v("\"a\""), &v("1")), None);
    }
}
