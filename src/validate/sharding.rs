//! The `sharding_indexed` codec: inner chunk shape, and the nested `codecs` and
//! `index_codecs` pipelines (checked recursively, with their own locations).

use super::codecs::{check_pipeline, Input};
use super::util::{expect_one_of, expect_uint_list, required, unknown_keys, Ctx, LocExt};
use super::{LocStep, ProblemKind};
use crate::dtype::DataType;
use serde_json::{Map, Value};

/// Checks a sharding configuration; `current` is what the sharding codec receives.
pub(crate) fn check_sharding(
    cx: &mut Ctx,
    conf: &Map<String, Value>,
    cloc: &[LocStep],
    current: &Input,
) {
    let what = "codec 'sharding_indexed'";
    unknown_keys(
        cx,
        conf,
        cloc,
        &["chunk_shape", "codecs", "index_codecs", "index_location"],
        what,
    );
    let inner = required(cx, conf, cloc, "chunk_shape", what).and_then(|v| {
        expect_uint_list(cx, v, &cloc.key("chunk_shape"), "sharding 'chunk_shape'", 1)
    });
    let mut per_shard: Option<Vec<u64>> = None;
    if let (Some(inner), Some(outer)) = (&inner, &current.chunk_shape) {
        if inner.len() != outer.len() {
            cx.error(
                &cloc.key("chunk_shape"),
                ProblemKind::InvalidValue,
                format!(
                    "sharding 'chunk_shape' has {} dimensions; the shard shape {outer:?} has {}",
                    inner.len(),
                    outer.len()
                ),
            );
        } else {
            let mut counts = Vec::with_capacity(inner.len());
            for (i, (&n, &m)) in inner.iter().zip(outer.iter()).enumerate() {
                match m.checked_rem(n) {
                    Some(0) => counts.push(m.checked_div(n).unwrap_or(0)),
                    _ => cx.error(
                        &cloc.key("chunk_shape").idx(i),
                        ProblemKind::InvalidValue,
                        format!("inner chunk length {n} does not divide the shard length {m}"),
                    ),
                }
            }
            if counts.len() == inner.len() {
                per_shard = Some(counts);
            }
        }
    }
    cx.depth = cx.depth.saturating_add(1);
    if let Some(v) = required(cx, conf, cloc, "codecs", what) {
        let input = Input {
            dtype: current.dtype.clone(),
            chunk_shape: inner.clone(),
        };
        check_pipeline(cx, v, &cloc.key("codecs"), input, false);
    }
    if let Some(v) = required(cx, conf, cloc, "index_codecs", what) {
        let index_shape = per_shard.map(|mut s| {
            s.push(2);
            s
        });
        let input = Input {
            dtype: Some(DataType::UInt64),
            chunk_shape: index_shape,
        };
        check_pipeline(cx, v, &cloc.key("index_codecs"), input, true);
    }
    cx.depth = cx.depth.saturating_sub(1);
    if let Some(v) = conf.get("index_location") {
        expect_one_of(
            cx,
            v,
            &cloc.key("index_location"),
            "sharding 'index_location'",
            &["start", "end"],
        );
    }
}
