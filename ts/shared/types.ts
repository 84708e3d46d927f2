/**
 * The Zarr Object Model (ZEP 6) as JSON — the form pydantic-zarr's
 * `GroupSpec.from_zarr(g).model_dump_json()` writes — and the values the API returns.
 * Nodes may carry keys beyond the ones typed here (kept as they were read).
 * @module
 */
import type { Limits } from "../generated/boundary.js";
import type { BuiltinSpecName } from "../zom_schemas.js";

/** Any JSON value as zom passes it: integers beyond ±(2^53−1) are `bigint`. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * One element of a numcodecs `vlen-array` array (v2 `|O` with a `vlen-array` object codec):
 * a 1-D TypedArray of the codec's `dtype`, chosen as for a whole chunk of that type
 * (Int32Array for `<i4`, Float64Array for `<f8`, BigInt64Array for `<i8`, interleaved re, im
 * for complex, Uint8Array of 0/1 for bool, Float16Array or Float32Array for `<f2`). Elements of
 * missing chunks are empty arrays. The array's `dtype` reads
 * `{name: "numcodecs.vlen-array", configuration: {data_type: <item>}}` (zom's naming: v3 has
 * no such data type).
 */
export type NumericArray =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** User attributes of a node. */
export type Attributes = JsonObject;

/** A v3 extension point: a bare name (`"bytes"`) or a named configuration. */
export type NamedConfig =
  | string
  | {
      name: string;
      configuration?: JsonObject;
      must_understand?: boolean;
      [key: string]: JsonValue | undefined;
    };

/** A Zarr v3 array as a ZOM node. */
export interface ArrayZomV3 {
  zarr_format: 3;
  node_type: "array";
  attributes: Attributes;
  shape: number[];
  data_type: NamedConfig;
  chunk_grid: NamedConfig;
  chunk_key_encoding: NamedConfig;
  /** Encoded for the data type: a number, bigint, string ("NaN", "0x7fc00000"), array, … */
  fill_value: JsonValue;
  codecs: NamedConfig[];
  storage_transformers?: NamedConfig[];
  dimension_names?: (string | null)[] | null;
  /** ZEP 10 (draft) extensions. */
  extensions?: NamedConfig[];
}

/** A Zarr v3 group as a ZOM node: its members by name. */
export interface GroupZomV3 {
  zarr_format: 3;
  node_type: "group";
  attributes: Attributes;
  members?: { [name: string]: ZomV3 } | null;
  /** ZEP 10 (draft) extensions. */
  extensions?: NamedConfig[];
}

/** A numcodecs configuration (`{"id": "blosc", …}`). */
export interface CodecConfigV2 {
  id: string;
  [key: string]: JsonValue;
}

/** A Zarr v2 array as a ZOM node. */
export interface ArrayZomV2 {
  zarr_format: 2;
  attributes: Attributes;
  shape: number[];
  chunks: number[];
  /** A NumPy typestring (`"<f8"`) or a list of `[name, type, shape?]` fields. */
  dtype: string | JsonValue[];
  fill_value: JsonValue;
  order: "C" | "F";
  filters: CodecConfigV2[] | null;
  dimension_separator?: "." | "/";
  compressor: CodecConfigV2 | null;
}

/** A Zarr v2 group as a ZOM node: its members by name. */
export interface GroupZomV2 {
  zarr_format: 2;
  attributes: Attributes;
  members?: { [name: string]: ZomV2 } | null;
}

/** Any v3 node. */
export type ZomV3 = GroupZomV3 | ArrayZomV3;
/** Any v2 node. */
export type ZomV2 = GroupZomV2 | ArrayZomV2;
/** An array node of either version. */
export type ArrayZom = ArrayZomV3 | ArrayZomV2;
/** Any node of either version: the root of a hierarchy is usually a group. */
export type Zom = ZomV3 | ZomV2;

