//! bzip2 decoding (numcodecs' `bz2`): one or more concatenated streams, each of blocks coded
//! with Huffman, move-to-front and the Burrows–Wheeler transform, checked by their CRCs.

use std::fmt;

/// Why bzip2 data did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bzip2Error {
    /// The data decodes to more than the maximum.
    TooBig,
    /// The data is not valid bzip2 (what is wrong with it).
    Corrupt(&'static str),
}

impl fmt::Display for Bzip2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bzip2Error::TooBig => f.write_str("output over the limit"),
            Bzip2Error::Corrupt(why) => f.write_str(why),
        }
    }
}

const TRUNCATED: Bzip2Error = Bzip2Error::Corrupt("the bzip2 data is truncated");
const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
const END_MAGIC: u64 = 0x1772_4538_5090;
const MAX_GROUPS: usize = 6;
const MAX_ALPHA: usize = 258;
const MAX_CODE_LEN: u32 = 20;

/// Reads bits most significant first.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
}

impl Bits<'_> {
    #[inline(always)]
    fn get(&mut self, n: u32) -> Result<u32, Bzip2Error> {
        while self.count < n {
            let b = *self.data.get(self.pos).ok_or(TRUNCATED)?;
            self.pos += 1;
            self.buf = (self.buf << 8) | u64::from(b);
            self.count += 8;
        }
        self.count -= n;
        Ok(((self.buf >> self.count) & ((1u64 << n) - 1)) as u32)
    }

    fn bit(&mut self) -> Result<bool, Bzip2Error> {
        Ok(self.get(1)? == 1)
    }

    fn get48(&mut self) -> Result<u64, Bzip2Error> {
        Ok((u64::from(self.get(24)?) << 24) | u64::from(self.get(24)?))
    }
}

/// A canonical Huffman code, decoded one bit at a time past its shortest length.
struct Huffman {
    min_len: u32,
    /// For each length, the largest code of that length (-1: none), and the index in `perm`
    /// of its first code minus that code.
    limit: [i32; MAX_CODE_LEN as usize + 2],
    base: [i32; MAX_CODE_LEN as usize + 2],
    perm: [u16; MAX_ALPHA],
}

impl Huffman {
    fn new(lengths: &[u8]) -> Huffman {
        let mut h = Huffman {
            min_len: 32,
            limit: [-1; MAX_CODE_LEN as usize + 2],
            base: [0; MAX_CODE_LEN as usize + 2],
            perm: [0; MAX_ALPHA],
        };
        let mut n = 0usize;
        let mut code = 0i32;
        for len in 1..=MAX_CODE_LEN {
            let first = n as i32;
            for (sym, &l) in lengths.iter().enumerate() {
                if u32::from(l) == len {
                    if let Some(slot) = h.perm.get_mut(n) {
                        *slot = sym as u16;
                    }
                    n += 1;
                }
            }
            let count = n as i32 - first;
            if count > 0 {
                h.min_len = h.min_len.min(len);
            }
            h.base[len as usize] = first - code;
            code += count;
            h.limit[len as usize] = code - 1;
            code <<= 1;
        }
        h
    }

    fn decode(&self, bits: &mut Bits) -> Result<usize, Bzip2Error> {
        let mut len = self.min_len;
        let mut code = bits.get(len)? as i32;
        loop {
            let limit = *self
                .limit
                .get(len as usize)
                .ok_or(Bzip2Error::Corrupt("bad bzip2 code"))?;
            if code <= limit {
                let i = self.base[len as usize % self.base.len()] + code;
                return usize::try_from(i)
                    .ok()
                    .and_then(|i| self.perm.get(i))
                    .map(|&s| usize::from(s))
                    .ok_or(Bzip2Error::Corrupt("bad bzip2 code"));
            }
            len += 1;
            code = (code << 1) | bits.get(1)? as i32;
        }
    }
}

