//! Checking a hierarchy (ZOM JSON) against compiled specs: where each spec is claimed, and
//! every rule of the node specs that apply there. Never stops at the first problem.

use super::format::{Claim, Kind, NodeRule, Spec, When};
use super::items::{array_fact_of, relative_path, Context};
use super::pointer::Found;
use super::schema::SchemaError;
use super::view::{array_view, node_loc};
use super::Unsettled;
use crate::model::node::{format_of, node_kind, MAX_DEPTH};
use crate::problem::{parent_of, show};
use crate::problem::{LocStep, Problem, ProblemKind, Severity};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A node of the tree being checked, with what the checks need to know of it.
#[derive(Clone, Copy)]
pub(crate) struct NodeRef<'z> {
    pub obj: &'z Map<String, Value>,
    pub version: u64,
    pub is_array: bool,
}

impl<'z> NodeRef<'z> {
    /// The node `value` read as its own version, or else `root_format`'s.
    pub(crate) fn of(value: &'z Value, root_format: Option<u64>) -> Option<NodeRef<'z>> {
        let obj = value.as_object()?;
        let (version, is_array) = node_kind(obj, format_of(value).or(root_format));
        Some(NodeRef {
            obj,
            version,
            is_array,
        })
    }

    fn attributes(&self) -> &'z Value {
        static EMPTY: Value = Value::Null;
        self.obj.get("attributes").unwrap_or(&EMPTY)
    }

    fn members(&self) -> Option<&'z Map<String, Value>> {
        self.obj.get("members").and_then(Value::as_object)
    }

    fn rank(&self) -> Option<usize> {
        self.obj
            .get("shape")
            .and_then(Value::as_array)
            .map(Vec::len)
    }

    fn kind(&self) -> Kind {
        if self.is_array {
            Kind::Array
        } else {
            Kind::Group
        }
    }
}

/// The member names `relative` (`"0"`, `"A/1"`, `"./labels"`) steps through; `None` when a
/// step is `..` (names never climb).
fn steps(relative: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    for step in relative.split('/') {
        match step {
            "" | "." => {}
            ".." => return None,
            name => out.push(name),
        }
    }
    Some(out)
}

/// The member at `relative` below `node`, with its path.
fn resolve<'z>(node: &'z Value, path: &str, relative: &str) -> Option<(String, &'z Value)> {
    let mut at = node;
    let mut out = path.to_string();
    for name in steps(relative)? {
        at = at.get("members")?.get(name)?;
        out = join(&out, name);
    }
    Some((out, at))
}

/// The path that `relative` names below the node at `path`; `None` when it has a `..` step or
/// names the node itself.
pub(crate) fn named_path(path: &str, relative: &str) -> Option<String> {
    let steps = steps(relative)?;
    if steps.is_empty() {
        return None;
    }
    Some(
        steps
            .into_iter()
            .fold(path.to_string(), |out, name| join(&out, name)),
    )
}

/// The parent of the node at `path` (the root's parent is none), with its path.
fn parent<'z>(root: &'z Value, path: &str) -> Option<(String, &'z Value)> {
    if path.is_empty() {
        return None;
    }
    resolve(root, "", parent_of(path))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Group => "group",
        Kind::Array => "array",
    }
}

/// The path of member `name` of the node at `path` ([`crate::model::join_path`]). Unlike the
/// validator's `join_path`, an empty name still makes a path of its own, so below the root a
/// node and its `""` member stay apart.
pub(crate) use crate::model::join_path as join;

fn key(k: &str) -> LocStep {
    LocStep::Key(k.to_string())
}

/// The dimension names of an array: v3 `dimension_names`, or v2 xarray `_ARRAY_DIMENSIONS`.
fn dimension_names<'z>(node: &NodeRef<'z>) -> Option<&'z Vec<Value>> {
    let names = if node.version == 3 {
        node.obj.get("dimension_names")
    } else {
        node.attributes().get("_ARRAY_DIMENSIONS")
    };
    names.and_then(Value::as_array)
}

