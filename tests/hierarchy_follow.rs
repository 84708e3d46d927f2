//! Walking what metadata names: on a store that cannot list, a walk finds the members an
//! OME-Zarr hierarchy's metadata names (datasets, labels, wells, fields, series) and builds the
//! same ZOM as with a listing, in as many round trips as the hierarchy is deep; a named path
//! that is not there is found absent by a request, and the validator calls a path missing only
//! when the walk settled it.

mod common;

use common::store::{block_on, store_from_dir, Slow};
use common::{assert_json_eq, fixtures};
use serde_json::{json, Value};
use std::sync::Arc;
use zom::hierarchy::{walk, Follow, WalkOptions, WalkResult};
use zom::spec::{Spec, SpecChoice, Unsettled};
use zom::store::{MemoryStore, Store};
use zom::validate::{validate_hierarchy, ValidateOptions};

/// The OME-Zarr fixtures of ome-zarr-py (tests/fixtures/conventions*/), metadata only.
const OME: &[&str] = &[
    "conventions/ome-0.4-image",
    "conventions/ome-0.5-image",
    "conventions/ome-0.4-plate",
    "conventions/ome-0.5-plate",
    "conventions/ome-0.4-bioformats2raw",
    "conventions/ome-0.5-bioformats2raw",
    "conventions-0.6/ome-0.6-image",
    "conventions-0.6/ome-0.6-plate",
    "conventions-0.6/ome-0.6-scene",
];

fn walked(store: &impl Store, options: &WalkOptions) -> WalkResult {
    block_on(walk(store, "", options, &mut |_| {})).unwrap()
}

fn unlistable(dir: &str) -> MemoryStore {
    let mut store = store_from_dir(&fixtures().join(dir));
    store.set_listable(false);
    store
}

/// Node paths of a tree, sorted.
fn paths(node: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), node)];
    while let Some((path, n)) = stack.pop() {
        if let Some(members) = n.get("members").and_then(Value::as_object) {
            for (name, child) in members {
                let p = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}/{name}")
                };
                stack.push((p, child));
            }
        }
        out.push(path);
    }
    out.sort();
    out
}

/// How deep the tree is: the most path segments of a node.
fn depth(node: &Value) -> u32 {
    let most = paths(node)
        .iter()
        .map(|p| {
            if p.is_empty() {
                0
            } else {
                p.split('/').count()
            }
        })
        .max();
    u32::try_from(most.unwrap_or(0)).unwrap()
}

#[test]
fn unlisted_ome_zarr_walks_to_the_same_zom_as_listed() {
    for dir in OME {
        let listed = walked(
            &store_from_dir(&fixtures().join(dir)),
            &WalkOptions::default(),
        );
        let inner = unlistable(dir);
        let store = Slow::new(&inner);
        let followed = walked(&store, &WalkOptions::default());
        let expected = listed.root.to_value();
        assert_json_eq(&followed.root.to_value(), &expected, dir);
        assert!(followed.errors.is_empty(), "{dir}: {:?}", followed.errors);
        // Unlisted only where nothing names members, and there are none to find (the OME
        // group of bioformats2raw names its siblings, and holds only the OME-XML).
        for group in &followed.unlisted {
            let node = group
                .split('/')
                .fold(&expected, |n, name| &n["members"][name]);
            assert_eq!(node["members"], json!({}), "{dir}: unlisted {group}");
        }
        // Every path one level names is asked for at once: at most a round trip per level,
        // the root's included whatever its format (a plate's rows come with its wells, a 0.6
        // image's labels may be named by the image); the series of a bioformats2raw
        // collection are named by its OME group, one round trip later.
        let rounds = depth(&expected) + 1 + u32::from(dir.contains("bioformats2raw"));
        let taken = store.rounds.get();
        assert!(taken <= rounds, "{dir}: {taken} round trips");
    }
}

#[test]
fn without_following_an_unlisted_hierarchy_is_its_root() {
    let options = WalkOptions {
        follow: Follow::Nothing,
        ..WalkOptions::default()
    };
    let result = walked(&unlistable("conventions/ome-0.5-plate"), &options);
    assert_eq!(paths(&result.root.to_value()), [""]);
    assert_eq!(result.unlisted, [""]);
}

