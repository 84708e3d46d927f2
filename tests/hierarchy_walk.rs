//! Opening and walking hierarchies through a store: the ZOMs equal pydantic-zarr's dumps,
//! consolidated hierarchies open in one request, hints skip probes, broken nodes are
//! reported while the rest of the tree comes back, unlistable groups are reported.

mod common;

use common::store::{block_on, store_from_dir};
use common::{assert_json_eq, fixtures, read_json};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use zom::hierarchy::{open, walk, NodeKind, OpenHints, WalkOptions, WalkProgress, WalkResult};
use zom::model::{Node, ZarrFormat};
use zom::store::{ByteRange, Listing, MemoryStore, Store};
use zom::{ErrorCode, Result};

/// What a walk of a hierarchy of unknown format asks for first, all at once.
const ROOT_PROBES: [&str; 5] = [
    "get zarr.json",
    "get .zmetadata",
    "get .zgroup",
    "get .zarray",
    "get .zattrs",
];

fn walk_all(store: &impl Store, path: &str) -> WalkResult {
    block_on(walk(store, path, &WalkOptions::default(), &mut |_| {})).unwrap()
}

fn hints(kind: Option<NodeKind>, format: Option<ZarrFormat>) -> OpenHints {
    OpenHints { kind, format }
}

#[test]
fn walks_equal_pydantic_zarr_dumps() {
    for name in ["v3", "v2", "v3-consolidated", "v2-consolidated"] {
        let store = store_from_dir(&fixtures().join(name));
        let result = walk_all(&store, "");
        let expected = read_json(&fixtures().join(format!("expected/{name}.zom.json")));
        assert_json_eq(&result.root.to_value(), &expected, name);
        assert!(result.errors.is_empty(), "{name}: {:?}", result.errors);
        assert!(result.unlisted.is_empty(), "{name}: {:?}", result.unlisted);
        assert_eq!(
            result.consolidated,
            name.ends_with("consolidated"),
            "{name}"
        );
    }
}

#[test]
fn consolidated_hierarchies_open_in_one_request() {
    let store = store_from_dir(&fixtures().join("v3-consolidated"));
    let result = walk_all(&store, "");
    // The format not given, both formats' documents are asked for at once: one round trip.
    assert_eq!(store.log(), ROOT_PROBES);
    assert!(result.consolidated);
    store.reset_counts();
    let options = WalkOptions {
        hints: hints(None, Some(ZarrFormat::V3)),
        ..WalkOptions::default()
    };
    block_on(walk(&store, "", &options, &mut |_| {})).unwrap();
    assert_eq!(store.log(), ["get zarr.json"]);

    let store = store_from_dir(&fixtures().join("v2-consolidated"));
    let opened = block_on(open(&store, "", hints(None, Some(ZarrFormat::V2)))).unwrap();
    assert_eq!(store.log(), ["get .zmetadata"]);
    assert!(opened.consolidated);
    let expected = read_json(&fixtures().join("expected/v2-consolidated.zom.json"));
    assert_json_eq(&opened.node.to_value(), &expected, "v2 .zmetadata");
    // Without the hint, a walk asks for both formats' documents at once.
    store.reset_counts();
    walk_all(&store, "");
    assert_eq!(store.log(), ROOT_PROBES);
}

#[test]
fn hints_skip_probes() {
    let v3 = store_from_dir(&fixtures().join("v3"));
    block_on(open(&v3, "dtype_int32", hints(Some(NodeKind::Array), None))).unwrap();
    assert_eq!(v3.log(), ["get dtype_int32/zarr.json"]);

    let v2 = store_from_dir(&fixtures().join("v2"));
    let array = hints(Some(NodeKind::Array), Some(ZarrFormat::V2));
    block_on(open(&v2, "dtype_int32", array)).unwrap();
    assert_eq!(
        v2.log(),
        ["get dtype_int32/.zarray", "get dtype_int32/.zattrs"]
    );

    v2.reset_counts();
    block_on(open(&v2, "", OpenHints::default())).unwrap();
    assert_eq!(
        v2.log(),
        // The .zmetadata alone (a consolidated hierarchy is one request), then the other
        // candidates with the .zattrs in one round trip.
        [
            "get zarr.json",
            "get .zmetadata",
            "get .zgroup",
            "get .zarray",
            "get .zattrs"
        ]
    );
    v2.reset_counts();
    block_on(open(&v2, "dtype_int32", OpenHints::default())).unwrap();
    assert_eq!(
        v2.log(),
        // Below the root every v2 candidate in one round trip.
        [
            "get dtype_int32/zarr.json",
            "get dtype_int32/.zarray",
            "get dtype_int32/.zmetadata",
            "get dtype_int32/.zgroup",
            "get dtype_int32/.zattrs"
        ]
    );
}

