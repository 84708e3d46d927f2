/**
 * The types of zarrita's API (stores, data types, chunks, metadata), written for zom/zarrita:
 * the same shapes, so that code typed against zarrita type-checks against this entry.
 * @module
 */
import type { BoolArray, ByteStringArray, UnicodeStringArray } from "./typedarray.js";

/** A store key: "/" then the key ("/a/zarr.json"). */
export type AbsolutePath<Rest extends string = string> = `/${Rest}`;

/** A byte range of a value: `length` bytes from `offset`, or the last `suffixLength` bytes. */
export type RangeQuery = { offset: number; length: number } | { suffixLength: number };

/** Options of a store call. */
export interface GetOptions {
  signal?: AbortSignal;
}

/** A store read asynchronously (zarrita's `AsyncReadable`). */
export interface AsyncReadable<Options = GetOptions> {
  get(key: AbsolutePath, opts?: Options): Promise<Uint8Array | undefined>;
  getRange?(key: AbsolutePath, range: RangeQuery, opts?: Options): Promise<Uint8Array | undefined>;
}

/** A store read synchronously (a Map-like store). */
export interface SyncReadable<Options = GetOptions> {
  get(key: AbsolutePath, opts?: Options): Uint8Array | undefined;
  getRange?(key: AbsolutePath, range: RangeQuery, opts?: Options): Uint8Array | undefined;
}

/** Any store zom/zarrita reads from. */
export type Readable<Options = GetOptions> = AsyncReadable<Options> | SyncReadable<Options>;

export type Int8 = "int8";
export type Int16 = "int16";
export type Int32 = "int32";
export type Int64 = "int64";
export type Uint8 = "uint8";
export type Uint16 = "uint16";
export type Uint32 = "uint32";
export type Uint64 = "uint64";
export type Float16 = "float16";
export type Float32 = "float32";
export type Float64 = "float64";
export type Bool = "bool";
export type UnicodeStr = `v2:U${number}`;
export type ByteStr = `v2:S${number}`;
export type String = "string";
export type ObjectType = "v2:object";

export type NumberDataType = Int8 | Int16 | Int32 | Uint8 | Uint16 | Uint32 | Float16 | Float32 | Float64;
export type BigintDataType = Int64 | Uint64;
export type StringDataType = UnicodeStr | ByteStr | String;
/**
 * zarrita's data types. Arrays of data types zarrita does not read (complex, datetime, structs,
 * raw bytes, …) report zom's v3 name ("complex64", "numpy.datetime64", "structured", …).
 */
export type DataType = NumberDataType | BigintDataType | StringDataType | ObjectType | Bool;

export type Attributes = Record<string, unknown>;

/** The JS value of one element. */
export type Scalar<D extends DataType> = D extends Bool
  ? boolean
  : D extends BigintDataType
    ? bigint
    : D extends StringDataType
      ? string
      : D extends NumberDataType
        ? number
        : D extends ObjectType
          ? unknown
          : never;

/**
 * The values of a region. float16 is a Float16Array where the engine has one, else a
 * Float32Array (zarrita refuses float16 there).
 */
export type TypedArray<D extends DataType> = D extends Int8
  ? Int8Array
  : D extends Int16
    ? Int16Array
    : D extends Int32
      ? Int32Array
      : D extends Int64
        ? BigInt64Array
        : D extends Uint8
          ? Uint8Array
          : D extends Uint16
            ? Uint16Array
            : D extends Uint32
              ? Uint32Array
              : D extends Uint64
                ? BigUint64Array
                : D extends Float16
                  ? Float32Array
                  : D extends Float32
                    ? Float32Array
                    : D extends Float64
                      ? Float64Array
                      : D extends Bool
                        ? BoolArray
                        : D extends UnicodeStr
                          ? UnicodeStringArray
                          : D extends ByteStr
                            ? ByteStringArray
                            : D extends String
                              ? globalThis.Array<string>
                              : D extends ObjectType
                                ? globalThis.Array<unknown>
                                : never;

/** A region: its values, shape and strides (in elements). */
export interface Chunk<D extends DataType> {
  data: TypedArray<D>;
  shape: number[];
  stride: number[];
}

/** A codec in v3 form. */
export type CodecMetadata = { name: string; configuration: Record<string, unknown> };

/** Zarr v3 array metadata, as zarrita keeps it (v2 arrays converted to it). */
export type ArrayMetadata<D extends DataType = DataType> = {
  zarr_format: 3;
  node_type: "array";
  shape: number[];
  dimension_names?: string[];
  data_type: D;
  chunk_grid: { name: "regular"; configuration: { chunk_shape: number[] } };
  chunk_key_encoding: { name: "v2" | "default"; configuration?: { separator?: "." | "/" } };
  codecs: CodecMetadata[];
  fill_value: Scalar<D> | null;
  attributes: Attributes;
  storage_transformers?: unknown[];
};

/** Zarr v3 group metadata. */
export type GroupMetadata = { zarr_format: 3; node_type: "group"; attributes: Attributes };

/** Zarr v2 array metadata (`.zarray`). */
export type ArrayMetadataV2 = {
  zarr_format: 2;
  shape: number[];
  chunks: number[];
  dtype: string;
  compressor: null | ({ id: string } & Record<string, unknown>);
  fill_value: unknown;
  order: "C" | "F";
  filters: null | ({ id: string } & Record<string, unknown>)[];
  dimension_separator?: "." | "/";
};

/** Zarr v2 group metadata (`.zgroup`). */
export type GroupMetadataV2 = { zarr_format: 2 };

/** What {@link Array.is} takes: a data type, or a kind of them. */
export type DataTypeQuery = DataType | "boolean" | "number" | "bigint" | "object" | "string";

/** The data types a {@link DataTypeQuery} matches. */
export type NarrowDataType<D extends DataType, Q extends DataTypeQuery> = Q extends "number"
  ? NumberDataType
  : Q extends "bigint"
    ? BigintDataType
    : Q extends "boolean"
      ? Bool
      : Q extends "string"
        ? StringDataType
        : Q extends "object"
          ? ObjectType
          : Extract<Q, D>;
