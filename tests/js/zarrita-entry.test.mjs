// "zom/zarrita" against the real zarrita 0.7.5, on the same data and the same store objects:
// every fixture array zarrita reads is opened through both, and their metadata, `get` (whole
// arrays and selections) and `getChunk` (every chunk) must agree: data class, values, shape,
// stride. Where zom/zarrita differs on purpose (it reads what zarrita refuses; C-order values
// for arrays stored in F order; exact uint64 fill values) the test says so explicitly.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as zarrita from "zarrita";
import { FsStore } from "zom/fs";
import * as zz from "zom/zarrita";
import { startServer } from "../server/server.mjs";
import { cOrderValues, fixtures, readJson } from "./helpers.mjs";
import { b64, encFloat } from "./hierarchy-common.mjs";

/** The array paths under a fixture hierarchy ("a", "g/b"), found from their documents. */
function arrayPaths(dir, prefix = "") {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const sub = join(dir, name);
    if (!statSync(sub).isDirectory()) continue;
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const v3 = join(sub, "zarr.json");
    if (existsSync(join(sub, ".zarray"))) out.push(path);
    else if (existsSync(v3) && JSON.parse(readFileSync(v3, "utf8")).node_type === "array") out.push(path);
    else if (existsSync(v3) || existsSync(join(sub, ".zgroup"))) out.push(...arrayPaths(sub, path));
  }
  return out;
}

const HIERARCHIES = ["v2", "v3", "zarr2", "v2-numcodecs"];

/**
 * What zarrita 0.7.5 cannot read in the fixtures, and zom/zarrita reads: unknown numcodecs
 * (checksums, bz2, lzma, astype, categorize, packbits, quantize, vlen-bytes, vlen-array, json,
 * msgpack), data types it has no name for (complex, datetime, timedelta, raw bytes, structs),
 * float16 without a Float16Array, nested sharding and v3 sharding with the index at the start.
 */
const ZARRITA_REFUSES = {
  v2: [
    "checksum_adler32",
    "checksum_crc32",
    "checksum_fletcher32",
    "codec_bz2",
    "codec_lzma",
    "dtype_complex128",
    "dtype_complex64",
    "dtype_datetime_10s",
    "dtype_datetime_ns",
    "dtype_raw_bytes",
    "dtype_struct",
    "dtype_timedelta_ms",
    "dtype_vlen_bytes",
    "fill_complex64_nan",
    "filter_astype",
    "filter_categorize",
    "filter_packbits",
    "filter_quantize",
    ...(globalThis.Float16Array ? [] : ["dtype_float16"]),
  ],
  v3: [
    "dtype_complex128",
    "dtype_complex64",
    "dtype_datetime_10s",
    "dtype_datetime_ns",
    "dtype_fixed_utf32",
    "dtype_nullterm_bytes",
    "dtype_raw_bytes",
    "dtype_struct",
    "dtype_struct_nested",
    "dtype_timedelta_ms",
    "dtype_vlen_bytes",
    "fill_complex64_nan",
    "shard_index_start",
    "shard_nested",
    "shard_then_gzip",
    ...(globalThis.Float16Array ? [] : ["dtype_float16"]),
  ],
  zarr2: [
    "bz2",
    "complex128",
    "datetime_ms",
    "filter_astype",
    "filter_packbits",
    "filter_quantize",
    "g/structured",
    "lzma",
    "object_msgpack",
    "object_vlen_array",
    "object_vlen_bytes",
    "timedelta_s",
  ],
};

/**
 * Two regions agree: same class, shape and strides (zarrita's layout: the order the chunks store
 * the values in), the same values at every index and the same raw values.
 */
function assertSameRegion(ours, theirs, what, values = true) {
  if (typeof theirs !== "object" || theirs === null || !("shape" in theirs)) {
    if (values) assert.deepEqual(ours, theirs, `${what}: scalar`);
    return;
  }
  assert.equal(ours.data.constructor.name, theirs.data.constructor.name, `${what}: data class`);
  assert.deepEqual(ours.shape, theirs.shape, `${what}: shape`);
  assert.deepEqual(ours.stride, theirs.stride, `${what}: stride`);
  if (values) {
    assert.deepEqual(cOrderValues(ours), cOrderValues(theirs), `${what}: values`);
    assert.deepEqual([...ours.data], [...theirs.data], `${what}: raw values`);
  }
  if (ours.data.buffer !== undefined) assert.ok(ours.data.buffer instanceof ArrayBuffer, `${what}: an ArrayBuffer by default`);
}

