//! The spec format's item rules (src/spec/items.rs): `unique`, `order`, `monotone` (of items
//! and of the arrays they name), `matches` and `across`, in a user's own spec; each rule's
//! problems located in the attributes, and mistakes in the rules reported where they are.

use serde_json::{json, Value};
use std::sync::Arc;
use zom::spec::{Spec, SpecChoice};
use zom::validate::{validate_hierarchy, LocStep, Problem, Severity, ValidateOptions};

fn group(attributes: Value, members: Value) -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": attributes, "members": members})
}

fn array(shape: Value) -> Value {
    let rank = shape.as_array().unwrap().len();
    json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": vec![1; rank]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": [{"name": "bytes"}], "attributes": {},
    })
}

/// A spec whose root group has `rules` (item rule keys of a node spec).
fn spec(rules: Value) -> SpecChoice {
    let mut root = json!({"kind": "group"});
    root.as_object_mut()
        .unwrap()
        .extend(rules.as_object().unwrap().clone());
    let doc = json!({"zom_spec": 1, "name": "items", "root": root});
    SpecChoice::Spec(Arc::new(Spec::from_value(&doc).unwrap()))
}

fn problems(zom: &Value, choice: SpecChoice, strict: bool) -> Vec<Problem> {
    let options = ValidateOptions {
        specs: vec![choice],
        strict,
        ..Default::default()
    };
    validate_hierarchy(zom, &options)
        .problems
        .into_iter()
        .filter(|p| p.spec.is_some())
        .collect()
}

