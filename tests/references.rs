//! Kerchunk references (`zom::store::reference`): versions 0 and 1, templates and generators
//! parsed as fsspec reads them; bad documents give problems located by JSON pointer and a
//! located `InvalidMetadata` error; and the fixture datasets (HDF5 and NetCDF3 files that
//! kerchunk indexed, tests/fixtures/references/generate.py) read through a `ReferenceStore`
//! over a `MemoryStore` of the target files equal what h5py and scipy read.

mod common;

use common::store::block_on;
use common::values::encode_all;
use common::{fixtures, read_json};
use serde_json::{json, Value};
use zom::chunk::Selection;
use zom::hierarchy::{open, read, walk, ArrayReader, OpenHints, ReadOptions, WalkOptions};
use zom::model::Node;
use zom::store::reference::{check_references, Target, MAX_GENERATED};
use zom::store::{ByteRange, MemoryStore, ReferenceStore, References, Store};
use zom::{ErrorCode, Limits};

const BASE: &str = "http://test/refs/refs.json";

fn parse(doc: &Value) -> References {
    References::parse(doc.to_string().as_bytes(), BASE, &Limits::default())
        .unwrap_or_else(|e| panic!("{doc}: {e}"))
}

/// The problems of `doc` as (JSON pointer-ish loc, message) pairs.
fn problems(doc: &str) -> Vec<(String, String)> {
    check_references(doc.as_bytes(), &Limits::default())
        .into_iter()
        .map(|p| {
            let loc: Vec<String> = p
                .loc
                .iter()
                .map(|s| match s {
                    zom::validate::LocStep::Key(k) => k.replace('~', "~0").replace('/', "~1"),
                    zom::validate::LocStep::Index(i) => i.to_string(),
                })
                .collect();
            let pointer: String = loc.iter().map(|s| format!("/{s}")).collect();
            (pointer, p.message)
        })
        .collect()
}

#[test]
fn version_0_values() {
    let refs = parse(&json!({
        ".zgroup": "{\"zarr_format\":2}",
        "a/.zattrs": {"x": 1},
        "a/0": "base64:AAEC",
        "a/1": ["data.h5", 10, 5],
        "/b": ["../whole.bin"],
        "c": ["s3://bucket/x.nc", 0, 0],
    }));
    assert_eq!(refs.len(), 6);
    assert_eq!(
        refs.locate(".zgroup"),
        Some(Target::Inline(b"{\"zarr_format\":2}"))
    );
    assert_eq!(
        refs.locate("/a/.zattrs"),
        Some(Target::Inline(b"{\"x\":1}"))
    );
    assert_eq!(refs.locate("a/0"), Some(Target::Inline(&[0, 1, 2])));
    assert_eq!(
        refs.locate("a/1"),
        Some(Target::Range {
            url: "http://test/refs/data.h5",
            offset: 10,
            length: 5
        })
    );
    assert_eq!(
        refs.locate("b"),
        Some(Target::Whole("http://test/whole.bin"))
    );
    assert_eq!(
        refs.locate("c"),
        Some(Target::Range {
            url: "s3://bucket/x.nc",
            offset: 0,
            length: 0
        })
    );
    assert_eq!(refs.locate("a/2"), None);
    let root = refs.list_dir("");
    assert_eq!(root.keys, [".zgroup", "b", "c"]);
    assert_eq!(root.prefixes, ["a"]);
    assert_eq!(refs.list_dir("a/").keys, ["a/.zattrs", "a/0", "a/1"]);
}

