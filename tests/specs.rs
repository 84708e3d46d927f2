//! Hierarchy specs (src/spec): the built-in OME-Zarr and xarray specs against fixtures written
//! by ome-zarr-py and xarray (tests/fixtures/conventions, cases.json) and their mutated
//! copies, the spec format's own rules, and the format's JSON Schema.

mod common;

use common::specs::{loc_value, raw_zom, show};

use serde_json::{json, Map, Value};
use std::sync::Arc;
use zom::spec::{self, Spec, SpecChoice};
use zom::validate::{validate_hierarchy, Problem, Severity, ValidateOptions};

fn with_specs(specs: Vec<SpecChoice>) -> ValidateOptions {
    ValidateOptions {
        specs,
        ..Default::default()
    }
}

fn convention(name: &str) -> SpecChoice {
    SpecChoice::Convention(name.into(), spec::builtin(name).unwrap())
}

/// A report's errors (not its warnings).
fn errors_of(report: &zom::validate::Report) -> Vec<Problem> {
    report
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .cloned()
        .collect()
}

fn conventions_dir() -> std::path::PathBuf {
    common::fixtures().join("conventions")
}

#[test]
fn built_in_specs_read_and_follow_the_format_schema() {
    let meta: Value = serde_json::from_str(spec::SPEC_SCHEMA).unwrap();
    let validator =
        jsonschema::draft202012::new(&meta).expect("spec.schema.json is a valid schema");
    for name in ["ome-zarr-0.4", "ome-zarr-0.5", "ome-zarr-0.6", "xarray"] {
        let text = spec::builtin_text(name).unwrap();
        let doc: Value = serde_json::from_str(text).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        let spec = Spec::from_value(&doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(spec.name, name);
    }
    for name in spec::builtin_names() {
        assert!(!spec::builtin(name).unwrap().is_empty());
    }
    assert!(spec::builtin("ome").is_err());
}

#[test]
fn fixtures_and_mutations_get_the_verdicts_of_cases_json() {
    let cases = common::read_json(&conventions_dir().join("cases.json"));
    let mut checked = 0;
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let zom = raw_zom(&conventions_dir().join(case["dir"].as_str().unwrap()));
        let family = case["convention"].as_str().unwrap();
        let expect_valid = case["expect_valid"].as_bool().unwrap();
        let severity = match case["expected_severity"].as_str() {
            Some("warning") => Severity::Warning,
            _ => Severity::Error,
        };
        for choice in [SpecChoice::Auto, convention(family)] {
            let report = validate_hierarchy(&zom, &with_specs(vec![choice.clone()]));
            let errors = errors_of(&report);
            assert_eq!(
                report.valid,
                expect_valid,
                "{name}: valid should be {expect_valid}; problems:\n{}",
                show(&errors)
            );
            if let Some(expected) = case.get("expected_problem").filter(|e| !e.is_null()) {
                // A warning is reported in strict mode only.
                let errors = if severity == Severity::Warning {
                    let strict = ValidateOptions {
                        strict: true,
                        ..with_specs(vec![choice])
                    };
                    let all = validate_hierarchy(&zom, &strict).problems;
                    all.into_iter()
                        .filter(|p| p.severity == severity && p.spec.is_some())
                        .collect()
                } else {
                    errors
                };
                let path = expected["path"].as_str().unwrap();
                let loc = &expected["loc"];
                let found = errors.iter().any(|p| {
                    let l = loc_value(&p.loc);
                    p.path == path
                        && (l == *loc || l.as_array().unwrap().starts_with(loc.as_array().unwrap()))
                });
                assert!(
                    found,
                    "{name}: no error at {path} {loc}; problems:\n{}",
                    show(&errors)
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked} cases");
}

#[test]
fn detect_conventions_finds_what_each_fixture_claims() {
    let found = |dir: &str| -> Vec<(String, String, String)> {
        let zom = raw_zom(&conventions_dir().join(dir));
        spec::detect_conventions(&zom)
            .into_iter()
            .map(|d| (d.spec, d.claim, d.path))
            .collect()
    };
    let t = |s: &str, c: &str, p: &str| (s.to_string(), c.to_string(), p.to_string());
    assert_eq!(
        found("ome-0.4-image"),
        vec![
            t("ome-zarr-0.4", "image", ""),
            t("ome-zarr-0.4", "image", "labels/cells")
        ]
    );
    assert_eq!(
        found("ome-0.5-image"),
        vec![
            t("ome-zarr-0.5", "image", ""),
            t("ome-zarr-0.5", "image", "labels/cells")
        ]
    );
    let plate = found("ome-0.5-plate");
    assert_eq!(plate[0], t("ome-zarr-0.5", "plate", ""));
    assert!(plate.contains(&t("ome-zarr-0.5", "well", "A/1")));
    assert!(plate.contains(&t("ome-zarr-0.5", "image", "A/1/0")));
    assert_eq!(found("xarray-v2"), vec![t("xarray", "dataset", "")]);
    assert_eq!(found("xarray-v3"), vec![t("xarray", "dataset", "")]);
    // The plain zarr-python fixtures claim nothing.
    assert!(spec::detect_conventions(&raw_zom(&common::fixtures().join("v3"))).is_empty());
}

#[test]
fn a_convention_asked_for_but_not_claimed_is_one_problem_at_the_root() {
    let zom = raw_zom(&conventions_dir().join("xarray-v3"));
    let report = validate_hierarchy(&zom, &with_specs(vec![convention("ome-zarr")]));
    assert!(!report.valid);
    assert_eq!(report.problems.len(), 1, "{}", show(&report.problems));
    let p = &report.problems[0];
    assert_eq!((p.path.as_str(), p.loc.len()), ("", 0));
    assert!(p.message.contains("ome-zarr"), "{}", p.message);
    // Auto checks only what is claimed.
    assert!(validate_hierarchy(&zom, &with_specs(vec![SpecChoice::Auto])).valid);
}

// ---------- the format, with specs of one's own ----------

fn user_spec(doc: Value) -> SpecChoice {
    SpecChoice::Spec(Arc::new(
        Spec::from_value(&doc).unwrap_or_else(|e| panic!("{e}")),
    ))
}

fn group(attributes: Value, members: Value) -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": attributes, "members": members})
}

fn array(shape: Value, names: Value, attributes: Value) -> Value {
    let rank = shape.as_array().unwrap().len();
    json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": vec![1; rank]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": [{"name": "bytes"}], "attributes": attributes,
        "dimension_names": names,
    })
}

