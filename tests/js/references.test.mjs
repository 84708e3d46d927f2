// ReferenceStore (kerchunk references) over the test HTTP server serving tests/fixtures: the
// HDF5-, NetCDF3- and generator-derived references (tests/fixtures/references/generate.py) open,
// walk and read to the values h5py and scipy read; relative and absolute target URLs; the
// server's log shows adjacent ranges of a target merged into one request; bad reference files
// give located ZomErrors; and the Node file variant (zom/fs) reads the same from disk.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { checkReferences, open, openArray, ReferenceStore, setLimits } from "zom";
import { referenceStoreFromFile } from "zom/fs";
import { walk } from "zom/validate";
import { logLines, withServer } from "../server/testing.mjs";
import { fixtures } from "./helpers.mjs";
import { zomError } from "./hierarchy-common.mjs";

const DIR = join(fixtures, "references");
const expected = JSON.parse(readFileSync(join(DIR, "expected.json"), "utf8"));

/** Every expected array under `prefix` ("hdf5/") read through `store` equals expected.json. */
async function readsExpected(store, prefix) {
  let n = 0;
  for (const [name, want] of Object.entries(expected)) {
    if (!name.startsWith(prefix)) continue;
    const arr = await openArray(store, name.slice(prefix.length));
    assert.deepEqual(arr.shape, want.shape, name);
    const { data } = await arr.get();
    assert.deepEqual(Array.from(data, Number), want.values, name);
    n += 1;
  }
  assert.ok(n > 0, prefix);
}

test("HDF5, NetCDF3 and generated references read to h5py's and scipy's values over HTTP", () =>
  withServer({}, async (server) => {
    for (const [file, prefix] of [
      ["hdf5.json", "hdf5/"],
      ["v0/hdf5.json", "hdf5/"],
      ["netcdf3.json", "netcdf3/"],
      ["gen.json", "gen/"],
    ]) {
      const store = await ReferenceStore.fromUrl(`${server.url}/references/${file}`);
      await readsExpected(store, prefix);
    }
  }));

test("walk lists the references; metadata is inline so only the reference file is fetched", () =>
  withServer({}, async (server) => {
    const store = await ReferenceStore.fromUrl(`${server.url}/references/hdf5.json`);
    assert.equal(store.stats.requests, 1);
    const result = await walk(store);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(Object.keys(result.members).sort(), ["contiguous", "counts", "group", "scalar", "temperature"]);
    assert.equal(result.attributes.title, "zom kerchunk fixture");
    assert.deepEqual(Object.keys(result.members.group.members), ["values"]);
    assert.equal(store.stats.requests, 1);
    assert.deepEqual(await store.list("/group/"), { keys: ["/group/.zattrs", "/group/.zgroup"], prefixes: ["/group/values/"] });
    const root = await open(store);
    assert.equal(root.attributes.title, "zom kerchunk fixture");
  }));

test("adjacent ranges of one target are merged into one request", () =>
  withServer({}, async (server) => {
    const store = await ReferenceStore.fromUrl(`${server.url}/references/hdf5.json`);
    const arr = await openArray(store, "temperature");
    server.stats.log.length = 0;
    store.resetStats();
    await arr.get();
    // Four chunks, bytes 8760..9755 of sample.h5: one request.
    assert.deepEqual(logLines(server), ["GET /references/data/sample.h5 bytes=8760-9754 206"]);
    assert.deepEqual(store.stats, { requests: 1, bytes: 995 });
    const uncoalesced = await ReferenceStore.fromUrl(`${server.url}/references/hdf5.json`, { coalesce: false });
    await (await openArray(uncoalesced, "temperature")).get();
    assert.equal(uncoalesced.stats.requests, 1 + 4);
  }));

test("absolute target URLs, fromJson with an object, and getRange cut to the reference", () =>
  withServer({}, async (server) => {
    const doc = JSON.parse(readFileSync(join(DIR, "netcdf3.json"), "utf8"));
    doc.templates.nc = `${server.url}/references/data/sample.nc`;
    const store = await ReferenceStore.fromJson(doc, { baseUrl: "http://unused.invalid/x.json" });
    await readsExpected(store, "netcdf3/");
    const whole = await store.get("/time/0");
    assert.equal(whole.length, 16);
    assert.deepEqual(await store.getRange("/time/0", { offset: 12, length: 100 }), whole.slice(12));
    assert.deepEqual(await store.getRange("time/0", { suffixLength: 4 }), whole.slice(12));
    assert.equal(await store.get("/nope"), undefined);
    // Relative targets against baseUrl.
    const relative = await ReferenceStore.fromJson(readFileSync(join(DIR, "gen.json"), "utf8"), {
      baseUrl: `${server.url}/references/gen.json`,
    });
    await readsExpected(relative, "gen/");
    assert.equal(relative.size, 7);
  }));

