// Walking and validating OME-Zarr plates by their metadata (issue 35): plates written by
// ome-zarr-py 0.21 (bench/plate/generate_plate.py; metadata only) served by tests/server with every
// response delayed, as a static host serves them — no listing, no consolidated metadata — and
// behind an HTML directory index. scripts/bench.mjs runs it (--only plate); alone, after
// `npm run build` and the plates (scripts/bench.mjs writes them into bench/data/plates):
//
//   node bench/plate/plate.mjs [--runs N] [--data DIR] [--out results.json] [--no-browser]
//
// Per plate (96 wells v0.5 and v0.4, 384 wells v0.5; 2 fields × 3 levels each) and latency (20
// and 50 ms), medians of N runs after a warm-up, each from a new store:
// - zom: `await zom.walk(new zom.FetchStore(url))`, the defaults (every path a level names
//   asked for at once); also at the old default concurrency of 16 (visits in flight), and
//   behind an HTML index (listings too);
// - zarrita: what a viewer on zarrita.js does (it has no walk): open the plate group, then all
//   wells at once, all fields at once, each field's levels and its labels group at once —
//   the same requests a level at a time;
// - the floor: what no reader could beat — the round trips of the hierarchy's depth (root;
//   rows and wells; fields; levels and labels) times the latency, plus the transfer of every
//   node's document and, for each image without labels, the one request that finds out (no
//   metadata says whether an image has labels) — one GET each from the same server without
//   latency, the fastest of all at once and 32, 64 or 256 at a time: what the server and a
//   client pay per request on this machine;
// - requests, and requests per node (one document per node is the floor: the rest are the
//   root's probes of the other format, each field's absent `labels`, and for v2 a group's
//   candidate documents);
// - validation of the walked tree against its convention (`validateHierarchy(tree, {specs:
//   "auto"})`), and walk + validation together for the 384-well plate.
// Then in Chromium (headless, HTTP/1.1: 6 connections per host), the 96-well v0.5 plate at
// 50 ms with walk concurrency 6, 16, 64 and 256 (the default): what the default should be.
// Writes the "plate" section of bench/results.json and its targets.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as zarr from "zarrita";
import * as reader from "zom";
import { FsStore } from "zom/fs";
import * as tools from "zom/validate";
import { launchChromium } from "../../tests/browser/chromium.mjs";
import { startServer } from "../../tests/server/server.mjs";
import { benchDir, bundlePage, median, Targets, table, transferTime, zomPaths } from "../lib/util.mjs";

/** zom's reader and validator entries, as one namespace. */
const zom = { ...reader, ...tools };

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    data: { type: "string", default: join(benchDir, "data", "plates") },
    out: { type: "string", default: join(benchDir, "results.json") },
    "no-browser": { type: "boolean", default: false },
  },
});
const RUNS = Math.max(3, Number(values.runs));
const PLATES = ["plate96-v0.5", "plate96-v0.4", "plate384-v0.5"];
const LATENCIES = [20, 50];
/** Round trips no reader can avoid: root; rows and wells; fields; levels and labels. */
const DEPTH = 4;

/** A viewer's way with zarrita: the plate's metadata followed a level at a time. */
async function zarritaPlate(url) {
  const store = new zarr.FetchStore(url);
  const root = zarr.root(store);
  const opened = [""];
  const open = async (path, kind) => {
    try {
      const node = await zarr.open(root.resolve(path), { kind });
      opened.push(path);
      return node;
    } catch {
      return null;
    }
  };
  const attrs = (node) => node.attrs.ome ?? node.attrs;
  const plate = await zarr.open(root, { kind: "group" });
  const wells = attrs(plate).plate.wells.map((w) => w.path);
  const rows = [...new Set(wells.map((w) => w.split("/")[0]))];
  const wellGroups = await Promise.all([...rows.map((r) => open(r, "group")), ...wells.map((w) => open(w, "group"))]);
  const fields = wells.flatMap((w, i) => attrs(wellGroups[rows.length + i]).well.images.map((im) => `${w}/${im.path}`));
  const fieldGroups = await Promise.all(fields.map((f) => open(f, "group")));
  await Promise.all(
    fields.flatMap((f, i) => [
      ...attrs(fieldGroups[i]).multiscales[0].datasets.map((d) => open(`${f}/${d.path}`, "array")),
      open(`${f}/labels`, "group"),
    ]),
  );
  return opened.sort();
}

