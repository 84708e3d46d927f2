//! Structural comparison of ZOM trees.

use serde_json::{json, Value};
use zom::model::compare::{
    diff, like, CompareOptions, Difference, DifferenceKind, MAX_LOCATION_STEPS,
};
use zom::validate::LocStep;

fn v3_tree() -> Value {
    serde_json::from_str(include_str!("data/schema/v3_hierarchy.json")).unwrap()
}

fn v2_tree() -> Value {
    serde_json::from_str(include_str!("data/schema/v2_hierarchy.json")).unwrap()
}

fn all() -> CompareOptions {
    CompareOptions::default()
}

fn exclude(list: &[&str]) -> CompareOptions {
    CompareOptions {
        include: None,
        exclude: list.iter().map(|s| s.to_string()).collect(),
    }
}

fn include(list: &[&str]) -> CompareOptions {
    CompareOptions {
        include: Some(list.iter().map(|s| s.to_string()).collect()),
        exclude: Vec::new(),
    }
}

fn k(key: &str) -> LocStep {
    LocStep::Key(key.into())
}

fn i(index: usize) -> LocStep {
    LocStep::Index(index)
}

fn set(mut doc: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match doc.pointer_mut(parent).unwrap() {
        Value::Object(object) => {
            object.insert(key.to_owned(), value);
        }
        Value::Array(items) => items[key.parse::<usize>().unwrap()] = value,
        other => panic!("cannot set {pointer} in {other}"),
    }
    doc
}

fn remove(mut doc: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match doc.pointer_mut(parent).unwrap() {
        Value::Object(object) => {
            object.shift_remove(key).unwrap();
        }
        Value::Array(items) => {
            items.remove(key.parse::<usize>().unwrap());
        }
        other => panic!("cannot remove {pointer} from {other}"),
    }
    doc
}

fn only(diffs: &[Difference]) -> &Difference {
    assert_eq!(diffs.len(), 1, "expected one difference: {diffs:#?}");
    &diffs[0]
}

#[test]
fn equal_trees_have_no_difference() {
    for tree in [
        v3_tree(),
        v2_tree(),
        json!({}),
        json!(null),
        json!([1, [2]]),
    ] {
        assert_eq!(diff(&tree, &tree.clone(), &all()), vec![]);
        assert!(like(&tree, &tree, &all()));
    }
}

#[test]
fn key_order_does_not_matter() {
    let a = json!({"zarr_format": 3, "node_type": "group", "attributes": {"x": 1, "y": 2}, "members": {}});
    let b = json!({"members": {}, "attributes": {"y": 2, "x": 1}, "node_type": "group", "zarr_format": 3});
    assert!(like(&a, &b, &all()));
}

#[test]
fn deep_attribute_change() {
    let expected = v3_tree();
    let actual = set(
        expected.clone(),
        "/members/sub/members/s/codecs/0/configuration/codecs/1/configuration/level",
        json!(5),
    );
    let diffs = diff(&expected, &actual, &all());
    let d = only(&diffs);
    assert_eq!(d.path, "sub/s");
    assert_eq!(
        d.loc,
        vec![
            k("codecs"),
            i(0),
            k("configuration"),
            k("codecs"),
            i(1),
            k("configuration"),
            k("level")
        ]
    );
    assert_eq!(d.kind, DifferenceKind::Changed);
    assert_eq!(d.expected, Some(json!(3)));
    assert_eq!(d.actual, Some(json!(5)));
    assert!(d
        .message
        .contains("codecs.0.configuration.codecs.1.configuration.level"));

    let actual = set(expected.clone(), "/attributes/nested/a/2", json!("x"));
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!(d.path, "");
    assert_eq!(d.loc, vec![k("attributes"), k("nested"), k("a"), i(2)]);
    assert_eq!(d.kind, DifferenceKind::TypeChanged);
    assert_eq!(
        (d.expected, d.actual),
        (Some(Value::Null), Some(json!("x")))
    );
}

