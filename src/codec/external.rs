//! Codecs the caller implements (JS `registerCodec`): how an array's codecs split into zom's
//! own and the caller's, given the names the caller registered
//! ([`CodecPipeline::from_v3_metadata_with`](super::CodecPipeline::from_v3_metadata_with)).
//!
//! A registered codec decodes outside zom (asynchronously, in JavaScript), so it can only
//! stand where its output goes straight on to zom's codecs: at the end of the encode order.
//! An array's trailing run of registered codecs (v3 `codecs`; v2 filters then compressor) is
//! split off as [`ExternalStep`]s, which the reader applies to a chunk's stored bytes first,
//! in decode order; zom's pipeline is built from the rest. When the run includes the array →
//! bytes step, the caller's codec gives the chunk's elements as little-endian bytes in C order,
//! and zom's pipeline ends with `bytes` (little). A registered name overrides a built-in codec
//! of that name. A registered codec anywhere else is refused with
//! [`crate::ErrorCode::UnknownCodec`].

use crate::document::named::NamedConfig;
use crate::document::v2::ArrayMetadataV2;
use crate::error::{ErrorCode, Result, ZomError};
use serde_json::{Map, Value};

fn is_registered(registered: &[String], name: &str) -> bool {
    registered.iter().any(|r| {
        r == name
            || name
                .strip_prefix(crate::codec::NUMCODECS_PREFIX)
                .is_some_and(|id| r == id)
    })
}

/// One codec the caller applies to a chunk's stored bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalStep {
    /// The name as the metadata writes it (a v3 name, or a numcodecs id).
    pub name: String,
    /// Its configuration (for numcodecs, the whole object, `id` included).
    pub configuration: Map<String, Value>,
}

/// The error of a read that meets registered codecs with nothing to apply them.
pub(crate) fn unapplied(steps: &[ExternalStep]) -> ZomError {
    let name = steps.first().map_or("?", |s| s.name.as_str());
    ZomError::new(
        ErrorCode::UnknownCodec,
        format!("codec '{name}' is registered, but nothing applies it to this read"),
    )
}

fn misplaced(name: &str) -> ZomError {
    ZomError::new(
        ErrorCode::UnknownCodec,
        format!(
            "codec '{name}': a registered codec must come after every codec zom decodes \
             (it is applied to the stored bytes first)"
        ),
    )
}

/// Splits a v3 `codecs` list: zom's codecs (with `bytes` appended when the registered run
/// holds the array → bytes step) and the registered run in decode order.
pub(crate) fn split_v3(
    codecs: &[NamedConfig],
    registered: &[String],
) -> Result<(Vec<NamedConfig>, Vec<ExternalStep>)> {
    let own = codecs
        .iter()
        .rposition(|c| !is_registered(registered, &c.name))
        .map_or(0, |i| i.saturating_add(1));
    let (mine, theirs) = codecs.split_at(own);
    if let Some(c) = mine.iter().find(|c| is_registered(registered, &c.name)) {
        return Err(misplaced(&c.name));
    }
    let steps = theirs
        .iter()
        .rev()
        .map(|c| ExternalStep {
            name: c.name.clone(),
            configuration: c.configuration.clone().unwrap_or_default(),
        })
        .collect::<Vec<_>>();
    let mut mine = mine.to_vec();
    if steps.is_empty() {
        return Ok((mine, steps));
    }
    if mine.iter().any(|c| c.name == "sharding_indexed") {
        return Err(ZomError::new(
            ErrorCode::UnknownCodec,
            "a registered codec after sharding_indexed is not supported (shards could not be \
             read in parts)",
        ));
    }
    let has_array_to_bytes = mine.iter().any(|c| {
        super::registry::v3(&c.name).is_some_and(|s| s.kind == super::registry::Kind::ArrayToBytes)
    });
    if !has_array_to_bytes {
        let endian = Map::from_iter([("endian".to_string(), Value::from("little"))]);
        mine.push(NamedConfig::new("bytes", Some(endian)));
    }
    Ok((mine, steps))
}

