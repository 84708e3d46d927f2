//! Fill value tests: every encoding, edge values and the errors for values that do not fit.

use super::tests::v3;
use super::*;
use serde_json::{json, Value};

fn fill(data_type: &str, value: Value) -> Result<FillValue, String> {
    FillValue::from_v3(&v3(json!(data_type)).unwrap(), &value)
}

pub(super) fn fill_dt(data_type: Value, value: Value) -> Result<FillValue, String> {
    FillValue::from_v3(&v3(data_type).unwrap(), &value)
}

/// Decodes `value` for `data_type` and checks that it encodes back to the same JSON.
pub(super) fn round_trip(data_type: Value, value: Value) -> FillValue {
    let dt = v3(data_type.clone()).unwrap();
    let decoded = FillValue::from_v3(&dt, &value).unwrap_or_else(|e| panic!("{value}: {e}"));
    assert_eq!(decoded.to_v3(&dt), value, "{data_type} {value}");
    decoded
}

pub(super) fn err(data_type: Value, value: Value, message: &str) {
    let dt = v3(data_type.clone()).unwrap();
    let e = FillValue::from_v3(&dt, &value)
        .expect_err(&format!("{data_type} {value} should be refused"));
    assert!(e.contains(message), "{data_type} {value}: {e}");
}

pub(super) fn le(value: &FillValue, data_type: Value) -> Vec<u8> {
    value.to_element_bytes(&v3(data_type).unwrap()).unwrap()
}

#[test]
fn booleans() {
    assert_eq!(
        round_trip(json!("bool"), json!(true)),
        FillValue::Bool(true)
    );
    round_trip(json!("bool"), json!(false));
    err(json!("bool"), json!(0), "must be true or false, got 0");
    err(json!("bool"), json!("true"), "must be true or false");
    err(
        json!("bool"),
        json!(null),
        "must be true or false, got null",
    );
    // v2: zarr-python reads 0 and 1 as booleans.
    let dt = DataType::Bool;
    let na = Endianness::NotApplicable;
    assert_eq!(
        FillValue::from_v2(&dt, na, &json!(1)).unwrap(),
        Some(FillValue::Bool(true))
    );
    assert!(FillValue::from_v2(&dt, na, &json!(2)).is_err());
    assert_eq!(le(&FillValue::Bool(true), json!("bool")), vec![1]);
}

#[test]
fn integers() {
    assert_eq!(
        round_trip(json!("uint64"), json!(u64::MAX)),
        FillValue::UInt(u64::MAX)
    );
    assert_eq!(
        round_trip(json!("int64"), json!(i64::MIN)),
        FillValue::Int(i64::MIN)
    );
    round_trip(json!("int64"), json!(i64::MAX));
    round_trip(json!("int8"), json!(-128));
    round_trip(json!("uint8"), json!(255));
    round_trip(json!("int32"), json!(-2147483648_i64));
    err(json!("uint8"), json!(300), "300 is out of range for uint8");
    err(json!("uint8"), json!(-1), "-1 is out of range for uint8");
    err(json!("int8"), json!(128), "128 is out of range for int8");
    err(
        json!("int16"),
        json!(40000),
        "40000 is out of range for int16",
    );
    err(
        json!("uint32"),
        json!(4294967296_u64),
        "out of range for uint32",
    );
    err(
        json!("int64"),
        json!(9223372036854775808_u64),
        "out of range for int64",
    );
    err(json!("uint64"), json!(-1), "out of range for uint64");
    let beyond: Value = serde_json::from_str("18446744073709551616").unwrap();
    err(json!("uint64"), beyond, "out of range for uint64");
    // The v3 spec wants integers: zarr-python's leniency (1.0, "1", true) is not followed.
    err(json!("int32"), json!(1.0), "must be an integer, got 1.0");
    err(json!("int32"), json!(1.5), "must be an integer, got 1.5");
    err(json!("int32"), json!("1"), "must be an integer, got \"1\"");
    err(json!("int32"), json!(true), "must be an integer, got true");
    err(json!("int32"), json!("NaN"), "must be an integer");
    // v2 accepts integers written as floats, as zarr-python does.
    let na = Endianness::Little;
    assert_eq!(
        FillValue::from_v2(&DataType::Int32, na, &json!(3.0)).unwrap(),
        Some(FillValue::Int(3))
    );
    assert!(FillValue::from_v2(&DataType::Int32, na, &json!(3.5)).is_err());
    assert!(FillValue::from_v2(&DataType::UInt8, na, &json!(256.0)).is_err());
    // Element bytes.
    assert_eq!(le(&FillValue::Int(-2), json!("int16")), vec![0xfe, 0xff]);
    assert_eq!(
        le(&FillValue::UInt(u64::MAX), json!("uint64")),
        vec![0xff; 8]
    );
    assert_eq!(le(&FillValue::Int(1), json!("int32")), vec![1, 0, 0, 0]);
}

