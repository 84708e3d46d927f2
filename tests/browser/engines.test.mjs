// The browser journeys in three engines — Chromium, Firefox ESR and WebKit (engines.mjs) — one
// after the other, each in a fresh profile:
//   explorer  the explorer (www/, served by serveExplorer as `npm start` serves it) opens the
//             bundled sample, its tree lists every node, a click on the sharded array
//             image/gradient_circles opens its panel and draws its preview from the real values
//             (viridis' end colours at the minimum and the maximum, every pixel drawn), an
//             OME-Zarr image opened through the URL box gets its convention badge; no console
//             error on the way
//   pool      tests/browser/pool.html on a page served with COOP + COEP: every v3, v2 and sample
//             array read whole with 2 decode workers and with none equals zarr-python's values;
//             where the page is cross-origin isolated (Chromium, Firefox) the workers write into
//             a SharedArrayBuffer, where it is not (WebKitGTK, which does not isolate) the
//             chunks are transferred back — the path without SharedArrayBuffer, with the same
//             values
//   icechunk  on a page without cross-origin isolation, every ref of the Icechunk fixtures
//             (spec 2 and 1), every array read with 2 decode workers, virtual chunks included
// An engine whose browser is not installed is skipped with the reason (scripts/setup.mjs
// --browser installs all three). The last test prints the engine × journey matrix (pass or
// fail, seconds) as diagnostics and writes it to test-output/engines/matrix.json, next to a
// screenshot of each journey's end.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { serveExplorer } from "../../scripts/start.mjs";
import { wwwDist } from "../../www/build.mjs";
import { cOrderValues, readJson, repoRoot } from "../js/helpers.mjs";
import { elements, sameValues } from "../js/hierarchy-common.mjs";
import { startServer } from "../server/server.mjs";
import { fixtures } from "../server/testing.mjs";
import { ENGINES, launchEngine, missing } from "./engines.mjs";
import { assertPreview, extremePoints, nodePaths, previewPixels } from "./explorer-checks.mjs";
import { unplain } from "./plain.mjs";
import { serve } from "./server.mjs";

const shots = join(repoRoot, "test-output", "engines");
const SHARDED = "image/gradient_circles";

let explorer;
let site;
let isolatedSite;
let data;

/** engine → journey → { status, seconds, note } */
const matrix = Object.fromEntries(ENGINES.map((e) => [e, {}]));

before(async () => {
  assert.ok(existsSync(join(wwwDist, "index.html")), "www/dist is missing: run `npm run build` first");
  assert.ok(existsSync(join(repoRoot, "pkg", "index.js")), "pkg/ is missing: run `npm run build` first");
  mkdirSync(shots, { recursive: true });
  explorer = await serveExplorer({ port: 0 });
  site = await serve(repoRoot);
  isolatedSite = await serve(repoRoot, { isolated: true });
  data = await startServer({ root: fixtures });
});

after(async () => {
  await Promise.all([explorer?.close(), site?.close(), isolatedSite?.close(), data?.close()]);
});

/** Runs `journey` and notes its outcome and time in the matrix. */
async function timed(engine, journey, fn) {
  const t0 = performance.now();
  try {
    const note = await fn();
    matrix[engine][journey] = { status: "pass", seconds: (performance.now() - t0) / 1000, note };
  } catch (e) {
    matrix[engine][journey] = { status: "fail", seconds: (performance.now() - t0) / 1000, note: String(e?.message ?? e).split("\n")[0] };
    throw e;
  }
}

