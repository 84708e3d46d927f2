//! Target `shard_index`: the sharding codec's sans-I/O partial-read API on hostile shards.
//! The index is located, decoded (through its codecs, crc32c verified) and checked against
//! the shard's length; a read plan for some inner chunks merges their ranges; each planned
//! chunk's bytes are cut from the fetched ranges and decoded.
//!
//! Input: rank, per dimension the inner chunks per shard and the inner chunk length, a flag
//! byte (index at start, crc32c on the index, inner codecs, data type), the range gap, the
//! wanted inner chunks, then the shard's bytes.
//!
//! Checks: the plan's ranges are sorted, disjoint, inside the shard, and every planned chunk
//! lies in its range; the bytes `chunk_bytes` cuts are the index entry's bytes of the shard;
//! an inner chunk decoded alone equals its block of the whole decoded shard, and the whole
//! shard decodes only if every wanted inner chunk does.

use super::input::Input;
use super::outcome::Outcome;
use serde_json::json;
use zom::codec::sharding::ChunkLocation;
use zom::codec::{CodecPipeline, DecodedChunk};
use zom::dtype::{DataType, FillValue};
use zom::model::named::NamedConfig;

/// The sharded pipeline the header bytes describe.
pub fn pipeline(shard_shape: &[u64], inner_shape: &[u64], flags: u8) -> zom::Result<CodecPipeline> {
    let le = json!({"name": "bytes", "configuration": {"endian": "little"}});
    let index_codecs = if flags & 2 != 0 {
        json!([le, {"name": "crc32c"}])
    } else {
        json!([le])
    };
    let (dtype, fill) = match (flags >> 4) % 3 {
        0 => ("int32", json!(-1)),
        1 => ("uint8", json!(7)),
        _ => ("string", json!("f")),
    };
    let inner_codecs = match ((flags >> 2) % 4, dtype) {
        (_, "string") => json!([{"name": "vlen-utf8"}]),
        (0, _) => json!([le]),
        (1, _) => json!([le, {"name": "gzip", "configuration": {"level": 1}}]),
        (2, _) => json!([le, {"name": "crc32c"}]),
        _ => json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner_shape.iter().map(|_| 1).collect::<Vec<_>>(),
            "codecs": [le], "index_codecs": [le], "index_location": "start"}}]),
    };
    let codec = json!({"name": "sharding_indexed", "configuration": {
        "chunk_shape": inner_shape,
        "codecs": inner_codecs,
        "index_codecs": index_codecs,
        "index_location": if flags & 1 != 0 { "start" } else { "end" },
    }});
    let codecs = vec![NamedConfig::from_value(&codec).map_err(zom::ZomError::invalid_metadata)?];
    let data_type =
        DataType::from_v3(&NamedConfig::short(dtype)).map_err(zom::ZomError::invalid_metadata)?;
    let fill = FillValue::from_v3(&data_type, &fill).map_err(zom::ZomError::invalid_metadata)?;
    CodecPipeline::from_v3(&codecs, &data_type, shard_shape, &fill)
}

