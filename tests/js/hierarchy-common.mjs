// Helpers of the hierarchy tests: fixture hierarchies as Map stores, a store that counts its
// calls, the values of a read in generate.py's encoding, and a reference of NumPy's basic
// indexing to cut expected values by a selection.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fixtures } from "./helpers.mjs";

/** Every file of a fixture hierarchy in a Map, keys absolute ("/a/zarr.json"). */
export function mapStore(name) {
  const dir = join(fixtures, name);
  const map = new Map();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    map.set(`/${relative(dir, file).split(sep).join("/")}`, new Uint8Array(readFileSync(file)));
  }
  return map;
}

/** A zarrita-shaped store over a Map that logs its calls ("get /k", "range /k 0+4", "suffix /k 68", "list /a/"). */
export function countingStore(map) {
  const log = [];
  const cut = (bytes, range) =>
    "suffixLength" in range
      ? bytes.subarray(Math.max(0, bytes.length - range.suffixLength))
      : bytes.subarray(range.offset, range.offset + range.length);
  return {
    log,
    async get(key, options) {
      log.push(`get ${key}`);
      options?.signal?.throwIfAborted();
      return map.get(key);
    },
    async getRange(key, range, options) {
      log.push("suffixLength" in range ? `suffix ${key} ${range.suffixLength}` : `range ${key} ${range.offset}+${range.length}`);
      options?.signal?.throwIfAborted();
      const bytes = map.get(key);
      return bytes === undefined ? undefined : cut(bytes, range);
    },
    async list(prefix) {
      log.push(`list ${prefix}`);
      const keys = new Set();
      const prefixes = new Set();
      for (const key of map.keys()) {
        if (!key.startsWith(prefix)) continue;
        const rest = key.slice(prefix.length);
        const slash = rest.indexOf("/");
        if (slash < 0) keys.add(key);
        else prefixes.add(`${prefix}${rest.slice(0, slash)}/`);
      }
      return { keys: [...keys].sort(), prefixes: [...prefixes].sort() };
    },
  };
}

/** Bytes as generate.py writes them: base64. */
export const b64 = (bytes) => Buffer.from(bytes).toString("base64");
/** A float as generate.py writes it: NaN and ±∞ as text. */
export const encFloat = (x) => (Number.isNaN(x) ? "NaN" : x === Infinity ? "Infinity" : x === -Infinity ? "-Infinity" : x);

function encodeValue(value, dataType) {
  const name = typeof dataType === "string" ? dataType : dataType.name;
  if (typeof value === "bigint") return value;
  if (typeof value === "number") return encFloat(value);
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (value instanceof Uint8Array) {
    if (name === "null_terminated_bytes") {
      const padded = new Uint8Array(dataType.configuration.length_bytes);
      padded.set(value);
      return b64(padded);
    }
    return b64(value);
  }
  if (Array.isArray(value)) return value.map((v) => encFloat(v));
  // zarrita's dtype is a name only ("structured"): the fields are the record's own.
  if (typeof dataType === "string") return Object.fromEntries(Object.entries(value).map(([field, v]) => [field, encodeValue(v, "")]));
  const fields = dataType.configuration.fields;
  return Object.fromEntries(fields.map(([field, type]) => [field, encodeValue(value[field], type)]));
}

/** Every chunk index of a grid of `gridShape` chunks, in C order. */
export function* gridCoords(gridShape) {
  const n = gridShape.reduce((a, b) => a * b, 1);
  for (let k = 0; k < n; k++) {
    const coords = [];
    let rem = k;
    for (let d = gridShape.length - 1; d >= 0; d--) {
      coords[d] = rem % gridShape[d];
      rem = Math.floor(rem / gridShape[d]);
    }
    yield coords;
  }
}

