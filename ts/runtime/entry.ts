/**
 * What differs between the places zom runs (browsers and their workers, Node): how a decode
 * worker starts, how many cores there are, whether memory can be shared with workers, how a
 * local file is read. Each entry module (ts/index.ts, ts/node.ts, ts/manual.ts,
 * ts/manual-node.ts, which package.json's `exports` conditions choose between) installs one
 * {@link Runtime} when it is evaluated, so that Node-only modules never enter a browser
 * bundle and no module decides at run time by importing a computed specifier.
 * See ARCHITECTURE.md, "Entry points and runtimes".
 * @module
 */
import type { FromWorker, ToWorker } from "../pool/protocol.js";

/**
 * A worker that runs zom's decode loop, started by the user (the `worker` option of `init`):
 * a Web Worker, or in Node a `worker_threads` Worker.
 */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[] | readonly ArrayBuffer[]): void;
  terminate(): unknown;
}

/**
 * Where the decode workers come from (the `worker` option of `init`): in browsers the URL of
 * zom's worker script (`zom/worker`, pkg/zom_worker.js, served by you: for a
 * Content-Security-Policy that forbids `blob:` workers) or a function that starts a Worker
 * running it; in Node a function that starts a `worker_threads` Worker. By default the worker's
 * code comes with the package and starts from a `blob:` URL (in Node: evaluated from a string).
 */
export type WorkerSource = URL | string | (() => WorkerLike);

/** A started decode worker as the pool drives it. */
export interface WorkerPort {
  post(message: ToWorker, transfer?: ArrayBuffer[]): void;
  terminate(): void;
  /** Node: keep the process alive while a decode is under way. */
  ref?(): void;
  /** Node: let the process exit while the worker is idle. */
  unref?(): void;
}

/** What a started worker reports to the pool. */
export interface WorkerEvents {
  message(message: FromWorker): void;
  /** The worker failed to load or died. */
  error(error: Error): void;
}

/** The platform-specific part of zom (see the module docs). */
export interface Runtime {
  /** Starts one decode worker from `source`, or from the code bundled with the package. */
  startWorker(source: WorkerSource | undefined, events: WorkerEvents): WorkerPort;
  /** The machine's parallelism (logical cores), when known. */
  parallelism(): number | undefined;
  /** Whether a SharedArrayBuffer can be posted to the workers (Node; cross-origin isolated pages). */
  canShareMemory(): boolean;
  /** Reads a `file:` URL or a file path (Node); undefined where there are no files. */
  readFile?(location: URL | string): Promise<Uint8Array>;
}

/** How an entry module sets zom up. */
export interface EntryConfig {
  runtime: Runtime;
  /** The module's bytes, synchronously, when the entry carries them ("zom"). */
  bundled?: () => Uint8Array;
  /** Where the module is when the entry carries none ("zom/manual": next to it). */
  beside?: () => URL;
}

let config: EntryConfig | undefined;

/**
 * Installs the entry's configuration (each entry module calls it once, when evaluated). An app
 * that imports several entries ("zom" and "zom/manual") gets what each gives: the bytes one
 * carries serve the other too.
 */
export function configure(entry: EntryConfig): void {
  config = {
    runtime: config?.runtime ?? entry.runtime,
    bundled: config?.bundled ?? entry.bundled,
    beside: config?.beside ?? entry.beside,
  };
}

/** The configuration of the entry zom was imported through. */
export function entry(): EntryConfig {
  if (config === undefined) {
    throw new Error('zom was imported through an internal file: import "zom" or "zom/manual"');
  }
  return config;
}
