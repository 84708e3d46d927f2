//! The bzip2 decoder against the files Python's bz2 module (libbzip2) wrote
//! (tests/generate_bzip2.py) and against the bzip2 crate; limits and corrupt data are errors,
//! never panics.

use std::fs;
use std::io::Read;
use std::path::PathBuf;
use zom_kernels::{bzip2_decode, Bzip2Error};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bzip2")
}

fn files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".bz2"))
        .map(|n| {
            let bytes = fs::read(dir().join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    out.sort();
    assert!(
        out.len() > 15,
        "tests/bzip2 is missing: run tests/generate_bzip2.py"
    );
    out
}

fn reference(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(input)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn decodes_what_libbzip2_wrote() {
    for (name, bytes) in files() {
        let out = bzip2_decode(&bytes, 1 << 30).unwrap_or_else(|e| panic!("{name}: {e}"));
        let stem = name.split('.').next().unwrap();
        if let Ok(expected) = fs::read(dir().join(format!("{stem}.bin"))) {
            assert_eq!(out, expected, "{name}");
        }
        assert_eq!(
            out,
            reference(&bytes),
            "{name}: differs from the bzip2 crate"
        );
    }
}

#[test]
fn the_maximum_is_enforced() {
    for (name, bytes) in files() {
        let n = bzip2_decode(&bytes, usize::MAX).unwrap().len();
        assert_eq!(bzip2_decode(&bytes, n).unwrap().len(), n, "{name}");
        if n > 0 {
            assert!(
                bzip2_decode(&bytes, n - 1) == Err(Bzip2Error::TooBig),
                "{name}"
            );
        }
    }
}

#[test]
fn truncated_and_bit_flipped_data_are_errors_not_panics() {
    for (name, bytes) in files() {
        if bytes.len() > 6000 {
            continue;
        }
        let good = bzip2_decode(&bytes, 1 << 24).unwrap();
        for len in 0..bytes.len() {
            if name.contains(".two.") {
                break;
            }
            assert!(
                bzip2_decode(&bytes[..len], 1 << 24).is_err(),
                "{name} cut at {len}"
            );
        }
        let step = (bytes.len() / 400).max(1);
        for i in (0..bytes.len()).step_by(step) {
            for bit in [0, 4, 7] {
                let mut corrupt = bytes.clone();
                corrupt[i] ^= 1 << bit;
                // The block and stream CRCs catch what the format does not.
                if let Ok(out) = bzip2_decode(&corrupt, 1 << 24) {
                    assert_eq!(out, good, "{name}: flip at {i} bit {bit}");
                }
            }
        }
    }
}

#[test]
fn junk_is_an_error() {
    for junk in [
        &b""[..],
        b"BZh",
        b"BZh9",
        b"BZh0\x17\x72\x45\x38\x50\x90\0\0\0\0",
        &[0xff; 64],
    ] {
        assert!(bzip2_decode(junk, 1 << 20).is_err());
    }
    // An empty stream, then junk.
    let mut junk = fs::read(dir().join("empty.9.bz2")).unwrap();
    junk.extend_from_slice(b"xyz");
    assert!(bzip2_decode(&junk, 1 << 20).is_err());
}
