// The explorer (www/) on a large consolidated hierarchy: bench/lib/generate.py's walk10k (10,000
// nodes, one 10 MB root zarr.json), served with the explorer by tests/server (as
// scripts/start.mjs serveExplorer serves it, plus the hierarchy under /large/), against the CLI
// on the same URL. Issue 35 ("large hierarchies read well"): the tree's rows within 1.5× of
// `zom validate URL`'s wall time, and a click on a row to the next painted frame within 50 ms,
// both measured in the page.
//
// Per run: `node bin/zom.mjs validate URL` (wall time from spawn to exit, Node's start
// included), then a new headless Chromium (tests/browser/chromium.mjs) with a new profile
// opening `/?url=URL`, which records in the page:
// - rows: the explorer's `zom:first-tree` performance mark (www/src/main.ts: the first rows of
//   the tree are in the DOM; in this build the walk's nodes, names and nesting, with zom's
//   summaries following), from the navigation start; drawn: the task after the next
//   requestAnimationFrame following it (the frame with the rows painted), the figure held to
//   1.5× the CLI's;
// - the explorer's other `zom:*` marks (where the time goes; whatever the build sets: the
//   worker's steps, zom:tree-details when the rows have zom's summaries, zom:validated);
// - clicks: for each row of CLICKS, playwright clicks it (real input events); a capture
//   listener on the document takes the click event's timeStamp and marks the task after the
//   next requestAnimationFrame: click → next frame. Then a fold and an unfold (the caret of
//   group0), timed the same way;
// - a scroll of the tree: its scrollTop 300 px further at a time, a frame each, 3,000 px down
//   and back;
// - long tasks (PerformanceObserver "longtask") from the first click to the end of the scroll.
// Medians over runs (clicks: the median of each run's median, and the largest click of all
// runs). Writes the "explorer_large" section of bench/results.json (its targets inside it; no
// other section is touched) and prints a table with the ratio to the CLI and the 50 ms target.
//
//   node bench/explorer/explorer-large.mjs [--runs N] [--out bench/results.json] [--data DIR]
//        [--dist DIR] [--latency MS]
//
// --data: bench/lib/generate.py's output (default bench/data); without a walk10k there, the
// hierarchy is made once into the system's temp folder with .venv/bin/python and
// generate.py's walk10k_hierarchy. --dist: the explorer build to serve (default www/dist, what
// `npm run build` writes; another folder to compare builds, e.g. an older www/ built the same
// way).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { launchChromium } from "../../tests/browser/chromium.mjs";
import { startServer } from "../../tests/server/server.mjs";
import { wwwDist } from "../../www/build.mjs";
import { benchDir, median, Targets, table } from "../lib/util.mjs";

const root = join(benchDir, "..");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    out: { type: "string", default: join(benchDir, "results.json") },
    data: { type: "string", default: join(benchDir, "data") },
    dist: { type: "string", default: wwwDist },
    latency: { type: "string", default: "0" },
  },
});
const runs = Math.max(1, Number(values.runs));
const latencyMs = Number(values.latency);

/** The explorer's mark of the first rows in the page (www/src/main.ts FIRST_TREE_MARK). */
const TREE_MARK = "zom:first-tree";
/**
 * Rows clicked in turn: arrays and groups among the first rows of the tree (members sort by
 * name: image0, image1, image10, image100, …), the root among them, all in view without
 * scrolling.
 */
const CLICKS = [
  "group0/sub0/image0",
  "group0/sub0/image1",
  "group0/sub0",
  "group0/sub0/image10",
  "group0",
  "group0/sub0/image100",
  "",
  "group0/sub0/image101",
  "group0/sub0/image102",
  "group0/sub0/image103",
];
/** The group folded and unfolded. */
const FOLD = "group0";
/** The longest any wait in a run may take. */
const WAIT_MS = 60_000;

