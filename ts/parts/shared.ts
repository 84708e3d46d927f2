/**
 * What every WebAssembly part exports alike (the stores' HTTP and listing rules, the limits,
 * the version), and the parts started so far: store code calls
 * whichever part the page has loaded, so a validator page never loads the reader, nor a viewer
 * the validator (ARCHITECTURE.md, "Parts").
 * @module
 */

import type { LimitName } from "../generated/boundary.js";
import { LIMIT_DEFAULTS } from "../generated/boundary.js";
import type { Limits, LimitsOptions } from "../shared/types.js";
import type * as Glue from "../zom_wasm.js";

/** The exports both parts have (src/wasm/: http, store, limits, runtime, and `toDocuments` of
 * model). */
export type SharedGlue = Pick<
  typeof Glue,
  | "listKeys"
  | "httpContentRange"
  | "httpContentLength"
  | "httpCheckPrefix"
  | "httpCheckSuffix"
  | "httpEncodeKey"
  | "defaultLimits"
  | "version"
  | "toDocuments"
>;

const started: SharedGlue[] = [];
/** The parts the imported entries carry or know, in import order, each able to load synchronously. */
const homes: PartLoaderLike[] = [];
/** The `setLimits` calls since the last reset, replayed on parts that start later. */
let limitCalls: LimitsOptions[] = [];
/** Every part that reads the default limits (the started ones, and the references part once loaded): kept at those in force. */
const following: Pick<SharedGlue, "defaultLimits">[] = [];

/** What store code needs of a part's loader to load it when no part is loaded yet. */
export interface PartLoaderLike {
  /** Whether it can load now, synchronously (its entry carries its bytes). */
  canRequire(): boolean;
  /** Loads it now, or throws what to do. */
  require(): void;
  /** Loads it off the main thread where it can (the load under way, if any). */
  when(): Promise<void>;
}

/** Adds a part store code may load when none is loaded yet: the first that can load now is. */
export function addHome(part: PartLoaderLike): void {
  if (!homes.includes(part)) homes.push(part);
}

/** Called by a part once instantiated: it gets the limits set so far, and every later change. */
export function partStarted(glue: SharedGlue): void {
  followLimits(glue);
  started.push(glue);
}

/** The part to load when none has started: the first imported entry's that carries its bytes. */
function home(): PartLoaderLike {
  const part = homes.find((h) => h.canRequire()) ?? homes[0];
  if (part === undefined) throw new Error('zom was imported through an internal file: import "zom" or "zom/validate"');
  return part;
}

/** Called by a part loaded on first use that reads the default limits: it gets those set so far, and every later change. */
export function followLimits(glue: Pick<SharedGlue, "defaultLimits">): void {
  for (const limits of limitCalls) glue.defaultLimits(limits);
  following.push(glue);
}

/** A started part's shared exports, loading the home part first if none has started. */
export function shared(): SharedGlue {
  if (started.length === 0) home().require();
  return started[0] as SharedGlue;
}

/** The first started part that has the export `name` (the validator's listing rules, which the reader leaves to a part of their own). */
export function startedWith<G extends object>(name: keyof G & string): G | undefined {
  return started.find((glue) => name in glue) as G | undefined;
}

/** The default limit `name` in force: the latest `setLimits` value since a reset, else zom's default. */
export function limitInForce(name: LimitName): number {
  for (let i = limitCalls.length - 1; i >= 0; i--) {
    const value = limitCalls[i]?.[name];
    if (typeof value === "number") return value;
  }
  return LIMIT_DEFAULTS[name];
}

/**
 * Resolves once a part has started: at once when one has, else when the first imported
 * entry's that carries its bytes has loaded (compiled off the main thread, or the load under
 * way). Store code that answers a request awaits it before it reads the answer through the
 * module, so that a request made while the module compiles does not compile it again on the
 * main thread.
 */
export async function whenShared(): Promise<void> {
  if (started.length > 0) return;
  await home().when();
}

/** Sets the default limits in every started part and remembers them for parts that start later. */
export function applyLimits(limits: LimitsOptions | null): Limits {
  const first = shared();
  const inForce = first.defaultLimits(limits) as Limits;
  for (const glue of following) if (glue !== first) glue.defaultLimits(limits);
  if (limits === null) limitCalls = [];
  else limitCalls.push(limits);
  return inForce;
}
