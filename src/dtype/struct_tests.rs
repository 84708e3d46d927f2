//! Fill value tests for struct types, and the binary form of elements.

use super::fill_tests::{err, fill_dt, le, round_trip};
use super::tests::v3;
use super::*;
use serde_json::{json, Value};

#[test]
fn structured_fill_values() {
    // zarr-python 3.1 writes the packed element as base64.
    let t = json!({"name": "structured", "configuration": {"fields": [["a", "int32"], ["b", "float64"]]}});
    let v = round_trip(t.clone(), json!("AQAAAAAAAAAAAARA"));
    let mut expected = 1i32.to_le_bytes().to_vec();
    expected.extend(2.5f64.to_le_bytes());
    assert_eq!(le(&v, t.clone()), expected);
    err(
        t.clone(),
        json!("AQAAAA=="),
        "decodes to 4 bytes, but one structured element is 12 bytes",
    );
    err(t.clone(), json!("@@"), "not valid base64");
    err(t.clone(), json!(0), "must be an object mapping each field");
    // The zarr-extensions spec for `structured` writes an object; that form is read too.
    let v = round_trip(t.clone(), json!({"a": 1, "b": 2.5}));
    assert_eq!(le(&v, t.clone()), expected);
    // The object in v2 is the base64 of the packed element.
    let dt = v3(t.clone()).unwrap();
    assert_eq!(
        v.to_v2(&dt, Endianness::NotApplicable),
        json!("AQAAAAAAAAAAAARA")
    );

    // A v2 struct with a big-endian field: the base64 is in the fields' byte order; v3 and the
    // element bytes are little-endian.
    let (dt, order) = DataType::from_v2(&json!([["a", ">i4"], ["b", "<f2"]]), None).unwrap();
    let v = FillValue::from_v2(&dt, order, &json!("AAAAAQBA"))
        .unwrap()
        .unwrap();
    assert_eq!(v.to_v2(&dt, order), json!("AAAAAQBA"));
    assert_eq!(v.to_element_bytes(&dt), Some(vec![1, 0, 0, 0, 0x00, 0x40]));
    assert_eq!(v.to_v3(&dt), json!("AQAAAABA"));
    assert_eq!(v.to_v2(&dt, Endianness::Little), json!("AQAAAABA"));
    assert_eq!(v.to_v2(&dt, Endianness::Big), json!("AAAAAUAA"));
    // Subarray and nested fields swap element by element.
    let (dt, order) = DataType::from_v2(
        &json!([["a", ">u2", [2]], ["c", [["d", "|u1"], ["e", ">u2"]]]]),
        None,
    )
    .unwrap();
    let v = FillValue::Bytes(vec![0, 1, 0, 2, 9, 0, 3]);
    assert_eq!(v.to_element_bytes(&dt), Some(vec![1, 0, 2, 0, 9, 3, 0]));
    assert_eq!(v.to_v2(&dt, order), json!("AAEAAgkAAw=="));
    let _ = order;
}

#[test]
fn struct_fill_values() {
    let t = json!({"name": "struct", "configuration": {"fields": [
        {"name": "x", "data_type": "float32"},
        {"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
            {"name": "y", "data_type": "int8"},
            {"name": "s", "data_type": {"name": "null_terminated_bytes", "configuration": {"length_bytes": 2}}}
        ]}}},
        {"name": "t", "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}}
    ]}});
    let value = json!({"x": "NaN", "p": {"y": -1, "s": "YQ=="}, "t": 7});
    let v = round_trip(t.clone(), value);
    let mut expected = f32::NAN.to_le_bytes().to_vec();
    expected.extend([0xff, b'a', 0]);
    expected.extend(7i64.to_le_bytes());
    assert_eq!(le(&v, t.clone()), expected);
    // The fields are written in the type's order whatever the order they were given in.
    let v = fill_dt(t.clone(), json!({"t": 7, "p": {"s": "", "y": 0}, "x": 1.0})).unwrap();
    assert_eq!(
        v.to_v3(&v3(t.clone()).unwrap()),
        json!({"x": 1.0, "p": {"y": 0, "s": ""}, "t": 7})
    );
    err(t.clone(), json!({"x": 1.0, "t": 7}), "missing field 'p'");
    err(
        t.clone(),
        json!({"x": 1.0, "p": {"y": 0, "s": ""}, "t": 7, "z": 1}),
        "field 'z' that the struct data type does not have",
    );
    err(
        t.clone(),
        json!({"x": 1.0, "p": {"y": 300, "s": ""}, "t": 7}),
        "field 'p': field 'y': 300 is out of range for int8",
    );
    err(t.clone(), json!("AAAA"), "must be an object");
    err(t.clone(), json!([1, 2, 3]), "must be an object");
}