/// Whether `node` (named `name`) meets a claim's condition.
pub(crate) fn matches(spec: &Spec, when: &When, node: &NodeRef, name: &str) -> bool {
    if when.coordinate_variable {
        let own = dimension_names(node)
            .is_some_and(|d| d.len() == 1 && d.first().and_then(Value::as_str) == Some(name));
        if !(node.is_array && own) {
            return false;
        }
    }
    if when.zarr_format.is_some_and(|f| f != node.version) {
        return false;
    }
    if when.kind.is_some_and(|k| k != node.kind()) {
        return false;
    }
    let schema = |i: Option<usize>, v: &Value| {
        i.and_then(|i| spec.schemas.get(i))
            .is_none_or(|s| s.is_valid(v))
    };
    if when.attributes.is_some() && !schema(when.attributes, node.attributes()) {
        return false;
    }
    if when.array.is_some()
        && !(node.is_array && schema(when.array, &array_view(node.obj, node.version)))
    {
        return false;
    }
    match &when.any_member {
        None => true,
        Some(inner) => node.members().is_some_and(|m| {
            m.iter().any(|(child_name, v)| {
                NodeRef::of(v, Some(node.version))
                    .is_some_and(|child| matches(spec, inner, &child, child_name))
            })
        }),
    }
}

/// The claims of `spec` that `node` meets.
pub(crate) fn claims_met<'s>(spec: &'s Spec, node: &NodeRef, path: &str) -> Vec<&'s Claim> {
    let name = path.rsplit('/').next().unwrap_or(path);
    spec.claims
        .iter()
        .filter(|c| matches(spec, &c.when, node, name))
        .collect()
}

/// Checks nodes against one spec's rules, collecting problems.
pub(crate) struct Checker<'s, 'z> {
    spec: &'s Spec,
    root: &'z Value,
    strict: bool,
    root_format: Option<u64>,
    /// Only what each node's own metadata decides: no members, named nodes or other nodes.
    detached: bool,
    /// What the walk that found the tree could not settle.
    unsettled: &'z Unsettled,
    seen: HashSet<(String, usize)>,
    depth: usize,
    /// Problems found so far.
    pub problems: Vec<Problem>,
}

struct Report<'a> {
    path: &'a str,
    loc: Vec<LocStep>,
    kind: ProblemKind,
    rule: &'a str,
    severity: Severity,
}

impl<'s, 'z> Checker<'s, 'z> {
    /// A checker of `spec` for the tree `root`; `detached`: only what each node's own metadata
    /// decides.
    pub(crate) fn new(
        spec: &'s Spec,
        strict: bool,
        root: &'z Value,
        detached: bool,
        unsettled: &'z Unsettled,
    ) -> Self {
        Checker {
            spec,
            root,
            root_format: format_of(root),
            detached,
            unsettled,
            strict,
            seen: HashSet::new(),
            depth: 0,
            problems: Vec::new(),
        }
    }

    fn report(&mut self, r: Report, message: String) {
        if r.severity == Severity::Warning && !self.strict {
            return;
        }
        self.problems.push(Problem {
            path: r.path.to_string(),
            loc: r.loc,
            kind: r.kind,
            message,
            severity: r.severity,
            spec: Some(self.spec.name.clone()),
            rule: Some(r.rule.to_string()),
        });
    }

    fn error(
        &mut self,
        path: &str,
        loc: Vec<LocStep>,
        kind: ProblemKind,
        rule: &str,
        message: String,
    ) {
        let r = Report {
            path,
            loc,
            kind,
            rule,
            severity: Severity::Error,
        };
        self.report(r, message);
    }

    fn schema_errors(
        &mut self,
        path: &str,
        errors: Vec<SchemaError>,
        relocate: impl Fn(&[LocStep]) -> Vec<LocStep>,
    ) {
        for e in errors {
            let kind = if e.keyword.ends_with("/required") {
                ProblemKind::MissingKey
            } else if e.keyword.ends_with("/type") {
                ProblemKind::InvalidType
            } else {
                ProblemKind::InvalidValue
            };
            let loc = relocate(&e.loc);
            self.error(path, loc, kind, &e.keyword, e.message);
        }
    }

