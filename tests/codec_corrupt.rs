//! Corrupt inputs for every codec (truncated, bit-flipped, wrong checksum, lying headers) give
//! a ZomError with code CodecError or ChecksumMismatch, never a panic or a wrong-size result.

mod common;

use common::codec::{b64, cases, pipeline_of, stream_pipeline};
use serde_json::json;
use zom::codec::{CodecPipeline, DecodedChunk, Limits};
use zom::model::v2::ArrayMetadataV2;
use zom::model::v3::ArrayMetadataV3;
use zom::ErrorCode;

/// Decoding must not panic; an error must be a codec error or a checksum mismatch; a success
/// must have the chunk's exact size.
fn check(pipeline: &CodecPipeline, input: &[u8], what: &str) -> bool {
    let expected = pipeline.decoded_repr().fixed_byte_len().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pipeline.decode(input)));
    match result {
        Err(_) => panic!("{what}: panicked"),
        Ok(Ok(DecodedChunk::Fixed(b))) => {
            assert_eq!(Some(b.len() as u64), expected, "{what}: wrong size");
            true
        }
        Ok(Ok(_)) => true,
        Ok(Err(e)) => {
            assert!(
                matches!(e.code, ErrorCode::CodecError | ErrorCode::ChecksumMismatch),
                "{what}: unexpected code {:?}: {e}",
                e.code
            );
            false
        }
    }
}

fn mutations(encoded: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let len = encoded.len();
    for cut in [
        0,
        1,
        3,
        4,
        8,
        15,
        16,
        17,
        20,
        len / 2,
        len.saturating_sub(4),
        len.saturating_sub(1),
    ] {
        if cut < len {
            out.push((format!("truncated to {cut}"), encoded[..cut].to_vec()));
        }
    }
    let step = (len / 40).max(1);
    for i in (0..len).step_by(step).chain(0..len.min(24)) {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut e = encoded.to_vec();
            e[i] ^= mask;
            out.push((format!("byte {i} ^ {mask:#x}"), e));
        }
    }
    let mut longer = encoded.to_vec();
    longer.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    out.push(("trailing garbage".into(), longer));
    out
}

#[test]
fn corrupt_streams_never_panic() {
    let cases = cases();
    for case in cases["streams"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (count, ts) = (
            case["count"].as_u64().unwrap(),
            case["typesize"].as_u64().unwrap(),
        );
        let pipeline = stream_pipeline(&case["config"], count, ts);
        let encoded = b64(&case["encoded"]);
        for (what, input) in mutations(&encoded) {
            check(&pipeline, &input, &format!("{name}: {what}"));
            let mut out =
                vec![0u8; pipeline.decoded_repr().fixed_byte_len().unwrap().unwrap() as usize];
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pipeline.decode_into(&input, &mut out)
            }));
            assert!(r.is_ok(), "{name}: {what}: decode_into panicked");
        }
    }
}

#[test]
fn corrupt_arrays_never_panic() {
    let cases = cases();
    for case in cases["arrays"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let pipeline = pipeline_of(case["zarr_format"].as_u64().unwrap(), &case["metadata"]);
        for (key, chunk) in case["chunks"].as_object().unwrap() {
            let encoded = b64(&chunk["encoded"]);
            for (what, input) in mutations(&encoded) {
                check(&pipeline, &input, &format!("{name} {key}: {what}"));
            }
        }
    }
}

#[test]
fn checksums_detect_changes() {
    for (id, config) in [
        ("crc32", json!({"id": "crc32"})),
        ("adler32", json!({"id": "adler32"})),
        ("fletcher32", json!({"id": "fletcher32"})),
        ("crc32c", json!({"id": "crc32c"})),
    ] {
        let pipeline = stream_pipeline(&config, 8, 1);
        let encoded = {
            let cases = cases();
            let case = cases["streams"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id)
                .unwrap()
                .clone();
            let count = case["count"].as_u64().unwrap();
            let ts = case["typesize"].as_u64().unwrap();
            (
                stream_pipeline(&case["config"], count, ts),
                b64(&case["encoded"]),
            )
        };
        let (good, bytes) = encoded;
        assert!(good.decode(&bytes).is_ok(), "{id}");
        let mut bad = bytes.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 1;
        let err = good.decode(&bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::ChecksumMismatch, "{id}: {err}");
        drop(pipeline);
    }
}

