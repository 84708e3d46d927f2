/**
 * zarrita's codec `registry`: a Map of codec name → `() => Promise<Codec class>`. Setting a
 * name registers the codec with zom (`registerLocalCodec`): zom's core hands it the chunk's
 * stored bytes wherever zom's own reading puts registered codecs (the trailing run of them),
 * on the calling thread. The names already in it are the codecs zarrita builds in, which zom
 * decodes itself: their classes decode a chunk's whole pipeline in zom's core (for code that
 * builds pipelines from the registry, as fizarrita does).
 * @module
 */

import { CODEC_NAMES, NUMCODECS_PREFIX } from "../generated/boundary.js";
import { requireInit } from "../parts/reader.js";
import { ChunkDecoder } from "../read/decode.js";
import type { CodecStep } from "../shared/codecs.js";
import { registerLocalCodec, unregisterCodec } from "../shared/codecs.js";
import * as raw from "../zom_wasm.js";
import { shapeOf, zarrJsonOf } from "./dtype.js";
import { toZarritaError, UnsupportedError } from "./errors.js";
import { getStrides } from "./layout.js";
import { toZarrita } from "./typedarray.js";
import type { ArrayMetadata } from "./types.js";

/** A codec instance as zarrita's codecs are: `decode` of bytes (or of a chunk, for array codecs). */
export interface Codec {
  kind?: "array_to_array" | "array_to_bytes" | "bytes_to_bytes";
  decode(data: Uint8Array): unknown;
  encode?(data: unknown): unknown;
}

/** A codec class (or object) as zarrita's registry holds: made from its configuration. */
export interface CodecEntry {
  fromConfig: (configuration: unknown, meta: unknown) => Codec | Promise<Codec>;
  kind?: "array_to_array" | "array_to_bytes" | "bytes_to_bytes";
}

type Loader = () => Promise<CodecEntry> | CodecEntry;

/**
 * What pipeline builders hand a codec class besides its configuration: the chunk's data type,
 * shape and the pipeline's codecs (zarrita 0.7 in camelCase, fizarrita in snake_case).
 */
interface ChunkMeta {
  data_type?: string;
  dataType?: string;
  chunk_shape?: number[];
  shape?: number[];
  codecs?: { name: string; configuration?: Record<string, unknown> }[];
}

type Kind = "array_to_array" | "array_to_bytes" | "bytes_to_bytes";

/** A codec's kind from zom's registry (undefined: one zom does not know). */
function kindOf(name: string): Kind | undefined {
  requireInit();
  return raw.codecKind(name) as Kind | undefined;
}

/** A fill value of the data type's kind (a chunk decoder needs one; present chunks never use it). */
function someFill(dataType: string): unknown {
  if (dataType === "bool") return false;
  if (/^v2:[US]/.test(dataType) || dataType === "string" || dataType === "v2:object") return "";
  return 0;
}

/** A decoder of one chunk's whole pipeline, for a chunk of `meta`'s data type and shape. */
function pipelineDecoder(
  name: string,
  meta: ChunkMeta,
  codecs: NonNullable<ChunkMeta["codecs"]>,
): (bytes: Uint8Array) => { data: unknown; shape: number[]; stride: number[] } {
  const dataType = meta.data_type ?? meta.dataType;
  const shape = meta.chunk_shape ?? meta.shape;
  if (dataType === undefined || shape === undefined) {
    throw new UnsupportedError(`codec '${name}' without the chunk's data type and shape (zom decodes a chunk's whole pipeline at once)`);
  }
  const zarrJson = zarrJsonOf({
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: shape } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: someFill(String(dataType)),
    codecs,
    attributes: {},
  } as unknown as ArrayMetadata);
  let decoder: ChunkDecoder;
  try {
    decoder = new ChunkDecoder(zarrJson as unknown as ConstructorParameters<typeof ChunkDecoder>[0]);
  } catch (e) {
    throw toZarritaError(e);
  }
  const coords = shape.map(() => 0);
  const values = shapeOf(String(dataType));
  return (bytes) => {
    try {
      const chunk = decoder.decode(bytes, coords);
      return { data: toZarrita(chunk.data, values), shape: chunk.shape, stride: getStrides(chunk.shape, "C") };
    } catch (e) {
      throw toZarritaError(e);
    }
  };
}