/** What is wrong, in zarr-metadata's vocabulary (plus `must_understand`). */
export type ProblemKind = "missing_key" | "invalid_type" | "invalid_value" | "unknown_key" | "invalid_json" | "must_understand";

/** How serious a problem is: `warning`s come from strict mode only. */
export type Severity = "error" | "warning";

/** A location inside a document: object keys and array indices. */
export type Loc = (string | number)[];

/** One problem found by validation. */
export interface Problem {
  /** Node path inside the hierarchy ("" for the root, "a/b" for a member). */
  path: string;
  /** Where inside the node's document, e.g. `["codecs", 1, "configuration", "level"]`. */
  loc: Loc;
  kind: ProblemKind;
  message: string;
  severity: Severity;
  /** For problems found by a hierarchy spec: the spec's `name`. */
  spec?: string;
  /** For problems found by a hierarchy spec: the rule's name, or its JSON pointer in the spec. */
  rule?: string;
}

/**
 * A hierarchy spec: a family of hierarchies (a convention such as OME-Zarr or xarray's
 * encoding, or your own), in zom's spec format (`specSchema()` gives its JSON Schema;
 * ARCHITECTURE.md "Hierarchy specs" describes it).
 */
export interface HierarchySpec {
  /** The format version, 1; it tells a spec from a ZOM. */
  zom_spec: 1;
  /** Reported with every problem the spec finds. */
  name: string;
  convention?: string;
  version?: string;
  title?: string;
  description?: string;
  url?: string;
  claims?: JsonValue[];
  root?: JsonValue;
  nodes?: JsonObject;
  $defs?: JsonObject;
}

/**
 * Which specs validateHierarchy also checks: `"auto"` (every built-in convention the hierarchy
 * claims), a built-in name (`"ome-zarr"` — each node checked by the version it claims — or one
 * {@link BuiltinSpecName}: the hierarchy must claim it), or a spec (object or JSON text).
 */
export type SpecInput = "auto" | "ome-zarr" | BuiltinSpecName | HierarchySpec | (string & {});

/** The built-in hierarchy specs, by name: generated from src/spec/builtin.rs `TABLE` (`specNames()` lists them with the conventions). */
export type { BuiltinSpecName };

/** A place where a hierarchy claims a convention ({@link detectConventions}). */
export interface DetectedConvention {
  /** `ome-zarr`, `xarray`, or a spec's own convention. */
  convention: string;
  /** The spec's name, e.g. `ome-zarr-0.5`. */
  spec: string;
  /** The convention's version, when the spec has one. */
  version: string | null;
  /** Which of the spec's claims: `image`, `plate`, `well`, `dataset`, … */
  claim: string;
  /** The node that claims it ("" for the root). */
  path: string;
}

/** The result of a validation: `valid` when no problem has severity `error`. */
export interface Report {
  valid: boolean;
  problems: Problem[];
}

/** Checks one occurrence of an extension; returns its problems (none: `[]`). */
export type ExtensionHandler = (extension: JsonValue, path: string, loc: Loc) => Problem[];

/** Options of validateDocument and validateHierarchy. */
export interface ValidateOptions {
  /** The store key the document was read from (`"a/b/zarr.json"`): gives its kind and path. */
  key?: string;
  /** Also report what the spec says SHOULD NOT be there, as warnings. */
  strict?: boolean;
  /** Check ZEP 10 (draft) `extensions` lists. */
  extensions?: boolean;
  /**
   * Extension names known beyond the built-in ones, each with a checker (or `true`: known,
   * nothing to check). Added to those given to {@link registerExtension}.
   */
  extensionHandlers?: { [name: string]: ExtensionHandler | true };
  /**
   * validateHierarchy only: hierarchy specs (conventions) to check too. Their problems carry
   * `spec` and `rule`.
   */
  specs?: SpecInput | SpecInput[];
  /**
   * validateHierarchy only: groups whose members are not all known (a walk's `unlisted`):
   * their member counts are not checked. Taken from a {@link WalkResult} given as the ZOM.
   */
  unlisted?: string[];
  /**
   * validateHierarchy only: node paths whose presence is not known (a walk's failed and
   * `unasked` paths): no node at or below them is reported missing. Taken from a
   * {@link WalkResult} given as the ZOM.
   */
  unknown?: string[];
}

