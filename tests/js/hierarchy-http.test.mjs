// open / walk / get with FetchStore against the test HTTP server (tests/server) serving
// tests/fixtures: ZOMs and values equal zarr-python's, request counts come from the server's
// own log (consolidated open = 1 request; one inner chunk of a shard = 2 range requests),
// listings (S3, HTML index), misbehaving servers, 404 and broken JSON, abort.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FetchStore, open, openArray, openGroup, slice } from "zom";
import { walk } from "zom/validate";
import { logLines, withServer } from "../server/testing.mjs";
import { assertJsonEqual, fixtures, readJson } from "./helpers.mjs";
import { elements, reference, sameValues, zomError } from "./hierarchy-common.mjs";

test("walk over S3 listings equals pydantic-zarr's ZOM (v3 and v2)", () =>
  withServer({ s3Listing: true }, async (server) => {
    for (const name of ["v3", "v2"]) {
      const store = new FetchStore(`${server.url}/${name}`);
      const result = await walk(store, { concurrency: 8 });
      assertJsonEqual(result, readJson("expected", `${name}.zom.json`), name);
      assert.deepEqual([result.errors, result.unlisted, result.consolidated], [[], [], false]);
    }
  }));

test("walk over an HTML directory index (python -m http.server style)", () =>
  withServer({ htmlIndex: true }, async (server) => {
    const result = await walk(new FetchStore(`${server.url}/v2/`));
    assertJsonEqual(result, readJson("expected", "v2.zom.json"), "v2 via HTML index");
    assert.deepEqual(result.errors, []);
  }));

test("without any listing the root is reported unlisted", () =>
  withServer({}, async (server) => {
    const result = await walk(new FetchStore(`${server.url}/v3`));
    assert.deepEqual(result.unlisted, [""]);
    assert.deepEqual(result.members, {});
  }));

test("a consolidated hierarchy opens in one request", () =>
  withServer({}, async (server) => {
    const root = await open(new FetchStore(`${server.url}/v3-consolidated`));
    assert.equal(server.stats.requests, 1, logLines(server).join("\n"));
    assert.equal(root.consolidated, true);
    assertJsonEqual(root.zom, readJson("expected", "v3-consolidated.zom.json"), "v3 consolidated");

    // A walk of a hierarchy of unknown format asks for both formats' root documents at once
    // (one round trip); told the format, one request.
    server.resetStats();
    const result = await walk(new FetchStore(`${server.url}/v3-consolidated`));
    assert.equal(server.stats.requests, 5);
    assert.equal(result.consolidated, true);
    server.resetStats();
    await walk(new FetchStore(`${server.url}/v3-consolidated`), { format: 3 });
    assert.equal(server.stats.requests, 1);

    server.resetStats();
    const v2 = await openGroup(new FetchStore(`${server.url}/v2-consolidated`), "", { format: 2 });
    assert.deepEqual(logLines(server), ["GET /v2-consolidated/.zmetadata 200"]);
    assertJsonEqual(v2.zom, readJson("expected", "v2-consolidated.zom.json"), "v2 consolidated");
  }));

test("one inner chunk of a shard costs two range requests, and one once the array knows the shard's index", () =>
  withServer({}, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    const arr = await openArray(store, "shard_index_end");
    const expected = readJson("expected", "v3.values.json").shard_index_end;
    server.resetStats();
    const selection = [slice(4, 8), slice(0, 4)];
    const { data, shape } = await arr.get(selection);
    assert.deepEqual(shape, [4, 4]);
    sameValues(elements(data, arr.dtype), reference(expected.values, expected.shape, selection).values, "inner chunk");
    const log = server.stats.log;
    assert.equal(log.length, 2, logLines(server).join("\n"));
    assert.match(log[0].range, /^bytes=-\d+$/);
    assert.match(log[1].range, /^bytes=\d+-\d+$/);
    assert.ok(log.every((e) => e.status === 206 && e.url === "/v3/shard_index_end/c/0/0"));

    // The same shard again: its index is known, one range.
    server.resetStats();
    await arr.getChunk([1, 1]);
    assert.equal(server.stats.requests, 1, logLines(server).join("\n"));
    assert.match(server.stats.log[0].range, /^bytes=\d+-\d+$/);
    // Another shard: its index, then the range.
    server.resetStats();
    await arr.getChunk([2, 0]);
    assert.equal(server.stats.requests, 2, logLines(server).join("\n"));
  }));