fn locs(problems: &[Problem]) -> Vec<(String, Value, String)> {
    problems
        .iter()
        .map(|p| {
            (
                p.path.clone(),
                LocStep::list_value(&p.loc),
                p.rule.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn unique_reports_each_repeat_at_its_key() {
    let s = spec(
        json!({"unique": [{"rule": "names", "for_each": "/axes", "items": "/*", "key": "/name"}]}),
    );
    let zom = group(
        json!({"axes": [{"name": "y"}, {"name": "x"}, {"name": "y"}, {"type": "t"}, {"name": "y"}]}),
        json!({}),
    );
    let p = problems(&zom, s, false);
    assert_eq!(
        locs(&p),
        vec![
            (
                "".into(),
                json!(["attributes", "axes", 2, "name"]),
                "names".into()
            ),
            (
                "".into(),
                json!(["attributes", "axes", 4, "name"]),
                "names".into()
            ),
        ]
    );
    assert!(
        p[0].message.contains("attributes/axes/0/name"),
        "{}",
        p[0].message
    );
    let ok = group(json!({"axes": [{"name": "y"}, {"name": "x"}]}), json!({}));
    let s = spec(json!({"unique": [{"for_each": "/axes", "items": "/*", "key": "/name"}]}));
    assert!(problems(&ok, s, false).is_empty());
}

#[test]
fn unique_compares_whole_values_and_lists_within_each_scope() {
    // Each multiscale is its own scope: the same path in two is fine.
    let s = spec(json!({"unique": [{"for_each": "/ms/*", "items": "/datasets/*"}]}));
    let zom = group(
        json!({"ms": [{"datasets": [{"p": "0"}, {"p": "1"}]}, {"datasets": [{"p": "0"}, {"p": "0"}]}]}),
        json!({}),
    );
    assert_eq!(
        locs(&problems(&zom, s, false)),
        vec![(
            "".into(),
            json!(["attributes", "ms", 1, "datasets", 1]),
            "/root/unique/0".into()
        )]
    );
}

#[test]
fn order_follows_the_categories_with_a_wildcard() {
    let s = spec(
        json!({"order": [{"rule": "axis-order", "items": "/axes/*", "key": "/type",
        "categories": [["time"], ["channel", "*"], ["space"]]}]}),
    );
    let good = group(
        json!({"axes": [{"type": "time"}, {"type": "angle"}, {"type": "space"}, {"type": "space"}]}),
        json!({}),
    );
    assert!(problems(&good, s.clone(), false).is_empty());
    let untyped = group(
        json!({"axes": [{"name": "z"}, {"type": "time"}]}),
        json!({}),
    );
    assert!(problems(&untyped, s.clone(), false).is_empty());
    let bad = group(
        json!({"axes": [{"type": "space"}, {"type": "channel"}, {"type": "space"}, {"type": "time"}]}),
        json!({}),
    );
    let p = problems(&bad, s, false);
    assert_eq!(
        locs(&p).into_iter().map(|l| l.1).collect::<Vec<_>>(),
        vec![
            json!(["attributes", "axes", 1]),
            json!(["attributes", "axes", 3])
        ]
    );
    assert!(
        p[0].message
            .contains("\"channel\" must come before \"space\""),
        "{}",
        p[0].message
    );
}

#[test]
fn monotone_values_entry_by_entry() {
    let s = spec(
        json!({"monotone": [{"rule": "scales", "items": "/levels/*", "key": "/scale",
        "direction": "non_decreasing"}]}),
    );
    let good = group(
        json!({"levels": [{"scale": [1, 1]}, {"scale": [1, 2]}, {"scale": [2, 4]}]}),
        json!({}),
    );
    assert!(problems(&good, s.clone(), false).is_empty());
    let bad = group(
        json!({"levels": [{"scale": [1, 2]}, {"scale": [2, 1]}, {"scale": [2, 2]}]}),
        json!({}),
    );
    let p = problems(&bad, s, false);
    assert_eq!(locs(&p).len(), 1, "{p:?}");
    assert_eq!(locs(&p)[0].1, json!(["attributes", "levels", 1, "scale"]));
    assert!(
        p[0].message.contains("must be at least [1, 2]"),
        "{}",
        p[0].message
    );
    let strictly = spec(json!({"monotone": [{"items": "/t/*", "direction": "increasing"}]}));
    let flat = group(json!({"t": [1, 2, 2, 3.5]}), json!({}));
    assert_eq!(
        locs(&problems(&flat, strictly, false))[0].1,
        json!(["attributes", "t", 2])
    );
}

#[test]
fn monotone_shapes_of_the_arrays_items_name() {
    let s = spec(
        json!({"monotone": [{"rule": "levels", "items": "/datasets/*", "node_path": "/path",
        "key": "/shape", "direction": "non_increasing"}]}),
    );
    let attrs =
        json!({"datasets": [{"path": "0"}, {"path": "1"}, {"path": "absent"}, {"path": "2"}]});
    let members = |shapes: [[u64; 2]; 3]| json!({"0": array(json!(shapes[0])), "1": array(json!(shapes[1])), "2": array(json!(shapes[2]))});
    let good = group(attrs.clone(), members([[64, 64], [32, 32], [16, 32]]));
    assert!(problems(&good, s.clone(), false).is_empty());
    let bad = group(attrs, members([[32, 32], [64, 64], [16, 16]]));
    let p = problems(&bad, s, false);
    assert_eq!(
        locs(&p),
        vec![(
            "".into(),
            json!(["attributes", "datasets", 1, "path"]),
            "levels".into()
        )]
    );
    assert!(p[0].message.contains("shape of '1'"), "{}", p[0].message);
}

#[test]
fn monotone_equal_over_the_arrays_items_name() {
    let s = spec(
        json!({"monotone": [{"rule": "one-type", "items": "/datasets/*", "node_path": "/path",
        "key": "/data_type", "direction": "equal"}]}),
    );
    let mut other = array(json!([2, 2]));
    other["data_type"] = json!("int16");
    let zom = group(
        json!({"datasets": [{"path": "0"}, {"path": "1"}, {"path": "2"}]}),
        json!({"0": array(json!([4, 4])), "1": array(json!([2, 2])), "2": other}),
    );
    let p = problems(&zom, s, false);
    assert_eq!(
        locs(&p),
        vec![(
            "".into(),
            json!(["attributes", "datasets", 2, "path"]),
            "one-type".into()
        )]
    );
    assert!(
        p[0].message
            .contains("\"int16\" (data_type of '2') must be equal to \"uint8\" (data_type of '1')"),
        "{}",
        p[0].message
    );
}

#[test]
fn matches_builds_a_string_from_indexed_items() {
    let s = spec(
        json!({"matches": [{"rule": "well-path", "for_each": "/plate/wells/*", "value": "/path",
        "parts": [{"from": "/plate/rows", "index": "/rowIndex", "key": "/name"}, "/",
                  {"from": "/plate/columns", "index": "/columnIndex", "key": "/name"}]}]}),
    );
    let plate = |wells: Value| {
        group(
            json!({"plate": {"rows": [{"name": "A"}, {"name": "B"}], "columns": [{"name": "1"}, {"name": "2"}], "wells": wells}}),
            json!({}),
        )
    };
    let good = plate(
        json!([{"path": "A/1", "rowIndex": 0, "columnIndex": 0}, {"path": "B/2", "rowIndex": 1, "columnIndex": 1}]),
    );
    assert!(problems(&good, s.clone(), false).is_empty());
    let bad = plate(json!([
        {"path": "B/1", "rowIndex": 0, "columnIndex": 0},
        {"path": "B/2", "rowIndex": 5, "columnIndex": 1},
        {"path": "A/1", "columnIndex": 0}
    ]));
    let p = problems(&bad, s, false);
    assert_eq!(
        locs(&p).into_iter().map(|l| l.1).collect::<Vec<_>>(),
        vec![
            json!(["attributes", "plate", "wells", 0, "path"]),
            json!(["attributes", "plate", "wells", 1, "rowIndex"])
        ]
    );
    assert!(p[0].message.contains("must be \"A/1\""), "{}", p[0].message);
    assert!(
        p[1].message
            .contains("5 is no index of attributes/plate/rows (2 items)"),
        "{}",
        p[1].message
    );
}

#[test]
fn matches_with_a_value_of_the_item_itself() {
    let s = spec(
        json!({"matches": [{"rule": "input", "for_each": "/datasets/*", "value": "/transform/input/path",
        "parts": [{"key": "/path"}]}]}),
    );
    let zom = group(
        json!({"datasets": [
            {"path": "s0", "transform": {"input": {"path": "s0"}}},
            {"path": "s1", "transform": {"input": {"path": "s0"}}},
            {"path": "s2", "transform": {}}
        ]}),
        json!({}),
    );
    let p = problems(&zom, s, false);
    assert_eq!(
        locs(&p),
        vec![(
            "".into(),
            json!(["attributes", "datasets", 1, "transform", "input", "path"]),
            "input".into()
        )]
    );
    assert!(
        p[0].message
            .contains("\"s0\" must be \"s1\" (from attributes/datasets/1/path)"),
        "{}",
        p[0].message
    );
}

#[test]
fn across_compares_with_another_node_by_relative_path() {
    let s = json!({"zom_spec": 1, "name": "labels",
        "root": {"kind": "group", "members": {"labels": {"node": {"members": {"l": {"node": {
            "across": [{"rule": "levels", "value": "/datasets", "node": "../..", "other": "/datasets", "compare": "length"},
                       {"rule": "unit", "severity": "warning", "value": "/unit", "node": "../..", "other": "/unit"}]}}}}}}}});
    let choice = SpecChoice::Spec(Arc::new(Spec::from_value(&s).unwrap()));
    let tree = |label: Value| {
        group(
            json!({"datasets": ["0", "1", "2"], "unit": "um"}),
            json!({"labels": group(json!({}), json!({"l": group(label, json!({}))}))}),
        )
    };
    let good = tree(json!({"datasets": ["a", "b", "c"], "unit": "um"}));
    assert!(problems(&good, choice.clone(), true).is_empty());
    let bad = tree(json!({"datasets": ["a"], "unit": "nm"}));
    let p = problems(&bad, choice.clone(), false);
    assert_eq!(
        locs(&p),
        vec![(
            "labels/l".into(),
            json!(["attributes", "datasets"]),
            "levels".into()
        )]
    );
    assert!(
        p[0].message
            .contains("has 1 entries, but datasets of the node '../..' has 3"),
        "{}",
        p[0].message
    );
    let strict = problems(&bad, choice, true);
    assert_eq!(strict.len(), 2);
    assert_eq!(strict[1].severity, Severity::Warning);
}

#[test]
fn across_one_of_the_values_of_another_node() {
    let s = json!({"zom_spec": 1, "name": "acquisitions",
        "root": {"kind": "group", "members": {"A": {"node": {"members": {"1": {"node": {
            "across": [{"rule": "acquisition", "for_each": "/images/*", "value": "/acquisition", "node": "../..",
                        "other": "/acquisitions/*/id", "compare": "one_of"}]}}}}}}}});
    let choice = SpecChoice::Spec(Arc::new(Spec::from_value(&s).unwrap()));
    let plate = |acquisitions: Value, images: Value| {
        group(
            json!({"acquisitions": acquisitions}),
            json!({"A": group(json!({}), json!({"1": group(json!({"images": images}), json!({}))}))}),
        )
    };
    let ids = json!([{"id": 0}, {"id": 3}]);
    assert!(problems(
        &plate(ids.clone(), json!([{"acquisition": 3}, {"path": "x"}])),
        choice.clone(),
        false
    )
    .is_empty());
    // No acquisitions listed: nothing to compare with.
    assert!(problems(
        &plate(json!([]), json!([{"acquisition": 7}])),
        choice.clone(),
        false
    )
    .is_empty());
    let p = problems(
        &plate(ids, json!([{"acquisition": 0}, {"acquisition": 1}])),
        choice,
        false,
    );
    assert_eq!(
        locs(&p),
        vec![(
            "A/1".into(),
            json!(["attributes", "images", 1, "acquisition"]),
            "acquisition".into()
        )]
    );
    assert!(
        p[0].message.contains("1 must be one of [0, 3]"),
        "{}",
        p[0].message
    );
}

#[test]
fn mistakes_in_item_rules_are_located() {
    let doc = json!({"zom_spec": 1, "name": "broken", "root": {
        "unique": [{"key": "/name"}],
        "order": [{"items": "/a/*", "categories": [["x", "*"], "y", ["*"]]}],
        "monotone": [{"items": "/a/*", "direction": "up"}, {"items": "/a/*", "node_path": "/p", "direction": "equal"}],
        "matches": [{"value": "/p", "parts": [{"from": "/rows"}]}],
        "across": [{"value": "/v", "other": "/v", "compare": "size", "colour": 1}]
    }});
    let e = match Spec::from_value(&doc) {
        Ok(_) => panic!("a broken spec was read"),
        Err(e) => e.message,
    };
    for part in [
        "at /root/unique/0: 'items' is required",
        "at /root/order/0/categories/1: must be an array",
        "at /root/order/0/categories/2: '*' may be in one category only",
        "at /root/monotone/0/direction: must be",
        "at /root/monotone/1/key: with node_path, the key must start with an array fact",
        "at /root/matches/0/parts/0: 'index' is required",
        "at /root/across/0/colour: unknown key",
        "at /root/across/0/compare: must be \"value\", \"length\" or \"one_of\"",
        "at /root/across/0: 'node' is required",
    ] {
        assert!(e.contains(part), "{part} not in: {e}");
    }
}