#[test]
fn version_1_templates_and_generators() {
    let refs = parse(&json!({
        "version": 1,
        "templates": {"u": "https://host/{{ 'ignored' }}", "f": "file.nc"},
        "refs": {
            "x/.zarray": "{}",
            "x/0": ["{{f}}", 8, 4],
            "x/raw": ["{{f}}"],
        },
        "gen": [{
            "key": "g/{{i}}.{{ j }}",
            "url": "{{f}}",
            "offset": "{{ 100 + i * 30 + (j * 10) }}",
            "length": "10",
            "dimensions": {"i": {"stop": 3}, "j": [0, 2]},
        }, {
            "key": "h/{{name}}",
            "url": "other/{{name}}.bin",
            "dimensions": {"name": ["a", "b"], "k": {"start": 5, "stop": 0, "step": -2}},
        }, {
            "key": "x/0",
            "url": "override.bin",
            "dimensions": {"i": [0]},
        }],
    }));
    assert_eq!(
        refs.locate("g/2.2"),
        Some(Target::Range {
            url: "http://test/refs/file.nc",
            offset: 180,
            length: 10
        })
    );
    assert_eq!(refs.keys().filter(|k| k.starts_with("g/")).count(), 6);
    assert_eq!(
        refs.locate("h/b"),
        Some(Target::Whole("http://test/refs/other/b.bin"))
    );
    assert_eq!(
        refs.locate("x/raw"),
        Some(Target::Whole("http://test/refs/file.nc"))
    );
    // Generators override refs, as fsspec's `update` does.
    assert_eq!(
        refs.locate("x/0"),
        Some(Target::Whole("http://test/refs/override.bin"))
    );
    // Without templates, "{{" in a URL is left as it is (fsspec renders only with templates).
    let plain = parse(&json!({"version": 1, "refs": {"k": ["a{{b}}.bin"]}}));
    assert_eq!(
        plain.locate("k"),
        Some(Target::Whole("http://test/refs/a%7B%7Bb%7D%7D.bin"))
    );
}

