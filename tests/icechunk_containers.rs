//! Virtual chunk containers and checksums of Icechunk repositories as icechunk-python 2.3.0
//! writes them (tests/fixtures/icechunk: generate.py's repositories, and containers.py's,
//! whose configurations declare containers of every kind): the containers zom reads are those
//! icechunk reads, in both spec versions; a virtual chunk outside them is refused before it is
//! requested; the caller can replace or add containers; a hostile configuration is an error;
//! checksums are verified by a validated reader.

mod common;

use common::store::{block_on, icechunk_main, open_array, read_whole, store_from_dir};
use common::values::encode_all;
use common::{fixtures, read_json};
use serde_json::{json, Value};
use std::cell::RefCell;
use zom::store::icechunk::{
    Checksum, ChunkLocation, ContainerStore, IcechunkStore, RefSpec, Repository, ValidatedRead,
    Validators, VirtualChunkContainer, CONFIG_KEY, HEADER_LEN, REPO_KEY,
};
use zom::store::{ByteRange, MemoryStore, Store};
use zom::{ErrorCode, Limits, Result, ZomError};

const PREFIX: &str = "http://127.0.0.1:18738/";
const DATA: &str = "http://127.0.0.1:18738/data.bin";

fn dir() -> std::path::PathBuf {
    fixtures().join("icechunk")
}

fn raw() -> Vec<u8> {
    std::fs::read(dir().join("raw/data.bin")).unwrap()
}

/// raw/data.bin at the URLs the virtual chunks are fetched from (`s3://pathstyle/data.bin`
/// at the raw server's endpoint, path style).
fn virtual_store() -> MemoryStore {
    let path_style = format!("{PREFIX}pathstyle/data.bin");
    MemoryStore::from_entries([(DATA.to_string(), raw()), (path_style, raw())])
}

fn described(containers: &[VirtualChunkContainer]) -> Value {
    containers
        .iter()
        .map(|c| json!({"url_prefix": c.url_prefix(), "name": c.name(), "store": c.store().name()}))
        .collect()
}

#[test]
fn every_kind_of_container_reads_as_icechunk_reads_it() {
    let expected = read_json(&dir().join("containers/expected.json"));
    let virtuals = virtual_store();
    for name in ["v2", "v1"] {
        let want = &expected["repositories"][name];
        let files = store_from_dir(&dir().join("containers").join(name));
        let repo = block_on(Repository::open(&files, &Limits::default())).unwrap();
        assert_eq!(
            described(repo.virtual_chunk_containers()),
            want["containers"],
            "{name}"
        );
        // `rel`: chunks 0 and 2 at `vcc://raw/data.bin`, chunk 1 by URL with an ETag.
        let store = icechunk_main(&files, &virtuals);
        let Some(ChunkLocation::Virtual { url, checksum, .. }) =
            block_on(store.chunk_location("rel", &[0])).unwrap()
        else {
            panic!("{name}: a virtual chunk")
        };
        assert_eq!((url.as_str(), checksum), (DATA, None), "{name}");
        let Some(ChunkLocation::Virtual { checksum, .. }) =
            block_on(store.chunk_location("rel", &[1])).unwrap()
        else {
            panic!("{name}: a virtual chunk")
        };
        assert_eq!(checksum, Some(Checksum::ETag("abc".into())), "{name}");
        for array in ["rel", "s3"] {
            let reader = open_array(&store, array);
            let got = read_whole(&store, &reader);
            let values = Value::Array(encode_all(reader.data_type(), &got.data));
            assert_eq!(values, want[array], "{name} {array}");
        }
        // `s3`: in the S3-compatible container at the raw server's endpoint, path style.
        let Some(ChunkLocation::Virtual { url, .. }) =
            block_on(store.chunk_location("s3", &[0])).unwrap()
        else {
            panic!("{name}: a virtual chunk")
        };
        assert_eq!(url, "s3://pathstyle/data.bin", "{name}");
    }
}

