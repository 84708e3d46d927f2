//! The views' problems in a hierarchy's validation: credited to the convention the node claims
//! (rule "view"), checked only for the conventions asked for, and not repeated where a spec
//! rule already found the same problem at the same place.

mod common;
mod view_ome_common;

use serde_json::json;
use view_ome_common::*;
use zom::spec::SpecChoice;
use zom::validate::{validate_hierarchy, ValidateOptions};

fn validated(zom: &serde_json::Value, specs: &[&str]) -> Vec<zom::validate::Problem> {
    let options = ValidateOptions {
        specs: specs
            .iter()
            .map(|s| SpecChoice::named(s).unwrap())
            .collect(),
        ..ValidateOptions::default()
    };
    validate_hierarchy(zom, &options).problems
}

#[test]
fn an_omero_count_mismatch_is_credited_to_the_claimed_spec() {
    let mut zom = zom_of("conventions/ome-0.5-image");
    let channel =
        json!({"color": "FF0000", "window": {"start": 0, "end": 10, "min": 0, "max": 100}});
    node_mut(&mut zom, "")["attributes"]["ome"]["omero"] =
        json!({"channels": [channel, channel, channel]});
    for specs in [&["auto"][..], &["ome-zarr"][..]] {
        let problems = validated(&zom, specs);
        let view: Vec<_> = problems
            .iter()
            .filter(|p| p.rule.as_deref() == Some("view"))
            .collect();
        assert_eq!(view.len(), 1, "{specs:?}: {problems:#?}");
        assert_eq!(view[0].spec.as_deref(), Some("ome-zarr-0.5"));
        assert_eq!(view[0].path, "");
    }
    // Not asked for: no view problem, and none without specs.
    assert!(validated(&zom, &["xarray"])
        .iter()
        .all(|p| p.rule.as_deref() != Some("view")));
    assert!(validated(&zom, &[])
        .iter()
        .all(|p| p.rule.as_deref() != Some("view")));
}

#[test]
fn a_level_the_specs_find_too_large_is_reported_once() {
    let mut zom = zom_of("conventions/ome-0.5-image");
    node_mut(&mut zom, "s1")["shape"] = json!([2, 80, 32]);
    let problems = validated(&zom, &["auto"]);
    let at_datasets: Vec<_> = problems
        .iter()
        .filter(|p| p.path.is_empty() && format!("{:?}", p.loc).contains("datasets"))
        .collect();
    assert!(!at_datasets.is_empty(), "{problems:#?}");
    let view = at_datasets
        .iter()
        .filter(|p| p.rule.as_deref() == Some("view"))
        .count();
    let spec = at_datasets.len() - view;
    assert!(
        spec == 0 || view == 0,
        "reported by a spec rule and by the view: {at_datasets:#?}"
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
        let problems = validated(&zom_of(dir), &["auto"]);
        assert!(
            problems.iter().all(|p| p.rule.as_deref() != Some("view")),
            "{dir}: {problems:#?}"
        );
    }
}
