/**
 * `ZipStore`: a zipped hierarchy (zarr-python's `ZipStore`, a folder zipped by any tool, Zip64
 * included) read as a store, from a URL, a `Blob`/`File`, or any other store. The archive's
 * layout is read by the WebAssembly side (`src/store/zip/`: the central directory, where each
 * member's bytes are, local headers, inflating, CRC-32 checks); this module only fetches.
 * @module
 */
import * as raw from "../zom_wasm.js";
import { toZomError, ZomError } from "../errors.js";
import type { Readable } from "../hierarchy.js";
import { FetchStore } from "./fetch.js";
import { FileStore } from "./files.js";
import { maxBytesOf } from "./range.js";
import type { ByteRange, FetchStoreOptions, FetchStoreStats, StoreCallOptions, StoreListing } from "./types.js";
import { wire } from "./wire.js";

/** Options of the {@link ZipStore} factories. */
export interface ZipStoreOptions {
  /**
   * The hierarchy's folder inside the archive ("data/image.zarr"). Default: the archive's top
   * level when it holds a zarr.json, .zgroup, .zarray or .zmetadata, else the one shallowest
   * folder that does.
   */
  root?: string;
  /** Aborts the reads that open the archive. */
  signal?: AbortSignal;
}

/** A rethrowable error for what the WebAssembly side threw, located at `key` when it has no key. */
function located(e: unknown, key: string): unknown {
  const z = toZomError(e);
  return z instanceof ZomError && z.key === null ? new ZomError(z.code, z.message, { key, cause: z }) : z;
}

/** The kinds of plans `ZipArchive.plan` returns (`src/wasm/zip.rs`). */
const PLAN = { member: 0, header: 1, archive: 2, empty: 3, decoded: 4 } as const;
/** The modes of `ZipArchive.plan`. */
const MODE = { whole: 0, range: 1, suffix: 2 } as const;

/**
 * A zip archive read as a store: key "/a/zarr.json" is the member `a/zarr.json` below the
 * hierarchy's root folder in the archive. Opening reads the archive's last 128 KiB (one suffix
 * range; a second range only for a larger central directory); then a whole member is one
 * range request (its local header and data), and a range of a stored member one range
 * request, so sharded arrays read with the requests they make unzipped. Deflated members are
 * read whole and inflated. Every whole member's CRC-32 is checked ("ChecksumMismatch").
 *
 * Implements zarrita's store shape (`get`, `getRange`, `list`), so zarrita reads it too.
 *
 * ```ts
 * const store = await ZipStore.fromUrl("https://example.com/image.ozx");
 * const arr = await openArray(store, "0");
 * ```
 */
export class ZipStore {
  /** The store the archive is read from (a FetchStore for {@link fromUrl}: its `stats` count the requests). */
  readonly source: Readable;
  /** The archive's key in {@link source}. */
  readonly key: string;
  /** The hierarchy's folder in the archive ("" or "data/image.zarr/"). */
  readonly root: string;
  readonly #archive: raw.ZipArchive;
  /** Compressed members read whole for ranges of them: the last four. */
  readonly #whole = new Map<string, Promise<Uint8Array | undefined>>();

  private constructor(source: Readable, key: string, archive: raw.ZipArchive) {
    this.source = source;
    this.key = key;
    this.#archive = archive;
    this.root = archive.root;
  }

  /** The requests and bytes of the store the archive is read from (zeros when it does not count them). */
  get stats(): FetchStoreStats {
    return (this.source as { stats?: FetchStoreStats }).stats ?? { requests: 0, bytes: 0 };
  }

  /** Opens the archive at `key` of `source` (any store with zarrita's shape; `getRange` is needed to read less than all of it). */
  static async open(source: Readable, key: string, options: ZipStoreOptions = {}): Promise<ZipStore> {
    const call = { signal: options.signal };
    if (source.getRange === undefined) {
      // A store that cannot read ranges: the archive is read once and held.
      const whole = await source.get(key, call);
      if (whole === undefined) throw new ZomError("NotFound", `no zip archive at ${key}`, { key });
      source = new FileStore([[key, new Blob([whole.slice()])]]);
    }
    const tailLength = wire(() => raw.ZipArchive.tailLength());
    const tail = await readSource(source, key, { suffixLength: tailLength }, call);
    if (tail === undefined) throw new ZomError("NotFound", `no zip archive at ${key}`, { key });
    try {
      let opened = raw.ZipArchive.open(tail, undefined, options.root) as unknown;
      if (opened instanceof Float64Array) {
        const [start = 0, end = 0] = opened;
        const dir = (await readSource(source, key, { offset: start, length: end - start }, call)) ?? new Uint8Array(0);
        opened = raw.ZipArchive.open(tail, dir, options.root) as unknown;
      }
      return new ZipStore(source, key, opened as raw.ZipArchive);
    } catch (e) {
      throw located(e, key);
    }
  }

