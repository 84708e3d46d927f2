//! Icechunk repositories as icechunk-python 2.3.0 writes them (tests/fixtures/icechunk,
//! generate.py), in spec versions 2 and 1: every ref resolves to the snapshot icechunk
//! resolves it to, with the same ancestry; every node of every ref has the kind and the
//! `zarr.json` icechunk serves; every array, read whole through [`IcechunkStore`] with zom's
//! reader, equals what zarr-python reads through icechunk (native, inline, sharded, missing,
//! split-manifest and virtual chunks).

mod common;

use common::store::{block_on, icechunk_main, open_array, read_whole, store_from_dir, Slow};
use common::values::encode_all;
use common::{fixtures, json_differences, read_json};
use serde_json::{json, Value};
use zom::store::icechunk::{
    ChunkLocation, IcechunkStore, NodeKind, RefSpec, Repository, SnapshotId,
};
use zom::store::{ByteRange, MemoryStore, Store};
use zom::{ErrorCode, Limits};

fn dir() -> std::path::PathBuf {
    fixtures().join("icechunk")
}

/// The virtual chunks' targets, keyed by URL as a caller's HTTP store would fetch them.
fn virtual_store(expected: &Value) -> MemoryStore {
    let prefix = expected["virtual_prefix"].as_str().unwrap();
    let mut store = MemoryStore::new();
    for (key, path) in common::files_below(&dir().join("raw")) {
        store.insert(&format!("{prefix}{key}"), std::fs::read(path).unwrap());
    }
    store
}

fn ref_spec(name: &str) -> RefSpec {
    match name.split_once(':').unwrap() {
        ("branch", b) => RefSpec::Branch(b.to_string()),
        ("tag", t) => RefSpec::Tag(t.to_string()),
        ("snapshot", s) => RefSpec::Snapshot(SnapshotId::parse(s).unwrap()),
        other => panic!("{other:?}"),
    }
}

