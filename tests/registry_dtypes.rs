//! The zarr-extensions registry's numeric data types (int2/int4, bfloat16, the float8, float6
//! and float4 families, their complex forms): read from hand-made chunks whose bits the specs
//! define, with their fill values, and widened as JS receives them.

mod common;

use common::values::encode_all;
use serde_json::{json, Value};
use zom::dtype::{DataType, FillValue};
use zom::hierarchy::ArrayReader;
use zom::model;

fn array(data_type: &str, fill: Value, codecs: Value) -> ArrayReader {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
    });
    let root = model::from_documents([("zarr.json", meta)]).unwrap();
    ArrayReader::open_in(&root, "").unwrap_or_else(|e| panic!("{data_type}: {e}"))
}

fn bytes_codec() -> Value {
    json!([{"name": "bytes", "configuration": {"endian": "little"}}])
}

/// The chunk's values as zom's tests write them, and the fill chunk's.
fn read(reader: &ArrayReader, chunk: &[u8]) -> (Vec<Value>, Vec<Value>) {
    let values = reader.decode_chunk(&[0], Some(chunk)).unwrap();
    let fill = reader.decode_chunk(&[0], None).unwrap();
    (
        encode_all(reader.data_type(), &values.data),
        encode_all(reader.data_type(), &fill.data),
    )
}