/// Decodes every stream of `input`, producing at most `max` bytes (more is [`Bzip2Error::TooBig`]).
pub fn bzip2_decode(input: &[u8], max: usize) -> Result<Vec<u8>, Bzip2Error> {
    let mut bits = Bits {
        data: input,
        pos: 0,
        buf: 0,
        count: 0,
    };
    let mut out = Vec::new();
    let mut tt: Vec<u32> = Vec::new();
    loop {
        if bits.get(24)? != 0x42_5a_68 {
            return Err(Bzip2Error::Corrupt("not bzip2 data (bad magic)"));
        }
        let level = bits.get(8)?;
        if !(0x31..=0x39).contains(&level) {
            return Err(Bzip2Error::Corrupt("bad bzip2 block size"));
        }
        let block_max = (level - 0x30) as usize * 100_000;
        let mut combined = 0u32;
        loop {
            let magic = bits.get48()?;
            let crc = bits.get(32)?;
            if magic == END_MAGIC {
                if crc != combined {
                    return Err(Bzip2Error::Corrupt("bzip2 stream CRC mismatch"));
                }
                break;
            }
            if magic != BLOCK_MAGIC {
                return Err(Bzip2Error::Corrupt("bad bzip2 block magic"));
            }
            let start = out.len();
            block(&mut bits, block_max, &mut tt, &mut out, max)?;
            if crc32_msb(out.get(start..).unwrap_or_default()) != crc {
                return Err(Bzip2Error::Corrupt("bzip2 block CRC mismatch"));
            }
            combined = combined.rotate_left(1) ^ crc;
        }
        // Streams end on a byte boundary; another may follow.
        bits.count -= bits.count % 8;
        if bits.count == 0 && bits.pos >= input.len() {
            return Ok(out);
        }
    }
}