#[test]
fn a_v3_node_costs_one_request() {
    // Each node's zarr.json; besides, the root's v2 documents (its format is not known, so
    // both are asked for at once) and each `labels` an image may have but does not.
    let store = unlistable("conventions/ome-0.5-plate");
    let result = walked(&store, &WalkOptions::default());
    let nodes = paths(&result.root.to_value());
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for entry in store.log() {
        let Some(key) = entry.strip_prefix("get ") else {
            continue;
        };
        let path = key.rsplit_once('/').map_or("", |(p, _)| p);
        match nodes.iter().any(|n| n == path) && key.ends_with("zarr.json") {
            true => found.push(path.to_string()),
            false => missing.push(key.to_string()),
        }
    }
    found.sort();
    assert_eq!(found, nodes);
    missing.sort();
    let expected = [
        ".zarray",
        ".zattrs",
        ".zgroup",
        ".zmetadata",
        "A/1/0/labels/cells/labels/zarr.json",
        "A/1/1/labels/zarr.json",
        "B/2/0/labels/zarr.json",
    ];
    assert_eq!(missing, expected);
}

/// The 0.5 plate with its metadata changed by `edit`.
fn edited_plate(edit: impl FnOnce(&mut Value)) -> MemoryStore {
    let mut store = unlistable("conventions/ome-0.5-plate");
    let dir = fixtures().join("conventions/ome-0.5-plate");
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(dir.join("zarr.json")).unwrap()).unwrap();
    edit(&mut doc);
    store.insert("zarr.json", serde_json::to_vec(&doc).unwrap());
    store
}

fn ome_problems(result: &WalkResult, unsettled: Unsettled) -> Vec<String> {
    let options = ValidateOptions {
        specs: vec![SpecChoice::named("ome-zarr").unwrap()],
        unsettled,
        ..ValidateOptions::default()
    };
    let report = validate_hierarchy(&result.root.to_value(), &options);
    report
        .problems
        .iter()
        .map(|p| format!("{} {}", p.path, p.message))
        .collect()
}

#[test]
fn a_named_path_that_is_not_there_is_asked_for_and_reported() {
    let store = edited_plate(|doc| {
        let wells = doc["attributes"]["ome"]["plate"]["wells"]
            .as_array_mut()
            .unwrap();
        wells.push(json!({"path": "B/1", "rowIndex": 1, "columnIndex": 0}));
    });
    let result = walked(&store, &WalkOptions::default());
    assert!(store.log().contains(&"get B/1/zarr.json".to_string()));
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let problems = ome_problems(&result, Unsettled::default());
    assert_eq!(problems, [" 'B/1' names no node below this one"]);
}

#[test]
fn a_path_the_walk_could_not_settle_is_not_called_missing() {
    let store = edited_plate(|_| {});
    let result = walked(&store, &WalkOptions::default());
    let mut tree = result.root.to_value();
    // As if the request for B/2 had failed: the walk reports it, the tree lacks it.
    tree["members"]["B"]["members"]
        .as_object_mut()
        .unwrap()
        .remove("2");
    let options = |unknown: Vec<String>| ValidateOptions {
        specs: vec![SpecChoice::named("ome-zarr").unwrap()],
        unsettled: Unsettled {
            unlisted: Vec::new(),
            unknown,
        },
        ..ValidateOptions::default()
    };
    let messages = |unknown| {
        validate_hierarchy(&tree, &options(unknown))
            .problems
            .into_iter()
            .map(|p| p.message)
            .collect::<Vec<_>>()
    };
    assert_eq!(messages(vec![]), ["'B/2' names no node below this one"]);
    assert!(messages(vec!["B/2".into()]).is_empty());
    assert!(messages(vec!["B".into()]).is_empty());
}

#[test]
fn a_named_node_without_its_parent_is_reported_and_the_rest_returned() {
    let mut store = edited_plate(|doc| {
        let wells = doc["attributes"]["ome"]["plate"]["wells"]
            .as_array_mut()
            .unwrap();
        wells.push(json!({"path": "C/1", "rowIndex": 2, "columnIndex": 0}));
    });
    // A well whose row group is missing.
    let well = std::fs::read(fixtures().join("conventions/ome-0.5-plate/B/2/zarr.json")).unwrap();
    store.insert("C/1/zarr.json", well);
    let result = walked(&store, &WalkOptions::default());
    assert_eq!(result.errors.len(), 1, "{:?}", result.errors);
    let error = &result.errors[0];
    assert_eq!(error.path.as_deref(), Some("C/1"));
    assert!(
        error.message.contains("its parent is no group"),
        "{}",
        error.message
    );
    assert!(paths(&result.root.to_value()).contains(&"B/2/0/s1".to_string()));
}

