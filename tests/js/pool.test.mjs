// The decode pool (worker_threads in Node) against the test HTTP server (tests/server) over
// tests/fixtures: every v3, v2 and sample array read with 2 workers and with none equals
// zarr-python's values (and the workers really decoded), by whole, unaligned, stepped,
// backwards and integer selections, with the output shared with the workers
// (SharedArrayBuffer) and transferred back; missing chunks and shards (fill values), `out`
// buffers and concurrent shared reads; concurrent reads of several arrays;
// abort in the middle of a read; a corrupt chunk (and a corrupt inner chunk of a shard)
// rejects with the code, path and key the worker's error carries; closeWorkers() and the
// process exiting with idle workers.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { closeWorkers, FetchStore, openArray, openGroup, slice } from "zom";
import { poolOf } from "../../pkg/pool/pool.js";
import { withServer } from "../server/testing.mjs";
import { fixtures, readJson, repoRoot } from "./helpers.mjs";
import { elements, reference, sameValues, zomError } from "./hierarchy-common.mjs";

test("every v3, v2 and sample array read with 2 workers and with none equals zarr-python's values", () =>
  withServer({}, async (server) => {
    const pool = poolOf(2);
    const before = pool.decoded;
    for (const name of ["v3", "v2", "sample"]) {
      const store = new FetchStore(`${server.url}/${name}`);
      const expected = readJson("expected", `${name}.values.json`);
      for (const [path, entry] of Object.entries(expected)) {
        for (const workers of [2, 0]) {
          const arr = await openArray(store, path, { workers });
          for (const selection of [undefined, entry.shape.length ? [slice(-3, null)] : undefined]) {
            const { data, shape } = await arr.get(selection);
            const want = reference(entry.values, entry.shape, selection);
            const what = `${name}/${path} workers ${workers} ${JSON.stringify(selection)}`;
            assert.deepEqual(shape, want.shape, what);
            sameValues(elements(data, arr.dtype), want.values, what);
          }
          if (entry.shape.length) {
            const chunk = await arr.getChunk(
              entry.shape.map(() => 0),
              { workers },
            );
            const want = reference(
              entry.values,
              entry.shape,
              arr.chunks.map((c, i) => slice(0, Math.min(c, entry.shape[i]))),
            );
            sameValues(elements(chunk.data, arr.dtype), want.values, `${name}/${path} getChunk workers ${workers}`);
          }
          arr.free();
        }
      }
    }
    assert.equal(pool.failed, false);
    assert.ok(pool.decoded - before > 100, `the workers decoded ${pool.decoded - before} chunks`);
  }));

/** Whether values of this dtype come back as one TypedArray (what the shared output serves). */
const numeric = (data) => ArrayBuffer.isView(data) && !(data instanceof DataView);

test("reads with a shared output, with transfer, and on the main thread equal zarr-python's values, for every selection kind", () =>
  withServer({}, async (server) => {
    const pool = poolOf(2);
    let sharedReads = 0;
    for (const name of ["v3", "v2", "sample"]) {
      const store = new FetchStore(`${server.url}/${name}`);
      const expected = readJson("expected", `${name}.values.json`);
      for (const [path, entry] of Object.entries(expected)) {
        const rank = entry.shape.length;
        // Whole; not chunk-aligned; stepped (and backwards); an integer dropping a dimension.
        const selections = [undefined];
        if (rank) {
          selections.push([slice(1, -1)], [slice(null, null, 2)], [slice(null, null, -3)]);
          if (rank > 1) selections.push([null, slice(1, null, 2)], [slice(-4, null), 1]);
        }
        const arr = await openArray(store, path);
        for (const selection of selections) {
          const want = reference(entry.values, entry.shape, selection);
          for (const [how, options] of [
            ["shared", { workers: 2 }],
            ["transfer", { workers: 2, sharedOutput: false }],
            ["main thread", { workers: 0 }],
          ]) {
            const what = `${name}/${path} ${how} ${JSON.stringify(selection)}`;
            const { data, shape } = await arr.get(selection, options);
            assert.deepEqual(shape, want.shape, what);
            sameValues(elements(data, arr.dtype), want.values, what);
            // float16 without Float16Array: converted to a new Float32Array.
            if (numeric(data) && !(arr.dtype === "float16" && typeof Float16Array === "undefined")) {
              // A read of one chunk (or inner chunk) gets an output of its own: it shares
              // nothing with the workers. An output larger than one chunk spans several.
              const chunkLength = (arr.chunks ?? []).reduce((a, b) => a * b, 1);
              const isShared = data.buffer instanceof SharedArrayBuffer;
              if (how !== "shared" || want.values.length > chunkLength)
                assert.equal(isShared, how === "shared", `${what}: ${data.buffer.constructor.name}`);
              sharedReads += isShared;
            }
          }
        }
        if (rank) {
          const coords = entry.shape.map(() => 0);
          const want = reference(
            entry.values,
            entry.shape,
            arr.chunks.map((c, i) => slice(0, Math.min(c, entry.shape[i]))),
          );
          for (const sharedOutput of [true, false]) {
            const chunk = await arr.getChunk(coords, { workers: 2, sharedOutput });
            sameValues(elements(chunk.data, arr.dtype), want.values, `${name}/${path} getChunk sharedOutput ${sharedOutput}`);
          }
        }
        arr.free();
      }
    }
    assert.equal(pool.failed, false);
    assert.ok(sharedReads > 200, `${sharedReads} reads through a shared output`);
  }));