/** A few selections of an array of `shape`: steps, integers (negative too), null, and all integers. */
function selectionsFor(shape, slice) {
  if (shape.length === 0) return [null];
  const sels = [
    shape.map(() => null),
    shape.map((_n) => slice(1, null, 2)),
    shape.map((n) => slice(null, Math.max(1, n - 1))),
    [-1, ...shape.slice(1).map(() => slice(0, null, 3))],
    shape.map(() => 0),
    shape.map((n) => n - 1),
  ];
  if (shape.length > 1) sels.push([null, 1, ...shape.slice(2).map(() => null)]);
  return sels;
}

/** Every chunk's coordinates of an array. */
function chunkCoords(shape, chunks) {
  const grid = shape.map((n, i) => Math.max(1, Math.ceil(n / chunks[i])));
  const out = [];
  const total = grid.reduce((a, b) => a * b, 1);
  for (let i = 0; i < total; i++) {
    let rest = i;
    const c = [];
    for (let d = grid.length - 1; d >= 0; d--) {
      c.unshift(rest % grid[d]);
      rest = Math.floor(rest / grid[d]);
    }
    out.push(c);
  }
  return out;
}

/**
 * Arrays where zarrita's values are not zarr-python's (mostly how it treats the fill value of
 * missing chunks); zom/zarrita's whole-array values are checked against zarr-python's
 * (tests/fixtures/expected/<hierarchy>.values.json) instead, the rest (class, shape, stride) against zarrita.
 */
const ZARRITA_WRONG = {
  // The fill value 2^64 − 1 read through a double is 2^64, which a BigUint64Array wraps to 0.
  "v2/dtype_uint64": true,
  "v3/dtype_uint64": true,
  // The fill value is base64 ("YWI=" for b"ab"): zarrita fills with the base64 text.
  "v2/dtype_nullterm_bytes": true,
  // numcodecs writes fill_value 0 for an object array: zarr-python reads it as the string "0", zarrita as the number 0.
  "zarr2/g/str_default": true,
  "zarr2/object_vlen_utf8": true,
  // json2 on a 2-d chunk: zarrita's decoded chunk holds [value, …] pairs instead of the values in C order.
  "zarr2/object_json_2d": true,
  // b"\x00b": zarrita drops every NUL of a byte string, NumPy (and zom) only the trailing ones.
  "zarr2/bytes_s4": true,
};

/** zarr-python's values of a whole array, in the form zom/zarrita gives them. */
function expectedValues(h, path, dtype) {
  const entry = readJson("expected", `${h}.values.json`)[path];
  return entry.values.map((v) => {
    if (dtype === "int64" || dtype === "uint64") return BigInt(v);
    if (dtype.startsWith("v2:S")) return Buffer.from(v, "base64").toString("utf8").replace(/\0+$/, "");
    return v;
  });
}

/** NumPy's `S` bytes: what a value holds before its trailing NULs (zom/zarrita gives them without). */
function unpadded(text) {
  const bytes = Buffer.from(text, "base64");
  return b64(bytes.subarray(0, bytes.findLastIndex((b) => b !== 0) + 1));
}

/** One value of a zom/zarrita region in generate.py's encoding (bytes as base64, floats' specials as text). */
function encodeOne(value) {
  if (value instanceof Uint8Array) return b64(value);
  if (ArrayBuffer.isView(value)) return Array.from(value, encodeOne);
  if (Array.isArray(value)) return value.map(encodeOne);
  if (typeof value === "number") return encFloat(value);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeOne(v)]));
  return value;
}

/** A zom/zarrita region's values in C order and generate.py's encoding; complex values as [re, im]. */
function encodedValues(region, dtype) {
  if (dtype === "complex64" || dtype === "complex128") {
    // Interleaved: element k's parts at 2·offset and 2·offset + 1 of the region's strides.
    const offsets = cOrderValues({ data: { get: (i) => i }, shape: region.shape, stride: region.stride });
    return offsets.map((o) => [encFloat(region.data[2 * o]), encFloat(region.data[2 * o + 1])]);
  }
  return cOrderValues(region).map(encodeOne);
}

/**
 * Encoded values equal zarr-python's: integers whatever their JS type, `S` bytes (alone or in a
 * struct field) without their trailing NULs, everything else exactly.
 */
