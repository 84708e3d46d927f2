//! Partial reads of shards (`sharding_indexed` as an array's only codec).
//!
//! # Which requests
//! For each shard a selection touches, with `n` of its `N` inner chunks intersecting:
//! - `2n > N` (more than half of the shard is wanted): the whole shard in one request. The
//!   index request would save less than it costs: on average the unwanted bytes are fewer
//!   than the wanted ones, and one request replaces at least two.
//! - otherwise: the index (a suffix request for `index_location: "end"`, a `0..len` range for
//!   `"start"`), then the byte ranges of the wanted, non-empty inner chunks, merged where they
//!   touch or lie less than [`super::ReadOptions::shard_gap`] bytes apart, fetched
//!   concurrently. One inner chunk therefore costs exactly 2 requests.
//!
//! A shard that does not exist (or whose index says an inner chunk is empty) reads as the
//! fill value.

use super::output::{Fill, Output};
use super::pending::{stray, Finished, Pending};
use super::read::{ChunkPart, DecodeHook, ReadOptions};
use crate::chunk::{ChunkRead, PlannedChunk};
use crate::codec::sharding::{IndexRange, ReadPlan, ShardingCodec};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{exceeded, Limit};
use crate::store::{ByteRange, Store};
use futures_util::stream::{self, StreamExt};

/// What was fetched of one shard.
#[derive(Debug)]
pub(crate) enum ShardData {
    /// The shard does not exist.
    Missing,
    /// The whole shard, and the inner reads it serves.
    Whole {
        bytes: Vec<u8>,
        inner: Vec<ChunkRead>,
    },
    /// The byte ranges of a plan, and the inner reads (in the plan's chunk order).
    Ranged {
        inner: Vec<ChunkRead>,
        plan: ReadPlan,
        fetched: Vec<Vec<u8>>,
    },
}

fn codec(message: String) -> ZomError {
    ZomError::new(ErrorCode::CodecError, message)
}

/// The inner chunk reads of one shard read, in C order.
fn inner_reads(
    sharding: &ShardingCodec,
    read: &ChunkRead,
    max_chunks: u64,
) -> Result<Vec<ChunkRead>> {
    let plan = read.inner_plan(sharding.inner_chunk_shape())?;
    let n = plan.num_chunks()?;
    if n > max_chunks {
        let what = "the number of inner chunks of one shard the selection touches";
        return Err(exceeded(Limit::Chunks, max_chunks, n, what));
    }
    let mut reads = Vec::new();
    for read in plan.chunks() {
        reads.push(read?);
    }
    Ok(reads)
}

/// Fetches what a shard read needs (see the module docs).
pub(crate) async fn fetch<S: Store>(
    store: &S,
    sharding: &ShardingCodec,
    chunk: &PlannedChunk,
    options: &ReadOptions,
) -> Result<ShardData> {
    let key = chunk.key.as_str();
    let inner = inner_reads(sharding, &chunk.read, options.limits.max_chunks)?;
    let total = crate::chunk::checked_product(sharding.chunks_per_shard(), "the inner chunk grid")?;
    let wanted = u64::try_from(inner.len()).unwrap_or(u64::MAX);
    if wanted.saturating_mul(2) > total {
        return Ok(match store.get(key).await? {
            None => ShardData::Missing,
            Some(bytes) => ShardData::Whole { bytes, inner },
        });
    }
    let index_range = sharding.index_range()?;
    let index_bytes = match index_range {
        IndexRange::Suffix(n) => store.get_suffix(key, n).await?,
        IndexRange::Prefix(n) => store.get_range(key, ByteRange::Bounded(0..n)).await?,
    };
    let Some(index_bytes) = index_bytes else {
        return Ok(ShardData::Missing);
    };
    if u64::try_from(index_bytes.len()).ok() != Some(index_range.len()) {
        return Err(codec(format!(
            "the shard's index is {} bytes; {} bytes were read",
            index_range.len(),
            index_bytes.len()
        )));
    }
    let index = sharding.decode_index(&index_bytes)?;
    let coords: Vec<Vec<u64>> = inner.iter().map(|r| r.coords.clone()).collect();
    let plan = sharding.plan(&index, &coords, None, options.shard_gap)?;
    // Unordered with an index rather than `buffered`: the read loop's FuturesUnordered
    // machinery is already in the module, FuturesOrdered would be a second copy.
    let mut fetched: Vec<Vec<u8>> = vec![Vec::new(); plan.ranges.len()];
    let mut reads = stream::iter(plan.ranges.iter().cloned().enumerate())
        .map(|(i, range)| -> Pending<'_> {
            Box::pin(async move { Finished::Range(read_range(store, key, i, range).await) })
        })
        .buffer_unordered(options.concurrency.max(1));
    while let Some(finished) = reads.next().await {
        let Finished::Range(read) = finished else {
            return Err(stray());
        };
        let (i, bytes) = read?;
        if let Some(slot) = fetched.get_mut(i) {
            *slot = bytes;
        }
    }
    drop(reads);
    Ok(ShardData::Ranged {
        inner,
        plan,
        fetched,
    })
}

