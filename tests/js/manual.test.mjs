// The "zom/manual" entry: nothing works before init(); init from bytes, then the API works.
// (node --test runs each file in its own process, so this one starts with nothing loaded.)
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fromDocuments, init, isInitialized, isZomError, validateDocument, version, ZomError } from "zom/manual";

const wasmUrl = new URL("../../pkg/zom_wasm_bg.wasm", import.meta.url);

test("before init every function throws ZomError(InvalidArgument)", () => {
  assert.equal(isInitialized(), false);
  for (const call of [() => version(), () => validateDocument({}), () => fromDocuments(new Map())]) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof ZomError && isZomError(e));
      assert.equal(e.code, "InvalidArgument");
      assert.match(e.message, /init/);
      return true;
    });
  }
});

test("a failed init can be retried", async () => {
  await assert.rejects(init(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])));
  assert.equal(isInitialized(), false);
});

test("init from bytes, then the API works; init again is a no-op", async () => {
  const bytes = await readFile(wasmUrl);
  await init(bytes);
  assert.equal(isInitialized(), true);
  assert.match(version(), /^\d+\.\d+\.\d+/);
  const zom = fromDocuments({ "zarr.json": { zarr_format: 3, node_type: "group", attributes: {} } });
  assert.deepEqual(zom, { zarr_format: 3, node_type: "group", attributes: {}, members: {} });
  await init("/nonexistent.wasm"); // already loaded: the source is ignored
  assert.equal(isInitialized(), true);
});