  /** Opens the archive at `url` with a {@link FetchStore} (Range requests; its options apply). */
  static fromUrl(url: string | URL, options: ZipStoreOptions & FetchStoreOptions = {}): Promise<ZipStore> {
    const text = String(url);
    const noHash = text.split("#", 1)[0] ?? text;
    const q = noHash.indexOf("?");
    const path = q >= 0 ? noHash.slice(0, q) : noHash;
    const slash = path.lastIndexOf("/");
    const name = decodeURIComponent(path.slice(slash + 1));
    if (slash < 0 || name === "") throw new ZomError("InvalidArgument", `a zip archive's URL names a file: ${text}`);
    const dir = path.slice(0, slash + 1) + (q >= 0 ? noHash.slice(q) : "");
    return ZipStore.open(new FetchStore(dir, options), `/${name}`, options);
  }

  /** Opens an archive the page holds (a `File` from an input or a drop, a `Blob`): only the bytes needed are read. */
  static fromBlob(blob: Blob, options: ZipStoreOptions = {}): Promise<ZipStore> {
    const name = typeof File !== "undefined" && blob instanceof File && blob.name !== "" ? blob.name : "archive.zip";
    return ZipStore.open(new FileStore([[`/${name}`, blob]]), `/${name}`, options);
  }

  /** The member at `key`, checked and inflated; undefined when there is none. */
  get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    return this.#member(key, MODE.whole, maxBytesOf(key, options), 0, options);
  }

  /** Bytes of the member at `key`: `length` from `offset` (fewer at its end), or the last `suffixLength`. */
  getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    return "suffixLength" in range
      ? this.#member(key, MODE.suffix, range.suffixLength, 0, options)
      : this.#member(key, MODE.range, range.offset, range.length, options);
  }

  /**
   * One read of a member as the WebAssembly side plans it: at most three rounds (the local
   * header when the layout did not tell where the data starts, then the data; a range of a
   * compressed member reads the member whole).
   */
  async #member(key: string, mode: number, a: number, b: number, options: StoreCallOptions): Promise<Uint8Array | undefined> {
    const max = mode === MODE.whole ? a : Infinity;
    for (let round = 0; round < 3; round++) {
      const plan = this.#plan(key, () => this.#archive.plan(key, mode, a, b));
      if (plan === undefined) return undefined;
      const [kind = 0, start = 0, end = 0] = plan;
      if (kind === PLAN.empty) return new Uint8Array(0);
      if (kind === PLAN.archive) return this.#read(start, end, options);
      if (kind === PLAN.decoded) return (await this.#wholeShared(key, options))?.slice(start, end);
      const bytes = await this.#read(start, end, options);
      const value = this.#plan(key, () => this.#archive.accept(key, bytes, max));
      if (value !== undefined) return value;
    }
    throw new ZomError("InvalidMetadata", "zip: the member's local header does not match the directory", { key });
  }

  /** The members and folders directly below `prefix` (absolute; prefixes end in "/"). */
  async list(prefix: string): Promise<StoreListing> {
    return this.#plan(prefix, () => this.#archive.list(prefix.replace(/^\/+|\/+$/g, ""))) as StoreListing;
  }

  /** Frees the archive's index in WebAssembly memory now rather than at garbage collection. */
  free(): void {
    this.#archive.free();
  }

  #plan<T>(key: string, f: () => T): T {
    try {
      return wire(f);
    } catch (e) {
      throw located(e, key);
    }
  }

  async #read(start: number, end: number, options: StoreCallOptions): Promise<Uint8Array> {
    const bytes = await readSource(this.source, this.key, { offset: start, length: end - start }, { signal: options.signal });
    if (bytes === undefined) throw new ZomError("NotFound", `the zip archive ${this.key} is gone`, { key: this.key });
    return bytes;
  }

  /**
   * A compressed member read whole for range reads of it (a shard's index, then its inner
   * chunks): the last four are kept, so a shard is fetched and inflated once, not per range.
   */
  #wholeShared(key: string, options: StoreCallOptions): Promise<Uint8Array | undefined> {
    let p = this.#whole.get(key);
    if (p === undefined) {
      // Not the range's maxBytes: that bounds the range, not the member it is cut from.
      p = this.get(key, { signal: options.signal });
      this.#whole.set(key, p);
      if (this.#whole.size > 4) this.#whole.delete(this.#whole.keys().next().value as string);
      p.catch(() => this.#whole.delete(key));
    }
    return p;
  }
}

/** A range of the source's value (every source has `getRange`: see {@link ZipStore.open}). */
function readSource(source: Readable, key: string, range: ByteRange, options: StoreCallOptions): Promise<Uint8Array | undefined> {
  if (source.getRange === undefined) throw new ZomError("InvalidArgument", "a zip source reads ranges", { key });
  return source.getRange(key, range, options);
}
