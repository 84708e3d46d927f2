//! The decoders that a viewer's first tile rarely needs, each behind a cargo feature: DEFLATE
//! (gzip, zlib, zip members), numcodecs `lzma` (xz and LZMA alone), `bz2`, `pcodec` and `zfpy`, and the zarr-extensions `zfp` codec. Native builds of zom link this crate and
//! call [`decode`]; the JS package builds it alone, with the feature `export`, into small
//! WebAssembly parts that TypeScript loads the first time an array needs one and that zom's
//! reader calls synchronously through the host (ARCHITECTURE.md, "Parts"). One function and one
//! set of messages serve both, so a chunk decodes (or fails) the same way in each.
//!
//! Every input is hostile: nothing here allocates more than the `max` output bytes the caller
//! allows (plus the decoders' bounded working state) or panics on bad data.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "deflate")]
mod deflate;
#[cfg(feature = "deflate")]
pub use deflate::inflate;
#[cfg(feature = "export")]
mod export;
#[cfg(feature = "pcodec")]
mod pcodec;
#[cfg(feature = "zfp")]
mod zfp;
#[cfg(feature = "zfp")]
pub use zfp::variant as zfp_variant;

/// Decodes `input` with the codec `codec` (`"deflate"`, `"lzma"`, `"bz2"`, `"pcodec"`, `"zfpy"`, `"zfp"`)
/// in its `variant`, producing at most `max` bytes: for `deflate` the container (`"gzip"`,
/// `"zlib"`, `"raw"`), for `lzma` the container (`"xz"`,
/// `"alone"`, or `"auto"` for whichever the data is), for `bz2` nothing (`""`), for `pcodec`
/// and `zfpy` the element type (`"uint8"` … `"float64"`, v3 names), whose little-endian values
/// it produces, for `zfp` what [`zfp_variant`] builds. The error is
/// a message without the codec's name, which the caller adds.
pub fn decode(codec: &str, variant: &str, input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    match codec {
        #[cfg(feature = "deflate")]
        "deflate" => deflate::inflate(variant, input, max),
        #[cfg(feature = "lzma")]
        "lzma" => lzma(variant, input, max),
        #[cfg(feature = "bzip2")]
        "bz2" => bzip2(input, max),
        #[cfg(feature = "pcodec")]
        "pcodec" => pcodec::decode(variant, input, max),
        #[cfg(feature = "zfp")]
        "zfpy" => zfp::decode_zfpy(variant, input, max),
        #[cfg(feature = "zfp")]
        "zfp" => zfp::decode_zfp(variant, input, max),
        _ => Err(format!(
            "this part of zom has no decoder for {codec} ({variant})"
        )),
    }
}

/// The message of data that decodes to more than `max` bytes.
#[allow(dead_code)]
fn too_big(max: usize, detail: &str) -> String {
    format!("the data decodes to more than the {max} bytes the chunk allows ({detail})")
}

#[cfg(feature = "lzma")]
fn lzma(variant: &str, input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    use zom_lzma::{lzma_decode, LzmaContainer, LzmaFailure};
    const XZ_MAGIC: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0];
    let container = match variant {
        "xz" => LzmaContainer::Xz,
        "auto" if input.starts_with(XZ_MAGIC) => LzmaContainer::Xz,
        "auto" | "alone" => LzmaContainer::Alone,
        _ => return Err(format!("no lzma container named '{variant}'")),
    };
    match lzma_decode(input, container, max) {
        Ok(out) => Ok(out),
        Err(LzmaFailure { error, decoded }) if decoded >= max => {
            Err(too_big(max, &error.to_string()))
        }
        Err(LzmaFailure { error, .. }) => Err(error.to_string()),
    }
}

#[cfg(feature = "bzip2")]
fn bzip2(input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    use zom_kernels::{bzip2_decode, Bzip2Error};
    bzip2_decode(input, max).map_err(|e| match e {
        Bzip2Error::TooBig => too_big(max, &format!("at least {}", max as u64 + 1)),
        Bzip2Error::Corrupt(why) => why.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_codec_is_an_error_not_a_panic() {
        let e = decode("blosc", "", b"", 10).unwrap_err();
        assert!(e.contains("no decoder for blosc"), "{e}");
    }

    #[cfg(feature = "lzma")]
    #[test]
    fn lzma_bad_variant_and_garbage_are_errors() {
        assert!(decode("lzma", "raw", b"", 10)
            .unwrap_err()
            .contains("container"));
        assert!(decode("lzma", "xz", b"not xz at all", 10).is_err());
        assert!(decode("lzma", "auto", b"\x5d\0\0\x10\0", 10).is_err());
    }

    #[cfg(feature = "bzip2")]
    #[test]
    fn bzip2_garbage_is_an_error() {
        assert!(decode("bz2", "", b"BZh9garbage", 10).is_err());
        assert!(decode("bz2", "", b"", 10).is_err());
    }
}
