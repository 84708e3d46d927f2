// Prints README.md's benchmark tables (markdown) from bench/results.json, so that the figures
// in README.md's "Benchmarks" section are copied from one `npm run bench` run, not typed:
//
//   node scripts/bench-readme.mjs [--results bench/results.json]
//
// One table per section the run wrote (decode, read and its floor, walk, walk10k, walk_v2, size and the
// .wasm by crate, load, first tree, specs, viewer and viewer_before (bench/viewer-tables.mjs), targets),
// each after a line naming it and its run's date;
// sections missing from the file are skipped. The prose around the tables stays hand-written.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { table } from "../bench/util.mjs";
import { viewerComparison, viewerTables } from "../bench/viewer-tables.mjs";
import { root, runMain, StepError } from "./lib.mjs";

/** README's names of the decode cases (else the manifest's description). */
const DECODE_LABELS = {
  v3_gzip: "v3 gzip",
  v3_zstd: "v3 zstd",
  v3_blosc_lz4_shuffle: "v3 blosc lz4 shuffle",
  v3_blosc_zstd_shuffle: "v3 blosc zstd shuffle",
  v3_blosc_lz4_bitshuffle: "v3 blosc lz4 bitshuffle",
  v2_lz4: "v2 lz4",
  v2_zlib: "v2 zlib",
  v2_blosc_lz4_shuffle: "v2 blosc lz4 shuffle",
  v3_raw: "v3 uncompressed",
  v3_sharded_zstd: "v3 sharded zstd (whole shards vs inner chunks)",
  v3_f32_blosc_zstd: "v3 float32 blosc zstd",
};

