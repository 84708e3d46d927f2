// FetchStore against a real HTTP server (tests/server) serving tests/fixtures: whole values,
// prefix and suffix ranges (and the HEAD fallback when suffix ranges are refused), 200 answers
// to range requests, 404/403, the metadata cache, coalescing and the counters. Request counts
// come from the server's own log.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FetchStore, isZomError } from "zom";
import { fixture, logLines, withServer } from "../server/testing.mjs";

const CHUNK = "v3/codec_bytes_only/c/0/0";
const SHARD = "v3/shard_index_end/c/0/0";
const BIG = "sample/image/gradient_circles/c/0/1"; // 4213 bytes

const code = (c, re) => (e) => {
  assert.ok(isZomError(e), `a ZomError, got ${e}`);
  assert.equal(e.code, c);
  if (re) assert.match(e.message, re);
  return true;
};

test("get: whole values, keys with or without '/', base URLs with or without a trailing '/'", () =>
  withServer({}, async (server) => {
    for (const base of [`${server.url}/v3`, `${server.url}/v3/`, `${server.url}/v3//`]) {
      const store = new FetchStore(base);
      assert.deepEqual(await store.get("/codec_bytes_only/c/0/0"), fixture(CHUNK));
      assert.deepEqual(await store.get("codec_bytes_only/c/0/0"), fixture(CHUNK));
      assert.equal(store.stats.requests, 2);
      assert.equal(store.stats.bytes, 2 * fixture(CHUNK).length);
    }
    const root = new FetchStore(server.url);
    assert.deepEqual(await root.get("/v3/zarr.json"), fixture("v3/zarr.json"));
    assert.ok(
      server.stats.log.every((e) => !e.url.includes("//")),
      logLines(server).join("\n"),
    );
  }));

test("get: a missing key is undefined (404), and costs one request", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v3/`);
    assert.equal(await store.get("/nope/c/0"), undefined);
    assert.equal(await store.getRange("/nope/c/0", { offset: 0, length: 4 }), undefined);
    assert.equal(await store.getRange("/nope/c/0", { suffixLength: 4 }), undefined);
    assert.equal(server.stats.requests, 3);
  }));

test("getRange: prefix ranges are 206 answers of exactly the asked bytes", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/`);
    const whole = fixture(SHARD);
    assert.deepEqual(await store.getRange(SHARD, { offset: 3, length: 17 }), whole.slice(3, 20));
    assert.deepEqual(await store.getRange(SHARD, { offset: 0, length: whole.length }), whole);
    // Past the end: what there is; beyond it: nothing.
    assert.deepEqual(await store.getRange(SHARD, { offset: whole.length - 5, length: 100 }), whole.slice(-5));
    assert.deepEqual(await store.getRange(SHARD, { offset: whole.length + 10, length: 4 }), new Uint8Array(0));
    assert.deepEqual(
      server.stats.log.map((e) => [e.range, e.status]),
      [
        ["bytes=3-19", 206],
        [`bytes=0-${whole.length - 1}`, 206],
        [`bytes=${whole.length - 5}-${whole.length + 94}`, 206],
        [`bytes=${whole.length + 10}-${whole.length + 13}`, 416],
      ],
    );
  }));

test("getRange: suffix ranges (bytes=-n) in one request; longer than the value gives all of it", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(server.url);
    const whole = fixture(SHARD);
    assert.deepEqual(await store.getRange(`/${SHARD}`, { suffixLength: 16 }), whole.slice(-16));
    assert.deepEqual(await store.getRange(`/${SHARD}`, { suffixLength: whole.length + 50 }), whole);
    assert.deepEqual(logLines(server), [`GET /${SHARD} bytes=-16 206`, `GET /${SHARD} bytes=-${whole.length + 50} 206`]);
  }));