/**
 * A built-in codec's class, for code that builds zarrita pipelines from the registry itself
 * (fizarrita's decode workers, which ngff-zarr reads with). zom decodes a chunk's whole
 * pipeline in its core: the codec that turns bytes into the array — the array → bytes codec,
 * or in a pipeline without one the bytes → bytes codec applied last — decodes all of it from
 * the stored bytes (given the chunk's data type, shape and codecs), and the other codecs hand
 * on what they get. One codec alone, without the chunk's metadata, is not decoded.
 */
function builtIn(name: string): Loader {
  return () => ({
    fromConfig(configuration: unknown, given: unknown): Codec {
      const meta = (given ?? {}) as ChunkMeta;
      const kind = kindOf(name) ?? "bytes_to_bytes";
      const codecs = meta.codecs ?? [{ name, configuration: (configuration ?? {}) as Record<string, unknown> }];
      const kinds = codecs.map((c) => kindOf(c.name));
      const lastApplied = kinds.includes("array_to_bytes") ? "array_to_bytes" : "bytes_to_bytes";
      const at = kinds.indexOf(lastApplied);
      const decodesAll = kind === lastApplied && codecs[at]?.name === name;
      if (!decodesAll) return { kind, decode: (x: Uint8Array) => x };
      const decode = pipelineDecoder(name, meta, codecs);
      if (kind === "array_to_bytes") return { kind, decode };
      // No array → bytes codec: the pipeline's own (the implicit `bytes`) reads the element bytes.
      return {
        kind,
        decode: (bytes: Uint8Array) => {
          const { data } = decode(bytes);
          const view = data as ArrayBufferView;
          return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        },
      };
    },
  });
}

/** The bytes of what a codec's decode returned: bytes, a TypedArray, or a chunk's `data`. */
function bytesOf(value: unknown): Uint8Array {
  const data =
    value !== null && typeof value === "object" && "data" in value && !ArrayBuffer.isView(value)
      ? (value as { data: unknown }).data
      : value;
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("a registered codec's decode must give bytes, a TypedArray or a chunk of one");
}

/** The configuration zarrita codecs get: without a numcodecs `id`. */
function configurationOf(step: CodecStep): Record<string, unknown> {
  const { id: _, ...rest } = step.configuration ?? {};
  return rest;
}

function register(name: string, load: Loader): void {
  const entry = Promise.resolve().then(load);
  const module = {
    async decode(bytes: Uint8Array, step: CodecStep): Promise<Uint8Array> {
      const Codec = await entry;
      const codec = await Codec.fromConfig(configurationOf(step), { codecs: [], dataType: undefined, shape: [], fillValue: null });
      return bytesOf(await codec.decode(bytes));
    },
  };
  registerLocalCodec(name, Promise.resolve(module));
  // A v2 array names numcodecs by id; "numcodecs.<id>" registers that too.
  if (name.startsWith(NUMCODECS_PREFIX)) registerLocalCodec(name.slice(NUMCODECS_PREFIX.length), Promise.resolve(module));
}

/** zarrita's codec registry: `registry.set(name, () => import("…").then((m) => m.default))`. */
class CodecRegistry extends Map<string, Loader> {
  constructor() {
    super();
    for (const name of CODEC_NAMES) super.set(name, builtIn(name));
  }
  override set(name: string, load: Loader): this {
    if (typeof load !== "function") throw new TypeError(`registry.set('${name}', …) takes a function returning the codec class`);
    register(name, load);
    return super.set(name, load);
  }
  override delete(name: string): boolean {
    unregisterCodec(name);
    if (name.startsWith(NUMCODECS_PREFIX)) unregisterCodec(name.slice(NUMCODECS_PREFIX.length));
    return super.delete(name);
  }
}

/** zarrita's codec registry (a Map): names set here are decoded by the given classes. */
export const registry: Map<string, Loader> = new CodecRegistry();
