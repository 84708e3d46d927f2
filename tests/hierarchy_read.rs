//! Region reads through a store: every fixture array, read whole and by several selections
//! (integers, negative integers, slices with steps, negative steps, whole dimensions), equals
//! the values zarr-python reads, indexed here by a plain reference implementation of NumPy's
//! basic indexing. Shards are read with the index and only the inner chunks' ranges.

mod common;

use common::store::{block_on, open_array, slices, store_from_dir};
use common::values::encode_all;
use common::{fixtures, json_differences, read_json};
use serde_json::Value;
use zom::chunk::{DimSelection, Selection};
use zom::hierarchy::{open, read, read_chunk, OpenHints, ReadOptions, ReadProgress};
use zom::model::{Array, Node};
use zom::store::MemoryStore;

/// One dimension of a selection, for the reference indexer and for zom.
#[derive(Clone, Copy, Debug)]
enum Sel {
    All,
    Int(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
}

impl Sel {
    fn to_zom(self) -> DimSelection {
        match self {
            Sel::All => DimSelection::All,
            Sel::Int(i) => DimSelection::Index(i),
            Sel::Slice(a, b, c) => DimSelection::slice(a, b, c),
        }
    }

    /// The indices selected in a dimension of `len` (Python semantics), and whether the
    /// dimension is dropped.
    fn indices(self, len: i64) -> (Vec<i64>, bool) {
        match self {
            Sel::All => ((0..len).collect(), false),
            Sel::Int(i) => (vec![if i < 0 { i + len } else { i }], true),
            Sel::Slice(start, stop, step) => {
                let step = step.unwrap_or(1);
                let fix =
                    |v: i64, lo: i64, hi: i64| (if v < 0 { v + len } else { v }).clamp(lo, hi);
                let mut out = Vec::new();
                if step > 0 {
                    let (a, b) = (
                        start.map_or(0, |v| fix(v, 0, len)),
                        stop.map_or(len, |v| fix(v, 0, len)),
                    );
                    let mut i = a;
                    while i < b {
                        out.push(i);
                        i += step;
                    }
                } else {
                    let (a, b) = (
                        start.map_or(len - 1, |v| fix(v, -1, len - 1)),
                        stop.map_or(-1, |v| fix(v, -1, len - 1)),
                    );
                    let mut i = a;
                    while i > b {
                        out.push(i);
                        i += step;
                    }
                }
                (out, false)
            }
        }
    }
}

/// The selected values (C order) and the output shape.
fn reference(values: &[Value], shape: &[u64], sel: &[Sel]) -> (Vec<Value>, Vec<u64>) {
    let mut per_dim = Vec::new();
    let mut out_shape = Vec::new();
    for (d, &len) in shape.iter().enumerate() {
        let (idx, dropped) = sel.get(d).copied().unwrap_or(Sel::All).indices(len as i64);
        if !dropped {
            out_shape.push(idx.len() as u64);
        }
        per_dim.push(idx);
    }
    let mut out = Vec::new();
    let total: usize = per_dim.iter().map(Vec::len).product();
    for k in 0..total {
        let mut rem = k;
        let mut flat = 0usize;
        let mut picks = vec![0i64; shape.len()];
        for d in (0..shape.len()).rev() {
            let n = per_dim[d].len();
            picks[d] = per_dim[d][rem % n];
            rem /= n;
        }
        for d in 0..shape.len() {
            flat = flat * shape[d] as usize + picks[d] as usize;
        }
        out.push(values[flat].clone());
    }
    (out, out_shape)
}

/// Selections that exercise every path of a read of an array of `shape`.
fn selections(shape: &[u64]) -> Vec<Vec<Sel>> {
    let rank = shape.len();
    let mut out = vec![vec![]];
    if rank == 0 || shape.contains(&0) {
        return out;
    }
    out.push(vec![Sel::Slice(Some(1), None, Some(2)); rank]);
    out.push(vec![Sel::Int(-1)]);
    out.push(vec![
        Sel::Slice(None, None, Some(3)),
        Sel::Slice(Some(1), Some(-1), None),
    ]);
    out.push(vec![Sel::Slice(None, None, Some(-2))]);
    out.push(vec![Sel::Slice(Some(-3), None, None); rank]);
    let mut mixed = vec![Sel::All; rank];
    mixed[rank - 1] = Sel::Int((shape[rank - 1] / 2) as i64);
    out.push(mixed);
    if rank >= 2 {
        out.push(vec![Sel::Int(0), Sel::Slice(Some(-4), Some(-1), Some(2))]);
    }
    out.into_iter()
        .map(|s| s.into_iter().take(rank).collect())
        .collect()
}

fn check_fixture(name: &str) {
    check_fixture_with(name, name);
}

/// Every array of fixture hierarchy `name` read through a store by selections, against the
/// values of `expected/<values>.values.json`.
fn check_fixture_with(name: &str, values: &str) {
    let store = store_from_dir(&fixtures().join(name));
    let expected = read_json(&fixtures().join(format!("expected/{values}.values.json")));
    let mut reads = 0;
    for (path, entry) in expected.as_object().unwrap() {
        let reader = open_array(&store, path);
        let shape: Vec<u64> = serde_json::from_value(entry["shape"].clone()).unwrap();
        assert_eq!(reader.shape(), shape.as_slice(), "{name}/{path}");
        let values = entry["values"].as_array().unwrap();
        for sel in selections(&shape) {
            let selection = Selection(sel.iter().map(|s| s.to_zom()).collect());
            let got = block_on(read(
                &store,
                &reader,
                &selection,
                &ReadOptions::default(),
                &mut |_| {},
            ))
            .unwrap_or_else(|e| panic!("{name}/{path} {sel:?}: {e}"));
            let (want, want_shape) = reference(values, &shape, &sel);
            assert_eq!(got.shape, want_shape, "{name}/{path} {sel:?}");
            let got = encode_all(reader.data_type(), &got.data);
            let diffs = json_differences(&Value::Array(got), &Value::Array(want));
            assert!(
                diffs.is_empty(),
                "{name}/{path} {sel:?}:\n{}",
                diffs[..diffs.len().min(8)].join("\n")
            );
            reads += 1;
        }
    }
    assert!(reads > 20, "{name}: {reads} reads");
}

#[test]
fn v3_arrays_read_by_selections() {
    check_fixture("v3");
}

#[test]
fn v2_arrays_read_by_selections() {
    check_fixture("v2");
}

#[test]
fn v3_consolidated_arrays_read_by_selections() {
    check_fixture("v3-consolidated");
}

#[test]
fn v2_consolidated_arrays_read_by_selections() {
    check_fixture("v2-consolidated");
}

#[test]
fn v2_numcodecs_object_arrays_read_by_selections() {
    check_fixture("v2-numcodecs");
}

#[test]
fn zarr_python_2_arrays_read_by_selections() {
    // Consolidated (.zmetadata, "." keys) and NestedDirectoryStore ("/" keys), opened through
    // a store as a user would.
    check_fixture_with("zarr2", "zarr2");
    check_fixture_with("zarr2-nested", "zarr2");
}

#[test]
fn sample_arrays_read_by_selections() {
    check_fixture("sample");
}

fn read_logged(store: &MemoryStore, path: &str, selection: &Selection) -> Vec<String> {
    let reader = open_array(store, path);
    store.reset_counts();
    block_on(read(
        store,
        &reader,
        selection,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap();
    store.log()
}

#[test]
fn one_inner_chunk_costs_the_index_and_one_range() {
    let store = store_from_dir(&fixtures().join("v3"));
    // Shards of 8×8 in inner chunks of 4×4: one inner chunk is a quarter of a shard.
    let log = read_logged(&store, "shard_index_end", &slices(&[(0, 4), (0, 4)]));
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log[0].starts_with("suffix shard_index_end/c/0/0 "),
        "{log:?}"
    );
    assert!(
        log[1].starts_with("range shard_index_end/c/0/0 "),
        "{log:?}"
    );

    let log = read_logged(&store, "shard_index_start", &slices(&[(4, 6), (5, 7)]));
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log[0].starts_with("range shard_index_start/c/0/0 0.."),
        "{log:?}"
    );
    assert!(
        log[1].starts_with("range shard_index_start/c/0/0 "),
        "{log:?}"
    );

    // Two inner chunks stored side by side (zarr-python writes them in Morton order): their
    // ranges merge into one request.
    let log = read_logged(&store, "shard_index_end", &slices(&[(0, 8), (0, 4)]));
    assert_eq!(log.len(), 2, "{log:?}");

    // More than half of a shard: the whole shard, in one request.
    let log = read_logged(&store, "shard_index_end", &slices(&[(0, 8), (0, 6)]));
    assert_eq!(log, ["get shard_index_end/c/0/0"]);

    // A sharded array (12×10 in shards of 8×8) read whole: the inner shard in one request;
    // the edge shards, half inside the array, with their index and one merged range; the
    // missing shard (1, 1) costs its index request only.
    let mut log = read_logged(&store, "shard_index_end", &Selection::all());
    log.sort();
    assert_eq!(
        log,
        [
            "get shard_index_end/c/0/0",
            "range shard_index_end/c/0/1 0..45",
            "range shard_index_end/c/1/0 0..68",
            "suffix shard_index_end/c/0/1 68",
            "suffix shard_index_end/c/1/0 68",
            "suffix shard_index_end/c/1/1 68",
        ]
    );
}

#[test]
fn read_chunk_reads_one_inner_chunk_of_a_shard() {
    let store = store_from_dir(&fixtures().join("v3"));
    let reader = open_array(&store, "shard_index_end");
    assert_eq!(reader.read_chunk_shape(), Some(&[4u64, 4][..]));
    assert_eq!(reader.shard_shape(), Some(&[8u64, 8][..]));
    let expected = read_json(&fixtures().join("expected/v3.values.json"));
    let values = expected["shard_index_end"]["values"].as_array().unwrap();
    // The edge inner chunk (0, 2) covers rows 0..4, columns 8..10.
    store.reset_counts();
    let chunk = block_on(read_chunk(
        &store,
        &reader,
        &[0, 2],
        &ReadOptions::default(),
    ))
    .unwrap();
    assert_eq!(store.counts().total(), 2, "{:?}", store.log());
    assert_eq!(chunk.shape, [4, 2]);
    let (want, _) = reference(
        values,
        &[12, 10],
        &[
            Sel::Slice(Some(0), Some(4), None),
            Sel::Slice(Some(8), Some(10), None),
        ],
    );
    assert_eq!(encode_all(reader.data_type(), &chunk.data), want);
    let err = block_on(read_chunk(
        &store,
        &reader,
        &[3, 0],
        &ReadOptions::default(),
    ))
    .unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::InvalidSelection);
    assert_eq!(err.path.as_deref(), Some("shard_index_end"));
}

