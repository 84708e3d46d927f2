//! The zarr-extensions `zfp` codec, which no Python package writes: streams made by zfp-rs's
//! compressor (the crate the zfp part decodes with; bit-for-bit the C library's format), as
//! zarrs writes them — no header, 8- and 16-bit integers promoted to `int32`, fixed rate set
//! for 3-D blocks — decoded through the v3 pipeline; and numcodecs `zfpy`'s reversible mode,
//! which numcodecs cannot write, with zfp's header.

use serde_json::{json, Value};
use zfp_rs::{
    ZfpBitStream, ZfpConfig, ZfpDimensionality, ZfpFieldMut, ZfpScalar, ZfpScalarType,
    ZfpStreamAlignment,
};
use zom::codec::{CodecPipeline, DecodedChunk};
use zom::model::v2::ArrayMetadataV2;
use zom::model::v3::ArrayMetadataV3;
use zom::ErrorCode;

fn v3(dtype: &str, chunk: &[u64], config: Value) -> zom::Result<CodecPipeline> {
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": chunk, "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "zfp", "configuration": config}]});
    let meta: ArrayMetadataV3 = serde_json::from_value(meta).unwrap();
    CodecPipeline::from_v3_metadata(&meta)
}

fn decode(pipeline: &CodecPipeline, stream: &[u8]) -> zom::Result<Vec<u8>> {
    match pipeline.decode(stream)? {
        DecodedChunk::Fixed(bytes) => Ok(bytes),
        other => panic!("not fixed-size: {other:?}"),
    }
}

/// The zfp field of a C-order chunk shape, as the codec maps it.
fn field(shape: &[u64]) -> [usize; 4] {
    let mut dims = [0usize; 4];
    for (slot, &d) in dims.iter_mut().zip(shape.iter().rev()) {
        *slot = d as usize;
    }
    if shape.is_empty() {
        dims[0] = 1;
    }
    dims
}

#[path = "../kernels/parts/zfp_streams.rs"]
mod streams;
use streams::compress;

fn decompress<T: ZfpScalar>(
    stream: &[u8],
    dims: [usize; 4],
    config: &ZfpConfig,
    n: usize,
) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let mut field = ZfpFieldMut::new(&mut out, dims).unwrap();
    ZfpBitStream::from_bytes(stream)
        .unwrap()
        .decompress(config, &mut field)
        .unwrap();
    out
}

/// The modes as the codec's configuration and as zfp-rs's, for `ty`.
fn modes(ty: ZfpScalarType) -> Vec<(Value, ZfpConfig)> {
    let rate = ZfpConfig::fixed_rate(
        10.5,
        ty,
        ZfpDimensionality::D3,
        ZfpStreamAlignment::Unaligned,
    );
    let mut out = vec![
        (json!({"mode": "reversible"}), ZfpConfig::reversible()),
        (
            json!({"mode": "fixed_precision", "precision": 19}),
            ZfpConfig::fixed_precision(19),
        ),
        (json!({"mode": "fixed_rate", "rate": 10.5}), rate.unwrap()),
        (
            json!({"mode": "expert", "minbits": 1, "maxbits": 13, "maxprec": 19, "minexp": -2}),
            ZfpConfig::expert(1, 13, 19, -2).unwrap(),
        ),
    ];
    if matches!(ty, ZfpScalarType::F32 | ZfpScalarType::F64) {
        out.push((
            json!({"mode": "fixed_accuracy", "tolerance": 0.05}),
            ZfpConfig::fixed_accuracy(0.05),
        ));
    }
    out
}

const SHAPES: &[&[u64]] = &[&[], &[17], &[5, 6], &[3, 4, 5], &[2, 3, 4, 5]];

#[test]
fn floats_and_ints_of_every_rank_and_mode_decode_as_zfp_rs_decodes_them() {
    for shape in SHAPES {
        let n = shape.iter().product::<u64>() as usize;
        let dims = field(shape);
        let f64s: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() * 1e3).collect();
        let i64s: Vec<i64> = (0..n as i64).map(|i| i * 1_000_003 - 77).collect();
        for (config, zfp) in modes(ZfpScalarType::F64) {
            let stream = compress(&f64s, dims, &zfp, false);
            let want: Vec<f64> = decompress(&stream, dims, &zfp, n);
            let got = decode(&v3("float64", shape, config.clone()).unwrap(), &stream).unwrap();
            assert_eq!(got, bytemuck_le(&want), "float64 {shape:?} {config}");
            let f32s: Vec<f32> = f64s.iter().map(|&v| v as f32).collect();
            let stream = compress(&f32s, dims, &ZfpConfig::reversible(), false);
            let pipeline = v3("float32", shape, json!({"mode": "reversible"})).unwrap();
            assert_eq!(decode(&pipeline, &stream).unwrap(), bytemuck_le(&f32s));
        }
        for (config, zfp) in modes(ZfpScalarType::I64) {
            let stream = compress(&i64s, dims, &zfp, false);
            let want: Vec<i64> = decompress(&stream, dims, &zfp, n);
            let got = decode(&v3("int64", shape, config.clone()).unwrap(), &stream).unwrap();
            assert_eq!(got, bytemuck_le(&want), "int64 {shape:?} {config}");
        }
    }
}

