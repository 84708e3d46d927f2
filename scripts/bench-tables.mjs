// The benchmark tables of README.md and docs/*.md, made from bench/results.json so that every
// figure in them comes from one `npm run bench` run, not typed:
//
//   node scripts/bench-tables.mjs            prints every block
//   node scripts/bench-tables.mjs --write    refreshes the blocks in README.md and docs/*.md
//   node scripts/bench-tables.mjs --check    exits 1 when a block there differs from results.json
//   … [--results bench/results.json]
//
// A block is what stands between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` (NAME one of
// BLOCKS below): a line naming the bench and its run's date, then its tables. A block whose
// section results.json lacks says so. The prose around the blocks stays hand-written.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { firstSummary, firstTables } from "../bench/first/first-tables.mjs";
import { icechunkTables } from "../bench/icechunk/icechunk-tables.mjs";
import { geomean, table } from "../bench/lib/util.mjs";
import { viewerTables } from "../bench/viewer/viewer-tables.mjs";
import { root, runMain, StepError } from "./lib.mjs";

/** The docs' names of the decode cases (else the manifest's description). */
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
const mib = (n) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const day = (iso) => (iso ? iso.slice(0, 10) : "undated");
const ms = (x) => (typeof x === "number" && Number.isFinite(x) ? `${x.toFixed(x < 10 ? 1 : 0)} ms` : "–");

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
  return table(
    ["case", "zom MB/s", "zarrita MB/s", "zom / zarrita", "zom into a buffer MB/s", "native MB/s", "into a buffer / native"],
    rows,
  );
}

