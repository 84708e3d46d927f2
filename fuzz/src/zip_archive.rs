//! Target `zip_archive`: zip archives as stores ([`zom::store::ZipStore`]) on hostile bytes.
//! The archive is opened (its tail read, then, when the directory lies before the tail, one
//! more range), and every member is read whole, by a range and by a suffix.
//!
//! Input: a flag byte (bit 0: open with a 64-byte tail, so the directory is read separately;
//! bit 1: give the root as the first member's folder), then the archive's bytes.
//!
//! Checks: a whole member has exactly the size its directory entry declares; a range and a
//! suffix are never longer than asked and, when the whole member reads, equal its bytes there.

use super::array_read::block_on;
use super::input::Input;
use super::outcome::Outcome;
use zom::store::zip::Opened;
use zom::store::{ByteRange, MemoryStore, Store, ZipIndex, ZipStore};

/// Runs the harness on one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut input = Input::new(data);
    let flags = input.u8();
    let archive = data.get(1..).unwrap_or_default().to_vec();
    let mut outcome = Outcome::default();
    if flags & 1 != 0 {
        // The sans-I/O path a short tail takes.
        let tail = &archive[archive.len().saturating_sub(64)..];
        if let Some(Opened::NeedDirectory(range)) =
            outcome.step("open_tail", ZipIndex::open(tail, None))
        {
            let (start, end) = (
                range.start.min(archive.len() as u64),
                range.end.min(archive.len() as u64),
            );
            let dir = archive
                .get(start as usize..end.max(start) as usize)
                .unwrap_or_default();
            outcome.step("open_directory", ZipIndex::with_directory(tail, dir, None));
        }
    }
    let inner = MemoryStore::from_entries([("a.zip", archive)]);
    let Some(store) = outcome.step("open", block_on(ZipStore::open(inner, "a.zip", None))) else {
        return outcome;
    };
    let root = store.index().root().to_string();
    let names: Vec<(String, u64)> = store
        .index()
        .entries()
        .iter()
        .take(64)
        .filter_map(|e| e.name.strip_prefix(&root).map(|n| (n.to_string(), e.size)))
        .collect();
    let _ = store.index().list("");
    for (key, size) in names {
        let whole = outcome.step("get", block_on(store.get(&key))).flatten();
        if let Some(bytes) = &whole {
            assert_eq!(
                bytes.len() as u64,
                size,
                "{key}: a member of the declared size"
            );
        }
        let range = outcome
            .step(
                "range",
                block_on(store.get_range(&key, ByteRange::Bounded(3..10))),
            )
            .flatten();
        let suffix = outcome
            .step("suffix", block_on(store.get_suffix(&key, 7)))
            .flatten();
        if let Some(r) = &range {
            assert!(r.len() <= 7, "{key}: a range of 7 bytes gave {}", r.len());
        }
        if let Some(s) = &suffix {
            assert!(s.len() <= 7, "{key}: a suffix of 7 bytes gave {}", s.len());
        }
        if let (Some(w), Some(r), Some(s)) = (&whole, &range, &suffix) {
            assert_eq!(
                r.as_slice(),
                &w[3.min(w.len())..10.min(w.len())],
                "{key}: the range"
            );
            assert_eq!(
                s.as_slice(),
                &w[w.len().saturating_sub(7)..],
                "{key}: the suffix"
            );
        }
    }
    outcome
}
