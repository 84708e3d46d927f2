//! Region reads: a selection of an array fetched with only the requests it needs, decoded and
//! assembled into one C-order output.
//!
//! The read plan lists the chunks the selection touches; they are fetched concurrently (up
//! to [`ReadOptions::concurrency`] requests in flight) and each is decoded into the output as
//! soon as it arrives, straight into place when it is one block of the output. Missing chunks
//! read as the fill value. Sharded arrays read only the parts of shards they need
//! (see the `shard` module: index + merged inner chunk ranges, or the whole shard when most
//! of it is wanted).

use super::array::{ArrayReader, ChunkValues};
use super::output::{Fill, Output};
use super::shard;
use crate::chunk::{ChunkGrid, DimSelection, Selection};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::Limits;
use crate::store::Store;
use futures_util::stream::{self, StreamExt};

/// Limits and tuning of a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Requests in flight at most (chunks, or shards being read).
    pub concurrency: usize,
    /// The limits of the read: `max_bytes` (the output, in bytes; variable-length data:
    /// slots × slot size) and `max_chunks` (chunks, or inner chunks of one shard, a selection
    /// may touch). Chunks decode under the reader's own limits
    /// ([`ArrayReader::open_with_limits`]).
    pub limits: Limits,
    /// Byte ranges of inner chunks closer than this are fetched as one range.
    pub shard_gap: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            concurrency: 16,
            limits: Limits::default(),
            shard_gap: 0,
        }
    }
}

/// How far a read is: chunks (or shards) done out of the total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadProgress {
    /// Chunks or shards decoded.
    pub done: u64,
    /// Chunks or shards the selection touches.
    pub total: u64,
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
    let layout = reader.layout();
    let path = layout.path.as_str();
    let plan = layout.plan(selection)?;
    // Both limits before the chunk list is built: a million keys take a while.
    Output::check_size(&plan, reader.data_type(), &options.limits).map_err(|e| e.at_path(path))?;
    let chunks = layout.planned_chunks(&plan, options.limits.max_chunks)?;
    let mut out = Output::allocate(&plan, reader.data_type(), &options.limits)
        .map_err(|e| e.at_path(path))?;
    let fill = Fill::of(reader.data_type(), reader.fill_value()).map_err(|e| e.at_path(path))?;
    let total = u64::try_from(chunks.len()).unwrap_or(u64::MAX);
    let mut done = 0u64;
    progress(ReadProgress { done, total });
    let concurrency = options.concurrency.max(1);
    match reader.pipeline().sharding() {
        None => {
            let mut fetches = stream::iter(chunks.iter())
                .map(|chunk| async move { (chunk, store.get(&chunk.key).await) })
                .buffer_unordered(concurrency);
            while let Some((chunk, fetched)) = fetches.next().await {
                let locate = |e: ZomError| e.at_key(chunk.key.clone()).at_path(path);
                match fetched.map_err(locate)? {
                    None => out.fill(&chunk.read, &fill),
                    Some(bytes) => out.decode(&chunk.read, reader.pipeline(), &bytes),
                }
                .map_err(locate)?;
                done = done.saturating_add(1);
                progress(ReadProgress { done, total });
            }
        }
        Some(sharding) => {
            let mut fetches =
                stream::iter(chunks.iter())
                    .map(|chunk| async move {
                        (chunk, shard::fetch(store, sharding, chunk, options).await)
                    })
                    .buffer_unordered(concurrency);
            while let Some((chunk, fetched)) = fetches.next().await {
                let locate = |e: ZomError| e.at_key(chunk.key.clone()).at_path(path);
                let data = fetched.map_err(locate)?;
                shard::assemble(&mut out, sharding, chunk, data, &fill).map_err(locate)?;
                done = done.saturating_add(1);
                progress(ReadProgress { done, total });
            }
        }
    }
    Ok(ChunkValues {
        shape: plan.output_shape().to_vec(),
        data: out.into_chunk(),
    })
}

/// Reads one chunk, cut to the array: for a sharded array an inner chunk (coordinates in the
/// grid of [`ArrayReader::read_chunk_shape`]), fetched with the shard's index and its range.
pub async fn read_chunk<S: Store>(
    store: &S,
    reader: &ArrayReader,
    coords: &[u64],
    options: &ReadOptions,
) -> Result<ChunkValues> {
    let path = reader.layout().path.as_str();
    let grid =
        ChunkGrid::new(reader.shape(), reader.read_chunk_shape()).map_err(|e| e.at_path(path))?;
    grid.check_coords(coords).map_err(|e| e.at_path(path))?;
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
    read(store, reader, &Selection(dims), options, &mut |_| {}).await
}