#[test]
fn lying_sizes_are_refused_before_allocating() {
    // numcodecs LZ4 header claiming 4 GB for a 16-element chunk.
    let lz4 = stream_pipeline(&json!({"id": "lz4"}), 16, 1);
    let mut input = vec![0xff, 0xff, 0xff, 0xff];
    input.extend_from_slice(&[0x10, 0x00]);
    let err = lz4.decode(&input).unwrap_err();
    assert_eq!(err.code, ErrorCode::CodecError);
    // Blosc header claiming 2 GB.
    let blosc = stream_pipeline(&json!({"id": "blosc"}), 16, 1);
    let mut header = vec![2u8, 1, 0x02, 1];
    header.extend_from_slice(&0x7fff_ffffu32.to_le_bytes());
    header.extend_from_slice(&256u32.to_le_bytes());
    header.extend_from_slice(&32u32.to_le_bytes());
    header.extend_from_slice(&[0u8; 16]);
    assert_eq!(
        blosc.decode(&header).unwrap_err().code,
        ErrorCode::CodecError
    );
    // A gzip bomb: 1 MiB of zeros for a 16-byte chunk.
    let gzip = stream_pipeline(&json!({"id": "zlib"}), 16, 1);
    let bomb = {
        use std::io::Write;
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&vec![0u8; 1 << 20]).unwrap();
        e.finish().unwrap()
    };
    assert_eq!(gzip.decode(&bomb).unwrap_err().code, ErrorCode::CodecError);
    // Variable-length chunks are bounded by the limit.
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "string",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "",
        "codecs": [{"name": "vlen-utf8"}, {"name": "gzip", "configuration": {"level": 1}}]});
    let meta: ArrayMetadataV3 = serde_json::from_value(meta).unwrap();
    let strings = CodecPipeline::from_v3_metadata(&meta)
        .unwrap()
        .with_limits(Limits {
            max_chunk_bytes: 1000,
            ..Limits::default()
        });
    let gz = {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&vec![0u8; 1 << 20]).unwrap();
        e.finish().unwrap()
    };
    assert_eq!(strings.decode(&gz).unwrap_err().code, ErrorCode::CodecError);
    // A fixed-size chunk over the limit is refused up front.
    let big = stream_pipeline(&json!({"id": "zlib"}), 1 << 20, 8).with_limits(Limits {
        max_chunk_bytes: 1 << 20,
        ..Limits::default()
    });
    assert_eq!(
        big.decode(&bomb).unwrap_err().code,
        ErrorCode::LimitExceeded
    );
}

#[test]
fn unknown_codecs_are_refused_when_building() {
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes"}, {"name": "brotli"}]});
    let meta: ArrayMetadataV3 = serde_json::from_value(meta).unwrap();
    let err = CodecPipeline::from_v3_metadata(&meta).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownCodec);
    assert!(err.message.contains("brotli"), "{err}");
    let meta = json!({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4",
        "fill_value": 0, "order": "C", "filters": [{"id": "zfpy"}], "compressor": null});
    let err =
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownCodec);
    assert!(err.message.contains("zfpy"), "{err}");
    let meta = json!({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4",
        "fill_value": 0, "order": "C", "filters": null, "compressor": {"id": "base64"}});
    let err =
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap_err();
    assert!(err.code == ErrorCode::UnknownCodec && err.message.contains("base64"));
}

/// numcodecs framing: u32 count, then per item u32 length + bytes.
fn vlen_frame(count: u32, items: &[(u32, &[u8])]) -> Vec<u8> {
    let mut out = count.to_le_bytes().to_vec();
    for (len, bytes) in items {
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

#[test]
fn lying_vlen_array_chunks_are_codec_errors() {
    let meta = json!({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "|O",
        "fill_value": null, "order": "C", "compressor": null,
        "filters": [{"id": "vlen-array", "dtype": "<i4"}]});
    let pipeline =
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap();
    let seven = 7i32.to_le_bytes();
    let good = vlen_frame(2, &[(4, &seven), (0, &[])]);
    assert_eq!(
        pipeline.decode(&good).unwrap(),
        DecodedChunk::Bytes(vec![seven.to_vec(), vec![]])
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("no header", vec![2, 0]),
        ("count says 3", vlen_frame(3, &[(4, &seven), (0, &[])])),
        ("count says 1", vlen_frame(1, &[(4, &seven), (0, &[])])),
        ("count says 2^32-1", vlen_frame(u32::MAX, &[(4, &seven)])),
        (
            "length past the end",
            vlen_frame(2, &[(4, &seven), (400, &[1, 2])]),
        ),
        ("length 2^32-1", vlen_frame(2, &[(u32::MAX, &seven)])),
        (
            "3 bytes of int32",
            vlen_frame(2, &[(3, &seven[..3]), (0, &[])]),
        ),
        ("6 bytes of int32", vlen_frame(2, &[(6, &[0; 6]), (0, &[])])),
        ("item without length", vlen_frame(2, &[(4, &seven)])),
        ("trailing bytes", {
            let mut v = good.clone();
            v.push(0);
            v
        }),
        ("truncated item", good[..good.len() - 6].to_vec()),
    ];
    for (what, input) in cases {
        let err = pipeline.decode(&input).unwrap_err();
        assert_eq!(err.code, ErrorCode::CodecError, "{what}: {err}");
    }
    // A vlen-array whose dtype is no number is refused when the array is opened.
    let mut bad = meta.clone();
    bad["filters"][0]["dtype"] = json!("|S3");
    let err =
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&bad).unwrap()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidMetadata, "{err}");
}

