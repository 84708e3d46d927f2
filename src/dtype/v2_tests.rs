//! v2 dtype tests: typestrings, structured lists and their errors.

use super::*;
use serde_json::{json, Value};

pub(super) fn v2(value: Value, codec: Option<&str>) -> Result<(DataType, Endianness), String> {
    DataType::from_v2(&value, codec)
}

pub(super) fn v2_err(value: Value) -> String {
    v2(value.clone(), None).expect_err(&format!("{value} should be refused"))
}

#[test]
fn v2_typestrings() {
    let cases: &[(&str, DataType, Endianness)] = &[
        ("|b1", DataType::Bool, Endianness::NotApplicable),
        ("|i1", DataType::Int8, Endianness::NotApplicable),
        ("|u1", DataType::UInt8, Endianness::NotApplicable),
        ("<i2", DataType::Int16, Endianness::Little),
        (">i2", DataType::Int16, Endianness::Big),
        ("<i4", DataType::Int32, Endianness::Little),
        (">i8", DataType::Int64, Endianness::Big),
        ("<u2", DataType::UInt16, Endianness::Little),
        (">u4", DataType::UInt32, Endianness::Big),
        ("<u8", DataType::UInt64, Endianness::Little),
        ("<f2", DataType::Float16, Endianness::Little),
        (">f4", DataType::Float32, Endianness::Big),
        ("<f8", DataType::Float64, Endianness::Little),
        ("<c8", DataType::Complex64, Endianness::Little),
        (">c16", DataType::Complex128, Endianness::Big),
        (
            "<U5",
            DataType::FixedLengthUtf32 { length_bytes: 20 },
            Endianness::Little,
        ),
        (
            ">U1",
            DataType::FixedLengthUtf32 { length_bytes: 4 },
            Endianness::Big,
        ),
        (
            "|S7",
            DataType::NullTerminatedBytes { length_bytes: 7 },
            Endianness::NotApplicable,
        ),
        (
            "|V3",
            DataType::RawBytes {
                length_bytes: 3,
                r_name: false,
            },
            Endianness::NotApplicable,
        ),
        (
            "<M8[10s]",
            DataType::DateTime64 {
                unit: TimeUnit::Seconds,
                scale_factor: 10,
            },
            Endianness::Little,
        ),
        (
            ">m8[ns]",
            DataType::TimeDelta64 {
                unit: TimeUnit::Nanoseconds,
                scale_factor: 1,
            },
            Endianness::Big,
        ),
        (
            "<M8",
            DataType::DateTime64 {
                unit: TimeUnit::Generic,
                scale_factor: 1,
            },
            Endianness::Little,
        ),
    ];
    for (typestring, dt, order) in cases {
        let (got, got_order) = v2(json!(typestring), None).unwrap();
        assert_eq!(&got, dt, "{typestring}");
        assert_eq!(got_order, *order, "{typestring}");
        assert_eq!(got.to_v2(got_order).unwrap(), json!(typestring));
    }
    // `=` is the native order, little-endian on every platform zom targets.
    assert_eq!(
        v2(json!("=i4"), None).unwrap(),
        (DataType::Int32, Endianness::Little)
    );
    // `[generic]` and `[μs]` are NumPy spellings too.
    assert_eq!(
        v2(json!("<m8[generic]"), None)
            .unwrap()
            .0
            .to_v2(Endianness::Little)
            .unwrap(),
        json!("<m8")
    );
    assert_eq!(
        v2(json!("<M8[μs]"), None)
            .unwrap()
            .0
            .to_v2(Endianness::Little)
            .unwrap(),
        json!("<M8[us]")
    );
    // Object dtypes take their meaning from the object codec.
    assert_eq!(
        v2(json!("|O"), Some("vlen-utf8")).unwrap(),
        (DataType::String, Endianness::NotApplicable)
    );
    assert_eq!(
        v2(json!("|O"), Some("vlen-bytes")).unwrap(),
        (
            DataType::Bytes(BytesNaming::VariableLengthBytes),
            Endianness::NotApplicable
        )
    );
    assert!(v2_err(json!("|O")).contains("needs an object codec"));
    assert_eq!(
        v2(json!("|O"), Some("json2")).unwrap().0,
        DataType::Object(ObjectFormat::Json)
    );
    assert_eq!(
        v2(json!("|O"), Some("msgpack2")).unwrap().0,
        DataType::Object(ObjectFormat::MsgPack)
    );
    assert!(v2(json!("|O"), Some("pickle"))
        .unwrap_err()
        .contains("object codec 'pickle'"));
}