fn problems_of(zom: &Value, spec: SpecChoice, strict: bool) -> Vec<Problem> {
    let options = ValidateOptions {
        specs: vec![spec],
        strict,
        ..Default::default()
    };
    validate_hierarchy(zom, &options).problems
}

#[test]
fn members_by_name_and_pattern_with_counts_and_no_others() {
    let s = json!({
        "zom_spec": 1, "name": "levels",
        "root": {
            "kind": "group",
            "members": {"meta": {"node": {"kind": "group"}}, "extra": {"required": false}},
            "member_patterns": [{"pattern": "^[0-9]+$", "kind": "array", "min": 2, "max": 3,
                                 "node": {"array": {"properties": {"rank": {"const": 2}, "data_type": {"enum": ["uint8"]}}}}}],
            "other_members": false
        }
    });
    let good = group(
        json!({}),
        json!({
            "meta": group(json!({}), json!({})),
            "0": array(json!([4, 4]), json!(["y", "x"]), json!({})),
            "1": array(json!([2, 2]), json!(["y", "x"]), json!({})),
        }),
    );
    assert_eq!(problems_of(&good, user_spec(s.clone()), false), vec![]);
    let bad = group(
        json!({}),
        json!({
            "0": array(json!([4, 4, 1]), json!(["y", "x", "z"]), json!({})),
            "stray": group(json!({}), json!({})),
        }),
    );
    let p = problems_of(&bad, user_spec(s), false);
    let at = |path: &str, loc: Value| p.iter().any(|q| q.path == path && loc_value(&q.loc) == loc);
    assert!(at("", json!(["members", "meta"])), "{}", show(&p));
    assert!(at("", json!(["members"])), "min count: {}", show(&p));
    assert!(
        at("", json!(["members", "stray"])),
        "other member: {}",
        show(&p)
    );
    assert!(at("0", json!(["shape"])), "rank: {}", show(&p));
    assert!(p
        .iter()
        .all(|q| q.spec.as_deref() == Some("levels") && q.rule.is_some()));
}

#[test]
fn references_lengths_and_dimension_agreement() {
    let s = json!({
        "zom_spec": 1, "name": "refs",
        "root": {
            "references": [{"rule": "levels", "for_each": "/images/*", "from": "/paths/*", "kind": "array",
                            "rank": "/axes", "dimension_names": "/axes/*"}],
            "lengths": [{"rule": "scale", "for_each": "/images/*", "equal": ["/axes", "/scale"]}],
            "dimensions": {"rule": "dims", "names": "dimension_names"},
            "member_patterns": [{"pattern": "", "kind": "array", "node": {"references": [
                {"rule": "coords", "from": "/coordinates", "split": " ", "from_parent": true}]}}]
        }
    });
    let zom = group(
        json!({"images": [{"paths": ["a", "b", "missing"], "axes": ["y", "x"], "scale": [1, 2, 3]}]}),
        json!({
            "a": array(json!([4, 4]), json!(["y", "x"]), json!({"coordinates": "b a"})),
            "b": array(json!([2, 4, 1]), json!(["y", "x", "z"]), json!({"coordinates": "nothere"})),
        }),
    );
    let p = problems_of(&zom, user_spec(s), false);
    let rule = |r: &str| {
        p.iter()
            .filter(|q| q.rule.as_deref() == Some(r))
            .collect::<Vec<_>>()
    };
    let levels = rule("levels");
    // "missing" names nothing; "b" has rank 3 for 2 axes and the wrong dimension_names.
    assert!(
        levels.iter().any(|q| q.path.is_empty()
            && loc_value(&q.loc) == json!(["attributes", "images", 0, "paths", 2])),
        "{}",
        show(&p)
    );
    assert!(
        levels.iter().any(|q| q.path.is_empty()
            && loc_value(&q.loc) == json!(["attributes", "images", 0, "axes"])),
        "{}",
        show(&p)
    );
    assert!(
        levels
            .iter()
            .any(|q| q.path == "b" && loc_value(&q.loc) == json!(["dimension_names"])),
        "{}",
        show(&p)
    );
    assert_eq!(rule("scale").len(), 1, "{}", show(&p));
    assert_eq!(
        loc_value(&rule("scale")[0].loc),
        json!(["attributes", "images", 0, "scale"])
    );
    let dims = rule("dims");
    assert_eq!(dims.len(), 1, "{}", show(&p));
    assert_eq!(
        (dims[0].path.as_str(), loc_value(&dims[0].loc)),
        ("b", json!(["shape", 0]))
    );
    let coords = rule("coords");
    assert_eq!(coords.len(), 1, "{}", show(&p));
    assert_eq!(
        (coords[0].path.as_str(), loc_value(&coords[0].loc)),
        ("b", json!(["attributes", "coordinates"]))
    );
}