#[test]
fn named_paths_stay_below_the_start_node_and_never_climb() {
    let store = edited_plate(|doc| {
        let wells = doc["attributes"]["ome"]["plate"]["wells"]
            .as_array_mut()
            .unwrap();
        wells.push(json!({"path": "../outside", "rowIndex": 0, "columnIndex": 0}));
        wells.push(json!({"path": "./A/./1", "rowIndex": 0, "columnIndex": 0}));
    });
    walked(&store, &WalkOptions::default());
    assert!(
        !store.log().iter().any(|l| l.contains("outside")),
        "{:#?}",
        store.log()
    );
    // Walking from a well: its fields are followed, not the plate's other wells.
    store.reset_counts();
    let below = block_on(walk(&store, "A/1", &WalkOptions::default(), &mut |_| {})).unwrap();
    let expected = [
        "",
        "0",
        "0/labels",
        "0/labels/cells",
        "0/labels/cells/s0",
        "0/labels/cells/s1",
        "0/s0",
        "0/s1",
        "1",
        "1/s0",
        "1/s1",
    ];
    assert_eq!(paths(&below.root.to_value()), expected);
    assert!(
        !store.log().iter().any(|l| l.contains("B/")),
        "{:#?}",
        store.log()
    );
}

#[test]
fn paths_below_the_depth_walked_are_unasked() {
    let options = WalkOptions {
        depth: Some(2),
        ..WalkOptions::default()
    };
    let result = walked(&unlistable("conventions/ome-0.5-plate"), &options);
    assert_eq!(paths(&result.root.to_value()), ["", "A", "A/1", "B", "B/2"]);
    assert_eq!(result.unasked, ["A/1/0", "A/1/1", "B/2/0"]);
}

#[test]
fn named_paths_count_against_the_node_limit() {
    let store = edited_plate(|doc| {
        let wells: Vec<Value> = (0..5000)
            .map(|i| json!({"path": format!("A/{i}"), "rowIndex": 0, "columnIndex": 0}))
            .collect();
        doc["attributes"]["ome"]["plate"]["wells"] = Value::Array(wells);
    });
    let mut options = WalkOptions::default();
    options.limits.max_nodes = 1000;
    let error = block_on(walk(&store, "", &options, &mut |_| {})).unwrap_err();
    assert_eq!(error.code, zom::ErrorCode::LimitExceeded, "{error}");
    assert!(store.log().len() < 1100, "{} requests", store.log().len());
}

#[test]
fn a_users_spec_names_members_too() {
    let spec = json!({
        "zom_spec": 1,
        "name": "catalogue",
        "claims": [{"name": "catalogue", "when": {"attributes": {"required": ["items"]}}, "node": "catalogue"}],
        "nodes": {
            "catalogue": {
                "kind": "group",
                "members": {"readme": {"required": false}},
                "references": [{"rule": "items", "from": "/items/*", "kind": "array"}]
            }
        }
    });
    let spec = Arc::new(Spec::from_value(&spec).unwrap());
    let array = |shape: u64| {
        json!({"zarr_format": 3, "node_type": "array", "shape": [shape], "data_type": "uint8",
               "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1]}},
               "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
               "codecs": [{"name": "bytes"}], "attributes": {}})
    };
    let group = |attributes: Value| json!({"zarr_format": 3, "node_type": "group", "attributes": attributes});
    let mut store = MemoryStore::new();
    store.set_listable(false);
    let docs = [
        ("zarr.json", group(json!({"items": ["a", "deep/b"]}))),
        ("a/zarr.json", array(1)),
        ("deep/zarr.json", group(json!({}))),
        ("deep/b/zarr.json", array(2)),
        ("readme/zarr.json", group(json!({}))),
    ];
    for (key, doc) in docs {
        store.insert(key, serde_json::to_vec(&doc).unwrap());
    }
    let builtin_only = walked(&store, &WalkOptions::default());
    assert_eq!(paths(&builtin_only.root.to_value()), [""]);
    let options = WalkOptions {
        follow: Follow::Specs(vec![spec]),
        ..WalkOptions::default()
    };
    let result = walked(&store, &options);
    assert_eq!(
        paths(&result.root.to_value()),
        ["", "a", "deep", "deep/b", "readme"]
    );
}

