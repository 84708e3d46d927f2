//! Region reads: a selection of an array fetched with only the requests it needs, decoded and
//! assembled into one C-order output.
//!
//! The read plan lists the chunks the selection touches; their requests are all put in flight
//! at once, as far as [`ReadOptions::bytes_in_flight`] allows (what the chunks in flight may
//! cost in memory), and each chunk is decoded into the output as soon as it arrives, straight
//! into place when it is one block of the output. How many requests the store itself runs at
//! once is the store's business (JS `FetchStore`'s `concurrency`). Missing chunks read as the
//! fill value. Sharded arrays read only the parts of shards they need (see the `shard`
//! module: the index, kept by the array for later reads, and merged inner chunk ranges, or the
//! whole shard when most of it is wanted).
//!
//! With a [`DecodeHook`] the decoding happens elsewhere (the JS bindings: a pool of workers):
//! each fetched chunk's bytes (for shards: each inner chunk's) go to the hook as soon as they
//! arrive, with the chunk's placement in the output, which the hook keeps; fetching and
//! decoding overlap while the plan stays on this thread.
//!
//! With a [`ChunkCache`](super::ChunkCache) ([`read_cached`]) each chunk (for shards: each
//! inner chunk) is looked up before anything is asked of the store: a cached chunk is placed
//! into the output as a decoded one is (by the hook when it keeps the output), without a
//! request or a decode; a shard whose wanted inner chunks are all cached is not read at all,
//! not even its index.
//! Chunks read are kept in the cache (those decoded by the hook come back from it).

use super::array::{ArrayReader, ChunkValues};
use super::cache::Cached;
use super::hook::{
    place_cached, ChunkPart, DecodeHook, ExternalCodecs, NoHook, ReadContext, ReadOptions,
};
use super::output::{Fill, Output};
use super::pending::{stray, Fetched, Finished, InFlight, Pending};
use super::shard;
use crate::chunk::{DimSelection, PlannedChunk, Selection};
use crate::codec::DecodedChunk;
use crate::error::{ErrorCode, Result, ZomError};
use crate::store::Store;
use std::rc::Rc;

/// How far a read is: chunks (or shards) done out of the total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadProgress {
    /// Chunks or shards decoded.
    pub done: u64,
    /// Chunks or shards the selection touches.
    pub total: u64,
    /// Chunks (for shards: inner chunks) taken from the cache so far, without a request.
    pub cached: u64,
}

/// Reads `selection` of the array: its values in C order, integer-selected dimensions
/// dropped. `progress` is called after each chunk (or shard).
///
/// Errors carry the array's path and, for chunk errors, the chunk's key.
pub async fn read<S: Store>(
    store: &S,
    reader: &ArrayReader,
    selection: &Selection,
    options: &ReadOptions,
    progress: &mut dyn FnMut(ReadProgress),
) -> Result<ChunkValues> {
    read_with::<S, NoHook>(store, reader, selection, options, None, progress).await
}

/// [`read`], with the chunks decoded by `hook` when one is given (see the module docs).
pub async fn read_with<S: Store, H: DecodeHook>(
    store: &S,
    reader: &ArrayReader,
    selection: &Selection,
    options: &ReadOptions,
    hook: Option<&H>,
    progress: &mut dyn FnMut(ReadProgress),
) -> Result<ChunkValues> {
    let context = ReadContext::default();
    read_cached(store, reader, selection, options, hook, context, progress).await
}

