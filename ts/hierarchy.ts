/**
 * Opening and walking hierarchies in a store: `open`, `openArray`, `openGroup`, `walk`.
 * Which documents to fetch, in which order, and the walk itself run in WebAssembly over the
 * store; a store is a {@link FetchStore}, any object with zarrita's store shape, or a Map.
 * @module
 */
import * as raw from "./zom_wasm.js";
import type { RawNode, RawNodeFromZomOptions, RawOpenOptions, RawWalkOptions, RawWalkResult } from "./generated/boundary.js";
import { ZarrArray } from "./array.js";
import type { ArrayDefaults } from "./array.js";
import type { ChunkCache } from "./cache.js";
import { checkWorkers } from "./pool/settings.js";
import type { GetOptions } from "./array.js";
import { toZomError, ZomError } from "./errors.js";
import { withUnderstood } from "./extensions.js";
import { whenInit } from "./load.js";
import type { ByteRange, StoreCallOptions, StoreListing } from "./store/types.js";
import type { ArrayZom, Attributes, LimitsOptions, SpecInput, Zom } from "./types.js";

/**
 * A store zom reads from: zarrita's store shape. Keys are absolute ("/a/zarr.json");
 * `undefined` means missing. Without `getRange` whole values are fetched and cut; without
 * `list` hierarchies without consolidated metadata cannot be walked below their root.
 */
export interface Readable {
  get(key: string, options?: StoreCallOptions): Promise<Uint8Array | undefined> | Uint8Array | undefined;
  getRange?(key: string, range: ByteRange, options?: StoreCallOptions): Promise<Uint8Array | undefined>;
  list?(prefix: string, options?: StoreCallOptions): Promise<StoreListing | undefined>;
}

/** What zom accepts as a store: a {@link Readable}, or a Map of key (with or without a leading "/") → bytes, which also lists. */
export type StoreInput = Readable | Map<string, Uint8Array>;

/** What is known about the node to open: each hint saves requests. */
export interface OpenOptions {
  /** The node's kind; a node of the other kind throws "NotFound". */
  kind?: "array" | "group";
  /** The node's Zarr format: 3 asks only for zarr.json, 2 skips it. */
  format?: 2 | 3;
  /** Aborts the requests; the call rejects with a ZomError "Aborted". */
  signal?: AbortSignal;
  /**
   * Limits for this call (over those of `setLimits`): documents are parsed under
   * `maxDocumentBytes` and `maxJsonDepth`; an array keeps them as the defaults of its reads.
   */
  limits?: LimitsOptions;
  /**
   * The default decode workers of the arrays opened (through this call, or later through the
   * group it opens): see {@link GetOptions.workers}.
   */
  workers?: number;
  /**
   * A cache of decoded chunks that every array opened (through this call, or later through the
   * group it opens) reads through by default: see {@link ChunkCache} and {@link GetOptions.cache}.
   */
  cache?: ChunkCache;
}

/** A group of a hierarchy, opened with {@link open} or {@link openGroup}. */
export class ZarrGroup {
  /** Always "group". */
  readonly kind = "group" as const;
  /** The node path ("" for the store root, "a/b"). */
  readonly path: string;
  /** The user attributes. */
  readonly attributes: Attributes;
  /** The Zarr format. */
  readonly zarrFormat: 2 | 3;
  /** Whether the members came from consolidated metadata. */
  readonly consolidated: boolean;
  /** The names of the direct members when known (consolidated metadata), else `undefined`. */
  readonly members: string[] | undefined;
  readonly #store: StoreInput;
  readonly #defaults: ArrayDefaults;
  #zom: Zom | undefined;
  readonly #deferred: DeferredMembers | undefined;

  /** @internal Made by {@link open}. */
  constructor(store: StoreInput, path: string, zom: Zom, consolidated: boolean, defaults: ArrayDefaults = {}, deferred?: DeferredMembers) {
    this.#store = store;
    this.#defaults = defaults;
    this.#deferred = deferred;
    this.path = path;
    this.consolidated = consolidated;
    this.attributes = (zom.attributes ?? {}) as Attributes;
    this.zarrFormat = zom.zarr_format as 2 | 3;
    if (deferred !== undefined) {
      this.members = deferred.names();
    } else {
      this.#zom = zom;
      const members = (zom as { members?: { [name: string]: unknown } | null }).members;
      this.members = consolidated && members ? Object.keys(members) : undefined;
    }
  }

  /**
   * The group's ZOM node. With consolidated metadata it holds the whole subtree; otherwise
   * `members` is empty (use {@link walk} to list them). Consolidated metadata (a v3 group's
   * inline one, a v2 `.zmetadata`) is read into nodes on the first access (opening the group
   * only located each member's document), so a member's invalid metadata throws ZomError
   * "InvalidMetadata" here.
   */
  get zom(): Zom {
    if (this.#zom === undefined) {
      try {
        this.#zom = this.#deferred!.zom() as Zom;
      } catch (e) {
        throw toZomError(e);
      }
    }
    return this.#zom;
  }