    /// Checks the node at `path` (`value`) against node rule `index`, and what that rule
    /// reaches (its members and referenced nodes). A node is checked once per rule.
    pub(crate) fn check(&mut self, index: usize, path: &str, value: &Value) {
        let spec = self.spec;
        let Some(rule) = spec.nodes.get(index) else {
            return;
        };
        if self.depth > MAX_DEPTH || !self.seen.insert((path.to_string(), index)) {
            return;
        }
        let Some(node) = NodeRef::of(value, self.root_format) else {
            let message = format!("a node must be an object, not {}", show(value));
            self.error(
                path,
                Vec::new(),
                ProblemKind::InvalidType,
                &rule.at,
                message,
            );
            return;
        };
        if let Some(kind) = rule.kind.filter(|k| *k != node.kind()) {
            let loc = if node.version == 3 {
                vec![key("node_type")]
            } else {
                Vec::new()
            };
            let message = format!(
                "must be {} {}, not {}",
                article(kind),
                kind_name(kind),
                kind_name(node.kind())
            );
            self.error(
                path,
                loc,
                ProblemKind::InvalidValue,
                &format!("{}/kind", rule.at),
                message,
            );
            return;
        }
        if let Some(f) = rule.zarr_format.filter(|f| *f != node.version) {
            let message = format!("must be Zarr format {f}, not {}", node.version);
            let at = format!("{}/zarr_format", rule.at);
            self.error(
                path,
                vec![key("zarr_format")],
                ProblemKind::InvalidValue,
                &at,
                message,
            );
        }
        if let Some(schema) = rule.attributes.and_then(|i| spec.schemas.get(i)) {
            let empty = Value::Object(Map::new());
            let attributes = match node.attributes() {
                Value::Null => &empty,
                a => a,
            };
            // Most nodes conform: the yes/no evaluation is cheaper than collecting errors.
            if !schema.is_valid(attributes) {
                let mut errors = Vec::new();
                schema.errors(attributes, &[key("attributes")], &mut errors);
                self.schema_errors(path, errors, <[LocStep]>::to_vec);
            }
        }
        if let Some(schema) = rule
            .recommended
            .filter(|_| self.strict)
            .and_then(|i| spec.schemas.get(i))
            .filter(|s| !s.is_valid(node.attributes()))
        {
            let mut errors = Vec::new();
            schema.errors(node.attributes(), &[key("attributes")], &mut errors);
            for e in errors {
                let r = Report {
                    path,
                    loc: e.loc,
                    kind: ProblemKind::InvalidValue,
                    rule: &e.keyword,
                    severity: Severity::Warning,
                };
                self.report(r, e.message);
            }
        }
        if let Some(schema) = rule
            .array
            .and_then(|i| spec.schemas.get(i))
            .filter(|_| node.is_array)
        {
            let view = array_view(node.obj, node.version);
            if !schema.is_valid(&view) {
                let mut errors = Vec::new();
                schema.errors(&view, &[], &mut errors);
                self.schema_errors(path, errors, |loc| node_loc(loc, node.obj, node.version));
            }
        }
        self.depth += 1;
        if !node.is_array && !self.detached {
            self.members(rule, path, &node);
        }
        if !self.detached {
            self.references(rule, path, value, &node);
        }
        self.lengths(rule, path, &node);
        if let Some(d) = rule.dimensions.as_ref().filter(|_| !self.detached) {
            self.dimensions(d, path, &node);
        }
        self.items(rule, path, value, &node);
        self.depth -= 1;
    }

    fn members(&mut self, rule: &'s NodeRule, path: &str, node: &NodeRef) {
        let empty = Map::new();
        let members = node.members().unwrap_or(&empty);
        for m in &rule.members {
            match members.get(&m.name) {
                None if m.required => {
                    let message = format!("member '{}' is required", m.name);
                    let loc = vec![key("members"), key(&m.name)];
                    self.error(path, loc, ProblemKind::MissingKey, &m.at, message);
                }
                None => {}
                Some(child) => {
                    if let Some(n) = m.node {
                        self.check(n, &join(path, &m.name), child);
                    }
                }
            }
        }
        for p in &rule.patterns {
            let root_format = self.root_format;
            let of_kind = |v: &Value| {
                p.kind
                    .is_none_or(|k| NodeRef::of(v, root_format).is_some_and(|n| n.kind() == k))
            };
            let matched: Vec<(&String, &Value)> = members
                .iter()
                .filter(|(k, v)| p.regex.is_match(k) && of_kind(v))
                .collect();
            let count = matched.len() as u64;
            let loc = vec![key("members")];
            let known = !self.unsettled.unlisted_at(path);
            if let Some(min) = p.min.filter(|&min| count < min && known) {
                let message = format!(
                    "needs at least {min} members matching '{}', has {count}",
                    p.regex.as_str()
                );
                self.error(path, loc.clone(), ProblemKind::MissingKey, &p.at, message);
            }
            if let Some(max) = p.max.filter(|&max| count > max) {
                let message = format!(
                    "may have at most {max} members matching '{}', has {count}",
                    p.regex.as_str()
                );
                self.error(path, loc, ProblemKind::InvalidValue, &p.at, message);
            }
            if let Some(n) = p.node {
                for (name, child) in matched {
                    self.check(n, &join(path, name), child);
                }
            }
        }
        if !rule.other_members {
            for name in members.keys() {
                let known = rule.members.iter().any(|m| &m.name == name)
                    || rule.patterns.iter().any(|p| p.regex.is_match(name));
                if !known {
                    let message = format!("member '{name}' is not allowed here");
                    let loc = vec![key("members"), key(name)];
                    let at = format!("{}/other_members", rule.at);
                    self.error(path, loc, ProblemKind::UnknownKey, &at, message);
                }
            }
        }
    }