#[test]
fn floats() {
    for (t, v) in [
        ("float64", json!(0.0)),
        ("float64", json!(-0.0)),
        ("float64", json!(1.5)),
        ("float64", json!(5e-324)),
        ("float64", json!(1e300)),
        ("float64", json!(f64::MAX)),
        ("float32", json!(0.10000000149011612)),
        ("float32", json!(3.4028234663852886e38)),
        ("float16", json!(65504.0)),
        ("float16", json!("NaN")),
        ("float32", json!("Infinity")),
        ("float64", json!("-Infinity")),
    ] {
        round_trip(json!(t), v);
    }
    // An integer for a float type is read, and written as a float (as zarr-python does).
    assert_eq!(
        fill("float64", json!(5)).unwrap().to_v3(&DataType::Float64),
        json!(5.0)
    );
    // Beyond the type's range: rounded to infinity, as the v3 spec and zarr-python do.
    for (t, v, bytes) in [
        (
            "float32",
            json!(1e39),
            0x7f80_0000u32.to_le_bytes().to_vec(),
        ),
        ("float16", json!(65520.0), 0x7c00u16.to_le_bytes().to_vec()),
        ("float16", json!(-1e10), 0xfc00u16.to_le_bytes().to_vec()),
    ] {
        let dt = DataType::from_v3(&NamedConfig::short(t)).unwrap();
        let f = FillValue::from_v3(&dt, &v).unwrap();
        assert_eq!(f.to_element_bytes(&dt).unwrap(), bytes, "{t} {v}");
    }
    err(json!("float64"), json!("nan"), "not valid for float64");
    err(json!("float64"), json!("1.5"), "not valid for float64");
    err(json!("float64"), json!(null), "must be a number");
    err(json!("float64"), json!([1.0]), "must be a number");
    // Tiny values round to zero rather than fail.
    assert!(fill("float16", json!(1e-10)).is_ok());
    // Element bytes match NumPy's.
    let f = |t: &str, v: Value| le(&fill(t, v).unwrap(), json!(t));
    assert_eq!(f("float16", json!("NaN")), vec![0x00, 0x7e]);
    assert_eq!(f("float16", json!(1.5)), vec![0x00, 0x3e]);
    assert_eq!(f("float32", json!(1.0)), 1.0f32.to_le_bytes().to_vec());
    assert_eq!(f("float64", json!(-0.0)), (-0.0f64).to_le_bytes().to_vec());
    assert_eq!(f("float64", json!("NaN")), f64::NAN.to_le_bytes().to_vec());
}

#[test]
fn hex_floats() {
    // Hex keeps the exact bits, NaN payloads included.
    assert_eq!(
        round_trip(json!("float32"), json!("0x7fc00001")),
        FillValue::Bits(0x7fc0_0001)
    );
    assert_eq!(
        round_trip(json!("float64"), json!("0x7ff8000000000001")),
        FillValue::Bits(0x7ff8_0000_0000_0001)
    );
    assert_eq!(
        round_trip(json!("float16"), json!("0x7c01")),
        FillValue::Bits(0x7c01)
    );
    round_trip(json!("float64"), json!("0xfff0000000000000"));
    // Upper-case digits are read (and written back in lower case).
    assert_eq!(
        fill("float16", json!("0x7E00"))
            .unwrap()
            .to_v3(&DataType::Float16),
        json!("0x7e00")
    );
    let bits = fill("float32", json!("0x7fc00001")).unwrap();
    assert_eq!(le(&bits, json!("float32")), vec![0x01, 0x00, 0xc0, 0x7f]);
    let bits = fill("float64", json!("0x3ff0000000000000")).unwrap();
    assert_eq!(le(&bits, json!("float64")), 1.0f64.to_le_bytes().to_vec());
    // The width must match the type exactly.
    err(
        json!("float32"),
        json!("0x7ff8000000000000"),
        "exactly 8 hex digits",
    );
    err(
        json!("float64"),
        json!("0x7fc00000"),
        "exactly 16 hex digits",
    );
    err(
        json!("float16"),
        json!("0x7fc00000"),
        "exactly 4 hex digits",
    );
    err(json!("float64"), json!("0x"), "exactly 16 hex digits");
    err(
        json!("float64"),
        json!("0xzz00000000000000"),
        "not a valid hex float",
    );
    err(
        json!("float64"),
        json!("0x+7f8000000000000"),
        "not a valid hex float",
    );
    err(
        json!("float64"),
        json!("0X7ff8000000000000"),
        "not valid for float64",
    );
    // v2 has no hex floats; Bits are written as the value they stand for.
    let dt = DataType::Float32;
    assert!(FillValue::from_v2(&dt, Endianness::Little, &json!("0x7fc00000")).is_err());
    assert_eq!(
        FillValue::Bits(0x3f80_0000).to_v2(&dt, Endianness::Little),
        json!(1.0)
    );
    assert_eq!(
        FillValue::Bits(0x7fc0_0001).to_v2(&dt, Endianness::Little),
        json!("NaN")
    );
}

