// The Icechunk bench (issue 38): zom's IcechunkStore against the official reader,
// @earthmover/icechunk (its WebAssembly build, @earthmover/icechunk-wasm32-wasi, run by Node's
// WASI: see below) with zarrita.js 0.7.5 on its store, reading the same repository from the
// repository's HTTP test server (tests/server/server.mjs: latency per response, Range, requests
// counted) in one Node process, runs alternating, medians. scripts/bench.mjs runs it
// (--only icechunk); alone (after bench/icechunk/generate_icechunk.py wrote bench/data/icechunk):
//
//   node --expose-gc bench/icechunk/icechunk.mjs [--runs N] [--quick] [--native FILE]
//                                       [--parts node,cold,chromium] [--data DIR] [--out results.json]
//
// The repository (bench/icechunk/generate_icechunk.py, icechunk-python 2.3.0, spec version 2): branch
// `main`, one commit, bench/lib/generate.py's 4096² uint16 image twice — `chunked` (512² chunks,
// zstd: 64 objects) and `sharded` (2048² shards of 256² inner chunks, zstd: 4 objects).
//
// Cases, at 20 and 50 ms, for each array:
// - open + first chunk: from nothing (a new store) to chunk (0, 0)'s values: zom
//   `IcechunkStore.open(url, {branch: "main"})`, `openArray(store, name)`, `getChunk([0, 0])`;
//   icechunk-js `Repository.open(createFetchStorage(url))`, `readonlySession({branch: "main"})`,
//   zarrita `zarr.open(zarr.root(session.store).resolve(name), {kind: "array"})`, `getChunk`.
// - whole array: the same opening, then every value (zom `arr.get()`, zarrita `zarr.get`).
// - 16 tiles at once: the repository and array open and one chunk read before timing (the
//   array's manifest loaded, as a viewer has it after its first tile), then a 4×4 block of
//   chunks not read before (sharded: 16 inner chunks of one shard not touched before) at once
//   (zom `getChunks`, zarrita `getChunk` × 16).
// Every library's values are compared with the other's before timing. Part "cold": open + first
// chunk of `chunked` in a new Node process per run (bench/icechunk/icechunk-cold.mjs), each library's
// import and WebAssembly start included. Part "chromium": zom alone in headless Debian Chromium
// (tests/browser/chromium.mjs) on a page without cross-origin isolation (icechunk-js's browser
// build needs SharedArrayBuffer, so cross-origin isolation, and a bundler that ships its .wasm
// and worker: not measured there).
//
// @earthmover/icechunk 2.2.2 is napi-rs: its linux-x64-gnu addon needs glibc 2.38 (on Debian
// 12's 2.36: "undefined symbol: __isoc23_sscanf"), so this bench sets NAPI_RS_FORCE_WASI=error
// and loads the package's wasm32-wasip1-threads build (a devDependency of its own: the package
// does not list it) — WebAssembly against WebAssembly. Its storage is the package's
// createFetchStorage (@earthmover/icechunk/fetch-storage: Node's fetch, read-only).
//
// Requests are counted by the server; round trips are waves of arrivals (bench/lib/util.mjs
// roundTrips). Floors (what no reader could beat), from the repository's files alone
// (bench/data/icechunk/manifest.json): the round trips a reader cannot avoid — the `repo` file
// (the branch's snapshot id), the snapshot (the array's metadata and manifest id), the
// manifest (the chunk's object), then the chunks, each wave with every independent request in
// flight at once — × latency, + the transfer at its lower estimate (the same requests with plain
// fetch from the same server without latency, the fastest of 5, or the bytes at the single-file
// loopback rate, whichever is less), + decoding at native speed (examples/bench_decode.rs on
// the same arrays as plain Zarr: --native FILE, which scripts/bench.mjs passes; else the last
// run's figures) over the machine's cores, overlapped with the transfer where they can be. For
// a shard the floor takes the cheaper of its index then ranges, or the whole shard in one
// request. Decompressing the snapshot and manifest (a few KB) is left out.
//
// Writes the section "icechunk" of results.json (bench/icechunk/icechunk-tables.mjs prints its tables).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as zarr from "zarrita";
import * as zom from "zom";
import { launchChromium, recordConsole } from "../../tests/browser/chromium.mjs";
import { block, zarritaReader, zomReader } from "../lib/tiles.js";
import {
  alternateRuns,
  asBytes,
  benchDir,
  bundlePage,
  isShardIndexRead,
  loopbackThroughput,
  median,
  nativeSpeeds,
  nativeSummary,
  pageServer,
  runSummary,
  seenBy,
  serversByLatency,
  watchdog,
  withTimeout,
} from "../lib/util.mjs";
import { icechunkFloors } from "./icechunk-floors.mjs";
import { icechunkTables } from "./icechunk-tables.mjs";

