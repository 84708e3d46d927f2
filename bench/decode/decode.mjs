// Decode throughput: zom (WebAssembly) against zarrita.js + numcodecs.js in this one Node
// process, on the arrays bench/lib/generate.py writes into bench/data/. scripts/bench.mjs runs it
// (after building pkg/, generating the data and running the native ceiling); alone:
//
//   node bench/decode/decode.mjs [--runs N] [--cases a,b] [--native native.jsonl] [--out results.json]
//
// Profiling: `node --cpu-prof bench/decode/decode.mjs --only zom --cases v3_gzip`. pkg/'s .wasm has
// its function names stripped (wasm-opt --strip-debug); for named frames, put the
// wasm-bindgen output run through `wasm-opt -O3 -g` (same flags otherwise) in its place.
//
// What is timed, per case and run: decoding every chunk of the array once, one after the other
// on this thread, from encoded bytes already in memory (no I/O, no metadata parsing: each
// library opens the array once, before timing) to a TypedArray of the chunk's values.
// - zom: `decoder.decode(bytes, coords)` of one ChunkDecoder per array (a new TypedArray per
//   chunk, as zarrita gives); and "into a buffer": the same with `{ out }`, one buffer reused
//   for every chunk, which is what the native ceiling does too (its decoded Vec's memory is
//   reused by malloc), so zom/native compares that column.
// - zarrita: `await arr.getChunk(coords)` of one `zarr.open(store, { kind: "array" })` per
//   array, on an in-memory store (a Map with get/getRange).
// - Sharded arrays: zom decodes each shard whole (4 shards of 2048²); zarrita has no
//   whole-shard read, so it decodes every inner chunk (64 of 512²) with getChunk, which reads
//   each shard's index once (cached by zarrita after the warm-up) and then the chunk's bytes.
//   Both produce the same 32 MiB of values.
// Before timing, both outputs are assembled into the whole array and compared byte for byte,
// and zom's FNV-1a hash is compared with the native build's. A warm-up run precedes the
// timed runs, which alternate zom / zarrita; each number is the median of the runs.
// Targets (printed last, saved in results.json "targets"): zstd and gzip into a buffer within
// 1.5× of native.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as zarr from "zarrita";
import * as zom from "zom";
import { median, Targets } from "../lib/util.mjs";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    cases: { type: "string" },
    native: { type: "string" },
    out: { type: "string", default: join(here, "results.json") },
    data: { type: "string", default: join(here, "data") },
    // Time one library only (for profiling with node --cpu-prof); the other column reads "–".
    only: { type: "string" },
  },
});
const RUNS = Math.max(1, Number(args.runs));

/** The in-memory store zarrita reads: keys are absolute paths ("/c/0/0"). */
class MemStore {
  constructor(files) {
    this.files = files;
  }
  get(key) {
    return this.files.get(key);
  }
  getRange(key, range) {
    const bytes = this.files.get(key);
    if (bytes === undefined) return undefined;
    if ("suffixLength" in range) return bytes.subarray(bytes.length - range.suffixLength);
    return bytes.subarray(range.offset, range.offset + range.length);
  }
}

/** All C-order coordinates of a grid. */
function gridCoords(gridShape) {
  const out = [];
  const rec = (prefix, d) => {
    if (d === gridShape.length) return void out.push(prefix);
    for (let i = 0; i < gridShape[d]; i++) rec([...prefix, i], d + 1);
  };
  rec([], 0);
  return out;
}

function readBytes(file) {
  return existsSync(file) ? new Uint8Array(readFileSync(file)) : undefined;
}

function fnv1a32(hash, bytes) {
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}

