//! Hierarchy specs: declarative descriptions of a family of hierarchies (a convention such as
//! OME-Zarr or xarray's encoding, or a user's own), checked against a ZOM. A spec says where
//! it applies (its claims), and for the nodes there: the kind, members by name or pattern,
//! array facts (rank, shape, data type, chunking, codecs, dimension names, fill value) and
//! attributes as JSON Schema, and references between nodes taken from attributes. The format
//! is described in ARCHITECTURE.md ("Hierarchy specs") and by `spec.schema.json`.

mod builtin;
mod eval;
mod format;
mod pattern;
mod pointer;
pub(crate) mod schema;
mod view;

pub use builtin::{all as builtin_all, builtin, builtin_text, BUILTIN_NAMES};
pub use format::{Spec, FORMAT_VERSION};

use crate::error::Result;
use crate::validate::hierarchy::{format_of, MAX_TREE_DEPTH};
use crate::validate::{Problem, ProblemKind, Severity};
use eval::{claims_met, Checker, NodeRef};
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
        if depth < MAX_TREE_DEPTH {
            if let Some(members) = node.get("members").and_then(Value::as_object) {
                for (name, child) in members.iter().rev() {
                    let child_path = if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}/{name}")
                    };
                    stack.push((child_path, child, depth + 1));
                }
            }
        }
        out.push((path, node));
    }
    out
}

/// Where the hierarchy claims each of `specs`.
pub fn detect(zom: &Value, specs: &[Arc<Spec>]) -> Vec<Detected> {
    let root_format = format_of(zom);
    let mut out = Vec::new();
    for (path, value) in nodes(zom) {
        let Some(node) = NodeRef::of(value, root_format) else {
            continue;
        };
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
    let root_format = format_of(zom);
    let all = nodes(zom);
    let mut problems = Vec::new();
    for (convention, specs, required) in groups {
        let mut claimed = false;
        for spec in &specs {
            let mut checker = Checker::new(spec, strict, zom);
            if let Some(root) = spec.root.filter(|_| spec.claims.is_empty()) {
                claimed = true;
                checker.check(root, "", zom);
            }
            for (path, value) in &all {
                let Some(node) = NodeRef::of(value, root_format) else {
                    continue;
                };
                let met: Vec<usize> = claims_met(spec, &node, path)
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
