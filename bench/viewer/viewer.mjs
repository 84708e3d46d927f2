// The viewer bench: zom against zarrita.js 0.7.5 reading the way a web viewer reads — an array
// opened once, then tiles (chunks, or inner chunks of a shard) as the user pans, from a store
// 20–100 ms away — in one Node process, from the repository's HTTP test server
// (tests/server/server.mjs: latency per response, Range, requests counted), each library with
// its defaults, runs alternating zom / zarrita, medians (docs/benchmarks-viewer.md says why and
// how to read the tables, bench/viewer/viewer-tables.mjs prints them). scripts/bench.mjs runs it
// (--only viewer); alone
// (after bench/lib/generate.py and bench/viewer/generate_pyramid.py wrote bench/data/):
//
//   node --expose-gc bench/viewer/viewer.mjs [--runs N] [--quick] [--native FILE] [--section NAME]
//                                     [--parts tiles,whole,concurrency,soak,chromium] [--merge]
//                                     [--data DIR] [--out results.json]
//
// --merge keeps the parts not run from the section already in results.json (their run's date in
// `parts_from`), so that one part can be run again alone.
//
// Parts (bench/data/viewer/*, 4096² uint16, written by bench/lib/generate.py):
// - tiles: 16 tiles not read before, a 4×4 block — inner chunks of one shard (sharded_zstd,
//   2048² shards of 256² chunks) and 512² chunks (chunked_zstd) — one by one (each awaited
//   before the next) and at once (zom: `arr.getChunks(coords)` where the array has it, else
//   `getChunk` × 16 with Promise.all; zarrita: `getChunk` × 16), at 20, 50 and 100 ms. The
//   array is opened before timing (zom: openArray(new FetchStore(url)); zarrita:
//   zarr.open(new zarr.FetchStore(url), {kind: "array"})), a fresh store and array every run.
//   Also: the requests of one more tile of a shard whose index the array has read.
// - whole: new store, open and read everything (zom arr.get(), zarrita zarr.get) at 20 and
//   100 ms: chunked 512² blosc zstd (64 chunks), sharded zstd, and incompressible noise chunked
//   and sharded (33.5 MB stored: the transfer is a real term).
// - concurrency: the 64-chunk array whole at 100 ms with zom's FetchStore `concurrency` 6, 16,
//   64 and unlimited (and get's own `concurrency` lifted to 1e9 where get still has one).
// - soak: memory of a panning viewer, each variant in its own Node process
//   (bench/viewer/viewer-soak.mjs) against this process's server at 5 ms: 400 rounds of 16 tiles at
//   once over chunked_zstd, half of each round's tiles cancelled by an AbortSignal after 0–15
//   ms (seeded), zom (default workers, workers: 0) and zarrita; and 100 rounds without
//   cancelling (zom default workers, 1 worker, 0, zarrita). Peak RSS (getrusage maxrss), every
//   tile checked against a reference checksum, every rejection an abort of a cancelled tile.
// - chromium: headless Debian Chromium (tests/browser/chromium.mjs), a page bundled by esbuild
//   (bench/viewer/viewer-page.js) served cross-origin isolated with the data from one origin over
//   HTTP/1.1: time to first tile of an OME-Zarr 0.5 pyramid (ome-zarr-py,
//   bench/viewer/generate_pyramid.py; plain and consolidated) at 50 ms — open the image group, read
//   its multiscales, open the levels, read the 4 visible tiles of the level nearest 1024²; the
//   concurrency question in the browser; the soak's memory (renderer peak RSS from /proc, and
//   performance.measureUserAgentSpecificMemory()).
//
// Requests are counted by the server; "round trips" are the waves in which requests reach it
// (a request more than half a latency after the first of its wave starts a new one). Floors
// (what no reader could beat): round trips when every independent request is in flight at once
// × latency + the transfer at its lower estimate: the same requests measured with plain fetch
// without latency, all at once or one by one as the case reads them (transferOf), or the bytes
// at the single-file loopback rate (util.mjs loopbackThroughput), whichever is less +
// decoding at native speed (examples/bench_decode.rs on bench/data/viewer: --native FILE, which
// scripts/bench.mjs passes; else the figures of the last run in results.json) over the default
// decode workers, transfer and decode overlapped where they can be (see tileFloor, wholeFloor).
//
// Writes the section `--section` (default "viewer") of results.json; with another name (the
// "before" figures: viewer_before) the target lines go into that section only.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as zarr from "zarrita";
import * as zom from "zom";
import { defaultWorkers } from "../../pkg/pool/pool.js";
import { startServer } from "../../tests/server/server.mjs";
import { block, checksum, zarritaReader, zomReader } from "../lib/tiles.js";
import {
  alternateRuns,
  asBytes,
  benchDir,
  geomean,
  isShardIndexRead,
  loopbackThroughput,
  median,
  nativeSpeeds,
  nativeSummary,
  runSummary,
  seenBy,
  serversByLatency,
  Targets,
  watchdog,
} from "../lib/util.mjs";
import { viewerChromium } from "./viewer-chromium.mjs";
import { viewerFloors } from "./viewer-floors.mjs";
import { viewerTables } from "./viewer-tables.mjs";

