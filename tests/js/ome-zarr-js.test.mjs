// A real OME-Zarr library on zom: an app on ome-zarr.js 0.0.19 (pinned in
// tests/zarrita-suite/ome-zarr-js/package-lock.json, with the zarrita 0.5 it depends on) renders
// ome-zarr-py's images (tests/fixtures/viewer: a 0.4 image, a 0.5 sharded one, a plate's
// field) over HTTP twice: as published, and with "zarrita" sent to zom/zarrita by Node's
// resolve hook (tests/zarrita-suite/viv/alias.mjs). The level it picks, its metadata, the
// value ranges and the rendered pixels must be the same.
//
//   node --test --test-reporter=spec tests/js/ome-zarr-js.test.mjs
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../server/server.mjs";
import { fixtures, repoRoot, runNodeScript } from "./helpers.mjs";

const appDir = join(repoRoot, "tests", "zarrita-suite", "ome-zarr-js");
const alias = join(repoRoot, "tests", "zarrita-suite", "viv", "alias.mjs");
const IMAGES = ["ome-0.4-image/", "ome-0.5-sharded/", "ome-0.4-plate/A/1/0/", "ome-0.4-plate/B/2/0/"];
const RUN_TIMEOUT_MS = 120_000;

/** read.mjs's JSON line; rejects on failure or timeout. */
async function read(base, nodeArgs) {
  return JSON.parse(await runNodeScript({ cwd: appDir, nodeArgs, script: "read.mjs", args: [base, ...IMAGES], timeoutMs: RUN_TIMEOUT_MS }));
}

let server;
before(async () => {
  server = await startServer({ root: join(fixtures, "viewer") });
});
after(() => server?.close());

test("ome-zarr.js renders the same images, pixel for pixel, through zom/zarrita", async () => {
  const base = `${server.url}/`;
  const theirs = await read(base, []);
  const ours = await read(base, ["--import", alias]);
  assert.match(theirs.zarrita, /node_modules\/zarrita\//);
  assert.match(ours.zarrita, /pkg\/zarrita\/node\.js$/);
  assert.deepEqual(Object.keys(theirs.images), IMAGES);
  for (const image of IMAGES) {
    assert.ok(theirs.images[image].pixels > 0, image);
    assert.deepEqual(ours.images[image], theirs.images[image], image);
  }
});
