/**
 * Opening nodes of hierarchies in a store: `open`, `openArray`, `openGroup` (walking a whole
 * hierarchy is "zom/validate"'s `walk`). Which documents to fetch, in which order, run in
 * WebAssembly over the store; a store is a {@link FetchStore}, any object with zarrita's store shape, or a Map.
 * @module
 */

import type { RawNode, RawNodeFromZomOptions, RawOpenOptions } from "../generated/boundary.js";
import { FIRST_DOCUMENT } from "../generated/boundary.js";
import { isInitialized, whenInit } from "../parts/reader.js";
import { limitInForce } from "../parts/shared.js";
import { checkWorkers } from "../pool/settings.js";
import { nodePath, toZomError } from "../shared/errors.js";
import { withUnderstood } from "../shared/extensions.js";
import type { ArrayZom, Attributes, LimitsOptions, Zom } from "../shared/types.js";
import type { Readable, StoreInput } from "../store/readable.js";
import * as raw from "../zom_wasm.js";
import type { ArrayDefaults, GetOptions } from "./array.js";
import { ZarrArray } from "./array.js";
import type { ChunkCache } from "./cache.js";

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
      node =
        this.#deferred !== undefined
          ? (this.#deferred.open(relative, withUnderstood(options) satisfies RawOpenOptions) as RawNode | undefined)
          : this.#fromZom(relative, full, options);
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
    const members: { [name: string]: Zom } | null | undefined = (node as { members?: { [name: string]: Zom } | null } | undefined)?.members;
    node = members && Object.hasOwn(members, name) ? members[name] : undefined;
  }
  return node;
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
  const early = isInitialized() ? store : askingEarly(store, path, options);
  await whenInit();
  const defaults = defaultsOf(options);
  let node: RawNode;
  try {
    node = (await raw.openNode(early, nodePath(path), withUnderstood(options) satisfies RawOpenOptions)) as RawNode;
  } catch (e) {
    throw toZomError(e);
  }
  return fromRaw(store, node, defaults);
}

/** A node path in the core's normal form (no leading, trailing or doubled "/", no "." or ".."). */
const NORMAL_PATH = /^(?:(?!\.\.?(?:\/|$))[^/]+(?:\/(?!\.\.?(?:\/|$))[^/]+)*)?$/;

/**
 * While the module loads, asks a store for the document the core's open will ask for first
 * (`FIRST_DOCUMENT`, unless `format: 2` is given), so that its round trip overlaps the compile:
 * the store given back answers that one request from it, once, and passes every other call on.
 * A Map, or a path not in normal form, is passed on as it is.
 */
function askingEarly(store: StoreInput, path: unknown, options: OpenOptions): StoreInput {
  if (store instanceof Map || options.format === 2 || typeof path !== "string" || !NORMAL_PATH.test(path)) return store;
  if (typeof store !== "object" || store === null || typeof store.get !== "function") return store;
  const key = `/${path === "" ? "" : `${path}/`}${FIRST_DOCUMENT}`;
  // As the core asks for a metadata document: bounded by maxDocumentBytes.
  const maxBytes = options.limits?.maxDocumentBytes ?? limitInForce("maxDocumentBytes");
  let early: Promise<Uint8Array | undefined> | undefined = Promise.resolve().then(() =>
    store.get(key, { signal: options.signal, maxBytes }),
  );
  early.catch(() => {}); // its failure is the open's, when the core asks for it
  const passOn: Readable = {
    get(k, o) {
      if (k === key && early !== undefined) {
        const answer = early;
        early = undefined;
        return answer;
      }
      return store.get(k, o);
    },
  };
  if (typeof store.getRange === "function") passOn.getRange = (k, r, o) => store.getRange!(k, r, o);
  if (typeof store.list === "function") passOn.list = (p, o) => store.list!(p, o);
  return passOn;
}

/** Opens the array at `path` ("NotFound" when there is a group or nothing). */
export async function openArray(store: StoreInput, path = "", options: Omit<OpenOptions, "kind"> = {}): Promise<ZarrArray> {
  return (await open(store, path, { ...options, kind: "array" })) as ZarrArray;
}

/** Opens the group at `path` ("NotFound" when there is an array or nothing). */
export async function openGroup(store: StoreInput, path = "", options: Omit<OpenOptions, "kind"> = {}): Promise<ZarrGroup> {
  return (await open(store, path, { ...options, kind: "group" })) as ZarrGroup;
}
