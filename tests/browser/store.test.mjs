// FetchStore in headless Chromium, cross-origin: the page comes from one local server (the
// repository) and reads tests/fixtures from another (tests/server, another port), so CORS is
// real: preflights for suffix ranges, Content-Range readable only because the server exposes it,
// filtered headers (no Content-Length check on CORS answers). Also S3 listing and the HEAD
// fallback for refused suffix ranges, and an abort; and a ReferenceStore (kerchunk) dataset.
import assert from "node:assert/strict";
import { readdirSync, rmSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { after, before, test } from "node:test";
import { repoRoot } from "../js/helpers.mjs";
import { startServer } from "../server/server.mjs";
import { expectedListing, fixture, fixtures } from "../server/testing.mjs";
import { launchChromium } from "./chromium.mjs";
import { serve } from "./server.mjs";

const SHARD = "v3/shard_index_end/c/0/0";

let site;
let data;
let refusing;
let browser;
let profile;
let page;

before(async () => {
  site = await serve(repoRoot);
  data = await startServer({ root: fixtures, s3Listing: true, maxKeys: 5 });
  refusing = await startServer({ root: fixtures, refuseSuffix: true, latencyMs: 200 });
  ({ browser, profile } = await launchChromium("zom-chromium-store-"));
  page = await browser.newPage();
  // Any page of the site: it gives the page an origin other than the data servers'.
  await page.goto(`${site.url}/package.json`);
});

after(async () => {
  await browser?.close();
  await Promise.all([site?.close(), data?.close(), refusing?.close()]);
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Runs `fn(FetchStore, arg)` in the page; bytes come back as plain arrays. */
function inPage(fn, arg) {
  return page.evaluate(
    async ([source, arg]) => {
      // Through the "zom" entry: FetchStore reads answers with the WebAssembly it carries.
      const { FetchStore } = await import("/pkg/index.js");
      const f = new Function(`return (${source})`)();
      const plain = (v) => (v instanceof Uint8Array ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v);
      try {
        return { value: plain(await f(FetchStore, arg)) };
      } catch (e) {
        return { error: { name: e?.name, code: e?.code ?? null, message: String(e?.message ?? e) } };
      }
    },
    [fn.toString(), arg],
  );
}

const bytes = (path) => Array.from(fixture(path));

test("cross-origin get, prefix and suffix ranges, missing keys, in Chromium", async () => {
  data.resetStats();
  const r = await inPage(async (FetchStore, url) => {
    const store = new FetchStore(url);
    const out = [
      await store.get("/v3/zarr.json"),
      await store.getRange("/v3/shard_index_end/c/0/0", { offset: 3, length: 10 }),
      await store.getRange("/v3/shard_index_end/c/0/0", { suffixLength: 16 }),
      (await store.get("/v3/nope")) ?? "missing",
    ];
    return [out, store.stats.requests];
  }, data.url);
  assert.ok(!r.error, JSON.stringify(r.error));
  const [out, requests] = r.value;
  assert.deepEqual(out, [bytes("v3/zarr.json"), bytes(SHARD).slice(3, 13), bytes(SHARD).slice(-16), "missing"]);
  assert.equal(requests, 4);
  assert.equal(data.stats.requests, 4);
  assert.ok(data.stats.preflights >= 1, "the suffix Range needs a CORS preflight");
});

test("cross-origin S3 listing with paging, in Chromium", async () => {
  const r = await inPage(async (FetchStore, url) => new FetchStore(`${url}/v3`).list("/group1/"), data.url);
  assert.ok(!r.error, JSON.stringify(r.error));
  assert.deepEqual(r.value, expectedListing("v3/group1", "/group1/"));
});

test("suffix ranges refused cross-origin: HEAD + absolute range; and an abort", async () => {
  const r = await inPage(async (FetchStore, url) => {
    const store = new FetchStore(url);
    const tail = await store.getRange("/v3/shard_index_end/c/0/0", { suffixLength: 16 });
    const c = new AbortController();
    setTimeout(() => c.abort(), 20);
    let aborted = null;
    try {
      await store.get("/v3/codec_bytes_only/c/0/0", { signal: c.signal });
    } catch (e) {
      aborted = e.code;
    }
    return [tail, aborted];
  }, refusing.url);
  assert.ok(!r.error, JSON.stringify(r.error));
  assert.deepEqual(r.value, [bytes(SHARD).slice(-16), "Aborted"]);
});

test("ranges of one file asked for at once are in flight at once (Range requests bypass Chromium's per-URL cache lock)", async (t) => {
  const slow = await startServer({ root: fixtures, latencyMs: 300 });
  try {
    const inFlight = async (rangeCache) => {
      slow.resetStats();
      const r = await inPage(
        async (FetchStore, [url, key, rangeCache]) => {
          const store = new FetchStore(url, { coalesce: false, ...(rangeCache ? { rangeCache } : {}) });
          return Promise.all([0, 8, 16, 24].map((offset) => store.getRange(key, { offset, length: 4 })));
        },
        [slow.url, SHARD, rangeCache],
      );
      assert.ok(!r.error, JSON.stringify(r.error));
      assert.deepEqual(
        r.value,
        [0, 8, 16, 24].map((o) => bytes(SHARD).slice(o, o + 4)),
      );
      return slow.stats.maxInFlight;
    };
    assert.equal(await inFlight(undefined), 4);
    t.diagnostic(`with rangeCache "default": ${await inFlight("default")} in flight at most`);
  } finally {
    await slow.close();
  }
});

test("ZipStore over cross-origin Range requests, and DirectoryHandleStore over a folder handle (OPFS)", async () => {
  const temperature = join(fixtures, "sample", "measurements", "temperature");
  const chunks = readdirSync(temperature, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const files = [
    "zarr.json",
    "measurements/zarr.json",
    ...chunks.map((e) => relative(join(fixtures, "sample"), join(e.parentPath, e.name)).split(sep).join("/")),
  ];
  const want = await page.evaluate(
    async ([zipUrl, base, files]) => {
      const { DirectoryHandleStore, FetchStore, ZipStore, openArray } = await import("/pkg/index.js");
      const { walk } = await import("/pkg/validate.js");
      const values = async (store) =>
        Array.from((await (await openArray(store, "measurements/temperature")).get(null, { workers: 0 })).data.slice(0, 50));
      const zip = await ZipStore.fromUrl(zipUrl);
      const viaZip = {
        tree: Object.keys((await walk(zip)).members).sort(),
        values: await values(zip),
        requests: zip.source.stats.requests,
      };
      // A folder in the origin's private file system, written from the fixture files: the
      // same FileSystemDirectoryHandle a folder picker gives.
      const root = await navigator.storage.getDirectory();
      const dir = await root.getDirectoryHandle("sample", { create: true });
      for (const path of files) {
        const parts = path.split("/");
        let d = dir;
        for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
        const w = await (await d.getFileHandle(parts.at(-1), { create: true })).createWritable();
        await w.write(new Uint8Array(await (await fetch(`${base}/${path}`)).arrayBuffer()));
        await w.close();
      }
      const local = new DirectoryHandleStore(dir);
      const listing = await local.list("/measurements/");
      const plain = await values(new FetchStore(base));
      return { viaZip, viaFolder: await values(local), listing, plain };
    },
    [`${data.url}/zip/sample.zip`, `${data.url}/sample`, files],
  );
  assert.deepEqual(want.viaZip.tree, ["broken", "image", "measurements"]);
  assert.deepEqual(want.viaZip.values, want.plain);
  assert.equal(want.viaZip.values.length, 50);
  assert.deepEqual(want.viaFolder, want.plain);
  assert.deepEqual(want.listing, { keys: ["/measurements/zarr.json"], prefixes: ["/measurements/temperature/"] });
});

test("ReferenceStore reads kerchunk references to an HDF5 file cross-origin, its chunk ranges merged", async () => {
  const expected = JSON.parse(Buffer.from(fixture("references/expected.json")).toString("utf8"))["hdf5/temperature"];
  const got = await page.evaluate(async (url) => {
    const { ReferenceStore, openArray } = await import("/pkg/index.js");
    const store = await ReferenceStore.fromUrl(url);
    const arr = await openArray(store, "temperature");
    const { data, shape } = await arr.get();
    return { values: Array.from(data), shape, requests: store.stats.requests };
  }, `${data.url}/references/hdf5.json`);
  assert.deepEqual(got.shape, expected.shape);
  assert.deepEqual(got.values, expected.values);
  // The reference file, then the four adjacent chunks in one Range request.
  assert.equal(got.requests, 2);
});
