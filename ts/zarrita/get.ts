/**
 * zarrita's `get` and `slice`: a selection read by zom's core, answered as zarrita answers
 * (`{ data, shape, stride }`, or a scalar when every dimension is indexed by an integer).
 * @module
 */
import type { Selection, Slice } from "../read/slice.js";
import { InvalidSelectionError } from "./errors.js";
import type { Array } from "./hierarchy.js";
import { READ } from "./hierarchy.js";
import type { Chunk, DataType, Readable, Scalar } from "./types.js";

export type { Slice };

/** Options of {@link get}. */
export interface GetOptions {
  /** Aborts the read: it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The values in a SharedArrayBuffer (numeric, bool and fixed-length string data types). */
  useSharedArrayBuffer?: boolean;
  /** Accepted and not used: zom schedules the chunk requests and decodes itself. */
  createQueue?: () => unknown;
  /** @deprecated zarrita's older place of `signal` (both abort when both are given). */
  opts?: { signal?: AbortSignal };
}

/** One dimension of a selection: an index, a {@link slice}, or `null` for all of it. */
type DimSelection = number | Slice | null;

/** The result of {@link get}: a scalar when the selection is all integers (or the array has no dimensions). */
type GetResult<D extends DataType, Sel> = Sel extends readonly number[] ? Scalar<D> : Chunk<D>;

function toNumber(v: number | bigint | null): number | null {
  if (typeof v !== "bigint") return v;
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER))
    throw new InvalidSelectionError(`Cannot safely convert ${v} to a number`);
  return Number(v);
}

/** A slice, as Python writes `a[start:stop:step]` (bigints accepted, as zarrita does). */
export function slice(stop: number | bigint | null): Slice;
export function slice(start: number | bigint | null, stop?: number | bigint | null, step?: number | bigint | null): Slice;
export function slice(start: number | bigint | null, stop?: number | bigint | null, step: number | bigint | null = null): Slice {
  if (stop === undefined) return { start: null, stop: toNumber(start), step: null };
  return { start: toNumber(start), stop: toNumber(stop), step: toNumber(step) };
}

function signalOf(options: GetOptions): AbortSignal | undefined {
  const a = options.signal;
  const b = options.opts?.signal;
  return a !== undefined && b !== undefined ? AbortSignal.any([a, b]) : (a ?? b);
}

/**
 * Reads a selection of `arr`: `null` (or nothing) for all of it, else one entry per dimension.
 * `options` may also be an AbortSignal (an older calling convention some viewers use).
 */
export async function get<D extends DataType, Store extends Readable, Sel extends DimSelection[]>(
  arr: Array<D, Store>,
  selection: Sel | null = null,
  options: GetOptions | AbortSignal = {},
): Promise<GetResult<D, Sel>> {
  const opts: GetOptions = options instanceof AbortSignal ? { signal: options } : (options ?? {});
  const sel: Selection =
    selection === null
      ? null
      : selection.map((s) =>
          s !== null && typeof s === "object"
            ? { start: toNumber(s.start), stop: toNumber(s.stop), step: toNumber(s.step) }
            : typeof s === "bigint"
              ? toNumber(s)
              : s,
        );
  const result = await arr[READ](sel, { signal: signalOf(opts), useSharedArrayBuffer: opts.useSharedArrayBuffer });
  return result as GetResult<D, Sel>;
}
