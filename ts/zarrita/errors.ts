/**
 * zarrita's error classes, and the mapping of zom's errors (a {@link ZomError} `code`) onto
 * them: each keeps the ZomError as its `cause`.
 * @module
 */

import type { ZomError } from "../shared/errors.js";
import { isZomError } from "../shared/errors.js";

/** The base of zom/zarrita's errors; {@link isZarritaError} tells them apart. */
export abstract class ZarritaError<T extends string = string> extends Error {
  abstract readonly _tag: T;
}

/** No node (or a node of the other kind) where one was asked for. */
export class NotFoundError extends ZarritaError<"NotFoundError"> {
  override readonly _tag = "NotFoundError" as const;
  override readonly name = "NotFoundError";
  readonly path: string | undefined;
  readonly found: "array" | "group" | undefined;
  constructor(context: string, options: { path?: string; found?: "array" | "group"; cause?: unknown } = {}) {
    super(`Not found: ${context}`, { cause: options.cause });
    this.path = options.path;
    this.found = options.found;
  }
}

/** Metadata that cannot be read: broken JSON, an unknown data type or chunk key encoding, … */
export class InvalidMetadataError extends ZarritaError<"InvalidMetadataError"> {
  override readonly _tag = "InvalidMetadataError" as const;
  override readonly name = "InvalidMetadataError";
  readonly path: string | undefined;
  constructor(message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.path = options.path;
  }
}

/** A codec neither zom nor the registry knows. */
export class UnknownCodecError extends ZarritaError<"UnknownCodecError"> {
  override readonly _tag = "UnknownCodecError" as const;
  override readonly name = "UnknownCodecError";
  readonly codec: string;
  constructor(codec: string, options: { cause?: unknown } = {}) {
    super(`Unknown codec: ${codec}`, { cause: options.cause });
    this.codec = codec;
  }
}

/** A codec failed on a chunk (a corrupt chunk, a checksum that does not match). */
export class CodecPipelineError extends ZarritaError<"CodecPipelineError"> {
  override readonly _tag = "CodecPipelineError" as const;
  override readonly name = "CodecPipelineError";
  readonly direction: "encode" | "decode";
  readonly codec: string | undefined;
  readonly chunkPath: string | undefined;
  constructor(options: { direction: "encode" | "decode"; codec?: string; chunkPath?: string; cause: unknown }) {
    const what = [
      `Failed to ${options.direction} chunk`,
      options.codec && `via codec "${options.codec}"`,
      options.chunkPath && `at ${options.chunkPath}`,
    ];
    super(what.filter(Boolean).join(" "), { cause: options.cause });
    this.direction = options.direction;
    this.codec = options.codec;
    this.chunkPath = options.chunkPath;
  }
}

/** A selection that does not fit the array. */
export class InvalidSelectionError extends ZarritaError<"InvalidSelectionError"> {
  override readonly _tag = "InvalidSelectionError" as const;
  override readonly name = "InvalidSelectionError";
}

/** Something zom/zarrita does not do (writing, among others). */
export class UnsupportedError extends ZarritaError<"UnsupportedError"> {
  override readonly _tag = "UnsupportedError" as const;
  override readonly name = "UnsupportedError";
  readonly feature: string;
  constructor(feature: string) {
    super(`Unsupported: ${feature}`);
    this.feature = feature;
  }
}

type AnyZarritaError =
  | NotFoundError
  | InvalidMetadataError
  | UnknownCodecError
  | CodecPipelineError
  | InvalidSelectionError
  | UnsupportedError;

/** True for an error of zom/zarrita (of one of `tags`, when given). */
export function isZarritaError<T extends AnyZarritaError["_tag"]>(
  err: unknown,
  ...tags: T[]
): err is Extract<AnyZarritaError, { _tag: T }> {
  if (!(err instanceof ZarritaError)) return false;
  return tags.length === 0 || (tags as string[]).includes(err._tag);
}

/** What an error is about, for the zarrita error it becomes. */
export interface ErrorContext {
  /** The signal of the call: an abort rethrows its reason, as zarrita's stores do. */
  signal?: AbortSignal | undefined;
  /** The node's absolute path ("/a/b"). */
  path?: string;
  /** The kind asked for, if any. */
  kind?: "array" | "group" | undefined;
  /** The format asked for, if any (`open.v2`, `open.v3`). */
  format?: 2 | 3 | undefined;
}

/** zarrita's name of what it found missing: the document it looked for last. */
function missing({ kind, format }: ErrorContext): string {
  if (format === 2) return kind === "array" ? "v2 array" : "v2 group";
  return "v3 array or group";
}

/** The quoted name in a message ("codec 'x' is not …"). */
const quoted = (message: string): string | undefined => /'([^']+)'/.exec(message)?.[1];

/**
 * The error zom/zarrita throws for `e`: a {@link ZomError} becomes the zarrita error of its
 * `code` (HttpError, LimitExceeded and InvalidArgument stay ZomErrors: zarrita has none of
 * them); an abort becomes the signal's reason; anything else is returned as it is.
 */
export function toZarritaError(e: unknown, context: ErrorContext = {}): unknown {
  if (!isZomError(e)) return e;
  const z = e as ZomError;
  const path = context.path ?? (z.path === null ? undefined : `/${z.path}`);
  switch (z.code) {
    case "NotFound": {
      const found = /is an array/.test(z.message) ? "array" : /is a group/.test(z.message) ? "group" : undefined;
      const what = found === undefined ? missing(context) : context.kind !== undefined ? `${context.kind} at ${path ?? "/"}` : z.message;
      // zarrita names the node for a node of the other kind, else the document it looked for.
      const at = found !== undefined || z.key === null ? path : `/${z.key.replace(/^\/+/, "")}`;
      return new NotFoundError(what, { path: at, found, cause: z });
    }
    case "InvalidMetadata":
    case "UnsupportedExtension":
      return new InvalidMetadataError(z.message, { path, cause: z });
    case "UnknownCodec":
      return new UnknownCodecError(quoted(z.message) ?? z.message, { cause: z });
    case "CodecError":
    case "ChecksumMismatch":
      return new CodecPipelineError({
        direction: "decode",
        codec: quoted(z.message),
        chunkPath: z.key === null ? undefined : `/${z.key.replace(/^\/+/, "")}`,
        cause: z,
      });
    case "InvalidSelection":
      return new InvalidSelectionError(z.message, { cause: z });
    case "Aborted":
      return context.signal?.aborted ? context.signal.reason : z;
    default:
      return z;
  }
}
