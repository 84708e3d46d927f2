// What today's writers write (tests/fixtures/current: zarr-python 3.4's scale_offset and
// cast_value, numcodecs 0.17's codecs in their v3 form, rectilinear chunk grids, 0-d and
// zero-length arrays, NUL bytes, stored orders), read over HTTP through zom (on the calling
// thread and in the decode workers), from a zip and through references, and through
// zom/zarrita beside zarrita 0.7.5; and zom/zarrita's exports against
// zarrita's own (0.7.5, and the 0.6 spellings libraries built on zarrita 0.6 import).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { test } from "node:test";
import { zipSync } from "fflate";
import * as zarrita from "zarrita";
import * as zarrita06 from "zarrita-0.6";
import { ChunkCache, FetchStore, openArray, ReferenceStore, ZipStore } from "zom";
import * as zz from "zom/zarrita";
import { withServer } from "../server/testing.mjs";
import { cOrderValues, fixtures, readJson } from "./helpers.mjs";
import { elements, sameValues } from "./hierarchy-common.mjs";

const FORMATS = ["v3", "v2"];
const expected = (fmt) => readJson("current", `${fmt}.values.json`);

test("zom/zarrita exports every name zarrita 0.7.5 and 0.6.2 export", () => {
  for (const [version, lib] of [
    ["0.7.5", zarrita],
    ["0.6.2", zarrita06],
  ]) {
    const missing = Object.keys(lib).filter((name) => !(name in zz));
    assert.deepEqual(missing, [], `zarrita ${version} exports what zom/zarrita lacks`);
    for (const name of Object.keys(lib)) assert.equal(typeof zz[name], typeof lib[name], `${version} ${name}`);
  }
});

test("zarrita's helpers: select, strides, slice indices, internal get with a setter, 0.6's errors", async () => {
  for (const [shape, order] of [
    [[3, 4, 5], "C"],
    [[3, 4, 5], "F"],
    [
      [3, 4, 5],
      [2, 0, 1],
    ],
    [[], "C"],
  ]) {
    assert.deepEqual(
      zz._zarrita_internal_getStrides(shape, order),
      zarrita._zarrita_internal_getStrides(shape, order),
      `${shape} ${order}`,
    );
    assert.deepEqual(
      zz._zarrita_internal_get_strides(shape, order),
      zarrita06._zarrita_internal_get_strides(shape, order),
      `${shape} ${order}`,
    );
  }
  for (const s of [
    [null, null, null],
    [2, null, null],
    [-3, null, null],
    [null, -1, null],
    [null, null, -1],
    [8, 2, -2],
    [-100, 100, 3],
    [5, 1, null],
  ]) {
    const sl = { start: s[0], stop: s[1], step: s[2] };
    for (const len of [0, 1, 7]) {
      assert.deepEqual(
        zz._zarrita_internal_sliceIndices(sl, len),
        zarrita._zarrita_internal_sliceIndices(sl, len),
        `${JSON.stringify(sl)} of ${len}`,
      );
      assert.deepEqual(zz._zarrita_internal_slice_indices(sl, len), zarrita06._zarrita_internal_slice_indices(sl, len));
    }
  }
  assert.throws(
    () => zz._zarrita_internal_sliceIndices({ start: null, stop: null, step: 0 }, 4),
    (e) => zz.isZarritaError(e, "InvalidSelectionError"),
  );

  const map = new Map([
    [
      "/zarr.json",
      new TextEncoder().encode(
        JSON.stringify({
          zarr_format: 3,
          node_type: "array",
          shape: [2, 3],
          data_type: "int16",
          dimension_names: ["y", "x"],
          chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 3] } },
          chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
          fill_value: 4,
          codecs: [{ name: "bytes", configuration: { endian: "little" } }],
          attributes: {},
        }),
      ),
    ],
  ]);
  const ours = await zz.open(map, { kind: "array" });
  const theirs = await zarrita.open(map, { kind: "array" });
  const sel = { x: zz.slice(1, 3) };
  assert.deepEqual(zz.select(ours, sel), zarrita.select(theirs, sel));
  assert.throws(
    () => zz.select(ours, { z: 0 }),
    (e) => zz.isZarritaError(e, "InvalidSelectionError") && /Unknown dimension name: "z"/.test(e.message),
  );
  // A library's setter (ndarray-like) gets the result's data, shape and stride.
  const setter = { prepare: (data, shape, stride) => ({ wrapped: true, data, shape, stride }) };
  const got = await zz._zarrita_internal_get(ours, zz.select(ours, sel), {}, setter);
  assert.equal(got.wrapped, true);
  assert.deepEqual([...got.data], [4, 4, 4, 4]);
  assert.deepEqual(got.shape, [2, 2]);
  assert.equal(await zz._zarrita_internal_get(ours, [1, 2], {}, setter), 4);
  await assert.rejects(zz._zarrita_internal_set(ours, null, 1), (e) => zz.isZarritaError(e, "UnsupportedError"));
  // 0.6's classes: what zom/zarrita throws is an instance of them.
  const notFound = await zz.open(zz.root(map).resolve("nothing")).catch((e) => e);
  assert.ok(notFound instanceof zz.NodeNotFoundError && notFound instanceof zz.NotFoundError);
  const badSelection = await zz.get(ours, [9]).catch((e) => e);
  assert.ok(badSelection instanceof zz.IndexError);
  assert.ok(!(badSelection instanceof zz.NodeNotFoundError));
  assert.equal(new zz.KeyError("/a").message, new zarrita06.KeyError("/a").message);
});

