/**
 * What "zom/zarrita" exports, in browsers and in Node: zarrita 0.7's public API over zom, with
 * the 0.6 names libraries built on zarrita 0.6 still import.
 * @module
 */

export type { Codec, CodecEntry } from "./codecs.js";
export { registry } from "./codecs.js";
export type { ConsolidatedFormat, ConsolidatedMetadataOptions, Listable } from "./consolidated.js";
export { tryWithConsolidated, withConsolidated, withConsolidatedMetadata, withMaybeConsolidatedMetadata } from "./consolidated.js";
export {
  CodecPipelineError,
  InvalidMetadataError,
  InvalidSelectionError,
  isZarritaError,
  NotFoundError,
  UnknownCodecError,
  UnsupportedError,
} from "./errors.js";
export { create, defineArrayExtension, defineStoreExtension, extendArray, extendStore, set } from "./extension.js";
export type { FetchStoreOptions } from "./fetch.js";
export { FetchStore } from "./fetch.js";
export type { GetOptions, Slice } from "./get.js";
export { get, slice } from "./get.js";
export { Array, Group, Location, root } from "./hierarchy.js";
export type { Setter } from "./internal.js";
export {
  getStrides as _zarrita_internal_getStrides,
  getStrides as _zarrita_internal_get_strides,
  IndexError,
  internalGet as _zarrita_internal_get,
  internalSet as _zarrita_internal_set,
  KeyError,
  NodeNotFoundError,
  select,
  sliceIndices as _zarrita_internal_sliceIndices,
  sliceIndices as _zarrita_internal_slice_indices,
} from "./internal.js";
export type { OpenOptions, OpenV3Options } from "./open.js";
export { open } from "./open.js";
export type { ByteCache, CacheKeyFor } from "./stores.js";
export { withByteCaching, withRangeCoalescing } from "./stores.js";
export { BoolArray, ByteStringArray, UnicodeStringArray } from "./typedarray.js";
export type * from "./types.js";