#[test]
fn a_v2_array_named_as_an_array_costs_its_two_documents() {
    let store = unlistable("conventions/ome-0.4-image");
    let result = walked(&store, &WalkOptions::default());
    let tree = result.root.to_value();
    let log = store.log();
    let arrays: Vec<String> = paths(&tree)
        .into_iter()
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let node = p.split('/').fold(&tree, |n, name| &n["members"][name]);
            node.get("shape").is_some()
        })
        .collect();
    assert_eq!(arrays.len(), 6);
    for array in arrays {
        let asked: Vec<&String> = log
            .iter()
            .filter(|l| {
                l.rsplit_once('/')
                    .is_some_and(|(k, _)| k == format!("get {array}"))
            })
            .collect();
        assert_eq!(
            asked,
            [
                &format!("get {array}/.zarray"),
                &format!("get {array}/.zattrs")
            ]
        );
    }
}

#[test]
fn a_dataset_path_naming_a_group_is_found_and_reported_as_such() {
    // The 0.4 image's first level replaced by a group: the array probe finds nothing, the
    // probe for any node finds the group, and the validator says what it is.
    let mut store = unlistable("conventions/ome-0.4-image");
    let dir = fixtures().join("conventions/ome-0.4-image");
    let first = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|n| n.starts_with('s') || n.chars().all(|c| c.is_ascii_digit()))
        .min()
        .unwrap();
    store.remove(&format!("{first}/.zarray"));
    store.insert(
        &format!("{first}/.zgroup"),
        br#"{"zarr_format": 2}"#.to_vec(),
    );
    let result = walked(&store, &WalkOptions::default());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let problems = ome_problems(&result, Unsettled::default());
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&format!("'{first}' must name an array, but it is a group"))),
        "{problems:#?}"
    );
}

#[test]
fn a_group_whose_metadata_names_members_is_not_listed() {
    // Every group of the plate names its members (rows and wells, fields, levels, labels):
    // a listing, though the store has one, is asked for nowhere.
    let store = store_from_dir(&fixtures().join("conventions/ome-0.5-plate"));
    let followed = walked(&store, &WalkOptions::default());
    assert!(
        !store.log().iter().any(|l| l.starts_with("list ")),
        "{:#?}",
        store.log()
    );
    // Walking by listings alone finds the same tree, a listing per group.
    store.reset_counts();
    let options = WalkOptions {
        follow: Follow::Nothing,
        ..WalkOptions::default()
    };
    let listed = walked(&store, &options);
    assert_json_eq(&listed.root.to_value(), &followed.root.to_value(), "listed");
    assert!(
        store.log().iter().any(|l| l == "list A/1"),
        "{:#?}",
        store.log()
    );
}

#[test]
fn a_group_that_names_only_a_specs_member_names_is_listed() {
    // A bioformats2raw collection whose OME group lists no series (as older writers leave it):
    // the root names only `OME`, so its numbered images are found by its listing, or else it
    // is reported unlisted and its member count is not held against it.
    let dir = "conventions/ome-0.5-bioformats2raw";
    let edit = |store: &mut MemoryStore| {
        let mut ome: Value = serde_json::from_slice(
            &std::fs::read(fixtures().join(dir).join("OME/zarr.json")).unwrap(),
        )
        .unwrap();
        ome["attributes"]["ome"]
            .as_object_mut()
            .unwrap()
            .remove("series");
        store.insert("OME/zarr.json", serde_json::to_vec(&ome).unwrap());
    };
    let mut listable = store_from_dir(&fixtures().join(dir));
    edit(&mut listable);
    let result = walked(&listable, &WalkOptions::default());
    assert!(paths(&result.root.to_value()).contains(&"1/s1".to_string()));
    assert!(ome_problems(&result, Unsettled::default()).is_empty());

    let mut store = unlistable(dir);
    edit(&mut store);
    let result = walked(&store, &WalkOptions::default());
    assert_eq!(result.unlisted, ["", "OME"]);
    let unsettled = Unsettled {
        unlisted: result.unlisted.clone(),
        unknown: Vec::new(),
    };
    assert_eq!(ome_problems(&result, unsettled), Vec::<String>::new());
}

#[test]
fn a_path_deeper_than_a_hierarchy_can_be_is_not_followed() {
    // 100,000 steps: neither the path nor the 99,999 above it are made or asked for.
    let deep = vec!["a"; 100_000].join("/");
    let store = edited_plate(|doc| {
        let wells = doc["attributes"]["ome"]["plate"]["wells"]
            .as_array_mut()
            .unwrap();
        wells.push(json!({"path": deep, "rowIndex": 0, "columnIndex": 0}));
    });
    let result = walked(&store, &WalkOptions::default());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert!(
        !store.log().iter().any(|l| l.starts_with("get a/")),
        "{:?}",
        &store.log()[..5]
    );
}
