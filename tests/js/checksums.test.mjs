// Checksums through the JS API over a Map store: one bit flipped in the bytes a checksum covers
// (crc32c as a v3 codec and in shard indexes; numcodecs crc32, adler32, fletcher32), in every
// chunk of every checksummed fixture array, makes `get` of that chunk's region reject with
// "ChecksumMismatch" at the array's path. tests/checksums.rs flips every bit natively; this
// samples 48 positions per chunk. A compressor around the checksummed bytes (v2 adler32 then
// zlib, v3 sharding then gzip) is undone and redone around the flip.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deflateSync, gunzipSync, gzipSync, inflateSync } from "node:zlib";
import { openArray, slice } from "zom";
import { mapStore } from "./hierarchy-common.mjs";

const CHECKS = ["crc32", "adler32", "fletcher32"];
const names = (list) => (list ?? []).map((c) => c.name ?? c.id);

const OUTER = {
  none: { unwrap: (b) => b, wrap: (b) => b },
  gzip: { unwrap: (b) => new Uint8Array(gunzipSync(b)), wrap: (b) => new Uint8Array(gzipSync(b)) },
  zlib: { unwrap: (b) => new Uint8Array(inflateSync(b)), wrap: (b) => new Uint8Array(deflateSync(b)) },
};

/** How an array's chunks are checksummed: `{outer, index}` (index: null = every byte), or null. */
function checksummed(doc, v3) {
  if (!v3) {
    const compressor = doc.compressor?.id ?? "";
    if (CHECKS.includes(compressor)) return { outer: "none", index: null };
    if (!names(doc.filters).some((f) => CHECKS.includes(f))) return null;
    assert.ok(["zlib", ""].includes(compressor), `a checksum filter under ${compressor}`);
    return { outer: compressor === "zlib" ? "zlib" : "none", index: null };
  }
  const top = names(doc.codecs);
  if (top.at(-1) === "crc32c") return { outer: "none", index: null };
  const first = doc.codecs[0];
  if (first.name !== "sharding_indexed" || !names(first.configuration.index_codecs).includes("crc32c")) return null;
  const shard = doc.chunk_grid.configuration.chunk_shape;
  const inner = shard.reduce((n, s, d) => n * (s / first.configuration.chunk_shape[d]), 1);
  assert.ok(top.length === 1 || (top.length === 2 && top[1] === "gzip"), `sharding under ${top}`);
  return {
    outer: top.length === 2 ? "gzip" : "none",
    index: { len: inner * 16 + 4, atStart: first.configuration.index_location === "start" },
  };
}

/** 48 bit positions spread over `0..bits`. */
const positions = (bits) => [...new Set(Array.from({ length: 48 }, (_, i) => Math.floor((i * (bits - 1)) / 47)))];

test("one flipped bit in any checksummed chunk is a ChecksumMismatch (JS API, Map store)", async () => {
  const checked = [];
  let flips = 0;
  for (const root of ["v3", "v2", "sample"]) {
    const map = mapStore(root);
    for (const [metaKey, bytes] of map) {
      const m = /^\/(.*)\/(zarr\.json|\.zarray)$/.exec(metaKey);
      if (!m) continue;
      const [, path, name] = m;
      const v3 = name === "zarr.json";
      const doc = JSON.parse(new TextDecoder().decode(bytes));
      if (v3 && doc.node_type !== "array") continue;
      const how = checksummed(doc, v3);
      if (how === null) continue;
      const { unwrap, wrap } = OUTER[how.outer];
      const arr = await openArray(map, path);
      const grid = arr.shards ?? arr.chunks;
      const chunkKeys = [...map.keys()].filter((k) => k.startsWith(`/${path}/`) && !/(zarr\.json|\.z\w+)$/.test(k));
      assert.ok(chunkKeys.length > 0, path);
      for (const key of chunkKeys) {
        const coords = key
          .slice(path.length + 2)
          .replace(/^c\//, "")
          .split(/[/.]/)
          .map(Number);
        const selection = coords.map((c, d) => slice(c * grid[d], Math.min((c + 1) * grid[d], arr.shape[d])));
        const stored = map.get(key);
        await arr.get(selection); // intact: decodes
        const inner = unwrap(stored);
        const start = how.index === null || how.index.atStart ? 0 : inner.length - how.index.len;
        const len = how.index === null ? inner.length : how.index.len;
        for (const bit of positions(len * 8)) {
          const flipped = inner.slice();
          flipped[start + (bit >> 3)] ^= 1 << (bit & 7);
          map.set(key, wrap(flipped));
          // An opened array keeps the shard indexes it read, as it keeps its metadata: the
          // rewritten shard is read through a freshly opened one.
          const fresh = await openArray(map, path);
          await assert.rejects(fresh.get(selection), (e) => {
            assert.equal(e.code, "ChecksumMismatch", `${key} bit ${bit}: ${e.message}`);
            assert.equal(e.path, path);
            return true;
          });
          flips += 1;
        }
        map.set(key, stored);
      }
      checked.push(`${root}/${path}`);
    }
  }
  assert.deepEqual(checked.sort(), [
    "sample/image/gradient_circles",
    "sample/image/gradient_circles_blosc",
    "v2/checksum_adler32",
    "v2/checksum_crc32",
    "v2/checksum_fletcher32",
    "v3/codec_crc32c",
    "v3/codec_gzip_crc32c",
    "v3/shard_index_end",
    "v3/shard_index_start",
    "v3/shard_nested",
    "v3/shard_string",
    "v3/shard_then_gzip",
  ]);
  assert.ok(flips > 1000, `${flips} flips`);
});
