//! v3 codec pipelines: order (array→array*, one array→bytes, bytes→bytes*), the known codecs'
//! configurations, their fit with the data type, and sharding's nested pipelines.

use super::extensions::{parse_named, unknown_extension};
use super::numcodecs::{self, NcRole};
use super::util::{
    expect_array, expect_bool, expect_int_range, expect_one_of, expect_uint, expect_uint_list,
    required, unknown_keys, Ctx, LocExt, MAX_NESTING,
};
use super::{LocStep, ProblemKind};
use crate::dtype::DataType;
use serde_json::{Map, Value};

/// Where a codec sits in a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    ArrayArray,
    ArrayBytes,
    BytesBytes,
    /// A `numcodecs.*` codec zom does not know: a filter or a compressor.
    Flexible,
    /// Unknown (ignored or registered) extension: no order constraint.
    Unknown,
}

/// What a pipeline encodes: the element type and the shape of one chunk, when known.
#[derive(Clone)]
pub(crate) struct Input {
    pub(crate) dtype: Option<DataType>,
    pub(crate) chunk_shape: Option<Vec<u64>>,
}

/// Checks a v3 `codecs` list (or sharding's `codecs` / `index_codecs`).
pub(crate) fn check_pipeline(
    cx: &mut Ctx,
    value: &Value,
    loc: &[LocStep],
    input: Input,
    index: bool,
) {
    let what = if index { "'index_codecs'" } else { "'codecs'" };
    let Some(items) = expect_array(cx, value, loc, what) else {
        return;
    };
    if cx.depth > MAX_NESTING {
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            "codec pipelines nest too deeply",
        );
        return;
    }
    let mut current = input;
    let mut seen_array_bytes = false;
    let mut seen_unknown = false;
    for (i, item) in items.iter().enumerate() {
        let here = loc.idx(i);
        let Some(named) = parse_named(cx, item, &here, "codec") else {
            seen_unknown = true;
            continue;
        };
        let role = check_codec(
            cx,
            named.name,
            named.config,
            item,
            &here,
            &mut current,
            index,
        )
        .unwrap_or_else(|| {
            unknown_extension(cx, &named, item, &here, "codec");
            Role::Unknown
        });
        match role {
            Role::ArrayArray if seen_array_bytes => cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "array→array codec '{}' comes after the array→bytes codec",
                    named.name
                ),
            ),
            Role::ArrayBytes if seen_array_bytes => cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "'{}' is a second array→bytes codec; a pipeline has exactly one",
                    named.name
                ),
            ),
            Role::BytesBytes if !seen_array_bytes && !seen_unknown => cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "bytes→bytes codec '{}' comes before the array→bytes codec",
                    named.name
                ),
            ),
            _ => {}
        }
        match role {
            Role::ArrayBytes => seen_array_bytes = true,
            Role::Unknown => seen_unknown = true,
            _ => {}
        }
        if index && role == Role::BytesBytes && !is_fixed_size_bb(named.name) {
            cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "'{}' gives a variable-size encoding; index_codecs must not compress",
                    named.name
                ),
            );
        }
    }
    if !seen_array_bytes && !seen_unknown {
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            format!(
                "{what} must contain exactly one array→bytes codec (such as 'bytes'), has none"
            ),
        );
    }
    if index && !is_recommended_index(items) {
        cx.warn(
            loc,
            ProblemKind::InvalidValue,
            "index_codecs should be 'bytes' (little endian) followed by 'crc32c'",
        );
    }
}

fn is_fixed_size_bb(name: &str) -> bool {
    name == "crc32c"
        || name
            .strip_prefix("numcodecs.")
            .is_some_and(|id| numcodecs::CHECKSUMS.contains(&id))
}

fn is_recommended_index(items: &[Value]) -> bool {
    let name = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("name").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    let [bytes, crc] = items else {
        return false;
    };
    let endian = bytes
        .pointer("/configuration/endian")
        .and_then(Value::as_str);
    name(bytes).as_deref() == Some("bytes")
        && matches!(endian, Some("little") | None)
        && name(crc).as_deref() == Some("crc32c")
}