#[test]
fn recommended_rules_are_warnings_in_strict_mode_only() {
    let s = json!({"zom_spec": 1, "name": "rec", "root": {"recommended": {"required": ["title"]}}});
    let zom = group(json!({}), json!({}));
    assert!(problems_of(&zom, user_spec(s.clone()), false).is_empty());
    let p = problems_of(&zom, user_spec(s), true);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].severity, Severity::Warning);
}

#[test]
fn claims_apply_a_spec_where_nodes_meet_them() {
    let s = json!({
        "zom_spec": 1, "name": "tagged",
        "claims": [{"name": "thing", "when": {"kind": "group", "attributes": {"required": ["thing"]}}, "node": "thing"}],
        "nodes": {"thing": {"attributes": {"properties": {"thing": {"type": "integer"}}}}}
    });
    let zom = group(
        json!({}),
        json!({
            "x": group(json!({"thing": 1}), json!({})),
            "y": group(json!({}), json!({"z": group(json!({"thing": "no"}), json!({}))})),
        }),
    );
    let p = problems_of(&zom, user_spec(s.clone()), false);
    assert_eq!(p.len(), 1, "{}", show(&p));
    assert_eq!(
        (p[0].path.as_str(), loc_value(&p[0].loc)),
        ("y/z", json!(["attributes", "thing"]))
    );
    let found = spec::detect(&zom, &[Arc::new(Spec::from_value(&s).unwrap())]);
    let paths: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["x", "y/z"]);
}

#[test]
fn bad_specs_are_refused_with_every_problem_located() {
    let e = Spec::from_value(&json!({
        "zom_spec": 1, "name": "bad",
        "root": {"kind": "folder", "members": {"a": {"node": "nowhere"}}, "member_patterns": [{"pattern": "("}],
                 "references": [{"from": "no-slash"}], "colour": 1}
    }))
    .err()
    .expect("refused");
    for part in [
        "/root/kind",
        "nowhere",
        "/root/member_patterns/0/pattern",
        "/root/references/0/from",
        "/root/colour",
    ] {
        assert!(e.message.contains(part), "{part} not in {}", e.message);
    }
    let e = Spec::from_value(&json!({"zarr_format": 3, "node_type": "group"}))
        .err()
        .unwrap();
    assert!(e.message.contains("zom_spec"), "{}", e.message);
    assert!(
        Spec::from_value(&json!({"zom_spec": 1, "name": "x"})).is_err(),
        "needs root or claims"
    );
    assert!(spec::is_spec(&json!({"zom_spec": 1})));
    assert!(!spec::is_spec(&json!({"zarr_format": 3})));
    let _ = Map::<String, Value>::new();
}

#[test]
fn todays_ome_zarr_writers_write_valid_hierarchies() {
    // tests/fixtures/walk: ome-zarr-py 0.21 (0.4 and 0.5 images with labels, plates,
    // bioformats2raw) and ngff-zarr 0.50 (0.4, 0.5, 0.6 images), as they write them.
    let dir = common::fixtures().join("walk");
    let manifest = common::read_json(&dir.join("manifest.json"));
    let mut checked = 0;
    for entry in manifest.as_array().unwrap() {
        let name = entry["dir"].as_str().unwrap();
        let zom = raw_zom(&dir.join(name));
        let report = validate_hierarchy(&zom, &with_specs(vec![SpecChoice::Auto]));
        assert!(report.valid, "{name}:\n{}", show(&errors_of(&report)));
        checked += 1;
    }
    assert!(checked >= 12, "{checked} hierarchies");
    // ome-zarr-py leaves out the 0.5 labels group's version: a warning in strict mode.
    let strict = ValidateOptions {
        strict: true,
        ..with_specs(vec![SpecChoice::Auto])
    };
    let zom = raw_zom(&dir.join("ozp-0.21-v0.5-image"));
    let report = validate_hierarchy(&zom, &strict);
    assert!(report.valid);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.severity == Severity::Warning
                && p.path == "labels"
                && loc_value(&p.loc) == json!(["attributes", "ome", "version"])),
        "{}",
        show(&report.problems)
    );
}
