//! Zip archives as stores: the sample hierarchy zipped by zarr-python's ZipStore (stored), with
//! Zip64 records, and deflated in a subfolder (tests/fixtures/zip/generate.py) walks and reads
//! as the plain folder does, with the plain folder's requests plus the tail read; hostile
//! archives fail with located errors, never a panic.

mod common;

use common::store::{block_on, open_array, store_from_dir};
use common::{fixtures, read_json};
use zom::chunk::{DimSelection, Selection};
use zom::hierarchy::{read, walk, ReadOptions, WalkOptions};
use zom::store::zip::{Fetch, Opened, Want, TAIL_LENGTH};
use zom::store::{ByteRange, MemoryStore, Store, ZipIndex, ZipStore};
use zom::ErrorCode;

const ARCHIVES: [&str; 3] = ["sample.zip", "sample-zip64.zip", "sample-folder.zip"];

fn archive(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join("zip").join(name)).unwrap()
}

fn zip_store(bytes: Vec<u8>) -> ZipStore<MemoryStore> {
    let inner = MemoryStore::from_entries([("archive.zip", bytes)]);
    block_on(ZipStore::open(inner, "archive.zip", None)).unwrap()
}

fn plain() -> MemoryStore {
    store_from_dir(&fixtures().join("sample"))
}

#[test]
fn every_archive_walks_and_reads_as_the_folder() {
    let folder = plain();
    let want = block_on(walk(&folder, "", &WalkOptions::default(), &mut |_| {})).unwrap();
    let expected = read_json(&fixtures().join("expected/sample.values.json"));
    for name in ARCHIVES {
        let store = zip_store(archive(name));
        let got = block_on(walk(&store, "", &WalkOptions::default(), &mut |_| {})).unwrap();
        assert_eq!(got.root.to_value(), want.root.to_value(), "{name}");
        assert_eq!(got.errors.len(), want.errors.len(), "{name}");
        for path in expected.as_object().unwrap().keys() {
            let zipped = open_array(&store, path);
            let unzipped = open_array(&folder, path);
            let options = ReadOptions::default();
            let a = block_on(read(
                &store,
                &zipped,
                &Selection::all(),
                &options,
                &mut |_| {},
            ))
            .unwrap();
            let b = block_on(read(
                &folder,
                &unzipped,
                &Selection::all(),
                &options,
                &mut |_| {},
            ))
            .unwrap();
            assert_eq!(a.shape, b.shape, "{name} {path}");
            assert_eq!(
                format!("{:?}", a.data),
                format!("{:?}", b.data),
                "{name} {path}"
            );
        }
    }
}

#[test]
fn members_are_the_folder_files_and_the_root_is_found() {
    let expected = read_json(&fixtures().join("zip/expected.json"));
    for name in ARCHIVES {
        let store = zip_store(archive(name));
        let root = store.index().root().to_string();
        assert_eq!(
            root,
            if name == "sample-folder.zip" {
                "data/sample.zarr/"
            } else {
                ""
            }
        );
        // Every file, directories and README.txt included, is a member.
        assert_eq!(
            store.index().len(),
            expected[name]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !k.ends_with('/'))
                .count()
        );
        for (key, path) in common::files_below(&fixtures().join("sample")) {
            let got = block_on(store.get(&key)).unwrap().unwrap();
            assert_eq!(got, std::fs::read(path).unwrap(), "{name} {key}");
            let range = block_on(store.get_range(&key, ByteRange::Bounded(3..10)))
                .unwrap()
                .unwrap();
            assert_eq!(
                range,
                got[3.min(got.len())..10.min(got.len())],
                "{name} {key}"
            );
            let suffix = block_on(store.get_suffix(&key, 5)).unwrap().unwrap();
            assert_eq!(suffix, got[got.len().saturating_sub(5)..], "{name} {key}");
        }
        assert_eq!(block_on(store.get("nothing/here")).unwrap(), None);
        let listing = block_on(store.list_dir("image")).unwrap().unwrap();
        assert_eq!(listing.keys, ["image/zarr.json"]);
        assert_eq!(
            listing.prefixes,
            ["image/gradient_circles", "image/gradient_circles_blosc"]
        );
    }
    // A root given by the caller.
    let inner = MemoryStore::from_entries([("a.zip", archive("sample-folder.zip"))]);
    let store = block_on(ZipStore::open(inner, "a.zip", Some("/data/"))).unwrap();
    assert!(block_on(store.get("sample.zarr/zarr.json"))
        .unwrap()
        .is_some());
    assert_eq!(
        block_on(store.list_dir("")).unwrap().unwrap().prefixes,
        ["sample.zarr"]
    );
}

