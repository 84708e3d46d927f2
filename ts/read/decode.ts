/**
 * Chunk decoding: the encoded bytes of a chunk in, its values out as the JS values docs/js-api.md's
 * table lists (TypedArrays for numbers, string[] for strings, Uint8Array[] for byte strings, plain
 * objects for structs, one TypedArray per element for numcodecs vlen-array). The decoding itself happens in WebAssembly.
 * @module
 */

import type { RawDecoderOptions } from "../generated/boundary.js";
import { requireInit } from "../parts/reader.js";
import { toZomError, ZomError } from "../shared/errors.js";
import { withUnderstood } from "../shared/extensions.js";
import type { ArrayZom, JsonValue, LimitsOptions, NumericArray } from "../shared/types.js";
import * as raw from "../zom_wasm.js";

/** The values of a decoded chunk, by data type. */
export type ChunkData = NumericArray | JsonValue[] | Uint8Array[] | NumericArray[] | string[] | { [field: string]: unknown }[];

/** A decoded region: its values in C order and its shape. */
export interface Chunk<D extends ChunkData = ChunkData> {
  data: D;
  shape: number[];
}

/** Array metadata a decoder accepts: a v3 array `zarr.json`, a v2 `.zarray`, or a ZOM array. */
export type ArrayMetadata = ArrayZom | { [key: string]: JsonValue };

/** What {@link decodeChunk} accepts as encoded bytes; `null` reads the chunk as missing. */
export type EncodedChunk = Uint8Array | ArrayBuffer | null | undefined;

/** Options of a decode. */
export interface DecodeOptions {
  /** A TypedArray of exactly the decoded size: numeric values are written straight into it (one copy out of WebAssembly, no new buffer). */
  out?: ArrayBufferView;
}

/** Options of a {@link ChunkDecoder}. */
export interface DecoderOptions {
  /** Limits for this decoder (over those of `setLimits`): `maxChunkBytes`, `maxShardIndexBytes`, `maxDocumentBytes`, `maxJsonDepth`. */
  limits?: LimitsOptions;
}

/** A decoded region as the WebAssembly side returns it (element bytes or JS values). @internal */
export type RawChunk =
  | { shape: number[]; kind: "values"; values: ChunkData }
  | { shape: number[]; kind: "arrays"; item: string; values: Uint8Array[] }
  | { shape: number[]; kind: string; bytes: Uint8Array };

interface Float16ArrayConstructor {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayLike<number>;
  BYTES_PER_ELEMENT: number;
}

const VIEWS: { [kind: string]: { new (b: ArrayBufferLike, o: number, n: number): ChunkData; BYTES_PER_ELEMENT: number } } = {
  bool: Uint8Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  float32: Float32Array,
  float64: Float64Array,
  complex64: Float32Array,
  complex128: Float64Array,
};

function view(kind: string, bytes: Uint8Array): ChunkData {
  if (kind === "float16") {
    const F16 = (globalThis as { Float16Array?: Float16ArrayConstructor }).Float16Array;
    if (F16 === undefined) return raw.float16ToFloat32(bytes);
    return new F16(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2) as unknown as ChunkData;
  }
  const View = VIEWS[kind];
  if (View === undefined) throw new ZomError("CodecError", `no TypedArray for values of kind '${kind}'`);
  // Views need aligned offsets; the bytes from WebAssembly start a buffer of their own.
  const aligned = bytes.byteOffset % View.BYTES_PER_ELEMENT === 0 ? bytes : bytes.slice();
  return new View(aligned.buffer, aligned.byteOffset, aligned.byteLength / View.BYTES_PER_ELEMENT);
}

/** The JS values of a raw decoded region (views of its bytes, or into `options.out`). @internal */
export function finish(result: RawChunk, options: DecodeOptions): Chunk {
  if (result.kind === "values") return { data: (result as { values: ChunkData }).values, shape: result.shape };
  if (result.kind === "arrays") {
    const { item, values } = result as { item: string; values: Uint8Array[] };
    return { data: values.map((b) => view(item, b)) as NumericArray[], shape: result.shape };
  }
  const bytes = (result as { bytes: Uint8Array }).bytes;
  const out = options.out;
  if (out !== undefined) {
    if (out.byteLength !== bytes.byteLength) {
      throw new ZomError("InvalidArgument", `the output buffer holds ${out.byteLength} bytes; the chunk decodes to ${bytes.byteLength}`);
    }
    // The decoder may have written straight into `out` (then `bytes` is a view of it).
    if (bytes.buffer !== out.buffer || bytes.byteOffset !== out.byteOffset) {
      new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes);
    }
    return { data: out as unknown as ChunkData, shape: result.shape };
  }
  return { data: view(result.kind, bytes), shape: result.shape };
}

function asBytes(bytes: EncodedChunk): Uint8Array | undefined {
  if (bytes === null || bytes === undefined) return undefined;
  return bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
}

/** An array opened for decoding: its codecs are checked once (unknown ones throw here). */
export class ChunkDecoder {
  readonly #inner: raw.ChunkDecoder;

  /** Opens an array from its metadata; `path` (its node path) appears in errors and keys. */
  constructor(meta: ArrayMetadata | string, path = "", options: DecoderOptions = {}) {
    requireInit();
    try {
      this.#inner = new raw.ChunkDecoder(meta, path, withUnderstood(options) satisfies RawDecoderOptions);
    } catch (e) {
      throw toZomError(e);
    }
  }

  /** Decodes the chunk at `coords` (null bytes: a missing chunk, read as the fill value). */
  decode(bytes: EncodedChunk, coords: number[], options: DecodeOptions = {}): Chunk {
    let result: RawChunk;
    try {
      const out = options.out;
      const target = out === undefined ? undefined : new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      result = this.#inner.decode(asBytes(bytes), new Float64Array(coords), target) as RawChunk;
    } catch (e) {
      throw toZomError(e);
    }
    return finish(result, options);
  }

  /** The store key of the chunk at `coords`, relative to the store root. */
  chunkKey(coords: number[]): string {
    try {
      return this.#inner.chunkKey(new Float64Array(coords));
    } catch (e) {
      throw toZomError(e);
    }
  }

  /** The array's shape. */
  get shape(): number[] {
    return Array.from(this.#inner.shape);
  }

  /** The shape of a stored chunk (of a shard, for a sharded array); on a rectilinear grid whose chunks differ in shape, the first chunk's. */
  get chunkShape(): number[] {
    return Array.from(this.#inner.chunkShape);
  }

  /** The number of chunks along each dimension. */
  get gridShape(): number[] {
    return Array.from(this.#inner.gridShape);
  }

  /** The data type, in its v3 JSON form. */
  get dataType(): JsonValue {
    return this.#inner.dataType as JsonValue;
  }

  /** Frees the WebAssembly side now rather than at garbage collection. */
  free(): void {
    this.#inner.free();
  }
}

/**
 * Decodes one chunk of an array given its metadata. For many chunks of one array, open a
 * {@link ChunkDecoder} once instead.
 */
export function decodeChunk(
  meta: ArrayMetadata | string,
  bytes: EncodedChunk,
  coords: number[],
  options: DecodeOptions & DecoderOptions = {},
): Chunk {
  const decoder = new ChunkDecoder(meta, "", options);
  try {
    return decoder.decode(bytes, coords, options);
  } finally {
    decoder.free();
  }
}
