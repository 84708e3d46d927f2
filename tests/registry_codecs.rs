//! The zarr-extensions registry codecs zarrs writes (tests/fixtures/registry/codecs): `zfp` in
//! every mode, on float and integer types, 1- to 4-D, inside shards and after `reshape`;
//! `reshape` in every form of its `shape`, beside `transpose` and inside shards; `bitround`;
//! `packbits` with bit ranges. Each array read whole, each chunk decoded alone from its stored
//! bytes, and each chunk of the read grid read alone, equal the generator's values: the values
//! written, the values the codec's definition gives (bitround, packbits bit ranges), or for
//! zfp's lossy modes what zarrs read back.

mod common;

use common::store::{block_on, open_array, read_whole, store_from_dir};
use common::values::encode_all;
use serde_json::{json, Value};
use zom::hierarchy::{read_chunk, ArrayReader, ReadOptions};
use zom::store::{MemoryStore, Store};

fn fixture() -> (MemoryStore, Value) {
    let store = store_from_dir(&common::fixtures().join("registry/codecs"));
    let expected = common::read_json(&common::fixtures().join("registry/codecs.values.json"));
    (store, expected)
}

/// `i`'s index in an array of `shape` (C order).
fn unravel(mut i: u64, shape: &[u64]) -> Vec<u64> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

/// The values of the region `start..start + shape` of an array of `array_shape` whose values
/// (C order) are `values`.
fn region(values: &[Value], array_shape: &[u64], start: &[u64], shape: &[u64]) -> Vec<Value> {
    let n: u64 = shape.iter().product();
    (0..n)
        .map(|k| {
            let local = unravel(k, shape);
            let lin = local
                .iter()
                .zip(start)
                .zip(array_shape)
                .fold(0, |acc, ((l, s), len)| acc * len + l + s);
            values[lin as usize].clone()
        })
        .collect()
}

fn same(got: &[Value], want: &[Value], what: &str) {
    let diffs = common::json_differences(&Value::Array(got.to_vec()), &Value::Array(want.to_vec()));
    assert!(diffs.is_empty(), "{what}:\n{}", diffs.join("\n"));
}

/// The chunks of a grid of `grid` chunks, in C order.
fn chunks(grid: &[u64]) -> impl Iterator<Item = Vec<u64>> + '_ {
    (0..grid.iter().product::<u64>()).map(move |i| unravel(i, grid))
}

fn grid_of(shape: &[u64], chunk: &[u64]) -> Vec<u64> {
    shape
        .iter()
        .zip(chunk)
        .map(|(s, c)| s.div_ceil(*c))
        .collect()
}

fn open(store: &MemoryStore, path: &str, entry: &Value) -> ArrayReader {
    let reader = open_array(store, path);
    assert_eq!(json!(reader.shape()), entry["shape"], "{path}");
    assert_eq!(
        reader.data_type().to_v3().to_value(),
        entry["data_type"],
        "{path}"
    );
    reader
}

#[test]
fn every_array_reads_whole_as_zarrs_wrote_it() {
    let (store, expected) = fixture();
    for (path, entry) in expected.as_object().unwrap() {
        let reader = open(&store, path, entry);
        let got = read_whole(&store, &reader);
        assert_eq!(json!(got.shape), entry["shape"], "{path}");
        let values = encode_all(reader.data_type(), &got.data);
        same(&values, entry["values"].as_array().unwrap(), path);
    }
}

#[test]
fn every_stored_chunk_decodes_alone() {
    let (store, expected) = fixture();
    for (path, entry) in expected.as_object().unwrap() {
        let reader = open(&store, path, entry);
        let shape = reader.shape().to_vec();
        let chunk: Vec<u64> = serde_json::from_value(entry["chunks"].clone()).unwrap();
        let unwritten: Vec<u64> = serde_json::from_value(entry["unwritten_chunk"].clone()).unwrap();
        let values = entry["values"].as_array().unwrap();
        let fill = reader.fill_value().to_v3(reader.data_type());
        for coords in chunks(&grid_of(&shape, &chunk)) {
            let key = reader.chunk_key(&coords).unwrap();
            let bytes = block_on(store.get(&key)).unwrap();
            assert_eq!(bytes.is_none(), coords == unwritten, "{key} stored");
            let decoded = reader
                .decode_chunk(&coords, bytes.as_deref())
                .unwrap_or_else(|e| panic!("{key}: {e}"));
            let start: Vec<u64> = coords.iter().zip(&chunk).map(|(c, s)| c * s).collect();
            let want = region(values, &shape, &start, &decoded.shape);
            let got = encode_all(reader.data_type(), &decoded.data);
            same(&got, &want, &key);
            if bytes.is_none() {
                assert!(
                    got.iter()
                        .all(|v| common::json_differences(v, &fill).is_empty()),
                    "{key}: fill value {fill}"
                );
            }
        }
    }
}