/// [`read_with`], through the context's cache when it has one (see the module docs), its
/// registered codecs applied by the context's [`ExternalCodecs`].
pub async fn read_cached<S: Store, H: DecodeHook>(
    store: &S,
    reader: &ArrayReader,
    selection: &Selection,
    options: &ReadOptions,
    hook: Option<&H>,
    context: ReadContext<'_>,
    progress: &mut dyn FnMut(ReadProgress),
) -> Result<ChunkValues> {
    let ReadContext { cache, external } = context;
    let layout = reader.layout();
    let path = layout.path.as_str();
    let plan = layout.plan(selection)?;
    // Both limits before the chunk list is built: a million keys take a while.
    let item = Output::check_size(&plan, reader.data_type(), &options.limits)
        .map_err(|e| e.at_path(path))?;
    let chunks = layout.planned_chunks(&plan, options.limits.max_chunks)?;
    let fill = Fill::of(reader.data_type(), reader.fill_value()).map_err(|e| e.at_path(path))?;
    let (hook, mut out) = match (hook, &fill) {
        (Some(hook), Fill::Element(e)) => {
            let decodes = chunks
                .iter()
                .fold(0u64, |n, c| n.saturating_add(chunk_decodes(reader, c)));
            hook.share(plan.output_len()?.saturating_mul(item), e, decodes)
                .map_err(|e| e.at_path(path))?;
            (Some(hook), Output::Shared)
        }
        _ => (
            None,
            Output::allocate(&plan, reader.data_type(), &options.limits)
                .map_err(|e| e.at_path(path))?,
        ),
    };
    let total = u64::try_from(chunks.len()).unwrap_or(u64::MAX);
    let mut now = ReadProgress {
        done: 0,
        total,
        cached: 0,
    };
    progress(now);
    let sharding = reader.pipeline().sharding();
    let indexes = reader.shard_indexes();
    // The cached chunks of a plain array are placed first, without a request; the others
    // are read. (A shard's inner chunks are looked up where the shard is read.)
    let mut misses = Vec::with_capacity(chunks.len());
    for chunk in &chunks {
        let hit = match sharding {
            None => cache.and_then(|c| c.get(&chunk.key, &[])),
            Some(_) => None,
        };
        let Some(hit) = hit else {
            misses.push(chunk);
            continue;
        };
        place_cached(&mut out, hook, &chunk.read, &hit, &fill)
            .map_err(|e| e.at_key(chunk.key.as_str()).at_path(path))?;
        now.cached = now.cached.saturating_add(1);
        now.done = now.done.saturating_add(1);
        progress(now);
    }
    // One loop for plain and sharded arrays, of the one future type of `super::pending`.
    let cost = |chunk: &PlannedChunk| chunk_cost(reader, chunk);
    let mut fetches = InFlight::new(
        misses,
        options.bytes_in_flight,
        cost,
        |chunk| -> Pending<'_> {
            Box::pin(async move {
                let key = chunk.key.as_str();
                let fetched = match (sharding, hook) {
                    (Some(_), hook) => {
                        let fetch = match reader.pipeline_for(&chunk.read.chunk_shape) {
                            Err(e) => Err(e),
                            Ok(pipeline) => match pipeline.sharding() {
                                None => Err(not_sharded()),
                                Some(sharding) => {
                                    shard::fetch(store, sharding, indexes, chunk, options, cache)
                                        .await
                                }
                            },
                        };
                        match fetch {
                            Err(e) => Err(e),
                            Ok(data) => match hook {
                                None => Ok(Fetched::Shard(data)),
                                Some(hook) => shard::decode_with(hook, key, data, cache)
                                    .await
                                    .map(Fetched::Inner),
                            },
                        }
                    }
                    (None, hook) => match (fetch_chunk(store, reader, chunk, external).await, hook)
                    {
                        (Err(e), _) => Err(e),
                        (Ok(None), _) => Ok(Fetched::Missing),
                        (Ok(Some(bytes)), None) => Ok(Fetched::Encoded(bytes)),
                        // One call either way (one await in the state machine): a hook
                        // gives bytes back only when it is asked to keep them.
                        (Ok(Some(bytes)), Some(hook)) => hook
                            .decode_keep(&bytes, ChunkPart::Chunk, &chunk.read)
                            .await
                            .map(Fetched::Decoded),
                    },
                };
                Finished::Chunk(chunk, fetched)
            })
        },
    );
    while let Some(finished) = fetches.next().await {
        let Finished::Chunk(chunk, fetched) = finished else {
            return Err(stray().at_path(path));
        };
        let key = chunk.key.as_str();
        let locate = |e: ZomError| e.at_key(key).at_path(path);
        let keep = |value: Cached| {
            if let Some(cache) = cache {
                cache.put(key, &[], value);
            }
        };
        match fetched.map_err(locate)? {
            Fetched::Missing => {
                keep(None);
                out.fill(&chunk.read, &fill)
            }
            Fetched::Encoded(bytes) => reader
                .pipeline_for(&chunk.read.chunk_shape)
                .and_then(|pipeline| out.decode(&chunk.read, &pipeline, &bytes, cache.is_some()))
                .map(|decoded| keep(decoded.map(Rc::new))),
            Fetched::Decoded(decoded) => {
                if let Some(bytes) = decoded {
                    keep(Some(Rc::new(DecodedChunk::Fixed(bytes))));
                }
                Ok(())
            }
            Fetched::Inner(hits) => {
                now.cached = now.cached.saturating_add(hits);
                Ok(())
            }
            Fetched::Shard(data) => {
                now.cached = now.cached.saturating_add(data.hits());
                reader
                    .pipeline_for(&chunk.read.chunk_shape)
                    .and_then(|pipeline| match pipeline.sharding() {
                        Some(sharding) => {
                            shard::assemble(&mut out, sharding, chunk, data, &fill, cache)
                        }
                        None => Err(not_sharded()),
                    })
            }
        }
        .map_err(locate)?;
        now.done = now.done.saturating_add(1);
        progress(now);
    }
    Ok(ChunkValues {
        shape: plan.output_shape().to_vec(),
        data: out.into_chunk(),
    })
}

/// The error of a shard whose chunk shape's pipeline has no sharding codec (every shape's
/// pipeline is built from the same codecs: not met in practice).
fn not_sharded() -> ZomError {
    ZomError::new(
        ErrorCode::CodecError,
        "the shard's codec pipeline has no sharding codec",
    )
}