#[test]
fn every_difference_in_document_order() {
    let expected = v3_tree();
    let mut actual = set(expected.clone(), "/attributes/title", json!("u"));
    actual = set(actual, "/members/a/attributes/units", json!("km"));
    actual = set(actual, "/members/a/shape/0", json!(11));
    actual = remove(actual, "/members/sub/members/empty");
    actual = set(
        actual,
        "/members/sub/members/new",
        json!({"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {}}),
    );
    actual = set(actual, "/attributes/added", json!(true));
    let diffs = diff(&expected, &actual, &all());
    let summary: Vec<(&str, String, DifferenceKind)> = diffs
        .iter()
        .map(|d| {
            (
                d.path.as_str(),
                serde_json::to_string(&d.loc).unwrap(),
                d.kind,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "",
                r#"["attributes","title"]"#.into(),
                DifferenceKind::Changed
            ),
            (
                "",
                r#"["attributes","added"]"#.into(),
                DifferenceKind::Added
            ),
            (
                "a",
                r#"["attributes","units"]"#.into(),
                DifferenceKind::Changed
            ),
            ("a", r#"["shape",0]"#.into(), DifferenceKind::Changed),
            ("sub/empty", "[]".into(), DifferenceKind::Removed),
            ("sub/new", "[]".into(), DifferenceKind::Added),
        ]
    );
    // Deterministic: the same call gives the same list.
    assert_eq!(diffs, diff(&expected, &actual, &all()));
}

#[test]
fn members_added_and_removed_at_depth_are_one_difference_each() {
    let expected = v2_tree();
    let actual = remove(expected.clone(), "/members/h/members/deep/members/er");
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!(d.path, "h/deep/er");
    assert!(d.loc.is_empty());
    assert_eq!(d.kind, DifferenceKind::Removed);
    assert_eq!(
        d.expected,
        Some(expected["members"]["h"]["members"]["deep"]["members"]["er"].clone())
    );
    assert_eq!(d.actual, None);

    let d = only(&diff(&actual, &expected, &all())).clone();
    assert_eq!(
        (d.path.as_str(), d.kind),
        ("h/deep/er", DifferenceKind::Added)
    );
    assert_eq!(d.expected, None);

    // A whole subtree added is still one difference.
    let actual = remove(expected.clone(), "/members/h");
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!((d.path.as_str(), d.kind), ("h", DifferenceKind::Removed));
    assert!(d.message.contains("group"));
}

#[test]
fn group_versus_array_is_one_type_change() {
    let expected = v3_tree();
    let array = expected["members"]["a"].clone();
    let actual = set(expected.clone(), "/members/sub", array);
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!(d.path, "sub");
    assert!(d.loc.is_empty());
    assert_eq!(d.kind, DifferenceKind::TypeChanged);
    assert_eq!(
        (d.expected, d.actual),
        (Some(json!("group")), Some(json!("array")))
    );

    // v2 nodes have no node_type: the kind comes from shape / members.
    let expected = v2_tree();
    let group = expected["members"]["h"].clone();
    let actual = set(expected.clone(), "/members/a", group);
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!(
        (d.path.as_str(), d.kind),
        ("a", DifferenceKind::TypeChanged)
    );
}

#[test]
fn json_type_changes() {
    let expected = v3_tree();
    let cases = [
        ("/members/a/data_type", json!({"name": "int8"})),
        ("/members/a/fill_value", json!("0")),
        ("/members/a/fill_value", json!(false)),
        ("/members/a/dimension_names", Value::Null),
        ("/members/a/codecs", json!({})),
    ];
    for (pointer, value) in cases {
        let actual = set(expected.clone(), pointer, value.clone());
        let d = only(&diff(&expected, &actual, &all())).clone();
        assert_eq!(d.kind, DifferenceKind::TypeChanged, "{pointer}");
        assert_eq!(d.actual, Some(value));
        assert_eq!(d.path, "a");
    }
}

#[test]
fn numbers_compare_by_value() {
    let cases = [
        (json!(1), json!(1.0), true),
        (json!(0), json!(-0.0), true),
        (json!(1e3), json!(1000), true),
        (json!(u64::MAX), json!(u64::MAX), true),
        (json!(u64::MAX), json!(-1), false),
        (json!(i64::MIN), json!(i64::MIN as f64), true),
        (json!(u64::MAX), json!(u64::MAX as f64), false), // 2^64 as a float is one more
        (
            json!(9007199254740993_u64),
            json!(9007199254740992.0),
            false,
        ),
        (json!(1), json!(1.5), false),
        (json!(0.1), json!(0.1), true),
        (json!(1e308), json!(1), false),
        (json!("NaN"), json!("NaN"), true),
        (json!("NaN"), json!("nan"), false),
        (json!(1), json!(true), false),
        (json!(1), json!("1"), false),
    ];
    for (a, b, equal) in cases {
        assert_eq!(like(&a, &b, &all()), equal, "{a} vs {b}");
        assert_eq!(like(&b, &a, &all()), equal, "{b} vs {a}");
    }
    let tree = v2_tree();
    let actual = set(tree.clone(), "/members/a/shape/0", json!(10.0));
    assert!(like(&tree, &actual, &all()));
}

#[test]
fn array_length_changes_are_per_element() {
    let expected = v3_tree();
    let actual = set(expected.clone(), "/members/a/shape", json!([10, 20, 30]));
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!(d.loc, vec![k("shape"), i(2)]);
    assert_eq!(d.kind, DifferenceKind::Added);
    assert_eq!(d.actual, Some(json!(30)));

    let actual = set(expected.clone(), "/members/a/codecs", json!([]));
    let diffs = diff(&expected, &actual, &all());
    assert_eq!(diffs.len(), 2);
    assert!(diffs.iter().all(|d| d.kind == DifferenceKind::Removed));
    assert_eq!(diffs[0].loc, vec![k("codecs"), i(0)]);
    assert_eq!(diffs[1].loc, vec![k("codecs"), i(1)]);
    assert_eq!(
        diffs[1].expected,
        Some(expected["members"]["a"]["codecs"][1].clone())
    );
}

#[test]
fn exclude_selectors() {
    let expected = v3_tree();
    let mut actual = set(expected.clone(), "/attributes/title", json!("u"));
    actual = set(actual, "/members/sub/members/s/attributes", json!({"k": 1}));
    actual = set(actual, "/members/a/codecs/1/configuration/level", json!(9));
    assert_eq!(diff(&expected, &actual, &all()).len(), 3);

    // Applied at every node.
    let diffs = diff(&expected, &actual, &exclude(&["attributes"]));
    assert_eq!(only(&diffs).path, "a");
    assert!(like(
        &expected,
        &actual,
        &exclude(&["attributes", "codecs"])
    ));
    assert!(like(
        &expected,
        &actual,
        &exclude(&["attributes", "codecs.1.configuration"])
    ));
    assert!(like(
        &expected,
        &actual,
        &exclude(&["attributes", "codecs.*.configuration.level"])
    ));
    assert!(!like(
        &expected,
        &actual,
        &exclude(&["attributes", "codecs.0"])
    ));
    assert!(like(
        &expected,
        &actual,
        &exclude(&["attributes.title", "attributes.k", "codecs"])
    ));

    // Excluding members compares the root only.
    let diffs = diff(&expected, &actual, &exclude(&["members"]));
    assert_eq!(only(&diffs).loc, vec![k("attributes"), k("title")]);
    let removed = remove(expected.clone(), "/members/sub");
    assert!(like(&expected, &removed, &exclude(&["members"])));

    // members.NAME: every member with that name, at any depth; members.NAME.FIELD its field.
    let diffs = diff(&expected, &actual, &exclude(&["members.s", "members.a"]));
    assert_eq!(only(&diffs).path, "");
    assert!(like(&expected, &removed, &exclude(&["members.sub"])));
    let diffs = diff(
        &expected,
        &actual,
        &exclude(&["members.s.attributes", "members.a"]),
    );
    assert_eq!(only(&diffs).path, "");
}

#[test]
fn include_selectors() {
    let expected = v3_tree();
    let mut actual = set(expected.clone(), "/attributes/title", json!("u"));
    actual = set(actual, "/members/sub/members/s/attributes", json!({"k": 1}));
    actual = set(actual, "/members/a/codecs/1/configuration/level", json!(9));

    let diffs = diff(&expected, &actual, &include(&["attributes"]));
    let paths: Vec<&str> = diffs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, vec!["", "sub/s"]);

    let diffs = diff(
        &expected,
        &actual,
        &include(&["codecs.1.configuration.level"]),
    );
    assert_eq!(
        only(&diffs).loc,
        vec![k("codecs"), i(1), k("configuration"), k("level")]
    );
    assert!(like(
        &expected,
        &actual,
        &include(&["shape", "codecs.0", "attributes.nested"])
    ));
    assert!(like(&expected, &actual, &include(&[])));

    // The member structure is still walked: a removed member shows even with include.
    let removed = remove(expected.clone(), "/members/sub/members/f");
    let d = only(&diff(&expected, &removed, &include(&["shape"]))).clone();
    assert_eq!(
        (d.path.as_str(), d.kind),
        ("sub/f", DifferenceKind::Removed)
    );
    assert!(like(
        &expected,
        &removed,
        &CompareOptions {
            include: Some(vec!["shape".into()]),
            exclude: vec!["members".into()],
        }
    ));

    // Exclude wins over include.
    let options = CompareOptions {
        include: Some(vec!["attributes".into()]),
        exclude: vec!["attributes.title".into(), "attributes.k".into()],
    };
    assert!(like(&expected, &actual, &options));

    // Include of a field absent on one side.
    let actual = remove(expected.clone(), "/members/a/attributes/units");
    let d = only(&diff(&expected, &actual, &include(&["attributes.units"]))).clone();
    assert_eq!((d.path.as_str(), d.kind), ("a", DifferenceKind::Removed));
    assert_eq!(d.loc, vec![k("attributes"), k("units")]);
}

#[test]
fn escaped_selectors() {
    let a = json!({"attributes": {"a.b": 1, "*": 2, "c": 3}, "members": {}});
    let b = json!({"attributes": {"a.b": 9, "*": 8, "c": 7}, "members": {}});
    assert_eq!(diff(&a, &b, &all()).len(), 3);
    let diffs = diff(&a, &b, &exclude(&["attributes.a\\.b", "attributes.\\*"]));
    assert_eq!(only(&diffs).loc, vec![k("attributes"), k("c")]);
    assert!(like(&a, &b, &exclude(&["attributes.*"])));
    assert!(!like(&a, &b, &exclude(&["attributes.a"])));
    let diffs = diff(&a, &b, &include(&["attributes.a\\.b"]));
    assert!(only(&diffs).message.starts_with("attributes.a\\.b:"));
    // The empty selector selects nothing.
    assert_eq!(diff(&a, &b, &exclude(&[""])).len(), 3);
}

#[test]
fn flattened_and_odd_members() {
    let a = json!({"zarr_format": 2, "attributes": {}, "members": null});
    let b = json!({"zarr_format": 2, "attributes": {}, "members": {}});
    let d = only(&diff(&a, &b, &all())).clone();
    assert_eq!(
        (d.loc.clone(), d.kind),
        (vec![k("members")], DifferenceKind::TypeChanged)
    );
    assert!(like(&a, &a, &all()));
    // Members that are not nodes are compared as values, never panicking.
    let a = json!({"members": {"x": 1, "y": [1], "z": {"members": 5}}});
    let b = json!({"members": {"x": "1", "y": [2], "z": {"members": 6}}});
    let diffs = diff(&a, &b, &all());
    let summary: Vec<(&str, usize, DifferenceKind)> = diffs
        .iter()
        .map(|d| (d.path.as_str(), d.loc.len(), d.kind))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("x", 0, DifferenceKind::TypeChanged),
            ("y", 1, DifferenceKind::Changed),
            ("z", 1, DifferenceKind::Changed),
        ]
    );
}