test("a shared output with an out buffer, concurrent shared reads, and missing shards and chunks (fill values)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-pool-"));
  try {
    for (const name of ["shard_index_end", "codec_blosc_lz4_shuffle", "fill_float64_normal"])
      cpSync(join(fixtures, "v3", name), join(dir, name), { recursive: true });
    // One more shard and one more chunk missing than zarr-python left out.
    rmSync(join(dir, "shard_index_end", "c", "0", "0"));
    rmSync(join(dir, "codec_blosc_lz4_shuffle", "c", "0", "0"));
    await withServer({ root: dir, latencyMs: 3 }, async (server) => {
      const store = new FetchStore(server.url);
      for (const path of ["shard_index_end", "codec_blosc_lz4_shuffle", "fill_float64_normal"]) {
        const arr = await openArray(store, path);
        const selections = [undefined, [slice(1, null, 3)], [slice(null, null, -1)]];
        const here = await Promise.all(selections.map((s) => arr.get(s, { workers: 0 })));
        // All at once, shared and transferred.
        const reads = await Promise.all(
          selections.flatMap((s) => [arr.get(s, { workers: 2 }), arr.get(s, { workers: 2, sharedOutput: false })]),
        );
        selections.forEach((s, i) => {
          for (const r of [reads[2 * i], reads[2 * i + 1]]) {
            assert.deepEqual(r.shape, here[i].shape);
            assert.deepEqual(
              Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength),
              Buffer.from(here[i].data.buffer, here[i].data.byteOffset, here[i].data.byteLength),
              `${path} ${JSON.stringify(s)}`,
            );
          }
        });
        // The fill value is in the output where chunks are missing.
        if (path === "shard_index_end") assert.equal(here[0].data[0], -1);
        // `out`: the values are copied there.
        const out = new here[0].data.constructor(here[0].data.length);
        const { data } = await arr.get(undefined, { workers: 2, out });
        assert.equal(data, out);
        assert.deepEqual(Array.from(out), Array.from(here[0].data));
        arr.free();
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a per-get workers option overrides open's; workers: 0 decodes nothing in workers", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    const expected = readJson("expected", "v3.values.json").codec_zstd;
    const pool = poolOf(2);
    const arr = await openArray(store, "codec_zstd", { workers: 2 });
    let before = pool.decoded;
    await arr.get(undefined, { workers: 0 });
    assert.equal(pool.decoded, before);
    const { data } = await arr.get();
    assert.ok(pool.decoded > before);
    sameValues(elements(data, arr.dtype), expected.values, "codec_zstd");
    await assert.rejects(arr.get(undefined, { workers: -1 }), zomError("InvalidArgument"));
    await assert.rejects(openArray(store, "codec_zstd", { workers: 1.5 }), zomError("InvalidArgument"));
    const group = await openGroup(new FetchStore(`${server.url}/v3-consolidated`), "", { workers: 0 });
    before = pool.decoded;
    await (await group.open("codec_zstd")).get();
    assert.equal(pool.decoded, before, "the group's workers: 0 is passed on");
  }));

test("concurrent reads of several arrays with workers", () =>
  withServer({ latencyMs: 5 }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    const expected = readJson("expected", "v3.values.json");
    const names = [
      "codec_zstd",
      "codec_blosc_lz4_shuffle",
      "codec_gzip_crc32c",
      "shard_index_end",
      "shard_nested",
      "shard_then_gzip",
      "dtype_float64",
      "dtype_int64",
      "codec_transpose",
    ];
    const arrays = await Promise.all(names.map((n) => openArray(store, n, { workers: 2 })));
    const reads = await Promise.all(arrays.flatMap((arr) => [arr.get(), arr.get([slice(1, null)])]));
    names.forEach((name, i) => {
      const entry = expected[name];
      sameValues(elements(reads[2 * i].data, arrays[i].dtype), entry.values, name);
      const part = reference(entry.values, entry.shape, [slice(1, null)]);
      sameValues(elements(reads[2 * i + 1].data, arrays[i].dtype), part.values, `${name}[1:]`);
    });
  }));