/// The elements of block `coords` (of shape `inner`) inside a C-order `shard`.
fn block<T: Clone>(
    shard: &[T],
    shard_shape: &[u64],
    inner: &[u64],
    coords: &[u64],
    unit: usize,
) -> Vec<T> {
    let n: u64 = inner.iter().product();
    let mut out = Vec::new();
    for k in 0..n {
        // k → local index → shard index.
        let mut rem = k;
        let mut local = vec![0u64; inner.len()];
        for (d, &len) in inner.iter().enumerate().rev() {
            local[d] = rem % len;
            rem /= len;
        }
        let mut linear = 0u64;
        for d in 0..inner.len() {
            linear = linear * shard_shape[d] + coords[d] * inner[d] + local[d];
        }
        let start = linear as usize * unit;
        out.extend_from_slice(&shard[start..start + unit]);
    }
    out
}

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let mut input = Input::new(data);
    let rank = 1 + input.below(3);
    let mut per_shard = Vec::new();
    let mut inner = Vec::new();
    for _ in 0..rank {
        per_shard.push(1 + u64::from(input.u8() % 4));
        inner.push(1 + u64::from(input.u8() % 4));
    }
    let flags = input.u8();
    let mut shard_shape: Vec<u64> = per_shard.iter().zip(&inner).map(|(c, i)| c * i).collect();
    if flags & 0x80 != 0 {
        if let Some(first) = shard_shape.first_mut() {
            *first += 1; // does not divide: must be refused
        }
    }
    let max_gap = u64::from(input.u16());
    let wanted: Vec<Vec<u64>> = (0..input.below(6))
        .map(|_| {
            per_shard
                .iter()
                .map(|&c| u64::from(input.u8()) % (c + 1))
                .collect()
        })
        .collect();
    let shard = input.rest();
    let shard_len = shard.len() as u64;

    let Some(pipeline) = out.step("pipeline", pipeline(&shard_shape, &inner, flags)) else {
        return out;
    };
    let sharding = pipeline.sharding().expect("a lone sharding_indexed codec");
    let whole = pipeline.decode(shard);
    out.step("decode_index_raw", sharding.decode_index(shard));
    let Some(range) = out.step(
        "index_range",
        sharding.index_range().and_then(|r| r.resolve(shard_len)),
    ) else {
        assert!(whole.is_err(), "a shard too short for its index decoded");
        return out;
    };
    assert!(range.end <= shard_len && range.start <= range.end);
    let index_bytes = &shard[range.start as usize..range.end as usize];
    let Some(index) = out.step("decode_index", sharding.decode_index(index_bytes)) else {
        assert!(whole.is_err(), "a shard with a bad index decoded");
        return out;
    };
    let n: u64 = sharding.chunks_per_shard().iter().product();
    assert_eq!(
        index.entries().len() as u64,
        n,
        "index entries != chunks per shard"
    );
    let valid = out
        .step("validate_index", index.validate(shard_len))
        .is_some();
    if !valid {
        assert!(
            whole.is_err(),
            "a shard whose index points outside it decoded"
        );
    }
    out.step(
        "plan_unbounded",
        sharding.plan(&index, &wanted, None, max_gap),
    );
    let Some(plan) = out.step(
        "plan",
        sharding.plan(&index, &wanted, Some(shard_len), max_gap),
    ) else {
        return out;
    };
    for pair in plan.ranges.windows(2) {
        assert!(
            pair[0].end.saturating_add(max_gap) < pair[1].start,
            "ranges not merged: {:?}",
            plan.ranges
        );
    }
    for r in &plan.ranges {
        assert!(
            r.start <= r.end && r.end <= shard_len,
            "range {r:?} outside the shard"
        );
    }
    let fetched: Vec<Vec<u8>> = plan
        .ranges
        .iter()
        .map(|r| shard[r.start as usize..r.end as usize].to_vec())
        .collect();
    assert_eq!(plan.chunks.len(), wanted.len());
    let mut all_inner_ok = true;
    for (chunk, coords) in plan.chunks.iter().zip(&wanted) {
        assert_eq!(&chunk.coords, coords);
        let entry = index
            .chunk(coords)
            .expect("planned chunks are in the index");
        match (&chunk.location, &entry) {
            (ChunkLocation::Empty, None) => {}
            (ChunkLocation::InRange { range, start, len }, Some(e)) => {
                let r = &plan.ranges[*range];
                assert!(start + len <= r.end - r.start, "chunk outside its range");
                assert_eq!(*len, e.end - e.start);
            }
            other => panic!("location {other:?} for index entry {entry:?}"),
        }
        let bytes = plan
            .chunk_bytes(chunk, &fetched)
            .expect("chunk_bytes of a plan over the fetched ranges");
        let expected = entry.map(|e| &shard[e.start as usize..e.end as usize]);
        assert_eq!(bytes, expected, "chunk_bytes cut the wrong bytes");
        let decoded = sharding.decode_inner(bytes);
        let (Ok(part), Ok(full)) = (&decoded, &whole) else {
            all_inner_ok &= decoded.is_ok();
            out.step("decode_inner", decoded);
            continue;
        };
        let shape = sharding.shard_shape();
        let inner_shape = sharding.inner_chunk_shape();
        match (part, full) {
            (DecodedChunk::Fixed(p), DecodedChunk::Fixed(f)) => {
                let unit = pipeline.decoded_repr().item_size().unwrap_or(1) as usize;
                assert!(
                    *p == block(f, shape, inner_shape, coords, unit),
                    "inner chunk != its block"
                );
            }
            (DecodedChunk::Strings(p), DecodedChunk::Strings(f)) => {
                assert!(
                    *p == block(f, shape, inner_shape, coords, 1),
                    "inner chunk != its block"
                );
            }
            _ => panic!("inner and whole decode to different kinds"),
        }
        out.step("decode_inner", decoded);
    }
    if whole.is_ok() {
        assert!(
            all_inner_ok,
            "the shard decodes but one of its inner chunks does not"
        );
    }
    out.step("decode_shard", whole);
    out
}
