// The limits through the JS API: the documented defaults, setLimits / getLimits, the `limits`
// option of open, openArray, walk, get, getChunk, ChunkDecoder and decodeChunk (over the
// defaults; an array's reads start from the limits it was opened with), and LimitExceeded
// errors that name the limit, its value and the node and key.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ChunkDecoder, decodeChunk, getLimits, open, openArray, openGroup, setLimits } from "zom";
import { parseJson, walk } from "zom/validate";
import { fixtures } from "./helpers.mjs";
import { mapStore, zomError } from "./hierarchy-common.mjs";

const DEFAULTS = {
  maxChunkBytes: 2 ** 30,
  maxBytes: 2 ** 30,
  maxChunks: 2 ** 20,
  maxDocumentBytes: 64 * 2 ** 20,
  maxJsonDepth: 127,
  maxNodes: 1_000_000,
  maxShardIndexBytes: 16 * 2 ** 20,
};
const limit = (message, extra = {}) => zomError("LimitExceeded", { message, ...extra });

test("the defaults, setLimits and getLimits", () => {
  assert.deepEqual(getLimits(), DEFAULTS);
  try {
    assert.deepEqual(setLimits({ maxNodes: 5, maxBytes: Infinity }), { ...DEFAULTS, maxNodes: 5, maxBytes: Infinity });
    assert.deepEqual(setLimits({ maxChunks: 7 }), { ...DEFAULTS, maxNodes: 5, maxBytes: Infinity, maxChunks: 7 });
    assert.throws(() => setLimits({ maxNode: 1 }), zomError("InvalidArgument", { message: /not a limit/ }));
    assert.throws(() => setLimits({ maxNodes: -1 }), zomError("InvalidArgument", { message: /maxNodes/ }));
    assert.throws(() => setLimits({ maxNodes: 1.5 }), zomError("InvalidArgument"));
    assert.equal(getLimits().maxNodes, 5, "a refused call changes nothing");
  } finally {
    assert.deepEqual(setLimits(null), DEFAULTS);
  }
});

