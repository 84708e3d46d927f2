// Whole-array reads over HTTP: zom against zarrita.js in this one Node process, both reading
// the same arrays from the same local server (tests/server) that answers every request after
// a latency (default 20 ms, a nearby CDN). scripts/bench.mjs runs it after bench/decode.mjs;
// alone (after bench/generate.py wrote bench/data/):
//
//   node bench/read.mjs [--runs N] [--latency MS] [--data DIR] [--out results.json]
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
// Node's fetch keeps alive). Each library runs with its own defaults: zom at most 16 requests
// in flight (FetchStore `concurrency` and `get` `concurrency`), a shard the selection covers
// whole fetched with one GET (index included), otherwise its index with a suffix range and
// nearby inner chunks merged into one range request (`coalesce`: gap 1 KiB);
// zarrita 0.7.5 starts every chunk's read at once (no limit), one request per chunk or inner
// chunk, shard indexes read with HEAD + an absolute range (its FetchStore's default,
// `useSuffixRequest: false`), and zarr.open probes v2 metadata before v3 on a new store.
// Node's fetch (undici) opens as many connections to the server as requests are in flight.
// Requests are counted by the server (OPTIONS none here: Node sends no preflights).
// One warm-up run each (whose values are compared byte for byte), then N runs alternating
// zom / zarrita; the table shows medians. Writes the "read" section of bench/results.json.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import * as zom from "zom";
import { defaultWorkers } from "../pkg/pool/pool.js";
import * as zarr from "zarrita";
import { startServer } from "../tests/server/server.mjs";
import { benchDir, median, serverBenchArgs, table } from "./util.mjs";

const here = benchDir;
const args = serverBenchArgs();
const RUNS = args.runs;
const LATENCY = args.latency;

/** The arrays read: bench/generate.py's chunked blosc-zstd decode case and its sharded twin. */
const CASES = [
  { name: "v3_blosc_zstd_shuffle", label: "chunked 1024², blosc zstd" },
  { name: "v3_sharded_blosc_zstd", label: "sharded 2048² / 512², blosc zstd" },
];