test("abort in the middle of a read with workers rejects with Aborted", () =>
  withServer({ latencyMs: 30 }, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/v3`), "codec_gzip_crc32c", { workers: 2 });
    for (const sharedOutput of [true, false]) {
      const controller = new AbortController();
      const read = arr.get(undefined, {
        signal: controller.signal,
        bytesInFlight: 0,
        sharedOutput,
        onProgress: ({ done }) => done === 1 && controller.abort(),
      });
      await assert.rejects(read, zomError("Aborted"));
    }
    // The pool is still usable.
    const { data } = await arr.get();
    sameValues(elements(data, arr.dtype), readJson("expected", "v3.values.json").codec_gzip_crc32c.values, "after abort");
  }));

test("a corrupt chunk decoded in a worker rejects with its code, path and key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-pool-"));
  try {
    for (const name of ["codec_gzip_crc32c", "codec_zstd", "shard_index_end"])
      cpSync(join(fixtures, "v3", name), join(dir, name), { recursive: true });
    const corrupt = (file, at) => {
      const bytes = readFileSync(file);
      for (let i = at; i < at + 4 && i < bytes.length; i++) bytes[i] ^= 0x5a;
      writeFileSync(file, bytes);
    };
    corrupt(join(dir, "codec_gzip_crc32c", "c", "0", "1"), 12);
    corrupt(join(dir, "codec_zstd", "c", "0", "0"), 0);
    corrupt(join(dir, "shard_index_end", "c", "0", "0"), 0);
    await withServer({ root: dir }, async (server) => {
      const store = new FetchStore(server.url);
      const cases = [
        ["codec_gzip_crc32c", "codec_gzip_crc32c/c/0/1", "ChecksumMismatch", undefined],
        ["codec_zstd", "codec_zstd/c/0/0", "CodecError", undefined],
        ["shard_index_end", "shard_index_end/c/0/0", "CodecError", /inner chunk/],
      ];
      for (const [path, key, code, message] of cases) {
        const arr = await openArray(store, path, { workers: 2 });
        for (const sharedOutput of [true, false]) {
          await assert.rejects(arr.get(undefined, { sharedOutput }), (e) => {
            assert.equal(e.name, "ZomError");
            assert.deepEqual([e.code, e.path, e.key], [code, path, key], e.message);
            if (message) assert.match(e.message, message);
            return true;
          });
        }
        // The same error as decoding on the main thread gives.
        const here = await arr.get(undefined, { workers: 0 }).catch((e) => e);
        assert.deepEqual([here.code, here.path, here.key], [code, path, key]);
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("workers decode under the limits the array was opened with, and a read's own limits apply", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    const pool = poolOf(2);
    // dtype_int32's chunks hold 8 bytes once decoded.
    const limited = await openArray(store, "dtype_int32", { workers: 2, limits: { maxChunkBytes: 4 } });
    for (const read of [() => limited.get(), () => limited.getChunk([0])]) {
      await assert.rejects(read(), (e) => {
        assert.equal(e.code, "LimitExceeded", e.message);
        assert.match(e.message, /maxChunkBytes = 4/);
        assert.equal(e.path, "dtype_int32");
        return true;
      });
    }
    // A read's own, lower limit on an array opened with the defaults: refused too.
    const open = await openArray(store, "dtype_int32", { workers: 2 });
    await assert.rejects(open.get(undefined, { limits: { maxChunkBytes: 4 } }), (e) => e.code === "LimitExceeded");
    // And within the limits the workers decode the values.
    const before = pool.decoded;
    const { data } = await open.get();
    assert.ok(pool.decoded > before, "the workers decoded the chunks");
    const want = readJson("expected", "v3.values.json").dtype_int32;
    sameValues(elements(data, open.dtype), want.values, "dtype_int32");
  }));

test("closeWorkers ends the workers; a later read starts new ones", () =>
  withServer({}, async (server) => {
    const arr = await openArray(new FetchStore(`${server.url}/v3`), "codec_zstd", { workers: 2 });
    await arr.get();
    const old = poolOf(2);
    closeWorkers();
    const fresh = poolOf(2);
    assert.notEqual(fresh, old);
    await fresh.ready();
    const { data } = await arr.get();
    sameValues(elements(data, arr.dtype), readJson("expected", "v3.values.json").codec_zstd.values, "after closeWorkers");
    assert.ok(fresh.decoded > 0);
  }));

test("a Node process with idle workers exits by itself", () => {
  const script = `
    import { startServer } from ${JSON.stringify(join(repoRoot, "tests/server/server.mjs"))};
    import { FetchStore, openArray } from "zom";
    const server = await startServer({ root: ${JSON.stringify(join(fixtures, "v3"))} });
    const arr = await openArray(new FetchStore(server.url), "codec_zstd", { workers: 2 });
    const { data } = await arr.get();
    await server.close();
    console.log("read", data.length);
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8", timeout: 30_000 });
  assert.equal(r.error, undefined, "the process did not exit by itself");
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "read 30");
});
