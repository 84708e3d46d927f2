/**
 * What zom reads from: the store interface every store implements and `open` accepts
 * (zarrita's store shape), and the options and answers of its calls.
 * @module
 */

/** A byte range of a value: `length` bytes from `offset`, or the last `suffixLength` bytes. */
export type ByteRange = { offset: number; length: number } | { suffixLength: number };

/** Options of every store call. */
export interface StoreCallOptions {
  /** Aborts the call: it rejects with a ZomError "Aborted" and is not retried. */
  signal?: AbortSignal;
  /** The most bytes the caller accepts: a store may refuse a longer value with ZomError "LimitExceeded" instead of reading it. */
  maxBytes?: number;
}

/** What is directly below a prefix: child keys and child "directories" (both absolute). */
export interface StoreListing {
  /** Absolute keys of the values directly below the prefix ("/a/zarr.json"). */
  keys: string[];
  /** Absolute child prefixes, ending in "/" ("/a/b/"). */
  prefixes: string[];
}

/**
 * A store zom reads from: zarrita's store shape. Keys are absolute ("/a/zarr.json");
 * `undefined` means missing. Without `getRange` whole values are fetched and cut; without
 * `list` hierarchies without consolidated metadata cannot be walked below their root.
 */
export interface Readable {
  get(key: string, options?: StoreCallOptions): Promise<Uint8Array | undefined> | Uint8Array | undefined;
  getRange?(key: string, range: ByteRange, options?: StoreCallOptions): Promise<Uint8Array | undefined>;
  list?(prefix: string, options?: StoreCallOptions): Promise<StoreListing | undefined>;
}

/** What zom accepts as a store: a {@link Readable}, or a Map of key (with or without a leading "/") → bytes, which also lists. */
export type StoreInput = Readable | Map<string, Uint8Array>;