/** The server's requests by kind: metadata documents, HEADs, and the rest (chunk data). */
function breakdown(log) {
  const meta = log.filter((e) => /(zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/.test(e.url.split("?")[0])).length;
  const head = log.filter((e) => e.method === "HEAD").length;
  return { metadata: meta, head, data: log.length - meta - head };
}

const asBytes = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

const N = await defaultWorkers();

async function zomRead(url, workers, sharedOutput = true) {
  const store = new zom.FetchStore(url);
  const arr = await zom.openArray(store);
  const { data, shape } = await arr.get(undefined, { workers, sharedOutput });
  arr.free();
  return { data, shape };
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
  const { data, shape } = await LIBS[lib](url);
  const ms = performance.now() - t0;
  return { ms, requests: server.stats.requests, bytes: server.stats.bytes, kinds: breakdown(server.stats.log), maxInFlight: server.stats.maxInFlight, data, shape };
}

async function bench(server, c) {
  const url = `${server.url}/${c.name}`;
  const names = Object.keys(LIBS);
  const warm = {};
  for (const lib of names) warm[lib] = await measure(server, lib, url);
  for (const lib of names) {
    if (warm[lib].shape.join() !== warm.zarrita.shape.join()) throw new Error(`${c.name}: shapes differ (${lib} ${warm[lib].shape} vs zarrita ${warm.zarrita.shape})`);
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
  return {
    case: c.name,
    description: c.label,
    shape: warm.zom.shape,
    dtype: "uint16",
    stored_bytes: info?.stored_bytes ?? null,
    decoded_bytes: warm.zom.data.byteLength,
    zom: summary("zom"),
    zom_transfer: summary("zom transfer"),
    zom_main_thread: summary("zom main thread"),
    zom_1_worker: summary("zom 1 worker"),
    zarrita: summary("zarrita"),
  };
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

const loadBefore = loadavg()[0];
const server = await startServer({ root: args.data, latencyMs: LATENCY });
const rows = [];
let workerStartup;
try {
  for (const c of CASES) {
    if (!existsSync(join(args.data, c.name, "zarr.json"))) throw new Error(`${c.name}: missing in ${args.data} (run bench/generate.py)`);
    const r = await bench(server, c);
    rows.push(r);
    console.log(
      `bench: read ${c.name.padEnd(24)} zom ${N} workers ${r.zom.ms.toFixed(0).padStart(5)} ms, 1 worker ${r.zom_1_worker.ms.toFixed(0).padStart(5)} ms, ` +
        `main thread ${r.zom_main_thread.ms.toFixed(0).padStart(5)} ms (${r.zom.requests} requests), zarrita ${r.zarrita.ms.toFixed(0).padStart(5)} ms (${r.zarrita.requests} requests)`,
    );
  }
  workerStartup = await startup(server, CASES[0]);
  console.log(`bench: a new pool of ${N} workers adds ${workerStartup.startup_ms.toFixed(0)} ms to its first read`);
} finally {
  await server.close();
}

const pkg = (name) => JSON.parse(readFileSync(join(here, "..", "node_modules", name, "package.json"), "utf8")).version;
const section = {
  date: new Date().toISOString(),
  versions: { zom: zom.version(), zarrita: pkg("zarrita"), node: process.version },
  load_average_1min: { before: loadBefore, after: loadavg()[0] },
  method: {
    runs: RUNS,
    latency_ms: LATENCY,
    statistic: "median of the runs after one warm-up per library; runs alternate zom / zarrita",
    timed: "from a new FetchStore to the whole array's values: zom FetchStore + openArray + arr.get(undefined, {workers}); zarrita FetchStore + zarr.open(store, {kind: 'array'}) + zarr.get(arr)",
    workers: `zom: N = ${N} workers (the default pool size here; output shared with the workers, and with sharedOutput: false transferred back), 1 worker, and 0 (main thread); pools started by the warm-up run and shared across runs; worker_startup: median over the runs of (first read after closeWorkers) - (next read)`,
    server: "tests/server/server.mjs on 127.0.0.1, each response delayed by latency_ms; requests counted by the server",
    concurrency: {
      zom: "defaults: at most 16 requests in flight (FetchStore concurrency 16, get concurrency 16); a shard the selection covers whole fetched with one GET (index included), else its index by a suffix range and inner-chunk ranges within 1 KiB merged into one request",
      zarrita: "defaults: every chunk read started at once (no limit); one request per chunk / inner chunk; shard index by HEAD + absolute range (FetchStore useSuffixRequest false); zarr.open tries v2 metadata before v3",
    },
    values: "the two libraries' outputs compared byte for byte (warm-up run)",
  },
  workers: N,
  worker_startup: workerStartup,
  results: rows,
};

let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
results.read = section;
writeFileSync(args.out, JSON.stringify(results, null, 2) + "\n");

const kinds = (k) => `${k.metadata} + ${k.head} + ${k.data}`;
console.log(
  `\n${table(
    ["whole-array read (4096² uint16)", `zom ${N} workers ms`, `zom ${N} workers, transfer ms`, "zom 1 worker ms", "zom main thread ms", "zarrita ms", `zarrita / zom ${N}w`, "zom requests", "zarrita requests"],
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
  `Server latency ${LATENCY} ms per request; median of ${RUNS} runs; zom ${section.versions.zom} (≤16 requests in flight; a shard read whole is one GET; ` +
    `a new pool adds ${workerStartup.startup_ms.toFixed(0)} ms to its first read), ` +
    `zarrita ${section.versions.zarrita} (all chunk requests at once); values equal. zom requests: ` +
    rows.map((r) => `${r.case} ${kinds(r.zom.requests_by_kind)}`).join(", ") +
    ` (meta + HEAD + data).`,
);
console.log(`bench: wrote the "read" section of ${args.out}`);
