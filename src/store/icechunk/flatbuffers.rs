//! A small reader of flatbuffers tables, bounded: every offset, vtable, vector and string is
//! checked against the buffer before it is read, and nothing is allocated. Only what
//! Icechunk's schemas use: tables with scalar, struct, string, vector and union fields; vectors
//! of scalars, structs, strings and tables. The reader never recurses: the schema readers
//! above it walk a fixed depth.

use super::corrupt;
use crate::error::Result;

/// A table in a flatbuffers buffer.
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    buf: &'a [u8],
    at: usize,
    /// The vtable's field entries (after its two size fields).
    fields: &'a [u8],
}

fn out_of_range(what: &str, at: usize) -> crate::error::ZomError {
    corrupt(format!(
        "flatbuffers: {what} at byte {at} is outside the file"
    ))
}

fn read<const N: usize>(buf: &[u8], at: usize, what: &str) -> Result<[u8; N]> {
    at.checked_add(N)
        .and_then(|end| buf.get(at..end))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| out_of_range(what, at))
}

fn u32_at(buf: &[u8], at: usize, what: &str) -> Result<u32> {
    read::<4>(buf, at, what).map(u32::from_le_bytes)
}

/// Where the offset stored at `at` points (offsets are relative to their own position).
fn follow(buf: &[u8], at: usize, what: &str) -> Result<usize> {
    let offset = u32_at(buf, at, what)? as usize;
    at.checked_add(offset)
        .filter(|&to| to < buf.len())
        .ok_or_else(|| out_of_range(what, at))
}

impl<'a> Table<'a> {
    /// The root table of `buf`.
    pub fn root(buf: &'a [u8]) -> Result<Table<'a>> {
        let at = follow(buf, 0, "the root table offset")?;
        Table::at(buf, at)
    }

    /// The table starting at byte `at` (a position a reader kept from an earlier read).
    pub fn at(buf: &'a [u8], at: usize) -> Result<Table<'a>> {
        let soffset = i32::from_le_bytes(read::<4>(buf, at, "a table")?);
        let vtable = (at as i64)
            .checked_sub(i64::from(soffset))
            .filter(|&v| v >= 0)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| out_of_range("a vtable", at))?;
        let size = u16::from_le_bytes(read::<2>(buf, vtable, "a vtable")?) as usize;
        if size < 4 || !size.is_multiple_of(2) {
            return Err(corrupt(format!(
                "flatbuffers: the vtable at byte {vtable} has size {size}"
            )));
        }
        let fields = buf
            .get(vtable + 4..vtable + size)
            .ok_or_else(|| out_of_range("a vtable", vtable))?;
        Ok(Table { buf, at, fields })
    }

    /// Where field `slot` is, `None` when the table does not have it.
    fn field(&self, slot: usize) -> Option<usize> {
        let entry = self.fields.get(slot * 2..slot * 2 + 2)?;
        match u16::from_le_bytes([entry[0], entry[1]]) {
            0 => None,
            offset => Some(self.at + offset as usize),
        }
    }

    fn scalar<const N: usize>(&self, slot: usize) -> Result<Option<[u8; N]>> {
        self.field(slot)
            .map(|at| read::<N>(self.buf, at, "a scalar field"))
            .transpose()
    }

    /// A `ubyte` field, or `default`.
    pub fn u8(&self, slot: usize, default: u8) -> Result<u8> {
        Ok(self.scalar::<1>(slot)?.map_or(default, |b| b[0]))
    }

    /// A `uint32` field, or `default`.
    pub fn u32(&self, slot: usize, default: u32) -> Result<u32> {
        Ok(self.scalar::<4>(slot)?.map_or(default, u32::from_le_bytes))
    }

    /// An `int32` field, or `default`.
    pub fn i32(&self, slot: usize, default: i32) -> Result<i32> {
        Ok(self.scalar::<4>(slot)?.map_or(default, i32::from_le_bytes))
    }

    /// A `uint64` field, or `default`.
    pub fn u64(&self, slot: usize, default: u64) -> Result<u64> {
        Ok(self.scalar::<8>(slot)?.map_or(default, u64::from_le_bytes))
    }

    /// A struct field of `size` bytes, stored inline.
    pub fn inline(&self, slot: usize, size: usize) -> Result<Option<&'a [u8]>> {
        let Some(at) = self.field(slot) else {
            return Ok(None);
        };
        at.checked_add(size)
            .and_then(|end| self.buf.get(at..end))
            .map(Some)
            .ok_or_else(|| out_of_range("a struct field", at))
    }

