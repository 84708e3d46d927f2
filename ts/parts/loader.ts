/**
 * Loading one WebAssembly part of zom (ARCHITECTURE.md, "Parts"): the reader ("zom") or the
 * validator's tools ("zom/validate"). A part loads once, from the bytes its entry carries, from
 * a source given to `init`, or from next to the entry; synchronously for a synchronous first
 * call, compiled off the main thread otherwise.
 * @module
 */
import { ZomError } from "../shared/errors.js";

/** Where a part's WebAssembly comes from when no source is given. */
export interface PartSources {
  /** The module's bytes, synchronously, when the entry carries them. */
  bundled?: () => Uint8Array;
  /** Where the module is when the entry carries none (next to it). */
  beside?: () => URL;
  /** Reads a `file:` URL or a file path (Node). */
  readFile?: (location: URL | string) => Promise<Uint8Array>;
}

/**
 * Where the WebAssembly comes from: a URL (or URL string; in Node also a `file:` URL or a file
 * path), the module's bytes, a fetch `Response`, or a compiled `WebAssembly.Module`.
 */
export type InitSource = URL | string | BufferSource | Response | WebAssembly.Module;

/** How a part is set up: its name in messages, what starts it, and its sources. */
export interface PartConfig {
  /** The entry that carries it, for messages ("zom", "zom/validate"). */
  entry: string;
  /** Instantiates the compiled module (the glue's `initSync`) and hands it its data. */
  start(module: WebAssembly.Module): void;
  /** The entry's sources (asked at load time: entries may merge meanwhile). */
  sources(): PartSources;
}

/** One part's loading state. */
export class PartLoader {
  readonly #config: PartConfig;
  #ready: Promise<void> | undefined;
  /** Whether the load under way uses the entry's own bytes (a synchronous load may overtake it). */
  #readyIsBundled = false;
  #compiled: WebAssembly.Module | undefined;

  constructor(config: PartConfig) {
    this.#config = config;
  }

  /** The compiled module once loaded. */
  get module(): WebAssembly.Module | undefined {
    return this.#compiled;
  }

  /** Whether {@link require} can load now: loaded, or the entry carries the bytes and no other source is loading. */
  canRequire(): boolean {
    if (this.#compiled !== undefined) return true;
    return this.#config.sources().bundled !== undefined && (this.#ready === undefined || this.#readyIsBundled);
  }

  /** Loads the entry's own bytes now if nothing is loaded, else throws what to do. */
  require(): void {
    if (this.#compiled !== undefined) return;
    const { bundled } = this.#config.sources();
    if (this.#ready !== undefined && !this.#readyIsBundled) {
      throw new ZomError("InvalidArgument", "zom is still loading the WebAssembly given to init(): await init() before calling this");
    }
    if (bundled === undefined) {
      throw new ZomError(
        "InvalidArgument",
        `zom is not initialized: \`await init()\` from "zom/manual" first (or import "${this.#config.entry}", which carries the WebAssembly)`,
      );
    }
    this.#start(new WebAssembly.Module(bundled() as BufferSource));
  }

  /**
   * Loads before an asynchronous call (compiling off the main thread when it can): the bytes
   * the entry carries, else the module beside it ("zom/manual": fetched, compiled as it
   * downloads).
   */
  async when(): Promise<void> {
    if (this.#compiled !== undefined) return;
    const { bundled, beside } = this.#config.sources();
    if (this.#ready === undefined && bundled === undefined && beside === undefined) this.require(); // throws what to do
    await this.load();
  }

  /** Loads and instantiates the module once; after a failure the next call tries again. */
  load(source?: InitSource | Promise<InitSource>): Promise<void> {
    if (this.#compiled !== undefined) return Promise.resolve();
    if (this.#ready === undefined) {
      this.#readyIsBundled = source === undefined && this.#config.sources().bundled !== undefined;
      this.#ready = this.#instantiate(source).catch((e: unknown) => {
        this.#ready = undefined;
        throw e;
      });
    }
    return this.#ready;
  }

  #start(module: WebAssembly.Module): void {
    this.#config.start(module);
    this.#compiled = module;
  }

  async #instantiate(source: InitSource | Promise<InitSource> | undefined): Promise<void> {
    const { bundled, beside, readFile } = this.#config.sources();
    let input: InitSource | undefined = await source;
    if (input === undefined && bundled !== undefined) input = bundled();
    input ??= beside?.();
    if (input === undefined) throw new ZomError("InvalidArgument", "init() needs the WebAssembly: init({ wasm: url })");
    if ((typeof input === "string" || input instanceof URL) && readFile !== undefined && isLocal(input)) {
      input = await readFile(input);
    }
    const module = await compile(input);
    // A synchronous call may have loaded the carried bytes meanwhile.
    if (this.#compiled === undefined) this.#start(module);
  }
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

/** Compiles a source: streaming from a fetch answer where the engine can. */
export async function compile(input: InitSource): Promise<WebAssembly.Module> {
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
