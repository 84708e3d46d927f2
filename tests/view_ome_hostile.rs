//! Hostile metadata given to the OME-Zarr views: wrong types everywhere, huge lists, strings
//! for numbers, missing members, and the NGFF conformance suites. Nothing may panic.

mod common;
mod view_ome_common;

use common::{files_below, read_documents, read_json};
use serde_json::{json, Value};
use std::path::Path;
use view_ome_common::*;
use zom::validate::Severity;
use zom::view::node_at;

const HOSTILE: [fn() -> Value; 12] = [
    || Value::Null,
    || json!("NaN"),
    || json!("-Infinity"),
    || json!(-1),
    || json!(1.0e308),
    || json!(18446744073709551615u64),
    || json!([]),
    || json!({}),
    || json!(true),
    || json!([null, "x", -3, {"a": []}]),
    || json!([[[[[]]]]]),
    || Value::Array(vec![json!({"name": "x", "type": "space"}); 5_000]),
];

/// Every location of a JSON value, as JSON pointers.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(o) => {
            for (k, v) in o {
                pointers(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_attribute_replaced_by_hostile_values_never_panics() {
    for (dir, node) in [
        ("conventions/ome-0.4-image", ""),
        ("conventions/ome-0.4-image", "labels/cells"),
        ("conventions-0.6/ome-0.6-image", ""),
        ("conventions-0.6/ome-0.6-plate", ""),
        ("conventions-0.6/ome-0.6-plate", "A/1"),
        ("conventions-0.6/ome-0.6-scene", ""),
        ("conventions/ome-0.5-bioformats2raw", "OME"),
    ] {
        let zom = zom_of(dir);
        let attributes = node_at(&zom, node).unwrap()["attributes"].clone();
        let mut at = Vec::new();
        pointers(&attributes, String::new(), &mut at);
        for pointer in at.iter().filter(|p| !p.is_empty()) {
            for hostile in HOSTILE {
                let mut z = zom.clone();
                *node_mut(&mut z, node)["attributes"]
                    .pointer_mut(pointer)
                    .unwrap() = hostile();
                describe_all(&z);
            }
        }
    }
}

#[test]
fn hostile_array_metadata_and_members_never_panic() {
    let zom = zom_of("conventions/ome-0.5-image");
    for key in [
        "shape",
        "chunk_grid",
        "data_type",
        "node_type",
        "zarr_format",
    ] {
        for hostile in HOSTILE {
            let mut z = zom.clone();
            node_mut(&mut z, "s1")[key] = hostile();
            node_mut(&mut z, "labels/cells/s0")[key] = hostile();
            describe_all(&z);
        }
    }
    for hostile in HOSTILE {
        let mut z = zom.clone();
        node_mut(&mut z, "")["members"]["s2"] = hostile();
        describe_all(&z);
        let mut z = zom.clone();
        node_mut(&mut z, "labels")["members"] = hostile();
        describe_all(&z);
        let mut z = zom.clone();
        node_mut(&mut z, "")["attributes"] = hostile();
        describe_all(&z);
        describe_all(&hostile());
    }
}

#[test]
fn huge_and_strange_metadata_is_bounded() {
    let axes = vec![json!({"name": "x", "type": "space"}); 200_000];
    let datasets: Vec<Value> = (0..100_000)
        .map(|i| json!({"path": i.to_string(), "coordinateTransformations": [{"type": "sequence",
            "transformations": [{"type": "sequence", "transformations": [{"type": "scale", "scale": [2]}]}]}]}))
        .collect();
    let mut nested = json!({"type": "scale", "scale": [1.0]});
    for _ in 0..64 {
        nested = json!({"type": "sequence", "transformations": [nested]});
    }
    let channels = vec![json!({"color": "zzzzzz", "window": {"start": "NaN", "end": 1}}); 100_000];
    let zom = json!({
        "zarr_format": 3, "node_type": "group",
        "attributes": {"ome": {"version": 0.5, "multiscales": [{"axes": axes, "datasets": datasets,
            "coordinateTransformations": [nested]}],
            "omero": {"channels": channels, "rdefs": {"defaultZ": -1}}}},
        "members": {"0": {"zarr_format": 3, "node_type": "array", "shape": vec![1u64; 100_000],
            "data_type": {"name": 7}, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": "x"}}}}
    });
    let (v, problems) = image_of(&zom, "");
    assert_eq!(v.axes.len(), 32);
    assert_eq!(v.levels.len(), 256);
    assert_eq!(
        v.levels[0].shape, None,
        "a shape longer than any image's is not read"
    );
    assert!(v.channels.len() <= 1024);
    assert!(problems.len() <= 2048, "{}", problems.len());
    assert_eq!(v.version, None);
    describe_all(&zom);
}

#[test]
fn the_ngff_suites_attributes_never_panic() {
    let mut cases = 0;
    for version in ["0.4", "0.5"] {
        let dir = Path::new("/work/shared/ngff-suites").join(version);
        if !dir.exists() {
            return;
        }
        for (key, path) in files_below(&dir) {
            if !key.ends_with(".json") {
                continue;
            }
            for case in read_json(&path)["tests"].as_array().unwrap() {
                for format in [2, 3] {
                    let zom = json!({"zarr_format": format, "node_type": "group",
                        "attributes": case["data"], "members": {}});
                    describe_all(&zom);
                    cases += 1;
                }
            }
        }
    }
    let attributes = Path::new("/work/shared/ngff-0.6/tests/attributes");
    for (key, path) in files_below(attributes) {
        if key.ends_with(".json") {
            let zom = json!({"zarr_format": 3, "node_type": "group",
                "attributes": read_json(&path), "members": {}});
            describe_all(&zom);
            cases += 1;
        }
    }
    assert!(cases > 100, "{cases}");
}

#[test]
fn the_ngff_0_6_zarr_cases_never_panic_and_valid_ones_have_no_errors() {
    let root = Path::new("/work/shared/ngff-0.6/tests/zarr");
    if !root.exists() {
        return;
    }
    let mut dirs: Vec<_> = files_below(root)
        .into_iter()
        .filter_map(|(key, _)| {
            key.split_once(".ome.zarr/")
                .map(|(d, _)| format!("{d}.ome.zarr"))
        })
        .collect();
    dirs.dedup();
    assert!(dirs.len() > 20, "{}", dirs.len());
    for dir in dirs {
        let docs = read_documents(&root.join(&dir));
        let Ok(node) = zom::model::from_document_bytes(docs, &zom::Limits::default()) else {
            continue;
        };
        let zom = node.to_value();
        describe_all(&zom);
        if dir.contains("/valid/") {
            let errors: Vec<_> = zom::view::problems(&zom)
                .into_iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{dir}: {errors:#?}");
        }
    }
}
