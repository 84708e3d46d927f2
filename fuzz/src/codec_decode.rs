//! Target `codec_decode`: every codec's decoder on hostile bytes, behind the pipeline a real
//! array would build (v2 `.zarray` filters/compressor, or a v3 `codecs` list).
//!
//! Input: a codec selector byte ([`CODECS`]), a data type byte, a rank byte and that many
//! 16-bit dimensions (the chunk shape), four configuration bytes, then the encoded chunk.
//! `fuzz/seed.py` writes seeds in this layout from tests/codec/cases.json.
//!
//! Checks: decoding never panics, a decoded chunk has exactly the elements the chunk shape
//! says, and `decode_into` (the one-copy path) agrees with `decode` on every input.

use super::input::Input;
use super::outcome::Outcome;
use serde_json::{json, Value};
use zom::codec::{CodecPipeline, DecodedChunk};
use zom::dtype::{DataType, FillValue};
use zom::model::named::NamedConfig;
use zom::model::v2::ArrayMetadataV2;

/// The codecs the selector byte chooses from.
pub const CODECS: &[&str] = &[
    "v2 blosc",
    "v2 blosc snappy",
    "v2 gzip",
    "v2 zlib",
    "v2 zstd",
    "v2 lz4",
    "v2 bz2",
    "v2 lzma",
    "v2 delta",
    "v2 fixedscaleoffset",
    "v2 shuffle",
    "v2 packbits",
    "v2 vlen-utf8",
    "v2 vlen-bytes",
    "v2 vlen-array",
    "v2 crc32",
    "v2 adler32",
    "v2 fletcher32",
    "v2 categorize",
    "v2 astype",
    "v2 quantize",
    "v2 order F zlib",
    "v2 bitround",
    "v3 crc32c",
    "v3 transpose",
    "v3 bytes",
    "v3 packbits",
    "v3 vlen-utf8",
    "v3 vlen-bytes",
    "v3 gzip",
    "v3 zstd",
    "v3 blosc",
    "v3 numcodecs delta zlib",
    "v3 numcodecs shuffle lz4",
    "v3 reshape",
    "v3 conditional",
    "v3 n5_default",
    "v3 numcodecs pcodec",
    "v3 numcodecs zfpy",
    "v3 zfp",
];

/// v2 dtypes the data type byte chooses from.
pub const V2_DTYPES: &[&str] = &[
    "|u1", "|i1", "<i2", ">i2", "<u2", "<i4", ">i4", "<u4", "<f4", ">f4", "<i8", ">i8", "<u8",
    "<f8", ">f8", "<f2", "|b1", "<c8", ">c16", "|V3", "|S5", "<U3", "|O", "<M8[ns]",
];

/// v3 data types the data type byte chooses from.
pub const V3_DTYPES: &[&str] = &[
    "uint8",
    "int8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bool",
    "complex64",
    "complex128",
    "string",
    "bytes",
    "int4",
    "bfloat16",
    "float8_e4m3",
    "float4_e2m1fn",
    "complex_float8_e5m2fnuz",
];

/// The index in [`V2_DTYPES`] / [`V3_DTYPES`] of an unsigned type of `size` bytes (for seeds).
pub fn dtype_of_size(size: u64, v3: bool) -> u8 {
    match (size, v3) {
        (1, _) => 0,
        (2, false) => 2,
        (2, true) => 3,
        (3, _) => 19,
        (4, false) => 7,
        (4, true) => 5,
        (_, false) => 12,
        (_, true) => 7,
    }
}

fn v2_fill(dtype: &str) -> Value {
    match dtype {
        "|O" | "<U3" | "|S5" | "|V3" => Value::Null,
        "|b1" => json!(false),
        _ => json!(0),
    }
}

fn v3_fill(dtype: &str) -> Value {
    match dtype {
        "bool" => json!(false),
        "complex64" | "complex128" | "complex_float8_e5m2fnuz" => json!([0.0, 0.0]),
        "string" => json!(""),
        "bytes" => json!(""),
        _ => json!(0),
    }
}

fn num_dtype(p: u8) -> &'static str {
    ["<i2", "<u1", "<i4", "<f4", "<f8", "<i8", ">u2", "<u4"][usize::from(p) % 8]
}