const fixed = (x, d = 0) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(d) : "–");
const times = (x) => (typeof x === "number" && Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const day = (iso) => (iso ? iso.slice(0, 10) : "undated");

function decode(r) {
  const rows = r.results.map((c) => [
    DECODE_LABELS[c.case] ?? c.description,
    fixed(c.zom_mb_per_s),
    c.case === "v3_raw" ? "(a view, no decode)" : fixed(c.zarrita_mb_per_s),
    c.case === "v3_raw" ? "—" : times(c.zom_mb_per_s / c.zarrita_mb_per_s),
    fixed(c.zom_into_mb_per_s),
    fixed(c.native_mb_per_s),
    c.native_mb_per_s ? fixed(c.zom_into_mb_per_s / c.native_mb_per_s, 2) : "–",
  ]);
  return table(["case", "zom MB/s", "zarrita MB/s", "zom / zarrita", "zom into a buffer MB/s", "native MB/s", "into a buffer / native"], rows);
}

function read(s) {
  const n = s.workers;
  const kinds = (k) => `${k.metadata} + ${k.head} + ${k.data}`;
  const main = table(
    ["case", `zom ${n} workers ms`, `zom ${n} workers, transfer ms`, "zom 1 worker ms", "zom main thread ms", "zarrita ms", `zarrita / zom ${n} workers`, "zom requests", "zarrita requests"],
    s.results.map((r) => [
      r.description,
      fixed(r.zom.ms),
      fixed(r.zom_transfer.ms),
      fixed(r.zom_1_worker.ms),
      fixed(r.zom_main_thread.ms),
      fixed(r.zarrita.ms),
      times(r.zarrita.ms / r.zom.ms),
      String(r.zom.requests),
      `${r.zarrita.requests} (${kinds(r.zarrita.requests_by_kind)})`,
    ]),
  );
  const withFloor = s.results.filter((r) => r.floor);
  if (withFloor.length === 0) return main;
  const floor = table(
    ["case", "round trips × latency ms", "transfer ms", "decode ms", "floor ms", `zom ${n} workers ms`, "zom / floor"],
    withFloor.map((r) => [
      r.description,
      `${r.floor.round_trips} × ${s.method.latency_ms}`,
      fixed(r.floor.transfer_ms, 1),
      `${fixed(r.floor.decode_ms, 1)} (${fixed(r.floor.native_mb_per_s)} MB/s ÷ ${r.floor.decode_parallelism})`,
      fixed(r.floor.ms, 1),
      fixed(r.zom.ms),
      times(r.zom_over_floor),
    ]),
  );
  const geo = s.geomean_zarrita_over_zom === undefined ? "" : `\n\nzarrita / zom, geometric mean over the target cases: ${times(s.geomean_zarrita_over_zom)}; loopback ${fixed(s.loopback_mb_per_s)} MB/s.`;
  return `${main}\n\n${floor}${geo}`;
}

function walk(s) {
  const parts = [];
  if (Array.isArray(s.walk)) parts.push(table(["walk", "nodes", "ms", "requests"], s.walk.map((w) => [w.walk, String(w.nodes), fixed(w.ms), String(w.requests)])));
  if (Array.isArray(s.open_walk)) parts.push(table(["operation", "nodes", "ms", "requests"], s.open_walk.map((w) => [w.op, String(w.nodes), fixed(w.ms), String(w.requests)])));
  if (Array.isArray(s.parse?.results)) {
    parts.push(table([`${s.parse.nodes} nodes, ${(s.parse.bytes / 1e6).toFixed(1)} MB`, "ms", "× `JSON.parse`"], s.parse.results.map((p) => [p.op, fixed(p.ms, 1), times(p.vs_json_parse)])));
  }
  return parts.join("\n\n");
}

function size(s) {
  const total = (a) => a.js.gz + a.extra.gz;
  const apps = table(
    ["app", "JS gzipped", "`.wasm` gzipped", "total"],
    Object.entries(s.apps).map(([k, a]) => [k, kib(a.js.gz), a.extra.files ? kib(a.extra.gz) : "—", kib(total(a))]),
  );
  const at = s.attribution;
  if (!at) return apps;
  const crates = table(
    [`\`.wasm\` by crate (${at.shipped_bytes} bytes, twiggy ${at.twiggy})`, "bytes", "share"],
    at.groups.map((g) => [g.group, String(g.bytes), `${g.percent.toFixed(1)}%`]),
  );
  return `${apps}\n\n${crates}`;
}

function load(s) {
  const ms = (x) => fixed(x, 1);
  const parts = [table(["", "ms"], Object.entries(s.load_ms).map(([k, v]) => [k, ms(v.total)]))];
  if (s.module_ms) {
    parts.push(
      table(
        ["zom's module in the page", "ms"],
        [
          ["`WebAssembly.compile`", ms(s.module_ms.compile)],
          ["instantiate (`new WebAssembly.Instance` + start)", ms(s.module_ms.instantiate)],
        ],
      ),
    );
  }
  parts.push(table(["", "first read ms", "second read ms"], Object.entries(s.read_ms).map(([k, v]) => [k, ms(v.first), ms(v.second)])));
  return parts.join("\n\n");
}

function firstTree(s) {
  return table(
    ["explorer, sample hierarchy, from navigation start", "ms"],
    [
      ["DOMContentLoaded", fixed(s.dom_content_loaded_ms, 1)],
      [".wasm requested by the explorer's worker", fixed(s.wasm_requested_ms, 1)],
      ["first request of the walk (zom loaded)", fixed(s.walk_started_ms, 1)],
      ["last response of the walk", fixed(s.walk_ended_ms, 1)],
      ["first tree in the page", fixed(s.tree_ms, 1)],
      ["first tree drawn", fixed(s.drawn_ms, 1)],
    ],
  );
}

function specs(s) {
  return table(
    ["hierarchy", "nodes", "Zarr spec alone (ms)", "+ its convention", "+ auto", "ratio", "auto ratio"],
    s.hierarchies.map((h) => [h.name, String(h.nodes), fixed(h.ms.zarr), fixed(h.ms.convention), fixed(h.ms.auto), `${h.convention_vs_zarr.toFixed(2)}×`, `${h.auto_vs_zarr.toFixed(2)}×`]),
  );
}

function targets(list) {
  const unit = (t) => (t.target.endsWith("×") ? "×" : "");
  return table(
    ["target (bench: figure)", "value", "target", "met"],
    list.map((t) => [`${t.bench}: ${t.label}`, t.value === null ? "–" : `${t.value}${unit(t)}`, t.target, t.met ? "✓" : "✗"]),
  );
}

runMain(() => {
  const { values } = parseArgs({ options: { results: { type: "string", default: join(root, "bench", "results.json") } } });
  if (!existsSync(values.results)) throw new StepError(`${values.results} is missing: npm run bench`);
  const r = JSON.parse(readFileSync(values.results, "utf8"));
  const sections = [
    ["Decode (bench/decode.mjs)", r.results && r, decode],
    ["Whole-array reads (bench/read.mjs)", r.read, read],
    ["Walks (bench/walk.mjs)", r.walk, walk],
    ["10,000 nodes, v3 consolidated (bench/walk.mjs)", r.walk10k, walk],
    ["1,990 nodes, v2 consolidated (bench/walk.mjs)", r.walk_v2, walk],
    ["Download sizes (bench/size.mjs)", r.size, size],
    ["Starting in Chromium (bench/load.mjs)", r.load, load],
    ["The explorer's first tree (bench/first-tree.mjs)", r.first_tree, firstTree],
    ["Hierarchy specs (bench/specs.mjs)", r.specs, specs],
    ["Reading as a viewer reads (bench/viewer.mjs)", r.viewer, viewerTables],
    ["Reading as a viewer reads, before (bench/viewer.mjs --section viewer_before)", r.viewer_before, viewerTables],
    ["Reading as a viewer reads, before and now (README.md)", r.viewer && r.viewer_before ? r.viewer : null, (v) => viewerComparison(r.viewer_before, v)],
  ];
  for (const [title, section, format] of sections) {
    if (!section) continue;
    console.log(`<!-- ${title}, ${day(section.date ?? r.date)} -->\n\n${format(section)}\n`);
  }
  if (Array.isArray(r.targets) && r.targets.length) console.log(`<!-- Targets (issues 16 and 17) -->\n\n${targets(r.targets)}\n`);
});
