/**
 * Finding and instantiating zom's WebAssembly module, in browsers and in Node.
 * @module
 */
import wasmInit from "./zom_wasm.js";
import { ZomError } from "./errors.js";

/**
 * Where the WebAssembly comes from: a URL (or URL string; in Node also a `file:` URL or a file
 * path), the module's bytes, a fetch `Response`, or a compiled `WebAssembly.Module`.
 */
export type InitSource = URL | string | BufferSource | Response | WebAssembly.Module;

let ready: Promise<void> | undefined;
let loaded = false;

/** True once {@link init} has finished. */
export function isInitialized(): boolean {
  return loaded;
}

/** Throws a ZomError("InvalidArgument") unless the WebAssembly is loaded. */
export function requireInit(): void {
  if (!loaded) {
    throw new ZomError(
      "InvalidArgument",
      'zom is not initialized: `await init()` from "zom/manual" first (or import "zom", which does)',
    );
  }
}

/**
 * Loads and instantiates the WebAssembly module, once: later calls return the same promise
 * (their `source` is ignored); after a failure the next call tries again.
 * Without `source` it loads `zom_wasm_bg.wasm` next to this file.
 */
export function init(source?: InitSource | Promise<InitSource>): Promise<void> {
  ready ??= instantiate(source).then(
    () => {
      loaded = true;
    },
    (e: unknown) => {
      ready = undefined;
      throw e;
    },
  );
  return ready;
}

async function instantiate(source: InitSource | Promise<InitSource> | undefined): Promise<void> {
  let input: InitSource = (await source) ?? new URL("./zom_wasm_bg.wasm", import.meta.url);
  if (isNode() && (typeof input === "string" || input instanceof URL)) {
    input = await readLocal(input);
  }
  await wasmInit({ module_or_path: input });
}

function isNode(): boolean {
  const proc = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  return typeof proc?.versions?.node === "string";
}

/** In Node, fetch() cannot read `file:` URLs: read those (and plain paths) from disk. */
async function readLocal(location: string | URL): Promise<InitSource> {
  let url: URL | undefined;
  if (location instanceof URL) {
    url = location;
  } else {
    try {
      url = new URL(location);
    } catch {
      url = undefined; // not a URL: a file path
    }
    if (url && /^[a-z]:$/i.test(url.protocol)) url = undefined; // a Windows path "C:\…"
  }
  if (url && url.protocol !== "file:") return url;
  // A variable specifier: bundlers for the browser leave it alone, and browsers never run it.
  const fsModule = "node:fs/promises";
  const fs = (await import(fsModule)) as { readFile(path: string | URL): Promise<Uint8Array> };
  return fs.readFile(url ?? location);
}
