//! The codec cases zarr-python and numcodecs wrote (tests/fixtures/codec/cases.json, made by
//! generate_codec.py beside it) and the pipelines that decode them.

use base64::Engine;
use serde_json::{json, Value};
use zom::codec::CodecPipeline;
use zom::model::v2::ArrayMetadataV2;
use zom::model::v3::ArrayMetadataV3;

/// tests/fixtures/codec/cases.json.
pub fn cases() -> Value {
    let text = std::fs::read_to_string("tests/fixtures/codec/cases.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The bytes of a base64 string of the cases.
pub fn b64(v: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(v.as_str().unwrap())
        .unwrap()
}

/// The pipeline of an array's metadata (`format` 3: zarr.json, else .zarray).
pub fn pipeline_of(format: u64, meta: &Value) -> CodecPipeline {
    if format == 3 {
        let meta: ArrayMetadataV3 = serde_json::from_value(meta.clone()).unwrap();
        CodecPipeline::from_v3_metadata(&meta).unwrap()
    } else {
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(meta).unwrap()).unwrap()
    }
}

/// A v2 pipeline whose only codec is `config`, over `count` elements of `ts` bytes.
pub fn stream_pipeline(config: &Value, count: u64, ts: u64) -> CodecPipeline {
    let dtype = match ts {
        1 => "|u1".to_string(),
        2 | 4 | 8 => format!("<u{ts}"),
        n => format!("|V{n}"),
    };
    let meta = json!({"zarr_format": 2, "shape": [count], "chunks": [count], "dtype": dtype,
        "fill_value": null, "order": "C", "filters": null, "compressor": config});
    CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap()).unwrap()
}
