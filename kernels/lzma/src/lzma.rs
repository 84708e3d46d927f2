//! The LZMA decoder proper (range decoder, literal/match/rep symbols), shared by the "alone"
//! container and LZMA2 chunks. The whole output is the dictionary: a match copies from the
//! bytes already decoded since the last dictionary reset, so there is no window to manage.

use crate::Error;

const PROB_INIT: u16 = 1024;
/// The range decoder ran past its input (reads there give zeros, checked once per symbol).
const TRUNCATED: Error = Error("the compressed data is truncated");

/// The range decoder over one compressed stream (an LZMA2 chunk, or the rest of an alone file).
pub(crate) struct RangeDecoder<'a> {
    input: &'a [u8],
    pos: usize,
    range: u32,
    code: u32,
}

impl<'a> RangeDecoder<'a> {
    /// Starts decoding `input` (its first five bytes: a zero, then the initial code).
    pub(crate) fn new(input: &'a [u8]) -> Result<Self, Error> {
        let head: [u8; 5] = input
            .get(..5)
            .and_then(|h| h.try_into().ok())
            .ok_or(TRUNCATED)?;
        let code = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
        // The encoder always writes a zero first; a code equal to the range cannot occur.
        if head[0] != 0 || code == u32::MAX {
            return Err(Error("corrupt range coder start"));
        }
        Ok(RangeDecoder {
            input,
            pos: 5,
            range: u32::MAX,
            code,
        })
    }

    /// The number of input bytes read (more than the input when it was truncated).
    pub(crate) fn consumed(&self) -> usize {
        self.pos
    }

    /// True when the input ended cleanly: nothing read past it and the code back to zero.
    pub(crate) fn finished(&self) -> bool {
        self.pos <= self.input.len() && self.code == 0
    }

    fn overrun(&self) -> bool {
        self.pos > self.input.len()
    }

    // Invariant: code < range, and range >= 2^24 after normalising; the arithmetic below keeps
    // both (wrapping ops only spell out that nothing can overflow).
    #[inline(always)]
    fn normalize(&mut self) {
        if self.range < (1 << 24) {
            let b = self.input.get(self.pos).copied().unwrap_or(0);
            self.pos = self.pos.saturating_add(1);
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(b);
        }
    }

    #[inline(always)]
    fn bit(&mut self, p: &mut u16) -> u32 {
        let bound = (self.range >> 11).wrapping_mul(u32::from(*p));
        let bit = if self.code < bound {
            self.range = bound;
            *p = p.wrapping_add((2048u16.wrapping_sub(*p)) >> 5);
            0
        } else {
            self.range = self.range.wrapping_sub(bound);
            self.code = self.code.wrapping_sub(bound);
            *p = p.wrapping_sub(*p >> 5);
            1
        };
        self.normalize();
        bit
    }

    /// `bits` bits with probability one half, most significant first.
    fn direct(&mut self, bits: u32) -> Result<u32, Error> {
        let mut v = 0u32;
        for _ in 0..bits {
            self.range >>= 1;
            let one = self.code >= self.range;
            if one {
                self.code = self.code.wrapping_sub(self.range);
            }
            v = (v << 1) | u32::from(one);
            if self.code == self.range {
                return Err(Error("corrupt range coder state"));
            }
            self.normalize();
        }
        Ok(v)
    }

    /// A symbol of `log2(N)` bits through a bit tree, most significant bit first.
    #[inline(always)]
    fn tree<const N: usize>(&mut self, probs: &mut [u16; N]) -> u32 {
        let mut m = 1usize;
        while m < N {
            let b = self.bit(&mut probs[m % N]);
            m = (m << 1) | b as usize;
        }
        (m - N) as u32
    }

    /// A symbol of `bits` bits through a bit tree, least significant bit first.
    fn reverse_tree(&mut self, probs: &mut [u16], bits: u32) -> Result<u32, Error> {
        let mut m = 1usize;
        let mut v = 0u32;
        for i in 0..bits {
            let p = probs.get_mut(m).ok_or(Error("corrupt distance"))?;
            let b = self.bit(p);
            m = (m << 1) | b as usize;
            v |= b << i;
        }
        Ok(v)
    }
}

/// The probabilities of one length decoder (match or rep lengths).
#[derive(Clone)]
struct LenProbs {
    choice: u16,
    choice2: u16,
    low: [[u16; 8]; 16],
    mid: [[u16; 8]; 16],
    high: [u16; 256],
}

impl LenProbs {
    const INIT: LenProbs = LenProbs {
        choice: PROB_INIT,
        choice2: PROB_INIT,
        low: [[PROB_INIT; 8]; 16],
        mid: [[PROB_INIT; 8]; 16],
        high: [PROB_INIT; 256],
    };

