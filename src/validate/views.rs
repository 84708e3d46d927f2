//! The problems the pictures of a convention's nodes depend on ([`crate::view`]), added to a
//! hierarchy's validation for the conventions it is checked against: at each node that claims
//! a chosen built-in convention, what its view found, credited to the claimed spec (rule
//! `view`), so that a convention's verdict counts them.

use crate::problem::Problem;
use crate::spec::{self, SpecChoice};
use serde_json::Value;
use std::collections::BTreeSet;

/// The rule name view problems carry.
pub(crate) const VIEW_RULE: &str = "view";

/// Whether `choices` check the built-in convention `convention`.
fn chosen(choices: &[SpecChoice], convention: &str) -> bool {
    choices.iter().any(|c| match c {
        SpecChoice::Auto => true,
        SpecChoice::Convention(name, _) => name == convention,
        SpecChoice::Spec(s) => s.convention == convention,
    })
}

/// The view problems of every node of `zom` that claims a convention of `choices`, less those
/// where `found` (the specs' own problems) already has one at the same node and at, inside or
/// around the same location: a level larger than its predecessor is both a spec rule's finding
/// (at the level's `path`) and the view's (at the level).
pub(crate) fn view_problems(
    zom: &Value,
    choices: &[SpecChoice],
    found: &[Problem],
) -> Vec<Problem> {
    let overlaps = |p: &Problem| {
        found.iter().any(|f| {
            let n = f.loc.len().min(p.loc.len());
            f.path == p.path && f.loc[..n] == p.loc[..n]
        })
    };
    let mut described = BTreeSet::new();
    let mut out = Vec::new();
    for claim in spec::detect_conventions(zom) {
        if !chosen(choices, &claim.convention) || !described.insert(claim.path.clone()) {
            continue;
        }
        for mut problem in crate::view::describe(zom, &claim.path).problems {
            if overlaps(&problem) {
                continue;
            }
            problem.spec = Some(claim.spec.clone());
            problem.rule = Some(VIEW_RULE.to_string());
            out.push(problem);
        }
    }
    out
}
