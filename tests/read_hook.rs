//! Region reads with a decode hook (what the JS worker pool plugs in): every fixture array
//! whose values are fixed-size, read whole and by a partial selection with each chunk (or
//! inner chunk of a shard) decoded on another thread by a reader opened from the same
//! metadata, equals the read without a hook; what a hook gives back of the wrong length, or
//! an error it returns, fails the read with the chunk's key and the array's path.

mod common;

use common::store::{block_on, store_from_dir};
use common::{fixtures, read_json};
use std::cell::Cell;
use zom::chunk::{ChunkRead, DimSelection, Selection};
use zom::codec::DecodedChunk;
use zom::error::{ErrorCode, Result, ZomError};
use zom::hierarchy::{
    open, read, read_chunk_with, read_with, ArrayReader, ChunkPart, DecodeHook, NodeKind,
    OpenHints, ReadOptions,
};
use zom::model::{Array, Node};

/// Decodes on a new thread with its own reader, as a worker does.
struct ThreadHook {
    array: Array,
    path: String,
    calls: Cell<usize>,
}

impl DecodeHook for ThreadHook {
    type Decoded = Vec<u8>;

    async fn decode(&self, encoded: &[u8], part: ChunkPart, _: &ChunkRead) -> Result<Vec<u8>> {
        self.calls.set(self.calls.get() + 1);
        let (array, path, encoded) = (self.array.clone(), self.path.clone(), encoded.to_vec());
        std::thread::spawn(move || {
            let reader = ArrayReader::open(&array, &path)?;
            let pipeline = match part {
                ChunkPart::Chunk => reader.pipeline(),
                ChunkPart::Inner => reader.pipeline().sharding().unwrap().inner_pipeline(),
            };
            match pipeline.decode(&encoded)? {
                DecodedChunk::Fixed(bytes) => Ok(bytes),
                _ => panic!("fixed-size values expected"),
            }
        })
        .join()
        .unwrap()
    }

    fn len(decoded: &Vec<u8>) -> usize {
        decoded.len()
    }

    fn copy_to(decoded: &Vec<u8>, target: &mut [u8]) -> Result<()> {
        target.copy_from_slice(decoded);
        Ok(())
    }
}

fn all() -> Selection {
    Selection(Vec::new())
}

fn partial(rank: usize) -> Selection {
    let mut dims = vec![DimSelection::slice(Some(1), None, Some(2))];
    dims.resize(rank, DimSelection::slice(Some(-3), None, None));
    Selection(dims)
}

#[test]
fn reads_with_a_hook_equal_reads_without() {
    let mut hooked = 0;
    for name in ["v3", "v2", "sample"] {
        let dir = fixtures().join(name);
        let store = store_from_dir(&dir);
        let expected = read_json(
            &fixtures()
                .join("expected")
                .join(format!("{name}.values.json")),
        );
        for path in expected.as_object().unwrap().keys() {
            let hints = OpenHints {
                kind: Some(NodeKind::Array),
                format: None,
            };
            let opened = block_on(open(&store, path, hints)).unwrap();
            let Node::Array(array) = opened.node else {
                panic!("{path}: not an array")
            };
            let reader = ArrayReader::open(&array, path).unwrap();
            if reader.data_type().fixed_size().is_none() {
                continue;
            }
            let hook = ThreadHook {
                array: array.clone(),
                path: path.clone(),
                calls: Cell::new(0),
            };
            let rank = reader.shape().len();
            let options = ReadOptions::default();
            for selection in [all(), partial(rank)] {
                if rank == 0 && !selection.0.is_empty() {
                    continue;
                }
                let plain = block_on(read(&store, &reader, &selection, &options, &mut |_| {}));
                let with = block_on(read_with(
                    &store,
                    &reader,
                    &selection,
                    &options,
                    Some(&hook),
                    &mut |_| {},
                ));
                assert_eq!(with.unwrap(), plain.unwrap(), "{name}/{path} {selection:?}");
            }
            if rank > 0 {
                let coords = vec![0; rank];
                let with = block_on(read_chunk_with(
                    &store,
                    &reader,
                    &coords,
                    &options,
                    Some(&hook),
                ));
                let plain = block_on(zom::hierarchy::read_chunk(
                    &store, &reader, &coords, &options,
                ));
                assert_eq!(with.unwrap(), plain.unwrap(), "{name}/{path} chunk 0");
            }
            hooked += usize::from(hook.calls.get() > 0);
        }
    }
    assert!(hooked > 40, "{hooked} arrays decoded through the hook");
}

/// A hook that gives back too few bytes, or fails.
struct BadHook {
    fail: bool,
}

impl DecodeHook for BadHook {
    type Decoded = Vec<u8>;

    async fn decode(&self, _: &[u8], _: ChunkPart, _: &ChunkRead) -> Result<Vec<u8>> {
        if self.fail {
            return Err(ZomError::new(ErrorCode::ChecksumMismatch, "bad"));
        }
        Ok(vec![0; 3])
    }

    fn len(decoded: &Vec<u8>) -> usize {
        decoded.len()
    }

    fn copy_to(decoded: &Vec<u8>, target: &mut [u8]) -> Result<()> {
        target.copy_from_slice(decoded);
        Ok(())
    }
}

#[test]
fn what_a_hook_gets_wrong_fails_the_read_with_its_key() {
    let store = store_from_dir(&fixtures().join("v3"));
    for (path, key) in [
        ("codec_zstd", "codec_zstd/c/0/0"),
        ("shard_index_end", "shard_index_end/c/0/0"),
        ("codec_bytes_only", "codec_bytes_only/c/0/0"),
    ] {
        let hints = OpenHints {
            kind: Some(NodeKind::Array),
            format: None,
        };
        let Node::Array(array) = block_on(open(&store, path, hints)).unwrap().node else {
            panic!("{path}: not an array")
        };
        let reader = ArrayReader::open(&array, path).unwrap();
        for (fail, code) in [
            (false, ErrorCode::CodecError),
            (true, ErrorCode::ChecksumMismatch),
        ] {
            let hook = BadHook { fail };
            let error = block_on(read_with(
                &store,
                &reader,
                &all(),
                &ReadOptions::default(),
                Some(&hook),
                &mut |_| {},
            ))
            .unwrap_err();
            assert_eq!(error.code, code, "{path}: {error}");
            assert_eq!(error.path.as_deref(), Some(path));
            assert_eq!(error.key.as_deref(), Some(key), "{path}: {error}");
        }
    }
}