/// How many decodes a planned chunk takes: 1, or for a shard the inner chunks the read wants
/// of it.
fn chunk_decodes(reader: &ArrayReader, chunk: &PlannedChunk) -> u64 {
    match reader.pipeline().sharding() {
        None => 1,
        Some(sharding) => chunk
            .read
            .inner_plan(sharding.inner_chunk_shape())
            .and_then(|plan| plan.num_chunks())
            .unwrap_or(u64::MAX),
    }
}

/// What a chunk in flight costs, for [`ReadOptions::bytes_in_flight`]: its decoded bytes
/// (variable-length values: 16 bytes each); for a shard, those of the inner chunks the read
/// wants of it.
fn chunk_cost(reader: &ArrayReader, chunk: &PlannedChunk) -> u64 {
    let item = reader.data_type().fixed_size().unwrap_or(16);
    let shape = match reader.pipeline().sharding() {
        None => chunk.read.chunk_shape.as_slice(),
        Some(sharding) => sharding.inner_chunk_shape(),
    };
    shape
        .iter()
        .fold(item, |n, &d| n.saturating_mul(d))
        .saturating_mul(chunk_decodes(reader, chunk))
}

/// The bytes of a (non-sharded) chunk as zom's pipeline decodes them: the stored value, with
/// the codecs the caller implements applied first by `external` (`crate::codec::ExternalStep`).
async fn fetch_chunk<S: Store>(
    store: &S,
    reader: &ArrayReader,
    chunk: &PlannedChunk,
    external: Option<&dyn ExternalCodecs>,
) -> Result<Option<Vec<u8>>> {
    let key = chunk.key.as_str();
    let bound = reader.pipeline_for(&chunk.read.chunk_shape)?.stored_bound();
    let stored = stored_chunk(store, key, bound).await?;
    let steps = reader.pipeline().external();
    match (stored, external) {
        (Some(_), None) if !steps.is_empty() => {
            Err(crate::codec::external::unapplied(steps).at_key(key))
        }
        (Some(bytes), Some(external)) if !steps.is_empty() => {
            external.apply(key, steps, bytes).await.map(Some)
        }
        (other, _) => Ok(other),
    }
}

/// The stored bytes of chunk `key`, the store asked for no more than `bound` (what the codecs
/// can produce, [`CodecPipeline::stored_bound`]; none: as much as it has): a longer value is a
/// corrupt chunk, refused before it is read where the store can tell its length, and checked
/// here otherwise.
///
/// [`CodecPipeline::stored_bound`]: crate::codec::CodecPipeline::stored_bound
async fn stored_chunk<S: Store>(
    store: &S,
    key: &str,
    bound: Option<u64>,
) -> Result<Option<Vec<u8>>> {
    let Some(bound) = bound else {
        return store.get(key).await;
    };
    let corrupt = |what: String| {
        let message = format!("the stored chunk is longer than its codecs can produce ({what})");
        ZomError::new(ErrorCode::CodecError, message).at_key(key)
    };
    match store.get_within(key, bound).await {
        Err(e) if e.code == ErrorCode::LimitExceeded => Err(corrupt(e.message)),
        Ok(Some(bytes)) if bytes.len() as u64 > bound => {
            Err(corrupt(format!("{} bytes, at most {bound}", bytes.len())))
        }
        other => other,
    }
}

/// Reads one chunk, cut to the array: for a sharded array an inner chunk (coordinates in
/// [`ArrayReader::read_grid`]), fetched with the shard's index and its range.
pub async fn read_chunk<S: Store>(
    store: &S,
    reader: &ArrayReader,
    coords: &[u64],
    options: &ReadOptions,
) -> Result<ChunkValues> {
    read_chunk_with::<S, NoHook>(store, reader, coords, options, None).await
}

/// [`read_chunk`], with the chunk decoded by `hook` when one is given.
pub async fn read_chunk_with<S: Store, H: DecodeHook>(
    store: &S,
    reader: &ArrayReader,
    coords: &[u64],
    options: &ReadOptions,
    hook: Option<&H>,
) -> Result<ChunkValues> {
    let selection = chunk_selection(reader, coords)?;
    read_with(store, reader, &selection, options, hook, &mut |_| {}).await
}

/// The selection of the chunk at `coords` (for a sharded array an inner chunk, in
/// [`ArrayReader::read_grid`]), cut to the array: what [`read_chunk`] reads.
pub fn chunk_selection(reader: &ArrayReader, coords: &[u64]) -> Result<Selection> {
    let path = reader.layout().path.as_str();
    let grid = reader.read_grid().map_err(|e| e.at_path(path))?;
    let region = grid.chunk_region(coords).map_err(|e| e.at_path(path))?;
    let to_i64 = |v: u64| {
        i64::try_from(v).map_err(|_| {
            ZomError::new(ErrorCode::LimitExceeded, "array dimension beyond 2^63").at_path(path)
        })
    };
    let mut dims = Vec::with_capacity(region.start.len());
    for (&start, &len) in region.start.iter().zip(&region.shape) {
        dims.push(DimSelection::slice(
            Some(to_i64(start)?),
            Some(to_i64(start.saturating_add(len))?),
            None,
        ));
    }
    Ok(Selection(dims))
}
