/**
 * The rest of zarrita's exports: `select` and the `_zarrita_internal_*` helpers that libraries
 * built on zarrita import (in their 0.7 and 0.6 spellings), and zarrita 0.6's error classes.
 * A slice's bounds are computed by zom's core, by the rule its selections use.
 * @module
 */

import { requireInit } from "../parts/reader.js";
import { converting } from "../shared/errors.js";
import * as raw from "../zom_wasm.js";
import { InvalidSelectionError, NotFoundError, toZarritaError } from "./errors.js";
import { set } from "./extension.js";
import type { GetOptions, Slice } from "./get.js";
import { get } from "./get.js";

export { getStrides } from "./layout.js";

import type { Array } from "./hierarchy.js";
import type { Chunk, DataType, Readable } from "./types.js";

/**
 * A selection by dimension name: `{ y: slice(0, 10), c: 0 }` becomes the positional selection
 * of `arr`'s `dimensionNames` (`null` for a name not given).
 */
export function select<D extends DataType, S extends Readable>(
  arr: Array<D, S>,
  selection: Record<string, number | Slice | null>,
): (number | Slice | null)[] {
  const names = arr.dimensionNames;
  if (!names) throw new InvalidSelectionError("Array does not have dimension_names in its metadata.");
  for (const key of Object.keys(selection)) {
    if (!names.includes(key)) {
      throw new InvalidSelectionError(`Unknown dimension name: "${key}". Available dimensions: ${names.map((n) => `"${n}"`).join(", ")}`);
    }
  }
  return names.map((name) => selection[name] ?? null);
}

/** Python's `slice.indices(length)`: `[start, stop, step]` of `s` in a dimension of `length`. */
export function sliceIndices(s: Slice, length: number): [number, number, number] {
  requireInit();
  try {
    return converting<[number, number, number]>(() =>
      raw.sliceIndices(s.start ?? undefined, s.stop ?? undefined, s.step ?? undefined, length),
    );
  } catch (e) {
    throw toZarritaError(e);
  }
}

/** What zarrita's internal `get` is given to build its output (zarrita's "setter"). */
export interface Setter<Out> {
  prepare(data: unknown, shape: number[], stride: number[]): Out;
}

/**
 * zarrita's internal `get`: reads `selection` of `arr` and, when `setter` is given, answers
 * `setter.prepare(data, shape, stride)` of the result (the form a library's setter builds, an
 * ndarray for instance); a scalar selection answers the value.
 */
export async function internalGet<D extends DataType, S extends Readable, Out>(
  arr: Array<D, S>,
  selection: (number | Slice | null)[] | null,
  options: GetOptions = {},
  setter?: Setter<Out>,
): Promise<Out | Chunk<D> | unknown> {
  const result = await get(arr, selection, options);
  if (setter === undefined || result === null || typeof result !== "object" || !("stride" in result)) return result;
  const { data, shape, stride } = result as Chunk<D>;
  return setter.prepare(data, shape, stride);
}

/** zarrita's internal `set`: writing, which zom/zarrita does not do (rejects with UnsupportedError). */
export const internalSet: (...args: unknown[]) => Promise<never> = set;

/**
 * zarrita 0.6's "node not found" error. zom/zarrita throws {@link NotFoundError}, which is an
 * instance of this class too, so that 0.6-era `instanceof NodeNotFoundError` checks hold.
 */
export class NodeNotFoundError extends NotFoundError {
  constructor(context: string, options: { cause?: unknown } = {}) {
    super(context, options);
  }
  static override [Symbol.hasInstance](x: unknown): boolean {
    return x instanceof NotFoundError;
  }
}

/** zarrita 0.6's missing-key error (the `cause` of its NodeNotFoundError). */
export class KeyError extends Error {
  override readonly name = "KeyError";
  constructor(path: string) {
    super(`Missing key: ${path}`);
  }
}

/**
 * zarrita 0.6's selection error. zom/zarrita throws {@link InvalidSelectionError}, which is an
 * instance of this class too.
 */
export class IndexError extends InvalidSelectionError {
  static override [Symbol.hasInstance](x: unknown): boolean {
    return x instanceof InvalidSelectionError;
  }
}
