//! Data type tests: every v3 name and v2 typestring against what zarr-python 3.1.6 writes.

use super::*;
use crate::model::named::NamedConfig;
use serde_json::{json, Value};

fn v3(value: Value) -> Result<DataType, String> {
    DataType::from_v3(&NamedConfig::from_value(&value).unwrap())
}

#[test]
fn simple_v3_round_trip() {
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
    }
}