/// The pipeline the selector and configuration bytes describe.
fn pipeline(name: &str, dtype: u8, shape: &[u64], p: [u8; 4]) -> zom::Result<CodecPipeline> {
    if let Some(v3) = name.strip_prefix("v3 ") {
        let dt = V3_DTYPES[usize::from(dtype) % V3_DTYPES.len()];
        let le = json!({"name": "bytes", "configuration": {"endian": "little"}});
        let endian = if p[0] & 1 == 1 { "big" } else { "little" };
        let shuffle = ["noshuffle", "shuffle", "bitshuffle"][usize::from(p[1]) % 3];
        let codecs = match v3 {
            "crc32c" => vec![le, json!({"name": "crc32c"})],
            "transpose" => {
                let mut order: Vec<usize> = (0..shape.len()).collect();
                order.rotate_left(usize::from(p[1]) % shape.len().max(1));
                if p[2] & 1 == 1 {
                    order.reverse();
                }
                if p[3] == 255 {
                    order.push(0); // a wrong order: must be refused
                }
                vec![
                    json!({"name": "transpose", "configuration": {"order": order}}),
                    le,
                ]
            }
            "bytes" => vec![json!({"name": "bytes", "configuration": {"endian": endian}})],
            "packbits" => {
                let padding =
                    ["none", "first_byte", "last_byte", "start_byte"][usize::from(p[1]) % 4];
                let mut config = json!({"padding_encoding": padding});
                if p[2] & 1 == 1 {
                    config["first_bit"] = json!(p[2] >> 1);
                }
                if p[3] & 1 == 1 {
                    config["last_bit"] = json!(p[3] >> 1);
                }
                vec![json!({"name": "packbits", "configuration": config})]
            }
            "vlen-utf8" => vec![json!({"name": "vlen-utf8"})],
            "vlen-bytes" => vec![json!({"name": "vlen-bytes"})],
            "gzip" => vec![le, json!({"name": "gzip", "configuration": {"level": 5}})],
            "zstd" => vec![le, json!({"name": "zstd", "configuration": {"level": 3}})],
            "blosc" => vec![
                le.clone(),
                json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                    "shuffle": shuffle,
                    "typesize": p[2], "blocksize": 0}}),
            ],
            "reshape" => {
                let flat = if p[1] & 1 == 1 {
                    json!([-1])
                } else {
                    json!([p[2], -1])
                };
                vec![
                    json!({"name": "reshape", "configuration": {"shape": flat}}),
                    le,
                ]
            }
            "conditional" => vec![
                le,
                json!({"name": "conditional", "configuration": {"codecs": [
                    {"name": "gzip", "configuration": {"level": 1}},
                    {"name": "crc32c"}
                ], "header_bits": 8 * (1 + u64::from(p[1] & 1))}}),
            ],
            "n5_default" => {
                let order: Vec<usize> = (0..shape.len()).rev().collect();
                vec![json!({"name": "n5_default", "configuration": {"codecs": [
                    {"name": "transpose", "configuration": {"order": order}},
                    {"name": "bytes", "configuration": {"endian": "big"}},
                    {"name": "zstd", "configuration": {"level": 1}}
                ]}})]
            }
            "numcodecs delta zlib" => vec![
                json!({"name": "numcodecs.delta", "configuration": {"dtype": num_dtype(p[1]),
                    "astype": num_dtype(p[2])}}),
                le,
                json!({"name": "numcodecs.zlib", "configuration": {"level": 1}}),
            ],
            "numcodecs pcodec" => {
                vec![json!({"name": "numcodecs.pcodec", "configuration": {"level": p[1] % 13}})]
            }
            "numcodecs zfpy" => {
                vec![json!({"name": "numcodecs.zfpy", "configuration": {"mode": 2 + p[1] % 4}})]
            }
            "zfp" => vec![json!({"name": "zfp", "configuration": match p[1] % 5 {
                0 => json!({"mode": "reversible"}),
                1 => json!({"mode": "fixed_rate", "rate": f64::from(p[2]) / 8.0}),
                2 => json!({"mode": "fixed_precision", "precision": p[2] % 65}),
                3 => json!({"mode": "fixed_accuracy", "tolerance": f64::from(p[2]) / 64.0}),
                _ => json!({"mode": "expert", "minbits": p[2], "maxbits": u32::from(p[2]) * 8,
                    "maxprec": 1 + p[3] % 64, "minexp": i32::from(p[3]) - 128}),
            }})],
            _ => vec![
                le,
                json!({"name": "numcodecs.shuffle", "configuration": {"elementsize": p[1] % 9}}),
                json!({"name": "numcodecs.lz4"}),
            ],
        };
        let codecs = codecs
            .iter()
            .map(NamedConfig::from_value)
            .collect::<Result<Vec<_>, String>>()
            .map_err(zom::ZomError::invalid_metadata)?;
        let data_type =
            DataType::from_v3(&NamedConfig::short(dt)).map_err(zom::ZomError::invalid_metadata)?;
        let fill = FillValue::from_v3(&data_type, &v3_fill(dt))
            .map_err(zom::ZomError::invalid_metadata)?;
        return CodecPipeline::from_v3(&codecs, &data_type, shape, &fill);
    }
    let v2 = name.strip_prefix("v2 ").unwrap_or(name);
    let mut dt = V2_DTYPES[usize::from(dtype) % V2_DTYPES.len()];
    let mut order = "C";
    let mut filters: Vec<Value> = Vec::new();
    let compressor = match v2 {
        "blosc" | "blosc snappy" => {
            json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1})
        }
        "gzip" | "zlib" | "zstd" | "bz2" => json!({"id": v2, "level": 1}),
        "lz4" => json!({"id": "lz4", "acceleration": 1}),
        "lzma" => json!({"id": "lzma", "format": p[1] % 4, "check": -1}),
        "order F zlib" => {
            order = "F";
            json!({"id": "zlib", "level": 1})
        }
        "crc32" | "adler32" | "fletcher32" => {
            let location = ["start", "end"][usize::from(p[1]) % 2];
            json!({"id": v2, "location": location})
        }
        "shuffle" => json!({"id": "shuffle", "elementsize": p[1] % 17}),
        _ => Value::Null,
    };
    match v2 {
        "delta" => filters
            .push(json!({"id": "delta", "dtype": num_dtype(p[1]), "astype": num_dtype(p[2])})),
        "fixedscaleoffset" => filters.push(json!({"id": "fixedscaleoffset",
            "dtype": num_dtype(p[1]), "astype": num_dtype(p[2]),
            "scale": f64::from(p[3]) - 100.0, "offset": f64::from(p[0]) / 3.0})),
        "astype" => filters.push(json!({"id": "astype", "decode_dtype": num_dtype(p[1]),
            "encode_dtype": num_dtype(p[2])})),
        "quantize" => filters.push(json!({"id": "quantize", "digits": p[1] % 20,
            "dtype": num_dtype(p[2]), "astype": num_dtype(p[3])})),
        "bitround" => filters.push(json!({"id": "bitround", "keepbits": p[1] % 60})),
        "packbits" => {
            dt = "|b1";
            filters.push(json!({"id": "packbits"}));
        }
        "categorize" => {
            dt = "<U3";
            let labels: Vec<String> = (0..p[1] % 5)
                .map(|i| "ab€".repeat(usize::from(i)))
                .collect();
            let astype = ["|u1", "<u2", "<u4"][usize::from(p[2]) % 3];
            filters.push(json!({"id": "categorize", "labels": labels, "dtype": "<U3",
                "astype": astype}));
        }
        "vlen-utf8" | "vlen-bytes" => {
            dt = "|O";
            filters.push(json!({"id": v2}));
        }
        "vlen-array" => {
            dt = "|O";
            filters.push(json!({"id": "vlen-array", "dtype": num_dtype(p[1])}));
        }
        _ => {}
    }
    let meta = json!({
        "zarr_format": 2,
        "shape": shape,
        "chunks": shape,
        "dtype": dt,
        "fill_value": v2_fill(dt),
        "order": order,
        "compressor": compressor,
        "filters": if filters.is_empty() { Value::Null } else { Value::Array(filters) },
    });
    CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta)?)
}

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let mut input = Input::new(data);
    let name = CODECS[usize::from(input.u8()) % CODECS.len()];
    let dtype = input.u8();
    let rank = input.below(4);
    let shape: Vec<u64> = (0..rank)
        .map(|_| {
            let d = u64::from(input.u16());
            if rank == 1 {
                d % 4097
            } else {
                d % 17
            }
        })
        .collect();
    let p = [input.u8(), input.u8(), input.u8(), input.u8()];
    let bytes = input.rest();
    let Some(pipeline) = out.step("pipeline", pipeline(name, dtype, &shape, p)) else {
        return out;
    };
    let snappy: Vec<u8>;
    let bytes = if name == "v2 blosc snappy" && bytes.len() > 2 {
        // The compressor of a blosc stream is in its header's flags (bits 5-7): snappy is 2.
        let mut b = bytes.to_vec();
        if let Some(flags) = b.get_mut(2) {
            *flags = (*flags & 0x1f) | (2 << 5);
        }
        snappy = b;
        &snappy[..]
    } else {
        bytes
    };
    let elements: u64 = shape.iter().product();
    let decoded = pipeline.decode(bytes);
    if let Ok(chunk) = &decoded {
        let len = match chunk {
            DecodedChunk::Fixed(b) => {
                let size = pipeline.decoded_repr().item_size().unwrap_or(0);
                assert_eq!(
                    b.len() as u64,
                    elements * size,
                    "{name}: wrong decoded size"
                );
                None
            }
            DecodedChunk::Strings(v) => Some(v.len()),
            DecodedChunk::Bytes(v) => Some(v.len()),
            DecodedChunk::Json(v) => Some(v.len()),
        };
        if let Some(len) = len {
            assert_eq!(len as u64, elements, "{name}: wrong element count");
        }
    }
    if let Ok(Some(size)) = pipeline.decoded_repr().fixed_byte_len() {
        let mut buf = vec![0u8; usize::try_from(size).unwrap_or(0)];
        let into = pipeline.decode_into(bytes, &mut buf);
        match (&decoded, &into) {
            (Ok(DecodedChunk::Fixed(a)), Ok(())) => {
                assert!(a == &buf, "{name}: decode and decode_into disagree")
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{name}: decode gives {decoded:?}, decode_into {into:?}"),
        }
    }
    out.step("decode", decoded);
    out
}
