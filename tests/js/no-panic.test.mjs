// Proof that no input panics: every corrupt input this file can make goes through the JS API
// in ONE WebAssembly instance (this process loads "zom" once) — mutated chunks of every codec
// case (tests/fixtures/codec/cases.json) through ChunkDecoder; mutated fixture documents
// through validateDocument, fromDocuments, ChunkDecoder and openArray + get on a Map store;
// the limit cases (deep and large JSON, huge shapes and shard indexes, fill chunks of 2^28
// strings) — and each either succeeds or throws a ZomError. A panic would abort the instance
// (wasm-bindgen leaves it unusable), so a good chunk decoded at the end, in the same instance,
// with zarr-python's values, proves none happened.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ChunkDecoder, decodeChunk, getLimits, isZomError, openArray, setLimits } from "zom";
import { fromDocuments, parseJson, validateDocument, walk } from "zom/validate";
import { fixtures, readJson } from "./helpers.mjs";
import { elements, mapStore, sameValues } from "./hierarchy-common.mjs";

const CODES = new Set([
  "NotFound",
  "InvalidMetadata",
  "UnsupportedExtension",
  "UnknownCodec",
  "CodecError",
  "ChecksumMismatch",
  "InvalidSelection",
  "LimitExceeded",
  "InvalidArgument",
]);
const seen = new Map(); // code → count
let calls = 0;

/** Runs `fn`; it may return or throw a ZomError with a known code, nothing else. */
async function survive(what, fn) {
  calls += 1;
  try {
    await fn();
  } catch (e) {
    assert.ok(isZomError(e), `${what}: not a ZomError: ${e?.stack ?? e}`);
    assert.ok(CODES.has(e.code), `${what}: code ${e.code}`);
    seen.set(e.code, (seen.get(e.code) ?? 0) + 1);
  }
}

const b64 = (s) => new Uint8Array(Buffer.from(s, "base64"));
const utf8 = (s) => new TextEncoder().encode(s);

/** Truncations, bit flips and appended bytes of `bytes` (about 40 variants). */
function mutations(bytes) {
  const out = [];
  const n = bytes.length;
  for (const cut of [0, 1, 3, 4, 8, 16, 17, n >> 1, n - 4, n - 1]) if (cut >= 0 && cut < n) out.push(bytes.slice(0, cut));
  const step = Math.max(1, Math.floor(n / 12));
  for (let i = 0; i < n; i += step) {
    for (const mask of [0x01, 0x80, 0xff]) {
      const m = bytes.slice();
      m[i] ^= mask;
      out.push(m);
    }
  }
  out.push(new Uint8Array([...bytes, 0, 0, 0, 0]), new Uint8Array([...bytes, ...bytes]));
  // Lying headers: the first 16 bytes set to extremes.
  for (const fill of [0x00, 0xff, 0x7f]) {
    const m = bytes.slice();
    m.fill(fill, 0, Math.min(16, n));
    out.push(m);
  }
  return out;
}

/** Hostile values a metadata field is replaced with. */
const HOSTILE = [null, -1, 0, 2 ** 53, 1e308, "x", [], {}, [2 ** 53, 2 ** 53], new Array(40).fill(1)];

/** Copies of `doc` with one field (at depth ≤ 3) replaced by each hostile value, or removed. */
function* fieldMutations(doc) {
  const paths = [];
  const visit = (v, path) => {
    if (path.length > 0) paths.push(path);
    if (path.length < 3 && v !== null && typeof v === "object") {
      for (const k of Object.keys(v).slice(0, 12)) visit(v[k], [...path, k]);
    }
  };
  visit(doc, []);
  for (const path of paths) {
    for (const value of [...HOSTILE, undefined]) {
      const copy = structuredClone(doc);
      const parent = path.slice(0, -1).reduce((o, k) => o[k], copy);
      const last = path.at(-1);
      if (value === undefined) {
        if (Array.isArray(parent)) continue;
        delete parent[last];
      } else parent[last] = value;
      yield { what: `${path.join(".")}=${JSON.stringify(value)}`, doc: copy };
    }
  }
}

