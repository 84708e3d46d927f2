// open / openArray / openGroup / walk / arr.get / arr.getChunk / slice through the built
// package, with Map stores and zarrita-shaped store objects over tests/fixtures: the ZOMs equal
// pydantic-zarr's dumps, every array read whole and by selections equals zarr-python's values,
// request counts (consolidated open = 1 request; one inner chunk of a shard = 2 ranges), and
// errors (missing node → NotFound with its key; broken JSON → InvalidMetadata).
import assert from "node:assert/strict";
import { test } from "node:test";
import { isZomError, open, openArray, openGroup, slice, ZarrArray, ZarrGroup } from "zom";
import { walk } from "zom/validate";
import { assertJsonEqual, HIERARCHIES, readJson } from "./helpers.mjs";
import { countingStore, elements, mapStore, reference, sameValues, zomError } from "./hierarchy-common.mjs";

/** Selections exercising every read path for an array of `shape`. */
function selections(shape) {
  const rank = shape.length;
  const out = [undefined];
  if (rank === 0 || shape.includes(0)) return out;
  const cut = (s) => s.slice(0, rank);
  out.push(cut(Array(rank).fill(slice(1, null, 2))));
  out.push([-1]);
  out.push(cut([slice(null, null, 3), slice(1, -1)]));
  out.push([slice(null, null, -2)]);
  out.push(Array(rank).fill(slice(-3, null)));
  const mixed = Array(rank).fill(null);
  mixed[rank - 1] = Math.floor(shape[rank - 1] / 2);
  out.push(mixed);
  if (rank >= 2) out.push([0, slice(-4, -1, 2)]);
  out.push([slice(2)]);
  return out;
}

for (const name of [...HIERARCHIES, "v2-numcodecs", "sample"]) {
  test(`every ${name} array read whole and by selections equals zarr-python's values`, async () => {
    const store = mapStore(name);
    const expected = readJson("expected", `${name}.values.json`);
    let reads = 0;
    for (const [path, entry] of Object.entries(expected)) {
      const arr = await openArray(store, path);
      assert.deepEqual(arr.shape, entry.shape, path);
      for (const selection of selections(entry.shape)) {
        const { data, shape } = await arr.get(selection);
        const want = reference(entry.values, entry.shape, selection);
        const where = `${name}/${path} ${JSON.stringify(selection)}`;
        assert.deepEqual(shape, want.shape, where);
        sameValues(elements(data, arr.dtype), want.values, where);
        reads++;
      }
      arr.free();
    }
    assert.ok(reads > 20, `${reads} reads`);
  });
}

for (const name of HIERARCHIES) {
  test(`walk of ${name} equals pydantic-zarr's ZOM`, async () => {
    const result = await walk(mapStore(name));
    assertJsonEqual(result, readJson("expected", `${name}.zom.json`), name);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.unlisted, []);
    assert.equal(result.consolidated, name.endsWith("consolidated"));
  });
}

test("walk with a listing store object: same ZOM; depth, path and progress", async () => {
  const store = countingStore(mapStore("v3"));
  const progress = [];
  const result = await walk(store, { concurrency: 3, onProgress: (p) => progress.push(p) });
  assertJsonEqual(result, readJson("expected", "v3.zom.json"), "v3");
  assert.ok(
    store.log.some((l) => l === "list /"),
    store.log.join("\n"),
  );
  assert.equal(progress.at(-1).pending, 0);
  assert.ok(progress.at(-1).nodes > 50);

  const shallow = await walk(store, { depth: 1 });
  assert.deepEqual(shallow.members.group1.members, {});
  const sub = await walk(store, { path: "group1" });
  assertJsonEqual(sub, readJson("expected", "v3.zom.json").members.group1, "group1");
});

test("a consolidated hierarchy opens and walks in one request", async () => {
  const v3 = countingStore(mapStore("v3-consolidated"));
  const root = await open(v3);
  assert.ok(root instanceof ZarrGroup);
  assert.equal(root.consolidated, true);
  assert.deepEqual(v3.log, ["get /zarr.json"]);
  assert.ok(root.members.length > 10);
  v3.log.length = 0;
  await walk(v3, { format: 3 });
  assert.deepEqual(v3.log, ["get /zarr.json"]);
  // The format not given, a walk asks for both formats' root documents at once.
  v3.log.length = 0;
  await walk(v3);
  assert.deepEqual(v3.log, ["get /zarr.json", "get /.zmetadata", "get /.zgroup", "get /.zarray", "get /.zattrs"]);

  const v2 = countingStore(mapStore("v2-consolidated"));
  const group = await openGroup(v2, "", { format: 2 });
  assert.deepEqual(v2.log, ["get /.zmetadata"]);
  assertJsonEqual(group.zom, readJson("expected", "v2-consolidated.zom.json"), "v2 consolidated");
});