    /// A table field.
    pub fn table(&self, slot: usize) -> Result<Option<Table<'a>>> {
        let Some(at) = self.field(slot) else {
            return Ok(None);
        };
        Table::at(self.buf, follow(self.buf, at, "a table offset")?).map(Some)
    }

    /// A vector field whose elements are `element_size` bytes each (4 for tables and strings,
    /// which are offsets).
    pub fn vector(&self, slot: usize, element_size: usize) -> Result<Option<Vector<'a>>> {
        let Some(at) = self.field(slot) else {
            return Ok(None);
        };
        Vector::at(
            self.buf,
            follow(self.buf, at, "a vector offset")?,
            element_size,
        )
        .map(Some)
    }

    /// A `[ubyte]` field.
    pub fn bytes(&self, slot: usize) -> Result<Option<&'a [u8]>> {
        Ok(self.vector(slot, 1)?.map(|v| v.data))
    }

    /// The byte range of a `[ubyte]` field in the buffer.
    pub fn bytes_span(&self, slot: usize) -> Result<Option<Span>> {
        let Some(at) = self.field(slot) else {
            return Ok(None);
        };
        let start = follow(self.buf, at, "a vector offset")?;
        let vector = Vector::at(self.buf, start, 1)?;
        Ok(Some(Span {
            start: start + 4,
            len: vector.len,
        }))
    }

    /// The byte range of a `string` field in the buffer, checked to be UTF-8.
    pub fn string_span(&self, slot: usize) -> Result<Option<Span>> {
        let span = self.bytes_span(slot)?;
        if let Some(span) = span {
            utf8(span.of(self.buf))?;
        }
        Ok(span)
    }

    /// Where the table starts, to read it again later with [`Table::at`].
    pub fn position(&self) -> usize {
        self.at
    }

    /// A `string` field.
    pub fn string(&self, slot: usize) -> Result<Option<&'a str>> {
        self.bytes(slot)?.map(utf8).transpose()
    }
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|_| corrupt("flatbuffers: a string is not UTF-8"))
}

/// A byte range of a buffer, for readers that keep the buffer and read from it later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// How many bytes.
    pub len: usize,
}

impl Span {
    /// The bytes of the span in `buf` (empty when `buf` is not the buffer it was read from).
    pub fn of<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        buf.get(self.start..self.start.saturating_add(self.len))
            .unwrap_or_default()
    }
}

/// A vector in a flatbuffers buffer.
#[derive(Clone, Copy, Debug)]
pub struct Vector<'a> {
    buf: &'a [u8],
    /// Where the elements start.
    start: usize,
    /// The elements' bytes, all of them inside the buffer.
    data: &'a [u8],
    len: usize,
    element_size: usize,
}

impl<'a> Vector<'a> {
    fn at(buf: &'a [u8], at: usize, element_size: usize) -> Result<Vector<'a>> {
        let len = u32_at(buf, at, "a vector")? as usize;
        let start = at + 4;
        // The length is checked against the bytes there before any element is read: a vector
        // claiming more elements than the file has room for is refused here.
        let data = len
            .checked_mul(element_size)
            .and_then(|n| start.checked_add(n))
            .and_then(|end| buf.get(start..end))
            .ok_or_else(|| {
                corrupt(format!(
                    "flatbuffers: the vector at byte {at} claims {len} elements of {element_size} bytes, more than the file holds"
                ))
            })?;
        Ok(Vector {
            buf,
            start,
            data,
            len,
            element_size,
        })
    }

    /// How many elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes of element `i` (a struct or a scalar).
    pub fn element(&self, i: usize) -> Result<&'a [u8]> {
        let from = i
            .checked_mul(self.element_size)
            .filter(|_| i < self.len)
            .ok_or_else(|| {
                corrupt(format!(
                    "flatbuffers: element {i} of a vector of {}",
                    self.len
                ))
            })?;
        Ok(&self.data[from..from + self.element_size])
    }