#[test]
fn bad_documents_are_located() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"[1]"#, "", "a JSON object"),
        (
            r#"{"version": 2}"#,
            "/version",
            "unknown reference version 2",
        ),
        (
            r#"{"version": "1"}"#,
            "/version",
            "unknown reference version",
        ),
        (
            r#"{"a/.zarray": 5}"#,
            "/a~1.zarray",
            "a reference is a string",
        ),
        (r#"{"a": null}"#, "/a", "a reference is a string"),
        (r#"{"a": "base64:@@@@"}"#, "/a", "invalid base64"),
        (r#"{"a": "base64:AAE"}"#, "/a", "invalid base64"),
        (
            r#"{"a": ["u", -1, 5]}"#,
            "/a/1",
            "offset must be an integer",
        ),
        (
            r#"{"a": ["u", 0, 9007199254740992]}"#,
            "/a/2",
            "length must be an integer",
        ),
        (
            r#"{"a": ["u", 1.5, 5]}"#,
            "/a/1",
            "offset must be an integer",
        ),
        (
            r#"{"a": ["u", 9007199254740990, 5]}"#,
            "/a",
            "over 2^53 - 1",
        ),
        (r#"{"a": ["u", 1]}"#, "/a", "[url, offset, length]"),
        (r#"{"a": [7]}"#, "/a", "[url, offset, length]"),
        (r#"{"a": [""]}"#, "/a/0", "does not resolve"),
        (r#"{"": "x"}"#, "/", "key is empty"),
        (
            r#"{"version": 1, "refs": []}"#,
            "/refs",
            "refs is an object",
        ),
        (
            r#"{"version": 1, "templates": {"t": 1}}"#,
            "/templates/t",
            "a template is a string",
        ),
        (
            r#"{"version": 1, "templates": {"t": "x"}, "refs": {"r/0": ["{{nope}}"]}}"#,
            "/refs/r~10/0",
            "unknown name",
        ),
        (r#"{"version": 1, "gen": {}}"#, "/gen", "gen is an array"),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "offset": "1", "dimensions": {"i": [1]}}]}"#,
            "/gen/0",
            "both offset and length",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"start": 0}}}]}"#,
            "/gen/0/dimensions/i",
            "needs stop",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 3, "step": 0}}}]}"#,
            "/gen/0/dimensions/i/step",
            "must not be 0",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 2000000}}}]}"#,
            "/gen/0/dimensions/i",
            "more references than the limit of 1048576",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i}}{{j}}", "url": "u", "dimensions": {"i": {"stop": 1025}, "j": {"stop": 1025}}}]}"#,
            "/gen/0/dimensions/j",
            "more references than the limit",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "offset": "{{i - 1}}", "length": "1", "dimensions": {"i": [0]}}]}"#,
            "/gen/0/offset",
            "not an integer from 0",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i // 0}}", "url": "u", "dimensions": {"i": [0]}}]}"#,
            "/gen/0/key",
            "divides by zero",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{(((((((((((((((((((((((((((((((((i)))))))))))))))))))))))))))))))))}}", "url": "u", "dimensions": {"i": [0]}}]}"#,
            "/gen/0/key",
            "nested deeper",
        ),
        (
            r#"{"version": 1, "gen": [{"key": "k{{i * 9223372036854775807}}", "url": "u", "dimensions": {"i": [2]}}]}"#,
            "/gen/0/key",
            "overflow",
        ),
        (r#"{"metadata": {}, "record_size": 1000}"#, "", "parquet"),
    ];
    for (doc, loc, message) in cases {
        let found = problems(doc);
        assert!(
            found.iter().any(|(l, m)| l == loc && m.contains(message)),
            "{doc}: want {loc} {message:?}, got {found:?}"
        );
        let err = References::parse(doc.as_bytes(), "refs.json", &Limits::default()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidMetadata, "{doc}");
        assert_eq!(err.key.as_deref(), Some("refs.json"), "{doc}");
        let at = if loc.is_empty() { "the document" } else { loc };
        assert!(
            err.message.contains(&format!("(at {at})")),
            "{doc}: {}",
            err.message
        );
    }
    // Not JSON, parquet bytes, too deep or too long: errors, and one problem from check.
    for (text, code) in [
        (&b"{"[..], ErrorCode::InvalidMetadata),
        (b"PAR1\0\0", ErrorCode::InvalidMetadata),
        (&"[".repeat(200).into_bytes()[..], ErrorCode::LimitExceeded),
    ] {
        assert_eq!(
            References::parse(text, "r", &Limits::default())
                .unwrap_err()
                .code,
            code
        );
        assert_eq!(check_references(text, &Limits::default()).len(), 1);
    }
    let small = Limits {
        max_document_bytes: 4,
        ..Limits::default()
    };
    let err = References::parse(b"{\"a\": \"b\"}", "r", &small).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded);
    // A generator of many keys lists them all under their prefix.
    let many = format!(
        r#"{{"version": 1, "gen": [{{"key": "k/{{{{i}}}}", "url": "u", "offset": "{{{{i}}}}", "length": "1", "dimensions": {{"i": {{"stop": {}}}}}}}]}}"#,
        MAX_GENERATED / 64
    );
    let refs = References::parse(many.as_bytes(), "r", &Limits::default()).unwrap();
    assert_eq!(refs.len() as u64, MAX_GENERATED / 64);
    assert_eq!(refs.list_dir("k").keys.len() as u64, MAX_GENERATED / 64);
    assert_eq!(refs.list_dir("").prefixes, ["k"]);
}

/// The reference file `name` of the fixtures over a MemoryStore of the target files, which
/// are keyed by their resolved URLs.
fn fixture_store(name: &str) -> ReferenceStore<MemoryStore> {
    let dir = fixtures().join("references");
    let base = format!("http://test/references/{name}");
    let text = std::fs::read(dir.join(name)).unwrap();
    let refs = References::parse(&text, &base, &Limits::default()).unwrap();
    let mut targets = MemoryStore::new();
    for file in ["sample.h5", "sample.nc", "raw.bin"] {
        let bytes = std::fs::read(dir.join("data").join(file)).unwrap();
        targets.insert(&format!("http://test/references/data/{file}"), bytes);
    }
    ReferenceStore::new(refs, targets)
}