#[test]
fn bad_v2_typestrings() {
    for (typestring, message) in [
        ("<i3", "not a valid v2 dtype"),
        ("<f1", "not a valid v2 dtype"),
        ("<f16", "not a valid v2 dtype"),
        ("<c32", "not a valid v2 dtype"),
        ("|S0", "at least 1"),
        ("<U0", "at least 1"),
        ("|V0", "at least 1"),
        ("|S", "not a valid v2 dtype"),
        ("|Sx", "not a valid v2 dtype"),
        ("|S99999999999999999999999", "too large"),
        ("<U9999999999999999999", "too large"),
        ("|i1junk", "not a valid v2 dtype"),
        ("<i4 ", "not a valid v2 dtype"),
        ("i4", "must start with"),
        ("", "must start with"),
        ("|i4", "needs '<' or '>'"),
        ("|f8", "needs '<' or '>'"),
        ("|U2", "needs '<' or '>'"),
        ("|M8", "needs '<' or '>'"),
        ("<i1", "takes '|'"),
        (">b1", "takes '|'"),
        ("<S5", "takes '|'"),
        ("<V3", "takes '|'"),
        ("<O", "takes '|'"),
        ("<M8[]", "unknown time unit ''"),
        ("<M8[B]", "unknown time unit 'B'"),
        ("<M8[0s]", "positive integer, got 0"),
        ("<M8[-1s]", "unknown time unit '-1s'"),
        ("<M8[2147483648s]", "too large"),
        ("<M8[s", "not a valid v2 dtype"),
        ("<M8s", "not a valid v2 dtype"),
    ] {
        let err = v2(json!(typestring), Some("vlen-utf8"))
            .expect_err(&format!("{typestring} should be refused"));
        assert!(err.contains(message), "{typestring}: {err}");
    }
    assert!(v2_err(json!(5)).contains("typestring or a list"));
    assert!(v2_err(json!({"a": 1})).contains("typestring or a list"));
}

#[test]
fn v2_structured() {
    let dtype = json!([
        ["a", "<i4"],
        ["b", "<f8", [2, 3]],
        ["c", [["d", "|u1"], ["e", ">u2"]]]
    ]);
    let (dt, order) = v2(dtype.clone(), None).unwrap();
    assert_eq!(order, Endianness::NotApplicable);
    assert_eq!(dt.fixed_size(), Some(4 + 48 + 3));
    assert_eq!(dt.to_v2(order).unwrap(), dtype);
    let DataType::Struct { fields, naming } = &dt else {
        panic!()
    };
    assert_eq!(*naming, StructNaming::Structured);
    assert_eq!(fields[1].shape, vec![2, 3]);
    assert_eq!(fields[1].endianness, Endianness::Little);
    let DataType::Struct { fields: inner, .. } = &fields[2].data_type else {
        panic!()
    };
    assert_eq!(inner[1].endianness, Endianness::Big);
    // v3 has no subarray fields: like zarr-python, the field becomes raw bytes of its size.
    assert_eq!(
        dt.to_v3().to_value(),
        json!({"name": "structured", "configuration": {"fields": [
            ["a", "int32"],
            ["b", {"name": "raw_bytes", "configuration": {"length_bytes": 48}}],
            ["c", {"name": "structured", "configuration": {"fields": [["d", "uint8"], ["e", "uint16"]]}}]
        ]}})
    );
    // Forcing a byte order applies it to every multi-byte field.
    assert_eq!(
        dt.to_v2(Endianness::Big).unwrap(),
        json!([
            ["a", ">i4"],
            ["b", ">f8", [2, 3]],
            ["c", [["d", "|u1"], ["e", ">u2"]]]
        ])
    );

    for (dtype, message) in [
        (json!([]), "at least one field"),
        (json!([["a"]]), "field 0 must be"),
        (json!([["a", "<i4", [2], 1]]), "field 0 must be"),
        (json!(["a", "<i4"]), "field 0 must be"),
        (json!([[1, "<i4"]]), "field 0 must be"),
        (
            json!([["a", "<i4"], ["a", "<f8"]]),
            "duplicate field name 'a'",
        ),
        (json!([["", "<i4"]]), "must not be empty"),
        (
            json!([["a", "|O"]]),
            "cannot hold variable-length '|O' fields",
        ),
        (
            json!([["a", "<i3"]]),
            "field 'a': '<i3' is not a valid v2 dtype",
        ),
        (
            json!([["a", "<i4", [-1]]]),
            "shape must be a list of non-negative integers",
        ),
        (json!([["a", "<i4", 2]]), "shape must be a list"),
        (json!([["a", 5]]), "typestring or a list"),
        (
            json!([["a", "|V4294967296", [4294967296_u64, 4294967296_u64]]]),
            "too large",
        ),
        (
            json!([
                ["a", "|V9223372036854775807"],
                ["b", "|V9223372036854775807"],
                ["c", "|V2"]
            ]),
            "too large",
        ),
        (json!([["a", []]]), "at least one field"),
    ] {
        let err = v2_err(dtype.clone());
        assert!(err.contains(message), "{dtype}: {err}");
    }
}

