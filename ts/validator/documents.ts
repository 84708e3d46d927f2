/**
 * ZOM → documents, which the reader and the validator both have (zom/zarrita's consolidated
 * store serves them without the validator), and how a ZOM crosses into the module (as JSON
 * text when it is plain JSON data).
 * @module
 */
import type { RawToDocumentsOptions } from "../generated/boundary.js";
import { shared } from "../parts/shared.js";
import { converting } from "../shared/errors.js";
import type { ToDocumentsOptions, Zom } from "../shared/types.js";

/** Deeper than this, a value is not checked as plain JSON (it goes as an object). */
const PLAIN_DEPTH = 256;

/**
 * Whether `JSON.stringify` writes `value` as zom reads the value itself: strings, booleans,
 * safe integers other than -0, non-integer finite numbers, null, arrays and plain objects
 * (`undefined` members, which it leaves out). Not: NaN, -0, large integers and BigInt, which
 * zom reads exactly or refuses; Maps, typed arrays, class instances, functions, inherited
 * members, and anything nested deeper than {@link PLAIN_DEPTH}.
 */
function isPlain(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return true;
    case "number":
      // Integers as JS holds them exactly; other integers (written without an exponent below
      // 1e21) would read as 64-bit integers where zom reads the number as a float.
      return Number.isSafeInteger(value) ? !Object.is(value, -0) : Number.isFinite(value) && !Number.isInteger(value);
    case "object": {
      if (value === null) return true;
      if (depth >= PLAIN_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlain(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!Object.hasOwn(value, key) || !isPlain((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * The JSON text of a value made of plain JSON data (what fromDocuments and walk return), or
 * `undefined` when it holds anything else: values the module reads by its own rules (BigInt,
 * Maps) or refuses with its own errors. Checked first and written by `JSON.stringify` without
 * a replacer, which is faster than one that checks each value as it is written.
 */
export function plainJson(value: unknown): string | undefined {
  if (!isPlain(value, 0)) return undefined;
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls `fn` with each ZOM as the bytes of its JSON text when every one is plain JSON data:
 * the module reads text in one crossing, an object one value at a time (docs/benchmarks.md,
 * "Values across the boundary"). When that way throws (a text over the limits, or a bad ZOM), `fn` is
 * called again with the values as given, so that results and errors are the same either way.
 */
export function withZomText<T>(zoms: unknown[], fn: (zoms: unknown[]) => T): T {
  const texts = zoms.map((z) => (typeof z === "string" ? z : plainJson(z)));
  if (texts.every((t) => t !== undefined)) {
    const encoder = new TextEncoder();
    try {
      return fn(texts.map((t) => encoder.encode(t)));
    } catch {
      // The values as given decide the result or the error.
    }
  }
  return fn(zoms);
}

/** The metadata documents of a ZOM, by store key, as JSON text bytes the way zarr-python writes them. */
export function toDocuments(zom: Zom, options: ToDocumentsOptions = {}): Map<string, Uint8Array> {
  return new Map(
    converting<[string, Uint8Array][]>(() => withZomText([zom], ([z]) => shared().toDocuments(z, options satisfies RawToDocumentsOptions))),
  );
}