// Before the package loads: its WebAssembly build, and no native fallback.
process.env.NAPI_RS_FORCE_WASI = "error";
const icechunkJs = await import("@earthmover/icechunk");
const { createFetchStorage } = await import("@earthmover/icechunk/fetch-storage");

const root = join(benchDir, "..");
const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    quick: { type: "boolean", default: false },
    native: { type: "string" },
    parts: { type: "string", default: "node,cold,chromium" },
    data: { type: "string", default: join(benchDir, "data") },
    out: { type: "string", default: join(benchDir, "results.json") },
  },
});
const QUICK = opts.quick;
const RUNS = QUICK ? 3 : Math.max(3, Number(opts.runs));
const PARTS = new Set(opts.parts.split(","));
const LATENCIES = [20, 50];
const CORES = availableParallelism();
const PAGE_TIMEOUT_MS = 120_000;
const BENCH_TIMEOUT_MS = 30 * 60_000;
const LIBS = ["zom", "icechunk-js"];

const dataDir = join(opts.data, "icechunk");
const repoDir = join(dataDir, "repo");
if (!existsSync(join(dataDir, "manifest.json")))
  throw new Error(`${dataDir} is missing: run bench/icechunk/generate_icechunk.py (npm run bench -- --only icechunk does)`);
const repoManifest = JSON.parse(readFileSync(join(dataDir, "manifest.json"), "utf8"));
const ARRAYS = new Map(repoManifest.arrays.map((a) => [a.name, a]));
/** The repository's URL path on the servers (root: --data). */
const REPO_PATH = "/icechunk/repo";
const shardObjects = new Set(
  repoManifest.arrays.filter((a) => a.shards).flatMap((a) => Object.values(a.chunk_objects).map((c) => c.object)),
);

const packageVersion = (name) => JSON.parse(readFileSync(join(root, "node_modules", ...name.split("/"), "package.json"), "utf8")).version;

// ---------------------------------------------------------------------------------------------
// Requests, as the server saw them.

/**
 * The requests by kind: missing files (404), the repository's refs (`repo`, `config.yaml`,
 * `refs/…`), snapshots, manifests, shard indexes (a suffix range, or a range that ends at a
 * shard's end of an index's length 16 n + 4) and chunk data.
 */
