// Chunk decoding through the built package: every chunk of every fixture array decodes (edge
// chunks cut, missing ones filled) to the values zarr-python reads, as the JS values docs/js-api.md's
// table lists; corrupt chunks throw ZomErrors and leave the instance working. The codec parts
// (lzma, bz2, pcodec) are loaded first, as a ChunkDecoder's caller must.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ChunkDecoder, decodeChunk, isZomError, loadCodecParts } from "zom";
import { fromDocuments } from "zom/validate";
import { fixtures, readDocuments, readJson } from "./helpers.mjs";
import { elements, gridCoords, sameValues } from "./hierarchy-common.mjs";

const nodeAt = (zom, path) => path.split("/").reduce((node, name) => node.members[name], zom);

/** Reads a whole fixture array chunk by chunk into generate.py's encoding. */
function readArray(dir, zom, path) {
  const meta = nodeAt(zom, path);
  const decoder = new ChunkDecoder(meta, path);
  const shape = decoder.shape;
  const out = new Array(shape.reduce((a, b) => a * b, 1)).fill(null);
  const dataType = decoder.dataType;
  for (const coords of gridCoords(decoder.gridShape)) {
    const file = join(dir, decoder.chunkKey(coords));
    const bytes = existsSync(file) ? readFileSync(file) : null;
    const { data, shape: regionShape } = decoder.decode(bytes, coords);
    const values = elements(data, dataType);
    assert.equal(
      values.length,
      regionShape.reduce((a, b) => a * b, 1),
      `${path} ${coords}`,
    );
    const start = coords.map((c, d) => c * decoder.chunkShape[d]);
    values.forEach((v, k) => {
      let rem = k;
      let index = 0;
      const local = [];
      for (let d = regionShape.length - 1; d >= 0; d--) {
        local[d] = rem % regionShape[d];
        rem = Math.floor(rem / regionShape[d]);
      }
      for (let d = 0; d < shape.length; d++) index = index * shape[d] + start[d] + local[d];
      out[index] = v;
    });
  }
  decoder.free();
  return out;
}

// [fixture directory, its values file]: zarr2 and zarr2-nested were written by zarr-python 2.18.
for (const [name, values] of [
  ["v3", "v3"],
  ["v2", "v2"],
  ["v2-numcodecs", "v2-numcodecs"],
  ["sample", "sample"],
  ["zarr2", "zarr2"],
  ["zarr2-nested", "zarr2"],
]) {
  test(`every ${name} fixture array decodes to its writer's values`, async () => {
    await loadCodecParts();
    const zom = fromDocuments(readDocuments(name));
    const expected = readJson("expected", `${values}.values.json`);
    const paths = Object.keys(expected);
    assert.ok(paths.length > 5);
    for (const path of paths) {
      const got = readArray(join(fixtures, name), zom, path);
      sameValues(got, expected[path].values, `${name}/${path}`);
    }
  });
}

test("numeric chunks come as the matching TypedArray", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const kinds = {
    dtype_int8: Int8Array,
    dtype_uint16: Uint16Array,
    dtype_int64: BigInt64Array,
    dtype_uint64: BigUint64Array,
    dtype_float32: Float32Array,
    dtype_float64: Float64Array,
    dtype_complex64: Float32Array,
    dtype_complex128: Float64Array,
    dtype_bool: Uint8Array,
    dtype_datetime_ns: BigInt64Array,
  };
  for (const [path, Kind] of Object.entries(kinds)) {
    const { data, shape } = decodeChunk(nodeAt(zom, path), null, new Array(nodeAt(zom, path).shape.length).fill(0));
    assert.ok(data instanceof Kind, `${path}: ${data.constructor.name}`);
    const n = shape.reduce((a, b) => a * b, 1);
    assert.equal(data.length, path.startsWith("dtype_complex") ? 2 * n : n, path);
  }
  const f16 = decodeChunk(nodeAt(zom, "dtype_float16"), null, [0]).data;
  assert.ok(f16 instanceof (globalThis.Float16Array ?? Float32Array));
  assert.ok(Number.isNaN(f16[0]), "float16 fill NaN");
});

