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
let compiled: WebAssembly.Module | undefined;

/** The compiled module once {@link init} has finished (the decode workers instantiate it). @internal */
export function wasmModule(): WebAssembly.Module | undefined {
  return compiled;
}

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
  // Compiled here rather than by wasm-bindgen's loader so that the worker pool can reuse it.
  const module = await compile(input);
  await wasmInit({ module_or_path: module });
  compiled = module;
}

async function compile(input: InitSource): Promise<WebAssembly.Module> {
  if (input instanceof WebAssembly.Module) return input;
  if (typeof input === "string" || input instanceof URL) input = await fetch(input);
  if (typeof Response === "function" && input instanceof Response) {
    if (!input.ok) throw new ZomError("NotFound", `the WebAssembly could not be fetched: HTTP ${input.status} from ${input.url}`);
    if (typeof WebAssembly.compileStreaming === "function") {
      try {
        return await WebAssembly.compileStreaming(input.clone());
      } catch (e) {
        // A server that does not say application/wasm: compile the bytes instead.
        if (input.headers.get("Content-Type") === "application/wasm") throw e;
      }
    }
    return WebAssembly.compile(await input.arrayBuffer());
  }
  return WebAssembly.compile(input as BufferSource);
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
