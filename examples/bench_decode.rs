//! The native ceiling of `npm run bench`: decodes every chunk of the benchmark arrays that
//! bench/lib/generate.py writes, with the same public API the WebAssembly build wraps
//! (`hierarchy::ArrayReader::decode_chunk`), single-threaded, and prints one JSON line per case.
//!
//! `cargo run --release --example bench_decode -- bench/data [--runs N] [CASE …]`
//!
//! Chunks are read into memory first; a run decodes every chunk once (for a sharded array,
//! every shard whole). After one warm-up run the median of N runs (default 7) is reported,
//! as MB/s (10^6 bytes) of decoded output. `fnv1a32` is the FNV-1a hash of all decoded bytes
//! in C order of the chunk grid, which the JS bench compares with zom-wasm's.

use serde_json::{json, Value};
use std::error::Error;
use std::path::Path;
use std::time::Instant;
use zom::codec::DecodedChunk;
use zom::hierarchy::ArrayReader;
use zom::model::Node;

type BoxResult<T> = Result<T, Box<dyn Error>>;

/// FNV-1a, 32 bits, continued from `hash`.
fn fnv1a32(mut hash: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

const FNV_OFFSET: u32 = 0x811c_9dc5;

/// Opens the array in `dir` (v3 `zarr.json` or v2 `.zarray`).
fn open(dir: &Path) -> BoxResult<ArrayReader> {
    let meta = ["zarr.json", ".zarray"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{}: no zarr.json or .zarray", dir.display()))?;
    let value: Value = serde_json::from_slice(&std::fs::read(&meta)?)?;
    match Node::from_value(&value)? {
        Node::Array(array) => Ok(ArrayReader::open(&array, "")?),
        Node::Group(_) => Err(format!("{}: a group, not an array", meta.display()).into()),
    }
}

struct Case {
    reader: ArrayReader,
    chunks: Vec<(Vec<u64>, Option<Vec<u8>>)>,
}

fn load(dir: &Path) -> BoxResult<Case> {
    let reader = open(dir)?;
    let grid = &reader.layout().grid;
    let mut chunks = Vec::new();
    for index in 0..grid.num_chunks()? {
        let coords = grid.coords_of(index)?;
        let key = reader.chunk_key(&coords)?;
        let bytes = std::fs::read(dir.join(&key)).ok();
        chunks.push((coords, bytes));
    }
    Ok(Case { reader, chunks })
}

/// Decodes every chunk once; returns the decoded bytes and (when asked) their hash.
fn run(case: &Case, hash: bool) -> BoxResult<(u64, u32)> {
    let mut total = 0u64;
    let mut h = FNV_OFFSET;
    for (coords, bytes) in &case.chunks {
        let values = case.reader.decode_chunk(coords, bytes.as_deref())?;
        match &values.data {
            DecodedChunk::Fixed(b) => {
                total += b.len() as u64;
                if hash {
                    h = fnv1a32(h, b);
                }
            }
            _ => return Err("the benchmark arrays hold fixed-size values only".into()),
        }
    }
    Ok((total, h))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn main() -> BoxResult<()> {
    let mut args = std::env::args().skip(1);
    let mut data_dir = None;
    let mut runs = 7usize;
    let mut only = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().ok_or("--runs needs a number")?.parse()?,
            _ if data_dir.is_none() => data_dir = Some(arg),
            _ => only.push(arg),
        }
    }
    let data_dir = data_dir.ok_or("usage: bench_decode DATA_DIR [--runs N] [CASE …]")?;
    let data_dir = Path::new(&data_dir);
    let manifest: Value = serde_json::from_slice(&std::fs::read(data_dir.join("manifest.json"))?)?;
    let cases = manifest["cases"]
        .as_array()
        .ok_or("manifest.json has no cases")?;
    for entry in cases {
        let name = entry["name"].as_str().ok_or("a case without a name")?;
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let case = load(&data_dir.join(name))?;
        let (bytes, hash) = run(&case, true)?; // warm-up, and the checksum
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs.max(1) {
            let t0 = Instant::now();
            run(&case, false)?;
            times.push(t0.elapsed().as_secs_f64());
        }
        let seconds = median(times);
        let line = json!({
            "case": name,
            "chunks": case.chunks.len(),
            "decoded_bytes": bytes,
            "runs": runs.max(1),
            "median_ms": seconds * 1e3,
            "mb_per_s": bytes as f64 / 1e6 / seconds,
            "fnv1a32": format!("{hash:08x}"),
        });
        println!("{line}");
    }
    Ok(())
}