#[test]
fn complex() {
    round_trip(json!("complex64"), json!([1.0, "NaN"]));
    round_trip(json!("complex128"), json!(["-Infinity", 2.5]));
    let c = round_trip(json!("complex64"), json!(["0x7fc00000", 0.0]));
    assert_eq!(
        le(&c, json!("complex64")),
        vec![0, 0, 0xc0, 0x7f, 0, 0, 0, 0]
    );
    let c = fill("complex128", json!([1.0, 2.0])).unwrap();
    let mut expected = 1.0f64.to_le_bytes().to_vec();
    expected.extend(2.0f64.to_le_bytes());
    assert_eq!(le(&c, json!("complex128")), expected);
    err(json!("complex64"), json!(1.0), "must be [real, imaginary]");
    err(json!("complex64"), json!([1.0]), "array of 1 items");
    err(
        json!("complex64"),
        json!([1.0, 2.0, 3.0]),
        "array of 3 items",
    );
    // Parts beyond float32's range round to infinity (v3 spec), as for float32.
    let big = FillValue::from_v3(&v3(json!("complex64")).unwrap(), &json!([1e39, 0])).unwrap();
    assert_eq!(
        le(&big, json!("complex64")),
        [0x7f80_0000u32.to_le_bytes(), 0u32.to_le_bytes()].concat()
    );
    err(
        json!("complex64"),
        json!(["0x7ff8000000000000", 0]),
        "exactly 8 hex digits",
    );
    err(
        json!("complex128"),
        json!(["x", 0]),
        "not valid for complex128",
    );
}

#[test]
fn strings() {
    round_trip(json!("string"), json!(""));
    round_trip(json!("string"), json!("héllo"));
    err(json!("string"), json!(1), "must be a string, got 1");
    err(json!("string"), json!(null), "must be a string");
    assert_eq!(
        fill("string", json!("a"))
            .unwrap()
            .to_element_bytes(&DataType::String),
        None
    );

    let utf32 = json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}});
    let s = round_trip(utf32.clone(), json!("é😀"));
    assert_eq!(
        le(&s, utf32.clone()),
        vec![0xe9, 0, 0, 0, 0x00, 0xf6, 0x01, 0, 0, 0, 0, 0]
    );
    round_trip(utf32.clone(), json!("abc"));
    round_trip(utf32.clone(), json!(""));
    err(
        utf32.clone(),
        json!("abcd"),
        "has 4 characters, more than the 3",
    );
    err(utf32.clone(), json!(5), "must be a string");
    // The element of a string that does not fit has no bytes.
    assert_eq!(
        FillValue::String("abcd".into()).to_element_bytes(&v3(utf32).unwrap()),
        None
    );
}

