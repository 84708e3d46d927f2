// First impressions: what a user meets on a cold page — the time from the navigation start to
// the data in hand (performance.now() in the page) and the bytes before it — with zom (which
// carries its reader part in its JS), "zom/manual" (the .wasm served beside the bundle, as
// Vite, webpack and Parcel emit it, compiled as it downloads), zom's zarrita API
// ("zom/zarrita") and zarrita.js + numcodecs.js, on four pages:
// - tile (bench/first-app-*.js with ?data=/data/tile): a viewer's usual first read, small: a
//   512² uint16 array of smooth values in one zstd chunk (about 8 KB), opened and read whole,
//   where the code is most of what crosses the network;
// - app (bench/first-app-*.js): open a 512² uint16 array (Zarr v3, zstd, 256² chunks: 4 chunks,
//   written by zarr-python: bench/first/generate_first.py) and read it whole;
// - viewer (bench/first-viewer-*.js): a viewer's first paint of an OME-Zarr 0.5 image (4096², 4
//   levels, 256² chunks in 1024² shards, bench/first/generate_first.py) fitted into a 512² viewport:
//   open the image group, read its multiscales, open the lowest-resolution level (512²) and read
//   the 4 tiles the viewport shows;
// - validator (bench/first/first-validator.js, zom alone): walk an ome-zarr-py 0.21 plate
//   (tests/fixtures/walk/ozp-0.21-v0.5-plate, 62 nodes) and validate it, no array read.
// Each page × library is bundled once by esbuild (bench/first/first-build.mjs: ESM, split,
// minified) and served by tests/server/server.mjs from 127.0.0.1 with its JS compressed as
// hosts serve it (`compress`: brotli when the browser accepts it, else gzip; the data is not
// compressed). Every run is cold: a new browser context with the cache disabled
// (bench/first/first-browsers.mjs). Chromium runs each network profile (2 Mbps / 100 ms, 10 Mbps /
// 40 ms, 50 Mbps / 20 ms: DevTools throttling over CDP; loopback), with --encodings once per JS
// encoding (its Accept-Encoding set over CDP); Firefox ESR runs loopback alone (WebDriver
// BiDi cannot throttle). Per page × library × profile, --runs runs, the cases alternated run
// by run; medians of the time, the bytes received before the data was in hand (code: HTML, JS
// and WebAssembly; data) and the requests. Every run's result is checked against what the
// generator wrote (checksums; for the validator, the nodes of the fixture's manifest). Then, for
// the tile and app pages, --runs traced runs per library in Chromium at loopback: the main
// thread's work from the JS's arrival to the first chunk request (bench/first/first-main-thread.mjs).
//
// Writes the "first_impressions" section of bench/results.json. scripts/bench.mjs runs it
// (--only first); alone:
//
//   node bench/first/first.mjs [--runs N] [--browsers chromium,firefox] [--pages tile,app,viewer,validator]
//                        [--encodings gzip,br] [--out results.json]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "../../tests/server/server.mjs";
import { benchDir, median } from "../lib/util.mjs";
import { chromiumRun, firefoxRun, firefoxThrottling, launchChromiumBrowser, launchFirefoxBrowser, PROFILES } from "./first-browsers.mjs";
import { buildPages, LIBRARIES, PAGES, VALIDATOR_SPECIFIER } from "./first-build.mjs";
import { chromiumMainThread } from "./first-main-thread.mjs";
import { firstSummary, firstTables } from "./first-tables.mjs";

const root = join(benchDir, "..");
const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    browsers: { type: "string", default: "chromium,firefox" },
    pages: { type: "string", default: Object.keys(PAGES).join(",") },
    out: { type: "string", default: join(benchDir, "results.json") },
    // The JS's encodings Chromium runs each profile with ("gzip,br"): default, what it accepts.
    encodings: { type: "string", default: "" },
  },
});
const ENCODINGS = opts.encodings === "" ? [null] : opts.encodings.split(",");
const RUNS = Math.max(1, Number(opts.runs));
const BROWSERS = opts.browsers.split(",");
const PAGE_NAMES = opts.pages.split(",");
/** Every wait is bounded: one page's run, and the whole bench. */
const RUN_TIMEOUT_MS = 60_000;
const BENCH_TIMEOUT_MS = 45 * 60_000;

const dataDir = join(benchDir, "data", "first");
const generator = join(benchDir, "first", "generate_first.py");
const plateDir = join(root, "tests", "fixtures", "walk");
const PLATE = "ozp-0.21-v0.5-plate";

