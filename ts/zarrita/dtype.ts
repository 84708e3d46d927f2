/**
 * zarrita's names for zom's data types, its JS form of fill values, and the v3 metadata zom
 * opens for an array zarrita-style code builds from metadata (`new Array(store, path, meta)`).
 * Only names are mapped here: what a data type or codec means stays in zom's core.
 * @module
 */

import { NUMERIC_TYPES } from "../generated/boundary.js";
import { requireInit } from "../parts/reader.js";
import type { JsonValue } from "../shared/types.js";
import { wire } from "../store/wire.js";
import * as raw from "../zom_wasm.js";
import type { Shape } from "./typedarray.js";
import type { ArrayMetadata, DataType } from "./types.js";

/** zarrita's name for an array's data type: zom's v3 data type, and for v2 its typestring. */
export function dataTypeName(dtype: JsonValue, format: 2 | 3, v2dtype?: unknown): DataType {
  if (format === 2 && v2dtype === "|O") return "v2:object";
  if (typeof dtype === "string") return dtype as DataType;
  const { name, configuration } = (dtype ?? {}) as { name?: string; configuration?: { length_bytes?: number } };
  const bytes = configuration?.length_bytes ?? 0;
  if (name === "fixed_length_utf32") return `v2:U${bytes / 4}`;
  if (name === "null_terminated_bytes") return `v2:S${bytes}`;
  return (name ?? String(dtype)) as DataType;
}

/** The array-like zarrita uses for values of `dtype` (see typedarray.ts). */
export function shapeOf(dtype: string): Shape {
  if (dtype === "bool") return { kind: "bool" };
  const m = /^v2:([US])(\d+)$/.exec(dtype);
  if (m) return { kind: m[1] === "U" ? "unicode" : "bytes", chars: Number(m[2]) };
  return { kind: "same" };
}

const BIGINT = new Set(["int64", "uint64", "numpy.datetime64", "numpy.timedelta64"]);
const SPECIAL: { [k: string]: number } = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** A fill value as zarrita gives it: a bigint for 64-bit integers, numbers for "NaN" and ±"Infinity". */
export function fillScalar(fill: unknown, dtype: string): unknown {
  if (fill === null || fill === undefined) return fill ?? null;
  if (BIGINT.has(dtype) && (typeof fill === "number" || typeof fill === "string" || typeof fill === "bigint")) {
    try {
      return BigInt(fill);
    } catch {
      return fill;
    }
  }
  if (NUMERIC_TYPES[dtype]?.kind === "float" && typeof fill === "string" && fill in SPECIAL) return SPECIAL[fill];
  return fill;
}

/**
 * The v3 zarr.json zom opens for zarrita metadata (what zarrita keeps, v2 arrays included):
 * its "v2:*" data types as v3 ones, `transpose` orders "C"/"F" as permutations, and the
 * `bytes` codec zarrita leaves implicit.
 */
export function zarrJsonOf(meta: ArrayMetadata): { [key: string]: unknown } {
  const dt = String(meta.data_type);
  const str = /^v2:([US])(\d+)$/.exec(dt);
  const dataType = str
    ? {
        name: str[1] === "U" ? "fixed_length_utf32" : "null_terminated_bytes",
        configuration: { length_bytes: Number(str[2]) * (str[1] === "U" ? 4 : 1) },
      }
    : dt === "v2:object"
      ? "string"
      : dt;
  const rank = meta.shape.length;
  let codecs = (meta.codecs ?? []).map((c) => {
    if (c.name === "transpose" && typeof c.configuration?.order === "string") {
      const identity = globalThis.Array.from({ length: rank }, (_, i) => i);
      return { name: "transpose", configuration: { order: c.configuration.order === "F" ? identity.reverse() : identity } };
    }
    if (dt === "v2:object" && c.name === "numcodecs.vlen-utf8") return { name: "vlen-utf8", configuration: {} };
    return c;
  });
  // The implicit `bytes` codec, where the core's codec kinds put it (zom_wasm withArrayToBytes).
  const bytes =
    dt === "v2:object" || dt === "string"
      ? { name: "vlen-utf8", configuration: {} }
      : { name: "bytes", configuration: { endian: "little" } };
  requireInit();
  codecs = wire(() => raw.withArrayToBytes(codecs, bytes)) as typeof codecs;
  const fill = meta.fill_value as unknown;
  const fillValue = typeof fill === "number" && !Number.isFinite(fill) ? String(fill) : fill;
  return {
    zarr_format: 3,
    node_type: "array",
    shape: meta.shape,
    data_type: dataType,
    chunk_grid: meta.chunk_grid,
    chunk_key_encoding: meta.chunk_key_encoding ?? { name: "default", configuration: { separator: "/" } },
    fill_value: fillValue,
    codecs,
    attributes: meta.attributes ?? {},
    ...(meta.dimension_names === undefined ? {} : { dimension_names: meta.dimension_names }),
    ...(meta.storage_transformers === undefined ? {} : { storage_transformers: meta.storage_transformers }),
  };
}

/**
 * Attributes as zarrita gives them (JSON.parse's values): zom keeps integers beyond 2^53 exact
 * as bigints, which JSON.stringify, and so many a viewer, cannot handle.
 */
export function plainJson<T>(value: T): T {
  if (typeof value === "bigint") return Number(value) as T;
  if (globalThis.Array.isArray(value)) return value.map(plainJson) as T;
  if (value !== null && typeof value === "object") {
    const out: { [k: string]: unknown } = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: plainJson(v), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}
