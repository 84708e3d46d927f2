/**
 * zarrita's extension helpers: a store or array wrapped in a Proxy that answers the keys an
 * extension gives and hands everything else to the wrapped object (its methods bound to it, so
 * that private fields keep working). `get` reads through zom's core, not through an extended
 * array's `getChunk`: an array extension changes what `getChunk` answers only.
 * @module
 */
import { UnsupportedError } from "./errors.js";

type Overrides = Record<string | symbol, unknown>;

/** `target` behind a Proxy that answers the keys of `overrides` and hands the rest to it. @internal */
export function wrap<T extends object>(target: T, overrides: Overrides): T {
  if (overrides === null || typeof overrides !== "object") throw new TypeError("an extension must return an object of overrides");
  const bound = new Map<string | symbol, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      if (prop in overrides) return overrides[prop];
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      if (!bound.has(prop)) bound.set(prop, (value as (...a: unknown[]) => unknown).bind(t));
      return bound.get(prop);
    },
    has: (t, prop) => prop in overrides || Reflect.has(t, prop),
  });
}

/** `overrides` with the `arrayExtensions` of the store it wraps before its own (inner first). */
function merged(store: object, overrides: Overrides): Overrides {
  const inner = (store as { arrayExtensions?: unknown }).arrayExtensions;
  const own = overrides?.arrayExtensions;
  return Array.isArray(inner) && Array.isArray(own) ? { ...overrides, arrayExtensions: [...inner, ...own] } : overrides;
}

/** Wraps stores: `factory(store, opts)` returns (or resolves to) the keys to answer. */
export function defineStoreExtension<S extends object, Opts = void>(
  factory: (store: S, opts: Opts) => Overrides | Promise<Overrides>,
): (store: S, opts?: Opts) => S | Promise<S> {
  return (store, opts) => {
    const result = factory(store, opts as Opts);
    return result instanceof Promise ? result.then((o) => wrap(store, merged(store, o))) : wrap(store, merged(store, result));
  };
}

/** Wraps arrays: `factory(array, opts)` returns (or resolves to) the keys to answer (`getChunk`, new ones). */
export const defineArrayExtension = defineStoreExtension;

/**
 * Applies extensions in order, each to the previous one's result: the extended value itself
 * while every extension answers at once, a Promise from the first that answers with one on, as
 * zarrita does (callers pass a synchronous result straight to `root` without awaiting it).
 */
export function extendStore<S extends object>(store: S, ...extensions: ((s: S) => S | Promise<S>)[]): S | Promise<S> {
  let out: S | Promise<S> = store;
  for (const extend of extensions) out = out instanceof Promise ? out.then(extend) : extend(out);
  return out;
}

/** Applies array extensions in order. */
export const extendArray = extendStore;

/** Writing is not part of zom/zarrita: throws UnsupportedError. */
export function set(..._args: unknown[]): Promise<never> {
  return Promise.reject(new UnsupportedError("writing (zom/zarrita reads only)"));
}

/** Creating arrays is not part of zom/zarrita: throws UnsupportedError. */
export function create(..._args: unknown[]): Promise<never> {
  return Promise.reject(new UnsupportedError("creating arrays (zom/zarrita reads only)"));
}
