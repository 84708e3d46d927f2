/**
 * `FetchStore`: a read-only Zarr store over HTTP(S) with `fetch`, for browsers and Node.
 * @module
 */

import { METADATA_DOCUMENTS } from "../generated/boundary.js";
import { ZomError } from "../shared/errors.js";
import type { RangeReader } from "./coalesce.js";
import { Coalescer, MAX_MERGED_BYTES } from "./coalesce.js";
import type { FetchStoreListing, FetchStoreOptions, FetchStoreStats } from "./fetch-types.js";
import type { HttpAnswer, HttpContext } from "./http.js";
import { httpError, overLimit, send } from "./http.js";
import type { S3Root } from "./http-list.js";
import { listHtml, listS3 } from "./http-list.js";
import { Limiter } from "./limit.js";
import { encodeKey } from "./listing-rules.js";
import { checkRange, keepPrefix, keepSuffix, maxBytesOf, tail } from "./range.js";
import type { ByteRange, StoreCallOptions, StoreListing } from "./readable.js";
import { Joint, raceAbort, throwIfAborted } from "./signal.js";
import { parseContentLength, parseContentRange } from "./wire.js";

const METADATA = new Set(METADATA_DOCUMENTS);

/** True for the keys of metadata documents, which {@link FetchStore} keeps in memory. */
export function isMetadataKey(key: string): boolean {
  return METADATA.has(key.slice(key.lastIndexOf("/") + 1));
}

interface CacheEntry {
  joint: Joint;
  promise: Promise<Uint8Array | undefined>;
  /** The `maxBytes` the read was made under (Infinity: none): stricter callers may join it. */
  max: number;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new ZomError("InvalidArgument", `FetchStore option ${name} must be a non-negative number, got ${String(value)}`);
  }
  return value;
}

/**
 * The HTTP settings of every request of a store, from {@link FetchStoreOptions} (defaults
 * filled in, numbers checked); `stats` is the store's live counters.
 */
export function httpContext(options: FetchStoreOptions, stats: FetchStoreStats): HttpContext {
  return {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    headers: new Headers(options.headers),
    credentials: options.credentials,
    // Chromium's HTTP cache lets one request per URL through at a time: the ranges of one
    // shard would go one after another.
    rangeCache: options.rangeCache ?? "no-store",
    timeout: positive("timeout", options.timeout, 30_000),
    retries: positive("retries", options.retries, 3),
    retryDelay: positive("retryDelay", options.retryDelay, 200),
    maxRetryDelay: positive("maxRetryDelay", options.maxRetryDelay, 10_000),
    limiter: new Limiter(positive("concurrency", options.concurrency, Infinity)),
    stats,
    maxResponseBytes: positive("maxResponseBytes", options.maxResponseBytes, 2 ** 30),
  };
}

/** The coalescer the `coalesce` option asks for around `reader`, or null when it is off. */
export function coalescer(options: FetchStoreOptions, reader: RangeReader): Coalescer | null {
  const co = options.coalesce ?? true;
  if (co === false) return null;
  return new Coalescer(
    reader,
    positive("coalesce.gap", co === true ? undefined : co.gap, 1024),
    positive("coalesce.maxSize", co === true ? undefined : co.maxSize, MAX_MERGED_BYTES),
  );
}

/**
 * A read-only store over HTTP(S): keys are appended to the URL ("/a/zarr.json" →
 * `<url>/a/zarr.json`, each path segment percent-encoded, a query string of the URL kept at the
 * end). Implements the store shape zom (and zarrita) read from: `get`, `getRange` and `list`.
 *
 * - `get(key)`: the whole value; undefined for 404/410 (and 403 with `forbiddenAsMissing`).
 *   Metadata documents and their absence are cached (`cacheMetadata`); concurrent calls for
 *   one key share a request.
 * - `getRange(key, {offset, length})` sends `Range: bytes=a-b`; calls on one key in the same
 *   tick whose ranges are near each other are merged into one request (`coalesce`).
 *   `getRange(key, {suffixLength})` sends `bytes=-n`; when the server refuses suffix ranges
 *   (400/416/501, or ignores them while honouring others) it asks HEAD for the length and then
 *   an absolute range, and keeps doing that for this store. A 200 answer to a range request is
 *   cut locally. A 206 whose Content-Range or length does not match is an HttpError.
 * - `list(prefix)`: S3 ListObjectsV2 or an HTML directory index (`listing`), undefined when
 *   neither answers.
 *
 * Every request goes through a queue of at most `concurrency` (no limit unless given), has a `timeout`, is retried on
 * 408/425/429/5xx and network errors (`retries`, exponential backoff with jitter, Retry-After
 * respected up to `maxRetryDelay`) and obeys the call's `signal`. Errors are ZomErrors with code
 * "HttpError" (status in the message, `key` set) or "Aborted".
 */
