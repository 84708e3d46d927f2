// open / walk / arr.get with FetchStore in headless Chromium, cross-origin: the page
// (tests/browser/hierarchy.html, with the built package from /pkg/index.js) comes from one
// local server, the fixtures from tests/server on another port (CORS, S3 listing). The ZOMs
// equal pydantic-zarr's dumps, every array of v3, v2 and sample read whole and by selections
// equals zarr-python's values, and the server's own log gives the request counts (consolidated
// open = 1 request; one inner chunk of a shard = the index range + one range). Saves a
// screenshot to test-output/hierarchy.png.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { slice } from "zom";
import { assertJsonEqual, parseJsonExact, readJson, repoRoot } from "../js/helpers.mjs";
import { elements, reference, sameValues } from "../js/hierarchy-common.mjs";
import { startServer } from "../server/server.mjs";
import { fixtures, logLines } from "../server/testing.mjs";
import { launchChromium, openTestPage, recordConsole } from "./chromium.mjs";
import { unplain } from "./plain.mjs";
import { serve } from "./server.mjs";

let site;
let data;
let browser;
let profile;
let page;
const consoleLines = [];

before(async () => {
  site = await serve(repoRoot);
  data = await startServer({ root: fixtures, s3Listing: true });
  ({ browser, profile } = await launchChromium("zom-chromium-hierarchy-", { viewport: { width: 1100, height: 800 } }));
  page = await browser.newPage();
  recordConsole(page, consoleLines);
  await openTestPage(page, `${site.url}/tests/browser/hierarchy.html`, "zomHierarchy", consoleLines);
});