/** A values.json entry as zarrita-shaped JS values (|S: the bytes as a string, trailing NULs cut). */
function zarritaValues(entry) {
  if (entry.dtype.startsWith("|S")) return entry.values.map((b64) => Buffer.from(b64, "base64").toString("latin1").replace(/\0+$/, ""));
  return entry.values;
}

/**
 * Arrays zarrita 0.7.5 reads to other values than zarr-python (zom/zarrita gives zarr-python's),
 * with the reason; a listed array that zarrita reads right fails the test (the list is stale).
 */
const ZARRITA_DIFFERS = new Map([
  ["v3/scale_offset_f32", "zarrita computes a float32 scale_offset in float64 and rounds once; zarr-python rounds each step to float32"],
  ["v3/cast_then_shard", "zarrita skips an array → array codec before sharding_indexed: it reads the shard's int16 bytes as float32"],
  ["v2/bytes_nuls", "zarrita drops every NUL of a byte string; NumPy (and zom) only the trailing ones"],
]);

const encode = (v) => (typeof v === "number" && !Number.isFinite(v) ? (Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity") : v);
const same = (got, want, where) => sameValues(got.map(encode), want, where);

test("every array today's writers wrote reads as they read it back, through zom, in its workers too", () =>
  withServer({}, async (server) => {
    for (const fmt of FORMATS) {
      for (const [name, entry] of Object.entries(expected(fmt))) {
        const arr = await openArray(new FetchStore(`${server.url}/current/${fmt}`), name);
        for (const workers of [0, 2]) {
          const { data, shape } = await arr.get(undefined, { workers });
          assert.deepEqual(shape, entry.shape, `${fmt}/${name}`);
          sameValues(elements(data, arr.dtype), entry.values, `${fmt}/${name} (workers: ${workers})`);
        }
        arr.free();
      }
    }
  }));

test("through zom/zarrita: the same values, in the stored order with zarrita's strides; equal to zarrita 0.7.5 where it reads them", () =>
  withServer({}, async (server) => {
    let compared = 0;
    for (const fmt of FORMATS) {
      for (const [name, entry] of Object.entries(expected(fmt))) {
        const where = `${fmt}/${name}`;
        const ours = await zz.open(zz.root(new zz.FetchStore(`${server.url}/current/${fmt}`)).resolve(name), { kind: "array" });
        const got = await zz.get(ours);
        const want = zarritaValues(entry);
        if (entry.shape.length === 0) {
          same([got], want, where);
        } else {
          assert.deepEqual(got.shape, entry.shape, where);
          same(cOrderValues(got), want, where);
        }
        // zarrita 0.7.5: every array it can read (it has no jenkins_lookup3 and no reading of
        // zero-length arrays) gives the same answer, strides included.
        const theirs = await zarrita.open(zarrita.root(new zarrita.FetchStore(`${server.url}/current/${fmt}`)).resolve(name), {
          kind: "array",
        });
        const them = await zarrita.get(theirs).catch((e) => e);
        if (them instanceof Error) continue;
        compared++;
        if (entry.shape.length === 0) {
          assert.deepEqual(encode(got), encode(them), where);
          continue;
        }
        assert.deepEqual(got.stride, them.stride, `${where}: stride`);
        const theirValues = cOrderValues(them).map(encode);
        const text = (values) => values.map((v) => String(v)).join(",");
        const zarritaRight = text(theirValues) === text(want.map(encode));
        assert.equal(
          zarritaRight,
          !ZARRITA_DIFFERS.has(where),
          `${where}: zarrita ${zarritaRight ? "reads it right: drop it from ZARRITA_DIFFERS" : "differs from zarr-python"}`,
        );
        if (!zarritaRight) continue;
        const at = (data, i) => encode(typeof data.get === "function" && !ArrayBuffer.isView(data) ? data.get(i) : data[i]);
        const mine = Array.from({ length: got.data.length }, (_, i) => at(got.data, i));
        assert.deepEqual(
          mine,
          Array.from({ length: them.data.length }, (_, i) => at(them.data, i)),
          `${where}: data`,
        );
        // A chunk, as zarrita's getChunk gives it.
        const coords = entry.shape.map(() => 0);
        const [c1, c2] = [await ours.getChunk(coords), await theirs.getChunk(coords)];
        assert.deepEqual([c1.shape, c1.stride], [c2.shape, c2.stride], `${where}: chunk`);
        assert.deepEqual(Array.from(c1.data, encode), Array.from(c2.data, encode), `${where}: chunk data`);
      }
    }
    assert.ok(compared >= 18, `${compared} arrays compared with zarrita`);
  }));

test("zom/zarrita: a chunk of an array with a zero-length dimension is the fill value, as zarrita answers", () =>
  withServer({}, async (server) => {
    for (const fmt of FORMATS) {
      const store = new zz.FetchStore(`${server.url}/current/${fmt}`);
      const ours = await zz.open(zz.root(store).resolve("zero_length"), { kind: "array" });
      const theirs = await zarrita.open(zarrita.root(new zarrita.FetchStore(`${server.url}/current/${fmt}`)).resolve("zero_length"), {
        kind: "array",
      });
      const [a, b] = [await ours.getChunk([0, 0]), await theirs.getChunk([0, 0])];
      assert.deepEqual({ ...a, data: [...a.data] }, { ...b, data: [...b.data] }, fmt);
      const all = await zz.get(ours);
      assert.deepEqual([all.shape, all.data.length], [[0, 2], 0], fmt);
    }
  }));

/** The elements of `values` (C order, of `shape`) at the chunk of `sizes` at `coords`. */
function chunkOf(values, shape, sizes, coords) {
  const starts = coords.map((c, d) => sizes[d].slice(0, c).reduce((a, b) => a + b, 0));
  const lens = coords.map((c, d) => sizes[d][c]);
  const out = [];
  const visit = (d, offset) => {
    if (d === shape.length) return void out.push(values[offset]);
    for (let i = starts[d]; i < starts[d] + lens[d]; i++) visit(d + 1, offset * shape[d] + i);
  };
  visit(0, 0);
  return { shape: lens, values: out };
}

test("rectilinear grids (zarr-python 3.4): whole arrays in the workers too, every chunk as a tile, through a cache and zom/zarrita", () =>
  withServer({}, async (server) => {
    const values = readJson("current", "v3-rectilinear.values.json");
    const cache = new ChunkCache({ maxBytes: 1 << 20 });
    for (const [name, entry] of Object.entries(values)) {
      const arr = await openArray(new FetchStore(`${server.url}/current/v3-rectilinear`), name, { cache });
      for (const workers of [0, 2]) {
        const { data, shape } = await arr.get(undefined, { workers, cache: null });
        assert.deepEqual(shape, entry.shape, name);
        sameValues(elements(data, arr.dtype), entry.values, `${name} (workers: ${workers})`);
      }
      const sizes = arr.chunkSizes();
      assert.equal(sizes.length, entry.shape.length, name);
      const coords = [[]];
      for (const dim of sizes) coords.splice(0, coords.length, ...coords.flatMap((c) => dim.map((_, i) => [...c, i])));
      // Twice: the second time from the cache.
      for (const round of [1, 2]) {
        let seen = 0;
        for await (const tile of arr.getChunks(coords, { workers: 2 })) {
          assert.ok(tile.chunk, `${name} ${tile.coords}: ${tile.error?.message}`);
          const want = chunkOf(entry.values, entry.shape, sizes, tile.coords);
          assert.deepEqual(tile.chunk.shape, want.shape, `${name} ${tile.coords}`);
          sameValues(elements(tile.chunk.data, arr.dtype), want.values, `${name} ${tile.coords} (round ${round})`);
          seen++;
        }
        assert.equal(seen, coords.length, name);
      }
      if (!["repeat_only", "sharded_edges", "sharded_uneven"].includes(name))
        assert.equal(arr.chunks, null, `${name}: chunks differ in shape`);
      arr.free();
      const ours = await zz.open(zz.root(new zz.FetchStore(`${server.url}/current/v3-rectilinear`)).resolve(name), { kind: "array" });
      const got = await zz.get(ours);
      sameValues(cOrderValues(got).map(encode), entry.values, `zom/zarrita ${name}`);
      // zom/zarrita's getChunk: an uneven grid's chunk in its own shape, a regular one's padded.
      if (arr.chunks === null) {
        for (const c of coords) {
          const chunk = await ours.getChunk(c);
          const want = chunkOf(entry.values, entry.shape, sizes, c);
          assert.deepEqual(chunk.shape, want.shape, `zom/zarrita ${name} ${c}`);
          sameValues(cOrderValues(chunk).map(encode), want.values, `zom/zarrita ${name} ${c}`);
        }
      }
    }
  }));

/** Every file below `dir`, by its path relative to `dir` ("a/c/0/1"). */
function filesBelow(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const file = join(e.parentPath ?? e.path, e.name);
      return [relative(dir, file).split(sep).join("/"), file];
    });
}

