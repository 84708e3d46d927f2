// FetchStore when things go wrong: retries on 503 (and Retry-After), network errors, timeouts,
// aborts (before, during, while queued, while backing off), the concurrency limit, truncated
// bodies and wrong Content-Ranges. Against tests/server's misbehaving modes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FetchStore, isZomError } from "zom";
import { parseRetryAfter } from "../../pkg/store/http.js";
import { fixture, logLines, timed, withServer } from "../server/testing.mjs";

const CHUNK = "v3/codec_bytes_only/c/0/0";
const BIG = "sample/image/gradient_circles/c/0/1";
const FAST = { retryDelay: 1, maxRetryDelay: 5 };

const code = (c, re) => (e) => {
  assert.ok(isZomError(e), `a ZomError, got ${e?.stack ?? e}`);
  assert.equal(e.code, c, e.message);
  if (re) assert.match(e.message, re);
  return true;
};

test("failEveryOther: a 503 is retried, and the request count shows it", () =>
  withServer({ failEveryOther: true }, async (server) => {
    const store = new FetchStore(server.url, FAST);
    assert.deepEqual(await store.get(CHUNK), fixture(CHUNK)); // request 1: 200
    assert.deepEqual(await store.get(BIG), fixture(BIG)); // request 2: 503, 3: 200
    assert.deepEqual(await store.getRange(BIG, { offset: 5, length: 5 }), fixture(BIG).slice(5, 10)); // 4: 503, 5: 206
    assert.equal(server.stats.requests, 5);
    assert.equal(store.stats.requests, 5);
    assert.deepEqual(
      server.stats.log.map((e) => e.status),
      [200, 503, 200, 503, 206],
    );
    // Without retries the 503 is an HttpError naming the status and the key.
    const once = new FetchStore(server.url, { retries: 0 });
    await assert.rejects(once.get(CHUNK), (e) => code("HttpError", /HTTP 503/)(e) && e.key === `/${CHUNK}`);
    assert.equal(server.stats.requests, 6);
  }));

test("every request failing: retries + 1 attempts, then an HttpError", async () => {
  let calls = 0;
  const store = new FetchStore("http://h/", {
    ...FAST,
    retries: 2,
    fetch: async () => (calls++, new Response("busy", { status: 500, statusText: "Internal Server Error" })),
  });
  await assert.rejects(store.get("/x"), code("HttpError", /HTTP 500 Internal Server Error \(after 3 attempts\)/));
  assert.equal(calls, 3);
  assert.equal(store.stats.requests, 3);
  // 4xx other than 408/425/429 is not retried.
  calls = 0;
  const s4 = new FetchStore("http://h/", { ...FAST, fetch: async () => (calls++, new Response("no", { status: 401 })) });
  await assert.rejects(s4.get("/x"), code("HttpError", /401/));
  assert.equal(calls, 1);
  // 429 is retried.
  calls = 0;
  const s429 = new FetchStore("http://h/", {
    ...FAST,
    fetch: async () => (++calls < 3 ? new Response("slow down", { status: 429 }) : new Response("ok")),
  });
  assert.deepEqual(await s429.get("/x"), new TextEncoder().encode("ok"));
  assert.equal(calls, 3);
});

test("Retry-After is respected, up to maxRetryDelay", () =>
  withServer({ failEveryOther: true, retryAfter: 1 }, async (server) => {
    const patient = new FetchStore(server.url, { retryDelay: 1, maxRetryDelay: 5000 });
    await patient.get(CHUNK);
    const slow = await timed(() => patient.get(BIG));
    assert.ok(!slow.error, slow.error);
    assert.ok(slow.ms >= 900, `waited ${slow.ms} ms for Retry-After: 1`);
    const capped = new FetchStore(server.url, { retryDelay: 1, maxRetryDelay: 20 });
    await capped.get(CHUNK);
    const fast = await timed(() => capped.get(BIG));
    assert.ok(!fast.error, fast.error);
    assert.ok(fast.ms < 1000, `capped wait took ${fast.ms} ms, as long as Retry-After's second`);
    assert.equal(parseRetryAfter("3"), 3000);
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")), 10_000);
    assert.equal(parseRetryAfter("soon"), null);
  }));

test("network errors are retried, then an HttpError", async () => {
  // A port nobody listens on: start a server, note its URL, close it.
  const url = await withServer({}, async (server) => server.url);
  const store = new FetchStore(url, { ...FAST, retries: 2 });
  await assert.rejects(store.get("/x"), code("HttpError", /network error.*after 3 attempts/));
  assert.equal(store.stats.requests, 3);
  let calls = 0;
  const flaky = new FetchStore("http://h/", {
    ...FAST,
    fetch: async () => {
      if (++calls === 1) throw new TypeError("fetch failed");
      return new Response("ok");
    },
  });
  assert.deepEqual(await flaky.get("/x"), new TextEncoder().encode("ok"));
  assert.equal(calls, 2);
});