/** Options of toDocuments. */
export interface ToDocumentsOptions {
  /** Also write consolidated metadata (v2 `.zmetadata`, v3 inline in the root `zarr.json`). */
  consolidated?: boolean;
}

/** The flat forms: pydantic-zarr's `to_flat`, a v2 `.zmetadata`, or v3 inline consolidated. */
export type FlatForm = "pydantic" | "zmetadata" | "consolidated";

/** Options of flatten and unflatten. */
export interface FlatOptions {
  /** flatten: default "pydantic"; unflatten: detected from the value when absent. */
  form?: FlatForm;
}

/**
 * What user interfaces say about a node ({@link summarize}): decided once, in zom's core, so
 * that every tool prints the same labels.
 */
export interface NodeSummary {
  /** "array" or "group". */
  kind: "array" | "group";
  /** 2 or 3. */
  zarr_format: 2 | 3;
  /** How many attributes the node has. */
  attributes: number;
  /** How many direct members a group has (0 for an array). */
  members: number;
  /** An array's shape ([] for a group). */
  shape: number[];
  /** The data type in a word or two: "uint16", "datetime64[s]", "fixed_length_utf32[20]", "struct{id, temp}", a v2 typestring ("<f8"), "structured{id, temp}". "" for a group. */
  data_type: string;
  /** The shape of the chunks a read decodes (a sharded array's inner chunks); null for a group. */
  chunks: number[] | null;
  /** A sharded array's shard shape (its chunk grid), when zom reads it as sharded: sharding_indexed is its only codec. */
  shards: number[] | null;
  /** The chunk grid's name: "regular" (v2 arrays too), "rectilinear" (chunks that differ in shape: `chunks`/`shards` are then null unless regular), another as written; "" for a group. */
  grid: string;
  /** The codecs in order: "sharding_indexed(bytes → zstd) → crc32c", v2 "delta → blosc", "none". "" for a group. */
  codecs: string;
}

/** The result of toV3: the converted ZOM and what could not be carried over exactly. */
export interface ToV3Result {
  zom: ZomV3;
  problems: Problem[];
}

/**
 * Options of like and diff: field selectors, dotted paths inside every node
 * (`attributes`, `codecs.*.configuration`, `members.a`; a backslash escapes `.` and `*`).
 * Exclusion wins over inclusion; excluding `members` compares the root node only.
 */
export interface CompareOptions {
  /** Compare only these fields (the member structure is still walked). */
  include?: string[];
  /** Ignore these fields and everything inside them. */
  exclude?: string[];
}

/** What kind of difference: only in actual, only in expected, changed value, changed type. */
export type DifferenceKind = "added" | "removed" | "changed" | "type_changed" | "too_deep";

/** One difference between an expected ZOM and an actual one. */
export interface Difference {
  /** Node path ("" for the root, "a/b" for a member). */
  path: string;
  /** Where inside the node; empty for a whole member added, removed, or group ↔ array. */
  loc: Loc;
  kind: DifferenceKind;
  /** The expected value (absent when only the actual tree has it). */
  expected?: JsonValue;
  /** The actual value (absent when only the expected tree has it). */
  actual?: JsonValue;
  /** The difference in words. */
  message: string;
}

/** A metadata document as fromDocuments accepts it: bytes, JSON text or a parsed value. */
export type DocumentInput = Uint8Array | string | JsonValue;

/** A JSON Schema (draft 2020-12) object. */
export type JsonSchema = JsonObject;

/** The resource limits (the Rust `Limits`, by their JS names: ts/generated/boundary.ts). */
export type { Limits };

/** Limits for one call: the fields given replace those of {@link setLimits} for that call. */
export type LimitsOptions = Partial<Limits>;