#[test]
fn every_chunk_of_the_read_grid_reads_alone() {
    let (store, expected) = fixture();
    let options = ReadOptions::default();
    for (path, entry) in expected.as_object().unwrap() {
        let reader = open(&store, path, entry);
        let shape = reader.shape().to_vec();
        let values = entry["values"].as_array().unwrap();
        let read_chunk_shape = reader.read_chunk_shape().unwrap().to_vec();
        for coords in chunks(&grid_of(&shape, &read_chunk_shape)) {
            let got = block_on(read_chunk(&store, &reader, &coords, &options))
                .unwrap_or_else(|e| panic!("{path} {coords:?}: {e}"));
            let start: Vec<u64> = coords
                .iter()
                .zip(&read_chunk_shape)
                .map(|(c, s)| c * s)
                .collect();
            let want = region(values, &shape, &start, &got.shape);
            same(
                &encode_all(reader.data_type(), &got.data),
                &want,
                &format!("{path} chunk {coords:?}"),
            );
        }
    }
}

/// What the fixture set holds: each zfp mode on float32 and float64, zfp on every integer type
/// zarrs writes it for, 1- to 4-D chunks, zfp in shards and after reshape (a 5-D chunk); each
/// form of reshape's `shape`; zfp's lossy modes with the values zarrs read back.
#[test]
fn the_fixtures_cover_the_codecs_forms() {
    let (store, expected) = fixture();
    let entries = expected.as_object().unwrap();
    let mut zfp = std::collections::BTreeSet::new();
    let (mut zfp_in_shards, mut zfp_after_reshape) = (false, false);
    let mut reshape_forms = std::collections::BTreeSet::new();
    let mut ranks = std::collections::BTreeSet::new();
    for (path, entry) in entries {
        let meta: Value = serde_json::from_slice(
            &block_on(store.get(&format!("{path}/zarr.json")))
                .unwrap()
                .unwrap(),
        )
        .unwrap();
        let mut codecs: Vec<Value> = meta["codecs"].as_array().unwrap().clone();
        let mut sharded = false;
        if codecs[0]["name"] == "sharding_indexed" {
            sharded = true;
            codecs = codecs[0]["configuration"]["codecs"]
                .as_array()
                .unwrap()
                .clone();
        }
        let dtype = entry["data_type"]
            .as_str()
            .or(entry["data_type"]["name"].as_str())
            .unwrap();
        for (i, codec) in codecs.iter().enumerate() {
            let config = &codec["configuration"];
            match codec["name"].as_str().unwrap() {
                "zfp" => {
                    let mode = config["mode"].as_str().unwrap();
                    zfp.insert((mode.to_string(), dtype.to_string()));
                    zfp_in_shards |= sharded;
                    zfp_after_reshape |= i > 0 && codecs[i - 1]["name"] == "reshape";
                    ranks.insert(entry["shape"].as_array().unwrap().len());
                    let lossless = mode == "reversible";
                    assert_eq!(
                        entry["values_from"],
                        if lossless { "written" } else { "zarrs" },
                        "{path}"
                    );
                }
                "reshape" => {
                    for dim in config["shape"].as_array().unwrap() {
                        reshape_forms.insert(match dim {
                            Value::Array(d) if d.len() > 1 => "merged",
                            Value::Array(_) => "list",
                            v if v == &json!(-1) => "-1",
                            _ => "size",
                        });
                    }
                }
                _ => {}
            }
        }
    }
    for mode in [
        "fixed_rate",
        "fixed_precision",
        "fixed_accuracy",
        "reversible",
        "expert",
    ] {
        for dtype in ["float32", "float64"] {
            let covered = zfp.contains(&(mode.to_string(), dtype.to_string()));
            // expert mode is covered on float32 (and int32) only.
            assert!(
                covered || (mode, dtype) == ("expert", "float64"),
                "zfp {mode} {dtype}"
            );
        }
    }
    for dtype in [
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "numpy.datetime64",
    ] {
        assert!(zfp.iter().any(|(_, d)| d == dtype), "zfp on {dtype}");
    }
    assert!(zfp_in_shards && zfp_after_reshape);
    assert!(ranks.is_superset(&[1, 2, 3, 4, 5].into()), "{ranks:?}");
    assert_eq!(
        reshape_forms,
        ["-1", "list", "merged", "size"].into(),
        "reshape forms"
    );
}

/// The values come from the stored zfp streams: a chunk with one byte changed reads otherwise,
/// a truncated one is an error.
#[test]
fn a_changed_zfp_chunk_decodes_otherwise() {
    let (store, expected) = fixture();
    for path in ["zfp_f64_precision_3d", "zfp_f32_reversible_2d"] {
        let entry = &expected[path];
        let reader = open(&store, path, entry);
        let coords = vec![0; reader.shape().len()];
        let key = reader.chunk_key(&coords).unwrap();
        let bytes = block_on(store.get(&key)).unwrap().unwrap();
        let good = reader.decode_chunk(&coords, Some(&bytes)).unwrap();
        let mut changed = bytes.clone();
        changed[bytes.len() / 2] ^= 0x10;
        let other = reader.decode_chunk(&coords, Some(&changed)).unwrap();
        assert_ne!(good.data, other.data, "{path}");
        assert!(
            reader
                .decode_chunk(&coords, Some(&bytes[..bytes.len() / 2]))
                .is_err(),
            "{path}: truncated"
        );
    }
}
