//! Chunk key encodings against the chunk files zarr-python wrote in tests/fixtures, and the
//! keys manifest.json lists as missing; configurations and their errors.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use zom::chunk::{ArrayLayout, ChunkKeyEncoding};
use zom::model::named::NamedConfig;
use zom::model::v2::ArrayMetadataV2;
use zom::model::v3::ArrayMetadataV3;
use zom::ErrorCode;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn layout(hierarchy: &str, path: &str) -> zom::Result<ArrayLayout> {
    let dir = fixtures().join(hierarchy).join(path);
    if dir.join("zarr.json").exists() {
        let meta: ArrayMetadataV3 = serde_json::from_value(read_json(&dir.join("zarr.json")))
            .unwrap_or_else(|e| panic!("{hierarchy}/{path}: {e}"));
        ArrayLayout::from_v3(&meta, path)
    } else {
        let meta = ArrayMetadataV2::from_value(&read_json(&dir.join(".zarray"))).unwrap();
        ArrayLayout::from_v2(&meta, path)
    }
}

/// Every chunk file below an array's folder, as store keys relative to the hierarchy.
fn chunk_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            chunk_files(root, &path, out);
        } else if !zom::model::documents::is_metadata_key(&path.to_string_lossy()) {
            let key = path.strip_prefix(root).unwrap().to_string_lossy();
            out.push(key.replace('\\', "/"));
        }
    }
}

