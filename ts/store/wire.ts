/**
 * Reading HTTP answers through the WebAssembly module (`src/wasm/http.rs`, the rules of
 * `src/store/wire/` that the Rust `HttpStore` follows too): the call wrapper, the HttpError
 * shape, and the header parsers the other store modules share. It imports no other store
 * module, so none of them import each other in a cycle.
 * @module
 */

import type { SharedGlue } from "../parts/shared.js";
import { shared } from "../parts/shared.js";
import { toZomError, ZomError } from "../shared/errors.js";

/** The HttpError for a request. */
export function httpError(req: { method: string; url: string; key: string }, message: string, cause?: unknown): ZomError {
  return new ZomError("HttpError", `${req.method} ${req.url}: ${message}`, {
    key: req.key,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A parsed `Content-Range: bytes start-end/total` (`total` null for "*"), or the 416 form (`bytes *` + `/total`). */
export type ContentRange = { start: number; end: number; total: number | null } | { unsatisfied: true; total: number };

/**
 * Calls an export every part has (`src/wasm/http.rs`, the stores), through a loaded part, or
 * loading the entry's own first if none is; a thrown
 * error object becomes a ZomError, an HttpError's message the message of one about `req`.
 */
export function wire<T>(f: (raw: SharedGlue) => T, req?: { method: string; url: string; key: string }): T {
  const raw = shared();
  try {
    return f(raw);
  } catch (e) {
    const z = toZomError(e);
    throw req !== undefined && z instanceof ZomError && z.code === "HttpError" ? httpError(req, z.message) : z;
  }
}

/**
 * What a store found directly below `prefix` (absolute keys, and prefixes ending in "/") as a
 * listing by the core's one rule (`listKeys`: a key ending in "/" names a folder; code point
 * order, each once), not JavaScript's sort (by UTF-16 unit).
 */
export function sortedListing(prefix: string, keys: Iterable<string>, prefixes: Iterable<string>): { keys: string[]; prefixes: string[] } {
  return wire((raw) => raw.listKeys([...keys, ...prefixes], prefix)) as { keys: string[]; prefixes: string[] };
}

/** Parses a Content-Range header value; null when absent or malformed (numbers over 2^53 − 1 included). */
export function parseContentRange(value: string | null): ContentRange | null {
  const n = value === null ? undefined : wire((raw) => raw.httpContentRange(value));
  if (n === undefined || n.length < 3) return null;
  const [start = -1, end = -1, total = -1] = n;
  return start < 0 ? { unsatisfied: true, total } : { start, end, total: total < 0 ? null : total };
}

/** Parses a Content-Length header value; null when absent or malformed. */
export function parseContentLength(value: string | null): number | null {
  return value === null ? null : (wire((raw) => raw.httpContentLength(value)) ?? null);
}
