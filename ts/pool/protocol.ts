/**
 * The messages between the decode pool (ts/pool/pool.ts) and its workers (ts/pool/worker.ts).
 * @module
 */

/** An error as plain data: the core's code and location when it is a ZomError. */
export interface WireError {
  code: string | null;
  message: string;
  path: string | null;
  key: string | null;
}

/** Main thread → worker. */
export type ToWorker =
  /** Instantiate this module (the main thread's, compiled once). */
  | { t: "init"; module: WebAssembly.Module }
  /**
   * Decode the first `length` bytes of `bytes` (transferred), a chunk of array `a` (`inner`:
   * an inner chunk of a shard); `meta`, `path` and `limits` come with the first request of each array
   * to each worker. `spare`: buffers of decoded chunks the main thread is done with, for the
   * worker to write later chunks into. With `out` (the read's output, shared) the worker
   * copies the chunk's selected elements (of `item` bytes) there as `place` says (ts/pool/place.ts) and
   * answers without bytes, unless `keep` (a read through a chunk cache) asks for the decoded
   * chunk too.
   */
  | {
      t: "decode";
      id: number;
      a: number;
      meta?: string;
      path?: string;
      limits?: unknown;
      /** The registered codec names (ts/shared/codecs.ts), with `meta`. */
      codecs?: string[];
      /** The codec parts the array's decoding calls (ts/parts/codec-calls.ts), compiled, with `meta`. */
      parts?: [string, WebAssembly.Module][];
      inner: boolean;
      /** The chunk's shape, for an array whose chunks differ in shape (a rectilinear grid). */
      shape?: Float64Array;
      bytes: ArrayBuffer;
      length: number;
      spare: ArrayBuffer[];
      out?: SharedArrayBuffer;
      item?: number;
      place?: Float64Array;
      keep?: boolean;
      /** Answer in a buffer of exactly the chunk's size (it may become the read's output). */
      exact?: boolean;
    }
  /**
   * Apply registered codecs (ts/shared/codecs.ts): `steps` in order to the first `length` bytes of
   * `bytes` (transferred), importing each step's module from `modules` (name → URL).
   */
  | {
      t: "external";
      id: number;
      steps: { name: string; configuration: Record<string, unknown> }[];
      modules: Record<string, string>;
      bytes: ArrayBuffer;
      length: number;
    }
  /** Drop the decoder of array `a`. */
  | { t: "forget"; a: number };

/** Worker → main thread. */
export type FromWorker =
  | { t: "ready" }
  | { t: "failed"; error: WireError }
  /**
   * The answer to decode request `id`: the chunk's element bytes (the first `length` bytes of
   * `bytes`, transferred; none when they went into the shared output), or an error; `input`
   * is the request's buffer, given back for reuse; `memory`: the size of the worker's
   * WebAssembly memory after the decode.
   */
  | { t: "done"; id: number; bytes?: ArrayBuffer; length: number; input: ArrayBuffer; memory?: number }
  | { t: "done"; id: number; error: WireError; fatal: boolean; input: ArrayBuffer };
