//! Stores for the hierarchy tests: a fixture folder as a [`MemoryStore`], and a minimal
//! executor for the async API.

use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use zom::store::MemoryStore;

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
