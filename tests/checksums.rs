//! Checksums are verified by default: one bit flipped anywhere in the bytes a checksum covers,
//! in every chunk of every checksummed fixture array (v3 `crc32c` as a codec and in shard
//! indexes, v2 numcodecs `crc32`, `adler32` and `fletcher32`), is a `ChecksumMismatch`.
//! Where a compressor wraps the checksummed bytes (v2 adler32 then zlib, v3 sharding then
//! gzip), the flip is made beneath it and the chunk compressed again, since the compressor's
//! own check would otherwise answer first.

mod common;

use common::{files_below, fixtures, read_json};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use zom::hierarchy::ArrayReader;
use zom::model::Node;
use zom::ErrorCode;

/// A compressor outside the checksummed bytes.
#[derive(Clone, Copy, Debug)]
enum Outer {
    None,
    Gzip,
    Zlib,
}

impl Outer {
    fn unwrap(self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Outer::None => out.extend_from_slice(bytes),
            Outer::Gzip => {
                flate2::read::GzDecoder::new(bytes)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Outer::Zlib => {
                flate2::read::ZlibDecoder::new(bytes)
                    .read_to_end(&mut out)
                    .unwrap();
            }
        }
        out
    }

    fn wrap(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Outer::None => bytes.to_vec(),
            Outer::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(bytes).unwrap();
                e.finish().unwrap()
            }
            Outer::Zlib => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(bytes).unwrap();
                e.finish().unwrap()
            }
        }
    }
}

/// Which bytes of a (unwrapped) chunk the checksum covers.
#[derive(Clone, Copy, Debug)]
enum Covered {
    All,
    /// A shard index of this many bytes, at the start or the end.
    Index {
        len: usize,
        at_start: bool,
    },
}

fn names(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            c.get("name")
                .or_else(|| c.get("id"))
                .and_then(Value::as_str)
        })
        .map(str::to_string)
        .collect()
}

/// How a fixture array's chunks are checksummed, from its metadata (`None`: they are not).
fn checksummed(doc: &Value, v3: bool) -> Option<(Outer, Covered)> {
    if !v3 {
        let compressor = doc["compressor"]["id"].as_str().unwrap_or("");
        let filters = names(doc.get("filters"));
        let checks = ["crc32", "adler32", "fletcher32"];
        if checks.contains(&compressor) {
            return Some((Outer::None, Covered::All));
        }
        if filters.iter().any(|f| checks.contains(&f.as_str())) {
            let outer = match compressor {
                "zlib" => Outer::Zlib,
                "" => Outer::None,
                other => panic!("a checksum filter under {other}: extend this test"),
            };
            return Some((outer, Covered::All));
        }
        return None;
    }
    let codecs = doc["codecs"].as_array().unwrap();
    let top = names(doc.get("codecs"));
    if top.last().map(String::as_str) == Some("crc32c") {
        return Some((Outer::None, Covered::All));
    }
    let first = codecs.first()?;
    if first["name"] != "sharding_indexed" {
        assert!(
            !top.contains(&"crc32c".to_string()),
            "crc32c inside {top:?}"
        );
        return None;
    }
    let config = &first["configuration"];
    if !names(config.get("index_codecs")).contains(&"crc32c".to_string()) {
        return None;
    }
    let shard: u64 = doc["chunk_grid"]["configuration"]["chunk_shape"]
        .as_array()
        .unwrap()
        .iter()
        .zip(config["chunk_shape"].as_array().unwrap())
        .map(|(s, c)| s.as_u64().unwrap() / c.as_u64().unwrap())
        .product();
    let len = usize::try_from(shard * 16 + 4).unwrap();
    let at_start = config["index_location"] == "start";
    let outer = match top.get(1..).unwrap_or_default() {
        [] => Outer::None,
        [gzip] if gzip == "gzip" => Outer::Gzip,
        other => panic!("sharding under {other:?}: extend this test"),
    };
    Some((outer, Covered::Index { len, at_start }))
}

