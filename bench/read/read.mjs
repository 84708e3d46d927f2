// Whole-array reads over HTTP: zom against zarrita.js in this one Node process, both reading
// the same arrays from the same local server (tests/server) that answers every request after
// a latency (default 20 ms, a nearby CDN). scripts/bench.mjs runs it after bench/decode/decode.mjs;
// alone (after bench/lib/generate.py wrote bench/data/):
//
//   node bench/read/read.mjs [--runs N] [--latency MS] [--data DIR] [--out results.json]
//
// What is timed, per case and run, from nothing to the array's values in memory:
// - zom:     new zom.FetchStore(url); await zom.openArray(store); await arr.get(undefined, { workers })
//   four ways: workers 0 (decoded on the main thread), 1 worker, N workers with sharedOutput:
//   false (decoded chunks transferred back), and N workers (the default
//   pool size: the machine's parallelism, at most 8). The pools are started by the warm-up
//   run and shared by the runs (as in an application), so worker start-up is not timed; it is
//   measured once on its own (first read of a fresh pool minus a warm read).
// - zarrita: new zarr.FetchStore(url); await zarr.open(store, { kind: "array" }); await zarr.get(arr)
// A fresh store and array each run (no metadata, shard index or connection reuse beyond what
// Node's fetch keeps alive). Each library runs with its own defaults: zom every request at once
// (as far as `get`'s bytesInFlight, 64 MiB, allows; FetchStore sets no limit), a shard the selection covers
// whole fetched with one GET (index included), otherwise its index with a suffix range and
// nearby inner chunks merged into one range request (`coalesce`: gap 1 KiB);
// zarrita 0.7.5 starts every chunk's read at once (no limit), one request per chunk or inner
// chunk, shard indexes read with HEAD + an absolute range (its FetchStore's default,
// `useSuffixRequest: false`), and zarr.open probes v2 metadata before v3 on a new store.
// Node's fetch (undici) opens as many connections to the server as requests are in flight.
// Requests are counted by the server (OPTIONS none here: Node sends no preflights).
// One warm-up run each (whose values are compared byte for byte), then N runs alternating
// zom / zarrita; the table shows medians. Writes the "read" section of bench/results.json.
//
// Targets (issue 16; printed last, saved in results.json "targets"): over the six cases the
// issue names, the geometric mean of zarrita ms / zom ms ≥ 2.5, and for each case zom ms /
// floor ≤ 1.5, where the floor is what no reader could beat here (see floorOf):
//   floor = 2 × latency
//         + max(transfer, decoded bytes / native decode speed / min(workers, chunks))
// 2 round trips: the metadata document, then every object at once (the stored chunks, or the
// shards, each read whole in one request); transfer: the lower of two estimates, those objects
// fetched all at once with plain fetch from the same server code without latency, the fastest
// of 5 (util.mjs transferTime), and the stored bytes at the single-file loopback rate; native decode speed: the
// native MB/s of the same codec in results.json's decode section (bench/decode/decode.mjs with
// examples/bench_decode.rs, which npm run bench runs first); chunks: the chunks the workers
// decode (inner chunks of a shard), which decode in parallel over the N workers; transfer and
// decoding overlap, so the larger counts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import * as zarr from "zarrita";
import * as zom from "zom";
import { defaultWorkers } from "../../pkg/pool/pool.js";
import { startServer } from "../../tests/server/server.mjs";
import { asBytes, benchDir, geomean, loopbackThroughput, median, serverBenchArgs, Targets, table, transferTime } from "../lib/util.mjs";

const here = benchDir;
const args = serverBenchArgs();
const RUNS = args.runs;
const LATENCY = args.latency;

/**
 * The arrays read (bench/lib/generate.py), each 4096² uint16: the six of issue 16's targets, and
 * the sharded blosc zstd array (`target: false`: not in the geometric mean). `native`: the
 * decode case whose native speed the floor uses (default: the same name).
 */
