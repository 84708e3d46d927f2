// The Icechunk bench's floors (bench/icechunk/icechunk.mjs runs it): what no reader could beat for
// a case at a latency — every request in flight at once, the transfer, native decode.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prod, transferTime } from "../lib/util.mjs";

/** The floor of a case, given the Icechunk bench's repository, tiles, servers and core count (bench/icechunk/icechunk.mjs). */
export function icechunkFloors({ CORES, REPO_PATH, TILES, repoDir, repoManifest, servers }) {
  /** The lower estimate of transferring `requests` ({path below the repository, range?}), one by one or `together`, of `bytes` in all. */
  async function transfer(requests, together, bytes, loopback) {
    const server = await servers.at(0);
    const measured = await transferTime(
      requests.map(({ path, range }) => ({ url: `${server.url}${REPO_PATH}/${path}`, range })),
      { together },
    );
    return { ms: Math.min(measured, bytes / loopback), measured_ms: measured, loopback_ms: bytes / loopback, bytes };
  }

  /** The shard index's length and the ranges of inner chunks `coords` of array `a` (all in one shard); the shard's object. */
  function innerRanges(a, coords) {
    const per = a.shards.map((s, d) => s / a.chunks[d]);
    const shard = coords[0].map((x, d) => Math.floor(x / per[d]));
    for (const k of coords)
      if (k.some((x, d) => Math.floor(x / per[d]) !== shard[d])) throw new Error(`${a.name}: tiles of more than one shard`);
    const object = a.chunk_objects[`c/${shard.join("/")}`];
    const file = readFileSync(join(repoDir, object.object));
    const indexBytes = 16 * prod(per) + 4;
    const index = file.subarray(file.length - indexBytes);
    const ranges = coords.map((k) => {
      const local = k.reduce((acc, x, d) => acc * per[d] + (x % per[d]), 0);
      const offset = Number(index.readBigUInt64LE(16 * local));
      const length = Number(index.readBigUInt64LE(16 * local + 8));
      return { path: object.object, range: `bytes=${offset}-${offset + length - 1}`, length };
    });
    return { object, indexBytes, indexRequest: { path: object.object, range: `bytes=-${indexBytes}` }, ranges };
  }

  /** Decoding `n` chunks (inner chunks) of `a` at native speed over min(cores, n); 0 when the native speed is unknown (a floor without decoding). */
  function decodeOf(a, n, native) {
    const mbPerS = native.speeds[a.name];
    const parallel = Math.min(CORES, n);
    return { ms: mbPerS ? (n * prod(a.chunks) * 2) / (mbPerS * 1e3) / parallel : 0, parallel, native_mb_per_s: mbPerS ?? null };
  }

  /**
   * The chunk objects of `coords` of `a` read by one of the ways a reader can: `{round_trips,
   * transfer, decode}` for reading them at once, an array open with its manifest loaded. Chunks:
   * one wave. Inner chunks of one shard: the cheaper of the index then the ranges (2 waves) and
   * the whole shard (1 wave).
   */
  async function chunksWay(a, coords, loopback, native) {
    const decode = decodeOf(a, coords.length, native);
    if (!a.shards) {
      const objects = coords.map((k) => a.chunk_objects[`c/${k.join("/")}`]);
      const t = await transfer(
        objects.map((o) => ({ path: o.object })),
        true,
        objects.reduce((s, o) => s + o.bytes, 0),
        loopback,
      );
      return {
        way: "the chunks at once",
        round_trips: 1,
        transfer_ms: t.ms,
        decode_ms: decode.ms,
        decode_parallelism: decode.parallel,
        ms: Math.max(t.ms, decode.ms),
        detail: { chunks: t },
      };
    }
    const { object, indexBytes, indexRequest, ranges } = innerRanges(a, coords);
    const index = await transfer([indexRequest], false, indexBytes, loopback);
    const data = await transfer(
      ranges,
      true,
      ranges.reduce((s, r) => s + r.length, 0),
      loopback,
    );
    const viaIndex = {
      way: "the shard's index, then the ranges at once",
      round_trips: 2,
      transfer_ms: index.ms + data.ms,
      decode_ms: decode.ms,
      decode_parallelism: decode.parallel,
      ms: index.ms + Math.max(data.ms, decode.ms),
      detail: { index, data },
    };
    const whole = await transfer([{ path: object.object }], false, object.bytes, loopback);
    const viaShard = {
      way: "the whole shard",
      round_trips: 1,
      transfer_ms: whole.ms,
      decode_ms: decode.ms,
      decode_parallelism: decode.parallel,
      ms: Math.max(whole.ms, decode.ms),
      detail: { shard: whole },
    };
    return { viaIndex, viaShard };
  }

  /** The cheaper of a reading's ways at `latency`. */
  function cheaper(ways, latency) {
    const list = ways.viaIndex ? [ways.viaIndex, ways.viaShard] : [ways];
    const cost = (w) => w.round_trips * latency + w.ms;
    return list.reduce((best, w) => (cost(w) < cost(best) ? w : best));
  }

  /** The repository's files a reader needs before any chunk of `a`, one after another: repo, snapshot, manifest. */
  async function openingTransfer(a, loopback) {
    const files = [repoManifest.repo_object, repoManifest.snapshot_object, a.manifest];
    return transfer(
      files.map((f) => ({ path: f.object })),
      false,
      files.reduce((s, f) => s + f.bytes, 0),
      loopback,
    );
  }

  /** Every chunk object of `a` at once and its decoding (a sharded array's shards whole: the read covers them). */
  async function wholeWay(a, loopback, native) {
    const objects = Object.values(a.chunk_objects);
    const t = await transfer(
      objects.map((o) => ({ path: o.object })),
      true,
      a.stored_bytes,
      loopback,
    );
    const decode = decodeOf(a, prod(a.shape.map((s, d) => Math.ceil(s / a.chunks[d]))), native);
    return {
      way: "every chunk object at once",
      round_trips: 1,
      transfer_ms: t.ms,
      decode_ms: decode.ms,
      decode_parallelism: decode.parallel,
      ms: Math.max(t.ms, decode.ms),
      detail: { chunks: t },
    };
  }

  /** The floor of `kind` of array `a` at `latency`: round trips × latency + opening's transfer (where the case opens) + the chunks' way. */
  async function floorOf(kind, a, latency, loopback, native) {
    let way;
    if (kind === "whole") way = await wholeWay(a, loopback, native);
    else way = cheaper(await chunksWay(a, kind === "tiles" ? TILES[a.name] : [[0, 0]], loopback, native), latency);
    const opening = kind === "tiles" ? null : await openingTransfer(a, loopback);
    const rt = way.round_trips + (opening ? 3 : 0);
    const ms = rt * latency + (opening?.ms ?? 0) + way.ms;
    return {
      ms,
      round_trips: rt,
      latency_ms: rt * latency,
      opening_transfer_ms: opening?.ms ?? 0,
      way: way.way,
      transfer_ms: (opening?.ms ?? 0) + way.transfer_ms,
      decode_ms: way.decode_ms,
      decode_parallelism: way.decode_parallelism,
      native_mb_per_s: native.speeds[a.name] ?? null,
    };
  }

  return { floorOf };
}