function asBytes(view) {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Copies a 2-D chunk (C order) into the whole array. */
function place(whole, shape, chunk, chunkShape, coords) {
  const [rows, cols] = chunkShape;
  const r0 = coords[0] * rows;
  const c0 = coords[1] * cols;
  const w = Math.min(cols, shape[1] - c0);
  for (let r = 0; r < rows && r0 + r < shape[0]; r++) {
    whole.set(chunk.subarray(r * cols, r * cols + w), (r0 + r) * shape[1] + c0);
  }
}

async function prepare(c) {
  const dir = join(args.data, c.name);
  const metaName = c.zarr_format === 3 ? "zarr.json" : ".zarray";
  const metaBytes = readFileSync(join(dir, metaName));
  const meta = JSON.parse(metaBytes.toString("utf8"));

  // zom: one decoder, the stored chunks (shards) in C order.
  const decoder = new zom.ChunkDecoder(meta);
  const files = new Map([[`/${metaName}`, new Uint8Array(metaBytes)]]);
  const zomChunks = gridCoords(decoder.gridShape).map((coords) => {
    const key = decoder.chunkKey(coords);
    const bytes = readBytes(join(dir, key));
    if (bytes !== undefined) files.set(`/${key}`, bytes);
    return { coords, bytes };
  });

  // zarrita: the same bytes (shared, not copied) behind an in-memory store.
  const arr = await zarr.open(new MemStore(files), { kind: "array" });
  const innerGrid = arr.shape.map((n, i) => Math.ceil(n / arr.chunks[i]));
  const zarritaCoords = gridCoords(innerGrid);
  return { meta, decoder, zomChunks, arr, zarritaCoords, shape: arr.shape, zomShape: decoder.chunkShape };
}

function runZom(p) {
  let sink = 0;
  for (const { coords, bytes } of p.zomChunks) sink += p.decoder.decode(bytes ?? null, coords).data.length;
  return sink;
}

/** zom decoding every chunk into one reused buffer (the `out` option): no new buffer per chunk. */
function runZomInto(p) {
  let sink = 0;
  for (const { coords, bytes } of p.zomChunks) sink += p.decoder.decode(bytes ?? null, coords, { out: p.out }).data.length;
  return sink;
}

async function runZarrita(p) {
  let sink = 0;
  for (const coords of p.zarritaCoords) sink += (await p.arr.getChunk(coords)).data.length;
  return sink;
}

/** Both libraries' values as whole arrays, compared; zom's hash in stored-chunk order. */
async function verify(p, c) {
  const Ctor = p.arr.dtype === "float32" ? Float32Array : Uint16Array;
  const n = p.shape.reduce((a, b) => a * b, 1);
  const a = new Ctor(n);
  const b = new Ctor(n);
  let hash = 0x811c9dc5;
  for (const { coords, bytes } of p.zomChunks) {
    const { data, shape } = p.decoder.decode(bytes ?? null, coords);
    p.out ??= new Uint8Array(data.byteLength);
    p.decoder.decode(bytes ?? null, coords, { out: p.out });
    if (!Buffer.from(p.out).equals(Buffer.from(asBytes(data)))) throw new Error(`${c.name}: zom decodes different values into a buffer`);
    hash = fnv1a32(hash, asBytes(data));
    if (shape.join() !== p.zomShape.join()) throw new Error(`${c.name}: zom chunk shape ${shape}`);
    place(a, p.shape, data, shape, coords);
  }
  for (const coords of p.zarritaCoords) {
    const { data, shape, stride } = await p.arr.getChunk(coords);
    if (stride.join() !== [shape[1], 1].join()) throw new Error(`${c.name}: zarrita chunk not in C order`);
    place(b, p.shape, data, shape, coords);
  }
  if (!Buffer.from(asBytes(a)).equals(Buffer.from(asBytes(b)))) {
    throw new Error(`${c.name}: zom and zarrita decode different values`);
  }
  return { hash: hash.toString(16).padStart(8, "0"), decodedBytes: a.byteLength };
}

async function bench(c) {
  const p = await prepare(c);
  const { hash, decodedBytes } = await verify(p, c);
  runZom(p); // warm-up (verify already ran both once)
  runZomInto(p);
  await runZarrita(p);
  const tz = [];
  const ti = [];
  const tr = [];
  for (let i = 0; i < RUNS; i++) {
    if (args.only !== "zarrita") {
      globalThis.gc?.();
      const t0 = performance.now();
      runZom(p);
      tz.push(performance.now() - t0);
      globalThis.gc?.();
      const t1 = performance.now();
      runZomInto(p);
      ti.push(performance.now() - t1);
    }
    if (args.only !== "zom") {
      globalThis.gc?.();
      const t0 = performance.now();
      await runZarrita(p);
      tr.push(performance.now() - t0);
    }
  }
  const mbps = (ms) => decodedBytes / 1e6 / (ms / 1e3);
  return {
    case: c.name,
    description: c.description,
    dtype: c.dtype,
    stored_ratio: c.stored_bytes / c.decoded_bytes,
    decoded_bytes: decodedBytes,
    zom_chunks: p.zomChunks.length,
    zarrita_chunks: p.zarritaCoords.length,
    fnv1a32: hash,
    zom_ms: median(tz),
    zarrita_ms: median(tr),
    zom_mb_per_s: mbps(median(tz)),
    zom_into_ms: median(ti),
    zom_into_mb_per_s: mbps(median(ti)),
    zarrita_mb_per_s: mbps(median(tr)),
  };
}

function readNative(file) {
  const out = new Map();
  if (!file || !existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim()) {
      const r = JSON.parse(line);
      out.set(r.case, r);
    }
  }
  return out;
}

