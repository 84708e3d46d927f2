//! numcodecs `pcodec` (`numcodecs.pcodec` in v3, where it is the array → bytes codec; in v2 the
//! compressor, which then stands for the `bytes` step): a chunk of numbers in pco's standalone
//! format, decoded by `kernels/parts` (see `super::lazy`). The
//! configuration holds only the encoder's settings; the format records what decoding needs.

use super::lazy::{check_dtype, type_in, LazyCodec, PART_PCODEC};
use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{codec_error, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::dtype::DataType;
use crate::error::Result;
use crate::problem::config::{Config, Need};
use crate::problem::ProblemKind;

/// The data types pco encodes, as v3 names.
const NUMBERS: &[&str] = &[
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float16", "float32",
    "float64",
];

/// The `pcodec` codec.
#[derive(Clone, Debug)]
pub(crate) struct PcodecCodec {
    name: String,
}

impl PcodecCodec {
    /// The part call for chunks of `dtype`.
    fn lazy(&self, dtype: &DataType) -> Result<LazyCodec> {
        let variant = type_in(dtype, NUMBERS).ok_or_else(|| {
            codec_error(format!(
                "{}: pcodec does not encode {} values",
                self.name,
                dtype.to_v3().name
            ))
        })?;
        Ok(LazyCodec {
            part: PART_PCODEC,
            codec: "pcodec",
            variant: variant.into(),
        })
    }
}

impl ArrayToBytesCodec for PcodecCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    #[cfg(feature = "decode")]
    fn parts(&self, out: &mut Vec<&'static str>) {
        out.push(PART_PCODEC);
    }

    /// pco stores incompressible numbers at about their size, plus per-chunk and per-page
    /// headers and bin tables: an eighth and 64 KiB over the decoded size bound them.
    fn encoded_size(&self, decoded: &ChunkRepr, _limits: &Limits) -> Result<SizeBound> {
        let n = decoded.fixed_byte_len()?.unwrap_or(0);
        Ok(SizeBound::AtMost(
            n.saturating_add(n / 8).saturating_add(64 << 10),
        ))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, _limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        self.lazy(&decoded.data_type)?
            .decode_chunk(input, decoded, &self.name)
    }
}

/// numcodecs `pcodec`: its configuration as numcodecs 0.17 writes it (`level`, `mode_spec`,
/// `delta_spec`, `paging_spec`, `delta_encoding_order`, `equal_pages_up_to`), every member an
/// encoder setting that decoding does not need.
pub(crate) const NC_PCODEC: CodecSpec =
    CodecSpec::numcodecs("pcodec", Kind::ArrayToBytes, nc_pcodec);

fn nc_pcodec(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&[
        "level",
        "mode_spec",
        "delta_spec",
        "paging_spec",
        "delta_encoding_order",
        "equal_pages_up_to",
    ]);
    cfg.int("level", 0, 12, Need::Spec);
    cfg.one_of("mode_spec", &["auto", "classic"], Need::Spec);
    let deltas = ["auto", "no_op", "none", "try_consecutive", "try_lookback"];
    let delta = cfg.one_of("delta_spec", &deltas, Need::Spec);
    cfg.one_of("paging_spec", &["equal_pages_up_to"], Need::Spec);
    let order = cfg.int("delta_encoding_order", 0, 7, Need::Spec);
    if order.is_some() && !matches!(delta, None | Some("auto" | "try_consecutive")) {
        let message = format!(
            "{} applies only with delta_spec 'try_consecutive' (or 'auto')",
            cfg.label("delta_encoding_order")
        );
        cfg.refuse(ProblemKind::InvalidValue, message, Need::Spec);
    }
    cfg.uint("equal_pages_up_to", 1, Need::Spec);
    if !check_dtype(cfg, stage, NUMBERS, "pcodec") {
        return None;
    }
    Some(Built::ArrayToBytes(Box::new(PcodecCodec {
        name: cfg.name.to_string(),
    })))
}