export class FetchStore {
  /** The store's root URL as given. */
  readonly url: string;
  /** Live counters: requests sent and body bytes received. Reset with {@link resetStats}. */
  readonly stats: FetchStoreStats = { requests: 0, bytes: 0 };

  private readonly base: string;
  private readonly query: string;
  private readonly ctx: HttpContext;
  private readonly forbiddenAsMissing: boolean;
  private readonly cacheMetadata: boolean;
  private readonly listing: FetchStoreListing;
  private readonly coalescer: Coalescer | null;
  private readonly cache = new Map<string, CacheEntry>();
  /** false once the server refused or ignored a suffix range. */
  private suffixRanges: boolean | undefined;
  /** true once the server answered a range request with 206. */
  private rangesHonoured = false;
  /** In "auto": no listing was found, so none is asked for again. */
  private unlistable = false;
  /** Whether an HTML index was asked for and answered (found or not: `htmlIndex` says). */
  private triedHtml = false;
  /** The listing that finds out what the host offers, while it runs. */
  private probing: Promise<unknown> | null = null;
  /** The S3 listing endpoint once found; null when there is none. */
  private s3: S3Root | null | undefined;
  /** true once an HTML index answered. */
  private htmlIndex = false;

  /**
   * @param url the store's root (with or without a trailing "/"; relative URLs work where
   *   `fetch` resolves them, i.e. in browsers)
   * @param options see {@link FetchStoreOptions}
   */
  constructor(url: string | URL, options: FetchStoreOptions = {}) {
    const text = String(url);
    if (text === "") throw new ZomError("InvalidArgument", "FetchStore needs a URL");
    this.url = text;
    const noHash = text.split("#", 1)[0] ?? text;
    const q = noHash.indexOf("?");
    this.query = q >= 0 ? noHash.slice(q) : "";
    this.base = (q >= 0 ? noHash.slice(0, q) : noHash).replace(/\/+$/, "");
    this.ctx = httpContext(options, this.stats);
    this.forbiddenAsMissing = options.forbiddenAsMissing ?? false;
    this.cacheMetadata = options.cacheMetadata ?? true;
    this.listing = options.listing ?? "auto";
    if (!["auto", "s3", "html", "none"].includes(this.listing)) {
      throw new ZomError("InvalidArgument", `FetchStore option listing must be "auto", "s3", "html" or "none"`);
    }
    this.coalescer = coalescer(options, (key, offset, length, signal) => this.readRange(key, offset, length, signal));
  }

  /** Zeroes {@link stats}. */
  resetStats(): void {
    this.stats.requests = 0;
    this.stats.bytes = 0;
  }

  /** Forgets the cached metadata documents (and what was learnt about missing ones). */
  clearCache(): void {
    this.cache.clear();
  }

  /** The URL of a key ("/a/zarr.json" or "a/zarr.json"; a prefix may end in "/"). */
  urlOf(key: string): string {
    const k = normalizeKey(key);
    return `${this.base}/${encodeKey(k.slice(1))}${this.query}`;
  }