const CASES = [
  { name: "v3_blosc_zstd_shuffle", label: "chunked 1024², blosc zstd" },
  { name: "v3_blosc_lz4_shuffle", label: "chunked 1024², blosc lz4" },
  { name: "v3_gzip", label: "chunked 1024², gzip" },
  { name: "v3_zstd", label: "chunked 1024², zstd" },
  { name: "v3_sharded_zstd", label: "sharded 2048² / 512², zstd" },
  { name: "v2_blosc_lz4_shuffle", label: "v2 chunked 1024², blosc lz4" },
  { name: "v3_sharded_blosc_zstd", label: "sharded 2048² / 512², blosc zstd", native: "v3_blosc_zstd_shuffle", target: false },
];

/** The server's requests by kind: metadata documents, HEADs, and the rest (chunk data). */
function breakdown(log) {
  const meta = log.filter((e) => /(zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/.test(e.url.split("?")[0])).length;
  const head = log.filter((e) => e.method === "HEAD").length;
  return { metadata: meta, head, data: log.length - meta - head };
}

const N = await defaultWorkers();

async function zomRead(url, workers, sharedOutput = true) {
  const store = new zom.FetchStore(url);
  const arr = await zom.openArray(store);
  const { data, shape } = await arr.get(undefined, { workers, sharedOutput });
  const grid = { chunks: arr.chunks, shards: arr.shards };
  arr.free();
  return { data, shape, grid };
}

/**
 * The zom variants: `zom` (the default: N workers writing into a SharedArrayBuffer output),
 * N workers transferring decoded chunks back (`sharedOutput: false`, as on a page that is not
 * cross-origin isolated), main thread and 1 worker.
 */
const LIBS = {
  zom: (url) => zomRead(url, N),
  "zom transfer": (url) => zomRead(url, N, false),
  "zom main thread": (url) => zomRead(url, 0),
  "zom 1 worker": (url) => zomRead(url, 1),
  async zarrita(url) {
    const store = new zarr.FetchStore(url);
    const arr = await zarr.open(store, { kind: "array" });
    const { data, shape } = await zarr.get(arr);
    return { data, shape };
  },
};

async function measure(server, lib, url) {
  server.resetStats();
  const t0 = performance.now();
  const { data, shape, grid } = await LIBS[lib](url);
  const ms = performance.now() - t0;
  return {
    ms,
    requests: server.stats.requests,
    bytes: server.stats.bytes,
    kinds: breakdown(server.stats.log),
    maxInFlight: server.stats.maxInFlight,
    data,
    shape,
    grid,
  };
}

async function bench(server, c) {
  const url = `${server.url}/${c.name}`;
  const names = Object.keys(LIBS);
  const warm = {};
  for (const lib of names) warm[lib] = await measure(server, lib, url);
  for (const lib of names) {
    if (warm[lib].shape.join() !== warm.zarrita.shape.join())
      throw new Error(`${c.name}: shapes differ (${lib} ${warm[lib].shape} vs zarrita ${warm.zarrita.shape})`);
    if (!asBytes(warm[lib].data).equals(asBytes(warm.zarrita.data))) throw new Error(`${c.name}: ${lib} and zarrita read different values`);
  }
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const lib of i % 2 ? [...names].reverse() : names) {
      globalThis.gc?.();
      const r = await measure(server, lib, url);
      delete r.data;
      runs[lib].push(r);
    }
  }
  const summary = (lib) => {
    const rs = runs[lib];
    const requests = new Set(rs.map((r) => r.requests));
    if (requests.size !== 1) throw new Error(`${c.name}: ${lib} made ${[...requests].join(" / ")} requests in different runs`);
    return {
      ms: median(rs.map((r) => r.ms)),
      runs_ms: rs.map((r) => Math.round(r.ms * 10) / 10),
      requests: rs[0].requests,
      requests_by_kind: rs[0].kinds,
      bytes: rs[0].bytes,
      max_in_flight: Math.max(...rs.map((r) => r.maxInFlight)),
    };
  };
  const info = readManifestCase(c.name);
  const r = {
    case: c.name,
    description: c.label,
    target: c.target !== false,
    shape: warm.zom.shape,
    chunks: warm.zom.grid.chunks,
    shards: warm.zom.grid.shards,
    dtype: "uint16",
    stored_bytes: info?.stored_bytes ?? null,
    decoded_bytes: warm.zom.data.byteLength,
    zom: summary("zom"),
    zom_transfer: summary("zom transfer"),
    zom_main_thread: summary("zom main thread"),
    zom_1_worker: summary("zom 1 worker"),
    zarrita: summary("zarrita"),
  };
  r.zarrita_over_zom = r.zarrita.ms / r.zom.ms;
  return r;
}