test("members of a consolidated group open without requests", async () => {
  const store = countingStore(mapStore("v3-consolidated"));
  const root = await openGroup(store);
  const arr = await root.open("dtype_int32");
  const sub = await root.open("/group1/sub/");
  assert.ok(arr instanceof ZarrArray && sub instanceof ZarrGroup);
  assert.equal(sub.path, "group1/sub");
  assert.deepEqual(sub.members, Object.keys(readJson("expected", "v3-consolidated.zom.json").members.group1.members.sub.members));
  assert.deepEqual(store.log, ["get /zarr.json"]);
  const { data } = await arr.get();
  const expected = readJson("expected", "v3-consolidated.values.json").dtype_int32;
  sameValues(elements(data, arr.dtype), expected.values, "dtype_int32");
  assert.ok(
    store.log.slice(1).every((l) => l.startsWith("get /dtype_int32/c/")),
    store.log.join("\n"),
  );
  await assert.rejects(root.open("group1", { kind: "array" }), zomError("NotFound", { path: "group1" }));
  // Not in the consolidated metadata: asked of the store.
  await assert.rejects(root.open("nope"), zomError("NotFound", { key: "nope/zarr.json" }));
  // Without consolidated metadata, members open through the store.
  const plain = countingStore(mapStore("v3"));
  const group = await openGroup(plain, "group1");
  assert.equal(group.members, undefined);
  assert.equal((await group.open("sub")).path, "group1/sub");
  assert.deepEqual(plain.log, ["get /group1/zarr.json", "get /group1/sub/zarr.json"]);
});

test("a consolidated group's members are read when asked for: a broken one fails there, not at open", async () => {
  const expected = readJson("expected", "v3-consolidated.zom.json");
  const store = countingStore(mapStore("v3-consolidated"));
  const root = await openGroup(store);
  assert.deepEqual([...root.members].sort(), Object.keys(expected.members).sort());
  assert.deepEqual(root.attributes, expected.attributes);
  assertJsonEqual(root.zom, expected, "root.zom read on first access");
  assert.equal(root.zom, root.zom, "read once");
  const sub = await root.open("group1");
  assertJsonEqual(sub.zom, expected.members.group1, "a member group with its own members");
  assert.deepEqual(store.log, ["get /zarr.json"]);

  const doc = JSON.parse(new TextDecoder().decode(mapStore("v3-consolidated").get("/zarr.json")));
  const metadata = doc.consolidated_metadata.metadata;
  metadata["group1/values"] = { ...metadata["group1/values"], shape: "ten" };
  const text = JSON.stringify(doc, null, 2).replace('"dtype_int8": {', '"dtype_int8": {"x": tru, ');
  const broken = new Map([["/zarr.json", new TextEncoder().encode(text)]]);
  const group = await openGroup(broken);
  assert.ok(group.members.includes("dtype_int8") && group.members.includes("group1"));
  assert.ok((await group.open("dtype_int32")) instanceof ZarrArray);
  await assert.rejects(group.open("group1/values"), zomError("InvalidMetadata", { path: "group1/values", key: "zarr.json" }));
  await assert.rejects(group.open("group1"), zomError("InvalidMetadata", { path: "group1/values", key: "zarr.json" }));
  await assert.rejects(group.open("dtype_int8"), (e) => {
    assert.ok(isZomError(e) && e.code === "InvalidMetadata" && e.path === "dtype_int8", String(e));
    assert.equal(e.key, "zarr.json");
    assert.match(e.message, /^invalid JSON at line 1, column \d+/);
    return true;
  });
  assert.throws(() => group.zom, zomError("InvalidMetadata", { key: "zarr.json" }));
});

