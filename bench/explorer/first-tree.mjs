// Time to the first tree in the explorer (www/, as `npm start` serves it: scripts/start.mjs
// serveExplorer, the sample hierarchy tests/fixtures/sample from 127.0.0.1, no latency), in
// headless Chromium (tests/browser/chromium.mjs). Each run starts a new Chromium with a new
// profile, so that no HTTP cache, compiled JavaScript or WebAssembly and no renderer process is
// shared between runs, and opens the page once. Per run, in ms from the navigation's start
// (performance.timeOrigin):
// - tree: the explorer's `zom:first-tree` performance mark (www/src/main.ts), set when the
//   first tree has been put into the page;
// - drawn: the next frame after it (a requestAnimationFrame callback, then a task: the frame
//   with the tree has been painted), marked by a script this bench adds to the page;
// - for context: the navigation's responseEnd and DOMContentLoaded, first contentful paint,
//   the requests the server answered, and where the time goes, from the requests the page
//   and its worker made (playwright's request timings): the worker script requested (the
//   page's script runs), the .wasm requested (the worker runs), the first request of the walk
//   (zom is loaded: the .wasm fetched, compiled, instantiated), the walk's last response.
// The medians go into the "first_tree" section of bench/results.json. scripts/bench.mjs runs it
// with bench/load/load.mjs (--only load); alone, after `npm run build`:
//
//   node bench/explorer/first-tree.mjs [--runs N] [--out results.json]
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { serveExplorer } from "../../scripts/start.mjs";
import { launchChromium } from "../../tests/browser/chromium.mjs";
import { wwwDist } from "../../www/build.mjs";
import { benchDir, median, table } from "../lib/util.mjs";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "7" }, out: { type: "string", default: join(benchDir, "results.json") } },
});
const runs = Math.max(3, Number(values.runs));

/** The explorer's mark (www/src/main.ts FIRST_TREE_MARK). */
const TREE_MARK = "zom:first-tree";

/** Added to the page before its scripts: marks the frame after the tree's mark as painted. */
function markDrawn(treeMark) {
  new PerformanceObserver((list, observer) => {
    if (list.getEntriesByName(treeMark).length === 0) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => performance.mark("bench:first-tree-drawn"), 0));
  }).observe({ type: "mark" });
}

/** What the page measured, read once the drawn mark is there (or the page failed). */
function pageTimes() {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const nav = performance.getEntriesByType("navigation")[0];
  return {
    origin: performance.timeOrigin,
    state: document.body.dataset.state,
    tree: at("zom:first-tree"),
    drawn: at("bench:first-tree-drawn"),
    response_end: nav?.responseEnd ?? null,
    dom_content_loaded: nav?.domContentLoadedEventEnd ?? null,
    first_contentful_paint: at("first-contentful-paint"),
    nodes: document.querySelectorAll("#tree button.node").length,
  };
}

/**
 * When the page's and its worker's requests started and ended, in ms from the navigation's
 * start (`origin`, the page's timeOrigin): the worker script, the .wasm, and the walk's
 * requests (everything under /data/).
 */
function phases(requests, origin) {
  const timed = requests.map((r) => {
    const t = r.timing();
    const url = new URL(r.url());
    return { path: url.pathname + url.search, start: t.startTime - origin, end: t.startTime - origin + t.responseEnd };
  });
  const first = (test) => timed.find((r) => test(r.path)) ?? null;
  const walk = timed.filter((r) => r.path.startsWith("/data/") || r.path.startsWith("/?list-type"));
  return {
    worker_requested: first((p) => p === "/worker.js")?.start ?? null,
    wasm_requested: first((p) => p === "/zom_wasm_bg.wasm")?.start ?? null,
    walk_started: walk.length ? Math.min(...walk.map((r) => r.start)) : null,
    walk_ended: walk.length ? Math.max(...walk.map((r) => r.end)) : null,
  };
}

