//! Opening a v3 group with its inline consolidated metadata (or a v2 group with its
//! `.zmetadata`) left as text (`open_deferred`): the group, every member and the whole tree read from it equal what
//! `open` reads at once; a member's broken document is reported when that member is read,
//! located at its path and at the key of the document that holds it.

mod common;

use common::store::{block_on, store_from_dir};
use common::{assert_json_eq, fixtures, read_json};
use zom::hierarchy::{open, open_deferred, open_member, NodeKind, OpenHints, Opened};
use zom::limits::Limits;
use zom::model::Node;
use zom::store::MemoryStore;
use zom::ErrorCode;

fn deferred(store: &MemoryStore, path: &str) -> Opened {
    block_on(open_deferred(
        store,
        path,
        OpenHints::default(),
        &Limits::default(),
    ))
    .unwrap()
}

/// `open_member` on a group opened with `open_deferred`.
fn member(opened: &Opened, relative: &str, hints: OpenHints) -> zom::Result<Option<Opened>> {
    open_member(
        opened.deferred.as_deref().unwrap(),
        &opened.path,
        relative,
        hints,
    )
}

fn member_paths(node: &Node, prefix: &str, out: &mut Vec<String>) {
    if let Node::Group(g) = node {
        for (name, child) in &g.members {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            out.push(path.clone());
            member_paths(child, &path, out);
        }
    }
}

#[test]
fn deferred_members_read_as_open_reads_them() {
    let store = store_from_dir(&fixtures().join("v3-consolidated"));
    let whole = block_on(open(&store, "", OpenHints::default())).unwrap();
    store.reset_counts();
    let opened = deferred(&store, "");
    assert_eq!(store.log(), ["get zarr.json"]);
    assert!(opened.consolidated);
    let Node::Group(group) = &opened.node else {
        panic!("not a group")
    };
    assert!(group.members.is_empty());
    let members = opened.deferred.as_ref().expect("deferred members");
    assert_eq!(members.len(), 53);
    assert_eq!(members.key(), "zarr.json");

    let expected = read_json(&fixtures().join("expected/v3-consolidated.zom.json"));
    assert_json_eq(
        &members.read_all().unwrap().to_value(),
        &expected,
        "read_all",
    );
    assert_eq!(members.read_all().unwrap(), whole.node);

    let mut paths = Vec::new();
    member_paths(&whole.node, "", &mut paths);
    assert_eq!(paths.len(), 53);
    for path in &paths {
        let member = member(&opened, path, OpenHints::default())
            .unwrap()
            .unwrap();
        assert_eq!(&member.node, whole.node.get(path).unwrap(), "{path}");
        assert_eq!(member.path, *path);
        assert!(member.consolidated && member.deferred.is_none());
    }
    // Names of direct members, in document order.
    let Node::Group(whole_group) = &whole.node else {
        panic!()
    };
    let mut names: Vec<&str> = members.names();
    names.sort();
    assert_eq!(
        names,
        whole_group
            .members
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    // No request was made after the root's.
    assert_eq!(store.log(), ["get zarr.json"]);
    assert_eq!(store.log().len(), 1);
}

#[test]
fn members_that_are_not_listed_or_of_the_other_kind() {
    let store = store_from_dir(&fixtures().join("v3-consolidated"));
    let opened = deferred(&store, "");
    assert!(member(&opened, "nothing", OpenHints::default())
        .unwrap()
        .is_none());
    assert!(member(&opened, "", OpenHints::default()).unwrap().is_none());
    let group_hint = OpenHints {
        kind: Some(NodeKind::Group),
        format: None,
    };
    let e = member(&opened, "codec_gzip", group_hint).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(e.path.as_deref(), Some("codec_gzip"));
    assert_eq!(e.key.as_deref(), Some("zarr.json"));
    assert!(
        member(&opened, "group1/../codec_gzip", OpenHints::default())
            .unwrap()
            .is_none()
    );
    assert!(member(&opened, "/codec_gzip/", OpenHints::default())
        .unwrap()
        .is_none());
    // Opened below the root: paths and keys from the store root.
    let store = store_from_dir(&fixtures().join("v3-consolidated"));
    let whole = block_on(open(&store, "", OpenHints::default())).unwrap();
    let sub = deferred(&store, "group1");
    assert!(
        sub.deferred.is_none(),
        "group1's zarr.json has no consolidated metadata"
    );
    assert_eq!(
        &sub.node,
        whole
            .node
            .get("group1")
            .map(|n| match n {
                Node::Group(g) => Node::Group(zom::model::Group {
                    members: Default::default(),
                    ..g.clone()
                }),
                other => other.clone(),
            })
            .as_ref()
            .unwrap()
    );
}

fn store_with_root(text: &str) -> MemoryStore {
    let mut store = MemoryStore::new();
    store.insert("sub/zarr.json", text.as_bytes().to_vec());
    store
}

const ARRAY: &str = r#"{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "uint8",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes"}]}"#;

fn consolidated(members: &str) -> String {
    format!(
        r#"{{"zarr_format": 3, "node_type": "group", "attributes": {{"a": 1}},
  "consolidated_metadata": {{"kind": "inline", "must_understand": false, "metadata": {{{members}}}}}}}"#
    )
}

