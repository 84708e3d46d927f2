//! `store::HttpStore` in headless Chromium: the hierarchy API of a Rust-WASM caller (open, walk,
//! read) over real HTTP against tests/server/server.mjs serving tests/fixtures, compared with
//! zarr-python's values and pydantic-zarr's ZOMs, plus the servers that refuse ranges, refuse
//! suffix ranges, answer 403 for missing keys or send a wrong Content-Range.
//!
//! Run by `npm test` (step "rust tests in wasm (chromium)"), which starts the servers and passes
//! their URLs at compile time (ZOM_TEST_SERVER*), then runs
//! `cargo test --target wasm32-unknown-unknown --test wasm_browser` with
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner`, CHROMEDRIVER and
//! webdriver.json (Chromium's arguments).
#![cfg(target_arch = "wasm32")]

mod common;

use common::json_differences;
use common::values::encode_all;
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use zom::chunk::{DimSelection, Selection};
use zom::hierarchy::{
    open, read, read_chunk, walk, ArrayReader, OpenHints, ReadOptions, WalkOptions,
};
use zom::model::{Node, ZarrFormat};
use zom::store::{ByteRange, HttpStore, Listing, Store};
use zom::{ErrorCode, Result};

wasm_bindgen_test_configure!(run_in_browser);

/// Serves tests/fixtures with an S3 ListObjectsV2 endpoint.
const SERVER: Option<&str> = option_env!("ZOM_TEST_SERVER");
/// Ignores Range headers (200 with the whole file).
const SERVER_NO_RANGES: Option<&str> = option_env!("ZOM_TEST_SERVER_NO_RANGES");
/// Answers suffix ranges with 400.
const SERVER_NO_SUFFIX_400: Option<&str> = option_env!("ZOM_TEST_SERVER_NO_SUFFIX_400");
/// Answers suffix ranges with 416 (`bytes */size`).
const SERVER_NO_SUFFIX_416: Option<&str> = option_env!("ZOM_TEST_SERVER_NO_SUFFIX_416");
/// Answers 403 for missing files.
const SERVER_403: Option<&str> = option_env!("ZOM_TEST_SERVER_403");
/// Sends 206 answers with a Content-Range shifted by one.
const SERVER_BAD_RANGE: Option<&str> = option_env!("ZOM_TEST_SERVER_BAD_RANGE");

const V3_CONSOLIDATED_ZOM: &str = include_str!("fixtures/expected/v3-consolidated.zom.json");
const V3_ZOM: &str = include_str!("fixtures/expected/v3.zom.json");
const V3_VALUES: &str = include_str!("fixtures/expected/v3-consolidated.values.json");

fn url(server: Option<&'static str>, dir: &str) -> String {
    let base = server.expect("ZOM_TEST_SERVER* unset at compile time: run `npm test -- chromium`");
    format!("{base}/{dir}")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn assert_json_eq(left: &Value, right: &Value, what: &str) {
    let diffs = json_differences(left, right);
    assert!(diffs.is_empty(), "{what}:\n{}", diffs.join("\n"));
}

/// A store that logs the calls made to the store it wraps, as `MemoryStore::log` does.
struct Logged<S> {
    inner: S,
    log: RefCell<Vec<String>>,
}

impl<S: Store> Logged<S> {
    fn new(inner: S) -> Self {
        Logged {
            inner,
            log: RefCell::new(Vec::new()),
        }
    }

    fn take(&self) -> Vec<String> {
        self.log.take()
    }
}

impl<S: Store> Store for Logged<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.log.borrow_mut().push(format!("get {key}"));
        self.inner.get(key).await
    }

    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        self.log.borrow_mut().push(format!("get {key}"));
        self.inner.get_within(key, max).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.log.borrow_mut().push(match &range {
            ByteRange::Bounded(r) => format!("range {key} {}..{}", r.start, r.end),
            ByteRange::Suffix(n) => format!("suffix {key} {n}"),
        });
        self.inner.get_range(key, range).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        self.log.borrow_mut().push(format!("list {prefix}"));
        self.inner.list_dir(prefix).await
    }
}

/// The expected values of `path` (C order) selected by row and column ranges of a 2-D array.
fn expected_2d(
    path: &str,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> Vec<Value> {
    let all = json(V3_VALUES);
    let entry = &all[path];
    let width = entry["shape"][1].as_u64().unwrap() as usize;
    let values = entry["values"].as_array().unwrap();
    rows.flat_map(|r| cols.clone().map(move |c| r * width + c))
        .map(|i| values[i].clone())
        .collect()
}

fn slices(ranges: &[(i64, i64)]) -> Selection {
    Selection(
        ranges
            .iter()
            .map(|&(a, b)| DimSelection::slice(Some(a), Some(b), None))
            .collect(),
    )
}

async fn reader_of(store: &impl Store, path: &str) -> ArrayReader {
    let opened = open(store, path, OpenHints::default()).await.unwrap();
    let Node::Array(array) = opened.node else {
        panic!("{path} is not an array")
    };
    ArrayReader::open(&array, path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Reads rows × columns of a 2-D array and compares with zarr-python's values.
async fn check_region(
    store: &impl Store,
    reader: &ArrayReader,
    path: &str,
    rows: (i64, i64),
    cols: (i64, i64),
) {
    let got = read(
        store,
        reader,
        &slices(&[rows, cols]),
        &ReadOptions::default(),
        &mut |_| {},
    )
    .await
    .unwrap_or_else(|e| panic!("{path}: {e}"));
    let (r, c) = ((rows.1 - rows.0) as u64, (cols.1 - cols.0) as u64);
    assert_eq!(got.shape, [r, c], "{path}");
    let want = expected_2d(
        path,
        rows.0 as usize..rows.1 as usize,
        cols.0 as usize..cols.1 as usize,
    );
    assert_json_eq(
        &Value::Array(encode_all(reader.data_type(), &got.data)),
        &Value::Array(want),
        path,
    );
}

/// Inner chunk (0, 2) of shard_index_end (shards 8×8 of inner chunks 4×4 in a 12×10 array):
/// rows 0..4, columns 8..10, in shard (0, 1) whose index is at its end.
async fn check_inner_chunk(store: &impl Store) {
    let reader = reader_of(store, "shard_index_end").await;
    let chunk = read_chunk(store, &reader, &[0, 2], &ReadOptions::default())
        .await
        .unwrap();
    assert_eq!(chunk.shape, [4, 2]);
    assert_json_eq(
        &Value::Array(encode_all(reader.data_type(), &chunk.data)),
        &Value::Array(expected_2d("shard_index_end", 0..4, 8..10)),
        "shard_index_end inner chunk (0, 2)",
    );
}

#[wasm_bindgen_test]
async fn consolidated_hierarchy_walks_in_one_request() {
    let store = Logged::new(HttpStore::new(&url(SERVER, "v3-consolidated")));
    let v3 = WalkOptions {
        hints: OpenHints {
            kind: None,
            format: Some(ZarrFormat::V3),
        },
        ..WalkOptions::default()
    };
    let result = walk(&store, "", &v3, &mut |_| {}).await.unwrap();
    assert_eq!(store.take(), ["get zarr.json"]);
    // The format not given, both formats' root documents are asked for at once.
    walk(&store, "", &WalkOptions::default(), &mut |_| {})
        .await
        .unwrap();
    let mut asked = store.take();
    asked.sort();
    let probes = [".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json"];
    assert_eq!(asked, probes.map(|name| format!("get {name}")));
    assert!(result.consolidated);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert_json_eq(
        &result.root.to_value(),
        &json(V3_CONSOLIDATED_ZOM),
        "v3-consolidated",
    );
}

#[wasm_bindgen_test]
async fn unconsolidated_hierarchy_walks_through_the_s3_listing() {
    let base = url(SERVER, "");
    let store = HttpStore::new(&url(SERVER, "v3")).with_s3_listing(&base, "v3");
    let result = walk(&store, "", &WalkOptions::default(), &mut |_| {})
        .await
        .unwrap();
    assert!(!result.consolidated);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert!(result.unlisted.is_empty(), "{:?}", result.unlisted);
    assert_json_eq(&result.root.to_value(), &json(V3_ZOM), "v3 listed");

    let listing = store.list_dir("group1").await.unwrap().unwrap();
    assert_eq!(listing.keys, ["group1/zarr.json"]);
    assert_eq!(listing.prefixes, ["group1/sub", "group1/values"]);
    // Without a listing endpoint the groups are reported as unlisted, not guessed.
    let store = HttpStore::new(&url(SERVER, "v3"));
    assert_eq!(store.list_dir("").await.unwrap(), None);
    let result = walk(&store, "", &WalkOptions::default(), &mut |_| {})
        .await
        .unwrap();
    assert_eq!(result.unlisted, [""]);
}

#[wasm_bindgen_test]
async fn array_regions_equal_zarr_python() {
    let store = HttpStore::new(&url(SERVER, "v3-consolidated"));
    let walked = walk(&store, "", &WalkOptions::default(), &mut |_| {})
        .await
        .unwrap();
    for (path, rows, cols) in [
        ("codec_gzip", (1, 5), (2, 5)),
        ("codec_blosc_zstd_bitshuffle", (0, 6), (0, 5)),
        ("group1/sub/leaf", (1, 3), (0, 4)),
        ("shard_then_gzip", (3, 11), (2, 9)),
    ] {
        let reader = ArrayReader::open_in(&walked.root, path).unwrap();
        check_region(&store, &reader, path, rows, cols).await;
    }
}

#[wasm_bindgen_test]
async fn one_inner_chunk_of_a_shard_costs_the_index_and_one_range() {
    let store = Logged::new(HttpStore::new(&url(SERVER, "v3-consolidated")));
    let reader = reader_of(&store, "shard_index_end").await;
    store.take();
    let chunk = read_chunk(&store, &reader, &[0, 2], &ReadOptions::default())
        .await
        .unwrap();
    let log = store.take();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log[0].starts_with("suffix shard_index_end/c/0/1 "),
        "{log:?}"
    );
    assert!(
        log[1].starts_with("range shard_index_end/c/0/1 "),
        "{log:?}"
    );
    assert_json_eq(
        &Value::Array(encode_all(reader.data_type(), &chunk.data)),
        &Value::Array(expected_2d("shard_index_end", 0..4, 8..10)),
        "inner chunk",
    );
}

#[wasm_bindgen_test]
async fn missing_nodes_are_not_found() {
    let store = HttpStore::new(&url(SERVER, "v3-consolidated"));
    let err = open(&store, "no_such_node", OpenHints::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
    assert_eq!(store.get("no_such_node/zarr.json").await.unwrap(), None);
    let range = ByteRange::Bounded(0..4);
    assert_eq!(store.get_range("no/such/key", range).await.unwrap(), None);
    assert_eq!(store.get_suffix("no/such/key", 4).await.unwrap(), None);
}

#[wasm_bindgen_test]
async fn a_document_over_max_document_bytes_is_refused_by_its_content_length() {
    let store = Logged::new(HttpStore::new(&url(SERVER, "v3-consolidated")));
    let limits = zom::Limits {
        max_document_bytes: 100,
        ..zom::Limits::default()
    };
    let err = zom::hierarchy::open_with(&store, "", OpenHints::default(), &limits)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
    assert!(err.message.contains("maxDocumentBytes = 100"), "{err}");
    assert!(err.message.contains("(Content-Length)"), "{err}");
    assert_eq!(err.key.as_deref(), Some("zarr.json"));
    assert_eq!(store.take(), ["get zarr.json"]);
}

#[wasm_bindgen_test]
async fn ranges_and_suffixes_cut_values_as_http_does() {
    for server in [
        SERVER,
        SERVER_NO_RANGES,
        SERVER_NO_SUFFIX_400,
        SERVER_NO_SUFFIX_416,
    ] {
        let store = HttpStore::new(&url(server, "v3-consolidated"));
        let key = "dtype_int32/zarr.json";
        let whole = store.get(key).await.unwrap().unwrap();
        let n = whole.len() as u64;
        let range = |r: std::ops::Range<u64>| store.get_range(key, ByteRange::Bounded(r));
        assert_eq!(range(3..10).await.unwrap().unwrap(), &whole[3..10]);
        assert_eq!(
            range(n - 2..n + 10).await.unwrap().unwrap(),
            &whole[whole.len() - 2..]
        );
        assert_eq!(range(n + 5..n + 10).await.unwrap().unwrap(), b"");
        assert_eq!(range(4..4).await.unwrap().unwrap(), b"");
        // Twice: a server that refused a suffix is asked with HEAD + range from then on.
        for _ in 0..2 {
            assert_eq!(
                store.get_suffix(key, 9).await.unwrap().unwrap(),
                &whole[whole.len() - 9..]
            );
        }
        assert_eq!(
            store.get_suffix(key, n + 100).await.unwrap().unwrap(),
            whole
        );
        assert_eq!(store.get_suffix(key, 0).await.unwrap().unwrap(), b"");
    }
}

#[wasm_bindgen_test]
async fn shards_read_through_servers_without_ranges_or_suffixes() {
    for server in [SERVER_NO_RANGES, SERVER_NO_SUFFIX_400, SERVER_NO_SUFFIX_416] {
        check_inner_chunk(&HttpStore::new(&url(server, "v3-consolidated"))).await;
    }
}

#[wasm_bindgen_test]
async fn forbidden_is_missing_only_when_configured() {
    let base = url(SERVER_403, "v3-consolidated");
    let store = HttpStore::new(&base).with_forbidden_as_missing(true);
    let err = open(&store, "no_such_node", OpenHints::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");

    let store = HttpStore::new(&base);
    let err = open(&store, "no_such_node", OpenHints::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::HttpError, "{err}");
    assert_eq!(err.key.as_deref(), Some("no_such_node/zarr.json"));
    assert!(err.message.contains("403"), "{err}");
}

#[wasm_bindgen_test]
async fn a_206_that_does_not_match_the_request_is_an_http_error() {
    let store = HttpStore::new(&url(SERVER_BAD_RANGE, "v3-consolidated"));
    let key = "dtype_int32/zarr.json";
    assert!(store.get(key).await.unwrap().is_some());
    let err = store
        .get_range(key, ByteRange::Bounded(3..10))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::HttpError, "{err}");
    assert_eq!(err.key.as_deref(), Some(key));
    let reader = reader_of(&store, "shard_index_end").await;
    let err = read_chunk(&store, &reader, &[0, 2], &ReadOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::HttpError, "{err}");
    assert_eq!(err.key.as_deref(), Some("shard_index_end/c/0/1"));
}

#[wasm_bindgen_test]
async fn unreachable_servers_and_odd_keys_are_errors() {
    // Port 9 (discard) on localhost: nothing listens there, the fetch fails.
    let store = HttpStore::new("http://127.0.0.1:9/data");
    let err = store.get("zarr.json").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::HttpError, "{err}");
    assert_eq!(err.key.as_deref(), Some("zarr.json"));

    let store = HttpStore::new(&url(SERVER, "v3-consolidated/"));
    let err = store.get("a/../zarr.json").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
    assert_eq!(
        store.url_of("a b/c#d?e").unwrap(),
        format!("{}/a%20b/c%23d%3Fe", url(SERVER, "v3-consolidated"))
    );
}
