//! numcodecs codec ids (v2 `filters` / `compressor`, v3 `numcodecs.*` names) and the
//! configurations of the common ones.

use super::util::{
    expect_array, expect_int_range, expect_number, expect_one_of, expect_str, expect_uint,
    required, show, unknown_keys, Ctx, LocExt,
};
use super::{LocStep, ProblemKind};
use crate::dtype::DataType;
use serde_json::{Map, Value};

/// What a numcodecs codec does, in v3 pipeline terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NcRole {
    /// A filter (array → array).
    ArrayArray,
    /// Serialises the array (array → bytes).
    ArrayBytes,
    /// A compressor or checksum (bytes → bytes).
    BytesBytes,
}

/// ids whose codec gives a v2 `|O` array its meaning.
pub(crate) const OBJECT_CODECS: &[&str] = &[
    "vlen-utf8",
    "vlen-bytes",
    "vlen-array",
    "json2",
    "msgpack2",
    "pickle",
    "categorize",
];

/// Checksums: bytes → bytes codecs whose output size is fixed.
pub(crate) const CHECKSUMS: &[&str] = &[
    "crc32",
    "crc32c",
    "adler32",
    "fletcher32",
    "jenkins_lookup3",
];

/// The role of a numcodecs id zom knows, or `None` for an unknown id.
pub(crate) fn role(id: &str) -> Option<NcRole> {
    Some(match id {
        "blosc" | "zlib" | "gzip" | "zstd" | "lz4" | "bz2" | "lzma" | "shuffle" | "crc32"
        | "crc32c" | "adler32" | "fletcher32" | "jenkins_lookup3" | "base64" => NcRole::BytesBytes,
        "delta" | "fixedscaleoffset" | "quantize" | "bitround" | "packbits" | "astype"
        | "categorize" => NcRole::ArrayArray,
        "vlen-utf8" | "vlen-bytes" | "vlen-array" | "json2" | "msgpack2" | "pickle" | "zfpy"
        | "pcodec" => NcRole::ArrayBytes,
        _ => return None,
    })
}

