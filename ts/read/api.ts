/**
 * What the reader's entry points ("zom", "zom/manual", in browsers and in Node) export, over
 * the reader part; "zom/validate" exports the validator's API (ts/validate.ts), and both the
 * stores, errors and limits (ts/shared/exports.ts).
 * @module
 */
export { init, isInitialized } from "../parts/reader.js";
export type { InitOptions, InitSource } from "../parts/reader.js";
export * from "../shared/exports.js";
export type { WorkerLike, WorkerSource } from "../runtime/entry.js";
export { registerCodec, unregisterCodec } from "../shared/codecs.js";
export type { CodecModule, CodecRegistration, CodecStep } from "../shared/codecs.js";
export { ChunkDecoder, decodeChunk } from "./decode.js";
export { loadCodecParts } from "../parts/codec-load.js";
export type { ArrayMetadata, Chunk, ChunkData, DecodeOptions, DecoderOptions, EncodedChunk } from "./decode.js";
export { open, openArray, openGroup, ZarrGroup } from "./hierarchy.js";
export type { OpenOptions } from "./hierarchy.js";
export { ZarrArray } from "./array.js";
export { ChunkCache } from "./cache.js";
export type { ChunkCacheOptions, ChunkCacheStats } from "./cache.js";
export type { ChunkRequest, ChunkResult, GetChunkOptions, GetChunksOptions, GetOptions, ReadProgress } from "./array.js";
export { closeWorkers, workerStats } from "../pool/pool.js";
export type { WorkerStats } from "../pool/pool.js";
export { slice } from "./slice.js";
export type { DimSelection, Selection, Slice } from "./slice.js";
export { imagePicture, openImage, variablePlane } from "./picture.js";
export type { ImagePicture, ImagePictureOptions, PlaneAxis, VariablePlane } from "./picture.js";
