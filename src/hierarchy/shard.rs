//! Partial reads of shards (`sharding_indexed` as an array's only codec).
//!
//! # Which requests
//! For each shard a selection touches, with `n` of its `N` inner chunks intersecting:
//! - the shard's index is known to the array (an earlier read fetched it, see
//!   [`ShardIndexes`]): the byte ranges of the wanted, non-empty inner chunks only, merged
//!   where they touch or lie less than [`ReadOptions::shard_gap`] bytes apart, all
//!   fetched at once. A tile of a shard already touched is one request.
//! - `2n > N` (more than half of the shard is wanted): the whole shard in one request, whose
//!   index the array then keeps. The index request would save less than it costs: on average
//!   the unwanted bytes are fewer than the wanted ones, and one request replaces at least two.
//! - otherwise: the index (a suffix request for `index_location: "end"`, a `0..len` range for
//!   `"start"`; reads of the same shard under way at the same time share this one request),
//!   then the ranges as above. The first inner chunk of a shard therefore costs 2 requests.
//!
//! A shard that does not exist (or whose index says an inner chunk is empty) reads as the
//! fill value.
//!
//! With a cache, `n` counts only the inner chunks not in it: the cached ones are placed from
//! it, and a shard whose wanted inner chunks are all cached is not asked for at all.

use super::cache::{CacheUse, Cached};
use super::hook::{place_cached, ChunkPart, DecodeHook, NoHook, ReadOptions};
use super::indexes::ShardIndexes;
use super::output::{Fill, Output};
use super::pending::{stray, Fetch, Finished, Pending, ShardData};
use crate::chunk::{ChunkRead, PlannedChunk};
use crate::codec::sharding::{IndexRange, ShardIndex, ShardingCodec};
use crate::codec::DecodedChunk;
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{exceeded, Limit};
use crate::store::{ByteRange, Store};
use futures_util::stream::{self, StreamExt};
use std::rc::Rc;
use std::sync::Arc;

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
    indexes: &ShardIndexes,
    chunk: &PlannedChunk,
    options: &ReadOptions,
    cache: Option<CacheUse<'_>>,
) -> Result<ShardData> {
    let key = chunk.key.as_str();
    let mut hits = Vec::new();
    let mut inner = Vec::new();
    for read in inner_reads(sharding, &chunk.read, options.limits.max_chunks)? {
        match cache.and_then(|c| c.get(key, &read.coords)) {
            Some(hit) => hits.push((read, hit)),
            None => inner.push(read),
        }
    }
    let fetch = match inner.is_empty() {
        true => Fetch::Nothing,
        false => fetch_parts(store, sharding, indexes, key, &inner, options).await?,
    };
    Ok(ShardData { hits, inner, fetch })
}

/// Fetches the shard `key` or the parts of it that `inner` needs.
async fn fetch_parts<S: Store>(
    store: &S,
    sharding: &ShardingCodec,
    indexes: &ShardIndexes,
    key: &str,
    inner: &[ChunkRead],
    options: &ReadOptions,
) -> Result<Fetch> {
    let known = indexes.get(key);
    if known.is_none() {
        let total =
            crate::chunk::checked_product(sharding.chunks_per_shard(), "the inner chunk grid")?;
        let wanted = u64::try_from(inner.len()).unwrap_or(u64::MAX);
        if wanted.saturating_mul(2) > total {
            return fetch_whole(store, sharding, indexes, key).await;
        }
    }
    let index = match known {
        Some(index) => index,
        None => {
            indexes
                .get_or_load(key, || async {
                    Ok(read_index(store, sharding, key).await?.map(Arc::new))
                })
                .await?
        }
    };
    let Some(index) = index else {
        return Ok(Fetch::Missing);
    };
    let coords: Vec<Vec<u64>> = inner.iter().map(|r| r.coords.clone()).collect();
    let plan = sharding.plan(&index, &coords, None, options.shard_gap)?;
    // Every range at once: they are the part of the read this shard was admitted with.
    // Unordered with an index rather than `buffered`: the read loop's FuturesUnordered
    // machinery is already in the module, FuturesOrdered would be a second copy.
    let mut fetched: Vec<Vec<u8>> = vec![Vec::new(); plan.ranges.len()];
    let mut reads = stream::iter(plan.ranges.iter().cloned().enumerate())
        .map(|(i, range)| -> Pending<'_> {
            Box::pin(async move { Finished::Range(read_range(store, key, i, range).await) })
        })
        .buffer_unordered(plan.ranges.len().max(1));
    while let Some(finished) = reads.next().await {
        let Finished::Range(read) = finished else {
            return Err(stray());
        };
        let (i, bytes) = read.inspect_err(|e| {
            // The index no longer matches the shard: the next read loads it again.
            if e.code != ErrorCode::Aborted {
                indexes.forget(key);
            }
        })?;
        if let Some(slot) = fetched.get_mut(i) {
            *slot = bytes;
        }
    }
    drop(reads);
    Ok(Fetch::Ranged { plan, fetched })
}

