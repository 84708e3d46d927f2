//! Checksums over whole chunks: CRC-32C, Adler-32, Fletcher-32 and Jenkins lookup3.

use std::sync::OnceLock;

/// CRC-32C (Castagnoli) of `data`, as the v3 `crc32c` codec and numcodecs compute it.
pub fn crc32c(data: &[u8]) -> u32 {
    static TABLES: OnceLock<[[u32; 256]; 8]> = OnceLock::new();
    crc_sliced(TABLES.get_or_init(|| crc_tables(0x82F6_3B78)), data)
}

/// CRC-32 (ISO-HDLC, zlib's and zip's) of `data`, as numcodecs `crc32` computes it.
pub fn crc32(data: &[u8]) -> u32 {
    static TABLES: OnceLock<[[u32; 256]; 8]> = OnceLock::new();
    crc_sliced(TABLES.get_or_init(|| crc_tables(0xEDB8_8320)), data)
}

/// A reflected CRC of `data` with the slicing-by-8 tables `t`. The tables (8 KiB each) are
/// computed on first use rather than stored in the module: they are incompressible data, and
/// take microseconds to compute.
fn crc_sliced(t: &[[u32; 256]; 8], data: &[u8]) -> u32 {
    let mut crc = !0u32;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let lo = crc ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        crc = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][usize::from(w[4])]
            ^ t[2][usize::from(w[5])]
            ^ t[1][usize::from(w[6])]
            ^ t[0][usize::from(w[7])];
    }
    for &b in words.remainder() {
        crc = t[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// The slicing-by-8 tables of the reflected polynomial `poly`.
fn crc_tables(poly: u32) -> [[u32; 256]; 8] {
    // Opaque to the optimiser, which would otherwise compute the tables at compile time and
    // store their 8 KiB in the module after all.
    let poly = std::hint::black_box(poly);
    let mut t = [[0u32; 256]; 8];
    for (n, slot) in t[0].iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ poly } else { c >> 1 };
        }
        *slot = c;
    }
    for k in 1..8 {
        for n in 0..256 {
            let prev = t[k - 1][n];
            t[k][n] = t[0][(prev & 0xff) as usize] ^ (prev >> 8);
        }
    }
    t
}

/// Adler-32 as zlib computes it (starting value 1).
pub fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    // 5552 bytes is the most that can be summed before `b` could overflow a u32.
    let (mut a, mut b) = (1u32, 0u32);
    for block in data.chunks(5552) {
        for &byte in block {
            a = a.wrapping_add(u32::from(byte));
            b = b.wrapping_add(a);
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

/// Bob Jenkins' lookup3 hash (`hashlittle`, byte by byte) as HDF5 and numcodecs'
/// `jenkins_lookup3` compute it, seeded with `initval`.
pub fn jenkins_lookup3(data: &[u8], initval: u32) -> u32 {
    fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
        *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
        *c = c.wrapping_add(*b);
        *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
        *a = a.wrapping_add(*c);
        *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
        *b = b.wrapping_add(*a);
        *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
        *c = c.wrapping_add(*b);
        *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
        *a = a.wrapping_add(*c);
        *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
        *b = b.wrapping_add(*a);
    }
    fn word(bytes: &[u8]) -> u32 {
        bytes
            .iter()
            .enumerate()
            .fold(0u32, |w, (i, &b)| w | u32::from(b) << (8 * i))
    }
    // lookup3 hashes lengths modulo 2^32.
    let start = 0xdead_beef_u32
        .wrapping_add(data.len() as u32)
        .wrapping_add(initval);
    let (mut a, mut b, mut c) = (start, start, start);
    let mut rest = data;
    while rest.len() > 12 {
        let (block, tail) = rest.split_at(12);
        a = a.wrapping_add(word(&block[0..4]));
        b = b.wrapping_add(word(&block[4..8]));
        c = c.wrapping_add(word(&block[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = tail;
    }
    if rest.is_empty() {
        return c;
    }
    a = a.wrapping_add(word(rest.get(0..4.min(rest.len())).unwrap_or(&[])));
    b = b.wrapping_add(word(rest.get(4..8.min(rest.len())).unwrap_or(&[])));
    c = c.wrapping_add(word(rest.get(8..).unwrap_or(&[])));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c.wrapping_sub(b.rotate_left(24))
}

/// Fletcher-32 as HDF5 (and numcodecs) compute it: big-endian 16-bit words, a trailing odd
/// byte as the high half of a last word.
pub fn fletcher32(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let words = data.chunks_exact(2);
    let odd = words.remainder().first().copied();
    let even = data.get(..data.len() - data.len() % 2).unwrap_or_default();
    // 360 words is the most that can be summed before a reduction is needed.
    for block in even.chunks(720) {
        for w in block.chunks_exact(2) {
            sum1 = sum1.wrapping_add((u32::from(w[0]) << 8) | u32::from(w[1]));
            sum2 = sum2.wrapping_add(sum1);
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if let Some(byte) = odd {
        sum1 = sum1.wrapping_add(u32::from(byte) << 8);
        sum2 = sum2.wrapping_add(sum1);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_known_answers() {
        assert_eq!(crc32c(b""), 0);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(crc32c(&ascending), 0x46DD_794E);
    }

    #[test]
    fn crc32c_matches_bitwise_at_every_length_and_offset() {
        fn bitwise(data: &[u8]) -> u32 {
            let mut crc = !0u32;
            for &b in data {
                crc ^= u32::from(b);
                for _ in 0..8 {
                    crc = if crc & 1 != 0 {
                        (crc >> 1) ^ 0x82F6_3B78
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        }
        let data: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for start in 0..9 {
            for end in start..data.len() {
                assert_eq!(crc32c(&data[start..end]), bitwise(&data[start..end]));
            }
        }
    }

    #[test]
    fn crc32_known_answers() {
        // The check value of CRC-32/ISO-HDLC, and zlib's crc32 of the others.
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
        assert_eq!(crc32(&[0u8; 32]), 0x190A_55AD);
    }

    #[test]
    fn jenkins_lookup3_known_answers() {
        // lookup3.c's own driver, and numcodecs 0.17 (which wraps HDF5's).
        assert_eq!(jenkins_lookup3(b"", 0), 0xdead_beef);
        assert_eq!(jenkins_lookup3(b"", 0xdead_beef), 0xbd5b_7dde);
        let text = b"Four score and seven years ago";
        assert_eq!(jenkins_lookup3(text, 0), 0x1777_0551);
        assert_eq!(jenkins_lookup3(text, 1), 0xcd62_8161);
        let bytes: Vec<u8> = (0..40).collect();
        for (data, seed0, seed7) in [
            (&b"a"[..], 0x58d6_8708, 0xcb4e_a349),
            (b"abcdefghijkl", 0x4012_f87b, 0x806c_14a8),
            (b"abcdefghijklm", 0x9281_28f9, 0xf7a1_f3b0),
            (&bytes, 0x1c9f_a888, 0x6280_137e),
        ] {
            assert_eq!(jenkins_lookup3(data, 0), seed0);
            assert_eq!(jenkins_lookup3(data, 7), seed7);
        }
    }

    #[test]
    fn adler32_known_answer() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(b""), 1);
    }
}
