// The viewer bench's floors (bench/viewer/viewer.mjs runs it): what no reader could beat for a tile or
// a whole array at a latency — every request in flight at once, the transfer at the loopback's
// throughput, native decode.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { prod, transferTime } from "../lib/util.mjs";

/** The floors of tiles and whole arrays, given the viewer bench's cases, servers and worker count (bench/viewer/viewer.mjs). */
export function viewerFloors({ N, manifest, servers, viewerDir }) {
  /**
   * The stored bytes of tiles: each chunk's file, or each inner chunk's length from its shard's
   * index (the last 16 n + 4 bytes: n little-endian (offset, length) pairs and a CRC32C).
   */
  function storedTiles(name, coords) {
    const c = manifest.get(name);
    const dir = join(viewerDir, name);
    if (!c.shards) {
      const requests = coords.map((k) => ({ path: `${name}/c/${k.join("/")}` }));
      return {
        tiles: coords.map((k) => statSync(join(dir, "c", ...k.map(String))).size),
        index: 0,
        shards: 0,
        requests,
        indexRequests: [],
      };
    }
    const per = c.shards.map((s, d) => s / c.chunks[d]);
    const indexBytes = 16 * prod(per) + 4;
    const shards = new Set();
    const requests = [];
    const tiles = coords.map((k) => {
      const shard = k.map((x, d) => Math.floor(x / per[d]));
      shards.add(shard.join("/"));
      const file = readFileSync(join(dir, "c", ...shard.map(String)));
      const index = file.subarray(file.length - indexBytes);
      const local = k.reduce((acc, x, d) => acc * per[d] + (x % per[d]), 0);
      const offset = Number(index.readBigUInt64LE(16 * local));
      const length = Number(index.readBigUInt64LE(16 * local + 8));
      requests.push({ path: `${name}/c/${shard.join("/")}`, range: `bytes=${offset}-${offset + length - 1}` });
      return length;
    });
    const indexRequests = [...shards].map((sh) => ({ path: `${name}/c/${sh}`, range: `bytes=-${indexBytes}` }));
    return { tiles, index: indexBytes, shards: shards.size, requests, indexRequests };
  }

  /**
   * What the transfer of `requests` ({path, range?} below bench/data/viewer) costs at best on
   * this machine: GETs with plain `fetch` from the bench's server without latency, all at once
   * (`together`) or one after another (summed), the fastest of 5 tries. This is the floor's
   * transfer term: the same bytes in the same requests, which no reader fetches faster (a
   * single large file's rate, reported as `loopback`, leaves out what each request costs the
   * server and the client here).
   */
  async function transferOf(requests, together) {
    const server = await servers.at(0);
    return transferTime(
      requests.map(({ path, range }) => ({ url: `${server.url}/viewer/${path}`, range })),
      { together },
    );
  }

  /**
   * The floor of reading `coords` of viewer case `name` (the array already open). One by one:
   * every tile a round trip (the first of a shard also its index), its bytes, its decode, in
   * turn. At once: 1 round trip (chunks) or 2 (the shard's index, then every range together),
   * then the bytes and the decoding over min(workers, tiles), overlapped.
   */
  async function tileFloor(name, coords, mode, latency, loopback, native) {
    const c = manifest.get(name);
    const mbPerS = native.speeds[name];
    const { tiles, index, shards, requests, indexRequests } = storedTiles(name, coords);
    const stored = tiles.reduce((a, b) => a + b, 0);
    const decodeOne = mbPerS ? (prod(c.chunks) * 2) / (mbPerS * 1e3) : NaN;
    const parallel = mode === "sequential" ? 1 : Math.min(N, tiles.length);
    const rt = mode === "sequential" ? tiles.length + shards : 1 + (shards ? 1 : 0);
    const together = mode !== "sequential";
    // Each transfer at its lower estimate: the requests themselves, or their bytes at one large
    // file's rate (whichever is less: both are noisy here, and a floor must not sit above a read).
    const measuredIndex = indexRequests.length ? await transferOf(indexRequests, together) : 0;
    const measuredData = await transferOf(requests, together);
    const indexTransfer = Math.min(measuredIndex, (index * shards) / loopback);
    const dataTransfer = Math.min(measuredData, stored / loopback);
    const transfer = indexTransfer + dataTransfer;
    const decode = (decodeOne * tiles.length) / parallel;
    const ms = mode === "sequential" ? rt * latency + transfer + decode : rt * latency + indexTransfer + Math.max(dataTransfer, decode);
    return {
      ms,
      round_trips: rt,
      latency_ms: rt * latency,
      stored_bytes: stored + index * shards,
      transfer_ms: transfer,
      measured_transfer_ms: measuredIndex + measuredData,
      loopback_transfer_ms: (stored + index * shards) / loopback,
      decode_ms: decode,
      decode_parallelism: parallel,
      native_mb_per_s: mbPerS ?? null,
    };
  }

  /**
   * The floor of opening and reading a whole array: the metadata document (1 round trip), then
   * every chunk, or every shard whole (the selection covers them: one GET each), at once (1
   * round trip); the stored bytes and the decoding over min(workers, chunks), overlapped.
   */
  async function wholeFloor(name, latency, loopback, native) {
    const c = manifest.get(name);
    const mbPerS = native.speeds[name];
    const chunks = prod(c.shape.map((s, d) => Math.ceil(s / c.chunks[d])));
    const parallel = Math.min(N, chunks);
    const grid = c.shape.map((s, d) => Math.ceil(s / (c.shards ?? c.chunks)[d]));
    const objects = Array.from({ length: prod(grid) }, (_, i) => grid.map((_, d) => Math.floor(i / prod(grid.slice(d + 1))) % grid[d]));
    const measured = await transferOf(
      objects.map((k) => ({ path: `${name}/c/${k.join("/")}` })),
      true,
    );
    const transfer = Math.min(measured, c.stored_bytes / loopback);
    const decode = mbPerS ? c.decoded_bytes / (mbPerS * 1e3) / parallel : NaN;
    return {
      ms: 2 * latency + Math.max(transfer, decode),
      round_trips: 2,
      latency_ms: 2 * latency,
      stored_bytes: c.stored_bytes,
      transfer_ms: transfer,
      measured_transfer_ms: measured,
      loopback_transfer_ms: c.stored_bytes / loopback,
      decode_ms: decode,
      decode_parallelism: parallel,
      native_mb_per_s: mbPerS ?? null,
    };
  }

  return { tileFloor, wholeFloor };
}