/** The number of grid cells of `block` over `shape`. */
const cells = (shape, block) => shape.reduce((n, s, i) => n * Math.ceil(s / block[i]), 1);

/**
 * The floor of a case's read (the formula at the top of this file), or null without a native
 * speed for its codec. `loopback`: bytes per ms; `native`: decode case → native MB/s.
 */
async function floorOf(r, c, loopback, native, fast) {
  const mbPerS = native.get(c.native ?? c.name);
  if (mbPerS === undefined || r.stored_bytes === null) return null;
  const grid = r.shape.map((s, d) => Math.ceil(s / (r.shards ?? r.chunks)[d]));
  const objects = cells(r.shape, r.shards ?? r.chunks);
  const chunks = cells(r.shape, r.chunks);
  const roundTrips = 2;
  const parallel = Math.min(N, chunks);
  const sep = r.zarr_format === 2 ? "." : "/";
  const keys = Array.from({ length: objects }, (_, i) =>
    grid.map((_, d) => Math.floor(i / grid.slice(d + 1).reduce((a, b) => a * b, 1)) % grid[d]).join(sep),
  );
  // The lower of two estimates: the requests themselves, or the bytes at one large file's rate
  // (both are noisy here, and a floor must not sit above a read).
  const measured = await transferTime(keys.map((k) => ({ url: `${fast.url}/${c.name}/${r.zarr_format === 2 ? "" : "c/"}${k}` })));
  const transfer = Math.min(measured, r.stored_bytes / loopback);
  const decode = r.decoded_bytes / (mbPerS * 1e3) / parallel;
  return {
    ms: roundTrips * LATENCY + Math.max(transfer, decode),
    round_trips: roundTrips,
    latency_ms: roundTrips * LATENCY,
    transfer_ms: transfer,
    measured_transfer_ms: measured,
    loopback_transfer_ms: r.stored_bytes / loopback,
    decode_ms: decode,
    objects,
    decode_parallelism: parallel,
    native_case: c.native ?? c.name,
    native_mb_per_s: mbPerS,
  };
}

/** Native MB/s by decode case from results.json's decode section (bench/decode/decode.mjs), and its date. */
function nativeSpeeds(results) {
  const speeds = new Map();
  for (const r of results.results ?? []) if (r.native_mb_per_s) speeds.set(r.case, r.native_mb_per_s);
  return { speeds, date: results.date ?? null };
}

/** Worker start-up: a read with a new pool of N workers (closeWorkers first) minus a warm read. */
async function startup(server, c) {
  const url = `${server.url}/${c.name}`;
  const cold = [];
  const warm = [];
  for (let i = 0; i < RUNS; i++) {
    zom.closeWorkers();
    cold.push((await measure(server, "zom", url)).ms);
    warm.push((await measure(server, "zom", url)).ms);
  }
  return { cold_ms: median(cold), warm_ms: median(warm), startup_ms: median(cold) - median(warm) };
}

let manifest;
function readManifestCase(name) {
  manifest ??= JSON.parse(readFileSync(join(args.data, "manifest.json"), "utf8"));
  return [...(manifest.cases ?? []), ...(manifest.read_cases ?? [])].find((c) => c.name === name);
}

let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
const native = nativeSpeeds(results);