const root = join(benchDir, "..");
const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    quick: { type: "boolean", default: false },
    native: { type: "string" },
    section: { type: "string", default: "viewer" },
    parts: { type: "string", default: "tiles,whole,concurrency,soak,chromium" },
    merge: { type: "boolean", default: false },
    data: { type: "string", default: join(benchDir, "data") },
    out: { type: "string", default: join(benchDir, "results.json") },
  },
});
const QUICK = opts.quick;
const RUNS = QUICK ? 3 : Math.max(3, Number(opts.runs));
const PARTS = new Set(opts.parts.split(","));
const TILE_LATENCIES = QUICK ? [20, 100] : [20, 50, 100];
const WHOLE_LATENCIES = [20, 100];
const CONCURRENCY_LATENCY = 100;
const CONCURRENCIES = [6, 16, 64, Infinity];
const TTFT_LATENCY = 50;
const SOAK_LATENCY = 5;
const SOAK_ROUNDS = QUICK ? 100 : 400;
const SOAK_ROUNDS_NO_CANCEL = QUICK ? 25 : 100;
/** Chromium's soak and concurrency runs are slower (a tab each): fewer of them keep the bench near 10 minutes. */
const CHROMIUM_SOAK_ROUNDS = QUICK ? 100 : 200;
const CHROMIUM_CONCURRENCY_RUNS = Math.min(RUNS, 3);
const SOAK_SEED = 1;
/** Every wait is bounded: a soak child, a Chromium case, the whole bench. */
const SOAK_TIMEOUT_MS = 300_000;
const PAGE_TIMEOUT_MS = 120_000;
const BENCH_TIMEOUT_MS = 45 * 60_000;

const viewerDir = join(opts.data, "viewer");
const pyramidDir = join(opts.data, "viewer_pyramid");
for (const [dir, by] of [
  [viewerDir, "bench/lib/generate.py"],
  [pyramidDir, "bench/viewer/generate_pyramid.py"],
]) {
  if (!existsSync(join(dir, "manifest.json"))) throw new Error(`${dir} is missing: run ${by} (npm run bench -- --only viewer does)`);
}
const manifest = new Map(JSON.parse(readFileSync(join(viewerDir, "manifest.json"), "utf8")).cases.map((c) => [c.name, c]));
const pyramid = JSON.parse(readFileSync(join(pyramidDir, "manifest.json"), "utf8"));
const N = await defaultWorkers();

// ---------------------------------------------------------------------------------------------
// Requests, as the server saw them.