test("every v3, v2, v2-numcodecs and sample array read over HTTP equals zarr-python's values", () =>
  withServer({}, async (server) => {
    for (const name of ["v3", "v2", "v2-numcodecs", "sample"]) {
      const store = new FetchStore(`${server.url}/${name}`);
      const expected = readJson("expected", `${name}.values.json`);
      for (const [path, entry] of Object.entries(expected)) {
        const arr = await openArray(store, path);
        for (const selection of [undefined, entry.shape.length ? [slice(-3, null)] : undefined]) {
          const { data, shape } = await arr.get(selection);
          const want = reference(entry.values, entry.shape, selection);
          assert.deepEqual(shape, want.shape, `${name}/${path}`);
          sameValues(elements(data, arr.dtype), want.values, `${name}/${path} ${JSON.stringify(selection)}`);
        }
        arr.free();
      }
    }
  }));

test("servers that ignore ranges, refuse suffix ranges, fail every other request or answer 403", async () => {
  const expected = readJson("expected", "v3.values.json").shard_index_start;
  const endShard = readJson("expected", "v3.values.json").shard_index_end;
  const selection = [slice(0, 4), slice(4, 8)];
  for (const mode of [{ ignoreRange: true }, { refuseSuffix: 416 }, { failEveryOther: true }]) {
    await withServer(mode, async (server) => {
      const store = new FetchStore(`${server.url}/v3`, { retryDelay: 1 });
      for (const [path, values] of [
        ["shard_index_start", expected],
        ["shard_index_end", endShard],
      ]) {
        const arr = await openArray(store, path);
        const { data } = await arr.get(selection);
        sameValues(elements(data, arr.dtype), reference(values.values, values.shape, selection).values, `${JSON.stringify(mode)} ${path}`);
      }
    });
  }
  await withServer({ forbiddenForMissing: true }, async (server) => {
    const root = await open(new FetchStore(`${server.url}/v2`, { forbiddenAsMissing: true }));
    assert.equal(root.kind, "group");
    await assert.rejects(open(new FetchStore(`${server.url}/v2`)), zomError("HttpError", { key: "zarr.json" }));
  });
});