#[test]
fn v2_object_codec_found_among_filters_and_compressor() {
    let found = |dtype: Value, filters: Value, compressor: Value| {
        let filters = filters.as_array().cloned();
        let compressor = (!compressor.is_null()).then_some(compressor);
        DataType::from_v2_codecs(&dtype, filters.as_deref(), compressor.as_ref())
    };
    let vlen_i4 = DataType::VlenArray {
        item: Box::new(DataType::Int32),
    };
    assert_eq!(
        found(
            json!("|O"),
            json!([{"id": "vlen-array", "dtype": ">i4"}]),
            Value::Null
        ),
        Ok((vlen_i4.clone(), Endianness::NotApplicable))
    );
    // The first object codec wins, filters before compressor, as in zarr-python.
    assert_eq!(
        found(
            json!("|O"),
            json!([{"id": "zlib"}, {"id": "vlen-utf8"}]),
            json!({"id": "vlen-bytes"})
        ),
        Ok((DataType::String, Endianness::NotApplicable))
    );
    assert_eq!(
        found(json!("|O"), json!(null), json!({"id": "vlen-bytes"})).map(|f| f.0),
        Ok(DataType::Bytes(BytesNaming::VariableLengthBytes))
    );
    // zarr-python 2's categorize alone gives strings.
    assert_eq!(
        found(
            json!("|O"),
            json!([{"id": "categorize", "labels": ["a"], "dtype": "|O", "astype": "|u1"}]),
            Value::Null
        )
        .map(|f| f.0),
        Ok(DataType::String)
    );
    // A non-object dtype ignores the object codec.
    assert_eq!(
        found(
            json!("<i4"),
            json!([{"id": "vlen-array", "dtype": "<i4"}]),
            Value::Null
        )
        .map(|f| f.0),
        Ok(DataType::Int32)
    );
    for bad in [
        json!("|S3"),
        json!("|O"),
        json!(4),
        json!(null),
        json!("<M8[s]"),
    ] {
        let err = found(
            json!("|O"),
            json!([{"id": "vlen-array", "dtype": bad}]),
            Value::Null,
        );
        assert!(err.is_err(), "{bad}: {err:?}");
    }
    assert_eq!(vlen_i4.to_v2(Endianness::Little), Ok(json!("|O")));
    assert_eq!(
        vlen_i4.to_v3().to_value(),
        json!({"name": "numcodecs.vlen-array", "configuration": {"data_type": "int32"}})
    );
    assert_eq!(vlen_i4.fixed_size(), None);
    assert_eq!(
        FillValue::from_v2(&vlen_i4, Endianness::NotApplicable, &json!(0)),
        Ok(Some(FillValue::Int(0)))
    );
    assert!(FillValue::from_v2(&vlen_i4, Endianness::NotApplicable, &json!("x")).is_err());
}