function read(s) {
  const n = s.workers;
  const kinds = (k) => `${k.metadata} + ${k.head} + ${k.data}`;
  const main = table(
    [
      "case",
      `zom ${n} workers ms`,
      `zom ${n} workers, transfer ms`,
      "zom 1 worker ms",
      "zom main thread ms",
      "zarrita ms",
      `zarrita / zom ${n} workers`,
      "zom requests",
      "zarrita requests",
    ],
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
  const geo =
    s.geomean_zarrita_over_zom === undefined
      ? ""
      : `\n\nzarrita / zom, geometric mean over the target cases: ${times(s.geomean_zarrita_over_zom)}; loopback ${fixed(s.loopback_mb_per_s)} MB/s.`;
  return `${main}\n\n${floor}${geo}`;
}

function walk(s) {
  const parts = [];
  if (Array.isArray(s.walk))
    parts.push(
      table(
        ["walk", "nodes", "ms", "requests"],
        s.walk.map((w) => [w.walk, String(w.nodes), fixed(w.ms), String(w.requests)]),
      ),
    );
  if (Array.isArray(s.open_walk))
    parts.push(
      table(
        ["operation", "nodes", "ms", "requests"],
        s.open_walk.map((w) => [w.op, String(w.nodes), fixed(w.ms), String(w.requests)]),
      ),
    );
  if (Array.isArray(s.parse?.results)) {
    parts.push(
      table(
        [`${s.parse.nodes} nodes, ${(s.parse.bytes / 1e6).toFixed(1)} MB`, "ms", "× `JSON.parse`"],
        s.parse.results.map((p) => [p.op, fixed(p.ms, 1), times(p.vs_json_parse)]),
      ),
    );
  }
  return parts.join("\n\n");
}

function plate(s) {
  const rows = s.rows.map((r) => [
    r.plate.replace(/^plate(\d+)-v/, "$1 wells, OME-Zarr "),
    `${r.latency_ms} ms`,
    r.reader,
    fixed(r.ms),
    fixed(r.floor_ms),
    times(r.vs_floor),
    String(r.requests),
    r.requests_per_node.toFixed(2),
  ]);
  const parts = [table(["plate", "latency", "reader", "ms", "floor ms", "× floor", "requests", "per node"], rows)];
  parts.push(
    table(
      ["validate (specs auto)", "nodes", "ms"],
      s.validation.map((v) => [v.plate, String(v.nodes), fixed(v.validate_ms, 1)]),
    ),
  );
  if (s.browser?.length) {
    parts.push(
      table(
        ["Chromium, 96 wells, 50 ms", "ms", "requests", "most in flight at the server"],
        s.browser.map((b) => [`walk concurrency ${b.concurrency}`, fixed(b.ms), String(b.requests), String(b.max_in_flight)]),
      ),
    );
  }
  return parts.join("\n\n");
}

function platePictures(s) {
  const head = [
    `plate, ${s.latency_ms} ms a request, Chromium`,
    "viewport",
    "wells in view",
    "pictures ms",
    "floor ms",
    "× floor",
    "requests by then",
    "floor requests",
    "first data request ms",
    "walk started ms",
    "walk end ms",
    "requests at walk end",
  ];
  const rows = s.plates.map((p) => [
    `${p.wells} wells (level ${p.level}, ${p.level_shape.join(" × ")})`,
    p.viewport ? `${p.viewport.width} × ${p.viewport.height}` : "1400 × 900",
    String(p.in_view),
    fixed(p.ms),
    fixed(p.floor_ms),
    times(p.vs_floor),
    String(p.requests),
    String(p.floor_requests),
    fixed(p.first_data_request_ms),
    fixed(p.walk_started_ms),
    fixed(p.ready_ms),
    String(p.requests_walk_end),
  ]);
  const kinds = table(
    [
      "requests of the wells in view by then",
      "well documents",
      "field documents",
      "level documents",
      "labels probes",
      "chunks",
      "floor: round trips (plate, wells, fields, levels, chunks)",
    ],
    s.plates.map((p) => {
      const k = p.requests_in_view;
      return [
        `${p.wells} wells (${p.in_view} in view${p.viewport ? `, ${p.viewport.width} × ${p.viewport.height}` : ""})`,
        String(k.well),
        String(k.field),
        String(k.level),
        String(k.labels ?? 0),
        String(k.chunk),
        p.floor_steps.map((f) => f.round_trips).join(" + "),
      ];
    }),
  );
  return `${table(head, rows)}\n\n${kinds}`;
}

function explorerLarge(s) {
  return table(
    ["explorer, 10,000-node consolidated hierarchy", "ms", "× CLI"],
    [
      ["`zom validate URL` (CLI, spawn to exit)", fixed(s.cli_validate_ms), "1.00×"],
      ["rows painted (names and nesting)", fixed(s.drawn_ms), times(s.rows_vs_cli)],
      ["rows with kinds, shapes, data types", fixed(s.details_ms), times(s.details_vs_cli)],
      ["validated", fixed(s.validated_ms), times(s.validated_ms / s.cli_validate_ms)],
      ["a click on a row → next frame", fixed(s.click_ms, 1), ""],
      ["a fold → next frame", fixed(s.fold_ms, 1), ""],
      ["longest task while clicking, folding, scrolling", fixed(s.longest_task_ms), ""],
    ],
  );
}

function size(s) {
  const total = (a) => a.js.gz + a.extra.gz;
  return table(
    ["app", "JS gzipped", "`.wasm` gzipped", "total"],
    Object.entries(s.apps).map(([k, a]) => [k, kib(a.js.gz), a.extra.files ? kib(a.extra.gz) : "—", kib(total(a))]),
  );
}

function attribution(at) {
  return table(
    [`\`.wasm\` by crate (${at.shipped_bytes} bytes, twiggy ${at.twiggy})`, "bytes", "share"],
    at.groups.map((g) => [g.group, String(g.bytes), `${g.percent.toFixed(1)}%`]),
  );
}

/** Each other part's bytes by crate (groups under 1% summed as one row) and its largest items. */
function partsAttribution(parts) {
  const out = [];
  for (const [name, at] of Object.entries(parts)) {
    const big = at.groups.filter((g) => g.percent >= 1);
    const rest = at.groups.filter((g) => g.percent < 1);
    const rows = big.map((g) => [g.group, String(g.bytes), `${g.percent.toFixed(1)}%`]);
    if (rest.length > 0) {
      const bytes = rest.reduce((n, g) => n + g.bytes, 0);
      rows.push([`${rest.length} others`, String(bytes), `${((100 * bytes) / at.shipped_bytes).toFixed(1)}%`]);
    }
    out.push(table([`${name} (${at.entry}), \`${at.file}\` by crate (${at.shipped_bytes} bytes)`, "bytes", "share"], rows));
    out.push(
      table(
        [`${name}: largest ${at.top.length} items`, "bytes", "group"],
        at.top.map((t) => [`\`${t.name.length > 90 ? `${t.name.slice(0, 89)}…` : t.name}\``, String(t.bytes), t.group]),
      ),
    );
  }
  return out.join("\n\n");
}

function load(s) {
  const ms = (x) => fixed(x, 1);
  const parts = [
    table(
      ["", "ms"],
      Object.entries(s.load_ms).map(([k, v]) => [k, ms(v.total)]),
    ),
  ];
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
  parts.push(
    table(
      ["", "first read ms", "second read ms"],
      Object.entries(s.read_ms).map(([k, v]) => [k, ms(v.first), ms(v.second)]),
    ),
  );
  return parts.join("\n\n");
}

function bytes(b) {
  const names = {
    wasm_file: "the `.wasm` file (`zom/manual`)",
    carried_in_js: "the module carried in `zom`'s JS (as text)",
    worker_code: "the decode worker's code",
  };
  return table(
    ["zom's files", "bytes", "gzipped (level 9)", "brotli"],
    Object.entries(b).map(([k, v]) => [names[k] ?? k, String(v.raw), String(v.gzip), String(v.brotli)]),
  );
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
    s.hierarchies.map((h) => [
      h.name,
      String(h.nodes),
      fixed(h.ms.zarr),
      fixed(h.ms.convention),
      fixed(h.ms.auto),
      `${h.convention_vs_zarr.toFixed(2)}×`,
      `${h.auto_vs_zarr.toFixed(2)}×`,
    ]),
  );
}

