/**
 * What every entry point ("zom", "zom/manual", in browsers and in Node) exports.
 * @module
 */
export { init, isInitialized } from "./load.js";
export type { InitOptions, InitSource } from "./load.js";
export type { WorkerLike, WorkerSource } from "./runtime.js";
export {
  validateDocument,
  validateHierarchy,
  validateAttributes,
  registerExtension,
  unregisterExtension,
  fromDocuments,
  toDocuments,
  flatten,
  unflatten,
  toV3,
  summarize,
  like,
  diff,
  jsonSchema,
  detectConventions,
  builtinSpec,
  specSchema,
  stringify,
  parseJson,
  setLimits,
  getLimits,
  version,
} from "./api.js";
export { registerCodec, unregisterCodec } from "./codecs.js";
export type { CodecModule, CodecRegistration, CodecStep } from "./codecs.js";
export { ChunkDecoder, decodeChunk } from "./decode.js";
export type { ArrayMetadata, Chunk, ChunkData, DecodeOptions, DecoderOptions, EncodedChunk } from "./decode.js";
export { open, openArray, openGroup, walk, ZarrGroup } from "./hierarchy.js";
export type { OpenOptions, Readable, StoreInput, WalkOptions, WalkProgress, WalkReport, WalkResult } from "./hierarchy.js";
export { ZarrArray } from "./array.js";
export { ChunkCache } from "./cache.js";
export type { ChunkCacheOptions, ChunkCacheStats } from "./cache.js";
export type { GetChunkOptions, GetOptions, ReadProgress } from "./array.js";
export { closeWorkers, workerStats } from "./pool/pool.js";
export type { WorkerStats } from "./pool/pool.js";
export { slice } from "./slice.js";
export type { DimSelection, Selection, Slice } from "./slice.js";
export { ZomError, isZomError } from "./errors.js";
export type { ErrorCode, ZomErrorOptions } from "./errors.js";
export type * from "./types.js";
export { FetchStore } from "./store/fetch.js";
export type { FetchStoreCoalesce, FetchStoreListing, FetchStoreOptions, FetchStoreStats } from "./store/types.js";
export { ZipStore } from "./store/zip.js";
export type { ZipStoreOptions } from "./store/zip.js";
export { DirectoryHandleStore, FileStore } from "./store/files.js";
export type { DirectoryHandle } from "./store/files.js";
export { ReferenceStore, checkReferences, httpTargets } from "./store/reference.js";
export type { ReferenceStoreOptions, ReferenceTargets } from "./store/reference.js";
export { isReferenceName, isZipName, storeFromUrl } from "./store/url.js";