#[test]
fn categorize_strings_of_the_wrong_size_are_codec_errors() {
    let meta = json!({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|O",
        "fill_value": "", "order": "C", "compressor": null,
        "filters": [{"id": "categorize", "labels": ["a", "b"], "dtype": "|O", "astype": "<u2"}]});
    let pipeline =
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap();
    let good = [1u8, 0, 2, 0, 0, 0, 9, 0];
    let strings = |v: &[&str]| DecodedChunk::Strings(v.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        pipeline.decode(&good).unwrap(),
        strings(&["a", "b", "", ""])
    );
    for input in [&good[..7], &good[..0], &[0u8; 10][..]] {
        let err = pipeline.decode(input).unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::CodecError,
            "{} bytes: {err}",
            input.len()
        );
    }
}

#[test]
fn zstd_failures_say_what_went_wrong() {
    // zstd's own error texts are stripped in the WebAssembly build: zom names the codes.
    let pipeline = stream_pipeline(&json!({"id": "zstd", "level": 1}), 64, 1);
    let frame = zstd::bulk::compress(&[7u8; 64], 1).unwrap();
    let message = |input: &[u8]| pipeline.decode(input).unwrap_err().message;
    assert_eq!(
        message(b"not zstd at all"),
        "zstd: not a zstd frame (unknown frame descriptor)"
    );
    assert_eq!(
        message(&frame[..frame.len() - 3]),
        "zstd: truncated data, or bytes after the last frame"
    );
    let mut corrupt = frame.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0xff;
    assert!(
        message(&corrupt).starts_with("zstd: "),
        "{}",
        message(&corrupt)
    );
    assert!(!message(&corrupt).contains("stripped"));
    let longer = zstd::bulk::compress(&[7u8; 65], 1).unwrap();
    assert_eq!(
        message(&longer),
        "zstd: the data decodes to more bytes than expected"
    );
}

#[test]
fn object_codecs_refuse_what_is_not_their_list() {
    for id in ["json2", "msgpack2"] {
        let meta = json!({"zarr_format": 2, "shape": [2, 2], "chunks": [2, 2], "dtype": "|O",
            "compressor": null, "fill_value": 0, "order": "C", "filters": [{"id": id}]});
        let pipeline = pipeline_of(2, &meta);
        let json_inputs: Vec<Vec<u8>> = vec![
            b"{}".to_vec(),
            b"[\"|O\"]".to_vec(),
            b"[1, 2, 3, 4, \"|O\", [2, 2]]".to_vec(),
            b"[[1, 2], [3], \"|O\", [2, 2]]".to_vec(),
            format!("[{}1{}, \"|O\", [1]]", "[".repeat(500), "]".repeat(500)).into_bytes(),
            b"not json".to_vec(),
        ];
        let inputs = if id == "json2" {
            json_inputs
        } else {
            vec![
                vec![0xc1],
                vec![0x92, 0x01],
                vec![0xdd, 0xff, 0xff, 0xff, 0xff],
                vec![],
            ]
        };
        for input in inputs {
            let e = pipeline.decode(&input).unwrap_err();
            assert_eq!(e.code, ErrorCode::CodecError, "{id} {input:?}: {e}");
            assert!(e.message.starts_with(id), "{e}");
        }
        let good: &[u8] = if id == "json2" {
            b"[[\"a\", 1], [null, {\"k\": 2}], \"|O\", [2, 2]]"
        } else {
            // msgpack of [["a", 1], [None, {"k": 2}], "|O", [2, 2]]
            &[
                0x94, 0x92, 0xa1, b'a', 0x01, 0x92, 0xc0, 0x81, 0xa1, b'k', 0x02, 0xa2, b'|', b'O',
                0x92, 0x02, 0x02,
            ]
        };
        assert_eq!(
            pipeline.decode(good).unwrap(),
            DecodedChunk::Json(vec![json!("a"), json!(1), json!(null), json!({"k": 2})])
        );
    }
}
