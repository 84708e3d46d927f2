//! A zip archive's central directory: found from the archive's last bytes (the end of central
//! directory record, and its Zip64 form), read into one entry per member.
//!
//! Offsets in the records are absolute; the tail read gives bytes counted from the end, so the
//! tail's own position is worked out from the records (the end record lies right after the
//! directory, or after the Zip64 record and locator that the locator points at).

use super::bytes::{u16_at, u32_at, u64_at, Cursor};
use crate::error::{Result, ZomError};
use crate::sort::heap_sort;

/// How many bytes of the archive's end to read first: the end record (22 bytes) after a
/// comment of at most 65,535 bytes, the Zip64 locator and record before it, and, for most
/// hierarchies, the whole central directory.
pub const TAIL_LENGTH: u64 = 128 * 1024;

/// The largest central directory read (bytes). Each entry takes at least 46 bytes, so this
/// also bounds the entries held.
pub const MAX_DIRECTORY_BYTES: u64 = 512 * 1024 * 1024;

const END_SIGNATURE: u32 = 0x0605_4b50;
const END_LEN: usize = 22;
const ZIP64_LOCATOR_SIGNATURE: u32 = 0x0706_4b50;
const ZIP64_LOCATOR_LEN: usize = 20;
const ZIP64_END_SIGNATURE: u32 = 0x0606_4b50;
const ZIP64_END_LEN: usize = 56;
const ENTRY_SIGNATURE: u32 = 0x0201_4b50;
const ENTRY_LEN: usize = 46;

/// How a member's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// As they are (method 0): byte ranges read straight from the archive.
    Stored,
    /// Raw DEFLATE (method 8).
    Deflated,
    /// Any other method (its number); reading the member fails with `UnknownCodec`.
    Other(u16),
}

/// One member of the archive, as the central directory describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The member's name (its path in the archive).
    pub name: String,
    /// Where the member's local header starts.
    pub header: u64,
    /// Where its data starts, when the layout tells it without reading the local header
    /// (see [`infer_data_starts`]).
    pub data: Option<u64>,
    /// Stored (compressed) length.
    pub compressed: u64,
    /// Length once decompressed.
    pub size: u64,
    /// CRC-32 of the decompressed bytes.
    pub crc32: u32,
    /// Storage method.
    pub method: Method,
    /// Encrypted (general purpose flag bit 0): not readable.
    pub encrypted: bool,
    /// A data descriptor follows the data (flag bit 3).
    pub descriptor: bool,
    /// The name's length in bytes (the local header repeats it).
    pub name_len: u16,
}

/// Where the central directory is, from the end records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailer {
    /// The directory's absolute offset.
    pub directory: u64,
    /// Its length in bytes.
    pub length: u64,
    /// The entries it declares.
    pub entries: u64,
    /// The absolute offset of the tail's first byte.
    pub tail_start: u64,
}

impl Trailer {
    /// The directory's byte range in the archive.
    pub fn range(&self) -> std::ops::Range<u64> {
        self.directory..self.directory.saturating_add(self.length)
    }

    /// The directory's bytes when the tail holds all of them.
    pub fn within<'a>(&self, tail: &'a [u8]) -> Option<&'a [u8]> {
        let start = usize::try_from(self.directory.checked_sub(self.tail_start)?).ok()?;
        let len = usize::try_from(self.length).ok()?;
        tail.get(start..start.checked_add(len)?)
    }
}

fn bad(message: &str) -> ZomError {
    ZomError::invalid_metadata(format!("zip: {message}"))
}

