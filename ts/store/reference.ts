/**
 * `ReferenceStore`: a read-only store over kerchunk references (fsspec's ReferenceFileSystem
 * JSON, versions 0 and 1), for browsers and Node. zom's references part reads the reference
 * document and each value (`src/store/reference/`, bound in `src/wasm/reference.rs`: which
 * bytes of which target file hold it, the limits, the checks of what a target gave); it is a
 * WebAssembly module of its own, loaded the first time a store is made or a document checked,
 * so a page that reads no references loads none of it. This module only fetches the targets.
 * @module
 */
import { lazyPart } from "../parts/carried.js";
import { followLimits } from "../parts/shared.js";
import { converting, toZomError, ZomError } from "../shared/errors.js";
import { getLimits } from "../shared/limits.js";
import type { Problem } from "../shared/types.js";
import type * as Glue from "../zom_references.js";
import type { Coalescer } from "./coalesce.js";
import { coalescer, httpContext } from "./fetch.js";
import type { FetchStoreOptions, FetchStoreStats } from "./fetch-types.js";
import type { HttpContext } from "./http.js";
import { httpError, send } from "./http.js";
import { checkRange, keepPrefix, maxBytesOf, tail } from "./range.js";
import type { ByteRange, Readable, StoreCallOptions, StoreListing } from "./readable.js";
import { throwIfAborted } from "./signal.js";

/** Options of {@link ReferenceStore.fromUrl} and {@link ReferenceStore.fromJson}: how targets (and the reference file) are fetched. */
export interface ReferenceStoreOptions extends FetchStoreOptions {
  /**
   * The URL the reference file's relative target URLs are resolved against (fromJson; fromUrl
   * uses the file's own URL). Without it relative targets are resolved against the page's
   * location where there is one.
   */
  baseUrl?: string | URL;
  /** Aborts fetching the reference file (fromUrl). */
  signal?: AbortSignal;
}

/**
 * Where a {@link ReferenceStore} reads the files its references point at. zom has two: HTTP(S)
 * with `fetch` (FetchStore's machinery: retries, timeouts, coalesced ranges) and, in Node, local
 * files ("zom/fs").
 */
export interface ReferenceTargets {
  /** Live counters of requests (or file reads) and bytes. */
  readonly stats: FetchStoreStats;
  /** All of the target at `url`; undefined when it does not exist. */
  whole(url: string, signal: AbortSignal | undefined, maxBytes: number): Promise<Uint8Array | undefined>;
  /** `length` (> 0) bytes from `offset` of the target at `url`, fewer at its end; undefined when it does not exist. */
  range(url: string, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined>;
  /** What the latest answer for `url` said of its object (HTTP `ETag`, `Last-Modified`), where the targets know. */
  validators?(url: string): ObjectValidators | undefined;
}

/** What an answer said of the object it came from: its ETag and last modification (an HTTP date), null where it did not say. */
export interface ObjectValidators {
  etag: string | null;
  lastModified: string | null;
}

/** Loads the references part once, started with the limits in force. */
const part = /* @__PURE__ */ lazyPart(
  () => Promise.all([import("../zom_references.js"), import("../zom_references_inline.js")]),
  followLimits,
);

/** The document as the part takes it: text or bytes. */
function documentText(json: string | Uint8Array | ArrayBuffer | object): string | Uint8Array {
  if (typeof json === "string" || json instanceof Uint8Array) return json;
  return json instanceof ArrayBuffer ? new Uint8Array(json) : JSON.stringify(json);
}

/** What only {@link ReferenceStore.open} passes to the constructor. */
const MADE_BY_OPEN = Symbol("ReferenceStore.open");

/** How many targets' validators {@link HttpTargets} remembers. */
const VALIDATORS_KEPT = 1024;

/** Targets over HTTP(S): one request per range, ranges of one target asked for in the same tick merged. */
class HttpTargets implements ReferenceTargets {
  readonly stats: FetchStoreStats;
  private readonly ctx: HttpContext;
  private readonly coalescer: Coalescer | null;
  private readonly anyScheme: boolean;
  private readonly seen = new Map<string, ObjectValidators>();

  constructor(options: FetchStoreOptions, stats: FetchStoreStats = { requests: 0, bytes: 0 }) {
    this.stats = stats;
    this.ctx = httpContext(options, stats);
    this.coalescer = coalescer(options, (url, offset, length, signal) => this.read(url, offset, length, signal));
    this.anyScheme = options.fetch !== undefined;
  }

  async whole(url: string, signal: AbortSignal | undefined, maxBytes: number): Promise<Uint8Array | undefined> {
    this.check(url);
    const ans = await send(this.ctx, { url, method: "GET", key: url, signal, maxBytes });
    if (ans.status === 404 || ans.status === 410) return undefined;
    if (ans.status >= 200 && ans.status <= 299 && ans.status !== 206) return this.remember(url, ans.headers, ans.body);
    throw httpError({ method: "GET", url: ans.url, key: url }, `HTTP ${ans.status}`);
  }