/// Each container's objects are fetched where icechunk reaches them: an S3 container at its
/// region's endpoint, an S3-compatible one at its own `endpoint_url` (containers.py's
/// settings), Tigris at its default endpoint; the others at their public HTTPS URLs.
#[test]
fn s3_containers_are_reached_at_their_endpoints() {
    for name in ["v2", "v1"] {
        let files = store_from_dir(&dir().join("containers").join(name));
        let repo = block_on(Repository::open(&files, &Limits::default())).unwrap();
        let containers = repo.virtual_chunk_containers();
        let fetched = |url: &str| {
            let container = containers
                .iter()
                .find(|c| c.contains(url))
                .unwrap_or_else(|| panic!("{name}: no container holds {url}"));
            container.object_url(url)
        };
        for (url, want) in [
            (
                "s3://my-bucket/data/a/x.nc",
                Some("https://my-bucket.s3.us-east-1.amazonaws.com/data/a/x.nc"),
            ),
            (
                "s3://compat/a/x.nc",
                Some("https://compat.minio.example:9000/a/x.nc"),
            ),
            ("s3://tig/x.nc", Some("https://tig.t3.storage.dev/x.nc")),
            ("tigris://tb/x.nc", Some("https://tb.t3.storage.dev/x.nc")),
            (
                "gs://gbucket/x.nc",
                Some("https://storage.googleapis.com/gbucket/x.nc"),
            ),
            (
                "https://example.com/null/x.nc",
                Some("https://example.com/null/x.nc"),
            ),
            ("az://container/x.nc", None),
            ("file:///tmp/data/x.nc", None),
        ] {
            assert_eq!(fetched(url).as_deref(), want, "{name}: {url}");
        }
    }
}

#[test]
fn the_fixture_repositories_declare_their_container() {
    for name in ["v2", "v1"] {
        let files = store_from_dir(&dir().join(name));
        let repo = block_on(Repository::open(&files, &Limits::default())).unwrap();
        let want = json!([{"url_prefix": PREFIX, "name": null, "store": "http"}]);
        assert_eq!(described(repo.virtual_chunk_containers()), want, "{name}");
    }
}

/// The repository `name` with its configuration's container moved to port 18739, the virtual
/// chunks still at 18738: in spec version 1 config.yaml edited, in spec version 2 the repo
/// file's payload edited and stored uncompressed.
fn moved_container(name: &str) -> MemoryStore {
    let mut files = store_from_dir(&dir().join(name));
    let moved = |bytes: &[u8]| {
        let text = bytes.to_vec();
        let (from, to) = (PREFIX.as_bytes(), b"http://127.0.0.1:18739/".as_slice());
        let mut out = Vec::new();
        let mut at = 0;
        while at < text.len() {
            if text[at..].starts_with(from) {
                out.extend_from_slice(to);
                at += from.len();
            } else {
                out.push(text[at]);
                at += 1;
            }
        }
        assert_ne!(out, text);
        out
    };
    if name == "v1" {
        let yaml = block_on(files.get(CONFIG_KEY)).unwrap().unwrap();
        files.insert(CONFIG_KEY, moved(&yaml));
    } else {
        let file = block_on(files.get(REPO_KEY)).unwrap().unwrap();
        let payload = zstd::decode_all(&file[HEADER_LEN..]).unwrap();
        let mut edited = file[..HEADER_LEN].to_vec();
        edited[HEADER_LEN - 1] = 0;
        edited.extend(moved(&payload));
        files.insert(REPO_KEY, edited);
    }
    files
}

fn assert_refused(err: &ZomError, url: &str, what: &str) {
    assert_eq!(err.code, ErrorCode::InvalidMetadata, "{what}: {err}");
    assert_eq!(err.path.as_deref(), Some("virtual"), "{what}: {err}");
    assert_eq!(err.key.as_deref(), Some("virtual/c/0"), "{what}: {err}");
    assert!(err.message.contains(url), "{what}: {err}");
}