/// Checks one known codec and returns its role, or `None` when zom does not know `name`.
/// `current` is updated with what the codec outputs (transpose permutes the chunk shape).
fn check_codec(
    cx: &mut Ctx,
    name: &str,
    config: Option<&Map<String, Value>>,
    value: &Value,
    loc: &[LocStep],
    current: &mut Input,
    index: bool,
) -> Option<Role> {
    let cloc = loc.key("configuration");
    let empty = Map::new();
    let conf = config.unwrap_or(&empty);
    let what = format!("codec '{name}'");
    let role = match name {
        "bytes" => {
            unknown_keys(cx, conf, &cloc, &["endian"], &what);
            check_bytes(cx, conf, &cloc, current.dtype.as_ref());
            Role::ArrayBytes
        }
        "transpose" => {
            unknown_keys(cx, conf, &cloc, &["order"], &what);
            check_transpose(cx, conf, &cloc, current);
            Role::ArrayArray
        }
        "gzip" => {
            unknown_keys(cx, conf, &cloc, &["level"], &what);
            if let Some(v) = required(cx, conf, &cloc, "level", &what) {
                expect_int_range(cx, v, &cloc.key("level"), "gzip 'level'", 0, 9);
            }
            Role::BytesBytes
        }
        "zstd" => {
            unknown_keys(cx, conf, &cloc, &["level", "checksum"], &what);
            if let Some(v) = required(cx, conf, &cloc, "level", &what) {
                expect_int_range(cx, v, &cloc.key("level"), "zstd 'level'", -131072, 22);
            }
            if let Some(v) = conf.get("checksum") {
                expect_bool(cx, v, &cloc.key("checksum"), "zstd 'checksum'");
            }
            Role::BytesBytes
        }
        "blosc" => {
            check_blosc(cx, conf, &cloc);
            Role::BytesBytes
        }
        "crc32c" => {
            unknown_keys(cx, conf, &cloc, &[], &what);
            Role::BytesBytes
        }
        "vlen-utf8" | "vlen-bytes" => {
            unknown_keys(cx, conf, &cloc, &[], &what);
            check_vlen(cx, name, loc, current.dtype.as_ref());
            Role::ArrayBytes
        }
        "packbits" => {
            check_packbits(cx, conf, &cloc, loc, current.dtype.as_ref());
            Role::ArrayBytes
        }
        "bitround" => {
            unknown_keys(cx, conf, &cloc, &["keepbits"], &what);
            if let Some(v) = required(cx, conf, &cloc, "keepbits", &what) {
                check_keepbits(cx, v, &cloc.key("keepbits"), 1, current.dtype.as_ref());
            }
            Role::ArrayArray
        }
        "sharding_indexed" => {
            if index {
                cx.error(
                    loc,
                    ProblemKind::InvalidValue,
                    "sharding_indexed gives a variable-size encoding; not allowed in index_codecs",
                );
            }
            super::sharding::check_sharding(cx, conf, &cloc, current);
            Role::ArrayBytes
        }
        _ => match name.strip_prefix("numcodecs.") {
            Some(id) => return Some(check_numcodecs(cx, id, conf, &cloc, loc, current)),
            None => {
                if cx.run_handler(name, value, loc) {
                    return Some(Role::Unknown);
                }
                return None;
            }
        },
    };
    cx.run_handler(name, value, loc);
    Some(role)
}

fn check_numcodecs(
    cx: &mut Ctx,
    id: &str,
    conf: &Map<String, Value>,
    cloc: &[LocStep],
    loc: &[LocStep],
    current: &mut Input,
) -> Role {
    if id == "bitround" {
        cx.warn(
            loc,
            ProblemKind::InvalidValue,
            "'numcodecs.bitround' is a deprecated alias; new data should use 'bitround'",
        );
    }
    match numcodecs::role(id) {
        Some(role) => {
            numcodecs::check_config(cx, id, conf, cloc);
            match role {
                NcRole::ArrayArray => {
                    // Filters other than these may change the element type.
                    if !matches!(id, "delta" | "bitround" | "quantize") {
                        current.dtype = None;
                    }
                    Role::ArrayArray
                }
                NcRole::ArrayBytes => Role::ArrayBytes,
                NcRole::BytesBytes => Role::BytesBytes,
            }
        }
        None => {
            cx.warn(
                loc,
                ProblemKind::InvalidValue,
                format!("numcodecs codec 'numcodecs.{id}' is not one zom knows"),
            );
            current.dtype = None;
            Role::Flexible
        }
    }
}

/// A data type's v3 name, for messages.
pub(crate) fn label(dtype: &DataType) -> String {
    dtype.to_v3().name
}

