// The codec parts (ARCHITECTURE.md, "Parts"): numcodecs lzma, bz2, pcodec and zfpy decode in small
// WebAssembly parts loaded the first time an array needs one, on the calling thread and in
// the decode workers, inside shards too, with zarr-python's values (tests/fixtures/current);
// a bad chunk is a CodecError with its path and key wherever it decodes; the synchronous
// ChunkDecoder says how to load a part it lacks. Each test file runs in a process of its
// own: nothing has loaded a part when the first test starts.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { decodeChunk, FetchStore, loadCodecParts, openArray, slice } from "zom";
import { poolOf } from "../../pkg/pool/pool.js";
import { withServer } from "../server/testing.mjs";
import { fixtures, readJson } from "./helpers.mjs";
import { elements, reference, sameValues } from "./hierarchy-common.mjs";

const current = join(fixtures, "current", "v3");
const ARRAYS = [
  "lzma_sharded",
  "bz2_sharded",
  "pcodec_f64",
  "pcodec_i32_2d",
  "pcodec_sharded_u16",
  "zfpy_f32_rate_2d",
  "zfpy_f64_precision_3d",
  "zfpy_f32_4d",
  "zfpy_sharded_f32",
];

test("a ChunkDecoder of a part not loaded says how to load it; loaded, it decodes", async () => {
  const meta = readFileSync(join(current, "pcodec_f64", "zarr.json"), "utf8");
  const chunk = readFileSync(join(current, "pcodec_f64", "c", "0"));
  assert.throws(
    () => decodeChunk(meta, chunk, [0]),
    (e) => {
      assert.equal(e.code, "CodecError");
      assert.match(e.message, /zom's part "pcodec", which is not loaded on this thread.*loadCodecParts\(\["pcodec"\]\)/);
      return true;
    },
  );
  await loadCodecParts(["pcodec"]);
  const want = readJson("current", "v3.values.json").pcodec_f64.values.slice(0, 8);
  sameValues(Array.from(decodeChunk(meta, chunk, [0]).data), want, "pcodec_f64 chunk 0");
  await assert.rejects(loadCodecParts(["zstd"]), (e) => e.code === "UnknownCodec" && /no codec part named "zstd"/.test(e.message));
});

test("lzma, bz2, pcodec and zfpy arrays (in shards too) read over HTTP on the calling thread and in the workers", () =>
  withServer({}, async (server) => {
    const expected = readJson("current", "v3.values.json");
    const pool = poolOf(2);
    const before = pool.decoded;
    for (const name of ARRAYS) {
      for (const workers of [0, 2]) {
        const arr = await openArray(new FetchStore(`${server.url}/current/v3`), name, { workers });
        for (const sharedOutput of [true, false]) {
          const { data, shape } = await arr.get(undefined, { sharedOutput });
          assert.deepEqual(shape, expected[name].shape, name);
          sameValues(elements(data, arr.dtype), expected[name].values, `${name} workers ${workers}`);
        }
        const { values, shape } = expected[name];
        const tile = await arr.getChunk(arr.chunks.map(() => 0));
        const want = reference(
          values,
          shape,
          arr.chunks.map((c, i) => slice(0, Math.min(c, shape[i]))),
        );
        sameValues(elements(tile.data, arr.dtype), want.values, `${name} chunk, workers ${workers}`);
        arr.free();
      }
    }
    assert.equal(pool.failed, false);
    assert.ok(pool.decoded - before >= ARRAYS.length, `the workers decoded ${pool.decoded - before} chunks`);
  }));

test("a corrupt chunk of a part's codec is a CodecError with its path and key, in the workers and here", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-parts-"));
  try {
    for (const name of ["lzma_sharded", "pcodec_f64", "zfpy_f64_accuracy"])
      cpSync(join(current, name), join(dir, name), { recursive: true });
    writeFileSync(join(dir, "zarr.json"), readFileSync(join(current, "..", "v3", "zarr.json")));
    const corrupt = (file, at) => {
      const bytes = readFileSync(file);
      for (let i = at; i < at + 8 && i < bytes.length; i++) bytes[i] ^= 0x5a;
      writeFileSync(file, bytes);
    };
    corrupt(join(dir, "lzma_sharded", "c", "0"), 20);
    corrupt(join(dir, "pcodec_f64", "c", "1"), 12);
    corrupt(join(dir, "zfpy_f64_accuracy", "c", "1"), 0);
    await withServer({ root: dir }, async (server) => {
      const store = new FetchStore(server.url);
      for (const [path, key, codec] of [
        ["lzma_sharded", "lzma_sharded/c/0", /numcodecs\.lzma: /],
        ["pcodec_f64", "pcodec_f64/c/1", /numcodecs\.pcodec: /],
        ["zfpy_f64_accuracy", "zfpy_f64_accuracy/c/1", /numcodecs\.zfpy: .*magic/],
      ]) {
        for (const workers of [2, 0]) {
          const arr = await openArray(store, path, { workers });
          await assert.rejects(arr.get(), (e) => {
            assert.equal(e.name, "ZomError");
            assert.deepEqual([e.code, e.path, e.key], ["CodecError", path, key], e.message);
            assert.match(e.message, codec);
            return true;
          });
          arr.free();
        }
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