#[test]
fn a_virtual_chunk_outside_the_containers_is_refused_before_any_request() {
    let virtuals = virtual_store();
    for name in ["v2", "v1"] {
        let files = moved_container(name);
        let store = icechunk_main(&files, &virtuals);
        let declared = described(store.virtual_chunk_containers().unwrap());
        assert_eq!(
            declared[0]["url_prefix"], "http://127.0.0.1:18739/",
            "{name}"
        );
        virtuals.reset_counts();
        let err = block_on(store.get("virtual/c/0")).unwrap_err();
        assert_refused(&err, DATA, name);
        assert!(
            err.message.contains("http://127.0.0.1:18739/"),
            "{name}: {err}"
        );
        assert_eq!(virtuals.counts().total(), 0, "{name}");
        // Native and inline chunks are read as before.
        assert!(block_on(store.get("group/float64/c/0/0"))
            .unwrap()
            .is_some());
        assert!(block_on(store.get("small_u8/c/0")).unwrap().is_some());
    }
}

#[test]
fn the_caller_replaces_or_adds_containers() {
    let virtuals = virtual_store();
    let files = store_from_dir(&dir().join("v2"));
    let limits = Limits::default();
    let store = icechunk_main(&files, &virtuals);
    let chunk = raw()[32..48].to_vec();
    assert_eq!(
        block_on(store.get("virtual/c/0")).unwrap(),
        Some(chunk.clone())
    );
    let mut store = store.with_virtual_chunk_containers(Vec::new());
    virtuals.reset_counts();
    let err = block_on(store.get("virtual/c/0")).unwrap_err();
    assert_refused(&err, DATA, "none");
    assert!(err.message.contains("no virtual chunk container"), "{err}");
    assert_eq!(virtuals.counts().total(), 0);
    let elsewhere =
        VirtualChunkContainer::new("http://127.0.0.1:18738/other", ContainerStore::Http);
    store.add_virtual_chunk_container(elsewhere.unwrap());
    assert!(block_on(store.get("virtual/c/0")).is_err());
    let here = VirtualChunkContainer::new(PREFIX, ContainerStore::Http).unwrap();
    store.add_virtual_chunk_container(here);
    assert_eq!(block_on(store.get("virtual/c/0")).unwrap(), Some(chunk));
    assert_eq!(store.virtual_chunk_containers().unwrap().len(), 2);

    // A store made from a snapshot alone knows no container: it reads every URL, and cannot
    // resolve a location relative to a named container.
    let files = store_from_dir(&dir().join("containers/v1"));
    let repo = block_on(Repository::open(&files, &limits)).unwrap();
    let id = block_on(repo.resolve(&files, &RefSpec::default())).unwrap();
    let snapshot = block_on(repo.snapshot(&files, &id)).unwrap();
    let store = IcechunkStore::new(&files, &virtuals, snapshot, &limits);
    assert!(store.virtual_chunk_containers().is_none());
    assert_eq!(
        block_on(store.get("rel/c/1")).unwrap(),
        Some(raw()[16..32].to_vec())
    );
    virtuals.reset_counts();
    let err = block_on(store.get("rel/c/0")).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata, "{err}");
    assert!(err.message.contains("container named 'raw'"), "{err}");
    assert_eq!(virtuals.counts().total(), 0);
    let store = store.with_virtual_chunk_containers(repo.virtual_chunk_containers().to_vec());
    assert_eq!(
        block_on(store.get("rel/c/0")).unwrap(),
        Some(raw()[32..48].to_vec())
    );
}

