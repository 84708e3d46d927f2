// The explorer (www/, what `npm start` serves) in headless Chromium: the server is started by
// the same function `npm start` uses (port 0), the page walks the bundled sample, and the
// checks compare what it shows with zarr-python's values (tests/fixtures/expected) and with
// the fixture files: the tree, image previews whose every pixel is the colour of its value
// (computed by the test from zarr-python's values), the chunk grid, the slider of a 3-D array, tables of
// datetimes, strings and structs, the deliberate validation problem, readable failures (404,
// 403, bad JSON, unknown codec, a server without CORS) with their store keys, the diff with
// an expected ZOM, the conventions an OME-Zarr image claims (badges, problems next to the nodes), the
// downloaded ZOM (whole, against a walk and pydantic-zarr's), and the
// tree of a 3,031-node hierarchy (only the rows in view in the DOM, #/path scrolled to and
// selected, keys, folds, ARIA, problem counts below groups; every row reached by scrolling).
// Decoding happens in the worker, by its pool of decode workers, and the preview shows
// within 5 s of the click: the page itself fetches no chunk. Screenshots go to
// test-output/explorer/.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FsStore } from "zom/fs";
import { walk } from "zom/validate";
import { serveExplorer } from "../../scripts/start.mjs";
import { wwwDist } from "../../www/build.mjs";
import { assertJsonEqual, parseJsonExact, readJson, repoRoot } from "../js/helpers.mjs";
import { startServer } from "../server/server.mjs";
import { fixtures } from "../server/testing.mjs";
import { launchChromium, recordConsole } from "./chromium.mjs";
import { assertPreview, extremePoints, nodePaths, numbers, previewPixels, treeRows } from "./explorer-checks.mjs";

const shots = join(repoRoot, "test-output", "explorer");

let server;
let browser;
let profile;
let page;
let scratch;
const others = [];
const consoleLines = [];

const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

/** Opens a hierarchy through the URL box and waits until the page has walked it or failed. */
async function openUrl(url) {
  await page.fill("#url", url);
  await page.click("#open-form button[type=submit]");
  await page.waitForFunction((u) => document.body.dataset.state !== "walking" && document.querySelector("#url").value === u, url, {
    timeout: 30_000,
  });
}

/** Clicks a node in the tree and waits for its panel. */
async function selectNode(path) {
  await page.click(`button.node[data-path="${path}"]`);
  await page.waitForSelector(`article.panel[data-path="${path}"]`);
}

/** Waits for the preview of the selected array to finish (drawn, or failed). */
async function previewDone() {
  await page.waitForFunction(
    () => {
      const status = document.querySelector(".preview-status");
      return status !== null && !status.classList.contains("busy") && document.querySelector(".preview-output")?.childElementCount > 0;
    },
    null,
    { timeout: 30_000 },
  );
}

/**
 * Runs in the page: whether the row of `path` is drawn, selected (its button's class and its
 * treeitem's aria-selected) and wholly inside the tree's scrolled view; null when not drawn.
 */
function rowState(path) {
  const button = [...document.querySelectorAll("#tree button.node")].find((b) => b.dataset.path === path);
  if (button === undefined) return null;
  const view = document.getElementById("tree").getBoundingClientRect();
  const box = button.getBoundingClientRect();
  return {
    selected: button.classList.contains("selected"),
    ariaSelected: button.closest("[role=treeitem]").getAttribute("aria-selected"),
    inView: box.top >= view.top && box.bottom <= view.bottom,
  };
}

before(async () => {
  assert.ok(existsSync(join(wwwDist, "index.html")), "www/dist is missing: run `npm run build` first");
  mkdirSync(shots, { recursive: true });
  server = await serveExplorer({ port: 0 });
  ({ browser, profile } = await launchChromium("zom-chromium-explorer-", {
    viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
  }));
  page = await browser.newPage();
  recordConsole(page, consoleLines);
  await page.goto(server.url);
  await page.waitForFunction(() => document.body.dataset.state === "ready" || document.body.dataset.state === "failed", null, {
    timeout: 30_000,
  });
  const state = await page.evaluate(() => document.body.dataset.state);
  assert.equal(state, "ready", `the sample did not open:\n${await page.innerText("body")}\n${consoleLines.join("\n")}`);
});

