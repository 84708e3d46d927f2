/**
 * An opened array: its metadata, and reads of regions and chunks from its store. The reading
 * (the plan, the requests, the decoding and the assembly) happens in WebAssembly, the
 * decoding in a pool of workers unless `workers: 0` (ts/pool/); this class turns the result
 * into the JS values docs/js-api.md's "Values by data type" lists.
 * @module
 */

import type { RawDecodeHook, RawReadOptions } from "../generated/boundary.js";
import { NUMERIC_TYPES } from "../generated/boundary.js";
import { loadParts } from "../parts/codec-load.js";
import { wasmBytes } from "../pool/memory.js";
import { isWhole, output, place } from "../pool/place.js";
import type { PoolArray } from "../pool/pool.js";
import { forgetArray, poolOf } from "../pool/pool.js";
import { checkWorkers, workerSettings } from "../pool/settings.js";
import { entry } from "../runtime/entry.js";
import type { CodecStep } from "../shared/codecs.js";
import { applySteps, hasLocalCodecs, registeredCodecs } from "../shared/codecs.js";
import { toZomError, ZomError } from "../shared/errors.js";
import type { ArrayZom, Attributes, JsonValue, LimitsOptions } from "../shared/types.js";
import { anySignal, raceAbort } from "../store/signal.js";
import type * as raw from "../zom_wasm.js";
import type { ChunkCache } from "./cache.js";
import { cacheId } from "./cache.js";
import type { Chunk, ChunkData, RawChunk } from "./decode.js";
import { finish } from "./decode.js";
import type { Selection } from "./slice.js";

/** Progress of a read: chunks (or shards) done out of those the selection touches. */
export interface ReadProgress {
  done: number;
  total: number;
  /** Chunks (for shards: inner chunks) taken from the read's {@link ChunkCache} so far. */
  cached: number;
}

/** Options of {@link ZarrArray.get}. */
export interface GetOptions {
  /** Aborts the read (passed on to every store call); it rejects with a ZomError "Aborted". */
  signal?: AbortSignal;
  /** Called after each chunk (or shard) is decoded into the output. */
  onProgress?: (progress: ReadProgress) => void;
  /**
   * What the chunks whose requests are in flight may cost, in bytes (each counts its decoded
   * size; default 64 MiB). Every chunk the selection touches is asked for at once as far as
   * this allows; how many requests run at once is the store's own setting
   * ({@link FetchStoreOptions.concurrency}).
   */
  bytesInFlight?: number;
  /** The largest output in bytes (default 1 GiB): larger selections throw "LimitExceeded". Same as `limits.maxBytes`. */
  maxBytes?: number;
  /** Limits for this read, over those the array was opened with (`maxBytes`, `maxChunks`, `maxChunkBytes`, …). */
  limits?: LimitsOptions;
  /** A TypedArray of exactly the output's size to write numeric values into. */
  out?: ArrayBufferView;
  /**
   * Decode workers: 0 decodes on the calling thread; n uses a shared pool of n workers
   * (default: the array's `workers` option from {@link open}, else a pool sized from the
   * machine's parallelism, at most 8). Strings and other variable-length values always
   * decode on the calling thread.
   */
  workers?: number;
  /**
   * Whether workers write decoded chunks straight into an output they share (a
   * SharedArrayBuffer: numeric data types, in Node, and in browsers where the page is
   * cross-origin isolated), rather than hand each chunk back to be copied into place.
   * Default true; where it applies, `data` is then a view of a SharedArrayBuffer.
   */
  sharedOutput?: boolean;
  /**
   * A cache of decoded chunks for this read (default: the array's `cache` option from
   * {@link open}; `null`: none): cached chunks need no request and no decode, and the chunks
   * read are kept.
   */
  cache?: ChunkCache | null;
  /**
   * For the zarr-extensions registry's small types (int2/int4, bfloat16, the float8, float6
   * and float4 families and their complex forms): the stored bits as a Uint8Array (a
   * Uint16Array for bfloat16 and its complex form) rather than the values widened to
   * Int8Array/Uint8Array or Float32Array. Other types are unaffected.
   */
  storedBits?: boolean;
}

