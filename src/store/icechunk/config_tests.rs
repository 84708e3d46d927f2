//! The configuration readers (FlexBuffers, YAML) and the container rules on hand-built and
//! real configurations, valid and hostile: every malformed input is a clear error, never a
//! panic, and counts and sizes are refused before what they count is copied.

use super::build::{file, Builder, Field, Flex, FlexBuilder};
use super::config::{container_of, sort_containers};
use super::yaml::{self, Node, Yaml};
use super::*;
use crate::error::ErrorCode;
use crate::limits::Limits;

fn fixture(path: &str) -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/icechunk");
    std::fs::read(dir.join(path)).unwrap()
}

/// A container entry: (url_prefix, name, store kind: a newtype variant, or a unit variant
/// when it starts with '=').
type Spec<'a> = (&'a str, Option<&'a str>, &'a str);

/// A configuration in FlexBuffers, as icechunk serializes it, with `containers`.
fn flex_config(containers: &[Spec<'_>]) -> Vec<u8> {
    let mut b = FlexBuilder::new();
    let mut entries = Vec::new();
    for &(prefix, name, kind) in containers {
        let url = b.string(prefix);
        let name = match name {
            Some(n) => b.string(n),
            None => Flex::Null,
        };
        let store = match kind.strip_prefix('=') {
            Some(unit) => b.string(unit),
            None => {
                let options = b.map(&[]);
                b.map(&[(kind, options)])
            }
        };
        let container = b.map(&[("name", name), ("url_prefix", url), ("store", store)]);
        entries.push((prefix, container));
    }
    let map = b.map(&entries);
    let threshold = b.string("ignored");
    let root = b.map(&[
        ("inline_chunk_threshold_bytes", threshold),
        ("virtual_chunk_containers", map),
        ("manifest", Flex::Null),
    ]);
    b.finish(root)
}

fn prefixes(containers: &[VirtualChunkContainer]) -> Vec<(&str, Option<&str>, &str)> {
    containers
        .iter()
        .map(|c| (c.url_prefix(), c.name(), c.store().name()))
        .collect()
}

#[test]
fn flexbuffers_containers_sorted_and_checked_as_icechunk_checks_them() {
    let config = flex_config(&[
        ("s3://bucket/data/", None, "s3"),
        ("https://example.com/a", Some("web"), "http"),
        ("gs://g/", None, "s3"),
        ("https:///nohost/", None, "http"),
        ("mem://x/", None, "=in_memory"),
        ("file:///tmp/d/", None, "local_file_system"),
        ("ftp://h/", None, "ftp"),
    ]);
    let got = containers_of_repo_config(&config, &Limits::default()).unwrap();
    assert_eq!(
        prefixes(&got),
        [
            ("file:///tmp/d/", None, "local_file_system"),
            ("https://example.com/a/", Some("web"), "http"),
            ("s3://bucket/data/", None, "s3"),
        ]
    );
    let none = FlexBuilder::new();
    let root = {
        let mut b = none;
        let r = b.map(&[("virtual_chunk_containers", Flex::Null)]);
        b.finish(r)
    };
    assert!(containers_of_repo_config(&root, &Limits::default())
        .unwrap()
        .is_empty());
}

#[test]
fn flexbuffers_of_the_wrong_shape_are_refused() {
    let limits = Limits::default();
    let shaped = |build: &dyn Fn(&mut FlexBuilder) -> Flex| {
        let mut b = FlexBuilder::new();
        let root = build(&mut b);
        containers_of_repo_config(&b.finish(root), &limits).unwrap_err()
    };
    let err = shaped(&|b| b.string("a string"));
    assert!(err.message.contains("a string, not a map"), "{err}");
    let err = shaped(&|b| {
        let s = b.string("x");
        b.map(&[("virtual_chunk_containers", s)])
    });
    assert!(err.message.contains("is a string"), "{err}");
    let err = shaped(&|b| {
        let s = b.string("x");
        let m = b.map(&[("s3://b/", s)]);
        b.map(&[("virtual_chunk_containers", m)])
    });
    assert!(err.message.contains("a container is a string"), "{err}");
    let err = shaped(&|b| {
        let inner = b.map(&[]);
        let c = b.map(&[("url_prefix", inner)]);
        let m = b.map(&[("s3://b/", c)]);
        b.map(&[("virtual_chunk_containers", m)])
    });
    assert!(err.message.contains("'url_prefix' is a map"), "{err}");
    let err = shaped(&|b| {
        let url = b.string("s3://b/");
        let c = b.map(&[("url_prefix", url)]);
        let m = b.map(&[("s3://b/", c)]);
        b.map(&[("virtual_chunk_containers", m)])
    });
    assert!(err.message.contains("no 'store'"), "{err}");
    assert_eq!(err.code, ErrorCode::InvalidMetadata, "{err}");
}

#[test]
fn flexbuffers_lengths_offsets_and_widths_out_of_range_are_refused() {
    let limits = Limits::default();
    let good = flex_config(&[("s3://b/", None, "s3")]);
    assert_eq!(containers_of_repo_config(&good, &limits).unwrap().len(), 1);
    // The root map's length, just before its values, made a billion.
    let root_at = good.len()
        - 2
        - 4
        - u32::from_le_bytes(good[good.len() - 6..good.len() - 2].try_into().unwrap()) as usize;
    let mut huge = good.clone();
    huge[root_at - 4..root_at].copy_from_slice(&1_000_000_000u32.to_le_bytes());
    let err = containers_of_repo_config(&huge, &limits).unwrap_err();
    assert!(err.message.contains("claims 1000000000 entries"), "{err}");
    // Its keys' byte width made 3.
    let mut width = good.clone();
    width[root_at - 8..root_at - 4].copy_from_slice(&3u32.to_le_bytes());
    let err = containers_of_repo_config(&width, &limits).unwrap_err();
    assert!(err.message.contains("byte width 3"), "{err}");
    // The root offset pointing before the buffer; the root width 5; three bytes in all.
    let mut before = good.clone();
    let n = before.len();
    before[n - 6..n - 2].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(containers_of_repo_config(&before, &limits).is_err());
    let mut root_width = good.clone();
    *root_width.last_mut().unwrap() = 5;
    assert!(containers_of_repo_config(&root_width, &limits).is_err());
    assert!(containers_of_repo_config(&good[good.len() - 3..], &limits).is_err());
    assert!(containers_of_repo_config(&[], &limits).is_err());
}

#[test]
fn many_containers_of_one_long_string_are_refused_before_they_are_copied() {
    // A thousand containers whose url_prefix is the same 1 MiB string: 1 GiB if copied.
    let mut b = FlexBuilder::new();
    let long = format!("s3://bucket/{}/", "p".repeat(1 << 20));
    let url = b.string(&long);
    let store_options = b.map(&[]);
    let store = b.map(&[("s3", store_options)]);
    let container = b.map(&[("url_prefix", url), ("store", store), ("name", Flex::Null)]);
    let names: Vec<String> = (0..1000).map(|i| format!("k{i:04}")).collect();
    let entries: Vec<(&str, Flex)> = names.iter().map(|n| (n.as_str(), container)).collect();
    let map = b.map(&entries);
    let root = b.map(&[("virtual_chunk_containers", map)]);
    let config = b.finish(root);
    let limits = Limits {
        max_document_bytes: 8 << 20,
        ..Limits::default()
    };
    let err = containers_of_repo_config(&config, &limits).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
    let few = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    let err =
        containers_of_repo_config(&flex_config(&[("s3://b/", None, "s3"); 11]), &few).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
}

/// A repo info payload with one snapshot, branch `main`, and `config` in its slot.
fn repo_info_with(config: &[u8]) -> Vec<u8> {
    use Field::*;
    let mut b = Builder::new();
    let (root, f) = b.table(&[
        U8(2),
        Offset,
        Offset,
        Offset,
        Offset,
        Absent,
        Absent,
        Absent,
        Absent,
        Offset,
    ]);
    for slot in [1, 3] {
        let empty = b.offsets(0);
        b.patch(f[slot].unwrap(), empty);
    }
    let branches = b.offsets(1);
    b.patch(f[2].unwrap(), branches);
    let (t, tf) = b.table(&[Offset, U32(0)]);
    b.patch_element(branches, 0, t);
    let name = b.string("main");
    b.patch(tf[0].unwrap(), name);
    let snapshots = b.offsets(1);
    b.patch(f[4].unwrap(), snapshots);
    let (t, tf) = b.table(&[Inline(vec![1; 12]), I32(-1), U64(7), Offset]);
    b.patch_element(snapshots, 0, t);
    let message = b.string("a commit");
    b.patch(tf[3].unwrap(), message);
    let config = b.vector(config.len() as u32, config);
    b.patch(f[9].unwrap(), config);
    b.finish(root)
}

#[test]
fn a_repo_file_declares_its_containers_and_a_hostile_config_is_an_error() {
    let limits = Limits::default();
    let config = flex_config(&[("https://h/data/", Some("data"), "http")]);
    let whole = file(2, 6, &repo_info_with(&config));
    let info = RepoInfo::parse(&whole, &limits).unwrap();
    assert_eq!(info.config(), Some(config.as_slice()));
    let repo = Repository::from_repo_info(info, &limits).unwrap();
    let got = prefixes(repo.virtual_chunk_containers());
    assert_eq!(got, [("https://h/data/", Some("data"), "http")]);
    let mut hostile = config.clone();
    let n = hostile.len();
    hostile[n - 6..n - 2].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    let info = RepoInfo::from_payload(repo_info_with(&hostile), 2).unwrap();
    let err = Repository::from_repo_info(info, &limits).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata, "{err}");
}