/// Whether the bytes codec needs `endian` for this type: its elements have a byte order
/// ([`DataType::has_byte_order`], the rule the decoder applies). Struct types have none:
/// zarr-python writes `bytes` without `endian` for them (their fields carry their own).
fn endian_applies(dtype: &DataType) -> bool {
    dtype.has_byte_order()
}

fn is_variable_length(dtype: &DataType) -> bool {
    matches!(dtype, DataType::String | DataType::Bytes(_))
}

fn check_bytes(
    cx: &mut Ctx,
    conf: &Map<String, Value>,
    cloc: &[LocStep],
    dtype: Option<&DataType>,
) {
    if let Some(v) = conf.get("endian") {
        expect_one_of(
            cx,
            v,
            &cloc.key("endian"),
            "bytes 'endian'",
            &["little", "big"],
        );
    }
    let Some(dtype) = dtype else {
        return;
    };
    if is_variable_length(dtype) {
        let codec = if matches!(dtype, DataType::String) {
            "vlen-utf8"
        } else {
            "vlen-bytes"
        };
        let loc = cloc.get(..cloc.len().saturating_sub(1)).unwrap_or_default();
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            format!(
                "the bytes codec cannot encode the variable-length type '{}'; use '{codec}'",
                label(dtype)
            ),
        );
    } else if endian_applies(dtype) && !conf.contains_key("endian") {
        cx.error(
            &cloc.key("endian"),
            ProblemKind::MissingKey,
            format!(
                "the bytes codec needs 'endian' for the multi-byte type '{}'",
                label(dtype)
            ),
        );
    }
}

fn check_vlen(cx: &mut Ctx, name: &str, loc: &[LocStep], dtype: Option<&DataType>) {
    let Some(dtype) = dtype else {
        return;
    };
    let fits = match name {
        "vlen-utf8" => matches!(dtype, DataType::String),
        _ => matches!(dtype, DataType::Bytes(_)),
    };
    if !fits {
        let want = if name == "vlen-utf8" {
            "string"
        } else {
            "bytes"
        };
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            format!(
                "'{name}' encodes only the {want} data type, not '{}'",
                label(dtype)
            ),
        );
    }
}

fn check_transpose(cx: &mut Ctx, conf: &Map<String, Value>, cloc: &[LocStep], current: &mut Input) {
    let Some(v) = required(cx, conf, cloc, "order", "codec 'transpose'") else {
        return;
    };
    let oloc = cloc.key("order");
    let Some(order) = expect_uint_list(cx, v, &oloc, "transpose 'order'", 0) else {
        current.chunk_shape = None;
        return;
    };
    let rank = current.chunk_shape.as_ref().map_or(order.len(), Vec::len);
    let mut seen = vec![false; rank];
    let mut ok = order.len() == rank;
    if !ok {
        cx.error(
            &oloc,
            ProblemKind::InvalidValue,
            format!(
                "transpose 'order' has {} entries; the array has {rank} dimensions",
                order.len()
            ),
        );
    }
    for (i, &axis) in order.iter().enumerate() {
        let slot = usize::try_from(axis).ok().and_then(|a| seen.get_mut(a));
        match slot {
            Some(s) if !*s => *s = true,
            Some(_) => {
                ok = false;
                cx.error(
                    &oloc.idx(i),
                    ProblemKind::InvalidValue,
                    format!("transpose 'order' repeats axis {axis}"),
                );
            }
            None => {
                ok = false;
                cx.error(
                    &oloc.idx(i),
                    ProblemKind::InvalidValue,
                    format!("transpose 'order' axis {axis} is not below the rank {rank}"),
                );
            }
        }
    }
    current.chunk_shape = match (&current.chunk_shape, ok) {
        (Some(shape), true) => order
            .iter()
            .map(|&a| usize::try_from(a).ok().and_then(|a| shape.get(a)).copied())
            .collect(),
        _ => None,
    };
}