/// Finds the end records in the archive's last bytes (`tail`, up to [`TAIL_LENGTH`]).
pub fn read_trailer(tail: &[u8]) -> Result<Trailer> {
    let end = find_end(tail).ok_or_else(|| {
        bad("no end of central directory record in the archive's last bytes (not a zip file?)")
    })?;
    let entries = u64::from(u16_at(tail, end + 10).unwrap_or(0));
    let length = u64::from(u32_at(tail, end + 12).unwrap_or(0));
    let directory = u64::from(u32_at(tail, end + 16).unwrap_or(0));
    let disk = u16_at(tail, end + 4).unwrap_or(0);
    let zip64 = entries == 0xFFFF || length == 0xFFFF_FFFF || directory == 0xFFFF_FFFF;
    let locator = end.checked_sub(ZIP64_LOCATOR_LEN);
    let has_locator = locator.and_then(|at| u32_at(tail, at)) == Some(ZIP64_LOCATOR_SIGNATURE);
    let trailer = if has_locator || zip64 {
        zip64_trailer(tail, locator.unwrap_or(0))?
    } else {
        if disk != 0 {
            return Err(bad("multi-disk (split) archives are not supported"));
        }
        // The end record follows the directory directly.
        let end_abs = directory
            .checked_add(length)
            .ok_or_else(|| bad("the end record is not where the directory says"))?;
        Trailer {
            directory,
            length,
            entries,
            tail_start: end_abs
                .checked_sub(end as u64)
                .ok_or_else(|| bad("the end record is not where the directory says"))?,
        }
    };
    if trailer.length > MAX_DIRECTORY_BYTES {
        return Err(ZomError::new(
            crate::ErrorCode::LimitExceeded,
            format!(
                "zip: a central directory of {} bytes (at most {MAX_DIRECTORY_BYTES})",
                trailer.length
            ),
        ));
    }
    Ok(trailer)
}

/// The end record's position: the last signature whose comment length reaches the tail's end
/// exactly, else the last signature with room for its record.
fn find_end(tail: &[u8]) -> Option<usize> {
    let last = tail.len().checked_sub(END_LEN)?;
    let candidates = (0..=last)
        .rev()
        .filter(|&at| u32_at(tail, at) == Some(END_SIGNATURE));
    let mut fallback = None;
    for at in candidates {
        let comment = usize::from(u16_at(tail, at + 20)?);
        if at + END_LEN + comment == tail.len() {
            return Some(at);
        }
        fallback = fallback.or(Some(at));
    }
    fallback
}

fn zip64_trailer(tail: &[u8], locator: usize) -> Result<Trailer> {
    let broken = || bad("the Zip64 end record or its locator is missing or broken");
    if u32_at(tail, locator) != Some(ZIP64_LOCATOR_SIGNATURE) {
        return Err(broken());
    }
    let record_abs = u64_at(tail, locator + 8).ok_or_else(broken)?;
    let record = find_zip64_end(tail, locator).ok_or_else(broken)?;
    if u32_at(tail, record + 16) != Some(0) {
        return Err(bad("multi-disk (split) archives are not supported"));
    }
    let field = |at: usize| u64_at(tail, record + at).ok_or_else(broken);
    Ok(Trailer {
        entries: field(32)?,
        length: field(40)?,
        directory: field(48)?,
        tail_start: record_abs.checked_sub(record as u64).ok_or_else(broken)?,
    })
}

/// The Zip64 end record: the last signature before the locator whose declared size (56 bytes,
/// or more with extensible data) reaches the locator.
fn find_zip64_end(tail: &[u8], locator: usize) -> Option<usize> {
    (0..=locator.checked_sub(ZIP64_END_LEN)?)
        .rev()
        .filter(|&at| u32_at(tail, at) == Some(ZIP64_END_SIGNATURE))
        .find(|&at| {
            u64_at(tail, at + 4)
                .and_then(|n| usize::try_from(n).ok())
                .and_then(|n| at.checked_add(12)?.checked_add(n))
                == Some(locator)
        })
}

