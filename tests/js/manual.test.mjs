// The "zom/manual" entry: nothing works before init(); init from bytes, then the API works.
// (node --test runs each file in its own process, so this one starts with nothing loaded.)
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { ChunkDecoder, init, isInitialized, isZomError, open, version, ZomError } from "zom/manual";

const wasmUrl = new URL("../../pkg/zom_wasm_bg.wasm", import.meta.url);

test("before init every function throws ZomError(InvalidArgument)", () => {
  assert.equal(isInitialized(), false);
  const meta = {
    zarr_format: 3,
    node_type: "array",
    shape: [1],
    data_type: "uint8",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
    chunk_key_encoding: { name: "default" },
    codecs: [{ name: "bytes" }],
    fill_value: 0,
  };
  for (const call of [() => version(), () => new ChunkDecoder(meta)]) {
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
  const group = await open(
    new Map([["zarr.json", new TextEncoder().encode('{"zarr_format": 3, "node_type": "group", "attributes": {"a": 1}}')]]),
  );
  assert.equal(group.kind, "group");
  assert.deepEqual(group.attributes, { a: 1 });
  await init("/nonexistent.wasm"); // already loaded: the source is ignored
  assert.equal(isInitialized(), true);
});