fn ids(list: &[(String, SnapshotId)]) -> Value {
    list.iter()
        .map(|(n, id)| (n.clone(), json!(id.to_string())))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Every ref, node and array value of repository `name`; returns how many arrays were read.
fn check_repository(name: &str) -> usize {
    let all = read_json(&dir().join("expected.json"));
    let expected = &all["repositories"][name];
    let files = store_from_dir(&dir().join(name));
    let virtuals = virtual_store(&all);
    let limits = Limits::default();
    let repo = block_on(Repository::open(&files, &limits)).unwrap();
    assert_eq!(
        json!(repo.spec_version()),
        expected["spec_version"],
        "{name}"
    );
    assert_eq!(repo.repo_info().is_some(), name == "v2", "{name}");
    assert_eq!(
        ids(&block_on(repo.branches(&files)).unwrap()),
        expected["branches"],
        "{name} branches"
    );
    assert_eq!(
        ids(&block_on(repo.tags(&files)).unwrap()),
        expected["tags"],
        "{name} tags"
    );
    let deleted = block_on(repo.resolve(&files, &RefSpec::Tag("gone".into()))).unwrap_err();
    assert_eq!(deleted.code, ErrorCode::NotFound, "{name}: {deleted}");
    if let Some(info) = repo.repo_info() {
        assert_eq!(json!(info.deleted_tags()), expected["deleted_tags"]);
    }
    let mut arrays = 0;
    for (ref_name, want) in expected["refs"].as_object().unwrap() {
        let at = format!("{name} {ref_name}");
        let id = block_on(repo.resolve(&files, &ref_spec(ref_name)))
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(json!(id.to_string()), want["snapshot"], "{at}");
        let ancestry = block_on(repo.ancestry(&files, &id)).unwrap_or_else(|e| panic!("{at}: {e}"));
        let ancestry: Vec<String> = ancestry.iter().map(ToString::to_string).collect();
        assert_eq!(json!(ancestry), want["ancestry"], "{at} ancestry");
        let snapshot = block_on(repo.snapshot(&files, &id)).unwrap();
        assert_eq!(
            json!(snapshot.message()),
            want["messages"][0],
            "{at} message"
        );
        let nodes = want["nodes"].as_object().unwrap();
        let paths: Vec<&str> = snapshot.nodes().map(|n| n.path).collect();
        assert_eq!(
            paths,
            nodes.keys().map(String::as_str).collect::<Vec<_>>(),
            "{at} nodes"
        );
        let store = IcechunkStore::new(&files, &virtuals, snapshot, &limits);
        for (path, node) in nodes {
            let at = format!("{at} {path}");
            let view = store.snapshot().node(path).unwrap();
            let kind = match view.kind {
                NodeKind::Group => "group",
                NodeKind::Array => "array",
            };
            assert_eq!(json!(kind), node["kind"], "{at}");
            let key = match path.as_str() {
                "/" => "zarr.json".to_string(),
                p => format!("{}/zarr.json", &p[1..]),
            };
            let doc: Value =
                serde_json::from_slice(&block_on(store.get(&key)).unwrap().unwrap()).unwrap();
            let diffs = json_differences(&doc, &node["zarr_json"]);
            assert!(diffs.is_empty(), "{at} zarr.json:\n{}", diffs.join("\n"));
            if view.kind == NodeKind::Array {
                let reader = open_array(&store, &path[1..]);
                let got = read_whole(&store, &reader);
                assert_eq!(json!(got.shape), node["shape"], "{at} shape");
                let values = Value::Array(encode_all(reader.data_type(), &got.data));
                let diffs = json_differences(&values, &node["values"]);
                assert!(diffs.is_empty(), "{at} values:\n{}", diffs.join("\n"));
                arrays += 1;
            }
        }
    }
    arrays
}

#[test]
fn spec_version_2_reads_as_icechunk_reads_it() {
    let arrays = check_repository("v2");
    assert!(arrays >= 40, "{arrays} arrays read");
}

#[test]
fn spec_version_1_reads_as_icechunk_reads_it() {
    let arrays = check_repository("v1");
    assert!(arrays >= 40, "{arrays} arrays read");
}

/// The kinds of chunk reference the fixtures were written to hold are there.
#[test]
fn the_fixtures_hold_every_kind_of_chunk_reference() {
    let all = read_json(&dir().join("expected.json"));
    let virtuals = virtual_store(&all);
    for name in ["v2", "v1"] {
        let files = store_from_dir(&dir().join(name));
        let store = icechunk_main(&files, &virtuals);
        let location =
            |path: &str, coords: &[u64]| block_on(store.chunk_location(path, coords)).unwrap();
        assert!(
            matches!(location("small_u8", &[0]), Some(ChunkLocation::Inline(_))),
            "{name}"
        );
        assert!(
            matches!(
                location("group/float64", &[0, 0]),
                Some(ChunkLocation::Native { .. })
            ),
            "{name}"
        );
        assert!(
            matches!(
                location("group/sharded", &[1, 1]),
                Some(ChunkLocation::Native { .. })
            ),
            "{name}"
        );
        assert_eq!(location("group/missing", &[0, 1]), None, "{name}");
        let Some(ChunkLocation::Virtual {
            url,
            offset,
            length,
            checksum,
        }) = location("virtual", &[1])
        else {
            panic!("{name}: virtual chunk 1")
        };
        assert_eq!(
            (url.as_str(), offset, length),
            ("http://127.0.0.1:18738/data.bin", 16, 16),
            "{name}"
        );
        assert!(checksum.is_some(), "{name}");
        assert_eq!(location("virtual", &[3]), None, "{name}");
        // Split manifests: the array's chunks are in three manifests.
        let refs = store.snapshot().manifest_refs("/split").unwrap().unwrap();
        assert_eq!(refs.len(), 3, "{name}");
    }
}

/// Reads under way together share a manifest's request: a whole read of an array whose
/// chunks are in three manifests, each chunk's request sent before any manifest came back,
/// fetches each manifest once; a second read fetches none.
#[test]
fn concurrent_reads_fetch_each_manifest_once() {
    let all = read_json(&dir().join("expected.json"));
    let virtuals = virtual_store(&all);
    for name in ["v2", "v1"] {
        let files = store_from_dir(&dir().join(name));
        let slow = Slow::new(&files);
        let store = icechunk_main(&slow, &virtuals);
        let manifests = store
            .snapshot()
            .manifest_refs("/split")
            .unwrap()
            .unwrap()
            .len();
        assert_eq!(manifests, 3, "{name}");
        let reader = open_array(&store, "split");
        files.reset_counts();
        read_whole(&store, &reader);
        assert_eq!(slow.max_in_flight.get(), manifests, "{name}: all at once");
        let fetched: Vec<String> = files
            .log()
            .into_iter()
            .filter(|line| line.contains("manifests/"))
            .collect();
        assert_eq!(fetched.len(), manifests, "{name}: {fetched:?}");
        assert_eq!(store.manifest_loads(), manifests as u64, "{name}");
        files.reset_counts();
        read_whole(&store, &reader);
        assert!(
            files.log().iter().all(|line| !line.contains("manifests/")),
            "{name}: kept"
        );
    }
}

/// A caller that fetches native chunks itself learns where their bytes are; every other
/// value is read through the store.
#[test]
fn native_ranges_name_the_bytes_of_native_chunks_only() {
    let all = read_json(&dir().join("expected.json"));
    let virtuals = virtual_store(&all);
    let files = store_from_dir(&dir().join("v2"));
    let store = icechunk_main(&files, &virtuals);
    let Some(ChunkLocation::Native {
        key,
        offset,
        length,
    }) = block_on(store.chunk_location("group/float64", &[0, 0])).unwrap()
    else {
        panic!("a native chunk")
    };
    let whole = block_on(store.native_range("group/float64/c/0/0", None, u64::MAX))
        .unwrap()
        .unwrap();
    assert_eq!(
        (whole.key.as_str(), whole.offset, whole.length),
        (key.as_str(), offset, length)
    );
    let part = ByteRange::Bounded(8..24);
    let cut = block_on(store.native_range("/group/float64/c/0/0", Some(part), u64::MAX))
        .unwrap()
        .unwrap();
    assert_eq!((cut.offset, cut.length), (offset + 8, 16));
    let fetched =
        block_on(files.get_range(&cut.key, ByteRange::Bounded(cut.offset..cut.offset + 16)));
    let read = block_on(store.get_range("group/float64/c/0/0", ByteRange::Bounded(8..24)));
    assert_eq!(fetched.unwrap(), read.unwrap());
    for other in [
        "zarr.json",
        "group/float64/zarr.json",
        "small_u8/c/0",
        "virtual/c/1",
        "group/missing/c/0/1",
        "nowhere/c/0",
    ] {
        assert_eq!(
            block_on(store.native_range(other, None, u64::MAX)).unwrap(),
            None,
            "{other}"
        );
    }
    let err = block_on(store.native_range("group/float64/c/0/0", None, 8)).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
}

/// Spec version 2 compresses the virtual chunk locations with a dictionary (the generator
/// asks for it); spec version 1 has no such field.
#[test]
fn virtual_locations_are_dictionary_compressed_in_spec_version_2() {
    let limits = Limits::default();
    for (name, compressed) in [("v2", true), ("v1", false)] {
        let files = store_from_dir(&dir().join(name));
        let repo = block_on(Repository::open(&files, &limits)).unwrap();
        let id = block_on(repo.resolve(&files, &RefSpec::default())).unwrap();
        let snapshot = block_on(repo.snapshot(&files, &id)).unwrap();
        let refs = snapshot.manifest_refs("/virtual").unwrap().unwrap();
        assert_eq!(refs.len(), 1, "{name}");
        let key = zom::store::icechunk::manifest_key(&refs[0].id);
        let file = block_on(files.get(&key)).unwrap().unwrap();
        let manifest = zom::store::icechunk::Manifest::parse(&file, &limits).unwrap();
        assert_eq!(
            manifest.location_dictionary().is_some(),
            compressed,
            "{name}"
        );
    }
}

/// Every file of both repositories, cut short at many places and with bytes changed in its
/// decompressed payload: an error or a value, never a panic.
#[test]
fn the_real_files_truncated_or_altered_never_panic() {
    use zom::store::icechunk::{read_file, FileHeader, FileType, Manifest, RepoInfo, Snapshot};
    let limits = Limits::default();
    let mut checked = 0;
    for name in ["v2", "v1"] {
        for (key, path) in common::files_below(&dir().join(name)) {
            let kind = match key.split('/').next().unwrap() {
                "repo" => FileType::RepoInfo,
                "snapshots" => FileType::Snapshot,
                "manifests" => FileType::Manifest,
                _ => continue,
            };
            let file = std::fs::read(path).unwrap();
            let step = (file.len() / 97).max(1);
            for n in (0..file.len()).step_by(step) {
                assert!(
                    read_file(&file[..n], kind, 1 << 20).is_err(),
                    "{name}/{key} cut at {n}"
                );
            }
            let header = FileHeader::parse(&file).unwrap();
            let (_, payload) = read_file(&file, kind, 1 << 20).unwrap();
            let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ payload.len() as u64;
            for round in 0..600 {
                let mut changed = payload.clone();
                if round % 3 == 0 {
                    changed.truncate(round * changed.len() / 600);
                } else {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let at = (seed % changed.len() as u64) as usize;
                    changed[at] = (seed >> 40) as u8;
                }
                match kind {
                    FileType::RepoInfo => {
                        if let Ok(info) = RepoInfo::from_payload(changed, header.spec_version) {
                            let ids: Vec<_> = info.snapshots().map(|s| s.id).collect();
                            for id in ids {
                                let _ = info.ancestry(&id);
                            }
                            let _ = (info.branches(), info.tags(), info.deleted_tags());
                        }
                    }
                    FileType::Snapshot => {
                        if let Ok(s) = Snapshot::from_payload(changed, header.spec_version, &limits)
                        {
                            for node in s.nodes() {
                                let _ = s.manifest_refs(node.path);
                            }
                        }
                    }
                    _ => {
                        if let Ok(m) = Manifest::from_payload(changed) {
                            for node in m.arrays().collect::<Vec<_>>() {
                                for coords in
                                    [[0u32].as_slice(), &[1], &[0, 0], &[1, 1], &[0, 0, 0]]
                                {
                                    let _ = m.lookup(&node, coords);
                                }
                            }
                        }
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} files");
}

/// What the store answers when the files a snapshot points at are missing or short.
#[test]
fn missing_or_short_chunk_files_are_errors_with_their_key() {
    let all = read_json(&dir().join("expected.json"));
    let virtuals = virtual_store(&all);
    let mut files = store_from_dir(&dir().join("v2"));
    let store = icechunk_main(&files, &virtuals);
    let Some(ChunkLocation::Native { key, .. }) =
        block_on(store.chunk_location("group/float64", &[0, 0])).unwrap()
    else {
        panic!("a native chunk")
    };
    drop(store);
    let whole = files.remove(&key).unwrap();
    let open = |files| icechunk_main(files, MemoryStore::new());
    let store = open(&files);
    let err = block_on(store.get("group/float64/c/0/0")).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
    assert_eq!(err.key.as_deref(), Some(key.as_str()), "{err}");
    drop(store);
    files.insert(&key, whole[..whole.len() - 1].to_vec());
    let store = icechunk_main(&files, MemoryStore::new());
    let err = block_on(store.get("group/float64/c/0/0")).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata, "{err}");
    // No virtual store holds the target: the URL is the key of the error.
    let err = block_on(store.get("virtual/c/0")).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
    assert_eq!(
        err.key.as_deref(),
        Some("http://127.0.0.1:18738/data.bin"),
        "{err}"
    );
    // Keys that name no node or chunk.
    assert_eq!(block_on(store.get("nowhere/zarr.json")).unwrap(), None);
    assert_eq!(block_on(store.get("group/float64/c/9/9")).unwrap(), None);
    assert_eq!(block_on(store.get("group/float64/x/0/0")).unwrap(), None);
    // Ranges of metadata and inline chunks, and a listing of the hierarchy.
    let doc = block_on(store.get("zarr.json")).unwrap().unwrap();
    let head = block_on(store.get_range("zarr.json", ByteRange::Bounded(0..5)))
        .unwrap()
        .unwrap();
    assert_eq!(head, doc[..5]);
    let tail = block_on(store.get_range("small_u8/c/0", ByteRange::Suffix(1)))
        .unwrap()
        .unwrap();
    assert_eq!(tail, [127]);
    let listing = block_on(store.list_dir("group")).unwrap().unwrap();
    assert!(
        listing.keys.contains(&"group/zarr.json".to_string()),
        "{listing:?}"
    );
    assert!(
        listing.prefixes.contains(&"group/sharded".to_string()),
        "{listing:?}"
    );
}

/// Spec version 1 refs resolve by name without listing; only listing them needs a store that
/// lists.
#[test]
fn spec_version_1_refs_resolve_without_listing() {
    let limits = Limits::default();
    let mut files = store_from_dir(&dir().join("v1"));
    files.set_listable(false);
    let repo = block_on(Repository::open(&files, &limits)).unwrap();
    assert_eq!(repo.spec_version(), 1);
    assert!(block_on(repo.resolve(&files, &RefSpec::Tag("v1.0".into()))).is_ok());
    let err = block_on(repo.branches(&files)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
    let err = block_on(repo.resolve(&files, &RefSpec::Branch("a/b".into()))).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
    let err = block_on(repo.resolve(&files, &RefSpec::Branch("nope".into()))).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
    let empty = MemoryStore::new();
    let err = block_on(Repository::open(&empty, &limits)).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
}