/** What the pages do, for the tables. */
const PAGE_TEXT = {
  tile: "a small first tile: open a 512² uint16 array (zstd, one chunk, about 8 KB stored) and read it",
  app: "open a 512² uint16 array (zstd, 4 chunks of 256²) and read it whole",
  viewer: "OME-Zarr 0.5 image, first paint of a 512² viewport (lowest level, 4 tiles of 256²)",
  validator: `walk and validate an OME-Zarr plate (62 nodes), zom (import from "${VALIDATOR_SPECIFIER}")`,
};

/** The figures of the issue, measured on 2026-11-27 on the app page before this bench existed. */
const BEFORE = {
  date: "2026-11-27",
  page: "app",
  libraries: ["zarrita", "zom", "zom/zarrita"],
  rows: [
    { profile: "10 Mbps, 40 ms", ms: [717, 871, 895], bytes: "zarrita 252 KiB, zom 449 KiB" },
    { profile: "50 Mbps, 20 ms", ms: [428, 493, 467], bytes: "same" },
    {
      profile: "loopback",
      ms: [
        [277, 478],
        [325, 380],
        [292, 466],
      ],
      bytes: "same",
    },
  ],
};

/** bench/data/first, written again when missing or written by another generator. */
function ensureData() {
  const want = createHash("sha256").update(readFileSync(generator)).digest("hex");
  const manifest = join(dataDir, "manifest.json");
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).generator_sha256 === want)
    return JSON.parse(readFileSync(manifest, "utf8"));
  const py = process.env.ZOM_PYTHON || join(root, ".venv", "bin", "python");
  if (!existsSync(py)) throw new Error(`${py} is missing: node scripts/setup.mjs --python`);
  const r = spawnSync(py, [generator, dataDir], { stdio: "inherit", timeout: 300_000 });
  if (r.status !== 0) throw new Error(`bench/first/generate_first.py failed (${r.error?.message ?? `exit ${r.status}`})`);
  return JSON.parse(readFileSync(manifest, "utf8"));
}

/** Throws unless a run's summary is what the generator (or the fixture's manifest) says. */
function checker(manifest) {
  const plate = JSON.parse(readFileSync(join(plateDir, "manifest.json"), "utf8")).find((d) => d.dir === PLATE);
  let problems = null; // the validator's problem count, which must not vary
  return (page, lib, summary) => {
    const fail = (what) => {
      throw new Error(`${page} (${lib}): ${what}`);
    };
    if ((page === "app" || page === "tile") && summary.checksum !== manifest[page].checksum)
      fail(`checksum ${summary.checksum}, want ${manifest[page].checksum}`);
    if (page === "viewer" && JSON.stringify(summary.tiles) !== JSON.stringify(manifest.pyramid.lowest_tiles)) {
      fail(`tiles ${JSON.stringify(summary.tiles)}, want ${JSON.stringify(manifest.pyramid.lowest_tiles)}`);
    }
    if (page === "validator") {
      if (JSON.stringify(summary.nodes) !== JSON.stringify([...plate.nodes].sort()))
        fail(`walked ${summary.nodes.length} nodes, want the ${plate.nodes.length} of the manifest`);
      if (summary.walk_errors) fail(`${summary.walk_errors} walk errors`);
      if (problems !== null && problems !== summary.problems) fail(`${summary.problems} problems, ${problems} before`);
      problems = summary.problems;
    }
  };
}

/** Fills the server's compressed copies before any run is timed (hosts keep them). */
async function warm(server, built) {
  for (const c of built) {
    for (const file of ["index.html", ...Object.keys(c.files)]) {
      for (const encoding of ["br", "gzip"]) {
        const res = await fetch(`${server.url}/${c.dir}/${file}`, {
          headers: { "accept-encoding": encoding },
          signal: AbortSignal.timeout(60_000),
        });
        await res.arrayBuffer();
        if (res.headers.get("content-encoding") !== encoding)
          throw new Error(`${c.dir}/${file}: served with ${res.headers.get("content-encoding")}, not ${encoding}`);
      }
    }
  }
}

/** The median figures of a case's runs. */
function summarize(runs) {
  const sum = (r, kind) => r.requests.filter((q) => q.kind === kind).reduce((s, q) => s + q.bytes, 0);
  const count = (r, kind) => r.requests.filter((q) => q.kind === kind).length;
  return {
    ms: median(runs.map((r) => r.ms)),
    runs_ms: runs.map((r) => Math.round(r.ms * 10) / 10),
    code_bytes: median(runs.map((r) => sum(r, "code"))),
    data_bytes: median(runs.map((r) => sum(r, "data"))),
    code_requests: median(runs.map((r) => count(r, "code"))),
    data_requests: median(runs.map((r) => count(r, "data"))),
    // What the first run read (the validator's: how many nodes, and its report).
    result: runs[0].summary.nodes ? { ...runs[0].summary, nodes: runs[0].summary.nodes.length } : runs[0].summary,
    first_run_requests: runs[0].requests,
  };
}

