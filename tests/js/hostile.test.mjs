// Hostile and broken servers (tests/server's misbehaving modes) under FetchStore + open / walk /
// get: each gives the right ZomError, located at its node and key, or the right values; none
// hangs (every test has a timeout well below the test runner's).
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { decodeChunk, FetchStore, open, openArray, registerExtension, slice, unregisterExtension } from "zom";
import { validateDocument, walk } from "zom/validate";
import { logLines, withServer } from "../server/testing.mjs";
import { assertJsonEqual, fixtures, readJson } from "./helpers.mjs";
import { elements, reference, sameValues, zomError } from "./hierarchy-common.mjs";

const V3 = readJson("expected", "v3.values.json");
const FAST = { retryDelay: 1, maxRetryDelay: 5 };
/** A test that must end (pass or fail) within 20 s. */
const bounded = { timeout: 20_000 };
/** One inner chunk of shard c/0/0 (a partial read: index suffix + one range). */
const INNER = [slice(4, 8), slice(0, 4)];

async function assertValues(store, path, selection = null) {
  const arr = await openArray(store, path);
  const { data, shape } = await arr.get(selection);
  const want = reference(V3[path].values, V3[path].shape, selection);
  assert.deepEqual(shape, want.shape, path);
  sameValues(elements(data, arr.dtype), want.values, path);
}

/** A rejection check: the code, the node path, and a key ending with `key`. */
function located(code, path, key, message) {
  return (e) => {
    zomError(code, { path, message })(e);
    assert.ok(typeof e.key === "string" && e.key.endsWith(key), `key ${e.key} should end with ${key}`);
    return true;
  };
}

/** Runs `fn(dir)` on a temporary copy of fixture arrays of v3 (`names`) under a v3 root group. */
async function withCopy(names, fn) {
  const dir = mkdtempSync(join(tmpdir(), "zom-hostile-"));
  try {
    cpSync(join(fixtures, "v3", "zarr.json"), join(dir, "zarr.json"));
    for (const name of names) cpSync(join(fixtures, "v3", name), join(dir, name), { recursive: true });
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const status of [301, 302, 307]) {
  test(`redirects (${status}) are followed: walk, open and partial shard reads give zarr-python's data`, bounded, () =>
    withServer({ redirect: status, s3Listing: true }, async (server) => {
      const store = new FetchStore(`${server.url}/v3`);
      const tree = await walk(store);
      assertJsonEqual(tree, readJson("expected", "v3.zom.json"), `walk through ${status}`);
      assert.deepEqual(tree.errors, []);
      await assertValues(store, "codec_crc32c");
      await assertValues(store, "shard_index_end", INNER);
      await assertValues(store, "shard_index_start", INNER);
      const lines = logLines(server);
      assert.ok(
        lines.some((l) => l.endsWith(` ${status}`)),
        lines.join("\n"),
      );
      assert.ok(
        lines.some((l) => / bytes=-\d+ 206$/.test(l)),
        "the suffix range survived the redirect",
      );
    }),
  );
}

for (const stall of ["headers", "body"]) {
  test(`a server that stalls (${stall}) is given up on after the timeout, with the node and key`, bounded, () =>
    withServer({ stall, stallMatch: "/c/" }, async (server) => {
      const store = new FetchStore(`${server.url}/v3`, { ...FAST, timeout: 200, retries: 1 });
      const arr = await openArray(store, "dtype_int32"); // metadata is not stalled
      const started = performance.now();
      await assert.rejects(
        arr.get(),
        located("HttpError", "dtype_int32", "dtype_int32/c/0", /timed out after 200 ms \(after 2 attempts\)/),
      );
      assert.ok(performance.now() - started < 5000, `gave up after ${performance.now() - started} ms`);
      await assert.rejects(arr.getChunk([1]), located("HttpError", "dtype_int32", "dtype_int32/c/1", /timed out/));
    }),
  );
}

test("a stalled metadata document fails open and walk with its key", bounded, () =>
  withServer({ stall: "headers", stallMatch: "zarr.json" }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`, { ...FAST, timeout: 150, retries: 0 });
    await assert.rejects(open(store, "group1"), located("HttpError", "group1", "group1/zarr.json", /timed out/));
    await assert.rejects(walk(store), located("HttpError", "", "zarr.json", /timed out/));
  }),
);

test("an SPA host's HTML page (200) for a missing document or chunk is an error, never data", bounded, () =>
  withCopy(["dtype_int32", "group1"], async (dir) => {
    unlinkSync(join(dir, "dtype_int32", "c", "1"));
    // Without the fallback the missing chunk reads as the fill value (42).
    await withServer({ root: dir }, async (server) => {
      const { data } = await (await openArray(new FetchStore(server.url), "dtype_int32")).get();
      sameValues(elements(data, "int32"), [...V3.dtype_int32.values.slice(0, 2), 42, 42, V3.dtype_int32.values[4]], "fill");
    });
    await withServer({ root: dir, spaFallback: true }, async (server) => {
      const store = new FetchStore(server.url);
      await assert.rejects(open(store, "nope"), located("InvalidMetadata", "nope", "nope/zarr.json", /invalid JSON/));
      await assert.rejects(openArray(store, "group1/nope"), located("InvalidMetadata", "group1/nope", "group1/nope/zarr.json"));
      // The chunk that is missing reads as HTML, not as the fill value.
      const arr = await openArray(store, "dtype_int32");
      await assert.rejects(arr.get(), located("CodecError", "dtype_int32", "dtype_int32/c/1"));
      const { data } = await arr.get([slice(0, 2)]);
      sameValues(elements(data, "int32"), V3.dtype_int32.values.slice(0, 2), "chunk 0");
    });
  }),
);

test("HTML served with status 200 in place of metadata or chunks is InvalidMetadata or a codec error", bounded, async () => {
  await withServer({ htmlMatch: "group1/zarr.json" }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    await assert.rejects(open(store, "group1"), located("InvalidMetadata", "group1", "group1/zarr.json", /line 1, column 1/));
    const tree = await walk(new FetchStore(`${server.url}/v3-consolidated`));
    assert.deepEqual(tree.errors, []);
  });
  await withServer({ htmlMatch: "/c/" }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    for (const path of ["dtype_int32", "codec_crc32c", "codec_bytes_only"]) {
      const arr = await openArray(store, path);
      // Every chunk is HTML and they are read concurrently: whichever fails first is reported.
      await assert.rejects(arr.get(), (e) => {
        assert.ok(["CodecError", "ChecksumMismatch"].includes(e.code), `${path}: ${e.code} ${e.message}`);
        assert.equal(e.path, path);
        assert.match(e.key, new RegExp(`${path}/c/\\d+(/\\d+)*$`), e.key);
        return true;
      });
    }
    const sharded = await openArray(store, "shard_index_end");
    await assert.rejects(
      sharded.get(INNER),
      (e) => ["CodecError", "ChecksumMismatch"].includes(e.code) && located(e.code, "shard_index_end", "shard_index_end/c/0/0")(e),
    );
  });
});

test("truncated bodies are HttpErrors with the node and key after the retries", bounded, () =>
  withServer({ truncate: true }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`, { ...FAST, retries: 1 });
    await assert.rejects(open(store, "dtype_int32"), located("HttpError", "dtype_int32", "dtype_int32/zarr.json", /after 2 attempts/));
    await assert.rejects(walk(store), located("HttpError", "", "zarr.json"));
  }),
);