#[test]
fn a_hostile_config_yaml_is_an_error_never_a_panic() {
    let limits = Limits::default();
    let head = "inline_chunk_threshold_bytes: 64\nvirtual_chunk_containers:\n";
    let deep = format!("{head}  {}x\n", "- ".repeat(200_000));
    let mut huge = String::from(head);
    for i in 0..2000 {
        huge.push_str(&format!(
            "  s3://b{i}/:\n    url_prefix: s3://b{i}/\n    store: !s3 {{}}\n"
        ));
    }
    let small = Limits {
        max_nodes: 1000,
        ..limits
    };
    for (text, limits, code) in [
        (deep, limits, ErrorCode::InvalidMetadata),
        (huge, small, ErrorCode::LimitExceeded),
        (format!("{head}  {{\n"), limits, ErrorCode::InvalidMetadata),
        (
            format!("{head}  a: 'open\n"),
            limits,
            ErrorCode::InvalidMetadata,
        ),
    ] {
        let mut files = store_from_dir(&dir().join("v1"));
        files.insert(CONFIG_KEY, text.into_bytes());
        let err = block_on(Repository::open(&files, &limits)).unwrap_err();
        assert_eq!(err.code, code, "{err}");
        assert_eq!(err.key.as_deref(), Some(CONFIG_KEY), "{err}");
        let opened = block_on(IcechunkStore::open(
            &files,
            MemoryStore::new(),
            &RefSpec::default(),
            &limits,
        ));
        assert_eq!(opened.err().map(|e| e.code), Some(code));
    }
}

/// A validated reader over a store, recording what it was asked; its answers carry the
/// validators of an object that did or did not change since the references were written.
struct Validated<'a> {
    store: &'a MemoryStore,
    asked: RefCell<Vec<String>>,
    changed: bool,
}

impl ValidatedRead for Validated<'_> {
    async fn get_range_validated(
        &self,
        url: &str,
        range: ByteRange,
    ) -> Result<Option<(Vec<u8>, Validators)>> {
        self.asked.borrow_mut().push(url.to_string());
        let (etag, last_modified) = if self.changed {
            ("\"abd\"", "Sat, 01 Jan 2101 00:00:00 GMT")
        } else {
            ("\"abc\"", "Fri, 01 Jan 2100 00:00:00 GMT")
        };
        let seen = Validators {
            etag: Some(etag.to_string()),
            last_modified: Some(last_modified.to_string()),
        };
        Ok(self.store.get_range(url, range).await?.map(|b| (b, seen)))
    }
}

#[test]
fn checksums_are_verified_by_a_validated_reader() {
    let virtuals = virtual_store();
    for (repo, path, want) in [
        ("v2", "virtual", Checksum::LastModified(4_102_444_800)),
        ("v1", "virtual", Checksum::LastModified(4_102_444_800)),
        ("containers/v2", "rel", Checksum::ETag("abc".into())),
    ] {
        let files = store_from_dir(&dir().join(repo));
        for changed in [false, true] {
            let validated = Validated {
                store: &virtuals,
                asked: RefCell::new(Vec::new()),
                changed,
            };
            let store = icechunk_main(&files, &virtuals).with_validated_reads(&validated);
            let Some(ChunkLocation::Virtual { checksum, .. }) =
                block_on(store.chunk_location(path, &[1])).unwrap()
            else {
                panic!("{repo}: a virtual chunk")
            };
            assert_eq!(checksum, Some(want.clone()), "{repo}");
            // Chunk 0 records no checksum: read from the virtual store.
            assert!(block_on(store.get(&format!("{path}/c/0")))
                .unwrap()
                .is_some());
            assert!(validated.asked.borrow().is_empty(), "{repo}");
            let got = block_on(store.get(&format!("{path}/c/1")));
            assert_eq!(*validated.asked.borrow(), [DATA.to_string()], "{repo}");
            match got {
                Ok(bytes) => {
                    assert!(!changed, "{repo}");
                    assert_eq!(bytes, Some(raw()[16..32].to_vec()), "{repo}");
                }
                Err(err) => {
                    assert!(changed, "{repo}: {err}");
                    assert_eq!(err.code, ErrorCode::ChecksumMismatch, "{repo}");
                    assert_eq!(err.key.as_deref(), Some(DATA), "{repo}: {err}");
                }
            }
        }
    }
}