test("vlen-array elements come as TypedArrays of the codec's dtype, categorize as strings", () => {
  const zom = fromDocuments(readDocuments("v2-numcodecs"));
  const kinds = {
    vlen_array_int32: Int32Array,
    vlen_array_float64_2d: Float64Array,
    vlen_array_int16_be: Int16Array,
    vlen_array_complex128: Float64Array,
  };
  for (const [path, Kind] of Object.entries(kinds)) {
    const decoder = new ChunkDecoder(nodeAt(zom, path), path);
    assert.equal(decoder.dataType.name, "numcodecs.vlen-array", path);
    const coords = new Array(decoder.shape.length).fill(0);
    const { data } = decoder.decode(readFileSync(join(fixtures, "v2-numcodecs", decoder.chunkKey(coords))), coords);
    assert.ok(Array.isArray(data) && data.every((a) => a instanceof Kind), `${path}: ${data.map((a) => a.constructor.name)}`);
    // a missing chunk: empty arrays of the same kind
    const missing = decoder.decode(null, coords).data;
    assert.ok(
      missing.every((a) => a instanceof Kind && a.length === 0),
      path,
    );
    decoder.free();
  }
  const be = decodeChunk(
    nodeAt(zom, "vlen_array_int16_be"),
    readFileSync(join(fixtures, "v2-numcodecs", "vlen_array_int16_be", "0")),
    [0],
  ).data;
  assert.deepEqual(
    be.map((a) => Array.from(a)),
    [[1, -2, 300], [], [-32768, 32767], [7]],
  );
  const words = decodeChunk(
    nodeAt(zom, "categorize_strings_u2"),
    readFileSync(join(fixtures, "v2-numcodecs", "categorize_strings_u2", "0")),
    [0],
  ).data;
  assert.deepEqual(words, ["banana", "apple", "", "cherry", "dürian ✓"]);
});

test("a caller's buffer receives the values", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const meta = nodeAt(zom, "dtype_int32");
  const file = join(fixtures, "v3", "dtype_int32", "c", "0");
  const out = new Int32Array(2);
  const { data } = decodeChunk(meta, readFileSync(file), [0], { out });
  assert.equal(data, out);
  assert.deepEqual(Array.from(out), Array.from(decodeChunk(meta, readFileSync(file), [0]).data));
  assert.throws(() => decodeChunk(meta, readFileSync(file), [0], { out: new Int32Array(3) }), { code: "InvalidArgument" });
});

test("a view into a larger (shared) buffer receives the values and nothing around them changes", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const meta = nodeAt(zom, "dtype_int32");
  const file = join(fixtures, "v3", "dtype_int32", "c", "0");
  const expected = decodeChunk(meta, readFileSync(file), [0]).data;
  for (const Buffer of [ArrayBuffer, SharedArrayBuffer]) {
    const whole = new Int32Array(new Buffer((expected.length + 3) * 4)).fill(-7);
    const out = whole.subarray(2, 2 + expected.length);
    const { data } = decodeChunk(meta, readFileSync(file), [0], { out });
    assert.equal(data, out, Buffer.name);
    assert.deepEqual(Array.from(out), Array.from(expected), Buffer.name);
    assert.deepEqual([whole[0], whole[1], whole[whole.length - 1]], [-7, -7, -7], Buffer.name);
  }
});

test("an unknown codec is refused when the array is opened, naming it and the path", () => {
  const zom = fromDocuments(readDocuments("v3"));
  const meta = structuredClone(nodeAt(zom, "dtype_int32"));
  meta.codecs.push({ name: "example.fancy" });
  assert.throws(
    () => new ChunkDecoder(meta, "x/y"),
    (e) => {
      assert.ok(isZomError(e));
      assert.equal(e.code, "UnknownCodec");
      assert.equal(e.path, "x/y");
      assert.match(e.message, /example\.fancy/);
      return true;
    },
  );
});