  /**
   * The whole value at `key`; undefined when it is missing. With `maxBytes`, a longer value
   * throws ZomError "LimitExceeded" as soon as its Content-Length or its streamed (decoded)
   * bytes say so, without reading the rest, and is not cached.
   */
  async get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = normalizeKey(key);
    const { signal } = options;
    const max = maxBytesOf(k, options);
    throwIfAborted(k, signal);
    if (!this.cacheMetadata || !isMetadataKey(k)) return this.readWhole(k, signal, max);
    let entry = this.cache.get(k);
    if (entry === undefined || entry.joint.signal.aborted || entry.max < max) {
      const joint = new Joint();
      const promise = this.readWhole(k, joint.signal, max);
      const created: CacheEntry = { joint, promise, max };
      entry = created;
      this.cache.set(k, created);
      promise.catch(() => {
        if (this.cache.get(k) === created) this.cache.delete(k);
      });
    }
    entry.joint.join(signal);
    // A copy each time: callers may keep, change or transfer what they get.
    return raceAbort(entry.promise, k, signal).then((b) => {
      if (b !== undefined && b.length > max) throw overLimit(k, this.urlOf(k), `is ${b.length} bytes`, max, "maxBytes");
      return b?.slice();
    });
  }

  /**
   * Bytes of the value at `key`: `length` bytes from `offset` (fewer at the end of the value,
   * none past it), or the last `suffixLength` bytes (all of a shorter value). undefined when the
   * value is missing.
   */
  async getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = normalizeKey(key);
    const r = checkRange(k, range);
    const { signal } = options;
    throwIfAborted(k, signal);
    if ("suffixLength" in r) {
      return r.suffixLength === 0 ? this.emptyIfPresent(k, signal) : this.readSuffix(k, r.suffixLength, signal);
    }
    if (r.length === 0) return this.emptyIfPresent(k, signal);
    if (this.coalescer) return this.coalescer.read(k, r.offset, r.length, signal);
    return this.readRange(k, r.offset, r.length, signal);
  }

  /**
   * What is directly below `prefix` ("/" or "/a/"): child keys and child prefixes, absolute.
   * undefined when the server offers no listing this store can read.
   */
  async list(prefix: string, options: StoreCallOptions = {}): Promise<StoreListing | undefined> {
    const p = normalizePrefix(prefix);
    const { signal } = options;
    throwIfAborted(p, signal);
    if (this.listing === "none") return undefined;
    // The first listing finds out what the host offers; those asked meanwhile wait for its
    // answer rather than each trying every kind (a walk asks for a level's listings at once).
    while (this.probing !== null) await this.probing.catch(() => undefined);
    if (this.unlistable) return undefined;
    const decided = this.triedHtml || (this.s3 !== undefined && this.s3 !== null);
    if (decided) return this.listOnce(p, signal);
    const probe = this.listOnce(p, signal);
    this.probing = probe;
    try {
      return await probe;
    } finally {
      if (this.probing === probe) this.probing = null;
    }
  }

  private async listOnce(p: string, signal: AbortSignal | undefined): Promise<StoreListing | undefined> {
    if (this.listing !== "html" && this.s3 !== null) {
      const found = await listS3(this.ctx, this.s3, this.absoluteBase(), p, signal);
      if (found) {
        this.s3 = found.root;
        return found.listing;
      }
      this.s3 = null;
    }
    if (this.listing === "s3") return undefined;
    const html = await listHtml(this.ctx, this.urlOf(p), p, signal, this.missing.bind(this));
    this.triedHtml = true;
    if (html === "missing" && this.htmlIndex) return { keys: [], prefixes: [] };
    if (html === "missing" || html === null) {
      // A host that lists nothing lists nothing below either: asked once, in "auto".
      if (this.listing === "auto" && !this.htmlIndex) this.unlistable = true;
      return undefined;
    }
    this.htmlIndex = true;
    return html;
  }

  private missing(status: number): boolean {
    return status === 404 || status === 410 || (status === 403 && this.forbiddenAsMissing);
  }

  private absoluteBase(): URL | null {
    const loc = (globalThis as { location?: { href?: unknown } }).location?.href;
    try {
      return new URL(`${this.base}/`, typeof loc === "string" ? loc : undefined);
    } catch {
      return null;
    }
  }

  private fail(ans: HttpAnswer, key: string, method = "GET", what = ""): ZomError {
    return httpError({ method, url: ans.url, key }, `HTTP ${ans.status}${what}`);
  }

  private async readWhole(key: string, signal: AbortSignal | undefined, maxBytes = Infinity): Promise<Uint8Array | undefined> {
    const ans = await send(this.ctx, { url: this.urlOf(key), method: "GET", key, signal, maxBytes });
    if (this.missing(ans.status)) return undefined;
    if (ans.status === 206) throw this.fail(ans, key, "GET", " (partial content for a request without Range)");
    if (ans.status >= 200 && ans.status <= 299) return ans.body;
    throw this.fail(ans, key);
  }

  /** One absolute range request (what the coalescer calls). */
  private async readRange(key: string, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    const range = `bytes=${offset}-${offset + length - 1}`;
    const ans = await send(this.ctx, { url: this.urlOf(key), method: "GET", range, key, signal });
    if (this.missing(ans.status)) return undefined;
    if (ans.status >= 200 && ans.status <= 299) {
      if (ans.status === 206) this.rangesHonoured = true;
      return keepPrefix(ans, key, offset, length);
    }
    if (ans.status === 416) return new Uint8Array(0);
    throw this.fail(ans, key, "GET", ` for ${range}`);
  }

  private async readSuffix(key: string, n: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    let total: number | null | undefined;
    if (this.suffixRanges !== false) {
      const ans = await send(this.ctx, { url: this.urlOf(key), method: "GET", range: `bytes=-${n}`, key, signal });
      if (this.missing(ans.status)) return undefined;
      if (ans.status === 206) {
        this.suffixRanges = true;
        this.rangesHonoured = true;
        return keepSuffix(ans, key, n);
      }
      if (ans.status >= 200 && ans.status <= 299) {
        // The whole value: the server ignores Range, or only suffix ranges.
        if (this.rangesHonoured) this.suffixRanges = false;
        return keepSuffix(ans, key, n);
      }
      if (ans.status === 416) {
        const cr = parseContentRange(ans.headers.get("content-range"));
        if (cr !== null && "unsatisfied" in cr) {
          if (cr.total === 0) return new Uint8Array(0);
          total = cr.total;
        }
      } else if (ans.status !== 400 && ans.status !== 501) {
        throw this.fail(ans, key, "GET", ` for bytes=-${n}`);
      }
      this.suffixRanges = false;
    }
    if (total === undefined) total = await this.size(key, signal);
    if (total === undefined) return undefined;
    if (total === null) {
      const whole = await this.readWhole(key, signal);
      return whole === undefined ? whole : tail(whole, n);
    }
    if (total === 0) return new Uint8Array(0);
    const start = Math.max(0, total - n);
    return this.readRange(key, start, total - start, signal);
  }

  /** The value's length from HEAD; undefined when missing, null when the server does not say. */
  private async size(key: string, signal: AbortSignal | undefined): Promise<number | null | undefined> {
    const ans = await send(this.ctx, { url: this.urlOf(key), method: "HEAD", key, signal });
    if (this.missing(ans.status)) return undefined;
    if (ans.status === 405 || ans.status === 501) return null;
    if (ans.status < 200 || ans.status > 299) throw this.fail(ans, key, "HEAD");
    return parseContentLength(ans.headers.get("content-length"));
  }

  /** A zero-length read: an empty array when the value exists. */
  private async emptyIfPresent(key: string, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    const size = await this.size(key, signal);
    return size === undefined ? undefined : new Uint8Array(0);
  }
}

/** An absolute key: a leading "/" added; "." and ".." segments refused (they would leave the store). */
export function normalizeKey(key: string): string {
  if (typeof key !== "string") throw new ZomError("InvalidArgument", `store keys are strings, got ${typeof key}`);
  const k = key.startsWith("/") ? key : `/${key}`;
  if (k.split("/").some((s) => s === "." || s === "..")) {
    throw new ZomError("InvalidArgument", `store key ${JSON.stringify(key)} has a "." or ".." segment`, { key });
  }
  return k;
}

/** An absolute prefix ending in "/" ("" and "/" are the root). */
function normalizePrefix(prefix: string): string {
  const k = normalizeKey(prefix);
  return k.endsWith("/") ? k : `${k}/`;
}