    fn references(&mut self, rule: &'s NodeRule, path: &str, value: &Value, node: &NodeRef) {
        let attributes = node.attributes();
        let base = [key("attributes")];
        for r in &rule.references {
            for item in r.for_each.select(attributes, &base) {
                // What every target of this item is compared with, selected once per item.
                let rank_lists = r.rank.as_ref().map(|sel| sel.select(item.value, &item.loc));
                let expected_names: Option<Vec<Value>> = r.dimension_names.as_ref().map(|sel| {
                    sel.select(item.value, &item.loc)
                        .into_iter()
                        .map(|f| f.value.clone())
                        .collect()
                });
                for found in r.from.select(item.value, &item.loc) {
                    for name in self.names_in(&found, r.split.as_deref(), path, &r.rule) {
                        let origin = if r.from_parent {
                            parent(self.root, path)
                        } else {
                            Some((path.to_string(), value))
                        };
                        let settled = |(p, _): &(String, &Value)| {
                            named_path(p, &name).is_none_or(|t| !self.unsettled.unknown_at(&t))
                        };
                        let Some(origin) = origin.filter(settled) else {
                            continue;
                        };
                        let resolved = resolve(origin.1, &origin.0, &name);
                        let Some((target_path, target)) = resolved else {
                            let whose = if r.from_parent { "beside" } else { "below" };
                            let message = format!("'{name}' names no node {whose} this one");
                            let kind = ProblemKind::InvalidValue;
                            let rep = Report {
                                path,
                                loc: found.loc.clone(),
                                kind,
                                rule: &r.rule,
                                severity: r.severity,
                            };
                            self.report(rep, message);
                            continue;
                        };
                        let Some(t) = NodeRef::of(target, self.root_format) else {
                            continue;
                        };
                        if let Some(kind) = r.kind.filter(|k| *k != t.kind()) {
                            let message = format!(
                                "'{name}' must name {} {}, but it is {} {}",
                                article(kind),
                                kind_name(kind),
                                article(t.kind()),
                                kind_name(t.kind())
                            );
                            let rep = Report {
                                path,
                                loc: found.loc.clone(),
                                kind: ProblemKind::InvalidValue,
                                rule: &r.rule,
                                severity: r.severity,
                            };
                            self.report(rep, message);
                            continue;
                        }
                        if let (Some(lists), Some(rank)) = (&rank_lists, t.rank()) {
                            for list in lists {
                                let Some(len) = list.value.as_array().map(Vec::len) else {
                                    continue;
                                };
                                if len != rank {
                                    let message = format!("has {len} entries, but the array '{target_path}' it describes has {rank} dimensions");
                                    let rep = Report {
                                        path,
                                        loc: list.loc.clone(),
                                        kind: ProblemKind::InvalidValue,
                                        rule: &r.rule,
                                        severity: r.severity,
                                    };
                                    self.report(rep, message);
                                }
                            }
                        }
                        if let (Some(sel), Some(expected)) = (&r.dimension_names, &expected_names) {
                            if t.is_array {
                                let actual = if t.version == 3 {
                                    t.obj.get("dimension_names")
                                } else {
                                    None
                                };
                                if actual.and_then(Value::as_array) != Some(expected) {
                                    let shown = actual.map_or_else(|| "none".to_string(), show);
                                    let message = format!("dimension_names {shown} must be {} (the names at {} of '{path}')", show(&Value::Array(expected.clone())), loc_text(&item.loc, sel.text()));
                                    let rep = Report {
                                        path: &target_path,
                                        loc: vec![key("dimension_names")],
                                        kind: ProblemKind::InvalidValue,
                                        rule: &r.rule,
                                        severity: r.severity,
                                    };
                                    self.report(rep, message);
                                }
                            }
                        }
                        if let Some(n) = r.node {
                            self.check(n, &target_path, target);
                        }
                    }
                }
            }
        }
    }

    /// The node names a found value holds: a string, or with `split` the non-empty parts. A
    /// null names nothing (OME-Zarr 0.6: a path "MAY be omitted or null"); the attributes
    /// schema says where null is allowed.
    fn names_in(
        &mut self,
        found: &Found,
        split: Option<&str>,
        path: &str,
        rule: &str,
    ) -> Vec<String> {
        match (found.value, split) {
            (Value::String(s), None) => vec![s.clone()],
            (Value::String(s), Some(sep)) => s
                .split(sep)
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect(),
            (Value::Null, _) => Vec::new(),
            (other, _) => {
                let message = format!("must be a string naming a node, not {}", show(other));
                self.error(
                    path,
                    found.loc.clone(),
                    ProblemKind::InvalidType,
                    rule,
                    message,
                );
                Vec::new()
            }
        }
    }

