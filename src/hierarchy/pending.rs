//! The one concurrency machinery of walks and reads. Every loop that keeps requests in flight
//! (the walk's visits and listings, a read's chunks, a shard's byte ranges, a hook's inner
//! chunk decodes) runs a `FuturesUnordered` of the same boxed future, [`Pending`]: generic
//! code is compiled once per type it is used with, and one future type for every loop keeps
//! one copy of `FuturesUnordered` (its queue, task list and wakers, with each future's
//! polling inlined) in the WebAssembly module. The box is one allocation per request.
//!
//! A read's chunks go through [`InFlight`], which bounds them by what they cost in bytes
//! rather than by a count.

use super::read::Fetched;
use super::walk::Done;
use crate::chunk::PlannedChunk;
use crate::error::{ErrorCode, Result, ZomError};
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::future::Future;
use std::pin::Pin;

/// A request (or a decode) in flight.
pub(super) type Pending<'a> = Pin<Box<dyn Future<Output = Finished<'a>> + 'a>>;

/// What a [`Pending`] gives: one variant per loop.
// A walk's `Done` is the large one: it is moved once per request, and boxing it would be one
// more allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Finished<'a> {
    /// A chunk (or a shard) of a read, fetched, or decoded by the hook.
    Chunk(&'a PlannedChunk, Result<Fetched>),
    /// A byte range of a shard: its place in the shard's read plan, and its bytes.
    Range(Result<(usize, Vec<u8>)>),
    /// An inner chunk decoded by a hook.
    Decoded(Result<()>),
    /// A visit or a listing of a walk.
    Walked(Done),
}

/// The error for a [`Finished`] of another loop, which no loop is given: a zom bug, reported
/// rather than a panic.
pub(super) fn stray() -> ZomError {
    ZomError::new(
        ErrorCode::InvalidArgument,
        "internal error: a request finished in another loop than its own",
    )
}

/// A read's chunks in flight: started in plan order while the bytes they cost (`cost`) fit
/// in `budget` together (always at least one), each as `start` makes it; finished ones make
/// room for the next.
pub(super) struct InFlight<'a, C, F> {
    queue: std::vec::IntoIter<&'a PlannedChunk>,
    running: FuturesUnordered<Pending<'a>>,
    budget: u64,
    bytes: u64,
    cost: C,
    start: F,
}

impl<'a, C, F> InFlight<'a, C, F>
where
    C: Fn(&PlannedChunk) -> u64,
    F: FnMut(&'a PlannedChunk) -> Pending<'a>,
{
    /// The chunks of `queue`, none started yet.
    pub(super) fn new(queue: Vec<&'a PlannedChunk>, budget: u64, cost: C, start: F) -> Self {
        InFlight {
            queue: queue.into_iter(),
            running: FuturesUnordered::new(),
            budget,
            bytes: 0,
            cost,
            start,
        }
    }

    /// The next chunk to finish, after starting every chunk that fits; `None` when all have.
    pub(super) async fn next(&mut self) -> Option<Finished<'a>> {
        while let Some(&chunk) = self.queue.as_slice().first() {
            let cost = (self.cost)(chunk);
            if !self.running.is_empty() && self.bytes.saturating_add(cost) > self.budget {
                break;
            }
            self.queue.next();
            self.bytes = self.bytes.saturating_add(cost);
            self.running.push((self.start)(chunk));
        }
        let finished = self.running.next().await?;
        if let Finished::Chunk(chunk, _) = &finished {
            self.bytes = self.bytes.saturating_sub((self.cost)(chunk));
        }
        Some(finished)
    }
}