const loadBefore = loadavg()[0];
const loopback = await loopbackThroughput();
console.log(`bench: loopback throughput ${(loopback / 1e3).toFixed(0)} MB/s (GETs of a 64 MiB file, no latency)`);
const server = await startServer({ root: args.data, latencyMs: LATENCY });
const fast = await startServer({ root: args.data });
const rows = [];
let workerStartup;
try {
  for (const c of CASES) {
    const dir = join(args.data, c.name);
    if (!existsSync(join(dir, "zarr.json")) && !existsSync(join(dir, ".zarray")))
      throw new Error(`${c.name}: missing in ${args.data} (run bench/lib/generate.py)`);
    const r = await bench(server, c);
    r.zarr_format = c.name.startsWith("v2") ? 2 : 3;
    r.floor = await floorOf(r, c, loopback, native.speeds, fast);
    r.zom_over_floor = r.floor ? r.zom.ms / r.floor.ms : null;
    rows.push(r);
    console.log(
      `bench: read ${c.name.padEnd(24)} zom ${N} workers ${r.zom.ms.toFixed(0).padStart(5)} ms, 1 worker ${r.zom_1_worker.ms.toFixed(0).padStart(5)} ms, ` +
        `main thread ${r.zom_main_thread.ms.toFixed(0).padStart(5)} ms (${r.zom.requests} requests), zarrita ${r.zarrita.ms.toFixed(0).padStart(5)} ms (${r.zarrita.requests} requests)`,
    );
  }
  workerStartup = await startup(server, CASES[0]);
  console.log(`bench: a new pool of ${N} workers adds ${workerStartup.startup_ms.toFixed(0)} ms to its first read`);
} finally {
  await Promise.all([server.close(), fast.close()]);
}

const pkg = (name) => JSON.parse(readFileSync(join(here, "..", "node_modules", name, "package.json"), "utf8")).version;
const targetRows = rows.filter((r) => r.target);
const section = {
  date: new Date().toISOString(),
  versions: { zom: zom.version(), zarrita: pkg("zarrita"), node: process.version },
  load_average_1min: { before: loadBefore, after: loadavg()[0] },
  method: {
    runs: RUNS,
    latency_ms: LATENCY,
    statistic: "median of the runs after one warm-up per library; runs alternate zom / zarrita",
    timed:
      "from a new FetchStore to the whole array's values: zom FetchStore + openArray + arr.get(undefined, {workers}); zarrita FetchStore + zarr.open(store, {kind: 'array'}) + zarr.get(arr)",
    workers: `zom: N = ${N} workers (the default pool size here; output shared with the workers, and with sharedOutput: false transferred back), 1 worker, and 0 (main thread); pools started by the warm-up run and shared across runs; worker_startup: median over the runs of (first read after closeWorkers) - (next read)`,
    server: "tests/server/server.mjs on 127.0.0.1, each response delayed by latency_ms; requests counted by the server",
    concurrency: {
      zom: "defaults: every request at once as far as get's bytesInFlight (64 MiB of decoded chunks) allows, FetchStore without a limit of its own; a shard the selection covers whole fetched with one GET (index included), else its index by a suffix range and inner-chunk ranges within 1 KiB merged into one request",
      zarrita:
        "defaults: every chunk read started at once (no limit); one request per chunk / inner chunk; shard index by HEAD + absolute range (FetchStore useSuffixRequest false); zarr.open tries v2 metadata before v3",
    },
    values: "the two libraries' outputs compared byte for byte (warm-up run)",
    ratio:
      "zarrita_over_zom = zarrita ms / zom ms (zom: N workers, shared output); geomean_zarrita_over_zom: their geometric mean over the cases with target: true",
    floor: `floor ms = 2 × latency_ms + max(transfer, decoded_bytes / (native MB/s × 1000) / min(N workers, chunks)); 2 round trips: the metadata document, then every object at once (stored chunks, or shards read whole, one request each); transfer: the lower of measured_transfer_ms (those objects fetched all at once with plain fetch from the same server code without latency, the fastest of 5) and loopback_transfer_ms (the stored bytes at the single-file loopback rate); native MB/s: examples/bench_decode.rs for native_case in this file's decode section (native_source); chunks = the chunks decoded, inner chunks for shards; transfer and decoding overlap. zom_over_floor = zom ms / floor ms`,
  },
  workers: N,
  loopback_mb_per_s: loopback / 1e3,
  native_source: native.date === null ? null : `results.json decode section of ${native.date}`,
  geomean_zarrita_over_zom: geomean(targetRows.map((r) => r.zarrita_over_zom)),
  worker_startup: workerStartup,
  results: rows,
};

