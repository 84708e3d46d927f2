//! A small reader of FlexBuffers, the schemaless format the repo info file keeps the
//! repository's configuration in, bounded: every offset, length and width is checked against
//! the buffer before it is followed, nothing is allocated, map keys are compared without
//! scanning for their end, and nothing recurses (the configuration reader walks a fixed
//! depth). Only what that reader needs: null, strings, keys and maps.

use super::corrupt;
use crate::error::Result;
use std::cmp::Ordering;

const NULL: u8 = 0;
const KEY: u8 = 4;
const STRING: u8 = 5;
const MAP: u8 = 9;
const BOOL: u8 = 26;

/// One value of a FlexBuffers buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Value<'a> {
    buf: &'a [u8],
    /// Where the value is: the scalar itself, or what an offset pointed at.
    at: usize,
    kind: u8,
    /// The byte width of the value's own data (a string's length, a map's slots).
    width: usize,
}

/// A map of a FlexBuffers buffer: sorted keys and their values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Map<'a> {
    buf: &'a [u8],
    values: usize,
    width: usize,
    keys: usize,
    keys_width: usize,
    len: usize,
}

fn out_of_range(what: &str, at: usize) -> crate::error::ZomError {
    corrupt(format!(
        "flexbuffers: {what} at byte {at} is outside the configuration"
    ))
}

/// The unsigned integer of `width` bytes at `at`.
fn uint(buf: &[u8], at: usize, width: usize, what: &str) -> Result<u64> {
    let bytes = at
        .checked_add(width)
        .and_then(|end| buf.get(at..end))
        .ok_or_else(|| out_of_range(what, at))?;
    let mut le = [0u8; 8];
    le[..bytes.len()].copy_from_slice(bytes);
    Ok(u64::from_le_bytes(le))
}

/// A byte width as FlexBuffers states it (1, 2, 4 or 8).
fn byte_width(n: u64, what: &str) -> Result<usize> {
    match n {
        1 | 2 | 4 | 8 => Ok(n as usize),
        other => Err(corrupt(format!(
            "flexbuffers: {what} has byte width {other}"
        ))),
    }
}

/// `at - offset`, where an offset stored at `at` points (offsets point backwards).
fn back(at: usize, offset: u64, what: &str) -> Result<usize> {
    usize::try_from(offset)
        .ok()
        .and_then(|o| at.checked_sub(o))
        .ok_or_else(|| out_of_range(what, at))
}

fn is_inline(kind: u8) -> bool {
    kind <= 3 || kind == BOOL
}

impl<'a> Value<'a> {
    /// The root value of `buf` (its last byte is the root's width, the one before its type).
    pub(crate) fn root(buf: &'a [u8]) -> Result<Value<'a>> {
        let n = buf.len();
        if n < 3 {
            return Err(corrupt(format!(
                "flexbuffers: a configuration of {n} bytes"
            )));
        }
        let width = byte_width(u64::from(buf[n - 1]), "the root")?;
        let at = (n - 2)
            .checked_sub(width)
            .ok_or_else(|| out_of_range("the root", 0))?;
        Value::at(buf, at, buf[n - 2], width)
    }

    /// The value in the slot at `slot` (of `parent_width` bytes), of packed type `packed`.
    fn at(buf: &'a [u8], slot: usize, packed: u8, parent_width: usize) -> Result<Value<'a>> {
        let kind = packed >> 2;
        let width = 1usize << (packed & 3);
        let stored = uint(buf, slot, parent_width, "a value")?;
        let at = if is_inline(kind) {
            slot
        } else {
            back(slot, stored, "an offset")?
        };
        Ok(Value {
            buf,
            at,
            kind,
            width,
        })
    }

    /// Whether it is null.
    pub(crate) fn is_null(&self) -> bool {
        self.kind == NULL
    }

    /// A name for the value's type, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.kind {
            NULL => "null",
            1..=3 => "a number",
            KEY => "a key",
            STRING => "a string",
            MAP => "a map",
            BOOL => "a boolean",
            _ => "a vector or blob",
        }
    }

