//! The decoder against the files Python's lzma module (liblzma) wrote (tests/generate.py):
//! every one decodes to the input it was made from and to what lzma-rs decodes; unsupported
//! features, limits and corrupt data are errors, never panics.

use std::fs;
use std::path::PathBuf;
use zom_lzma::{lzma_decode, LzmaContainer};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn container(name: &str) -> LzmaContainer {
    if name.ends_with(".xz") {
        LzmaContainer::Xz
    } else {
        LzmaContainer::Alone
    }
}

fn lzma_rs(input: &[u8], container: LzmaContainer) -> Vec<u8> {
    let mut out = Vec::new();
    let mut reader = input;
    match container {
        LzmaContainer::Xz => lzma_rs::xz_decompress(&mut reader, &mut out).unwrap(),
        LzmaContainer::Alone => lzma_rs::lzma_decompress(&mut reader, &mut out).unwrap(),
    }
    out
}

/// Every (file name, bytes) of the data directory with a compressed extension.
fn files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".xz") || n.ends_with(".lzma"))
        .map(|n| {
            let bytes = fs::read(data_dir().join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    out.sort();
    assert!(
        out.len() > 40,
        "tests/data is missing: run tests/generate.py"
    );
    out
}

#[test]
fn decodes_what_liblzma_wrote_as_lzma_rs_does() {
    let mut lzma_chunks = 0;
    for (name, bytes) in files() {
        let c = container(&name);
        let result = lzma_decode(&bytes, c, 1 << 30);
        if name.contains(".unsupported.") {
            assert!(result.is_err(), "{name}");
            continue;
        }
        let out = result.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let stem = name.split('.').next().unwrap();
        if let Ok(expected) = fs::read(data_dir().join(format!("{stem}.bin"))) {
            assert_eq!(out, expected, "{name}");
        }
        if !name.contains(".two.") {
            assert_eq!(out, lzma_rs(&bytes, c), "{name}: differs from lzma-rs");
        }
        if stem == "letters" {
            assert_eq!(out.len(), 140_000);
            lzma_chunks += 1;
        }
    }
    assert_eq!(lzma_chunks, 1);
}

#[test]
fn the_maximum_is_enforced() {
    for name in ["text.p6.xz", "text.alone.lzma", "mixed.p0.xz", "runs.p9.xz"] {
        let bytes = fs::read(data_dir().join(name)).unwrap();
        let n = lzma_decode(&bytes, container(name), usize::MAX)
            .unwrap()
            .len();
        assert_eq!(lzma_decode(&bytes, container(name), n).unwrap().len(), n);
        let failure = lzma_decode(&bytes, container(name), n - 1).unwrap_err();
        assert!(failure.decoded >= n - 1, "{name}: {failure:?}");
    }
}

#[test]
fn truncated_and_bit_flipped_data_are_errors_not_panics() {
    for (name, bytes) in files() {
        if bytes.len() > 20_000 {
            continue;
        }
        let c = container(&name);
        let good = lzma_decode(&bytes, c, 1 << 24).ok();
        // (A two-stream file cut after its first stream is a valid one-stream file.)
        for len in (0..bytes.len()).filter(|_| !name.contains(".two.")) {
            let r = lzma_decode(&bytes[..len], c, 1 << 24);
            // An alone file of unknown size needs its end marker; an xz one its footer.
            assert!(r.is_err(), "{name} truncated to {len} decodes");
        }
        let step = (bytes.len() / 300).max(1);
        for i in (0..bytes.len()).step_by(step) {
            for bit in [0, 3, 7] {
                let mut corrupt = bytes.clone();
                corrupt[i] ^= 1 << bit;
                let r = lzma_decode(&corrupt, c, 1 << 24);
                // With a CRC, a flip is an error or changes nothing the output depends on.
                if name.ends_with(".xz") && !name.contains(".none.") {
                    if let Ok(out) = r {
                        assert_eq!(Some(out), good, "{name}: flip at {i} bit {bit}");
                    }
                }
            }
        }
    }
}

#[test]
fn junk_is_an_error() {
    for junk in [
        &b""[..],
        b"\xfd7zXZ\0",
        b"\x5d\0\0\x10\0",
        &[0xff; 40],
        &[0; 40],
    ] {
        assert!(lzma_decode(junk, LzmaContainer::Xz, 1 << 20).is_err());
    }
    for junk in [&b""[..], b"\x5d\0\0\x10\0", &[0xff; 40], &[0x5d; 40]] {
        assert!(lzma_decode(junk, LzmaContainer::Alone, 1 << 20).is_err());
    }
    // Zeros are a valid alone header of an empty file (lc = lp = pb = 0, size 0).
    assert_eq!(
        lzma_decode(&[0; 40], LzmaContainer::Alone, 1 << 20).unwrap(),
        b""
    );
}
