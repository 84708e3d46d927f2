//! Hierarchy specs: declarative descriptions of a family of hierarchies (a convention such as
//! OME-Zarr or xarray's encoding, or a user's own), checked against a ZOM. A spec says where
//! it applies (its claims), and for the nodes there: the kind, members by name or pattern,
//! array facts (rank, shape, data type, chunking, codecs, dimension names, fill value) and
//! attributes as JSON Schema, and references between nodes taken from attributes. The format
//! is described in ARCHITECTURE.md ("Hierarchy specs") and by `spec.schema.json`.

mod builtin;
mod eval;
mod follow;
mod format;
mod items;

/// The path a relative path (`../..`) leads to from a node path: the one rule specs and views resolve by.
pub(crate) use items::relative_path;
mod pattern;
mod pointer;
pub(crate) mod schema;
mod view;

#[cfg(not(feature = "builtin-specs"))]
pub use builtin::set_texts as set_builtin_texts;
pub use builtin::{all as builtin_all, builtin, builtin_text, names as builtin_names};
pub use follow::{Follower, Named, RuleRef};
pub use format::{Spec, FORMAT_VERSION};

use crate::error::Result;
use crate::model::node::{format_of, MAX_DEPTH};
use crate::problem::{Problem, ProblemKind, Severity};
use eval::{claims_met, join, Checker, NodeRef};
use serde_json::Value;
use std::sync::Arc;

/// The JSON Schema (draft 2020-12) of the spec format.
pub const SPEC_SCHEMA: &str = include_str!("spec.schema.json");

impl Spec {
    /// Reads a spec document (JSON with `"zom_spec": 1`). Every problem with it is listed in
    /// one `InvalidArgument` error, each at its JSON pointer.
    pub fn from_value(doc: &Value) -> Result<Spec> {
        format::read(doc)
    }
}

/// What a walk could not settle about a hierarchy's members: checks about members report
/// nothing there that was never asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unsettled {
    /// Groups whose members could not be listed and whose metadata names none: how many
    /// members they have is not known.
    pub unlisted: Vec<String>,
    /// Node paths whose presence is not known (a request that failed, a path below the depth
    /// walked): nothing at or below them is reported missing.
    pub unknown: Vec<String>,
}

impl Unsettled {
    /// Whether the node at `path` may exist without the walk having found it.
    pub(crate) fn unknown_at(&self, path: &str) -> bool {
        self.unknown.iter().any(|u| {
            u.is_empty()
                || path == u
                || path
                    .strip_prefix(u.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }

    /// Whether the members of the group at `path` are not all known.
    pub(crate) fn unlisted_at(&self, path: &str) -> bool {
        self.unlisted.iter().any(|u| u == path) || self.unknown_at(path)
    }
}

/// Whether a JSON value is a spec document rather than a ZOM (it has `zom_spec`).
pub fn is_spec(value: &Value) -> bool {
    value.get("zom_spec").is_some()
}

/// Which specs a hierarchy validation checks.
#[derive(Clone)]
pub enum SpecChoice {
    /// One spec; the hierarchy must claim it (or, for a spec without claims, its root is
    /// checked).
    Spec(Arc<Spec>),
    /// A convention's built-in specs (from [`builtin`]); the hierarchy must claim one.
    Convention(String, Vec<Arc<Spec>>),
    /// Every built-in convention the hierarchy claims ([`detect_conventions`]).
    Auto,
}

/// The names [`SpecChoice::named`] takes: `auto`, then [`builtin_names`].
pub fn choice_names() -> Vec<&'static str> {
    std::iter::once("auto").chain(builtin_names()).collect()
}

impl SpecChoice {
    /// The choice a name stands for: `auto`, or a built-in convention or spec
    /// ([`choice_names`]).
    pub fn named(name: &str) -> Result<SpecChoice> {
        if name == "auto" {
            return Ok(SpecChoice::Auto);
        }
        Ok(SpecChoice::Convention(name.to_string(), builtin(name)?))
    }

    /// The specs this choice checks (for `Auto`, every built-in one).
    pub fn specs(&self) -> Vec<Arc<Spec>> {
        match self {
            SpecChoice::Spec(spec) => vec![spec.clone()],
            SpecChoice::Convention(_, specs) => specs.clone(),
            SpecChoice::Auto => builtin::all(),
        }
    }
}

/// A place where a hierarchy claims a spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Detected {
    /// The convention (`ome-zarr`, `xarray`, …).
    pub convention: String,
    /// The spec's name (`ome-zarr-0.5`).
    pub spec: String,
    /// The convention's version, when the spec has one.
    pub version: Option<String>,
    /// Which claim: `image`, `plate`, `dataset`, ….
    pub claim: String,
    /// The node that claims it ("" for the root).
    pub path: String,
}

/// Every node of the tree (path, value), parents first; deeper than the validator's limit is
/// not visited.
fn nodes(zom: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), zom, 0usize)];
    while let Some((path, node, depth)) = stack.pop() {
        if depth < MAX_DEPTH {
            if let Some(members) = node.get("members").and_then(Value::as_object) {
                for (name, child) in members.iter().rev() {
                    stack.push((join(&path, name), child, depth + 1));
                }
            }
        }
        out.push((path, node));
    }
    out
}

