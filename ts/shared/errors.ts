/**
 * The error zom throws. The WASM core throws plain objects `{ code, message, path, key }`;
 * every API function turns them into {@link ZomError}.
 * @module
 */

import type { ErrorCode } from "../generated/boundary.js";

/** Stable, machine-readable error categories: the Rust `ErrorCode`'s (ts/generated/boundary.ts). */
export type { ErrorCode };

/** Where an error happened and what caused it. */
export interface ZomErrorOptions {
  /** The node path ("" for the root, "a/b" for a member). */
  path?: string | null;
  /** The store key being read or written. */
  key?: string | null;
  /** The underlying error or thrown value. */
  cause?: unknown;
}

/** An error from zom, with its code and location. */
export class ZomError extends Error {
  /** The error's category. */
  readonly code: ErrorCode;
  /** The node path ("" for the root, "a/b" for a member), when known. */
  readonly path: string | null;
  /** The store key being read or written, when known. */
  readonly key: string | null;

  constructor(code: ErrorCode, message: string, options: ZomErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ZomError";
    this.code = code;
    this.path = options.path ?? null;
    this.key = options.key ?? null;
  }
}

/** True when `x` is a {@link ZomError} (also across copies of the package). */
export function isZomError(x: unknown): x is ZomError {
  return x instanceof ZomError || (x instanceof Error && x.name === "ZomError" && typeof (x as { code?: unknown }).code === "string");
}

interface Thrown {
  code: string;
  message: string;
  path?: unknown;
  key?: unknown;
}

function isThrown(x: unknown): x is Thrown {
  return (
    typeof x === "object" &&
    x !== null &&
    !(x instanceof Error) &&
    typeof (x as { code?: unknown }).code === "string" &&
    typeof (x as { message?: unknown }).message === "string"
  );
}

const stringOrNull = (x: unknown): string | null => (typeof x === "string" ? x : null);

/**
 * The value to rethrow for something the WASM core threw: its plain error objects become
 * {@link ZomError}s (the object kept as `cause`); anything else (a JS `TypeError`, a WASM trap)
 * is returned unchanged.
 */
export function toZomError(x: unknown): unknown {
  if (!isThrown(x)) return x;
  return new ZomError(x.code as ErrorCode, x.message, {
    path: stringOrNull(x.path),
    key: stringOrNull(x.key),
    cause: x,
  });
}

/** Calls into the core: what it returns, as `T`; a thrown error object becomes a {@link ZomError}. */
export function converting<T>(f: () => unknown): T {
  try {
    return f() as T;
  } catch (e) {
    throw toZomError(e);
  }
}

/** `path` when it is a string; a JS caller's other value is refused here, before it reaches the WebAssembly. */
export function nodePath(path: unknown): string {
  if (typeof path === "string") return path;
  throw new ZomError(
    "InvalidArgument",
    `a node path must be a string, got ${path === null ? "null" : typeof path} (the options come after the path: open(store, "", options))`,
  );
}
