//! Every array of every fixture hierarchy, decoded chunk by chunk through `ArrayReader` (edge
//! chunks cut, missing chunks filled), equals the values zarr-python reads.

mod common;

use common::values::{encode, encode_variable};
use common::{fixtures, read_documents, read_json};
use serde_json::{json, Value};
use zom::codec::DecodedChunk;
use zom::hierarchy::ArrayReader;
use zom::model::{self, Node};

fn c_index(index: &[u64], shape: &[u64]) -> usize {
    index
        .iter()
        .zip(shape)
        .fold(0usize, |acc, (&i, &n)| acc * n as usize + i as usize)
}

/// Reads a whole array chunk by chunk into its JSON values.
fn read_array(dir: &std::path::Path, path: &str, reader: &ArrayReader) -> Vec<Value> {
    let shape = reader.shape().to_vec();
    let len: u64 = shape.iter().product();
    let mut values = vec![Value::Null; len as usize];
    let grid = &reader.layout().grid;
    for n in 0..grid.num_chunks().unwrap() {
        let coords = grid.coords_of(n).unwrap();
        let key = reader.chunk_key(&coords).unwrap();
        let bytes = std::fs::read(dir.join(&key)).ok();
        let chunk = reader
            .decode_chunk(&coords, bytes.as_deref())
            .unwrap_or_else(|e| panic!("{path} {key}: {e}"));
        let region = grid.chunk_region(&coords).unwrap();
        assert_eq!(chunk.shape, region.shape, "{path} {key}: cut to the array");
        let count: u64 = region.shape.iter().product();
        let item = reader.data_type().fixed_size();
        for k in 0..count {
            // Local C-order index k → global index.
            let mut rem = k;
            let mut local = vec![0u64; region.shape.len()];
            for d in (0..region.shape.len()).rev() {
                local[d] = rem % region.shape[d];
                rem /= region.shape[d];
            }
            let global: Vec<u64> = local
                .iter()
                .zip(&region.start)
                .map(|(a, b)| a + b)
                .collect();
            let value = match &chunk.data {
                DecodedChunk::Fixed(bytes) => {
                    let size = item.unwrap() as usize;
                    let at = k as usize * size;
                    encode(reader.data_type(), &bytes[at..at + size])
                }
                DecodedChunk::Strings(s) => json!(s[k as usize]),
                DecodedChunk::Bytes(b) => encode_variable(reader.data_type(), &b[k as usize]),
                DecodedChunk::Json(v) => v[k as usize].clone(),
            };
            values[c_index(&global, &shape)] = value;
        }
    }
    values
}

fn check_hierarchy(name: &str, values_file: &str, at_least: usize) {
    let values = fixtures().join(format!("expected/{values_file}.values.json"));
    check_hierarchy_with(name, &values, at_least);
}

fn check_hierarchy_with(name: &str, values: &std::path::Path, at_least: usize) {
    let dir = fixtures().join(name);
    let root = model::from_document_bytes(read_documents(&dir), &zom::Limits::default()).unwrap();
    let expected = read_json(values);
    let mut checked = 0;
    for (path, entry) in expected.as_object().unwrap() {
        let reader =
            ArrayReader::open_in(&root, path).unwrap_or_else(|e| panic!("{name}/{path}: {e}"));
        assert_eq!(json!(reader.shape()), entry["shape"], "{name}/{path} shape");
        let got = read_array(&dir, path, &reader);
        let want = entry["values"].as_array().unwrap();
        let diffs = common::json_differences(&Value::Array(got), &Value::Array(want.clone()));
        assert!(diffs.is_empty(), "{name}/{path}:\n{}", diffs.join("\n"));
        checked += 1;
    }
    assert!(checked >= at_least, "{name}: {checked} arrays checked");
    // No array is left out of the comparison.
    let arrays = root
        .descendants()
        .into_iter()
        .filter(|(_, n)| matches!(n, Node::Array(_)))
        .count();
    assert_eq!(arrays, checked, "{name}: every array has expected values");
}

#[test]
fn v3_arrays_read_as_zarr_python_reads_them() {
    check_hierarchy("v3", "v3", 10);
}

#[test]
fn v2_arrays_read_as_zarr_python_reads_them() {
    check_hierarchy("v2", "v2", 10);
}

#[test]
fn zarr_python_2_arrays_read_as_zarr_python_2_reads_them() {
    // tests/fixtures/generate_zarr2.py: consolidated "." keys, and NestedDirectoryStore's "/".
    check_hierarchy("zarr2", "zarr2", 36);
    check_hierarchy("zarr2-nested", "zarr2", 36);
}

#[test]
fn v2_numcodecs_object_arrays_read_as_numcodecs_decodes_them() {
    check_hierarchy("v2-numcodecs", "v2-numcodecs", 6);
}

