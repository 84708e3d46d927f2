/**
 * `slice()`: Python-style slices for selections, as zarrita writes them.
 * @module
 */

/** A slice of one dimension: `start` (inclusive) to `stop` (exclusive) by `step`; `null` takes Python's default. */
export interface Slice {
  start: number | null;
  stop: number | null;
  step: number | null;
}

/** One dimension of a selection: an index (negative counts from the end), a slice, or `null` for all of it. */
export type DimSelection = number | Slice | null;

/**
 * A selection: one entry per leading dimension (missing trailing entries select whole
 * dimensions); `null` or `undefined` selects everything.
 */
export type Selection = DimSelection[] | null | undefined;

/**
 * A slice, as Python writes `a[start:stop:step]` (negative values count from the end, bounds
 * are clamped, a negative step walks backwards).
 *
 * - `slice(10)`: `0..10` (like Python's `slice(10)`)
 * - `slice(null)`: the whole dimension
 * - `slice(2, null)`: from 2 to the end; `slice(-3, null)`: the last three
 * - `slice(0, 100, 10)`: every tenth of the first hundred
 */
export function slice(stop: number | null): Slice;
export function slice(start: number | null, stop: number | null, step?: number | null): Slice;
export function slice(start: number | null, stop?: number | null, step: number | null = null): Slice {
  if (stop === undefined) return { start: null, stop: start, step: null };
  return { start, stop, step };
}
