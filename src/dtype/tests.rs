//! Data type tests: every v3 name and v2 typestring against what zarr-python 3.1.6 writes.

use super::v2_tests::{v2, v2_err};
use super::*;
use crate::document::named::NamedConfig;
use serde_json::{json, Value};

/// Arrays written by zarr-python 3.1.6 (`zarr.create_array(..., zarr_format=2|3)`): the v3
/// `data_type`/`fill_value`, the v2 `dtype`/`fill_value`/object codec, and the element bytes
/// NumPy holds for the fill value (little-endian).
const FIXTURE: &str = include_str!("zarr_python_3_1_6.json");

pub(super) fn v3(value: Value) -> Result<DataType, String> {
    DataType::from_v3(&NamedConfig::from_value(&value).unwrap())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn zarr_python_fixture_round_trips() {
    let cases: Vec<Value> = serde_json::from_str(FIXTURE).unwrap();
    assert!(cases.len() > 90);
    for case in &cases {
        let what = case["numpy"].as_str().unwrap();
        // v3 data type and fill value.
        let dt = v3(case["v3"].clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(dt.to_v3().to_value(), case["v3"], "{what}");
        let fill =
            FillValue::from_v3(&dt, &case["v3_fill"]).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(fill.to_v3(&dt), case["v3_fill"], "{what}");
        // Element bytes as NumPy holds them.
        let bytes = fill.to_element_bytes(&dt);
        match case["element_le_hex"].as_str() {
            Some(expected) => assert_eq!(hex(bytes.as_ref().unwrap()), expected, "{what}"),
            None => assert_eq!(bytes, None, "{what}"),
        }
        // v2 dtype and fill value.
        let (dt2, order) = DataType::from_v2(&case["v2"], case["object_codec"].as_str())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(dt2.to_v2(order).unwrap(), case["v2"], "{what}");
        let fill2 = FillValue::from_v2(&dt2, order, &case["v2_fill"])
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        match &fill2 {
            None => assert!(case["v2_fill"].is_null(), "{what}"),
            Some(f) => {
                assert_eq!(f.to_v2(&dt2, order), case["v2_fill"], "{what}");
                // zarr-python writes the same fill value in both versions.
                assert_eq!(f.to_v3(&dt2), case["v3_fill"], "{what}");
                assert_eq!(f.to_element_bytes(&dt2), bytes, "{what}");
            }
        }
        // v2 → v3 gives what zarr-python writes for v3.
        assert_eq!(dt2.to_v3().to_value(), case["v3"], "{what}");
        // v3 → v2 gives the little-endian typestring (big-endian ones need Big).
        let big = case["v2"].to_string().contains('>');
        if !big {
            assert_eq!(dt.to_v2(order).unwrap(), case["v2"], "{what}");
            assert_eq!(dt.to_v2(Endianness::Little).unwrap(), case["v2"], "{what}");
        } else if order == Endianness::Big {
            assert_eq!(dt.to_v2(Endianness::Big).unwrap(), case["v2"], "{what}");
        }
        assert_eq!(dt.fixed_size(), dt2.fixed_size(), "{what}");
        if let Some(size) = dt.fixed_size() {
            let expected = case["element_le_hex"].as_str().unwrap().len() as u64 / 2;
            assert_eq!(size, expected, "{what}");
        }
        assert!(DataType::is_known_v3_name(&dt.to_v3().name), "{what}");
    }
}

pub(super) fn v3_err(value: Value) -> String {
    v3(value.clone()).expect_err(&format!("{value} should be refused"))
}

#[test]
fn simple_names_and_object_form() {
    for name in [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "string",
        "variable_length_bytes",
        "bytes",
    ] {
        let dt = v3(json!(name)).unwrap();
        assert_eq!(dt.to_v3().to_value(), json!(name), "{name}");
        assert!(DataType::is_known_v3_name(name));
        // The object form (and an empty configuration) names the same type.
        assert_eq!(v3(json!({"name": name})).unwrap(), dt);
        assert_eq!(v3(json!({"name": name, "configuration": {}})).unwrap(), dt);
        assert!(v3_err(json!({"name": name, "configuration": {"x": 1}}))
            .contains("takes no configuration"));
    }
    assert_eq!(
        v3(json!("bytes")).unwrap(),
        DataType::Bytes(BytesNaming::Bytes)
    );
    assert_eq!(
        v3(json!("variable_length_bytes")).unwrap(),
        DataType::Bytes(BytesNaming::VariableLengthBytes)
    );
}

#[test]
fn known_names() {
    for name in [
        "r8",
        "r16",
        "r24",
        "r128",
        "raw_bytes",
        "struct",
        "structured",
        "numpy.datetime64",
        "numpy.timedelta64",
        "fixed_length_utf32",
        "null_terminated_bytes",
    ] {
        assert!(DataType::is_known_v3_name(name), "{name}");
    }
    for name in [
        "r",
        "r0",
        "r7",
        "r12",
        "r08",
        "rx",
        "r-8",
        "int128",
        "Int8",
        "float",
        "",
        "datetime64",
    ] {
        assert!(!DataType::is_known_v3_name(name), "{name}");
    }
}

#[test]
fn r_bits() {
    let dt = v3(json!("r24")).unwrap();
    assert_eq!(
        dt,
        DataType::RawBytes {
            length_bytes: 3,
            r_name: true
        }
    );
    assert_eq!(dt.fixed_size(), Some(3));
    assert_eq!(dt.to_v3().to_value(), json!("r24"));
    assert_eq!(dt.to_v2(Endianness::Little).unwrap(), json!("|V3"));
    assert!(v3_err(json!("r12")).contains("multiple of 8"));
    assert!(v3_err(json!("r0")).contains("multiple of 8"));
    assert!(v3_err(json!("r99999999999999999999999")).contains("multiple of 8"));
    assert!(v3_err(json!({"name": "r8", "configuration": {"a": 1}})).contains("no configuration"));
    // The biggest r<bits> that fits in u64.
    let max = format!("r{}", u64::MAX - 7);
    let dt = v3(json!(max)).unwrap();
    assert_eq!(dt.to_v3().to_value(), json!(max));
}

#[test]
fn parameterised_v3_types() {
    let cases = [
        (
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 20}}),
            DataType::FixedLengthUtf32 { length_bytes: 20 },
        ),
        (
            json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 7}}),
            DataType::NullTerminatedBytes { length_bytes: 7 },
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": 3}}),
            DataType::RawBytes {
                length_bytes: 3,
                r_name: false,
            },
        ),
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 10}}),
            DataType::DateTime64 {
                unit: TimeUnit::Seconds,
                scale_factor: 10,
            },
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": "generic", "scale_factor": 1}}),
            DataType::TimeDelta64 {
                unit: TimeUnit::Generic,
                scale_factor: 1,
            },
        ),
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "as", "scale_factor": 2147483647}}),
            DataType::DateTime64 {
                unit: TimeUnit::Attoseconds,
                scale_factor: MAX_SCALE_FACTOR,
            },
        ),
    ];
    for (json, expected) in cases {
        let dt = v3(json.clone()).unwrap();
        assert_eq!(dt, expected);
        assert_eq!(dt.to_v3().to_value(), json);
    }
    // NumPy's spelling of microseconds is read too (and written as "us").
    let dt =
        v3(json!({"name": "numpy.datetime64", "configuration": {"unit": "μs", "scale_factor": 1}}))
            .unwrap();
    assert_eq!(
        dt.to_v3().to_value(),
        json!({"name": "numpy.datetime64", "configuration": {"unit": "us", "scale_factor": 1}})
    );
}