fn numeric(name: &'static str) -> &'static zom::dtype::Numeric {
    DataType::Registry(name).numeric().unwrap()
}

/// A type, its fill value, a chunk's four stored bytes, their values and the fill's value.
type Case = (&'static str, Value, [u8; 4], [Value; 4], Value);

#[test]
fn small_floats_decode_as_their_specs_define_them() {
    let cases: &[Case] = &[
        (
            "float8_e4m3",
            json!("NaN"),
            [0x38, 0x7c, 0x77, 0x80],
            [json!(1.0), json!("NaN"), json!(240.0), json!(-0.0)],
            json!("NaN"),
        ),
        (
            "float8_e5m2",
            json!("-Infinity"),
            [0x3c, 0x7c, 0x7b, 0x01],
            [
                json!(1.0),
                json!("Infinity"),
                json!(57344.0),
                json!(2f64.powi(-16)),
            ],
            json!("-Infinity"),
        ),
        (
            "float8_e4m3fnuz",
            json!(-2.0),
            [0x40, 0x80, 0x7f, 0x00],
            [json!(1.0), json!("NaN"), json!(240.0), json!(0.0)],
            json!(-2.0),
        ),
        (
            "float8_e8m0fnu",
            json!("0x7f"),
            [0x7f, 0xff, 0x80, 0x00],
            [json!(1.0), json!("NaN"), json!(2.0), json!(2f64.powi(-127))],
            json!(1.0),
        ),
        (
            "float4_e2m1fn",
            json!(-0.5),
            [0x07, 0xf9, 0x0f, 0x02],
            [json!(6.0), json!(-0.5), json!(-6.0), json!(1.0)],
            json!(-0.5),
        ),
        (
            "float6_e3m2fn",
            json!(28.0),
            [0x0c, 0x1f, 0x3f, 0x01],
            [json!(1.0), json!(28.0), json!(-28.0), json!(0.0625)],
            json!(28.0),
        ),
    ];
    for (name, fill, chunk, want, want_fill) in cases {
        let reader = array(name, fill.clone(), bytes_codec());
        let (values, fills) = read(&reader, chunk);
        assert_eq!(values, want.to_vec(), "{name}");
        assert_eq!(fills, vec![want_fill.clone(); 4], "{name} fill");
    }
}

#[test]
fn bfloat16_has_a_byte_order_and_narrow_integers_ignore_their_upper_bits() {
    let big = json!([{"name": "bytes", "configuration": {"endian": "big"}}]);
    let reader = array("bfloat16", json!("0x7fc0"), big);
    let chunk = [0x3f, 0x80, 0xc0, 0x49, 0x7f, 0x80, 0x00, 0x01];
    let (values, fills) = read(&reader, &chunk);
    assert_eq!(
        values,
        [
            json!(1.0),
            json!(-3.140625),
            json!("Infinity"),
            json!(f64::from(f32::from_bits(0x0001_0000)))
        ]
    );
    assert_eq!(fills, vec![json!("NaN"); 4]);
    let reader = array("int4", json!(-8), bytes_codec());
    let (values, fills) = read(&reader, &[0x0f, 0x07, 0xf8, 0x58]);
    assert_eq!(values, [json!(-1), json!(7), json!(-8), json!(-8)]);
    assert_eq!(fills, vec![json!(-8); 4]);
    let reader = array("uint2", json!(3), bytes_codec());
    let (values, _) = read(&reader, &[0xff, 0x01, 0x02, 0xfc]);
    assert_eq!(values, [json!(3), json!(1), json!(2), json!(0)]);
}

#[test]
fn complex_forms_and_packbits() {
    let reader = array("complex_float8_e4m3", json!([1.0, "NaN"]), bytes_codec());
    let chunk = [0x38, 0xb8, 0x00, 0x77, 0x40, 0x40, 0x7c, 0x00];
    let (values, fills) = read(&reader, &chunk);
    assert_eq!(
        values,
        [
            json!([1.0, -1.0]),
            json!([0.0, 240.0]),
            json!([2.0, 2.0]),
            json!(["NaN", 0.0])
        ]
    );
    assert_eq!(fills, vec![json!([1.0, "NaN"]); 4]);
    // packbits keeps each int4's 4 bits: -1, 7, -8, 2 packed two to a byte.
    let packed = json!([{"name": "packbits", "configuration": {"padding_encoding": "none"}}]);
    let reader = array("int4", json!(0), packed);
    let (values, _) = read(&reader, &[0x7f, 0x28]);
    assert_eq!(values, [json!(-1), json!(7), json!(-8), json!(2)]);
}

#[test]
fn fill_values_the_formats_cannot_hold_are_refused() {
    for (name, fill) in [
        ("float4_e2m1fn", json!("NaN")),
        ("float6_e2m3fn", json!("Infinity")),
        ("float8_e4m3fnuz", json!("-Infinity")),
        ("float4_e2m1fn", json!(100.0)),
        ("float8_e8m0fnu", json!(-1.0)),
        ("int4", json!(8)),
        ("uint2", json!(4)),
    ] {
        let meta = json!({
            "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": bytes_codec(),
        });
        let root = model::from_documents([("zarr.json", meta)]);
        let refused = match root {
            Err(_) => true,
            Ok(root) => ArrayReader::open_in(&root, "").is_err(),
        };
        assert!(refused, "{name} with fill value {fill}");
    }
    // Hex fill values keep their bits, NaN payloads included.
    let dt = DataType::Registry("bfloat16");
    let fill = FillValue::from_v3(&dt, &json!("0x7fc1")).unwrap();
    assert_eq!(fill.to_v3(&dt), json!("0x7fc1"));
    assert_eq!(fill.to_element_bytes(&dt), Some(vec![0xc1, 0x7f]));
}

#[test]
fn values_reach_js_widened() {
    let widened = numeric("float8_e4m3").widen(&[0x38, 0x7c, 0xf7]).unwrap();
    let floats: Vec<f32> = widened
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(floats[0], 1.0);
    assert!(floats[1].is_nan());
    assert_eq!(floats[2], -240.0);
    assert_eq!(numeric("float8_e4m3").js_view().kind, "float32");
    assert_eq!(numeric("int4").widen(&[0x0f, 0xf7]).unwrap(), [0xff, 0x07]);
    assert_eq!(numeric("uint4").widen(&[0xff]).unwrap(), [0x0f]);
    assert_eq!(numeric("complex_bfloat16").js_view().kind, "complex64");
    assert!(!numeric("complex_float32").js_view().widened);
    let bf16 = numeric("bfloat16").widen(&[0x80, 0x3f]).unwrap();
    assert_eq!(bf16, 1.0f32.to_le_bytes());
}

/// tests/fixtures/registry: every registry type written by zarrs (its generator computes the
/// values from the bits by its own decoder), with edge chunks, an unwritten chunk, compressors
/// and packbits: zom's values and stored bits equal them.
#[test]
fn arrays_zarrs_wrote_read_as_their_bits_define_them() {
    use common::store::{open_array, read_whole, store_from_dir};
    use zom::codec::DecodedChunk;
    let dir = common::fixtures().join("registry/v3");
    let store = store_from_dir(&dir);
    let expected = common::read_json(&common::fixtures().join("registry/v3.values.json"));
    let mut names = std::collections::BTreeSet::new();
    for (path, entry) in expected.as_object().unwrap() {
        let reader = open_array(&store, path);
        assert_eq!(json!(reader.shape()), entry["shape"], "{path}");
        let got = read_whole(&store, &reader);
        let values = Value::Array(encode_all(reader.data_type(), &got.data));
        let diffs = common::json_differences(&values, &entry["values"]);
        assert!(diffs.is_empty(), "{path}:\n{}", diffs.join("\n"));
        // The stored bits: each value's byte(s) as decoded, before any widening.
        let DecodedChunk::Fixed(bytes) = &got.data else {
            panic!("{path}: fixed-size values")
        };
        let numeric = reader.data_type().numeric().unwrap();
        let part = (numeric.size / numeric.components() as u64) as usize;
        let word = |b: &[u8]| b.iter().rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
        let bits: Vec<Value> = bytes
            .chunks_exact(numeric.size as usize)
            .map(|e| match numeric.components() {
                2 => json!([word(&e[..part]), word(&e[part..])]),
                _ => json!(word(e)),
            })
            .collect();
        assert_eq!(Value::Array(bits), entry["bits"], "{path}: stored bits");
        names.insert(numeric.name);
    }
    // Every registry type but complex_float16/32/64 (zarrs writes those as complex64/128).
    let registry: Vec<&str> = zom::dtype::NUMERIC
        .iter()
        .filter(|n| n.is_registry())
        .map(|n| n.name)
        .filter(|n| {
            !matches!(
                *n,
                "complex_float16" | "complex_float32" | "complex_float64"
            )
        })
        .collect();
    for name in registry {
        assert!(names.contains(name), "no zarrs fixture of {name}");
    }
}
