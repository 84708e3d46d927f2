// The decoded-chunk cache (ChunkCache) against the test HTTP server (tests/server, which counts
// requests) over tests/fixtures/sample: a region read again makes no request and no decode
// (the cache's misses and workerStats() stay put) with workers: 0, with the pool and a shared
// output, and with sharedOutput: false, for a plain and a sharded array (not even the shard's
// index is asked for again); values equal zarr-python's and an uncached read's; an overlapping
// selection hits for the shared chunks; the byte bound holds; two arrays of one store share
// one cache without mixing; getChunk, strings, a per-read cache and `cache: null`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChunkCache, FetchStore, open, openArray, openGroup, slice, workerStats, ZomError } from "zom";
import { poolOf } from "../../pkg/pool/pool.js";
import { logLines, withServer } from "../server/testing.mjs";
import { readJson } from "./helpers.mjs";
import { elements, reference, sameValues } from "./hierarchy-common.mjs";

const expected = readJson("expected", "sample.values.json");

/** Checks `got` ({data, shape} of `arr`) against zarr-python's values of `path` at `selection`. */
function check(got, arr, path, selection, what) {
  const want = reference(expected[path].values, expected[path].shape, selection);
  assert.deepEqual(got.shape, want.shape, what);
  sameValues(elements(got.data, arr.dtype), want.values, what);
}

const modes = [
  ["workers: 0", { workers: 0 }],
  ["pool, shared output", { workers: 2 }],
  ["pool, sharedOutput: false", { workers: 2, sharedOutput: false }],
];

