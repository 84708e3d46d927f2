//! The sans-I/O sharding API on shards written by zarr-python: index range (start and end),
//! index decoding, read plans with merged ranges, inner chunk decoding, empty inner chunks,
//! nested sharding, and corrupt indexes.

use base64::Engine;
use serde_json::Value;
use zom::codec::sharding::{ChunkLocation, IndexRange};
use zom::codec::{CodecPipeline, DecodedChunk};
use zom::model::v3::ArrayMetadataV3;
use zom::ErrorCode;

fn case(name: &str) -> (CodecPipeline, Vec<u8>, Vec<u8>) {
    let text = std::fs::read_to_string("tests/fixtures/codec/cases.json").unwrap();
    let cases: Value = serde_json::from_str(&text).unwrap();
    let case = cases["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
        .clone();
    let meta: ArrayMetadataV3 = serde_json::from_value(case["metadata"].clone()).unwrap();
    let pipeline = CodecPipeline::from_v3_metadata(&meta).unwrap();
    let (_, chunk) = case["chunks"].as_object().unwrap().iter().next().unwrap();
    let d = |v: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap())
            .unwrap()
    };
    (
        pipeline,
        d(&chunk["encoded"]),
        d(&chunk["expected"]["fixed"]),
    )
}

fn i32s(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn partial_reads_with_index_at_end_and_start() {
    for (name, at_start) in [("v3 sharding end", false), ("v3 sharding start", true)] {
        let (pipeline, shard, whole) = case(name);
        let sharding = pipeline.sharding().expect("a sharded array");
        assert_eq!(sharding.chunks_per_shard(), &[2, 2]);
        let range = sharding.index_range().unwrap();
        // 4 inner chunks × 16 bytes + crc32c.
        assert_eq!(range.len(), 4 * 16 + 4);
        assert_eq!(matches!(range, IndexRange::Prefix(_)), at_start, "{name}");
        let abs = range.resolve(shard.len() as u64).unwrap();
        let index = sharding
            .decode_index(&shard[abs.start as usize..abs.end as usize])
            .unwrap();
        index.validate(shard.len() as u64).unwrap();
        let wanted = vec![vec![0, 0], vec![0, 1], vec![1, 1]];
        let plan = sharding
            .plan(&index, &wanted, Some(shard.len() as u64), 0)
            .unwrap();
        // zarr-python writes the chunks back to back: (0,0) and (0,1) merge into one range.
        assert!(plan.ranges.len() <= 2, "{name}: {:?}", plan.ranges);
        let fetched: Vec<Vec<u8>> = plan
            .ranges
            .iter()
            .map(|r| shard[r.start as usize..r.end as usize].to_vec())
            .collect();
        let whole = i32s(&whole);
        for planned in &plan.chunks {
            let bytes = plan.chunk_bytes(planned, &fetched).unwrap();
            let DecodedChunk::Fixed(values) = sharding.decode_inner(bytes).unwrap() else {
                panic!()
            };
            let values = i32s(&values);
            let (r, c) = (planned.coords[0] as usize, planned.coords[1] as usize);
            for i in 0..2 {
                for j in 0..4 {
                    assert_eq!(
                        values[i * 4 + j],
                        whole[(r * 2 + i) * 8 + c * 4 + j],
                        "{name}"
                    );
                }
            }
        }
        // With a large gap allowance everything merges into one read.
        let plan = sharding.plan(&index, &wanted, None, 1 << 20).unwrap();
        assert_eq!(plan.ranges.len(), 1);
        // Coordinates outside the shard are a selection error.
        let err = sharding.plan(&index, &[vec![2, 0]], None, 0).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidSelection);
    }
}

#[test]
fn empty_inner_chunks_read_as_fill_value() {
    let (pipeline, shard, whole) = case("v3 sharding empty inner");
    let sharding = pipeline.sharding().unwrap();
    let abs = sharding
        .index_range()
        .unwrap()
        .resolve(shard.len() as u64)
        .unwrap();
    let index = sharding
        .decode_index(&shard[abs.start as usize..abs.end as usize])
        .unwrap();
    let empty = index.entries().iter().filter(|e| e.is_none()).count();
    assert_eq!(empty, 7, "only the first inner chunk was written");
    let plan = sharding.plan(&index, &[vec![3, 1]], None, 0).unwrap();
    assert_eq!(plan.chunks[0].location, ChunkLocation::Empty);
    assert!(plan.ranges.is_empty());
    let DecodedChunk::Fixed(fill) = sharding.decode_inner(None).unwrap() else {
        panic!()
    };
    assert_eq!(fill, [7u8, 0].repeat(8));
    let DecodedChunk::Fixed(all) = pipeline.decode(&shard).unwrap() else {
        panic!()
    };
    assert_eq!(all, whole);
}

#[test]
fn nested_shards_decode_whole_and_by_parts() {
    let (pipeline, shard, whole) = case("v3 sharding nested");
    let DecodedChunk::Fixed(all) = pipeline.decode(&shard).unwrap() else {
        panic!()
    };
    assert_eq!(all, whole);
    let outer = pipeline.sharding().unwrap();
    let inner = outer.inner_pipeline().sharding().expect("nested sharding");
    assert_eq!(inner.chunks_per_shard(), &[2, 2]);
    let abs = outer
        .index_range()
        .unwrap()
        .resolve(shard.len() as u64)
        .unwrap();
    let index = outer
        .decode_index(&shard[abs.start as usize..abs.end as usize])
        .unwrap();
    let range = index.chunk(&[1, 0]).unwrap().unwrap();
    let inner_shard = &shard[range.start as usize..range.end as usize];
    let DecodedChunk::Fixed(part) = outer.decode_inner(Some(inner_shard)).unwrap() else {
        panic!()
    };
    // Rows 8..16, columns 0..8 of the 16×16 uint16 array.
    for i in 0..8 {
        assert_eq!(
            &part[i * 16..(i + 1) * 16],
            &whole[((8 + i) * 16) * 2..((8 + i) * 16 + 8) * 2]
        );
    }
}

#[test]
fn corrupt_indexes_are_errors() {
    let (pipeline, shard, _) = case("v3 sharding end");
    let sharding = pipeline.sharding().unwrap();
    let abs = sharding
        .index_range()
        .unwrap()
        .resolve(shard.len() as u64)
        .unwrap();
    let mut index_bytes = shard[abs.start as usize..abs.end as usize].to_vec();
    index_bytes[3] ^= 0x10;
    let err = sharding.decode_index(&index_bytes).unwrap_err();
    assert_eq!(err.code, ErrorCode::ChecksumMismatch);
    // An index that points past the shard.
    let mut bad = shard.clone();
    let start = abs.start as usize;
    bad[start..start + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let crc = crc32c::crc32c(&bad[start..bad.len() - 4]);
    let n = bad.len();
    bad[n - 4..].copy_from_slice(&crc.to_le_bytes());
    let err = pipeline.decode(&bad).unwrap_err();
    assert_eq!(err.code, ErrorCode::CodecError);
    // A shard shorter than its index.
    assert_eq!(
        pipeline.decode(&shard[..10]).unwrap_err().code,
        ErrorCode::CodecError
    );
    assert!(sharding.index_range().unwrap().resolve(10).is_err());
}