for (const refuseSuffix of [true, 416, 501, "ignore"]) {
  test(`getRange: a server refusing suffix ranges (${refuseSuffix === true ? 400 : refuseSuffix}) → HEAD + absolute range, remembered`, () =>
    withServer({ refuseSuffix }, async (server) => {
      const store = new FetchStore(server.url);
      const whole = fixture(SHARD);
      const n = whole.length;
      // A prefix range first, so that the store knows the server honours ranges at all.
      assert.deepEqual(await store.getRange(SHARD, { offset: 0, length: 4 }), whole.slice(0, 4));
      server.resetStats();
      assert.deepEqual(await store.getRange(SHARD, { suffixLength: 16 }), whole.slice(-16));
      const first = {
        true: [`GET /${SHARD} bytes=-16 400`, `HEAD /${SHARD} 200`, `GET /${SHARD} bytes=${n - 16}-${n - 1} 206`],
        416: [`GET /${SHARD} bytes=-16 416`, `GET /${SHARD} bytes=${n - 16}-${n - 1} 206`], // 416 tells the length
        501: [`GET /${SHARD} bytes=-16 501`, `HEAD /${SHARD} 200`, `GET /${SHARD} bytes=${n - 16}-${n - 1} 206`],
        ignore: [`GET /${SHARD} bytes=-16 200`], // the whole value, cut locally
      }[String(refuseSuffix)];
      assert.deepEqual(logLines(server), first);
      server.resetStats();
      // Later suffix reads skip the suffix attempt.
      assert.deepEqual(
        await store.getRange("v3/shard_index_end/c/0/1", { suffixLength: 8 }),
        fixture("v3/shard_index_end/c/0/1").slice(-8),
      );
      const m = fixture("v3/shard_index_end/c/0/1").length;
      assert.deepEqual(logLines(server), [
        "HEAD /v3/shard_index_end/c/0/1 200",
        `GET /v3/shard_index_end/c/0/1 bytes=${m - 8}-${m - 1} 206`,
      ]);
      // Missing values stay missing through the fallback.
      assert.equal(await store.getRange("/nope", { suffixLength: 8 }), undefined);
    }));
}

test("getRange: a server that ignores Range (200) → the value is cut locally", () =>
  withServer({ ignoreRange: true }, async (server) => {
    const store = new FetchStore(server.url);
    const whole = fixture(BIG);
    assert.deepEqual(await store.getRange(BIG, { offset: 100, length: 50 }), whole.slice(100, 150));
    assert.deepEqual(await store.getRange(BIG, { suffixLength: 30 }), whole.slice(-30));
    assert.deepEqual(await store.getRange(BIG, { offset: whole.length + 1, length: 3 }), new Uint8Array(0));
    assert.equal(server.stats.requests, 3);
    assert.ok(server.stats.log.every((e) => e.status === 200));
    // The slices are their own buffers, not views of the whole value.
    assert.equal((await store.getRange(BIG, { offset: 1, length: 2 })).buffer.byteLength, 2);
  }));

test("403 for missing keys: an HttpError unless forbiddenAsMissing", () =>
  withServer({ forbiddenForMissing: true }, async (server) => {
    const strict = new FetchStore(`${server.url}/v3`);
    await assert.rejects(strict.get("/nope/c/0"), (e) => {
      code("HttpError", /403/)(e);
      assert.equal(e.key, "/nope/c/0");
      return true;
    });
    await assert.rejects(strict.get("/nope/zarr.json"), code("HttpError", /403/));
    await assert.rejects(strict.getRange("/nope", { offset: 0, length: 1 }), code("HttpError", /403/));
    await assert.rejects(strict.getRange("/nope", { suffixLength: 1 }), code("HttpError", /403/));
    const lenient = new FetchStore(`${server.url}/v3`, { forbiddenAsMissing: true });
    assert.equal(await lenient.get("/nope/c/0"), undefined);
    assert.equal(await lenient.get("/nope/.zarray"), undefined);
    assert.equal(await lenient.getRange("/nope", { offset: 0, length: 1 }), undefined);
    assert.equal(await lenient.getRange("/nope", { suffixLength: 1 }), undefined);
    assert.deepEqual(await lenient.get("/zarr.json"), fixture("v3/zarr.json"));
  }));