#[test]
fn byte_strings() {
    let s = json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}});
    let v = round_trip(s.clone(), json!("YWI="));
    assert_eq!(v, FillValue::Bytes(b"ab".to_vec()));
    assert_eq!(le(&v, s.clone()), b"ab\0\0".to_vec());
    round_trip(s.clone(), json!(""));
    round_trip(s.clone(), json!("AAA="));
    round_trip(s.clone(), json!("YWJjZA=="));
    err(
        s.clone(),
        json!("YWJjZGU="),
        "decodes to 5 bytes, more than the 4",
    );
    err(s.clone(), json!("!!"), "not valid base64");
    err(s.clone(), json!("YQ"), "not valid base64");
    err(s.clone(), json!([97]), "must be a base64 string");

    let raw = json!({"name": "raw_bytes", "configuration": {"length_bytes": 3}});
    let v = round_trip(raw.clone(), json!("AAAA"));
    assert_eq!(le(&v, raw.clone()), vec![0, 0, 0]);
    // Shorter values are padded with zeros, as zarr-python does.
    let v = round_trip(raw.clone(), json!("YQ=="));
    assert_eq!(le(&v, raw.clone()), vec![0x61, 0, 0]);
    err(raw, json!("YWJjZA=="), "more than the 3");

    let vlen = json!("variable_length_bytes");
    assert_eq!(
        round_trip(vlen.clone(), json!("")),
        FillValue::Bytes(vec![])
    );
    round_trip(vlen.clone(), json!("YWI="));
    err(vlen.clone(), json!([1, 2]), "must be a base64 string");
    assert_eq!(
        FillValue::Bytes(vec![1]).to_element_bytes(&v3(vlen).unwrap()),
        None
    );

    // zarr-extensions `bytes`: an array of byte values.
    let bytes = json!("bytes");
    assert_eq!(
        round_trip(bytes.clone(), json!([0, 97, 255])),
        FillValue::Bytes(vec![0, 97, 255])
    );
    round_trip(bytes.clone(), json!([]));
    err(
        bytes.clone(),
        json!([256]),
        "item 0 (256) is not a byte value",
    );
    err(bytes.clone(), json!([1, -1]), "item 1 (-1)");
    err(bytes.clone(), json!([1.0]), "item 0 (1.0)");
    err(
        bytes.clone(),
        json!("YWI="),
        "must be an array of byte values",
    );
    // In v2 (vlen-bytes) the same value is base64.
    assert_eq!(
        FillValue::Bytes(vec![0, 97]).to_v2(
            &DataType::Bytes(BytesNaming::Bytes),
            Endianness::NotApplicable
        ),
        json!("AGE=")
    );

    // Core-spec r<bits>: exactly bits/8 byte values.
    let r = json!("r24");
    let v = round_trip(r.clone(), json!([1, 2, 3]));
    assert_eq!(le(&v, r.clone()), vec![1, 2, 3]);
    err(r.clone(), json!([1, 2]), "exactly 3 byte values, got 2");
    err(
        r.clone(),
        json!([1, 2, 3, 4]),
        "exactly 3 byte values, got 4",
    );
    err(r.clone(), json!("AQID"), "must be an array");
    assert_eq!(
        v.to_v2(&v3(r).unwrap(), Endianness::NotApplicable),
        json!("AQID")
    );
}

#[test]
fn datetimes() {
    let t = json!({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 10}});
    assert_eq!(
        round_trip(t.clone(), json!(i64::MIN)),
        FillValue::Int(i64::MIN)
    );
    round_trip(t.clone(), json!(5));
    round_trip(t.clone(), json!(i64::MAX));
    // zarr-python also reads "NaT" (and writes it as the integer).
    let nat = fill_dt(t.clone(), json!("NaT")).unwrap();
    assert_eq!(nat, FillValue::Int(i64::MIN));
    assert_eq!(nat.to_v3(&v3(t.clone()).unwrap()), json!(i64::MIN));
    assert_eq!(le(&nat, t.clone()), i64::MIN.to_le_bytes().to_vec());
    err(t.clone(), json!(1.0), "must be an integer");
    err(t.clone(), json!("2020-01-01"), "must be an integer");
    err(t.clone(), json!(9223372036854775808_u64), "out of range");
    let td =
        json!({"name": "numpy.timedelta64", "configuration": {"unit": "ns", "scale_factor": 1}});
    let v = round_trip(td.clone(), json!(-3));
    assert_eq!(le(&v, td), (-3i64).to_le_bytes().to_vec());
}

