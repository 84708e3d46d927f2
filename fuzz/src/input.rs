//! A cursor over the fuzzer's bytes that never fails: past the end it reads zeros. Structured
//! choices (which codec, which shape) come from the front; the rest is the payload.

/// Reads small numbers and slices off the front of the input.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// The next eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        usize::from(self.u8()) % n
    }

    /// A coin flip.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// A dimension length: mostly small, sometimes 0 or huge (edges of the arithmetic).
    pub fn dim(&mut self) -> u64 {
        match self.u8() {
            0..=199 => u64::from(self.u8() % 16),
            200..=229 => u64::from(self.u16() % 512),
            230..=239 => 0,
            240..=247 => u64::MAX - u64::from(self.u8()),
            _ => self.u64(),
        }
    }

    /// A signed number: mostly small, sometimes at the extremes.
    pub fn i64(&mut self) -> i64 {
        match self.u8() {
            0..=199 => i64::from(self.u8() as i8) % 24,
            200..=219 => i64::from(self.u16() as i16),
            220..=229 => i64::MIN + i64::from(self.u8()),
            230..=239 => i64::MAX - i64::from(self.u8()),
            _ => self.u64() as i64,
        }
    }

    /// The next `n` bytes (fewer at the end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        self.take(self.data.len())
    }
}
