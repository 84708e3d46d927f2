// A plate's pictures in the explorer (issue 46): "a 96-well plate at 50 ms a request in
// Chromium: the wells in view with pictures within 3 s of opening; a 384-well plate the same;
// no level read larger than its picture needs". Plates with pixels written by ome-zarr-py 0.21
// (bench/plate/generate_plate.py --keep-chunks: 2 fields a well, each 2 channels × 512 × 512 uint16
// in 3 levels, 512², 256² and 128², chunks 1 × 256 × 256), served from another origin than the
// page (tests/server, CORS, no listing) with every response delayed by 50 ms, over HTTP/1.1 so
// that Chromium keeps 6 connections to the data host. scripts/bench.mjs runs it (--only
// plate-pictures); alone, after `npm run build` and the plates (scripts/bench.mjs writes them
// into bench/data/plates-pictures):
//
//   node bench/plate/plate-pictures.mjs [--runs N] [--latency MS] [--plates 96,384] [--viewports 1400x900,960x600] [--data DIR] [--out results.json]
//
// Per plate (96 wells, 8 × 12, and 384 wells, 16 × 24; OME-Zarr 0.5), N runs, each a new
// headless Chromium with a new profile (no HTTP cache, compiled code or process shared) and
// each viewport (1400 × 900, a desktop window: about 66 wells in view; 960 × 600, a laptop's
// half screen: the 24 wells in view of the issue's target), opening the explorer (www/dist, scripts/start.mjs serveExplorer, no
// latency) at `?url=<plate>`. In ms from the navigation's start (the page's timeOrigin):
// - pictures: when the last well in view got its picture (its `.thumb-slot` turned
//   data-state="drawn": a MutationObserver the bench adds to the page), and the next frame;
//   in view: the slots whose rect, clipped by their scrolling ancestors (the grid's box scrolls),
//   meets the viewport at that moment;
// - the pictures drawn: every in-view slot's canvas must have lit pixels (the plates have
//   signal everywhere: a black picture was drawn from no data), and its data-level must be the smallest level of its field
//   still at least 72 pixels high and wide (the thumbnail's size), and the server must have
//   answered no chunk of any other level (no level read larger than its picture needs);
// - requests: those the data server received by then (its request log, stamped on arrival),
//   and of them those of the wells in view, by kind (well, field, level documents; chunks);
// - the floor: what no reader could beat, the chain of requests a well's picture depends on —
//   the plate's document, then the well's, then its field's, then the document of the level
//   drawn (its shape and codecs; a reader that knows the levels run from largest to smallest,
//   as OME-Zarr says they do, needs no other level's), then the chunks of the level drawn — each step one round trip for every 6 of its requests (the
//   connections of one HTTP/1.1 host) over the wells in view: Σ ceil(n_step / 6) × latency.
//   The page's own start (HTML, scripts and the .wasm from loopback, compiling them) is not in
//   it: it shows as "first data request", and the downloads in it as the module's download;
// - walk end: body data-state="ready" (the walk of every node, which waits for the first
//   view's pictures, and its validation).
// Medians of the runs go into the "plate_pictures" section of bench/results.json, with the
// targets (pictures within 3 s, for both plates).
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { serveExplorer } from "../../scripts/start.mjs";
import { launchChromium } from "../../tests/browser/chromium.mjs";
import { startServer } from "../../tests/server/server.mjs";
import { wwwDist } from "../../www/build.mjs";
import { benchDir, median, Targets, table } from "../lib/util.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    latency: { type: "string", default: "50" },
    data: { type: "string", default: join(benchDir, "data", "plates-pictures") },
    out: { type: "string", default: join(benchDir, "results.json") },
    plates: { type: "string", default: "96,384" },
    viewports: { type: "string", default: "1400x900,960x600" },
  },
});
const RUNS = Math.max(1, Number(values.runs));
const LATENCY = Number(values.latency);
/** The plates: folder name, wells. */
const PLATES = [
  ["plate96-v0.5", 96],
  ["plate384-v0.5", 384],
].filter(([, wells]) => values.plates.split(",").includes(String(wells)));
const VIEWPORTS = values.viewports.split(",").map((v) => {
  const [width, height] = v.split("x").map(Number);
  return { width, height };
});
/** Connections Chromium keeps to one HTTP/1.1 host. */
const CONNECTIONS = 6;
/** The explorer's thumbnail size (www/src/view-plate.ts THUMB). */
const THUMB = 72;
/** The target: the wells in view with pictures within this many ms of opening. */
const TARGET_MS = 3000;
/** …for this many wells in view (a desktop window shows more: they are measured beside, not held to it). */
const TARGET_WELLS = 24;
const PICTURES_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 240_000;

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/**
 * What the plate's metadata says a well's picture needs: its first field, the field's levels
 * (paths and shapes), the level a 72-pixel thumbnail is drawn from (the smallest at least 72
 * high and wide) and the chunks that level is stored in.
 */
