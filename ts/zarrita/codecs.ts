/**
 * zarrita's codec `registry`: a Map of codec name → `() => Promise<Codec class>`. Setting a
 * name registers the codec with zom (`registerLocalCodec`): zom's core hands it the chunk's
 * stored bytes wherever zom's own reading puts registered codecs (the trailing run of them),
 * on the calling thread. The names already in it are the codecs zarrita builds in, which zom
 * decodes itself (their loaders say so when called).
 * @module
 */
import { registerLocalCodec, unregisterCodec } from "../codecs.js";
import type { CodecStep } from "../codecs.js";
import { UnsupportedError } from "./errors.js";

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

const BUILT_IN = [
  "blosc", "lz4", "zstd", "gzip", "zlib", "transpose", "bytes", "crc32c", "vlen-utf8", "json2", "bitround", "cast_value", "scale_offset",
  "numcodecs.blosc", "numcodecs.lz4", "numcodecs.zstd", "numcodecs.gzip", "numcodecs.zlib", "numcodecs.vlen-utf8", "numcodecs.shuffle",
  "numcodecs.delta", "numcodecs.bitround", "numcodecs.json2",
];

/** A built-in codec's loader: zom decodes it in its core, there is no JS class to give. */
function builtIn(name: string): Loader {
  return () => Promise.reject(new UnsupportedError(`codec '${name}' is decoded by zom's core and has no JavaScript class`));
}

/** The bytes of what a codec's decode returned: bytes, a TypedArray, or a chunk's `data`. */
function bytesOf(value: unknown): Uint8Array {
  const data = value !== null && typeof value === "object" && "data" in value && !ArrayBuffer.isView(value) ? (value as { data: unknown }).data : value;
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
  if (name.startsWith("numcodecs.")) registerLocalCodec(name.slice("numcodecs.".length), Promise.resolve(module));
}

/** zarrita's codec registry: `registry.set(name, () => import("…").then((m) => m.default))`. */
class CodecRegistry extends Map<string, Loader> {
  constructor() {
    super();
    for (const name of BUILT_IN) super.set(name, builtIn(name));
  }
  override set(name: string, load: Loader): this {
    if (typeof load !== "function") throw new TypeError(`registry.set('${name}', …) takes a function returning the codec class`);
    register(name, load);
    return super.set(name, load);
  }
  override delete(name: string): boolean {
    unregisterCodec(name);
    if (name.startsWith("numcodecs.")) unregisterCodec(name.slice("numcodecs.".length));
    return super.delete(name);
  }
}

/** zarrita's codec registry (a Map): names set here are decoded by the given classes. */
export const registry: Map<string, Loader> = new CodecRegistry();
