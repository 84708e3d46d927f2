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
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../server/server.mjs";
import { fixtures, repoRoot, runNodeScript } from "./helpers.mjs";

const vivDir = join(repoRoot, "tests", "zarrita-suite", "viv");
const IMAGES = ["ome-0.4-image/", "ome-0.5-sharded/", "ome-0.4-plate/A/1/0/", "ome-0.4-plate/B/2/0/"];
const RUN_TIMEOUT_MS = 120_000;

/** read.mjs's JSON line, with the server's request count; rejects on failure or timeout. */
async function read(server, nodeArgs) {
  server.resetStats();
  const line = await runNodeScript({
    cwd: vivDir,
    nodeArgs,
    script: "read.mjs",
    args: [`${server.url}/`, ...IMAGES],
    timeoutMs: RUN_TIMEOUT_MS,
    quiet: true,
  });
  return { ...JSON.parse(line), requests: server.stats.requests };
}

let server;
let viaZarrita;
let viaZom;

before(async () => {
  server = await startServer({ root: join(fixtures, "viewer") });
  viaZarrita = await read(server, []);
  viaZom = await read(server, ["--import", "./alias.mjs"]);
  const vivZarrita = JSON.parse(
    readFileSync(
      join(repoRoot, "tests", "zarrita-suite", "node_modules", "@vivjs", "loaders", "node_modules", "zarrita", "package.json"),
      "utf8",
    ),
  );
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