function plateFacts(dir) {
  const plate = readJson(join(dir, "zarr.json")).attributes.ome.plate;
  const wells = plate.wells.map((w) => w.path);
  const well = readJson(join(dir, wells[0], "zarr.json")).attributes.ome.well;
  const field = well.images[0].path;
  const multiscale = readJson(join(dir, wells[0], field, "zarr.json")).attributes.ome.multiscales[0];
  const levels = multiscale.datasets.map((d) => {
    const meta = readJson(join(dir, wells[0], field, d.path, "zarr.json"));
    return { path: d.path, shape: meta.shape, chunks: meta.chunk_grid.configuration.chunk_shape };
  });
  const fits = levels.map((l, i) => ({ ...l, i })).filter((l) => l.shape.at(-1) >= THUMB && l.shape.at(-2) >= THUMB);
  const chosen = fits.reduce((a, b) => (b.shape.at(-1) * b.shape.at(-2) < a.shape.at(-1) * a.shape.at(-2) ? b : a));
  const chunks = chosen.shape.reduce((n, s, d) => n * Math.ceil(s / chosen.chunks[d]), 1);
  return { wells, field, levels, level: chosen.i, levelPath: chosen.path, chunks };
}

/** The floor's steps for `inView` wells: [what, requests]. */
function floorSteps(facts, inView) {
  return [
    ["plate document", 1],
    ["well documents", inView],
    ["field documents", inView],
    [`level ${facts.level} documents`, inView],
    [`chunks of level ${facts.level}`, inView * facts.chunks],
  ];
}
const floorMs = (steps) => steps.reduce((ms, [, n]) => ms + Math.ceil(n / CONNECTIONS) * LATENCY, 0);

/**
 * Added to the page before its scripts: records when the wells in view all have their
 * pictures (in ms from the navigation's start), what they drew, the next frame, and when the
 * walk ends.
 */