test("timeout: a slow server is given up on after `timeout` ms per attempt", () =>
  withServer({ latencyMs: 2000 }, async (server) => {
    const store = new FetchStore(server.url, { timeout: 50, retries: 0 });
    const r = await timed(() => store.get(CHUNK));
    assert.ok(r.error, "it fails");
    code("HttpError", /timed out after 50 ms/)(r.error);
    assert.ok(r.ms < 2000, `gave up after ${r.ms} ms, not when the answer came`);
    const twice = new FetchStore(server.url, { timeout: 50, retries: 1, ...FAST });
    await assert.rejects(twice.get(CHUNK), code("HttpError", /timed out.*after 2 attempts/));
    assert.equal(twice.stats.requests, 2);
    // A timeout long enough lets it through.
    const patient = new FetchStore(server.url, { timeout: 5000 });
    assert.deepEqual(await patient.get(CHUNK), fixture(CHUNK));
  }));

test("abort: before the call, during the request, while backing off, while queued; never retried", () =>
  withServer({ latencyMs: 1500 }, async (server) => {
    const store = new FetchStore(server.url, FAST);
    const done = AbortSignal.abort(new Error("stop"));
    const signal = done;
    for (const call of [
      () => store.get(CHUNK, { signal }),
      () => store.getRange(CHUNK, { offset: 0, length: 2 }, { signal }),
      () => store.getRange(CHUNK, { suffixLength: 2 }, { signal }),
      () => store.list("/", { signal }),
    ]) {
      await assert.rejects(call(), code("Aborted"));
    }
    await assert.rejects(store.get("/v3/zarr.json", { signal: done }), code("Aborted"));
    await assert.rejects(store.get(CHUNK, { signal: done }), (e) => code("Aborted")(e) && e.key === `/${CHUNK}`);
    assert.equal(store.stats.requests, 0);

    const c = new AbortController();
    setTimeout(() => c.abort(), 30);
    const r = await timed(() => store.get(CHUNK, { signal: c.signal }));
    code("Aborted")(r.error);
    assert.ok(r.ms < 1500, `aborted after ${r.ms} ms, not when the answer came`);
    await new Promise((ok) => setTimeout(ok, 400));
    assert.equal(store.stats.requests, 1, "no retry after an abort");
    assert.equal(server.stats.requests, 1);

    // Queued behind a slot: aborted without ever being sent.
    const one = new FetchStore(server.url, { concurrency: 1 });
    const c2 = new AbortController();
    const first = one.get(CHUNK);
    const queued = one.get(BIG, { signal: c2.signal });
    c2.abort();
    await assert.rejects(queued, code("Aborted"));
    assert.deepEqual(await first, fixture(CHUNK));
    assert.equal(one.stats.requests, 1);
  }));

test("abort while backing off before a retry", () =>
  withServer({ failEveryOther: true }, async (server) => {
    const store = new FetchStore(server.url, { retryDelay: 5000, maxRetryDelay: 5000 });
    await store.get(CHUNK);
    const c = new AbortController();
    setTimeout(() => c.abort(), 50);
    const r = await timed(() => store.get(BIG, { signal: c.signal }));
    code("Aborted")(r.error);
    assert.ok(r.ms < 5000, `aborted after ${r.ms} ms, not when the retry was due`);
    assert.equal(server.stats.requests, 2);
  }));

test("abort of one of two coalesced or cache-shared calls leaves the other alone", () =>
  withServer({ latencyMs: 100 }, async (server) => {
    const store = new FetchStore(server.url);
    const c = new AbortController();
    const a = store.getRange(BIG, { offset: 0, length: 10 }, { signal: c.signal });
    const b = store.getRange(BIG, { offset: 10, length: 10 });
    const m1 = store.get("/v3/zarr.json", { signal: c.signal });
    const m2 = store.get("/v3/zarr.json");
    setTimeout(() => c.abort(), 20);
    await assert.rejects(a, code("Aborted"));
    await assert.rejects(m1, code("Aborted"));
    assert.deepEqual(await b, fixture(BIG).slice(10, 20));
    assert.deepEqual(await m2, fixture("v3/zarr.json"));
    assert.equal(server.stats.requests, 2);
    // When every caller of a shared request aborts, the request is aborted and not cached.
    const c3 = new AbortController();
    const lone = store.get("/v2/.zgroup", { signal: c3.signal });
    setTimeout(() => c3.abort(), 20);
    await assert.rejects(lone, code("Aborted"));
    assert.deepEqual(await store.get("/v2/.zgroup"), fixture("v2/.zgroup"));
    assert.equal(server.stats.requests, 4);
  }));

