//! The views' problems as a validation adds them (`view::check::check`): credited to the
//! convention the node claims (rule "view"), only at claimed nodes, and not repeated where a
//! spec rule already found the same problem at the same place.

mod common;
mod view_ome_common;

use serde_json::json;
use view_ome_common::*;
use zom::spec::{detect_conventions, SpecChoice};
use zom::validate::{validate_hierarchy, Problem, ValidateOptions};
use zom::view::check::{check, Claim};

/// The validation with `specs: "auto"` and the view problems added.
fn validated(zom: &serde_json::Value) -> Vec<Problem> {
    let options = ValidateOptions {
        specs: vec![SpecChoice::named("auto").unwrap()],
        ..ValidateOptions::default()
    };
    let mut problems = validate_hierarchy(zom, &options).problems;
    let claims: Vec<Claim> = detect_conventions(zom).iter().map(Claim::from).collect();
    problems.extend(check(zom, &claims, &problems));
    problems
}

#[test]
fn an_omero_count_mismatch_is_credited_to_the_claimed_spec() {
    let mut zom = zom_of("conventions/ome-0.5-image");
    let channel =
        json!({"color": "FF0000", "window": {"start": 0, "end": 10, "min": 0, "max": 100}});
    node_mut(&mut zom, "")["attributes"]["ome"]["omero"] =
        json!({"channels": [channel, channel, channel]});
    let problems = validated(&zom);
    let view: Vec<_> = problems
        .iter()
        .filter(|p| p.rule.as_deref() == Some("view"))
        .collect();
    assert_eq!(view.len(), 1, "{problems:#?}");
    assert_eq!(view[0].spec.as_deref(), Some("ome-zarr-0.5"));
    assert_eq!(view[0].path, "");
    // At a node that claims nothing, nothing.
    assert!(check(&zom, &[], &[]).is_empty());
}

#[test]
fn a_level_the_specs_find_too_large_is_reported_once() {
    let mut zom = zom_of("conventions/ome-0.5-image");
    node_mut(&mut zom, "s1")["shape"] = json!([2, 80, 32]);
    let problems = validated(&zom);
    let at_datasets: Vec<_> = problems
        .iter()
        .filter(|p| p.path.is_empty() && format!("{:?}", p.loc).contains("datasets"))
        .collect();
    assert_eq!(at_datasets.len(), 1, "{at_datasets:#?}");
    assert_eq!(
        at_datasets[0].rule.as_deref(),
        Some("levels-shapes-largest-first")
    );
}

#[test]
fn valid_hierarchies_gain_no_problem() {
    for dir in [
        "views/ome-0.5-image",
        "views/ome-0.4-image",
        "views/ngff-zarr-0.5-image",
        "views/ome-0.5-plate",
        "views/xarray-tas",
        "views/xarray-noleap",
    ] {
        let problems = validated(&zom_of(dir));
        assert!(problems.is_empty(), "{dir}: {problems:#?}");
    }
}
