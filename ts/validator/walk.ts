/**
 * Walking a whole hierarchy in a store ("zom/validate"): `walk`. Which documents to fetch, what
 * each group's metadata names, and the walk itself run in the validator's WebAssembly part
 * over the store.
 * @module
 */

import type { RawWalkOptions, RawWalkResult } from "../generated/boundary.js";
import { whenTools } from "../parts/validator.js";
import { nodePath, toZomError, type ZomError } from "../shared/errors.js";
import type { LimitsOptions, SpecInput, Zom } from "../shared/types.js";
import type { StoreInput } from "../store/readable.js";
import * as raw from "../zom_tools.js";

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
  await whenTools();
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