/** @param {import("./engines.mjs").Engine} e */
async function explorerJourney(e) {
  const stateIs = () => document.body.dataset.state;
  await e.open(explorer.url);
  // A cold browser, started while the other browser test files start theirs, can take most of
  // the default 30 s to run the page's first module: the first wait is longer.
  try {
    await e.waitFor(() => ["ready", "failed"].includes(document.body.dataset.state), null, { what: "the sample to open", timeout: 60_000 });
  } catch (error) {
    // What the page shows and logged, so that a page that never opens says where it stopped.
    const state = await e
      .evaluate(() => `state ${document.body.dataset.state}; ${document.body.innerText.slice(0, 300)}`)
      .catch((x) => String(x));
    const logged = await e.consoleLines().catch((x) => [String(x)]);
    throw new Error(`${error.message}\npage: ${state}\nconsole:\n${logged.join("\n")}`);
  }
  assert.equal(await e.evaluate(stateIs), "ready", await e.evaluate(() => document.body.innerText));

  // The walk: every node of the sample in the tree.
  const tree = await e.evaluate(() => [...document.querySelectorAll("button.node")].map((b) => b.dataset.path).sort());
  assert.deepEqual(tree, nodePaths("sample"));

  // A click opens the sharded array's panel, and its preview is drawn from the real values.
  const expected = readJson("expected", "sample.values.json")[SHARDED];
  const values = expected.values;
  const min = Math.min(...values);
  const max = Math.max(...values);
  // zom's decode workers, which the explorer's init() starts, are up (until then chunks decode
  // in the explorer's own worker). Not in Firefox: there the explorer's worker starts none
  // (www/src/worker.ts, NESTED_WORKERS_FREEZE) and decodes itself.
  const decodesItself = e.name === "firefox";
  if (decodesItself)
    assert.equal(await e.evaluate(() => document.getElementById("decode-workers")?.textContent), "0", "firefox: no nested decode workers");
  else await e.waitFor(() => Number(document.getElementById("decode-workers")?.textContent) > 0, null, { what: "zom's decode workers" });
  await e.click(`button.node[data-path="${SHARDED}"]`);
  await e.waitFor((p) => document.querySelector(`article.panel[data-path="${p}"]`) !== null, SHARDED, { what: "the array's panel" });
  await e.waitFor(
    () => {
      const status = document.querySelector(".preview-status");
      return status !== null && !status.classList.contains("busy") && document.querySelector(".preview-output")?.childElementCount > 0;
    },
    null,
    { what: "the preview" },
  );
  const shown = await e.evaluate(() => ({
    status: document.querySelector(".preview-status")?.innerText,
    min: document.querySelector(".legend-min")?.innerText,
    max: document.querySelector(".legend-max")?.innerText,
    failure: document.querySelector("#preview .failure")?.innerText ?? null,
  }));
  assert.equal(shown.failure, null, shown.failure);
  assert.match(
    shown.status,
    decodesItself
      ? /read and decoded in the worker in \d+ ms$/
      : /read and decoded in the worker in \d+ ms, \d+ chunks by zom's decode workers/,
  );
  assert.equal(shown.min, String(min));
  assert.equal(shown.max, String(max));
  const pixels = await e.evaluate(previewPixels, extremePoints(values, expected.shape));
  assertPreview(pixels, expected.shape, values);
  await e.screenshot(join(shots, `${e.name}-explorer-preview.png`));

  // An OME-Zarr image opened through the URL box: its convention badge.
  const image = `${explorer.url}data/conventions/ome-0.5-image/`;
  await e.evaluate((url) => {
    document.getElementById("url").value = url;
  }, image);
  await e.click("#open-form button[type=submit]");
  await e.waitFor(
    (url) =>
      document.querySelector("#url").value === url &&
      (document.body.dataset.state === "failed" || document.querySelector("#summary .convention") !== null),
    image,
    { what: "the OME-Zarr image's convention badge" },
  );
  const badges = await e.evaluate(() =>
    [...document.querySelectorAll("#summary .convention")].map((b) => ({
      spec: b.dataset.spec,
      valid: b.dataset.valid,
      text: b.innerText,
    })),
  );
  assert.deepEqual(badges, [{ spec: "ome-zarr-0.5", valid: "true", text: "OME-Zarr 0.5 ✓" }]);
  await e.screenshot(join(shots, `${e.name}-explorer-badge.png`));

  assert.deepEqual(await e.consoleErrors(), []);
  return `${pixels.colours} colours, badge ${badges[0].text}`;
}

/** Opens the pool page at `url` and returns what it says of itself. */
async function openPoolPage(e, url) {
  await e.open(url);
  await e.waitFor(() => "zomPool" in window || "zomPoolFatal" in window, null, { what: "the pool page to load zom" });
  const page = await e.evaluate(() => ({
    fatal: window.zomPoolFatal ?? null,
    isolated: window.zomPool?.crossOriginIsolated,
    sab: typeof SharedArrayBuffer,
  }));
  assert.equal(page.fatal, null, `the page failed to load zom: ${page.fatal}`);
  // zom posts a SharedArrayBuffer to its workers only where both hold (ts/runtime/browser.ts).
  return { ...page, canShare: page.isolated === true && page.sab === "function" };
}