#[test]
fn keys_match_the_fixture_files_and_the_manifest() {
    let manifest = read_json(&fixtures().join("expected/manifest.json"));
    let mut arrays = 0;
    for hierarchy in ["v3", "v2", "sample"] {
        let root = fixtures().join(hierarchy);
        for (path, entry) in manifest[hierarchy].as_object().unwrap() {
            if entry["shape"].is_null() {
                continue; // the deliberately broken array, checked below
            }
            let layout = layout(hierarchy, path).unwrap();
            let missing: Vec<&str> = entry["missing_chunk_keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap())
                .collect();
            let mut stored = Vec::new();
            let n = layout.grid.num_chunks().unwrap();
            for i in 0..n {
                let coords = layout.grid.coords_of(i).unwrap();
                assert_eq!(layout.grid.linear_index(&coords).unwrap(), i);
                let key = layout.chunk_key(&coords).unwrap();
                let relative = key.strip_prefix(&format!("{path}/")).unwrap();
                let exists = root.join(&key).is_file();
                assert_eq!(
                    exists,
                    !missing.contains(&relative),
                    "{hierarchy}/{key}: file exists = {exists}, manifest missing = {missing:?}"
                );
                if exists {
                    stored.push(key);
                }
            }
            assert_eq!(
                stored.len() as u64,
                entry["stored_chunk_keys"].as_u64().unwrap(),
                "{hierarchy}/{path}"
            );
            // No chunk file that the encoding does not name.
            let mut files = Vec::new();
            chunk_files(&root, &root.join(path), &mut files);
            files.sort();
            stored.sort();
            assert_eq!(files, stored, "{hierarchy}/{path}");
            arrays += 1;
        }
    }
    assert!(arrays > 100, "only {arrays} arrays checked");
}

#[test]
fn specific_fixture_encodings() {
    let cases = [
        ("v3", "chunk_key_dot", "chunk_key_dot/c.1.0"),
        ("v3", "chunk_key_v2", "chunk_key_v2/1.0"),
        ("v3", "chunk_key_v2_slash", "chunk_key_v2_slash/1/0"),
        ("v3", "codec_bytes_only", "codec_bytes_only/c/1/0"),
        ("v3", "group1/sub/leaf", "group1/sub/leaf/c/1/0"),
        ("v2", "dimsep_slash", "dimsep_slash/1/0"),
        ("v2", "dimsep_dot", "dimsep_dot/1.0"),
        ("v2", "legacy_no_dimsep", "legacy_no_dimsep/1.0"),
        ("v2", "group1/sub/leaf", "group1/sub/leaf/1.0"),
    ];
    for (hierarchy, path, key) in cases {
        let layout = layout(hierarchy, path).unwrap();
        assert_eq!(layout.chunk_key(&[1, 0]).unwrap(), key);
        // Chunk (1, 0) of the leaf arrays was never written.
        let written = !path.ends_with("leaf");
        assert_eq!(
            fixtures().join(hierarchy).join(key).is_file(),
            written,
            "{key}"
        );
    }
    let l = layout("v3", "dtype_int32").unwrap();
    assert_eq!(l.chunk_key(&[2]).unwrap(), "dtype_int32/c/2");
    let l = layout("v2", "dtype_int32").unwrap();
    assert_eq!(l.chunk_key(&[2]).unwrap(), "dtype_int32/2");
}

#[test]
fn the_broken_sample_array_is_refused() {
    let e = layout("sample", "broken/bad_chunk_rank").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert_eq!(e.path.as_deref(), Some("broken/bad_chunk_rank"));
    assert!(e.message.contains("[8]"), "{e}");
}

fn named(v: Value) -> NamedConfig {
    NamedConfig::from_value(&v).unwrap()
}

#[test]
fn v3_encodings_and_zero_dimensional_arrays() {
    let default = ChunkKeyEncoding::from_v3(&named(json!("default"))).unwrap();
    assert_eq!(default, ChunkKeyEncoding::Default { separator: '/' });
    assert_eq!(default.encode(&[1, 23, 0]), "c/1/23/0");
    assert_eq!(default.encode(&[]), "c");
    let dot = ChunkKeyEncoding::from_v3(&named(
        json!({"name": "default", "configuration": {"separator": "."}}),
    ))
    .unwrap();
    assert_eq!(dot.encode(&[1, 2]), "c.1.2");
    assert_eq!(dot.encode(&[]), "c");
    let v2 = ChunkKeyEncoding::from_v3(&named(json!({"name": "v2"}))).unwrap();
    assert_eq!(v2, ChunkKeyEncoding::V2 { separator: '.' });
    assert_eq!(v2.encode(&[1, 2]), "1.2");
    assert_eq!(v2.encode(&[]), "0");
    let v2s = ChunkKeyEncoding::from_v3(&named(
        json!({"name": "v2", "configuration": {"separator": "/"}}),
    ))
    .unwrap();
    assert_eq!(v2s.encode(&[1, 2]), "1/2");
    assert_eq!(v2s.encode(&[]), "0");
    assert_eq!(v2s.encode(&[u64::MAX]), u64::MAX.to_string());
    assert_eq!(default.encode_at("", &[0]), "c/0");
    assert_eq!(default.encode_at("a/b", &[0]), "a/b/c/0");
    assert_eq!(default.encode_at("/a/b/", &[]), "a/b/c");
}

#[test]
fn v2_dimension_separators() {
    let dot = ChunkKeyEncoding::from_v2(None).unwrap();
    assert_eq!(dot.encode(&[3, 4]), "3.4");
    assert_eq!(ChunkKeyEncoding::from_v2(Some(".")).unwrap(), dot);
    let slash = ChunkKeyEncoding::from_v2(Some("/")).unwrap();
    assert_eq!(slash.encode(&[3, 4]), "3/4");
    assert_eq!(slash.encode(&[]), "0");
    let e = ChunkKeyEncoding::from_v2(Some("-")).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert!(e.message.contains("\"-\""));
}

#[test]
fn bad_encoding_configurations() {
    for (v, code) in [
        (
            json!({"name": "default", "configuration": {"separator": "-"}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "v2", "configuration": {"separator": 1}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "default", "configuration": {"separator": null}}),
            ErrorCode::InvalidMetadata,
        ),
        (json!("rectilinear"), ErrorCode::UnsupportedExtension),
        (json!({"name": "x.custom"}), ErrorCode::UnsupportedExtension),
    ] {
        let e = ChunkKeyEncoding::from_v3(&named(v.clone())).unwrap_err();
        assert_eq!(e.code, code, "{v}");
    }
}

fn v3_meta(shape: Value, chunks: Value, encoding: Value) -> ArrayMetadataV3 {
    serde_json::from_value(json!({
        "shape": shape,
        "data_type": "int32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": encoding,
        "fill_value": 0,
        "codecs": [{"name": "bytes"}],
        "zarr_format": 3,
        "node_type": "array"
    }))
    .unwrap()
}

#[test]
fn layouts_check_coordinates_and_name_the_path() {
    let l = ArrayLayout::from_v3(&v3_meta(json!([]), json!([]), json!("default")), "s").unwrap();
    assert_eq!(l.chunk_key(&[]).unwrap(), "s/c");
    let l = ArrayLayout::from_v3(&v3_meta(json!([]), json!([]), json!("v2")), "").unwrap();
    assert_eq!(l.chunk_key(&[]).unwrap(), "0");
    let l = ArrayLayout::from_v3(
        &v3_meta(json!([5, 0]), json!([2, 2]), json!("default")),
        "z",
    )
    .unwrap();
    assert_eq!(l.grid.num_chunks().unwrap(), 0);
    let e = l.chunk_key(&[0, 0]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidSelection);
    assert_eq!(e.path.as_deref(), Some("z"));
    let l = ArrayLayout::from_v3(&v3_meta(json!([5]), json!([2]), json!("default")), "a").unwrap();
    assert!(l.chunk_key(&[2]).is_ok());
    assert_eq!(
        l.chunk_key(&[3]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    assert_eq!(
        l.chunk_key(&[0, 0]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    // Bad grids and encodings in metadata.
    let e = ArrayLayout::from_v3(&v3_meta(json!([5]), json!([0]), json!("default")), "a/b")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert_eq!(e.path.as_deref(), Some("a/b"));
    let e = ArrayLayout::from_v3(
        &v3_meta(
            json!([5]),
            json!([2]),
            json!({"name": "default", "configuration": {"separator": "|"}}),
        ),
        "a",
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    let mut meta = v3_meta(json!([5]), json!([2]), json!("default"));
    meta.chunk_grid = named(json!({"name": "example.grid", "configuration": {}}));
    let e = ArrayLayout::from_v3(&meta, "a").unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedExtension);
    // A rectilinear grid is checked: without `kind` and `chunk_shapes` it is invalid.
    meta.chunk_grid = named(json!({"name": "rectilinear", "configuration": {}}));
    let e = ArrayLayout::from_v3(&meta, "a").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    meta.chunk_grid = named(json!({"name": "regular", "configuration": {"chunk_shape": [-1]}}));
    assert_eq!(
        ArrayLayout::from_v3(&meta, "a").unwrap_err().code,
        ErrorCode::InvalidMetadata
    );
    meta.chunk_grid = named(json!({"name": "regular"}));
    assert_eq!(
        ArrayLayout::from_v3(&meta, "a").unwrap_err().code,
        ErrorCode::InvalidMetadata
    );
}

#[test]
fn keys_decode_back_to_coordinates() {
    let encodings = [
        ChunkKeyEncoding::Default { separator: '/' },
        ChunkKeyEncoding::Default { separator: '.' },
        ChunkKeyEncoding::V2 { separator: '.' },
        ChunkKeyEncoding::V2 { separator: '/' },
    ];
    for e in encodings {
        for coords in [vec![], vec![0], vec![7, 0, 12], vec![u64::MAX, 10]] {
            let key = e.encode(&coords);
            assert_eq!(
                e.decode(&key, coords.len()),
                Some(coords.clone()),
                "{e:?} {key}"
            );
            // The wrong rank does not decode (except v2's "0", which is both the 0-d chunk
            // and chunk [0]).
            if !(coords.is_empty() && matches!(e, ChunkKeyEncoding::V2 { .. })) {
                assert_eq!(e.decode(&key, coords.len() + 1), None, "{e:?} {key}");
            }
        }
    }
    let d = ChunkKeyEncoding::Default { separator: '/' };
    for bad in [
        "c/01",
        "c/+1",
        "c/-1",
        "c//1",
        "c/1/",
        "c.1",
        "1/2",
        "c/18446744073709551616",
        "c/ 1",
        "c1",
    ] {
        assert_eq!(
            d.decode(bad, bad.matches('/').count().max(1)),
            None,
            "{bad}"
        );
    }
    let v2 = ChunkKeyEncoding::V2 { separator: '.' };
    assert_eq!(v2.decode("0", 0), Some(vec![]));
    assert_eq!(v2.decode("0", 1), Some(vec![0]));
    assert_eq!(v2.decode("1", 0), None);
    assert_eq!(v2.decode("1/2", 2), None);
    assert_eq!(v2.decode("", 1), None);
    // The fixtures' chunk files decode to coordinates inside their grids.
    let l = layout("v2", "dimsep_slash").unwrap();
    assert_eq!(l.encoding.decode("1/0", 2), Some(vec![1, 0]));
}
