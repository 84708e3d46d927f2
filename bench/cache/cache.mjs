// Repeated region reads (a viewer panning back and scrubbing over the same chunks): zom with a
// ChunkCache, zom without, and zarrita.js (which has no cache, zarrita #296), each reading the
// same region of an array again and again from the test server (tests/server) answering every
// request after a latency (default 20 ms). The arrays are tests/fixtures/sample's: a chunked
// float32 array and a sharded uint16 one. scripts/bench.mjs runs it with `--only cache`;
// alone (after npm run build):
//
//   node bench/cache/cache.mjs [--runs N] [--latency MS] [--out results.json]
//
// Per case, one array opened once per library (zom: FetchStore + openArray, with and without
// `cache`; zarrita: FetchStore + zarr.open), one warm-up read each (values compared, and the
// cache filled), then N reads of the region per library, alternating; medians of ms and of the
// requests each read made (counted by the server). Decoding on the calling thread (`workers:
// 0`): the regions are small, and the cache's saving is the requests and the decodes.
// Writes the "cache" section of bench/results.json.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as zarr from "zarrita";
import * as zom from "zom";
import { startServer } from "../../tests/server/server.mjs";
import { benchDir, median, serverBenchArgs, table } from "../lib/util.mjs";

const args = serverBenchArgs();
const root = join(benchDir, "..", "tests", "fixtures", "sample");

/** The regions read: [start, stop) per dimension. */
const CASES = [
  {
    path: "measurements/temperature",
    label: "chunked 16², float32 gzip: 48² of 64×48 (9 chunks)",
    region: [
      [0, 48],
      [0, 48],
    ],
  },
  {
    path: "image/gradient_circles",
    label: "sharded 128² / 32², uint16: 96² (9 inner chunks)",
    region: [
      [0, 96],
      [0, 96],
    ],
  },
  {
    path: "image/gradient_circles",
    label: "sharded 128² / 32², uint16: 32² (1 inner chunk)",
    region: [
      [32, 64],
      [32, 64],
    ],
  },
];

const server = await startServer({ root, latencyMs: args.latency });
const rows = [];
const section = {
  date: new Date().toISOString().slice(0, 10),
  method: {
    runs: args.runs,
    latency_ms: args.latency,
    statistic: "median of N reads of the same region after one warm-up read (which fills zom's cache); libraries alternate",
    zom: "FetchStore + openArray once; arr.get(region, {workers: 0}) with a ChunkCache({maxBytes: 64 MiB}) given to openArray, and without",
    zarrita: "FetchStore + zarr.open once; zarr.get(arr, region) (no cache)",
  },
  cases: [],
};
try {
  for (const c of CASES) {
    const url = `${server.url}/${c.path}`;
    const cache = new zom.ChunkCache({ maxBytes: 64 << 20 });
    const cached = await zom.openArray(new zom.FetchStore(url), "", { cache, workers: 0 });
    const plain = await zom.openArray(new zom.FetchStore(url), "", { workers: 0 });
    const zarrita = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
    const zomSel = c.region.map(([a, b]) => zom.slice(a, b));
    const zarrSel = c.region.map(([a, b]) => zarr.slice(a, b));
    const reads = {
      "zom cached": () => cached.get(zomSel),
      "zom uncached": () => plain.get(zomSel),
      zarrita: () => zarr.get(zarrita, zarrSel),
    };
    const warm = {};
    for (const [name, read] of Object.entries(reads)) warm[name] = await read();
    for (const name of Object.keys(reads)) {
      const [a, b] = [Buffer.from(warm[name].data.buffer), Buffer.from(warm.zarrita.data.buffer)];
      if (!a.equals(b)) throw new Error(`${c.path}: ${name} read other values than zarrita`);
    }
    const ms = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
    const requests = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
    for (let r = 0; r < args.runs; r++) {
      for (const [name, read] of Object.entries(reads)) {
        server.resetStats();
        const t0 = performance.now();
        await read();
        ms[name].push(performance.now() - t0);
        requests[name].push(server.stats.requests);
      }
    }
    const m = (xs) => median(xs);
    const result = { path: c.path, label: c.label, region: c.region, ms: {}, requests: {}, cache: cache.stats };
    for (const name of Object.keys(reads)) {
      result.ms[name] = m(ms[name]);
      result.requests[name] = m(requests[name]);
    }
    section.cases.push(result);
    rows.push([c.label, ...Object.keys(reads).flatMap((name) => [result.ms[name].toFixed(1), String(result.requests[name])])]);
  }
} finally {
  await server.close();
}
console.log(`latency ${args.latency} ms per request; medians of ${args.runs} repeated reads\n`);
console.log(table(["case", "zom cached ms", "req", "zom uncached ms", "req", "zarrita ms", "req"], rows));
let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
results.cache = section;
writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
