//! Region reads with a decode hook (what the JS worker pool plugs in): every fixture array
//! whose values are fixed-size, read whole and by a partial selection with each chunk (or
//! inner chunk of a shard) decoded on another thread by a reader opened from the same
//! metadata and its selected elements copied into the hook's output as the core's placement
//! says, equals the read without a hook; an error the hook returns fails the read with the
//! chunk's key and the array's path.

mod common;

use common::store::{block_on, store_from_dir};
use common::{fixtures, read_json};
use std::cell::{Cell, RefCell};
use zom::chunk::{ChunkRead, DimSelection, Selection};
use zom::codec::DecodedChunk;
use zom::error::{ErrorCode, Result, ZomError};
use zom::hierarchy::{
    open, read, read_chunk_with, read_with, ArrayReader, ChunkPart, ChunkValues, DecodeHook,
    NodeKind, OpenHints, ReadOptions,
};
use zom::model::{Array, Node};

/// Decodes on a new thread with its own reader, as a worker does, then copies the chunk's
/// selected elements into its own output as the chunk's placement says (what
/// ts/pool/place.ts does).
struct ThreadHook {
    array: Array,
    path: String,
    calls: Cell<usize>,
    out: RefCell<Vec<u8>>,
    item: Cell<usize>,
}

/// Executes a placement: the first run's element offsets, then `count, src step, dst step`
/// per dimension, outer first.
fn place(src: &[u8], dst: &mut [u8], item: usize, p: &[f64]) {
    if p.is_empty() {
        return;
    }
    let dims: Vec<[i64; 3]> = p[2..]
        .chunks(3)
        .map(|d| [d[0] as i64, d[1] as i64, d[2] as i64])
        .collect();
    let (outer, inner) = dims.split_at(dims.len() - 1);
    let mut position = vec![0i64; outer.len()];
    let (mut s, mut d) = (p[0] as i64, p[1] as i64);
    loop {
        for k in 0..inner[0][0] {
            let (a, b) = (
                (s + k * inner[0][1]) as usize * item,
                (d + k * inner[0][2]) as usize * item,
            );
            dst[b..b + item].copy_from_slice(&src[a..a + item]);
        }
        let mut i = outer.len();
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            position[i] += 1;
            if position[i] < outer[i][0] {
                s += outer[i][1];
                d += outer[i][2];
                break;
            }
            position[i] = 0;
            s -= (outer[i][0] - 1) * outer[i][1];
            d -= (outer[i][0] - 1) * outer[i][2];
        }
    }
}

impl DecodeHook for ThreadHook {
    fn share(&self, len: u64, fill: &[u8], _: u64) -> Result<()> {
        self.item.set(fill.len());
        *self.out.borrow_mut() = fill.repeat(len as usize / fill.len());
        Ok(())
    }

    async fn decode(&self, encoded: &[u8], part: ChunkPart, read: &ChunkRead) -> Result<()> {
        self.calls.set(self.calls.get() + 1);
        let (array, path, encoded) = (self.array.clone(), self.path.clone(), encoded.to_vec());
        let decoded = std::thread::spawn(move || {
            let reader = ArrayReader::open(&array, &path)?;
            let pipeline = match part {
                ChunkPart::Chunk => reader.pipeline(),
                ChunkPart::Inner => reader.pipeline().sharding().unwrap().inner_pipeline(),
            };
            match pipeline.decode(&encoded)? {
                DecodedChunk::Fixed(bytes) => Ok::<_, ZomError>(bytes),
                _ => panic!("fixed-size values expected"),
            }
        })
        .join()
        .unwrap()?;
        place(
            &decoded,
            &mut self.out.borrow_mut(),
            self.item.get(),
            &read.placement()?,
        );
        Ok(())
    }
}

impl ThreadHook {
    /// The output of the last read, in place of what `read_with` returned (no bytes).
    fn result(&self, values: ChunkValues) -> ChunkValues {
        assert_eq!(values.data, DecodedChunk::Fixed(Vec::new()));
        ChunkValues {
            shape: values.shape,
            data: DecodedChunk::Fixed(self.out.take()),
        }
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
                out: RefCell::new(Vec::new()),
                item: Cell::new(0),
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
                let with = hook.result(with.unwrap());
                assert_eq!(with, plain.unwrap(), "{name}/{path} {selection:?}");
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
                let with = hook.result(with.unwrap());
                assert_eq!(with, plain.unwrap(), "{name}/{path} chunk 0");
            }
            hooked += usize::from(hook.calls.get() > 0);
        }
    }
    assert!(hooked > 40, "{hooked} arrays decoded through the hook");
}

/// A hook that fails with `code`.
struct BadHook {
    code: ErrorCode,
}

impl DecodeHook for BadHook {
    fn share(&self, _: u64, _: &[u8], _: u64) -> Result<()> {
        Ok(())
    }

    async fn decode(&self, _: &[u8], _: ChunkPart, _: &ChunkRead) -> Result<()> {
        Err(ZomError::new(self.code, "bad"))
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
        for code in [ErrorCode::CodecError, ErrorCode::ChecksumMismatch] {
            let hook = BadHook { code };
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