/// The requests of a read of `selection` of `path`, as the store underneath logs them.
fn read_log<S: Store>(
    store: &S,
    log: &MemoryStore,
    path: &str,
    selection: &Selection,
) -> Vec<String> {
    let reader = open_array(store, path);
    log.reset_counts();
    block_on(read(
        store,
        &reader,
        selection,
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap();
    log.log()
}

#[test]
fn a_sharded_read_makes_the_requests_it_makes_unzipped() {
    let folder = plain();
    let store = zip_store(archive("sample.zip"));
    let path = "image/gradient_circles";
    let one_inner = Selection(vec![
        DimSelection::Slice {
            start: Some(0),
            stop: Some(32),
            step: None
        };
        2
    ]);
    for selection in [one_inner, Selection::all()] {
        let plain_log = read_log(&folder, &folder, path, &selection);
        let zip_log = read_log(&store, store.inner(), path, &selection);
        assert_eq!(
            zip_log.len(),
            plain_log.len(),
            "{plain_log:?} vs {zip_log:?}"
        );
        // Every read of the archive is a bounded range: suffixes and whole values are mapped
        // into the archive's bytes.
        assert!(
            zip_log.iter().all(|l| l.starts_with("range archive.zip ")),
            "{zip_log:?}"
        );
    }
    // Opening: one suffix read of the tail.
    let inner = MemoryStore::from_entries([("archive.zip", archive("sample.zip"))]);
    let store = block_on(ZipStore::open(inner, "archive.zip", None)).unwrap();
    assert_eq!(
        store.inner().log(),
        [format!("suffix archive.zip {TAIL_LENGTH}")]
    );
}

#[test]
fn a_directory_past_the_tail_is_read_with_one_more_range() {
    let bytes = archive("sample-zip64.zip");
    let tail = &bytes[bytes.len() - 300..];
    let Opened::NeedDirectory(range) = ZipIndex::open(tail, None).unwrap() else {
        panic!("the directory cannot be in 300 bytes")
    };
    let dir = &bytes[range.start as usize..range.end as usize];
    let index = ZipIndex::with_directory(tail, dir, None).unwrap();
    assert_eq!(index.len(), 42);
    let err = ZipIndex::with_directory(tail, &dir[1..], None).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
}

#[test]
fn deflated_members_read_ranges_from_the_inflated_member() {
    let bytes = archive("sample-folder.zip");
    let Opened::Index(index) = ZipIndex::open(&bytes, None).unwrap() else {
        panic!()
    };
    let want = Want::Range(ByteRange::Bounded(2..5));
    assert_eq!(
        index.plan("zarr.json", &want).unwrap(),
        Some(Fetch::Decoded(2..5))
    );
    let past = Want::Range(ByteRange::Bounded(1 << 40..(1 << 40) + 2));
    assert_eq!(index.plan("zarr.json", &past).unwrap(), Some(Fetch::Empty));
    let err = index.plan("zarr.json", &Want::Whole(3)).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded);
}

fn error_of(bytes: Vec<u8>, key: &str) -> zom::ZomError {
    let inner = MemoryStore::from_entries([("archive.zip", bytes)]);
    match block_on(ZipStore::open(inner, "archive.zip", None)) {
        Err(e) => e,
        Ok(store) => block_on(store.get(key)).unwrap_err(),
    }
}

#[test]
fn hostile_archives_fail_with_located_errors() {
    let good = archive("sample.zip");
    let err = error_of(b"not a zip at all".to_vec(), "zarr.json");
    assert_eq!(
        (err.code, err.key.as_deref()),
        (ErrorCode::InvalidMetadata, Some("archive.zip"))
    );

    // A flipped data byte: the CRC-32 check.
    let store = zip_store(good.clone());
    let entry = store
        .index()
        .entry("image/gradient_circles/zarr.json")
        .unwrap()
        .clone();
    let mut bad = good.clone();
    bad[entry.data.unwrap() as usize + 7] ^= 0x20;
    let err = error_of(bad, "image/gradient_circles/zarr.json");
    assert_eq!(err.code, ErrorCode::ChecksumMismatch);
    assert_eq!(err.key.as_deref(), Some("image/gradient_circles/zarr.json"));

    // Every truncation of the archive's end, and every byte of its last 2 KiB flipped: an
    // error or a store, never a panic; reads through a damaged store fail or answer.
    for cut in (1..good.len()).step_by(97) {
        let _ = error_of(good[..cut].to_vec(), "zarr.json");
    }
    for at in good.len() - 2048..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0xff;
        let inner = MemoryStore::from_entries([("a.zip", bad)]);
        if let Ok(store) = block_on(ZipStore::open(inner, "a.zip", None)) {
            for key in [
                "zarr.json",
                "image/gradient_circles/c/0/0",
                "measurements/labels/zarr.json",
            ] {
                let _ = block_on(store.get(key));
                let _ = block_on(store.get_range(key, ByteRange::Suffix(40)));
            }
        }
    }
}