function targets(list) {
  const unit = (t) => (t.target.endsWith("×") ? "×" : "");
  return table(
    ["target (bench: figure)", "value", "target", "met"],
    list.map((t) => [`${t.bench}: ${t.label}`, t.value === null ? "–" : `${t.value}${unit(t)}`, t.target, t.met ? "✓" : "✗"]),
  );
}

function cache(s) {
  const cell = (c, k) => `${ms(c.ms[k])}, ${c.requests[k]} request${c.requests[k] === 1 ? "" : "s"}`;
  return table(
    ["region", "zom with `ChunkCache`", "zom without", "zarrita"],
    s.cases.map((c) => [c.label, cell(c, "zom cached"), cell(c, "zom uncached"), cell(c, "zarrita")]),
  );
}

function crossing(s) {
  const ways = ["serde_wasm_bindgen_ms", "json_ms", "js_sys_ms", "js_sys_names_once_ms"];
  const num = (x) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));
  const rows = s.results.map((c) => {
    const best = Math.min(...ways.map((w) => c[w] ?? Infinity));
    return [
      `${c.crossing}, ${c.direction}`,
      c.size,
      ...ways.map((w) => (c[w] == null ? "" : c[w] === best ? `**${num(c[w])}**` : num(c[w]))),
    ];
  });
  const t = table(["value", "size", "serde-wasm-bindgen", "JSON text", "js_sys", "js_sys, names once"], rows);
  const added = s.size?.added;
  const swb = added
    ? `\n\nserde-wasm-bindgen would add ${(added.typed.gz / 1000).toFixed(1)} KB gzipped to the module for the typed values, ${(added.all.gz / 1000).toFixed(1)} KB for every kind above.`
    : "";
  return t + swb;
}