test("bad reference files and missing targets give located ZomErrors", () =>
  withServer({}, async (server) => {
    const bad = { version: 1, refs: { "a/.zarray": ["x.bin", -1, 4] } };
    await assert.rejects(
      ReferenceStore.fromJson(bad, { baseUrl: "http://h/refs.json" }),
      zomError("InvalidMetadata", { key: "http://h/refs.json", message: /at \/refs\/a~1\.zarray\/1/ }),
    );
    const problems = await checkReferences({
      version: 1,
      refs: { a: 5, b: "base64:@" },
      gen: [{ key: "k{{i}}", url: "u", dimensions: { i: { stop: 1e7 } } }],
    });
    assert.deepEqual(
      problems.map((p) => p.loc),
      [
        ["refs", "a"],
        ["refs", "b"],
        ["gen", 0, "dimensions", "i"],
      ],
    );
    assert.deepEqual(await checkReferences(readFileSync(join(DIR, "hdf5.json"))), []);
    assert.throws(
      () => new ReferenceStore("{}", "http://h/refs.json", {}),
      zomError("InvalidArgument", { message: /ReferenceStore\.open/ }),
    );
    await assert.rejects(ReferenceStore.fromJson("{", {}), zomError("InvalidMetadata", { message: /invalid JSON/ }));
    await assert.rejects(ReferenceStore.fromUrl(`${server.url}/references/nope.json`), zomError("NotFound"));
    await assert.rejects(ReferenceStore.fromUrl(`${server.url}/references/`), zomError("InvalidArgument", { message: /parquet/ }));
    const missing = await ReferenceStore.fromJson(
      { "a/0": ["gone.bin", 0, 4], "a/1": ["data/raw.bin", 40, 20], s: ["s3://b/x"] },
      { baseUrl: `${server.url}/references/r.json` },
    );
    await assert.rejects(missing.get("/a/0"), zomError("NotFound", { key: "a/0" }));
    await assert.rejects(missing.get("/a/1"), zomError("InvalidMetadata", { key: "a/1", message: /ends before/ }));
    await assert.rejects(missing.get("s"), zomError("InvalidArgument", { key: "s", message: /fetch/ }));
  }));

test("the limits in force bound reference documents, those set before the references part loads included", async () => {
  const doc = { version: 1, refs: { ".zgroup": '{"zarr_format": 2}', "a/0": ["data/raw.bin", 0, 4] } };
  const size = JSON.stringify(doc).length;
  try {
    setLimits({ maxDocumentBytes: size - 1 });
    await assert.rejects(ReferenceStore.fromJson(doc, { baseUrl: "http://h/refs.json" }), zomError("LimitExceeded"));
    setLimits(null);
    assert.equal((await ReferenceStore.fromJson(doc, { baseUrl: "http://h/refs.json" })).size, 2);
  } finally {
    setLimits(null);
  }
  // A process of its own, where the part is loaded after the limit was set.
  const script = `
    import { ReferenceStore, setLimits } from "zom";
    setLimits({ maxDocumentBytes: ${size - 1} });
    const doc = ${JSON.stringify(JSON.stringify(doc))};
    console.log(await ReferenceStore.fromJson(doc).then(() => "read", (e) => e.code));`;
  assert.equal(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: fixtures, encoding: "utf8", timeout: 60_000 }).trim(),
    "LimitExceeded",
  );
});

test("a reference file on disk reads local targets with ranged reads (zom/fs)", async () => {
  const store = await referenceStoreFromFile(join(DIR, "hdf5.json"));
  await readsExpected(store, "hdf5/");
  const v0 = await referenceStoreFromFile(new URL(`file://${join(DIR, "v0", "hdf5.json")}`), { root: DIR });
  await readsExpected(v0, "hdf5/");
  assert.ok(v0.stats.requests > 0 && v0.stats.bytes > 0);
  // The v0 file's targets ("../data/…") leave its own directory, the default root.
  const confined = await referenceStoreFromFile(join(DIR, "v0", "hdf5.json"));
  await assert.rejects(confined.get("/temperature/0.0"), zomError("InvalidArgument", { key: "temperature/0.0", message: /outside/ }));
  await assert.rejects(referenceStoreFromFile(DIR), zomError("InvalidArgument", { message: /parquet/ }));
  const tmp = mkdtempSync(join(tmpdir(), "zom-refs-"));
  try {
    writeFileSync(join(tmp, "bad.json"), JSON.stringify({ version: 3 }));
    await assert.rejects(referenceStoreFromFile(join(tmp, "bad.json")), zomError("InvalidMetadata", { message: /at \/version/ }));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
