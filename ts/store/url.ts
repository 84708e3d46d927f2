/**
 * Which store a URL names, by its file name: a `.zip` or `.ozx` archive, kerchunk references
 * (`.json`), else the root of a hierarchy. The CLI and the explorer open URLs through this.
 * @module
 */
import { FetchStore } from "./fetch.js";
import type { FetchStoreOptions } from "./fetch-types.js";
import { ReferenceStore } from "./reference.js";
import { ZipStore } from "./zip.js";

/** A zip archive's name: zarr-python's ZipStore, a zipped folder, an OME-Zarr single file (.ozx). */
const ZIP_NAME = /\.(zip|ozx)([?#].*)?$/i;
/** A kerchunk reference file's name. */
const REFERENCE_NAME = /\.json([?#].*)?$/i;

/** Whether a path or URL names a zip archive (`.zip`, `.ozx`). */
export function isZipName(name: string): boolean {
  return ZIP_NAME.test(name);
}

/** Whether a path or URL names kerchunk references (`.json`). */
export function isReferenceName(name: string): boolean {
  return REFERENCE_NAME.test(name);
}

/**
 * The store of `url`: a {@link ZipStore} for a `.zip`/`.ozx` archive, a {@link ReferenceStore}
 * for kerchunk references (`.json`), else a {@link FetchStore} of the hierarchy's root. The
 * options apply to the HTTP requests of each; every one counts them in `stats`.
 */
export async function storeFromUrl(
  url: string,
  options: FetchStoreOptions & { signal?: AbortSignal } = {},
): Promise<FetchStore | ZipStore | ReferenceStore> {
  if (isZipName(url)) return ZipStore.fromUrl(url, options);
  if (isReferenceName(url)) return ReferenceStore.fromUrl(url, options);
  return new FetchStore(url, options);
}