  validators(url: string): ObjectValidators | undefined {
    return this.seen.get(url);
  }

  range(url: string, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    this.check(url);
    return this.coalescer ? this.coalescer.read(url, offset, length, signal) : this.read(url, offset, length, signal);
  }

  private async read(url: string, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    const range = `bytes=${offset}-${offset + length - 1}`;
    const ans = await send(this.ctx, { url, method: "GET", range, key: url, signal });
    if (ans.status === 404 || ans.status === 410) return undefined;
    if (ans.status >= 200 && ans.status <= 299) return this.remember(url, ans.headers, keepPrefix(ans, url, offset, length));
    if (ans.status === 416) return new Uint8Array(0);
    throw httpError({ method: "GET", url: ans.url, key: url }, `HTTP ${ans.status} for ${range}`);
  }

  /** Keeps what the answer for `url` said of its object (the most recent targets' only); returns `value`. */
  private remember<T>(url: string, headers: Headers, value: T): T {
    this.seen.delete(url);
    if (this.seen.size >= VALIDATORS_KEPT) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(url, { etag: headers.get("etag"), lastModified: headers.get("last-modified") });
    return value;
  }

  /** `fetch` reads http(s) (and relative URLs in a page); other schemes need the caller's own `fetch`. */
  private check(url: string): void {
    if (this.anyScheme || !/^[a-z][a-z0-9+.-]+:/i.test(url) || /^https?:/i.test(url)) return;
    throw new ZomError(
      "InvalidArgument",
      `cannot fetch the reference target ${url}: pass a \`fetch\` option that reads such URLs (e.g. by mapping s3:// to https://)`,
      { key: url },
    );
  }
}

/**
 * Targets read over HTTP(S) with the HTTP settings of `options` (FetchStore's), counted in
 * `stats`: for a {@link ReferenceStore} made with its constructor.
 */
export function httpTargets(options: FetchStoreOptions = {}, stats?: FetchStoreStats): ReferenceTargets {
  return new HttpTargets(options, stats);
}

/** An absolute URL of `url` where the runtime has a location to resolve it against (a page), else `url` as it is. */
function absolute(url: string | URL): string {
  const loc = (globalThis as { location?: { href?: unknown } }).location?.href;
  try {
    return new URL(String(url), typeof loc === "string" ? loc : undefined).href;
  } catch {
    return String(url);
  }
}

/** A key without its leading "/" (the references' own form). */
function bare(key: string): string {
  if (typeof key !== "string") throw new ZomError("InvalidArgument", `store keys are strings, got ${typeof key}`);
  return key.replace(/^\/+/, "");
}

/**
 * `targets` as a store keyed by target URL, the shape the WebAssembly's read loop reads
 * through: a suffix is the end of the whole target, an empty range no read.
 */
function targetStore(targets: ReferenceTargets): Readable {
  return {
    get: (url: string, options: StoreCallOptions = {}) => targets.whole(url, options.signal, options.maxBytes ?? Infinity),
    async getRange(url: string, range: ByteRange, options: StoreCallOptions = {}) {
      if ("suffixLength" in range) {
        const all = await targets.whole(url, options.signal, Infinity);
        return all === undefined ? undefined : tail(all, range.suffixLength);
      }
      return range.length > 0 ? targets.range(url, range.offset, range.length, options.signal) : new Uint8Array(0);
    },
  };
}

/**
 * A read-only store over kerchunk references: a JSON document mapping each key of a virtual
 * Zarr hierarchy to inline bytes or to a byte range of another file (NetCDF, HDF5, TIFF…),
 * so zom (and zarrita) read such files as Zarr. Implements the store shape `get`, `getRange`
 * and `list` (keys absolute: "/a/.zarray").
 *
 * - Versions 0 and 1 of the format: inline text, `base64:` bytes, JSON objects, `[url]`,
 *   `[url, offset, length]`, `templates` and `gen` generators, as fsspec reads them.
 * - Relative target URLs are resolved against the reference file's URL as a browser resolves
 *   links; absolute ones are fetched as they are (other schemes than http(s), such as s3://,
 *   need a `fetch` option that reads them).
 * - Targets are read with Range requests; ranges of one target asked for in the same tick that
 *   are close are merged into one request (`coalesce`). Every FetchStore option applies:
 *   retries, timeouts, `concurrency`, `maxResponseBytes`, headers.
 * - A reference document with problems rejects with ZomError "InvalidMetadata" naming the JSON
 *   pointer of the first one (`checkReferences` lists them all); a key whose target is missing
 *   throws "NotFound", a target that ends before the reference's bytes "InvalidMetadata".
 * - The document is read by zom's references part, loaded the first time (its two files), which
 *   is why every way to make a store is asynchronous.
 *
 * Make one with {@link ReferenceStore.fromUrl} or {@link ReferenceStore.fromJson}; in Node,
 * "zom/fs" has `referenceStoreFromFile` for a reference file on disk with local targets.
 */
export class ReferenceStore {
  /** The reference file's URL or path (relative target URLs are resolved against it). */
  readonly url: string;
  /** How many keys the references hold. */
  readonly size: number;
  readonly #index: Glue.ReferenceIndex;
  readonly #targets: ReferenceTargets;