const METADATA = /(zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/;

/**
 * The requests by kind: metadata documents found, missing documents (zarrita's v2 probes),
 * HEADs, shard indexes (a suffix range, or a range at the end of the file of an index's length
 * 16 n + 4) and the rest (chunk data). `fileOf(urlPath)` is the file the server served.
 */
function kindsOf(log, fileOf) {
  const k = { metadata: 0, missing: 0, head: 0, index: 0, data: 0 };
  for (const e of log) {
    const path = decodeURIComponent(e.url.split("?")[0]);
    if (e.status === 404) k.missing += 1;
    else if (METADATA.test(path)) k.metadata += 1;
    else if (e.method === "HEAD") k.head += 1;
    else if (e.range) {
      const file = fileOf(path);
      k[isShardIndexRead(e.range, file && existsSync(file) ? statSync(file).size : -1) ? "index" : "data"] += 1;
    } else k.data += 1;
  }
  return k;
}

/** What a server saw since its last resetStats, the files served found by `fileOf`. */
const seen = (server, latency, fileOf) => seenBy(server, latency, (log) => kindsOf(log, fileOf));

const viewerFile = (path) => join(viewerDir, path.replace(/^\/(viewer\/)?/, ""));

/** The servers of the Node parts, one per latency, serving bench/data/viewer at /viewer/. */
const servers = serversByLatency(opts.data);

/** Runs `measure(lib)` RUNS times for each library, alternating their order run by run. */
const alternate = (libs, measure) => alternateRuns(libs, RUNS, measure);

// ---------------------------------------------------------------------------------------------
// Floors. (bench/viewer/viewer-floors.mjs).

const { tileFloor, wholeFloor } = viewerFloors({ N, manifest, servers, viewerDir });

// ---------------------------------------------------------------------------------------------
// Node: tiles.

const TILE_CASES = [
  { name: "sharded_zstd", label: "sharded 2048²/256² zstd, 16 inner chunks of one shard", coords: block(10, 10) },
  { name: "chunked_zstd", label: "chunked 512² zstd, 16 chunks", coords: block(2, 2) },
];
const MODES = { sequential: "one by one", atOnce: "at once" };
const READERS = { zom: zomReader(zom), zarrita: zarritaReader(zarr) };

async function tileRun(server, latency, lib, c, mode) {
  const reader = READERS[lib];
  const arr = await reader.open(`${server.url}/viewer/${c.name}`);
  server.resetStats();
  const t0 = performance.now();
  const results = await reader[mode](
    arr,
    c.coords.map((coords) => ({ coords })),
  );
  const ms = performance.now() - t0;
  const saw = seen(server, latency, viewerFile);
  const batch = reader.batch(arr);
  reader.close(arr);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw new Error(`${c.name} ${mode}: ${lib} failed: ${failed.reason?.stack ?? failed.reason}`);
  return { ms, ...saw, batch, chunks: results.map((r) => r.value) };
}

async function tiles(loopback, native) {
  // Warm-up: every library, case and mode once (modules, pools, JIT), values compared.
  const warm = await servers.at(TILE_LATENCIES[0]);
  let batch = false;
  for (const c of TILE_CASES) {
    for (const mode of Object.keys(MODES)) {
      const z = await tileRun(warm, TILE_LATENCIES[0], "zom", c, mode);
      const r = await tileRun(warm, TILE_LATENCIES[0], "zarrita", c, mode);
      batch ||= z.batch;
      z.chunks.forEach((chunk, k) => {
        if (chunk.shape.join() !== r.chunks[k].shape.join() || !asBytes(chunk.data).equals(asBytes(r.chunks[k].data))) {
          throw new Error(`${c.name} ${mode}: zom and zarrita read different values for tile ${c.coords[k]}`);
        }
      });
    }
  }
  const rows = [];
  for (const latency of TILE_LATENCIES) {
    const server = await servers.at(latency);
    for (const c of TILE_CASES) {
      for (const mode of Object.keys(MODES)) {
        const runs = await alternate(["zom", "zarrita"], (lib) => tileRun(server, latency, lib, c, mode));
        const row = {
          case: `${c.name} ${mode} @${latency}`,
          array: c.name,
          description: `${c.label}, ${MODES[mode]}, ${latency} ms`,
          mode,
          latency_ms: latency,
          tiles: c.coords.length,
          zom_call: mode === "sequential" ? "getChunk, each awaited" : batch ? "getChunks (batch)" : "getChunk × 16, Promise.all",
          zom: runSummary(runs.zom),
          zarrita: runSummary(runs.zarrita),
          floor: await tileFloor(c.name, c.coords, mode, latency, loopback, native),
        };
        row.zarrita_over_zom = row.zarrita.ms / row.zom.ms;
        row.zom_over_floor = row.zom.ms / row.floor.ms;
        rows.push(row);
        console.log(
          `bench: viewer tiles ${row.case.padEnd(30)} zom ${row.zom.ms.toFixed(0).padStart(5)} ms (${row.zom.requests} req), zarrita ${row.zarrita.ms.toFixed(0).padStart(5)} ms (${row.zarrita.requests} req), floor ${row.floor.ms.toFixed(0)} ms`,
        );
      }
    }
  }
  return { rows, batch };
}

/** Requests of a tile of a shard whose index the array has read (after another tile of that shard). */
async function indexReuse() {
  const latency = TILE_LATENCIES[0];
  const server = await servers.at(latency);
  const out = {};
  for (const lib of ["zom", "zarrita"]) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const reader = READERS[lib];
      const arr = await reader.open(`${server.url}/viewer/sharded_zstd`);
      await reader.sequential(arr, [{ coords: [10, 10] }]);
      server.resetStats();
      const t0 = performance.now();
      const [r] = await reader.sequential(arr, [{ coords: [10, 11] }]);
      const ms = performance.now() - t0;
      if (r.status === "rejected") throw r.reason;
      runs.push({ ms, ...seen(server, latency, viewerFile) });
      reader.close(arr);
    }
    out[lib] = runSummary(runs);
  }
  return { latency_ms: latency, ...out };
}

