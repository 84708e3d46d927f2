//! The readers on hand-built files, valid and hostile: every malformed input is a
//! [`ZomError`](crate::ZomError) with a clear message, never a panic.

use super::build::{file, Builder, Field};
use super::*;
use crate::error::ErrorCode;
use crate::limits::Limits;
use crate::testing::block_on;

fn sid(n: u8) -> [u8; 12] {
    [n; 12]
}

/// A repo info payload: snapshots (id byte, parent index) and branches (name, snapshot index).
fn repo_info(snapshots: &[(u8, i32)], branches: &[(&str, u32)]) -> Vec<u8> {
    use Field::*;
    let mut b = Builder::new();
    let (root, f) = b.table(&[U8(2), Offset, Offset, Offset, Offset]);
    let tags = b.offsets(0);
    b.patch(f[1].unwrap(), tags);
    let list = b.offsets(branches.len());
    b.patch(f[2].unwrap(), list);
    for (i, &(name, index)) in branches.iter().enumerate() {
        let (t, tf) = b.table(&[Offset, U32(index)]);
        b.patch_element(list, i, t);
        let s = b.string(name);
        b.patch(tf[0].unwrap(), s);
    }
    let deleted = b.offsets(0);
    b.patch(f[3].unwrap(), deleted);
    let list = b.offsets(snapshots.len());
    b.patch(f[4].unwrap(), list);
    for (i, &(id, parent)) in snapshots.iter().enumerate() {
        let (t, tf) = b.table(&[Inline(sid(id).to_vec()), I32(parent), U64(7), Offset]);
        b.patch_element(list, i, t);
        let s = b.string("a commit");
        b.patch(tf[3].unwrap(), s);
    }
    b.finish(root)
}