#[test]
fn the_real_config_cut_or_altered_never_panics() {
    let limits = Limits::default();
    let info = RepoInfo::parse(&fixture("v2/repo"), &limits).unwrap();
    let config = info.config().unwrap().to_vec();
    assert_eq!(
        containers_of_repo_config(&config, &limits).unwrap().len(),
        1
    );
    for n in 0..config.len() {
        let _ = containers_of_repo_config(&config[..n], &limits);
        let _ = containers_of_repo_config(&config[n..], &limits);
    }
    let yaml = fixture("v1/config.yaml");
    for n in 0..yaml.len() {
        let _ = containers_of_config_yaml(&yaml[..n], &limits);
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..4000 {
        let (source, at_most) = match round % 2 {
            0 => (&config, 3),
            _ => (&yaml, 2),
        };
        let mut changed = source.clone();
        for _ in 0..1 + round % at_most {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % changed.len() as u64) as usize;
            changed[at] = (seed >> 40) as u8;
        }
        let got = match round % 2 {
            0 => containers_of_repo_config(&changed, &limits),
            _ => containers_of_config_yaml(&changed, &limits),
        };
        for c in got.iter().flatten() {
            assert!(c.url_prefix().ends_with('/'), "{c:?}");
        }
    }
}

fn scalar(s: &str) -> Node {
    Node {
        tag: None,
        value: Yaml::Scalar(s.to_string()),
    }
}

