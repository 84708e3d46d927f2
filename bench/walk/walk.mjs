// Walking a 1001-node v3 hierarchy over HTTP (bench/lib/generate.py's walk/plain and
// walk/consolidated), zom against zarrita.js, from the same local server (tests/server, every
// response delayed by a latency, default 20 ms; S3 ListObjectsV2 listing on). Then the cost of
// zom's parse + validation of the consolidated zarr.json against JSON.parse of the same text.
// scripts/bench.mjs runs it after bench/read/read.mjs; alone (after bench/lib/generate.py):
//
//   node bench/walk/walk.mjs [--runs N] [--latency MS] [--data DIR] [--out results.json]
//
// What is timed, per run, from a new store to the whole tree:
// - zom, consolidated:     await zom.walk(new zom.FetchStore(url)): one request (the root
//   zarr.json holds every node).
// - zom, not consolidated: the same call; zom lists each group with S3 ListObjectsV2 and reads
//   every node's zarr.json, at most 16 requests in flight (walk `concurrency` and FetchStore
//   `concurrency` defaults).
// - zarrita, consolidated: zarrita has no walk. The nearest: `await
//   zarr.withConsolidatedMetadata(new zarr.FetchStore(url), { format: "v3" })` (the format
//   given, so it does not probe v2's .zmetadata first), then every node `store.contents()`
//   lists opened, all at once, two ways: `zarr.open(zarr.root(store).resolve(path), { kind })`
//   (format-agnostic, zarrita's usual call: on a new store it tries v2 first, and the consolidated
//   store only knows v3 documents, so each node costs a .zattrs and a .zarray/.zgroup request
//   that 404 before its zarr.json is found in memory), and `zarr.open.v3(…)` (the format pinned:
//   no requests beyond the root's).
// - zarrita, not consolidated: not possible. Its stores have no listing (FetchStore has get
//   and getRange only) and a Group has no members, so below the root nothing can be found
//   without consolidated metadata: "n/a".
// One warm-up run each (the trees compared: the same 1001 nodes), then N runs, medians.
// Parse + validate: median of 25 runs of each on the consolidated zarr.json (about 1 MB):
// JSON.parse(text); TextDecoder + JSON.parse(bytes); zom.fromDocuments({ "zarr.json": bytes })
// (parse, check and build the ZOM in WebAssembly); zom.validateHierarchy(zom); and the two
// together. Writes the "walk" section of bench/results.json.
//
// Then two large consolidated hierarchies, only their root document served: the v3 one of
// 10,000 nodes (bench/lib/generate.py's walk10k, a 10 MB zarr.json) and a v2 one of 1,990 nodes
// (walk_v2, .zmetadata). For each, over the server, runs alternating: opening the root and one
// array (zom.open + group.open; zarrita withConsolidatedMetadata + zarr.open.v3/v2), and every
// node (zom.walk; zom.open + group.zom; zarrita opening every node contents() lists), both
// libraries told the format; then the in-process costs against JSON.parse of the same text.
// Sections "walk10k" and "walk_v2"; issue 16's ratios go to "targets" (bench "walk").
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import * as zarr from "zarrita";
import * as reader from "zom";
import * as tools from "zom/validate";
import { startServer } from "../../tests/server/server.mjs";
import { benchDir, median, serverBenchArgs, Targets, table, zomPaths } from "../lib/util.mjs";

/** zom's reader and validator entries, as one namespace. */
const zom = { ...reader, ...tools };

const here = benchDir;
const args = serverBenchArgs();
const RUNS = args.runs;
const LATENCY = args.latency;
const PARSE_RUNS = 25;

const WALKS = {
  async "zom consolidated"(url) {
    const tree = await zom.walk(new zom.FetchStore(`${url}/consolidated`));
    if (!tree.consolidated || tree.errors.length || tree.unlisted.length) throw new Error("zom: the consolidated walk was not clean");
    return zomPaths(tree);
  },
  async "zom not consolidated"(url) {
    const tree = await zom.walk(new zom.FetchStore(`${url}/plain`));
    if (tree.consolidated || tree.errors.length || tree.unlisted.length) {
      throw new Error(`zom: the listed walk was not clean (${tree.errors.length} errors, unlisted ${tree.unlisted})`);
    }
    return zomPaths(tree);
  },
  "zarrita consolidated, zarr.open": (url) => zarritaConsolidated(url, zarr.open),
  "zarrita consolidated, zarr.open.v3": (url) => zarritaConsolidated(url, zarr.open.v3),
};

