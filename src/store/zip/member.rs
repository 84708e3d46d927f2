//! Reading one member: which bytes of the archive to fetch ([`ZipIndex::plan`]), and the
//! member's bytes from them ([`ZipIndex::accept`]: its local header checked, inflated, its
//! CRC-32 compared).

use super::bytes::{u16_at, u32_at};
use super::{Method, ZipIndex};
use crate::codec::lazy::inflate;
use crate::codec::SizeBound;
use crate::error::{ErrorCode, Result, ZomError};
use crate::store::ByteRange;
use std::ops::Range;

const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const LOCAL_LEN: u64 = 30;
/// DEFLATE's largest expansion: a stored byte takes at least 1/1032 of a byte.
const DEFLATE_RATIO: u64 = 1032;

/// What a store call wants of a member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// All of it, refused with `LimitExceeded` when longer than this many bytes.
    Whole(u64),
    /// A byte range of it.
    Range(ByteRange),
}

/// What to fetch for a [`Want`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetch {
    /// The member's local header and data: pass them to [`ZipIndex::accept`].
    Member(Range<u64>),
    /// The local header's fixed part, where the data starts: pass it to
    /// [`ZipIndex::accept`] (which records it), then plan again.
    Header(Range<u64>),
    /// This range of the archive is the answer (a range of a stored member).
    Archive(Range<u64>),
    /// The answer is empty (a range at or past the member's end).
    Empty,
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

fn refuse(code: ErrorCode, message: String, key: &str) -> ZomError {
    ZomError::new(code, format!("zip: {message}")).at_key(key)
}

fn too_long(size: u64, max: u64, key: &str) -> ZomError {
    let message = format!("a member of {size} bytes (at most {max})");
    refuse(ErrorCode::LimitExceeded, message, key)
}

impl ZipIndex {
    /// What to fetch for `want` of the member at `key` (`None`: no such member). Encrypted
    /// members and methods other than stored and deflated are `UnknownCodec`.
    pub fn plan(&self, key: &str, want: &Want) -> Result<Option<Fetch>> {
        let Some(entry) = self.entry(key) else {
            return Ok(None);
        };
        let (size, packed) = (entry.size, entry.compressed);
        let problem = match entry.method {
            _ if entry.encrypted => {
                Some((ErrorCode::UnknownCodec, "the member is encrypted".into()))
            }
            Method::Other(n) => Some((
                ErrorCode::UnknownCodec,
                format!("compression method {n} is not supported (stored and deflated are)"),
            )),
            Method::Stored if packed != size => Some((
                ErrorCode::InvalidMetadata,
                format!("a stored member of {size} bytes declares {packed} bytes of data"),
            )),
            Method::Deflated if size > packed.saturating_mul(DEFLATE_RATIO).saturating_add(64) => {
                Some((
                    ErrorCode::CodecError,
                    format!("{packed} bytes cannot inflate to the {size} the directory declares"),
                ))
            }
            _ => None,
        };
        if let Some((code, message)) = problem {
            return Err(refuse(code, message, key));
        }
        let header = entry.header..entry.header.saturating_add(LOCAL_LEN);
        let (start, end) = match want {
            Want::Whole(max) if size > *max => return Err(too_long(size, *max, key)),
            Want::Whole(_) => {
                return Ok(Some(match entry.data {
                    Some(data) => Fetch::Member(entry.header..data.saturating_add(packed)),
                    None => Fetch::Header(header),
                }))
            }
            Want::Range(ByteRange::Bounded(r)) => {
                let start = r.start.min(size);
                (start, r.end.clamp(start, size))
            }
            Want::Range(ByteRange::Suffix(n)) => (size.saturating_sub(*n), size),
        };
        Ok(Some(match (entry.method, entry.data) {
            _ if start == end => Fetch::Empty,
            (Method::Stored, Some(data)) => {
                Fetch::Archive(data.saturating_add(start)..data.saturating_add(end))
            }
            (Method::Stored, None) => Fetch::Header(header),
            _ => Fetch::Decoded(start..end),
        }))
    }

    /// Takes what a [`Fetch::Member`] or [`Fetch::Header`] fetched. The local header says
    /// where the data starts: when that is not where the plan assumed (or nothing was known),
    /// it is recorded and the answer is `None` (plan again); otherwise the member's bytes,
    /// inflated and checked against the CRC-32. A member longer than `max` is refused.
    pub fn accept(&mut self, key: &str, fetched: &[u8], max: u64) -> Result<Option<Vec<u8>>> {
        if u32_at(fetched, 0) != Some(LOCAL_SIGNATURE) {
            let message = "no local header where the directory points".into();
            return Err(refuse(ErrorCode::InvalidMetadata, message, key));
        }
        let lengths = [26, 28].map(|at| u64::from(u16_at(fetched, at).unwrap_or(0)));
        let start = LOCAL_LEN + lengths[0] + lengths[1];
        let Some(entry) = self.entry_mut(key) else {
            return Ok(None);
        };
        let actual = entry.header.saturating_add(start);
        if entry.data != Some(actual) {
            entry.data = Some(actual);
            return Ok(None);
        }
        let (size, method, crc32) = (entry.size, entry.method, entry.crc32);
        let data = usize::try_from(start)
            .ok()
            .zip(usize::try_from(start.saturating_add(entry.compressed)).ok())
            .and_then(|(a, b)| fetched.get(a..b));
        let Some(data) = data else {
            let message = "the member's data is truncated".into();
            return Err(refuse(ErrorCode::InvalidMetadata, message, key));
        };
        let len = usize::try_from(size).ok().filter(|_| size <= max);
        let Some(len) = len else {
            return Err(too_long(size, max, key));
        };
        let value = if method == Method::Stored {
            data.to_vec()
        } else {
            let bound = SizeBound::Exact(len as u64);
            inflate("raw", data, bound, "zip deflate").map_err(|e| e.at_key(key))?
        };
        let sum = zom_kernels::crc32(&value);
        if sum != crc32 {
            let message =
                format!("the member's CRC-32 is {sum:08x}, the directory says {crc32:08x}");
            return Err(refuse(ErrorCode::ChecksumMismatch, message, key));
        }
        Ok(Some(value))
    }
}