#[test]
fn small_and_unsigned_integers_are_promoted_as_zarrs_promotes_them() {
    let shape: &[u64] = &[6, 7];
    let dims = field(shape);
    let reversible = json!({"mode": "reversible"});
    let u8s: Vec<u8> = (0..42).map(|i| (i * 6) as u8).collect();
    let promoted: Vec<i32> = u8s.iter().map(|&u| (i32::from(u) - 0x80) << 23).collect();
    let stream = compress(&promoted, dims, &ZfpConfig::reversible(), false);
    assert_eq!(
        decode(&v3("uint8", shape, reversible.clone()).unwrap(), &stream).unwrap(),
        u8s
    );
    let i16s: Vec<i16> = (0..42).map(|i| i * 700 - 15000).collect();
    let promoted: Vec<i32> = i16s.iter().map(|&v| i32::from(v) << 15).collect();
    let stream = compress(&promoted, dims, &ZfpConfig::reversible(), false);
    let got = decode(&v3("int16", shape, reversible.clone()).unwrap(), &stream).unwrap();
    assert_eq!(got, bytemuck_le(&i16s));
    let u32s: Vec<u32> = (0..42).map(|i| i * 50_000_000).collect();
    let clamped: Vec<i32> = u32s
        .iter()
        .map(|&u| u.min(i32::MAX as u32) as i32)
        .collect();
    let stream = compress(&clamped, dims, &ZfpConfig::reversible(), false);
    let got = decode(&v3("uint32", shape, reversible).unwrap(), &stream).unwrap();
    let want: Vec<u32> = clamped.iter().map(|&v| v as u32).collect();
    assert_eq!(got, bytemuck_le(&want));
}

#[test]
fn the_spec_examples_configure_and_what_zfp_cannot_encode_is_refused() {
    // zarr-extensions codecs/zfp/examples/*.json
    for config in [
        json!({"mode": "expert", "minbits": 1, "maxbits": 13, "maxprec": 19, "minexp": -2}),
        json!({"mode": "fixed_accuracy", "tolerance": 0.05}),
        json!({"mode": "fixed_precision", "precision": 19}),
        json!({"mode": "fixed_rate", "rate": 10.5}),
        json!({"mode": "reversible"}),
    ] {
        let pipeline = v3("float32", &[4, 4], config.clone()).unwrap();
        assert_eq!(pipeline.parts(), ["zfp"], "{config}");
    }
    let e = v3("float32", &[2, 2, 2, 2, 2], json!({"mode": "reversible"})).unwrap_err();
    assert!(e.message.contains("1 to 4 dimensions"), "{e}");
    let e = v3(
        "int32",
        &[4],
        json!({"mode": "fixed_accuracy", "tolerance": 0.1}),
    )
    .unwrap_err();
    assert!(e.message.contains("floating-point"), "{e}");
    let e = v3("float16", &[4], json!({"mode": "reversible"})).unwrap_err();
    assert!(e.message.contains("does not encode"), "{e}");
    let e = v3("float32", &[4], json!({"mode": "fixed_rate"})).unwrap_err();
    assert!(e.message.contains("'rate'"), "{e}");
    let bad = json!({"mode": "expert", "minbits": 20, "maxbits": 13, "maxprec": 19, "minexp": -2});
    assert!(v3("float32", &[4], bad).is_err());
    // Wrong streams are codec errors: another chunk's, a truncated one.
    let pipeline = v3("float64", &[8], json!({"mode": "reversible"})).unwrap();
    let stream = compress(&[1.5f64; 8], [8, 0, 0, 0], &ZfpConfig::reversible(), false);
    assert_eq!(
        decode(&pipeline, &stream).unwrap(),
        bytemuck_le(&[1.5f64; 8])
    );
    let e = decode(&pipeline, &stream[..stream.len() / 2]).unwrap_err();
    assert_eq!(e.code, ErrorCode::CodecError, "{e}");
}

#[test]
fn zfpy_reads_the_header_reversible_mode_too() {
    let meta = json!({"zarr_format": 2, "shape": [3, 5], "chunks": [3, 5], "dtype": "<i8",
        "fill_value": 0, "order": "C", "filters": null,
        "compressor": {"id": "zfpy", "mode": 5, "tolerance": -1, "rate": -1, "precision": -1}});
    let pipeline =
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap();
    assert_eq!(pipeline.parts(), ["zfp"]);
    let values: Vec<i64> = (0..15).map(|i| i * i * 1_000_000_007).collect();
    let stream = compress(&values, [5, 3, 0, 0], &ZfpConfig::reversible(), true);
    assert_eq!(decode(&pipeline, &stream).unwrap(), bytemuck_le(&values));
    // A stream of another type or another size is refused.
    let other = compress(&[0.5f64; 15], [5, 3, 0, 0], &ZfpConfig::reversible(), true);
    assert_eq!(
        decode(&pipeline, &other).unwrap_err().code,
        ErrorCode::CodecError
    );
    let bigger = compress(&[7i64; 16], [4, 4, 0, 0], &ZfpConfig::reversible(), true);
    assert_eq!(
        decode(&pipeline, &bigger).unwrap_err().code,
        ErrorCode::CodecError
    );
    let smaller = compress(&[7i64; 10], [5, 2, 0, 0], &ZfpConfig::reversible(), true);
    assert_eq!(
        decode(&pipeline, &smaller).unwrap_err().code,
        ErrorCode::CodecError
    );
}

/// Little-endian bytes of numbers.
fn bytemuck_le<T: ToLe>(values: &[T]) -> Vec<u8> {
    values.iter().flat_map(|v| v.le()).collect()
}

trait ToLe: Copy {
    fn le(self) -> Vec<u8>;
}

macro_rules! to_le {
    ($($t:ty),*) => {$(impl ToLe for $t { fn le(self) -> Vec<u8> { self.to_le_bytes().to_vec() } })*};
}
to_le!(f32, f64, i16, i32, i64, u32);