/// The inner reads of a fetched shard with each one's stored bytes (`None`: an empty inner
/// chunk); `None` when the shard is missing.
#[allow(clippy::type_complexity)]
fn encoded_parts<'a>(
    sharding: &ShardingCodec,
    data: &'a ShardData,
) -> Result<Option<Vec<(&'a ChunkRead, Option<&'a [u8]>)>>> {
    match data {
        ShardData::Missing => Ok(None),
        ShardData::Whole { bytes, inner } => {
            let len = u64::try_from(bytes.len()).map_err(|_| codec("shard too large".into()))?;
            let range = sharding.index_range()?.resolve(len)?;
            let index_bytes = usize::try_from(range.start)
                .ok()
                .zip(usize::try_from(range.end).ok())
                .and_then(|(s, e)| bytes.get(s..e))
                .ok_or_else(|| codec("the shard is shorter than its index".into()))?;
            let index = sharding.decode_index(index_bytes)?;
            index.validate(len)?;
            let mut parts = Vec::with_capacity(inner.len());
            for read in inner {
                let encoded = match index.chunk(&read.coords)? {
                    None => None,
                    Some(r) => Some(
                        usize::try_from(r.start)
                            .ok()
                            .zip(usize::try_from(r.end).ok())
                            .and_then(|(s, e)| bytes.get(s..e))
                            .ok_or_else(|| codec("an inner chunk lies outside the shard".into()))?,
                    ),
                };
                parts.push((read, encoded));
            }
            Ok(Some(parts))
        }
        ShardData::Ranged {
            inner,
            plan,
            fetched,
        } => {
            let mut parts = Vec::with_capacity(inner.len());
            for (read, planned) in inner.iter().zip(&plan.chunks) {
                parts.push((read, plan.chunk_bytes(planned, fetched)?));
            }
            Ok(Some(parts))
        }
    }
}

/// Decodes what was fetched of a shard into the output.
pub(crate) fn assemble(
    out: &mut Output,
    sharding: &ShardingCodec,
    chunk: &PlannedChunk,
    data: ShardData,
    fill: &Fill,
) -> Result<()> {
    let pipeline = sharding.inner_pipeline();
    let Some(parts) = encoded_parts(sharding, &data)? else {
        return out.fill(&chunk.read, fill);
    };
    for (read, encoded) in parts {
        match encoded {
            None => out.fill(read, fill)?,
            Some(encoded) => out
                .decode(read, pipeline, encoded)
                .map_err(|e| at_inner(e, &read.coords))?,
        }
    }
    Ok(())
}

/// Has `hook` decode the inner chunks of a fetched shard into its output, all at once (a
/// missing shard and empty inner chunks are the fill value the output starts with).
pub(crate) async fn decode_with<H: DecodeHook>(
    hook: &H,
    sharding: &ShardingCodec,
    data: ShardData,
) -> Result<()> {
    let Some(parts) = encoded_parts(sharding, &data)? else {
        return Ok(());
    };
    let count = parts.len();
    let mut decodes = stream::iter(parts)
        .map(|(read, encoded)| -> Pending<'_> {
            Box::pin(async move {
                Finished::Decoded(match encoded {
                    None => Ok(()),
                    Some(bytes) => hook
                        .decode(bytes, ChunkPart::Inner, read)
                        .await
                        .map_err(|e| at_inner(e, &read.coords)),
                })
            })
        })
        // All at once, as `try_join_all` would, in the one FuturesUnordered machinery.
        .buffer_unordered(count.max(1));
    while let Some(finished) = decodes.next().await {
        let Finished::Decoded(done) = finished else {
            return Err(stray());
        };
        done?;
    }
    Ok(())
}

/// Bytes `range` of shard `key`, the `i`th range of the shard's read plan.
async fn read_range<S: Store>(
    store: &S,
    key: &str,
    i: usize,
    range: std::ops::Range<u64>,
) -> Result<(usize, Vec<u8>)> {
    let want = range.end.saturating_sub(range.start);
    match store
        .get_range(key, ByteRange::Bounded(range.clone()))
        .await?
    {
        Some(bytes) if u64::try_from(bytes.len()).ok() == Some(want) => Ok((i, bytes)),
        Some(bytes) => Err(codec(format!(
            "bytes {}..{} of the shard: {} bytes were read",
            range.start,
            range.end,
            bytes.len()
        ))),
        None => Err(ZomError::new(
            ErrorCode::NotFound,
            "the shard disappeared between the index and the chunk reads",
        )),
    }
}

fn at_inner(mut error: ZomError, coords: &[u64]) -> ZomError {
    error.message = format!("inner chunk {coords:?}: {}", error.message);
    error
}
