/**
 * The validator's API ("zom/validate"): typed wrappers of the tools part's exports. Each loads
 * the part if need be and turns the core's thrown error objects into {@link ZomError}s.
 * @module
 */

import type { RawCompareOptions, RawFlatOptions, RawValidateOptions } from "../generated/boundary.js";
import { SPEC_NAMES } from "../generated/boundary.js";
import { requireTools } from "../parts/validator.js";
import { registeredNames } from "../shared/codecs.js";
import { converting, ZomError } from "../shared/errors.js";
import { registry } from "../shared/extensions.js";
import type {
  Attributes,
  BuiltinSpecName,
  CompareOptions,
  DetectedConvention,
  Difference,
  DocumentInput,
  FlatOptions,
  HierarchySpec,
  JsonObject,
  JsonSchema,
  JsonValue,
  NodeSummary,
  Report,
  SpecInput,
  ToV3Result,
  ValidateOptions,
  Zom,
} from "../shared/types.js";
import * as schemas from "../zom_schemas.js";
import * as raw from "../zom_tools.js";
import { plainJson, withZomText } from "./documents.js";
import type { WalkReport } from "./walk.js";

function call<T>(f: () => unknown): T {
  requireTools();
  return converting(f);
}

/** `options` with the registered extensions' handlers, and registered codecs as known names. */
function withRegistry(options: ValidateOptions): ValidateOptions {
  const codecs = registeredNames();
  if (registry.size === 0 && codecs.length === 0) return options;
  const known = Object.fromEntries(codecs.map((name) => [name, true] as const));
  return {
    ...options,
    extensionHandlers: { ...known, ...Object.fromEntries(registry), ...options.extensionHandlers },
  };
}

/**
 * Validates one metadata document (`zarr.json`, `.zarray`, `.zgroup`, `.zattrs` or
 * `.zmetadata`), given as a parsed value, JSON text or bytes. Lists every problem; never
 * throws for a bad document.
 */
export function validateDocument(doc: DocumentInput, options: ValidateOptions = {}): Report {
  return call(() => raw.validateDocument(doc, withRegistry(options) satisfies RawValidateOptions));
}

/**
 * Validates a group's attributes alone (an object, or its JSON text) against the hierarchy
 * specs of `options.specs`: what the attributes decide — their schemas, the rules over their
 * lists — without the nodes they name, which are not there to check. The group is read as
 * Zarr 3 when its attributes have an `ome` object, else as Zarr 2.
 */
export function validateAttributes(attributes: Attributes | string, options: ValidateOptions = {}): Report {
  return call(() => raw.validateAttributes(attributes, withRegistry(options) satisfies RawValidateOptions));
}

/**
 * Validates a whole hierarchy given as a ZOM (or its JSON text), node by node, and against
 * the hierarchy specs of `options.specs` (`"auto"`, `"ome-zarr"`, `"xarray"` or your own).
 */
export function validateHierarchy(zom: Zom | string, options: ValidateOptions = {}): Report {
  const opts = withRegistry(withWalk(zom, options));
  // A ZOM object of plain JSON data goes as the bytes of its JSON text: the module reads text
  // in one call, an object one value at a time. Text it cannot parse (over the limits) is one
  // invalid_json problem, which a ZOM value never has: then the object itself goes.
  const text = typeof zom === "string" ? undefined : plainJson(zom);
  if (text !== undefined) {
    // Encoded here: TextEncoder is faster than the bindings' copy of a string into the module.
    const bytes = new TextEncoder().encode(text);
    const report = call<Report>(() => raw.validateHierarchy(bytes, opts satisfies RawValidateOptions));
    if (!report.problems.some((p) => p.kind === "invalid_json")) return report;
  }
  return call(() => raw.validateHierarchy(zom, opts satisfies RawValidateOptions));
}

/**
 * `options` with what the walk that returned `zom` could not settle (a {@link walk} result
 * carries it beside the tree): its unlisted groups, and its failed and unasked paths as unknown.
 */
function withWalk(zom: Zom | string, options: ValidateOptions): ValidateOptions {
  if (typeof zom !== "object" || zom === null) return options;
  const walked = zom as Partial<WalkReport>;
  if (!Array.isArray(walked.unlisted) || !Array.isArray(walked.errors)) return options;
  const failed = walked.errors.flatMap((e) => (typeof e.path === "string" ? [e.path] : []));
  const unknown = [...failed, ...(walked.unasked ?? [])];
  return { unlisted: walked.unlisted, unknown, ...options };
}

