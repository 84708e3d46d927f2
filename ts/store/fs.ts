/**
 * `FsStore`: a read-only Zarr store over a local directory, for Node ("zom/fs"; browsers have
 * no `node:fs`, so the main entry does not export it).
 * @module
 */

import type { Dirent, Stats } from "node:fs";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open, readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ZomError } from "../shared/errors.js";
import { getLimits } from "../shared/limits.js";
import type { FetchStoreOptions, FetchStoreStats } from "./fetch-types.js";
import { checkRange, maxBytesOf } from "./range.js";
import type { ByteRange, StoreCallOptions, StoreListing } from "./readable.js";
import type { ReferenceTargets } from "./reference.js";
import { httpTargets, ReferenceStore } from "./reference.js";
import { abortedError, throwIfAborted } from "./signal.js";
import { sortedListing } from "./wire.js";
import type { ZipStoreOptions } from "./zip.js";
import { ZipStore } from "./zip.js";

/**
 * Error codes of a path that holds no value: nothing there, a file where a directory would be,
 * or a symbolic link that dangles or loops.
 */
const ABSENT = new Set(["ENOENT", "ENOTDIR", "EISDIR", "ENAMETOOLONG", "ELOOP"]);
// Non-blocking, so that opening a FIFO named like a key does not hang the read; ignored for
// regular files. Windows has no O_NONBLOCK (and no FIFOs in the file system). No-follow: what
// is opened is a real path just checked, so a link put in its place since fails (ELOOP)
// instead of being followed.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
const WINDOWS = process.platform === "win32";

function isAbsent(e: unknown): boolean {
  return typeof e === "object" && e !== null && ABSENT.has(String((e as { code?: unknown }).code));
}

