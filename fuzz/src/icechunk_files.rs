//! Target `icechunk_files`: Icechunk metadata files ([`zom::store::icechunk`]) on hostile
//! bytes: the header, the bounded zstd payload, the flatbuffers reader and the repo info,
//! snapshot and manifest readers, then every accessor of what parsed; and the repository
//! configuration readers (FlexBuffers, the repo info's `config`; YAML, `config.yaml`).
//!
//! Input: a flag byte (bit 3 clear: bits 0–1: 0 repo info, 1 snapshot, 2 manifest, 3
//! whichever the header names; bit 2: the bytes are a whole file, header and compressed
//! payload, rather than a decompressed flatbuffers payload; bit 3 set: the bytes are a
//! configuration, bit 0 YAML or else FlexBuffers; bit 4 set: the bytes, as text, are what an
//! answer said of a virtual chunk's object, its ETag and its Last-Modified, checked against
//! a recorded checksum), then the bytes; the first eight bytes after a payload's root are
//! also the coordinates looked up in a manifest.
//!
//! Checks: a repo info's ancestry starts at the snapshot asked for and ends at one without a
//! parent; a snapshot's node paths are node paths, strictly increasing; no virtual location is
//! longer than the payload or `MAX_LOCATION_BYTES`; the containers of a configuration (the
//! repo info's too) are sorted by prefix, each once, each prefix ending in `/` and holding a
//! URL below it, and their prefixes and names together within twice `max_document_bytes`
//! (FlexBuffers' are counted against it; YAML's are the text's, an escape at most half as
//! long again as what it writes); every container gives an HTTP(S) URL, or none, for an object
//! below it; a checksum check of hostile validators is an answer, ChecksumMismatch or not.

use super::input::Input;
use super::outcome::Outcome;
use zom::store::icechunk::{
    containers_of_config_yaml, containers_of_repo_config, is_node_path, Checksum, ChunkRef,
    FileHeader, FileType, Manifest, RepoInfo, Snapshot, Validators, VirtualChunkContainer,
    MAX_LOCATION_BYTES,
};
use zom::{ErrorCode, Limits};

/// Runs the harness on one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut input = Input::new(data);
    let flags = input.u8();
    let bytes = data.get(1..).unwrap_or_default();
    let limits = Limits {
        max_document_bytes: 1 << 24,
        max_nodes: 1 << 16,
        ..Limits::default()
    };
    let mut outcome = Outcome::default();
    if flags & 16 != 0 {
        validators(bytes, input.u32());
        return outcome;
    }
    if flags & 8 != 0 {
        let parsed = if flags & 1 != 0 {
            containers_of_config_yaml(bytes, &limits)
        } else {
            containers_of_repo_config(bytes, &limits)
        };
        if let Some(found) = outcome.step("config", parsed) {
            containers(&found, limits.max_document_bytes);
        }
        return outcome;
    }
    let kind = match flags & 3 {
        0 => FileType::RepoInfo,
        1 => FileType::Snapshot,
        2 => FileType::Manifest,
        _ => match outcome.step("header", FileHeader::parse(bytes)) {
            Some(header) => header.file_type,
            None => return outcome,
        },
    };
    let whole = flags & 4 != 0;
    let coords: Vec<u32> = (0..2).map(|_| input.u32() % 8).collect();
    match kind {
        FileType::RepoInfo => {
            let parsed = if whole {
                RepoInfo::parse(bytes, &limits)
            } else {
                RepoInfo::from_payload(bytes.to_vec(), 2)
            };
            if let Some(info) = outcome.step("repo_info", parsed) {
                repo_info(&info, &mut outcome);
            }
        }
        FileType::Snapshot => {
            let parsed = if whole {
                Snapshot::parse(bytes, &limits)
            } else {
                Snapshot::from_payload(bytes.to_vec(), 2, &limits)
            };
            if let Some(snapshot) = outcome.step("snapshot", parsed) {
                self::snapshot(&snapshot, &mut outcome);
            }
        }
        FileType::Manifest => {
            let parsed = if whole {
                Manifest::parse(bytes, &limits)
            } else {
                Manifest::from_payload(bytes.to_vec())
            };
            if let Some(manifest) = outcome.step("manifest", parsed) {
                let bound = MAX_LOCATION_BYTES.max(limits.max_document_bytes);
                self::manifest(&manifest, &coords, bound, &mut outcome);
            }
        }
        FileType::TransactionLog => {}
    }
    outcome
}