fn read_all(store: &ReferenceStore<MemoryStore>, path: &str) -> (Vec<u64>, Vec<Value>) {
    let opened =
        block_on(open(store, path, OpenHints::default())).unwrap_or_else(|e| panic!("{path}: {e}"));
    let Node::Array(array) = opened.node else {
        panic!("{path} is not an array")
    };
    let reader = ArrayReader::open(&array, path).unwrap();
    let got = block_on(read(
        store,
        &reader,
        &Selection(vec![]),
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap_or_else(|e| panic!("{path}: {e}"));
    (
        reader.shape().to_vec(),
        encode_all(reader.data_type(), &got.data),
    )
}

#[test]
fn fixture_arrays_equal_h5py_and_scipy() {
    let expected = read_json(&fixtures().join("references/expected.json"));
    let mut seen = 0;
    for (file, prefix) in [
        ("hdf5.json", "hdf5/"),
        ("v0/hdf5.json", "hdf5/"),
        ("netcdf3.json", "netcdf3/"),
        ("gen.json", "gen/"),
    ] {
        let store = fixture_store(file);
        for (name, want) in expected.as_object().unwrap() {
            let Some(path) = name.strip_prefix(prefix) else {
                continue;
            };
            let (shape, values) = read_all(&store, path);
            let want_shape: Vec<u64> = serde_json::from_value(want["shape"].clone()).unwrap();
            assert_eq!(shape, want_shape, "{file} {path}");
            let want_values = want["values"].as_array().unwrap();
            assert_eq!(values.len(), want_values.len(), "{file} {path}");
            for (i, (g, w)) in values.iter().zip(want_values).enumerate() {
                assert_eq!(g.as_f64(), w.as_f64(), "{file} {path}[{i}]: {g} vs {w}");
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 5 + 5 + 3 + 1);
}

#[test]
fn fixture_walk_requests_and_errors() {
    let store = fixture_store("hdf5.json");
    let walked = block_on(walk(&store, "", &WalkOptions::default(), &mut |_| {})).unwrap();
    assert!(walked.errors.is_empty(), "{:?}", walked.errors);
    let zom = walked.root.to_value();
    let members = zom["members"].as_object().unwrap();
    for name in ["temperature", "counts", "contiguous", "scalar", "group"] {
        assert!(members.contains_key(name), "{name} in {:?}", members.keys());
    }
    assert!(zom["members"]["group"]["members"]["values"]["shape"].is_array());
    assert_eq!(zom["attributes"]["title"], "zom kerchunk fixture");
    // Metadata is inline: the walk asks the targets for nothing.
    assert_eq!(store.inner().counts().total(), 0);

    // A read of temperature asks for exactly its four chunk ranges.
    let _ = read_all(&store, "temperature");
    let log = store.inner().log();
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(
        log.iter()
            .all(|l| l.starts_with("range http://test/references/data/sample.h5 ")),
        "{log:?}"
    );

    // Ranges of a reference are cut to it; a short target is an error naming the key.
    let bytes = block_on(store.get_range("temperature/0.0", ByteRange::Suffix(7)))
        .unwrap()
        .unwrap();
    let whole = block_on(store.get("temperature/0.0")).unwrap().unwrap();
    assert_eq!(whole.len(), 277);
    assert_eq!(bytes, whole[270..]);
    let head = block_on(store.get_range("temperature/0.0", ByteRange::Bounded(270..1000)))
        .unwrap()
        .unwrap();
    assert_eq!(head, whole[270..]);
    assert_eq!(block_on(store.get("nope")).unwrap(), None);

    let short = References::parse(
        br#"{"a": ["x.bin", 2, 10], "b": ["gone.bin"]}"#,
        "http://t/r.json",
        &Limits::default(),
    )
    .unwrap();
    let store = ReferenceStore::new(
        short,
        MemoryStore::from_entries([("http://t/x.bin", vec![0u8; 5])]),
    );
    let err = block_on(store.get("a")).unwrap_err();
    assert_eq!(
        (err.code, err.key.as_deref()),
        (ErrorCode::InvalidMetadata, Some("a"))
    );
    let err = block_on(store.get("b")).unwrap_err();
    assert_eq!(
        (err.code, err.key.as_deref()),
        (ErrorCode::NotFound, Some("b"))
    );
}

#[test]
fn mutated_documents_never_panic() {
    // A small deterministic generator: the fixtures with bytes changed, cut and repeated, and
    // generator expressions built from random tokens, all through check and parse.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let dir = fixtures().join("references");
    let docs: Vec<Vec<u8>> = ["hdf5.json", "netcdf3.json", "gen.json", "v0/hdf5.json"]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect();
    let alphabet = b"{}[]\":,0123456789-+*/%() ijk{{}}base64:AZaz=/.\\~\xff";
    for round in 0..3000 {
        let mut doc = docs[round % docs.len()].clone();
        for _ in 0..1 + next(8) {
            let at = next(doc.len());
            match next(3) {
                0 => doc[at] = alphabet[next(alphabet.len())],
                1 => doc.insert(at, alphabet[next(alphabet.len())]),
                _ => doc.truncate(at.max(1)),
            }
        }
        let _ = check_references(&doc, &Limits::default());
        let _ = References::parse(&doc, "http://h/r.json", &Limits::default());
    }
    let tokens = [
        "i",
        "j",
        "1",
        "0",
        "9223372036854775807",
        "+",
        "-",
        "*",
        "/",
        "//",
        "%",
        "(",
        ")",
        " ",
        "x",
        "}}",
        "{{",
    ];
    for _ in 0..3000 {
        let expr: String = (0..next(12)).map(|_| tokens[next(tokens.len())]).collect();
        let doc = json!({"version": 1, "gen": [{
            "key": format!("k/{{{{{expr}}}}}"), "url": "u", "offset": format!("{{{{{expr}}}}}"), "length": "1",
            "dimensions": {"i": {"start": -3, "stop": 3}, "j": [0, "t"]},
        }]});
        let text = doc.to_string();
        let _ = check_references(text.as_bytes(), &Limits::default());
        let _ = References::parse(text.as_bytes(), "/d/r.json", &Limits::default());
    }
}

#[test]
fn a_value_longer_than_its_chunk_can_be_is_refused_unread() {
    // An array of 8 uint64 (64-byte chunks, no compression) whose chunks are a reference's
    // range of 1 MiB, a whole target file of 1 MiB, and 75 inline bytes: each refused before
    // it is read (the target store is asked for at most 64 bytes), not decoded and then found
    // too long.
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": [32], "data_type": "uint64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]});
    let inline = format!("base64:{}", "AAAA".repeat(25));
    let doc = json!({"version": 1, "refs": {
        "zarr.json": meta.to_string(),
        "c/0": ["big.bin", 0, 1 << 20],
        "c/1": ["big.bin"],
        "c/2": inline,
        "c/3": ["big.bin", 0, 64],
    }});
    let refs = References::parse(
        doc.to_string().as_bytes(),
        "http://t/r.json",
        &Limits::default(),
    )
    .unwrap();
    let store = ReferenceStore::new(
        refs,
        MemoryStore::from_entries([("http://t/big.bin", vec![1u8; 1 << 20])]),
    );
    let array = common::store::open_array(&store, "");
    let chunk = |i: i64| {
        let sel = Selection(vec![zom::chunk::DimSelection::Slice {
            start: Some(i * 8),
            stop: Some(i * 8 + 8),
            step: Some(1),
        }]);
        block_on(read(
            &store,
            &array,
            &sel,
            &ReadOptions::default(),
            &mut |_| {},
        ))
    };
    for (i, len) in [(0, 1u64 << 20), (2, 75)] {
        let err = chunk(i).unwrap_err();
        assert_eq!(
            (err.code, err.key.as_deref()),
            (ErrorCode::CodecError, Some(format!("c/{i}").as_str())),
            "{err}"
        );
        assert!(
            err.message.contains(&format!(
                "the reference's value has {len} bytes, over the 64"
            )),
            "{}",
            err.message
        );
    }
    // A whole target: the target store answers in full (a MemoryStore cannot refuse unread),
    // and the length is checked before decoding.
    let err = chunk(1).unwrap_err();
    assert_eq!(err.code, ErrorCode::CodecError, "{err}");
    assert!(
        err.message.contains("1048576 bytes, at most 64"),
        "{}",
        err.message
    );
    assert!(chunk(3).is_ok());
}