function sameEncoded(got, want, what, bytesUnpadded = false) {
  if (typeof want === "string" && typeof got === "string" && bytesUnpadded) return assert.equal(got, unpadded(want), what);
  if (typeof want === "object" && want !== null) {
    assert.equal(typeof got, "object", `${what}: ${JSON.stringify(got, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);
    // Complex items (of a vlen-array) come interleaved, as a complex array's values do.
    const pairs = Array.isArray(want) && want.length > 0 && want.every((w) => Array.isArray(w) && w.length === 2);
    if (pairs && got.length === 2 * want.length && !got.some(Array.isArray)) got = want.map((_, i) => [got[2 * i], got[2 * i + 1]]);
    const keys = Array.isArray(want) ? [...want.keys()] : Object.keys(want);
    if (Array.isArray(want)) assert.equal(got.length, want.length, `${what}: length`);
    else assert.deepEqual(Object.keys(got).sort(), [...keys].sort(), `${what}: fields`);
    for (const k of keys) sameEncoded(got[k], want[k], `${what}[${k}]`, bytesUnpadded || !Array.isArray(want));
    return;
  }
  const integer = (v) => (typeof v === "bigint" ? v : typeof v === "number" && Number.isInteger(v) && !Object.is(v, -0) ? BigInt(v) : v);
  assert.deepEqual(integer(got), integer(want), what);
}

const sameScalar = (a, b) => Object.is(a, b) || (typeof a === "object" && JSON.stringify(a) === JSON.stringify(b));

for (const h of HIERARCHIES) {
  test(`${h}: every array zarrita reads reads the same through zom/zarrita`, async (t) => {
    const store = new FsStore(join(fixtures, h));
    const refused = [];
    for (const path of arrayPaths(join(fixtures, h))) {
      let theirs;
      try {
        theirs = await zarrita.open(zarrita.root(store).resolve(path), { kind: "array" });
        await zarrita.get(theirs);
      } catch {
        refused.push(path);
        // zom/zarrita reads it: its values, through the alias, are zarr-python's.
        const ours = await zz.open(zz.root(store).resolve(path), { kind: "array" });
        const all = await zz.get(ours);
        assert.deepEqual(ours.shape.length === 0 ? [] : all.shape, ours.shape, `${h}/${path}: read through zom/zarrita`);
        assert.ok(readJson("expected", `${h}.values.json`)[path] !== undefined, `${h}/${path}: zarr-python's values are on record`);
        sameEncoded(encodedValues(all, ours.dtype), expectedValues(h, path, ours.dtype), `${h}/${path} through zom/zarrita`);
        continue;
      }
      const ours = await zz.open(zz.root(store).resolve(path), { kind: "array" });
      const what = `${h}/${path}`;
      assert.equal(ours.kind, "array");
      assert.equal(ours.path, theirs.path, `${what}: path`);
      assert.equal(ours.store, store, `${what}: store`);
      assert.deepEqual(ours.shape, theirs.shape, `${what}: shape`);
      assert.deepEqual(ours.chunks, theirs.chunks, `${what}: chunks`);
      assert.equal(ours.dtype, theirs.dtype, `${what}: dtype`);
      assert.deepEqual(ours.attrs, theirs.attrs, `${what}: attrs`);
      assert.deepEqual(ours.dimensionNames, theirs.dimensionNames, `${what}: dimensionNames`);
      for (const q of ["number", "bigint", "boolean", "string", "object", theirs.dtype])
        assert.equal(ours.is(q), theirs.is(q), `${what}: is(${q})`);
      if (theirs.dtype === "uint64" && ours.fillValue !== theirs.fillValue) {
        // Differs on purpose: zarrita reads 2^64 − 1 through a double (2^64); zom keeps it exact.
        assert.equal(ours.fillValue, 2n ** 64n - 1n, `${what}: exact uint64 fill value`);
      } else {
        assert.ok(
          sameScalar(ours.fillValue, theirs.fillValue),
          `${what}: fillValue ${String(ours.fillValue)} vs ${String(theirs.fillValue)}`,
        );
      }
      const zarritaWrong = ZARRITA_WRONG[what] === true;
      if (zarritaWrong) {
        // Differs on purpose: zom/zarrita's values are zarr-python's.
        assert.deepEqual(cOrderValues(await zz.get(ours)), expectedValues(h, path, ours.dtype), `${what}: zarr-python's values`);
      }
      for (const sel of selectionsFor(theirs.shape, zarrita.slice)) {
        const label = `${what} get ${JSON.stringify(sel)}`;
        const expected = await zarrita.get(theirs, sel);
        const ourSel = sel === null ? null : sel.map((s) => (s !== null && typeof s === "object" ? zz.slice(s.start, s.stop, s.step) : s));
        assertSameRegion(await zz.get(ours, ourSel), expected, label, !zarritaWrong);
      }
      for (const coords of chunkCoords(theirs.shape, theirs.chunks)) {
        assertSameRegion(await ours.getChunk(coords), await theirs.getChunk(coords), `${what} getChunk ${coords}`, !zarritaWrong);
      }
    }
    const expected = ZARRITA_REFUSES[h];
    if (expected !== undefined) assert.deepEqual(refused.sort(), [...expected].sort(), `${h}: what zarrita refuses and zom/zarrita reads`);
    t.diagnostic(`${h}: zom/zarrita reads ${refused.length} arrays zarrita refuses: ${refused.join(", ")}`);
  });
}