test("a wrong Content-Range on a shard's ranges is an HttpError, never shifted bytes", bounded, () =>
  withServer({ wrongContentRange: true }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`, { retries: 0 });
    const arr = await openArray(store, "shard_index_end"); // whole-document GETs are fine
    await assert.rejects(arr.get(INNER), located("HttpError", "shard_index_end", "shard_index_end/c/0/0", /Content-Range/));
    await assert.rejects(arr.getChunk([0, 0]), located("HttpError", "shard_index_end", "shard_index_end/c/0/0"));
  }),
);

test("a 200 with the whole body for a range request is cut to the range: the values are right", bounded, () =>
  withServer({ ignoreRange: true }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    await assertValues(store, "shard_index_end", INNER);
    await assertValues(store, "shard_index_start", INNER);
    assert.ok(logLines(server).every((l) => l.endsWith(" 200")));
  }),
);

/** The CRC-32C of `bytes` (the sharding index's checksum). */
function crc32c(bytes) {
  let crc = ~0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return ~crc >>> 0;
}

/**
 * Sets the index entry of inner chunk [1, 0] of shard c/0/0 of the copy's `shard_index_end`
 * (2 × 2 inner chunks: an index of 4 (offset, nbytes) u64 pairs + crc32c at the end) and makes
 * the checksum right again. `nbytes` undefined keeps the length.
 */
function setShardEntry(dir, offset, nbytes) {
  const file = join(dir, "shard_index_end", "c", "0", "0");
  const shard = new Uint8Array(readFileSync(file));
  const indexStart = shard.length - 4 * 16 - 4;
  const view = new DataView(shard.buffer, shard.byteOffset);
  view.setBigUint64(indexStart + 2 * 16, BigInt(typeof offset === "function" ? offset(shard.length) : offset), true);
  if (nbytes !== undefined) view.setBigUint64(indexStart + 2 * 16 + 8, BigInt(nbytes), true);
  view.setUint32(shard.length - 4, crc32c(shard.subarray(indexStart, shard.length - 4)), true);
  writeFileSync(file, shard);
}

test("a shard whose index points past its end is a CodecError (whole and partial reads)", bounded, () =>
  withCopy(["shard_index_end"], async (dir) => {
    // Inner chunk [1, 0] starts a megabyte past the end.
    setShardEntry(dir, (length) => length + (1 << 20));
    await withServer({ root: dir }, async (server) => {
      const store = new FetchStore(server.url, { retries: 0 });
      const arr = await openArray(store, "shard_index_end");
      const key = "shard_index_end/c/0/0";
      // The whole shard (every inner chunk wanted): the index is checked against its length.
      await assert.rejects(
        arr.get([slice(0, 8), slice(0, 8)]),
        located("CodecError", "shard_index_end", key, /outside the \d+-byte shard/),
      );
      // Only that inner chunk: its range is past the end (416): never zeros or garbage.
      await assert.rejects(arr.get(INNER), located("CodecError", "shard_index_end", key, /0 bytes were read/));
      // The other inner chunks of the shard still read.
      const fine = [slice(0, 4), slice(0, 8)];
      const { data } = await arr.get(fine);
      sameValues(
        elements(data, "int32"),
        reference(V3.shard_index_end.values, V3.shard_index_end.shape, fine).values,
        "intact inner chunks",
      );
    });
  }),
);

test("a shard index entry claiming 300 MB for a 64-byte inner chunk is refused after the index request alone", bounded, () =>
  withCopy(["shard_index_end"], async (dir) => {
    setShardEntry(dir, 0, 300 * 2 ** 20);
    await withServer({ root: dir }, async (server) => {
      const store = new FetchStore(server.url, { retries: 0 });
      const arr = await openArray(store, "shard_index_end");
      store.resetStats();
      await assert.rejects(
        arr.get(INNER),
        located(
          "CodecError",
          "shard_index_end",
          "shard_index_end/c/0/0",
          /claims 314572800 bytes for an inner chunk, more than its codecs can produce \(4161\)/,
        ),
      );
      assert.equal(store.stats.requests, 1, "the index, nothing more");
      assert.equal(store.stats.bytes, 4 * 16 + 4);
      // Near 2^63: refused the same way, no Range request with a rounded number (an array
      // opened afresh: an opened one keeps the indexes it read, as it keeps its metadata).
      setShardEntry(dir, 2n ** 63n - 100n, 50);
      const again = await openArray(store, "shard_index_end");
      store.resetStats();
      await assert.rejects(again.get(INNER), located("CodecError", "shard_index_end", "shard_index_end/c/0/0", /past 2\^53 - 1/));
      assert.equal(store.stats.requests, 1);
      // The shard's other inner chunks still read.
      const fine = [slice(0, 4), slice(0, 8)];
      const { data } = await again.get(fine);
      sameValues(
        elements(data, "int32"),
        reference(V3.shard_index_end.values, V3.shard_index_end.shape, fine).values,
        "intact inner chunks",
      );
    });
  }),
);

test("a body longer than maxResponseBytes is refused by its Content-Length, before it is read", bounded, () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v3`, { maxResponseBytes: 32 });
    const arr = await openArray(new FetchStore(`${server.url}/v3`), "codec_gzip");
    const key = "codec_gzip/c/0/0";
    const whole = await new FetchStore(`${server.url}/v3`).get(key);
    assert.ok(whole.length > 32, "the chunk is larger than the limit");
    await assert.rejects(store.get(key), (e) => {
      zomError("LimitExceeded", { message: /maxResponseBytes = 32/ })(e);
      assert.ok(e.key.endsWith(key), e.key);
      return true;
    });
    // Through open: the metadata document is over the limit too, located at its key.
    await assert.rejects(openArray(store, "codec_gzip"), (e) => {
      zomError("LimitExceeded", { message: /maxResponseBytes = 32/ })(e);
      assert.ok(e.key.endsWith("codec_gzip/zarr.json"), e.key);
      return true;
    });
    assert.deepEqual(arr.shape.length, 2);
  }),
);

