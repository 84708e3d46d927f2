//! Chunk encoding (feature `encode`): every fixture chunk whose codecs zom can encode survives
//! decode → encode → decode (byte for byte where nothing compresses), and zarr-python 3.1.6
//! reads arrays whose chunks zom encoded. Run with `cargo test --features encode --test
//! codec_encode`.
#![cfg(feature = "encode")]

mod common;

use common::codec::{b64, cases, pipeline_of};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use zom::codec::DecodedChunk;
use zom::ErrorCode;

fn compresses(meta: &Value) -> bool {
    let text = meta.to_string();
    ["gzip", "zlib", "zstd", "blosc", "lz4", "bz2", "lzma"]
        .iter()
        .any(|c| text.contains(&format!("\"{c}\"")))
}

#[test]
fn fixture_chunks_round_trip() {
    let mut encoded_cases = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for case in cases()["arrays"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let meta = &case["metadata"];
        let pipeline = pipeline_of(case["zarr_format"].as_u64().unwrap(), meta);
        for (key, chunk) in case["chunks"].as_object().unwrap() {
            let stored = b64(&chunk["encoded"]);
            let decoded = pipeline.decode(&stored).unwrap();
            match pipeline.encode(&decoded) {
                Ok(bytes) => {
                    let again = pipeline.decode(&bytes).unwrap_or_else(|e| {
                        panic!("{name} {key}: zom cannot decode what it encoded: {e}")
                    });
                    assert_eq!(again, decoded, "{name} {key}");
                    if !compresses(meta) {
                        assert_eq!(
                            bytes, stored,
                            "{name} {key}: not the bytes zarr-python wrote"
                        );
                    }
                    encoded_cases.insert(name.to_string());
                }
                Err(e) => {
                    assert_eq!(e.code, ErrorCode::UnknownCodec, "{name} {key}: {e}");
                    refused.insert(name.to_string());
                }
            }
        }
    }
    for name in [
        "v3 bytes little int16",
        "v3 bytes big float64",
        "v3 complex64 big",
        "v3 transpose gzip",
        "v3 transpose 3d",
        "v3 zstd crc32c",
        "v3 edge chunks",
        "v3 0-d",
        "v3 strings",
        "v3 vlen-bytes",
        "v3 fixed utf32",
        "v3 numcodecs checksums",
        "v2 zlib order F",
        "v2 big-endian gzip",
        "v2 big-endian f8 none",
        "v2 checksums",
        "v2 strings vlen-utf8",
        "v2 struct",
        "v2 vlen-array int32",
        "v2 vlen-array float64 zlib",
        "v2 vlen-array big-endian int16",
    ] {
        assert!(encoded_cases.contains(name), "{name} was not encoded");
    }
    // What zom does not encode says so by name.
    assert!(refused.contains("v3 blosc shuffle"), "{refused:?}");
}

#[test]
fn checksum_streams_round_trip_byte_for_byte() {
    for case in cases()["streams"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        if !["crc32", "crc32c", "adler32", "fletcher32"].contains(&id) {
            continue;
        }
        let (count, ts) = (
            case["count"].as_u64().unwrap(),
            case["typesize"].as_u64().unwrap(),
        );
        let dtype = if ts == 1 {
            "|u1".into()
        } else {
            format!("<u{ts}")
        };
        let meta = json!({"zarr_format": 2, "shape": [count], "chunks": [count], "dtype": dtype,
            "fill_value": null, "order": "C", "filters": null, "compressor": case["config"]});
        let pipeline = pipeline_of(2, &meta);
        let stored = b64(&case["encoded"]);
        let decoded = pipeline.decode(&stored).unwrap();
        assert_eq!(
            pipeline.encode(&decoded).unwrap(),
            stored,
            "{}",
            case["name"]
        );
    }
}

#[test]
fn a_chunk_of_the_wrong_shape_is_refused() {
    let meta = json!({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i2",
        "fill_value": 0, "order": "C", "filters": null, "compressor": null});
    let pipeline = pipeline_of(2, &meta);
    let err = pipeline
        .encode(&DecodedChunk::Fixed(vec![0; 6]))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::CodecError);
    let err = pipeline
        .encode(&DecodedChunk::Strings(vec![String::new(); 4]))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::CodecError);
}

/// One array zom writes: metadata, chunk keys and the full chunk values in C order.
struct Written {
    path: &'static str,
    format: u64,
    meta: Value,
    chunks: Vec<(String, DecodedChunk)>,
    /// The whole array as zarr-python should read it, JSON.
    expected: Value,
}

fn int16_chunks() -> Written {
    // 6×10 in 3×5 chunks, values i·37 − 500 in C order.
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": [6, 10],
        "data_type": "int16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3, 5]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "attributes": {},
        "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                   {"name": "bytes", "configuration": {"endian": "big"}},
                   {"name": "gzip", "configuration": {"level": 5}},
                   {"name": "crc32c"}]});
    let value = |r: usize, c: usize| (r * 10 + c) as i16 * 37 - 500;
    let mut chunks = Vec::new();
    for cr in 0..2 {
        for cc in 0..2 {
            let mut bytes = Vec::new();
            for r in 0..3 {
                for c in 0..5 {
                    bytes.extend_from_slice(&value(cr * 3 + r, cc * 5 + c).to_le_bytes());
                }
            }
            chunks.push((format!("c/{cr}/{cc}"), DecodedChunk::Fixed(bytes)));
        }
    }
    let expected: Vec<i16> = (0..60).map(|i| value(i / 10, i % 10)).collect();
    Written {
        path: "int16",
        format: 3,
        meta,
        chunks,
        expected: json!(expected),
    }
}