function kindsOf(log) {
  const k = { missing: 0, refs: 0, snapshot: 0, manifest: 0, index: 0, data: 0, other: 0 };
  for (const e of log) {
    const path = decodeURIComponent(e.url.split("?")[0]).replace(/^.*\/icechunk\/repo\//, "");
    if (e.status === 404) k.missing += 1;
    else if (path === "repo" || path === "config.yaml" || path.startsWith("refs/")) k.refs += 1;
    else if (path.startsWith("snapshots/")) k.snapshot += 1;
    else if (path.startsWith("manifests/")) k.manifest += 1;
    else if (path.startsWith("chunks/")) {
      const index = shardObjects.has(path) && e.range && isShardIndexRead(e.range, statSync(join(repoDir, path)).size);
      k[index ? "index" : "data"] += 1;
    } else k.other += 1;
  }
  return k;
}

/** What a server saw since its last resetStats. */
const seen = (server, latency) => seenBy(server, latency, kindsOf);

/** The servers of the Node part, one per latency, serving --data (the repository at /icechunk/repo/). */
const servers = serversByLatency(opts.data);

/** Runs `measure(lib)` RUNS times for each library, alternating their order run by run. */
const alternate = (libs, measure) => alternateRuns(libs, RUNS, measure);

// ---------------------------------------------------------------------------------------------
// The readers.

const zomTiles = zomReader(zom);
const zarritaTiles = zarritaReader(zarr);

/** How each library opens the repository at `url` (its folder, with a trailing "/") and the array `name`, and reads it. */
const READERS = {
  zom: {
    async open(url, name) {
      const store = await zom.IcechunkStore.open(url, { branch: "main" });
      return { store, arr: await zom.openArray(store, name) };
    },
    first: (h) => h.arr.getChunk([0, 0]),
    whole: (h) => h.arr.get(),
    atOnce: (h, coords) =>
      zomTiles.atOnce(
        h.arr,
        coords.map((c) => ({ coords: c })),
      ),
    batch: (h) => zomTiles.batch(h.arr),
    close(h) {
      h.arr.free();
      h.store.free();
    },
  },
  "icechunk-js": {
    async open(url, name) {
      const repo = await icechunkJs.Repository.open(createFetchStorage(url));
      const session = await repo.readonlySession({ branch: "main" });
      return { repo, session, arr: await zarr.open(zarr.root(session.store).resolve(name), { kind: "array" }) };
    },
    first: (h) => h.arr.getChunk([0, 0]),
    whole: (h) => zarr.get(h.arr),
    atOnce: (h, coords) =>
      zarritaTiles.atOnce(
        h.arr,
        coords.map((c) => ({ coords: c })),
      ),
    batch: () => false,
    close() {},
  },
};

const repoUrl = (server) => `${server.url}${REPO_PATH}/`;

/** The 16 tiles of each array: chunks (2..5)², and inner chunks (10..13)² of shard (1, 1). */
const TILES = { chunked: block(2, 2), sharded: block(10, 10) };

/** One timed case: `kind` open_first, whole or tiles, of array `name`, by `lib`. */
async function runCase(server, latency, lib, kind, name) {
  const reader = READERS[lib];
  const url = repoUrl(server);
  let h;
  let value;
  let t0;
  if (kind === "tiles") {
    h = await reader.open(url, name);
    await reader.first(h);
    server.resetStats();
    t0 = performance.now();
    const settled = await reader.atOnce(h, TILES[name]);
    const failed = settled.find((r) => r.status === "rejected");
    if (failed) throw new Error(`${name} tiles: ${lib} failed: ${failed.reason?.stack ?? failed.reason}`);
    value = settled.map((r) => r.value);
  } else {
    server.resetStats();
    t0 = performance.now();
    h = await reader.open(url, name);
    value = await (kind === "whole" ? reader.whole(h) : reader.first(h));
  }
  const ms = performance.now() - t0;
  const saw = seen(server, latency);
  const batch = reader.batch(h);
  reader.close(h);
  return { ms, ...saw, batch, value };
}

/** Throws unless both libraries read the same values (a chunk, an array, or a list of tiles). */
function compare(kind, name, a, b) {
  const as = kind === "tiles" ? a : [a];
  const bs = kind === "tiles" ? b : [b];
  as.forEach((x, k) => {
    const y = bs[k];
    if (x.shape.join() !== y.shape.join() || !asBytes(x.data).equals(asBytes(y.data)))
      throw new Error(
        `${name} ${kind}: zom and icechunk-js + zarrita read different values${kind === "tiles" ? ` (tile ${TILES[name][k]})` : ""}`,
      );
  });
}

// ---------------------------------------------------------------------------------------------
// Floors. (bench/icechunk/icechunk-floors.mjs).

const { floorOf } = icechunkFloors({ CORES, REPO_PATH, TILES, repoDir, repoManifest, servers });

// ---------------------------------------------------------------------------------------------
// Node.

const KINDS = {
  open_first: "open + first chunk",
  whole: "whole array (open + read)",
  tiles: "16 tiles at once (open, manifest read)",
};

async function nodePart(loopback, native) {
  // Warm-up: every library, case and array once (modules, threads, JIT), values compared.
  const warm = await servers.at(LATENCIES[0]);
  let batch = false;
  for (const kind of Object.keys(KINDS)) {
    for (const name of ARRAYS.keys()) {
      const z = await runCase(warm, LATENCIES[0], "zom", kind, name);
      const i = await runCase(warm, LATENCIES[0], "icechunk-js", kind, name);
      batch ||= z.batch;
      compare(kind, name, z.value, i.value);
    }
  }
  const rows = [];
  for (const latency of LATENCIES) {
    const server = await servers.at(latency);
    for (const kind of Object.keys(KINDS)) {
      for (const [name, a] of ARRAYS) {
        const runs = await alternate(LIBS, async (lib) => {
          const r = await runCase(server, latency, lib, kind, name);
          delete r.value;
          return r;
        });
        const row = {
          case: `${name} ${kind} @${latency}`,
          array: name,
          kind,
          latency_ms: latency,
          description: `${a.description}: ${KINDS[kind]}, ${latency} ms`,
          zom_call:
            kind === "tiles"
              ? batch
                ? "getChunks (batch)"
                : "getChunk × 16, Promise.all"
              : kind === "whole"
                ? "arr.get()"
                : "getChunk([0, 0])",
          zom: runSummary(runs.zom),
          icechunk_js: runSummary(runs["icechunk-js"]),
          floor: await floorOf(kind, a, latency, loopback, native),
        };
        row.icechunk_js_over_zom = row.icechunk_js.ms / row.zom.ms;
        row.zom_over_floor = row.zom.ms / row.floor.ms;
        row.icechunk_js_over_floor = row.icechunk_js.ms / row.floor.ms;
        rows.push(row);
        console.log(
          `bench: icechunk ${row.case.padEnd(26)} zom ${row.zom.ms.toFixed(0).padStart(5)} ms (${row.zom.requests} req, ${row.zom.round_trips} rt), ` +
            `icechunk-js ${row.icechunk_js.ms.toFixed(0).padStart(5)} ms (${row.icechunk_js.requests} req, ${row.icechunk_js.round_trips} rt), floor ${row.floor.ms.toFixed(0)} ms (${row.floor.round_trips} rt)`,
        );
      }
    }
  }
  return { rows, batch };
}

// ---------------------------------------------------------------------------------------------
// Cold: open + first chunk in a new process.

/** Runs bench/icechunk/icechunk-cold.mjs for `lib` against `url`; its one JSON line. */
function coldChild(lib, url, name) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--no-warnings", join(benchDir, "icechunk", "icechunk-cold.mjs"), JSON.stringify({ lib, url, name })],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cold ${lib}: no answer in 120 s`));
    }, 120_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`cold ${lib}: exit ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)));
      } catch (e) {
        reject(new Error(`cold ${lib}: no result (${e.message})`));
      }
    });
  });
}

async function coldPart(loopback, native) {
  const name = "chunked";
  const a = ARRAYS.get(name);
  const rows = [];
  for (const latency of LATENCIES) {
    const server = await servers.at(latency);
    const runs = await alternate(LIBS, async (lib) => {
      server.resetStats();
      const r = await coldChild(lib, repoUrl(server), name);
      return { ...r, ...seen(server, latency) };
    });
    const row = {
      case: `${name} cold open + first chunk @${latency}`,
      array: name,
      kind: "cold",
      latency_ms: latency,
      description: `${a.description}: open + first chunk in a new process (import and WebAssembly start included), ${latency} ms`,
      zom: { ...runSummary(runs.zom), import_ms: median(runs.zom.map((r) => r.import_ms)) },
      icechunk_js: { ...runSummary(runs["icechunk-js"]), import_ms: median(runs["icechunk-js"].map((r) => r.import_ms)) },
      floor: await floorOf("open_first", a, latency, loopback, native),
    };
    row.icechunk_js_over_zom = row.icechunk_js.ms / row.zom.ms;
    row.zom_over_floor = row.zom.ms / row.floor.ms;
    row.icechunk_js_over_floor = row.icechunk_js.ms / row.floor.ms;
    rows.push(row);
    console.log(
      `bench: icechunk ${row.case.padEnd(36)} zom ${row.zom.ms.toFixed(0).padStart(5)} ms (import ${row.zom.import_ms.toFixed(0)}), icechunk-js ${row.icechunk_js.ms.toFixed(0).padStart(5)} ms (import ${row.icechunk_js.import_ms.toFixed(0)}), floor ${row.floor.ms.toFixed(0)} ms`,
    );
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Chromium: zom alone, on a page without cross-origin isolation.

const PAGE =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="/icechunk-page.js"></script>\n';

async function chromiumPart(nodeRows) {
  const pageDir = mkdtempSync(join(tmpdir(), "zom-bench-icechunk-page-"));
  bundlePage({ entry: join(benchDir, "icechunk", "icechunk-page.js"), outdir: pageDir });
  const { browser, profile } = await launchChromium("zom-bench-icechunk-");
  const session = { server: null, latency: 0, marks: {} };
  await browser.exposeFunction("benchMark", (label) => {
    const [name, edge] = label.split(":");
    if (edge === "start") session.server.resetStats();
    else session.marks[name] = seen(session.server, session.latency);
  });
  const out = { browser: "Debian Chromium, headless (tests/browser/chromium.mjs), HTTP/1.1, page not cross-origin isolated", rows: [] };
  try {
    for (const latency of LATENCIES) {
      // No COOP/COEP headers: the page is not cross-origin isolated.
      const server = await pageServer({ pageDir, data: opts.data, latency, page: PAGE, isolated: false });
      Object.assign(session, { server, latency });
      const samples = {};
      let isolated = null;
      try {
        for (let i = 0; i < RUNS; i++) {
          // A new tab per run: the first case (open + first chunk of chunked) is its cold one.
          const page = await browser.newPage();
          const lines = recordConsole(page);
          try {
            await page.goto(`${server.url}/index.html`, { timeout: 30_000 });
            await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30_000 });
            const cases = [
              { kind: "cold", name: "chunked" },
              ...Object.keys(KINDS).flatMap((kind) => [...ARRAYS.keys()].map((name) => ({ kind, name }))),
            ];
            for (const c of cases) {
              session.marks = {};
              const r = await withTimeout(
                page.evaluate((args) => window.benchCase(args), { ...c, repo: `/data/icechunk/repo/`, tiles: TILES[c.name] }),
                PAGE_TIMEOUT_MS,
                `Chromium ${c.kind} ${c.name}`,
              );
              if (r.error) throw new Error(`Chromium ${c.kind} ${c.name}: ${r.error}\n${lines.join("\n")}`);
              isolated = r.isolated;
              const key = `${c.name} ${c.kind}`;
              (samples[key] ??= []).push({ ms: r.ms, ...session.marks.case });
            }
          } finally {
            await page.close();
          }
        }
      } finally {
        await server.close();
      }
      for (const [key, rs] of Object.entries(samples)) {
        const [name, kind] = key.split(" ");
        const node = nodeRows?.find(
          (r) => r.array === name && r.kind === (kind === "cold" ? "open_first" : kind) && r.latency_ms === latency,
        );
        const row = {
          case: `${name} ${kind} @${latency}`,
          array: name,
          kind,
          latency_ms: latency,
          description: `${ARRAYS.get(name).description}: ${kind === "cold" ? "open + first chunk, first use in the tab" : KINDS[kind]}, ${latency} ms`,
          zom: runSummary(rs),
          node_zom_ms: node?.zom.ms ?? null,
          floor_ms: node?.floor.ms ?? null,
        };
        row.zom_over_floor = row.floor_ms ? row.zom.ms / row.floor_ms : null;
        out.rows.push(row);
        console.log(
          `bench: icechunk Chromium ${row.case.padEnd(26)} zom ${row.zom.ms.toFixed(0).padStart(5)} ms (${row.zom.requests} req, ${row.zom.max_in_flight} in flight, ${row.zom.round_trips} rt)${row.floor_ms ? `, floor ${row.floor_ms.toFixed(0)} ms` : ""}`,
        );
      }
      out.cross_origin_isolated = isolated;
    }
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(pageDir, { recursive: true, force: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  watchdog("icechunk", BENCH_TIMEOUT_MS);
  let results = {};
  if (existsSync(opts.out)) results = JSON.parse(readFileSync(opts.out, "utf8"));
  const native = nativeSpeeds(results, { file: opts.native, data: "bench/data/icechunk/plain", sections: ["icechunk"] });
  const loadBefore = loadavg()[0];
  const t0 = performance.now();
  const loopback = await loopbackThroughput();
  console.log(
    `bench: icechunk: loopback ${(loopback / 1e3).toFixed(0)} MB/s; native decode ${nativeSummary(native)}; ${CORES} cores; ${RUNS} runs${QUICK ? " (quick)" : ""}`,
  );
  const section = {
    date: new Date().toISOString(),
    versions: {
      zom: zom.version(),
      icechunk_js: packageVersion("@earthmover/icechunk"),
      icechunk_js_binding: `@earthmover/icechunk-wasm32-wasi ${packageVersion("@earthmover/icechunk-wasm32-wasi")} (WASI, NAPI_RS_FORCE_WASI=error)`,
      zarrita: packageVersion("zarrita"),
      node: process.version,
      icechunk_python: repoManifest.icechunk,
      zarr_python: repoManifest.zarr,
    },
    machine: { parallelism: CORES, load_average_1min: { before: loadBefore } },
    repository: {
      spec_version: repoManifest.spec_version,
      branch: repoManifest.branch,
      snapshot: repoManifest.snapshot,
      arrays: repoManifest.arrays.map((a) => ({
        name: a.name,
        description: a.description,
        shape: a.shape,
        chunks: a.chunks,
        shards: a.shards,
        objects: Object.keys(a.chunk_objects).length,
        stored_bytes: a.stored_bytes,
        decoded_bytes: a.decoded_bytes,
      })),
    },
    method: {
      runs: RUNS,
      quick: QUICK,
      statistic:
        "median of the runs, after one warm-up per library, case and array whose values are compared; runs alternate zom / icechunk-js",
      libraries:
        "zom: IcechunkStore.open(url, {branch}) (its FetchStore's defaults) + openArray, default decode workers; icechunk-js: @earthmover/icechunk's WebAssembly build (wasm32-wasip1-threads under Node's WASI), Repository.open(createFetchStorage(url)) + readonlySession({branch}), its store read by zarrita (zarr.open(…, {kind: 'array'}), getChunk, zarr.get)",
      requests:
        "counted by the server (tests/server/server.mjs); round_trips: waves of arrivals (a request over half a latency after its wave's first starts a new one); max_in_flight: the server's",
      floors:
        "round trips no reader avoids (repo file, snapshot, manifest, then the chunks; each wave with every independent request at once) × latency + the transfer at the lower of two estimates (the same requests with plain fetch from the same server without latency, one by one where they depend on each other, the fastest of 5; the bytes at the single-file loopback rate) + the chunks' decoding at native speed over min(cores, chunks), overlapped with their transfer; inner chunks of a shard: the cheaper of index then ranges, or the whole shard",
    },
    loopback_mb_per_s: loopback / 1e3,
    native,
  };
  try {
    if (PARTS.has("node")) {
      const n = await nodePart(loopback, native);
      section.rows = n.rows;
      section.zom_batch_call = n.batch;
    }
    if (PARTS.has("cold")) section.cold = await coldPart(loopback, native);
  } finally {
    await servers.closeAll();
  }
  if (PARTS.has("chromium")) section.chromium = await chromiumPart(section.rows ?? results.icechunk?.rows);
  section.machine.load_average_1min.after = loadavg()[0];
  section.seconds = (performance.now() - t0) / 1e3;
  results.icechunk = section;
  writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n${icechunkTables(section)}\n`);
  console.log(
    `Cells: ms / requests (max in flight, round trips), medians of ${RUNS} runs. zom ${section.versions.zom}; @earthmover/icechunk ${section.versions.icechunk_js} (${section.versions.icechunk_js_binding}) + zarrita ${section.versions.zarrita}; ` +
      `${CORES} cores, loopback ${(loopback / 1e3).toFixed(0)} MB/s, native decode: ${native.source ?? "unknown"}.`,
  );
  console.log(`bench: wrote the "icechunk" section of ${opts.out} (${section.seconds.toFixed(0)} s)`);
  zom.closeWorkers();
}

await main();
// icechunk-js's WASI threads keep the event loop alive.
process.exit(0);
