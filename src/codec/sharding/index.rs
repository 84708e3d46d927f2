//! Shard indexes and read plans: which byte ranges of a shard hold which inner chunks.

use crate::codec::codec_error;
use crate::error::{ErrorCode, Result, ZomError};
use std::ops::Range;

/// Where a shard's index lives, as a byte range relative to the shard's start or end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexRange {
    /// The first `n` bytes of the shard (`index_location: "start"`).
    Prefix(u64),
    /// The last `n` bytes of the shard (`index_location: "end"`, the default).
    Suffix(u64),
}

impl IndexRange {
    /// The index's length in bytes.
    pub fn len(&self) -> u64 {
        match *self {
            IndexRange::Prefix(n) | IndexRange::Suffix(n) => n,
        }
    }

    /// Whether the index is empty (never, for a valid shard).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The absolute byte range of the index in a shard of `shard_len` bytes.
    pub fn resolve(&self, shard_len: u64) -> Result<Range<u64>> {
        let n = self.len();
        if n > shard_len {
            return Err(codec_error(format!(
                "the shard has {shard_len} bytes, too few for its {n}-byte index"
            )));
        }
        Ok(match *self {
            IndexRange::Prefix(n) => 0..n,
            IndexRange::Suffix(n) => shard_len - n..shard_len,
        })
    }
}

/// A decoded shard index: for each inner chunk (C order over the chunks-per-shard grid) its
/// byte range in the shard, or `None` when the chunk is empty (not written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardIndex {
    chunks_per_shard: Vec<u64>,
    entries: Vec<Option<Range<u64>>>,
}

impl ShardIndex {
    /// Builds an index from `(offset, nbytes)` pairs (`u64::MAX` twice marks an empty chunk).
    pub(crate) fn from_pairs(chunks_per_shard: Vec<u64>, words: &[u64]) -> Result<ShardIndex> {
        let mut entries = Vec::with_capacity(words.len() / 2);
        for (i, pair) in words.chunks_exact(2).enumerate() {
            let (offset, nbytes) = (pair[0], pair[1]);
            entries.push(match (offset, nbytes) {
                (u64::MAX, u64::MAX) => None,
                (u64::MAX, _) | (_, u64::MAX) => {
                    return Err(codec_error(format!(
                        "shard index entry {i} is half empty ({offset}, {nbytes})"
                    )))
                }
                _ => Some(
                    offset
                        ..offset.checked_add(nbytes).ok_or_else(|| {
                            codec_error(format!("shard index entry {i} overflows"))
                        })?,
                ),
            });
        }
        Ok(ShardIndex {
            chunks_per_shard,
            entries,
        })
    }

    /// The shape of the grid of inner chunks.
    pub fn chunks_per_shard(&self) -> &[u64] {
        &self.chunks_per_shard
    }

    /// Every entry, in C order over the inner chunk grid.
    pub fn entries(&self) -> &[Option<Range<u64>>] {
        &self.entries
    }

    /// The C-order position of inner chunk `coords`.
    pub fn linear(&self, coords: &[u64]) -> Result<usize> {
        if coords.len() != self.chunks_per_shard.len() {
            return Err(ZomError::new(
                ErrorCode::InvalidSelection,
                format!(
                    "inner chunk coordinates have {} dimensions, the shard has {}",
                    coords.len(),
                    self.chunks_per_shard.len()
                ),
            ));
        }
        let mut index = 0u64;
        for (&c, &n) in coords.iter().zip(&self.chunks_per_shard) {
            if c >= n {
                return Err(ZomError::new(
                    ErrorCode::InvalidSelection,
                    format!("inner chunk coordinate {c} is outside the shard's {n} chunks"),
                ));
            }
            index = index
                .checked_mul(n)
                .and_then(|i| i.checked_add(c))
                .ok_or_else(|| codec_error("inner chunk index overflows"))?;
        }
        usize::try_from(index).map_err(|_| codec_error("inner chunk index overflows"))
    }

    /// The byte range of inner chunk `coords`, or `None` when it is empty.
    pub fn chunk(&self, coords: &[u64]) -> Result<Option<Range<u64>>> {
        let i = self.linear(coords)?;
        self.entries
            .get(i)
            .cloned()
            .ok_or_else(|| codec_error("the shard index is shorter than its grid"))
    }

    /// What the index takes in memory, in bytes (its ranges and its grid).
    pub fn memory_bytes(&self) -> u64 {
        let entry = std::mem::size_of::<Option<Range<u64>>>();
        let bytes = self.entries.len().saturating_mul(entry)
            + self.chunks_per_shard.len().saturating_mul(8);
        u64::try_from(bytes).unwrap_or(u64::MAX)
    }