const BLOSC_CNAMES: &[&str] = &["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

/// Checks the configuration of a numcodecs codec (`obj` without `id` for v3; the whole v2
/// object, `id` included, for v2). Unknown ids are not checked here.
pub(crate) fn check_config(cx: &mut Ctx, id: &str, obj: &Map<String, Value>, loc: &[LocStep]) {
    let what = format!("numcodecs '{id}'");
    let allowed: &[&str] = match id {
        "blosc" => &["id", "cname", "clevel", "shuffle", "blocksize", "typesize"],
        "zlib" | "gzip" | "bz2" => &["id", "level"],
        "zstd" => &["id", "level", "checksum"],
        "lz4" => &["id", "acceleration"],
        "lzma" => &["id", "format", "check", "preset", "filters"],
        "delta" => &["id", "dtype", "astype"],
        "fixedscaleoffset" => &["id", "offset", "scale", "dtype", "astype"],
        "quantize" => &["id", "digits", "dtype", "astype"],
        "astype" => &["id", "encode_dtype", "decode_dtype"],
        "bitround" => &["id", "keepbits"],
        "packbits" | "fletcher32" | "vlen-utf8" | "vlen-bytes" => &["id"],
        "shuffle" => &["id", "elementsize"],
        "categorize" => &["id", "labels", "dtype", "astype"],
        "crc32" | "crc32c" | "adler32" => &["id", "location"],
        "jenkins_lookup3" => &["id", "initval", "prefix"],
        "vlen-array" => &["id", "dtype"],
        "pickle" => &["id", "protocol"],
        // Known, but with configurations zom does not check.
        _ => return,
    };
    unknown_keys(cx, obj, loc, allowed, &what);
    let opt = |key: &str| obj.get(key).filter(|v| !v.is_null());
    match id {
        "blosc" => {
            if let Some(v) = obj.get("cname") {
                expect_one_of(cx, v, &loc.key("cname"), "blosc 'cname'", BLOSC_CNAMES);
            }
            if let Some(v) = obj.get("clevel") {
                expect_int_range(cx, v, &loc.key("clevel"), "blosc 'clevel'", 0, 9);
            }
            if let Some(v) = obj.get("shuffle") {
                expect_int_range(cx, v, &loc.key("shuffle"), "blosc 'shuffle'", -1, 2);
            }
            if let Some(v) = obj.get("blocksize") {
                expect_uint(cx, v, &loc.key("blocksize"), "blosc 'blocksize'", 0);
            }
            if let Some(v) = opt("typesize") {
                expect_uint(cx, v, &loc.key("typesize"), "blosc 'typesize'", 1);
            }
        }
        "zlib" | "gzip" | "bz2" => {
            let lo = match id {
                "zlib" => -1,
                "bz2" => 1,
                _ => 0,
            };
            if let Some(v) = obj.get("level") {
                expect_int_range(cx, v, &loc.key("level"), &format!("{id} 'level'"), lo, 9);
            }
        }
        "zstd" => {
            if let Some(v) = obj.get("level") {
                expect_int_range(cx, v, &loc.key("level"), "zstd 'level'", -131072, 22);
            }
            if let Some(v) = obj.get("checksum") {
                super::util::expect_bool(cx, v, &loc.key("checksum"), "zstd 'checksum'");
            }
        }
        "lz4" => {
            if let Some(v) = obj.get("acceleration") {
                expect_int_range(
                    cx,
                    v,
                    &loc.key("acceleration"),
                    "lz4 'acceleration'",
                    i64::MIN,
                    i64::MAX,
                );
            }
        }
        "lzma" => {
            if let Some(v) = obj.get("format") {
                expect_int_range(cx, v, &loc.key("format"), "lzma 'format'", 0, 3);
            }
            if let Some(v) = obj.get("check") {
                expect_int_range(cx, v, &loc.key("check"), "lzma 'check'", -1, 15);
            }
            if let Some(v) = opt("preset") {
                expect_uint(cx, v, &loc.key("preset"), "lzma 'preset'", 0);
            }
            if let Some(v) = opt("filters") {
                expect_array(cx, v, &loc.key("filters"), "lzma 'filters'");
            }
        }
        "delta" | "quantize" | "fixedscaleoffset" | "categorize" | "vlen-array" => {
            if let Some(v) = required(cx, obj, loc, "dtype", &what) {
                // categorize encodes object (string) arrays too: zarr-python 2 wrote "|O".
                let object = id == "categorize" && matches!(v.as_str(), Some("|O" | "O"));
                if !object {
                    check_dtype(cx, v, &loc.key("dtype"), &format!("{id} 'dtype'"));
                }
            }
            if let Some(v) = opt("astype") {
                check_dtype(cx, v, &loc.key("astype"), &format!("{id} 'astype'"));
            }
            match id {
                "quantize" => {
                    if let Some(v) = required(cx, obj, loc, "digits", &what) {
                        expect_int_range(
                            cx,
                            v,
                            &loc.key("digits"),
                            "quantize 'digits'",
                            i64::MIN,
                            i64::MAX,
                        );
                    }
                }
                "fixedscaleoffset" => {
                    for key in ["offset", "scale"] {
                        if let Some(v) = required(cx, obj, loc, key, &what) {
                            expect_number(
                                cx,
                                v,
                                &loc.key(key),
                                &format!("fixedscaleoffset '{key}'"),
                            );
                        }
                    }
                }
                "categorize" => {
                    if let Some(v) = required(cx, obj, loc, "labels", &what) {
                        expect_array(cx, v, &loc.key("labels"), "categorize 'labels'");
                    }
                }
                _ => {}
            }
        }
        "astype" => {
            for key in ["encode_dtype", "decode_dtype"] {
                if let Some(v) = required(cx, obj, loc, key, &what) {
                    check_dtype(cx, v, &loc.key(key), &format!("astype '{key}'"));
                }
            }
        }
        "bitround" => {
            if let Some(v) = required(cx, obj, loc, "keepbits", &what) {
                expect_uint(cx, v, &loc.key("keepbits"), "bitround 'keepbits'", 0);
            }
        }
        "shuffle" => {
            if let Some(v) = obj.get("elementsize") {
                expect_uint(cx, v, &loc.key("elementsize"), "shuffle 'elementsize'", 0);
            }
        }
        "crc32" | "crc32c" | "adler32" => {
            if let Some(v) = opt("location") {
                expect_one_of(
                    cx,
                    v,
                    &loc.key("location"),
                    &format!("{id} 'location'"),
                    &["start", "end"],
                );
            }
        }
        "jenkins_lookup3" => {
            if let Some(v) = obj.get("initval") {
                expect_int_range(
                    cx,
                    v,
                    &loc.key("initval"),
                    "jenkins_lookup3 'initval'",
                    0,
                    i64::from(u32::MAX),
                );
            }
        }
        "pickle" => {
            if let Some(v) = obj.get("protocol") {
                expect_int_range(cx, v, &loc.key("protocol"), "pickle 'protocol'", -1, 5);
            }
        }
        _ => {}
    }
}

/// A NumPy typestring in a numcodecs configuration (`"<f8"`), checked with the dtype API.
fn check_dtype(cx: &mut Ctx, value: &Value, loc: &[LocStep], what: &str) {
    if expect_str(cx, value, loc, what).is_none() {
        return;
    }
    if let Err(why) = DataType::from_v2(value, None) {
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            format!("{what} {} is not a data type: {why}", show(value)),
        );
    }
}
