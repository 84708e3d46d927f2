/**
 * Extensions the caller implements: names given to {@link registerExtension} are known to
 * validation (checked by their handler) and to opening arrays (a document that must be
 * understood is read when its extensions are all registered).
 * @module
 */
import { registeredNames } from "./codecs.js";
import type { ExtensionHandler } from "./types.js";

/** name → handler, or true for "known, nothing to check". */
export const registry = new Map<string, ExtensionHandler | true>();

/**
 * Makes an extension name known to every later validation (data type, codec, chunk grid,
 * storage transformer or ZEP 10 extension), with a checker of its configuration, or `true`
 * to accept it unchecked, and to every later `open`: an array whose document names it in a
 * storage transformer, a ZEP 10 `extensions` list or a top-level key that readers must
 * understand is opened rather than refused ("UnsupportedExtension"). Handlers given in the
 * options of one call take precedence.
 */
export function registerExtension(name: string, handler: ExtensionHandler | true = true): void {
  registry.set(name, handler);
}

/** Forgets an extension registered with {@link registerExtension}. */
export function unregisterExtension(name: string): boolean {
  return registry.delete(name);
}

/**
 * `options` with the registered extension names as `extensions` and the registered codec
 * names as `codecs`, for the raw open and decoder calls.
 */
export function withUnderstood<T extends object>(options: T): T & { extensions: string[]; codecs: string[] } {
  return { ...options, extensions: [...registry.keys()], codecs: registeredNames() };
}