#[test]
fn a_missing_node_is_not_found_with_its_key() {
    for name in ["v3", "v2"] {
        let store = store_from_dir(&fixtures().join(name));
        let err = block_on(open(&store, "/nope/", OpenHints::default())).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound, "{err}");
        assert_eq!(err.path.as_deref(), Some("nope"));
        assert_eq!(err.key.as_deref(), Some("nope/zarr.json"));
        let err = block_on(walk(&store, "nope", &WalkOptions::default(), &mut |_| {})).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
    }
    let store = store_from_dir(&fixtures().join("v2"));
    let err = block_on(open(
        &store,
        "x",
        hints(Some(NodeKind::Array), Some(ZarrFormat::V2)),
    ))
    .unwrap_err();
    assert_eq!(err.key.as_deref(), Some("x/.zarray"));
}

#[test]
fn a_node_of_the_other_kind_is_not_found() {
    let store = store_from_dir(&fixtures().join("v3"));
    let err = block_on(open(&store, "group1", hints(Some(NodeKind::Array), None))).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(err.path.as_deref(), Some("group1"));
    assert_eq!(err.key.as_deref(), Some("group1/zarr.json"));
    assert!(err.message.contains("not an array"), "{}", err.message);
    let err = block_on(open(
        &store,
        "dtype_int8",
        hints(Some(NodeKind::Group), None),
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[test]
fn broken_documents_are_invalid_metadata_with_their_key() {
    let mut store = store_from_dir(&fixtures().join("v3"));
    store.insert("dtype_int8/zarr.json", b"{\"zarr_format\": 3, ".to_vec());
    store.insert(
        "group1/zarr.json",
        br#"{"zarr_format": 3, "node_type": "folder"}"#.to_vec(),
    );
    let err = block_on(open(&store, "dtype_int8", OpenHints::default())).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
    assert_eq!(err.key.as_deref(), Some("dtype_int8/zarr.json"));
    assert_eq!(err.path.as_deref(), Some("dtype_int8"));
    assert!(err.message.contains("line"), "{}", err.message);
    let err = block_on(open(&store, "group1", OpenHints::default())).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
    assert_eq!(err.key.as_deref(), Some("group1/zarr.json"));

    // The walk reports both and returns the rest of the tree.
    let result = walk_all(&store, "");
    let mut located: Vec<_> = result
        .errors
        .iter()
        .map(|e| (e.code, e.path.clone().unwrap(), e.key.clone().unwrap()))
        .collect();
    located.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        located,
        [
            (
                ErrorCode::InvalidMetadata,
                "dtype_int8".into(),
                "dtype_int8/zarr.json".into()
            ),
            (
                ErrorCode::InvalidMetadata,
                "group1".into(),
                "group1/zarr.json".into()
            ),
        ]
    );
    let mut expected = read_json(&fixtures().join("expected/v3.zom.json"));
    let members = expected["members"].as_object_mut().unwrap();
    members.shift_remove("dtype_int8");
    members.shift_remove("group1");
    assert_json_eq(
        &result.root.to_value(),
        &expected,
        "v3 without the broken nodes",
    );
}

#[test]
fn broken_v2_documents_are_reported_by_the_walk() {
    let mut store = store_from_dir(&fixtures().join("v2"));
    store.insert("dtype_int8/.zattrs", b"[1, 2".to_vec());
    let result = walk_all(&store, "");
    assert_eq!(result.errors.len(), 1, "{:?}", result.errors);
    let err = &result.errors[0];
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
    assert_eq!(err.key.as_deref(), Some("dtype_int8/.zattrs"));
    let Node::Group(root) = &result.root else {
        panic!()
    };
    assert!(!root.members.contains_key("dtype_int8"));
    assert!(root.members.contains_key("dtype_int16"));
}

#[test]
fn groups_that_cannot_be_listed_are_reported() {
    let mut store = store_from_dir(&fixtures().join("v3"));
    store.set_listable(false);
    let result = walk_all(&store, "");
    assert_eq!(result.unlisted, [""]);
    let Node::Group(root) = &result.root else {
        panic!()
    };
    assert!(root.members.is_empty());
    let mut expected = ROOT_PROBES.to_vec();
    expected.push("list ");
    assert_eq!(store.log(), expected);
}

#[test]
fn depth_limits_the_walk_and_subtrees_walk_alone() {
    let store = store_from_dir(&fixtures().join("v3"));
    let options = WalkOptions {
        depth: Some(1),
        ..WalkOptions::default()
    };
    let result = block_on(walk(&store, "", &options, &mut |_| {})).unwrap();
    let expected = read_json(&fixtures().join("expected/v3.zom.json"));
    let Node::Group(root) = &result.root else {
        panic!()
    };
    assert_eq!(
        root.members.len(),
        expected["members"].as_object().unwrap().len()
    );
    let Some(Node::Group(group1)) = root.members.get("group1") else {
        panic!("group1")
    };
    assert!(
        group1.members.is_empty(),
        "depth 1 stops below the root's children"
    );

    let sub = walk_all(&store, "group1");
    assert_json_eq(
        &sub.root.to_value(),
        &expected["members"]["group1"],
        "walk of group1",
    );
    // Depth 0 on a consolidated hierarchy keeps only the root.
    let store = store_from_dir(&fixtures().join("v3-consolidated"));
    let options = WalkOptions {
        depth: Some(0),
        ..WalkOptions::default()
    };
    let result = block_on(walk(&store, "", &options, &mut |_| {})).unwrap();
    let Node::Group(root) = &result.root else {
        panic!()
    };
    assert!(root.members.is_empty());
}

/// Yields once before answering, so that requests overlap; records how many overlap.
struct SlowStore {
    inner: MemoryStore,
    in_flight: Cell<usize>,
    most: Cell<usize>,
}

struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

impl SlowStore {
    async fn slow<T>(&self, f: impl Future<Output = T>) -> T {
        self.in_flight.set(self.in_flight.get() + 1);
        self.most.set(self.most.get().max(self.in_flight.get()));
        YieldOnce(false).await;
        let out = f.await;
        self.in_flight.set(self.in_flight.get() - 1);
        out
    }
}

impl Store for SlowStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.slow(self.inner.get(key)).await
    }
    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.slow(self.inner.get_range(key, range)).await
    }
    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        self.slow(self.inner.list_dir(prefix)).await
    }
}

