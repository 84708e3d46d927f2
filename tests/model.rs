//! The ZOM of zarr-python-written fixtures against pydantic-zarr's dumps, and the round trips
//! documents → ZOM → documents, ZOM → flat → ZOM, consolidated forms, and v2 → v3.

mod common;

use common::{assert_json_eq, fixtures, read_documents, read_json};
use serde_json::Value;
use std::collections::BTreeMap;
use zom::model::{self, DocumentOptions, FlatForm, Node};

const HIERARCHIES: [&str; 4] = ["v3", "v3-consolidated", "v2", "v2-consolidated"];

fn load(name: &str) -> Node {
    let docs = read_documents(&fixtures().join(name));
    assert!(!docs.is_empty(), "fixture {name} has documents");
    model::from_document_bytes(docs, &zom::Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn documents_as_json(docs: Vec<(String, Vec<u8>)>) -> BTreeMap<String, Value> {
    docs.into_iter()
        .map(|(k, v)| (k, serde_json::from_slice(&v).unwrap()))
        .collect()
}

#[test]
fn zom_equals_pydantic_zarr_dump() {
    for name in HIERARCHIES {
        let expected = read_json(&fixtures().join(format!("expected/{name}.zom.json")));
        assert_json_eq(&load(name).to_value(), &expected, name);
    }
}

#[test]
fn documents_round_trip() {
    // Today's writers' hierarchies too: zarr-python 3.4's rectilinear grids (consolidated),
    // codecs and data types.
    let current = [
        "current/v3",
        "current/v2",
        "current/v3-rectilinear",
        "zarr-3.4.2/v3",
        "zarr-3.4.2/v2",
    ];
    for name in HIERARCHIES.into_iter().chain(current) {
        let consolidated = name.ends_with("consolidated") || name.ends_with("rectilinear");
        let original = documents_as_json(read_documents(&fixtures().join(name)));
        let written = model::to_documents(&load(name), DocumentOptions { consolidated }).unwrap();
        let written: BTreeMap<String, Value> = written.into_iter().collect();
        assert_eq!(
            original.keys().collect::<Vec<_>>(),
            written.keys().collect::<Vec<_>>(),
            "{name}: same document keys"
        );
        for (key, value) in &original {
            assert_json_eq(&written[key], value, &format!("{name}/{key}"));
        }
    }
}

#[test]
fn document_bytes_are_what_zarr_python_writes() {
    // Byte for byte: two-space indent, non-ASCII escaped, zarr-python's key order.
    for name in HIERARCHIES {
        let docs = read_documents(&fixtures().join(name));
        let node = model::from_document_bytes(docs.clone(), &zom::Limits::default()).unwrap();
        let consolidated = name.ends_with("consolidated");
        let written: BTreeMap<String, Vec<u8>> =
            model::to_document_bytes(&node, DocumentOptions { consolidated })
                .unwrap()
                .into_iter()
                .collect();
        for (key, bytes) in &docs {
            assert_eq!(
                String::from_utf8_lossy(&written[key]).trim_end(),
                String::from_utf8_lossy(bytes).trim_end(),
                "{name}/{key}"
            );
        }
    }
}

#[test]
fn pydantic_flat_form_matches_and_round_trips() {
    for version in ["v3", "v2"] {
        let node = load(version);
        let flat = model::flatten(&node, FlatForm::Pydantic).unwrap();
        let expected = read_json(&fixtures().join(format!("expected/{version}.flat.json")));
        assert_json_eq(&flat, &expected, version);
        let back = model::unflatten(&flat, FlatForm::detect(&flat)).unwrap();
        assert_json_eq(
            &back.to_value(),
            &node.to_value(),
            "unflatten(flatten(x)) == x",
        );
    }
}

#[test]
fn consolidated_forms_match_zarr_python() {
    let v3 = load("v3-consolidated");
    let root = read_json(&fixtures().join("v3-consolidated/zarr.json"));
    assert_json_eq(
        &model::flatten(&v3, FlatForm::Consolidated).unwrap(),
        &root,
        "v3 inline",
    );
    let back = model::unflatten(&root, FlatForm::detect(&root)).unwrap();
    assert_json_eq(&back.to_value(), &v3.to_value(), "v3 from inline");

    let v2 = load("v2-consolidated");
    let zmetadata = read_json(&fixtures().join("v2-consolidated/.zmetadata"));
    assert_json_eq(
        &model::flatten(&v2, FlatForm::ZMetadata).unwrap(),
        &zmetadata,
        ".zmetadata",
    );
    let back = model::unflatten(&zmetadata, FlatForm::detect(&zmetadata)).unwrap();
    assert_json_eq(&back.to_value(), &v2.to_value(), "v2 from .zmetadata");
}

#[test]
fn consolidated_metadata_alone_builds_the_whole_tree() {
    let root = read_json(&fixtures().join("v3-consolidated/zarr.json"));
    let from_root_only = model::from_documents([("zarr.json", root)]).unwrap();
    assert_json_eq(
        &from_root_only.to_value(),
        &load("v3").to_value(),
        "inline only",
    );
}

#[test]
fn missing_parent_is_an_error_with_location() {
    let array = read_json(&fixtures().join("v3/zarr.json"));
    let err = model::from_documents([("zarr.json", array.clone()), ("a/b/zarr.json", array)])
        .unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::InvalidMetadata);
    assert_eq!(err.path.as_deref(), Some("a/b"));
    assert!(err.message.contains("a/zarr.json"), "{}", err.message);
}

#[test]
fn v2_documents_are_placed_or_refused_with_their_key() {
    use serde_json::json;
    let group = json!({"zarr_format": 2});
    let array = json!({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<u1",
        "compressor": null, "fill_value": 0, "order": "C", "filters": null});
    let err_of = |docs: Vec<(&str, Value)>| model::from_documents(docs).unwrap_err();

    // Each node takes its own attributes; .zmetadata stands in for absent documents.
    let zmetadata = json!({"zarr_consolidated_format": 1, "metadata": {
        ".zgroup": group, "a/.zarray": array, "a/.zattrs": {"x": 1}, ".zattrs": {"y": 2}}});
    let tree = model::from_documents([(".zmetadata", zmetadata)]).unwrap();
    let Node::Group(root) = &tree else {
        panic!("{tree:?}")
    };
    assert_eq!(root.attributes.get("y"), Some(&json!(2)));
    let Some(Node::Array(a)) = root.members.get("a") else {
        panic!("{tree:?}")
    };
    assert_eq!(a.attributes().and_then(|m| m.get("x")), Some(&json!(1)));

    let err = err_of(vec![(".zgroup", group.clone()), ("b/.zattrs", json!({}))]);
    assert_eq!(
        (err.path.as_deref(), err.key.as_deref()),
        (Some("b"), Some("b/.zattrs"))
    );
    assert!(
        err.message.contains("no .zarray or .zgroup"),
        "{}",
        err.message
    );

    let both = vec![
        (".zgroup", group.clone()),
        ("c/.zgroup", group.clone()),
        ("c/.zarray", array.clone()),
    ];
    let err = err_of(both);
    assert_eq!(err.path.as_deref(), Some("c"));
    assert!(
        err.message.contains("both .zarray and .zgroup"),
        "{}",
        err.message
    );

    let err = err_of(vec![
        (".zgroup", group.clone()),
        ("d/.zarray", array.clone()),
        ("d/e/.zgroup", group.clone()),
    ]);
    assert_eq!(err.path.as_deref(), Some("d/e"));
    assert!(err.message.contains("inside array 'd'"), "{}", err.message);

    let err = err_of(vec![(".zgroup", group), (".zattrs", json!([1]))]);
    assert_eq!(err.key.as_deref(), Some(".zattrs"));
    assert!(
        err.message.contains("must be a JSON object"),
        "{}",
        err.message
    );

    let empty = json!({"zarr_consolidated_format": 1, "metadata": {}});
    let err = err_of(vec![(".zmetadata", empty)]);
    assert_eq!(err.code, zom::ErrorCode::NotFound);
    assert!(err.message.contains("no root node"), "{}", err.message);
}

#[test]
fn broken_json_names_key_and_line() {
    let err = model::from_document_bytes(
        [("zarr.json", b"{\n\"zarr_format\": 3,\n oops}".to_vec())],
        &zom::Limits::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::InvalidMetadata);
    assert_eq!(err.key.as_deref(), Some("zarr.json"));
    assert!(err.message.contains("line 3"), "{}", err.message);
}

#[test]
fn oversized_documents_are_refused_before_parsing() {
    let err = model::from_document_bytes(
        [("zarr.json", vec![b' '; 100])],
        &zom::Limits {
            max_document_bytes: 10,
            ..zom::Limits::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::LimitExceeded);
}

#[test]
fn deep_hierarchies_are_refused_not_overflowed() {
    let group = serde_json::json!({"zarr_format": 3, "node_type": "group"});
    let mut docs = vec![("zarr.json".to_string(), group.clone())];
    let mut path = String::new();
    for _ in 0..300 {
        path.push_str("g/");
        docs.push((format!("{path}zarr.json"), group.clone()));
    }
    let err = model::from_documents(docs).unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::LimitExceeded);

    let mut nested = serde_json::json!({"zarr_format": 3, "node_type": "group", "members": {}});
    for _ in 0..300 {
        nested =
            serde_json::json!({"zarr_format": 3, "node_type": "group", "members": {"g": nested}});
    }
    assert_eq!(
        Node::from_value(&nested).unwrap_err().code,
        zom::ErrorCode::LimitExceeded
    );
}

#[test]
fn v2_converts_to_v3() {
    let v2 = load("v2");
    let conversion = model::to_v3(&v2);
    assert_eq!(conversion.node.format(), model::ZarrFormat::V3);
    for (path, node) in v2.descendants() {
        let converted = conversion.node.get(&path);
        let refused = conversion
            .problems
            .iter()
            .any(|p| p.path == path && p.severity == zom::validate::Severity::Error);
        assert!(
            converted.is_some() || refused,
            "{path}: converted or reported"
        );
        if let (Some(Node::Array(model::Array::V3(a))), Node::Array(model::Array::V2(b))) =
            (converted, node)
        {
            assert_eq!(a.shape, b.metadata.shape, "{path}");
            assert_eq!(a.chunk_key_encoding.name, "v2", "{path}");
        }
    }
    // The converted documents are a valid v3 hierarchy zom can read back.
    let docs = model::to_documents(&conversion.node, DocumentOptions::default()).unwrap();
    let back = model::from_documents(docs).unwrap();
    assert_json_eq(
        &back.to_value(),
        &conversion.node.to_value(),
        "converted documents",
    );
}

#[test]
fn v2_conversion_problems_are_the_expected_ones() {
    let conversion = model::to_v3(&load("v2"));
    let listed: Vec<String> = conversion
        .problems
        .iter()
        .map(|p| format!("{:?} {} {:?}", p.severity, p.path, p.loc))
        .collect();
    // fill_value null has no v3 form: converted with the type's zero, as a warning; and
    // numcodecs.categorize converts but zarr-python 3 cannot read it.
    assert_eq!(
        listed,
        vec![
            r#"Warning fill_none [Key("fill_value")]"#,
            r#"Warning filter_categorize [Key("filters"), Index(0)]"#,
        ],
        "{:#?}",
        conversion.problems
    );
}

#[test]
fn v2_conversion_equals_zarr_python_migration() {
    // expected/v2.migrated.json: zarr-python's own migrate_v3 of every v2 fixture array, or
    // the error it raised. Where it converts, zom writes the same document; where it refuses,
    // zom converts too if v3 can express the array (vlen strings, byte-level filters).
    let migrated = read_json(&fixtures().join("expected/v2.migrated.json"));
    let conversion = model::to_v3(&load("v2"));
    for (path, expected) in migrated.as_object().unwrap() {
        let node = conversion.node.get(path);
        if expected.get("error").is_some() {
            continue;
        }
        let Some(Node::Array(array)) = node else {
            panic!("{path}: zarr-python converts it, zom did not");
        };
        let docs =
            model::to_documents(&Node::Array(array.clone()), DocumentOptions::default()).unwrap();
        assert_json_eq(&docs[0].1, expected, path);
    }
    for path in [
        "dtype_string",
        "dtype_vlen_bytes",
        "filter_shuffle",
        "checksum_adler32",
    ] {
        assert!(
            conversion.node.get(path).is_some(),
            "{path} converts in zom"
        );
    }
}

#[test]
fn unknown_fields_with_must_understand_false_are_kept() {
    let mut array = read_json(&fixtures().join("v3/dtype_int32/zarr.json"));
    array["example.provenance"] = serde_json::json!({"must_understand": false, "tool": "x"});
    let mut group = read_json(&fixtures().join("v3/group2/zarr.json"));
    group["example.note"] = serde_json::json!({"must_understand": false});
    let docs = vec![
        ("zarr.json".to_string(), group.clone()),
        ("a/zarr.json".to_string(), array.clone()),
    ];
    let node = model::from_documents(docs).unwrap();
    assert_eq!(
        node.to_value()["members"]["a"]["example.provenance"]["tool"],
        serde_json::json!("x"),
        "kept in the ZOM"
    );
    let written: BTreeMap<String, Value> = model::to_documents(&node, DocumentOptions::default())
        .unwrap()
        .into_iter()
        .collect();
    assert_json_eq(&written["a/zarr.json"], &array, "array document");
    assert_json_eq(&written["zarr.json"], &group, "group document");
}

/// The members of inline consolidated metadata are moved out of the root document before the
/// group is read (not cloned); what the group and an array with an unknown key of that name
/// read as stays the same, and so do the errors of a broken consolidated_metadata.
#[test]
fn consolidated_members_moved_out_read_as_before() {
    let array = serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes"}], "attributes": {"n": 18446744073709551615u64, "s": "\u{e9}"},
        "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {"x": {"y": 1}}}
    });
    let root = serde_json::json!({
        "zarr_format": 3, "node_type": "group", "attributes": {},
        "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {"a": array}}
    });
    let node = model::from_documents([("zarr.json", root.clone())]).unwrap();
    let zom = node.to_value();
    // The array's own (unknown) consolidated_metadata is kept whole, members and all.
    assert_eq!(
        zom["members"]["a"]["consolidated_metadata"]["metadata"]["x"]["y"],
        1
    );
    assert_eq!(
        zom["members"]["a"]["attributes"]["n"],
        18446744073709551615u64
    );
    let direct = model::from_documents([("zarr.json", root), ("a/zarr.json", array)]).unwrap();
    assert_eq!(direct, node);
    // A broken consolidated_metadata: the same message as when it was read whole.
    let broken = serde_json::json!({
        "zarr_format": 3, "node_type": "group",
        "consolidated_metadata": {"metadata": {"a": {}}, "must_understand": false}
    });
    let err = model::from_documents([("zarr.json", broken)]).unwrap_err();
    assert_eq!(
        err.message,
        "invalid v3 group metadata: missing field `kind`"
    );
}