    /// Element `i` of a `[uint32]`.
    pub fn u32(&self, i: usize) -> Result<u32> {
        let e = self.element(i)?;
        Ok(u32::from_le_bytes([e[0], e[1], e[2], e[3]]))
    }

    /// Element `i` of a vector of tables.
    pub fn table(&self, i: usize) -> Result<Table<'a>> {
        self.element(i)?;
        let at = self.start + i * 4;
        Table::at(self.buf, follow(self.buf, at, "a table offset")?)
    }

    /// The byte range of element `i` of a vector of strings, checked to be UTF-8.
    pub fn string_span(&self, i: usize) -> Result<Span> {
        self.element(i)?;
        let at = follow(self.buf, self.start + i * 4, "a string offset")?;
        let vector = Vector::at(self.buf, at, 1)?;
        utf8(vector.data)?;
        Ok(Span {
            start: vector.start,
            len: vector.len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::build::{Builder, Field};
    use super::*;

    fn sample() -> Vec<u8> {
        let mut b = Builder::new();
        let (root, slots) = b.table(&[Field::U32(7), Field::Offset, Field::Absent, Field::Offset]);
        let name = b.string("hello");
        let numbers = b.vector(3, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
        b.patch(slots[1].unwrap(), name);
        b.patch(slots[3].unwrap(), numbers);
        b.finish(root)
    }

    #[test]
    fn reads_fields() {
        let buf = sample();
        let t = Table::root(&buf).unwrap();
        assert_eq!(t.u32(0, 0).unwrap(), 7);
        assert_eq!(t.string(1).unwrap(), Some("hello"));
        assert_eq!(t.u64(2, 9).unwrap(), 9);
        let v = t.vector(3, 4).unwrap().unwrap();
        assert_eq!((v.len(), v.u32(2).unwrap()), (3, 3));
        assert!(v.u32(3).is_err());
        assert_eq!(t.u8(40, 5).unwrap(), 5);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let buf = sample();
        for n in 0..buf.len() {
            let cut = &buf[..n];
            let Ok(t) = Table::root(cut) else { continue };
            let _ = t.u32(0, 0);
            let _ = t.string(1);
            let _ = t.vector(3, 4).map(|v| v.map(|v| v.u32(2)));
        }
    }

    #[test]
    fn a_vector_longer_than_the_file_is_refused() {
        let mut buf = sample();
        let t = Table::root(&buf).unwrap();
        let at = t.field(3).unwrap();
        let vector = at + u32::from_le_bytes(buf[at..at + 4].try_into().unwrap()) as usize;
        buf[vector..vector + 4].copy_from_slice(&1_000_000_000u32.to_le_bytes());
        let t = Table::root(&buf).unwrap();
        let err = t.vector(3, 4).unwrap_err();
        assert!(err.message.contains("claims 1000000000 elements"), "{err}");
    }

    #[test]
    fn offsets_out_of_range_are_refused() {
        let mut buf = sample();
        buf[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Table::root(&buf).is_err());
        let mut buf = sample();
        let root = u32::from_le_bytes(buf[0..4].try_into().unwrap()) as usize;
        buf[root..root + 4].copy_from_slice(&i32::MIN.to_le_bytes());
        assert!(Table::root(&buf).is_err());
        let mut buf = sample();
        let t = Table::root(&buf).unwrap();
        let at = t.field(1).unwrap();
        buf[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        assert!(Table::root(&buf).unwrap().string(1).is_err());
    }
}
