/**
 * `ZipStore`: a zipped hierarchy (zarr-python's `ZipStore`, a folder zipped by any tool, Zip64
 * included) read as a store, from a URL, a `Blob`/`File`, or any other store. The archive is
 * read by zom's zip part (`src/store/zip/`, bound in `src/wasm/zip.rs`: the central directory,
 * where each member's bytes are, local headers, inflating under the size bound, CRC-32 checks,
 * the members kept whole for ranges) through the store holding it. The part is a WebAssembly
 * module of its own, loaded the first time an archive is opened: a page that opens none loads
 * none of it. This module only says where the archive is.
 * @module
 */
import { lazyPart } from "../parts/carried.js";
import { toZomError, ZomError } from "../shared/errors.js";
import type * as Glue from "../zom_zip.js";
import { FileStore } from "./browser-files.js";
import { FetchStore } from "./fetch.js";
import type { FetchStoreOptions, FetchStoreStats } from "./fetch-types.js";
import { readRequest } from "./range.js";
import type { ByteRange, Readable, StoreCallOptions, StoreListing } from "./readable.js";

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

/** Loads the zip part once. */
const part = /* @__PURE__ */ lazyPart(() => Promise.all([import("../zom_zip.js"), import("../zom_zip_inline.js")]));

/** A rethrowable error for what the WebAssembly side threw, located at `key` when it has no key. */
function located(e: unknown, key: string): unknown {
  const z = toZomError(e);
  return z instanceof ZomError && z.key === null ? new ZomError(z.code, z.message, { key, cause: z }) : z;
}

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
  readonly #archive: Glue.ZipArchive;

  private constructor(source: Readable, key: string, archive: Glue.ZipArchive) {
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
    part().catch(() => undefined); // loads while a store without ranges is read whole; reported below
    if (source.getRange === undefined) {
      // A store that cannot read ranges: the archive is read once and held.
      const whole = await source.get(key, call);
      if (whole === undefined) throw new ZomError("NotFound", `no zip archive at ${key}`, { key });
      source = new FileStore([[key, new Blob([whole.slice()])]]);
    }
    const archive = await part()
      .then((glue) => glue.ZipArchive.open(source, key, options.root, options.signal) as Promise<Glue.ZipArchive>)
      .catch((e: unknown) => {
        throw located(e, key);
      });
    return new ZipStore(source, key, archive);
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
    return this.#member(key, readRequest(key, undefined, options), options);
  }

  /** Bytes of the member at `key`: `length` from `offset` (fewer at its end), or the last `suffixLength`. */
  getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    return this.#member(key, readRequest(key, range, options), options);
  }

  /** One read of the member at `key` (`[mode, a, b]` as `ZipArchive.read` takes them). */
  async #member(key: string, [mode, a, b]: [number, number, number], options: StoreCallOptions): Promise<Uint8Array | undefined> {
    const read = this.#call(key, () => this.#archive.read(key, mode, a, b, options.signal)) as Promise<Uint8Array | undefined>;
    return read.catch((e: unknown) => {
      throw located(e, key);
    });
  }

  /** The members and folders directly below `prefix` (absolute; prefixes end in "/"). */
  async list(prefix: string): Promise<StoreListing> {
    return this.#call(prefix, () => this.#archive.list(prefix)) as StoreListing;
  }

  /** Frees the archive's index in WebAssembly memory now rather than at garbage collection. */
  free(): void {
    this.#archive.free();
  }

  #call<T>(key: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw located(e, key);
    }
  }
}