fn strings() -> Written {
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "string",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": "", "attributes": {},
        "codecs": [{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]});
    let s = |v: &[&str]| DecodedChunk::Strings(v.iter().map(|x| x.to_string()).collect());
    Written {
        path: "strings",
        format: 3,
        meta,
        // The edge chunk's second element lies outside the array.
        chunks: vec![
            ("c/0".into(), s(&["héllo", ""])),
            ("c/1".into(), s(&["zarr ✓", ""])),
        ],
        expected: json!(["héllo", "", "zarr ✓"]),
    }
}

fn float64_order_f() -> Written {
    // 4×3 array, one 4×3 chunk, order F, big-endian, zlib; v2.
    let meta = json!({"zarr_format": 2, "shape": [4, 3], "chunks": [4, 3], "dtype": ">f8",
        "fill_value": 0.0, "order": "F", "filters": null, "compressor": {"id": "zlib", "level": 1},
        "dimension_separator": "."});
    let values: Vec<f64> = (0..12).map(|i| i as f64 * 0.25 - 1.0).collect();
    let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Written {
        path: "float64_f",
        format: 2,
        meta,
        chunks: vec![("0.0".into(), DecodedChunk::Fixed(bytes))],
        expected: json!(values),
    }
}

/// The Python with zarr-python: `$ZOM_PYTHON`, else the project's `.venv/bin/python` (which
/// `node scripts/setup.mjs` creates with the pinned scripts/python-requirements.txt). Never the
/// system `python3`, whose packages are whatever happens to be installed.
fn zarr_python() -> std::path::PathBuf {
    const HINT: &str = "run `node scripts/setup.mjs` (it creates .venv with \
                        scripts/python-requirements.txt), or set ZOM_PYTHON to a Python with \
                        zarr-python 3.1.6";
    if let Some(python) = std::env::var_os("ZOM_PYTHON") {
        let python = std::path::PathBuf::from(python);
        assert!(
            python.exists(),
            "ZOM_PYTHON={} does not exist: {HINT}",
            python.display()
        );
        return python;
    }
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    assert!(
        venv.exists(),
        "no Python with zarr-python: ZOM_PYTHON is not set and {} does not exist; {HINT}",
        venv.display()
    );
    venv
}

#[test]
fn zarr_python_reads_what_zom_encoded() {
    let python = zarr_python();
    let dir = std::env::temp_dir().join(format!("zom-encode-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let arrays = [int16_chunks(), strings(), float64_order_f()];
    for a in &arrays {
        let pipeline = pipeline_of(a.format, &a.meta);
        let root = dir.join(a.path);
        std::fs::create_dir_all(&root).unwrap();
        let meta_key = if a.format == 3 {
            "zarr.json"
        } else {
            ".zarray"
        };
        std::fs::write(root.join(meta_key), a.meta.to_string()).unwrap();
        for (key, chunk) in &a.chunks {
            let bytes = pipeline.encode(chunk).unwrap();
            let file = root.join(key);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, bytes).unwrap();
        }
    }
    let script = r#"
import json, sys, zarr
out = {}
for path, fmt in json.loads(sys.argv[2]):
    a = zarr.open_array(f"{sys.argv[1]}/{path}", mode="r", zarr_format=fmt)
    out[path] = a[...].reshape(-1).tolist()
print(json.dumps(out))
"#;
    let list: Vec<(&str, u64)> = arrays.iter().map(|a| (a.path, a.format)).collect();
    let output = std::process::Command::new(&python)
        .args([
            "-c",
            script,
            dir.to_str().unwrap(),
            &json!(list).to_string(),
        ])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        output.status.success(),
        "{} failed (run `node scripts/setup.mjs` if zarr is missing):\n{}",
        python.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let read: Value = serde_json::from_slice(&output.stdout).unwrap();
    for a in &arrays {
        assert_eq!(read[a.path], a.expected, "{}", a.path);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn object_arrays_round_trip_through_json2_and_msgpack2() {
    for id in ["json2", "msgpack2"] {
        let meta = json!({"zarr_format": 2, "shape": [2, 3], "chunks": [2, 3], "dtype": "|O",
            "compressor": null, "fill_value": 0, "order": "C", "filters": [{"id": id}]});
        let pipeline = pipeline_of(2, &meta);
        let values = vec![
            json!("a"),
            json!(-7),
            json!(2.5),
            json!(null),
            json!([1, "b", {"k": [true, false]}]),
            json!(u64::MAX),
        ];
        let chunk = DecodedChunk::Json(values.clone());
        let bytes = pipeline.encode(&chunk).unwrap();
        assert_eq!(pipeline.decode(&bytes).unwrap(), chunk, "{id}");
        // The longer forms: str8 and str16, array16, map16.
        let map: serde_json::Map<String, Value> =
            (0..20).map(|i| (format!("k{i}"), json!(i))).collect();
        let long = DecodedChunk::Json(vec![
            json!("x".repeat(40)),
            json!("y".repeat(300)),
            json!((0..20).collect::<Vec<u32>>()),
            Value::Object(map),
            json!(-200),
            json!(0.1),
        ]);
        let long_bytes = pipeline.encode(&long).unwrap();
        assert_eq!(
            pipeline.decode(&long_bytes).unwrap(),
            long,
            "{id}: long forms"
        );
        if id == "json2" {
            // numcodecs' list: rows nested as tolist() gives them, then dtype and shape.
            let list: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(
                list,
                json!([["a", -7, 2.5], [null, [1, "b", {"k": [true, false]}], u64::MAX], "|O", [2, 3]])
            );
        }
    }
}
