// Tiles as viewers read them, over the HTTP test server (tests/fixtures/tiles, written by
// zarr-python: 128×128 uint16 arrays holding y * 128 + x, chunked 16² and sharded 64² / 16²):
// one index request per shard per array, tiles of a shard already touched in one request,
// every chunk of a read in flight at once (no waves), the store's `concurrency` as the one
// count limit, and getChunks: tiles as they arrive, cancelled one by one.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { FetchStore, openArray, workerStats } from "zom";
import { FsStore } from "zom/fs";
import { logLines, withServer } from "../server/testing.mjs";

const bounded = { timeout: 60_000 };

/** The values of the tile at `coords` (16×16) of the fixture arrays. */
function tileValues([i, j]) {
  const out = new Uint16Array(256);
  for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) out[y * 16 + x] = (i * 16 + y) * 128 + j * 16 + x;
  return out;
}

/** The 4×4 block of tiles starting at tile (i, j). */
const block = (i, j) => Array.from({ length: 16 }, (_, k) => [i + (k >> 2), j + (k & 3)]);

/** Reads every tile of `requests` with getChunks; the results by index, checked against the values. */
async function readTiles(arr, requests, options) {
  const results = [];
  for await (const tile of arr.getChunks(requests, options)) {
    results[tile.index] = tile;
    if (tile.chunk) assert.deepEqual(tile.chunk.data, tileValues(tile.coords), `tile ${tile.coords}`);
  }
  return results;
}

const indexRequests = (server) => server.stats.log.filter((e) => /^bytes=-/.test(e.range ?? ""));

test("tiles of one shard read together share one index request and their adjacent ranges", bounded, () =>
  withServer({ latencyMs: 20 }, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/tiles`), "sharded");
    server.resetStats();
    // The 16 inner chunks of shard (0, 0), asked for at once.
    const results = await readTiles(arr, block(0, 0));
    assert.ok(results.every((r) => r.chunk !== undefined));
    assert.equal(indexRequests(server).length, 1, logLines(server).join("\n"));
    assert.equal(server.stats.requests, 2, `the index, then one merged range:\n${logLines(server).join("\n")}`);

    // The index is known now: a tile of that shard is one range request.
    server.resetStats();
    const { data } = await arr.getChunk([1, 2]);
    assert.deepEqual(data, tileValues([1, 2]));
    assert.equal(server.stats.requests, 1, logLines(server).join("\n"));
    assert.match(server.stats.log[0].range, /^bytes=\d+-\d+$/);

    // Four shards' tiles at once, one of them known: one index request for each of the others.
    server.resetStats();
    await readTiles(arr, [
      [0, 0],
      [0, 4],
      [4, 0],
      [4, 4],
      [0, 5],
      [5, 5],
    ]);
    const urls = indexRequests(server)
      .map((e) => e.url)
      .sort();
    assert.deepEqual(urls, ["/tiles/sharded/c/0/1", "/tiles/sharded/c/1/0", "/tiles/sharded/c/1/1"], logLines(server).join("\n"));
  }),
);

test("tiles one after another: the first of a shard costs 2 requests, every later one 1", bounded, () =>
  withServer({}, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/tiles`), "sharded");
    server.resetStats();
    const counts = [];
    for (const coords of block(0, 0)) {
      const before = server.stats.requests;
      assert.deepEqual((await arr.getChunk(coords)).data, tileValues(coords));
      counts.push(server.stats.requests - before);
    }
    assert.deepEqual(counts, [2, ...Array(15).fill(1)]);
  }),
);

test("a whole read puts every chunk in flight at once; the store's concurrency and bytesInFlight bound it", bounded, () =>
  // A latency long enough for 64 connections to be accepted on a loaded machine before the
  // first answer comes back.
  withServer({ latencyMs: 200 }, async (server) => {
    const expected = new Uint16Array(128 * 128).map((_, i) => i);
    const read = async (storeOptions, getOptions) => {
      const arr = await openArray(new FetchStore(`${server.url}/tiles`, storeOptions), "chunked");
      server.resetStats();
      const { data } = await arr.get(undefined, getOptions);
      assert.deepEqual(data, expected);
      assert.equal(server.stats.requests, 64);
      return server.stats.maxInFlight;
    };
    assert.equal(await read({}, {}), 64, "no waves");
    assert.ok((await read({ concurrency: 16 }, {})) <= 16);
    // 16×16 uint16 chunks are 512 bytes decoded each.
    assert.equal(await read({}, { bytesInFlight: 16 * 512 }), 16);
  }),
);

