// FsStore (zom/fs) on the fixture directories: whole and ranged reads equal the files' bytes,
// listings equal the directories, keys cannot leave the root, FIFOs and dangling links do not
// hang or throw, and open/walk/get through it equal zarr-python's ZOMs and values.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import * as zom from "zom";
import { openArray, slice, walk } from "zom";
import { FsStore } from "zom/fs";
import { expectedListing } from "../server/testing.mjs";
import { elements, reference, sameValues, zomError } from "./hierarchy-common.mjs";
import { assertJsonEqual, fixtures, HIERARCHIES, readJson } from "./helpers.mjs";

const bytesOf = (path) => new Uint8Array(readFileSync(join(fixtures, path)));
// A shard of the sample: big enough for ranges anywhere in it.
const SHARD = "sample/image/gradient_circles/c/0/0";

test("FsStore comes from zom/fs only: the main entry stays free of node:fs", () => {
  assert.equal("FsStore" in zom, false);
  assert.equal(typeof FsStore, "function");
});

test("get gives a file's bytes, undefined for what is not a file", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  const got = await store.get("/zarr.json");
  assert.equal(got.constructor, Uint8Array);
  assert.deepEqual(got, bytesOf("v3/zarr.json"));
  assert.deepEqual(await store.get("group1/zarr.json"), bytesOf("v3/group1/zarr.json"), "keys without a leading /");
  assert.equal(await store.get("/nope.json"), undefined);
  assert.equal(await store.get("/group1"), undefined, "a directory");
  assert.equal(await store.get("/zarr.json/x"), undefined, "below a file");
});

test("getRange reads exactly the bytes asked for, clamped as HTTP servers do", async () => {
  const store = new FsStore(fixtures);
  const whole = bytesOf(SHARD);
  const n = whole.length;
  assert.ok(n > 1000, `the shard has ${n} bytes`);
  const cases = [
    [{ offset: 0, length: 10 }, whole.subarray(0, 10)],
    [{ offset: 100, length: 333 }, whole.subarray(100, 433)],
    [{ offset: n - 5, length: 100 }, whole.subarray(n - 5)],
    [{ offset: n, length: 10 }, new Uint8Array(0)],
    [{ offset: n + 100, length: 10 }, new Uint8Array(0)],
    [{ offset: 7, length: 0 }, new Uint8Array(0)],
    [{ suffixLength: 68 }, whole.subarray(n - 68)],
    [{ suffixLength: n + 1000 }, whole],
    [{ suffixLength: 0 }, new Uint8Array(0)],
  ];
  for (const [range, want] of cases) {
    assert.deepEqual(await store.getRange(`/${SHARD}`, range), new Uint8Array(want), JSON.stringify(range));
  }
  assert.equal(await store.getRange("/sample/nope", { offset: 0, length: 4 }), undefined);
  assert.equal(await store.getRange("/sample/nope", { suffixLength: 4 }), undefined);
  for (const bad of [{ offset: -1, length: 4 }, { offset: 0, length: 1.5 }, { suffixLength: -2 }, {}]) {
    await assert.rejects(store.getRange(`/${SHARD}`, bad), zomError("InvalidArgument"), JSON.stringify(bad));
  }
});

test("list gives the files and directories below a prefix, absolute", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  assert.deepEqual(await store.list("/"), expectedListing("v3", "/"));
  assert.deepEqual(await store.list(""), expectedListing("v3", "/"));
  for (const prefix of ["/group1/", "group1", "/group1"]) {
    assert.deepEqual(await store.list(prefix), expectedListing("v3/group1", "/group1/"), prefix);
  }
  assert.deepEqual(await store.list("/nope/"), { keys: [], prefixes: [] });
  assert.deepEqual(await store.list("/zarr.json/"), { keys: [], prefixes: [] }, "a file is no directory");
});

test("keys cannot leave the root", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-fs-"));
  try {
    mkdirSync(join(dir, "root"));
    writeFileSync(join(dir, "secret"), "outside");
    writeFileSync(join(dir, "root", "inside"), "inside");
    const store = new FsStore(join(dir, "root"));
    assert.deepEqual(await store.get("/inside"), new TextEncoder().encode("inside"));
    for (const key of ["../secret", "/../secret", "/a/../../secret", "./inside", "/inside/.", "a//b", "/inside/", "", "/", "x/\0/y"]) {
      await assert.rejects(store.get(key), zomError("InvalidArgument"), `get ${JSON.stringify(key)}`);
      await assert.rejects(store.getRange(key, { suffixLength: 3 }), zomError("InvalidArgument"), `getRange ${JSON.stringify(key)}`);
      assert.throws(() => store.pathOf(key === "/" || key === "" || key === "/inside/" ? "../" : key), zomError("InvalidArgument"));
    }
    for (const prefix of ["../", "/../", "/a/../../", "a//"]) {
      await assert.rejects(store.list(prefix), zomError("InvalidArgument"), `list ${prefix}`);
    }
    // An absolute key is a path below the root, never the file system's root.
    assert.equal(await store.get("/etc/passwd"), undefined);
    assert.equal(store.pathOf("/etc/passwd"), join(dir, "root", "etc", "passwd"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("FIFOs and dangling links read as missing; links to directories list as prefixes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zom-fs-"));
  try {
    execFileSync("mkfifo", [join(dir, "fifo")]);
    symlinkSync(join(dir, "gone"), join(dir, "dangling"));
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "linked"));
    writeFileSync(join(dir, "file"), "x");
    const store = new FsStore(pathToFileURL(dir));
    assert.equal(await store.get("/fifo"), undefined, "no reader hangs on a FIFO");
    assert.equal(await store.getRange("/fifo", { suffixLength: 4 }), undefined);
    assert.equal(await store.get("/dangling"), undefined);
    assert.deepEqual(await store.list("/"), { keys: ["/file"], prefixes: ["/linked/", "/real/"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an aborted signal stops reads", async () => {
  const store = new FsStore(fixtures);
  const signal = AbortSignal.abort();
  await assert.rejects(store.get("/v3/zarr.json", { signal }), zomError("Aborted"));
  await assert.rejects(store.getRange(`/${SHARD}`, { offset: 0, length: 4 }, { signal }), zomError("Aborted"));
  await assert.rejects(store.list("/", { signal }), zomError("Aborted"));
});

test("walk through FsStore equals pydantic-zarr's ZOM for every fixture hierarchy", async () => {
  for (const name of HIERARCHIES) {
    const result = await walk(new FsStore(join(fixtures, name)));
    assertJsonEqual(result, readJson("expected", `${name}.zom.json`), name);
    assert.deepEqual([result.errors, result.unlisted], [[], []], name);
    assert.equal(result.consolidated, name.endsWith("consolidated"), name);
  }
});

test("reads through FsStore equal zarr-python's values (sharded, partial, strided)", async () => {
  const cases = [
    ["sample", "image/gradient_circles", [slice(30, 170), slice(null, null, 7)]],
    ["sample", "measurements/temperature", null],
    ["v3", "shard_nested", [slice(1, 11, 3), -1]],
    ["v2", "order_f_3d", [1, slice(null), slice(null, null, -2)]],
  ];
  for (const [name, path, selection] of cases) {
    const arr = await openArray(new FsStore(join(fixtures, name)), path);
    const expected = readJson("expected", `${name}.values.json`)[path];
    const { data, shape } = await arr.get(selection);
    const want = reference(expected.values, expected.shape, selection);
    assert.deepEqual(shape, want.shape, path);
    sameValues(elements(data, arr.dtype), want.values, path);
  }
});