#[test]
fn repo_info_refs_and_ancestry() {
    let info = RepoInfo::from_payload(
        repo_info(&[(1, -1), (2, 0), (3, 1)], &[("dev", 1), ("main", 2)]),
        2,
    )
    .unwrap();
    let main = info.branch("main").unwrap();
    assert_eq!(main.0, sid(3));
    assert_eq!(info.branches().len(), 2);
    let ancestry: Vec<_> = info
        .ancestry(&main)
        .unwrap()
        .iter()
        .map(|s| s.id.0[0])
        .collect();
    assert_eq!(ancestry, [3, 2, 1]);
    assert_eq!(info.snapshot(&main).unwrap().message, "a commit");
    // Through the whole file, header and zstd included.
    let whole = RepoInfo::parse(
        &file(2, 6, &repo_info(&[(1, -1)], &[("main", 0)])),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(whole.branch("main").unwrap().0, sid(1));
}

#[test]
fn a_looping_ancestry_is_refused() {
    let info =
        RepoInfo::from_payload(repo_info(&[(1, 2), (2, 0), (3, 1)], &[("main", 2)]), 2).unwrap();
    let err = info.ancestry(&info.branch("main").unwrap()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
    assert!(err.message.contains("loops"), "{err}");
}

#[test]
fn repo_info_indexes_out_of_range_are_refused() {
    let err = RepoInfo::from_payload(repo_info(&[(1, 5)], &[("main", 0)]), 2).unwrap_err();
    assert!(err.message.contains("parent index 5"), "{err}");
    let err = RepoInfo::from_payload(repo_info(&[(1, -1)], &[("main", 3)]), 2).unwrap_err();
    assert!(err.message.contains("points at snapshot 3"), "{err}");
    let err =
        RepoInfo::from_payload(repo_info(&[(2, -1), (1, -1)], &[("main", 0)]), 2).unwrap_err();
    assert!(err.message.contains("not sorted"), "{err}");
    let err =
        RepoInfo::from_payload(repo_info(&[(1, -1)], &[("main", 0), ("dev", 0)]), 2).unwrap_err();
    assert!(err.message.contains("not sorted"), "{err}");
}

/// An array's manifests: (id byte, extents per dimension).
type Manifests<'a> = &'a [(u8, &'a [(u32, u32)])];

/// A snapshot payload: nodes (path, manifests of an array or `None` for a group).
fn snapshot(nodes: &[(&str, Option<Manifests<'_>>)]) -> Vec<u8> {
    snapshot_of(9, None, nodes)
}

/// A snapshot payload of id 12 × `id`, with a parent id (spec version 1) when given.
fn snapshot_of(id: u8, parent: Option<u8>, nodes: &[(&str, Option<Manifests<'_>>)]) -> Vec<u8> {
    use Field::*;
    let mut b = Builder::new();
    let fields = [
        Inline(sid(id).to_vec()),
        parent.map_or(Absent, |p| Inline(sid(p).to_vec())),
        Offset,
        U64(1),
        Offset,
        Offset,
        Offset,
    ];
    let (root, f) = b.table(&fields);
    let list = b.offsets(nodes.len());
    b.patch(f[2].unwrap(), list);
    for (i, &(path, array)) in nodes.iter().enumerate() {
        let kind = if array.is_some() { 1 } else { 2 };
        let (t, tf) = b.table(&[Inline(vec![i as u8; 8]), Offset, Offset, U8(kind), Offset]);
        b.patch_element(list, i, t);
        let s = b.string(path);
        b.patch(tf[1].unwrap(), s);
        let doc = b.vector(2, b"{}");
        b.patch(tf[2].unwrap(), doc);
        match array {
            None => {
                let (g, _) = b.table(&[]);
                b.patch(tf[4].unwrap(), g);
            }
            Some(manifests) => {
                let (a, af) = b.table(&[Offset, Absent, Offset]);
                b.patch(tf[4].unwrap(), a);
                let shape = b.vector(0, &[]);
                b.patch(af[0].unwrap(), shape);
                let refs = b.offsets(manifests.len());
                b.patch(af[2].unwrap(), refs);
                for (j, &(id, extents)) in manifests.iter().enumerate() {
                    let (m, mf) = b.table(&[Inline(sid(id).to_vec()), Offset]);
                    b.patch_element(refs, j, m);
                    let bytes: Vec<u8> = extents
                        .iter()
                        .flat_map(|&(a, z)| [a.to_le_bytes(), z.to_le_bytes()].concat())
                        .collect();
                    let e = b.vector(extents.len() as u32, &bytes);
                    b.patch(mf[1].unwrap(), e);
                }
            }
        }
    }
    let message = b.string("a commit");
    b.patch(f[4].unwrap(), message);
    let metadata = b.offsets(0);
    b.patch(f[5].unwrap(), metadata);
    let files = b.vector(0, &[]);
    b.patch(f[6].unwrap(), files);
    b.finish(root)
}

#[test]
fn snapshot_nodes_and_manifest_refs() {
    let limits = Limits::default();
    let payload = snapshot(&[
        ("/", None),
        ("/a", Some(&[(4, &[(0, 2)]), (5, &[(2, 4)])])),
        ("/a-b", None),
    ]);
    let s = Snapshot::from_payload(payload.clone(), 2, &limits).unwrap();
    assert_eq!(
        s.nodes().map(|n| n.path).collect::<Vec<_>>(),
        ["/", "/a", "/a-b"]
    );
    assert_eq!(s.node("/a").unwrap().kind, NodeKind::Array);
    assert_eq!(s.node("/").unwrap().zarr_json, b"{}");
    let refs = s.manifest_refs("/a").unwrap().unwrap();
    assert_eq!(refs.iter().find(|r| r.covers(&[3])).unwrap().id.0, sid(5));
    assert!(s.manifest_refs("/").unwrap().is_none());
    let whole = Snapshot::parse(&file(2, 1, &payload), &limits).unwrap();
    assert_eq!(whole.id().0, sid(9));
    let err = Snapshot::parse(&file(2, 2, &payload), &limits).unwrap_err();
    assert!(err.message.contains("expected a snapshot"), "{err}");
}

#[test]
fn a_node_twice_or_out_of_order_is_refused() {
    let limits = Limits::default();
    for nodes in [vec!["/", "/a", "/a"], vec!["/", "/b", "/a"]] {
        let nodes: Vec<_> = nodes.into_iter().map(|p| (p, None)).collect();
        let err = Snapshot::from_payload(snapshot(&nodes), 2, &limits).unwrap_err();
        assert!(err.message.contains("not sorted by path"), "{err}");
    }
    for bad in ["a", "/a/", "//a", "/a/../b", "/."] {
        let err = Snapshot::from_payload(snapshot(&[(bad, None)]), 2, &limits).unwrap_err();
        assert!(err.message.contains("not a node path"), "{bad}: {err}");
    }
    let few = Limits {
        max_nodes: 2,
        ..Limits::default()
    };
    let err = Snapshot::from_payload(
        snapshot(&[("/", None), ("/a", None), ("/b", None)]),
        2,
        &few,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
}

/// A chunk reference to build.
enum Ref {
    Inline(&'static [u8]),
    Native(u64, u64),
    Virtual(&'static str, u64, u64),
    Compressed(Vec<u8>),
    Nothing,
}

/// A manifest payload: one array (node id 8 × `node`) with `refs` at their coordinates.
fn manifest(node: u8, refs: &[(&[u32], Ref)], dictionary: Option<&[u8]>) -> Vec<u8> {
    use Field::*;
    let mut b = Builder::new();
    let (root, f) = b.table(&[
        Inline(sid(5).to_vec()),
        Offset,
        if dictionary.is_some() { Offset } else { Absent },
    ]);
    let arrays = b.offsets(1);
    b.patch(f[1].unwrap(), arrays);
    let (a, af) = b.table(&[Inline(vec![node; 8]), Offset]);
    b.patch_element(arrays, 0, a);
    let list = b.offsets(refs.len());
    b.patch(af[1].unwrap(), list);
    for (i, (coords, r)) in refs.iter().enumerate() {
        let (offset, length) = match r {
            Ref::Native(o, l) | Ref::Virtual(_, o, l) => (*o, *l),
            Ref::Compressed(_) => (0, 4),
            _ => (0, 0),
        };
        let fields = [
            Offset,
            if matches!(r, Ref::Inline(_)) {
                Offset
            } else {
                Absent
            },
            U64(offset),
            U64(length),
            if matches!(r, Ref::Native(..)) {
                Inline(sid(7).to_vec())
            } else {
                Absent
            },
            if matches!(r, Ref::Virtual(..)) {
                Offset
            } else {
                Absent
            },
            Absent,
            U32(if matches!(r, Ref::Virtual(..)) {
                1_700_000_000
            } else {
                0
            }),
            if matches!(r, Ref::Compressed(_)) {
                Offset
            } else {
                Absent
            },
        ];
        let (t, tf) = b.table(&fields);
        b.patch_element(list, i, t);
        let index: Vec<u8> = coords.iter().flat_map(|c| c.to_le_bytes()).collect();
        let v = b.vector(coords.len() as u32, &index);
        b.patch(tf[0].unwrap(), v);
        match r {
            Ref::Inline(bytes) => {
                let v = b.vector(bytes.len() as u32, bytes);
                b.patch(tf[1].unwrap(), v);
            }
            Ref::Virtual(url, ..) => {
                let s = b.string(url);
                b.patch(tf[5].unwrap(), s);
            }
            Ref::Compressed(bytes) => {
                let v = b.vector(bytes.len() as u32, bytes);
                b.patch(tf[8].unwrap(), v);
            }
            _ => {}
        }
    }
    if let Some(d) = dictionary {
        let v = b.vector(d.len() as u32, d);
        b.patch(f[2].unwrap(), v);
    }
    b.finish(root)
}

#[test]
fn manifest_lookups() {
    let dictionary = b"s3://bucket/some/long/prefix/of/virtual/files/".repeat(4);
    let compressed = zstd::bulk::Compressor::with_dictionary(3, &dictionary)
        .unwrap()
        .compress(b"s3://bucket/some/long/prefix/of/virtual/files/f.nc")
        .unwrap();
    let refs = [
        (&[0u32, 0][..], Ref::Inline(b"abc")),
        (&[0, 1][..], Ref::Native(10, 20)),
        (&[1, 0][..], Ref::Virtual("https://example.org/a.nc", 5, 6)),
        (&[2, 0][..], Ref::Compressed(compressed)),
    ];
    let m = Manifest::from_payload(manifest(3, &refs, Some(&dictionary))).unwrap();
    let node = NodeId::from_slice(&[3; 8]).unwrap();
    assert_eq!(m.len(&node).unwrap(), 4);
    assert_eq!(
        m.lookup(&node, &[0, 0]).unwrap(),
        Some(ChunkRef::Inline(b"abc".to_vec()))
    );
    assert!(matches!(
        m.lookup(&node, &[0, 1]).unwrap(),
        Some(ChunkRef::Native {
            offset: 10,
            length: 20,
            ..
        })
    ));
    let Some(ChunkRef::Virtual {
        location, checksum, ..
    }) = m.lookup(&node, &[1, 0]).unwrap()
    else {
        panic!()
    };
    assert_eq!(
        (location.as_str(), checksum),
        (
            "https://example.org/a.nc",
            Some(Checksum::LastModified(1_700_000_000))
        )
    );
    let Some(ChunkRef::Virtual { location, .. }) = m.lookup(&node, &[2, 0]).unwrap() else {
        panic!()
    };
    assert_eq!(
        location,
        "s3://bucket/some/long/prefix/of/virtual/files/f.nc"
    );
    assert_eq!(m.lookup(&node, &[1, 1]).unwrap(), None);
    assert_eq!(m.lookup(&node, &[0]).unwrap(), None);
    assert_eq!(
        m.lookup(&NodeId::from_slice(&[4; 8]).unwrap(), &[0, 0])
            .unwrap(),
        None
    );
}

#[test]
fn malformed_chunk_references_are_refused() {
    let node = NodeId::from_slice(&[3; 8]).unwrap();
    let cases: [(Ref, &str); 4] = [
        (Ref::Native(5, 0), "length zero"),
        (Ref::Native(u64::MAX, 2), "overflows"),
        (Ref::Nothing, "neither inline"),
        (Ref::Compressed(vec![1, 2, 3]), "no dictionary"),
    ];
    for (r, why) in cases {
        let m = Manifest::from_payload(manifest(3, &[(&[0], r)], None)).unwrap();
        let err = m.lookup(&node, &[0]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidMetadata);
        assert!(err.message.contains(why), "{why}: {err}");
    }
}

#[test]
fn a_manifest_claiming_a_billion_chunks_is_refused() {
    let mut payload = manifest(3, &[(&[0], Ref::Native(0, 4))], None);
    // The refs vector: the one whose count is 1 right before a table offset; set it to 10^9.
    let root = Manifest::from_payload(payload.clone()).unwrap();
    assert_eq!(root.len(&NodeId::from_slice(&[3; 8]).unwrap()).unwrap(), 1);
    let count_at = (0..payload.len() - 8)
        .filter(|&i| payload[i..i + 4] == 1u32.to_le_bytes())
        .nth(1)
        .unwrap();
    payload[count_at..count_at + 4].copy_from_slice(&1_000_000_000u32.to_le_bytes());
    let err = Manifest::from_payload(payload).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
    assert!(err.message.contains("claims 1000000000 elements"), "{err}");
}

/// Every prefix and many one-byte changes of each file kind: errors, never a panic, and
/// whatever parses can be read from without one.
#[test]
fn truncated_and_altered_files_never_panic() {
    let limits = Limits::default();
    let payloads = [
        (6u8, repo_info(&[(1, -1), (2, 0)], &[("main", 1)])),
        (1, snapshot(&[("/", None), ("/a", Some(&[(4, &[(0, 2)])]))])),
        (
            2,
            manifest(
                0,
                &[
                    (&[0, 0], Ref::Inline(b"abc")),
                    (&[1, 0], Ref::Virtual("x://y", 1, 2)),
                ],
                None,
            ),
        ),
    ];
    let exercise = |kind: u8, payload: Vec<u8>| match kind {
        6 => {
            if let Ok(info) = RepoInfo::from_payload(payload, 2) {
                for s in info.snapshots().map(|s| s.id).collect::<Vec<_>>() {
                    let _ = info.ancestry(&s);
                }
            }
        }
        1 => {
            if let Ok(s) = Snapshot::from_payload(payload, 2, &limits) {
                for n in s.nodes() {
                    let _ = s.manifest_refs(n.path);
                }
            }
        }
        _ => {
            if let Ok(m) = Manifest::from_payload(payload) {
                for node in m.arrays().collect::<Vec<_>>() {
                    let _ = m.lookup(&node, &[0, 0]);
                    let _ = m.lookup(&node, &[1, 0]);
                }
            }
        }
    };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (kind, payload) in payloads {
        let whole = file(2, kind, &payload);
        for n in 0..whole.len() {
            assert!(read_file(&whole[..n], FileType::from_code(kind).unwrap(), 1 << 20).is_err());
        }
        for n in 0..payload.len() {
            exercise(kind, payload[..n].to_vec());
        }
        for _ in 0..4000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut changed = payload.clone();
            let at = (seed % changed.len() as u64) as usize;
            changed[at] = (seed >> 32) as u8;
            exercise(kind, changed);
        }
    }
}

/// Spec version 1 keeps parents in the snapshots: a chain that comes back to a snapshot
/// already seen is refused, naming the snapshot file.
#[test]
fn a_looping_spec_version_1_ancestry_is_refused() {
    let limits = Limits::default();
    let mut store = crate::store::MemoryStore::new();
    for (id, parent) in [
        (1, Some(2)),
        (2, Some(3)),
        (3, Some(1)),
        (4, None),
        (5, Some(4)),
    ] {
        let key = snapshot_key(&SnapshotId::from_slice(&sid(id)).unwrap());
        store.insert(&key, file(1, 1, &snapshot_of(id, parent, &[("/", None)])));
    }
    store.insert(
        "refs/branch.main/ref.json",
        format!("{{\"snapshot\":\"{}\"}}", ObjectId(sid(1))).into_bytes(),
    );
    let repo = block_on(Repository::open(&store, &limits)).unwrap();
    assert_eq!(repo.spec_version(), 1);
    let tip = block_on(repo.resolve(&store, &RefSpec::default())).unwrap();
    let err = block_on(repo.ancestry(&store, &tip)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata);
    assert!(err.message.contains("loops"), "{err}");
    assert!(
        err.key
            .as_deref()
            .is_some_and(|k| k.starts_with("snapshots/")),
        "{err:?}"
    );
    let five = SnapshotId::from_slice(&sid(5)).unwrap();
    let chain = block_on(repo.ancestry(&store, &five)).unwrap();
    assert_eq!(chain.iter().map(|id| id.0[0]).collect::<Vec<_>>(), [5, 4]);
    // A snapshot file holding another snapshot than its name says.
    let six = SnapshotId::from_slice(&sid(6)).unwrap();
    store.insert(&snapshot_key(&six), file(1, 1, &snapshot_of(4, None, &[])));
    let err = block_on(repo.snapshot(&store, &six)).unwrap_err();
    assert!(err.message.contains("holds snapshot"), "{err}");
}

#[test]
fn v1_ref_files_give_their_snapshot_or_say_what_is_wrong() {
    let id = SnapshotId::from_slice(&sid(7)).unwrap();
    let text = format!(r#"{{"snapshot": "{id}"}}"#);
    assert_eq!(parse_v1_ref(text.as_bytes()).unwrap(), id);
    for (bytes, why) in [
        (&b"{\"snapshot\": 5}"[..], "its snapshot is not a string"),
        (b"{\"id\": \"x\"}", "it has no snapshot"),
        (b"[1]", "it is not an object"),
        (b"{\"snapshot\": ", "invalid JSON at line 1, column 13"),
    ] {
        let e = parse_v1_ref(bytes).unwrap_err();
        assert!(
            e.message.contains("a ref file is not {\"snapshot\": id}") && e.message.contains(why),
            "{}",
            e.message
        );
    }
}