#[test]
fn yaml_reads_every_entry_of_the_real_config() {
    let text = String::from_utf8(fixture("v1/config.yaml")).unwrap();
    let entry = |key: &str| yaml::top_level(&text, key, 64, 1000).unwrap().unwrap();
    let storage = entry("storage");
    let retries = storage.get("retries").unwrap();
    assert_eq!(retries.get("max_tries"), Some(&scalar("1")));
    assert_eq!(storage.get("timeouts").unwrap().value, Yaml::Null);
    // split_sizes: `- - !name_matches` and `- - condition: Any` at their key's indentation.
    let manifest = entry("manifest");
    let sizes = manifest
        .get("splitting")
        .unwrap()
        .get("split_sizes")
        .unwrap();
    let Yaml::Seq(pairs) = &sizes.value else {
        panic!("{sizes:?}")
    };
    let Yaml::Seq(pair) = &pairs[0].value else {
        panic!("{pairs:?}")
    };
    assert_eq!(pair[0].tag.as_deref(), Some("name_matches"));
    assert_eq!(pair[0].get("regex"), Some(&scalar("split")));
    let Yaml::Seq(dims) = &pair[1].value else {
        panic!("{pair:?}")
    };
    assert_eq!(dims[0].get("condition"), Some(&scalar("Any")));
    assert_eq!(dims[0].get("num_chunks"), Some(&scalar("2")));
    let store = entry("virtual_chunk_containers");
    let container = store.get("http://127.0.0.1:18738/").unwrap();
    assert_eq!(container.get("store").unwrap().tag.as_deref(), Some("http"));
    assert_eq!(container.get("store").unwrap().value, Yaml::Map(Vec::new()));
    assert_eq!(yaml::top_level(&text, "nothing", 64, 1000).unwrap(), None);
}