/** zarrita's nearest to a consolidated walk: every node store.contents() lists, opened with `openNode`, all at once. */
async function zarritaConsolidated(url, openNode) {
  const store = await zarr.withConsolidatedMetadata(new zarr.FetchStore(`${url}/consolidated`), { format: "v3" });
  const root = zarr.root(store);
  const nodes = await Promise.all(store.contents().map(({ path, kind }) => openNode(root.resolve(path), { kind })));
  return nodes.map((n) => n.path.replace(/^\//, "")).sort();
}

async function measure(server, name) {
  server.resetStats();
  const t0 = performance.now();
  const paths = await WALKS[name](server.url);
  return {
    ms: performance.now() - t0,
    requests: server.stats.requests,
    listings: server.stats.log.filter((e) => e.url.includes("list-type=2")).length,
    paths,
  };
}

async function walks(server, expectedNodes) {
  const names = Object.keys(WALKS);
  const warm = {};
  for (const name of names) warm[name] = await measure(server, name);
  const reference = warm["zom consolidated"].paths;
  if (reference.length !== expectedNodes) throw new Error(`zom found ${reference.length} nodes, the manifest says ${expectedNodes}`);
  for (const name of names) {
    if (warm[name].paths.join("\n") !== reference.join("\n"))
      throw new Error(`${name} found other nodes (${warm[name].paths.length}) than the zom consolidated walk`);
  }
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const name of i % 2 ? [...names].reverse() : names) {
      globalThis.gc?.();
      const r = await measure(server, name);
      delete r.paths;
      runs[name].push(r);
    }
  }
  return names.map((name) => {
    const rs = runs[name];
    return {
      walk: name,
      nodes: reference.length,
      ms: median(rs.map((r) => r.ms)),
      runs_ms: rs.map((r) => Math.round(r.ms * 10) / 10),
      requests: median(rs.map((r) => r.requests)),
      listings: median(rs.map((r) => r.listings)),
    };
  });
}

