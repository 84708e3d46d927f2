//! The problems the pictures of a hierarchy's convention nodes depend on, as a validation adds
//! them: at each node that claims a convention, what its view found, credited to the claimed
//! spec (rule `view`), less what the specs' own checks already found at the same place. A
//! function of its own, not part of `validate_hierarchy`: the validator's WebAssembly part does
//! not carry the views (a page that validates and draws loads the views part and adds these).

use super::describe;
use crate::problem::Problem;
use serde_json::Value;
use std::collections::BTreeSet;

/// The rule name view problems carry.
pub const VIEW_RULE: &str = "view";

/// A node's claim of a convention: its path and the claimed spec's name (`ome-zarr-0.5`), as
/// [`crate::spec::detect_conventions`] finds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The node path ("" for the root).
    pub path: String,
    /// The claimed spec's name.
    pub spec: String,
}

impl From<&crate::spec::Detected> for Claim {
    fn from(d: &crate::spec::Detected) -> Claim {
        Claim {
            path: d.path.clone(),
            spec: d.spec.clone(),
        }
    }
}

/// The view problems of every claimed node of `zom`, each node described once, less those where
/// `found` (a validation's problems) already has one at the same node and at, inside or around
/// the same location: a level larger than its predecessor is both a spec rule's finding (at the
/// level's `path`) and the view's (at the level).
pub fn check(zom: &Value, claims: &[Claim], found: &[Problem]) -> Vec<Problem> {
    let overlaps = |p: &Problem| {
        found.iter().any(|f| {
            let n = f.loc.len().min(p.loc.len());
            f.path == p.path && f.loc[..n] == p.loc[..n]
        })
    };
    let mut described = BTreeSet::new();
    let mut out = Vec::new();
    for claim in claims {
        if !described.insert(claim.path.as_str()) {
            continue;
        }
        for mut problem in describe(zom, &claim.path).problems {
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