const targets = new Targets("read");
targets.check(`zarrita / zom, geometric mean of ${targetRows.length} cases`, section.geomean_zarrita_over_zom, ">=", 2.5);
for (const r of targetRows) targets.check(`${r.case}: zom / floor`, r.zom_over_floor ?? NaN, "<=", 1.5);
targets.save(results);
results.read = section;
writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);

const kinds = (k) => `${k.metadata} + ${k.head} + ${k.data}`;
console.log(
  `\n${table(
    [
      "whole-array read (4096² uint16)",
      `zom ${N} workers ms`,
      `zom ${N} workers, transfer ms`,
      "zom 1 worker ms",
      "zom main thread ms",
      "zarrita ms",
      `zarrita / zom ${N}w`,
      "zom requests",
      "zarrita requests",
    ],
    rows.map((r) => [
      r.description,
      r.zom.ms.toFixed(0),
      r.zom_transfer.ms.toFixed(0),
      r.zom_1_worker.ms.toFixed(0),
      r.zom_main_thread.ms.toFixed(0),
      r.zarrita.ms.toFixed(0),
      `${(r.zarrita.ms / r.zom.ms).toFixed(2)}×`,
      String(r.zom.requests),
      `${r.zarrita.requests} (${kinds(r.zarrita.requests_by_kind)})`,
    ]),
  )}\n`,
);
console.log(
  `Server latency ${LATENCY} ms per request; median of ${RUNS} runs; zom ${section.versions.zom} (every request at once; a shard read whole is one GET; ` +
    `a new pool adds ${workerStartup.startup_ms.toFixed(0)} ms to its first read), ` +
    `zarrita ${section.versions.zarrita} (all chunk requests at once); values equal. zom requests: ` +
    rows.map((r) => `${r.case} ${kinds(r.zom.requests_by_kind)}`).join(", ") +
    ` (meta + HEAD + data).`,
);
const ms1 = (x) => x.toFixed(1);
console.log(
  `\n${table(
    [
      "floor (4096² uint16)",
      "round trips × latency ms",
      "transfer ms",
      `decode ms (native MB/s ÷ workers)`,
      "floor ms",
      `zom ${N}w ms`,
      "zom / floor",
    ],
    rows.map((r) =>
      r.floor === null
        ? [r.description, "–", "–", "– (no native speed)", "–", r.zom.ms.toFixed(0), "–"]
        : [
            r.description,
            `${r.floor.round_trips} × ${LATENCY} = ${r.floor.latency_ms}`,
            ms1(r.floor.transfer_ms),
            `${ms1(r.floor.decode_ms)} (${r.floor.native_mb_per_s.toFixed(0)} ÷ ${r.floor.decode_parallelism})`,
            ms1(r.floor.ms),
            r.zom.ms.toFixed(0),
            `${r.zom_over_floor.toFixed(2)}×`,
          ],
    ),
  )}\n`,
);
console.log(
  `Floor = 2 round trips × ${LATENCY} ms (the metadata, then every object at once) + the larger of the objects' transfer (the lower of: plain fetch of all of them at once, no ` +
    `latency, fastest of 5; their bytes at the loopback's ${(loopback / 1e3).toFixed(0)} MB/s for one large file) and their decoding at the native speed ` +
    `(${native.date ? `decode run of ${native.date}` : "no decode run in results.json"}) split over min(${N} workers, chunks).`,
);
targets.print();
console.log(`bench: wrote the "read" section of ${args.out}`);
