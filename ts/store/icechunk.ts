/**
 * `IcechunkStore`: one snapshot of an Icechunk repository (spec version 2, Icechunk 2.x's
 * `repo` file, or spec version 1's `refs/`) read as a store. The repository's files are read
 * by zom's Icechunk part (`src/store/icechunk/`, bound in `src/wasm/icechunk.rs`): headers,
 * zstd-compressed flatbuffers, refs, snapshots and manifests, each bounded by the limits. The
 * part is a WebAssembly module of its own, loaded the first time a repository is opened: a
 * page that opens none loads none of it. This module says where the files are and fetches
 * what the part asks for.
 * @module
 */

import type { LimitName } from "../generated/boundary.js";
import { LIMIT_DEFAULTS } from "../generated/boundary.js";
import { lazyPart } from "../parts/carried.js";
import { limitInForce } from "../parts/shared.js";
import { isZomError, toZomError, ZomError } from "../shared/errors.js";
import type { Limits } from "../shared/types.js";
import type * as Glue from "../zom_icechunk.js";
import { FetchStore } from "./fetch.js";
import type { FetchStoreOptions } from "./fetch-types.js";
import { readRequest } from "./range.js";
import type { ByteRange, Readable, StoreCallOptions, StoreListing } from "./readable.js";
import type { ObjectValidators } from "./reference.js";
import { httpTargets } from "./reference.js";

/** Which snapshot to read: a branch's tip (default `main`), a tag, or a snapshot by id. */
export type IcechunkRef = { branch: string } | { tag: string } | { snapshot: string };

/** Options of {@link IcechunkStore.open}. */
export type IcechunkStoreOptions = {
  /** The branch whose tip is read (default `main` when no ref is named). */
  branch?: string;
  /** The tag read. */
  tag?: string;
  /** The snapshot read, by id. */
  snapshot?: string;
  /**
   * Where virtual chunks are read from, by the URL the manifest records (s3:// and gs:// URLs
   * already turned into HTTPS, at the endpoint their container names): a function giving the URL to fetch
   * (`null`: refuse it), or a store keyed by URL. Default: fetched as they are. A chunk whose
   * reference records a checksum (the object's ETag or last modification) is refused with
   * ZomError "ChecksumMismatch" when the answer shows that its object changed: over HTTP its
   * `ETag` (where CORS exposes it) and `Last-Modified` headers; a store given here is checked
   * only if it has a `validators(url)` method giving `{ etag, lastModified }` of its latest
   * answer for `url`.
   */
  virtualChunks?: ((url: string) => string | null) | Readable;
  /** Limits for this repository over those in force (`maxDocumentBytes` bounds every file). */
  limits?: Partial<Limits>;
} & FetchStoreOptions;

/** A branch or tag and the snapshot it points at. */
export interface IcechunkNamedRef {
  name: string;
  snapshot: string;
}

/** One snapshot in a history: `message` and `time` (ms since the epoch) where the repository records them, else null. */
export interface IcechunkSnapshotInfo {
  id: string;
  message: string | null;
  time: number | null;
}

/** Loads the Icechunk part once. */
const part = /* @__PURE__ */ lazyPart(() => Promise.all([import("../zom_icechunk.js"), import("../zom_icechunk_inline.js")]));

/** The limits in force, with `over`'s fields in their place. */
function limitsOf(over: Partial<Limits> = {}): Limits {
  const names = Object.keys(LIMIT_DEFAULTS) as LimitName[];
  return Object.fromEntries(names.map((name) => [name, over[name] ?? limitInForce(name)])) as unknown as Limits;
}

/** A rethrowable ZomError for what the part threw. */
function rethrown(e: unknown): unknown {
  return toZomError(e);
}

/**
 * The store that reads virtual chunks, by URL. Over HTTP it also tells what the latest answer
 * for a URL said of its object (`validators`): the part checks the chunks that record a
 * checksum against it.
 */
function virtualStore(
  option: IcechunkStoreOptions["virtualChunks"],
  http: FetchStoreOptions,
): Readable & { validators?(url: string): ObjectValidators | undefined } {
  if (option !== undefined && typeof option !== "function") return option;
  const targets = httpTargets(http);
  const map = option ?? ((url: string) => url);
  const where = (url: string): string => {
    const to = map(url);
    if (to === null)
      throw new ZomError("InvalidArgument", `the virtual chunk at ${url} is not read (virtualChunks refused it)`, { key: url });
    return to;
  };
  return {
    get: (url: string, options: StoreCallOptions = {}) => targets.whole(where(url), options.signal, options.maxBytes ?? Infinity),
    async getRange(url: string, range: ByteRange, options: StoreCallOptions = {}) {
      if ("suffixLength" in range) throw new ZomError("InvalidArgument", "virtual chunks are read by offset and length", { key: url });
      return range.length > 0 ? targets.range(where(url), range.offset, range.length, options.signal) : new Uint8Array(0);
    },
    validators: (url: string) => targets.validators?.(where(url)),
  };
}

/**
 * One snapshot of an Icechunk repository as a store: "/zarr.json" and "/a/b/zarr.json" are the
 * nodes' metadata, chunk keys ("/a/b/c/0/1") the chunks the snapshot's manifests point at —
 * inline in the manifest, a range of one of the repository's `chunks/` files, or a range of a
 * virtual chunk's file (http(s), and s3:// and gs:// at their containers' endpoints). Chunks no
 * manifest holds are absent (they read as the fill value).
 *
 * Implements zarrita's store shape (`get`, `getRange`, `list`), so zom's `open` and zarrita
 * (through `zom/zarrita`) read it as any other store.
 *
 * ```ts
 * const store = await IcechunkStore.open("https://example.com/repo/", { tag: "v1" });
 * const arr = await openArray(store, "temperature");
 * ```
 */