/**
 * Reads every v3, v2 and sample array whole with each count of `workers` and compares with
 * zarr-python's values; returns how many reads there were and how many wrote into a
 * SharedArrayBuffer.
 */
async function readEverything(e, page, workersList) {
  let reads = 0;
  let shared = 0;
  const failures = [];
  for (const name of ["v3", "v2", "sample"]) {
    const expected = readJson("expected", `${name}.values.json`);
    const paths = Object.keys(expected);
    for (const workers of workersList) {
      // As one JSON string (plain() keeps it lossless): a protocol that serializes each array
      // element as a value of its own (BiDi) takes seconds over the sample's 65,536 numbers.
      const got = JSON.parse(
        await e.evaluate(
          async ([url, paths, workers]) => JSON.stringify(await window.zomPool.readAll(url, paths, workers)),
          [`${data.url}/${name}`, paths, workers],
        ),
      );
      assert.equal(got.length, paths.length);
      for (const read of got) {
        const where = `${name}/${read.path} workers ${workers}`;
        try {
          assert.ok(!read.error, JSON.stringify(read.error));
          assert.deepEqual(read.shape, expected[read.path].shape);
          sameValues(elements(unplain(read.data), unplain(read.dtype)), expected[read.path].values, where);
          if (workers === 0 || !page.canShare) assert.equal(read.shared, false, "no SharedArrayBuffer output");
        } catch (err) {
          failures.push(`${where}: ${err.message.split("\n")[0]}`);
        }
        reads++;
        shared += read.shared === true;
      }
    }
  }
  assert.deepEqual(failures, [], failures.join("\n"));
  return { reads, shared };
}

/** The decode workers' pool: whether it failed and how many chunks they decoded so far. */
const poolStats = (e) => e.evaluate(() => window.zomPool.pool(2));

/**
 * The pool page twice: as served by default (no COOP/COEP: no cross-origin isolation, so the
 * path without SharedArrayBuffer: chunks transferred back from the workers) with 2 workers and
 * with none, then served with COOP + COEP with 2 workers (SharedArrayBuffer output where the
 * engine isolates the page).
 * @param {import("./engines.mjs").Engine} e
 */
async function poolJourney(e) {
  const plain = await openPoolPage(e, `${site.url}/tests/browser/pool.html`);
  assert.equal(plain.isolated, false, "a page served without COOP + COEP is not cross-origin isolated");
  assert.equal(plain.sab, "undefined", "no SharedArrayBuffer without cross-origin isolation");
  let before = await poolStats(e);
  const transferred = await readEverything(e, plain, [2, 0]);
  assert.equal(transferred.shared, 0);
  let pool = await poolStats(e);
  assert.equal(pool.failed, false, "the decode workers started");
  const decodedPlain = pool.decoded - before.decoded;
  assert.ok(decodedPlain > 0, `the workers decoded ${decodedPlain} chunks`);
  const linesPlain = await e.consoleLines();
  assert.deepEqual(
    linesPlain.filter((l) => /workers could not start|^pageerror/.test(l)),
    [],
  );

  const isolated = await openPoolPage(e, `${isolatedSite.url}/tests/browser/pool.html`);
  // Chromium and Firefox isolate a page served with COOP + COEP and give it SharedArrayBuffer.
  // WebKitGTK 2.50 isolates it too (crossOriginIsolated is true) but exposes no
  // SharedArrayBuffer constructor, so zom takes the path without it there as well: which path
  // ran is noted in the matrix, and either way the values must be zarr-python's.
  if (e.name !== "webkit") assert.equal(isolated.canShare, true, `crossOriginIsolated and SharedArrayBuffer in ${e.version}`);
  before = await poolStats(e);
  const viaShared = await readEverything(e, isolated, [2]);
  if (isolated.canShare) assert.ok(viaShared.shared > 60, `${viaShared.shared} reads through a SharedArrayBuffer`);
  else assert.equal(viaShared.shared, 0);
  pool = await poolStats(e);
  assert.equal(pool.failed, false, "the decode workers started");
  assert.ok(pool.decoded - before.decoded > 0, `the workers decoded ${pool.decoded - before.decoded} chunks`);
  const lines = await e.consoleLines();
  assert.deepEqual(
    lines.filter((l) => /workers could not start|^pageerror/.test(l)),
    [],
  );
  await e.screenshot(join(shots, `${e.name}-pool.png`));
  const second = isolated.canShare
    ? `COOP + COEP: isolated, SharedArrayBuffer output in ${viaShared.shared} of ${viaShared.reads} reads`
    : `COOP + COEP: crossOriginIsolated ${isolated.isolated}, typeof SharedArrayBuffer "${isolated.sab}": ${viaShared.reads} reads transferred`;
  return `default page: not isolated, ${transferred.reads} reads transferred (no SharedArrayBuffer), ${decodedPlain} chunks in workers; ${second}`;
}

