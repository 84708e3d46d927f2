//! Byte and bit unshuffling (the numcodecs `shuffle` codec, blosc's shuffle and bitshuffle)
//! against simple bit-by-bit reference implementations kept here, on random data of many
//! sizes and element sizes, including lengths that leave partial vectors, partial groups of
//! 8 elements and bytes that make no whole element.
//!
//! Blosc frames are built by hand with every stream stored uncompressed (the decoder copies
//! those), so that any block size, element size and format version can be tried. Run natively
//! by `cargo test --test codec_shuffle`, and with the WebAssembly SIMD kernels by
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test --target
//! wasm32-unknown-unknown --test codec_shuffle`.

use serde_json::json;
use zom::codec::{CodecPipeline, DecodedChunk};
use zom::model::v2::ArrayMetadataV2;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// xorshift64*: reproducible bytes without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 56) as u8).collect()
    }
}

/// Reference byte shuffle: byte `j` of element `i` goes to `j * count + i`; bytes that make
/// no whole element stay at the end.
fn shuffle(data: &[u8], typesize: usize) -> Vec<u8> {
    let count = data.len() / typesize;
    let mut out = data.to_vec();
    for i in 0..count {
        for j in 0..typesize {
            out[j * count + i] = data[i * typesize + j];
        }
    }
    out
}

/// Reference bitshuffle of `count` elements: bit `b` of byte `j` of element `e` goes to bit
/// `(8 j + b) * count + e` (LSB first within each byte); the rest is copied.
fn bitshuffle(data: &[u8], typesize: usize, count: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    out[..count * typesize].fill(0);
    for e in 0..count {
        for j in 0..typesize {
            for b in 0..8 {
                if data[e * typesize + j] >> b & 1 == 1 {
                    let pos = (8 * j + b) * count + e;
                    out[pos / 8] |= 1 << (pos % 8);
                }
            }
        }
    }
    out
}

/// A v2 pipeline decoding `len` bytes (`|u1`) with the numcodecs codec `config`.
fn pipeline(config: serde_json::Value, len: usize) -> CodecPipeline {
    let meta = json!({"zarr_format": 2, "shape": [len], "chunks": [len], "dtype": "|u1",
        "fill_value": null, "order": "C", "filters": null, "compressor": config});
    CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap()
}

fn decode(pipeline: &CodecPipeline, encoded: &[u8]) -> Vec<u8> {
    let bytes = match pipeline.decode(encoded).unwrap() {
        DecodedChunk::Fixed(bytes) => bytes,
        other => panic!("not fixed-size: {other:?}"),
    };
    let mut into = vec![0xA5; bytes.len()];
    pipeline.decode_into(encoded, &mut into).unwrap();
    assert!(into == bytes, "decode_into differs from decode");
    bytes
}

const DOSHUFFLE: u8 = 0x01;
const DOBITSHUFFLE: u8 = 0x04;
const DONT_SPLIT: u8 = 0x10;
const LZ4: u8 = 1 << 5;

/// A blosc frame of `data` in blocks of `blocksize` bytes, each shuffled as blosc format
/// `version` does and stored uncompressed.
fn blosc_frame(data: &[u8], typesize: usize, blocksize: usize, flags: u8, version: u8) -> Vec<u8> {
    let nblocks = data.len().div_ceil(blocksize);
    let mut blocks = Vec::new();
    let mut offsets = Vec::new();
    let data_start = 16 + 4 * nblocks;
    for block in data.chunks(blocksize) {
        let stored = if flags & DOSHUFFLE != 0 && typesize > 1 {
            shuffle(block, typesize)
        } else if flags & DOBITSHUFFLE != 0 && block.len() >= typesize {
            let count = block.len() / typesize;
            let shuffled = match version {
                ..=2 if !count.is_multiple_of(8) => 0,
                ..=2 => count,
                _ => count - count % 8,
            };
            bitshuffle(block, typesize, shuffled)
        } else {
            block.to_vec()
        };
        offsets.push((data_start + blocks.len()) as u32);
        blocks.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        blocks.extend_from_slice(&stored);
    }
    let mut frame = vec![version, 1, flags | DONT_SPLIT | LZ4, typesize as u8];
    frame.extend_from_slice(&(data.len() as u32).to_le_bytes());
    frame.extend_from_slice(&(blocksize as u32).to_le_bytes());
    frame.extend_from_slice(&((data_start + blocks.len()) as u32).to_le_bytes());
    for offset in offsets {
        frame.extend_from_slice(&offset.to_le_bytes());
    }
    frame.extend_from_slice(&blocks);
    frame
}