#[test]
fn a_broken_member_is_reported_when_it_is_read() {
    let text = consolidated(&format!(
        r#""good": {ARRAY}, "bad": {{"zarr_format": 3, "node_type": "array"}}, "g": {{"zarr_format": 3, "node_type": "group"}}, "g/x": {{"zarr_format": 3, "node_type": "array", "shape": "no"}}"#
    ));
    let store = store_with_root(&text);
    let opened = deferred(&store, "sub");
    let members = opened.deferred.as_ref().unwrap();
    assert_eq!(members.key(), "sub/zarr.json");
    assert!(member(&opened, "good", OpenHints::default())
        .unwrap()
        .is_some());
    let e = member(&opened, "bad", OpenHints::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert_eq!(
        (e.path.as_deref(), e.key.as_deref()),
        (Some("sub/bad"), Some("sub/zarr.json"))
    );
    let e = member(&opened, "g", OpenHints::default()).unwrap_err();
    assert_eq!(
        (e.path.as_deref(), e.key.as_deref()),
        (Some("sub/g/x"), Some("sub/zarr.json"))
    );
    let e = members.read_all().unwrap_err();
    assert_eq!(e.key.as_deref(), Some("sub/zarr.json"));
    // open reads every member at once: the same kind of error, at once.
    let e = block_on(open(&store, "sub", OpenHints::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert_eq!(e.key.as_deref(), Some("sub/zarr.json"));
}

#[test]
fn broken_json_in_a_member_says_where_in_the_document() {
    let text = consolidated(&format!(
        "\"good\": {ARRAY},\n  \"bad\": {{\"zarr_format\": 3,\n \"x\": tru}}"
    ));
    let store = store_with_root(&text);
    let opened = deferred(&store, "sub");
    assert!(member(&opened, "good", OpenHints::default())
        .unwrap()
        .is_some());
    let e = member(&opened, "bad", OpenHints::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert_eq!(e.path.as_deref(), Some("sub/bad"));
    // Lines and columns of the member's document (it starts on its key's line).
    let member = &text[text.find(r#""bad": "#).unwrap() + 7..];
    let line = member.lines().position(|l| l.contains("tru}")).unwrap() + 1;
    let column = member.lines().nth(line - 1).unwrap().find("tru}").unwrap() + 4;
    assert!(
        e.message
            .starts_with(&format!("invalid JSON at line {line}, column {column}")),
        "{}",
        e.message
    );
    // Broken text outside the members is the whole document's error, as open gives it.
    let broken = consolidated(&format!(r#""good": {ARRAY}"#))
        .replace("\"attributes\": {\"a\": 1}", "\"attributes\": {\"a\" 1}");
    let store = store_with_root(&broken);
    let deferred_error = block_on(open_deferred(
        &store,
        "sub",
        OpenHints::default(),
        &Limits::default(),
    ))
    .unwrap_err();
    let whole_error = block_on(open(&store, "sub", OpenHints::default())).unwrap_err();
    assert_eq!(deferred_error.message, whole_error.message);
    assert!(
        deferred_error.message.starts_with("invalid JSON at line 1"),
        "{}",
        deferred_error.message
    );
}

#[test]
fn limits_hold_for_deferred_members() {
    let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
    let text = consolidated(&format!(r#""deep": {deep}"#));
    let store = store_with_root(&text);
    let limits = Limits {
        max_json_depth: 20,
        ..Limits::default()
    };
    let e = block_on(open_deferred(&store, "sub", OpenHints::default(), &limits)).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert_eq!(e.key.as_deref(), Some("sub/zarr.json"));
}

#[test]
fn a_v2_zmetadata_group_reads_its_members_as_open_reads_them() {
    let store = store_from_dir(&fixtures().join("v2-consolidated"));
    let whole = block_on(open(&store, "", OpenHints::default())).unwrap();
    store.reset_counts();
    let v2 = OpenHints {
        kind: None,
        format: Some(zom::model::ZarrFormat::V2),
    };
    let opened = block_on(open_deferred(&store, "", v2, &Limits::default())).unwrap();
    assert_eq!(store.log(), ["get .zmetadata"]);
    assert!(opened.consolidated);
    let members = opened.deferred.as_ref().expect("deferred members");
    assert_eq!(members.key(), ".zmetadata");
    assert_eq!(members.read_all().unwrap(), whole.node);
    let mut paths = Vec::new();
    member_paths(&whole.node, "", &mut paths);
    assert!(paths.len() > 40);
    for path in &paths {
        let member = member(&opened, path, OpenHints::default())
            .unwrap()
            .unwrap();
        assert_eq!(&member.node, whole.node.get(path).unwrap(), "{path}");
    }
    let Node::Group(whole_group) = &whole.node else {
        panic!()
    };
    let Node::Group(root) = &opened.node else {
        panic!()
    };
    assert_eq!(root.attributes, whole_group.attributes);
    let mut names: Vec<&str> = members.names();
    names.sort();
    let expected: Vec<&str> = whole_group.members.keys().map(String::as_str).collect();
    assert_eq!(names, expected);
    assert!(member(&opened, "nothing", OpenHints::default())
        .unwrap()
        .is_none());
    assert_eq!(store.log(), ["get .zmetadata"]);
}

#[test]
fn a_v2_zmetadata_that_does_not_scan_or_has_no_root_group_is_read_whole() {
    let group = r#"{"zarr_format": 2}"#;
    let array = r#"{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<u1", "fill_value": 0, "order": "C", "filters": null, "compressor": null}"#;
    let cases = [
        // A root array: not a group to defer.
        format!(r#"{{"metadata": {{".zarray": {array}}}, "zarr_consolidated_format": 1}}"#),
        // An escaped key: left to the parser.
        format!(
            r#"{{"metadata": {{".zgroup": {group}, "a\u002f.zarray": {array}}}, "zarr_consolidated_format": 1}}"#
        ),
    ];
    for text in &cases {
        let mut store = MemoryStore::new();
        store.insert(".zmetadata", text.as_bytes().to_vec());
        let opened = deferred(&store, "");
        assert!(opened.deferred.is_none(), "{text}");
        let whole = block_on(open(&store, "", OpenHints::default())).unwrap();
        assert_eq!(opened.node, whole.node, "{text}");
    }
    // Broken text outside the members, and a member's broken document: errors keyed at the
    // .zmetadata, the member's when it is read.
    let mut store = MemoryStore::new();
    store.insert(
        ".zmetadata",
        format!(r#"{{"metadata": {{".zgroup": {group}}}, "zarr_consolidated_format": tru}}"#)
            .into_bytes(),
    );
    let e = block_on(open_deferred(
        &store,
        "",
        OpenHints::default(),
        &Limits::default(),
    ))
    .unwrap_err();
    assert_eq!(
        (e.code, e.key.as_deref()),
        (ErrorCode::InvalidMetadata, Some(".zmetadata"))
    );
    let mut store = MemoryStore::new();
    store.insert(
        ".zmetadata",
        format!(r#"{{"metadata": {{".zgroup": {group}, "a/.zarray": {{"shape": "no"}}, "b/.zgroup": {group}}}, "zarr_consolidated_format": 1}}"#).into_bytes(),
    );
    let opened = deferred(&store, "");
    assert!(member(&opened, "b", OpenHints::default())
        .unwrap()
        .is_some());
    let e = member(&opened, "a", OpenHints::default()).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref(), e.key.as_deref()),
        (ErrorCode::InvalidMetadata, Some("a"), Some(".zmetadata"))
    );
}