#[test]
fn bad_v3_configurations() {
    let cases = [
        (json!("fixed_length_utf32"), "needs a configuration"),
        (
            json!({"name": "fixed_length_utf32", "configuration": {}}),
            "missing 'length_bytes'",
        ),
        (
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 0}}),
            "must be positive",
        ),
        (
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}}),
            "multiple of 4",
        ),
        (
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8, "x": 1}}),
            "unknown configuration key 'x'",
        ),
        (
            json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": -1}}),
            "positive integer",
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": 2.0}}),
            "positive integer",
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": "2"}}),
            "positive integer, got string",
        ),
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "s"}}),
            "missing 'scale_factor'",
        ),
        (
            json!({"name": "numpy.datetime64", "configuration": {"scale_factor": 1}}),
            "missing 'unit'",
        ),
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "B", "scale_factor": 1}}),
            "unknown time unit 'B'",
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 0}}),
            "scale_factor must be a positive integer, got 0",
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 2147483648_u64}}),
            "too large",
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": true}}),
            "positive integer, got boolean",
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": 1, "scale_factor": 1}}),
            "unit must be a string",
        ),
        (json!("int128"), "unknown data type 'int128'"),
        (
            json!({"name": "complex32"}),
            "unknown data type 'complex32'",
        ),
    ];
    for (json, message) in cases {
        let err = v3_err(json.clone());
        assert!(err.contains(message), "{json}: {err}");
    }
}