test("today's writers' hierarchies read the same from a zip and through kerchunk references", () =>
  withServer({}, async (server) => {
    for (const name of ["v3", "v2", "v3-rectilinear"]) {
      const dir = join(fixtures, "current", name);
      const files = filesBelow(dir);
      const zip = await ZipStore.fromBlob(
        new Blob([zipSync(Object.fromEntries(files.map(([k, f]) => [k, readFileSync(f)])), { level: 0 })]),
      );
      // Documents inline, chunks as byte ranges of the files on the server.
      const refs = Object.fromEntries(
        files.map(([k, f]) => {
          const bytes = readFileSync(f);
          const doc = /(^|\/)(zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/.test(k);
          return [k, doc ? bytes.toString("utf8") : [`${server.url}/current/${name}/${k}`, 0, bytes.length]];
        }),
      );
      const references = await ReferenceStore.fromJson({ version: 1, refs });
      const values = readJson("current", `${name}.values.json`);
      for (const [store, how] of [
        [zip, "zip"],
        [references, "references"],
      ]) {
        for (const [path, entry] of Object.entries(values)) {
          const arr = await openArray(store, path);
          const { data, shape } = await arr.get(undefined, { workers: 0 });
          assert.deepEqual(shape, entry.shape, `${how} ${name}/${path}`);
          sameValues(elements(data, arr.dtype), entry.values, `${how} ${name}/${path}`);
          arr.free();
        }
      }
    }
  }));