// ---------------------------------------------------------------------------------------------
// Node: whole arrays, and zom's HTTP concurrency.

const WHOLE_CASES = [
  { name: "chunked_blosc_zstd", label: "chunked 512² blosc zstd (64 chunks)" },
  { name: "sharded_zstd", label: "sharded 2048²/256² zstd (4 shards)" },
  { name: "noise_chunked_zstd", label: "noise, chunked 512² zstd (33.5 MB stored)" },
  { name: "noise_sharded_zstd", label: "noise, sharded 2048²/256² zstd (33.5 MB stored)" },
];

/** Whether `get` still takes its own `concurrency` (the built declarations say). */
const getHasConcurrency = /concurrency\?:/.test(
  readFileSync(join(root, "pkg", "read", "array.d.ts"), "utf8").split("export interface GetChunkOptions")[0],
);

async function wholeRun(server, latency, lib, name, { store, getOptions } = {}) {
  const url = `${server.url}/viewer/${name}`;
  server.resetStats();
  const t0 = performance.now();
  let data;
  if (lib === "zom") {
    const arr = await zom.openArray(new zom.FetchStore(url, store));
    ({ data } = await arr.get(undefined, getOptions));
    arr.free();
  } else {
    ({ data } = await zarr.get(await zarr.open(new zarr.FetchStore(url), { kind: "array" })));
  }
  const ms = performance.now() - t0;
  return { ms, ...seen(server, latency, viewerFile), data };
}