test("groups, open.v2/open.v3, kind and NotFoundError, attrs: false", async () => {
  const v2 = new FsStore(join(fixtures, "v2"));
  const v3 = new FsStore(join(fixtures, "v3"));
  for (const [store, group] of [
    [v2, "group1"],
    [v3, "group1"],
    [v3, ""],
  ]) {
    const ours = await zz.open(zz.root(store).resolve(group));
    const theirs = await zarrita.open(zarrita.root(store).resolve(group));
    assert.equal(ours.kind, "group");
    assert.ok(ours instanceof zz.Group);
    assert.equal(ours.path, theirs.path);
    // zom reads integers beyond 2^53 exactly; zom/zarrita gives attributes as JSON.parse does, as zarrita.
    assert.deepEqual(ours.attrs, theirs.attrs);
    assert.doesNotThrow(() => JSON.stringify(ours.attrs));
    const viaKind = await zz.open(zz.root(store).resolve(group), { kind: "group" });
    assert.deepEqual(viaKind.attrs, theirs.attrs);
  }
  // A store itself opens its root.
  assert.equal((await zz.open(v3)).kind, (await zarrita.open(v3)).kind);
  // The other kind, or nothing: NotFoundError both ways.
  for (const [store, path, kind] of [
    [v3, "group1", "array"],
    [v3, "dtype_int8", "group"],
    [v2, "group1", "array"],
    [v2, "dtype_int8", "group"],
    [v3, "nope", undefined],
    [v2, "nope", "array"],
  ]) {
    const ours = await zz.open(zz.root(store).resolve(path), { kind }).then(
      () => null,
      (e) => e,
    );
    const theirs = await zarrita.open(zarrita.root(store).resolve(path), { kind }).then(
      () => null,
      (e) => e,
    );
    assert.ok(zarrita.isZarritaError(theirs, "NotFoundError"), `zarrita: ${path} as ${kind}`);
    assert.ok(zz.isZarritaError(ours, "NotFoundError"), `zom/zarrita: ${path} as ${kind}: ${ours}`);
    assert.equal(ours.name, "NotFoundError");
    assert.ok(zz.isZarritaError(ours), "isZarritaError without tags");
    assert.ok(!zz.isZarritaError(ours, "InvalidMetadataError"));
    if (theirs.found !== undefined) assert.equal(ours.found, theirs.found, `found, ${path}`);
    if (theirs.found !== undefined) assert.equal(ours.path, theirs.path, `path, ${path}`);
    assert.equal(ours.cause?.code, "NotFound", "the ZomError is the cause");
  }
  // open.v2 / open.v3 pin the format.
  for (const [store, path, good, bad] of [
    [v2, "dtype_int8", "v2", "v3"],
    [v3, "dtype_int8", "v3", "v2"],
  ]) {
    const ours = await zz.open[good](zz.root(store).resolve(path), { kind: "array" });
    const theirs = await zarrita.open[good](zarrita.root(store).resolve(path), { kind: "array" });
    assert.deepEqual(ours.shape, theirs.shape);
    assertSameRegion(await zz.get(ours), await zarrita.get(theirs), `open.${good}`);
    const e1 = await zz.open[bad](zz.root(store).resolve(path), { kind: "array" }).then(
      () => null,
      (e) => e,
    );
    const e2 = await zarrita.open[bad](zarrita.root(store).resolve(path), { kind: "array" }).then(
      () => null,
      (e) => e,
    );
    assert.equal(e1?.name, e2?.name, `open.${bad} of a ${good} array`);
  }
  // attrs: false leaves a v2 node's .zattrs out (and with it _ARRAY_DIMENSIONS).
  const leaf = "group1/sub/leaf";
  for (const attrs of [true, false]) {
    const ours = await zz.open(zz.root(v2).resolve(leaf), { kind: "array", attrs });
    const theirs = await zarrita.open(zarrita.root(v2).resolve(leaf), { kind: "array", attrs });
    assert.deepEqual(ours.attrs, theirs.attrs, `attrs: ${attrs}`);
    assert.deepEqual(ours.dimensionNames, theirs.dimensionNames);
    const g1 = await zz.open.v2(zz.root(v2).resolve("group1"), { attrs });
    const g2 = await zarrita.open.v2(zarrita.root(v2).resolve("group1"), { attrs });
    assert.deepEqual(g1.attrs, g2.attrs);
  }
  assert.ok(Object.keys((await zz.open(zz.root(v2).resolve(leaf))).attrs).length > 0);
});

