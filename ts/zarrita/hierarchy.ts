/**
 * zarrita's `Location`, `root`, `Group` and `Array`, over zom's {@link ZarrArray}: the metadata
 * comes from zom's reading of it, reads go through zom's core, and only the JS shapes of the
 * answers are adapted here (zarrita's array-likes, `stride`, chunks padded to the chunk shape).
 * @module
 */

import { isInitialized, requireInit, whenInit } from "../parts/reader.js";
import type { GetChunkOptions, GetOptions as ZomGetOptions } from "../read/array.js";
import { ZarrArray } from "../read/array.js";
import type { Selection } from "../read/slice.js";
import { withUnderstood } from "../shared/extensions.js";
import type { ArrayZom } from "../shared/types.js";
import * as raw from "../zom_wasm.js";
import { dataTypeName, fillScalar, plainJson, shapeOf, zarrJsonOf } from "./dtype.js";
import { InvalidMetadataError, toZarritaError } from "./errors.js";
import type { Order } from "./layout.js";
import { getStrides, projectOrder, relayout } from "./layout.js";
import type { AnyData, Shape } from "./typedarray.js";
import { allocLike, BoolArray, ByteStringArray, copyElement, toZarrita, UnicodeStringArray } from "./typedarray.js";
import type {
  AbsolutePath,
  ArrayMetadata,
  Attributes,
  Chunk,
  DataType,
  DataTypeQuery,
  GetOptions,
  GroupMetadata,
  NarrowDataType,
  Readable,
  Scalar,
  TypedArray,
} from "./types.js";

/** A place in a store: the store and an absolute path ("/", "/a/b"). */
export class Location<Store> {
  constructor(
    public readonly store: Store,
    public readonly path: AbsolutePath = "/",
  ) {}

  /** The location at `path` relative to this one ("b", "../c", "/abs"; "" and a trailing "/" keep a trailing "/"). */
  resolve(path: string): Location<Store> {
    const names = path.startsWith("/") ? [] : this.path.split("/").filter((s) => s !== "");
    const parts = path.split("/");
    for (const part of parts) {
      if (part === "" || part === ".") continue;
      if (part === "..") names.pop();
      else names.push(part);
    }
    const last = parts[parts.length - 1];
    const dir = names.length > 0 && (last === "" || last === "." || last === "..");
    return new Location(this.store, `/${names.join("/")}${dir ? "/" : ""}`);
  }
}

/** The root location of `store` (of a new Map when none is given). */
export function root<Store>(store: Store): Location<Store>;
export function root(): Location<Map<string, Uint8Array>>;
export function root<Store>(store?: Store): Location<Store | Map<string, Uint8Array>> {
  return new Location(store ?? new Map<string, Uint8Array>());
}

/** The node path zom takes for an absolute path ("/a/b/" → "a/b"). */
export function nodePath(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}

/** What {@link open} hands to the classes' constructors in place of metadata. @internal */
const OPENED: unique symbol = Symbol("zom/zarrita opened");
/** The method {@link get} reads through (reachable through an array extension's Proxy). @internal */
export const READ: unique symbol = Symbol("zom/zarrita read");

interface OpenedArray {
  [OPENED]: { array: ZarrArray; attrs: boolean };
}
interface OpenedGroup {
  [OPENED]: { attributes: Attributes };
}

/** A group: its attributes. */
export class Group<Store extends Readable = Readable> extends Location<Store> {
  readonly kind = "group" as const;
  readonly #attrs: Attributes;

  constructor(store: Store, path: AbsolutePath, metadata: GroupMetadata) {
    super(store, path);
    const opened = (metadata as unknown as Partial<OpenedGroup>)[OPENED];
    this.#attrs = opened === undefined ? (metadata.attributes ?? {}) : plainJson(opened.attributes);
  }

  /** The user attributes. */
  get attrs(): Attributes {
    return this.#attrs;
  }

  /** @internal The group {@link open} found. */
  static opened<S extends Readable>(store: S, path: AbsolutePath, attributes: Attributes): Group<S> {
    return new Group(store, path, { [OPENED]: { attributes } } as unknown as GroupMetadata);
  }
}

