//! Icechunk object ids: 12 random bytes for snapshots, manifests and chunks, 8 for nodes,
//! written in file names as Crockford base 32 (uppercase, no padding).

use crate::error::{Result, ZomError};
use std::fmt;

const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// An object id of `N` bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId<const N: usize>(pub [u8; N]);

/// The id of a snapshot (its file is `snapshots/{id}`).
pub type SnapshotId = ObjectId<12>;
/// The id of a chunk manifest (its file is `manifests/{id}`).
pub type ManifestId = ObjectId<12>;
/// The id of a chunk file (`chunks/{id}`).
pub type ChunkId = ObjectId<12>;
/// The id of a node (group or array), stable across snapshots.
pub type NodeId = ObjectId<8>;

impl<const N: usize> ObjectId<N> {
    /// The id whose bytes are `bytes`, which must be exactly `N`.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        bytes.try_into().ok().map(ObjectId)
    }

    /// Reads the Crockford base 32 form (case-insensitive; `O` reads as 0, `I` and `L` as 1,
    /// as Crockford allows). The bits past the `N` bytes must be zero.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = |why: &str| {
            ZomError::invalid_argument(format!(
                "icechunk: '{text}' is not an object id of {N} bytes: {why}"
            ))
        };
        let want = (N * 8).div_ceil(5);
        if text.len() != want {
            return Err(bad(&format!(
                "it has {} characters, not {want}",
                text.len()
            )));
        }
        let mut bytes = [0u8; N];
        let (mut acc, mut bits, mut at) = (0u32, 0u32, 0usize);
        for c in text.bytes() {
            let value =
                decode_char(c).ok_or_else(|| bad("a character outside Crockford base 32"))?;
            acc = (acc << 5) | u32::from(value);
            bits += 5;
            if bits >= 8 {
                bits -= 8;
                if let Some(slot) = bytes.get_mut(at) {
                    *slot = (acc >> bits) as u8;
                }
                at += 1;
                acc &= (1 << bits) - 1;
            }
        }
        if acc != 0 {
            return Err(bad("its last character has bits past the id set"));
        }
        Ok(ObjectId(bytes))
    }
}

fn decode_char(c: u8) -> Option<u8> {
    let c = match c.to_ascii_uppercase() {
        b'O' => b'0',
        b'I' | b'L' => b'1',
        other => other,
    };
    ALPHABET.iter().position(|&a| a == c).map(|p| p as u8)
}

impl<const N: usize> fmt::Display for ObjectId<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mut acc, mut bits) = (0u32, 0u32);
        let mut text = String::with_capacity((N * 8).div_ceil(5));
        for &byte in &self.0 {
            acc = (acc << 8) | u32::from(byte);
            bits += 8;
            while bits >= 5 {
                bits -= 5;
                text.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
            }
            acc &= (1 << bits) - 1;
        }
        if bits > 0 {
            text.push(ALPHABET[((acc << (5 - bits)) & 31) as usize] as char);
        }
        f.write_str(&text)
    }
}

impl<const N: usize> fmt::Debug for ObjectId<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_example() {
        let id = SnapshotId::parse("1CECHNKREP0F1RSTCMT0").unwrap();
        assert_eq!(
            id.0,
            [0x0b, 0x1c, 0xc8, 0xd6, 0x78, 0x75, 0x80, 0xf0, 0xe3, 0x3a, 0x65, 0x34]
        );
        assert_eq!(id.to_string(), "1CECHNKREP0F1RSTCMT0");
        assert_eq!(SnapshotId::parse("1cechnkrepof1rstcmt0").unwrap(), id);
    }

    #[test]
    fn node_ids_round_trip() {
        for bytes in [[0u8; 8], [0xff; 8], [1, 2, 3, 4, 5, 6, 7, 8]] {
            let id: NodeId = ObjectId(bytes);
            let text = id.to_string();
            assert_eq!(text.len(), 13);
            assert_eq!(NodeId::parse(&text).unwrap(), id);
        }
    }

    #[test]
    fn refuses_what_is_no_id() {
        assert!(SnapshotId::parse("1CECHNKREP0F1RSTCMT").is_err());
        assert!(SnapshotId::parse("1CECHNKREP0F1RSTCMTU").is_err());
        // The last character of 12 bytes carries 4 bits and one of padding, which must be zero.
        assert!(SnapshotId::parse("1CECHNKREP0F1RSTCMT1").is_err());
        assert!(NodeId::parse("").is_err());
    }
}