  private constructor(made: symbol, index: Glue.ReferenceIndex, base: string, targets: ReferenceTargets) {
    // TypeScript's `private` does not reach JavaScript callers of the old synchronous constructor.
    if (made !== MADE_BY_OPEN)
      throw new ZomError(
        "InvalidArgument",
        "a ReferenceStore is made by `await ReferenceStore.open(json, base, targets)`, fromUrl or fromJson",
      );
    this.#index = index;
    this.#targets = targets;
    this.url = base;
    this.size = index.size;
  }

  /**
   * A store over the reference document `json` (text, bytes, or the parsed object) whose
   * targets `targets` reads; `base` is the document's URL or path. Rejects with ZomError
   * "InvalidMetadata" naming the JSON pointer of the document's first problem. Most callers
   * want {@link ReferenceStore.fromUrl} or {@link ReferenceStore.fromJson}.
   */
  static async open(json: string | Uint8Array | object, base: string, targets: ReferenceTargets): Promise<ReferenceStore> {
    const text = documentText(json);
    const glue = await part();
    const index = converting<Glue.ReferenceIndex>(() => new glue.ReferenceIndex(text, base, targetStore(targets)));
    return new ReferenceStore(MADE_BY_OPEN, index, base, targets);
  }

  /**
   * Fetches the reference file at `url` (with the options' HTTP settings and `signal`; a
   * document over the `maxDocumentBytes` limit is refused) and makes a store over it whose
   * relative targets resolve against `url`.
   */
  static async fromUrl(url: string | URL, options: ReferenceStoreOptions = {}): Promise<ReferenceStore> {
    const base = absolute(url);
    if (/\/(?:[?#].*)?$/.test(base)) {
      throw new ZomError(
        "InvalidArgument",
        `${base} names a directory: parquet references are not supported, give the URL of a JSON reference file`,
        { key: base },
      );
    }
    const targets = new HttpTargets(options);
    throwIfAborted(base, options.signal);
    part().catch(() => undefined); // loads while the file is fetched; open() reports a failure
    const text = await targets.whole(base, options.signal, getLimits().maxDocumentBytes);
    if (text === undefined) throw new ZomError("NotFound", `no reference file at ${base}`, { key: base });
    return ReferenceStore.open(text, base, targets);
  }

  /**
   * A store over a reference document given as JSON text, bytes or the parsed object; relative
   * targets resolve against `options.baseUrl` (or the page's location).
   */
  static async fromJson(json: string | Uint8Array | object, options: ReferenceStoreOptions = {}): Promise<ReferenceStore> {
    const base = options.baseUrl === undefined ? absolute("") : absolute(options.baseUrl);
    return ReferenceStore.open(json, base, new HttpTargets(options));
  }

  /** Live counters of the target reads (and of the reference file's request, with fromUrl). */
  get stats(): FetchStoreStats {
    return this.#targets.stats;
  }

  /** Zeroes {@link stats}. */
  resetStats(): void {
    this.#targets.stats.requests = 0;
    this.#targets.stats.bytes = 0;
  }

  /** The value at `key`; undefined for a key the references do not hold. */
  async get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = bare(key);
    return this.#read(k, -1, -1, options.signal, maxBytesOf(k, options));
  }

  /** Bytes of the value at `key` (see FetchStore.getRange); undefined for a key the references do not hold. */
  async getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = bare(key);
    const r = checkRange(k, range);
    const [a, b] = "suffixLength" in r ? [-1, r.suffixLength] : [r.offset, r.length];
    return this.#read(k, a, b, options.signal, maxBytesOf(k, options));
  }

  /** The keys and prefixes directly below `prefix` ("/" or "/a/"), from the reference keys. */
  async list(prefix: string): Promise<StoreListing> {
    return converting<StoreListing>(() => this.#index.list(bare(prefix)));
  }

  /** Frees the WebAssembly side now rather than at garbage collection. */
  free(): void {
    this.#index.free();
  }

  async #read(key: string, offset: number, length: number, signal: AbortSignal | undefined, max: number): Promise<Uint8Array | undefined> {
    throwIfAborted(key, signal);
    const read = converting<Promise<Uint8Array | undefined>>(() => this.#index.read(key, offset, length, max, signal));
    return read.catch((e: unknown) => {
      throw toZomError(e);
    });
  }
}

/**
 * The problems of a kerchunk reference document (JSON text, bytes or the parsed object), each
 * with `loc` (the path of the offending value) and a message; empty when it reads.
 */
export async function checkReferences(json: string | Uint8Array | object): Promise<Problem[]> {
  const text = documentText(json);
  const glue = await part();
  return converting<Problem[]>(() => glue.checkReferences(text));
}