/** What an array reports, from zom's reading of its metadata or from the metadata it was made with. */
interface Facts {
  shape: number[];
  /** The chunk shape; for chunks that differ in shape (a rectilinear grid), the first one's. */
  chunks: number[];
  /** Whether the chunks differ in shape: `getChunk` then gives each in its own shape. */
  uneven?: boolean;
  dtype: DataType;
  attrs: Attributes;
  dimensionNames: string[] | undefined;
  fillValue: unknown;
  values: Shape;
  /** The metadata the stored order is read from (the core's `storedOrder`). */
  layoutOf: unknown;
}

function factsOfZom(array: ZarrArray, keepAttrs: boolean): Facts {
  const zom = array.zom as ArrayZom & {
    dtype?: unknown;
    chunks?: number[];
    chunk_grid?: { configuration?: { chunk_shape?: number[] } };
    dimension_names?: unknown;
  };
  const dtype = dataTypeName(array.dtype, array.zarrFormat, zom.dtype);
  const attrs = keepAttrs || array.zarrFormat === 3 ? plainJson(array.attributes) : {};
  let dimensionNames: string[] | undefined;
  if (array.zarrFormat === 3) dimensionNames = (zom.dimension_names ?? undefined) as string[] | undefined;
  else if (globalThis.Array.isArray(attrs._ARRAY_DIMENSIONS)) dimensionNames = attrs._ARRAY_DIMENSIONS as string[];
  const uneven = array.chunks === null && array.readError === null;
  const chunks =
    array.chunks ?? (uneven ? firstChunk(array) : undefined) ?? zom.chunks ?? zom.chunk_grid?.configuration?.chunk_shape ?? array.shape;
  return {
    shape: array.shape,
    chunks,
    uneven,
    dtype,
    attrs,
    dimensionNames,
    fillValue: fillScalar(zom.fill_value, dtype),
    values: shapeOf(dtype),
    layoutOf: zom,
  };
}

/** The first chunk's shape, cut to the array, of an array whose chunks differ in shape. */
function firstChunk(array: ZarrArray): number[] | undefined {
  try {
    return array.chunkSizes().map((sizes) => sizes[0] ?? 0);
  } catch {
    return undefined;
  }
}

function factsOfMetadata(meta: ArrayMetadata): Facts {
  const sharding = (meta.codecs ?? []).find((c) => c.name === "sharding_indexed");
  const inner = (sharding?.configuration as { chunk_shape?: number[] } | undefined)?.chunk_shape;
  const dtype = meta.data_type;
  return {
    shape: meta.shape,
    chunks: inner ?? meta.chunk_grid.configuration.chunk_shape,
    dtype,
    attrs: meta.attributes ?? {},
    dimensionNames: meta.dimension_names,
    fillValue: fillScalar(meta.fill_value, dtype),
    values: shapeOf(dtype),
    layoutOf: meta,
  };
}

const product = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/**
 * `data` (of `shape`, cut at the array's edge) inside a region of `full` shape, the rest
 * `fill`: zarrita's chunks always have the chunk shape.
 */
function pad(data: AnyData, shape: number[], full: number[], fill: unknown): AnyData {
  const n = product(shape);
  const width = n === 0 ? 1 : Math.max(1, Math.round(data.length / n));
  const out = allocLike(data, product(full), width);
  if (fill !== null && fill !== undefined && width === 1) {
    try {
      (out as { fill(v: unknown): void }).fill(fill);
    } catch {
      // A fill value of another JS type than the values (zarrita would fail the same way).
    }
  }
  const from = getStrides(shape, "C");
  const to = getStrides(full, "C");
  for (let i = 0; i < n; i++) {
    let rest = i;
    let j = 0;
    for (let d = 0; d < shape.length; d++) {
      const q = Math.floor(rest / (from[d] ?? 1));
      rest -= q * (from[d] ?? 1);
      j += q * (to[d] ?? 1);
    }
    copyElement(data, i, out, j, width);
  }
  return out;
}