test("Location.resolve and root as zarrita's", () => {
  const base = zarrita.root(new Map()).resolve("a/b");
  const ours = zz.root(new Map()).resolve("a/b");
  for (const p of ["c", "../c", "/x/y", "", ".", "..", "c/", "./c/../d", "../../../.."]) {
    assert.equal(ours.resolve(p).path, base.resolve(p).path, `resolve(${JSON.stringify(p)})`);
  }
  assert.equal(zz.root().path, "/");
  assert.ok(zz.root().store instanceof Map);
});

test("selections: invalid ones are InvalidSelectionError; a 0-d array reads as a scalar", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  const ours = await zz.open(zz.root(store).resolve("dtype_int32"), { kind: "array" });
  const theirs = await zarrita.open(zarrita.root(store).resolve("dtype_int32"), { kind: "array" });
  for (const sel of [[100], [zarrita.slice(0, 4, 0)]]) {
    const e1 = await zz.get(ours, sel).then(
      () => null,
      (e) => e,
    );
    const e2 = await zarrita.get(theirs, sel).then(
      () => null,
      (e) => e,
    );
    assert.ok(zarrita.isZarritaError(e2, "InvalidSelectionError"), `zarrita ${JSON.stringify(sel)}: ${e2}`);
    assert.ok(zz.isZarritaError(e1, "InvalidSelectionError"), `zom/zarrita ${JSON.stringify(sel)}: ${e1}`);
  }
  // bigint slices, as zarrita takes them.
  assertSameRegion(await zz.get(ours, [zz.slice(1n, 4n)]), await zarrita.get(theirs, [zarrita.slice(1n, 4n)]), "bigint slice");
  // A 0-d array in a Map store.
  const map = new Map([
    [
      "/zarr.json",
      new TextEncoder().encode(
        JSON.stringify({
          zarr_format: 3,
          node_type: "array",
          shape: [],
          data_type: "float64",
          chunk_grid: { name: "regular", configuration: { chunk_shape: [] } },
          chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
          fill_value: 1.5,
          codecs: [{ name: "bytes", configuration: { endian: "little" } }],
          attributes: {},
        }),
      ),
    ],
  ]);
  const s1 = await zz.get(await zz.open(map, { kind: "array" }));
  const s2 = await zarrita.get(await zarrita.open(map, { kind: "array" }));
  assert.equal(s1, s2);
  assert.equal(s1, 1.5);
});