after(async () => {
  if (page) {
    mkdirSync(join(repoRoot, "test-output"), { recursive: true });
    await page.screenshot({ path: join(repoRoot, "test-output", "hierarchy.png"), fullPage: true });
  }
  await browser?.close();
  await Promise.all([site?.close(), data?.close()]);
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Calls window.zomHierarchy[name](...args) in the page. */
function call(name, ...args) {
  return page.evaluate(([name, args]) => window.zomHierarchy[name](...args), [name, args]);
}

/** Runs a check, recording its outcome as a row of the page (for the screenshot). */
async function checked(step, fn) {
  try {
    const text = await fn();
    await call("verdict", step, true, text ?? "as expected");
  } catch (e) {
    await call("verdict", step, false, String(e?.message ?? e).slice(0, 2000)).catch(() => {});
    throw e;
  }
}

/**
 * The reads of an array of `shape`: whole (null), then a negative index with null for the
 * other dimensions, slices with steps and negative bounds, and a negative step with an index.
 */
function selections(shape) {
  const rank = shape.length;
  if (rank === 0 || shape.includes(0)) return [null];
  const rest = (entry) => Array(rank - 1).fill(entry);
  return [
    null,
    [-1, ...rest(null)],
    [slice(1, null, 2), ...rest(slice(-4, -1, 2))],
    [slice(null, null, -2), ...(rank >= 2 ? [Math.floor(shape[1] / 2)] : [])],
  ];
}

test("the page and the data are different origins", async () => {
  const origin = await page.evaluate(() => location.origin);
  assert.notEqual(origin, new URL(data.url).origin);
});

test("one inner chunk of a sharded array costs two requests (index range + chunk range), one once the index is known, cross-origin", () =>
  checked("shard_index_end: one inner chunk = 2 requests, then 1", async () => {
    const entry = readJson("expected", "v3.values.json").shard_index_end;
    const info = await call("hold", `${data.url}/v3`, "shard_index_end");
    assert.deepEqual(
      [info.shards, info.chunks],
      [
        [8, 8],
        [4, 4],
      ],
    );
    data.resetStats();
    const selection = [slice(4, 8), slice(0, 4)];
    const { data: values, shape } = await call("getHeld", selection);
    const want = reference(entry.values, entry.shape, selection);
    assert.deepEqual(shape, want.shape);
    sameValues(elements(unplain(values), unplain(info.dtype)), want.values, "inner chunk");
    const log = data.stats.log;
    assert.equal(log.length, 2, logLines(data).join("\n"));
    assert.match(log[0].range, /^bytes=-\d+$/);
    assert.match(log[1].range, /^bytes=\d+-\d+$/);
    assert.ok(
      log.every((e) => e.status === 206 && e.url === "/v3/shard_index_end/c/0/0"),
      logLines(data).join("\n"),
    );
    // A suffix range is not a CORS-safelisted header value: the browser asked first.
    assert.ok(data.stats.preflights >= 1, "a CORS preflight");

    // The same shard: the array knows its index now.
    data.resetStats();
    const chunk = await call("getChunkHeld", [1, 1]);
    assert.deepEqual(chunk.shape, [4, 4]);
    assert.equal(data.stats.requests, 1, logLines(data).join("\n"));
    // Another shard: its index and the range.
    data.resetStats();
    await call("getChunkHeld", [2, 0]);
    assert.equal(data.stats.requests, 2, logLines(data).join("\n"));
    return `get([4:8, 0:4]): ${log.map((e) => e.range).join(", ")}; getChunk([1, 1]) of the same shard: 1 request; getChunk([2, 0]): 2 requests`;
  }));

test("a consolidated hierarchy opens in one request and walks in one request", () =>
  checked("v3-consolidated: open = 1 request, walk told the format = 1 request", async () => {
    const expected = readJson("expected", "v3-consolidated.zom.json");
    data.resetStats();
    const opened = await call("open", `${data.url}/v3-consolidated`);
    assert.deepEqual(logLines(data), ["GET /v3-consolidated/zarr.json 200"]);
    assert.equal(opened.requests, 1);
    assert.equal(opened.consolidated, true);
    assertJsonEqual(parseJsonExact(opened.zom), expected, "open(v3-consolidated).zom");

    data.resetStats();
    const walked = await call("walk", `${data.url}/v3-consolidated`, { format: 3 });
    assert.equal(data.stats.requests, 1, logLines(data).join("\n"));
    assert.deepEqual([walked.errors, walked.unlisted, walked.consolidated], [[], [], true]);
    assertJsonEqual(parseJsonExact(walked.zom), expected, "walk(v3-consolidated)");
    // Not told the format, the walk asks for both formats' root documents in one round trip.
    data.resetStats();
    await call("walk", `${data.url}/v3-consolidated`);
    assert.equal(data.stats.requests, 5, logLines(data).join("\n"));
    return "ZOM equals v3-consolidated.zom.json; 1 request each (a walk not told the format: 5 at once)";
  }));

test("walk of v3 over the S3 listing equals pydantic-zarr's ZOM", () =>
  checked("walk v3 (S3 ListObjectsV2) = v3.zom.json", async () => {
    data.resetStats();
    const walked = await call("walk", `${data.url}/v3`, { concurrency: 8 });
    assert.deepEqual([walked.errors, walked.unlisted, walked.consolidated], [[], [], false]);
    assertJsonEqual(parseJsonExact(walked.zom), readJson("expected", "v3.zom.json"), "walk(v3)");
    const listings = data.stats.log.filter((e) => e.url.includes("list-type=2")).length;
    assert.ok(listings >= 1, logLines(data).join("\n"));
    return `ZOM equals v3.zom.json; ${data.stats.requests} requests (${listings} listings)`;
  }));

for (const name of ["v3", "v2", "v2-numcodecs", "sample"]) {
  test(`every ${name} array read whole and by selections in Chromium equals zarr-python's values`, () =>
    checked(`${name}: every array, whole and by selections = ${name}.values.json`, async () => {
      const expected = readJson("expected", `${name}.values.json`);
      const plan = Object.entries(expected).map(([path, entry]) => ({ path, selections: selections(entry.shape) }));
      const got = await call("readAll", `${data.url}/${name}`, plan);
      const failures = [];
      let reads = 0;
      for (const [i, { path, selections: sels }] of plan.entries()) {
        const entry = expected[path];
        const result = got[i];
        if (result.error) {
          failures.push(`${path}: ${JSON.stringify(result.error)}`);
          continue;
        }
        assert.deepEqual(result.shape, entry.shape, path);
        for (const [k, selection] of sels.entries()) {
          const where = `${name}/${path} ${selection === null ? "whole" : JSON.stringify(selection)}`;
          const read = result.reads[k];
          try {
            assert.ok(!read.error, JSON.stringify(read.error));
            const want = reference(entry.values, entry.shape, selection ?? undefined);
            assert.deepEqual(read.shape, want.shape, `${where}: shape`);
            sameValues(elements(unplain(read.data), unplain(result.dtype)), want.values, where);
            reads++;
          } catch (e) {
            failures.push(`${where}: ${e.message.split("\n")[0]}`);
          }
        }
      }
      assert.deepEqual(failures, [], `${failures.length} read(s) differ:\n${failures.join("\n")}`);
      assert.ok(reads >= plan.length, `${reads} reads`);
      return `${plan.length} arrays, ${reads} reads equal`;
    }));
}