test("the concurrency limit holds: never more requests in flight than `concurrency`", () =>
  withServer({ latencyMs: 40 }, async (server) => {
    const keys = Array.from({ length: 12 }, (_, i) => `/v2/dtype_int32/${i % 3}`);
    const store = new FetchStore(server.url, { concurrency: 3 });
    const got = await Promise.all(keys.map((k) => store.get(k)));
    assert.equal(got.length, 12);
    assert.deepEqual(got[4], fixture("v2/dtype_int32/1"));
    assert.equal(server.stats.requests, 12);
    assert.equal(server.stats.maxInFlight, 3);
    server.resetStats();
    const wide = new FetchStore(server.url, { concurrency: 16 });
    await Promise.all(["0", "1", "2", ".zarray", ".zattrs"].map((k) => wide.get(`/v2/dtype_int32/${k}`)));
    assert.ok(server.stats.maxInFlight > 3, `in flight: ${server.stats.maxInFlight}`);
  }));

test("a truncated body (connection cut before Content-Length) is an HttpError after retries", () =>
  withServer({ truncate: true }, async (server) => {
    const store = new FetchStore(server.url, { ...FAST, retries: 1 });
    await assert.rejects(store.get(BIG), code("HttpError", /after 2 attempts/));
    assert.equal(server.stats.requests, 2);
  }));

test("a body shorter than its Content-Length (from a fetch that does not notice) is an HttpError", async () => {
  const store = new FetchStore("http://h/", {
    ...FAST,
    retries: 0,
    fetch: async () => new Response(new Uint8Array(10), { headers: { "content-length": "20" } }),
  });
  await assert.rejects(store.get("/x"), code("HttpError", /10 bytes, Content-Length says 20/));
  // A content-encoded body is not compared (Content-Length counts the encoded bytes).
  const gz = new FetchStore("http://h/", {
    fetch: async () => new Response(new Uint8Array(10), { headers: { "content-length": "4", "content-encoding": "gzip" } }),
  });
  assert.equal((await gz.get("/x")).length, 10);
});

test("a 206 whose Content-Range does not match the request is an HttpError, never wrong bytes", () =>
  withServer({ wrongContentRange: true }, async (server) => {
    const store = new FetchStore(server.url, { retries: 0 });
    await assert.rejects(
      store.getRange(BIG, { offset: 10, length: 20 }),
      code("HttpError", /Content-Range "bytes 11-30\/4213" does not match the requested bytes=10-29/),
    );
    await assert.rejects(store.getRange(BIG, { suffixLength: 20 }), code("HttpError", /Content-Range "bytes 4194-4213\/4213"/));
    assert.deepEqual(
      logLines(server).map((l) => l.split(" ").at(-1)),
      ["206", "206"],
    );
  }));

test("206 answers are checked against their body length, and without Content-Range against the request", async () => {
  const reply = (body, headers) =>
    new FetchStore("http://h/", { retries: 0, fetch: async () => new Response(new Uint8Array(body), { status: 206, headers }) });
  await assert.rejects(
    reply(5, { "content-range": "bytes 0-9/100" }).getRange("/x", { offset: 0, length: 10 }),
    code("HttpError", /5 bytes/),
  );
  assert.equal((await reply(10, { "content-range": "bytes 0-9/10" }).getRange("/x", { offset: 0, length: 20 }))?.length, 10);
  await assert.rejects(
    reply(10, { "content-range": "bytes 0-9/11" }).getRange("/x", { offset: 0, length: 20 }),
    code("HttpError", /does not match/),
  );
  await assert.rejects(
    reply(10, { "content-range": "nonsense" }).getRange("/x", { offset: 0, length: 10 }),
    code("HttpError", /malformed Content-Range/),
  );
  // No Content-Range (a CORS setup that does not expose it): the length must be the one asked.
  assert.equal((await reply(10, {}).getRange("/x", { offset: 0, length: 10 })).length, 10);
  await assert.rejects(reply(9, {}).getRange("/x", { offset: 0, length: 10 }), code("HttpError", /without Content-Range/));
  await assert.rejects(reply(11, {}).getRange("/x", { suffixLength: 10 }), code("HttpError", /without Content-Range/));
  // Suffix: the last min(n, total) bytes.
  assert.equal((await reply(4, { "content-range": "bytes 0-3/4" }).getRange("/x", { suffixLength: 10 })).length, 4);
  await assert.rejects(
    reply(4, { "content-range": "bytes 0-3/8" }).getRange("/x", { suffixLength: 4 }),
    code("HttpError", /does not match/),
  );
});

test("modes combine: latency + every other request failing + suffix refused", () =>
  withServer({ latencyMs: 10, failEveryOther: true, refuseSuffix: true }, async (server) => {
    const store = new FetchStore(server.url, FAST);
    const whole = fixture(BIG);
    const got = await Promise.all([
      store.get(CHUNK),
      store.getRange(BIG, { suffixLength: 100 }),
      store.getRange(BIG, { offset: 0, length: 100 }),
    ]);
    assert.deepEqual(got, [fixture(CHUNK), whole.slice(-100), whole.slice(0, 100)]);
    assert.equal(server.stats.log.filter((e) => e.status === 503).length, Math.floor(server.stats.requests / 2));
  }));
