//! Test support: flatbuffers and Icechunk files built by hand, for the readers' tests and
//! their hostile inputs.

use super::header::MAGIC;

/// A buffer under construction, written front to back. Flatbuffers offsets are unsigned (they
/// point forward), so a table or vector is written first and its offsets are set with
/// [`Builder::patch`] once what they point at is written.
pub struct Builder {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

/// A field of a table being written.
pub enum Field {
    Absent,
    U8(u8),
    U32(u32),
    I32(i32),
    U64(u64),
    /// A struct, stored in the table.
    Inline(Vec<u8>),
    /// An offset, set later with [`Builder::patch`].
    Offset,
}

impl Builder {
    /// Reserves the root offset; [`Builder::finish`] sets it.
    pub fn new() -> Builder {
        Builder { buf: vec![0; 4] }
    }

    fn align(&mut self, n: usize) {
        while !self.buf.len().is_multiple_of(n) {
            self.buf.push(0);
        }
    }

    /// A vector of `count` elements given as raw bytes; its position.
    pub fn vector(&mut self, count: u32, data: &[u8]) -> usize {
        self.align(4);
        let at = self.buf.len();
        self.buf.extend_from_slice(&count.to_le_bytes());
        self.buf.extend_from_slice(data);
        at
    }

    /// A string; its position.
    pub fn string(&mut self, s: &str) -> usize {
        let at = self.vector(s.len() as u32, s.as_bytes());
        self.buf.push(0);
        at
    }

    /// A vector of `count` offsets, to set with [`Builder::patch_element`]; its position.
    pub fn offsets(&mut self, count: usize) -> usize {
        self.vector(count as u32, &vec![0; count * 4])
    }

    /// A table and its vtable; the table's position and where each field is.
    pub fn table(&mut self, fields: &[Field]) -> (usize, Vec<Option<usize>>) {
        self.align(4);
        let vtable = self.buf.len();
        let vsize = 4 + 2 * fields.len();
        self.buf.resize(vtable + vsize, 0);
        self.align(8);
        let table = self.buf.len();
        self.buf
            .extend_from_slice(&((table - vtable) as i32).to_le_bytes());
        let mut slots = Vec::new();
        let mut entries = Vec::new();
        for field in fields {
            let bytes: Vec<u8> = match field {
                Field::Absent => {
                    entries.push(0u16);
                    slots.push(None);
                    continue;
                }
                Field::U8(v) => vec![*v],
                Field::U32(v) => v.to_le_bytes().to_vec(),
                Field::I32(v) => v.to_le_bytes().to_vec(),
                Field::U64(v) => {
                    self.align(8);
                    v.to_le_bytes().to_vec()
                }
                Field::Inline(v) => v.clone(),
                Field::Offset => {
                    self.align(4);
                    vec![0; 4]
                }
            };
            let at = self.buf.len();
            entries.push((at - table) as u16);
            slots.push(Some(at));
            self.buf.extend_from_slice(&bytes);
        }
        let size = self.buf.len() - table;
        self.buf[vtable..vtable + 2].copy_from_slice(&(vsize as u16).to_le_bytes());
        self.buf[vtable + 2..vtable + 4].copy_from_slice(&(size as u16).to_le_bytes());
        for (i, e) in entries.iter().enumerate() {
            self.buf[vtable + 4 + 2 * i..vtable + 6 + 2 * i].copy_from_slice(&e.to_le_bytes());
        }
        (table, slots)
    }

    /// Points the offset at `at` to `target`, written after it.
    pub fn patch(&mut self, at: usize, target: usize) {
        self.buf[at..at + 4].copy_from_slice(&((target - at) as u32).to_le_bytes());
    }

    /// Points element `i` of the vector of offsets at `vector` to `target`.
    pub fn patch_element(&mut self, vector: usize, i: usize, target: usize) {
        self.patch(vector + 4 + 4 * i, target);
    }

    /// Sets the root table and returns the buffer.
    pub fn finish(mut self, root: usize) -> Vec<u8> {
        self.buf[0..4].copy_from_slice(&(root as u32).to_le_bytes());
        self.buf
    }
}

/// An Icechunk file: the header (`ic-test`, spec version, file type code, zstd) and
/// `payload` compressed.
pub fn file(spec_version: u8, file_type: u8, payload: &[u8]) -> Vec<u8> {
    let mut file = MAGIC.to_vec();
    file.extend_from_slice(format!("{:<24}", "ic-test").as_bytes());
    file.extend_from_slice(&[spec_version, file_type, 1]);
    // ok: test-only builder (this module is `#[cfg(test)]`); compressing a buffer in memory cannot fail.
    file.extend(zstd::bulk::compress(payload, 3).expect("zstd"));
    file
}

/// A value of a FlexBuffers buffer under construction: null, or where a string or map is.
#[derive(Clone, Copy)]
pub enum Flex {
    Null,
    String(usize),
    Map(usize),
}

/// A FlexBuffers buffer under construction, every slot 4 bytes wide: what a value points at
/// is written before it, as FlexBuffers offsets point backwards.
pub struct FlexBuilder {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl FlexBuilder {
    pub fn new() -> FlexBuilder {
        FlexBuilder { buf: Vec::new() }
    }

    fn align(&mut self) {
        while !self.buf.len().is_multiple_of(4) {
            self.buf.push(0);
        }
    }

    fn u32(&mut self, v: usize) {
        self.buf.extend_from_slice(&(v as u32).to_le_bytes());
    }

    /// An offset from here back to `target`.
    fn offset_to(&mut self, target: usize) {
        let here = self.buf.len();
        self.u32(here - target);
    }

    pub fn string(&mut self, s: &str) -> Flex {
        self.align();
        self.u32(s.len());
        let at = self.buf.len();
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        Flex::String(at)
    }

    /// A map of `entries` (sorted here by key, as FlexBuffers requires).
    pub fn map(&mut self, entries: &[(&str, Flex)]) -> Flex {
        let mut entries = entries.to_vec();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let keys: Vec<usize> = entries
            .iter()
            .map(|(k, _)| {
                let at = self.buf.len();
                self.buf.extend_from_slice(k.as_bytes());
                self.buf.push(0);
                at
            })
            .collect();
        self.align();
        self.u32(keys.len());
        let keys_at = self.buf.len();
        for k in keys {
            self.offset_to(k);
        }
        self.offset_to(keys_at);
        self.u32(4);
        self.u32(entries.len());
        let at = self.buf.len();
        for (_, v) in &entries {
            self.slot(*v);
        }
        for (_, v) in &entries {
            self.buf.push(Self::packed(*v));
        }
        Flex::Map(at)
    }

    fn slot(&mut self, v: Flex) {
        match v {
            Flex::Null => self.u32(0),
            Flex::String(at) | Flex::Map(at) => self.offset_to(at),
        }
    }

    fn packed(v: Flex) -> u8 {
        let kind = match v {
            Flex::Null => 0,
            Flex::String(_) => 5,
            Flex::Map(_) => 9,
        };
        (kind << 2) | 2
    }

    /// The buffer, `root` its root value.
    pub fn finish(mut self, root: Flex) -> Vec<u8> {
        self.align();
        self.slot(root);
        self.buf.push(Self::packed(root));
        self.buf.push(4);
        self.buf
    }
}
