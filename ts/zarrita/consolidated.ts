/**
 * zarrita's `withConsolidatedMetadata` and `withMaybeConsolidatedMetadata` (and their older
 * names): the consolidated metadata is read by zom (`open` of the root group, v3 inline or v2
 * `.zmetadata`), and the store wrapper serves every node's documents from it.
 * @module
 */

import type { RawToDocumentsOptions } from "../generated/boundary.js";
import { open as zomOpen } from "../read/hierarchy.js";
import { converting, isZomError } from "../shared/errors.js";
import type { Zom } from "../shared/types.js";
import { isMetadataKey } from "../store/fetch.js";
import type { StoreInput } from "../store/readable.js";
import { withZomText } from "../validator/documents.js";
import * as raw from "../zom_wasm.js";
import { InvalidMetadataError, NotFoundError, toZarritaError } from "./errors.js";
import { wrap } from "./extension.js";
import type { AbsolutePath, AsyncReadable, GetOptions, Readable } from "./types.js";

/** The format of consolidated metadata. */
export type ConsolidatedFormat = "v2" | "v3";

/** Options of {@link withConsolidatedMetadata}. */
export interface ConsolidatedMetadataOptions {
  /** The format(s) to try, in order (default: v3, then v2). */
  readonly format?: ConsolidatedFormat | ConsolidatedFormat[];
  /** Only ".zmetadata" is read (zom reads no other key). */
  readonly metadataKey?: string;
}

/** A store with consolidated metadata, and the nodes it lists. */
export type Listable<Store extends Readable> = Store & {
  contents(): { path: AbsolutePath; kind: "array" | "group" }[];
};

/** The consolidated tree at the root of `store` in `format`, or why there is none. */
async function consolidatedTree(store: Readable, format: ConsolidatedFormat): Promise<Zom> {
  let group: Awaited<ReturnType<typeof zomOpen>> | undefined;
  try {
    group = await zomOpen(store as unknown as StoreInput, "", { kind: "group", format: format === "v2" ? 2 : 3 });
  } catch (e) {
    // No group at the root (nothing, or an array) is no consolidated metadata, as zarrita says.
    if (!isZomError(e) || e.code !== "NotFound") throw toZarritaError(e, { path: "/" });
  }
  if (group === undefined || !("consolidated" in group) || !group.consolidated) {
    throw new NotFoundError(`${format} consolidated metadata`, { path: format === "v2" ? "/.zmetadata" : "/zarr.json" });
  }
  return group.zom;
}

/**
 * `store` with its consolidated metadata: metadata documents of the nodes it holds are answered
 * from memory, everything else (and `getRange`) goes to `store`. Throws NotFoundError when there
 * is none.
 */
export async function withConsolidatedMetadata<Store extends Readable>(
  store: Store,
  options: ConsolidatedMetadataOptions = {},
): Promise<Listable<Store>> {
  const formats =
    options.format === undefined ? (["v3", "v2"] as const) : typeof options.format === "string" ? [options.format] : options.format;
  if (options.metadataKey !== undefined && options.metadataKey !== ".zmetadata") {
    throw new InvalidMetadataError(`consolidated metadata is read from .zmetadata only, not ${options.metadataKey}`);
  }
  let last: unknown = new NotFoundError("consolidated metadata", { path: "/" });
  for (const format of formats) {
    let tree: Zom;
    try {
      tree = await consolidatedTree(store, format);
    } catch (e) {
      if (!(e instanceof NotFoundError || e instanceof InvalidMetadataError)) throw e;
      last = e;
      continue;
    }
    // The documents, and each node's kind as the core tells it (not read again from them), from
    // one crossing of the tree (a consolidated one can be large).
    const [documents, kinds] = converting<[[string, Uint8Array][], [string, "array" | "group"][]]>(() =>
      withZomText([tree], ([z]) => [raw.toDocuments(z, {} satisfies RawToDocumentsOptions), raw.nodeKinds(z)]),
    );
    const known = new Map<string, Uint8Array>();
    for (const [key, bytes] of documents) if (isMetadataKey(key)) known.set(`/${key}`, bytes);
    return consolidatedStore(store, known, kinds, format === "v2" ? 2 : 3);
  }
  throw last;
}

/** The Zarr format of a store {@link withConsolidatedMetadata} made: `open` asks for its documents only. @internal */
export const FORMAT: unique symbol = Symbol("zom/zarrita consolidated format");

function consolidatedStore<Store extends Readable>(
  store: Store,
  known: Map<string, Uint8Array>,
  kinds: [string, "array" | "group"][],
  format: 2 | 3,
): Listable<Store> {
  const get = async (key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined> => {
    const doc = known.get(key);
    if (doc !== undefined) return doc.slice();
    return (store as AsyncReadable).get(key, options);
  };
  const nodes = kinds.map(([path, kind]) => ({ path: `/${path}` as AbsolutePath, kind }));
  const contents = () => nodes.map((n) => ({ ...n }));
  // The store's own methods run on the store itself (private fields and all).
  return wrap(store, { get, contents, [FORMAT]: format }) as Listable<Store>;
}

/** {@link withConsolidatedMetadata}, or `store` itself when it has no consolidated metadata. */
export async function withMaybeConsolidatedMetadata<Store extends Readable>(
  store: Store,
  options: ConsolidatedMetadataOptions = {},
): Promise<Listable<Store> | Store> {
  try {
    return await withConsolidatedMetadata(store, options);
  } catch (e) {
    if (e instanceof NotFoundError || e instanceof InvalidMetadataError) return store;
    throw e;
  }
}

/** zarrita's older name of {@link withConsolidatedMetadata}. */
export const withConsolidated = withConsolidatedMetadata;
/** zarrita's older name of {@link withMaybeConsolidatedMetadata}. */
export const tryWithConsolidated = withMaybeConsolidatedMetadata;
