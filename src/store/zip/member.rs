//! Reading one member: which bytes of the archive to fetch, and the member's bytes from them
//! (its local header checked, inflated, its CRC-32 compared).

use super::bytes::{u16_at, u32_at};
use super::{Method, ZipIndex};
use crate::codec::compress::{inflate_into, Wrapper};
use crate::error::{ErrorCode, Result, ZomError};
use crate::store::ByteRange;
use std::ops::Range;

const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const LOCAL_LEN: u64 = 30;
/// DEFLATE's largest expansion: a stored byte takes at least 1/1032 of a byte.
const DEFLATE_RATIO: u64 = 1032;

/// What to fetch for a whole member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WholeFetch {
    /// The local header and the data: pass them to [`ZipIndex::take_whole`].
    Member(Range<u64>),
    /// The local header's fixed part, where the data starts: pass it to [`ZipIndex::learn`],
    /// then ask again.
    Header(Range<u64>),
}

/// What to fetch for a byte range of a member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RangeFetch {
    /// This range of the archive is the answer (a stored member).
    Archive(Range<u64>),
    /// The answer is empty (a range at or past the member's end).
    Empty,
    /// The local header's fixed part: pass it to [`ZipIndex::learn`], then ask again.
    Header(Range<u64>),
    /// A compressed member: read it whole, then keep this range of it ([`cut`]).
    Decoded(Range<u64>),
}

/// Bytes `range` of a member read whole (fewer past its end).
pub fn cut(whole: &[u8], range: Range<u64>) -> &[u8] {
    let at = |n: u64| usize::try_from(n).unwrap_or(usize::MAX).min(whole.len());
    whole
        .get(at(range.start)..at(range.end))
        .unwrap_or_default()
}

fn unreadable(message: String) -> ZomError {
    ZomError::new(ErrorCode::UnknownCodec, message)
}

impl ZipIndex {
    fn readable(&self, key: &str) -> Result<Option<&super::Entry>> {
        let Some(entry) = self.entry(key) else {
            return Ok(None);
        };
        let located = |e: ZomError| Err(e.at_key(key));
        if entry.encrypted {
            return located(unreadable("zip: the member is encrypted".into()));
        }
        match entry.method {
            Method::Other(n) => located(unreadable(format!(
                "zip: compression method {n} is not supported (stored and deflated are)"
            ))),
            Method::Stored if entry.compressed != entry.size => {
                located(ZomError::invalid_metadata(format!(
                    "zip: a stored member of {} bytes declares {} bytes of data",
                    entry.size, entry.compressed
                )))
            }
            Method::Deflated
                if entry.size
                    > entry
                        .compressed
                        .saturating_mul(DEFLATE_RATIO)
                        .saturating_add(64) =>
            {
                located(ZomError::new(
                    ErrorCode::CodecError,
                    format!(
                        "zip: {} bytes cannot inflate to the {} the directory declares",
                        entry.compressed, entry.size
                    ),
                ))
            }
            _ => Ok(Some(entry)),
        }
    }

    /// What to fetch for the whole member at `key` (`None`: no such member). A member longer
    /// than `max` bytes is refused with `LimitExceeded`.
    pub fn whole(&self, key: &str, max: u64) -> Result<Option<WholeFetch>> {
        let Some(entry) = self.readable(key)? else {
            return Ok(None);
        };
        if entry.size > max {
            return Err(ZomError::new(
                ErrorCode::LimitExceeded,
                format!("zip: a member of {} bytes (at most {max})", entry.size),
            )
            .at_key(key));
        }
        Ok(Some(match entry.data {
            Some(data) => WholeFetch::Member(entry.header..data.saturating_add(entry.compressed)),
            None => WholeFetch::Header(entry.header..entry.header.saturating_add(LOCAL_LEN)),
        }))
    }

    /// What to fetch for bytes `range` of the member at `key` (`None`: no such member).
    pub fn range(&self, key: &str, range: &ByteRange) -> Result<Option<RangeFetch>> {
        let Some(entry) = self.readable(key)? else {
            return Ok(None);
        };
        let size = entry.size;
        let (start, end) = match range {
            ByteRange::Bounded(r) => {
                let start = r.start.min(size);
                (start, r.end.clamp(start, size))
            }
            ByteRange::Suffix(n) => (size.saturating_sub(*n), size),
        };
        Ok(Some(if start == end {
            RangeFetch::Empty
        } else if entry.method != Method::Stored {
            RangeFetch::Decoded(start..end)
        } else {
            match entry.data {
                Some(data) => {
                    RangeFetch::Archive(data.saturating_add(start)..data.saturating_add(end))
                }
                None => RangeFetch::Header(entry.header..entry.header.saturating_add(LOCAL_LEN)),
            }
        }))
    }

    /// Records where the member's data starts from its local header's first 30 bytes.
    pub fn learn(&mut self, key: &str, header: &[u8]) -> Result<()> {
        let start = local_data_start(header).map_err(|e| e.at_key(key))?;
        if let Some(entry) = self.entry_mut(key) {
            entry.data = Some(entry.header.saturating_add(start));
        }
        Ok(())
    }

    /// The member's bytes from what [`WholeFetch::Member`] fetched: `None` when its local
    /// header shows that the data starts elsewhere than the layout suggested (the start is
    /// then recorded: fetch again).
    pub fn take_whole(&mut self, key: &str, fetched: &[u8], max: u64) -> Result<Option<Vec<u8>>> {
        let located = |e: ZomError| e.at_key(key);
        let start = local_data_start(fetched).map_err(located)?;
        let Some(entry) = self.entry_mut(key) else {
            return Ok(None);
        };
        let actual = entry.header.saturating_add(start);
        if entry.data != Some(actual) {
            entry.data = Some(actual);
            return Ok(None);
        }
        let entry = entry.clone();
        let end = start.saturating_add(entry.compressed);
        let data = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, b)| fetched.get(a..b))
            .ok_or_else(|| {
                located(ZomError::invalid_metadata(
                    "zip: the member's data is truncated",
                ))
            })?;
        if entry.size > max {
            return Err(located(ZomError::new(
                ErrorCode::LimitExceeded,
                format!("zip: a member of {} bytes (at most {max})", entry.size),
            )));
        }
        let value = match entry.method {
            Method::Stored => data.to_vec(),
            _ => {
                let len = usize::try_from(entry.size).map_err(|_| {
                    located(ZomError::new(
                        ErrorCode::LimitExceeded,
                        "zip: a member too large for this platform",
                    ))
                })?;
                let mut out = vec![0u8; len];
                inflate_into(data, Wrapper::Raw, &mut out, "zip deflate").map_err(located)?;
                out
            }
        };
        let mut crc = flate2::Crc::new();
        crc.update(&value);
        if crc.sum() != entry.crc32 {
            return Err(located(ZomError::new(
                ErrorCode::ChecksumMismatch,
                format!(
                    "zip: CRC-32 {:08x} of the member, {:08x} in the directory",
                    crc.sum(),
                    entry.crc32
                ),
            )));
        }
        Ok(Some(value))
    }
}

/// The offset of the data from a local header's start (30 bytes, the name, the extra field).
fn local_data_start(header: &[u8]) -> Result<u64> {
    if u32_at(header, 0) != Some(LOCAL_SIGNATURE) {
        return Err(ZomError::invalid_metadata(
            "zip: no local header where the directory points",
        ));
    }
    let name = u16_at(header, 26).unwrap_or(0);
    let extra = u16_at(header, 28).unwrap_or(0);
    Ok(LOCAL_LEN + u64::from(name) + u64::from(extra))
}