    /// The bytes of a string (without its terminator), `None` for any other type.
    pub(crate) fn string_bytes(&self) -> Result<Option<&'a [u8]>> {
        if self.kind != STRING {
            return Ok(None);
        }
        let len_at = self
            .at
            .checked_sub(self.width)
            .ok_or_else(|| out_of_range("a string's length", self.at))?;
        let len = uint(self.buf, len_at, self.width, "a string's length")?;
        usize::try_from(len)
            .ok()
            .and_then(|len| self.at.checked_add(len))
            .and_then(|end| self.buf.get(self.at..end))
            .map(Some)
            .ok_or_else(|| out_of_range("a string", self.at))
    }

    /// A boolean, `None` for any other type.
    pub(crate) fn boolean(&self) -> Result<Option<bool>> {
        if self.kind != BOOL {
            return Ok(None);
        }
        // Stored little-endian in its slot: its first byte says it.
        let byte = self
            .buf
            .get(self.at)
            .ok_or_else(|| out_of_range("a boolean", self.at))?;
        Ok(Some(*byte != 0))
    }

    /// A map, `None` for any other type.
    pub(crate) fn map(&self) -> Result<Option<Map<'a>>> {
        if self.kind != MAP {
            return Ok(None);
        }
        let (buf, at, w) = (self.buf, self.at, self.width);
        let prefix = at
            .checked_sub(3 * w)
            .ok_or_else(|| out_of_range("a map", at))?;
        let keys_width = byte_width(uint(buf, prefix + w, w, "a map")?, "a map's keys")?;
        let len = uint(buf, prefix + 2 * w, w, "a map's length")?;
        let keys = back(prefix, uint(buf, prefix, w, "a map")?, "a map's keys")?;
        // Each key and value takes bytes of the buffer: a length beyond it is refused before
        // anything is read.
        let fits = |start: usize, per: usize| {
            usize::try_from(len)
                .ok()
                .and_then(|n| n.checked_mul(per))
                .and_then(|n| start.checked_add(n))
                .is_some_and(|end| end <= buf.len())
        };
        if !fits(at, w + 1) || !fits(keys, keys_width) {
            return Err(corrupt(format!(
                "flexbuffers: the map at byte {at} claims {len} entries, more than the configuration holds"
            )));
        }
        let keys_len_at = keys
            .checked_sub(keys_width)
            .ok_or_else(|| out_of_range("a map's keys", keys))?;
        if uint(buf, keys_len_at, keys_width, "a map's keys")? != len {
            return Err(corrupt(format!(
                "flexbuffers: the map at byte {at} has {len} values and another number of keys"
            )));
        }
        Ok(Some(Map {
            buf,
            values: at,
            width: w,
            keys,
            keys_width,
            len: len as usize,
        }))
    }
}

impl<'a> Map<'a> {
    /// How many entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Where key `i`'s bytes start.
    fn key_at(&self, i: usize) -> Result<usize> {
        let slot = self.keys + i * self.keys_width;
        let offset = uint(self.buf, slot, self.keys_width, "a map key")?;
        back(slot, offset, "a map key")
    }

    /// How key `i` compares with `name`, reading at most `name.len() + 1` bytes of it.
    fn compare_key(&self, i: usize, name: &[u8]) -> Result<Ordering> {
        let at = self.key_at(i)?;
        for j in 0..=name.len() {
            let b = *self
                .buf
                .get(at + j)
                .ok_or_else(|| out_of_range("a map key", at))?;
            let want = name.get(j).copied().unwrap_or(0);
            match b.cmp(&want) {
                Ordering::Equal if b == 0 => return Ok(Ordering::Equal),
                Ordering::Equal => {}
                other => return Ok(other),
            }
        }
        // `name` has ended and the key has not: the key is longer.
        Ok(Ordering::Greater)
    }

    /// Key `i`, when it is at most `max` bytes long and UTF-8 (`None` otherwise).
    pub(crate) fn short_key(&self, i: usize, max: usize) -> Result<Option<&'a str>> {
        let at = self.key_at(i)?;
        let window = self.buf.get(at..).unwrap_or_default();
        let window = &window[..window.len().min(max + 1)];
        Ok(window
            .iter()
            .position(|&b| b == 0)
            .and_then(|end| std::str::from_utf8(&window[..end]).ok()))
    }

    /// Value `i`.
    pub(crate) fn value(&self, i: usize) -> Result<Value<'a>> {
        if i >= self.len {
            return Err(corrupt(format!(
                "flexbuffers: entry {i} of a map of {}",
                self.len
            )));
        }
        let types = self.values + self.len * self.width;
        let packed = *self
            .buf
            .get(types + i)
            .ok_or_else(|| out_of_range("a map value's type", types + i))?;
        Value::at(self.buf, self.values + i * self.width, packed, self.width)
    }

    /// The value of key `name`: a binary search over the sorted keys, each probe bounded.
    pub(crate) fn get(&self, name: &str) -> Result<Option<Value<'a>>> {
        let (mut low, mut high) = (0usize, self.len);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.compare_key(mid, name.as_bytes())? {
                Ordering::Less => low = mid + 1,
                Ordering::Greater => high = mid,
                Ordering::Equal => return self.value(mid).map(Some),
            }
        }
        Ok(None)
    }
}