test("corrupt chunks throw ZomErrors and the instance keeps working", () => {
  const cases = [];
  for (const name of ["v3", "v2", "v2-numcodecs"]) {
    const zom = fromDocuments(readDocuments(name));
    for (const path of Object.keys(readJson("expected", `${name}.values.json`))) {
      const decoder = new ChunkDecoder(nodeAt(zom, path), path);
      const coords = new Array(decoder.shape.length).fill(0);
      const file = join(fixtures, name, decoder.chunkKey(coords));
      if (existsSync(file)) cases.push({ decoder, coords, bytes: readFileSync(file), path: `${name}/${path}` });
    }
  }
  assert.ok(cases.length > 50, `${cases.length} chunks`);
  let thrown = 0;
  for (const { decoder, coords, bytes, path } of cases) {
    const variants = [
      bytes.subarray(0, bytes.length >> 1),
      bytes.subarray(0, 1),
      new Uint8Array(0),
      Buffer.concat([bytes, Buffer.from([1, 2, 3, 4])]),
      ...[0, bytes.length >> 2, bytes.length >> 1, bytes.length - 1].map((at) => {
        const flipped = Buffer.from(bytes);
        flipped[at] ^= 0x40;
        return flipped;
      }),
    ];
    for (const variant of variants) {
      try {
        decoder.decode(variant, coords);
      } catch (e) {
        assert.ok(isZomError(e), `${path}: ${e}`);
        assert.ok(["CodecError", "ChecksumMismatch", "LimitExceeded"].includes(e.code), `${path}: ${e.code} ${e.message}`);
        thrown++;
      }
    }
  }
  assert.ok(thrown > cases.length, `${thrown} corrupt variants refused`);
  // A panic would have killed the instance: a good chunk still decodes in it.
  const { decoder, coords, bytes } = cases[0];
  assert.ok(decoder.decode(bytes, coords).data.length > 0);
  for (const c of cases) c.decoder.free();
});

test("zstd failures say what went wrong in WebAssembly too (its own texts are stripped there)", () => {
  const meta = JSON.parse(readFileSync(join(fixtures, "v3", "dtype_int32", "zarr.json"), "utf8"));
  for (const [bytes, message] of [
    [new TextEncoder().encode("not zstd at all"), /zstd: not a zstd frame \(unknown frame descriptor\)$/],
    [new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x08]), /zstd: truncated data/],
  ]) {
    assert.throws(
      () => decodeChunk(meta, bytes, [0]),
      (e) => {
        assert.ok(isZomError(e) && e.code === "CodecError", String(e));
        assert.match(e.message, message);
        assert.doesNotMatch(e.message, /stripped/);
        return true;
      },
    );
  }
});

test('zarr-python 2\'s object arrays with fill_value 0 open; missing strings read as "0", as zarr-python 2 (dtype=str) and 3 read them', async () => {
  const { openArray } = await import("zom");
  // The .zarray zarr-python 2.18.7 writes for zarr.open_array(shape=(3,), chunks=(3,), dtype=str).
  const zarray = {
    zarr_format: 2,
    shape: [3],
    chunks: [3],
    dtype: "|O",
    compressor: null,
    fill_value: 0,
    order: "C",
    filters: [{ id: "vlen-utf8" }],
    dimension_separator: ".",
  };
  const store = new Map([["/.zarray", new TextEncoder().encode(JSON.stringify(zarray))]]);
  const strings = await openArray(store);
  assert.deepEqual((await strings.get()).data, ["0", "0", "0"]);
  const bytes = await openArray(
    new Map([["/.zarray", new TextEncoder().encode(JSON.stringify({ ...zarray, filters: [{ id: "vlen-bytes" }] }))]]),
  );
  assert.deepEqual(
    (await bytes.get()).data.map((b) => new TextDecoder().decode(b)),
    ["0", "0", "0"],
  );
});
