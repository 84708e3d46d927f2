//! The one concurrency machinery of walks and reads. Every loop that keeps requests in flight
//! (the walk's visits and listings, a read's chunks, a shard's byte ranges, a hook's inner
//! chunk decodes) runs a `FuturesUnordered` of the same boxed future, [`Pending`]: generic
//! code is compiled once per type it is used with, and with one future type per loop the
//! WebAssembly module held four copies of `FuturesUnordered` (its queue, task list and
//! wakers, with each future's polling inlined), 1.7 KB gzipped more than one. The box is one
//! allocation per request.

use super::read::Fetched;
use super::walk::Done;
use crate::chunk::PlannedChunk;
use crate::error::{ErrorCode, Result, ZomError};
use std::future::Future;
use std::pin::Pin;

/// A request (or a decode) in flight.
pub(super) type Pending<'a> = Pin<Box<dyn Future<Output = Finished<'a>> + 'a>>;

/// What a [`Pending`] gives: one variant per loop.
// A walk's `Done` is the large one, as it was before as the walk's own future output: it is
// moved once per request, boxing it would be one more allocation.
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
