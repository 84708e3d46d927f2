// The zarr-extensions registry codecs zarrs writes (tests/fixtures/registry/codecs): zfp in
// every mode, on float and integer types, 1- to 4-D, in shards and after reshape; reshape in
// every form of its shape; bitround; packbits with bit ranges. zfp's decoder is a codec part
// loaded on first use: the synchronous decoder asks for it until it is loaded. Every array is
// read whole and chunk by chunk over HTTP, on the calling thread and in 2 decode workers, and
// every stored chunk decoded alone, with the generator's values. Each test file runs in a
// process of its own: nothing has loaded a part when the first test starts.
//
//   node --test tests/js/registry-codecs.test.mjs
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { decodeChunk, FetchStore, loadCodecParts, openArray, slice } from "zom";
import { poolOf } from "../../pkg/pool/pool.js";
import { withServer } from "../server/testing.mjs";
import { fixtures, readJson } from "./helpers.mjs";
import { elements, gridCoords, reference, sameValues } from "./hierarchy-common.mjs";

const dir = join(fixtures, "registry", "codecs");
const expected = readJson("registry", "codecs.values.json");
const NAMES = Object.keys(expected);

/** The expected values of the chunk of `chunkShape` at `coords`, cut to the array. */
function chunkValues(entry, chunkShape, coords) {
  const selection = coords.map((c, d) => slice(c * chunkShape[d], Math.min((c + 1) * chunkShape[d], entry.shape[d])));
  return reference(entry.values, entry.shape, selection);
}

test("zfp is loaded on first use: before, the synchronous decoder names the part; after, every stored chunk decodes alone", {
  timeout: 60_000,
}, async () => {
  const meta = readFileSync(join(dir, "zfp_f64_precision_3d", "zarr.json"), "utf8");
  const chunk = readFileSync(join(dir, "zfp_f64_precision_3d", "c", "0", "0", "0"));
  assert.throws(
    () => decodeChunk(meta, chunk, [0, 0, 0]),
    (e) => {
      assert.equal(e.code, "CodecError");
      assert.match(e.message, /zom's part "zfp", which is not loaded on this thread.*loadCodecParts\(\["zfp"\]\)/);
      return true;
    },
  );
  await loadCodecParts(["zfp"]);
  let decoded = 0;
  for (const name of NAMES) {
    const entry = expected[name];
    const text = readFileSync(join(dir, name, "zarr.json"), "utf8");
    const grid = entry.shape.map((s, d) => Math.ceil(s / entry.chunks[d]));
    for (const coords of gridCoords(grid)) {
      const file = join(dir, name, "c", ...coords.map(String));
      const unwritten = coords.every((c, d) => c === entry.unwritten_chunk[d]);
      assert.equal(existsSync(file), !unwritten, `${name} ${coords} stored`);
      const got = decodeChunk(text, unwritten ? null : readFileSync(file), coords);
      const want = chunkValues(entry, entry.chunks, coords);
      assert.deepEqual(got.shape, want.shape, `${name} ${coords}`);
      sameValues(elements(got.data, entry.data_type), want.values, `${name} chunk ${coords}`);
      decoded += 1;
    }
  }
  assert.ok(decoded > NAMES.length, `${decoded} chunks`);
});

test("every array over HTTP, whole and chunk by chunk, on the calling thread and in 2 workers", { timeout: 180_000 }, () =>
  withServer({}, async (server) => {
    const pool = poolOf(2);
    const before = pool.decoded;
    for (const name of NAMES) {
      const entry = expected[name];
      for (const workers of [0, 2]) {
        const arr = await openArray(new FetchStore(`${server.url}/registry/codecs`), name, { workers });
        try {
          const { data, shape } = await arr.get(undefined, { workers });
          assert.deepEqual(shape, entry.shape, name);
          sameValues(elements(data, arr.dtype), entry.values, `${name} (workers ${workers})`);
          // The read grid: inner chunks of a sharded array.
          const sizes = arr.chunkSizes();
          const chunkShape = arr.chunks;
          for (const coords of gridCoords(sizes.map((s) => s.length))) {
            const tile = await arr.getChunk(coords, { workers });
            const want = chunkValues(entry, chunkShape, coords);
            assert.deepEqual(tile.shape, want.shape, `${name} ${coords}`);
            sameValues(elements(tile.data, arr.dtype), want.values, `${name} chunk ${coords} (workers ${workers})`);
          }
        } finally {
          arr.free();
        }
      }
    }
    assert.equal(pool.failed, false);
    assert.ok(pool.decoded - before >= NAMES.length, `the workers decoded ${pool.decoded - before} chunks`);
  }),
);
