//! Data type tests: every v3 name and v2 typestring against what zarr-python 3.1.6 writes.

use super::*;
use crate::model::named::NamedConfig;
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
