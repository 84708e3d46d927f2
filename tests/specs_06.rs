//! The built-in `ome-zarr-0.6` spec (OME-Zarr 0.6rc0) against the hierarchies of
//! tests/fixtures/conventions-0.6 (written by its generate.py with zarr-python 3): every valid
//! one passes, strict mode included, under `auto`, `ome-zarr` and `ome-zarr-0.6`; every
//! mutated one fails (or, for a SHOULD, warns in strict mode) where and by the rule cases.json
//! says; and 0.6 nodes are claimed by 0.6, not 0.5.

mod common;

use common::specs::{raw_zom, show};

use serde_json::json;
use std::path::PathBuf;
use zom::spec::{self, SpecChoice};
use zom::validate::{validate_hierarchy, LocStep, Severity, ValidateOptions};

fn dir() -> PathBuf {
    common::fixtures().join("conventions-0.6")
}

fn options(choice: SpecChoice, strict: bool) -> ValidateOptions {
    ValidateOptions {
        specs: vec![choice],
        strict,
        ..Default::default()
    }
}

fn choices() -> Vec<SpecChoice> {
    let named = |n: &str| SpecChoice::Convention(n.into(), spec::builtin(n).unwrap());
    vec![SpecChoice::Auto, named("ome-zarr"), named("ome-zarr-0.6")]
}

#[test]
fn fixtures_and_mutations_get_the_verdicts_of_cases_json() {
    let cases = common::read_json(&dir().join("cases.json"));
    let mut checked = 0;
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let zom = raw_zom(&dir().join(case["dir"].as_str().unwrap()));
        let expect_valid = case["expect_valid"].as_bool().unwrap();
        let warning = case["expected_severity"] == json!("warning");
        for choice in choices() {
            let report = validate_hierarchy(&zom, &options(choice.clone(), false));
            assert_eq!(
                report.valid,
                expect_valid,
                "{name}: valid should be {expect_valid}; problems:\n{}",
                show(&report.problems)
            );
            let strict = validate_hierarchy(&zom, &options(choice, true));
            let Some(expected) = case.get("expected_problem").filter(|e| !e.is_null()) else {
                // A valid fixture is valid in strict mode too: no SHOULD is left out.
                assert!(
                    strict.problems.is_empty(),
                    "{name}: strict problems:\n{}",
                    show(&strict.problems)
                );
                continue;
            };
            let severity = if warning {
                Severity::Warning
            } else {
                Severity::Error
            };
            let path = expected["path"].as_str().unwrap();
            let loc = expected["loc"].as_array().unwrap();
            let rule = expected["rule"].as_str();
            let found = strict.problems.iter().any(|p| {
                let l = LocStep::list_value(&p.loc);
                p.severity == severity
                    && p.spec.as_deref() == Some("ome-zarr-0.6")
                    && p.path == path
                    && l.as_array().unwrap().starts_with(loc)
                    && rule.is_none_or(|r| p.rule.as_deref() == Some(r))
            });
            assert!(
                found,
                "{name}: no {severity:?} at {path} {loc:?} (rule {rule:?}); problems:\n{}",
                show(&strict.problems)
            );
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked} cases");
}

#[test]
fn version_0_6_nodes_are_claimed_by_0_6_and_not_0_5() {
    let found = |d: &str| -> Vec<(String, String, String)> {
        spec::detect_conventions(&raw_zom(&dir().join(d)))
            .into_iter()
            .map(|d| (d.spec, d.claim, d.path))
            .collect()
    };
    let t = |c: &str, p: &str| ("ome-zarr-0.6".to_string(), c.to_string(), p.to_string());
    assert_eq!(
        found("ome-0.6-image"),
        vec![
            t("image", ""),
            t("labels", "labels"),
            t("label-image", "labels/cells")
        ]
    );
    assert_eq!(
        found("ome-0.6-image-version-0.6"),
        found("ome-0.6-image"),
        "'0.6' is claimed as '0.6rc0' is"
    );
    let scene = found("ome-0.6-scene");
    assert_eq!(
        scene,
        vec![t("scene", ""), t("image", "crop"), t("image", "volume")]
    );
    let plate = found("ome-0.6-plate");
    assert_eq!(plate[0], t("plate", ""));
    assert!(plate.contains(&t("well", "A/1")) && plate.contains(&t("image", "A/1/0")));
    // A 0.5 node inside a 0.6 plate is 0.5's, and the 0.6 well rejects it.
    let mixed = found("mutated/well-image-older-version");
    assert!(mixed.contains(&(
        "ome-zarr-0.5".to_string(),
        "image".to_string(),
        "A/1/0".to_string()
    )));
    assert!(!mixed.contains(&t("image", "A/1/0")));
}