#[test]
fn yaml_outside_the_subset_is_a_clear_error() {
    let limits = Limits::default();
    let head = "virtual_chunk_containers:\n";
    for (body, why) in [
        ("  a:\n\t  b: c\n", "tab"),
        ("  'a: b\n", "does not end on its line"),
        ("  s3://b/: {url_prefix: s3://b/}\n", "flow collection"),
        ("  s3://b/: |\n    x\n", "block scalar"),
        ("  s3://b/: &a\n", "anchor"),
        (
            "  s3://b/:\n    url_prefix: s3://b/\n      store: !s3 {}\n",
            "indented more",
        ),
        ("  s3://b/: url_prefix: s3://b/\n", "on the line of its key"),
        ("  s3://b/:\n    url_prefix: \"s3://b/\\q\"\n", "escape"),
        (
            "  s3://b/:\n    url_prefix: s3://b/ trailing 'x' \"y\"\n    store: !s3 {} extra\n",
            "more after",
        ),
        ("  s3://b/:\n    url_prefix: s3://b/\n", "no 'store'"),
        ("  s3://b/:\n    store: !s3 {}\n", "no 'url_prefix'"),
        ("  - a\n", "not a mapping"),
        (
            "  s3://b/:\n    url_prefix:\n      nested: x\n    store: !s3 {}\n",
            "not a scalar",
        ),
        ("  a: b\n x\n", "does not belong"),
        ("x\n", "not 'key: value'"),
        ("  a: b\nvirtual_chunk_containers: null\n", "again"),
    ] {
        let text = format!("{head}{body}");
        let err = containers_of_config_yaml(text.as_bytes(), &limits).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidMetadata, "{body:?}: {err}");
        assert!(err.message.contains(why), "{body:?}: {err}");
        assert_eq!(err.key.as_deref(), Some(CONFIG_KEY), "{body:?}: {err}");
    }
    let err = containers_of_config_yaml(b"virtual_chunk_containers: \xff\n", &limits).unwrap_err();
    assert!(err.message.contains("not UTF-8"), "{err}");
}

#[test]
fn yaml_deep_or_huge_is_refused_as_it_is_reached() {
    let limits = Limits::default();
    // A hundred thousand `- ` on one line, and two hundred mappings each indented deeper.
    let dashes = format!("virtual_chunk_containers:\n  {}x\n", "- ".repeat(100_000));
    let err = containers_of_config_yaml(dashes.as_bytes(), &limits).unwrap_err();
    assert!(err.message.contains("nested deeper than 127"), "{err}");
    let mut nested = String::from("virtual_chunk_containers:\n");
    for depth in 1..=200 {
        nested.push_str(&format!("{}k{depth}:\n", " ".repeat(depth)));
    }
    let err = containers_of_config_yaml(nested.as_bytes(), &limits).unwrap_err();
    assert!(err.message.contains("nested deeper"), "{err}");
    // More values than max_nodes; a text longer than max_document_bytes.
    let mut many = String::from("virtual_chunk_containers:\n");
    for i in 0..100 {
        many.push_str(&format!(
            "  s3://b{i}/:\n    url_prefix: s3://b{i}/\n    store: !s3 {{}}\n"
        ));
    }
    let few = Limits {
        max_nodes: 50,
        ..Limits::default()
    };
    let err = containers_of_config_yaml(many.as_bytes(), &few).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
    assert_eq!(
        containers_of_config_yaml(many.as_bytes(), &limits)
            .unwrap()
            .len(),
        100
    );
    let small = Limits {
        max_document_bytes: 100,
        ..Limits::default()
    };
    let err = containers_of_config_yaml(many.as_bytes(), &small).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
}