    /// Checks that every range fits in a shard of `shard_len` bytes.
    pub fn validate(&self, shard_len: u64) -> Result<()> {
        for (i, entry) in self.entries.iter().enumerate() {
            if let Some(range) = entry {
                if range.end > shard_len {
                    return Err(codec_error(format!(
                        "inner chunk {i} ({}..{}) lies outside the {shard_len}-byte shard",
                        range.start, range.end
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Where one wanted inner chunk's bytes are in a [`ReadPlan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkLocation {
    /// The chunk is empty: it reads as the fill value.
    Empty,
    /// The chunk's bytes are `start..start + len` inside merged range number `range`.
    InRange {
        /// Index into [`ReadPlan::ranges`].
        range: usize,
        /// Offset of the chunk's bytes inside that range.
        start: u64,
        /// The chunk's encoded length.
        len: u64,
    },
}

/// One wanted inner chunk and where its bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedChunk {
    /// The inner chunk's coordinates in the shard's chunk grid.
    pub coords: Vec<u64>,
    /// Where its bytes are.
    pub location: ChunkLocation,
}

/// The byte ranges to fetch from a shard for some inner chunks, merged where they touch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    /// Absolute byte ranges of the shard to fetch, sorted, non-overlapping.
    pub ranges: Vec<Range<u64>>,
    /// The wanted chunks, in the order they were asked for.
    pub chunks: Vec<PlannedChunk>,
}

impl ReadPlan {
    /// Plans the reads of `wanted` inner chunks. Ranges closer than `max_gap` bytes are merged
    /// into one (0: only touching or overlapping ranges). With `shard_len`, every range is
    /// checked to lie inside the shard.
    pub fn new(
        index: &ShardIndex,
        wanted: &[Vec<u64>],
        shard_len: Option<u64>,
        max_gap: u64,
    ) -> Result<ReadPlan> {
        let mut found: Vec<(Vec<u64>, Option<Range<u64>>)> = Vec::with_capacity(wanted.len());
        for coords in wanted {
            let range = index.chunk(coords)?;
            if let (Some(r), Some(len)) = (&range, shard_len) {
                if r.end > len {
                    return Err(codec_error(format!(
                        "inner chunk {coords:?} ({}..{}) lies outside the {len}-byte shard",
                        r.start, r.end
                    )));
                }
            }
            found.push((coords.clone(), range));
        }
        let mut sorted: Vec<Range<u64>> = found.iter().filter_map(|(_, r)| r.clone()).collect();
        crate::sort::heap_sort(&mut sorted, |a, b| (a.start, a.end) < (b.start, b.end));
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for r in sorted {
            match ranges.last_mut() {
                Some(last) if r.start <= last.end.saturating_add(max_gap) => {
                    last.end = last.end.max(r.end);
                }
                _ => ranges.push(r),
            }
        }
        let chunks = found
            .into_iter()
            .map(|(coords, range)| {
                let location = match range {
                    None => ChunkLocation::Empty,
                    Some(r) => {
                        // The merged range that contains it (ranges are sorted).
                        let i = ranges.partition_point(|m| m.end < r.end);
                        let m = ranges.get(i).cloned().unwrap_or(0..0);
                        ChunkLocation::InRange {
                            range: i,
                            start: r.start.saturating_sub(m.start),
                            len: r.end - r.start,
                        }
                    }
                };
                PlannedChunk { coords, location }
            })
            .collect();
        Ok(ReadPlan { ranges, chunks })
    }

    /// The encoded bytes of a planned chunk, given the fetched bytes of every range in
    /// [`ReadPlan::ranges`] order (`None` for an empty chunk).
    pub fn chunk_bytes<'a>(
        &self,
        chunk: &PlannedChunk,
        fetched: &'a [Vec<u8>],
    ) -> Result<Option<&'a [u8]>> {
        match chunk.location {
            ChunkLocation::Empty => Ok(None),
            ChunkLocation::InRange { range, start, len } => {
                let data = fetched
                    .get(range)
                    .ok_or_else(|| ZomError::invalid_argument("a fetched range is missing"))?;
                let start = usize::try_from(start).map_err(|_| codec_error("offset too large"))?;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| start.checked_add(l))
                    .ok_or_else(|| codec_error("range too large"))?;
                data.get(start..end)
                    .map(Some)
                    .ok_or_else(|| codec_error("a fetched range is shorter than the plan says"))
            }
        }
    }
}
