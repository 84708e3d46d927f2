// registerCodec: a codec zom does not build in (imagecodecs' LERC, decoded by Esri's `lerc`
// package through examples/codecs/lerc.mjs), on arrays zarr-python 3 wrote with it
// (tests/fixtures/generate_registered.py), read over the test HTTP server: refused before it
// is registered, equal to zarr-python's values after, decoded by the decode workers (which
// import the module themselves) and on the calling thread, known to validation, refused where
// it cannot stand, and forgotten again.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { closeWorkers, FetchStore, openArray, registerCodec, slice, unregisterCodec, workerStats } from "zom";
import { validateDocument } from "zom/validate";
import { poolOf } from "../../pkg/pool/pool.js";
import { withServer } from "../server/testing.mjs";
import { fixtures, readJson, repoRoot } from "./helpers.mjs";

const PROBE = pathToFileURL(join(repoRoot, "tests", "js", "child", "lerc-probe.mjs"));
const ROOT = join(fixtures, "registered");
const ARRAYS = {
  uint16: { shape: [64, 50], type: Uint16Array },
  float32: { shape: [40, 30], type: Float32Array },
};

function expected(name) {
  const bytes = readFileSync(join(ROOT, `${name}.expected`));
  const { type } = ARRAYS[name];
  return new type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

test("a LERC array is refused until its codec is registered", () =>
  withServer({ root: ROOT }, async (server) => {
    const store = new FetchStore(`${server.url}/lerc.zarr`);
    const array = await openArray(store, "uint16");
    await assert.rejects(array.get(), (e) => e.code === "UnknownCodec" && /imagecodecs_lerc/.test(e.message));
  }));

test("registered, LERC arrays read equal to zarr-python's values, in workers and on this thread", () =>
  withServer({ root: ROOT }, async (server) => {
    registerCodec({ name: "imagecodecs_lerc", module: PROBE });
    try {
      const store = new FetchStore(`${server.url}/lerc.zarr`);
      for (const [name, { shape }] of Object.entries(ARRAYS)) {
        const array = await openArray(store, name);
        const want = expected(name);
        const before = workerStats().decoded;
        const importsBefore = globalThis.zomLercImports;
        await poolOf(2).ready(); // until the workers are up, codecs run on this thread
        const inWorkers = await array.get(null, { workers: 2 });
        assert.deepEqual(inWorkers.shape, shape);
        assert.deepEqual(inWorkers.data, want, `${name} with 2 workers`);
        assert.ok(workerStats().decoded > before, "the workers did the work");
        assert.equal(globalThis.zomLercImports, importsBefore, "the workers imported the codec, not this thread");

        const here = await array.get(null, { workers: 0 });
        assert.deepEqual(here.data, want, `${name} on the calling thread`);
        assert.equal(globalThis.zomLercImports, 1);

        // A region across chunk edges.
        const part = await array.get([slice(5, 37), slice(3, 29)], { workers: 0 });
        const [, cols] = shape;
        const region = [];
        for (let i = 5; i < 37; i += 1) for (let j = 3; j < 29; j += 1) region.push(want[i * cols + j]);
        assert.deepEqual(Array.from(part.data), region, `${name} region`);
      }
    } finally {
      unregisterCodec("imagecodecs_lerc");
      await closeWorkers();
    }
  }));

test("validation knows a registered codec's id", () => {
  const zarray = JSON.parse(readFileSync(join(ROOT, "lerc.zarr", "uint16", ".zarray"), "utf8"));
  const unknown = (r) => r.problems.filter((p) => /not one zom knows/.test(p.message));
  assert.equal(unknown(validateDocument(zarray, { strict: true })).length, 1);
  registerCodec({ name: ["imagecodecs_lerc"], module: PROBE });
  try {
    const report = validateDocument(zarray, { strict: true });
    assert.deepEqual(unknown(report), []);
    assert.equal(report.valid, true);
  } finally {
    unregisterCodec("imagecodecs_lerc");
  }
});

test("a registered codec must come after zom's own codecs", () =>
  withServer({ root: ROOT }, async (server) => {
    registerCodec({ name: "imagecodecs_lerc", module: PROBE });
    try {
      const zarray = JSON.parse(readFileSync(join(ROOT, "lerc.zarr", "uint16", ".zarray"), "utf8"));
      zarray.filters = [zarray.compressor];
      zarray.compressor = { id: "zlib", level: 1 };
      const store = new Map([["/.zarray", new TextEncoder().encode(JSON.stringify(zarray))]]);
      await assert.rejects(
        openArray(store, "", { format: 2 }).then((a) => a.get()),
        (e) => e.code === "UnknownCodec" && /must come after every codec zom decodes/.test(e.message),
      );
    } finally {
      unregisterCodec("imagecodecs_lerc");
    }
    assert.equal(server.url.startsWith("http://127.0.0.1"), true);
  }));

test("a registered codec replaces a built-in one of the same name", () =>
  withServer({}, async (server) => {
    const module = pathToFileURL(join(repoRoot, "tests", "js", "child", "gzip-codec.mjs"));
    const want = readJson("expected", "v3.values.json").codec_gzip;
    registerCodec({ name: "gzip", module });
    try {
      const array = await openArray(new FetchStore(`${server.url}/v3`), "codec_gzip");
      const { data, shape } = await array.get(null, { workers: 0 });
      assert.deepEqual(shape, want.shape);
      assert.deepEqual(Array.from(data), want.values);
      assert.ok(globalThis.zomGzipCalls > 0, "the registered gzip decoded the chunks");
    } finally {
      unregisterCodec("gzip");
    }
    const calls = globalThis.zomGzipCalls;
    const array = await openArray(new FetchStore(`${server.url}/v3`), "codec_gzip");
    await array.get(null, { workers: 0 });
    assert.equal(globalThis.zomGzipCalls, calls, "unregistered, zom's own gzip decodes again");
  }));

test("registerCodec refuses what is not a codec registration", () => {
  assert.throws(
    () => registerCodec({ name: "", module: PROBE }),
    (e) => e.code === "InvalidArgument",
  );
  assert.throws(
    () => registerCodec({ name: "x", module: "" }),
    (e) => e.code === "InvalidArgument",
  );
  assert.equal(unregisterCodec("never-registered"), false);
});