test("a v2 .zmetadata group opens without reading its members; each is read when asked for", async () => {
  const expected = readJson("expected", "v2-consolidated.zom.json");
  const store = countingStore(mapStore("v2-consolidated"));
  const root = await openGroup(store, "", { format: 2 });
  assert.equal(root.consolidated, true);
  assert.equal(root.zarrFormat, 2);
  assert.deepEqual([...root.members].sort(), Object.keys(expected.members).sort());
  assert.deepEqual(root.attributes, expected.attributes);
  const sub = await root.open("group1");
  assert.ok(sub instanceof ZarrGroup);
  assert.deepEqual([...sub.members].sort(), Object.keys(expected.members.group1.members).sort());
  assertJsonEqual(sub.zom, expected.members.group1, "a member group with its own members");
  const arr = await root.open("dtype_int32");
  assert.ok(arr instanceof ZarrArray);
  assertJsonEqual(arr.zom, expected.members.dtype_int32, "a member array");
  await assert.rejects(root.open("group1", { kind: "array" }), zomError("NotFound", { path: "group1" }));
  assertJsonEqual(root.zom, expected, "root.zom read on first access");
  assert.deepEqual(store.log, ["get /.zmetadata"]);
  // Not in the consolidated metadata: asked of the store.
  await assert.rejects(root.open("nope"), zomError("NotFound"));

  const doc = JSON.parse(new TextDecoder().decode(mapStore("v2-consolidated").get("/.zmetadata")));
  doc.metadata["group1/.zattrs"] = [1];
  const broken = new Map([["/.zmetadata", new TextEncoder().encode(JSON.stringify(doc))]]);
  const group = await openGroup(broken, "", { format: 2 });
  assert.ok((await group.open("dtype_int32")) instanceof ZarrArray);
  await assert.rejects(group.open("group1"), zomError("InvalidMetadata", { path: "group1", key: ".zmetadata" }));
  assert.throws(() => group.zom, zomError("InvalidMetadata", { key: ".zmetadata" }));
});

test("one inner chunk of a shard costs the index and one range", async () => {
  const store = countingStore(mapStore("v3"));
  const arr = await openArray(store, "shard_index_end");
  assert.deepEqual(
    [arr.chunks, arr.shards],
    [
      [4, 4],
      [8, 8],
    ],
  );
  store.log.length = 0;
  const { shape } = await arr.get([slice(0, 4), slice(4, 8)]);
  assert.deepEqual(shape, [4, 4]);
  assert.equal(store.log.length, 2, store.log.join("\n"));
  assert.match(store.log[0], /^suffix \/shard_index_end\/c\/0\/0 \d+$/);
  assert.match(store.log[1], /^range \/shard_index_end\/c\/0\/0 \d+\+\d+$/);

  store.log.length = 0;
  const chunk = await arr.getChunk([0, 2]);
  assert.deepEqual(chunk.shape, [4, 2]);
  assert.equal(store.log.length, 2, store.log.join("\n"));
  const expected = readJson("expected", "v3.values.json").shard_index_end;
  const want = reference(expected.values, expected.shape, [slice(0, 4), slice(8, 10)]);
  sameValues(elements(chunk.data, arr.dtype), want.values, "getChunk([0, 2])");
});

test("array objects: metadata, TypedArrays, the caller's buffer", async () => {
  const store = mapStore("v3");
  const arr = await open(store, "dtype_int32");
  assert.ok(arr instanceof ZarrArray);
  assert.equal(arr.kind, "array");
  assert.equal(arr.path, "dtype_int32");
  assert.equal(arr.dtype, "int32");
  assert.equal(arr.zarrFormat, 3);
  assert.equal(arr.shards, null);
  assert.equal(arr.readError, null);
  assert.equal(arr.zom.node_type, "array");
  assert.deepEqual(arr.attributes, readJson("expected", "v3.zom.json").members.dtype_int32.attributes);
  const { data } = await arr.get();
  assert.ok(data instanceof Int32Array);
  const out = new Int32Array(data.length);
  const again = await arr.get(null, { out });
  assert.equal(again.data, out);
  assert.deepEqual(Array.from(out), Array.from(data));

  const kinds = { dtype_uint64: BigUint64Array, dtype_float32: Float32Array, dtype_complex128: Float64Array, dtype_bool: Uint8Array };
  for (const [path, Kind] of Object.entries(kinds)) {
    const { data } = await (await openArray(store, path)).get([0]);
    assert.ok(data instanceof Kind, `${path}: ${data.constructor.name}`);
  }
  const strings = await (await openArray(store, "dtype_string")).get([slice(0, 2)]);
  assert.ok(Array.isArray(strings.data) && typeof strings.data[0] === "string");

  const named = Object.entries(readJson("expected", "v3.zom.json").members).find(([, n]) => Array.isArray(n.dimension_names));
  if (named) assert.deepEqual((await openArray(store, named[0])).dimensionNames, named[1].dimension_names);
  const v2 = await openArray(mapStore("v2"), "dtype_int16", { format: 2 });
  assert.equal(v2.zarrFormat, 2);
  assert.equal(v2.dimensionNames, null);
});