async function whole(loopback, native) {
  const warm = await servers.at(WHOLE_LATENCIES[0]);
  for (const c of WHOLE_CASES) {
    const z = await wholeRun(warm, WHOLE_LATENCIES[0], "zom", c.name);
    const r = await wholeRun(warm, WHOLE_LATENCIES[0], "zarrita", c.name);
    if (!asBytes(z.data).equals(asBytes(r.data))) throw new Error(`${c.name}: zom and zarrita read different values`);
  }
  const rows = [];
  for (const latency of WHOLE_LATENCIES) {
    const server = await servers.at(latency);
    for (const c of WHOLE_CASES) {
      const runs = await alternate(["zom", "zarrita"], async (lib) => {
        const r = await wholeRun(server, latency, lib, c.name);
        delete r.data;
        return r;
      });
      const row = {
        case: `${c.name} whole @${latency}`,
        array: c.name,
        description: `${c.label}, whole, ${latency} ms`,
        latency_ms: latency,
        stored_bytes: manifest.get(c.name).stored_bytes,
        zom: runSummary(runs.zom),
        zarrita: runSummary(runs.zarrita),
        floor: await wholeFloor(c.name, latency, loopback, native),
      };
      row.zarrita_over_zom = row.zarrita.ms / row.zom.ms;
      row.zom_over_floor = row.zom.ms / row.floor.ms;
      rows.push(row);
      console.log(
        `bench: viewer whole ${row.case.padEnd(32)} zom ${row.zom.ms.toFixed(0).padStart(5)} ms (${row.zom.requests} req), zarrita ${row.zarrita.ms.toFixed(0).padStart(5)} ms (${row.zarrita.requests} req), floor ${row.floor.ms.toFixed(0)} ms`,
      );
    }
  }
  return rows;
}

const limitName = (n) => (Number.isFinite(n) ? String(n) : "unlimited");

async function concurrencyNode() {
  const latency = CONCURRENCY_LATENCY;
  const server = await servers.at(latency);
  const name = "chunked_blosc_zstd";
  const names = CONCURRENCIES.map(limitName);
  const getOptions = getHasConcurrency ? { concurrency: 1e9 } : undefined;
  const runs = await alternate(names, async (n) => {
    const r = await wholeRun(server, latency, "zom", name, { store: { concurrency: CONCURRENCIES[names.indexOf(n)] }, getOptions });
    delete r.data;
    return r;
  });
  const rows = names.map((n) => ({ concurrency: n, ...runSummary(runs[n]) }));
  for (const r of rows)
    console.log(
      `bench: viewer concurrency ${r.concurrency.padEnd(9)} (Node) ${r.ms.toFixed(0).padStart(5)} ms, max in flight ${r.max_in_flight}, round trips ${r.round_trips}`,
    );
  return {
    array: name,
    latency_ms: latency,
    get_concurrency: getOptions
      ? "get({concurrency: 1e9}) so that the store's limit is the one measured"
      : "get has no concurrency option (the store's is the only one)",
    rows,
  };
}

// ---------------------------------------------------------------------------------------------
// Node: the soak, one child process per variant.

/** Checksums of every chunk of the array at `url`, read by zarrita (the soak's reference). */
async function soakReference(url) {
  const arr = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
  const grid = arr.shape.map((s, d) => Math.ceil(s / arr.chunks[d]));
  const reference = {};
  for (const c of block(0, 0, grid[0])) reference[c.join(",")] = checksum((await arr.getChunk(c)).data);
  return reference;
}