/// The containers a configuration declares, read within `max_document_bytes`.
fn containers(found: &[VirtualChunkContainer], max_document_bytes: u64) {
    let mut text = 0;
    for (i, c) in found.iter().enumerate() {
        let prefix = c.url_prefix();
        assert!(prefix.ends_with('/'), "{prefix:?} ends in '/'");
        assert!(
            c.contains(&format!("{prefix}x")),
            "{prefix:?} holds a URL below it"
        );
        if i > 0 {
            assert!(found[i - 1].url_prefix() < prefix, "sorted, each once");
        }
        let _ = c.store().name();
        if let Some(url) = c.object_url(&format!("{prefix}x/y.nc")) {
            let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
            assert!(
                matches!(scheme.as_deref(), Some("http" | "https")),
                "{url:?} is fetched over HTTP"
            );
        }
        text += prefix.len() + c.name().map_or(0, str::len);
    }
    // A `/` may be added to each prefix.
    let bound = 2 * max_document_bytes + found.len() as u64;
    assert!(text as u64 <= bound, "bounded text");
}

/// What an answer says of its object (two lines: ETag, Last-Modified) against a recorded
/// ETag and a recorded time.
fn validators(bytes: &[u8], seconds: u32) {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.splitn(2, '\n');
    let seen = Validators {
        etag: lines.next().map(str::to_string),
        last_modified: lines.next().map(str::to_string),
    };
    for checksum in [
        Checksum::ETag("\"abc\"".into()),
        Checksum::LastModified(seconds),
    ] {
        if let Err(e) = checksum.verify("https://h/x", &seen) {
            assert_eq!(e.code, ErrorCode::ChecksumMismatch, "{e}");
        }
    }
}

fn repo_info(info: &RepoInfo, outcome: &mut Outcome) {
    if let Some(config) = info.config() {
        let limits = Limits::default();
        let parsed = containers_of_repo_config(config, &limits);
        if let Some(found) = outcome.step("repo_config", parsed) {
            containers(&found, limits.max_document_bytes);
        }
    }
    let _ = (
        info.branches(),
        info.tags(),
        info.deleted_tags(),
        info.spec_version(),
    );
    let ids: Vec<_> = info.snapshots().take(64).map(|s| s.id).collect();
    for id in ids {
        if let Some(chain) = outcome.step("ancestry", info.ancestry(&id)) {
            assert_eq!(
                chain.first().map(|s| s.id),
                Some(id),
                "the ancestry starts at its snapshot"
            );
            assert!(
                chain.last().is_some_and(|s| s.parent.is_none()),
                "and ends at the first one"
            );
        }
    }
}

fn snapshot(snapshot: &Snapshot, outcome: &mut Outcome) {
    let _ = (
        snapshot.id(),
        snapshot.parent_id(),
        snapshot.message(),
        snapshot.manifest_files(),
    );
    let mut last: Option<&str> = None;
    for node in snapshot.nodes().take(256) {
        assert!(is_node_path(node.path), "{:?} is a node path", node.path);
        assert!(
            last.is_none_or(|l| l.as_bytes() < node.path.as_bytes()),
            "sorted paths"
        );
        last = Some(node.path);
        outcome.step("manifest_refs", snapshot.manifest_refs(node.path));
    }
}

/// Looks up the chunks at the prefixes of `coords`; no location is longer than `bound` (a
/// compressed one decompresses within [`MAX_LOCATION_BYTES`], a plain one is in the payload).
fn manifest(manifest: &Manifest, coords: &[u32], bound: u64, outcome: &mut Outcome) {
    let nodes: Vec<_> = manifest.arrays().take(64).collect();
    for node in nodes {
        let _ = manifest.len(&node);
        for n in 0..=coords.len() {
            if let Some(Some(ChunkRef::Virtual { location, .. })) =
                outcome.step("lookup", manifest.lookup(&node, &coords[..n]))
            {
                assert!(location.len() as u64 <= bound, "a bounded location");
            }
        }
    }
}
