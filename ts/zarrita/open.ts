/**
 * zarrita's `open` (and `open.v2`, `open.v3`) over zom's: zom decides which documents to ask
 * for (v3 `zarr.json` first, then the v2 documents in one round trip) and reads them.
 * @module
 */

import { ZarrArray } from "../read/array.js";
import type { ZarrGroup } from "../read/hierarchy.js";
import { open as zomOpen } from "../read/hierarchy.js";
import type { StoreInput } from "../store/readable.js";
import { FORMAT } from "./consolidated.js";
import { toZarritaError } from "./errors.js";
import { Array, Group, Location, nodePath } from "./hierarchy.js";
import type { AbsolutePath, DataType, Readable } from "./types.js";

/** Options of {@link open}. */
export interface OpenOptions {
  /** The node's kind: a node of the other kind throws NotFoundError. */
  kind?: "array" | "group";
  /** false: a v2 node's `.zattrs` is not reported (`attrs` is `{}`). zom still asks for it in the same round trip. */
  attrs?: boolean;
  /** Aborts the requests: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of {@link open.v3}: `attrs` does not apply (v3 attributes are in zarr.json). */
export type OpenV3Options = Omit<OpenOptions, "attrs">;

type Opened<Store extends Readable> = Array<DataType, Store> | Group<Store>;

interface ArrayExtensible {
  arrayExtensions?: ReadonlyArray<(array: Array<DataType, Readable>) => Array<DataType, Readable> | Promise<Array<DataType, Readable>>>;
}

async function openAs<Store extends Readable>(
  location: Location<Store> | Store,
  options: OpenOptions,
  format: 2 | 3 | undefined,
): Promise<Opened<Store>> {
  const loc = typeof location === "object" && location !== null && "store" in location ? location : new Location(location as Store);
  const { kind, signal } = options;
  // A store with consolidated metadata holds the documents of its format only.
  format ??= (loc.store as { [FORMAT]?: 2 | 3 })[FORMAT];
  let node: ZarrArray | ZarrGroup;
  try {
    signal?.throwIfAborted();
    node = await zomOpen(loc.store as unknown as StoreInput, nodePath(loc.path), {
      ...(kind === undefined ? {} : { kind }),
      ...(format === undefined ? {} : { format }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (e) {
    throw toZarritaError(e, { signal, path: loc.path, kind, format });
  }
  const path = loc.path as AbsolutePath;
  if (!(node instanceof ZarrArray)) {
    const attrs = options.attrs === false && node.zarrFormat === 2 ? {} : node.attributes;
    return Group.opened(loc.store, path, attrs);
  }
  let array = Array.opened(loc.store, path, node, options.attrs !== false);
  // Array extensions a store extension brought (zarrita's `arrayExtensions`), innermost first.
  for (const extend of (loc.store as ArrayExtensible).arrayExtensions ?? [])
    array = (await extend(array as Array<DataType, Readable>)) as Array<DataType, Store>;
  return array;
}

/** Opens the array or group at a location (or a store's root); `kind` requires one. */
function open<Store extends Readable>(location: Location<Store> | Store, options: OpenOptions & { kind: "group" }): Promise<Group<Store>>;
function open<Store extends Readable>(
  location: Location<Store> | Store,
  options: OpenOptions & { kind: "array" },
): Promise<Array<DataType, Store>>;
function open<Store extends Readable>(location: Location<Store> | Store, options?: OpenOptions): Promise<Opened<Store>>;
function open<Store extends Readable>(location: Location<Store> | Store, options: OpenOptions = {}): Promise<Opened<Store>> {
  return openAs(location, options, undefined);
}

/** Opens a Zarr v2 array or group only (no zarr.json is asked for). */
function openV2<Store extends Readable>(location: Location<Store> | Store, options: OpenOptions & { kind: "group" }): Promise<Group<Store>>;
function openV2<Store extends Readable>(
  location: Location<Store> | Store,
  options: OpenOptions & { kind: "array" },
): Promise<Array<DataType, Store>>;
function openV2<Store extends Readable>(location: Location<Store> | Store, options?: OpenOptions): Promise<Opened<Store>>;
function openV2<Store extends Readable>(location: Location<Store> | Store, options: OpenOptions = {}): Promise<Opened<Store>> {
  return openAs(location, options, 2);
}

/** Opens a Zarr v3 array or group only (only zarr.json is asked for). */
function openV3<Store extends Readable>(
  location: Location<Store> | Store,
  options: OpenV3Options & { kind: "group" },
): Promise<Group<Store>>;
function openV3<Store extends Readable>(
  location: Location<Store> | Store,
  options: OpenV3Options & { kind: "array" },
): Promise<Array<DataType, Store>>;
function openV3<Store extends Readable>(location: Location<Store> | Store, options?: OpenV3Options): Promise<Opened<Store>>;
function openV3<Store extends Readable>(location: Location<Store> | Store, options: OpenV3Options = {}): Promise<Opened<Store>> {
  return openAs(location, options, 3);
}

open.v2 = openV2;
open.v3 = openV3;

export { open };
