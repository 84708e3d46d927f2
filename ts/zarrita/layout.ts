/**
 * The layouts zarrita gives values in: an array's values come in the order its chunks store
 * them (a `transpose` codec's, or v2's `order: "F"`), with the strides of that order. zom's
 * core answers in C order; these copy its answer into the stored order.
 * @module
 */

import type { AnyData } from "./typedarray.js";
import { allocLike, copyElement } from "./typedarray.js";

/** A memory order: "C", "F", or a permutation of the dimensions from slowest to fastest varying. */
export type Order = "C" | "F" | readonly number[];

/** The strides (in elements) of an array of `shape` laid out in `order`. */
export function getStrides(shape: readonly number[], order: Order): number[] {
  const rank = shape.length;
  const perm = typeof order === "string" ? globalThis.Array.from({ length: rank }, (_, i) => (order === "C" ? i : rank - 1 - i)) : order;
  if (perm.length !== rank) throw new Error("Order length must match the number of dimensions.");
  const stride = new globalThis.Array<number>(rank);
  let step = 1;
  for (let i = rank - 1; i >= 0; i--) {
    const dim = perm[i] as number;
    stride[dim] = step;
    step *= shape[dim] as number;
  }
  return stride;
}

/**
 * The order of a read's output that keeps the array's dimensions `axes` (the others indexed by
 * an integer): a permutation is narrowed to them, keeping their relative order, as zarrita does.
 */
export function projectOrder(order: Order, axes: readonly number[]): Order {
  if (typeof order === "string") return order;
  const rank = new Map(axes.map((axis, i) => [axis, i]));
  return order.filter((axis) => rank.has(axis)).map((axis) => rank.get(axis) as number);
}

/** `values` (in C order of `shape`) copied into the layout of `stride`; the same array when that is C order. */
export function relayout(values: AnyData, shape: readonly number[], stride: readonly number[]): AnyData {
  const n = shape.reduce((a, b) => a * b, 1);
  const c = getStrides(shape, "C");
  if (n <= 1 || stride.every((s, d) => s === c[d] || (shape[d] as number) <= 1)) return values;
  const width = Math.max(1, Math.round(values.length / n));
  const out = allocLike(values, n, width);
  const rank = shape.length;
  const index = new globalThis.Array<number>(rank).fill(0);
  let to = 0;
  for (let from = 0; from < n; from++) {
    copyElement(values, from, out, to, width);
    for (let d = rank - 1; d >= 0; d--) {
      const step = stride[d] as number;
      const next = (index[d] as number) + 1;
      if (next < (shape[d] as number)) {
        index[d] = next;
        to += step;
        break;
      }
      to -= step * ((shape[d] as number) - 1);
      index[d] = 0;
    }
  }
  return out;
}
