/**
 * Loading zom's WebAssembly module: explicitly with {@link init}, or on first use. "zom"
 * carries the module's bytes inside its JavaScript, so any bundler ships them with no
 * configuration and the first call loads them synchronously when `init` was not awaited;
 * "zom/manual" carries none and is told where the module is.
 * @module
 */

import { configureWorkers } from "../pool/settings.js";
import type { WorkerSource } from "../runtime/entry.js";
import { entry } from "../runtime/entry.js";
import * as glue from "../zom_wasm.js";
import { partCaller } from "./codec-calls.js";
import type { InitSource } from "./loader.js";
import { PartLoader } from "./loader.js";
import { addHome, partStarted } from "./shared.js";

export type { InitSource } from "./loader.js";

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

const reader = new PartLoader({
  entry: "zom",
  start(module) {
    glue.initSync({ module });
    glue.setPartCaller(partCaller);
    partStarted(glue);
  },
  sources() {
    const { bundled, beside, runtime } = entry();
    return { bundled, beside, readFile: runtime.readFile };
  },
});
addHome(reader);

/** The compiled module once zom is loaded (the decode workers instantiate it). @internal */
export function wasmModule(): WebAssembly.Module | undefined {
  return reader.module;
}

/** True once the WebAssembly is loaded. */
export function isInitialized(): boolean {
  return reader.module !== undefined;
}

/**
 * Makes sure the WebAssembly is loaded before a synchronous call: loads the entry's own bytes
 * now if it has them, else throws a ZomError("InvalidArgument") saying what to do.
 */
export function requireInit(): void {
  reader.require();
}

/** Makes sure the WebAssembly is loaded before an asynchronous call (compiling off the main thread when it can). */
export function whenInit(): Promise<void> {
  return reader.when();
}

/**
 * Loads and instantiates the WebAssembly module, once: later calls return the same promise
 * (a later `wasm` is ignored); after a failure the next call tries again. Also sets the
 * decode workers' source and default count, for the reads that start after it, and starts
 * those workers in the background (unless the count is 0), so that later reads find them up.
 *
 * ```ts
 * await init();                                          // "zom": optional (the first call loads it)
 * await init({ wasm: new URL("/assets/zom.wasm", location.href), workers: 2 });  // "zom/manual"
 * ```
 */
export function init(options?: InitOptions | InitSource | Promise<InitSource>): Promise<void> {
  const opts = isOptions(options) ? options : { wasm: options };
  configureWorkers({ worker: opts.worker, workers: opts.workers });
  const loaded = reader.load(opts.wasm);
  loaded.then(
    () => afterInit?.(),
    () => {},
  );
  return loaded;
}

/** What `init` starts once the module is loaded (the decode pool registers it). */
let afterInit: (() => void) | undefined;

/** Registers what `init` starts once the module is loaded. @internal */
export function onInit(start: () => void): void {
  afterInit = start;
}

/** A plain options object rather than a source (sources are never plain objects). */
function isOptions(x: unknown): x is InitOptions {
  return typeof x === "object" && x !== null && Object.getPrototypeOf(x) === Object.prototype;
}
