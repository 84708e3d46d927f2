/**
 * "zom/validate": the validator's API — walking hierarchies, validating documents, ZOMs and
 * attributes, conventions and hierarchy specs, ZOM conversion, comparison and summaries — over
 * its own WebAssembly part, which decodes no chunks (ARCHITECTURE.md, "Parts"). It carries
 * that part inside its JavaScript (pkg/zom_tools_inline.js, as text) for every
 * runtime: the first call loads it, or `await initValidate()` beforehand compiles it off the
 * main thread. Arrays are read with "zom".
 * @module
 */
import { fromCarried } from "./parts/carried.js";
import { configureTools } from "./parts/validator.js";
import { WASM, WASM_BYTES } from "./zom_tools_inline.js";

configureTools({ bundled: () => fromCarried(WASM, WASM_BYTES) });

export { initValidate } from "./parts/validator.js";
export * from "./shared/exports.js";
export {
  builtinSpec,
  detectConventions,
  diff,
  flatten,
  fromDocuments,
  jsonSchema,
  like,
  parseJson,
  specNames,
  specSchema,
  stringify,
  summarize,
  toV3,
  unflatten,
  validateAttributes,
  validateDocument,
  validateHierarchy,
} from "./validator/api.js";
export { toDocuments } from "./validator/documents.js";
export type { WalkOptions, WalkProgress, WalkReport, WalkResult } from "./validator/walk.js";
export { walk } from "./validator/walk.js";