/** README's few lines: one figure per bench, zom next to zarrita.js + numcodecs.js. */
function summary(r) {
  const decodes = r.results.filter((c) => c.case !== "v3_raw");
  const reads = r.read.results;
  const tile = r.viewer.tiles.find((t) => t.case === "sharded_zstd atOnce @50");
  const ttft = (v) => r.viewer.chromium.ttft.rows.find((x) => x.variant === v)?.cold.ms;
  const walk = (op) => r.walk10k.open_walk.find((w) => w.op === op)?.ms;
  const soak = (label) => r.viewer.soak.cancel.rows.find((x) => x.label === label)?.peak_rss_bytes;
  const app = (k) => kib(r.size.apps[k].js.gz + r.size.apps[k].extra.gz);
  const tiles = (x) => `${ms(x.ms)}, ${x.requests} requests`;
  return table(
    ["bench", "zom", "zarrita.js + numcodecs.js"],
    [
      [
        `decoding chunks in memory, MB/s (geometric mean of ${decodes.length} codec cases)`,
        fixed(geomean(decodes.map((c) => c.zom_mb_per_s))),
        fixed(geomean(decodes.map((c) => c.zarrita_mb_per_s))),
      ],
      [
        `a 4096² array over HTTP, 20 ms latency (geometric mean of ${reads.length} cases)`,
        ms(geomean(reads.map((c) => c.zom.ms))),
        ms(geomean(reads.map((c) => c.zarrita.ms))),
      ],
      [`16 tiles of one shard at once, ${tile.latency_ms} ms latency`, tiles(tile.zom), tiles(tile.zarrita)],
      [
        "first tile of an OME-Zarr pyramid in Chromium (cold, consolidated)",
        ms(ttft("zom, consolidated")),
        ms(ttft("zarrita, consolidated")),
      ],
      [
        "every node of a 10,000-node consolidated hierarchy",
        ms(walk("zom: walk (every node)")),
        ms(walk("zarrita: withConsolidatedMetadata + open of every node")),
      ],
      ["an app that opens and reads an array, gzipped", app("zom"), app("zarrita + numcodecs")],
      [
        "peak RSS of a panning viewer (400 rounds of 16 tiles, half cancelled)",
        mib(soak("zom (2 workers, default)")),
        mib(soak("zarrita")),
      ],
    ],
  );
}

function machine(r) {
  const m = r.machine;
  const v = r.versions;
  return `Node ${m.node.replace(/^v/, "")}, ${m.cpu}, ${m.cores} cores, ${m.memory_gib} GiB (${m.platform}); zarrita.js ${v.zarrita} + numcodecs.js ${v.numcodecs}; data written by zarr-python ${v.data.zarr} (numcodecs ${v.data.numcodecs}).`;
}

/** Block name → [the results.json sections it shows, the bench that writes them, its formatter]. */
const BLOCKS = {
  machine: [["machine", "versions"], null, (r) => machine(r)],
  summary: [["results", "read", "viewer", "walk10k", "size"], "bench/results.json", summary],
  targets: [["targets"], "the targets every bench saved in bench/results.json", (r) => targets(r.targets)],
  decode: [["results"], "bench/decode/decode.mjs", decode],
  read: [["read"], "bench/read/read.mjs", (r) => read(r.read)],
  viewer: [["viewer"], "bench/viewer/viewer.mjs", (r) => viewerTables(r.viewer)],
  icechunk: [["icechunk"], "bench/icechunk/icechunk.mjs", (r) => icechunkTables(r.icechunk)],
  walk: [["walk"], "bench/walk/walk.mjs", (r) => walk(r.walk)],
  walk10k: [["walk10k"], "bench/walk/walk.mjs", (r) => walk(r.walk10k)],
  walk_v2: [["walk_v2"], "bench/walk/walk.mjs", (r) => walk(r.walk_v2)],
  plate: [["plate"], "bench/plate/plate.mjs", (r) => plate(r.plate)],
  plate_pictures: [["plate_pictures"], "bench/plate/plate-pictures.mjs", (r) => platePictures(r.plate_pictures)],
  size: [["size"], "bench/size/size.mjs", (r) => size(r.size)],
  attribution: [["size"], "bench/size/attribution.mjs", (r) => attribution(r.size.attribution)],
  parts_attribution: [["size"], "bench/size/attribution.mjs", (r) => partsAttribution(r.size.parts_attribution)],
  load: [["load"], "bench/load/load.mjs", (r) => load(r.load)],
  bytes: [["load"], "bench/load/load.mjs", (r) => bytes(r.load.bytes)],
  first_tree: [["first_tree"], "bench/explorer/first-tree.mjs", (r) => firstTree(r.first_tree)],
  first_impressions: [["first_impressions"], "bench/first/first.mjs", (r) => firstTables(r.first_impressions)],
  first_impressions_summary: [["first_impressions"], "bench/first/first.mjs", (r) => firstSummary(r.first_impressions)],
  explorer_large: [["explorer_large"], "bench/explorer/explorer-large.mjs", (r) => explorerLarge(r.explorer_large)],
  cache: [["cache"], "bench/cache/cache.mjs", (r) => cache(r.cache)],
  specs: [["specs"], "bench/specs/specs.mjs", (r) => specs(r.specs)],
  crossing: [["crossing"], "bench/crossing/crossing.mjs", (r) => crossing(r.crossing)],
};

