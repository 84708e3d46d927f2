/**
 * Loading the validator's WebAssembly part ("zom/validate": walking, validation, conventions,
 * ZOM conversion and comparison; no chunk decoding), which its entry carries: on the first
 * call, synchronously, or compiled off the main thread by an asynchronous one (`walk`).
 * @module
 */

import { BUILTIN_SPECS } from "../zom_schemas.js";
import * as glue from "../zom_tools.js";
import type { PartSources } from "./loader.js";
import { PartLoader } from "./loader.js";
import { addHome, partStarted } from "./shared.js";

let sources: PartSources | undefined;

const tools = new PartLoader({
  entry: "zom/validate",
  start(module) {
    glue.initSync({ module });
    // The built-in hierarchy specs ship as data beside the module (scripts/build.mjs writeSchemas).
    glue.setBuiltinSpecs(Object.keys(BUILTIN_SPECS), Object.values(BUILTIN_SPECS));
    partStarted(glue);
  },
  sources: () => sources ?? {},
});

/** Installs the validator entry's sources (ts/validate.ts calls it once, when evaluated). */
export function configureTools(given: PartSources): void {
  sources ??= given;
  addHome(tools);
}

/** Loads the validator's part before a synchronous call, from the bytes its entry carries. */
export function requireTools(): void {
  tools.require();
}

/** Loads the validator's part before an asynchronous call, compiling off the main thread. */
export function whenTools(): Promise<void> {
  return tools.when();
}

/** Loads the validator's part now (optional: the first call loads it). */
export function initValidate(): Promise<void> {
  return tools.load();
}