#[test]
fn v2_fill_values() {
    let cases: Vec<(Value, Option<&str>, Value)> = vec![
        (json!("<f8"), None, json!("NaN")),
        (json!("<f4"), None, json!("Infinity")),
        (json!("<f2"), None, json!("-Infinity")),
        (json!(">f8"), None, json!(2.5)),
        (json!("<c8"), None, json!([1.0, "NaN"])),
        (json!("|S4"), None, json!("YWI=")),
        (json!("|V2"), None, json!("AQI=")),
        (json!("<U3"), None, json!("ab")),
        (json!("|O"), Some("vlen-utf8"), json!("hi")),
        (json!("|O"), Some("vlen-bytes"), json!("YWI=")),
        (json!("<M8[s]"), None, json!(5)),
        (json!("<m8[ns]"), None, json!(i64::MIN)),
        (json!("|b1"), None, json!(true)),
        (json!("<u8"), None, json!(u64::MAX)),
        (
            json!([["a", "<i4"], ["b", "<f8"]]),
            None,
            json!("AQAAAAAAAAAAAARA"),
        ),
    ];
    for (dtype, codec, value) in cases {
        let (dt, order) = DataType::from_v2(&dtype, codec).unwrap();
        let fill = FillValue::from_v2(&dt, order, &value)
            .unwrap_or_else(|e| panic!("{dtype} {value}: {e}"))
            .unwrap();
        assert_eq!(fill.to_v2(&dt, order), value, "{dtype}");
        assert_eq!(FillValue::from_v2(&dt, order, &json!(null)).unwrap(), None);
    }
    let (dt, order) = DataType::from_v2(&json!("|S2"), None).unwrap();
    assert!(FillValue::from_v2(&dt, order, &json!("YWJj"))
        .unwrap_err()
        .contains("more than the 2"));
    assert!(FillValue::from_v2(&dt, order, &json!(0)).is_err());
    let (dt, order) = DataType::from_v2(&json!("<U1"), None).unwrap();
    assert!(FillValue::from_v2(&dt, order, &json!("ab")).is_err());
    let (dt, order) = DataType::from_v2(&json!("<M8[s]"), None).unwrap();
    assert_eq!(
        FillValue::from_v2(&dt, order, &json!("NaT")).unwrap(),
        Some(FillValue::Int(i64::MIN))
    );
}

#[test]
fn long_inputs_are_cut_in_messages() {
    let long = "x".repeat(10_000);
    let e = fill("float64", json!(long)).unwrap_err();
    assert!(e.len() < 300, "{e}");
    let e = v3(json!(long)).unwrap_err();
    assert!(e.len() < 300, "{e}");
}

#[test]
fn hostile_values_never_panic() {
    let cases: Vec<Value> = serde_json::from_str(include_str!("zarr_python_3_1_6.json")).unwrap();
    let mut types: Vec<DataType> = cases.iter().map(|c| v3(c["v3"].clone()).unwrap()).collect();
    types.extend([
        v3(json!("r8")).unwrap(),
        v3(json!("bytes")).unwrap(),
        DataType::RawBytes {
            length_bytes: u64::MAX,
            r_name: true,
        },
        DataType::FixedLengthUtf32 { length_bytes: 3 },
        DataType::DateTime64 {
            unit: TimeUnit::Generic,
            scale_factor: 0,
        },
    ]);
    let values = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1.5),
        json!(-0.0),
        json!(f64::MAX),
        json!(""),
        json!("NaN"),
        json!("NaT"),
        json!("0x"),
        json!("0x7fc00000"),
        json!("0xffffffffffffffff"),
        json!("AAAA"),
        json!("=="),
        json!("😀"),
        json!([]),
        json!([1]),
        json!([1, 2]),
        json!(["NaN", "0x7e00"]),
        json!([[1], {}]),
        json!([256, -1]),
        json!({}),
        json!({"a": 1}),
        json!({"a": {"d": 1}}),
    ];
    for dt in &types {
        for order in [
            Endianness::Little,
            Endianness::Big,
            Endianness::NotApplicable,
        ] {
            let _ = dt.to_v2(order);
        }
        let _ = dt.to_v3();
        let _ = dt.fixed_size();
        for value in &values {
            for decoded in [
                FillValue::from_v3(dt, value).ok(),
                FillValue::from_v2(dt, Endianness::Big, value)
                    .ok()
                    .flatten(),
            ]
            .into_iter()
            .flatten()
            {
                let _ = decoded.to_v3(dt);
                let _ = decoded.to_v2(dt, Endianness::Big);
                let _ = decoded.to_v2(dt, Endianness::NotApplicable);
                if let Some(bytes) = decoded.to_element_bytes(dt) {
                    let _ = FillValue::from_element_bytes(dt, &bytes);
                }
            }
            // Values meant for one type given to every other type.
            for other in &types {
                if let Ok(v) = FillValue::from_v3(other, value) {
                    let _ = v.to_v3(dt);
                    let _ = v.to_v2(dt, Endianness::Big);
                    let _ = v.to_element_bytes(dt);
                }
            }
        }
        for bytes in [&[][..], &[0], &[0xff; 3], &[0; 16], &[0xff; 17]] {
            let _ = FillValue::from_element_bytes(dt, bytes);
        }
    }
}