/** Runs bench/viewer/viewer-soak.mjs with `args`; its one JSON line. */
function soakChild(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(benchDir, "viewer", "viewer-soak.mjs"), JSON.stringify(args)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`soak ${args.lib} ${args.workers ?? ""}: no answer in ${SOAK_TIMEOUT_MS / 1e3} s`));
    }, SOAK_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`soak ${args.lib}: exit ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)));
      } catch (e) {
        reject(new Error(`soak ${args.lib}: no result (${e.message})`));
      }
    });
  });
}

const SOAK_VARIANTS = {
  cancel: [
    { label: `zom (${N} workers, default)`, lib: "zom" },
    { label: "zom (workers: 0)", lib: "zom", workers: 0 },
    { label: "zarrita", lib: "zarrita" },
  ],
  no_cancel: [
    { label: `zom (${N} workers, default)`, lib: "zom" },
    { label: "zom (workers: 1)", lib: "zom", workers: 1 },
    { label: "zom (workers: 0)", lib: "zom", workers: 0 },
    { label: "zarrita", lib: "zarrita" },
  ],
};

async function soaks() {
  const server = await servers.at(SOAK_LATENCY);
  const name = "chunked_zstd";
  const url = `${server.url}/viewer/${name}`;
  const reference = await soakReference(url);
  const out = { array: name, latency_ms: SOAK_LATENCY, seed: SOAK_SEED };
  for (const [kind, variants] of Object.entries(SOAK_VARIANTS)) {
    const rounds = kind === "cancel" ? SOAK_ROUNDS : SOAK_ROUNDS_NO_CANCEL;
    out[kind] = { rounds, tiles_per_round: 16, cancelled_per_round: kind === "cancel" ? 8 : 0, rows: [] };
    for (const v of variants) {
      const r = await soakChild({ url, lib: v.lib, workers: v.workers, rounds, cancel: kind === "cancel", seed: SOAK_SEED, reference });
      out[kind].rows.push({ label: v.label, ...r });
      console.log(
        `bench: viewer soak ${kind.padEnd(9)} ${v.label.padEnd(26)} peak RSS ${(r.peak_rss_bytes / 2 ** 20).toFixed(0).padStart(5)} MiB, ${r.arrived} tiles arrived, ` +
          `${r.cancelled_aborted} aborted, ${r.wrong_values} wrong, ${r.wrong_errors + r.failed_uncancelled} bad rejections, ${r.unhandled_rejections} unhandled, ${(r.ms / 1e3).toFixed(1)} s`,
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Chromium (bench/viewer/viewer-chromium.mjs).

const { chromiumPart } = viewerChromium({
  CHROMIUM_CONCURRENCY_RUNS,
  CHROMIUM_SOAK_ROUNDS,
  CONCURRENCIES,
  CONCURRENCY_LATENCY,
  N,
  PAGE_TIMEOUT_MS,
  RUNS,
  SOAK_LATENCY,
  SOAK_SEED,
  SOAK_VARIANTS,
  TTFT_LATENCY,
  getHasConcurrency,
  limitName,
  opts,
  pyramidDir,
  seen,
  soakReference,
});

// ---------------------------------------------------------------------------------------------
// The test server's own cost.

/**
 * What the test server itself spends per request, without latency: 32 requests at once for
 * 100-byte ranges of a file. It reads the whole file for every request (readFile), so a range
 * of a large shard costs it far more than a chunk, and it runs in this process: a cost the
 * floors leave out, paid per request (by zarrita's one request per inner chunk most).
 */
async function serverCost() {
  const server = await startServer({ root: viewerDir });
  const files = [
    ["chunk of chunked_zstd", "chunked_zstd/c/2/2"],
    ["shard of sharded_zstd", "sharded_zstd/c/1/1"],
    ["shard of noise_sharded_zstd", "noise_sharded_zstd/c/1/1"],
  ];
  try {
    const out = [];
    for (const [what, file] of files) {
      const times = [];
      for (let rep = 0; rep < 4; rep++) {
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: 32 }, (_, i) =>
            fetch(`${server.url}/${file}`, {
              headers: { range: `bytes=${i * 100}-${i * 100 + 99}` },
              signal: AbortSignal.timeout(60_000),
            }).then((r) => r.arrayBuffer()),
          ),
        );
        if (rep > 0) times.push((performance.now() - t0) / 32);
      }
      out.push({ file: what, file_bytes: statSync(join(viewerDir, file)).size, ms_per_request: median(times) });
    }
    return out;
  } finally {
    await server.close();
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  watchdog("viewer", BENCH_TIMEOUT_MS);
  let results = {};
  if (existsSync(opts.out)) results = JSON.parse(readFileSync(opts.out, "utf8"));
  const native = nativeSpeeds(results, {
    file: opts.native,
    data: "bench/data/viewer",
    sections: [opts.section, "viewer", "viewer_before"],
  });
  const loadBefore = loadavg()[0];
  const t0 = performance.now();
  const loopback = await loopbackThroughput();
  console.log(
    `bench: viewer: loopback ${(loopback / 1e3).toFixed(0)} MB/s; native decode ${nativeSummary(native)}; ${N} decode workers; ${RUNS} runs${QUICK ? " (quick)" : ""}`,
  );
  const section = {
    date: new Date().toISOString(),
    versions: {
      zom: zom.version(),
      zarrita: JSON.parse(readFileSync(join(root, "node_modules", "zarrita", "package.json"), "utf8")).version,
      node: process.version,
      ome_zarr_py: pyramid.ome_zarr,
    },
    machine: { parallelism: availableParallelism(), load_average_1min: { before: loadBefore } },
    method: {
      runs: RUNS,
      quick: QUICK,
      statistic: "median of the runs, after one warm-up per library whose values are compared; runs alternate zom / zarrita",
      libraries: `each with its defaults: zom's FetchStore (coalescing; ${getHasConcurrency ? "16 requests in flight, and get's own cap of 16" : "no request limit of its own, get bounded by bytesInFlight"}) and default decode workers; zarrita's FetchStore (no limit, HEAD + range for shard indexes), zarr.open probing v2 before v3 on a new store`,
      requests:
        "counted by the server (tests/server/server.mjs); round_trips: waves of arrivals (a request over half a latency after its wave's first starts a new one); max_in_flight: the server's",
      floors:
        "round trips with every independent request in flight at once × latency + the transfer at the lower of two estimates (the same requests with plain fetch from the same server without latency, all at once or one by one, the fastest of 5; the stored bytes at the single-file loopback rate) + decoded bytes / native MB/s / min(workers, chunks); one by one: each tile's round trip, transfer and decode in turn; at once and whole reads: transfer and decode overlapped (max of the two)",
    },
    workers: N,
    loopback_mb_per_s: loopback / 1e3,
    native,
    zom_batch_call: null,
  };
  section.server_cost = await serverCost();
  console.log(
    `bench: viewer: the test server's own time per request (32 at once, no latency): ${section.server_cost.map((c) => `${c.file} (${(c.file_bytes / 1e6).toFixed(1)} MB) ${c.ms_per_request.toFixed(1)} ms`).join(", ")}`,
  );
  try {
    if (PARTS.has("tiles")) {
      const t = await tiles(loopback, native);
      section.tiles = t.rows;
      section.zom_batch_call = t.batch;
      section.index_reuse = await indexReuse();
      console.log(
        `bench: viewer: one more tile of a read shard: zom ${section.index_reuse.zom.requests} requests, zarrita ${section.index_reuse.zarrita.requests}`,
      );
    }
    if (PARTS.has("whole")) section.whole = await whole(loopback, native);
    if (PARTS.has("concurrency")) section.concurrency = { node: await concurrencyNode() };
  } finally {
    await servers.closeAll();
  }
  try {
    if (PARTS.has("soak")) section.soak = await soaks();
  } finally {
    await servers.closeAll();
  }
  if (PARTS.has("chromium")) {
    section.chromium = await chromiumPart(loopback, native);
    section.concurrency = { ...section.concurrency, chromium: section.chromium.concurrency };
  }
  section.machine.load_average_1min.after = loadavg()[0];
  section.seconds = (performance.now() - t0) / 1e3;
  const previous = results[opts.section];
  if (opts.merge && previous) {
    // Floors are kept with their rows; the loopback and load figures of the parts kept are their run's.
    section.parts_from = { ...previous.parts_from };
    section.kept_parts_loopback_mb_per_s = previous.kept_parts_loopback_mb_per_s ?? previous.loopback_mb_per_s;
    const keep = (part, copy) => {
      if (PARTS.has(part)) return;
      copy();
      section.parts_from[part] = previous.parts_from?.[part] ?? previous.date;
    };
    keep("tiles", () =>
      Object.assign(section, { tiles: previous.tiles, index_reuse: previous.index_reuse, zom_batch_call: previous.zom_batch_call }),
    );
    keep("whole", () => (section.whole = previous.whole));
    keep("concurrency", () => (section.concurrency = { ...section.concurrency, node: previous.concurrency?.node }));
    keep("soak", () => (section.soak = previous.soak));
    keep("chromium", () => {
      section.chromium = previous.chromium;
      section.concurrency = { ...section.concurrency, chromium: previous.concurrency?.chromium };
    });
  }

  // Targets.
  const targets = new Targets(opts.section);
  const ratios = [];
  for (const r of [...(section.tiles ?? []), ...(section.whole ?? [])]) {
    ratios.push(r.zarrita_over_zom);
    targets.check(`${r.case}: zarrita / zom`, r.zarrita_over_zom, ">=", 1.0);
  }
  for (const r of section.chromium?.ttft?.rows.filter((x) => x.lib === "zom" && !x.no_store) ?? []) {
    const z = section.chromium.ttft.rows.find((x) => x.lib === "zarrita" && x.data === r.data && !x.no_store);
    const ratio = z.cold.ms / r.cold.ms;
    ratios.push(ratio);
    targets.check(`Chromium first tile, ${r.data}, cold: zarrita / zom`, ratio, ">=", 1.0);
  }
  section.geomean_zarrita_over_zom = geomean(ratios);
  targets.check(`zarrita / zom, geometric mean of ${ratios.length} cases`, section.geomean_zarrita_over_zom, ">=", 1.5);
  for (const r of (section.whole ?? []).filter((x) => x.latency_ms === 100))
    targets.check(`${r.case}: zom / floor`, r.zom_over_floor, "<=", 1.3);
  if (section.index_reuse)
    targets.check("requests for a tile of a shard whose index was read (zom)", section.index_reuse.zom.requests, "<=", 1, {
      unit: "",
      digits: 0,
    });
  const soakZom = section.soak?.cancel?.rows.find((r) => r.lib === "zom" && r.workers === null);
  const soakZarrita = section.soak?.cancel?.rows.find((r) => r.lib === "zarrita");
  if (soakZom && soakZarrita) {
    section.soak.zom_over_zarrita_peak_rss = soakZom.peak_rss_bytes / soakZarrita.peak_rss_bytes;
    targets.check(`soak peak RSS, zom (${N} workers) / zarrita`, section.soak.zom_over_zarrita_peak_rss, "<=", 1.5);
  }
  section.targets = targets.list.map(({ bench, label, value, target, met }) => ({ bench, label, value, target, met }));
  if (opts.section === "viewer") targets.save(results);
  results[opts.section] = section;
  writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`);

  console.log(`\n${viewerTables(section)}\n`);
  console.log(
    `Cells: ms / requests (max in flight, round trips), medians of ${RUNS} runs. zom ${section.versions.zom}, zarrita ${section.versions.zarrita}, ${N} decode workers, ` +
      `loopback ${(loopback / 1e3).toFixed(0)} MB/s, native decode: ${native.source ?? "unknown"}. zom's tiles at once: ${section.zom_batch_call ? "getChunks" : "getChunk × n with Promise.all (no getChunks in this build)"}.`,
  );
  targets.print();
  console.log(`bench: wrote the "${opts.section}" section of ${opts.out} (${section.seconds.toFixed(0)} s)`);
  zom.closeWorkers();
}

await main();
