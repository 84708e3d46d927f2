// A real OME-Zarr library on zom: an app on @fideus-labs/ngff-zarr 0.14 (pinned in
// tests/zarrita-suite/ngff-zarr/package-lock.json, with the zarrita 0.6 it depends on) writes
// images with ngff-zarr (0.4 and 0.5, 3-d and 5-d, two levels), then reads them and
// ome-zarr-py's (tests/fixtures/viewer: a 0.4 image, a 0.5 sharded one, a plate's field) over
// HTTP twice: as published, and with "zarrita" sent to zom/zarrita by Node's resolve hook
// (tests/zarrita-suite/viv/alias.mjs), in ngff-zarr's decode workers too. Every level read with
// zarrita's `get` and with ngff-zarr's `zarrGet` (fizarrita's workers, whose codec pipelines
// come from zarrita's `registry`) must come back the same, with the same metadata.
//
//   node --test --test-reporter=spec tests/js/ngff-zarr.test.mjs
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../server/server.mjs";
import { fixtures, repoRoot, runNodeScript } from "./helpers.mjs";

const appDir = join(repoRoot, "tests", "zarrita-suite", "ngff-zarr");
const alias = join(repoRoot, "tests", "zarrita-suite", "viv", "alias.mjs");
const WRITTEN = ["0.4-cyx", "0.4-tczyx", "0.5-cyx", "0.5-tczyx"].map((n) => `written/ngff-zarr-${n}.ome.zarr/`);
const IMAGES = ["ome-0.4-image/", "ome-0.5-sharded/", "ome-0.4-plate/A/1/0/", ...WRITTEN];
const RUN_TIMEOUT_MS = 120_000;

/** Runs one of the app's scripts; resolves with its last stdout line. */
function run(nodeArgs, script, args) {
  return runNodeScript({ cwd: appDir, nodeArgs, script, args, timeoutMs: RUN_TIMEOUT_MS });
}

let written;
let server;
before(async () => {
  written = mkdtempSync(join(tmpdir(), "zom-ngff-zarr-"));
  await run([], "write.mjs", [written]);
  server = await startServer({ root: join(fixtures, "viewer"), mounts: { "/written/": written } });
});
after(async () => {
  await server?.close();
  if (written) rmSync(written, { recursive: true, force: true });
});

test("@fideus-labs/ngff-zarr reads what it writes, and ome-zarr-py's images, the same through zom/zarrita", async () => {
  const base = `${server.url}/`;
  const theirs = JSON.parse(await run([], "read.mjs", [base, ...IMAGES]));
  const ours = JSON.parse(await run(["--import", alias], "read.mjs", [base, ...IMAGES]));
  assert.match(theirs.zarrita, /node_modules\/zarrita\//, "the first run reads through zarrita");
  assert.match(ours.zarrita, /pkg\/zarrita\/node\.js$/, "the second run reads through zom/zarrita");
  assert.deepEqual(Object.keys(theirs.images), IMAGES);
  for (const image of IMAGES) {
    assert.deepEqual(ours.images[image], theirs.images[image], image);
    for (const level of theirs.images[image].levels) assert.equal(level.get, level.zarrGet, `${image}: get and zarrGet agree`);
  }
  // The written images: 5-d ones too, every level read.
  assert.deepEqual(theirs.images[WRITTEN[1]].levels[0].dims, ["t", "c", "z", "y", "x"]);
  assert.equal(theirs.images[WRITTEN[3]].version, "0.5");
});