#[test]
fn current_writers_arrays_read_as_they_read_them() {
    // tests/fixtures/current/generate.py: zarr-python 3.4's scale_offset and cast_value (every
    // rounding and out-of-range mode, a NaN scalar map, before and inside sharding), numcodecs
    // 0.17's codecs in their v3 form (pcodec and zfpy among them, alone and in shards); 0-d and
    // zero-length arrays, NUL bytes, stored orders.
    check_hierarchy_with("current/v3", &fixtures().join("current/v3.values.json"), 30);
    check_hierarchy_with("current/v2", &fixtures().join("current/v2.values.json"), 8);
}

#[test]
fn sample_arrays_read_as_zarr_python_reads_them() {
    let dir = fixtures().join("sample");
    let root = model::from_document_bytes(read_documents(&dir), &zom::Limits::default()).unwrap();
    let expected = read_json(&fixtures().join("expected/sample.values.json"));
    for (path, entry) in expected.as_object().unwrap() {
        let reader = ArrayReader::open_in(&root, path).unwrap();
        let got = read_array(&dir, path, &reader);
        let diffs = common::json_differences(&Value::Array(got), &entry["values"]);
        assert!(
            diffs.is_empty(),
            "sample/{path}:\n{}",
            diffs[..diffs.len().min(5)].join("\n")
        );
    }
}

#[test]
fn unknown_codec_is_refused_when_the_array_is_opened() {
    let mut doc = read_json(&fixtures().join("v3/dtype_int32/zarr.json"));
    doc["codecs"][1] = json!({"name": "example.fancy"});
    let root = model::from_documents([
        ("zarr.json", json!({"zarr_format": 3, "node_type": "group"})),
        ("a/zarr.json", doc),
    ])
    .unwrap();
    let err = ArrayReader::open_in(&root, "a").unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::UnknownCodec);
    assert_eq!(err.path.as_deref(), Some("a"));
    assert!(err.message.contains("example.fancy"), "{}", err.message);
}

fn v3_array(shape: Value, chunks: Value, fill: Value) -> zom::model::Array {
    let doc = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "int16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
    });
    match Node::from_value(&doc).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => unreachable!(),
    }
}

#[test]
fn zero_dimensional_arrays_have_one_chunk() {
    let reader = ArrayReader::open(&v3_array(json!([]), json!([]), json!(-3)), "scalar").unwrap();
    assert_eq!(reader.chunk_key(&[]).unwrap(), "scalar/c");
    let stored = reader.decode_chunk(&[], Some(&7i16.to_le_bytes())).unwrap();
    assert_eq!(stored.shape, Vec::<u64>::new());
    assert_eq!(
        stored.data,
        DecodedChunk::Fixed(7i16.to_le_bytes().to_vec())
    );
    let missing = reader.decode_chunk(&[], None).unwrap();
    assert_eq!(
        missing.data,
        DecodedChunk::Fixed((-3i16).to_le_bytes().to_vec())
    );
}

#[test]
fn zero_length_dimensions_have_no_chunks() {
    let reader =
        ArrayReader::open(&v3_array(json!([0, 5]), json!([2, 2]), json!(0)), "empty").unwrap();
    assert_eq!(reader.layout().grid.num_chunks().unwrap(), 0);
    let err = reader.decode_chunk(&[0, 0], None).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("empty"));
}

#[test]
fn a_chunk_of_the_wrong_size_is_a_codec_error_with_its_key() {
    let reader = ArrayReader::open(&v3_array(json!([4]), json!([2]), json!(0)), "a").unwrap();
    let err = reader.decode_chunk(&[1], Some(&[1, 2, 3])).unwrap_err();
    assert_eq!(err.code, zom::ErrorCode::CodecError);
    assert_eq!(err.key.as_deref(), Some("a/c/1"));
    assert_eq!(err.path.as_deref(), Some("a"));
}

#[test]
fn rectilinear_grids_read_as_zarr_python_reads_them() {
    // tests/fixtures/current/v3-rectilinear: written by zarr-python 3.4 with its
    // `array.rectilinear_chunks` flag on; every chunk decoded on its own, cut to the array.
    let values = fixtures().join("current/v3-rectilinear.values.json");
    check_hierarchy_with("current/v3-rectilinear", &values, 8);
    let dir = fixtures().join("current/v3-rectilinear");
    let expected = read_json(&values);
    // A rectilinear grid whose every dimension repeats one length is the regular grid: the
    // regular array's chunks read through it.
    let mut doc = read_json(&dir.join("repeat_only/zarr.json"));
    doc["chunk_grid"] =
        json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [4, 3]}});
    let root = model::from_documents([
        ("zarr.json", json!({"zarr_format": 3, "node_type": "group"})),
        ("repeat_only/zarr.json", doc),
    ])
    .unwrap();
    let reader = ArrayReader::open_in(&root, "repeat_only").unwrap();
    let got = read_array(&dir, "repeat_only", &reader);
    assert_eq!(Value::Array(got), expected["repeat_only"]["values"]);
}