/// Splits a v2 `.zarray`: a copy without the registered trailing filters and compressor, and
/// those in decode order (compressor first).
pub(crate) fn split_v2(
    meta: &ArrayMetadataV2,
    registered: &[String],
) -> Result<(ArrayMetadataV2, Vec<ExternalStep>)> {
    let id_of = |v: &Value| v.get("id").and_then(Value::as_str).map(str::to_string);
    let filters = meta.filters.clone().unwrap_or_default();
    let compressor = meta.compressor.clone().filter(|c| !c.is_null());
    let mut chain: Vec<Value> = filters.clone();
    chain.extend(compressor.clone());
    let own = chain
        .iter()
        .rposition(|c| !id_of(c).is_some_and(|id| is_registered(registered, &id)))
        .map_or(0, |i| i.saturating_add(1));
    let (mine, theirs) = chain.split_at(own);
    if let Some(id) = mine
        .iter()
        .filter_map(id_of)
        .find(|id| is_registered(registered, id))
    {
        return Err(misplaced(&id));
    }
    let mut steps = Vec::with_capacity(theirs.len());
    for codec in theirs.iter().rev() {
        steps.push(ExternalStep {
            name: id_of(codec).unwrap_or_default(),
            configuration: codec.as_object().cloned().unwrap_or_default(),
        });
    }
    let mut out = meta.clone();
    if !steps.is_empty() {
        let kept_filters = own.min(filters.len());
        let keeps_compressor = compressor.is_some() && own > filters.len();
        out.filters = meta
            .filters
            .as_ref()
            .map(|_| filters.get(..kept_filters).unwrap_or_default().to_vec())
            .filter(|f| !f.is_empty());
        if !keeps_compressor {
            out.compressor = None;
        }
    }
    Ok((out, steps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn named(v: Value) -> NamedConfig {
        NamedConfig::from_value(&v).unwrap()
    }

    #[test]
    fn a_trailing_registered_codec_is_split_off_and_bytes_kept() {
        let codecs = vec![
            named(json!({"name": "bytes", "configuration": {"endian": "little"}})),
            named(json!({"name": "lerc", "configuration": {"level": 0}})),
        ];
        let (mine, steps) = split_v3(&codecs, &["lerc".into()]).unwrap();
        assert_eq!(mine.len(), 1);
        assert_eq!(steps[0].name, "lerc");
    }

    #[test]
    fn a_registered_array_to_bytes_codec_gets_a_little_endian_bytes_codec() {
        let codecs = vec![named(json!({"name": "numcodecs.pcodec"}))];
        let (mine, steps) = split_v3(&codecs, &["pcodec".into()]).unwrap();
        assert_eq!(mine[0].name, "bytes");
        assert_eq!(steps.len(), 1);
    }

    #[test]
    fn a_registered_codec_before_a_built_in_one_is_refused() {
        let codecs = vec![
            named(json!({"name": "bytes", "configuration": {"endian": "little"}})),
            named(json!({"name": "lerc"})),
            named(json!({"name": "crc32c"})),
        ];
        let e = split_v3(&codecs, &["lerc".into()]).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownCodec);
    }

    #[test]
    fn a_v2_registered_compressor_is_split_off() {
        let meta = ArrayMetadataV2::from_value(&json!({
            "zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<u2", "fill_value": 0,
            "order": "C", "filters": [{"id": "delta", "dtype": "<u2"}],
            "compressor": {"id": "imagecodecs_lerc", "level": 0.0}
        }))
        .unwrap();
        let (mine, steps) = split_v2(&meta, &["imagecodecs_lerc".into()]).unwrap();
        assert!(mine.compressor.is_none());
        assert_eq!(mine.filters.as_ref().map(Vec::len), Some(1));
        assert_eq!(steps[0].name, "imagecodecs_lerc");
        assert_eq!(steps[0].configuration.get("level"), Some(&json!(0.0)));
    }
}
