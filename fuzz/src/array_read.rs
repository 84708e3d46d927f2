//! Target `array_read`: the whole "metadata + chunk bytes → values" path. A metadata document
//! and chunk (or shard) bytes go into a store; the array is opened from the store, read with
//! a selection (shards partially, through their index), read chunk by chunk, and its chunks
//! decoded directly.
//!
//! Input: a flag byte (v2 `.zarray` or v3 `zarr.json`), a 16-bit length and the metadata
//! document, a chunk count and each chunk as a 16-bit length and its bytes (stored at the
//! first grid positions in C order; length 0: the chunk is missing), then the selection
//! entries.
//!
//! Checks: nothing panics or allocates past the limits; when the first chunk both reads
//! through the store and decodes directly, the values agree, and one fails only if the
//! other does.

use super::input::Input;
use super::outcome::Outcome;
use super::zom_roundtrip::LIMITS;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use zom::chunk::{DimSelection, Selection};
use zom::hierarchy::{open, read, read_chunk, ArrayReader, OpenHints, ReadOptions};
use zom::json::parse_document;
use zom::model::{from_documents, Array, Node};
use zom::store::MemoryStore;
use zom::Limits;

struct Noop;

impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Runs a future whose store answers at once (a [`MemoryStore`]) to completion.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// The read limits of the harness (small, see [`LIMITS`]).
pub const READ: ReadOptions = ReadOptions {
    bytes_in_flight: 1 << 12,
    limits: LIMITS,
    shard_gap: 16,
};

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let mut input = Input::new(data);
    let flags = input.u8();
    let key = if flags & 1 == 0 {
        "zarr.json"
    } else {
        ".zarray"
    };
    let meta_len = usize::from(input.u16());
    let meta = input.take(meta_len);
    let n_chunks = input.below(5);
    let chunks: Vec<&[u8]> = (0..n_chunks)
        .map(|_| {
            let len = usize::from(input.u16());
            input.take(len)
        })
        .collect();
    let entries = input.below(4);
    let dims: Vec<DimSelection> = (0..entries)
        .map(|_| match input.u8() % 3 {
            0 => DimSelection::All,
            1 => DimSelection::Index(i64::from(input.u8() as i8)),
            _ => DimSelection::slice(
                Some(i64::from(input.u8() as i8)),
                Some(i64::from(input.u8() as i8)),
                Some(i64::from((input.u8() as i8) % 4)).filter(|&s| s != 0),
            ),
        })
        .collect();

    let Some(doc) = out.step("parse", parse_document(meta, &Limits::DEFAULT)) else {
        return out;
    };
    let Some(node) = out.step("from_documents", from_documents([(key, doc)])) else {
        return out;
    };
    let Node::Array(array) = &node else {
        return out;
    };
    let Some(reader) = out.step(
        "open_array",
        ArrayReader::open_with_limits(array, "", LIMITS),
    ) else {
        return out;
    };

    let mut store = MemoryStore::new();
    store.insert(key, meta.to_vec());
    let mut coords_list = Vec::new();
    for (i, bytes) in chunks.iter().enumerate() {
        let Ok(coords) = reader.layout().grid.coords_of(i as u64) else {
            break;
        };
        let Ok(chunk_key) = reader.chunk_key(&coords) else {
            break;
        };
        if !bytes.is_empty() {
            store.insert(&chunk_key, bytes.to_vec());
        }
        coords_list.push(coords);
    }

    // Opening through the store reads the same node.
    let opened = block_on(open(&store, "", OpenHints::default()));
    if let Some(opened) = out.step("open", opened) {
        assert_eq!(
            opened.node, node,
            "open through the store read another node"
        );
    }

    let direct: Vec<_> = coords_list
        .iter()
        .zip(&chunks)
        .map(|(coords, bytes)| reader.decode_chunk(coords, Some(*bytes).filter(|b| !b.is_empty())))
        .collect();
    if let (Some(coords), Some(first), None) =
        (coords_list.first(), direct.first(), reader.shard_shape())
    {
        let through_store = block_on(read_chunk(&store, &reader, coords, &READ));
        match (first, &through_store) {
            (Ok(a), Ok(b)) => assert!(a == b, "read_chunk and decode_chunk disagree"),
            (Err(_), Err(_)) => {}
            (Err(e), Ok(_)) if e.code == zom::ErrorCode::LimitExceeded => {}
            (Ok(_), Err(e)) if e.code == zom::ErrorCode::LimitExceeded => {}
            (a, b) => panic!("decode_chunk gives {a:?}, read_chunk {b:?}"),
        }
        out.step("read_chunk", through_store);
    }
    for result in direct {
        out.step("decode_chunk", result);
    }
    let read_result = block_on(read(&store, &reader, &Selection(dims), &READ, &mut |_| {}));
    out.step("read", read_result);
    if let Array::V3(_) = array {
        // Sharded arrays: the first inner chunk through the shard's index.
        if reader.shard_shape().is_some() {
            let origin = vec![0u64; reader.shape().len()];
            out.step(
                "read_inner_chunk",
                block_on(read_chunk(&store, &reader, &origin, &READ)),
            );
        }
    }
    out
}
