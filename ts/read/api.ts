/**
 * What the reader's entry points ("zom", "zom/manual", in browsers and in Node) export, over
 * the reader part; "zom/validate" exports the validator's API (ts/validate.ts), and both the
 * stores, errors and limits (ts/shared/exports.ts).
 * @module
 */

export { loadCodecParts } from "../parts/codec-load.js";
export type { InitOptions, InitSource } from "../parts/reader.js";
export { init, isInitialized } from "../parts/reader.js";
export type { WorkerStats } from "../pool/pool.js";
export { closeWorkers, workerStats } from "../pool/pool.js";
export type { WorkerLike, WorkerSource } from "../runtime/entry.js";
export type { CodecModule, CodecRegistration, CodecStep } from "../shared/codecs.js";
export { registerCodec, unregisterCodec } from "../shared/codecs.js";
export * from "../shared/exports.js";
export type { ChunkRequest, ChunkResult, GetChunkOptions, GetChunksOptions, GetOptions, ReadProgress } from "./array.js";
export { ZarrArray } from "./array.js";
export type { ChunkCacheOptions, ChunkCacheStats } from "./cache.js";
export { ChunkCache } from "./cache.js";
export type { ArrayMetadata, Chunk, ChunkData, DecodeOptions, DecoderOptions, EncodedChunk } from "./decode.js";
export { ChunkDecoder, decodeChunk } from "./decode.js";
export type { OpenOptions } from "./hierarchy.js";
export { open, openArray, openGroup, ZarrGroup } from "./hierarchy.js";
export type { ImagePicture, ImagePictureOptions, PlaneAxis, VariablePlane } from "./picture.js";
export { imagePicture, openImage, variablePlane } from "./picture.js";
export type { DimSelection, Selection, Slice } from "./slice.js";
export { slice } from "./slice.js";
