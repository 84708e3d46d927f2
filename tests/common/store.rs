//! Stores for the hierarchy tests: a fixture folder as a [`MemoryStore`], and a minimal
//! executor for the async API.

use std::cell::Cell;
use std::future::{poll_fn, Future};
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use zom::chunk::{DimSelection, Selection};
use zom::hierarchy::{open, ArrayReader, NodeKind, OpenHints};
use zom::model::Node;
use zom::store::{ByteRange, MemoryStore, Store};
use zom::Result;

/// Every file below `dir`, keyed by its path relative to `dir`.
pub fn store_from_dir(dir: &Path) -> MemoryStore {
    let mut store = MemoryStore::new();
    for (key, path) in super::files_below(dir) {
        store.insert(&key, std::fs::read(&path).unwrap());
    }
    store
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on this thread.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return value,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// A store whose every request is answered one turn of the executor after it is sent, so that
/// requests (and reads joined together) are under way at the same time; it counts the most
/// requests under way at once, and round trips: a request sent after one of round `n` came
/// back is of round `n + 1`.
#[allow(dead_code)]
pub struct Slow<'a> {
    inner: &'a MemoryStore,
    in_flight: Cell<usize>,
    /// The most requests under way at once so far.
    pub max_in_flight: Cell<usize>,
    done: Cell<u32>,
    /// The most round trips one after another so far.
    pub rounds: Cell<u32>,
}

#[allow(dead_code)]
impl<'a> Slow<'a> {
    /// `inner`, answered slowly.
    pub fn new(inner: &'a MemoryStore) -> Self {
        Slow {
            inner,
            in_flight: Cell::new(0),
            max_in_flight: Cell::new(0),
            done: Cell::new(0),
            rounds: Cell::new(0),
        }
    }

    async fn answer<T>(&self, answer: T) -> T {
        let round = self.done.get() + 1;
        self.in_flight.set(self.in_flight.get() + 1);
        self.max_in_flight
            .set(self.max_in_flight.get().max(self.in_flight.get()));
        let mut yielded = false;
        poll_fn(|cx| {
            if yielded {
                return Poll::Ready(());
            }
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await;
        self.in_flight.set(self.in_flight.get() - 1);
        self.done.set(self.done.get().max(round));
        self.rounds.set(self.rounds.get().max(round));
        answer
    }
}

impl Store for Slow<'_> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.answer(self.inner.get(key).await).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.answer(self.inner.get_range(key, range).await).await
    }
}

/// The tip of `main` of the Icechunk repository whose files `files` holds, its virtual chunks
/// read from `virtuals`, with the default limits (panics on an error).
#[allow(dead_code)]
pub fn icechunk_main<S: Store, V: Store>(
    files: S,
    virtuals: V,
) -> zom::store::icechunk::IcechunkStore<S, V> {
    let spec = zom::store::icechunk::RefSpec::default();
    block_on(zom::store::icechunk::IcechunkStore::open(
        files,
        virtuals,
        &spec,
        &zom::Limits::default(),
    ))
    .unwrap()
}

/// Opens the array at `path` of `store` (panics, naming the path, when there is none).
#[allow(dead_code)]
pub fn open_array<S: Store>(store: &S, path: &str) -> ArrayReader {
    let hints = OpenHints {
        kind: Some(NodeKind::Array),
        format: None,
    };
    let opened = block_on(open(store, path, hints)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let Node::Array(array) = opened.node else {
        panic!("{path} is not an array")
    };
    ArrayReader::open(&array, path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The whole array, read through `store` with the default options (panics, naming the path,
/// on an error).
#[allow(dead_code)]
pub fn read_whole<S: Store>(store: &S, reader: &ArrayReader) -> zom::hierarchy::ChunkValues {
    let options = zom::hierarchy::ReadOptions::default();
    block_on(zom::hierarchy::read(
        store,
        reader,
        &Selection::all(),
        &options,
        &mut |_| {},
    ))
    .unwrap_or_else(|e| panic!("{}: {e}", reader.layout().path))
}

/// The selection of the half-open ranges `a..b`, one per dimension.
#[allow(dead_code)]
pub fn slices(ranges: &[(i64, i64)]) -> Selection {
    Selection(
        ranges
            .iter()
            .map(|&(a, b)| DimSelection::slice(Some(a), Some(b), None))
            .collect(),
    )
}
