//! The one concurrency machinery of walks and reads. Every loop that keeps requests in flight
//! (the walk's visits and listings, a read's chunks, a shard's byte ranges, a hook's inner
//! chunk decodes) runs a `FuturesUnordered` of the same boxed future, [`Pending`]: generic
//! code is compiled once per type it is used with, and one future type for every loop keeps
//! one copy of `FuturesUnordered` (its queue, task list and wakers, with each future's
//! polling inlined) in the WebAssembly module. The box is one allocation per request.
//!
//! A read's chunks go through [`InFlight`], which bounds them by what they cost in bytes
//! rather than by a count.
//!
//! What a [`Pending`] gives ([`Finished`]) is defined here with the payload of each loop
//! (a read's [`Fetched`], a shard's [`ShardData`], a walk's [`Done`]), so that `read`, `shard`
//! and `walk` name this module and not each other's types: the modules form a chain
//! (`pending` ← `shard` ← `read`; `pending` ← `walk`).

use super::cache::Cached;
use super::open::{NodeKind, Opened};
use crate::chunk::{ChunkRead, PlannedChunk};
use crate::codec::sharding::{ReadPlan, ShardIndex};
use crate::error::{ErrorCode, Result, ZomError};
use crate::spec::RuleRef;
use crate::store::Listing;
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

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

/// What the fetch (and, with a hook, the decode) of one chunk gave.
pub(super) enum Fetched {
    Missing,
    Encoded(Vec<u8>),
    /// Decoded by the hook, into its output (with the decoded chunk when kept for a cache).
    Decoded(Option<Vec<u8>>),
    /// A shard's inner chunks, decoded by the hook or placed from the cache (how many).
    Inner(u64),
    /// What was fetched of a shard (sharded arrays, decoded here).
    Shard(ShardData),
}

/// What a shard read found in the cache and fetched of the shard.
#[derive(Debug)]
pub(crate) struct ShardData {
    /// The inner reads served by the cache, with what it holds.
    pub(super) hits: Vec<(ChunkRead, Cached)>,
    /// The other inner reads, in C order (those of `plan` for [`Fetch::Ranged`]).
    pub(super) inner: Vec<ChunkRead>,
    pub(super) fetch: Fetch,
}

impl ShardData {
    /// Inner chunks served by the cache.
    pub(crate) fn hits(&self) -> u64 {
        u64::try_from(self.hits.len()).unwrap_or(u64::MAX)
    }
}

/// What was fetched of one shard.
#[derive(Debug)]
pub(super) enum Fetch {
    /// Nothing: every inner chunk wanted was cached.
    Nothing,
    /// The shard does not exist.
    Missing,
    /// The whole shard, and its index.
    Whole {
        bytes: Vec<u8>,
        index: Arc<ShardIndex>,
    },
    /// The byte ranges of a plan.
    Ranged {
        plan: ReadPlan,
        fetched: Vec<Vec<u8>>,
    },
}

/// A visited node, and (v2) the listing made to find its documents: `Some(None)` when it could
/// not be listed.
pub(super) struct Visit {
    pub(super) opened: Opened,
    pub(super) listing: Option<Option<Listing>>,
}

/// A node a walk asks for: its path, its depth below the start node, and, when the metadata
/// of the group above named it, the spec rules in force there.
pub(super) struct Asked {
    pub(super) path: String,
    pub(super) depth: usize,
    /// Metadata above named nodes below it (a plate's row group).
    pub(super) between: bool,
    /// Named by metadata; with the kind its naming rules expect, when they say.
    pub(super) named: Option<Option<NodeKind>>,
    pub(super) rules: Vec<RuleRef>,
}

pub(super) enum Done {
    Visited(Asked, Result<Option<Box<Visit>>>),
    /// A group's listing.
    Listed(String, Result<Option<Listing>>),
}