test("abort: an aborted signal rejects get, getChunk and open with its reason, as zarrita does", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  const ours = await zz.open(zz.root(store).resolve("codec_gzip"), { kind: "array" });
  const theirs = await zarrita.open(zarrita.root(store).resolve("codec_gzip"), { kind: "array" });
  const ac = new AbortController();
  ac.abort();
  for (const [label, a, b] of [
    ["get {signal}", () => zz.get(ours, null, { signal: ac.signal }), () => zarrita.get(theirs, null, { signal: ac.signal })],
    [
      "get {opts: {signal}}",
      () => zz.get(ours, null, { opts: { signal: ac.signal } }),
      () => zarrita.get(theirs, null, { opts: { signal: ac.signal } }),
    ],
    ["getChunk", () => ours.getChunk([0, 0], { signal: ac.signal }), () => theirs.getChunk([0, 0], { signal: ac.signal })],
    [
      "open",
      () => zz.open(zz.root(store).resolve("codec_gzip"), { signal: ac.signal }),
      () => zarrita.open(zarrita.root(store).resolve("codec_gzip"), { signal: ac.signal }),
    ],
  ]) {
    const e1 = await a().then(
      () => null,
      (e) => e,
    );
    const e2 = await b().then(
      () => null,
      (e) => e,
    );
    // zarrita's getChunk and open reject with whatever the store throws for an aborted signal
    // (zom's FsStore: a ZomError "Aborted"); zom/zarrita with the signal's reason, as zarrita's get does.
    if (label.startsWith("get ")) assert.equal(e2?.name, "AbortError", `zarrita ${label}`);
    else assert.ok(e2 instanceof Error, `zarrita ${label}`);
    assert.equal(e1?.name, "AbortError", label);
    assert.equal(e1, ac.signal.reason, `${label}: the signal's reason`);
  }
  // viv's form: the signal as the third argument.
  assert.equal(
    await zz.get(ours, null, ac.signal).then(
      () => null,
      (e) => e,
    ),
    ac.signal.reason,
  );
  // An abort while the store is answering.
  const slow = {
    get: (key, opts) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(store.get(key)), 200);
        opts?.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(opts.signal.reason)));
      }),
  };
  const slowArr = await zz.open(zz.root(new FsStoreGetOnly(store)).resolve("codec_gzip"), { kind: "array" });
  const late = new AbortController();
  const pending = zz.get(new zz.Array(slow, slowArr.path, metadataOf("v3", "codec_gzip")), null, { signal: late.signal });
  setTimeout(() => late.abort(), 20);
  assert.equal(
    await pending.then(
      () => null,
      (e) => e,
    ),
    late.signal.reason,
  );
});

/** A zarrita-shaped store with `get` only (no getRange, no list): a viewer's own store object. */
class FsStoreGetOnly {
  #inner;
  constructor(inner) {
    this.#inner = inner;
  }
  get(key, opts) {
    return this.#inner.get(key, opts);
  }
}

/** A fixture's zarr.json as zarrita metadata. */
function metadataOf(h, path) {
  return JSON.parse(readFileSync(join(fixtures, h, path, "zarr.json"), "utf8"));
}

test("a custom store object { get } without getRange reads the same through both", async () => {
  const fs3 = new FsStore(join(fixtures, "v3"));
  const fs2 = new FsStore(join(fixtures, "v2"));
  for (const [fs, path] of [
    [fs3, "codec_blosc_lz4_shuffle"],
    [fs3, "dtype_bool"],
    [fs2, "dtype_fixed_utf32"],
    [fs2, "order_f"],
    [fs3, "shard_index_end"],
  ]) {
    const store = new FsStoreGetOnly(fs);
    const ours = await zz.open(zz.root(store).resolve(path), { kind: "array" });
    let theirs;
    try {
      theirs = await zarrita.open(zarrita.root(store).resolve(path), { kind: "array" });
      assertSameRegion(await zz.get(ours), await zarrita.get(theirs), `${path} through { get }`);
    } catch (e) {
      // Sharded arrays need getRange in zarrita; zom fetches the shard and cuts it.
      assert.equal(path, "shard_index_end", `${path}: ${e}`);
      const direct = await zz.get(await zz.open(zz.root(fs).resolve(path), { kind: "array" }));
      assertSameRegion(await zz.get(ours), direct, `${path} through { get }, zom only`);
    }
  }
  // A sync Map store, zarrita's `root()` default.
  const map = new Map();
  for (const key of ["zarr.json", "c/0/0", "c/0/1", "c/1/0", "c/1/1"]) {
    const file = join(fixtures, "v3", "dtype_uint8", ...key.split("/"));
    if (existsSync(file)) map.set(`/dtype_uint8/${key}`, new Uint8Array(readFileSync(file)));
  }
  const a = await zz.open(zz.root(map).resolve("dtype_uint8"), { kind: "array" });
  const b = await zarrita.open(zarrita.root(map).resolve("dtype_uint8"), { kind: "array" });
  assertSameRegion(await zz.get(a), await zarrita.get(b), "Map store");
});