#[test]
fn unsharded_reads_fetch_only_the_chunks_touched() {
    let store = store_from_dir(&fixtures().join("v3"));
    // 6×5 in 4×3 chunks; rows 1..3, columns 2..4 touch chunks (0,0) and (0,1).
    let log = read_logged(&store, "chunk_key_v2_slash", &slices(&[(1, 3), (2, 4)]));
    let mut log = log;
    log.sort();
    assert_eq!(
        log,
        ["get chunk_key_v2_slash/0/0", "get chunk_key_v2_slash/0/1"]
    );
}

#[test]
fn progress_counts_chunks_and_limits_refuse_large_outputs() {
    let store = store_from_dir(&fixtures().join("sample"));
    let reader = open_array(&store, "image/gradient_circles");
    let mut seen: Vec<ReadProgress> = Vec::new();
    block_on(read(
        &store,
        &reader,
        &Selection::all(),
        &ReadOptions::default(),
        &mut |p| seen.push(p),
    ))
    .unwrap();
    assert_eq!(seen.first().map(|p| p.done), Some(0));
    assert_eq!(seen.last().map(|p| (p.done, p.total)), Some((4, 4)));

    let small = ReadOptions {
        limits: zom::Limits {
            max_bytes: 1000,
            ..zom::Limits::default()
        },
        ..ReadOptions::default()
    };
    let err = block_on(read(
        &store,
        &reader,
        &Selection::all(),
        &small,
        &mut |_| {},
    ))
    .unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::LimitExceeded);
    assert_eq!(err.path.as_deref(), Some("image/gradient_circles"));
}

#[test]
fn a_corrupt_chunk_fails_the_read_with_its_key() {
    let mut store = store_from_dir(&fixtures().join("v3"));
    store.insert("codec_gzip/c/0/0", b"not gzip at all".to_vec());
    let reader = open_array(&store, "codec_gzip");
    let err = block_on(read(
        &store,
        &reader,
        &Selection::all(),
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::CodecError, "{err}");
    assert_eq!(err.key.as_deref(), Some("codec_gzip/c/0/0"));
    assert_eq!(err.path.as_deref(), Some("codec_gzip"));
}

#[test]
fn array_variants_open_the_same_way() {
    // The reader opened from a walked tree equals the one opened alone.
    let store = store_from_dir(&fixtures().join("v2"));
    let reader = open_array(&store, "dtype_int32");
    let root = block_on(open(&store, "", OpenHints::default())).unwrap();
    assert!(matches!(root.node, Node::Group(_)));
    let Node::Array(Array::V2(_)) = block_on(open(&store, "dtype_int32", OpenHints::default()))
        .unwrap()
        .node
    else {
        panic!("a v2 array")
    };
    assert_eq!(reader.shape().len(), 1);
}