const BLOSC_CNAMES: &[&str] = &["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

fn check_blosc(cx: &mut Ctx, conf: &Map<String, Value>, cloc: &[LocStep]) {
    let what = "codec 'blosc'";
    unknown_keys(
        cx,
        conf,
        cloc,
        &["cname", "clevel", "shuffle", "typesize", "blocksize"],
        what,
    );
    if let Some(v) = required(cx, conf, cloc, "cname", what) {
        expect_one_of(cx, v, &cloc.key("cname"), "blosc 'cname'", BLOSC_CNAMES);
    }
    if let Some(v) = required(cx, conf, cloc, "clevel", what) {
        expect_int_range(cx, v, &cloc.key("clevel"), "blosc 'clevel'", 0, 9);
    }
    let shuffle = required(cx, conf, cloc, "shuffle", what).and_then(|v| {
        expect_one_of(
            cx,
            v,
            &cloc.key("shuffle"),
            "blosc 'shuffle'",
            &["noshuffle", "shuffle", "bitshuffle"],
        )
    });
    match conf.get("typesize") {
        Some(v) => {
            expect_uint(cx, v, &cloc.key("typesize"), "blosc 'typesize'", 1);
        }
        None if shuffle.is_some_and(|s| s != "noshuffle") => cx.error(
            &cloc.key("typesize"),
            ProblemKind::MissingKey,
            "blosc needs 'typesize' unless 'shuffle' is \"noshuffle\"",
        ),
        None => {}
    }
    if let Some(v) = required(cx, conf, cloc, "blocksize", what) {
        expect_uint(cx, v, &cloc.key("blocksize"), "blosc 'blocksize'", 0);
    }
}

/// Bits per component of the types packbits supports (complex: per real/imaginary part).
fn component_bits(dtype: &DataType) -> Option<u64> {
    Some(match dtype {
        DataType::Bool => 1,
        DataType::Int8 | DataType::UInt8 => 8,
        DataType::Int16 | DataType::UInt16 | DataType::Float16 => 16,
        DataType::Int32 | DataType::UInt32 | DataType::Float32 | DataType::Complex64 => 32,
        DataType::Int64 | DataType::UInt64 | DataType::Float64 | DataType::Complex128 => 64,
        _ => return None,
    })
}

fn check_packbits(
    cx: &mut Ctx,
    conf: &Map<String, Value>,
    cloc: &[LocStep],
    loc: &[LocStep],
    dtype: Option<&DataType>,
) {
    unknown_keys(
        cx,
        conf,
        cloc,
        &["padding_encoding", "first_bit", "last_bit"],
        "codec 'packbits'",
    );
    if let Some(v) = conf.get("padding_encoding") {
        expect_one_of(
            cx,
            v,
            &cloc.key("padding_encoding"),
            "packbits 'padding_encoding'",
            &["first_byte", "last_byte", "none"],
        );
    }
    let bits = dtype.and_then(component_bits);
    if let Some(dtype) = dtype {
        if bits.is_none() {
            cx.error(
                loc,
                ProblemKind::InvalidValue,
                format!("packbits does not support the data type '{}'", label(dtype)),
            );
        }
    }
    let max = bits.map_or(i64::MAX, |b| {
        i64::try_from(b).unwrap_or(i64::MAX).saturating_sub(1)
    });
    let mut bit = |key: &str| {
        conf.get(key).filter(|v| !v.is_null()).and_then(|v| {
            expect_int_range(cx, v, &cloc.key(key), &format!("packbits '{key}'"), 0, max)
        })
    };
    let first = bit("first_bit");
    let last = bit("last_bit");
    if let (Some(first), Some(last)) = (first, last) {
        if last < first {
            cx.error(
                &cloc.key("last_bit"),
                ProblemKind::InvalidValue,
                format!("packbits 'last_bit' {last} is below 'first_bit' {first}"),
            );
        }
    }
}

/// Mantissa bits of float types (bitround's upper bound for `keepbits`).
fn mantissa_bits(dtype: &DataType) -> Option<u64> {
    match dtype {
        DataType::Float16 => Some(10),
        DataType::Float32 | DataType::Complex64 => Some(23),
        DataType::Float64 | DataType::Complex128 => Some(52),
        _ => None,
    }
}

fn check_keepbits(cx: &mut Ctx, v: &Value, loc: &[LocStep], min: u64, dtype: Option<&DataType>) {
    let Some(keep) = expect_uint(cx, v, loc, "bitround 'keepbits'", min) else {
        return;
    };
    let Some(dtype) = dtype else {
        return;
    };
    if let Some(max) = mantissa_bits(dtype) {
        if keep > max {
            cx.error(
                loc,
                ProblemKind::InvalidValue,
                format!(
                    "bitround 'keepbits' {keep} is over the {max} mantissa bits of '{}'",
                    label(dtype)
                ),
            );
        }
    }
}