    fn items(&mut self, rule: &'s NodeRule, path: &str, value: &Value, node: &NodeRef) {
        let root = self.root;
        let root_format = self.root_format;
        let array_at = |relative: &str, fact: &str| {
            let (_, target) = resolve(value, path, relative)?;
            array_fact_of(target, root_format, fact)
        };
        let attributes_at = |relative: &str| {
            let (_, target) = resolve(root, "", &relative_path(path, relative)?)?;
            target.get("attributes")
        };
        let cx = Context {
            attributes: node.attributes(),
            locate: true,
            array_at: &array_at,
            attributes_at: &attributes_at,
        };
        for (head, f) in rule.items.check(&cx) {
            let rep = Report {
                path,
                loc: f.loc,
                kind: f.kind,
                rule: &head.rule,
                severity: head.severity,
            };
            self.report(rep, f.message);
        }
    }

    fn lengths(&mut self, rule: &'s NodeRule, path: &str, node: &NodeRef) {
        let base = [key("attributes")];
        for l in &rule.lengths {
            for item in l.for_each.select(node.attributes(), &base) {
                let mut first: Option<(usize, String)> = match (l.rank, node.rank()) {
                    (true, Some(rank)) if node.is_array => {
                        Some((rank, "the array's rank".to_string()))
                    }
                    _ => None,
                };
                for sel in &l.equal {
                    for found in sel.select(item.value, &item.loc) {
                        let Some(len) = found.value.as_array().map(Vec::len) else {
                            continue;
                        };
                        match &first {
                            None => {
                                first = Some((
                                    len,
                                    format!("{} entries at {}", len, loc_text(&found.loc, "")),
                                ))
                            }
                            Some((want, what)) if *want != len => {
                                let message = if what.starts_with("the array") {
                                    format!(
                                        "has {len} entries, but the array has {want} dimensions"
                                    )
                                } else {
                                    format!("has {len} entries, but there are {what}")
                                };
                                let rep = Report {
                                    path,
                                    loc: found.loc.clone(),
                                    kind: ProblemKind::InvalidValue,
                                    rule: &l.rule,
                                    severity: l.severity,
                                };
                                self.report(rep, message);
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
        }
    }

    fn dimensions(&mut self, d: &'s super::format::Dimensions, path: &str, node: &NodeRef) {
        let Some(members) = node.members() else {
            return;
        };
        let mut sizes: Vec<(String, u64, String)> = Vec::new();
        for (name, child) in members {
            let Some(c) = NodeRef::of(child, self.root_format).filter(|c| c.is_array) else {
                continue;
            };
            let Some(shape) = c.obj.get("shape").and_then(Value::as_array) else {
                continue;
            };
            let names: Option<&Vec<Value>> = match &d.names {
                None => c.obj.get("dimension_names").and_then(Value::as_array),
                Some(sel) => sel
                    .select(c.attributes(), &[])
                    .into_iter()
                    .next()
                    .and_then(|f| f.value.as_array()),
            };
            let Some(names) = names.filter(|n| n.len() == shape.len()) else {
                continue;
            };
            let child_path = join(path, name);
            for (i, (dim, size)) in names.iter().zip(shape).enumerate() {
                let (Some(dim), Some(size)) = (dim.as_str(), size.as_u64()) else {
                    continue;
                };
                match sizes.iter().find(|(n, _, _)| n == dim) {
                    Some((_, want, other)) if *want != size => {
                        let message = format!(
                            "dimension '{dim}' has length {size} here but {want} in '{other}'"
                        );
                        let loc = vec![key("shape"), LocStep::Index(i)];
                        let rep = Report {
                            path: &child_path,
                            loc,
                            kind: ProblemKind::InvalidValue,
                            rule: &d.rule,
                            severity: d.severity,
                        };
                        self.report(rep, message);
                    }
                    Some(_) => {}
                    None => sizes.push((dim.to_string(), size, child_path.clone())),
                }
            }
        }
    }
}

fn article(kind: Kind) -> &'static str {
    match kind {
        Kind::Group => "a",
        Kind::Array => "an",
    }
}

/// A location as `attributes/ome/axes` (plus a selector suffix).
fn loc_text(loc: &[LocStep], suffix: &str) -> String {
    let text = super::items::loc_text(loc);
    match suffix.trim_start_matches('/') {
        "" => text,
        s if text.is_empty() => s.to_string(),
        s => format!("{text}/{s}"),
    }
}
