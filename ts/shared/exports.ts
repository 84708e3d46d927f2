/**
 * What both "zom" (the reader) and "zom/validate" (the validator) export: the stores, errors,
 * limits, extension registration, the views part's loader and the types. Store code runs in whichever part is loaded.
 * @module
 */

export type { DirectoryHandle } from "../store/browser-files.js";
export { DirectoryHandleStore, FileStore } from "../store/browser-files.js";
export { FetchStore } from "../store/fetch.js";
export type { FetchStoreCoalesce, FetchStoreListing, FetchStoreOptions, FetchStoreStats } from "../store/fetch-types.js";
export type { IcechunkNamedRef, IcechunkRef, IcechunkSnapshotInfo, IcechunkStoreOptions } from "../store/icechunk.js";
export { IcechunkStore, icechunkAt } from "../store/icechunk.js";
export type { ByteRange, Readable, StoreCallOptions, StoreInput, StoreListing } from "../store/readable.js";
export type { ReferenceStoreOptions, ReferenceTargets } from "../store/reference.js";
export { checkReferences, httpTargets, ReferenceStore } from "../store/reference.js";
export { isReferenceName, isZipName, storeFromUrl } from "../store/url.js";
export type { ZipStoreOptions } from "../store/zip.js";
export { ZipStore } from "../store/zip.js";
export type { ErrorCode, ZomErrorOptions } from "./errors.js";
export { isZomError, ZomError } from "./errors.js";
export { registerExtension, unregisterExtension } from "./extensions.js";
export { getLimits, setLimits, version } from "./limits.js";
export type * from "./types.js";
export type {
  ChannelStyle,
  ChannelWindow,
  DatasetVariable,
  DatasetView,
  Description,
  ImageChannel,
  ImageLevel,
  ImageView,
  LabelInfo,
  Packing,
  PlateView,
  Samples,
  SceneView,
  SeriesView,
  TimeEncoding,
  View,
  ViewAxis,
  ViewLabelColor,
  Views,
  WellView,
} from "./views.js";
export { loadViews } from "./views.js";