/** The walk10k hierarchy's folder (its root zarr.json), made with the project's .venv when missing. */
function hierarchyDir() {
  const manifestFile = join(values.data, "manifest.json");
  if (existsSync(manifestFile)) {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    if (manifest.walk10k) return { dir: join(values.data, manifest.walk10k.consolidated), nodes: manifest.walk10k.nodes };
  }
  const made = join(tmpdir(), "zom-bench-walk10k");
  const dir = join(made, "consolidated");
  if (!existsSync(join(dir, "zarr.json"))) {
    const python = join(root, ".venv", "bin", "python");
    if (!existsSync(python))
      throw new Error(`no walk10k in ${values.data} and no ${python}: run node scripts/setup.mjs (or bench/lib/generate.py)`);
    console.log(`bench: making the walk10k hierarchy in ${made} (bench/lib/generate.py walk10k_hierarchy)`);
    const scratch = `${made}.partial`;
    rmSync(scratch, { recursive: true, force: true });
    rmSync(made, { recursive: true, force: true });
    const code =
      "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import generate; print(generate.walk10k_hierarchy(Path(sys.argv[2])))";
    execFileSync(python, ["-c", code, benchDir, scratch], { stdio: ["ignore", "inherit", "inherit"], timeout: 300_000 });
    renameSync(scratch, made);
  }
  return { dir, nodes: 10_000 };
}

/** `zom validate URL` as a user runs it: wall time from spawn to exit. */
function cli(url) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(
      process.execPath,
      [join(root, "bin", "zom.mjs"), "validate", url],
      { timeout: WAIT_MS, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        const ms = performance.now() - t0;
        if (error) return reject(new Error(`zom validate failed: ${error.message}\n${stderr}`));
        resolve({ ms, out: stdout.trim().split("\n").pop() });
      },
    );
  });
}

/**
 * Added to the page before its scripts: marks the frame after the tree's mark, keeps long
 * tasks, and times each click from its event to the task after the next animation frame.
 */
function probe(treeMark) {
  const w = window;
  w.__bench = { longTasks: [], frames: [] };
  new PerformanceObserver((list, observer) => {
    if (list.getEntriesByName(treeMark).length === 0) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => performance.mark("bench:first-tree-drawn"), 0));
  }).observe({ type: "mark" });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__bench.longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    // No Long Tasks API: none recorded.
  }
  document.addEventListener(
    "click",
    (e) => {
      const t = e.timeStamp;
      requestAnimationFrame(() => setTimeout(() => w.__bench.frames.push(performance.now() - t), 0));
    },
    true,
  );
}

/** What the page measured up to its first rows. */
function pageTimes() {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const marks = {};
  for (const m of performance.getEntriesByType("mark")) if (m.name.startsWith("zom:")) marks[m.name] ??= m.startTime;
  return {
    state: document.body.dataset.state,
    tree: at("zom:first-tree"),
    drawn: at("bench:first-tree-drawn"),
    marks,
    rows_in_dom: document.querySelectorAll("#tree button.node").length,
    elements: document.getElementsByTagName("*").length,
  };
}

/** Clicks `selector` and returns the ms from the click event to the frame after it. */
async function timedClick(page, selector) {
  const before = await page.evaluate(() => window.__bench.frames.length);
  await page.click(selector, { timeout: WAIT_MS });
  await page.waitForFunction((n) => window.__bench.frames.length > n, before, { timeout: WAIT_MS });
  const ms = await page.evaluate(() => window.__bench.frames.at(-1));
  await page.waitForTimeout(150); // the preview's read, the panel's late parts: not in the next click
  return ms;
}

/** The element that scrolls the tree: the nearest scrollable ancestor of its first row (or the row list itself). */
function scrollTree(by) {
  let el = document.querySelector("#tree button.node");
  while (el !== null && !(el.scrollHeight > el.clientHeight && /auto|scroll/.test(getComputedStyle(el).overflowY))) el = el.parentElement;
  return el === null ? null : ((el.scrollTop += by), el.scrollTop);
}

