/**
 * The decoded-chunk cache: the number of a cache on the WebAssembly side (src/wasm/cache.rs),
 * which the Rust reader checks before any request and fills with what it decodes
 * (ARCHITECTURE.md, "The chunk cache"). This module only checks the options, makes that cache
 * once the module is loaded (at the first read through it) and frees it when the ChunkCache
 * is garbage-collected.
 * @module
 */

import type { ChunkCacheStats } from "../generated/boundary.js";
import { ZomError } from "../shared/errors.js";
import * as raw from "../zom_wasm.js";

/** Options of {@link ChunkCache}. */
export interface ChunkCacheOptions {
  /**
   * The most bytes the entries take: decoded values plus a small overhead per entry (`Infinity`:
   * no bound). The least recently used entries are evicted to stay within it; a chunk larger
   * than it is not kept.
   */
  maxBytes: number;
}

/** What a {@link ChunkCache} has done and holds (src/wasm/boundary.rs `CACHE_STATS`, generated into ts/generated/boundary.ts). */
export type { ChunkCacheStats };

const ids = new WeakMap<ChunkCache, number>();
/** Frees the WebAssembly side's cache of a collected ChunkCache (its entries' memory is reused). */
const collected = typeof FinalizationRegistry === "function" ? new FinalizationRegistry<number>((id) => raw.chunkCacheFree(id)) : undefined;

/**
 * A cache of decoded chunks, bounded by bytes, least recently used first out. Give it to
 * {@link open} (`{ cache }`: every array opened through that call shares it) or to one read
 * (`arr.get(selection, { cache })`): a chunk read again is placed from the cache without a
 * request or a decode, and a region whose chunks are all cached makes no request at all (for a
 * sharded array not even the shard's index). Entries are per array and chunk, so arrays of one
 * store share one cache without mixing. Values of object data types (JSON values) are not
 * cached. The cache lives in WebAssembly memory, which never shrinks: it grows up to
 * `maxBytes` and that memory is reused afterwards, also after {@link ChunkCache.clear}. It
 * assumes the chunks it holds do not change in the store: clear it after a write.
 *
 * ```ts
 * const cache = new ChunkCache({ maxBytes: 256 << 20 });
 * const root = await open(store, "", { cache });
 * ```
 */
export class ChunkCache {
  /** The bound, in bytes. */
  readonly maxBytes: number;

  constructor(options: ChunkCacheOptions) {
    const max = (options as Partial<ChunkCacheOptions> | undefined)?.maxBytes;
    if (typeof max !== "number" || !(max >= 0)) {
      throw new ZomError("InvalidArgument", "option 'maxBytes' of a ChunkCache must be a non-negative number");
    }
    this.maxBytes = max;
  }

  /** Counters since the cache was made, and what it holds now. */
  get stats(): ChunkCacheStats {
    const id = ids.get(this);
    // A cache not used yet has no number: nothing done, nothing held.
    return id === undefined ? { hits: 0, misses: 0, evictions: 0, bytes: 0, entries: 0 } : (raw.chunkCacheStats(id) as ChunkCacheStats);
  }

  /** Drops every entry (the counters go on). */
  clear(): void {
    const id = ids.get(this);
    if (id !== undefined) raw.chunkCacheClear(id);
  }
}

/** The number of `cache` on the WebAssembly side, made on first use (the module is loaded by then). @internal */
export function cacheId(cache: ChunkCache): number {
  if (!(cache instanceof ChunkCache)) throw new ZomError("InvalidArgument", "option 'cache' must be a ChunkCache");
  let id = ids.get(cache);
  if (id === undefined) {
    id = raw.newChunkCache(cache.maxBytes);
    ids.set(cache, id);
    collected?.register(cache, id);
  }
  return id;
}