export class IcechunkStore {
  /** The store holding the repository's files. */
  readonly source: Readable;
  /** The snapshot read. */
  readonly snapshot: string;
  /** The repository's spec version: 2 (Icechunk 2.x) or 1. */
  readonly specVersion: number;
  readonly #repo: Glue.IcechunkRepo;
  readonly #checkout: Glue.IcechunkCheckout;

  private constructor(source: Readable, repo: Glue.IcechunkRepo, checkout: Glue.IcechunkCheckout) {
    this.source = source;
    this.#repo = repo;
    this.#checkout = checkout;
    this.snapshot = checkout.id;
    this.specVersion = repo.specVersion;
  }

  /**
   * Opens the repository at `urlOrStore` (a URL, read with a {@link FetchStore} and its
   * options, or a store holding the repository's files) at the snapshot `options` names:
   * `branch` (default `main`), `tag` or `snapshot` (an id).
   */
  static async open(urlOrStore: string | URL | Readable, options: IcechunkStoreOptions = {}): Promise<IcechunkStore> {
    const source = typeof urlOrStore === "string" || urlOrStore instanceof URL ? new FetchStore(urlOrStore, options) : urlOrStore;
    const given = ["branch", "tag", "snapshot"].filter((k) => (options as Record<string, unknown>)[k] !== undefined);
    if (given.length > 1) throw new ZomError("InvalidArgument", `name one ref, not ${given.join(" and ")}`);
    const [kind, name] =
      options.tag !== undefined
        ? ["tag", options.tag]
        : options.snapshot !== undefined
          ? ["snapshot", options.snapshot]
          : ["branch", options.branch ?? "main"];
    const glue = await part();
    try {
      const repo = (await glue.IcechunkRepo.open(source, limitsOf(options.limits))) as Glue.IcechunkRepo;
      const id = (await repo.resolve(kind, name)) as string;
      const checkout = (await repo.checkout(id, virtualStore(options.virtualChunks, options))) as Glue.IcechunkCheckout;
      return new IcechunkStore(source, repo, checkout);
    } catch (e) {
      throw rethrown(e);
    }
  }

  /** The repository's branches and tags (deleted tags left out), each sorted by name. */
  async refs(): Promise<{ branches: IcechunkNamedRef[]; tags: IcechunkNamedRef[] }> {
    try {
      return (await this.#repo.refs()) as { branches: IcechunkNamedRef[]; tags: IcechunkNamedRef[] };
    } catch (e) {
      throw rethrown(e);
    }
  }

  /** The history of snapshot `id` (default: the one read), newest first, to the repository's first snapshot. */
  async ancestry(id: string = this.snapshot): Promise<IcechunkSnapshotInfo[]> {
    try {
      return (await this.#repo.ancestry(id)) as IcechunkSnapshotInfo[];
    } catch (e) {
      throw rethrown(e);
    }
  }

  /** The value at `key`: a node's zarr.json or a chunk; undefined when there is none. */
  get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    return this.#read(key, readRequest(key, undefined, options), options);
  }

  /** Bytes of the value at `key`: `length` from `offset` (fewer at its end), or the last `suffixLength`. */
  getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    return this.#read(key, readRequest(key, range, options), options);
  }

  /** The nodes' documents and folders directly below `prefix` (absolute; prefixes end in "/"). */
  async list(prefix: string): Promise<StoreListing> {
    try {
      return (await this.#checkout.list(prefix)) as StoreListing;
    } catch (e) {
      throw rethrown(e);
    }
  }

  /** Frees the repository's snapshot and manifests in WebAssembly memory now rather than at garbage collection. */
  free(): void {
    this.#checkout.free();
    this.#repo.free();
  }

  /**
   * Reads through the part, which answers a native chunk's bytes with where they are in the
   * repository's files: those are fetched here, straight from the source (the bytes do not
   * pass through the part, and the call's signal reaches the request). A range that does not
   * come back whole is read again through the part, which says what is wrong.
   */
  async #read(key: string, [mode, a, b]: [number, number, number], options: StoreCallOptions): Promise<Uint8Array | undefined> {
    try {
      const got = (await this.#checkout.read(key, mode, a, b, true)) as
        | Uint8Array
        | undefined
        | { key: string; offset: number; length: number };
      if (got === undefined || got instanceof Uint8Array) return got;
      const range = { offset: got.offset, length: got.length };
      const bytes = this.source.getRange ? await this.source.getRange(got.key, range, { signal: options.signal }) : undefined;
      if (bytes?.byteLength === got.length) return bytes;
      options.signal?.throwIfAborted();
      return (await this.#checkout.read(key, mode, a, b, false)) as Uint8Array | undefined;
    } catch (e) {
      throw rethrown(e);
    }
  }
}

/**
 * The Icechunk repository at `store`'s root, at `ref` (default the tip of main), or null where
 * there is none: a root that answers with a zarr.json (or does not answer: the hierarchy's own
 * open then says why, located) is a hierarchy; one where no repository is found neither. With
 * `ref`, the repository must be there. How the CLI and the explorer tell a repository's URL.
 */
export async function icechunkAt(store: Readable, ref?: IcechunkRef): Promise<IcechunkStore | null> {
  if (ref === undefined) {
    const root = await Promise.resolve()
      .then(() => store.get("/zarr.json"))
      .catch(() => null);
    if (root !== undefined) return null;
  }
  try {
    return await IcechunkStore.open(store, ref ?? {});
  } catch (e) {
    if (ref === undefined && isZomError(e) && e.code === "NotFound") return null;
    throw e;
  }
}
