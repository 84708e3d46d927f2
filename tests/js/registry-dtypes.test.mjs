// The zarr-extensions registry's numeric data types in JS: values widened to the TypedArrays
// JS has (Int8Array/Uint8Array for int2/int4, Float32Array for bfloat16 and the float8, float6
// and float4 families, interleaved Float32Array for their complex forms), the same on the
// calling thread, in the decode workers and from the chunk cache, missing chunks as the fill
// value, and the stored bits on request (`storedBits`); through zom/zarrita too (zarrita 0.7.5
// reads none of them).
//
//   node --test tests/js/registry-dtypes.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChunkCache, FetchStore, openArray } from "zom";
import * as zz from "zom/zarrita";
import { withServer } from "../server/testing.mjs";
import { readJson } from "./helpers.mjs";

const encoder = new TextEncoder();

/** A one-chunk array of `dataType` (4 elements) holding `chunk`, or none when `chunk` is null. */
function store(dataType, fill, chunk) {
  const meta = {
    zarr_format: 3,
    node_type: "array",
    shape: [4],
    data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
    chunk_key_encoding: { name: "default" },
    fill_value: fill,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  };
  const entries = [["zarr.json", encoder.encode(JSON.stringify(meta))]];
  if (chunk !== null) entries.push(["c/0", new Uint8Array(chunk)]);
  return new Map(entries);
}

const CASES = [
  // [data type, fill, stored bytes, widened values, TypedArray, fill value widened]
  ["float8_e4m3", "NaN", [0x38, 0x7c, 0x77, 0x80], [1, NaN, 240, -0], Float32Array, NaN],
  ["float8_e5m2fnuz", -2, [0x40, 0x80, 0x7f, 0x00], [1, NaN, 57344, 0], Float32Array, -2],
  ["float4_e2m1fn", 6, [0x07, 0xf9, 0x0f, 0x02], [6, -0.5, -6, 1], Float32Array, 6],
  ["bfloat16", 1, [0x80, 0x3f, 0x49, 0xc0, 0x80, 0x7f, 0x01, 0x00], [1, -3.140625, Infinity, 9.183549615799121e-41], Float32Array, 1],
  ["int4", -8, [0x0f, 0x07, 0xf8, 0x58], [-1, 7, -8, -8], Int8Array, -8],
  ["uint2", 3, [0xff, 0x01, 0x02, 0xfc], [3, 1, 2, 0], Uint8Array, 3],
];

test("registry data types read widened, in the workers and from the cache too, with their fill values", async () => {
  const cache = new ChunkCache({ maxBytes: 1 << 20 });
  for (const [dataType, fill, bytes, want, View, fillWant] of CASES) {
    const arr = await openArray(store(dataType, fill, bytes), "", { cache });
    for (const workers of [0, 2]) {
      for (const round of [1, 2]) {
        const { data, shape } = await arr.get(undefined, { workers });
        assert.ok(data instanceof View, `${dataType}: ${data.constructor.name}`);
        assert.deepEqual(shape, [4]);
        assert.deepEqual(Array.from(data), want, `${dataType} (workers ${workers}, round ${round})`);
      }
    }
    const tile = await arr.getChunk([0], { workers: 0, cache: null });
    assert.deepEqual(Array.from(tile.data), want, `${dataType} getChunk`);
    const missing = await openArray(store(dataType, fill, null));
    for (const workers of [0, 2]) {
      const { data } = await missing.get(undefined, { workers });
      assert.deepEqual(Array.from(data), Array(4).fill(fillWant), `${dataType} fill (workers ${workers})`);
    }
  }
});

test("complex forms are interleaved Float32Arrays; storedBits gives the bits as stored", async () => {
  const arr = await openArray(store("complex_float8_e4m3", [1, "NaN"], [0x38, 0xb8, 0x00, 0x77, 0x40, 0x40, 0x7c, 0x00]));
  const { data } = await arr.get(undefined, { workers: 0 });
  assert.ok(data instanceof Float32Array);
  assert.deepEqual(Array.from(data), [1, -1, 0, 240, 2, 2, NaN, 0]);
  for (const workers of [0, 2]) {
    const bits = await arr.get(undefined, { workers, storedBits: true });
    assert.ok(bits.data instanceof Uint8Array, bits.data.constructor.name);
    assert.deepEqual(Array.from(bits.data), [0x38, 0xb8, 0x00, 0x77, 0x40, 0x40, 0x7c, 0x00], `workers ${workers}`);
  }
  const bf16 = await openArray(store("bfloat16", "0x7fc1", null));
  const raw = await bf16.get(undefined, { storedBits: true, workers: 0 });
  assert.ok(raw.data instanceof Uint16Array);
  assert.deepEqual(Array.from(raw.data), [0x7fc1, 0x7fc1, 0x7fc1, 0x7fc1], "a NaN payload kept in the fill value's bits");
  const int4 = await openArray(store("int4", 0, [0x0f, 0x07, 0xf8, 0x58]));
  assert.deepEqual(
    Array.from((await int4.get(undefined, { storedBits: true, workers: 0 })).data),
    [0x0f, 0x07, 0xf8, 0x58],
    "upper bits as stored",
  );
  // Core types are unaffected.
  const f32 = await openArray(store("float32", 0, new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer)));
  assert.ok((await f32.get(undefined, { storedBits: true })).data instanceof Float32Array);
});

test("through zom/zarrita: the same widened values, get and getChunk", async () => {
  for (const [dataType, fill, bytes, want, View, fillWant] of CASES) {
    const map = new Map([...store(dataType, fill, bytes)].map(([k, v]) => [`/${k}`, v]));
    const arr = await zz.open(map, { kind: "array" });
    assert.equal(arr.dtype, dataType);
    const all = await zz.get(arr);
    assert.ok(all.data instanceof View, `${dataType}: ${all.data.constructor.name}`);
    assert.deepEqual(Array.from(all.data), want, `${dataType} get`);
    assert.deepEqual(Array.from((await arr.getChunk([0])).data), want, `${dataType} getChunk`);
    const empty = await zz.open(new Map([...store(dataType, fill, null)].map(([k, v]) => [`/${k}`, v])), { kind: "array" });
    assert.deepEqual(Array.from((await zz.get(empty)).data), Array(4).fill(fillWant), `${dataType} fill`);
  }
});

test("arrays zarrs wrote (tests/fixtures/registry) over HTTP: values and stored bits, on the calling thread and in workers", () =>
  withServer({}, async (server) => {
    const expected = readJson("registry", "v3.values.json");
    const decode = (v) => (v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v);
    for (const [name, entry] of Object.entries(expected)) {
      const arr = await openArray(new FetchStore(`${server.url}/registry/v3`), name);
      const want = entry.values.flat().map(decode);
      for (const workers of [0, 2]) {
        const { data, shape } = await arr.get(undefined, { workers });
        assert.deepEqual(shape, entry.shape, name);
        assert.deepEqual(Array.from(data), want, `${name} (workers ${workers})`);
        const bits = await arr.get(undefined, { workers, storedBits: true });
        assert.deepEqual(Array.from(bits.data), entry.bits.flat(), `${name} stored bits (workers ${workers})`);
      }
      arr.free();
    }
  }));