/** NumPy's names of the data types zarrita gives as typed arrays of numbers or bigints. */
const NUMERIC = /^(u?int(8|16|32|64)|float(16|32|64))$/;

/**
 * zom/zarrita as a viewer aliased onto it reads: every v3 and sample array of a numeric data
 * type opened with zarrita's `open` and read whole with its `get`, equal to zarr-python's
 * values, in zarrita's result shape and layout.
 */
async function zarritaJourney(e) {
  const page = await openPoolPage(e, `${site.url}/tests/browser/pool.html`);
  const failures = [];
  let reads = 0;
  for (const name of ["v3", "sample"]) {
    const expected = readJson("expected", `${name}.values.json`);
    const paths = Object.keys(expected).filter((p) => NUMERIC.test(String(expected[p].dtype)));
    const got = JSON.parse(
      await e.evaluate(
        async ([url, paths]) => JSON.stringify(await window.zomPool.readAllZarrita(url, paths)),
        [`${data.url}/${name}`, paths],
      ),
    );
    for (const read of got) {
      const want = expected[read.path];
      try {
        assert.ok(!read.error, JSON.stringify(read.error));
        assert.deepEqual(read.shape, want.shape);
        assert.equal(read.stride.length, want.shape.length);
        assert.equal(read.plainBuffer, true, "data over a plain ArrayBuffer");
        // In the stored order (a transposed array's too), with zarrita's strides.
        const values = cOrderValues({ data: Array.from(unplain(read.data)), shape: read.shape, stride: read.stride });
        sameValues(elements(values, want.dtype), want.values, `${name}/${read.path}`);
      } catch (err) {
        failures.push(`${name}/${read.path}: ${err.message.split("\n")[0]}`);
      }
      reads++;
    }
  }
  assert.deepEqual(failures, [], failures.join("\n"));
  assert.ok(reads > 30, `${reads} arrays`);
  assert.deepEqual(
    (await e.consoleLines()).filter((l) => /^pageerror/.test(l)),
    [],
  );
  return `${reads} numeric arrays through zarrita's open and get (${page.isolated ? "isolated" : "not isolated"} page)`;
}

/**
 * Icechunk repositories in a page without cross-origin isolation (what `@earthmover/icechunk`'s
 * WebAssembly build needs): every ref of the spec version 2 and 1 fixtures, every array read
 * whole with 2 decode workers, equal to what icechunk and zarr-python read; virtual chunks
 * included (their file served by the data server).
 */
async function icechunkJourney(e) {
  const page = await openPoolPage(e, `${site.url}/tests/browser/pool.html`);
  assert.equal(page.isolated, false, "the page is not cross-origin isolated");
  // A host that sends ETag and Last-Modified (as static hosts and object stores do): the
  // virtual chunks' checksums are checked against them, through CORS.
  const checked = await startServer({ root: fixtures, validators: true });
  try {
    return await icechunkReads(e, checked);
  } finally {
    await checked.close();
  }
}

