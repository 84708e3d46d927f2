//! v3 codec pipelines: order (array→array*, one array→bytes, bytes→bytes*), the known codecs'
//! configurations, their fit with the data type, and sharding's nested pipelines.

use super::extensions::{parse_named, unknown_extension};
use super::util::{expect_array, name_of, Ctx, LocExt, MAX_NESTING};
use super::{LocStep, ProblemKind};
use crate::codec::registry::{self, Kind, Nested, Stage};
use crate::dtype::DataType;
use crate::problem::config::{ConfigProblem, Effect};
use serde_json::{Map, Value};

/// Where a codec sits in a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    ArrayArray,
    ArrayBytes,
    BytesBytes,
    /// A `numcodecs.*` codec zom does not know: a filter or a compressor.
    Flexible,
    /// Unknown (ignored or registered) extension: no order constraint.
    Unknown,
}

/// Checks a v3 `codecs` list (or sharding's `codecs` / `index_codecs`).
pub(crate) fn check_pipeline(
    cx: &mut Ctx,
    value: &Value,
    loc: &[LocStep],
    input: Stage,
    index: bool,
) {
    let what = if index { "'index_codecs'" } else { "'codecs'" };
    let Some(items) = expect_array(cx, value, loc, what) else {
        return;
    };
    if cx.depth > MAX_NESTING {
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            "codec pipelines nest too deeply",
        );
        return;
    }
    let mut current = input;
    let mut seen_array_bytes = false;
    let mut seen_unknown = false;
    for (i, item) in items.iter().enumerate() {
        let here = loc.idx(i);
        let Some(named) = parse_named(cx, item, &here, "codec") else {
            seen_unknown = true;
            continue;
        };
        let role = check_codec(
            cx,
            named.name,
            named.config,
            item,
            &here,
            &mut current,
            index,
        )
        .unwrap_or_else(|| {
            unknown_extension(cx, &named, item, &here, "codec");
            Role::Unknown
        });
        match role {
            Role::ArrayArray if seen_array_bytes => cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "array→array codec '{}' comes after the array→bytes codec",
                    named.name
                ),
            ),
            Role::ArrayBytes if seen_array_bytes => cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "'{}' is a second array→bytes codec; a pipeline has exactly one",
                    named.name
                ),
            ),
            Role::BytesBytes if !seen_array_bytes && !seen_unknown => cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "bytes→bytes codec '{}' comes before the array→bytes codec",
                    named.name
                ),
            ),
            _ => {}
        }
        match role {
            Role::ArrayBytes => seen_array_bytes = true,
            Role::Unknown => seen_unknown = true,
            _ => {}
        }
        if index && role == Role::BytesBytes && !is_fixed_size_bb(named.name) {
            cx.error(
                &here,
                ProblemKind::InvalidValue,
                format!(
                    "'{}' gives a variable-size encoding; index_codecs must not compress",
                    named.name
                ),
            );
        }
    }
    if !seen_array_bytes && !seen_unknown {
        cx.error(
            loc,
            ProblemKind::InvalidValue,
            format!(
                "{what} must contain exactly one array→bytes codec (such as 'bytes'), has none"
            ),
        );
    }
    if index && !is_recommended_index(items) {
        cx.warn(
            loc,
            ProblemKind::InvalidValue,
            "index_codecs should be 'bytes' (little endian) followed by 'crc32c'",
        );
    }
}

fn is_fixed_size_bb(name: &str) -> bool {
    registry::v3(name).is_some_and(|spec| spec.fixed_size)
}

fn is_recommended_index(items: &[Value]) -> bool {
    let [bytes, crc] = items else {
        return false;
    };
    let endian = bytes
        .pointer("/configuration/endian")
        .and_then(Value::as_str);
    name_of(bytes) == Some("bytes")
        && matches!(endian, Some("little") | None)
        && name_of(crc) == Some("crc32c")
}

/// Checks one codec against the registry and returns its role, or `None` when zom does not
/// know `name`. `current` is updated with what the codec outputs (transpose permutes the
/// chunk shape; a filter may change the element type).
fn check_codec(
    cx: &mut Ctx,
    name: &str,
    config: Option<&Map<String, Value>>,
    value: &Value,
    loc: &[LocStep],
    current: &mut Stage,
    index: bool,
) -> Option<Role> {
    let Some(spec) = registry::v3(name) else {
        // A codec the caller implements (JS `registerCodec`), as a name or numcodecs id.
        let id = name.strip_prefix(crate::codec::NUMCODECS_PREFIX);
        if cx.run_handler(name, value, loc) || id.is_some_and(|id| cx.run_handler(id, value, loc)) {
            current.dtype = None;
            return Some(Role::Unknown);
        }
        if id.is_some() {
            cx.warn(
                loc,
                ProblemKind::InvalidValue,
                format!("numcodecs codec '{name}' is not one zom knows"),
            );
            current.dtype = None;
            return Some(Role::Flexible);
        }
        return None;
    };
    current.index = index;
    current.nested = None;
    let (problems, _) = spec.read(name, config, current);
    report(cx, loc, &problems);
    if let Some(nested) = current.nested.take() {
        check_nested(cx, config, &loc.key("configuration"), *nested);
    }
    cx.run_handler(name, value, loc);
    Some(match spec.kind {
        Kind::ArrayToArray => Role::ArrayArray,
        Kind::ArrayToBytes => Role::ArrayBytes,
        Kind::BytesToBytes => Role::BytesBytes,
    })
}

/// Reports a codec's configuration problems: located inside its `configuration` (or at the
/// codec itself), as errors, or as strict-mode warnings for SHOULD-level remarks. What zom
/// cannot decode is valid metadata: not reported here.
pub(crate) fn report(cx: &mut Ctx, codec_loc: &[LocStep], problems: &[ConfigProblem]) {
    report_at(cx, codec_loc, &codec_loc.key("configuration"), problems);
}

/// [`report`] with the configuration at `config_loc` (a v2 codec object is its own).
pub(crate) fn report_at(
    cx: &mut Ctx,
    codec_loc: &[LocStep],
    config_loc: &[LocStep],
    problems: &[ConfigProblem],
) {
    for p in problems {
        let loc = if p.loc.is_empty() {
            codec_loc.to_vec()
        } else {
            let mut loc = config_loc.to_vec();
            loc.extend(p.loc.iter().cloned());
            loc
        };
        match p.effect {
            Effect::Spec | Effect::Fatal => cx.error(&loc, p.kind, p.message.clone()),
            Effect::Warning => cx.warn(&loc, p.kind, p.message.clone()),
            Effect::Unsupported => {}
        }
    }
}

/// Checks the pipelines nested in a sharding codec.
fn check_nested(
    cx: &mut Ctx,
    config: Option<&Map<String, Value>>,
    cloc: &[LocStep],
    nested: Nested,
) {
    let Some(config) = config else {
        return;
    };
    cx.depth = cx.depth.saturating_add(1);
    if let Some(v) = config.get("codecs") {
        check_pipeline(cx, v, &cloc.key("codecs"), nested.inner, false);
    }
    if let Some(v) = config.get("index_codecs") {
        let index = Stage {
            dtype: Some(DataType::UInt64),
            shape: nested.chunks_per_shard.map(|mut s| {
                s.push(2);
                s
            }),
            ..Stage::default()
        };
        check_pipeline(cx, v, &cloc.key("index_codecs"), index, true);
    }
    cx.depth = cx.depth.saturating_sub(1);
}