#[test]
fn containers_are_refused_as_icechunk_refuses_them() {
    use ContainerStore::*;
    for (prefix, store, ok) in [
        ("s3://bucket", S3, true),
        ("s3://bucket/a/", S3Compatible, true),
        ("S3://bucket/", Tigris, true),
        ("tigris://b/", Tigris, true),
        ("gs://b/", Gcs, true),
        ("gcs://b/", Gcs, true),
        ("abfs://c/", Azure, true),
        ("https://h:8080/x/", Http, true),
        ("file:///data/", LocalFileSystem, true),
        ("s3:///", S3, false),
        ("https://h/", S3, false),
        ("gs://b/", Http, false),
        ("file:///", LocalFileSystem, false),
        ("https://h/a/../", Http, false),
        ("memory://x/", InMemory, false),
        ("h/x/", Http, false),
        ("1ttp://h/", Http, false),
    ] {
        let got = VirtualChunkContainer::new(prefix, store.clone());
        assert_eq!(got.is_ok(), ok, "{prefix} {store:?}: {got:?}");
    }
    let named = VirtualChunkContainer::new("s3://b/", S3).unwrap();
    assert!(named.clone().with_name("").is_err());
    assert!(named.clone().with_name("a/b").is_err());
    assert_eq!(named.with_name("raw").unwrap().name(), Some("raw"));
}

#[test]
fn a_url_is_in_a_container_only_as_written() {
    let c = VirtualChunkContainer::new("https://h/data/", ContainerStore::Http).unwrap();
    for (url, inside) in [
        ("https://h/data/a.nc", true),
        ("https://h/data/a/b.nc?x=..#..", true),
        ("https://h/data/...", true),
        ("https://h/data", false),
        ("https://h/database/x", false),
        ("https://h/other/x", false),
        ("https://h/data/../secret", false),
        ("https://h/data/./x", false),
        ("https://h/data/%2e%2E/x", false),
        ("https://h/data/.%2e", false),
        ("https://h/data/..\\x", false),
        ("https://h/data/.\t./x", false),
        ("https://h/data/a\nb", false),
        ("HTTPS://h/data/a", false),
    ] {
        assert_eq!(c.contains(url), inside, "{url:?}");
    }
}

#[test]
fn the_longest_prefix_holds_a_url_and_a_prefix_given_twice_is_the_last() {
    let make = |p: &str, s: ContainerStore| VirtualChunkContainer::new(p, s).unwrap();
    let mut list = vec![
        make("s3://b/", ContainerStore::S3),
        make("s3://b/deep/er/", ContainerStore::S3Compatible),
        make("s3://b/deep/", ContainerStore::Tigris),
        make("s3://b/", ContainerStore::Tigris),
    ];
    sort_containers(&mut list);
    assert_eq!(list.len(), 3);
    assert_eq!(list[0].store(), &ContainerStore::Tigris);
    let of = |url: &str| container_of(url, &list).map(|c| c.url_prefix().to_string());
    assert_eq!(of("s3://b/deep/er/x").as_deref(), Some("s3://b/deep/er/"));
    assert_eq!(of("s3://b/deep/x").as_deref(), Some("s3://b/deep/"));
    assert_eq!(of("s3://b/x").as_deref(), Some("s3://b/"));
    assert_eq!(of("s3://b/deep/../x"), None);
    assert_eq!(of("s3://c/x"), None);
    assert_eq!(of("s3://b"), None);
}

#[test]
fn a_prefix_given_many_times_is_one_container() {
    // Two hundred thousand entries of one container: kept once, without a pass per copy.
    let mut b = FlexBuilder::new();
    let url = b.string("s3://bucket/");
    let store_options = b.map(&[]);
    let store = b.map(&[("s3", store_options)]);
    let container = b.map(&[("url_prefix", url), ("store", store)]);
    let names: Vec<String> = (0..200_000).map(|i| format!("k{i:06}")).collect();
    let entries: Vec<(&str, Flex)> = names.iter().map(|n| (n.as_str(), container)).collect();
    let map = b.map(&entries);
    let root = b.map(&[("virtual_chunk_containers", map)]);
    let got = containers_of_repo_config(&b.finish(root), &Limits::default()).unwrap();
    assert_eq!(prefixes(&got), [("s3://bucket/", None, "s3")]);
}