after(async () => {
  await browser?.close();
  await Promise.all([server?.close(), ...others.map((s) => s.close())]);
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("the sample opens by default: the tree lists every node with kinds, shapes and data types", async () => {
  const rows = await page.evaluate(treeRows);
  assert.deepEqual(rows.map((r) => r.path).sort(), nodePaths("sample"));
  const byPath = Object.fromEntries(rows.map((r) => [r.path, r]));
  assert.equal(byPath["image/gradient_circles"].kind, "array");
  assert.equal(byPath["measurements/2024"].kind, "group");
  assert.match(byPath["image/gradient_circles"].text, /256 × 256 · uint16/);
  assert.match(byPath["measurements/timestamps"].text, /10 · datetime64\[s\]/);
  assert.match(byPath["measurements/2024/run1/records"].text, /6 · structured\{id, temp, ok\}/);
  // Counters of the worker's store, shown as they change.
  const requests = Number((await page.innerText("#requests")).replace(/,/g, ""));
  assert.ok(requests >= nodePaths("sample").length, `${requests} requests`);
  assert.match(await page.innerText("#bytes"), /\d+(\.\d+)? (B|kB)/);
  assert.equal(await page.inputValue("#url"), server.sampleUrl);
  await shot("01-sample-root");
});

test("the deliberate problem is listed with its location, at the root and at the node", async () => {
  await selectNode("");
  const rows = await page.$$eval("#validation table.problems tbody tr", (trs) => trs.map((tr) => tr.innerText));
  assert.equal(rows.length, 1, rows.join("\n"));
  assert.match(
    rows[0],
    /error\s+\/broken\/bad_chunk_rank\s+chunk_grid\.configuration\.chunk_shape\s+invalid_value\s+chunk_shape \[8\] has 1 dimensions; shape \[16, 16\] has 2/i,
  );
  assert.match(await page.innerText("#summary"), /1 error/);
  // The tree marks the node and its group.
  assert.equal(await page.innerText('button.node[data-path="broken/bad_chunk_rank"] .badge-problem'), "1");
  await selectNode("broken/bad_chunk_rank");
  assert.match(await page.innerText("#validation"), /chunk_grid\.configuration\.chunk_shape/);
  await previewDone();
  // The array cannot be read with that grid: said next to it, with the node.
  const failure = await page.innerText("#preview .failure");
  assert.match(failure, /InvalidMetadata/);
  assert.match(failure, /store key\s+broken\/bad_chunk_rank\/zarr\.json/);
  await shot("02-problem");
});

test("an image preview is drawn from the real values in the worker, with min/max and the chunk grid", async () => {
  const expected = readJson("expected", "sample.values.json")["image/gradient_circles"];
  const values = expected.values;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const logBefore = server.stats.log.length;
  // What a user sees: the preview within seconds of the click (it once waited 20 s for a pool
  // worker that never answered), decoded by zom's decode workers, with no warning.
  const linesBefore = consoleLines.length;
  // zom's decode workers, which the explorer's init() starts, are up (until then chunks decode
  // in the explorer's own worker).
  await page.waitForFunction(() => Number(document.getElementById("decode-workers")?.textContent) > 0, null, { timeout: 20_000 });
  const t0 = performance.now();
  await selectNode("image/gradient_circles");
  await previewDone();
  const ms = performance.now() - t0;
  assert.ok(ms < 5000, `the preview took ${Math.round(ms)} ms`);
  assert.match(await page.innerText(".preview-status"), /read and decoded in the worker in \d+ ms, \d+ chunks by zom's decode workers/);
  assert.deepEqual(
    consoleLines.slice(linesBefore).filter((l) => /^(warning|error|pageerror)/.test(l)),
    [],
  );
  assert.equal(await page.innerText(".legend-min"), String(min));
  assert.equal(await page.innerText(".legend-max"), String(max));
  const pixels = await page.evaluate(previewPixels, extremePoints(values, expected.shape));
  assertPreview(pixels, expected.shape, values);

  // The chunks were read, but not by the page: its own resource timeline holds no chunk (the
  // worker's requests are on the worker's timeline).
  const chunkRequests = server.stats.log.slice(logBefore).filter((e) => e.url.startsWith("/data/sample/image/gradient_circles/c/"));
  assert.ok(chunkRequests.length > 0, "the server saw the chunk reads");
  const pageFetches = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
  assert.ok(!pageFetches.some((u) => u.includes("/c/") || u.endsWith(".wasm")), pageFetches.join("\n"));

  const overlayInk = () =>
    page.evaluate(() => {
      const c = document.querySelector("canvas.overlay");
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
  assert.equal(await overlayInk(), 0);
  await page.check("#grid-toggle");
  assert.ok((await overlayInk()) > 0, "the chunk grid is drawn");
  await shot("03-image-grid");
});

test("1-D arrays, datetimes, strings and structs show as tables of their values", async () => {
  const expected = readJson("expected", "sample.values.json");
  await selectNode("measurements/timestamps");
  await previewDone();
  const times = await page.$$eval("table.values tbody tr td:last-child", (tds) => tds.map((td) => td.innerText));
  assert.deepEqual(
    times,
    expected["measurements/timestamps"].values.map((s) => `${new Date(s * 1000).toISOString().replace(".000Z", "Z")}  (${s} s)`),
  );
  await selectNode("measurements/labels");
  await previewDone();
  const labels = await page.$$eval("table.values tbody tr td:last-child", (tds) => tds.map((td) => td.innerText));
  assert.deepEqual(
    labels,
    expected["measurements/labels"].values.map((s) => JSON.stringify(s)),
  );
  await selectNode("measurements/2024/run1/records");
  await previewDone();
  const header = await page.$$eval("table.values thead th", (ths) => ths.map((th) => th.innerText));
  assert.deepEqual(header, ["i0", "id", "temp", "ok"]);
  const records = await page.$$eval("table.values tbody tr", (trs) => trs.map((tr) => [...tr.cells].slice(1).map((c) => c.innerText)));
  assert.deepEqual(
    records,
    expected["measurements/2024/run1/records"].values.map((r) => [String(r.id), String(r.temp), String(r.ok)]),
  );
  await shot("04-table-struct");
});

test("a 3-D array gets a slider for its first dimension; moving it redraws that plane", async () => {
  await openUrl(`${server.url}data/v3/`);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "ready", await page.innerText("body"));
  const expected = readJson("expected", "v3.values.json").codec_transpose;
  assert.deepEqual(expected.shape, [3, 4, 5]);
  await selectNode("codec_transpose");
  await previewDone();
  const plane = (k) => expected.values.slice(k * 20, (k + 1) * 20);
  assert.equal(await page.innerText(".legend-min"), String(Math.min(...plane(0))));
  await page.$eval('input[type=range][data-dim="0"]', (el) => {
    el.value = "2";
    el.dispatchEvent(new Event("input"));
  });
  await page.waitForFunction((want) => document.querySelector(".legend-min")?.innerText === want, String(Math.min(...plane(2))), {
    timeout: 10_000,
  });
  await previewDone();
  assert.equal(await page.innerText(".legend-max"), String(Math.max(...plane(2))));
  assert.match(await page.innerText(".slider"), /2 \/ 2/);
  await shot("05-slider");
  // Back to plane 0: its chunks come from the worker's decoded-chunk cache, so no request.
  await page.waitForTimeout(300); // the counters are posted every 150 ms
  const count = async (id) => Number((await page.innerText(id)).replace(/,/g, ""));
  const [requests, hits] = [await count("#requests"), await count("#cache-hits")];
  await page.$eval('input[type=range][data-dim="0"]', (el) => {
    el.value = "0";
    el.dispatchEvent(new Event("input"));
  });
  await page.waitForFunction((want) => document.querySelector(".legend-min")?.innerText === want, String(Math.min(...plane(0))), {
    timeout: 10_000,
  });
  await previewDone();
  await page.waitForFunction((h) => Number(document.querySelector("#cache-hits").innerText.replace(/,/g, "")) > h, hits, {
    timeout: 10_000,
  });
  assert.equal(await count("#requests"), requests, "plane 0 again: no request");
});

test("a slow walk shows a progress bar with the nodes found so far", async () => {
  const slow = await startServer({ root: fixtures, s3Listing: true, latencyMs: 120 });
  others.push(slow);
  await page.fill("#url", `${slow.url}/v3/`);
  await page.click("#open-form button[type=submit]");
  await page.waitForFunction(
    () => {
      const bar = document.getElementById("walk-progress");
      return !bar.hidden && bar.value > 0 && /walking: \d+ nodes? found/.test(document.getElementById("walk-status").innerText);
    },
    null,
    { timeout: 30_000 },
  );
  await shot("05b-walking");
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
  assert.equal(await page.$eval("#walk-progress", (b) => b.hidden), true);
  assert.deepEqual((await page.evaluate(treeRows)).map((r) => r.path).sort(), nodePaths("v3"));
});

test("a plate on a host without listing: its tree shows as the walk finds it, and is the whole plate at the end", async () => {
  const slow = await startServer({ root: fixtures, latencyMs: 150 });
  others.push(slow);
  await page.fill("#url", `${slow.url}/walk/ozp-0.21-v0.5-plate`);
  await page.click("#open-form button[type=submit]");
  // Rows while walking: some of the plate, not yet all of it.
  await page.waitForFunction(
    () =>
      document.body.dataset.state === "walking" &&
      Number(document.body.dataset.arrived) > 1 &&
      document.querySelectorAll("#tree [role=treeitem]").length > 1,
    null,
    { timeout: 30_000 },
  );
  const early = await page.evaluate(() => Number(document.body.dataset.arrived));
  const manifest = JSON.parse(readFileSync(join(fixtures, "walk", "manifest.json"), "utf8"));
  const plate = manifest.find((m) => m.dir === "ozp-0.21-v0.5-plate");
  assert.ok(early < plate.node_count, `${early} of ${plate.node_count} nodes shown while walking`);
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
  assert.deepEqual((await page.evaluate(treeRows)).map((r) => r.path).sort(), [...plate.nodes].sort());
});

test("a URL that 404s gives a readable message with the store key; ?url= opens it too", async () => {
  await openUrl(`${server.url}data/no-such-hierarchy/`);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "failed");
  const text = await page.innerText("#tree .failure");
  assert.match(text, /Could not open this hierarchy/);
  assert.match(text, /NotFound/);
  assert.match(text, /store key\s+zarr\.json/, text);
  assert.match(new URL(page.url()).searchParams.get("url"), /no-such-hierarchy/);
  await shot("06-not-found");
  // ?url= with a node in the hash: the v2 fixture opens at that node, its row in view and
  // selected (it lies below the rows the tree draws at first).
  await page.goto(`${server.url}?url=${encodeURIComponent(`${server.url}data/v2/`)}#/group1/sub`);
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 30_000 });
  await page.waitForSelector('article.panel[data-path="group1/sub"]');
  assert.deepEqual(
    await page.evaluate(rowState, "group1/sub"),
    { selected: true, ariaSelected: "true", inView: true },
    "?url= opened the v2 fixture at #/group1/sub",
  );
  assert.match((await page.evaluate(treeRows))[0].text, /v2/);
});

test("403, bad JSON, unknown codec and a server without CORS are readable failures next to the node", async () => {
  // 403 for a missing node, cross-origin.
  const forbidden = await startServer({ root: fixtures, forbiddenForMissing: true });
  others.push(forbidden);
  await openUrl(`${forbidden.url}/nothing-here/`);
  const denied = await page.innerText("#tree .failure");
  assert.match(denied, /403/);
  assert.match(denied, /store key\s+\S*zarr\.json/);
  assert.match(denied, /refused access/);

  // A hierarchy with a broken document and an array of an unknown codec.
  scratch = mkdtempSync(join(tmpdir(), "zom-explorer-"));
  const sample = JSON.parse(readFileSync(join(fixtures, "sample", "measurements", "temperature", "zarr.json"), "utf8"));
  const write = (path, text) => {
    mkdirSync(join(scratch, path, ".."), { recursive: true });
    writeFileSync(join(scratch, path), text);
  };
  write("zarr.json", JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
  write("broken_json/zarr.json", '{"zarr_format": 3, "node_type": "array", "shape": [');
  write("odd_codec/zarr.json", JSON.stringify({ ...sample, codecs: [sample.codecs[0], { name: "not_a_codec", configuration: {} }] }));
  write("odd_codec/c/0/0", "bytes");
  const scratchServer = await startServer({ root: scratch, s3Listing: true });
  others.push(scratchServer);
  await openUrl(`${scratchServer.url}/`);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "ready", await page.innerText("body"));
  const failedRow = await page.innerText('button.node[data-path="broken_json"]');
  assert.match(failedRow, /InvalidMetadata/);
  await selectNode("broken_json");
  const broken = await page.innerText("#failures");
  assert.match(broken, /InvalidMetadata/);
  assert.match(broken, /store key\s+\/?broken_json\/zarr\.json/);
  await selectNode("odd_codec");
  await previewDone();
  const codec = await page.innerText("#preview .failure");
  assert.match(codec, /not_a_codec/);
  assert.match(codec, /UnknownCodec|UnsupportedExtension/);
  assert.match(codec, /store key\s+odd_codec\/zarr\.json/);
  await shot("07-unknown-codec");

  // A server that sends no CORS headers: the browser refuses the answer.
  const noCors = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
  });
  await new Promise((done) => noCors.listen(0, "127.0.0.1", done));
  others.push({ close: () => new Promise((done) => (noCors.closeAllConnections(), noCors.close(done))) });
  await openUrl(`http://127.0.0.1:${noCors.address().port}/store/`);
  const cors = await page.innerText("#tree .failure");
  assert.match(cors, /cross-origin/);
  assert.match(cors, /store key\s+\S*zarr\.json/);
  await shot("08-cors");
});