/** The pages whose main-thread work before the first chunk request is traced (the pages a viewer's first tile is). */
const TRACED = ["tile", "app"];

/**
 * The main thread's work from the JS's arrival to the first chunk request
 * (bench/first/first-main-thread.mjs), RUNS traced runs per traced page × library at loopback, the
 * cases alternated: medians of the window, the busy time and each kind of work.
 */
async function mainThreadRows(browser, built, url) {
  const cases = built.filter((c) => TRACED.includes(c.page));
  const samples = new Map(cases.map((c) => [c, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const c of i % 2 ? [...cases].reverse() : cases)
      samples.get(c).push(await chromiumMainThread(browser, url(c), `/${c.dir}/main.js`, RUN_TIMEOUT_MS));
  }
  const round = (x) => Math.round(x * 10) / 10;
  const rows = cases.map((c) => {
    const runs = samples.get(c);
    const names = [...new Set(runs.flatMap((r) => Object.keys(r.by_name)))];
    const byName = Object.fromEntries(
      names
        .map((n) => [n, round(median(runs.map((r) => r.by_name[n] ?? 0)))])
        .filter(([, ms]) => ms >= 0.5)
        .sort((a, b) => b[1] - a[1]),
    );
    return {
      page: c.page,
      library: c.lib,
      window_ms: round(median(runs.map((r) => r.window_ms))),
      busy_ms: round(median(runs.map((r) => r.busy_ms))),
      runs_busy_ms: runs.map((r) => round(r.busy_ms)),
      by_name: byName,
      chunk: runs[0].chunk,
    };
  });
  console.log("first: Chromium, main-thread traces done");
  return rows;
}

/** Runs every case RUNS times under each profile, alternating the cases' order run by run. */
async function runAll(browser, cases, profiles, runOne, check) {
  const rows = [];
  for (const profile of profiles) {
    const samples = new Map(cases.map((c) => [c, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const c of i % 2 ? [...cases].reverse() : cases) {
        const r = await runOne(c, profile);
        check(c.page, c.lib, r.summary);
        samples.get(c).push(r);
      }
    }
    for (const c of cases) rows.push({ page: c.page, library: c.lib, profile: profile.name, ...summarize(samples.get(c)) });
    console.log(`first: ${browser}, ${profile.name} done`);
  }
  return rows;
}

async function main() {
  if (!existsSync(join(root, "pkg", "zom_wasm_inline.js"))) throw new Error("pkg/ is not built: npm run build");
  const t0 = performance.now();
  const manifest = ensureData();
  const check = checker(manifest);
  const outDir = mkdtempSync(join(tmpdir(), "zom-bench-first-"));
  const loadBefore = loadavg()[0];
  const rows = [];
  const mainThread = [];
  const versions = {};
  let firefoxCannot = null;
  let firefoxAccept = null;
  let built;
  const server = await startServer({ root: outDir, compress: true, mounts: { "/data/": dataDir, "/fixtures/": plateDir } });
  try {
    built = buildPages(outDir, PAGE_NAMES);
    await warm(server, built);
    const url = (c) => `${server.url}/${c.dir}/index.html${c.page === "tile" ? "?data=/data/tile" : ""}`;
    if (BROWSERS.includes("chromium")) {
      const chromium = await launchChromiumBrowser();
      versions.chromium = chromium.version;
      try {
        const profiles = PROFILES.flatMap((p) =>
          ENCODINGS.map((encoding) => (encoding === null ? p : { ...p, name: `${p.name}, ${encoding}`, encoding })),
        );
        const chromiumRows = await runAll(
          "Chromium",
          built,
          profiles,
          (c, p) => chromiumRun(chromium.browser, url(c), p, RUN_TIMEOUT_MS),
          check,
        );
        rows.push(...chromiumRows.map((r) => ({ browser: "chromium", ...r })));
        mainThread.push(...(await mainThreadRows(chromium.browser, built, url)));
      } finally {
        await chromium.close();
      }
    }
    if (BROWSERS.includes("firefox")) {
      const firefox = await launchFirefoxBrowser();
      versions.firefox = firefox.version;
      try {
        firefoxCannot = await firefoxThrottling(firefox.browser);
        const profiles = firefoxCannot === null ? PROFILES : PROFILES.filter((p) => p.mbps === null);
        const firefoxRows = await runAll(
          "Firefox",
          built,
          profiles,
          async (c) => {
            const r = await firefoxRun(firefox.browser, url(c), RUN_TIMEOUT_MS);
            firefoxAccept ??= r.acceptEncoding;
            return r;
          },
          check,
        );
        rows.push(...firefoxRows.map((r) => ({ browser: "firefox", ...r })));
      } finally {
        await firefox.close();
      }
    }
  } finally {
    await server.close();
    rmSync(outDir, { recursive: true, force: true });
  }
  // The files of each page, and which of them a loopback run fetched before the data.
  const files = {};
  for (const c of built) {
    const first = rows.find((r) => r.page === c.page && r.library === c.lib && r.profile === "loopback");
    const loaded = new Set((first?.first_run_requests ?? []).map((q) => q.url.split("/").pop()));
    files[c.page] ??= {};
    files[c.page][c.lib] = Object.fromEntries(Object.entries(c.files).map(([f, w]) => [f, { ...w, loaded: loaded.has(f) }]));
  }
  // The requests one by one (a waterfall), kept for Chromium's slowest profile.
  for (const r of rows) if (r.browser !== "chromium" || !r.profile.startsWith(PROFILES[0].name)) delete r.first_run_requests;
  const section = {
    date: new Date().toISOString(),
    runs: RUNS,
    browsers: versions,
    load_average: [loadBefore, loadavg()[0]],
    method:
      `each page × library bundled once by esbuild (bench/lib/util.mjs bundlePage: ESM, split, minified) and served from 127.0.0.1 by tests/server/server.mjs with compress (JS, HTML: brotli quality 11 when the browser accepts br, else gzip -9; data not compressed); ` +
      `every run in a new browser context with the HTTP cache disabled (Chromium: CDP Network.setCacheDisabled; Firefox: BiDi network.setCacheBehavior bypass), no compiled code reused; ` +
      `time: performance.now() in the page when the data is in hand (from the navigation start); bytes: received before that point, headers included (Chromium: CDP loadingFinished/dataReceived encodedDataLength of the requests started by then; Firefox: Resource Timing transferSize of the responses ended by then); ` +
      `code = the page's HTML, JS and WebAssembly, data = requests under the data mounts; medians over ${RUNS} runs, cases alternated run by run; ` +
      `Chromium throttled by CDP Network.emulateNetworkConditions (latency per request, download = upload throughput); ` +
      (versions.firefox
        ? firefoxCannot === null
          ? "Firefox throttled as Chromium."
          : `Firefox at loopback only: it cannot throttle over WebDriver BiDi (puppeteer-core's emulateNetworkConditions: ${firefoxCannot}; BiDi's emulation.setNetworkConditions has only the offline type, and Firefox has no CDP); Firefox sends Accept-Encoding "${firefoxAccept}" over http.`
        : "Firefox not run."),
    profiles: PROFILES,
    pages: Object.fromEntries(PAGE_NAMES.map((p) => [p, PAGE_TEXT[p]])),
    libraries: LIBRARIES,
    validator_entry: VALIDATOR_SPECIFIER,
    firefox_throttling: firefoxCannot === null ? (versions.firefox ? "yes" : null) : `no: ${firefoxCannot}`,
    data: {
      tile: manifest.tile,
      app: manifest.app,
      pyramid: { levels: manifest.pyramid.levels, read: manifest.pyramid.levels.at(-1).path },
      validator: `tests/fixtures/walk/${PLATE}`,
    },
    rows,
    main_thread_method:
      "Chromium, loopback, cache disabled, a CDP trace (DevTools' timeline categories) per run, apart from the timed runs: the union of the renderer main thread's top-level tasks (RunTask) from the end of the page's first JS file's response to the first chunk request (a data request that is not a metadata document); where: the self time of the events inside them by name; medians over the runs",
    main_thread: mainThread,
    files,
    before: BEFORE,
  };
  console.log(`\n${firstTables(section)}\n\n${firstSummary(section)}\n`);
  let results = {};
  if (existsSync(opts.out)) results = JSON.parse(readFileSync(opts.out, "utf8"));
  results.first_impressions = section;
  writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`bench: wrote the "first_impressions" section of ${opts.out} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}

const timer = setTimeout(() => {
  console.error(`first: the bench took over ${BENCH_TIMEOUT_MS / 60_000} minutes`);
  process.exit(1);
}, BENCH_TIMEOUT_MS);
timer.unref();
await main();
