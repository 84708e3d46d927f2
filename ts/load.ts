/**
 * Loading zom's WebAssembly module: explicitly with {@link init}, or on first use. "zom"
 * carries the module's bytes inside its JavaScript, so any bundler ships them with no
 * configuration and the first call loads them synchronously when `init` was not awaited;
 * "zom/manual" carries none and is told where the module is.
 * @module
 */
import { initSync, setBuiltinSpecs } from "./zom_wasm.js";
import { BUILTIN_SPECS } from "./zom_schemas.js";
import { ZomError } from "./errors.js";
import { configureWorkers } from "./pool/settings.js";
import { entry } from "./runtime.js";
import type { WorkerSource } from "./runtime.js";

/**
 * Where the WebAssembly comes from: a URL (or URL string; in Node also a `file:` URL or a file
 * path), the module's bytes, a fetch `Response`, or a compiled `WebAssembly.Module`.
 */
export type InitSource = URL | string | BufferSource | Response | WebAssembly.Module;

/** What {@link init} accepts besides a bare {@link InitSource}. */
export interface InitOptions {
  /**
   * The WebAssembly module. Default: "zom" uses the bytes it carries; "zom/manual" fetches
   * `zom_wasm_bg.wasm` from next to itself (`zom/wasm` in the package's exports).
   */
  wasm?: InitSource | Promise<InitSource>;
  /** Where the decode workers come from (see {@link WorkerSource}); default: zom's own code, from a `blob:` URL (in Node: evaluated). */
  worker?: WorkerSource;
  /** The default number of decode workers of every read: 0 decodes on the calling thread. Default: the machine's parallelism, at most 8. */
  workers?: number;
}

let ready: Promise<void> | undefined;
/** Whether the load under way uses the entry's own bytes (a synchronous load may overtake it). */
let readyIsBundled = false;
let compiled: WebAssembly.Module | undefined;

/** The compiled module once zom is loaded (the decode workers instantiate it). @internal */
export function wasmModule(): WebAssembly.Module | undefined {
  return compiled;
}

/** True once the WebAssembly is loaded. */
export function isInitialized(): boolean {
  return compiled !== undefined;
}

/**
 * Makes sure the WebAssembly is loaded before a synchronous call: loads the entry's own bytes
 * now if it has them, else throws a ZomError("InvalidArgument") saying what to do.
 */
export function requireInit(): void {
  if (compiled !== undefined) return;
  const bundled = entry().bundled;
  if (ready !== undefined && !readyIsBundled) {
    throw new ZomError("InvalidArgument", "zom is still loading the WebAssembly given to init(): await init() before calling this");
  }
  if (bundled === undefined) {
    throw new ZomError(
      "InvalidArgument",
      'zom is not initialized: `await init()` from "zom/manual" first (or import "zom", which carries the WebAssembly)',
    );
  }
  start(new WebAssembly.Module(bundled() as BufferSource));
}

/** Makes sure the WebAssembly is loaded before an asynchronous call (compiling off the main thread when it can). */
export async function whenInit(): Promise<void> {
  if (compiled !== undefined) return;
  if (ready === undefined && entry().bundled === undefined) requireInit(); // throws what to do
  await init();
}

/**
 * Loads and instantiates the WebAssembly module, once: later calls return the same promise
 * (a later `wasm` is ignored); after a failure the next call tries again. Also sets the
 * decode workers' source and default count, for the reads that start after it.
 *
 * ```ts
 * await init();                                          // "zom": optional (the first call loads it)
 * await init({ wasm: new URL("/assets/zom.wasm", location.href), workers: 2 });  // "zom/manual"
 * ```
 */
export function init(options?: InitOptions | InitSource | Promise<InitSource>): Promise<void> {
  const opts = isOptions(options) ? options : { wasm: options };
  configureWorkers({ worker: opts.worker, workers: opts.workers });
  if (compiled !== undefined) return Promise.resolve();
  if (ready === undefined) {
    readyIsBundled = opts.wasm === undefined && entry().bundled !== undefined;
    ready = instantiate(opts.wasm).catch((e: unknown) => {
      ready = undefined;
      throw e;
    });
  }
  return ready;
}

/** A plain options object rather than a source (sources are never plain objects). */
function isOptions(x: unknown): x is InitOptions {
  return typeof x === "object" && x !== null && Object.getPrototypeOf(x) === Object.prototype;
}

function start(module: WebAssembly.Module): void {
  initSync({ module });
  // The built-in hierarchy specs ship as data beside the module (scripts/build.mjs writeSchemas).
  setBuiltinSpecs(Object.keys(BUILTIN_SPECS), Object.values(BUILTIN_SPECS));
  compiled = module;
}

async function instantiate(source: InitSource | Promise<InitSource> | undefined): Promise<void> {
  const { bundled, bundledAsync, beside, runtime } = entry();
  let input: InitSource | undefined = await source;
  if (input === undefined && bundled !== undefined) input = bundledAsync === undefined ? bundled() : await bundledAsync();
  input ??= beside?.();
  if (input === undefined) throw new ZomError("InvalidArgument", "init() needs the WebAssembly: init({ wasm: url })");
  if ((typeof input === "string" || input instanceof URL) && runtime.readFile !== undefined && isLocal(input)) {
    input = await runtime.readFile(input);
  }
  const module = await compile(input);
  // A synchronous call may have loaded the carried bytes meanwhile.
  if (compiled === undefined) start(module);
}

/** A `file:` URL or a path (not a URL of another scheme). */
function isLocal(location: string | URL): boolean {
  if (location instanceof URL) return location.protocol === "file:";
  try {
    const url = new URL(location);
    return url.protocol === "file:" || /^[a-z]:$/i.test(url.protocol); // "C:\…" parses as a URL
  } catch {
    return true;
  }
}

/** What to do when the WebAssembly is not where zom looked (an asset a bundler did not copy). */
const MISSING_WASM_HELP =
  'a bundler that does not copy assets (esbuild, Rollup) leaves zom_wasm_bg.wasm behind: import "zom" instead of "zom/manual" ' +
  "(it carries the WebAssembly), or serve node_modules/zom/pkg/zom_wasm_bg.wasm yourself and pass its URL: init({ wasm: url })";

async function compile(input: InitSource): Promise<WebAssembly.Module> {
  if (input instanceof WebAssembly.Module) return input;
  if (typeof input === "string" || input instanceof URL) input = await fetch(input);
  if (typeof Response === "function" && input instanceof Response) {
    if (!input.ok) {
      throw new ZomError("NotFound", `the WebAssembly could not be fetched: HTTP ${input.status} from ${input.url}; ${MISSING_WASM_HELP}`);
    }
    const type = input.headers.get("Content-Type") ?? "";
    if (type.startsWith("text/html")) {
      throw new ZomError("NotFound", `${input.url} is an HTML page, not zom's WebAssembly; ${MISSING_WASM_HELP}`);
    }
    if (typeof WebAssembly.compileStreaming === "function") {
      try {
        return await WebAssembly.compileStreaming(input.clone());
      } catch (e) {
        // A server that does not say application/wasm: compile the bytes instead.
        if (type === "application/wasm") throw e;
      }
    }
    return WebAssembly.compile(await input.arrayBuffer());
  }
  return WebAssembly.compile(input as BufferSource);
}