test("metadata documents are cached (also their absence); others are not", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v2`);
    const doc = fixture("v2/dtype_int32/.zarray");
    assert.deepEqual(await store.get("/dtype_int32/.zarray"), doc);
    assert.equal(server.stats.requests, 1);
    const again = await store.get("/dtype_int32/.zarray");
    assert.deepEqual(again, doc);
    assert.equal(server.stats.requests, 1, "the second get costs no request");
    // Callers get copies: changing one does not change the cache.
    again.fill(0);
    assert.deepEqual(await store.get("/dtype_int32/.zarray"), doc);
    // Misses are cached too.
    assert.equal(await store.get("/dtype_int32/.zgroup"), undefined);
    assert.equal(await store.get("/dtype_int32/.zgroup"), undefined);
    assert.equal(server.stats.requests, 2);
    // Concurrent gets of one document share the request.
    const both = await Promise.all([store.get("/dtype_int32/.zattrs"), store.get("dtype_int32/.zattrs")]);
    assert.deepEqual(both[0], both[1]);
    assert.equal(server.stats.requests, 3);
    // Every kind of metadata key.
    for (const k of ["/.zgroup", "/.zattrs", "/.zmetadata", "/zarr.json"]) {
      await store.get(k);
      await store.get(k);
    }
    assert.equal(server.stats.requests, 7);
    // Chunks are not cached.
    await store.get("/dtype_int32/0");
    await store.get("/dtype_int32/0");
    assert.equal(server.stats.requests, 9);
    store.clearCache();
    await store.get("/dtype_int32/.zarray");
    assert.equal(server.stats.requests, 10);
    const uncached = new FetchStore(`${server.url}/v2`, { cacheMetadata: false });
    await uncached.get("/dtype_int32/.zarray");
    await uncached.get("/dtype_int32/.zarray");
    assert.equal(uncached.stats.requests, 2);
  }));

test("get with maxBytes: a longer value is LimitExceeded, not cached; a cached value serves stricter callers", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v2`);
    const doc = fixture("v2/dtype_int32/.zarray");
    const tooLong = code("LimitExceeded", new RegExp(`is ${doc.length} bytes \\(Content-Length\\), over the limit maxBytes = 10$`));
    await assert.rejects(store.get("/dtype_int32/.zarray", { maxBytes: 10 }), tooLong);
    assert.equal(store.stats.bytes, 0, "refused by its Content-Length, before the body was read");
    // Not cached: the next get asks again and gets it.
    assert.deepEqual(await store.get("/dtype_int32/.zarray", { maxBytes: doc.length }), doc);
    assert.equal(server.stats.requests, 2);
    // The cached value answers a stricter caller with the error, and a laxer one with a new read.
    await assert.rejects(
      store.get("/dtype_int32/.zarray", { maxBytes: 10 }),
      code("LimitExceeded", /is \d+ bytes, over the limit maxBytes = 10$/),
    );
    assert.equal(server.stats.requests, 2);
    assert.deepEqual(await store.get("/dtype_int32/.zarray"), doc);
    assert.equal(server.stats.requests, 3);
    // Chunks too (not cached).
    await assert.rejects(store.get("/dtype_int32/0", { maxBytes: 1 }), code("LimitExceeded", /maxBytes = 1$/));
    await assert.rejects(store.get("/dtype_int32/0", { maxBytes: -1 }), code("InvalidArgument", /maxBytes/));
  }));

test("coalescing: getRange calls on one key in one tick within the gap are one request", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(server.url);
    const whole = fixture(BIG);
    // Adjacent.
    let [a, b] = await Promise.all([store.getRange(BIG, { offset: 0, length: 100 }), store.getRange(BIG, { offset: 100, length: 50 })]);
    assert.deepEqual(a, whole.slice(0, 100));
    assert.deepEqual(b, whole.slice(100, 150));
    assert.deepEqual(logLines(server), [`GET /${BIG} bytes=0-149 206`]);
    // Overlapping, out of order, and a small gap.
    server.resetStats();
    const parts = await Promise.all([
      store.getRange(BIG, { offset: 900, length: 10 }),
      store.getRange(BIG, { offset: 200, length: 300 }),
      store.getRange(BIG, { offset: 250, length: 10 }),
      store.getRange(BIG, { offset: 500, length: 1 }),
    ]);
    assert.deepEqual(parts, [whole.slice(900, 910), whole.slice(200, 500), whole.slice(250, 260), whole.slice(500, 501)]);
    assert.deepEqual(logLines(server), [`GET /${BIG} bytes=200-909 206`]);
    // Far apart (beyond the gap): two requests; other keys: their own requests.
    server.resetStats();
    [a, b] = await Promise.all([
      store.getRange(BIG, { offset: 0, length: 10 }),
      store.getRange(BIG, { offset: 3000, length: 10 }),
      store.getRange(SHARD, { offset: 0, length: 10 }),
    ]);
    assert.deepEqual([a, b], [whole.slice(0, 10), whole.slice(3000, 3010)]);
    assert.equal(server.stats.requests, 3);
    // Calls in different ticks are not merged.
    server.resetStats();
    await store.getRange(BIG, { offset: 0, length: 10 });
    await store.getRange(BIG, { offset: 10, length: 10 });
    assert.equal(server.stats.requests, 2);
    // Merged requests stop at maxSize; coalesce: false turns it off.
    for (const [options, requests] of [
      [{ coalesce: { maxSize: 150 } }, 2],
      [{ coalesce: { gap: 0 } }, 2],
      [{ coalesce: false }, 3],
    ]) {
      server.resetStats();
      const s = new FetchStore(server.url, options);
      const got = await Promise.all([
        s.getRange(BIG, { offset: 0, length: 100 }),
        s.getRange(BIG, { offset: 100, length: 100 }),
        s.getRange(BIG, { offset: 201, length: 10 }),
      ]);
      assert.deepEqual(got, [whole.slice(0, 100), whole.slice(100, 200), whole.slice(201, 211)]);
      assert.equal(server.stats.requests, requests, JSON.stringify(options));
    }
  }));