/** One run: a new Chromium, the explorer opened once on `dataUrl`, then clicks, a fold and a scroll. */
async function once(server, dataUrl) {
  const { browser, profile } = await launchChromium("zom-bench-explorer-large-", { viewport: { width: 1400, height: 900 } });
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.addInitScript(probe, TREE_MARK);
    await page.goto(`${server.url}/?url=${encodeURIComponent(dataUrl)}`, { timeout: WAIT_MS });
    await page.waitForFunction(
      () => performance.getEntriesByName("bench:first-tree-drawn").length > 0 || document.body.dataset.state === "failed",
      null,
      { timeout: WAIT_MS },
    );
    await page.waitForFunction(() => document.body.dataset.state !== "walking", null, { timeout: WAIT_MS });
    const times = await page.evaluate(pageTimes);
    if (times.state === "failed" || problems.length) throw new Error(`the explorer failed: ${problems.join("; ")}`);
    await page.waitForTimeout(500);
    const from = await page.evaluate(() => performance.now());
    const clicks = [];
    for (const path of CLICKS) clicks.push(await timedClick(page, `#tree button.node[data-path="${path}"]`));
    const caret = `#tree button.node[data-path="${FOLD}"] .caret`;
    const folds = [await timedClick(page, caret), await timedClick(page, caret)];
    const hidden = await page.$('#tree button.node[data-path="group0/sub0"]');
    if (hidden === null) throw new Error(`unfolding ${FOLD} did not bring back its rows`);
    const scrolled = [];
    for (const by of [...Array(10).fill(300), ...Array(10).fill(-300)]) {
      scrolled.push(await page.evaluate(scrollTree, by));
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    }
    if (!(Math.max(...scrolled) >= 2000)) throw new Error(`the tree did not scroll (${scrolled.join(", ")})`);
    await page.waitForTimeout(300);
    const longTasks = await page.evaluate((t) => window.__bench.longTasks.filter((l) => l.start >= t).map((l) => l.ms), from);
    if (problems.length) throw new Error(`the explorer failed: ${problems.join("; ")}`);
    return { ...times, clicks, folds, longTasks };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  if (!existsSync(join(values.dist, "index.html"))) throw new Error(`${values.dist} is not built: node www/build.mjs (or npm run build)`);
  const { dir, nodes } = hierarchyDir();
  const server = await startServer({
    root: values.dist,
    mounts: { "/data/": join(root, "tests", "fixtures"), "/large/": dir },
    indexHtml: true,
    s3Listing: true,
    latencyMs,
    port: 0,
  });
  const dataUrl = `${server.url}/large/`;
  const loadBefore = loadavg()[0];
  const cliRuns = [];
  const samples = [];
  let verdict = "";
  try {
    verdict = (await cli(dataUrl)).out; // warm-up: the OS's file cache, Node's compile cache
    if (!verdict.includes(`${nodes} nodes`)) throw new Error(`zom validate: ${verdict}`);
    for (let i = 0; i < runs; i++) {
      cliRuns.push((await cli(dataUrl)).ms);
      samples.push(await once(server, dataUrl));
      const s = samples.at(-1);
      console.log(
        `bench: run ${i + 1}/${runs}: CLI ${cliRuns.at(-1).toFixed(0)} ms, rows ${s.tree.toFixed(0)} ms, clicks ${s.clicks.map((c) => c.toFixed(0)).join(" ")} ms, folds ${s.folds.map((c) => c.toFixed(0)).join(" ")} ms, longest task ${Math.max(0, ...s.longTasks).toFixed(0)} ms`,
      );
    }
  } finally {
    await server.close();
  }
  const med = (xs) => median(xs.filter((x) => x !== null));
  const marks = {};
  for (const name of new Set(samples.flatMap((s) => Object.keys(s.marks)))) marks[name] = med(samples.map((s) => s.marks[name] ?? null));
  const section = {
    date: new Date().toISOString(),
    browser: "Debian Chromium, headless (tests/browser/chromium.mjs), 1400 × 900",
    build: values.dist === wwwDist ? "www/dist" : values.dist,
    runs,
    latency_ms: latencyMs,
    load_average: [loadBefore, loadavg()[0]],
    hierarchy: `bench/lib/generate.py walk10k: v3, ${nodes} nodes, consolidated (one root zarr.json of ${readFileSync(join(dir, "zarr.json")).length} bytes)`,
    method:
      "median over runs; each run: `node bin/zom.mjs validate URL` (wall time, spawn to exit), then a new Chromium with a new profile opening the explorer with ?url=URL from the same server (tests/server, www/dist at /, the hierarchy at /large/); " +
      `rows_ms: the page's '${TREE_MARK}' mark (first rows in the DOM) from the navigation start; drawn_ms: the task after the next animation frame (rows_vs_cli: drawn_ms / cli_validate_ms); ` +
      `click_ms: per run the median of ${CLICKS.length} clicks on rows (playwright, real input events), each from the click event's timeStamp to the task after the next animation frame, then the median over runs; fold_ms: the same for folding and unfolding ${FOLD}; ` +
      "longest_task_ms: the longest task (Long Tasks API) from the first click to the end of a scroll of the tree (3,000 px down in 300 px steps and back)",
    cli_validate_ms: med(cliRuns),
    rows_ms: med(samples.map((s) => s.tree)),
    drawn_ms: med(samples.map((s) => s.drawn)),
    click_ms: med(samples.map((s) => median(s.clicks))),
    click_max_ms: Math.max(...samples.flatMap((s) => s.clicks)),
    fold_ms: med(samples.map((s) => median(s.folds))),
    longest_task_ms: Math.max(0, ...samples.flatMap((s) => s.longTasks)),
    long_tasks_per_run: med(samples.map((s) => s.longTasks.length)),
    rows_in_dom: samples[0].rows_in_dom,
    elements_in_page: samples[0].elements,
    marks_ms: marks,
    runs_cli_ms: cliRuns.map((x) => Math.round(x)),
    runs_rows_ms: samples.map((s) => Math.round(s.tree)),
    runs_clicks_ms: samples.map((s) => s.clicks.map((x) => Math.round(x * 10) / 10)),
  };
  // Rows visible: painted (the frame after the mark).
  section.rows_vs_cli = section.drawn_ms / section.cli_validate_ms;
  // The rows with zom's summaries (kinds, shapes, data types), and validated (builds that mark them).
  section.details_ms = marks["zom:tree-details"] ?? null;
  section.details_vs_cli = section.details_ms === null ? null : section.details_ms / section.cli_validate_ms;
  section.validated_ms = marks["zom:validated"] ?? null;

  const ms = (x) => (x === null || !Number.isFinite(x) ? "–" : x.toFixed(0));
  console.log(
    `\n${table(
      ["explorer, walk10k (10,000 nodes, consolidated)", "ms", "vs CLI", "target"],
      [
        ["zom validate URL (CLI, wall)", ms(section.cli_validate_ms), "1.00×", ""],
        [
          `rows in the page (${TREE_MARK}, from navigation)`,
          ms(section.rows_ms),
          `${(section.rows_ms / section.cli_validate_ms).toFixed(2)}×`,
          "",
        ],
        ["rows drawn (the next frame)", ms(section.drawn_ms), `${section.rows_vs_cli.toFixed(2)}×`, "≤ 1.5× CLI"],
        ...Object.entries(marks)
          .filter(([name]) => name !== TREE_MARK)
          .sort((a, b) => a[1] - b[1])
          .map(([name, t]) => [`  mark ${name}`, ms(t), `${(t / section.cli_validate_ms).toFixed(2)}×`, ""]),
        ["click on a row → next frame (median)", section.click_ms.toFixed(1), "", "≤ 50 ms"],
        ["click on a row → next frame (largest)", section.click_max_ms.toFixed(1), "", ""],
        ["fold/unfold → next frame (median)", section.fold_ms.toFixed(1), "", "≤ 50 ms"],
        ["longest task: clicks, folds, scroll", section.longest_task_ms.toFixed(0), "", "≤ 50 ms"],
      ],
    )}\n`,
  );
  console.log(
    `Median of ${runs} runs; ${section.rows_in_dom} rows in the DOM of ${nodes} nodes (${section.elements_in_page} elements in the page).`,
  );
  const targets = new Targets("explorer_large");
  targets.check("rows drawn in the page / zom validate (CLI)", section.rows_vs_cli, "<=", 1.5);
  targets.check("click on a row → next frame, median", section.click_ms, "<=", 50, { unit: " ms", digits: 1 });
  targets.check("fold → next frame, median", section.fold_ms, "<=", 50, { unit: " ms", digits: 1 });
  targets.check("longest task on clicks, folds, scroll", section.longest_task_ms, "<=", 50, { unit: " ms", digits: 0 });
  targets.print();
  section.targets = targets.list.map(({ label, value, target, met }) => ({ label, value, target, met }));
  let results = {};
  if (existsSync(values.out)) results = JSON.parse(readFileSync(values.out, "utf8"));
  results.explorer_large = section;
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`bench: wrote the "explorer_large" section of ${values.out}`);
}

await main();
