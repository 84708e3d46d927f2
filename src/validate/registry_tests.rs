//! The registry is the one place a codec's configuration is read: for every codec and every
//! member it defines, a bad value is judged the same way by the public decoder
//! (`CodecPipeline::from_v3` / `from_v2_metadata`) and the public validator
//! (`validate_document`): when the decoder refuses it, the validator reports the same message,
//! and what the validator lets pass, the decoder does not refuse as invalid metadata.

use super::{validate_document, Severity, ValidateOptions};
use crate::codec::registry::{all, CodecSpec, Kind};
use crate::codec::CodecPipeline;
use crate::document::v2::ArrayMetadataV2;
use crate::document::v3::ArrayMetadataV3;
use crate::error::ErrorCode;
use serde_json::{json, Map, Value};

/// Values of every JSON type, some in no codec's range.
fn bad_values() -> Vec<Value> {
    vec![
        json!("?"),
        json!(-1),
        json!(1.5),
        json!(99999999999u64),
        json!([]),
        json!([0, "x"]),
        json!({}),
        json!(true),
    ]
}

/// The v3 and v2 data types a codec is tried with.
fn dtypes(spec: &CodecSpec) -> (Value, Value) {
    match spec.name {
        "vlen-utf8" => (json!("string"), json!("|O")),
        "vlen-bytes" => (json!("bytes"), json!("|O")),
        "json2" | "msgpack2" | "pickle" | "vlen-array" => (json!("string"), json!("|O")),
        "packbits" if spec.numcodecs => (json!("bool"), json!("|b1")),
        "categorize" => (json!("string"), json!("<U3")),
        "bitround" | "quantize" | "fixedscaleoffset" | "zfp" | "zfpy" => {
            (json!("float32"), json!("<f4"))
        }
        _ => (json!("int16"), json!("<i2")),
    }
}

/// A v3 array document whose pipeline holds `codec` where its kind belongs.
fn v3_doc(spec: &CodecSpec, codec: Value) -> Value {
    let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
    let codecs = match spec.kind {
        Kind::ArrayToArray => json!([codec, bytes]),
        Kind::ArrayToBytes => json!([codec]),
        Kind::BytesToBytes => json!([bytes, codec]),
    };
    let fill = match dtypes(spec).0.as_str() {
        Some("string") => json!(""),
        Some("bytes") => json!([]),
        Some("bool") => json!(false),
        _ => json!(0),
    };
    json!({
        "zarr_format": 3, "node_type": "array", "shape": [8, 8],
        "data_type": dtypes(spec).0,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs, "attributes": {},
    })
}

/// A v2 `.zarray` holding the numcodecs `codec` as a filter or the compressor.
fn v2_doc(spec: &CodecSpec, codec: Value) -> Value {
    let (filters, compressor) = match spec.kind {
        Kind::BytesToBytes => (Value::Null, codec),
        // zfpy encodes the numbers: the compressor, the v2 pipeline's array → bytes step.
        _ if spec.name == "zfpy" => (Value::Null, codec),
        _ => (json!([codec]), Value::Null),
    };
    let dtype = dtypes(spec).1;
    let fill = if dtype == json!("|O") || dtype == json!("<U3") {
        json!("")
    } else {
        json!(0)
    };
    json!({
        "zarr_format": 2, "shape": [8, 8], "chunks": [4, 4], "dtype": dtype,
        "compressor": compressor, "fill_value": fill, "filters": filters,
        "order": "C", "dimension_separator": "/",
    })
}

/// The decoder's verdict: `Ok` or the error's code and message.
fn decode(spec: &CodecSpec, doc: &Value) -> Result<(), (ErrorCode, String)> {
    let built = if spec.numcodecs {
        ArrayMetadataV2::from_value(doc).and_then(|m| CodecPipeline::from_v2_metadata(&m))
    } else {
        ArrayMetadataV3::read(doc)
            .map_err(crate::error::ZomError::invalid_metadata)
            .and_then(|m| CodecPipeline::from_v3_metadata(&m))
    };
    built.map(|_| ()).map_err(|e| (e.code, e.message))
}

#[test]
fn every_codec_is_validated_by_the_configuration_reader_that_decodes_it() {
    let options = ValidateOptions::default();
    let mut refusals = 0;
    let mut flagged = std::collections::HashSet::new();
    for spec in all() {
        let keys = spec.keys();
        let mut cases: Vec<Map<String, Value>> = vec![Map::new()];
        for key in keys {
            for bad in bad_values() {
                cases.push(Map::from_iter([(key.to_string(), bad)]));
            }
        }
        cases.push(Map::from_iter([("not_a_key".to_string(), json!(1))]));
        for config in cases {
            let doc = if spec.numcodecs {
                let mut object = config.clone();
                object.insert("id".into(), spec.name.into());
                v2_doc(spec, Value::Object(object))
            } else {
                v3_doc(spec, json!({"name": spec.name, "configuration": config}))
            };
            let report = validate_document(&doc, &options);
            let errors: Vec<&str> = report
                .problems
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .map(|p| p.message.as_str())
                .collect();
            let context = format!(
                "{} {}",
                crate::problem::config::what(spec.name, spec.numcodecs),
                Value::Object(config.clone())
            );
            match decode(spec, &doc) {
                // Refusals of the codec's configuration (not of the dtype or fill value, which
                // other checks cover) carry the codec's name.
                Err((ErrorCode::InvalidMetadata, message)) if message.starts_with("codec '") => {
                    refusals += 1;
                    assert!(
                        errors.iter().any(|e| message.ends_with(e)),
                        "{context}: the decoder refused with {message:?}, the validator said {errors:?}"
                    );
                }
                Err(_) | Ok(()) => {}
            }
            if !errors.is_empty() {
                flagged.insert(spec.name);
            }
        }
        if !keys.is_empty() {
            assert!(
                flagged.contains(spec.name),
                "{}: no bad value was reported",
                crate::problem::config::what(spec.name, spec.numcodecs)
            );
        }
    }
    assert!(
        refusals > 50,
        "only {refusals} refusals: the cases do not reach the decoders"
    );
}

