//! Chunks written by zarr-python 3.1 / numcodecs 0.16 (tests/fixtures/codec/cases.json, made by
//! generate_codec.py beside it) decode to the values Python wrote.

mod common;

use common::codec::{b64, cases, stream_pipeline};
use serde_json::Value;
use zom::codec::{CodecPipeline, DecodedChunk};

/// The byte-stream cases' input (see generate_codec.py).
fn raw_elements(count: u64, ts: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for j in 0..count {
        let v = (j / 5 + (j % 7) * 3) as u128;
        let bytes = v.to_le_bytes();
        out.extend_from_slice(&bytes[..ts as usize]);
    }
    out
}

#[test]
fn every_numcodecs_stream_decodes() {
    let cases = cases();
    let streams = cases["streams"].as_array().unwrap();
    assert!(streams.len() > 100);
    for case in streams {
        let name = case["name"].as_str().unwrap();
        let (count, ts) = (
            case["count"].as_u64().unwrap(),
            case["typesize"].as_u64().unwrap(),
        );
        let pipeline = stream_pipeline(&case["config"], count, ts);
        let encoded = b64(&case["encoded"]);
        let want = raw_elements(count, ts);
        match pipeline.decode(&encoded) {
            Ok(DecodedChunk::Fixed(got)) => assert!(got == want, "{name}: wrong values"),
            other => panic!("{name}: {other:?}"),
        }
        // And straight into a caller's buffer.
        let mut out = vec![0u8; want.len()];
        pipeline.decode_into(&encoded, &mut out).unwrap();
        assert!(out == want, "{name}: decode_into gave wrong values");
    }
}

fn case_pipeline(case: &Value) -> CodecPipeline {
    common::codec::pipeline_of(case["zarr_format"].as_u64().unwrap(), &case["metadata"])
}

/// The C-order positions of the `valid` sub-block (from the origin) of an array of `shape`.
fn valid_positions(shape: &[u64], valid: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    let n: u64 = valid.iter().product();
    for linear in 0..n {
        let mut rest = linear;
        let mut pos = 0u64;
        let mut stride = 1u64;
        for (d, &v) in valid.iter().enumerate().rev() {
            let c = rest % v;
            rest /= v;
            pos += c * stride;
            stride *= shape[d];
        }
        out.push(pos as usize);
    }
    out
}

#[test]
fn every_zarr_python_array_decodes() {
    let cases = cases();
    let arrays = cases["arrays"].as_array().unwrap();
    assert!(arrays.len() > 30);
    for case in arrays {
        let name = case["name"].as_str().unwrap();
        let pipeline = case_pipeline(case);
        let shape = pipeline.decoded_repr().shape.clone();
        let item = pipeline.decoded_repr().item_size();
        for (key, chunk) in case["chunks"].as_object().unwrap() {
            let got = pipeline
                .decode(&b64(&chunk["encoded"]))
                .unwrap_or_else(|e| panic!("{name} {key}: {e}"));
            let valid: Vec<u64> = chunk["valid_shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            let positions = valid_positions(&shape, &valid);
            let expected = &chunk["expected"];
            match got {
                DecodedChunk::Fixed(bytes) => {
                    let want = b64(&expected["fixed"]);
                    let item = item.unwrap() as usize;
                    assert_eq!(bytes.len(), shape.iter().product::<u64>() as usize * item);
                    let picked: Vec<u8> = positions
                        .iter()
                        .flat_map(|&p| bytes[p * item..(p + 1) * item].to_vec())
                        .collect();
                    assert!(picked == want, "{name} {key}: values differ");
                    let mut out = vec![0u8; bytes.len()];
                    pipeline
                        .decode_into(&b64(&chunk["encoded"]), &mut out)
                        .unwrap();
                    assert!(out == bytes, "{name} {key}: decode_into differs");
                }
                DecodedChunk::Strings(strings) => {
                    let want: Vec<&str> = expected["strings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s.as_str().unwrap())
                        .collect();
                    let picked: Vec<&str> =
                        positions.iter().map(|&p| strings[p].as_str()).collect();
                    assert_eq!(picked, want, "{name} {key}");
                }
                DecodedChunk::Bytes(items) => {
                    let want: Vec<Vec<u8>> = expected["bytes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(b64)
                        .collect();
                    let picked: Vec<Vec<u8>> =
                        positions.iter().map(|&p| items[p].clone()).collect();
                    assert_eq!(picked, want, "{name} {key}");
                }
                DecodedChunk::Json(_) => {
                    panic!("{name} {key}: no codec fixture is an object array")
                }
            }
        }
    }
}