test("walk: maxNodes (default or per call) and the documents' limits", async () => {
  const store = mapStore("v3");
  const all = await walk(store);
  await assert.rejects(walk(store, { limits: { maxNodes: 3 } }), limit(/the walk's node count is 4, over the limit maxNodes = 3/));
  setLimits({ maxNodes: 3 });
  try {
    await assert.rejects(walk(store), limit(/maxNodes = 3/));
    assertSameKeys(await walk(store, { limits: { maxNodes: Infinity } }), all);
  } finally {
    setLimits(null);
  }
  await assert.rejects(
    walk(store, { limits: { maxDocumentBytes: 50 } }),
    limit(/over the limit maxDocumentBytes = 50/, { key: "zarr.json", path: "" }),
  );
});

function assertSameKeys(a, b) {
  assert.deepEqual(Object.keys(a.members).sort(), Object.keys(b.members).sort());
}

test("stores are asked for metadata with maxBytes = maxDocumentBytes; a longer answer is refused before it enters WebAssembly", async () => {
  const map = mapStore("v3");
  const asked = [];
  // A store that ignores maxBytes: zom refuses the longer value it gives.
  const store = {
    get(key, options) {
      asked.push([key, options?.maxBytes]);
      return map.get(key) ?? map.get(key.slice(1));
    },
  };
  const group = await open(store, "group1");
  assert.ok(group);
  assert.deepEqual(asked, [["/group1/zarr.json", 64 * 2 ** 20]]);
  asked.length = 0;
  const size = (map.get("group1/zarr.json") ?? map.get("/group1/zarr.json")).length;
  await assert.rejects(
    open(store, "group1", { limits: { maxDocumentBytes: 10 } }),
    limit(new RegExp(`over the limit maxDocumentBytes = 10 \\(the store's get gave ${size} bytes, more than the 10 asked for\\)`), {
      key: "group1/zarr.json",
      path: "group1",
    }),
  );
  assert.deepEqual(asked, [["/group1/zarr.json", 10]]);
});

test("open: documents over maxDocumentBytes or maxJsonDepth, located", async () => {
  const store = mapStore("v3");
  await assert.rejects(
    open(store, "group1", { limits: { maxDocumentBytes: 10 } }),
    limit(/maxDocumentBytes = 10/, { key: "group1/zarr.json", path: "group1" }),
  );
  await assert.rejects(
    openArray(store, "dtype_int32", { limits: { maxJsonDepth: 1 } }),
    limit(/nesting depth is 2, over the limit maxJsonDepth = 1/, { key: "dtype_int32/zarr.json" }),
  );
  assert.throws(() => parseJson("[".repeat(200) + "]".repeat(200)), limit(/maxJsonDepth = 127/));
  await assert.rejects(open(store, "", { limits: "big" }), zomError("InvalidArgument"));
  // A member of consolidated metadata opens with the limits given to it.
  const root = await openGroup(mapStore("v3-consolidated"));
  const arr = await root.open("codec_crc32c", { limits: { maxChunkBytes: 8 } });
  await assert.rejects(arr.get(), limit(/maxChunkBytes = 8/, { path: "codec_crc32c" }));
});

test("get and getChunk: maxBytes, maxChunks, maxChunkBytes, maxShardIndexBytes", async () => {
  const store = mapStore("v3");
  // 6 × 5 int32 in 4 × 3 chunks: 120 bytes, 4 chunks of 48 bytes.
  const arr = await openArray(store, "codec_crc32c");
  assert.deepEqual((await arr.get(null, { limits: { maxBytes: 120, maxChunks: 4, maxChunkBytes: 48 } })).shape, [6, 5]);
  await assert.rejects(
    arr.get(null, { limits: { maxBytes: 119 } }),
    limit(/the read's output size in bytes is 120, over the limit maxBytes = 119/, { path: "codec_crc32c" }),
  );
  await assert.rejects(arr.get(null, { maxBytes: 119 }), limit(/maxBytes = 119/));
  await assert.rejects(arr.get(null, { limits: { maxChunks: 3 } }), limit(/touches is 4, over the limit maxChunks = 3/));
  await assert.rejects(
    arr.get(null, { limits: { maxChunkBytes: 47 } }),
    limit(/size in bytes is 48, over the limit maxChunkBytes = 47/, { key: "codec_crc32c/c/0/0" }),
  );
  await assert.rejects(arr.getChunk([1, 1], { limits: { maxChunkBytes: 47 } }), limit(/maxChunkBytes = 47/));
  // Opened with a limit: its reads keep it, and a read may lift it.
  const small = await openArray(store, "codec_crc32c", { limits: { maxChunkBytes: 47 } });
  await assert.rejects(small.get(), limit(/maxChunkBytes = 47/));
  assert.deepEqual((await small.get(null, { limits: { maxChunkBytes: 48 } })).shape, [6, 5]);
  // Shard indexes: 2 × 2 inner chunks make an index of 4 × 16 + 4 bytes.
  const sharded = await openArray(store, "shard_index_end", { limits: { maxShardIndexBytes: 67 } });
  await assert.rejects(
    sharded.getChunk([0, 0]),
    limit(/the shard index's size in bytes is 68, over the limit maxShardIndexBytes = 67/, {
      path: "shard_index_end",
      key: "shard_index_end/c/0/0",
    }),
  );
  await assert.rejects(sharded.get(), limit(/maxShardIndexBytes = 67/));
  assert.deepEqual((await sharded.get(null, { limits: { maxShardIndexBytes: 68 } })).shape, [12, 10]);
});

test("ChunkDecoder and decodeChunk take limits too", () => {
  const meta = JSON.parse(readFileSync(join(fixtures, "v3", "codec_crc32c", "zarr.json"), "utf8"));
  const bytes = readFileSync(join(fixtures, "v3", "codec_crc32c", "c", "0", "0"));
  assert.equal(decodeChunk(meta, bytes, [0, 0], { limits: { maxChunkBytes: 48 } }).data.length, 12);
  assert.throws(() => decodeChunk(meta, bytes, [0, 0], { limits: { maxChunkBytes: 47 } }), limit(/maxChunkBytes = 47/));
  const decoder = new ChunkDecoder(meta, "a/b", { limits: { maxChunkBytes: 1 } });
  assert.throws(
    () => decoder.decode(null, [0, 0]),
    limit(/a decoded chunk.s size in bytes is 48, over the limit maxChunkBytes = 1/, { path: "a/b", key: "a/b/c/0/0" }),
  );
  decoder.free();
  assert.throws(() => new ChunkDecoder(JSON.stringify(meta), "", { limits: { maxDocumentBytes: 5 } }), limit(/maxDocumentBytes = 5/));
});

test("ts/generated/boundary.ts (from Rust) states the limits and error codes the module uses", async () => {
  const { ERROR_CODES, LIMIT_DEFAULTS } = await import("../../pkg/generated/boundary.js");
  assert.deepEqual(LIMIT_DEFAULTS, DEFAULTS);
  assert.deepEqual(setLimits(null), LIMIT_DEFAULTS);
  assert.equal(ERROR_CODES.length, 11);
  for (const [code, call] of [
    ["InvalidArgument", () => setLimits({ maxNode: 1 })],
    ["LimitExceeded", () => parseJson("[".repeat(200) + "]".repeat(200))],
  ]) {
    assert.ok(ERROR_CODES.includes(code));
    assert.throws(call, zomError(code));
  }
});