/** `data` over a SharedArrayBuffer (zarrita's `useSharedArrayBuffer`); arrays of JS values stay as they are. */
function shared(data: AnyData): AnyData {
  if (typeof SharedArrayBuffer !== "function")
    throw new Error("SharedArrayBuffer is not available (a cross-origin isolated page needs COOP and COEP headers)");
  const view = data as { buffer?: unknown; byteOffset: number; byteLength: number; length: number };
  if (!(view.buffer instanceof ArrayBuffer)) return data;
  const sab = new SharedArrayBuffer(view.byteLength);
  new Uint8Array(sab).set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  if (data instanceof BoolArray) return new BoolArray(sab);
  if (data instanceof UnicodeStringArray) return new UnicodeStringArray(data.chars, sab);
  if (data instanceof ByteStringArray) return new ByteStringArray(data.chars, sab);
  const Ctor = (data as unknown as { constructor: new (b: SharedArrayBuffer) => AnyData }).constructor;
  return new Ctor(sab);
}

/** The element at `i`, as zarrita returns a scalar. */
function scalarAt(data: AnyData, i: number): unknown {
  return "get" in data && typeof data.get === "function" && !ArrayBuffer.isView(data)
    ? (data as { get(i: number): unknown }).get(i)
    : (data as ArrayLike<unknown>)[i];
}

/** What {@link get} and `getChunk` accept besides the selection. @internal */
export interface ReadOptions {
  signal?: AbortSignal | undefined;
  useSharedArrayBuffer?: boolean | undefined;
}

/** An array: its metadata, and reads through zom's core. */
export class Array<D extends DataType = DataType, Store extends Readable = Readable> extends Location<Store> {
  readonly kind = "array" as const;
  readonly #facts: Facts;
  #inner: ZarrArray | Promise<ZarrArray> | undefined;
  readonly #zarrJson: { [key: string]: unknown } | undefined;
  #order: Order | undefined;

  /**
   * An array from its metadata (zarrita's form: v3, or v2 converted as zarrita converts it),
   * without a request; zom opens it from that metadata at the first read (at once when the
   * WebAssembly is loaded, so that metadata zom refuses throws here).
   */
  constructor(store: Store, path: AbsolutePath, metadata: ArrayMetadata<D>) {
    super(store, path);
    const opened = (metadata as unknown as Partial<OpenedArray>)[OPENED];
    if (opened !== undefined) {
      this.#inner = opened.array;
      this.#facts = factsOfZom(opened.array, opened.attrs);
      this.#zarrJson = undefined;
    } else {
      this.#facts = factsOfMetadata(metadata as ArrayMetadata);
      this.#zarrJson = zarrJsonOf(metadata as ArrayMetadata);
      if (isInitialized()) this.#inner = this.#fromMetadata();
    }
  }

  /** @internal The array {@link open} found. */
  static opened<S extends Readable>(store: S, path: AbsolutePath, array: ZarrArray, attrs: boolean): Array<DataType, S> {
    return new Array(store, path, { [OPENED]: { array, attrs } } as unknown as ArrayMetadata);
  }