/** One run: a new Chromium, the explorer opened once. */
async function once(server) {
  const { browser, profile } = await launchChromium("zom-bench-first-tree-");
  try {
    const page = await browser.newPage();
    // Console errors are not failures: the walk's probes of absent documents log 404s.
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    const requests = [];
    page.on("requestfinished", (r) => requests.push(r));
    await page.addInitScript(markDrawn, TREE_MARK);
    server.resetStats();
    await page.goto(server.url, { timeout: 30_000 });
    await page.waitForFunction(
      () => performance.getEntriesByName("bench:first-tree-drawn").length > 0 || document.body.dataset.state === "failed",
      null,
      { timeout: 30_000 },
    );
    const times = await page.evaluate(pageTimes);
    if (times.state === "failed" || problems.length) throw new Error(`the explorer failed: ${problems.join("; ")}`);
    return { ...times, ...phases(requests, times.origin), requests: server.stats.requests };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  if (!existsSync(join(wwwDist, "index.html"))) throw new Error("www/dist is not built: npm run build");
  const server = await serveExplorer({ port: 0 });
  const samples = [];
  const loadBefore = loadavg()[0];
  try {
    for (let i = 0; i < runs; i++) samples.push(await once(server));
  } finally {
    await server.close();
  }
  const med = (key) => median(samples.map((s) => s[key]));
  const first = {
    tree_ms: med("tree"),
    drawn_ms: med("drawn"),
    response_end_ms: med("response_end"),
    dom_content_loaded_ms: med("dom_content_loaded"),
    first_contentful_paint_ms: med("first_contentful_paint"),
    worker_requested_ms: med("worker_requested"),
    wasm_requested_ms: med("wasm_requested"),
    walk_started_ms: med("walk_started"),
    walk_ended_ms: med("walk_ended"),
    requests: med("requests"),
    nodes: samples[0].nodes,
    runs_tree_ms: samples.map((s) => Math.round(s.tree * 10) / 10),
  };
  const ms = (x) => (x === null || Number.isNaN(x) ? "–" : x.toFixed(1));
  console.log(
    `\n${table(
      ["explorer, sample hierarchy (from navigation start)", "ms"],
      [
        ["HTML received (responseEnd)", ms(first.response_end_ms)],
        ["DOMContentLoaded", ms(first.dom_content_loaded_ms)],
        ["first contentful paint", ms(first.first_contentful_paint_ms)],
        ["worker script requested (the page's script runs)", ms(first.worker_requested_ms)],
        [".wasm requested (the worker runs)", ms(first.wasm_requested_ms)],
        ["first request of the walk (zom loaded in the worker)", ms(first.walk_started_ms)],
        ["last response of the walk", ms(first.walk_ended_ms)],
        [`first tree in the page (${TREE_MARK}, ${first.nodes} nodes)`, ms(first.tree_ms)],
        ["first tree drawn (the next frame)", ms(first.drawn_ms)],
      ],
    )}\n`,
  );
  console.log(`Median of ${runs} runs, each in a new headless Chromium; ${first.requests} requests to the server per load.`);
  let results = {};
  if (existsSync(values.out)) results = JSON.parse(readFileSync(values.out, "utf8"));
  results.first_tree = {
    date: new Date().toISOString(),
    browser: "Debian Chromium, headless (tests/browser/chromium.mjs)",
    runs,
    load_average: [loadBefore, loadavg()[0]],
    method:
      "median over runs, each a new Chromium with a new profile (no cache, compiled code or process shared) opening the explorer (www/dist, scripts/start.mjs serveExplorer, port 0) with the sample hierarchy from 127.0.0.1 without latency; " +
      `tree_ms: the page's '${TREE_MARK}' performance mark (www/src/main.ts, set when the first tree is in the DOM), from the navigation start; drawn_ms: a mark in the task after the next requestAnimationFrame following it (the frame with the tree painted); worker_requested_ms, wasm_requested_ms: when the page requested worker.js and the worker zom_wasm_bg.wasm; walk_started_ms, walk_ended_ms: the first request and the last response under /data/ or of an S3 listing (playwright's request timings, from the navigation start)`,
    ...first,
  };
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`bench: wrote the "first_tree" section of ${values.out}`);
}

await main();