/** Median milliseconds of `fn` over `runs` runs after two warm-ups. */
function time(fn, runs = PARSE_RUNS) {
  fn();
  fn();
  const ts = [];
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

/** Median milliseconds of the async `fn` over `runs` runs after two warm-ups. */
async function timeAsync(fn, runs = PARSE_RUNS) {
  await fn();
  await fn();
  const ts = [];
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const t0 = performance.now();
    await fn();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

async function parseBench(file, runs = PARSE_RUNS, key = "zarr.json") {
  const bytes = new Uint8Array(readFileSync(file));
  const text = new TextDecoder().decode(bytes);
  const docs = () => new Map([[key, bytes]]);
  const tree = zom.fromDocuments(docs());
  const nodes = zomPaths(tree).length;
  const report = zom.validateHierarchy(tree);
  if (!report.valid) throw new Error(`the walk hierarchy is not valid: ${JSON.stringify(report.problems.slice(0, 3))}`);
  const rows = [
    ["JSON.parse(text)", time(() => JSON.parse(text), runs)],
    ["TextDecoder + JSON.parse(bytes)", time(() => JSON.parse(new TextDecoder().decode(bytes)), runs)],
    ["zom.fromDocuments(bytes)", time(() => zom.fromDocuments(docs()), runs)],
    ["zom.validateHierarchy(zom)", time(() => zom.validateHierarchy(tree), runs)],
    ["fromDocuments + validateHierarchy", time(() => zom.validateHierarchy(zom.fromDocuments(docs())), runs)],
  ];
  const store = docs();
  rows.push(["zom.open(Map store) of the root (members read when asked for)", await timeAsync(() => zom.open(store), runs)]);
  rows.push(["zom.open(Map store) + group.zom (every member read)", await timeAsync(async () => (await zom.open(store)).zom, runs)]);
  const base = rows[0][1];
  return {
    bytes: bytes.length,
    nodes,
    problems: report.problems.length,
    results: rows.map(([op, ms]) => ({ op, ms, vs_json_parse: ms / base })),
  };
}

const manifest = JSON.parse(readFileSync(join(args.data, "manifest.json"), "utf8"));
if (!manifest.walk) throw new Error(`no walk hierarchy in ${args.data} (run bench/lib/generate.py)`);
const root = join(args.data, "walk");
const loadBefore = loadavg()[0];
const server = await startServer({ root, latencyMs: LATENCY, s3Listing: true });
let walkRows;
try {
  walkRows = await walks(server, manifest.walk.nodes);
} finally {
  await server.close();
}
for (const r of walkRows) console.log(`bench: walk ${r.walk.padEnd(36)} ${r.ms.toFixed(0).padStart(5)} ms, ${r.requests} requests`);
const parse = await parseBench(join(root, "consolidated", "zarr.json"));

/** Issue 16's targets this bench checks (results.json "targets", bench "walk"). */
const targets = new Targets("walk");

/**
 * A large consolidated hierarchy (only its root document served): opening it and reading one
 * array, and every node, zom against zarrita, runs alternating; then the in-process costs
 * against JSON.parse of the same text.
 */
async function consolidatedHierarchy({ name, dir, format, file, nodes, oneArray }) {
  const server = await startServer({ root: join(args.data, dir), latencyMs: LATENCY });
  const url = `${server.url}/consolidated`;
  const zf = format === 3 ? "v3" : "v2";
  const zarritaStore = () => zarr.withConsolidatedMetadata(new zarr.FetchStore(url), { format: zf });
  const zarritaOpen = format === 3 ? zarr.open.v3 : zarr.open.v2;
  // zom is told the format as zarrita is (for v2: only .zmetadata is fetched).
  const ops = {
    "zom: open + group.open of one array": Object.assign(
      async () => {
        const group = await zom.open(new zom.FetchStore(url), "", { format });
        await group.open(oneArray);
      },
      { check: async () => zomPaths((await zom.open(new zom.FetchStore(url), "", { format })).zom).length },
    ),
    "zarrita: withConsolidatedMetadata + open of one array": Object.assign(
      async () => {
        await zarritaOpen(zarr.root(await zarritaStore()).resolve(oneArray), { kind: "array" });
      },
      { check: async () => (await zarritaStore()).contents().length },
    ),
    "zom: walk (every node)": async () => {
      const tree = await zom.walk(new zom.FetchStore(url), { format });
      if (!tree.consolidated || tree.errors.length) throw new Error(`zom: the ${name} walk was not clean`);
      return zomPaths(tree).length;
    },
    "zom: open + group.zom (every node)": async () => zomPaths((await zom.open(new zom.FetchStore(url), "", { format })).zom).length,
    "zarrita: withConsolidatedMetadata + open of every node": async () => {
      const store = await zarritaStore();
      const root = zarr.root(store);
      return (await Promise.all(store.contents().map(({ path, kind }) => zarritaOpen(root.resolve(path), { kind })))).length;
    },
  };
  const names = Object.keys(ops);
  const runs = Object.fromEntries(names.map((n) => [n, { ms: [], requests: 0 }]));
  try {
    for (const op of names) {
      const found = await (ops[op].check ?? ops[op])();
      if (found !== nodes) throw new Error(`${name}: ${op} found ${found} nodes, the manifest says ${nodes}`);
    }
    for (let i = 0; i < RUNS; i++) {
      for (const op of i % 2 ? [...names].reverse() : names) {
        globalThis.gc?.();
        server.resetStats();
        const t0 = performance.now();
        await ops[op]();
        runs[op].ms.push(performance.now() - t0);
        runs[op].requests = server.stats.requests;
      }
    }
  } finally {
    await server.close();
  }
  const rows = names.map((op) => ({
    op,
    nodes,
    ms: median(runs[op].ms),
    runs_ms: runs[op].ms.map((m) => Math.round(m)),
    requests: runs[op].requests,
  }));
  const ms = (op) => rows.find((r) => r.op === op).ms;
  const parse = await parseBench(join(args.data, dir, "consolidated", file), 7, file);
  const pms = (op) => parse.results.find((r) => r.op === op).ms;
  const base = pms("JSON.parse(text)");
  const check = (label, value, op, goal) => targets.check(`${name}: ${label}`, value, op, goal);
  check(
    "open + one array, zarrita/zom",
    ms("zarrita: withConsolidatedMetadata + open of one array") / ms("zom: open + group.open of one array"),
    ">=",
    3,
  );
  check(
    "walk, zarrita (every node)/zom",
    ms("zarrita: withConsolidatedMetadata + open of every node") / ms("zom: walk (every node)"),
    ">=",
    2,
  );
  check(
    "group.zom, zarrita (every node)/zom",
    ms("zarrita: withConsolidatedMetadata + open of every node") / ms("zom: open + group.zom (every node)"),
    ">=",
    2,
  );
  check("fromDocuments / JSON.parse", pms("zom.fromDocuments(bytes)") / base, "<=", 3);
  check("open + group.zom (in memory) / JSON.parse", pms("zom.open(Map store) + group.zom (every member read)") / base, "<=", 3);
  check("validateHierarchy / JSON.parse", pms("zom.validateHierarchy(zom)") / base, "<=", 3);
  const requests = Math.max(...rows.filter((r) => r.op.startsWith("zom")).map((r) => r.requests));
  targets.check(`${name}: zom requests per operation (most)`, requests, "<=", 1, { unit: "", digits: 0 });
  return { open_walk: rows, parse };
}

const big = manifest.walk10k
  ? await consolidatedHierarchy({
      name: "walk10k",
      dir: "walk10k",
      format: 3,
      file: "zarr.json",
      nodes: manifest.walk10k.nodes,
      oneArray: "group5/sub3/image2",
    })
  : undefined;
const v2 = manifest.walk_v2
  ? await consolidatedHierarchy({
      name: "walk_v2",
      dir: "walk_v2",
      format: 2,
      file: ".zmetadata",
      nodes: manifest.walk_v2.nodes,
      oneArray: "group5/sub3/image2",
    })
  : undefined;

const pkg = (name) => JSON.parse(readFileSync(join(here, "..", "node_modules", name, "package.json"), "utf8")).version;
const section = {
  date: new Date().toISOString(),
  versions: { zom: zom.version(), zarrita: pkg("zarrita"), node: process.version },
  load_average_1min: { before: loadBefore, after: loadavg()[0] },
  method: {
    runs: RUNS,
    latency_ms: LATENCY,
    hierarchy: `v3, ${manifest.walk.nodes} nodes (root → 8 groups → 4 arrays + 8 subgroups → 14 arrays each), metadata only, written by zarr-python ${manifest.zarr}; consolidated copy by zarr.consolidate_metadata`,
    statistic: "median of the runs after one warm-up each; runs alternate the order",
    timed: "from a new store to every node's metadata in memory",
    zom: "zom.walk(new zom.FetchStore(url)) with its defaults: at most 16 requests in flight; children from consolidated metadata, else from S3 ListObjectsV2 listings (the server's s3Listing mode)",
    zarrita:
      "zarr.withConsolidatedMetadata(new zarr.FetchStore(url), {format: 'v3'}), then every node of store.contents() opened at once with zarr.open(root.resolve(path), {kind}) (format-agnostic: probes v2 .zattrs + .zarray/.zgroup per node first, on a new store) or with zarr.open.v3 (format pinned)",
    zarrita_not_consolidated:
      "n/a: zarrita has no walk and no listing (its FetchStore has get/getRange only; a Group has no members API), so a hierarchy without consolidated metadata cannot be discovered below its root",
    check: "every walk found the same 1001 node paths (warm-up run)",
    parse: `median of ${PARSE_RUNS} runs of each operation on the consolidated zarr.json, in this process`,
  },
  walk: walkRows,
  parse,
};

let results = {};
if (existsSync(args.out)) results = JSON.parse(readFileSync(args.out, "utf8"));
results.walk = section;
const large = (part, hierarchy) => ({
  date: section.date,
  versions: section.versions,
  load_average_1min: { before: loadBefore, after: loadavg()[0] },
  method: {
    runs: RUNS,
    latency_ms: LATENCY,
    hierarchy,
    timed:
      "from a new store to the node(s) in memory (one request: zom and zarrita are both given the format, so zom fetches only the root zarr.json or .zmetadata); operations alternate, order reversed every other run; parse: median of 7 runs in this process",
  },
  open_walk: part.open_walk,
  parse: part.parse,
});
if (big) {
  results.walk10k = large(
    big,
    `v3, ${manifest.walk10k.nodes} nodes (root → 9 groups → 10 subgroups → 110 arrays each), consolidated by zarr-python ${manifest.zarr}; only the root zarr.json is served`,
  );
}
if (v2) {
  results.walk_v2 = large(
    v2,
    `v2, ${manifest.walk_v2.nodes} nodes (root → 9 groups → 10 subgroups → 21 arrays each), consolidated by zarr-python ${manifest.zarr}; only the root .zmetadata is served`,
  );
}
targets.save(results);
writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);

const row = (name) => walkRows.find((r) => r.walk === name);
const zc = row("zom consolidated");
const zp = row("zom not consolidated");
const line = (label, z, r) => [
  label,
  z.ms.toFixed(0),
  z.listings ? `${z.requests} (${z.listings} listings)` : String(z.requests),
  r ? r.ms.toFixed(0) : "n/a",
  r ? String(r.requests) : "n/a",
  r ? `${(r.ms / z.ms).toFixed(2)}×` : "–",
];
console.log(
  `\n${table(
    [`walk, ${zc.nodes} nodes, ${LATENCY} ms latency`, "zom ms", "zom requests", "zarrita ms", "zarrita requests", "zarrita/zom"],
    [
      line("consolidated (zarrita: zarr.open)", zc, row("zarrita consolidated, zarr.open")),
      line("consolidated (zarrita: zarr.open.v3)", zc, row("zarrita consolidated, zarr.open.v3")),
      line("not consolidated (S3 listing)", zp, undefined),
    ],
  )}\n`,
);
console.log(
  "zarrita opens every node that withConsolidatedMetadata's contents() lists (it has no walk); zarr.open probes v2 " +
    "(.zattrs, .zarray/.zgroup: 404) per node before finding its v3 zarr.json in memory, zarr.open.v3 does not. " +
    "n/a: zarrita cannot list a store, so without consolidated metadata nothing below the root can be found.\n",
);
console.log(
  `${table(
    [`consolidated zarr.json, ${(parse.bytes / 1e6).toFixed(2)} MB, ${parse.nodes} nodes`, "ms", "× JSON.parse"],
    parse.results.map((r) => [r.op, r.ms.toFixed(2), `${r.vs_json_parse.toFixed(2)}×`]),
  )}\n`,
);
for (const [part, what] of [
  [big, `${manifest.walk10k?.nodes}-node v3 consolidated hierarchy`],
  [v2, `${manifest.walk_v2?.nodes}-node v2 consolidated hierarchy`],
]) {
  if (!part) continue;
  console.log(
    `${table(
      [`${what}, ${LATENCY} ms latency`, "ms", "requests"],
      part.open_walk.map((r) => [r.op, r.ms.toFixed(0), String(r.requests)]),
    )}\n`,
  );
  const base = part.parse.results[0].ms;
  console.log(
    `${table(
      [`its consolidated document, ${(part.parse.bytes / 1e6).toFixed(2)} MB`, "ms", "× JSON.parse"],
      part.parse.results.map((r) => [r.op, r.ms.toFixed(1), `${(r.ms / base).toFixed(2)}×`]),
    )}\n`,
  );
}
targets.print();
console.log(
  `Median of ${RUNS} walks and ${PARSE_RUNS} parses; zom ${section.versions.zom}, zarrita ${section.versions.zarrita}, Node ${process.version}.`,
);
console.log(`bench: wrote the "walk" section of ${args.out}`);