/// The chunk coordinates of a chunk key relative to its array (`c/1/0`, `1.0`).
fn coords(key: &str) -> Vec<u64> {
    let key = key.strip_prefix("c/").unwrap_or(key);
    key.split(['/', '.']).map(|c| c.parse().unwrap()).collect()
}

/// At most 2048 bit positions spread over `0..bits`, first and last included.
fn positions(bits: usize) -> Vec<usize> {
    if bits <= 2048 {
        return (0..bits).collect();
    }
    (0..2048).map(|i| i * (bits - 1) / 2047).collect()
}

/// Checks one array: every flip of a covered bit in every chunk is a ChecksumMismatch.
/// Returns the number of flips.
fn check_array(dir: &Path, path: &str, doc: &Value, v3: bool) -> Option<usize> {
    let (outer, covered) = checksummed(doc, v3)?;
    let node = Node::from_value(doc).unwrap();
    let Node::Array(array) = node else {
        panic!("{path} is not an array")
    };
    let reader = ArrayReader::open(&array, path).unwrap();
    let mut flips = 0;
    for (key, file) in files_below(dir) {
        if zom::model::documents::is_metadata_key(&key) {
            continue;
        }
        let stored = std::fs::read(&file).unwrap();
        let c = coords(&key);
        reader
            .decode_chunk(&c, Some(&stored))
            .unwrap_or_else(|e| panic!("{path}/{key} intact: {e}"));
        let inner = outer.unwrap(&stored);
        let region = match covered {
            Covered::All => 0..inner.len(),
            Covered::Index {
                len,
                at_start: true,
            } => 0..len,
            Covered::Index { len, .. } => inner.len() - len..inner.len(),
        };
        for bit in positions(region.len() * 8) {
            let mut flipped = inner.clone();
            flipped[region.start + bit / 8] ^= 1 << (bit % 8);
            let e = reader
                .decode_chunk(&c, Some(&outer.wrap(&flipped)))
                .expect_err(&format!("{path}/{key} bit {bit} flipped decoded"));
            assert_eq!(
                e.code,
                ErrorCode::ChecksumMismatch,
                "{path}/{key} bit {bit}: {e}"
            );
            assert_eq!(e.path.as_deref(), Some(path));
            flips += 1;
        }
    }
    Some(flips)
}

#[test]
fn one_flipped_bit_in_any_checksummed_chunk_is_a_checksum_mismatch() {
    let mut checked = Vec::new();
    let mut flips = 0;
    for root in ["v3", "v2", "sample"] {
        let base = fixtures().join(root);
        for (key, file) in files_below(&base) {
            let (v3, prefix) = if let Some(p) = key.strip_suffix("zarr.json") {
                (true, p)
            } else if let Some(p) = key.strip_suffix(".zarray") {
                (false, p)
            } else {
                continue;
            };
            let mut doc = read_json(&file);
            if v3 && doc["node_type"] != "array" {
                continue;
            }
            if !v3 {
                doc["zarr_format"] = 2.into();
            }
            let path = prefix.trim_end_matches('/');
            if let Some(n) = check_array(&base.join(path), path, &doc, v3) {
                checked.push(format!("{root}/{path}"));
                flips += n;
            }
        }
    }
    checked.sort();
    let expected = [
        "sample/image/gradient_circles",
        "sample/image/gradient_circles_blosc",
        "v2/checksum_adler32",
        "v2/checksum_crc32",
        "v2/checksum_fletcher32",
        "v3/codec_crc32c",
        "v3/codec_gzip_crc32c",
        "v3/shard_index_end",
        "v3/shard_index_start",
        "v3/shard_nested",
        "v3/shard_string",
        "v3/shard_then_gzip",
    ];
    for name in expected {
        assert!(
            checked.iter().any(|c| c == name),
            "{name} not checked: {checked:?}"
        );
    }
    assert!(flips > 10_000, "{flips} flips");
    eprintln!(
        "{flips} single-bit flips in {} arrays: {checked:?}",
        checked.len()
    );
}
