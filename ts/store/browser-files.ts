/**
 * Stores over files the browser hands a page: `FileStore` over `File`s or `Blob`s by key (a
 * folder chosen with `<input webkitdirectory>`, dropped files), `DirectoryHandleStore` over a
 * folder opened with the File System Access API (`showDirectoryPicker`). Both read only the
 * bytes asked for (`Blob.slice`), so a large local hierarchy opens as fast as a small one.
 * Both are I/O only: FileStore lists its keys by the core's one listing rule (`listKeys`).
 * @module
 */
import { ZomError } from "../shared/errors.js";
import { normalizeKey } from "./fetch.js";
import { checkRange, maxBytesOf } from "./range.js";
import type { ByteRange, StoreCallOptions, StoreListing } from "./readable.js";
import { throwIfAborted } from "./signal.js";
import { sortedListing, wire } from "./wire.js";

/** Bytes `range` of `blob` (fewer at its end, none past it). */
async function readBlob(blob: Blob, key: string, range: ByteRange | undefined, options: StoreCallOptions): Promise<Uint8Array> {
  throwIfAborted(key, options.signal);
  const size = blob.size;
  let start = 0;
  let end = size;
  if (range !== undefined) {
    const r = checkRange(key, range);
    if ("suffixLength" in r) start = Math.max(0, size - r.suffixLength);
    else {
      start = Math.min(r.offset, size);
      end = Math.min(r.offset + r.length, size);
    }
  }
  const max = maxBytesOf(key, options);
  if (end - start > max) {
    throw new ZomError("LimitExceeded", `${key}: ${end - start} bytes (at most ${max})`, { key });
  }
  const bytes = new Uint8Array(await blob.slice(start, end).arrayBuffer());
  throwIfAborted(key, options.signal);
  return bytes;
}

/**
 * A read-only store over files held by the page: key "/a/zarr.json" is the `Blob` given for
 * it. Made from a map of keys to blobs, or from the `File`s of an `<input webkitdirectory>`
 * or a drop ({@link FileStore.fromFiles}). Implements zarrita's store shape (`get`,
 * `getRange`, `list`).
 */
export class FileStore {
  readonly #files = new Map<string, Blob>();

  /** @param files key (with or without a leading "/") → the value's bytes */
  constructor(files: Map<string, Blob> | Iterable<[string, Blob]>) {
    for (const [key, blob] of files) this.#files.set(normalizeKey(key), blob);
  }

  /**
   * The files of a chosen folder, keyed by their path below it: `webkitRelativePath`
   * ("sample.zarr/a/zarr.json") without its first segment, the folder's own name, so the
   * folder is the store's root. `root` picks a subfolder ("sample.zarr/data") instead.
   */
  static fromFiles(files: Iterable<File> | ArrayLike<File>, root?: string): FileStore {
    const list = Array.from(files as ArrayLike<File>);
    const paths = list.map((f) => (f.webkitRelativePath || f.name).replace(/^\/+/, ""));
    const base = root !== undefined ? root.replace(/^\/+|\/+$/g, "") : (paths[0]?.split("/").slice(0, -1)[0] ?? "");
    const prefix = base === "" ? "" : `${base}/`;
    const map = new Map<string, Blob>();
    list.forEach((file, i) => {
      const path = paths[i] ?? "";
      if (prefix === "" || path.startsWith(prefix)) map.set(`/${path.slice(prefix.length)}`, file);
    });
    return new FileStore(map);
  }

  /** The value at `key`; undefined when there is none. */
  async get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const blob = this.#files.get(normalizeKey(key));
    return blob === undefined ? undefined : readBlob(blob, key, undefined, options);
  }

  /** Bytes of the value at `key`: `length` from `offset`, or the last `suffixLength`. */
  async getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const blob = this.#files.get(normalizeKey(key));
    return blob === undefined ? undefined : readBlob(blob, key, range, options);
  }

  /** The keys and sub-prefixes directly below `prefix` (absolute; prefixes end in "/"). */
  async list(prefix: string): Promise<StoreListing> {
    const p = normalizeKey(prefix);
    return wire((raw) => raw.listKeys([...this.#files.keys()], p)) as StoreListing;
  }
}

/** The File System Access API's folder handle, as far as this store uses it. */
export interface DirectoryHandle {
  readonly kind: "directory";
  getDirectoryHandle(name: string): Promise<DirectoryHandle>;
  getFileHandle(name: string): Promise<{ getFile(): Promise<File> }>;
  entries(): AsyncIterable<[string, { kind: "file" | "directory" }]>;
}

const ABSENT = new Set(["NotFoundError", "TypeMismatchError", "TypeError"]);

/**
 * A read-only store over a folder the user opened with `showDirectoryPicker()` (File System
 * Access API; Chromium browsers): key "/a/zarr.json" is the file `a/zarr.json` below it, read
 * lazily, only the bytes asked for. Implements zarrita's store shape (`get`, `getRange`,
 * `list`).
 */
export class DirectoryHandleStore {
  /** @param root the folder's handle */
  constructor(readonly root: DirectoryHandle) {}

  async #folder(segments: string[]): Promise<DirectoryHandle | undefined> {
    let dir = this.root;
    for (const name of segments) {
      try {
        dir = await dir.getDirectoryHandle(name);
      } catch (e) {
        if (ABSENT.has((e as Error).name)) return undefined;
        throw e;
      }
    }
    return dir;
  }

  async #file(key: string): Promise<File | undefined> {
    const segments = normalizeKey(key).split("/").slice(1);
    const name = segments.pop();
    if (name === undefined || name === "" || segments.includes("")) return undefined;
    const dir = await this.#folder(segments);
    try {
      return dir === undefined ? undefined : await (await dir.getFileHandle(name)).getFile();
    } catch (e) {
      if (ABSENT.has((e as Error).name)) return undefined;
      throw e;
    }
  }

  /** The value at `key`; undefined when there is no file there. */
  async get(key: string, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const file = await this.#file(key);
    return file === undefined ? undefined : readBlob(file, key, undefined, options);
  }

  /** Bytes of the file at `key`: `length` from `offset`, or the last `suffixLength`. */
  async getRange(key: string, range: ByteRange, options: StoreCallOptions = {}): Promise<Uint8Array | undefined> {
    const file = await this.#file(key);
    return file === undefined ? undefined : readBlob(file, key, range, options);
  }

  /** The files and sub-folders directly below `prefix` (absolute; prefixes end in "/"). */
  async list(prefix: string): Promise<StoreListing> {
    const p = normalizeKey(prefix).replace(/\/*$/, "/");
    const dir = await this.#folder(p.split("/").filter((s) => s !== ""));
    const out: StoreListing = { keys: [], prefixes: [] };
    if (dir === undefined) return out;
    for await (const [name, handle] of dir.entries()) {
      if (handle.kind === "file") out.keys.push(`${p}${name}`);
      else out.prefixes.push(`${p}${name}/`);
    }
    return sortedListing(p, out.keys, out.prefixes);
  }
}