fn nested_arrays(depth: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

fn nested_groups(depth: usize) -> Value {
    let mut v = json!({"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {}});
    for _ in 0..depth {
        v = json!({"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {"g": v}});
    }
    v
}

#[test]
fn depth_cap() {
    // Deep attributes: one too_deep difference, no stack overflow, not like itself.
    let deep = json!({"attributes": {"x": nested_arrays(MAX_LOCATION_STEPS * 4)}, "members": {}});
    let diffs = diff(&deep, &deep, &all());
    let d = only(&diffs);
    assert_eq!(d.kind, DifferenceKind::TooDeep);
    assert_eq!(d.loc.len(), MAX_LOCATION_STEPS);
    assert!(!like(&deep, &deep, &all()));
    // Unless the deep part is excluded.
    assert!(like(&deep, &deep, &exclude(&["attributes"])));

    // Just under the cap compares normally.
    let shallow =
        json!({"attributes": {"x": nested_arrays(MAX_LOCATION_STEPS - 3)}, "members": {}});
    assert!(like(&shallow, &shallow, &all()));

    // Deep member trees.
    let deep = nested_groups(MAX_LOCATION_STEPS);
    let diffs = diff(&deep, &deep, &all());
    let d = only(&diffs);
    assert_eq!(d.kind, DifferenceKind::TooDeep);
    assert!(d.path.starts_with("g/g/g"));
    assert!(like(&nested_groups(100), &nested_groups(100), &all()));

    // A deep member only on one side: reported, its value left out.
    let expected = json!({"members": {}});
    let actual = json!({"members": {"x": nested_arrays(MAX_LOCATION_STEPS * 2)}});
    let d = only(&diff(&expected, &actual, &all())).clone();
    assert_eq!(d.kind, DifferenceKind::Added);
    assert_eq!(d.actual, None);
    assert!(d.message.contains("too deeply nested"));
}

#[test]
fn serialises_with_snake_case_kinds() {
    let expected = v3_tree();
    let actual = set(
        expected.clone(),
        "/members/a/codecs/1/configuration/level",
        json!(1),
    );
    let diffs = diff(&expected, &actual, &all());
    let json = serde_json::to_value(&diffs).unwrap();
    assert_eq!(
        json,
        json!([{
            "path": "a",
            "loc": ["codecs", 1, "configuration", "level"],
            "kind": "changed",
            "expected": 0,
            "actual": 1,
            "message": "codecs.1.configuration.level: expected 0, found 1"
        }])
    );
    let removed = remove(expected.clone(), "/members/a");
    let json = serde_json::to_value(diff(&expected, &removed, &all())).unwrap();
    assert_eq!(json[0]["kind"], "removed");
    assert!(json[0].get("actual").is_none());
    let changed = set(expected.clone(), "/members/a/dimension_names", Value::Null);
    let json = serde_json::to_value(diff(&expected, &changed, &all())).unwrap();
    assert_eq!(json[0]["kind"], "type_changed");
    assert_eq!(json[0]["actual"], Value::Null);
}

#[test]
fn any_pair_of_nodes_compares_symmetrically() {
    fn nodes(tree: &Value, out: &mut Vec<Value>) {
        out.push(tree.clone());
        if let Some(members) = tree.get("members").and_then(Value::as_object) {
            for member in members.values() {
                nodes(member, out);
            }
        }
    }
    let mut all_nodes = Vec::new();
    nodes(&v3_tree(), &mut all_nodes);
    nodes(&v2_tree(), &mut all_nodes);
    all_nodes.extend([json!(null), json!([]), json!("x"), json!({"members": []})]);
    for a in &all_nodes {
        assert!(like(a, a, &all()));
        for b in &all_nodes {
            let forward = diff(a, b, &all());
            let backward = diff(b, a, &all());
            assert_eq!(forward.len(), backward.len(), "{a} vs {b}");
            assert_eq!(forward.is_empty(), a == b);
        }
    }
}