#[test]
fn element_bytes_limits() {
    // A huge raw type has no element bytes rather than a huge allocation.
    let dt = DataType::RawBytes {
        length_bytes: MAX_ELEMENT_BYTES + 1,
        r_name: false,
    };
    assert_eq!(FillValue::Bytes(vec![]).to_element_bytes(&dt), None);
    let dt = DataType::RawBytes {
        length_bytes: u64::MAX,
        r_name: false,
    };
    assert_eq!(FillValue::Bytes(vec![]).to_element_bytes(&dt), None);
    // A value of the wrong kind has no element bytes.
    assert_eq!(
        FillValue::String("a".into()).to_element_bytes(&DataType::Int8),
        None
    );
    assert_eq!(
        FillValue::Bool(true).to_element_bytes(&DataType::Float32),
        None
    );
    // A struct value with a wrong-length byte string.
    let (dt, _) = DataType::from_v2(&json!([["a", "<i4"]]), None).unwrap();
    assert_eq!(FillValue::Bytes(vec![1, 2]).to_element_bytes(&dt), None);
    // A zero-size subarray field with a huge count is skipped, not looped over.
    let (dt, _) = DataType::from_v2(
        &json!([
            ["a", [["z", "|u1", [0]]], [4294967296_u64, 4294967296_u64]],
            ["b", "|u1"]
        ]),
        None,
    )
    .unwrap();
    assert_eq!(dt.fixed_size(), Some(1));
    let v = FillValue::Struct(vec![
        (
            "a".into(),
            FillValue::Struct(vec![("z".into(), FillValue::UInt(0))]),
        ),
        ("b".into(), FillValue::UInt(7)),
    ]);
    assert_eq!(v.to_element_bytes(&dt), Some(vec![7]));
    assert_eq!(
        FillValue::Bytes(vec![7]).to_element_bytes(&dt),
        Some(vec![7])
    );
}

#[test]
fn element_bytes_decode() {
    // Every fixed-size fill value of the zarr-python fixture decodes back from its bytes.
    let cases: Vec<Value> = serde_json::from_str(include_str!("zarr_python_3_1_6.json")).unwrap();
    for case in &cases {
        let dt = v3(case["v3"].clone()).unwrap();
        let fill = FillValue::from_v3(&dt, &case["v3_fill"]).unwrap();
        match fill.to_element_bytes(&dt) {
            Some(bytes) => {
                let decoded = FillValue::from_element_bytes(&dt, &bytes)
                    .unwrap_or_else(|| panic!("{}", case["numpy"]));
                assert_eq!(
                    decoded.to_element_bytes(&dt),
                    Some(bytes),
                    "{}",
                    case["numpy"]
                );
            }
            None => assert_eq!(FillValue::from_element_bytes(&dt, &[]), None),
        }
    }
    let d = |t: Value, bytes: &[u8]| FillValue::from_element_bytes(&v3(t).unwrap(), bytes);
    assert_eq!(d(json!("int16"), &[0xfe, 0xff]), Some(FillValue::Int(-2)));
    assert_eq!(d(json!("int8"), &[0x80]), Some(FillValue::Int(-128)));
    assert_eq!(
        d(json!("int64"), &i64::MIN.to_le_bytes()),
        Some(FillValue::Int(i64::MIN))
    );
    assert_eq!(
        d(json!("uint64"), &[0xff; 8]),
        Some(FillValue::UInt(u64::MAX))
    );
    assert_eq!(
        d(json!("float32"), &[1, 0, 0xc0, 0x7f]),
        Some(FillValue::Bits(0x7fc0_0001))
    );
    assert_eq!(d(json!("bool"), &[2]), None);
    assert_eq!(d(json!("int32"), &[1, 2]), None);
    let utf32 = json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 4}});
    assert_eq!(d(utf32.clone(), &[0, 0xd8, 0, 0]), None);
    assert_eq!(
        d(utf32, &[0x61, 0, 0, 0]),
        Some(FillValue::String("a".into()))
    );
    let s = json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}});
    assert_eq!(d(s, b"a\0b\0"), Some(FillValue::Bytes(b"a\0b".to_vec())));
    // A subarray field decodes only when its elements agree.
    let (dt, _) = DataType::from_v2(&json!([["a", "<u2", [2]]]), None).unwrap();
    assert_eq!(
        FillValue::from_element_bytes(&dt, &[1, 0, 1, 0]),
        Some(FillValue::Struct(vec![("a".into(), FillValue::UInt(1))]))
    );
    assert_eq!(FillValue::from_element_bytes(&dt, &[1, 0, 2, 0]), None);
}

#[test]
fn struct_fill_from_bytes_is_written_as_an_object() {
    // A base64 fill value (as v2 and zarr-python's `structured` write it) given to a
    // zarr-extensions `struct` type is written in the object form that type requires.
    let t = json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int32"},
        {"name": "b", "data_type": "float64"}
    ]}});
    let dt = v3(t).unwrap();
    let bytes = FillValue::Bytes(vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0x40]);
    assert_eq!(bytes.to_v3(&dt), json!({"a": 1, "b": 2.5}));
    // The v2 form of the same value is the base64.
    assert_eq!(
        bytes.to_v2(&dt, Endianness::NotApplicable),
        json!("AQAAAAAAAAAAAARA")
    );
}

#[test]
fn many_fields_stay_fast() {
    // Quadratic checks would take minutes here.
    let n = 100_000;
    let fields: Vec<Value> = (0..n).map(|i| json!([format!("f{i}"), "uint8"])).collect();
    let mut t = json!({"name": "structured", "configuration": {"fields": fields}});
    let dt = v3(t.clone()).unwrap();
    assert_eq!(dt.fixed_size(), Some(n));
    let object: serde_json::Map<String, Value> =
        (0..n).map(|i| (format!("f{i}"), json!(1))).collect();
    let v = round_trip(t.clone(), Value::Object(object));
    assert_eq!(le(&v, t.clone()).len() as u64, n);
    t["configuration"]["fields"]
        .as_array_mut()
        .unwrap()
        .push(json!(["f7", "uint8"]));
    assert!(crate::dtype::tests::v3_err(t).contains("duplicate field name 'f7'"));
    let list: Vec<Value> = (0..n).map(|i| json!([format!("f{i}"), "|u1"])).collect();
    let (dt, _) = DataType::from_v2(&Value::Array(list), None).unwrap();
    assert_eq!(dt.fixed_size(), Some(n));
}