/** Options of {@link ZarrArray.getChunk}. */
export interface GetChunkOptions {
  /** Aborts the read; it rejects with a ZomError "Aborted". */
  signal?: AbortSignal;
  /** A TypedArray of exactly the chunk's size to write numeric values into. */
  out?: ArrayBufferView;
  /** Limits for this read, over those the array was opened with. */
  limits?: LimitsOptions;
  /** Decode workers, as {@link GetOptions.workers}. */
  workers?: number;
  /** Whether the workers write into a shared output, as {@link GetOptions.sharedOutput}. */
  sharedOutput?: boolean;
  /** A cache of decoded chunks, as {@link GetOptions.cache}. */
  cache?: ChunkCache | null;
  /** The stored bits of the registry's small types, as {@link GetOptions.storedBits}. */
  storedBits?: boolean;
}

/** One tile of {@link ZarrArray.getChunks}: its chunk coordinates, and a signal that cancels it alone. */
export interface ChunkRequest {
  /** The chunk's coordinates (for a sharded array: an inner chunk's), as {@link ZarrArray.getChunk} takes them. */
  coords: number[];
  /** Cancels this tile only (a pan away from it); the others go on. */
  signal?: AbortSignal;
}

/**
 * A tile of {@link ZarrArray.getChunks} as it arrives: its place in the request list, its
 * coordinates, and its values or why it has none (a cancelled tile: ZomError "Aborted").
 */
export type ChunkResult<D extends ChunkData = ChunkData> =
  | { index: number; coords: number[]; chunk: Chunk<D>; error?: undefined }
  | { index: number; coords: number[]; chunk?: undefined; error: ZomError };

/** Options of {@link ZarrArray.getChunks}: those of {@link ZarrArray.getChunk} but `out`. */
export type GetChunksOptions = Omit<GetChunkOptions, "out">;

/** What {@link open} passes on to the arrays it opens. @internal */
export interface ArrayDefaults {
  workers?: number;
  cache?: ChunkCache;
}

let nextArrayId = 1;

/** An array of a hierarchy, opened with {@link open} or {@link openArray}. */
export class ZarrArray<D extends ChunkData = ChunkData> {
  /** Always "array". */
  readonly kind = "array" as const;
  /** The node path ("" for the store root, "a/b"). */
  readonly path: string;
  /** The array's shape. */
  readonly shape: number[];
  /**
   * The chunk shape reads are made of, as zarr-python's `Array.chunks`: for a sharded array
   * the inner chunk shape. `null` when the array cannot be read (see {@link readError}), or
   * when its chunks differ in shape (a rectilinear grid: see {@link chunkSizes}).
   */
  readonly chunks: number[] | null;
  /** The shard shape of a sharded array (zarr-python's `Array.shards`), else `null`. */
  readonly shards: number[] | null;
  /** The data type in its v3 JSON form ("int32", {name: "fixed_length_utf32", …}). */
  readonly dtype: JsonValue;
  /** The user attributes. */
  readonly attributes: Attributes;
  /** The dimension names (v3), else `null`. */
  readonly dimensionNames: (string | null)[] | null;
  /** The Zarr format. */
  readonly zarrFormat: 2 | 3;
  /** The array's ZOM node. */
  readonly zom: ArrayZom;
  /** Why the array cannot be read (an unknown codec or data type), else `null`; get() throws it. */
  readonly readError: Error | null;
  readonly #handle: raw.ArrayHandle;
  readonly #workers: number | undefined;
  readonly #cache: ChunkCache | undefined;
  readonly #pool: PoolArray;