/** Every array of cases.json as `{meta, coords, bytes}` per chunk, plus v2 metadata for each compressor stream. */
function codecCases() {
  const cases = JSON.parse(readFileSync(join(fixtures, "codec", "cases.json"), "utf8"));
  const out = [];
  for (const a of cases.arrays) {
    for (const chunk of Object.values(a.chunks))
      out.push({ name: a.name, meta: a.metadata, coords: chunk.coords, bytes: b64(chunk.encoded) });
  }
  for (const s of cases.streams) {
    const dtype = s.typesize === 1 ? "|u1" : [2, 4, 8].includes(s.typesize) ? `<u${s.typesize}` : `|V${s.typesize}`;
    const meta = {
      zarr_format: 2,
      shape: [s.count],
      chunks: [s.count],
      dtype,
      fill_value: null,
      order: "C",
      filters: null,
      compressor: s.config,
    };
    out.push({ name: s.name, meta, coords: [0], bytes: b64(s.encoded) });
  }
  return out;
}

const hostileArray = (over) => ({
  zarr_format: 3,
  node_type: "array",
  shape: [4],
  data_type: "int32",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
  chunk_key_encoding: { name: "default" },
  fill_value: 0,
  codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  attributes: {},
  ...over,
});

test("no input panics: corrupt chunks, mutated documents and limit cases in one instance", { timeout: 600_000 }, async () => {
  const t0 = performance.now();
  // 1. Every codec case's chunks, mutated, through ChunkDecoder.
  const cases = codecCases();
  assert.ok(cases.length > 150, `${cases.length} codec chunks`);
  for (const { name, meta, coords, bytes } of cases) {
    let decoder;
    await survive(`${name} open`, () => (decoder = new ChunkDecoder(meta, "case")));
    if (decoder === undefined) continue;
    await survive(`${name} intact`, () => decoder.decode(bytes, coords));
    for (const m of mutations(bytes)) await survive(`${name} mutated`, () => decoder.decode(m, coords));
    decoder.free();
  }

  const t1 = performance.now();
  // 2. Every fixture document, mutated as bytes and field by field.
  for (const root of ["v3", "v2", "sample"]) {
    const store = mapStore(root);
    for (const [key, bytes] of store) {
      if (!/(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/.test(key)) continue;
      const rel = key.slice(1);
      const path = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
      for (const m of mutations(bytes)) {
        await survive(`${root}/${rel} bytes`, () => validateDocument(m, { key: rel }));
        await survive(`${root}/${rel} bytes`, () => fromDocuments(new Map([[rel, m]])));
      }
      const doc = JSON.parse(new TextDecoder().decode(bytes));
      const isArray = doc.node_type === "array" || rel.endsWith(".zarray");
      for (const { what, doc: mutated } of fieldMutations(doc)) {
        const text = JSON.stringify(mutated);
        await survive(`${root}/${rel} ${what}`, () => validateDocument(text, { key: rel, strict: true }));
        await survive(`${root}/${rel} ${what}`, () => fromDocuments(new Map([[rel, text]])));
        if (!isArray) continue;
        const meta = rel.endsWith(".zarray") ? { ...mutated, attributes: {} } : mutated;
        await survive(`${root}/${rel} ${what} decoder`, () => {
          const decoder = new ChunkDecoder(meta, path);
          try {
            const coords = decoder.shape.map(() => 0);
            decoder.decode(null, coords);
            const chunk = store.get(`/${decoder.chunkKey(coords)}`);
            if (chunk) decoder.decode(chunk, coords);
          } finally {
            decoder.free();
          }
        });
        // open + get through a store that answers the mutated document for its key.
        const mutatedBytes = utf8(text);
        const hostile = { get: (k) => (k === key ? mutatedBytes : store.get(k)) };
        await survive(`${root}/${rel} ${what} get`, async () => {
          const arr = await openArray(hostile, path);
          await arr.get();
        });
      }
    }
  }

  const t2 = performance.now();
  // 3. The limit cases.
  const deep = (n) => "[".repeat(n) + "]".repeat(n);
  await survive("deep JSON", () => parseJson(deep(100_000)));
  await survive("deep JSON", () => validateDocument(deep(100_000)));
  await survive("deep JSON", () => fromDocuments(new Map([["zarr.json", deep(100_000)]])));
  await survive("deep attributes", () =>
    fromDocuments(new Map([["zarr.json", `{"zarr_format": 3, "node_type": "group", "attributes": ${deep(5000)}}`]])),
  );
  const before = getLimits();
  setLimits({ maxDocumentBytes: 1000, maxJsonDepth: 3 });
  await survive("large document", () =>
    fromDocuments(new Map([["zarr.json", `{"zarr_format": 3, "node_type": "group", "attributes": {"a": "${"x".repeat(2000)}"}}`]])),
  );
  await survive("depth 4", () => parseJson('[[[["x"]]]]'));
  setLimits(null);
  assert.deepEqual(getLimits(), before);
  await survive("bad limits", () => setLimits({ maxNodes: -1 }));
  await survive("bad limits", () => setLimits({ maxNodez: 1 }));
  const big = [
    hostileArray({ shape: [2 ** 53], chunk_grid: { name: "regular", configuration: { chunk_shape: [2 ** 53] } } }),
    hostileArray({ shape: [2 ** 40, 2 ** 40], chunk_grid: { name: "regular", configuration: { chunk_shape: [2 ** 20, 2 ** 20] } } }),
    hostileArray({
      data_type: "string",
      fill_value: "",
      shape: [2 ** 28],
      chunk_grid: { name: "regular", configuration: { chunk_shape: [2 ** 28] } },
      codecs: [{ name: "vlen-utf8" }],
    }),
    hostileArray({
      data_type: "string",
      fill_value: "",
      shape: [2 ** 40],
      chunk_grid: { name: "regular", configuration: { chunk_shape: [2 ** 40] } },
      codecs: [{ name: "vlen-utf8" }],
    }),
    hostileArray({
      shape: [2 ** 31],
      data_type: "uint8",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [2 ** 31] } },
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [1],
            codecs: [{ name: "bytes" }],
            index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
          },
        },
      ],
    }),
    hostileArray({
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "gzip", configuration: { level: 1 } },
      ],
    }),
  ];
  for (const meta of big) {
    const what = JSON.stringify(meta.shape) + meta.data_type;
    await survive(`${what} fill`, () =>
      decodeChunk(
        meta,
        null,
        meta.shape.map(() => 0),
      ),
    );
    await survive(`${what} bytes`, () =>
      decodeChunk(
        meta,
        new Uint8Array(64),
        meta.shape.map(() => 0),
      ),
    );
    await survive(`${what} get`, async () => {
      const store = new Map([
        ["/a/zarr.json", utf8(JSON.stringify(meta))],
        ["/a/c/0", new Uint8Array(16)],
        ["/a/c/0/0", new Uint8Array(16)],
      ]);
      const arr = await openArray(store, "a");
      await arr.get([{ start: 0, stop: 1, step: null }]);
      await arr.getChunk(
        meta.shape.map(() => 0),
        { limits: { maxChunkBytes: 1024 } },
      );
    });
  }
  // A gzip bomb (1 GiB of zeros in 1 MiB) under a 4-element int32 array.
  const bomb = new Uint8Array((await import("node:zlib")).gzipSync(new Uint8Array(64 << 20)));
  await survive("gzip bomb", () => decodeChunk(big.at(-1), bomb, [0]));
  await survive("walk maxNodes", () => walk(mapStore("v3"), { limits: { maxNodes: 2 } }));
  await survive("get maxChunks", async () => (await openArray(mapStore("v3"), "dtype_int32")).get(null, { limits: { maxChunks: 1 } }));
  // A JS caller's wrong argument types: options where the node path goes.
  const store = mapStore("v3");
  for (const path of [{ workers: 0 }, 3, null, ["a"]]) {
    await survive(`open with path ${JSON.stringify(path)}`, () => openArray(store, path));
    await survive(`walk with path ${JSON.stringify(path)}`, () => walk(store, { path }));
  }
  assert.ok(seen.has("InvalidArgument"));

  const t3 = performance.now();
  console.log(`codec cases ${Math.round(t1 - t0)} ms, documents ${Math.round(t2 - t1)} ms, limit cases ${Math.round(t3 - t2)} ms`);
  assert.ok(calls > 50_000, `${calls} calls`);
  for (const code of ["CodecError", "ChecksumMismatch", "InvalidMetadata", "LimitExceeded"])
    assert.ok(seen.has(code), `no ${code} seen: ${[...seen]}`);

  // 4. The same instance still decodes: a good chunk, zarr-python's values.
  const zom = fromDocuments(new Map([["zarr.json", readFileSync(join(fixtures, "v3", "codec_crc32c", "zarr.json"))]]));
  const { data, shape } = decodeChunk(zom, readFileSync(join(fixtures, "v3", "codec_crc32c", "c", "0", "0")), [0, 0]);
  assert.deepEqual(shape, [4, 3]);
  const expected = readJson("expected", "v3.values.json").codec_crc32c;
  const want = [0, 1, 2, 3].flatMap((r) => expected.values.slice(r * 5, r * 5 + 3));
  sameValues(elements(data, "int32"), want, "good chunk after every corrupt input");
  console.log(`${calls} calls in one instance; errors by code: ${JSON.stringify(Object.fromEntries(seen))}`);
});