/// Every node of the tree that is an object (path, value, the node read as its version),
/// parents first.
fn node_refs(zom: &Value) -> Vec<(String, &Value, NodeRef<'_>)> {
    let root_format = format_of(zom);
    nodes(zom)
        .into_iter()
        .filter_map(|(path, value)| Some((path, value, NodeRef::of(value, root_format)?)))
        .collect()
}

/// Where the hierarchy claims each of `specs`.
pub fn detect(zom: &Value, specs: &[Arc<Spec>]) -> Vec<Detected> {
    let mut out = Vec::new();
    for (path, _, node) in node_refs(zom) {
        for spec in specs {
            for claim in claims_met(spec, &node, &path) {
                out.push(Detected {
                    convention: spec.convention.clone(),
                    spec: spec.name.clone(),
                    version: spec.version.clone(),
                    claim: claim.name.clone(),
                    path: path.clone(),
                });
            }
        }
    }
    out
}

/// Which built-in conventions the hierarchy claims, and where.
pub fn detect_conventions(zom: &Value) -> Vec<Detected> {
    detect(zom, &builtin::all())
}

/// Checks `zom` against the chosen specs; problems carry the spec's name and the failing
/// rule. Warnings (rules marked `"severity": "warning"`) only with `strict`.
pub fn check(zom: &Value, choices: &[SpecChoice], strict: bool) -> Vec<Problem> {
    check_walked(zom, choices, strict, &Unsettled::default())
}

/// [`check`] of a walked hierarchy: a node named by metadata is reported missing only when the
/// walk settled that it is not there, and a group's member counts only when its members are
/// known.
pub fn check_walked(
    zom: &Value,
    choices: &[SpecChoice],
    strict: bool,
    unsettled: &Unsettled,
) -> Vec<Problem> {
    check_tree(zom, choices, strict, false, unsettled)
}

/// Checks a group's attributes alone (a document such as the NGFF test cases, or attributes
/// pasted into a validator) against the chosen specs: the group is read as Zarr 3 when its
/// attributes have an `ome` object, else as Zarr 2, and the rules that need other nodes
/// (members, the nodes attributes name, dimensions across arrays, values of other nodes) are
/// not checked.
pub fn check_attributes(attributes: &Value, choices: &[SpecChoice], strict: bool) -> Vec<Problem> {
    let format = if attributes.get("ome").is_some_and(Value::is_object) {
        3
    } else {
        2
    };
    let group = serde_json::json!({
        "zarr_format": format,
        "node_type": "group",
        "attributes": attributes,
    });
    check_tree(&group, choices, strict, true, &Unsettled::default())
}

/// [`check`], or with `detached` only what a node's own metadata decides.
fn check_tree(
    zom: &Value,
    choices: &[SpecChoice],
    strict: bool,
    detached: bool,
    unsettled: &Unsettled,
) -> Vec<Problem> {
    let mut groups: Vec<(String, Vec<Arc<Spec>>, bool)> = Vec::new();
    for choice in choices {
        match choice {
            SpecChoice::Spec(spec) => {
                groups.push((spec.convention.clone(), vec![spec.clone()], true))
            }
            SpecChoice::Convention(name, specs) => groups.push((name.clone(), specs.clone(), true)),
            SpecChoice::Auto => {
                for (name, specs) in builtin::families() {
                    groups.push((name.to_string(), specs, false));
                }
            }
        }
    }
    // Each node read once, for every spec.
    let all = node_refs(zom);
    let mut problems = Vec::new();
    for (convention, specs, required) in groups {
        let mut claimed = false;
        for spec in &specs {
            let mut checker = Checker::new(spec, strict, zom, detached, unsettled);
            if let Some(root) = spec.root.filter(|_| spec.claims.is_empty()) {
                claimed = true;
                checker.check(root, "", zom);
            }
            for (path, value, node) in &all {
                let met: Vec<usize> = claims_met(spec, node, path)
                    .iter()
                    .map(|c| c.node)
                    .collect();
                for index in met {
                    claimed = true;
                    checker.check(index, path, value);
                }
            }
            problems.extend(checker.problems);
        }
        if !claimed && required {
            let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
            problems.push(Problem {
                path: String::new(),
                loc: Vec::new(),
                kind: ProblemKind::MissingKey,
                message: format!(
                    "no node of the hierarchy claims {convention} (checked: {})",
                    names.join(", ")
                ),
                severity: Severity::Error,
                spec: names.first().map(|s| s.to_string()),
                rule: Some("/claims".to_string()),
            });
        }
    }
    problems
}
