/**
 * The default limits and the version, which every part has: what is set applies to every
 * part, those loaded later included.
 * @module
 */

import { applyLimits, shared } from "../parts/shared.js";
import { converting } from "./errors.js";
import type { Limits, LimitsOptions } from "./types.js";

/**
 * Changes the default limits of every later call (each call's `limits` option still overrides
 * them): the fields given replace the current ones; `null` puts every default back. Returns
 * the limits now in force.
 *
 * ```ts
 * setLimits({ maxChunkBytes: 256 * 2 ** 20, maxNodes: 10_000 });
 * ```
 */
export function setLimits(limits: LimitsOptions | null): Limits {
  return converting(() => applyLimits(limits));
}

/** The default limits in force (see {@link setLimits}). */
export function getLimits(): Limits {
  return converting(() => shared().defaultLimits(undefined));
}

/** The version of the zom crate inside the WebAssembly. */
export function version(): string {
  return converting(() => shared().version());
}
