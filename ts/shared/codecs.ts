/**
 * Codecs from JavaScript: a codec zom does not build in (or one that replaces a built-in),
 * given as an ES module that the calling thread and the decode workers import by URL.
 *
 * The core decides where such a codec may stand and what it receives (`src/codec/external.rs`):
 * the trailing run of registered codecs of an array (v3 `codecs`; v2 filters then compressor)
 * is applied to a chunk's stored bytes first, then zom's own codecs decode the rest. A codec
 * that ends up as the array → bytes step returns the chunk's elements as little-endian bytes
 * in C order.
 * @module
 */

import { NUMCODECS_PREFIX } from "../generated/boundary.js";
import { ZomError } from "./errors.js";

/** What a codec module exports. */
export interface CodecModule {
  /**
   * Decodes one chunk's bytes. `codec` is the codec as the metadata names it (`name`: a v3
   * name or numcodecs id; `configuration`: its configuration, for numcodecs the whole object).
   * Returns the decoded bytes, or a Promise of them.
   */
  decode(bytes: Uint8Array, codec: CodecStep): Uint8Array | Promise<Uint8Array>;
}

/** One registered codec applied to a chunk, as the core hands it over. */
export interface CodecStep {
  /** The name as the metadata writes it. */
  name: string;
  /** Its configuration. */
  configuration: Record<string, unknown>;
}

/** What {@link registerCodec} takes. */
export interface CodecRegistration {
  /**
   * The names it decodes: v3 codec names and numcodecs ids (an id also matches the v3
   * `numcodecs.<id>`). A built-in codec of the same name is replaced.
   */
  name: string | string[];
  /**
   * The ES module exporting `decode` ({@link CodecModule}): an absolute URL (or one relative
   * to the page), or a file path in Node. The decode workers import it too, so it must be
   * loadable from a worker (no bare specifiers in browsers, unless the module is bundled).
   */
  module: string | URL;
}

/** name → absolute module URL. */
const modules = new Map<string, string>();
/** module URL → its import. */
const loaded = new Map<string, Promise<CodecModule>>();
/**
 * The URL prefix of codecs given as objects on this thread ({@link registerLocalCodec}): they
 * cannot be imported by the decode workers, so reads apply them on the calling thread.
 */
const LOCAL = "zom-local:";

function absolute(module: string | URL): string {
  if (module instanceof URL) return module.href;
  if (typeof module !== "string" || module === "") {
    throw new ZomError("InvalidArgument", "registerCodec: module must be a URL or a path");
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(module)) return module;
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  if (base !== undefined) return new URL(module, base).href;
  // Node: a file path (absolute, or relative to the working directory).
  const cwd = (globalThis as { process?: { cwd?(): string } }).process?.cwd?.() ?? "/";
  return new URL(module, `file://${cwd.replace(/\/?$/, "/")}`).href;
}

/**
 * Registers a codec implemented in JavaScript for every array opened afterwards: reads of
 * arrays whose trailing codecs it names apply it (on the decode workers when the read uses
 * them, else on the calling thread), and validation treats its names as known.
 */
export function registerCodec(registration: CodecRegistration): void {
  const names = Array.isArray(registration?.name) ? registration.name : [registration?.name];
  if (names.length === 0 || names.some((n) => typeof n !== "string" || n === "")) {
    throw new ZomError("InvalidArgument", "registerCodec: name must be a non-empty string or a list of them");
  }
  const url = absolute(registration.module);
  for (const name of names) modules.set(name as string, url);
}

/** Forgets a codec registered with {@link registerCodec} (arrays opened afterwards). */
export function unregisterCodec(name: string): boolean {
  const url = modules.get(name);
  if (url?.startsWith(LOCAL)) loaded.delete(url);
  return modules.delete(name);
}

/**
 * Registers a codec given as an object on this thread (zom/zarrita's `registry`, whose codecs
 * are JS classes rather than modules): like {@link registerCodec}, but the reads that need it
 * apply it on the calling thread (the rest of the decoding still goes to the workers). @internal
 */
export function registerLocalCodec(name: string, module: Promise<CodecModule>): void {
  if (typeof name !== "string" || name === "") throw new ZomError("InvalidArgument", "registerLocalCodec: name must be a non-empty string");
  const url = `${LOCAL}${name}`;
  module.catch(() => {});
  modules.set(name, url);
  loaded.set(url, module);
}

/** True when a registered codec can run on the calling thread only ({@link registerLocalCodec}). @internal */
export function hasLocalCodecs(): boolean {
  for (const url of modules.values()) if (url.startsWith(LOCAL)) return true;
  return false;
}

/** The registered names and their module URLs (for the decode workers). */
export function registeredCodecs(): Record<string, string> {
  return Object.fromEntries(modules);
}

/** The codec names, for validation (known) and the workers' instances. */
export function registeredNames(): string[] {
  return [...modules.keys()];
}

/**
 * The module of `url`, imported once (per thread: the decode workers import it too; this is
 * the worker bundle's one dynamic import, which scripts/build.mjs allows).
 */
export function importCodec(url: string): Promise<CodecModule> {
  let module = loaded.get(url);
  if (module === undefined && url.startsWith(LOCAL)) {
    return Promise.reject(new ZomError("UnknownCodec", `codec '${url.slice(LOCAL.length)}' is registered on another thread only`));
  }
  if (module === undefined) {
    module = import(/* @vite-ignore */ /* webpackIgnore: true */ url).then((m: Partial<CodecModule>) => {
      if (typeof m?.decode !== "function") throw new ZomError("InvalidArgument", `the codec module ${url} exports no decode function`);
      return m as CodecModule;
    });
    module.catch(() => loaded.delete(url));
    loaded.set(url, module);
  }
  return module;
}

/** The module URL of a step's codec (a numcodecs id also matches `numcodecs.<id>`). */
function moduleOf(table: Record<string, string>, name: string): string | undefined {
  return table[name] ?? (name.startsWith(NUMCODECS_PREFIX) ? table[name.slice(NUMCODECS_PREFIX.length)] : undefined);
}

/**
 * Applies `steps` in order to `bytes` on this thread, with the modules of `table`: what the
 * core's `decodeExternal` option calls when no worker does it.
 */
export async function applySteps(table: Record<string, string>, steps: CodecStep[], bytes: Uint8Array): Promise<Uint8Array> {
  let out = bytes;
  for (const step of steps) {
    const url = moduleOf(table, step.name);
    if (url === undefined) throw new ZomError("UnknownCodec", `codec '${step.name}' is not registered`);
    out = bytesOf(step.name, await (await importCodec(url)).decode(out, step));
  }
  return out;
}

/** A codec's answer as bytes: a Uint8Array, or a view of another type over the same memory. */
export function bytesOf(name: string, decoded: unknown): Uint8Array {
  if (decoded instanceof Uint8Array) return decoded;
  if (ArrayBuffer.isView(decoded)) return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
  throw new ZomError("CodecError", `codec '${name}': decode must return a Uint8Array or another typed array`);
}