test("vizarr-style new Array(store, path, metadata) reads as zarrita's", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  for (const path of ["dtype_int16", "codec_transpose", "shard_index_end", "dtype_bool", "codec_gzip_crc32c"]) {
    const meta = metadataOf("v3", path);
    const ours = new zz.Array(store, `/${path}`, meta);
    const theirs = new zarrita.Array(store, `/${path}`, metadataOf("v3", path));
    assert.ok(ours instanceof zz.Array);
    assert.equal(ours.kind, "array");
    for (const k of ["shape", "chunks", "dtype", "attrs", "dimensionNames", "fillValue", "path"])
      assert.deepEqual(ours[k], theirs[k], `${path}: ${k}`);
    assertSameRegion(await zz.get(ours), await zarrita.get(theirs), `${path}: get`);
    assertSameRegion(
      await ours.getChunk([0, 0, 0].slice(0, ours.shape.length)),
      await theirs.getChunk([0, 0, 0].slice(0, theirs.shape.length)),
      `${path}: getChunk`,
    );
  }
  // v2 metadata in zarrita's converted form: "v2:U6", numcodecs codecs, v2 chunk keys, implicit bytes codec.
  const v2 = new FsStore(join(fixtures, "v2"));
  const zarray = JSON.parse(readFileSync(join(fixtures, "v2", "dtype_fixed_utf32", ".zarray"), "utf8"));
  const converted = {
    zarr_format: 3,
    node_type: "array",
    shape: zarray.shape,
    data_type: "v2:U6",
    chunk_grid: { name: "regular", configuration: { chunk_shape: zarray.chunks } },
    chunk_key_encoding: { name: "v2", configuration: { separator: "." } },
    codecs: zarray.compressor
      ? [{ name: `numcodecs.${zarray.compressor.id}`, configuration: { ...zarray.compressor, id: undefined } }]
      : [],
    fill_value: zarray.fill_value,
    attributes: {},
  };
  const ours = new zz.Array(v2, "/dtype_fixed_utf32", converted);
  const theirs = await zarrita.open.v2(zarrita.root(v2).resolve("dtype_fixed_utf32"), { kind: "array" });
  assertSameRegion(await zz.get(ours), await zarrita.get(theirs), "v2 metadata in zarrita's form");
});

test("withConsolidatedMetadata: the same contents, documents from memory, reads the same", async () => {
  for (const [h, format] of [
    ["v2-consolidated", "v2"],
    ["v3-consolidated", "v3"],
  ]) {
    const inner = new FsStore(join(fixtures, h));
    const asked = [];
    const counting = { get: (k, o) => (asked.push(k), inner.get(k, o)), getRange: (k, r, o) => inner.getRange(k, r, o) };
    const ours = await zz.withConsolidatedMetadata(counting, { format });
    const theirs = await zarrita.withConsolidatedMetadata(inner, { format });
    const key = (c) => `${c.kind} ${c.path}`;
    assert.deepEqual(new Set(ours.contents().map(key)), new Set(theirs.contents().map(key)), `${h}: contents`);
    assert.equal(typeof ours.getRange, "function", "getRange goes to the store");
    const before = asked.length;
    const a = await zz.open(zz.root(ours).resolve("dtype_int32"), { kind: "array" });
    assert.deepEqual(asked.slice(before), [], `${h}: open asks the store for nothing`);
    const b = await zarrita.open(zarrita.root(theirs).resolve("dtype_int32"), { kind: "array" });
    assert.deepEqual(a.attrs, b.attrs);
    assertSameRegion(await zz.get(a), await zarrita.get(b), `${h}: get through the consolidated store`);
    // The older names.
    assert.equal(zz.withConsolidated, zz.withConsolidatedMetadata);
    assert.equal(zz.tryWithConsolidated, zz.withMaybeConsolidatedMetadata);
  }
  // No consolidated metadata: NotFoundError, and the store itself from the Maybe variant.
  const plain = new FsStore(join(fixtures, "v2"));
  const e1 = await zz.withConsolidatedMetadata(plain, { format: "v2" }).then(
    () => null,
    (e) => e,
  );
  const e2 = await zarrita.withConsolidatedMetadata(plain, { format: "v2" }).then(
    () => null,
    (e) => e,
  );
  assert.equal(e1?.name, e2?.name);
  assert.equal(await zz.withMaybeConsolidatedMetadata(plain, { format: "v2" }), plain);
});

