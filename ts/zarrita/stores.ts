/**
 * zarrita's store extensions `withByteCaching` and `withRangeCoalescing`, for stores zom/zarrita
 * is given (zom's own FetchStore caches nothing and coalesces ranges itself).
 * @module
 */
import { Coalescer } from "../store/coalesce.js";
import { defineStoreExtension } from "./extension.js";
import type { AbsolutePath, AsyncReadable, GetOptions, RangeQuery } from "./types.js";

/** A cache of store answers by key (a Map works). */
export interface ByteCache {
  has(key: string): boolean;
  get(key: string): Uint8Array | undefined;
  set(key: string, value: Uint8Array | undefined): unknown;
}

/** The cache key of a read (`range` for getRange), or undefined not to cache it. */
export type CacheKeyFor = (path: AbsolutePath, range?: RangeQuery) => string | undefined;

const defaultKeyFor: CacheKeyFor = (path, range) =>
  range === undefined ? path : "suffixLength" in range ? `${path}:-${range.suffixLength}` : `${path}:${range.offset}:${range.length}`;

/** `store` with every answer (missing keys too) kept in `cache` (default: a new Map). */
export const withByteCaching = defineStoreExtension((inner: AsyncReadable, opts: { cache?: ByteCache; keyFor?: CacheKeyFor } = {}) => {
  const cache = opts.cache ?? new Map<string, Uint8Array | undefined>();
  const keyFor = opts.keyFor ?? defaultKeyFor;
  const cached = async (key: string | undefined, read: () => Promise<Uint8Array | undefined>) => {
    if (key !== undefined && cache.has(key)) return cache.get(key);
    const value = await read();
    if (key !== undefined) cache.set(key, value);
    return value;
  };
  const getRange = inner.getRange?.bind(inner);
  return {
    get: (path: AbsolutePath, options?: GetOptions) => cached(keyFor(path), () => inner.get(path, options)),
    ...(getRange && {
      getRange: (path: AbsolutePath, range: RangeQuery, options?: GetOptions) =>
        cached(keyFor(path, range), () => getRange(path, range, options)),
    }),
  };
});

/**
 * `store` with the byte ranges asked for in one tick merged per key when at most `coalesceSize`
 * bytes (default 32768) apart, one `getRange` per merged range. Suffix ranges pass through.
 */
export const withRangeCoalescing = defineStoreExtension((inner: AsyncReadable, opts: { coalesceSize?: number } = {}) => {
  const getRange = inner.getRange?.bind(inner);
  if (getRange === undefined) throw new TypeError("withRangeCoalescing needs a store with getRange");
  const coalescer = new Coalescer(
    (key, offset, length, signal) => getRange(key as AbsolutePath, { offset, length }, signal === undefined ? undefined : { signal }),
    opts.coalesceSize ?? 32768,
  );
  return {
    getRange: (path: AbsolutePath, range: RangeQuery, options?: GetOptions) =>
      "suffixLength" in range ? getRange(path, range, options) : coalescer.read(path, range.offset, range.length, options?.signal),
  };
});
