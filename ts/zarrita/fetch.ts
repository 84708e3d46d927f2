/**
 * zarrita's `FetchStore` (from @zarrita/storage): zom's {@link ZomFetchStore} (retries,
 * range merging, suffix ranges with their fallback, metadata kept in memory) taking
 * zarrita's options.
 * @module
 */
import { FetchStore as ZomFetchStore } from "../store/fetch.js";
import type { FetchStoreOptions as ZomFetchStoreOptions } from "../store/fetch-types.js";

/** zarrita's options of a FetchStore; zom's own options may be given beside them. */
export interface FetchStoreOptions extends Omit<ZomFetchStoreOptions, "fetch"> {
  /** Handles every request (a Request in, a Response out): to sign URLs, remap statuses, … */
  fetch?: (request: Request) => Promise<Response>;
  /** RequestInit applied to every request (its headers merged with the request's). */
  overrides?: RequestInit;
  /**
   * Accepted for zarrita's sake: zom asks for suffix ranges (`bytes=-n`) first and, where a
   * server refuses them, HEAD and an absolute range from then on.
   */
  useSuffixRequest?: boolean;
}

/** Merges `overrides` under a request's own init (headers merged, the request's winning). */
function merged(overrides: RequestInit, init: RequestInit): RequestInit {
  const headers = new Headers(overrides.headers);
  new Headers(init.headers).forEach((value, name) => {
    headers.set(name, value);
  });
  return { ...overrides, ...init, headers };
}

/** A read-only store over HTTP(S), constructed as zarrita's: `new FetchStore(url, { fetch, overrides })`. */
export class FetchStore extends ZomFetchStore {
  constructor(url: string | URL, options: FetchStoreOptions = {}) {
    const { fetch: handler, overrides, useSuffixRequest: _, ...rest } = options;
    const send: ((input: string, init: RequestInit) => Promise<Response>) | undefined =
      handler === undefined && overrides === undefined
        ? undefined
        : (input, init) => {
            const full = overrides === undefined ? init : merged(overrides, init);
            return handler === undefined ? globalThis.fetch(input, full) : handler(new Request(input, full));
          };
    super(url, send === undefined ? rest : { ...rest, fetch: send });
  }
}