test("a region read again through the cache makes no request and no decode, with and without the pool", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/sample`);
    const selection = [slice(0, 40), slice(0, 40)];
    for (const path of ["measurements/temperature", "image/gradient_circles"]) {
      for (const [how, options] of modes) {
        const what = `${path} ${how}`;
        const cache = new ChunkCache({ maxBytes: 64 << 20 });
        const arr = await openArray(store, path, { cache, ...options });
        // Chunks decode on this thread until the workers are up.
        if (options.workers) await poolOf(options.workers).ready();
        const decodedBefore = workerStats().decoded;
        const first = await arr.get(selection);
        check(first, arr, path, selection, what);
        if (options.workers) assert.ok(workerStats().decoded > decodedBefore, `${what}: the workers decoded`);
        const { misses, hits } = cache.stats;
        assert.ok(misses > 0, what);
        server.resetStats();
        const decoded = workerStats().decoded;
        const progress = [];
        const again = await arr.get(selection, { onProgress: (p) => progress.push(p) });
        assert.equal(server.stats.requests, 0, `${what}: ${logLines(server).join("\n")}`);
        assert.equal(workerStats().decoded, decoded, `${what}: no decode in the workers`);
        assert.equal(cache.stats.misses, misses, `${what}: no miss`);
        assert.equal(cache.stats.hits - hits, misses, `${what}: every chunk a hit`);
        assert.equal(progress.at(-1).cached, misses, what);
        check(again, arr, path, selection, `${what} (cached)`);
        const uncached = await arr.get(selection, { cache: null });
        assert.ok(server.stats.requests > 0, `${what}: cache: null reads the store`);
        sameValues(elements(again.data, arr.dtype), elements(uncached.data, arr.dtype), `${what}: cached = uncached`);
        assert.equal(cache.stats.hits - hits, misses, `${what}: cache: null leaves the cache alone`);
        arr.free();
      }
    }
    assert.equal(workerStats().failed, false);
  }));

test("an overlapping selection hits for the chunks it shares", () =>
  withServer({}, async (server) => {
    for (const [how, options] of modes) {
      const cache = new ChunkCache({ maxBytes: 64 << 20 });
      // 64 × 48 in chunks of 16 × 16.
      const arr = await openArray(new FetchStore(`${server.url}/sample`), "measurements/temperature", { cache, ...options });
      await arr.get([slice(0, 20), slice(0, 20)]);
      assert.deepEqual(cache.stats, { hits: 0, misses: 4, evictions: 0, bytes: cache.stats.bytes, entries: 4 }, how);
      server.resetStats();
      const selection = [slice(10, 40), slice(0, 20)];
      const got = await arr.get(selection);
      check(got, arr, "measurements/temperature", selection, how);
      assert.equal(server.stats.requests, 2, `${how}: ${logLines(server).join("\n")}`);
      assert.deepEqual([cache.stats.hits, cache.stats.misses, cache.stats.entries], [4, 6, 6], how);
    }
  }));

test("the cache stays within maxBytes, evicting the least recently used chunks", () =>
  withServer({}, async (server) => {
    // Three 16 × 16 float32 chunks (1 KiB of values each, plus a little per entry).
    const maxBytes = 3 * (1024 + 128);
    for (const [how, options] of modes) {
      const cache = new ChunkCache({ maxBytes });
      const arr = await openArray(new FetchStore(`${server.url}/sample`), "measurements/temperature", { cache, ...options });
      check(await arr.get(), arr, "measurements/temperature", undefined, how);
      const stats = cache.stats;
      assert.ok(stats.bytes <= maxBytes && stats.bytes > 3 * 1024, `${how}: ${stats.bytes}`);
      assert.deepEqual([stats.entries, stats.evictions, stats.misses], [3, 9, 12], how);
      // A chunk larger than the bound is not kept.
      const tiny = new ChunkCache({ maxBytes: 1000 });
      await arr.get([slice(0, 16), slice(0, 16)], { cache: tiny });
      assert.deepEqual([tiny.stats.entries, tiny.stats.bytes], [0, 0], how);
      cache.clear();
      assert.deepEqual([cache.stats.entries, cache.stats.bytes, cache.stats.misses], [0, 0, 12], how);
    }
  }));

test("two arrays of one store share one cache without mixing entries", () =>
  withServer({}, async (server) => {
    const cache = new ChunkCache({ maxBytes: 64 << 20 });
    const root = await openGroup(new FetchStore(`${server.url}/sample`), "", { cache });
    const image = await root.open("image");
    const selection = [slice(0, 32), slice(0, 32)];
    const arrays = ["gradient_circles", "gradient_circles_blosc"];
    const opened = [];
    for (const name of arrays) opened.push(await image.open(name));
    for (const [i, arr] of opened.entries()) check(await arr.get(selection), arr, `image/${arrays[i]}`, selection, arrays[i]);
    // One inner chunk of the first array's shard, four of the second's.
    const entries = cache.stats.entries;
    assert.equal(entries, 5);
    server.resetStats();
    for (const [i, arr] of opened.entries()) check(await arr.get(selection), arr, `image/${arrays[i]}`, selection, `${arrays[i]} cached`);
    assert.equal(server.stats.requests, 0, logLines(server).join("\n"));
    assert.deepEqual([cache.stats.entries, cache.stats.hits], [entries, entries]);
  }));

test("getChunk, strings and a per-read cache", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/sample`);
    const cache = new ChunkCache({ maxBytes: 1 << 20 });
    const arr = await openArray(store, "image/gradient_circles");
    const first = await arr.getChunk([1, 2], { cache });
    server.resetStats();
    const again = await arr.getChunk([1, 2], { cache });
    assert.equal(server.stats.requests, 0);
    assert.deepEqual(again, first);
    // Strings decode on the calling thread and are cached too.
    const labels = await open(store, "measurements/labels");
    check(await labels.get(undefined, { cache }), labels, "measurements/labels", undefined, "labels");
    server.resetStats();
    check(await labels.get(undefined, { cache }), labels, "measurements/labels", undefined, "labels cached");
    assert.equal(server.stats.requests, 0);
    // Only a ChunkCache, with a valid bound.
    await assert.rejects(arr.get(undefined, { cache: {} }), (e) => e instanceof ZomError && e.code === "InvalidArgument");
    assert.throws(
      () => new ChunkCache({ maxBytes: -1 }),
      (e) => e instanceof ZomError && e.code === "InvalidArgument",
    );
    assert.deepEqual(new ChunkCache({ maxBytes: 1 }).stats, { hits: 0, misses: 0, evictions: 0, bytes: 0, entries: 0 });
  }));