/** The text of one block: the bench and the date of its run (or the first and last), then its tables. */
function render(name, r) {
  const [keys, bench, format] = BLOCKS[name];
  const missing = keys.filter((k) => !r[k]);
  if (missing.length) return `No figures: bench/results.json has no ${missing.join(", ")} (\`npm run bench\`).`;
  if (!bench) return format(r);
  // The decode bench writes the file's top level ("results"); the targets are a list without a date.
  const days = keys
    .filter((k) => k !== "targets")
    .map((k) => day(k === "results" ? r.date : (r[k].date ?? r.date)))
    .sort();
  const runs = days.length === 0 ? "" : days[0] === days.at(-1) ? `, run of ${days[0]}` : `, runs of ${days[0]} to ${days.at(-1)}`;
  return `<sub>${bench}${runs}</sub>\n\n${format(r)}`;
}

const BLOCK = /(<!-- bench:([\w-]+) -->\n)[\s\S]*?(<!-- \/bench:\2 -->)/g;

/** A file's text, that text with every block in it made from results.json (`r`), and the blocks that changed. */
function refreshed(file, r) {
  const text = readFileSync(file, "utf8");
  const stale = [];
  const next = text.replace(BLOCK, (block, open, name, close) => {
    if (!(name in BLOCKS)) throw new StepError(`${relative(root, file)}: no block named ${name} (${Object.keys(BLOCKS).join(", ")})`);
    const fresh = `${open}${render(name, r)}\n\n${close}`;
    if (fresh !== block) stale.push(name);
    return fresh;
  });
  return { text, next, stale };
}

runMain(() => {
  const { values } = parseArgs({
    options: {
      results: { type: "string", default: join(root, "bench", "results.json") },
      write: { type: "boolean", default: false },
      check: { type: "boolean", default: false },
    },
  });
  if (!existsSync(values.results)) throw new StepError(`${values.results} is missing: npm run bench`);
  const r = JSON.parse(readFileSync(values.results, "utf8"));
  if (!values.write && !values.check) {
    for (const name of Object.keys(BLOCKS)) console.log(`<!-- bench:${name} -->\n${render(name, r)}\n\n<!-- /bench:${name} -->\n`);
    return;
  }
  const docs = join(root, "docs");
  const files = [
    join(root, "README.md"),
    ...readdirSync(docs)
      .filter((f) => f.endsWith(".md"))
      .map((f) => join(docs, f)),
  ];
  const stale = [];
  for (const file of files) {
    const { text, next, stale: blocks } = refreshed(file, r);
    if (next === text) continue;
    stale.push(`${relative(root, file)} (${blocks.join(", ")})`);
    if (values.write) writeFileSync(file, next);
  }
  if (values.write) console.log(stale.length ? `bench-tables: refreshed ${stale.join("; ")}` : "bench-tables: every block was up to date");
  else if (stale.length)
    throw new StepError(
      `bench-tables: blocks differ from ${relative(root, values.results) || values.results}: ${stale.join("; ")} (node scripts/bench-tables.mjs --write)`,
    );
  else console.log("bench-tables: every block matches bench/results.json");
});