#[cfg(test)]
mod tests {
    use crate::codec::CodecPipeline;
    use crate::document::named::NamedConfig;
    use crate::document::v2::ArrayMetadataV2;
    use crate::dtype::{DataType, FillValue};
    use crate::error::ErrorCode;
    use serde_json::{json, Value};

    fn v2(dtype: &str, filters: Value) -> crate::error::Result<CodecPipeline> {
        let meta = json!({"zarr_format": 2, "shape": [8], "chunks": [4], "dtype": dtype,
            "fill_value": 0, "order": "C", "filters": filters,
            "compressor": {"id": "pcodec", "level": 8, "mode_spec": "auto", "delta_spec": "auto",
                "paging_spec": "equal_pages_up_to", "delta_encoding_order": null,
                "equal_pages_up_to": 262144}});
        CodecPipeline::from_v2_metadata(&ArrayMetadataV2::from_value(&meta).unwrap())
    }

    fn v3(codecs: Value, dtype: &str) -> crate::error::Result<CodecPipeline> {
        let codecs: Vec<NamedConfig> = codecs
            .as_array()
            .unwrap()
            .iter()
            .map(|c| NamedConfig::from_value(c).unwrap())
            .collect();
        let dtype = DataType::from_v3(&NamedConfig::short(dtype)).unwrap();
        CodecPipeline::from_v3(&codecs, &dtype, &[4], &FillValue::Int(0))
    }

    #[test]
    fn a_v2_compressor_is_the_array_to_bytes_step_and_names_its_part() {
        assert_eq!(v2("<f4", Value::Null).unwrap().parts(), ["pcodec"]);
        let e = v2("<f4", json!([{"id": "delta", "dtype": "<f4"}])).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownCodec, "{}", e.message);
        assert!(e.message.contains("filters before it"), "{}", e.message);
        let e = v2(">f4", Value::Null).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidMetadata, "{}", e.message);
        assert!(e.message.contains("big-endian"), "{}", e.message);
    }

    #[test]
    fn v3_pcodec_takes_numbers_only_and_its_settings_do_not_stop_decoding() {
        let pco = |config: Value| json!([{"name": "numcodecs.pcodec", "configuration": config}]);
        assert_eq!(
            v3(pco(json!({"level": 8})), "int16").unwrap().parts(),
            ["pcodec"]
        );
        // An encoder setting out of range breaks the spec, not the decoding.
        assert!(v3(pco(json!({"level": 99, "mode_spec": "fancy"})), "float64").is_ok());
        let e = v3(pco(json!({})), "bool").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidMetadata, "{}", e.message);
        let e = v3(pco(json!({"level": 8})), "complex64").unwrap_err();
        assert!(e.message.contains("does not encode"), "{}", e.message);
    }

    #[test]
    fn pipelines_list_the_parts_of_their_codecs_nested_ones_too() {
        let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
        let lzma = json!({"name": "numcodecs.lzma", "configuration": {"format": 1}});
        let bz2 = json!({"name": "numcodecs.bz2", "configuration": {"level": 9}});
        let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
        let zstd = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
        assert!(v3(json!([bytes, zstd]), "int16")
            .unwrap()
            .parts()
            .is_empty());
        assert_eq!(
            v3(json!([bytes, gzip]), "int16").unwrap().parts(),
            ["deflate"]
        );
        let blosc = |cname: &str| {
            json!([bytes, {"name": "blosc", "configuration": {
            "cname": cname, "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}}])
        };
        assert_eq!(v3(blosc("zlib"), "int16").unwrap().parts(), ["deflate"]);
        assert!(v3(blosc("lz4"), "int16").unwrap().parts().is_empty());
        assert_eq!(
            v3(json!([bytes, lzma, bz2]), "int16").unwrap().parts(),
            ["bzip2", "lzma"]
        );
        let sharded = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2], "codecs": [bytes, lzma],
            "index_codecs": [bytes, {"name": "crc32c"}], "index_location": "end"}}]);
        assert_eq!(v3(sharded, "int16").unwrap().parts(), ["lzma"]);
    }
}