async function icechunkReads(e, data) {
  const expected = readJson("icechunk", "expected.json");
  const failures = [];
  let reads = 0;
  for (const [repo, want] of Object.entries(expected.repositories)) {
    for (const [ref, at] of Object.entries(want.refs)) {
      const [kind, name] = [ref.slice(0, ref.indexOf(":")), ref.slice(ref.indexOf(":") + 1)];
      const paths = Object.entries(at.nodes)
        .filter(([, n]) => n.kind === "array")
        .map(([p]) => p.slice(1));
      const args = [`${data.url}/icechunk/${repo}/`, { [kind]: name }, expected.virtual_prefix, `${data.url}/icechunk/raw/`, paths, 2];
      const got = JSON.parse(await e.evaluate(async (a) => JSON.stringify(await window.zomPool.readIcechunk(...a)), args));
      if (got.snapshot !== at.snapshot) failures.push(`${repo} ${ref}: snapshot ${got.snapshot}, not ${at.snapshot}`);
      for (const read of got.arrays) {
        const node = at.nodes[`/${read.path}`];
        try {
          assert.ok(!read.error, JSON.stringify(read.error));
          assert.deepEqual(read.shape, node.shape);
          sameValues(elements(unplain(read.data), node.zarr_json.data_type), node.values, `${repo} ${ref} ${read.path}`);
        } catch (err) {
          failures.push(`${repo} ${ref} ${read.path}: ${err.message.split("\n")[0]}`);
        }
        reads++;
      }
    }
  }
  assert.deepEqual(failures, [], failures.join("\n"));
  assert.ok(reads > 40, `${reads} arrays`);
  // containers/v2's `rel` chunk 1 records the ETag "abc", which the file served does not have.
  const args = [
    `${data.url}/icechunk/containers/v2/`,
    { branch: "main" },
    expected.virtual_prefix,
    `${data.url}/icechunk/raw/`,
    ["rel"],
    0,
  ];
  const changed = JSON.parse(await e.evaluate(async (a) => JSON.stringify(await window.zomPool.readIcechunk(...a)), args));
  assert.equal(changed.arrays[0].error?.code, "ChecksumMismatch", JSON.stringify(changed.arrays[0]));
  assert.deepEqual(
    (await e.consoleLines()).filter((l) => /^pageerror/.test(l)),
    [],
  );
  return `${reads} arrays of every ref of 2 repositories, checksums checked (not isolated page)`;
}

for (const name of ENGINES) {
  const skip = missing(name);
  const titles = {
    explorer: `the explorer journey in ${name}: open, walk, preview a sharded array, a convention badge`,
    pool: `the decode worker pool in ${name}: every v3, v2 and sample array equals zarr-python's values`,
    zarrita: `zom/zarrita in ${name}: zarrita's open and get read zarr-python's values`,
    icechunk: `Icechunk in ${name}: every ref of icechunk 2.3's repositories, not cross-origin isolated`,
  };
  describe(name, () => {
    if (skip) {
      // Skipped test by test, so that the runner counts them as skipped.
      matrix[name].skipped = skip;
      for (const title of Object.values(titles)) test(title, { skip });
      return;
    }
    /** @type {import("./engines.mjs").Engine | undefined} */
    let engine;
    let launchError;
    before(async () => {
      const t0 = performance.now();
      try {
        engine = await launchEngine(name, { prefix: "zom-engines-" });
        matrix[name].launch = { status: "pass", seconds: (performance.now() - t0) / 1000, note: engine.version };
      } catch (e) {
        launchError = e;
        matrix[name].launch = { status: "fail", seconds: (performance.now() - t0) / 1000, note: String(e?.message ?? e).split("\n")[0] };
      }
    });
    after(async () => {
      await engine?.close();
    });
    const launched = () => {
      if (!engine) throw launchError ?? new Error(`${name} did not launch`);
      return engine;
    };
    test(titles.explorer, { timeout: 120_000 }, () => timed(name, "explorer", () => explorerJourney(launched())));
    test(titles.pool, { timeout: 180_000 }, () => timed(name, "pool", () => poolJourney(launched())));
    test(titles.zarrita, { timeout: 120_000 }, () => timed(name, "zarrita", () => zarritaJourney(launched())));
    test(titles.icechunk, { timeout: 120_000 }, () => timed(name, "icechunk", () => icechunkJourney(launched())));
  });
}

test("the engine × journey matrix", (t) => {
  const journeys = ["launch", "explorer", "pool", "zarrita", "icechunk"];
  const cell = (c) => (c ? `${c.status} ${c.seconds.toFixed(1)} s` : "not run");
  const rows = [
    ["engine", ...journeys],
    ...ENGINES.map((e) => [e, ...journeys.map((j) => (matrix[e].skipped ? "skipped" : cell(matrix[e][j])))]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows)
    t.diagnostic(
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
  for (const e of ENGINES) {
    if (matrix[e].skipped) t.diagnostic(`${e}: skipped: ${matrix[e].skipped}`);
    for (const j of journeys) if (matrix[e][j]?.note) t.diagnostic(`${e} ${j}: ${matrix[e][j].note}`);
  }
  writeFileSync(join(shots, "matrix.json"), `${JSON.stringify(matrix, null, 2)}\n`);
});