#[test]
fn every_codec_is_found_by_its_names() {
    for spec in all() {
        if spec.numcodecs {
            assert!(std::ptr::eq(
                crate::codec::registry::numcodecs(spec.name).unwrap(),
                *spec
            ));
        } else {
            assert!(std::ptr::eq(
                crate::codec::registry::v3(spec.name).unwrap(),
                *spec
            ));
            for alias in spec.aliases {
                assert!(std::ptr::eq(
                    crate::codec::registry::v3(alias).unwrap(),
                    *spec
                ));
            }
        }
    }
    let ids: Vec<&str> = all().iter().map(|s| s.name).collect();
    assert!(
        ids.contains(&"numcodecs.zlib") || crate::codec::registry::v3("numcodecs.zlib").is_some()
    );
}

/// The zfp and zfpy configuration readers' problems, located (src/codec/zfp.rs).
mod zfp {
    use crate::problem::{LocStep, Severity};
    use crate::validate::{validate_document, ValidateOptions};
    use serde_json::{json, Value};

    /// The errors the validator finds in a v3 array of `dtype` and `chunk` with `codec`:
    /// (location inside the codec's configuration, message).
    fn errors(dtype: &str, chunk: &[u64], codec: Value) -> Vec<(Vec<LocStep>, String)> {
        let doc = json!({"zarr_format": 3, "node_type": "array", "shape": chunk,
            "data_type": dtype, "fill_value": 0, "attributes": {},
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "codecs": [codec]});
        let report = validate_document(&doc, &ValidateOptions::default());
        report
            .problems
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| (p.loc.into_iter().skip(3).collect(), p.message))
            .collect()
    }

    fn key(k: &str) -> Vec<LocStep> {
        vec![LocStep::Key(k.into())]
    }

    #[test]
    fn zfp_problems_are_located_at_their_member() {
        let zfp = |config: Value| json!({"name": "zfp", "configuration": config});
        assert!(errors("float32", &[4, 4], zfp(json!({"mode": "reversible"}))).is_empty());
        let found = errors("float32", &[4], zfp(json!({"mode": "fixed_rate"})));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, key("rate"));
        let found = errors(
            "float32",
            &[4],
            zfp(json!({"mode": "fixed_rate", "rate": 8, "precision": 3})),
        );
        assert_eq!(
            found.iter().map(|f| f.0.clone()).collect::<Vec<_>>(),
            [key("precision")]
        );
        let found = errors("float32", &[4], zfp(json!({"mode": "fast"})));
        assert_eq!(found[0].0, key("mode"), "{found:?}");
        let bad =
            json!({"mode": "expert", "minbits": 9, "maxbits": 8, "maxprec": 99, "minexp": -2});
        let found = errors("float64", &[4], zfp(bad));
        let locs: Vec<_> = found.iter().map(|f| f.0.clone()).collect();
        assert!(
            locs.contains(&key("maxprec")) && locs.contains(&key("minbits")),
            "{found:?}"
        );
        let found = errors(
            "float32",
            &[1, 1, 1, 1, 2],
            zfp(json!({"mode": "reversible"})),
        );
        assert!(found[0].1.contains("1 to 4 dimensions"), "{found:?}");
        let found = errors(
            "int32",
            &[4],
            zfp(json!({"mode": "fixed_accuracy", "tolerance": 1})),
        );
        assert!(found[0].1.contains("floating-point"), "{found:?}");
    }

    #[test]
    fn zfpy_settings_are_checked_but_decoding_needs_none_of_them() {
        let zfpy = |config: Value| json!({"name": "numcodecs.zfpy", "configuration": config});
        let ok = json!({"mode": 4, "tolerance": 1e-6});
        assert!(errors("float64", &[4], zfpy(ok)).is_empty());
        let found = errors("float64", &[4], zfpy(json!({"mode": 9, "rate": "fast"})));
        let locs: Vec<_> = found.iter().map(|f| f.0.clone()).collect();
        assert_eq!(locs, [key("mode"), key("rate")], "{found:?}");
        let found = errors("uint16", &[4], zfpy(json!({"mode": 4, "tolerance": 0.1})));
        assert!(
            found[0]
                .1
                .contains("does not encode the data type 'uint16'"),
            "{found:?}"
        );
    }
}
