//! The xz container (streams, blocks with the LZMA2 filter, index, footer; CRC32 and CRC64
//! checks verified) and LZMA2 chunks.

use crate::lzma::{End, Lzma, RangeDecoder};
use crate::Error;

const MAGIC: &[u8; 6] = &[0xfd, b'7', b'z', b'X', b'Z', 0];
const TRUNCATED: Error = Error("the xz data is truncated");

/// A cursor over the input that errors instead of reading past its end.
struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).ok_or(TRUNCATED)?;
        let out = self.data.get(self.pos..end).ok_or(TRUNCATED)?;
        self.pos = end;
        Ok(out)
    }

    fn byte(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?.first().copied().unwrap_or(0))
    }

    fn u32_le(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16_be(&mut self) -> Result<usize, Error> {
        let b = self.take(2)?;
        Ok(usize::from(u16::from_be_bytes([b[0], b[1]])))
    }

    /// An xz variable-length integer (7 bits a byte, at most 9 bytes, no trailing zero byte).
    fn vli(&mut self) -> Result<u64, Error> {
        let mut v = 0u64;
        for i in 0..9 {
            let b = self.byte()?;
            if i > 0 && b == 0 {
                return Err(Error("invalid xz integer"));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error("invalid xz integer"))
    }

    /// Skips the zero bytes that pad to a multiple of four from `from`.
    fn padding(&mut self, from: usize) -> Result<(), Error> {
        let n = (4 - (self.pos.wrapping_sub(from) % 4)) % 4;
        if self.take(n)?.iter().any(|&b| b != 0) {
            return Err(Error("non-zero xz padding"));
        }
        Ok(())
    }
}

/// Reflected CRC over `data` (CRC-32 with 0xEDB88320, CRC-64/XZ with 0xC96C5795D7870F42). The
/// table is built per call: 256 entries cost less than keeping them in the module.
fn crc(data: &[u8], poly: u64, mask: u64) -> u64 {
    let mut table = [0u64; 256];
    for (n, slot) in table.iter_mut().enumerate() {
        let mut c = n as u64;
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ poly } else { c >> 1 };
        }
        *slot = c;
    }
    let mut c = mask;
    for &b in data {
        c = table[((c ^ u64::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    c ^ mask
}

fn crc32(data: &[u8]) -> u32 {
    crc(data, 0xEDB8_8320, 0xFFFF_FFFF) as u32
}

fn crc32_ok(covered: &[u8], stored: u32) -> Result<(), Error> {
    if crc32(covered) == stored {
        Ok(())
    } else {
        Err(Error("xz header CRC32 mismatch"))
    }
}

/// Decodes every xz stream of `input` (stream padding between them) onto `out`, which may
/// not grow beyond `max` bytes.
pub(crate) fn decode(input: &[u8], out: &mut Vec<u8>, max: usize) -> Result<(), Error> {
    let mut inp = Input {
        data: input,
        pos: 0,
    };
    loop {
        stream(&mut inp, out, max)?;
        // Stream padding: zero bytes in fours, then another stream or the end.
        while inp.data.get(inp.pos..inp.pos.saturating_add(4)) == Some(&[0u8; 4][..]) {
            inp.pos += 4;
        }
        if inp.pos >= inp.data.len() {
            return Ok(());
        }
    }
}

fn stream(inp: &mut Input, out: &mut Vec<u8>, max: usize) -> Result<(), Error> {
    if inp.take(6)? != MAGIC {
        return Err(Error("not xz data (bad magic)"));
    }
    let flags = inp.take(2)?;
    let stored = inp.u32_le()?;
    crc32_ok(flags, stored)?;
    if flags[0] != 0 || flags[1] > 0x0f {
        return Err(Error("unsupported xz stream flags"));
    }
    let check = flags[1];
    let check_size = match check {
        0 => 0,
        1 => 4,
        4 => 8,
        _ => return Err(Error("unsupported xz check (only none, CRC32 and CRC64)")),
    };
    // (unpadded size, uncompressed size) of each block, for the index.
    let mut records: Vec<(u64, u64)> = Vec::new();
    loop {
        let block_start = inp.pos;
        let size_byte = inp.byte()?;
        if size_byte == 0 {
            break;
        }
        let header_size = (usize::from(size_byte) + 1) * 4;
        let header = inp.take(header_size - 1)?;
        let stored = inp
            .data
            .get(block_start + header_size - 4..block_start + header_size);
        let covered = inp.data.get(block_start..block_start + header_size - 4);
        let (Some(stored), Some(covered)) = (stored, covered) else {
            return Err(TRUNCATED);
        };
        crc32_ok(
            covered,
            u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]),
        )?;
        let mut h = Input {
            data: header.get(..header.len() - 4).unwrap_or_default(),
            pos: 0,
        };
        let block_flags = h.byte()?;
        if block_flags & 0x3c != 0 || block_flags & 0x03 != 0 {
            return Err(Error("unsupported xz block (only one filter, LZMA2)"));
        }
        let compressed_size = if block_flags & 0x40 != 0 {
            Some(h.vli()?)
        } else {
            None
        };
        let uncompressed_size = if block_flags & 0x80 != 0 {
            Some(h.vli()?)
        } else {
            None
        };
        if h.vli()? != 0x21 || h.vli()? != 1 {
            return Err(Error("unsupported xz filter (only LZMA2)"));
        }
        let dict = h.byte()?;
        if dict > 40
            || h.data
                .get(h.pos..)
                .unwrap_or_default()
                .iter()
                .any(|&b| b != 0)
        {
            return Err(Error("invalid xz block header"));
        }
        let data_start = inp.pos;
        let out_start = out.len();
        let rest = inp.data.get(data_start..).unwrap_or_default();
        let consumed = lzma2(rest, out, max)?;
        inp.pos = data_start.saturating_add(consumed);
        let produced = (out.len() - out_start) as u64;
        if compressed_size.is_some_and(|n| n != consumed as u64)
            || uncompressed_size.is_some_and(|n| n != produced)
        {
            return Err(Error("xz block sizes differ from its header"));
        }
        let unpadded = (inp.pos - block_start + check_size) as u64;
        inp.padding(block_start)?;
        let stored = inp.take(check_size)?;
        let data = out.get(out_start..).unwrap_or_default();
        let ok = match check {
            1 => {
                u64::from(crc32(data))
                    == u64::from(u32::from_le_bytes(stored.try_into().unwrap_or_default()))
            }
            4 => {
                crc(data, 0xC96C_5795_D787_0F42, u64::MAX)
                    == u64::from_le_bytes(stored.try_into().unwrap_or_default())
            }
            _ => true,
        };
        if !ok {
            return Err(Error("xz check mismatch: the data is corrupt"));
        }
        records.push((unpadded, produced));
    }
    // The index (its indicator byte already read).
    let index_start = inp.pos - 1;
    if inp.vli()? != records.len() as u64 {
        return Err(Error("the xz index does not match the blocks"));
    }
    for &(unpadded, uncompressed) in &records {
        if inp.vli()? != unpadded || inp.vli()? != uncompressed {
            return Err(Error("the xz index does not match the blocks"));
        }
    }
    inp.padding(index_start)?;
    let covered = inp.data.get(index_start..inp.pos).unwrap_or_default();
    let stored = inp.u32_le()?;
    crc32_ok(covered, stored)?;
    // The index with its CRC32.
    let index_size = inp.pos - index_start;
    // The footer.
    let stored = inp.u32_le()?;
    let footer = inp.take(6)?;
    crc32_ok(footer, stored)?;
    let backward = u64::from(u32::from_le_bytes([
        footer[0], footer[1], footer[2], footer[3],
    ]));
    if (backward + 1) * 4 != index_size as u64
        || footer.get(4..6) != Some(flags)
        || inp.take(2)? != b"YZ"
    {
        return Err(Error("invalid xz stream footer"));
    }
    Ok(())
}

/// Decodes one LZMA2 stream (up to and with its end byte) onto `out`; returns the number of
/// input bytes it took.
fn lzma2(input: &[u8], out: &mut Vec<u8>, max: usize) -> Result<usize, Error> {
    let mut inp = Input {
        data: input,
        pos: 0,
    };
    let mut lzma: Option<Lzma> = None;
    let mut need_dict_reset = true;
    let mut need_props = true;
    let mut dict_start = out.len();
    loop {
        let control = inp.byte()?;
        if control == 0 {
            return Ok(inp.pos);
        }
        if control >= 0xe0 || control == 1 {
            need_props = true;
            need_dict_reset = false;
            dict_start = out.len();
        } else if need_dict_reset {
            return Err(Error("LZMA2 data does not start with a dictionary reset"));
        }
        if control >= 0x80 {
            let unpacked = (usize::from(control & 0x1f) << 16) + inp.u16_be()? + 1;
            let packed = inp.u16_be()? + 1;
            if control >= 0xc0 {
                let props = inp.byte()?;
                let decoder = Lzma::new(props)?;
                if decoder.lc_lp() > 4 {
                    return Err(Error("invalid LZMA2 properties"));
                }
                lzma = Some(decoder);
                need_props = false;
            } else if need_props {
                return Err(Error("LZMA2 chunk without properties"));
            } else if control >= 0xa0 {
                if let Some(decoder) = lzma.as_mut() {
                    decoder.reset();
                }
            }
            let Some(decoder) = lzma.as_mut() else {
                return Err(Error("LZMA2 chunk without properties"));
            };
            let limit = out.len().saturating_add(unpacked);
            if limit > max {
                return Err(Error::TOO_BIG);
            }
            out.reserve(unpacked);
            let chunk = inp.take(packed)?;
            let mut rc = RangeDecoder::new(chunk)?;
            decoder.decode(&mut rc, out, dict_start, limit, End::AtLimit)?;
            if !rc.finished() || rc.consumed() != packed {
                return Err(Error("corrupt LZMA2 chunk"));
            }
        } else {
            if control > 2 {
                return Err(Error("invalid LZMA2 control byte"));
            }
            let size = inp.u16_be()? + 1;
            if out.len().saturating_add(size) > max {
                return Err(Error::TOO_BIG);
            }
            out.extend_from_slice(inp.take(size)?);
        }
    }
}
