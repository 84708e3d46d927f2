/**
 * The types of {@link FetchStore}'s options and counters.
 * @module
 */

/**
 * How {@link FetchStore.list} finds children: an S3 ListObjectsV2 listing, an HTML directory
 * index (`python -m http.server`, nginx autoindex), whichever of the two answers ("auto": found
 * out by the first listing, those asked meanwhile waiting for it; a host that answers neither
 * is not asked again), or never ("none": `list` resolves to undefined).
 */
export type FetchStoreListing = "auto" | "s3" | "html" | "none";

/** How getRange calls issued together are merged into fewer requests. */
export interface FetchStoreCoalesce {
  /** Ranges at most this many bytes apart are merged (the gap is fetched and dropped). Default 1024. */
  gap?: number;
  /** A merged request never grows beyond this many bytes (single ranges may). Default 16 MiB. */
  maxSize?: number;
}

/** Options of {@link FetchStore}. */
export interface FetchStoreOptions {
  /** The `fetch` to use (default: `globalThis.fetch` at call time). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Headers sent with every request (e.g. Authorization). */
  headers?: HeadersInit;
  /** The `credentials` mode of every request (the `fetch` default when unset). */
  credentials?: RequestCredentials;
  /**
   * The `cache` mode of Range requests. Default "no-store": browsers' HTTP caches keep
   * little of byte ranges, and Chromium's lets one request per URL through at a time, so that
   * the tiles of one shard, asked for at once, would go one after another. "default" lets the
   * browser cache them.
   */
  rangeCache?: RequestCache;
  /**
   * Most requests in flight at once; the rest wait in a queue. Default: no limit of its own
   * (a read bounds what it asks for by bytes, `bytesInFlight`, and browsers queue beyond their
   * per-host connection limit); set it to be gentle with a server.
   */
  concurrency?: number;
  /** Milliseconds one attempt (headers and body) may take; 0 or Infinity for none. Default 30000. */
  timeout?: number;
  /** Retries after a 408/425/429/5xx answer (but 501/505), a network error or a timeout. Default 3. */
  retries?: number;
  /** The first retry's backoff in ms; it doubles per retry, with jitter. Default 200. */
  retryDelay?: number;
  /** The longest wait before a retry in ms, also for a server's Retry-After. Default 10000. */
  maxRetryDelay?: number;
  /** 403 means missing (S3 and CloudFront answer 403 for absent keys without list rights). Default false. */
  forbiddenAsMissing?: boolean;
  /** Keep metadata documents (zarr.json, .zarray, .zgroup, .zattrs, .zmetadata) and their absence in memory. Default true. */
  cacheMetadata?: boolean;
  /** How `list` finds children. Default "auto". */
  listing?: FetchStoreListing;
  /** Merging of getRange calls issued in the same tick; false to turn it off. Default on. */
  coalesce?: boolean | FetchStoreCoalesce;
  /**
   * The longest response body in bytes: a larger Content-Length, or a body that grows past it
   * while streaming (no or content-encoded Content-Length), throws "LimitExceeded". Default 1 GiB.
   */
  maxResponseBytes?: number;
}

/** Live counters of a {@link FetchStore}: HTTP requests sent (every attempt) and body bytes received. */
export interface FetchStoreStats {
  /** Requests sent, retries and HEAD/listing requests included. */
  requests: number;
  /** Body bytes received. */
  bytes: number;
}
