//! What specs say a walk should ask for: the paths a group's metadata names.
//!
//! A node spec names nodes in two ways: members by exact name (`members`: an image's
//! `labels`, a bioformats2raw root's `OME`) and paths taken from attributes (`references`: a
//! multiscale's dataset paths, a plate's wells, a well's images, a labels group's labels, a
//! bioformats2raw collection's series, 0.6 scenes). A walk over a store that cannot list
//! finds members only this way, as viewers do; [`Follower::named`] answers for one group
//! from the rules in force there: those whose claims its own metadata meets, and those the
//! node that named it passed on (a labels group is a labels group because an image named it).

use super::eval::{claims_met, named_path, NodeRef};
use super::format::{Kind, NodeRule, Reference, Spec};
use super::pointer::Found;
use crate::model::node::MAX_DEPTH;
use crate::problem::{parent_of, LocStep};
use serde_json::Value;
use std::sync::Arc;

/// A node rule of one of a [`Follower`]'s specs: what a named node is expected to be, carried
/// to it so that what it names in turn is followed too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleRef {
    spec: usize,
    node: usize,
}

/// A path a group's metadata names, relative to the store root, and the rules that apply to
/// the node there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// The node path (`"A/1"`); every path above it that is below the naming group is named
    /// too (`"A"`), without rules.
    pub path: String,
    /// The rules in force at the named node.
    pub rules: Vec<RuleRef>,
    /// Whether the rules that name it expect an array (`Some(true)`) or a group, when they say.
    pub array: Option<bool>,
    /// Whether it is a path between the naming group and a named one: a group whose members
    /// are named too.
    pub between: bool,
    /// Whether it is a spec's exact member name (an image's `labels`) rather than a path the
    /// group's attributes name: a group that names only those may have members nothing names
    /// (a bioformats2raw root's numbered series).
    pub fixed: bool,
}

/// Follows specs through a hierarchy being walked.
#[derive(Clone, Default)]
pub struct Follower {
    specs: Vec<Arc<Spec>>,
}

impl Follower {
    /// A follower of `specs` (none: nothing is ever named).
    pub fn new(specs: Vec<Arc<Spec>>) -> Follower {
        Follower { specs }
    }

    /// Whether it follows no spec.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The paths that the group at `path` (its ZOM JSON, members not needed) names under the
    /// rules in force there — the claims it meets and `inherited` — parents before children,
    /// in the order the metadata gives them (a path named again is listed again, with the
    /// rule that names it then). Names with a `..` step are not followed, nor those deeper than
    /// a hierarchy can be; a reference `from_parent` names the group's siblings.
    pub fn named(&self, path: &str, group: &Value, inherited: &[RuleRef]) -> Vec<Named> {
        let Some(node) = NodeRef::of(group, None) else {
            return Vec::new();
        };
        if node.is_array {
            return Vec::new();
        }
        let mut rules: Vec<RuleRef> = inherited.to_vec();
        for (s, spec) in self.specs.iter().enumerate() {
            for claim in claims_met(spec, &node, path) {
                let rule = RuleRef {
                    spec: s,
                    node: claim.node,
                };
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
        }
        let mut out = Names::default();
        let attributes = group.get("attributes").unwrap_or(&Value::Null);
        let parent = parent_of(path);
        for rule in &rules {
            let Some(node_rule) = self.rule(*rule) else {
                continue;
            };
            for member in &node_rule.members {
                let next = member.node.map(|n| RuleRef {
                    spec: rule.spec,
                    node: n,
                });
                let kind = member
                    .node
                    .and_then(|n| self.rule(RuleRef { node: n, ..*rule }));
                out.add(path, &member.name, next, kind.and_then(|r| r.kind), true);
            }
            for reference in &node_rule.references {
                let next = reference.node.map(|n| RuleRef {
                    spec: rule.spec,
                    node: n,
                });
                let base = if reference.from_parent && !path.is_empty() {
                    parent
                } else if reference.from_parent {
                    continue;
                } else {
                    path
                };
                for name in names(reference, attributes) {
                    out.add(base, &name, next, reference.kind, false);
                }
            }
        }
        out.list
    }

    fn rule(&self, rule: RuleRef) -> Option<&NodeRule> {
        self.specs.get(rule.spec)?.nodes.get(rule.node)
    }
}

/// The names a reference takes from a node's attributes (strings only: what is not a string
/// is the validator's to report).
fn names(reference: &Reference, attributes: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let none: [LocStep; 0] = [];
    for item in reference.for_each.select_in(attributes, &none, false) {
        for Found { value, .. } in reference.from.select_in(item.value, &none, false) {
            let Value::String(s) = value else { continue };
            match reference.split.as_deref() {
                None => out.push(s.clone()),
                Some(sep) => out.extend(s.split(sep).filter(|p| !p.is_empty()).map(str::to_string)),
            }
        }
    }
    out
}

/// Named paths, in the order they are named (a path named twice is there twice: the walk asks
/// for it once).
#[derive(Default)]
struct Names {
    list: Vec<Named>,
}

impl Names {
    /// Adds `name` (`"A/1"`, `"./labels"`) below `base`, and the paths between them (groups).
    fn add(
        &mut self,
        base: &str,
        name: &str,
        rule: Option<RuleRef>,
        kind: Option<Kind>,
        fixed: bool,
    ) {
        // Deeper than a hierarchy can be, it is not asked for (nor are the paths above it).
        let Some(target) = named_path(base, name).filter(|t| t.matches('/').count() < MAX_DEPTH)
        else {
            return;
        };
        // The paths from the first step below `base` down to the target.
        let start = if base.is_empty() { 0 } else { base.len() + 1 };
        let between = target
            .get(start..)
            .unwrap_or_default()
            .match_indices('/')
            .map(|(i, _)| start + i);
        for end in between {
            self.list.push(Named {
                path: target.get(..end).unwrap_or_default().to_string(),
                rules: Vec::new(),
                array: Some(false),
                between: true,
                fixed,
            });
        }
        self.list.push(Named {
            path: target,
            rules: rule.into_iter().collect(),
            array: kind.map(|k| k == Kind::Array),
            between: false,
            fixed,
        });
    }
}