const READERS = {
  zom: async (url) => zomPaths(await zom.walk(new zom.FetchStore(url))),
  "zom, concurrency 16": async (url) => zomPaths(await zom.walk(new zom.FetchStore(url), { concurrency: 16 })),
  "zom, HTML index": async (url) => zomPaths(await zom.walk(new zom.FetchStore(`${url}/`))),
  zarrita: zarritaPlate,
};

/**
 * What the floor transfers: every node's document of the plate folder, and for each image
 * without labels the one request any reader makes to learn that (a probe of its `labels`
 * group, or a listing of the image: no metadata says whether labels exist).
 */
function floorUrls(base, plate, folder) {
  const format = folder.zarr_format;
  const out = [];
  const visit = (node, p) => {
    const dir = `${base}/${plate}${p ? `/${p}` : ""}`;
    if (format === 3) out.push({ url: `${dir}/zarr.json` });
    else {
      out.push({ url: `${dir}/${node.shape ? ".zarray" : ".zgroup"}` });
      if (existsSync(join(values.data, plate, p, ".zattrs"))) out.push({ url: `${dir}/.zattrs` });
    }
    const attrs = node.attributes ?? {};
    const image = (attrs.ome ?? attrs).multiscales !== undefined;
    if (image && node.members?.labels === undefined) out.push({ url: `${dir}/labels/${format === 3 ? "zarr.json" : ".zgroup"}` });
    for (const [name, child] of Object.entries(node.members ?? {})) visit(child, p ? `${p}/${name}` : name);
  };
  visit(folder, "");
  return out;
}

/**
 * The transfer of `requests` at best: the fastest of all at once and of 32, 64 and 256 at a
 * time (a reader may pick any; all at once opens a connection per request).
 */
async function transferFloor(requests) {
  const times = [await transferTime(requests)];
  for (const width of [32, 64, 256]) {
    const lanes = Array.from({ length: Math.ceil(requests.length / width) }, (_, i) => requests.slice(i * width, (i + 1) * width));
    let best = Infinity;
    for (let t = 0; t < 3; t++) {
      const t0 = performance.now();
      for (const lane of lanes) await transferTime(lane, { tries: 1 });
      best = Math.min(best, performance.now() - t0);
    }
    times.push(best);
  }
  return Math.min(...times);
}

async function measure(server, reader, url) {
  server.resetStats();
  const t0 = performance.now();
  const found = await READERS[reader](url);
  return { ms: performance.now() - t0, requests: server.stats.requests, nodes: found.length };
}

async function nodeCases() {
  const rows = [];
  const validation = [];
  const bare = await startServer({ root: values.data });
  try {
    for (const plate of PLATES) {
      const folder = await zom.walk(new FsStore(join(values.data, plate)));
      const nodes = zomPaths(folder);
      const transfer = await transferFloor(floorUrls(bare.url, plate, folder));
      for (const latency of LATENCIES) {
        const plain = await startServer({ root: values.data, latencyMs: latency });
        const indexed = await startServer({ root: values.data, latencyMs: latency, htmlIndex: true });
        try {
          const floor = DEPTH * latency + transfer;
          for (const reader of Object.keys(READERS)) {
            if (plate === "plate384-v0.5" && reader === "zom, concurrency 16" && latency === 20) continue;
            const server = reader.includes("HTML") ? indexed : plain;
            const url = `${server.url}/${plate}`;
            const warm = await measure(server, reader, url);
            if (warm.nodes !== nodes.length)
              throw new Error(`${reader} found ${warm.nodes} nodes of ${plate}, the folder has ${nodes.length}`);
            const runs = [];
            for (let i = 0; i < RUNS; i++) {
              globalThis.gc?.();
              runs.push(await measure(server, reader, url));
            }
            const ms = median(runs.map((r) => r.ms));
            const requests = median(runs.map((r) => r.requests));
            rows.push({
              plate,
              latency_ms: latency,
              reader,
              nodes: nodes.length,
              ms,
              requests,
              requests_per_node: requests / nodes.length,
              floor_ms: floor,
              vs_floor: ms / floor,
            });
            console.log(
              `plate: ${plate} ${latency} ms ${reader.padEnd(20)} ${ms.toFixed(0).padStart(6)} ms, ${requests} requests, floor ${floor.toFixed(0)} ms`,
            );
          }
        } finally {
          await Promise.all([plain.close(), indexed.close()]);
        }
      }
      const tree = await zom.walk(new FsStore(join(values.data, plate)));
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const report = zom.validateHierarchy(tree, { specs: "auto" });
        times.push(performance.now() - t0);
        if (report.problems.some((p) => p.severity === "error")) throw new Error(`${plate} is not valid: ${report.problems[0].message}`);
      }
      validation.push({ plate, nodes: nodes.length, validate_ms: median(times) });
    }
  } finally {
    await bare.close();
  }
  return { rows, validation };
}