    /// A match length minus 2 (0..=271).
    fn decode(&mut self, rc: &mut RangeDecoder, pos_state: usize) -> u32 {
        if rc.bit(&mut self.choice) == 0 {
            rc.tree(&mut self.low[pos_state % 16])
        } else if rc.bit(&mut self.choice2) == 0 {
            8 + rc.tree(&mut self.mid[pos_state % 16])
        } else {
            16 + rc.tree(&mut self.high)
        }
    }
}

/// Every probability but the literal coder's. States (0..12) index arrays of 16.
#[derive(Clone)]
struct Probs {
    is_match: [[u16; 16]; 16],
    is_rep: [u16; 16],
    is_rep_g0: [u16; 16],
    is_rep_g1: [u16; 16],
    is_rep_g2: [u16; 16],
    is_rep0_long: [[u16; 16]; 16],
    pos_slot: [[u16; 64]; 4],
    pos_special: [u16; 115],
    align: [u16; 16],
    len: LenProbs,
    rep_len: LenProbs,
}

impl Probs {
    const INIT: Probs = Probs {
        is_match: [[PROB_INIT; 16]; 16],
        is_rep: [PROB_INIT; 16],
        is_rep_g0: [PROB_INIT; 16],
        is_rep_g1: [PROB_INIT; 16],
        is_rep_g2: [PROB_INIT; 16],
        is_rep0_long: [[PROB_INIT; 16]; 16],
        pos_slot: [[PROB_INIT; 64]; 4],
        pos_special: [PROB_INIT; 115],
        align: [PROB_INIT; 16],
        len: LenProbs::INIT,
        rep_len: LenProbs::INIT,
    };
}

/// How a call to [`Lzma::decode`] ends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// At `limit` bytes of output; an end marker is an error (LZMA2 chunks, alone files of
    /// known size).
    AtLimit,
    /// At the end marker; reaching `limit` first is [`Error::TOO_BIG`] (alone files of
    /// unknown size, `limit` being the caller's maximum).
    AtMarker,
}

/// An LZMA decoder: properties, probabilities, state and the last four distances.
pub(crate) struct Lzma {
    lc: u32,
    lp_mask: usize,
    pb_mask: usize,
    literal: Vec<[u16; 0x300]>,
    probs: Box<Probs>,
    state: usize,
    rep: [u32; 4],
}

impl Lzma {
    /// A decoder for the properties byte `props` ((pb × 5 + lp) × 9 + lc).
    pub(crate) fn new(props: u8) -> Result<Lzma, Error> {
        if props >= 9 * 5 * 5 {
            return Err(Error("invalid LZMA properties"));
        }
        let (lc, lp, pb) = (props % 9, (props / 9) % 5, props / 45);
        Ok(Lzma {
            lc: u32::from(lc),
            lp_mask: (1 << lp) - 1,
            pb_mask: (1 << pb) - 1,
            literal: vec![[PROB_INIT; 0x300]; 1 << (lc + lp)],
            probs: Box::new(Probs::INIT),
            state: 0,
            rep: [0; 4],
        })
    }

    /// lc + lp (LZMA2 allows at most 4).
    pub(crate) fn lc_lp(&self) -> u32 {
        self.lc + self.lp_mask.count_ones()
    }

    /// Back to the initial probabilities and state (properties unchanged).
    pub(crate) fn reset(&mut self) {
        self.literal.fill([PROB_INIT; 0x300]);
        *self.probs = Probs::INIT;
        self.state = 0;
        self.rep = [0; 4];
    }