  #fromMetadata(): ZarrArray {
    requireInit();
    try {
      const node = raw.nodeFromZom(this.store, nodePath(this.path), this.#zarrJson, false, withUnderstood({})) as {
        array?: unknown;
        zom: ArrayZom;
      };
      if (node.array === undefined) throw new InvalidMetadataError("not array metadata", { path: this.path });
      return new ZarrArray(node.array, node.zom);
    } catch (e) {
      throw toZarritaError(e, { path: this.path });
    }
  }

  async #array(): Promise<ZarrArray> {
    if (this.#inner === undefined) this.#inner = whenInit().then(() => this.#fromMetadata());
    return this.#inner;
  }

  /** The user attributes (for a v2 array opened with `attrs: false`, none). */
  get attrs(): Attributes {
    return this.#facts.attrs;
  }
  /** The dimension names (v3), or a v2 array's `_ARRAY_DIMENSIONS` attribute. */
  get dimensionNames(): string[] | undefined {
    return this.#facts.dimensionNames;
  }
  /** The fill value: a bigint for 64-bit integers, a number for NaN and ±Infinity. */
  get fillValue(): Scalar<D> | null {
    return this.#facts.fillValue as Scalar<D> | null;
  }
  get shape(): number[] {
    return this.#facts.shape;
  }
  /** The chunk shape (for a sharded array the inner chunks', which `getChunk` reads). */
  get chunks(): number[] {
    return this.#facts.chunks;
  }
  get dtype(): D {
    return this.#facts.dtype as D;
  }

  /**
   * Reads one chunk (for a sharded array an inner chunk) in the chunk shape: past the array's
   * edge it holds the fill value. Values in the order the chunks store them, as zarrita gives
   * them (`stride` says which). A chunk of a rectilinear grid comes in its own shape, cut to
   * the array.
   */
  async getChunk(chunkCoords: number[], options?: GetOptions, opts?: { useSharedArrayBuffer?: boolean }): Promise<Chunk<D>> {
    const signal = options?.signal;
    const zomOptions = this.#zomOptions(signal, opts?.useSharedArrayBuffer);
    // An array with a zero-length dimension has no chunks: zarrita answers any chunk with the
    // fill value (it asks for a key no writer wrote), so this pads an empty read the same way.
    const empty = this.shape.some((n) => n === 0);
    const read = async () => {
      const array = await this.#array();
      return empty
        ? array.get(
            this.shape.map(() => ({ start: 0, stop: 0, step: null })),
            zomOptions,
          )
        : array.getChunk(chunkCoords, zomOptions);
    };
    const { data, shape } = await this.#run(read, signal);
    let values = toZarrita(data, this.#facts.values);
    const full = this.#facts.uneven ? shape : this.chunks;
    if (shape.length === full.length && shape.some((n, i) => n !== full[i])) values = pad(values, shape, full, this.#facts.fillValue);
    const stride = getStrides(full, this.#storedOrder());
    values = relayout(values, full, stride);
    if (opts?.useSharedArrayBuffer) values = shared(values);
    return { data: values as TypedArray<D>, shape: [...full], stride };
  }

  /** The order zarrita's answers are laid out in (the stored order), asked of the core once. */
  #storedOrder(): Order {
    if (this.#order === undefined) {
      requireInit();
      this.#order = raw.storedOrder(this.#facts.layoutOf) as Order;
    }
    return this.#order;
  }

  /** Narrows the data type: by name ("float32") or by kind ("number", "bigint", "boolean", "string", "object"). */
  is<Q extends DataTypeQuery>(query: Q): this is Array<NarrowDataType<D, Q>, Store> {
    const d = String(this.dtype);
    const string = d.startsWith("v2:U") || d.startsWith("v2:S") || d === "string";
    const bigint = d === "int64" || d === "uint64";
    const object = d === "v2:object";
    switch (query) {
      case "boolean":
        return d === "bool";
      case "string":
        return string;
      case "bigint":
        return bigint;
      case "object":
        return object;
      case "number":
        return /^(u?int(8|16|32)|float(16|32|64))$/.test(d);
      default:
        return d === query;
    }
  }

  /** @internal {@link get}'s read: a region, or a scalar when no dimension is left. */
  async [READ](selection: Selection, options: ReadOptions): Promise<Chunk<D> | Scalar<D>> {
    const read = async () => (await this.#array()).get(selection, this.#zomOptions(options.signal, options.useSharedArrayBuffer));
    const { data, shape } = await this.#run(read, options.signal);
    let values = toZarrita(data, this.#facts.values);
    if (shape.length === 0) return scalarAt(values, 0) as Scalar<D>;
    // The dimensions the result keeps: those not indexed by an integer.
    const axes = this.shape.map((_, d) => d).filter((d) => typeof selection?.[d] !== "number");
    const stride = getStrides(shape, projectOrder(this.#storedOrder(), axes));
    values = relayout(values, shape, stride);
    if (options.useSharedArrayBuffer) values = shared(values);
    return { data: values as TypedArray<D>, shape, stride };
  }

  #zomOptions(signal: AbortSignal | undefined, share: boolean | undefined): ZomGetOptions & GetChunkOptions {
    // Numeric values in an ArrayBuffer of their own unless asked for shared memory.
    return { ...(signal === undefined ? {} : { signal }), sharedOutput: share === true };
  }

  async #run(
    read: () => Promise<{ data: unknown; shape: number[] }>,
    signal: AbortSignal | undefined,
  ): Promise<{ data: unknown; shape: number[] }> {
    try {
      signal?.throwIfAborted();
      return await read();
    } catch (e) {
      throw toZarritaError(e, { signal, path: this.path });
    }
  }
}