/// Fetches the whole shard `key` and keeps its index (or that it is missing) for the array.
async fn fetch_whole<S: Store>(
    store: &S,
    sharding: &ShardingCodec,
    indexes: &ShardIndexes,
    key: &str,
) -> Result<Fetch> {
    let Some(bytes) = store.get(key).await? else {
        indexes.put(key, None);
        return Ok(Fetch::Missing);
    };
    let index = Arc::new(sharding.index_of(&bytes)?);
    indexes.put(key, Some(Arc::clone(&index)));
    Ok(Fetch::Whole { bytes, index })
}

/// Reads and decodes the index of shard `key` (`None`: the shard does not exist).
async fn read_index<S: Store>(
    store: &S,
    sharding: &ShardingCodec,
    key: &str,
) -> Result<Option<ShardIndex>> {
    let index_range = sharding.index_range()?;
    let index_bytes = match index_range {
        IndexRange::Suffix(n) => store.get_suffix(key, n).await?,
        IndexRange::Prefix(n) => store.get_range(key, ByteRange::Bounded(0..n)).await?,
    };
    let Some(index_bytes) = index_bytes else {
        return Ok(None);
    };
    if u64::try_from(index_bytes.len()).ok() != Some(index_range.len()) {
        return Err(codec(format!(
            "the shard's index is {} bytes; {} bytes were read",
            index_range.len(),
            index_bytes.len()
        )));
    }
    sharding.decode_index(&index_bytes).map(Some)
}

/// The inner reads a shard read fetched, with each one's stored bytes (`None`: an empty
/// inner chunk, or a missing shard).
#[allow(clippy::type_complexity)]
fn encoded_parts(data: &ShardData) -> Result<Vec<(&ChunkRead, Option<&[u8]>)>> {
    let inner = &data.inner;
    let mut parts = Vec::with_capacity(inner.len());
    match &data.fetch {
        Fetch::Nothing => {}
        Fetch::Missing => parts.extend(inner.iter().map(|read| (read, None))),
        Fetch::Whole { bytes, index } => {
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
        }
        Fetch::Ranged { plan, fetched } => {
            for (read, planned) in inner.iter().zip(&plan.chunks) {
                parts.push((read, plan.chunk_bytes(planned, fetched)?));
            }
        }
    }
    Ok(parts)
}

/// Decodes what was fetched of a shard into the output, and places what the cache held;
/// what was read is kept in the cache.
pub(crate) fn assemble(
    out: &mut Output,
    sharding: &ShardingCodec,
    chunk: &PlannedChunk,
    data: ShardData,
    fill: &Fill,
    cache: Option<CacheUse<'_>>,
) -> Result<()> {
    let pipeline = sharding.inner_pipeline();
    for (read, hit) in &data.hits {
        place_cached::<NoHook>(out, None, read, hit, fill)?;
    }
    for (read, encoded) in encoded_parts(&data)? {
        let kept: Option<Cached> = match encoded {
            None => {
                out.fill(read, fill)?;
                Some(None)
            }
            Some(encoded) => out
                .decode(read, pipeline, encoded, cache.is_some())
                .map_err(|e| at_inner(e, &read.coords))?
                .map(|d| Some(Rc::new(d))),
        };
        if let (Some(cache), Some(value)) = (cache, kept) {
            cache.put(&chunk.key, &read.coords, value);
        }
    }
    Ok(())
}

/// Has `hook` decode the inner chunks of a fetched shard (`key`) into its output, all at
/// once (a missing shard and empty inner chunks are the fill value the output starts with),
/// and place those the cache held (returns how many); what was decoded is kept in the cache.
pub(crate) async fn decode_with<H: DecodeHook>(
    hook: &H,
    key: &str,
    data: ShardData,
    cache: Option<CacheUse<'_>>,
) -> Result<u64> {
    for (read, hit) in &data.hits {
        if let Some(DecodedChunk::Fixed(bytes)) = hit.as_deref() {
            hook.place(bytes, read)
                .map_err(|e| at_inner(e, &read.coords))?;
        }
    }
    let parts = encoded_parts(&data)?;
    let count = parts.len();
    let mut decodes = stream::iter(parts)
        .map(|(read, encoded)| -> Pending<'_> {
            Box::pin(async move {
                let decoded = match encoded {
                    None => Ok(Some(None)),
                    Some(bytes) => hook
                        .decode_keep(bytes, ChunkPart::Inner, read)
                        .await
                        .map(|d| d.map(|d| Some(Rc::new(DecodedChunk::Fixed(d))))),
                };
                Finished::Decoded(match decoded {
                    Ok(kept) => {
                        if let (Some(cache), Some(value)) = (cache, kept) {
                            cache.put(key, &read.coords, value);
                        }
                        Ok(())
                    }
                    Err(e) => Err(at_inner(e, &read.coords)),
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
    Ok(data.hits())
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