    /// Decodes symbols from `rc` onto `out`, whose bytes from `dict_start` on are the
    /// dictionary, until `out` holds `limit` bytes or the end marker, as `end` says.
    pub(crate) fn decode(
        &mut self,
        rc: &mut RangeDecoder,
        out: &mut Vec<u8>,
        dict_start: usize,
        limit: usize,
        end: End,
    ) -> Result<(), Error> {
        let p = &mut *self.probs;
        let mut state = self.state;
        let [mut rep0, mut rep1, mut rep2, mut rep3] = self.rep;
        let result = loop {
            if rc.overrun() {
                break Err(TRUNCATED);
            }
            let pos = out.len();
            // (At the maximum an alone file may still have its end marker to come.)
            if pos >= limit && end == End::AtLimit {
                break Ok(());
            }
            let dict_pos = pos.wrapping_sub(dict_start);
            let pos_state = dict_pos & self.pb_mask;
            if rc.bit(&mut p.is_match[state % 16][pos_state % 16]) == 0 {
                // A literal, coded with the previous byte (and, after a match, the byte at
                // rep0) as context.
                let prev = if dict_pos > 0 {
                    out.last().copied().unwrap_or(0)
                } else {
                    0
                };
                let ctx =
                    ((dict_pos & self.lp_mask) << self.lc) | usize::from(prev) >> (8 - self.lc);
                let Some(probs) = self.literal.get_mut(ctx) else {
                    break Err(Error("corrupt literal context"));
                };
                let mut sym = 1usize;
                if state >= 7 {
                    let Some(&matched) = out.get(pos.wrapping_sub(rep0 as usize).wrapping_sub(1))
                    else {
                        break Err(Error("corrupt match distance"));
                    };
                    let mut matched = usize::from(matched);
                    while sym < 0x100 {
                        let match_bit = (matched >> 7) & 1;
                        matched <<= 1;
                        let b = rc.bit(&mut probs[(((1 + match_bit) << 8) + sym) % 0x300]) as usize;
                        sym = (sym << 1) | b;
                        if match_bit != b {
                            break;
                        }
                    }
                }
                while sym < 0x100 {
                    sym = (sym << 1) | rc.bit(&mut probs[sym % 0x300]) as usize;
                }
                if pos >= limit {
                    break Err(Error::TOO_BIG);
                }
                out.push(sym as u8);
                state = if state < 4 {
                    0
                } else if state < 10 {
                    state - 3
                } else {
                    state - 6
                };
                continue;
            }
            let len;
            if rc.bit(&mut p.is_rep[state % 16]) != 0 {
                if dict_pos == 0 {
                    break Err(Error("corrupt match before any output"));
                }
                if rc.bit(&mut p.is_rep_g0[state % 16]) == 0 {
                    if rc.bit(&mut p.is_rep0_long[state % 16][pos_state % 16]) == 0 {
                        // A short rep: one byte from rep0.
                        let b = match out.get(pos.wrapping_sub(rep0 as usize).wrapping_sub(1)) {
                            Some(&b) if (rep0 as usize) < dict_pos => b,
                            _ => break Err(Error("corrupt match distance")),
                        };
                        if pos >= limit {
                            break Err(Error::TOO_BIG);
                        }
                        out.push(b);
                        state = if state < 7 { 9 } else { 11 };
                        continue;
                    }
                } else {
                    let dist;
                    if rc.bit(&mut p.is_rep_g1[state % 16]) == 0 {
                        dist = rep1;
                    } else {
                        if rc.bit(&mut p.is_rep_g2[state % 16]) == 0 {
                            dist = rep2;
                        } else {
                            dist = rep3;
                            rep3 = rep2;
                        }
                        rep2 = rep1;
                    }
                    rep1 = rep0;
                    rep0 = dist;
                }
                len = p.rep_len.decode(rc, pos_state);
                state = if state < 7 { 8 } else { 11 };
            } else {
                rep3 = rep2;
                rep2 = rep1;
                rep1 = rep0;
                len = p.len.decode(rc, pos_state);
                state = if state < 7 { 7 } else { 10 };
                rep0 = match distance(rc, p, len) {
                    Ok(d) => d,
                    Err(e) => break Err(e),
                };
                if rep0 == u32::MAX {
                    // The end marker.
                    break match end {
                        End::AtMarker if rc.finished() => Ok(()),
                        End::AtMarker => Err(Error("data after the end marker")),
                        End::AtLimit => Err(Error("unexpected end marker")),
                    };
                }
            }
            let len = len as usize + 2;
            if rep0 as usize >= dict_pos {
                break Err(Error("corrupt match distance"));
            }
            if len > limit.saturating_sub(pos) {
                break Err(match end {
                    End::AtLimit => Error("a match runs past the end of the data"),
                    End::AtMarker => Error::TOO_BIG,
                });
            }
            copy_match(out, rep0 as usize + 1, len);
        };
        self.state = state;
        self.rep = [rep0, rep1, rep2, rep3];
        result
    }
}

/// Appends `len` bytes copied from `dist` bytes back (`1 <= dist <= out.len()`).
fn copy_match(out: &mut Vec<u8>, dist: usize, len: usize) {
    let start = out.len().saturating_sub(dist);
    if dist >= len {
        out.extend_from_within(start..start + len);
    } else {
        // Overlapping: the match repeats its own output.
        out.reserve(len);
        for i in start..start + len {
            let b = out.get(i).copied().unwrap_or(0);
            out.push(b);
        }
    }
}

/// The distance of a match of length `len + 2`, minus one (`u32::MAX`: the end marker).
fn distance(rc: &mut RangeDecoder, p: &mut Probs, len: u32) -> Result<u32, Error> {
    let slot = rc.tree(&mut p.pos_slot[(len.min(3)) as usize % 4]);
    if slot < 4 {
        return Ok(slot);
    }
    let direct = (slot >> 1) - 1;
    let base = (2 | (slot & 1)) << direct;
    if slot < 14 {
        let probs = p
            .pos_special
            .get_mut((base - slot) as usize..)
            .ok_or(Error("corrupt distance"))?;
        Ok(base | rc.reverse_tree(probs, direct)?)
    } else {
        let high = rc.direct(direct - 4)?;
        let low = rc.reverse_tree(&mut p.align, 4)?;
        Ok(base | (high << 4) | low)
    }
}