test("getChunks gives tiles as they arrive and cancels exactly the tiles whose signal aborts", bounded, () =>
  withServer({ latencyMs: 60 }, async (server) => {
    for (const name of ["chunked", "sharded"]) {
      const arr = await openArray(new FetchStore(`${server.url}/tiles`), name);
      const pan = new AbortController();
      const requests = block(0, 0).map((coords, k) => (k % 2 === 0 ? { coords, signal: pan.signal } : coords));
      setTimeout(() => pan.abort(), 15);
      const unhandled = [];
      const onUnhandled = (e) => unhandled.push(e);
      process.on("unhandledRejection", onUnhandled);
      let results;
      try {
        results = await readTiles(arr, requests);
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
      assert.deepEqual(unhandled, []);
      assert.equal(results.length, 16);
      for (const [k, r] of results.entries()) {
        if (k % 2 === 0) assert.equal(r.error?.code, "Aborted", `${name} tile ${r.coords}: ${r.error}`);
        else assert.ok(r.chunk !== undefined, `${name} tile ${r.coords}: ${r.error}`);
      }
      // The array reads on after a pan.
      assert.deepEqual((await arr.getChunk([0, 0])).data, tileValues([0, 0]));
    }
  }),
);

test("getChunks: options.signal cancels every tile; leaving the loop cancels the tiles not given", bounded, () =>
  withServer({ latencyMs: 60 }, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/tiles`), "chunked");
    const all = new AbortController();
    setTimeout(() => all.abort(), 10);
    const results = await readTiles(arr, block(0, 0), { signal: all.signal });
    assert.ok(results.every((r) => r.error?.code === "Aborted"));

    server.resetStats();
    let seen = 0;
    for await (const tile of arr.getChunks(block(4, 4))) {
      assert.ok(tile.chunk !== undefined);
      seen += 1;
      break;
    }
    assert.equal(seen, 1);
    // The results are in arrival order, and an empty list ends at once.
    for await (const tile of arr.getChunks([])) assert.fail(`nothing to give, got ${tile}`);
    const order = [];
    for await (const tile of arr.getChunks([
      [7, 7],
      [0, 0],
    ]))
      order.push(tile.index);
    assert.deepEqual(order.sort(), [0, 1]);
  }),
);

test("a decode worker whose memory a large chunk grew is replaced once idle", bounded, async () => {
  // A 96 MiB uint8 chunk of zeros, gzipped: the worker's memory grows past 64 MiB to decode it.
  const dir = mkdtempSync(join(tmpdir(), "zom-tiles-"));
  try {
    const n = 96 * 2 ** 20;
    mkdirSync(join(dir, "big", "c"), { recursive: true });
    writeFileSync(
      join(dir, "big", "zarr.json"),
      JSON.stringify({
        zarr_format: 3,
        node_type: "array",
        shape: [n],
        data_type: "uint8",
        chunk_grid: { name: "regular", configuration: { chunk_shape: [n] } },
        chunk_key_encoding: { name: "default" },
        codecs: [{ name: "bytes" }, { name: "gzip", configuration: { level: 1 } }],
        fill_value: 1,
      }),
    );
    writeFileSync(join(dir, "big", "c", "0"), gzipSync(new Uint8Array(n), { level: 1 }));
    const arr = await openArray(new FsStore(dir), "big", { workers: 1 });
    // A tile does not wait for the workers: the first read starts the pool, and the big read
    // goes to its worker once it is up.
    await arr.get([{ start: 0, stop: 1, step: 1 }], { maxBytes: 2 ** 30 });
    const up = Date.now() + 20_000;
    while (workerStats().workers < 1 && Date.now() < up) await new Promise((r) => setTimeout(r, 20));
    const before = workerStats().replaced;
    const { data } = await arr.get(undefined, { maxBytes: 2 ** 30 });
    assert.equal(data.length, n);
    assert.equal(data[n - 1], 0);
    const deadline = Date.now() + 20_000;
    while (workerStats().replaced === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(workerStats().replaced, before + 1);
    // The fresh worker decodes the next read.
    const decoded = workerStats().decoded;
    const again = await arr.get([{ start: 0, stop: 10, step: 1 }], { maxBytes: 2 ** 30 });
    assert.deepEqual([...again.data], Array(10).fill(0));
    assert.equal(workerStats().decoded, decoded + 1);
    assert.equal(workerStats().workers >= 1, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a signal shared by a screenful of reads carries one listener of zom's (Node warns of a leak past ten)", bounded, () =>
  withServer({ latencyMs: 30 }, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/tiles`), "sharded");
    const pan = new AbortController();
    const reads = block(0, 0).map((coords) => arr.getChunk(coords, { signal: pan.signal }));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(getEventListeners(pan.signal, "abort").length, 1);
    await Promise.all(reads);
    const tiles = await readTiles(
      arr,
      block(0, 4).map((coords) => ({ coords, signal: pan.signal })),
      { signal: pan.signal },
    );
    assert.ok(tiles.every((t) => t.chunk !== undefined));
    assert.equal(getEventListeners(pan.signal, "abort").length, 1);
  }),
);

test("a tile decoded by a worker is its own output: a buffer of exactly its size, not a copy into another", bounded, () =>
  withServer({}, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/tiles`), "chunked", { workers: 2 });
    for (const coords of [
      [0, 0],
      [3, 5],
      [7, 7],
    ]) {
      const { data } = await arr.getChunk(coords);
      assert.ok(data.buffer instanceof ArrayBuffer);
      assert.equal(data.buffer.byteLength, data.byteLength);
      assert.deepEqual(data, tileValues(coords));
    }
    // A part of a tile, and a region of several, still read right (copied into an output).
    const part = await arr.get([
      { start: 3, stop: 9, step: 2 },
      { start: 1, stop: 4, step: 1 },
    ]);
    assert.deepEqual(
      [...part.data],
      [3, 5, 7].flatMap((y) => [1, 2, 3].map((x) => y * 128 + x)),
    );
  }),
);