test("coalescing with a server that ignores Range, and with a missing key", () =>
  withServer({ ignoreRange: true }, async (server) => {
    const store = new FetchStore(server.url);
    const whole = fixture(BIG);
    const got = await Promise.all([store.getRange(BIG, { offset: 10, length: 5 }), store.getRange(BIG, { offset: 15, length: 5 })]);
    assert.deepEqual(got, [whole.slice(10, 15), whole.slice(15, 20)]);
    const none = await Promise.all([store.getRange("/nope", { offset: 0, length: 5 }), store.getRange("/nope", { offset: 5, length: 5 })]);
    assert.deepEqual(none, [undefined, undefined]);
    assert.equal(server.stats.requests, 2);
  }));

test("stats count requests and body bytes; resetStats zeroes them", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(server.url, { cacheMetadata: false });
    const stats = store.stats;
    await store.get(CHUNK);
    await store.getRange(BIG, { offset: 0, length: 10 });
    await store.get("/nope");
    assert.deepEqual(stats, { requests: 3, bytes: fixture(CHUNK).length + 10 });
    store.resetStats();
    assert.equal(store.stats, stats, "the same live object");
    assert.deepEqual(stats, { requests: 0, bytes: 0 });
  }));

test("zero-length ranges ask HEAD whether the value exists", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(server.url);
    assert.deepEqual(await store.getRange(BIG, { offset: 5, length: 0 }), new Uint8Array(0));
    assert.deepEqual(await store.getRange(BIG, { suffixLength: 0 }), new Uint8Array(0));
    assert.equal(await store.getRange("/nope", { suffixLength: 0 }), undefined);
    assert.deepEqual(logLines(server), [`HEAD /${BIG} 200`, `HEAD /${BIG} 200`, "HEAD /nope 404"]);
  }));

test("invalid keys and ranges are InvalidArgument, before any request", async () => {
  let calls = 0;
  const store = new FetchStore("http://127.0.0.1:9/", { fetch: async () => (calls++, new Response("x")) });
  await assert.rejects(store.get("/a/../../etc/passwd"), code("InvalidArgument"));
  await assert.rejects(store.get("./x"), code("InvalidArgument"));
  for (const bad of [
    { offset: -1, length: 2 },
    { offset: 0.5, length: 1 },
    { offset: 0 },
    { suffixLength: -3 },
    null,
    { offset: 2 ** 53 - 1, length: 2 },
  ]) {
    await assert.rejects(store.getRange("/a", bad), code("InvalidArgument"), JSON.stringify(bad));
  }
  assert.equal(calls, 0);
  assert.throws(() => new FetchStore("http://x/", { listing: "ftp" }), code("InvalidArgument"));
  assert.throws(() => new FetchStore("http://x/", { timeout: -1 }), code("InvalidArgument"));
});

test("URLs: segments percent-encoded, the base URL's query kept, custom headers and credentials sent", async () => {
  const seen = [];
  const store = new FetchStore("https://example.org/data/x.zarr/?sig=abc%3D", {
    headers: { Authorization: "Bearer t" },
    credentials: "include",
    fetch: async (url, init) => {
      seen.push({
        url,
        auth: new Headers(init.headers).get("authorization"),
        range: new Headers(init.headers).get("range"),
        credentials: init.credentials,
      });
      return new Response(new Uint8Array([1, 2, 3]), { status: 200 });
    },
  });
  assert.equal(store.urlOf("/a b/c#d/zarr.json"), "https://example.org/data/x.zarr/a%20b/c%23d/zarr.json?sig=abc%3D");
  await store.get("/a+b/0");
  await store.getRange("/a/0", { offset: 1, length: 1 });
  assert.deepEqual(seen, [
    { url: "https://example.org/data/x.zarr/a%2Bb/0?sig=abc%3D", auth: "Bearer t", range: null, credentials: "include" },
    { url: "https://example.org/data/x.zarr/a/0?sig=abc%3D", auth: "Bearer t", range: "bytes=1-1", credentials: "include" },
  ]);
});

test("a 206 to a request without Range, and other unexpected statuses, are HttpErrors", async () => {
  const answer = (status, body = "xy", headers = {}) =>
    new FetchStore("http://h/", { retries: 0, fetch: async () => new Response(status === 204 ? null : body, { status, headers }) });
  await assert.rejects(answer(206, "xy", { "content-range": "bytes 0-1/2" }).get("/k"), code("HttpError", /206/));
  await assert.rejects(answer(401).get("/k"), code("HttpError", /HTTP 401/));
  await assert.rejects(answer(400).getRange("/k", { offset: 0, length: 1 }), code("HttpError", /HTTP 400/));
  await assert.rejects(answer(418).getRange("/k", { suffixLength: 1 }), code("HttpError", /HTTP 418/));
  assert.deepEqual(await answer(410).get("/k"), undefined);
});
