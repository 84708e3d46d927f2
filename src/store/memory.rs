//! An in-memory store: a map of key → bytes that can list and that counts its requests, for
//! tests, examples and callers that already hold a hierarchy's bytes.

use super::{ByteRange, Listing, Store};
use crate::error::{ErrorCode, Result, ZomError};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// How many requests of each kind a [`MemoryStore`] has answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestCounts {
    /// Whole-value reads ([`Store::get`]).
    pub get: u64,
    /// Range and suffix reads ([`Store::get_range`], [`Store::get_suffix`]).
    pub range: u64,
    /// Listings ([`Store::list_dir`]).
    pub list: u64,
}

impl RequestCounts {
    /// All requests together.
    pub fn total(&self) -> u64 {
        self.get
            .saturating_add(self.range)
            .saturating_add(self.list)
    }
}

/// A store held in memory. Keys are relative to the store root, without a leading `/`.
#[derive(Debug, Default)]
pub struct MemoryStore {
    values: BTreeMap<String, Vec<u8>>,
    listable: bool,
    counts: Cell<RequestCounts>,
    log: RefCell<Vec<String>>,
}

impl MemoryStore {
    /// An empty store that can list.
    pub fn new() -> Self {
        MemoryStore {
            listable: true,
            ..Default::default()
        }
    }

    /// A store holding `entries` (keys may start with `/`).
    pub fn from_entries<K: AsRef<str>>(entries: impl IntoIterator<Item = (K, Vec<u8>)>) -> Self {
        let mut store = MemoryStore::new();
        for (key, value) in entries {
            store.insert(key.as_ref(), value);
        }
        store
    }

    /// Sets the value at `key`.
    pub fn insert(&mut self, key: &str, value: Vec<u8>) {
        self.values
            .insert(key.trim_start_matches('/').to_string(), value);
    }

    /// Removes the value at `key`.
    pub fn remove(&mut self, key: &str) -> Option<Vec<u8>> {
        self.values.remove(key.trim_start_matches('/'))
    }

    /// Whether [`Store::list_dir`] answers (a store without listing answers `None`).
    pub fn set_listable(&mut self, listable: bool) {
        self.listable = listable;
    }

    /// The requests answered so far.
    pub fn counts(&self) -> RequestCounts {
        self.counts.get()
    }

    /// Every request so far, in order, as `"get KEY"`, `"range KEY START..END"`,
    /// `"suffix KEY N"` or `"list PREFIX"`.
    pub fn log(&self) -> Vec<String> {
        self.log.borrow().clone()
    }

    /// Forgets the counts and the log.
    pub fn reset_counts(&self) {
        self.counts.set(RequestCounts::default());
        self.log.borrow_mut().clear();
    }

    fn record(&self, entry: String, bump: impl FnOnce(&mut RequestCounts)) {
        let mut counts = self.counts.get();
        bump(&mut counts);
        self.counts.set(counts);
        self.log.borrow_mut().push(entry);
    }
}

fn to_index(n: u64) -> Result<usize> {
    usize::try_from(n).map_err(|_| ZomError::new(ErrorCode::InvalidArgument, "range too large"))
}

impl Store for MemoryStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.record(format!("get {key}"), |c| c.get = c.get.saturating_add(1));
        Ok(self.values.get(key.trim_start_matches('/')).cloned())
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        let entry = match &range {
            ByteRange::Bounded(r) => format!("range {key} {}..{}", r.start, r.end),
            ByteRange::Suffix(n) => format!("suffix {key} {n}"),
        };
        self.record(entry, |c| c.range = c.range.saturating_add(1));
        let Some(value) = self.values.get(key.trim_start_matches('/')) else {
            return Ok(None);
        };
        let len = value.len();
        // As HTTP does: a range past the end is cut to the value.
        let (start, end) = match range {
            ByteRange::Bounded(r) => (to_index(r.start)?.min(len), to_index(r.end)?.min(len)),
            ByteRange::Suffix(n) => (len.saturating_sub(to_index(n).unwrap_or(len)), len),
        };
        Ok(Some(
            value
                .get(start..end.max(start))
                .unwrap_or_default()
                .to_vec(),
        ))
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        self.record(format!("list {prefix}"), |c| {
            c.list = c.list.saturating_add(1)
        });
        if !self.listable {
            return Ok(None);
        }
        let listing = super::list_keys(&mut self.values.keys().map(String::as_str), prefix);
        Ok(Some(listing))
    }
}