#[test]
fn structured_and_struct_v3() {
    let structured = json!({"name": "structured", "configuration": {"fields": [
        ["a", "int32"],
        ["t", {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}],
        ["c", {"name": "structured", "configuration": {"fields": [["d", "uint8"], ["e", "float16"]]}}]
    ]}});
    let dt = v3(structured.clone()).unwrap();
    assert_eq!(dt.to_v3().to_value(), structured);
    assert_eq!(dt.fixed_size(), Some(4 + 8 + 3));
    let DataType::Struct { fields, naming } = &dt else {
        panic!()
    };
    assert_eq!(*naming, StructNaming::Structured);
    assert_eq!(fields[0].endianness, Endianness::Little);
    assert_eq!(fields[2].endianness, Endianness::NotApplicable);
    assert_eq!(
        dt.to_v2(Endianness::NotApplicable).unwrap(),
        json!([
            ["a", "<i4"],
            ["t", "<M8[s]"],
            ["c", [["d", "|u1"], ["e", "<f2"]]]
        ])
    );
    assert_eq!(
        dt.to_v2(Endianness::Big).unwrap(),
        json!([
            ["a", ">i4"],
            ["t", ">M8[s]"],
            ["c", [["d", "|u1"], ["e", ">f2"]]]
        ])
    );

    let ext = json!({"name": "struct", "configuration": {"fields": [
        {"name": "x", "data_type": "float32"},
        {"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
            {"name": "y", "data_type": "int8"}
        ]}}},
        {"name": "s", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}}
    ]}});
    let dt = v3(ext.clone()).unwrap();
    assert_eq!(dt.to_v3().to_value(), ext);
    assert_eq!(dt.fixed_size(), Some(4 + 1 + 8));

    let bad = [
        (
            json!({"name": "structured", "configuration": {"fields": []}}),
            "at least one field",
        ),
        (json!({"name": "structured"}), "needs a configuration"),
        (
            json!({"name": "structured", "configuration": {}}),
            "missing 'fields'",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": {}}}),
            "fields must be an array",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [["a", "int8"], ["a", "int8"]]}}),
            "duplicate field name 'a'",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [["", "int8"]]}}),
            "must not be empty",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [["a", "string"]]}}),
            "variable-length",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [["a", "int8", [2]]]}}),
            "[name, data_type]",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [{"name": "a", "data_type": "int8"}]}}),
            "[name, data_type]",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [["a", "int9"]]}}),
            "field 'a': unknown data type 'int9'",
        ),
        (
            json!({"name": "structured", "configuration": {"fields": [["a", 5]]}}),
            "field 'a'",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [["a", "int8"]]}}),
            "must be an object",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [{"name": "a"}]}}),
            "field 0",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8", "shape": [2]}]}}),
            "unknown key 'shape'",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8"}, {"name": "a", "data_type": "int16"}]}}),
            "duplicate",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "bytes"}]}}),
            "variable-length",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [
                {"name": "a", "data_type": {"name": "raw_bytes", "configuration": {"length_bytes": u64::MAX}}},
                {"name": "b", "data_type": "int8"}
            ]}}),
            "too large",
        ),
    ];
    for (json, message) in bad {
        let err = v3_err(json.clone());
        assert!(err.contains(message), "{json}: {err}");
    }
}