/// Decodes one block (after its magic and CRC) onto `out`.
fn block(
    bits: &mut Bits,
    block_max: usize,
    tt: &mut Vec<u32>,
    out: &mut Vec<u8>,
    max: usize,
) -> Result<(), Bzip2Error> {
    if bits.bit()? {
        return Err(Bzip2Error::Corrupt(
            "randomised bzip2 blocks (bzip2 0.9.0) are not supported",
        ));
    }
    let orig_ptr = bits.get(24)? as usize;
    // The bytes in use.
    let used_groups = bits.get(16)?;
    let mut seq_to_unseq = [0u8; 256];
    let mut in_use = 0usize;
    for i in 0..16 {
        if used_groups & (0x8000 >> i) != 0 {
            let used = bits.get(16)?;
            for j in 0..16 {
                if used & (0x8000 >> j) != 0 {
                    seq_to_unseq[in_use % 256] = (i * 16 + j) as u8;
                    in_use += 1;
                }
            }
        }
    }
    if in_use == 0 {
        return Err(Bzip2Error::Corrupt("bzip2 block uses no bytes"));
    }
    let alpha = in_use + 2;
    let groups = bits.get(3)? as usize;
    let selectors = bits.get(15)? as usize;
    if !(2..=MAX_GROUPS).contains(&groups) || selectors == 0 {
        return Err(Bzip2Error::Corrupt("bad bzip2 Huffman groups"));
    }
    // The selectors, move-to-front coded (bzip2 1.0.8 ignores those past 18002).
    let mut mtf_groups: [u8; MAX_GROUPS] = [0, 1, 2, 3, 4, 5];
    let mut selector = Vec::with_capacity(selectors.min(18_002));
    for _ in 0..selectors {
        let mut j = 0usize;
        while bits.bit()? {
            j += 1;
            if j >= groups {
                return Err(Bzip2Error::Corrupt("bad bzip2 selector"));
            }
        }
        let g = mtf_groups[j % MAX_GROUPS];
        mtf_groups.copy_within(0..j % MAX_GROUPS, 1);
        mtf_groups[0] = g;
        if selector.len() < 18_002 {
            selector.push(g);
        }
    }
    // The code lengths of each group, delta coded.
    let mut tables = Vec::with_capacity(groups);
    let mut lengths = [0u8; MAX_ALPHA];
    for _ in 0..groups {
        let mut len = bits.get(5)?;
        for slot in lengths.iter_mut().take(alpha) {
            loop {
                if !(1..=MAX_CODE_LEN).contains(&len) {
                    return Err(Bzip2Error::Corrupt("bad bzip2 code length"));
                }
                if !bits.bit()? {
                    break;
                }
                if bits.bit()? {
                    len -= 1;
                } else {
                    len += 1;
                }
            }
            *slot = len as u8;
        }
        tables.push(Huffman::new(lengths.get(..alpha).unwrap_or_default()));
    }
    // The move-to-front values, run-length coded (RUNA/RUNB), into the BWT column.
    tt.clear();
    let mut counts = [0u32; 256];
    let mut mtf: [u8; 256] = std::array::from_fn(|i| i as u8);
    let eob = alpha - 1;
    let mut run = 0usize;
    let mut run_weight = 1usize;
    let mut group_left = 0usize;
    let mut group_index = 0usize;
    let mut table = tables.first().ok_or(TRUNCATED)?;
    loop {
        if group_left == 0 {
            let g = *selector
                .get(group_index)
                .ok_or(Bzip2Error::Corrupt("bzip2 block runs past its selectors"))?;
            table = tables
                .get(usize::from(g))
                .ok_or(Bzip2Error::Corrupt("bad bzip2 selector"))?;
            group_index += 1;
            group_left = 50;
        }
        group_left -= 1;
        let sym = table.decode(bits)?;
        if sym <= 1 {
            // RUNA adds 1 × weight, RUNB 2 × weight; weights double.
            if run_weight > block_max {
                return Err(Bzip2Error::Corrupt("bzip2 run too long"));
            }
            run += (sym + 1) * run_weight;
            run_weight <<= 1;
            continue;
        }
        if run > 0 {
            if tt.len() + run > block_max {
                return Err(Bzip2Error::Corrupt("bzip2 block too long"));
            }
            let b = seq_to_unseq[usize::from(mtf[0])];
            counts[usize::from(b)] += run as u32;
            tt.resize(tt.len() + run, u32::from(b));
            run = 0;
            run_weight = 1;
        }
        if sym == eob {
            break;
        }
        if tt.len() >= block_max {
            return Err(Bzip2Error::Corrupt("bzip2 block too long"));
        }
        // Move-to-front: the symbol's position (sym - 1) comes to the front.
        let i = (sym - 1) % 256;
        let v = mtf[i];
        mtf.copy_within(0..i, 1);
        mtf[0] = v;
        let b = seq_to_unseq[usize::from(v)];
        counts[usize::from(b)] += 1;
        tt.push(u32::from(b));
    }
    if orig_ptr >= tt.len() {
        return Err(Bzip2Error::Corrupt("bad bzip2 origin pointer"));
    }
    // Inverse BWT: link each position to the next (in the high 24 bits).
    let mut next = [0u32; 256];
    let mut sum = 0u32;
    for (n, c) in next.iter_mut().zip(counts) {
        *n = sum;
        sum += c;
    }
    for i in 0..tt.len() {
        let b = (tt[i] & 0xff) as usize;
        let j = next[b] as usize;
        next[b] += 1;
        if let Some(slot) = tt.get_mut(j) {
            *slot |= (i as u32) << 8;
        }
    }
    // Walk the chain, undoing the initial run-length coding (4 equal bytes, then a count).
    let mut pos = tt[orig_ptr] >> 8;
    let mut last = -1i32;
    let mut same = 0u32;
    out.reserve(tt.len().min(max.saturating_sub(out.len())));
    for _ in 0..tt.len() {
        let t = *tt
            .get(pos as usize)
            .ok_or(Bzip2Error::Corrupt("bad bzip2 block"))?;
        let b = (t & 0xff) as u8;
        pos = t >> 8;
        if same == 4 {
            let n = usize::from(b);
            if out.len() + n > max {
                return Err(Bzip2Error::TooBig);
            }
            out.resize(out.len() + n, last as u8);
            same = 0;
            last = -1;
            continue;
        }
        if i32::from(b) == last {
            same += 1;
        } else {
            same = 1;
            last = i32::from(b);
        }
        if out.len() >= max {
            return Err(Bzip2Error::TooBig);
        }
        out.push(b);
    }
    Ok(())
}

/// bzip2's CRC-32 (polynomial 0x04C11DB7, most significant bit first).
fn crc32_msb(data: &[u8]) -> u32 {
    // Built per call (microseconds); the polynomial opaque so that the optimiser does not store
    // the table in the module instead.
    let poly = std::hint::black_box(0x04C1_1DB7u32);
    let mut table = [0u32; 256];
    for (n, slot) in table.iter_mut().enumerate() {
        let mut c = (n as u32) << 24;
        for _ in 0..8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ poly
            } else {
                c << 1
            };
        }
        *slot = c;
    }
    let mut crc = !0u32;
    for &b in data {
        crc = (crc << 8) ^ table[((crc >> 24) ^ u32::from(b)) as usize];
    }
    !crc
}
