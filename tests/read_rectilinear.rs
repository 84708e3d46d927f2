//! Region reads of rectilinear chunk grids (tests/fixtures/current/v3-rectilinear, written by
//! zarr-python 3.4): selections with steps, reversed and integer dimensions across chunks of
//! unequal lengths, chunk by chunk through `read_chunk`, shards of unequal lengths read in
//! part, and the grid refusals and limits.

mod common;

use common::store::{block_on, open_array, store_from_dir};
use common::values::encode_all;
use common::{fixtures, read_json};
use serde_json::{json, Value};
use zom::chunk::{ChunkGrid, DimSelection, Selection};
use zom::hierarchy::{read, read_chunk, ArrayReader, ReadOptions};
use zom::store::MemoryStore;

/// The indices a Python slice `start:stop:step` picks from `0..len`.
fn picked(start: i64, stop: i64, step: i64, len: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop.min(len)) || (step < 0 && i > stop && i >= 0) {
        if (0..len).contains(&i) {
            out.push(i);
        }
        i += step;
    }
    out
}

/// What `selection` reads from an array of `shape` whose values are `all` (C order).
fn expected(all: &[Value], shape: &[i64], dims: &[Vec<i64>]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut position = vec![0usize; dims.len()];
    if dims.iter().any(Vec::is_empty) {
        return out;
    }
    loop {
        let index = position
            .iter()
            .zip(dims)
            .zip(shape)
            .fold(0i64, |acc, ((&p, d), &n)| acc * n + d[p]);
        out.push(all[index as usize].clone());
        let mut d = dims.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            position[d] += 1;
            if position[d] < dims[d].len() {
                break;
            }
            position[d] = 0;
        }
    }
}

fn store() -> MemoryStore {
    store_from_dir(&fixtures().join("current/v3-rectilinear"))
}

#[test]
fn selections_across_unequal_chunks_read_what_zarr_python_reads() {
    let store = store();
    let values = read_json(&fixtures().join("current/v3-rectilinear.values.json"));
    let mut checked = 0;
    for (path, entry) in values.as_object().unwrap() {
        let reader = open_array(&store, path);
        let all = entry["values"].as_array().unwrap();
        let shape: Vec<i64> = reader.shape().iter().map(|&n| n as i64).collect();
        // Per dimension: whole, a step of 3 from 1, reversed by 2, one index (dropped).
        for variant in 0..4usize {
            let mut selection = Vec::new();
            let mut dims = Vec::new();
            for (d, &n) in shape.iter().enumerate() {
                let (sel, picks) = match (variant + d) % 4 {
                    0 => (DimSelection::All, picked(0, n, 1, n)),
                    1 => (
                        DimSelection::slice(Some(1), None, Some(3)),
                        picked(1, n, 3, n),
                    ),
                    2 => (
                        DimSelection::slice(None, None, Some(-2)),
                        picked(n - 1, -1, -2, n),
                    ),
                    _ => (DimSelection::Index(n / 2), vec![n / 2]),
                };
                selection.push(sel);
                dims.push(picks);
            }
            let got = block_on(read(
                &store,
                &reader,
                &Selection(selection.clone()),
                &ReadOptions::default(),
                &mut |_| {},
            ))
            .unwrap_or_else(|e| panic!("{path} {selection:?}: {e}"));
            let want = expected(all, &shape, &dims);
            assert_eq!(
                encode_all(reader.data_type(), &got.data),
                want,
                "{path} {selection:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 32, "{checked} selections");
}

#[test]
fn every_chunk_reads_alone_cut_to_the_array() {
    let store = store();
    let values = read_json(&fixtures().join("current/v3-rectilinear.values.json"));
    for path in ["edges_3d", "edges_past_the_end", "sharded_uneven"] {
        let reader = open_array(&store, path);
        let all = values[path]["values"].as_array().unwrap();
        let shape: Vec<i64> = reader.shape().iter().map(|&n| n as i64).collect();
        let grid = reader.read_grid().unwrap();
        for n in 0..grid.num_chunks().unwrap() {
            let coords = grid.coords_of(n).unwrap();
            let region = grid.chunk_region(&coords).unwrap();
            let got = block_on(read_chunk(
                &store,
                &reader,
                &coords,
                &ReadOptions::default(),
            ))
            .unwrap_or_else(|e| panic!("{path} {coords:?}: {e}"));
            assert_eq!(got.shape, region.shape, "{path} {coords:?}");
            let dims: Vec<Vec<i64>> = region
                .start
                .iter()
                .zip(&region.shape)
                .map(|(&s, &l)| (s as i64..(s + l) as i64).collect())
                .collect();
            assert_eq!(
                encode_all(reader.data_type(), &got.data),
                expected(all, &shape, &dims),
                "{path} {coords:?}"
            );
        }
    }
    // zarr-python's read_chunk_sizes.
    let reader = open_array(&store, "edges_past_the_end");
    assert_eq!(
        reader.read_grid().unwrap().chunk_sizes(100).unwrap(),
        vec![vec![5, 5, 2]]
    );
    let sharded = open_array(&store, "sharded_uneven");
    assert_eq!(sharded.read_chunk_shape(), Some(&[5u64, 4][..]));
    assert_eq!(sharded.shard_shape(), None);
    assert_eq!(sharded.read_grid().unwrap().grid_shape(), [8, 2]);
    let edges = open_array(&store, "edges_3d");
    assert_eq!(edges.read_chunk_shape(), None);
    assert_eq!(
        edges.read_grid().unwrap().chunk_sizes(100).unwrap(),
        vec![vec![2, 3, 4], vec![3, 5], vec![5]]
    );
}

fn rectilinear(shape: Value, chunk_shapes: Value) -> Result<ChunkGrid, zom::ZomError> {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "uint8",
        "chunk_grid": {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes"}],
    });
    let root = zom::model::from_documents([("zarr.json", meta)]).unwrap();
    ArrayReader::open_in(&root, "").map(|reader| reader.layout().grid.clone())
}

#[test]
fn hostile_grids_cost_nothing_and_are_refused_clearly() {
    // 2^53 chunks of one element: the grid holds one run, and a plan of it is refused by the
    // chunk limit before any chunk is listed.
    let grid = rectilinear(json!([1u64 << 40]), json!([[[1, 1u64 << 53]]])).unwrap();
    assert_eq!(grid.grid_shape(), [1u64 << 40]);
    let err = grid.chunk_sizes(1000).unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::LimitExceeded);
    // Edges short of the shape, and a shard edge that is not a multiple of the inner chunk.
    let err = rectilinear(json!([30]), json!([[10, 10]])).unwrap_err();
    assert!(
        err.message.contains("short of the array's length 30"),
        "{err}"
    );
    let mut doc = read_json(&fixtures().join("current/v3-rectilinear/sharded_uneven/zarr.json"));
    doc["chunk_grid"]["configuration"]["chunk_shapes"] = json!([[20, 12, 8], 8]);
    let mut store = MemoryStore::new();
    store.insert("zarr.json", doc.to_string().into_bytes());
    let opened = block_on(zom::hierarchy::open(
        &store,
        "",
        zom::hierarchy::OpenHints::default(),
    ))
    .unwrap();
    let zom::model::Node::Array(array) = opened.node else {
        panic!("an array")
    };
    let err = ArrayReader::open(&array, "").unwrap_err();
    assert!(
        err.message.contains(
            "shard 1 of dimension 0 is 12 long, not a multiple of the inner chunk length 5"
        ),
        "{err}"
    );
}