/** Whether the real path `real` is the real root `root` or below it. */
function within(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The error for a key or prefix that a symbolic link takes out of the root. */
function outside(key: string): ZomError {
  return new ZomError(
    "InvalidArgument",
    `store key ${JSON.stringify(key)} leads outside the store's directory through a symbolic link; it is not read`,
    { key },
  );
}

/**
 * A read-only store over a directory: key "/a/zarr.json" is the file `<root>/a/zarr.json`.
 * Implements the store shape zom (and zarrita) read from:
 *
 * - `get(key)`: the file's bytes; undefined when there is no regular file at the key.
 * - `getRange(key, {offset, length})`: `length` bytes from `offset` (fewer at the end of the
 *   file, none past it); `getRange(key, {suffixLength})`: the last bytes (all of a shorter
 *   file). Only those bytes are read.
 * - `list(prefix)`: the files and sub-directories directly below a directory, so hierarchies
 *   without consolidated metadata can be walked; an empty listing for a directory that does
 *   not exist.
 *
 * With the call option `maxBytes`, `get` and `getRange` throw ZomError "LimitExceeded" for a
 * file (or range) longer than that, from its size before anything is read.
 *
 * Nothing outside the root is read or listed. Keys are checked before any file is touched:
 * "." and ".." segments, empty segments, NUL (and on Windows "\" and ":") throw ZomError
 * "InvalidArgument". Symbolic links are resolved (also the root's, once) and followed only
 * while they stay inside the root: a read or listing of a key a link takes outside throws
 * ZomError "InvalidArgument" (rather than reading as missing, which would let a chunk turn
 * into fill values unnoticed), and listings leave such links out. Every directory inside the
 * root is listed at its own place; a link to one is listed too, as a second name for it, but
 * only in a directory reached through no link, and not when it leads to that directory or one
 * of its ancestors (".", "..", the root). So each link adds at most one copy of a directory,
 * and cycles and chains of links cannot make a walk run long; by key, reads follow every link
 * that stays inside. A link that dangles or loops reads as missing. Other file-system errors
 * (permissions, I/O) are thrown as Node gives them.
 */
export class FsStore {
  /** The root directory, absolute. */
  readonly root: string;
  /** The root's real path, resolved by the first call that finds the root. */
  private realRoot: Promise<string> | undefined;

  /** @param root the directory (a path, relative to the working directory, or a `file:` URL) */
  constructor(root: string | URL) {
    const dir = root instanceof URL || /^file:/i.test(root) ? fileURLToPath(root) : root;
    if (typeof dir !== "string" || dir === "") throw new ZomError("InvalidArgument", "FsStore needs a directory");
    this.root = resolve(dir);
  }

  /**
   * The file (or, for a prefix ending in "/", the directory) of a key, as a path below the
   * root; symbolic links on the way are not resolved here (reads and listings do that).
   */
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
    return this.read(k, options, (size) => [0, size]);
  }

  /**
   * Bytes of the value at `key`: `length` bytes from `offset` (fewer at the end of the value,
   * none past it), or the last `suffixLength` bytes (all of a shorter value). undefined when the
   * value is missing.
   */
  async getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const k = checkedKey(key);
    const r = checkRange(k, range);
    return this.read(k, options, (size) => {
      if ("suffixLength" in r) return [Math.max(0, size - r.suffixLength), size];
      return [Math.min(r.offset, size), Math.min(r.offset + r.length, size)];
    });
  }

  /** What is directly below `prefix` ("/" or "/a/"): child keys and child prefixes, absolute. */
  async list(prefix: string, options: StoreCallOptions = {}): Promise<StoreListing> {
    const p = checkedPrefix(prefix);
    const { signal } = options;
    throwIfAborted(p, signal);
    const none: StoreListing = { keys: [], prefixes: [] };
    const found = await this.locate(p);
    if (found === undefined) return none;
    const { top, dir, onTheWay } = found;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (isAbsent(e)) return none;
      throw e;
    }
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (const entry of entries) {
      throwIfAborted(p, signal);
      if (badSegment(entry.name)) continue; // a name no key can reach
      let real = join(dir, entry.name);
      let kind: { isFile(): boolean; isDirectory(): boolean } = entry;
      if (entry.isSymbolicLink()) {
        try {
          real = await realpath(real);
          kind = await stat(real);
        } catch (e) {
          if (isAbsent(e)) continue; // a dangling or looping link
          throw e;
        }
        if (!within(real, top)) continue; // a link out of the root is no part of the store
        // The directory a link leads to is listed at its own place anyway: an alias of it is
        // shown only where it cannot repeat - not below another alias, where chains of links
        // would multiply the tree (two links a level double it at every level), and not back
        // up the way down (".", "..", the root), where it would repeat below itself forever.
        if (kind.isDirectory() && (onTheWay === null || onTheWay.has(real))) continue;
      }
      if (kind.isFile()) keys.push(`${p}${entry.name}`);
      else if (kind.isDirectory()) prefixes.push(`${p}${entry.name}/`);
    }
    return sortedListing(p, keys, prefixes);
  }

  /** The root's real path; undefined while there is no root directory. */
  private async rootReal(): Promise<string | undefined> {
    this.realRoot ??= realpath(this.root);
    try {
      return await this.realRoot;
    } catch (e) {
      this.realRoot = undefined; // asked again next time: the directory may yet appear
      if (isAbsent(e)) return undefined;
      throw e;
    }
  }

  /**
   * Where prefix `p` is: the root's real path (`top`), the real path of `p`'s directory (`dir`)
   * and, when no link is on the way to it, the directories on the way (`onTheWay`: the root,
   * `dir` and those between; null when a link is on the way). undefined when the directory is
   * missing; throws when a link takes it outside the root.
   */
  private async locate(p: string): Promise<{ top: string; dir: string; onTheWay: Set<string> | null } | undefined> {
    const top = await this.rootReal();
    if (top === undefined) return undefined;
    const segments = segmentsOf(p, true);
    let dir: string;
    try {
      dir = await realpath(resolve(this.root, ...segments));
    } catch (e) {
      if (isAbsent(e)) return undefined;
      throw e;
    }
    if (!within(dir, top)) throw outside(p);
    // A real path holds no link: when it is the lexical path below the real root, no link was on
    // the way, and the directories on the way are the lexical ones.
    const lexical = segments.map((_, i) => join(top, ...segments.slice(0, i + 1)));
    return { top, dir, onTheWay: dir === (lexical.at(-1) ?? top) ? new Set([top, ...lexical]) : null };
  }

  /**
   * Reads the bytes `span(size)` names of the regular file at key `k`; undefined when there is
   * none. The file is opened by its real path, once that is known to be inside the root.
   */
  private async read(k: string, options: StoreCallOptions, span: (size: number) => [number, number]): Promise<Uint8Array | undefined> {
    const { signal } = options;
    const max = maxBytesOf(k, options);
    throwIfAborted(k, signal);
    const top = await this.rootReal();
    if (top === undefined) return undefined;
    let file: FileHandle;
    try {
      const real = await realpath(this.pathOf(k));
      if (!within(real, top)) throw outside(k);
      file = await open(real, OPEN_FLAGS);
    } catch (e) {
      if (isAbsent(e)) return undefined;
      throw e;
    }
    try {
      const info: Stats = await file.stat();
      if (!info.isFile()) return undefined;
      const [start, end] = span(info.size);
      const length = Math.max(0, end - start);
      if (length > max) {
        throw new ZomError("LimitExceeded", `reading ${k}: ${length} bytes, over the limit maxBytes = ${max}`, { key: k });
      }
      const out = new Uint8Array(length);
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

/**
 * Opens the zip archive at `path` (a zipped hierarchy: zarr-python's `ZipStore`, an `.ozx`, a
 * zipped folder) as a store; only the bytes needed are read from the file.
 */
export function openZip(path: string | URL, options: ZipStoreOptions = {}): Promise<ZipStore> {
  const file = resolve(typeof path === "string" ? path : fileURLToPath(path));
  return ZipStore.open(new FsStore(dirname(file)), `/${basename(file)}`, options);
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
    throw new ZomError(
      "InvalidArgument",
      `store key ${JSON.stringify(key)} is not a plain relative path (empty, "." or ".." segment, or a forbidden character)`,
      { key },
    );
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

/** Options of {@link referenceStoreFromFile}. */
export interface ReferenceFileOptions extends FetchStoreOptions {
  /** The directory local targets must be inside (a path or `file:` URL). Default: the reference file's directory. */
  root?: string | URL;
}

/** A path or `file:` URL as a path. */
function pathOf(p: string | URL): string {
  return p instanceof URL || /^file:/i.test(p) ? fileURLToPath(p) : p;
}

/** Local targets read through an {@link FsStore} at the root (ranged reads, links checked), http(s) ones fetched. */
class FileTargets implements ReferenceTargets {
  readonly stats: FetchStoreStats = { requests: 0, bytes: 0 };
  private readonly files: FsStore;
  private readonly http: ReferenceTargets;

  constructor(root: string, options: FetchStoreOptions) {
    this.files = new FsStore(root);
    this.http = httpTargets(options, this.stats);
  }

  async whole(url: string, signal: AbortSignal | undefined, maxBytes: number): Promise<Uint8Array | undefined> {
    const key = this.keyOf(url);
    if (key === null) return this.http.whole(url, signal, maxBytes);
    return this.count(await this.files.get(key, { signal, maxBytes }));
  }

  async range(url: string, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    const key = this.keyOf(url);
    if (key === null) return this.http.range(url, offset, length, signal);
    return this.count(await this.files.getRange(key, { offset, length }, { signal }));
  }

  private count(bytes: Uint8Array | undefined): Uint8Array | undefined {
    this.stats.requests += 1;
    this.stats.bytes += bytes?.length ?? 0;
    return bytes;
  }

  /** The FsStore key of a local target; null for an http(s) URL. */
  private keyOf(url: string): string | null {
    if (/^https?:/i.test(url)) return null;
    if (/^[a-z][a-z0-9+.-]+:/i.test(url) && !/^file:/i.test(url)) {
      throw new ZomError("InvalidArgument", `cannot read the reference target ${url} from local files`, { key: url });
    }
    const rel = relative(this.files.root, resolve(pathOf(url)));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
      throw new ZomError("InvalidArgument", `the reference target ${url} is outside the targets' root ${this.files.root}`, { key: url });
    }
    return `/${rel.split(sep).join("/")}`;
  }
}

/**
 * A {@link ReferenceStore} over a kerchunk reference file on disk (Node only). Local targets —
 * relative paths, resolved against the file's directory, absolute paths and `file:` URLs — are
 * read with ranged file reads, and only inside `root` (default: the reference file's
 * directory; a target elsewhere throws ZomError "InvalidArgument"); http(s) targets are fetched
 * with the options' HTTP settings. A directory (parquet references) is refused.
 */
export async function referenceStoreFromFile(path: string | URL, options: ReferenceFileOptions = {}): Promise<ReferenceStore> {
  const file = resolve(pathOf(path));
  const info = await stat(file);
  if (info.isDirectory()) {
    throw new ZomError("InvalidArgument", `${file} is a directory: parquet references are not supported, give a JSON reference file`, {
      key: file,
    });
  }
  const max = getLimits().maxDocumentBytes;
  if (info.size > max) {
    throw new ZomError("LimitExceeded", `the reference file ${file} is ${info.size} bytes, over the limit maxDocumentBytes = ${max}`, {
      key: file,
    });
  }
  const text = await readFile(file);
  const root = resolve(options.root === undefined ? dirname(file) : pathOf(options.root));
  // Forward slashes: the core resolves relative targets against a '/'-separated path.
  return ReferenceStore.open(text, file.split(sep).join("/"), new FileTargets(root, options));
}