  /**
   * Opens the node at `path` below this group ("a" or "a/b"). When the group came with
   * consolidated metadata that holds the node, no request is made (only that member and its
   * own members are read from it); otherwise it is {@link open} on the store, asking only for
   * the documents of this group's own Zarr format (a hierarchy is of one format; `format`
   * overrides it): a member of a v2 group costs one round trip.
   */
  async open(path: string, options: OpenOptions = {}): Promise<ZarrArray | ZarrGroup> {
    const relative = path.replace(/^\/+|\/+$/g, "");
    const full = [this.path, relative].filter((p) => p !== "").join("/");
    options = { format: this.zarrFormat, ...this.#defaults, ...options };
    checkWorkers(options.workers);
    let node: RawNode | undefined;
    try {
      node = this.#deferred !== undefined ? (this.#deferred.open(relative, withUnderstood(options) satisfies RawOpenOptions) as RawNode | undefined) : this.#fromZom(relative, full, options);
    } catch (e) {
      throw toZomError(e);
    }
    if (node === undefined) return open(this.#store, full, options);
    return fromRaw(this.#store, node, defaultsOf(options));
  }

  /** The member at `relative` from this group's ZOM (consolidated metadata read at open). */
  #fromZom(relative: string, full: string, options: OpenOptions): RawNode | undefined {
    const member = this.consolidated ? memberAt(this.zom, relative) : undefined;
    if (member === undefined) return undefined;
    return raw.nodeFromZom(this.#store, full, member, true, withUnderstood(options) satisfies RawNodeFromZomOptions) as RawNode;
  }
}

/**
 * A v3 group's consolidated members, not read yet (the WebAssembly `DeferredGroup`, typed here
 * so that the public declarations do not name the module's own).
 */
interface DeferredMembers {
  names(): string[];
  zom(): unknown;
  open(relative: string, options: unknown): unknown;
}

/** The member of a ZOM at a relative path, if the ZOM holds it. */
function memberAt(zom: Zom, path: string): Zom | undefined {
  let node: Zom | undefined = zom;
  for (const name of path.split("/").filter((s) => s !== "")) {
    const members: { [name: string]: Zom } | null | undefined = (node as { members?: { [name: string]: Zom } | null } | undefined)
      ?.members;
    node = members && Object.hasOwn(members, name) ? members[name] : undefined;
  }
  return node;
}

/** `path` when it is a string; a JS caller's other value is refused here, before it reaches the WebAssembly. */
function nodePath(path: unknown): string {
  if (typeof path === "string") return path;
  throw new ZomError("InvalidArgument", `a node path must be a string, got ${path === null ? "null" : typeof path} (the options come after the path: open(store, "", options))`);
}

/** What the arrays opened with `options` read with by default. */
function defaultsOf(options: OpenOptions): ArrayDefaults {
  return { workers: checkWorkers(options.workers), cache: options.cache };
}

function fromRaw(store: StoreInput, node: RawNode, defaults: ArrayDefaults): ZarrArray | ZarrGroup {
  if (node.kind === "array" && node.array !== undefined) return new ZarrArray(node.array, node.zom as ArrayZom, defaults);
  return new ZarrGroup(store, node.path, node.zom, node.consolidated, defaults, node.deferred);
}

/**
 * Opens the node at `path` (default: the store root) as a {@link ZarrArray} or a
 * {@link ZarrGroup}. Requests: v3 `zarr.json` first (one request; consolidated metadata
 * inline in it gives the whole tree, whose members are read when asked for: see
 * {@link ZarrGroup.open} and {@link ZarrGroup.zom}), else v2: at the root `.zmetadata` alone
 * (consolidated: the whole tree), then `.zgroup`, `.zarray` and `.zattrs` at once; below it
 * `.zarray`, `.zmetadata`, `.zgroup` and `.zattrs` at once (one round trip). `kind` and
 * `format` skip probes (`{kind: "array", format: 2}`: `.zarray` and `.zattrs` only;
 * `{format: 2}` on a consolidated v2 hierarchy: `.zmetadata` only).
 *
 * Throws ZomError "NotFound" (with the first key tried) when there is no node,
 * "InvalidMetadata" (with the document's key) for a broken document.
 */
export async function open(store: StoreInput, path = "", options: OpenOptions = {}): Promise<ZarrArray | ZarrGroup> {
  await whenInit();
  const defaults = defaultsOf(options);
  let node: RawNode;
  try {
    node = (await raw.openNode(store, nodePath(path), withUnderstood(options) satisfies RawOpenOptions)) as RawNode;
  } catch (e) {
    throw toZomError(e);
  }
  return fromRaw(store, node, defaults);
}

/** Opens the array at `path` ("NotFound" when there is a group or nothing). */
export async function openArray(store: StoreInput, path = "", options: Omit<OpenOptions, "kind"> = {}): Promise<ZarrArray> {
  return (await open(store, path, { ...options, kind: "array" })) as ZarrArray;
}

/** Opens the group at `path` ("NotFound" when there is an array or nothing). */
export async function openGroup(store: StoreInput, path = "", options: Omit<OpenOptions, "kind"> = {}): Promise<ZarrGroup> {
  return (await open(store, path, { ...options, kind: "group" })) as ZarrGroup;
}

/** Progress of a walk. */
export interface WalkProgress {
  /** Nodes found so far. */
  nodes: number;
  /** Requests queued or in flight. */
  pending: number;
  /** Per-node errors so far. */
  errors: number;
  /**
   * The paths of the nodes found since the last call, relative to the start node ("" for it):
   * the tree as it arrives.
   */
  found: string[];
}

/** Options of {@link walk}. */
export interface WalkOptions {
  /** The node to start at (default: the store root). */
  path?: string;
  /** Levels below the start node to visit (default: all; 0: the start node only). */
  depth?: number;
  /**
   * Most store requests in flight (default 256: a level of a hierarchy is asked for at once,
   * and the store and the HTTP stack queue what they must).
   */
  concurrency?: number;
  /**
   * Which specs' rules say what paths a group's metadata names, to be asked for directly (an
   * OME-Zarr multiscale's datasets, a plate's wells, …): `true` or absent, the built-in
   * conventions; `false`, none (members only from consolidated metadata and listings); or
   * specs as `validateHierarchy`'s `specs` takes them (your own spec's `members` and
   * `references` are followed too).
   */
  follow?: boolean | SpecInput | SpecInput[];
  /** Called after each request. */
  onProgress?: (progress: WalkProgress) => void;
  /** Aborts the walk; it rejects with a ZomError "Aborted". */
  signal?: AbortSignal;
  /** The start node's kind, if known. */
  kind?: "array" | "group";
  /** The hierarchy's Zarr format, if known (saves probes). */
  format?: 2 | 3;
  /** Limits for this walk (over those of `setLimits`): `maxNodes`, `maxDocumentBytes`, `maxJsonDepth`. */
  limits?: LimitsOptions;
}

/** What a walk found besides the tree: non-enumerable properties of the ZOM {@link walk} returns. */
export interface WalkReport {
  /**
   * Nodes that could not be read (broken documents, failed requests), each a ZomError with
   * `code`, `path` and `key` (relative to the store root). They are missing from the ZOM.
   */
  readonly errors: ZomError[];
  /**
   * Groups whose members could not be listed and whose metadata names none (node paths):
   * their `members` are empty.
   */
  readonly unlisted: string[];
  /** Paths metadata names below the `depth` walked: not asked for, so not known. */
  readonly unasked: string[];
  /** Whether consolidated metadata gave the whole tree (one request for v3). */
  readonly consolidated: boolean;
}

/**
 * The ZOM a walk returns: plain ZOM JSON (what `stringify` and `JSON.stringify` write), with
 * the walk's {@link WalkReport} beside it as non-enumerable properties.
 */
export type WalkResult = Zom & WalkReport;

/**
 * The ZOM of a whole hierarchy (`const tree = await walk(store)`), with
 * `tree.errors`, `tree.unlisted` and `tree.consolidated` beside it.
 *
 * Children come from consolidated metadata when the start node has it (v3 inline, v2
 * `.zmetadata`); otherwise from what each group's metadata names (`follow`: an OME-Zarr
 * image's datasets and labels, a plate's wells, a well's fields…), asked for directly, and
 * from the store's `list` where it can (FetchStore: S3 ListObjectsV2 or an HTML directory
 * index; a Map lists its keys). A level of the hierarchy is asked for at once, up to
 * `concurrency` requests. Nodes that fail are reported in `errors` and the rest of the tree is
 * returned; groups that cannot be listed and whose metadata names nothing are reported in
 * `unlisted`, not guessed. Throws only when the start node cannot be opened, on abort, or past `limits.maxNodes`
 * nodes ("LimitExceeded").
 */
export async function walk(store: StoreInput, options: WalkOptions = {}): Promise<WalkResult> {
  await whenInit();
  let result: RawWalkResult;
  try {
    result = (await raw.walkHierarchy(store, nodePath(options.path ?? ""), options satisfies RawWalkOptions)) as RawWalkResult;
  } catch (e) {
    throw toZomError(e);
  }
  const report = {
    errors: { value: result.errors.map((e) => toZomError(e) as ZomError) },
    unlisted: { value: result.unlisted },
    unasked: { value: result.unasked },
    consolidated: { value: result.consolidated },
  };
  return Object.defineProperties(result.zom, report) as WalkResult;
}