fn read_all_of<S: Store>(
    store: &S,
    array: &zom::hierarchy::ArrayReader,
) -> zom::hierarchy::ChunkValues {
    block_on(read(
        store,
        array,
        &Selection::all(),
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap()
}

/// A zip archive of `members` (name, bytes as stored, method, declared size, CRC-32).
fn zip_of(members: &[(&str, Vec<u8>, u16, u32, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data, method, size, crc) in members {
        let offset = out.len() as u32;
        let head = |sig: u32, central: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central {
                h.extend(20u16.to_le_bytes());
            }
            for v in [20u16, 0, *method, 0, 0] {
                h.extend(v.to_le_bytes());
            }
            for v in [*crc, data.len() as u32, *size] {
                h.extend(v.to_le_bytes());
            }
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes());
            if central {
                for v in [0u16, 0, 0] {
                    h.extend(v.to_le_bytes());
                }
                h.extend(0u32.to_le_bytes());
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        out.extend(head(0x0403_4b50, false));
        out.extend(data);
        central.extend(head(0x0201_4b50, true));
    }
    let (at, len, n) = (out.len() as u32, central.len() as u32, members.len() as u16);
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, n, n] {
        out.extend(v.to_le_bytes());
    }
    out.extend(len.to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

#[test]
fn a_member_longer_than_its_chunk_can_be_is_refused_unread() {
    use std::io::Write;
    // A 64-byte chunk (8 uint64, no compression) stored as a deflated member declaring 16 MiB of
    // zeros: the zip store is asked for at most 64 bytes and refuses it before inflating.
    let meta = br#"{"zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "uint64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}"#;
    let zeros = vec![0u8; 16 << 20];
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    deflate.write_all(&zeros).unwrap();
    let packed = deflate.finish().unwrap();
    let crc = |b: &[u8]| {
        let mut c = flate2::Crc::new();
        c.update(b);
        c.sum()
    };
    let good = 7u64.to_le_bytes().repeat(8);
    let archive = zip_of(&[
        ("zarr.json", meta.to_vec(), 0, meta.len() as u32, crc(meta)),
        ("c/0", packed, 8, zeros.len() as u32, crc(&zeros)),
    ]);
    let store = zip_store(archive);
    let array = open_array(&store, "");
    let err = block_on(read(
        &store,
        &array,
        &Selection::all(),
        &ReadOptions::default(),
        &mut |_| {},
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::CodecError, "{err}");
    assert_eq!(err.key.as_deref(), Some("c/0"));
    assert!(
        err.message.contains("longer than its codecs can produce"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("a member of 16777216 bytes (at most 64)"),
        "{}",
        err.message
    );
    // The same chunk stored as it should be reads.
    let archive = zip_of(&[
        ("zarr.json", meta.to_vec(), 0, meta.len() as u32, crc(meta)),
        ("c/0", good.clone(), 0, 64, crc(&good)),
    ]);
    let store = zip_store(archive);
    let array = open_array(&store, "");
    let unzipped = MemoryStore::from_entries([("zarr.json", meta.to_vec()), ("c/0", good)]);
    let got = read_all_of(&store, &array);
    let want = read_all_of(&unzipped, &open_array(&unzipped, ""));
    assert_eq!(format!("{:?}", got.data), format!("{:?}", want.data));
}
