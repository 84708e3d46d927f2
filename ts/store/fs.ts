/**
 * `FsStore`: a read-only Zarr store over a local directory, for Node ("zom/fs"; browsers have
 * no `node:fs`, so the main entry does not export it).
 * @module
 */
import { constants } from "node:fs";
import type { Stats } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ZomError } from "../errors.js";
import { checkRange } from "./range.js";
import { abortedError, throwIfAborted } from "./signal.js";
import type { ByteRange, StoreCallOptions, StoreListing } from "./types.js";

/** Error codes of a path that holds no value: nothing there, or a file where a directory would be. */
const ABSENT = new Set(["ENOENT", "ENOTDIR", "EISDIR", "ENAMETOOLONG"]);
// Non-blocking, so that opening a FIFO named like a key does not hang the read; ignored for
// regular files. Windows has no O_NONBLOCK (and no FIFOs in the file system).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const WINDOWS = process.platform === "win32";

function isAbsent(e: unknown): boolean {
  return typeof e === "object" && e !== null && ABSENT.has(String((e as { code?: unknown }).code));
}

/**
 * A read-only store over a directory: key "/a/zarr.json" is the file `<root>/a/zarr.json`.
 * Implements the store shape zom (and zarrita) read from:
 *
 * - `get(key)`: the file's bytes; undefined when there is no regular file at the key.
 * - `getRange(key, {offset, length})`: `length` bytes from `offset` (fewer at the end of the
 *   file, none past it); `getRange(key, {suffixLength})`: the last bytes (all of a shorter
 *   file). Only those bytes are read.
 * - `list(prefix)`: the files and sub-directories directly below a directory (symbolic links
 *   followed), so hierarchies without consolidated metadata can be walked; an empty listing
 *   for a directory that does not exist.
 *
 * Keys are checked before any file is touched: "." and ".." segments, empty segments, NUL
 * (and on Windows "\" and ":") throw ZomError "InvalidArgument", so no key reaches outside the
 * root. Symbolic links inside the root are followed like any file. Other file-system errors
 * (permissions, I/O) are thrown as Node gives them.
 */
export class FsStore {
  /** The root directory, absolute. */
  readonly root: string;

  /** @param root the directory (a path, relative to the working directory, or a `file:` URL) */
  constructor(root: string | URL) {
    const dir = root instanceof URL || /^file:/i.test(root) ? fileURLToPath(root) : root;
    if (typeof dir !== "string" || dir === "") throw new ZomError("InvalidArgument", "FsStore needs a directory");
    this.root = resolve(dir);
  }

  /** The file (or, for a prefix ending in "/", the directory) of a key. */
  pathOf(key: string): string {
    const segments = segmentsOf(key, true);
    const path = resolve(this.root, ...segments);
    // The segments are checked; this only guards against a mistake in that check.
    if (path !== this.root && !path.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)) {
      throw new ZomError("InvalidArgument", `store key ${JSON.stringify(key)} is outside the store`, { key });
    }
    return path;
  }

  /** The whole value at `key`; undefined when it is missing. */
  async get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = checkedKey(key);
    return this.read(k, options.signal, (size) => [0, size]);
  }

  /**
   * Bytes of the value at `key`: `length` bytes from `offset` (fewer at the end of the value,
   * none past it), or the last `suffixLength` bytes (all of a shorter value). undefined when the
   * value is missing.
   */
  async getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = checkedKey(key);
    const r = checkRange(k, range);
    return this.read(k, options.signal, (size) => {
      if ("suffixLength" in r) return [Math.max(0, size - r.suffixLength), size];
      return [Math.min(r.offset, size), Math.min(r.offset + r.length, size)];
    });
  }

  /** What is directly below `prefix` ("/" or "/a/"): child keys and child prefixes, absolute. */
  async list(prefix: string, options: StoreCallOptions = {}): Promise<StoreListing> {
    const p = checkedPrefix(prefix);
    const { signal } = options;
    throwIfAborted(p, signal);
    const dir = this.pathOf(p);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (isAbsent(e)) return { keys: [], prefixes: [] };
      throw e;
    }
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (const entry of entries) {
      throwIfAborted(p, signal);
      let kind: { isFile(): boolean; isDirectory(): boolean } = entry;
      if (entry.isSymbolicLink()) {
        try {
          kind = await stat(resolve(dir, entry.name));
        } catch (e) {
          if (isAbsent(e) || (e as { code?: unknown }).code === "ELOOP") continue; // a dangling link
          throw e;
        }
      }
      if (badSegment(entry.name)) continue; // a name no key can reach
      if (kind.isFile()) keys.push(`${p}${entry.name}`);
      else if (kind.isDirectory()) prefixes.push(`${p}${entry.name}/`);
    }
    return { keys: keys.sort(), prefixes: prefixes.sort() };
  }

  /** Reads the bytes `span(size)` names of the regular file at key `k`; undefined when there is none. */
  private async read(
    k: string,
    signal: AbortSignal | undefined,
    span: (size: number) => [number, number],
  ): Promise<Uint8Array | undefined> {
    throwIfAborted(k, signal);
    let file: FileHandle;
    try {
      file = await open(this.pathOf(k), OPEN_FLAGS);
    } catch (e) {
      if (isAbsent(e)) return undefined;
      throw e;
    }
    try {
      const info: Stats = await file.stat();
      if (!info.isFile()) return undefined;
      const [start, end] = span(info.size);
      const out = new Uint8Array(Math.max(0, end - start));
      let done = 0;
      while (done < out.length) {
        if (signal?.aborted) throw abortedError(k, signal);
        const { bytesRead } = await file.read(out, done, out.length - done, start + done);
        if (bytesRead === 0) break; // the file shrank since stat
        done += bytesRead;
      }
      return done === out.length ? out : out.slice(0, done);
    } finally {
      await file.close();
    }
  }
}

/** Whether a path segment cannot be part of a key. */
function badSegment(s: string): boolean {
  return s === "" || s === "." || s === ".." || s.includes("\0") || (WINDOWS && (s.includes("\\") || s.includes(":")));
}

/** The segments of a key or prefix ("/a/b", "a/b/", "/" → [] ), refusing any that could leave the root. */
function segmentsOf(key: string, prefixAllowed: boolean): string[] {
  if (typeof key !== "string") throw new ZomError("InvalidArgument", `store keys are strings, got ${typeof key}`);
  let body = key.startsWith("/") ? key.slice(1) : key;
  if (prefixAllowed && body.endsWith("/")) body = body.slice(0, -1);
  if (body === "" && prefixAllowed) return [];
  const segments = body.split("/");
  if (segments.some(badSegment)) {
    throw new ZomError("InvalidArgument", `store key ${JSON.stringify(key)} is not a plain relative path (empty, "." or ".." segment, or a forbidden character)`, { key });
  }
  return segments;
}

/** An absolute key ("/a/zarr.json"), checked. */
function checkedKey(key: string): string {
  return `/${segmentsOf(key, false).join("/")}`;
}

/** An absolute prefix ending in "/" ("" and "/" are the root), checked. */
function checkedPrefix(prefix: string): string {
  const segments = segmentsOf(prefix, true);
  return segments.length === 0 ? "/" : `/${segments.join("/")}/`;
}