test("slice() follows Python and zarrita", () => {
  assert.deepEqual(slice(10), { start: null, stop: 10, step: null });
  assert.deepEqual(slice(null), { start: null, stop: null, step: null });
  assert.deepEqual(slice(2, null), { start: 2, stop: null, step: null });
  assert.deepEqual(slice(-3, -1, 2), { start: -3, stop: -1, step: 2 });
});

test("selections that do not fit throw InvalidSelection", async () => {
  const arr = await openArray(mapStore("v3"), "chunk_key_dot");
  await assert.rejects(arr.get([6]), zomError("InvalidSelection", { path: "chunk_key_dot", message: /out of bounds/ }));
  await assert.rejects(arr.get([slice(0, 3, 0)]), zomError("InvalidSelection"));
  await assert.rejects(arr.get([0, 0, 0]), zomError("InvalidSelection"));
  await assert.rejects(arr.get(["a"]), zomError("InvalidSelection"));
  await assert.rejects(arr.getChunk([5, 0]), zomError("InvalidSelection"));
  await assert.rejects(arr.get(null, { maxBytes: 16 }), zomError("LimitExceeded"));
});

test("a missing node is NotFound with its key; the other kind too", async () => {
  for (const name of ["v3", "v2"]) {
    const store = mapStore(name);
    await assert.rejects(open(store, "nope"), zomError("NotFound", { path: "nope", key: "nope/zarr.json" }));
    await assert.rejects(walk(store, { path: "nope" }), zomError("NotFound", { path: "nope" }));
  }
  const store = mapStore("v3");
  await assert.rejects(openArray(store, "group1"), zomError("NotFound", { path: "group1", key: "group1/zarr.json" }));
  await assert.rejects(openGroup(store, "dtype_int8"), zomError("NotFound", { path: "dtype_int8" }));
});

test("broken JSON is InvalidMetadata with its key; the walk reports it and returns the rest", async () => {
  const store = mapStore("v3");
  store.set("/dtype_int8/zarr.json", new TextEncoder().encode('{"zarr_format": 3,'));
  await assert.rejects(
    open(store, "dtype_int8"),
    zomError("InvalidMetadata", { path: "dtype_int8", key: "dtype_int8/zarr.json", message: /line/ }),
  );
  const result = await walk(store);
  assert.equal(result.errors.length, 1);
  const [error] = result.errors;
  assert.ok(isZomError(error));
  assert.deepEqual([error.code, error.path, error.key], ["InvalidMetadata", "dtype_int8", "dtype_int8/zarr.json"]);
  const expected = readJson("expected", "v3.zom.json");
  delete expected.members.dtype_int8;
  assertJsonEqual(result, expected, "v3 without dtype_int8");
});

test("a store that cannot list: the root is reported unlisted, not guessed", async () => {
  const map = mapStore("v3");
  const store = { get: async (key) => map.get(key) };
  const result = await walk(store);
  assert.deepEqual(result.unlisted, [""]);
  assert.deepEqual(result.members, {});
  // getRange is optional: shards are then cut from whole values.
  const arr = await openArray(store, "shard_index_start");
  const { shape } = await arr.get([slice(0, 4), slice(0, 4)]);
  assert.deepEqual(shape, [4, 4]);
});

test("an aborted signal stops open, walk and get with Aborted", async () => {
  const store = countingStore(mapStore("v3"));
  const arr = await openArray(store, "dtype_int32");
  const controller = new AbortController();
  controller.abort();
  const { signal } = controller;
  await assert.rejects(open(store, "", { signal }), zomError("Aborted"));
  await assert.rejects(walk(store, { signal }), zomError("Aborted"));
  await assert.rejects(arr.get(null, { signal }), zomError("Aborted"));
  await assert.rejects(arr.getChunk([0], { signal }), zomError("Aborted"));
});

test("errors a store throws keep their code; others become HttpError with the key", async () => {
  const failing = { get: async () => Promise.reject(new TypeError("network down")) };
  await assert.rejects(open(failing, "a"), zomError("HttpError", { key: "a/zarr.json", message: /network down/ }));
  const coded = {
    get: async (key) => {
      const e = new Error("503 Service Unavailable");
      e.name = "ZomError";
      e.code = "HttpError";
      e.key = key;
      throw e;
    },
  };
  await assert.rejects(open(coded), zomError("HttpError", { message: /503/ }));
  await assert.rejects(open(42), zomError("InvalidArgument"));
});