function table(rows) {
  const head = [
    "case",
    "stored",
    "zom MB/s",
    "zarrita MB/s",
    "zom/zarrita",
    "zom into buffer MB/s",
    "native MB/s",
    "zom into buffer/native",
  ];
  const fmt = (x, d = 0) => (x === undefined || Number.isNaN(x) ? "–" : x.toFixed(d));
  const body = rows.map((r) => [
    r.case,
    `${(r.stored_ratio * 100).toFixed(0)}%`,
    fmt(r.zom_mb_per_s),
    fmt(r.zarrita_mb_per_s),
    `${fmt(r.zom_mb_per_s / r.zarrita_mb_per_s, 2)}×`,
    fmt(r.zom_into_mb_per_s),
    fmt(r.native_mb_per_s),
    r.native_mb_per_s ? `${fmt(r.zom_into_mb_per_s / r.native_mb_per_s, 2)}` : "–",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((s, i) => (i === 0 ? s.padEnd(widths[i]) : s.padStart(widths[i]))).join(" | ")} |`;
  return [
    line(head),
    `|${widths.map((w, i) => (i === 0 ? ":" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|")}|`,
    ...body.map(line),
  ].join("\n");
}

/** The cases whose zom / native ratio has a target (issue 16). */
const TARGET_CASES = ["v3_zstd", "v3_gzip"];

const manifest = JSON.parse(readFileSync(join(args.data, "manifest.json"), "utf8"));
const wanted = args.cases ? new Set(args.cases.split(",")) : null;
const native = readNative(args.native);
// A ChunkDecoder decodes synchronously: the codec parts its arrays need are loaded first, once.
await zom.loadCodecParts();
const rows = [];
const loadBefore = loadavg()[0];
for (const c of manifest.cases) {
  if (wanted && !wanted.has(c.name)) continue;
  const r = await bench(c);
  const n = native.get(c.name);
  if (n) {
    if (n.fnv1a32 !== r.fnv1a32) throw new Error(`${c.name}: native decodes different values (${n.fnv1a32} ≠ ${r.fnv1a32})`);
    r.native_mb_per_s = n.mb_per_s;
  }
  rows.push(r);
  console.log(
    `bench: ${c.name.padEnd(24)} zom ${r.zom_mb_per_s.toFixed(0).padStart(5)} MB/s (into a buffer ${r.zom_into_mb_per_s.toFixed(0).padStart(5)}), ` +
      `zarrita ${r.zarrita_mb_per_s.toFixed(0).padStart(5)} MB/s` +
      (n ? `, native ${n.mb_per_s.toFixed(0).padStart(5)} MB/s` : ""),
  );
}

const pkg = (name) => JSON.parse(readFileSync(join(here, "..", "node_modules", name, "package.json"), "utf8")).version;
const results = {
  date: new Date().toISOString(),
  machine: {
    node: process.version,
    v8: process.versions.v8,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: availableParallelism(),
    memory_gib: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`,
    // Other work on the machine skews absolute numbers (the ratios less: runs alternate).
    load_average_1min: { before: loadBefore, after: loadavg()[0] },
  },
  versions: {
    zom: zom.version(),
    zarrita: pkg("zarrita"),
    numcodecs: pkg("numcodecs"),
    data: { zarr: manifest.zarr, numcodecs: manifest.numcodecs },
  },
  method: {
    runs: RUNS,
    statistic: "median of the runs after one warm-up; each run decodes every chunk of the array once, sequentially, from bytes in memory",
    unit: "MB/s = 10^6 bytes of decoded output per second",
    native:
      "examples/bench_decode.rs, release build, same chunks, same median; glibc malloc kept from returning memory (MALLOC_MMAP_THRESHOLD_) so it measures decoding, not page faults",
    into_buffer:
      "zom decoding every chunk into one reused buffer (decode's `out` option): no new TypedArray per chunk, as native reuses its memory; zom/native compares this column",
    sharded: "zom decodes each 2048² shard whole; zarrita decodes each 512² inner chunk with getChunk (shard index cached)",
  },
  results: rows,
};
// zstd and gzip within 1.5× of the native build (zom into a buffer / native ≥ 1 / 1.5);
// without a native figure (--no-native) there is nothing to check.
const targets = new Targets("decode");
for (const name of TARGET_CASES) {
  const r = rows.find((x) => x.case === name);
  if (r?.native_mb_per_s)
    targets.check(`${name}: zom into a buffer / native`, r.zom_into_mb_per_s / r.native_mb_per_s, ">=", 0.667, { unit: "" });
}
targets.save(results);
writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\n${table(rows)}\n`);
if (rows.some((r) => r.case === "v3_raw")) {
  console.log("v3_raw: zarrita returns a view of the stored bytes (no decode, no copy); zom copies them into and out of WebAssembly.");
}
if (rows.some((r) => r.case === "v3_sharded_zstd")) {
  console.log(
    "v3_sharded_zstd: zom decodes each of the 4 shards whole; zarrita decodes the 64 inner chunks with getChunk (shard indexes cached).",
  );
}
console.log(
  `Node ${process.version}, ${results.machine.cpu}, ${results.machine.cores} cores; zarrita ${results.versions.zarrita}, ` +
    `numcodecs ${results.versions.numcodecs}; median of ${RUNS} runs; MB = 10^6 bytes of decoded output; ` +
    `load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}.`,
);
targets.print();
console.log(`bench: wrote ${args.out}`);
