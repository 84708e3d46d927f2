// A real viewer's loader on zom: viv's zarr loader (@vivjs/loaders 0.21.0, pinned in
// tests/zarrita-suite/package-lock.json, built on zarrita 0.5.4 — what viv, and through it
// Vitessce, ship) reads OME-Zarr images written by ome-zarr-py (tests/fixtures/viewer/: a 0.4
// multiscale, a 0.5 sharded one, a plate's field) over HTTP twice: as published, and with
// "zarrita" sent to zom/zarrita by Node's resolve hook (tests/zarrita-suite/viv/alias.mjs, the
// counterpart of a bundler alias). Every tile of every level and channel (getTile) and every
// level whole (getRaster) must come back the same, with the same shapes, dtypes and labels.
//
//   node --test --test-reporter=spec tests/js/viv-loaders.test.mjs
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../server/server.mjs";
import { fixtures, repoRoot } from "./helpers.mjs";

const vivDir = join(repoRoot, "tests", "zarrita-suite", "viv");
const IMAGES = ["ome-0.4-image/", "ome-0.5-sharded/", "ome-0.4-plate/A/1/0/", "ome-0.4-plate/B/2/0/"];
const RUN_TIMEOUT_MS = 120_000;

/** read.mjs's JSON line, with the server's request count; rejects on failure or timeout. */
function read(server, nodeArgs) {
  server.resetStats();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, "read.mjs", `${server.url}/`, ...IMAGES], { cwd: vivDir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return fail(new Error(`read.mjs ${nodeArgs.join(" ")} failed (${signal ?? `exit ${code}`}):\n${stderr.slice(0, 4000)}`));
      if (stderr.trim() !== "") return fail(new Error(`read.mjs ${nodeArgs.join(" ")} printed to stderr:\n${stderr.slice(0, 4000)}`));
      done({ ...JSON.parse(stdout.trim().split("\n").at(-1)), requests: server.stats.requests });
    });
  });
}

let server;
let viaZarrita;
let viaZom;

before(async () => {
  server = await startServer({ root: join(fixtures, "viewer") });
  viaZarrita = await read(server, []);
  viaZom = await read(server, ["--import", "./alias.mjs"]);
  const vivZarrita = JSON.parse(readFileSync(join(repoRoot, "tests", "zarrita-suite", "node_modules", "@vivjs", "loaders", "node_modules", "zarrita", "package.json"), "utf8"));
  console.log(
    `viv's loader, ${IMAGES.length} images, every tile: zarrita ${vivZarrita.version} ${viaZarrita.ms.toFixed(0)} ms, ${viaZarrita.requests} requests; ` +
      `zom/zarrita ${viaZom.ms.toFixed(0)} ms, ${viaZom.requests} requests`,
  );
});

after(() => server?.close());

test("the aliased run loaded zom/zarrita, the other zarrita", () => {
  assert.match(viaZom.zarrita, /\/pkg\/zarrita\/node\.js$/);
  assert.doesNotMatch(viaZarrita.zarrita, /\/pkg\/zarrita\//);
});

for (const image of IMAGES) {
  test(`${image}: the same levels, and every tile and raster the same, through zom/zarrita as through zarrita`, () => {
    const want = viaZarrita.images[image];
    const got = viaZom.images[image];
    assert.ok(want.levels.length >= 2, "a multiscale image");
    assert.equal(got.levels.length, want.levels.length, "levels");
    for (const [i, level] of want.levels.entries()) {
      const mine = got.levels[i];
      const { tiles: _t, rasters: _r, ...shape } = level;
      const { tiles: _mt, rasters: _mr, ...myShape } = mine;
      assert.deepEqual(myShape, shape, `level ${i}: shape, dtype, labels, tile size`);
      assert.deepEqual(mine.rasters, level.rasters, `level ${i}: getRaster per channel`);
      for (const [selection, tiles] of Object.entries(level.tiles)) {
        assert.ok(tiles.length > 0);
        assert.deepEqual(mine.tiles[selection], tiles, `level ${i}, selection ${selection}: getTile`);
      }
    }
  });
}