test("a large hierarchy: only the rows in view are in the DOM; #/path scrolls to its row; folds, keys and problem counts work", async () => {
  // 1 + 30 groups × (1 + 100 arrays), consolidated, one array with a chunk grid of the wrong rank.
  const dir = mkdtempSync(join(tmpdir(), "zom-explorer-many-"));
  try {
    const array = JSON.parse(readFileSync(join(fixtures, "sample", "broken", "bad_chunk_rank", "zarr.json"), "utf8"));
    array.chunk_grid.configuration.chunk_shape = [8, 8];
    const bad = { ...array, chunk_grid: { name: "regular", configuration: { chunk_shape: [8] } } };
    const group = { zarr_format: 3, node_type: "group", attributes: {} };
    const metadata = {};
    const paths = [""];
    for (let g = 0; g < 30; g++) {
      const gp = `g${String(g).padStart(2, "0")}`;
      metadata[gp] = group;
      paths.push(gp);
      for (let a = 0; a < 100; a++) {
        const path = `${gp}/a${String(a).padStart(2, "0")}`;
        metadata[path] = path === "g17/a42" ? bad : array;
        paths.push(path);
      }
    }
    writeFileSync(
      join(dir, "zarr.json"),
      JSON.stringify({ ...group, consolidated_metadata: { kind: "inline", must_understand: false, metadata } }),
    );
    const many = await startServer({ root: dir });
    others.push(many);
    await page.goto(`${server.url}?url=${encodeURIComponent(`${many.url}/`)}#/g17/a42`);
    await page.waitForFunction(() => ["ready", "failed"].includes(document.body.dataset.state), null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.state), "ready", await page.innerText("body"));
    assert.match(await page.innerText("#summary"), /3,031 nodes/);

    // Rows: a screenful and a few more in the DOM, not 3,031; the hash's node in view, selected.
    const drawn = await page.$$eval("#tree button.node", (bs) => bs.length);
    assert.ok(drawn > 20 && drawn < 150, `${drawn} rows in the DOM`);
    await page.waitForSelector('article.panel[data-path="g17/a42"]');
    assert.deepEqual(await page.evaluate(rowState, "g17/a42"), { selected: true, ariaSelected: "true", inView: true });
    assert.match(await page.innerText("#validation"), /chunk_shape \[8\] has 1 dimensions; shape \[16, 16\] has 2/);
    // Problem counts: the node's own (its group's and the root's below, further down).
    assert.equal(await page.innerText('#tree button.node[data-path="g17/a42"] .badge-problem'), "1");
    assert.equal(await page.$('#tree button.node[data-path="g17/a41"] .badge'), null);
    // ARIA: a tree of treeitems with level, position and size; groups say whether they are expanded.
    const item = (path) =>
      page.evaluate((p) => {
        const li = [...document.querySelectorAll("#tree button.node")].find((b) => b.dataset.path === p)?.closest("li");
        if (li === undefined) return null;
        const attrs = ["role", "aria-level", "aria-posinset", "aria-setsize", "aria-expanded", "aria-selected"];
        return { parent: li.parentElement.getAttribute("role"), ...Object.fromEntries(attrs.map((a) => [a, li.getAttribute(a)])) };
      }, path);
    assert.deepEqual(await item("g17/a42"), {
      parent: "tree",
      role: "treeitem",
      "aria-level": "3",
      "aria-posinset": "43",
      "aria-setsize": "100",
      "aria-expanded": null,
      "aria-selected": "true",
    });
    assert.equal(await page.$$eval('#tree [aria-selected="true"]', (els) => els.length), 1);

    // A click selects another row: one row selected, the panel follows, the hash too.
    await page.click('#tree button.node[data-path="g17/a41"]');
    await page.waitForSelector('article.panel[data-path="g17/a41"]');
    assert.equal((await page.evaluate(rowState, "g17/a41")).selected, true);
    assert.equal((await page.evaluate(rowState, "g17/a42")).selected, false);
    assert.equal(new URL(page.url()).hash, "#/g17/a41");
    // Keys: the clicked row has them; ↓ moves, Enter selects, ← goes up to the group and folds it, → unfolds.
    const activeRow = () =>
      page.evaluate(() => {
        const tree = document.querySelector("[role=tree]");
        return document.getElementById(tree.getAttribute("aria-activedescendant"))?.querySelector("button.node").dataset.path ?? null;
      });
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute("role")), "tree");
    await page.keyboard.press("ArrowDown");
    assert.equal(await activeRow(), "g17/a42");
    await page.keyboard.press("Enter");
    await page.waitForSelector('article.panel[data-path="g17/a42"]');
    await page.keyboard.press("ArrowLeft");
    assert.equal(await activeRow(), "g17");
    // The group's row, scrolled into view: the problem below it, and its ARIA.
    assert.equal(await page.innerText('#tree button.node[data-path="g17"] .badge-sub'), "1");
    assert.equal(await page.$('#tree button.node[data-path="g17"] .badge-problem'), null);
    assert.deepEqual(await item("g17"), {
      parent: "tree",
      role: "treeitem",
      "aria-level": "2",
      "aria-posinset": "18",
      "aria-setsize": "30",
      "aria-expanded": "true",
      "aria-selected": "false",
    });
    await page.keyboard.press("ArrowLeft");
    const folded = () =>
      page.evaluate(() => {
        const rows = [...document.querySelectorAll("#tree button.node")];
        const at = (path) => rows.find((b) => b.dataset.path === path)?.closest("li");
        return {
          expanded: at("g17")?.getAttribute("aria-expanded"),
          members: rows.filter((b) => b.dataset.path.startsWith("g17/")).length,
          next: at("g18") ? at("g18").offsetTop - at("g17").offsetTop : null,
        };
      });
    assert.deepEqual(await folded(), { expanded: "false", members: 0, next: 28 });
    await page.keyboard.press("ArrowRight");
    assert.equal((await folded()).expanded, "true");
    // The caret folds and unfolds too, without selecting the group.
    const caret = '#tree button.node[data-path="g17"] .caret';
    await page.click(caret);
    assert.deepEqual(await folded(), { expanded: "false", members: 0, next: 28 });
    await page.click(caret);
    assert.equal((await folded()).expanded, "true");
    assert.equal(await page.getAttribute("article.panel", "data-path"), "g17/a42");
    // Every node is a row, in order (members by name), reached by scrolling.
    const rows = await page.evaluate(treeRows);
    assert.deepEqual(
      rows.map((r) => r.path),
      paths,
    );
    assert.deepEqual(
      rows.slice(0, 3).map((r) => r.level),
      [1, 2, 3],
    );
    // Home: the root's row, which counts the problem below it.
    await page.keyboard.press("Home");
    assert.equal(await activeRow(), "");
    assert.equal(await page.innerText('#tree button.node[data-path=""] .badge-sub'), "1");
    await shot("10-large-hierarchy");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("large planes are strided, and planes too large to stride show their top-left corner", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-explorer-large-"));
  try {
    const array = (shape) => ({
      zarr_format: 3,
      node_type: "array",
      shape,
      data_type: "uint8",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [1000, 1000] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      fill_value: 7,
      codecs: [{ name: "bytes" }],
      attributes: {},
    });
    writeFileSync(join(dir, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
    for (const [name, shape] of [
      ["strided", [2100, 3000]],
      ["huge", [6000, 6000]],
    ]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "zarr.json"), JSON.stringify(array(shape)));
    }
    const large = await startServer({ root: dir, s3Listing: true });
    others.push(large);
    await openUrl(`${large.url}/`);
    await selectNode("strided");
    await previewDone();
    assert.match(await page.innerText(".preview-status"), /700 × 1000 values \(every 3rd row and column of 2100 × 3000\)/);
    assert.deepEqual(await page.$eval("#preview-canvas", (c) => [c.width, c.height]), [1000, 700]);
    assert.equal(await page.innerText(".legend-min"), "7");
    await selectNode("huge");
    await previewDone();
    assert.match(await page.innerText(".preview-status"), /1024 × 1024 values \(the top-left corner of 6000 × 6000\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an expected ZOM that differs: the diff lists the difference where it is", async () => {
  await openUrl(server.sampleUrl);
  await page.click("#tab-expected");
  await page.click("text=Start from the current ZOM");
  await page.waitForFunction(() => document.getElementById("expected-text").value.length > 100);
  const zom = await page.inputValue("#expected-text");
  assert.ok(zom.includes('"zom sample hierarchy"'));
  await page.fill("#expected-text", zom.replace('"zom sample hierarchy"', '"another title"'));
  await page.click("#expected-compare");
  await page.waitForSelector("#expected-results .expected-summary");
  assert.equal(await page.innerText("#expected-results .expected-summary"), "1 difference");
  const row = await page.innerText("#expected-results table.diff tbody tr");
  assert.match(row, /^\/\s+attributes\.title\s+changed\s+"another title"\s+"zom sample hierarchy"/);
  await shot("09-expected-diff");

  // Ignoring the field: no difference.
  await page.fill("#expected-exclude", "attributes");
  await page.click("#expected-compare");
  await page.waitForFunction(() => /No differences/.test(document.getElementById("expected-results").innerText));
  // Not JSON: a readable message, the page still works.
  await page.fill("#expected-text", "{ not json");
  await page.click("#expected-compare");
  await page.waitForSelector("#expected-results .failure");
  assert.match(await page.innerText("#expected-results .failure"), /not JSON/);
});

test("conventions: an OME-Zarr image gets a passing badge, a broken copy a failing one with the spec's problem at its node", async () => {
  const conventions = `${server.url}data/conventions`;
  const badges = () =>
    page.$$eval("#summary .convention", (bs) => bs.map((b) => ({ spec: b.dataset.spec, valid: b.dataset.valid, text: b.innerText })));
  // The sample claims no convention: no badge.
  await openUrl(server.sampleUrl);
  assert.deepEqual(await badges(), []);

  await openUrl(`${conventions}/ome-0.5-image/`);
  assert.deepEqual(await badges(), [{ spec: "ome-zarr-0.5", valid: "true", text: "OME-Zarr 0.5 ✓" }]);
  assert.match(await page.innerText("#summary"), /valid/);
  await selectNode("labels/cells");
  assert.equal(await page.innerText('article.panel .pill-claim[data-spec="ome-zarr-0.5"]'), "OME-Zarr 0.5 image");
  await shot("11-convention-valid");

  await openUrl(`${conventions}/mutated/ome-0.5-missing-label/`);
  const [bad] = await badges();
  assert.equal(bad.spec, "ome-zarr-0.5");
  assert.equal(bad.valid, "false");
  assert.match(bad.text, /^OME-Zarr 0\.5 ✗ \d+ errors?$/);
  // The badge opens the node that claims the convention (the image at the root).
  await page.click("#summary .convention");
  await page.waitForSelector('article.panel[data-path=""]');
  const rows = await page.$$eval("#validation table.problems tbody tr", (trs) => trs.map((tr) => tr.innerText));
  const hit = rows.find((r) => /\/labels\s+attributes\.ome\.labels\[1\]/.test(r));
  assert.ok(hit, rows.join("\n"));
  assert.match(
    hit,
    /^error\s+\/labels\s+attributes\.ome\.labels\[1\]\s+invalid_value\s+'nuclei' names no node below this one\s+ome-zarr-0\.5 · label-paths/i,
  );
  // Next to the node in the tree too.
  assert.ok(Number(await page.innerText('button.node[data-path="labels"] .badge-problem')) >= 1);
  await selectNode("labels");
  assert.match(await page.innerText("#validation"), /'nuclei' names no node below this one/);
  await shot("12-convention-problem");
});

/** Waits until the page has walked local data labelled `label` (or failed). */
async function walkedLocal(label) {
  await page.waitForFunction((l) => document.body.dataset.state !== "walking" && document.querySelector("#url").value === l, label, {
    timeout: 30_000,
  });
  assert.equal(await page.evaluate(() => document.body.dataset.state), "ready", await page.innerText("body"));
}

/** The tree's node paths, sorted. */
const treePaths = async () => (await page.evaluate(treeRows)).map((r) => r.path).sort();

test("local data: a .zip chosen in the file input, a folder in the folder input, and a .zip dropped on the page", async () => {
  const imageMin = async () => {
    await selectNode("image/gradient_circles");
    await previewDone();
    return page.innerText(".legend-min");
  };
  await openUrl(server.sampleUrl);
  const wantMin = await imageMin();

  // A zip with its root in a subfolder (deflated members), through the file input.
  await page.setInputFiles("#zip-input", join(fixtures, "zip", "sample-folder.zip"));
  await walkedLocal("local:sample-folder.zip");
  assert.deepEqual(await treePaths(), nodePaths("sample"));
  assert.equal(await imageMin(), wantMin);
  // Nothing went over HTTP for it: the counters were reset and stay at zero.
  assert.equal(await page.innerText("#requests"), "0");
  await shot("13-local-zip");

  // A folder, through <input webkitdirectory> (the fallback where showDirectoryPicker is missing).
  await page.setInputFiles("#folder-input", join(fixtures, "sample"));
  await walkedLocal("local:sample");
  assert.deepEqual(await treePaths(), nodePaths("sample"));
  assert.equal(await imageMin(), wantMin);

  // A .zip dropped on the page (a DataTransfer holding the file).
  const bytes = [...readFileSync(join(fixtures, "zip", "sample-zip64.zip"))];
  await page.evaluate((data) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(data)], "sample-zip64.zip", { type: "application/zip" }));
    document.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    document.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, bytes);
  await walkedLocal("local:sample-zip64.zip");
  assert.deepEqual(await treePaths(), nodePaths("sample"));
  assert.equal(await page.isHidden("#drop"), true);

  // The sample over HTTP again: a URL clears the local source.
  await openUrl(server.sampleUrl);
  assert.deepEqual(await treePaths(), nodePaths("sample"));
});