/** The values of a read, one encoded value per element. */
export function elements(data, dataType) {
  const name = typeof dataType === "string" ? dataType : dataType.name;
  // vlen-array: one array of items per element, each encoded as its item type.
  if (name === "numcodecs.vlen-array") return Array.from(data, (a) => elements(a, dataType.configuration.data_type));
  // json2 / msgpack2: the values are JSON values already.
  if (name === "numcodecs.json2" || name === "numcodecs.msgpack2") return Array.from(data);
  if (name === "bool") return Array.from(data, (x) => x !== 0);
  if (name === "complex64" || name === "complex128") {
    const out = [];
    for (let i = 0; i < data.length; i += 2) out.push([encFloat(data[i]), encFloat(data[i + 1])]);
    return out;
  }
  if (ArrayBuffer.isView(data)) return Array.from(data, (x) => encodeValue(x, dataType));
  return data.map((x) => encodeValue(x, dataType));
}

const normalise = (v) => (typeof v === "bigint" ? v : typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v);

/** Asserts that encoded values equal the expected ones. */
export function sameValues(got, want, where) {
  assert.equal(got.length, want.length, `${where}: length`);
  for (let i = 0; i < want.length; i++) {
    const g = got[i];
    const w = want[i];
    if (typeof w === "object" && w !== null && !Array.isArray(w)) {
      for (const key of Object.keys(w)) assert.deepEqual(normalise(g[key]), normalise(w[key]), `${where}[${i}].${key}`);
    } else if (Array.isArray(w)) {
      assert.deepEqual(g, w, `${where}[${i}]`);
    } else {
      assert.deepEqual(normalise(g), normalise(w), `${where}[${i}]`);
    }
  }
}

/** The indices a selection entry picks in a dimension of `len` (Python semantics), and whether it drops the dimension. */
function pick(sel, len) {
  if (sel === null || sel === undefined) return { idx: [...Array(len).keys()], dropped: false };
  if (typeof sel === "number") return { idx: [sel < 0 ? sel + len : sel], dropped: true };
  const step = sel.step ?? 1;
  const fix = (v, lo, hi) => Math.min(hi, Math.max(lo, v < 0 ? v + len : v));
  const idx = [];
  if (step > 0) {
    const a = sel.start === null ? 0 : fix(sel.start, 0, len);
    const b = sel.stop === null ? len : fix(sel.stop, 0, len);
    for (let i = a; i < b; i += step) idx.push(i);
  } else {
    const a = sel.start === null ? len - 1 : fix(sel.start, -1, len - 1);
    const b = sel.stop === null ? -1 : fix(sel.stop, -1, len - 1);
    for (let i = a; i > b; i += step) idx.push(i);
  }
  return { idx, dropped: false };
}

/** Cuts C-order `values` of `shape` by `selection`: `{values, shape}`. */
export function reference(values, shape, selection) {
  const dims = shape.map((len, d) => pick(selection?.[d], len));
  const outShape = dims.filter((d) => !d.dropped).map((d) => d.idx.length);
  const total = dims.reduce((n, d) => n * d.idx.length, 1);
  const out = [];
  for (let k = 0; k < total; k++) {
    let rem = k;
    const picks = [];
    for (let d = shape.length - 1; d >= 0; d--) {
      const n = dims[d].idx.length;
      picks[d] = dims[d].idx[rem % n];
      rem = Math.floor(rem / n);
    }
    let flat = 0;
    for (let d = 0; d < shape.length; d++) flat = flat * shape[d] + picks[d];
    out.push(values[flat]);
  }
  return { values: out, shape: outShape };
}

/** Assertion for a ZomError with a code (and optionally path, key, message). */
export const zomError =
  (code, { path, key, message } = {}) =>
  (e) => {
    assert.equal(e?.name, "ZomError", `a ZomError, got ${e}`);
    assert.equal(e.code, code, e.message);
    if (path !== undefined) assert.equal(e.path, path);
    if (key !== undefined) assert.equal(e.key, key);
    if (message) assert.match(e.message, message);
    return true;
  };