  /** @internal Made by {@link open} from the WebAssembly side's handle. */
  constructor(wasmHandle: unknown, zom: ArrayZom, defaults: ArrayDefaults = {}) {
    // Typed `unknown` so that the published declarations do not reference the wasm-bindgen ones.
    const handle = wasmHandle as raw.ArrayHandle;
    this.#handle = handle;
    this.#workers = checkWorkers(defaults.workers);
    this.#cache = defaults.cache;
    let meta: string | undefined;
    this.#pool = {
      id: nextArrayId++,
      path: handle.path,
      meta: () => (meta ??= handle.metadataJson),
      limits: () => handle.limits,
      parts: handle.parts,
    };
    this.path = handle.path;
    this.shape = handle.shape as number[];
    this.chunks = handle.chunks as number[] | null;
    this.shards = handle.shards as number[] | null;
    this.dtype = handle.dtype as JsonValue;
    this.attributes = handle.attributes as Attributes;
    this.dimensionNames = handle.dimensionNames as (string | null)[] | null;
    this.zarrFormat = handle.format as 2 | 3;
    this.zom = zom;
    const error = handle.readError as unknown;
    this.readError = error === null ? null : (toZomError(error) as Error);
  }

  /**
   * The lengths of the chunks reads are made of, per dimension, each cut to the array
   * (zarr-python's `read_chunk_sizes`): `[[10, 10, 5], [4, 3]]`. Any grid, rectilinear ones
   * included; `getChunk([i, j])` reads the chunk of row `i` and column `j` of these. Throws
   * `LimitExceeded` when a dimension has more chunks than the `maxChunks` limit.
   */
  chunkSizes(): number[][] {
    try {
      return this.#handle.chunkSizes() as number[][];
    } catch (e) {
      throw toZomError(e);
    }
  }

  /**
   * Reads a selection: `{data, shape}`, values in C order, integer-selected dimensions
   * dropped. Only the chunks (for shards: only the inner chunks) that intersect are fetched,
   * concurrently; missing chunks read as the fill value.
   *
   * ```ts
   * const all = await arr.get();
   * const part = await arr.get([slice(0, 10), 3, null]);
   * ```
   */
  async get(selection?: Selection, options: GetOptions = {}): Promise<Chunk<D>> {
    return this.#read((o) => this.#handle.get(selection ?? null, o), options);
  }

  /**
   * Reads one chunk (for a sharded array: one inner chunk: one range request once the array
   * knows the shard's index, else the index and the range), cut to the array at its edges:
   * `{data, shape}`.
   */
  async getChunk(coords: number[], options: GetChunkOptions = {}): Promise<Chunk<D>> {
    return this.#read((o) => this.#handle.getChunk(coords, o), options);
  }

  /**
   * Reads several tiles (chunks, or inner chunks of shards) at once and gives each as it
   * arrives, in arrival order: what a viewer asks for when it shows a screenful. Every tile
   * is asked for now, together: tiles of one shard share one index request (none once the
   * array knows it) and, through a {@link FetchStore}, adjacent byte ranges become one
   * request. A tile's own `signal` cancels that tile alone, `options.signal` all of them;
   * leaving the loop early cancels those not yet given. A tile that fails (or is cancelled)
   * comes with its `error`; the others are not affected.
   *
   * ```ts
   * for await (const tile of arr.getChunks([[0, 0], [0, 1], { coords: [1, 0], signal }])) {
   *   if (tile.chunk) draw(tile.coords, tile.chunk);
   * }
   * ```
   */
  getChunks(requests: readonly (number[] | ChunkRequest)[], options: GetChunksOptions = {}): AsyncIterableIterator<ChunkResult<D>> {
    const stop = new AbortController();
    const arrived: ChunkResult<D>[] = [];
    let wake: (() => void) | undefined;
    let pending = requests.length;
    requests.forEach((request, index) => {
      const { coords, signal } = Array.isArray(request) ? { coords: request, signal: undefined } : (request as ChunkRequest);
      const tile = { ...options, signal: anySignal([options.signal, signal, stop.signal]) };
      const settle = (result: ChunkResult<D>) => {
        pending -= 1;
        arrived.push(result);
        wake?.();
      };
      this.getChunk(coords, tile).then(
        (chunk) => settle({ index, coords, chunk }),
        (e: unknown) => settle({ index, coords, error: toZomError(e) as ZomError }),
      );
    });
    const next = async (): Promise<IteratorResult<ChunkResult<D>>> => {
      while (arrived.length === 0 && pending > 0) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      const value = arrived.shift();
      return value === undefined ? { done: true, value: undefined } : { done: false, value };
    };
    const iterator: AsyncIterableIterator<ChunkResult<D>> = {
      next,
      return: async () => {
        stop.abort(new ZomError("Aborted", "the tiles were no longer wanted"));
        arrived.length = 0;
        pending = 0;
        wake?.();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * One read by the WebAssembly side, with the decode hook of the pool to use, if any: its
   * values, from the output the workers shared when the core chose to share one.
   */
  async #read(run: (options: RawReadOptions) => Promise<unknown>, options: GetChunkOptions): Promise<Chunk<D>> {
    const cache = options.cache === null ? undefined : (options.cache ?? this.#cache);
    const cached = cache === undefined ? undefined : cacheId(cache);
    let out: ArrayBuffer | SharedArrayBuffer | undefined;
    let item = 1;
    // A read of one chunk makes its output when it needs one: the decoded chunk, when it is
    // the whole output, becomes it uncopied.
    let unmade: { n: number; fill: Uint8Array; one: boolean } | undefined;
    const made = () => (out ??= output(unmade?.n ?? 0, unmade?.fill ?? new Uint8Array(1), false));
    const workers = checkWorkers(options.workers) ?? this.#workers ?? workerSettings.count;
    let hooked: RawReadOptions = cached === undefined ? options : { ...options, cacheId: cached };
    const pool = workers === 0 || this.readError !== null ? undefined : poolOf(workers);
    if (pool !== undefined && !pool.failed) {
      const array = this.#pool;
      const signal = options.signal;
      const share = options.sharedOutput !== false && entry().runtime.canShareMemory();
      const keep = cached !== undefined;
      const adopt = (placement: Float64Array) => (decoded: Uint8Array) => {
        if (out !== undefined || unmade === undefined) return false;
        const n = unmade.n;
        if (decoded.byteOffset !== 0 || decoded.byteLength !== n || decoded.buffer.byteLength !== n || !isWhole(placement, n / item))
          return false;
        out = decoded.buffer as ArrayBuffer;
        return true;
      };
      const decodeHook: RawDecodeHook = {
        // Called by the core once it knows the output's size (fixed-size values only). A
        // read of one chunk gains nothing from an output the workers share, and each
        // SharedArrayBuffer lives on in the worker that saw it until that worker collects it.
        share: (n: number, fill: Uint8Array, decodes: number) => {
          item = fill.length;
          if (share && decodes > 1) out = output(n, fill, true);
          else unmade = { n, fill, one: decodes === 1 };
        },
        // The encoded chunk lies at `ptr` in the WebAssembly memory: viewed and copied out at
        // once. A read with a cache resolves with the whole decoded chunk, which the core keeps.
        decode: (inner: boolean, ptr: number, len: number, placement: Float64Array, shape?: Float64Array) => {
          const bytes = pool.buffer(len);
          bytes.set(wasmBytes(ptr, len));
          if (out === undefined && unmade === undefined) throw new ZomError("InvalidArgument", "a decode before the output was made");
          const shared = out !== undefined && unmade === undefined;
          const target = { out: made, shared, item, place: placement, adopt: unmade?.one ? adopt(placement) : undefined };
          return pool.decode(array, inner, bytes, target, signal, keep, shape);
        },
        // A chunk from the cache: the whole decoded chunk, at `ptr` in the WebAssembly memory.
        place: (ptr: number, len: number, placement: Float64Array) => {
          if (out === undefined && unmade === undefined) throw new ZomError("InvalidArgument", "a chunk placed before the output was made");
          place(wasmBytes(ptr, len), new Uint8Array(made()), item, placement);
        },
        // For values that become JS values in the core (structs, fixed-length strings…).
        output: () => new Uint8Array(unmade === undefined && out === undefined ? new ArrayBuffer(0) : made()),
      };
      hooked = { ...hooked, decodeHook };
    }
    const codecs = registeredCodecs();
    if (Object.keys(codecs).length > 0) {
      // The core calls this for arrays whose trailing codecs are registered ones.
      // Codecs registered as objects on this thread (zom/zarrita's registry) run here.
      const external = pool !== undefined && !pool.failed && !hasLocalCodecs() ? pool : undefined;
      const signal = options.signal;
      const decodeExternal = (steps: CodecStep[], bytes: Uint8Array) =>
        external !== undefined ? external.external(codecs, steps, bytes, signal) : applySteps(codecs, steps, bytes);
      hooked = { ...hooked, decodeExternal };
    }
    let result: RawChunk;
    // The codec parts the array's decoding calls, loaded on this thread (and sent to the
    // workers with the array) before its first read.
    if (this.#pool.parts.length > 0) await loadParts(this.#pool.parts, this.path);
    try {
      // An abort rejects at once, not after the request the read is waiting for.
      const aborted = () =>
        new ZomError("Aborted", `reading ${this.path === "" ? "the root array" : this.path} was aborted`, {
          path: this.path,
          cause: options.signal?.reason,
        });
      result = (await raceAbort(run(hooked), this.path, options.signal, aborted)) as RawChunk;
    } catch (e) {
      throw toZomError(e);
    }
    // A missing chunk (its fill value) needs the output made now. A widened type's values
    // (int4, the small floats) are the core's conversion of that output, not the output.
    const widened = typeof this.dtype === "string" && NUMERIC_TYPES[this.dtype]?.widened === true && options.storedBits !== true;
    if (!widened && (out !== undefined || unmade !== undefined) && "bytes" in result) result.bytes = new Uint8Array(made());
    return finish(result, options) as Chunk<D>;
  }

  /** Frees the WebAssembly side now rather than at garbage collection (and the workers' decoders). */
  free(): void {
    forgetArray(this.#pool.id);
    this.#handle.free();
  }
}