/// Element sizes with kernels of their own (1, 2, 4, 8) and without.
const TYPESIZES: [usize; 10] = [1, 2, 3, 4, 5, 7, 8, 12, 16, 33];

/// Byte counts around the vector and group boundaries, plus random ones.
fn lengths(rng: &mut Rng, typesize: usize) -> Vec<usize> {
    let mut out = vec![0, 1, typesize, 8 * typesize, 16 * typesize];
    // 8999 elements span more than one of the bit unshuffle's 16 KiB tiles.
    for elements in [
        7, 15, 16, 17, 63, 64, 127, 128, 129, 255, 256, 1000, 1031, 4104, 8999,
    ] {
        out.push(elements * typesize);
        out.push(elements * typesize + typesize / 2);
    }
    for _ in 0..6 {
        out.push(rng.below(5000));
    }
    out
}

#[test]
fn numcodecs_shuffle_matches_reference() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for typesize in TYPESIZES {
        for len in lengths(&mut rng, typesize) {
            // The codec refuses a partial element; blosc (below) keeps one.
            let len = len - len % typesize;
            let data = rng.bytes(len);
            let p = pipeline(json!({"id": "shuffle", "elementsize": typesize}), len);
            let got = decode(&p, &shuffle(&data, typesize));
            assert!(got == data, "shuffle typesize {typesize}, {len} bytes");
        }
    }
}

#[test]
fn blosc_shuffle_matches_reference() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for typesize in TYPESIZES {
        for len in lengths(&mut rng, typesize) {
            let data = rng.bytes(len);
            // Whole blocks, a leftover block, blocks that are no whole number of elements.
            for blocksize in [len.max(1), 256 * typesize, 1000] {
                let frame = blosc_frame(&data, typesize, blocksize, DOSHUFFLE, 2);
                let got = decode(&pipeline(json!({"id": "blosc"}), len), &frame);
                assert!(
                    got == data,
                    "blosc shuffle typesize {typesize}, {len} bytes, blocks of {blocksize}"
                );
            }
        }
    }
}

#[test]
fn blosc_bitshuffle_matches_reference() {
    let mut rng = Rng(0x94D0_49BB_1331_11EB);
    for typesize in TYPESIZES {
        for len in lengths(&mut rng, typesize) {
            let data = rng.bytes(len);
            for blocksize in [len.max(1), 256 * typesize, 1000] {
                // Format 2 leaves blocks of a partial group of 8 as they are; 3 does not.
                for version in [2, 3] {
                    let frame = blosc_frame(&data, typesize, blocksize, DOBITSHUFFLE, version);
                    let got = decode(&pipeline(json!({"id": "blosc"}), len), &frame);
                    assert!(
                        got == data,
                        "blosc bitshuffle v{version} typesize {typesize}, {len} bytes, \
                         blocks of {blocksize}"
                    );
                }
            }
        }
    }
}

/// The reference bitshuffle agrees with what numcodecs wrote (so the tests above test the
/// right thing): the fixtures' blosc cases decode to their inputs in codec_fixtures.rs; here,
/// one hand-checked 8 × u16 matrix.
#[test]
fn reference_bitshuffle_layout() {
    let data: Vec<u8> = (0u16..8).flat_map(|v| (v << 8 | 1).to_le_bytes()).collect();
    let shuffled = bitshuffle(&data, 2, 8);
    // Bit 0 of byte 0 is 1 in all 8 elements; byte 1 holds v: bit b of it is set in the
    // elements whose index has bit b.
    assert_eq!(
        shuffled,
        [0xFF, 0, 0, 0, 0, 0, 0, 0, 0xAA, 0xCC, 0xF0, 0, 0, 0, 0, 0]
    );
}