/** The 96-well plate walked in Chromium at 50 ms, at several walk concurrencies. */
async function browserCases() {
  const dir = mkdtempSync(join(tmpdir(), "zom-bench-plate-"));
  bundlePage({
    source: `import * as zom from "zom/validate";
      window.walkPlate = async (url, concurrency) => {
        const t0 = performance.now();
        const tree = await zom.walk(new zom.FetchStore(url), { concurrency });
        let n = 0; const count = (x) => { n++; Object.values(x.members ?? {}).forEach(count); }; count(tree);
        return { ms: performance.now() - t0, nodes: n };
      };
      window.ready = true;`,
    outdir: dir,
  });
  writeFileSync(join(dir, "index.html"), `<!doctype html><meta charset="utf-8"><script type="module" src="stdin.js"></script>`);
  const server = await startServer({ root: dir, latencyMs: 50, mounts: { "/data/": values.data } });
  const { browser, profile } = await launchChromium("zom-bench-plate-");
  const rows = [];
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/index.html`, { timeout: 30_000 });
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const url = `${server.url}/data/plate96-v0.5`;
    for (const concurrency of [6, 16, 64, 256]) {
      const runs = [];
      for (let i = 0; i <= RUNS; i++) {
        server.resetStats();
        // A query of its own per run: no answer comes from the HTTP cache.
        const r = await page.evaluate(([u, c]) => window.walkPlate(u, c), [`${url}?run=${concurrency}-${i}`, concurrency]);
        if (i > 0) runs.push({ ...r, requests: server.stats.requests, inFlight: server.stats.maxInFlight });
      }
      const ms = median(runs.map((r) => r.ms));
      rows.push({
        plate: "plate96-v0.5",
        latency_ms: 50,
        concurrency,
        ms,
        nodes: runs[0].nodes,
        requests: median(runs.map((r) => r.requests)),
        max_in_flight: Math.max(...runs.map((r) => r.inFlight)),
      });
      console.log(
        `plate: Chromium, concurrency ${String(concurrency).padStart(3)}: ${ms.toFixed(0)} ms, at most ${rows.at(-1).max_in_flight} requests in flight at the server`,
      );
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const { rows, validation } = await nodeCases();
const browser = values["no-browser"] ? [] : await browserCases();

console.log(
  `\n${table(
    ["plate", "latency", "reader", "ms", "floor ms", "× floor", "requests", "per node"],
    rows.map((r) => [
      r.plate,
      `${r.latency_ms} ms`,
      r.reader,
      r.ms.toFixed(0),
      r.floor_ms.toFixed(0),
      r.vs_floor.toFixed(2),
      String(r.requests),
      r.requests_per_node.toFixed(2),
    ]),
  )}`,
);
console.log(
  `\n${table(
    ["plate", "nodes", "validate ms"],
    validation.map((v) => [v.plate, String(v.nodes), v.validate_ms.toFixed(1)]),
  )}`,
);
if (browser.length)
  console.log(
    `\n${table(
      ["Chromium, 96 wells, 50 ms", "ms", "requests"],
      browser.map((b) => [`concurrency ${b.concurrency}`, b.ms.toFixed(0), String(b.requests)]),
    )}`,
  );

const targets = new Targets("plate");
for (const reader of ["zom", "zom, HTML index"]) {
  const r = rows.find((x) => x.plate === "plate96-v0.5" && x.latency_ms === 50 && x.reader === reader);
  targets.check(`96-well plate, 50 ms, ${reader === "zom" ? "no listing" : "HTML index"}: zom / floor`, r.vs_floor, "<=", 1.5);
}
targets.print();

let results = {};
if (existsSync(values.out)) results = JSON.parse(readFileSync(values.out, "utf8"));
results.plate = { date: new Date().toISOString().slice(0, 10), runs: RUNS, depth: DEPTH, rows, validation, browser };
targets.save(results);
writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