#[test]
fn requests_overlap_up_to_the_concurrency_limit() {
    for (name, limit) in [("v3", 4), ("v2", 7), ("v3", 1)] {
        let store = SlowStore {
            inner: store_from_dir(&fixtures().join(name)),
            in_flight: Cell::new(0),
            most: Cell::new(0),
        };
        let options = WalkOptions {
            concurrency: limit,
            ..WalkOptions::default()
        };
        // (nodes, pending) at each call, and every path found, as the calls tell them.
        let mut seen: Vec<(u64, u64)> = Vec::new();
        let mut found: Vec<String> = Vec::new();
        let mut progress = |p: WalkProgress| {
            seen.push((p.nodes, p.pending));
            found.extend(p.found.iter().cloned());
        };
        let result = block_on(walk(&store, "", &options, &mut progress)).unwrap();
        let expected = read_json(&fixtures().join(format!("expected/{name}.zom.json")));
        assert_json_eq(&result.root.to_value(), &expected, name);
        assert_eq!(store.most.get(), limit, "{name}: most requests in flight");
        let (nodes, pending) = *seen.last().unwrap();
        assert_eq!(pending, 0);
        let descendants = result.root.descendants();
        assert_eq!(nodes as usize, descendants.len());
        // The tree as it arrived: every node once.
        found.sort();
        let mut all: Vec<String> = descendants.into_iter().map(|(p, _)| p).collect();
        all.sort();
        assert_eq!(found, all, "{name}: the nodes progress told");
    }
}

#[test]
fn walk_request_counts() {
    // v3: one zarr.json per node, one listing per group.
    let store = store_from_dir(&fixtures().join("v3"));
    let result = walk_all(&store, "");
    let nodes = result.root.descendants();
    let groups = nodes
        .iter()
        .filter(|(_, n)| matches!(n, Node::Group(_)))
        .count() as u64;
    let counts = store.counts();
    // Besides, the root's four v2 documents, asked for with its zarr.json.
    assert_eq!(counts.get, nodes.len() as u64 + 4);
    assert_eq!(counts.list, groups);
    assert_eq!(counts.range, 0);
    // v2: each child is listed first, so only documents that exist are fetched.
    let store = store_from_dir(&fixtures().join("v2"));
    walk_all(&store, "");
    assert!(
        store
            .log()
            .iter()
            .all(|l| !l.ends_with("zarr.json") || l == "get zarr.json"),
        "{:?}",
        store.log()
    );
    let misses: Vec<String> = store
        .log()
        .into_iter()
        .filter(|l| l.starts_with("get ") && !fixtures().join("v2").join(&l[4..]).exists())
        .collect();
    assert_eq!(
        misses,
        ["get zarr.json", "get .zmetadata", "get .zarray"],
        "only the root probes miss"
    );
}