test("a streamed body (no Content-Length) is cut off once it grows past maxResponseBytes", bounded, async () => {
  const { createServer } = await import("node:http");
  let written = 0;
  let closed = false;
  // A real server that streams without end: chunked transfer, no Content-Length.
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/octet-stream", "access-control-allow-origin": "*" });
    const block = new Uint8Array(64 * 1024);
    const pump = () => {
      while (!closed && written < 64 * 1024 * 1024) {
        written += block.length;
        if (!res.write(block)) return res.once("drain", pump);
      }
      res.end();
    };
    res.on("close", () => {
      closed = true;
    });
    pump();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const { port } = server.address();
    const store = new FetchStore(`http://127.0.0.1:${port}`, { maxResponseBytes: 1 << 20, retries: 0 });
    await assert.rejects(store.get("endless/c/0"), (e) => {
      zomError("LimitExceeded", { message: /grew past 1048576 bytes/ })(e);
      assert.ok(e.key.endsWith("endless/c/0"), e.key);
      return true;
    });
    // The reader stopped: far less than the 64 MiB the server would have sent.
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(written < 32 * 1024 * 1024, `server wrote ${written} bytes`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test("a redirect loop is not retried: one attempt, undici's 20 redirects, HttpError with the key", bounded, () =>
  withServer(
    { routes: { "/loop/zarr.json": () => ({ status: 302, headers: { location: "/loop/zarr.json" }, body: "" }) } },
    async (server) => {
      const store = new FetchStore(`${server.url}/loop`, { ...FAST, retries: 3 });
      await assert.rejects(open(store), located("HttpError", "", "zarr.json", /redirect count exceeded/));
      assert.equal(store.stats.requests, 1);
      assert.equal(server.stats.requests, 21, "the first request and 20 redirects, once");
    },
  ),
);

test("a body whose Content-Encoding does not decode is not retried", bounded, () =>
  withServer(
    {
      routes: {
        "/gz/zarr.json": () => ({
          status: 200,
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
          body: '{"zarr_format": 3, "node_type": "group"} is not gzip',
        }),
      },
    },
    async (server) => {
      const store = new FetchStore(`${server.url}/gz`, { ...FAST, retries: 3 });
      await assert.rejects(open(store), located("HttpError", "", "zarr.json", /body unreadable \(.*incorrect header check\)$/));
      assert.equal(server.stats.requests, 1);
    },
  ),
);

test("an array that must be understood (ZEP 9) is refused at open, as validateDocument says; registered extensions open", bounded, () =>
  withCopy(["dtype_int32"], async (dir) => {
    const file = join(dir, "dtype_int32", "zarr.json");
    const original = JSON.parse(readFileSync(file, "utf8"));
    const cases = [
      [{ "vendor.checksums": { must_understand: true } }, "unknown key 'vendor.checksums'", "vendor.checksums"],
      [
        { storage_transformers: [{ name: "vendor.offset", configuration: { by: 1 } }] },
        "unknown storage transformer 'vendor.offset'",
        "vendor.offset",
      ],
      [{ extensions: [{ name: "vendor.tiles" }] }, "unknown extension 'vendor.tiles'", "vendor.tiles"],
    ];
    await withServer({ root: dir, s3Listing: true }, async (server) => {
      const store = new FetchStore(server.url, { retries: 0 });
      const want = await (await openArray(store, "dtype_int32")).get();
      for (const [extra, message, name] of cases) {
        const doc = { ...original, ...extra };
        writeFileSync(file, JSON.stringify(doc));
        store.clearCache();
        await assert.rejects(
          openArray(store, "dtype_int32"),
          located("UnsupportedExtension", "dtype_int32", "dtype_int32/zarr.json", new RegExp(message)),
        );
        await assert.rejects(
          open(store, "dtype_int32"),
          located("UnsupportedExtension", "dtype_int32", "dtype_int32/zarr.json", /readers must refuse it/),
        );
        assert.throws(() => decodeChunk(doc, null, [0]), zomError("UnsupportedExtension", { message: new RegExp(message) }));
        const report = validateDocument(doc, { key: "dtype_int32/zarr.json", extensions: true });
        assert.ok(
          report.problems.some((p) => p.kind === "must_understand" && p.severity === "error" && p.message.startsWith(message)),
          JSON.stringify(report),
        );
        // The walk still describes it (validation reports it); reading is what is refused.
        const tree = await walk(store);
        assert.deepEqual(tree.errors, []);
        assert.ok(tree.members.dtype_int32);
        registerExtension(name);
        try {
          const { data } = await (await openArray(store, "dtype_int32")).get();
          assert.deepEqual(data, want.data, `${name} registered: read as before`);
        } finally {
          unregisterExtension(name);
        }
      }
      // must_understand: false is ignored.
      writeFileSync(file, JSON.stringify({ ...original, "vendor.note": { must_understand: false } }));
      store.clearCache();
      assert.deepEqual((await (await openArray(store, "dtype_int32")).get()).data, want.data);
    });
  }),
);
