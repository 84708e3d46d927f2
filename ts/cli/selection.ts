/**
 * The CLI's SELECTION argument, NumPy's basic-indexing syntax (`0:10,3,:`, `::2`, `-5:`,
 * `...`), parsed into the package's selection objects. Only the syntax is read here: bounds,
 * negative indices and steps are interpreted by the selection code in WebAssembly.
 * @module
 */

import type { DimSelection } from "../read/slice.js";
import { slice } from "../read/slice.js";

/** A SELECTION that cannot be parsed; the CLI reports it as a usage error. */
export class SelectionSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectionSyntaxError";
  }
}

/** A selection as parsed: its entries, with the position of a `...` (if any) to expand. */
export interface ParsedSelection {
  /** The entries before and after `...`, in order. */
  entries: DimSelection[];
  /** Where `...` stood among `entries` (it selects every dimension the others leave), or null. */
  ellipsisAt: number | null;
}

function integer(text: string, what: string, whole: string): number {
  if (!/^[+-]?\d+$/.test(text)) {
    throw new SelectionSyntaxError(`${what} '${text}' in selection '${whole}' is not an integer`);
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new SelectionSyntaxError(`${what} '${text}' in selection '${whole}' is too large`);
  return n;
}

/** An optional slice bound: empty means Python's default (null). */
function bound(text: string, what: string, whole: string): number | null {
  const t = text.trim();
  return t === "" ? null : integer(t, what, whole);
}

/**
 * Parses a SELECTION: comma-separated entries, each an integer index (`3`, `-1`), a slice
 * `start:stop[:step]` with any part left out (`:`, `::2`, `-5:`), or `...` (at most once) for
 * all the dimensions the other entries leave. Surrounding brackets and spaces are allowed;
 * an empty string selects everything.
 */
export function parseSelection(text: string): ParsedSelection {
  let body = text.trim();
  if (body.startsWith("[") && body.endsWith("]")) body = body.slice(1, -1).trim();
  if (body === "") return { entries: [], ellipsisAt: null };
  const entries: DimSelection[] = [];
  let ellipsisAt: number | null = null;
  for (const raw of body.split(",")) {
    const part = raw.trim();
    if (part === "...") {
      if (ellipsisAt !== null) throw new SelectionSyntaxError(`selection '${text}' has more than one '...'`);
      ellipsisAt = entries.length;
      continue;
    }
    if (part === "") throw new SelectionSyntaxError(`selection '${text}' has an empty entry`);
    const pieces = part.split(":");
    if (pieces.length === 1) {
      entries.push(integer(part, "index", text));
    } else if (pieces.length <= 3) {
      const [start = "", stop = "", step = ""] = pieces;
      entries.push(slice(bound(start, "start", text), bound(stop, "stop", text), bound(step, "step", text)));
    } else {
      throw new SelectionSyntaxError(`'${part}' in selection '${text}' has more than two ':'`);
    }
  }
  return { entries, ellipsisAt };
}

/**
 * The selection to pass to `ZarrArray.get` for an array of `rank` dimensions: a `...` becomes
 * as many whole dimensions (`null`) as the other entries leave (none when they leave none).
 * Entries beyond the rank are passed on, for the reader to refuse with its own message.
 */
export function toSelection(parsed: ParsedSelection, rank: number): DimSelection[] {
  const { entries, ellipsisAt } = parsed;
  if (ellipsisAt === null) return entries;
  const fill = Math.max(0, rank - entries.length);
  return [...entries.slice(0, ellipsisAt), ...Array<null>(fill).fill(null), ...entries.slice(ellipsisAt)];
}