/// A struct type nested `depth` levels deep (v3 `struct` form).
fn nested_struct(depth: usize) -> Value {
    let mut value = json!("int8");
    for _ in 0..depth {
        value = json!({"name": "struct", "configuration": {"fields": [{"name": "f", "data_type": value}]}});
    }
    value
}

#[test]
fn struct_nesting_is_capped() {
    let dt = v3(nested_struct(MAX_STRUCT_DEPTH)).unwrap();
    assert_eq!(dt.fixed_size(), Some(1));
    assert_eq!(dt.to_v3().to_value(), nested_struct(MAX_STRUCT_DEPTH));
    let fill = FillValue::from_v3(&dt, &{
        let mut v = json!(3);
        for _ in 0..MAX_STRUCT_DEPTH {
            v = json!({ "f": v });
        }
        v
    })
    .unwrap();
    assert_eq!(fill.to_element_bytes(&dt), Some(vec![3]));
    assert!(v3_err(nested_struct(MAX_STRUCT_DEPTH + 1)).contains("nested more than 32"));
    // v2: the same with structured lists.
    let mut list = json!("|i1");
    for _ in 0..MAX_STRUCT_DEPTH {
        list = json!([["f", list]]);
    }
    assert!(v2(list.clone(), None).is_ok());
    assert!(v2_err(json!([["f", list]])).contains("nested more than 32"));
    // Far deeper than the cap is refused too, without recursing all the way down.
    let mut deep = json!("|i1");
    for _ in 0..120 {
        deep = json!([["f", deep]]);
    }
    assert!(v2_err(deep).contains("nested"));
}

#[test]
fn fixed_sizes() {
    for (name, size) in [
        ("bool", Some(1)),
        ("int8", Some(1)),
        ("uint16", Some(2)),
        ("float16", Some(2)),
        ("int32", Some(4)),
        ("float32", Some(4)),
        ("uint64", Some(8)),
        ("complex64", Some(8)),
        ("complex128", Some(16)),
        ("string", None),
        ("bytes", None),
        ("variable_length_bytes", None),
        ("r32", Some(4)),
    ] {
        assert_eq!(v3(json!(name)).unwrap().fixed_size(), size, "{name}");
    }
    // Zero-length subarray fields take no bytes.
    let (dt, _) = v2(json!([["a", "<i4", [0]], ["b", "|u1"]]), None).unwrap();
    assert_eq!(dt.fixed_size(), Some(1));
}

#[test]
fn generic_time_with_scale_has_no_v2_form() {
    let dt = DataType::DateTime64 {
        unit: TimeUnit::Generic,
        scale_factor: 2,
    };
    assert!(dt.to_v2(Endianness::Little).is_err());
    let dt = DataType::FixedLengthUtf32 { length_bytes: 6 };
    assert!(dt.to_v2(Endianness::Little).is_err());
}

#[test]
fn time_units() {
    for unit in [
        TimeUnit::Years,
        TimeUnit::Months,
        TimeUnit::Weeks,
        TimeUnit::Days,
        TimeUnit::Hours,
        TimeUnit::Minutes,
        TimeUnit::Seconds,
        TimeUnit::Milliseconds,
        TimeUnit::Microseconds,
        TimeUnit::Nanoseconds,
        TimeUnit::Picoseconds,
        TimeUnit::Femtoseconds,
        TimeUnit::Attoseconds,
        TimeUnit::Generic,
    ] {
        assert_eq!(TimeUnit::parse(unit.as_str()), Some(unit));
    }
    assert_eq!(TimeUnit::parse("sec"), None);
}