test("the whole ZOM downloads as JSON: the sample's equal to its walk in Node, v3's to pydantic-zarr's", async () => {
  const download = async (url, name) => {
    await openUrl(url);
    await page.click("#tab-node");
    const [file] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    assert.equal(file.suggestedFilename(), `${name}.zom.json`);
    return parseJsonExact(readFileSync(await file.path(), "utf8"));
  };
  // Every node, its metadata and attributes, the broken ones as the walk leaves them.
  const sample = await download(server.sampleUrl, "sample");
  assertJsonEqual(
    sample,
    await walk(new FsStore(join(fixtures, "sample"))),
    "the sample's downloaded ZOM against zom/validate's walk of its folder",
  );
  // What an independent reader makes of a hierarchy: pydantic-zarr's GroupSpec.from_zarr.
  const v3 = await download(`${server.url}data/v3/`, "v3");
  assertJsonEqual(v3, readJson("expected", "v3.zom.json"), "v3's downloaded ZOM against pydantic-zarr's");
  assert.deepEqual(
    consoleLines.filter((l) => l.startsWith("pageerror")),
    [],
  );
  await openUrl(server.sampleUrl);
});

test("an Icechunk repository opens like any other; the picker lists its branches, tags and snapshots and opens the one chosen, with its history", async () => {
  const ice = readJson("icechunk", "expected.json").repositories.v2;
  const url = `${server.url}data/icechunk/v2/`;
  const treePaths = async () =>
    (await page.evaluate(treeRows))
      .map((r) => r.path)
      .filter((p) => p !== "")
      .sort();
  const nodesOf = (ref) =>
    Object.keys(ice.refs[ref].nodes)
      .filter((p) => p !== "/")
      .map((p) => p.slice(1))
      .sort();
  await openUrl(url);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "ready", await page.innerText("body"));
  assert.deepEqual(await treePaths(), nodesOf("branch:main"));
  assert.equal(await page.isVisible("#icechunk"), true);
  assert.equal(await page.inputValue("#icechunk-ref"), "branch:main");
  const options = await page.$$eval("#icechunk-ref option", (os) => os.map((o) => o.value));
  for (const name of Object.keys(ice.branches)) assert.ok(options.includes(`branch:${name}`), `branch ${name} in ${options}`);
  for (const name of Object.keys(ice.tags)) assert.ok(options.includes(`tag:${name}`), `tag ${name} in ${options}`);
  assert.ok(!options.includes("tag:gone"), "a deleted tag is not offered");
  const history = () => page.$$eval(".icechunk-history li", (lis) => lis.map((li) => li.dataset.snapshot));
  assert.deepEqual(await history(), ice.refs["branch:main"].ancestry);

  await page.selectOption("#icechunk-ref", "tag:v1.0");
  await page.waitForFunction(
    () => document.body.dataset.state === "ready" && new URLSearchParams(location.search).get("ref") === "tag:v1.0",
    null,
    { timeout: 30_000 },
  );
  assert.deepEqual(await treePaths(), nodesOf("tag:v1.0"));
  assert.deepEqual(await history(), ice.refs["tag:v1.0"].ancestry);
  // A 2-D array of that snapshot previews from its chunks.
  await selectNode("group/float64");
  await previewDone();
  const { shape, values } = ice.refs["tag:v1.0"].nodes["/group/float64"];
  const finite = numbers(values);
  assertPreview(await page.evaluate(previewPixels, extremePoints(finite, shape)), shape, finite);
  await shot("14-icechunk");

  // A plain hierarchy shows no picker.
  await openUrl(server.sampleUrl);
  assert.equal(await page.isVisible("#icechunk"), false);
});