test("a missing node is NotFound with its key; broken JSON is InvalidMetadata; the walk goes on", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-hierarchy-"));
  try {
    cpSync(join(fixtures, "v3", "zarr.json"), join(dir, "zarr.json"));
    cpSync(join(fixtures, "v3", "dtype_int32"), join(dir, "good"), { recursive: true });
    cpSync(join(fixtures, "v3", "group1"), join(dir, "group1"), { recursive: true });
    cpSync(join(fixtures, "v3", "dtype_int8"), join(dir, "bad"), { recursive: true });
    writeFileSync(join(dir, "bad", "zarr.json"), '{"zarr_format": 3, "node_type": ');
    await withServer({ root: dir, s3Listing: true }, async (server) => {
      const store = new FetchStore(server.url);
      await assert.rejects(open(store, "nope"), zomError("NotFound", { path: "nope", key: "nope/zarr.json" }));
      await assert.rejects(openArray(store, "bad"), zomError("InvalidMetadata", { path: "bad", key: "bad/zarr.json" }));
      const result = await walk(store);
      assert.deepEqual(
        result.errors.map((e) => [e.code, e.path, e.key]),
        [["InvalidMetadata", "bad", "bad/zarr.json"]],
      );
      assert.deepEqual(Object.keys(result.members).sort(), ["good", "group1"]);
      assertJsonEqual(result.members.group1, readJson("expected", "v3.zom.json").members.group1, "group1");
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an AbortSignal stops a slow read and a slow walk", () =>
  withServer({ latencyMs: 300, s3Listing: true }, async (server) => {
    const store = new FetchStore(`${server.url}/v3`);
    const arr = await openArray(store, "dtype_int32");
    const controller = new AbortController();
    const started = performance.now();
    const pending = arr.get(null, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, zomError("Aborted"));
    assert.ok(performance.now() - started < 250, "aborted before the server answered");

    const walking = new AbortController();
    const walked = walk(new FetchStore(`${server.url}/v3`), { signal: walking.signal });
    setTimeout(() => walking.abort(), 20);
    await assert.rejects(walked, zomError("Aborted"));
  }));

test("an OME-Zarr pyramid's first tile in as few round trips as the data allows: a v2 node's documents are asked for at once, a member of a group only in the group's format", () =>
  withServer({ latencyMs: 20 }, async (server) => {
    const store = new FetchStore(`${server.url}/conventions`);
    // 0.5 (v3): the image group, the level, the tile: one request each. (The fixtures hold
    // metadata only: the tile is missing and reads as the fill value.)
    server.resetStats();
    const image = await open(store, "ome-0.5-image");
    const level = await image.open(image.attributes.ome.multiscales[0].datasets.at(-1).path);
    await level.getChunk(level.shape.map(() => 0));
    assert.deepEqual(
      logLines(server).map((l) => l.split(" ")[1]),
      [
        "/conventions/ome-0.5-image/zarr.json",
        "/conventions/ome-0.5-image/s2/zarr.json",
        `/conventions/ome-0.5-image/s2/c/${level.shape.map(() => 0).join("/")}`,
      ],
    );
    // 0.4 (v2): zarr.json, then every v2 document of the group at once; the level asks for
    // v2 documents only, at once; then the tile.
    server.resetStats();
    const v2 = await open(store, "ome-0.4-image");
    assert.deepEqual(
      logLines(server)
        .map((l) => l.split(" ")[1])
        .sort(),
      ["zarr.json", ".zarray", ".zmetadata", ".zgroup", ".zattrs"].map((n) => `/conventions/ome-0.4-image/${n}`).sort(),
    );
    assert.ok(server.stats.maxInFlight >= 4, `${server.stats.maxInFlight} requests in flight`);
    server.resetStats();
    const v2level = await v2.open(v2.attributes.multiscales[0].datasets.at(-1).path);
    assert.deepEqual(
      logLines(server)
        .map((l) => l.split(" ")[1])
        .sort(),
      [".zarray", ".zmetadata", ".zgroup", ".zattrs"].map((n) => `/conventions/ome-0.4-image/s2/${n}`).sort(),
    );
    assert.equal(server.stats.maxInFlight, 4);
    const { shape } = await v2level.getChunk(v2level.shape.map(() => 0));
    assert.equal(shape.length, v2level.shape.length);
  }));

test("a host that offers no listing is asked for one once per store, not once per group", () =>
  withServer({}, async (server) => {
    // What finding out costs: where the S3 bucket root may be, then the HTML index.
    assert.equal(await new FetchStore(`${server.url}/v3`).list("/"), undefined);
    const once = server.stats.requests;
    assert.ok(once >= 2, `${once} requests`);
    server.resetStats();
    const store = new FetchStore(`${server.url}/v3`);
    // Asked for at once, as a walk asks for a level's listings: the first finds out, the others wait.
    const answers = await Promise.all(["/", "/group1/", "/group1/sub/"].map((p) => store.list(p)));
    assert.deepEqual(answers, [undefined, undefined, undefined]);
    assert.equal(server.stats.requests, once, server.stats.log.map((e) => e.url).join("\n"));
    server.resetStats();
    assert.equal(await store.list("/group1/values/"), undefined);
    assert.equal(server.stats.requests, 0);
  }));
