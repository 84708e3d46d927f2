//! What a read is given: its [`ReadOptions`], the [`DecodeHook`] that decodes its chunks
//! elsewhere (with [`place_cached`], which places a cached chunk by the hook or into the
//! output), and its [`ReadContext`] (a chunk cache, the [`ExternalCodecs`] the caller applies).
//! Both `read` and `shard` use them; defined apart so that neither names the other's types
//! for them.

use super::cache::{CacheUse, Cached};
use super::output::{Fill, Output};
use crate::chunk::ChunkRead;
use crate::codec::{DecodedChunk, ExternalStep};
use crate::error::{Result, ZomError};
use crate::limits::Limits;
use futures_util::future::LocalBoxFuture;

/// Which codec pipeline decodes a chunk handed to a [`DecodeHook`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkPart {
    /// A stored chunk: the array's pipeline.
    Chunk,
    /// An inner chunk of a shard: the sharding codec's inner pipeline.
    Inner,
}

/// Decodes chunks of one array elsewhere (in worker threads, for the JS bindings), into an
/// output the hook keeps: the hook decodes with the same array metadata as the reader
/// (fixed-size data types only) and copies each chunk's selected elements into that output
/// where the chunk's [`ChunkRead::placement`] says; [`read_with`](super::read_with) plans,
/// fetches and returns no bytes.
#[allow(async_fn_in_trait)]
pub trait DecodeHook {
    /// Makes the output: `len` bytes, every element set to `fill` (one element's bytes), so
    /// that missing chunks need nothing more. `decodes`: how many chunks (inner chunks) at
    /// most the read will hand to [`DecodeHook::decode`] (1: a tile, whose output is one
    /// chunk's part; sharing the output with other threads then buys nothing).
    fn share(&self, len: u64, fill: &[u8], decodes: u64) -> Result<()>;

    /// Decodes the stored bytes of a chunk (`part` says which pipeline) and copies its
    /// selected elements into the output as `read` says.
    async fn decode(&self, encoded: &[u8], part: ChunkPart, read: &ChunkRead) -> Result<()>;

    /// [`DecodeHook::decode`], giving back the whole decoded chunk's element bytes (C order)
    /// for the read's [`ChunkCache`](super::ChunkCache); `None` (the default:
    /// [`DecodeHook::decode`]) keeps nothing. Readers call this one: a hook used for reads
    /// without a cache may give `None`.
    async fn decode_keep(
        &self,
        encoded: &[u8],
        part: ChunkPart,
        read: &ChunkRead,
    ) -> Result<Option<Vec<u8>>> {
        self.decode(encoded, part, read).await.map(|()| None)
    }

    /// Copies the selected elements of a cached chunk (`decoded`: the whole chunk's element
    /// bytes) into the output as `read` says, as [`DecodeHook::decode`] does once decoded.
    /// The default refuses: a hook without it cannot read with a cache.
    fn place(&self, decoded: &[u8], read: &ChunkRead) -> Result<()> {
        let _ = (decoded, read);
        Err(ZomError::invalid_argument(
            "this decode hook cannot place cached chunks",
        ))
    }
}

/// No hook: [`read`](super::read()) decodes on the calling thread.
#[derive(Debug)]
pub enum NoHook {}

impl DecodeHook for NoHook {
    fn share(&self, _: u64, _: &[u8], _: u64) -> Result<()> {
        match *self {}
    }

    async fn decode(&self, _: &[u8], _: ChunkPart, _: &ChunkRead) -> Result<()> {
        match *self {}
    }
}

/// Applies the codecs the caller implements (an array's trailing registered codecs,
/// [`CodecPipeline::external`](crate::codec::CodecPipeline::external)) to a chunk's stored
/// bytes; zom's pipeline decodes what it gives.
pub trait ExternalCodecs {
    /// The stored `bytes` of chunk `key` with `steps` applied in order.
    fn apply<'a>(
        &'a self,
        key: &'a str,
        steps: &'a [ExternalStep],
        bytes: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>>>;
}

/// What a read uses besides its store, array and options; the default uses neither.
#[derive(Clone, Copy, Default)]
pub struct ReadContext<'a> {
    /// The chunk cache chunks are looked up in and kept in.
    pub cache: Option<CacheUse<'a>>,
    /// What applies the array's registered codecs: an array with some is read only with it.
    pub external: Option<&'a dyn ExternalCodecs>,
}

/// Limits and tuning of a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// What the chunks whose requests are in flight may cost, in bytes: each chunk counts its
    /// decoded size (a shard: its inner chunks the read wants). Chunks are put in flight in
    /// plan order while they fit, and always at least one; default
    /// [`DEFAULT_BYTES_IN_FLIGHT`].
    pub bytes_in_flight: u64,
    /// The limits of the read: `max_bytes` (the output, in bytes; variable-length data:
    /// slots × slot size) and `max_chunks` (chunks, or inner chunks of one shard, a selection
    /// may touch). Chunks decode under the reader's own limits
    /// ([`ArrayReader::open_with_limits`](super::ArrayReader::open_with_limits)).
    pub limits: Limits,
    /// Byte ranges of inner chunks closer than this are fetched as one range.
    pub shard_gap: u64,
}

/// The default [`ReadOptions::bytes_in_flight`]: 64 MiB.
pub const DEFAULT_BYTES_IN_FLIGHT: u64 = 64 << 20;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            bytes_in_flight: DEFAULT_BYTES_IN_FLIGHT,
            limits: Limits::default(),
            shard_gap: 0,
        }
    }
}

/// Places a cached chunk into the output as a decoded one would be: by the hook when it
/// keeps the output (then any missing chunk is the fill value it starts with).
pub(super) fn place_cached<H: DecodeHook>(
    out: &mut Output,
    hook: Option<&H>,
    read: &ChunkRead,
    hit: &Cached,
    fill: &Fill,
) -> Result<()> {
    match (hit.as_deref(), hook) {
        (None, _) => out.fill(read, fill),
        (Some(DecodedChunk::Fixed(bytes)), Some(hook)) => hook.place(bytes, read),
        (Some(chunk), _) => out.copy(read, chunk),
    }
}