/// The central directory's entries sorted by name, one per name (the last written);
/// directory entries (names ending in `/`) and names that are not UTF-8 are left out.
pub fn read_directory(directory: &[u8], trailer: &Trailer) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut cursor = Cursor::new(directory);
    let mut seen: u64 = 0;
    while !cursor.is_empty() {
        let at = cursor.position();
        let broken = |what: &str| bad(&format!("{what} (the directory entry at byte {at})"));
        let fixed = cursor.take(ENTRY_LEN).unwrap_or_default();
        if u32_at(fixed, 0) != Some(ENTRY_SIGNATURE) {
            return Err(broken("no directory entry signature"));
        }
        let num16 = |o: usize| u16_at(fixed, o).unwrap_or(0);
        let num32 = |o: usize| u32_at(fixed, o).unwrap_or(0);
        let (name_len, extra_len, comment_len) = (num16(28), num16(30), num16(32));
        let name = cursor.take(usize::from(name_len));
        let extra = cursor.take(usize::from(extra_len));
        let comment = cursor.take(usize::from(comment_len));
        let (Some(name), Some(extra), Some(_)) = (name, extra, comment) else {
            return Err(broken("a truncated entry"));
        };
        seen = seen.saturating_add(1);
        let flags = num16(8);
        let mut entry = Entry {
            name: String::new(),
            header: u64::from(num32(42)),
            data: None,
            compressed: u64::from(num32(20)),
            size: u64::from(num32(24)),
            crc32: num32(16),
            method: match num16(10) {
                0 => Method::Stored,
                8 => Method::Deflated,
                other => Method::Other(other),
            },
            encrypted: flags & 1 != 0,
            descriptor: flags & 8 != 0,
            name_len,
        };
        zip64_extra(&mut entry, extra).map_err(broken)?;
        if let Ok(name) = std::str::from_utf8(name) {
            if !name.ends_with('/') {
                entry.name = name.to_string();
                entries.push(entry);
            }
        }
    }
    if seen != trailer.entries {
        let message = format!(
            "{seen} directory entries, the end record says {}",
            trailer.entries
        );
        return Err(bad(&message));
    }
    infer_data_starts(&mut entries, trailer.directory);
    // A name written twice (zarr-python's ZipStore appends a key set again): the later
    // member wins, as in Python's zipfile.
    heap_sort(&mut entries, |a, b| {
        (&a.name, b.header) < (&b.name, a.header)
    });
    entries.dedup_by(|later, kept| later.name == kept.name);
    Ok(entries)
}

/// Replaces the 32-bit fields saturated at 0xFFFFFFFF with the Zip64 extra field's values,
/// which come in this order and only for the fields that need them.
fn zip64_extra(entry: &mut Entry, extra: &[u8]) -> std::result::Result<(), &'static str> {
    let mut cursor = Cursor::new(extra);
    while let (Some(id), Some(len)) = (cursor.u16(), cursor.u16()) {
        let body = cursor
            .take(usize::from(len))
            .ok_or("a truncated extra field")?;
        if id != 1 {
            continue;
        }
        let mut values = Cursor::new(body);
        for field in [&mut entry.size, &mut entry.compressed, &mut entry.header] {
            if *field == 0xFFFF_FFFF {
                *field = values.u64().ok_or("a truncated Zip64 extra field")?;
            }
        }
        return Ok(());
    }
    let saturated = [entry.size, entry.compressed, entry.header].contains(&0xFFFF_FFFF);
    if saturated {
        return Err("a size or offset needs a Zip64 extra field that is missing");
    }
    Ok(())
}

/// Works out where each member's data starts without reading its local header: members are
/// written one after another (local header, data), so the bytes between one local header and
/// the next (or the directory) are the header (30 bytes, the name, an extra field) and the
/// data. The extra field's length is what remains; when it fits the header's 16-bit field
/// the data start follows. Members with a data descriptor (whose length varies), and any
/// layout that does not add up, are left unknown: their local header is read first.
fn infer_data_starts(entries: &mut [Entry], directory: u64) {
    let mut starts: Vec<u64> = entries.iter().map(|e| e.header).collect();
    starts.push(directory);
    heap_sort(&mut starts, |a, b| a < b);
    for entry in entries.iter_mut() {
        let next = starts.partition_point(|&s| s <= entry.header);
        let Some(&end) = starts.get(next) else {
            continue;
        };
        let fixed = entry
            .header
            .saturating_add(30)
            .saturating_add(u64::from(entry.name_len));
        let extra = end
            .checked_sub(fixed)
            .and_then(|n| n.checked_sub(entry.compressed));
        if let Some(extra) = extra.filter(|&n| n <= 0xFFFF && !entry.descriptor) {
            entry.data = Some(fixed.saturating_add(extra));
        }
    }
}