test("registry.set registers a JS codec class for both", async () => {
  // A v3 array whose chunk bytes are XORed with a key by a codec neither library builds in.
  const values = Int16Array.from({ length: 12 }, (_, i) => i * 1000 - 5000);
  const xored = new Uint8Array(values.buffer).map((b) => b ^ 0x5a);
  const meta = {
    zarr_format: 3,
    node_type: "array",
    shape: [12],
    data_type: "int16",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [12] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0,
    codecs: [
      { name: "bytes", configuration: { endian: "little" } },
      { name: "test.xor", configuration: { key: 0x5a } },
    ],
    attributes: {},
  };
  const map = new Map([
    ["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))],
    ["/c/0", xored],
  ]);
  const Xor = {
    kind: "bytes_to_bytes",
    fromConfig: (c) => ({ kind: "bytes_to_bytes", decode: (b) => b.map((x) => x ^ c.key), encode: (b) => b.map((x) => x ^ c.key) }),
  };
  assert.ok(zz.registry.has("blosc") && zz.registry.has("numcodecs.zstd"), "zarrita's built-in names are there");
  const before = await zz.get(await zz.open(map, { kind: "array" })).then(
    () => null,
    (e) => e,
  );
  assert.ok(zz.isZarritaError(before, "UnknownCodecError"), `unregistered: ${before}`);
  assert.equal(before.codec, "test.xor");
  zz.registry.set("test.xor", async () => Xor);
  zarrita.registry.set("test.xor", async () => Xor);
  try {
    const ours = await zz.get(await zz.open(map, { kind: "array" }));
    const theirs = await zarrita.get(await zarrita.open(map, { kind: "array" }));
    assertSameRegion(ours, theirs, "registered codec");
    assert.deepEqual([...ours.data], [...values]);
  } finally {
    zz.registry.delete("test.xor");
    zarrita.registry.delete("test.xor");
  }
});

test("FetchStore: zarrita's constructor options, over HTTP, reads the same", async () => {
  const server = await startServer({ root: fixtures });
  try {
    let seen = 0;
    const ours = new zz.FetchStore(`${server.url}/v3`, {
      overrides: { headers: { "x-test": "1" } },
      fetch: (req) => (seen++, assert.equal(req.headers.get("x-test"), "1"), fetch(req)),
      useSuffixRequest: true,
    });
    const theirs = new zarrita.FetchStore(`${server.url}/v3`);
    for (const path of ["codec_zstd", "shard_index_end", "group1"]) {
      const a = await zz.open(zz.root(ours).resolve(path));
      const b = await zarrita.open(zarrita.root(theirs).resolve(path));
      assert.equal(a.kind, b.kind);
      assert.deepEqual(a.attrs, b.attrs);
      if (a.kind === "array") assertSameRegion(await zz.get(a), await zarrita.get(b), `${path} over HTTP`);
    }
    assert.ok(seen > 0, "the fetch handler sees the requests");
    // zarrita's FetchStore given to zom/zarrita works too (a store object like any other).
    const c = await zz.open(zz.root(theirs).resolve("shard_index_start"), { kind: "array" });
    assert.deepEqual((await zz.get(c)).shape, c.shape);
  } finally {
    await server.close();
  }
});

test("useSharedArrayBuffer and write stubs", async () => {
  const store = new FsStore(join(fixtures, "v3"));
  const ours = await zz.open(zz.root(store).resolve("dtype_bool"), { kind: "array" });
  const theirs = await zarrita.open(zarrita.root(store).resolve("dtype_bool"), { kind: "array" });
  const a = await zz.get(ours, null, { useSharedArrayBuffer: true });
  const b = await zarrita.get(theirs, null, { useSharedArrayBuffer: true });
  assert.ok(a.data.buffer instanceof SharedArrayBuffer);
  assert.ok(b.data.buffer instanceof SharedArrayBuffer);
  assert.deepEqual([...a.data], [...b.data]);
  const c = await ours.getChunk([0, 0], undefined, { useSharedArrayBuffer: true });
  assert.ok(c.data.buffer instanceof SharedArrayBuffer);
  const e = await zz.set(ours, null, 1).then(
    () => null,
    (x) => x,
  );
  assert.ok(zz.isZarritaError(e, "UnsupportedError"));
});

test("extendStore gives the store itself while every extension answers at once, a Promise once one answers with one (as zarrita 0.7.5)", async () => {
  const map = new Map([["/zarr.json", new TextEncoder().encode('{"zarr_format":3,"node_type":"group","attributes":{}}')]]);
  const same = zz.defineStoreExtension(() => ({}));
  const later = zz.defineStoreExtension(async () => ({ marked: true }));
  const now = zz.extendStore(map, same, same);
  assert.ok(!(now instanceof Promise));
  assert.equal((await zz.open(zz.root(now))).kind, "group");
  const pending = zz.extendStore(map, same, later, same);
  assert.ok(pending instanceof Promise);
  assert.equal((await pending).marked, true);
});