function watchPlate() {
  const out = { done: false, drawnMs: null, paintedMs: null, readyMs: null, failedMs: null, origin: performance.timeOrigin };
  window.__plateBench = out;
  /** Whether `el`'s rect, clipped by its scrolling ancestors, meets the viewport. */
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    let [top, bottom, left, right] = [r.top, r.bottom, r.left, r.right];
    for (let a = el.parentElement; a !== null && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === "visible" && s.overflowY === "visible") continue;
      const c = a.getBoundingClientRect();
      [top, bottom, left, right] = [Math.max(top, c.top), Math.min(bottom, c.bottom), Math.max(left, c.left), Math.min(right, c.right)];
    }
    [top, bottom, left, right] = [Math.max(top, 0), Math.min(bottom, innerHeight), Math.max(left, 0), Math.min(right, innerWidth)];
    return bottom > top && right > left;
  };
  /** When each slot turned drawn (the mutation's callback: a microtask after the change). */
  const drawnAt = new Map();
  const settled = (s) => s.dataset.state === "drawn" || s.dataset.state === "failed";
  /** The slots last seen in view: the layout is read again only once they are all settled. */
  let candidates = [];
  /**
   * Once a frame: are the slots in view all drawn (or failed)? Reading rects forces a layout,
   * which the page would not otherwise do each frame: it is read only when the slots last seen
   * in view have all settled, to find out whether others are in view now.
   */
  const check = () => {
    if (out.done) return;
    if (candidates.length === 0 || candidates.every(settled))
      candidates = [...document.querySelectorAll("#plate-grid .well[data-well] .thumb-slot")].filter(visible);
    if (candidates.length === 0 || !candidates.every(settled)) {
      requestAnimationFrame(check);
      return;
    }
    const slots = [...document.querySelectorAll("#plate-grid .well[data-well] .thumb-slot")];
    const inView = candidates;
    out.done = true;
    out.drawnMs = Math.max(...inView.map((s) => drawnAt.get(s) ?? performance.now()));
    out.slots = slots.length;
    out.inView = inView.map((s) => {
      const well = s.closest(".well");
      // A picture with no lit pixel is a picture of nothing (the bench's plates have signal everywhere).
      const canvas = s.querySelector("canvas");
      const pixels = canvas?.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data;
      let lit = 0;
      for (let i = 0; pixels !== undefined && i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 0) lit += 1;
      return {
        well: well.dataset.well,
        state: s.dataset.state,
        level: s.dataset.level ?? null,
        image: s.dataset.image ?? null,
        lit,
        title: well.querySelector(".thumb-failed")?.title ?? null,
      };
    });
    out.drawnAll = slots.filter((s) => s.dataset.state === "drawn").length;
    out.askedAll = slots.filter((s) => s.dataset.state !== undefined).length;
    // This callback runs before the frame that shows the last picture is painted.
    requestAnimationFrame(() => setTimeout(() => (out.paintedMs = performance.now()), 0));
  };
  requestAnimationFrame(check);
  new MutationObserver((records) => {
    const t = performance.now();
    for (const r of records) {
      const el = r.target;
      if (el === document.body) {
        const state = document.body.dataset.state;
        if (state === "ready" && out.readyMs === null) out.readyMs = t;
        if (state === "failed" && out.failedMs === null) out.failedMs = t;
      } else if (el.dataset.state === "drawn" || el.dataset.state === "failed") {
        if (!drawnAt.has(el)) drawnAt.set(el, t);
      }
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
}

/** A data request's kind and well, from its path under the plate ("A/1/0/s2/c/0/0/0"). */
function classify(path, facts) {
  const parts = path.split("/");
  if (path === "zarr.json") return { kind: "plate", well: null };
  const well = parts.length >= 2 ? `${parts[0]}/${parts[1]}` : null;
  if (parts.length === 3 && parts[2] === "zarr.json") return { kind: "well", well };
  if (parts.length === 4 && parts[3] === "zarr.json") return { kind: "field", well, field: parts[2] };
  if (parts.length === 5 && parts[4] === "zarr.json" && parts[3] === "labels") return { kind: "labels", well, field: parts[2] };
  if (parts.length === 5 && parts[4] === "zarr.json" && facts.levels.some((l) => l.path === parts[3]))
    return { kind: "level", well, field: parts[2], level: parts[3] };
  if (parts.length > 5 && parts[4] === "c") return { kind: "chunk", well, field: parts[2], level: parts[3] };
  return { kind: "other", well };
}

/** One run: a new Chromium opening the explorer at the plate. */
async function once(explorer, data, plate, facts, viewport) {
  const { browser, profile } = await launchChromium("zom-bench-plate-pictures-", { viewport });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    const loads = [];
    page.on("requestfinished", (r) => {
      if (r.url().startsWith(explorer.url)) loads.push(r);
    });
    await page.addInitScript(watchPlate);
    data.resetStats();
    explorer.resetStats();
    const plateUrl = `${data.url}/${plate}`;
    await page.goto(`${explorer.url}?url=${encodeURIComponent(plateUrl)}`, { timeout: 30_000 });
    await page.waitForFunction(() => window.__plateBench?.paintedMs != null || window.__plateBench?.failedMs != null, null, {
      timeout: PICTURES_TIMEOUT_MS,
    });
    const seen = await page.evaluate(() => window.__plateBench);
    if (process.env.PLATE_PICTURES_SCREENSHOT) await page.screenshot({ path: process.env.PLATE_PICTURES_SCREENSHOT });
    if (seen.failedMs !== null && !seen.done) throw new Error(`the explorer failed to open ${plateUrl}: ${problems.join("; ")}`);
    // The requests the data server had received when the last picture in view was drawn.
    const byThen = data.stats.log.filter((e) => e.at <= seen.origin + seen.drawnMs);
    await page.waitForFunction(() => window.__plateBench.readyMs != null || window.__plateBench.failedMs != null, null, {
      timeout: READY_TIMEOUT_MS,
    });
    const end = await page.evaluate(() => ({
      ...window.__plateBench,
      walkStarted: performance.getEntriesByName("zom:walk-started")[0]?.startTime ?? null,
    }));
    if (end.readyMs === null) throw new Error(`the walk of ${plateUrl} failed: ${problems.join("; ")}`);
    if (problems.length) throw new Error(`the explorer failed: ${problems.join("; ")}`);
    if (process.env.PLATE_PICTURES_LOG)
      writeFileSync(process.env.PLATE_PICTURES_LOG, JSON.stringify({ origin: seen.origin, seen, log: data.stats.log }, null, 1));
    const prefix = `/${plate}/`;
    const rel = (e) => decodeURIComponent(new URL(e.url, "http://x").pathname).slice(prefix.length);
    const inView = new Set(seen.inView.map((s) => s.well));
    const kinds = { plate: 0, well: 0, field: 0, level: 0, labels: 0, chunk: 0, other: 0 };
    for (const e of byThen) {
      const c = classify(rel(e), facts);
      if (c.kind === "plate" || c.kind === "other" || inView.has(c.well)) kinds[c.kind] += 1;
    }
    // Every chunk the server answered in the whole run (the walk reads none).
    const chunkLevels = {};
    for (const e of data.stats.log) {
      const c = classify(rel(e), facts);
      if (c.kind === "chunk") chunkLevels[c.level] = (chunkLevels[c.level] ?? 0) + 1;
    }
    const firstData = byThen.length ? Math.min(...byThen.map((e) => e.at)) - seen.origin : null;
    const timing = (name) => {
      const r = loads.find((x) => new URL(x.url()).pathname === name);
      if (r === undefined) return null;
      const t = r.timing();
      return {
        start: t.startTime - seen.origin + t.requestStart,
        end: t.startTime - seen.origin + t.responseEnd,
        ms: t.responseEnd - t.requestStart,
      };
    };
    return {
      drawn_ms: seen.drawnMs,
      painted_ms: seen.paintedMs,
      ready_ms: end.readyMs,
      walk_started_ms: end.walkStarted,
      in_view: seen.inView,
      slots: seen.slots,
      pictured_by_then: seen.drawnAll,
      asked_by_then: seen.askedAll,
      requests: byThen.length,
      requests_in_view: kinds,
      requests_walk_end: data.stats.requests,
      preflights: data.stats.preflights,
      max_in_flight: data.stats.maxInFlight,
      chunk_levels: chunkLevels,
      first_data_request_ms: firstData,
      page_requests: loads.length,
      page_bytes: explorer.stats.bytes,
      downloads: { html: timing("/"), main: timing("/main.js"), worker: timing("/worker.js"), wasm: timing("/zom_wasm_bg.wasm") },
    };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Checks a run's pictures: every one in view lit and from the level its thumbnail needs, no chunk of another level read. */
function checkLevels(plate, facts, run) {
  const dark = run.in_view.filter((s) => s.lit === 0);
  if (dark.length) throw new Error(`${plate}: wells in view pictured without a lit pixel: ${dark.map((s) => s.well).join(", ")}`);
  const wrong = run.in_view.filter((s) => s.state !== "drawn" || s.level !== String(facts.level));
  if (wrong.length) throw new Error(`${plate}: wells in view not drawn from level ${facts.level}: ${JSON.stringify(wrong.slice(0, 4))}`);
  const other = Object.keys(run.chunk_levels).filter((l) => l !== facts.levelPath);
  if (other.length)
    throw new Error(
      `${plate}: chunks of levels ${other.join(", ")} were read (the pictures need ${facts.levelPath} only): ${JSON.stringify(run.chunk_levels)}`,
    );
}

async function main() {
  if (!existsSync(join(wwwDist, "index.html"))) throw new Error("www/dist is not built: npm run build");
  for (const [plate] of PLATES) {
    if (!existsSync(join(values.data, plate, "zarr.json"))) {
      throw new Error(
        `${join(values.data, plate)} is missing: node scripts/bench.mjs --only plate-pictures writes it (bench/plate/generate_plate.py --keep-chunks)`,
      );
    }
  }
  const loadBefore = loadavg()[0];
  const explorer = await serveExplorer({ port: 0 });
  const data = await startServer({ root: values.data, latencyMs: LATENCY });
  // Each request the data server receives, stamped (epoch ms) on arrival.
  const log = data.stats.log;
  log.push = (...entries) =>
    Array.prototype.push.apply(
      log,
      entries.map((e) => Object.assign(e, { at: performance.timeOrigin + performance.now() })),
    );
  const rows = [];
  let chromium = null;
  try {
    for (const [plate, wells] of PLATES) {
      const facts = plateFacts(join(values.data, plate));
      if (facts.wells.length !== wells) throw new Error(`${plate}: ${facts.wells.length} wells, expected ${wells}`);
      for (const viewport of VIEWPORTS) {
        const runs = [];
        for (let i = 0; i < RUNS; i++) {
          const r = await once(explorer, data, plate, facts, viewport);
          checkLevels(plate, facts, r);
          runs.push(r);
          console.log(
            `plate-pictures: ${plate} ${viewport.width}×${viewport.height} run ${i + 1}: ${r.in_view.length} wells in view drawn at ${r.drawn_ms.toFixed(0)} ms (painted ${r.painted_ms.toFixed(0)}), ` +
              `${r.requests} requests by then (first at ${r.first_data_request_ms?.toFixed(0)} ms), walk started ${r.walk_started_ms?.toFixed(0)} ms, ended ${r.ready_ms.toFixed(0)} ms, ${r.requests_walk_end} requests`,
          );
        }
        const counts = new Set(runs.map((r) => r.in_view.length));
        if (counts.size !== 1) console.log(`plate-pictures: ${plate}: wells in view differ between runs: ${[...counts].join(", ")}`);
        const inView = median(runs.map((r) => r.in_view.length));
        const steps = floorSteps(facts, inView);
        const floor = floorMs(steps);
        const med = (f) => median(runs.map(f));
        const ms = med((r) => r.drawn_ms);
        const dl = (k) => med((r) => r.downloads[k]?.ms ?? NaN);
        rows.push({
          plate,
          wells,
          viewport,
          latency_ms: LATENCY,
          in_view: inView,
          slots: runs[0].slots,
          level: facts.level,
          level_shape: facts.levels[facts.level].shape,
          levels: facts.levels.map((l) => l.shape),
          chunks_per_picture: facts.chunks,
          ms,
          painted_ms: med((r) => r.painted_ms),
          floor_ms: floor,
          floor_steps: steps.map(([what, requests]) => ({ what, requests, round_trips: Math.ceil(requests / CONNECTIONS) })),
          vs_floor: ms / floor,
          first_data_request_ms: med((r) => r.first_data_request_ms),
          after_first_request_ms: med((r) => r.drawn_ms - r.first_data_request_ms),
          requests: med((r) => r.requests),
          floor_requests: steps.reduce((n, [, k]) => n + k, 0),
          requests_in_view: Object.fromEntries(Object.keys(runs[0].requests_in_view).map((k) => [k, med((r) => r.requests_in_view[k])])),
          pictured_by_then: med((r) => r.pictured_by_then),
          asked_by_then: med((r) => r.asked_by_then),
          walk_started_ms: med((r) => r.walk_started_ms ?? NaN),
          ready_ms: med((r) => r.ready_ms),
          requests_walk_end: med((r) => r.requests_walk_end),
          max_in_flight: Math.max(...runs.map((r) => r.max_in_flight)),
          preflights: Math.max(...runs.map((r) => r.preflights)),
          chunk_levels: runs[0].chunk_levels,
          module_download_ms: { html: dl("html"), main: dl("main"), worker: dl("worker"), wasm: dl("wasm") },
          page_bytes: runs[0].page_bytes,
          runs_ms: runs.map((r) => Math.round(r.drawn_ms)),
          runs_ready_ms: runs.map((r) => Math.round(r.ready_ms)),
        });
      }
    }
    const probe = await launchChromium("zom-bench-plate-pictures-");
    try {
      chromium = probe.browser.browser()?.version() ?? null;
    } finally {
      await probe.browser.close();
      rmSync(probe.profile, { recursive: true, force: true });
    }
  } finally {
    await Promise.all([explorer.close(), data.close()]);
  }

  const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : "–");
  console.log(
    `\n${table(
      [
        "plate, 50 ms a request, Chromium",
        "viewport",
        "wells in view",
        "pictures ms",
        "floor ms",
        "× floor",
        "requests by then (floor)",
        "first data request ms",
        "walk end ms",
        "requests at walk end",
      ],
      rows.map((r) => [
        `${r.wells} wells (level ${r.level}, ${r.level_shape.join(" × ")})`,
        `${r.viewport.width} × ${r.viewport.height}`,
        String(r.in_view),
        f0(r.ms),
        f0(r.floor_ms),
        `${r.vs_floor.toFixed(2)}×`,
        `${r.requests} (${r.floor_requests})`,
        f0(r.first_data_request_ms),
        f0(r.ready_ms),
        String(r.requests_walk_end),
      ]),
    )}`,
  );
  for (const r of rows) {
    const k = r.requests_in_view;
    console.log(
      `${r.wells} wells, ${r.viewport.width} × ${r.viewport.height}: floor ${r.floor_steps.map((s) => `${s.what} ${s.requests} → ${s.round_trips}`).join(", ")} round trips × ${LATENCY} ms; ` +
        `by then: ${k.plate} plate, ${k.well} well, ${k.field} field, ${k.level} level documents, ${k.labels} labels probes and ${k.chunk} chunks of the wells in view, ${k.other} others; ` +
        `${r.pictured_by_then} of ${r.slots} wells pictured, ${r.asked_by_then} asked; module download (loopback): main.js ${r.module_download_ms.main.toFixed(1)} ms, worker.js ${r.module_download_ms.worker.toFixed(1)} ms, .wasm ${r.module_download_ms.wasm.toFixed(1)} ms`,
    );
  }

  const targets = new Targets("plate_pictures");
  // The issue's target is for the 24 wells in view; with 66 in view the floor alone is 2.8 s.
  for (const r of rows.filter((r) => r.in_view <= TARGET_WELLS))
    targets.check(
      `${r.wells}-well plate, ${LATENCY} ms, Chromium, ${r.viewport.width} × ${r.viewport.height}: ${r.in_view} wells in view pictured (ms)`,
      r.ms,
      "<=",
      TARGET_MS,
      { unit: " ms", digits: 0 },
    );
  targets.print();

  let results = {};
  if (existsSync(values.out)) results = JSON.parse(readFileSync(values.out, "utf8"));
  results.plate_pictures = {
    date: new Date().toISOString(),
    browser: `Debian Chromium${chromium ? ` ${chromium}` : ""}, headless (tests/browser/chromium.mjs), HTTP/1.1`,
    machine: {
      cpu: cpus()[0]?.model ?? "unknown",
      cores: availableParallelism(),
      memory_gib: Math.round(totalmem() / 2 ** 30),
      load_average_1min: [loadBefore, loadavg()[0]],
    },
    runs: RUNS,
    latency_ms: LATENCY,
    viewports: VIEWPORTS,
    connections: CONNECTIONS,
    method:
      "median over runs, each a new Chromium with a new profile opening the explorer (www/dist, serveExplorer, loopback) at ?url= a plate served by tests/server from another origin with latencyMs; " +
      "ms: from the navigation start to the moment the last .thumb-slot in view (rect clipped by scrolling ancestors meets the viewport) turned data-state=drawn; " +
      "requests: what the data server received by then; floor: Σ over the steps plate → well → field → the drawn level's document → its chunks of ceil(requests of the wells in view / 6) × latency; " +
      "ready_ms: body data-state=ready (walk and validation done); module_download_ms: the page's requests to the explorer server (loopback), requestStart to responseEnd",
    plates: rows,
  };
  targets.save(results);
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`bench: wrote the "plate_pictures" section of ${values.out}`);
}

await main();