/**
 * What user interfaces say about every node of a ZOM tree, by node path ("" for the root, "a/b"
 * for a member): see {@link NodeSummary}. zom's CLI and explorer print these fields and decide
 * nothing themselves.
 */
export function summarize(zom: Zom): { [path: string]: NodeSummary } {
  return call(() => withZomText([zom], ([z]) => raw.summarizeTree(z)));
}

/**
 * Builds the ZOM of a hierarchy from its metadata documents, keyed by store key
 * (`"zarr.json"`, `"a/zarr.json"`, `".zgroup"`, `"a/.zarray"`, `".zmetadata"`, …).
 */
export function fromDocuments(docs: Map<string, DocumentInput> | { [key: string]: DocumentInput }): Zom {
  return call(() => raw.fromDocuments(docs));
}

/** A ZOM as a flat object: path → node without members (form "pydantic" by default). */
export function flatten(zom: Zom, options: FlatOptions = {}): JsonObject {
  return call(() => withZomText([zom], ([z]) => raw.flatten(z, options satisfies RawFlatOptions)));
}

/** The ZOM of a flat object (any of the forms flatten writes; detected when not given). */
export function unflatten(flat: JsonObject, options: FlatOptions = {}): Zom {
  return call(() => raw.unflatten(flat, options satisfies RawFlatOptions));
}

/** Converts a v2 ZOM to v3, with the problems of what could not be carried over exactly. */
export function toV3(zom: Zom): ToV3Result {
  return call(() => withZomText([zom], ([z]) => raw.toV3(z)));
}

/** True when two ZOMs are alike (on the fields options select). */
export function like(a: Zom, b: Zom, options: CompareOptions = {}): boolean {
  return call(() => withZomText([a, b], ([x, y]) => raw.like(x, y, options satisfies RawCompareOptions)));
}

/** Every difference between an expected ZOM `a` and an actual one `b`, located. */
export function diff(a: Zom, b: Zom, options: CompareOptions = {}): Difference[] {
  return call(() => withZomText([a, b], ([x, y]) => raw.diff(x, y, options satisfies RawCompareOptions)));
}

/**
 * The JSON Schema (draft 2020-12) of a v2 or v3 ZOM: src/model/schema/'s documents, which
 * scripts/build.mjs ships as pkg/zom_schemas.js (the Rust crate embeds the same files).
 */
export function jsonSchema(version: 2 | 3): JsonSchema {
  requireTools();
  const text = version === 2 ? schemas.V2 : version === 3 ? schemas.V3 : undefined;
  if (text === undefined) throw new ZomError("InvalidArgument", "jsonSchema takes 2 or 3");
  return JSON.parse(text) as JsonSchema;
}

/**
 * Where a hierarchy claims zom's built-in conventions (OME-Zarr 0.4, 0.5 and 0.6 images, plates,
 * wells and scenes; xarray datasets), or the given specs' claims: one entry per node and claim.
 */
export function detectConventions(zom: Zom | string, specs?: SpecInput | SpecInput[]): DetectedConvention[] {
  return call(() => withZomText([zom], ([z]) => raw.detectConventions(z, specs)));
}

/** A built-in hierarchy spec, as a document of the spec format (to read, or to start your own from). */
export function builtinSpec(name: BuiltinSpecName): HierarchySpec {
  const text = Object.hasOwn(schemas.BUILTIN_SPECS, name) ? schemas.BUILTIN_SPECS[name] : undefined;
  if (text === undefined)
    throw new ZomError(
      "InvalidArgument",
      `no built-in spec '${String(name)}' (there are: ${Object.keys(schemas.BUILTIN_SPECS).join(", ")})`,
    );
  return JSON.parse(text) as HierarchySpec;
}

/** The names `specs` takes besides spec documents: "auto" and the built-in conventions and specs. */
export function specNames(): string[] {
  return [...SPEC_NAMES];
}

/** The JSON Schema (draft 2020-12) of the hierarchy spec format. */
export function specSchema(): JsonSchema {
  requireTools();
  return JSON.parse(schemas.SPEC) as JsonSchema;
}

/** JSON text of a ZOM, report or any value, with bigints written as plain integers. */
export function stringify(value: unknown, indent?: number): string {
  return call(() => raw.stringify(value, indent));
}

/** Parses JSON text, giving integers beyond ±(2^53−1) as bigints. */
export function parseJson(text: string): JsonValue {
  return call(() => raw.parseJson(text));
}
