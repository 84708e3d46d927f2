// The page of tests/browser/pool.test.mjs: loads the built package from /pkg/index.js (no
// bundler: the pool's workers start from the worker code it carries, through a blob: URL; with
// ?worker=URL from that script, through init({ worker })) and offers window.zomPool, whose
// reads come back as plain data Playwright carries to Node unchanged.
import { describeError as describe, plain } from "./plain.mjs";

const status = document.getElementById("status");

try {
  const zom = await import("/pkg/index.js");
  const { poolOf } = await import("/pkg/pool/pool.js");
  const worker = new URLSearchParams(location.search).get("worker");
  if (worker !== null) await zom.init({ worker: new URL(worker, location.href) });
  window.zomPool = {
    /** Reads every array `paths` of the hierarchy at `url` whole with `workers`, concurrently. */
    async readAll(url, paths, workers) {
      const store = new zom.FetchStore(url);
      return Promise.all(
        paths.map(async (path) => {
          try {
            const arr = await zom.openArray(store, path, { workers });
            const { data, shape } = await arr.get();
            const shared = ArrayBuffer.isView(data) && typeof SharedArrayBuffer === "function" && data.buffer instanceof SharedArrayBuffer;
            return {
              path,
              shape,
              shared,
              dtype: plain(arr.dtype),
              data: ArrayBuffer.isView(data) ? Array.from(data, plain) : data.map(plain),
            };
          } catch (e) {
            return { path, error: describe(e) };
          }
        }),
      );
    },
    /**
     * Reads every array `paths` of the hierarchy at `url` whole through zom/zarrita, as a
     * viewer aliased onto it would (zarrita's open, get and FetchStore).
     */
    async readAllZarrita(url, paths) {
      const zarr = await import("/pkg/zarrita/index.js");
      const store = new zarr.FetchStore(url);
      return Promise.all(
        paths.map(async (path) => {
          try {
            const arr = await zarr.open(zarr.root(store).resolve(path), { kind: "array" });
            const { data, shape, stride } = await zarr.get(arr);
            return {
              path,
              shape,
              stride,
              dtype: arr.dtype,
              plainBuffer: data.buffer instanceof ArrayBuffer,
              data: Array.from(data, plain),
            };
          } catch (e) {
            return { path, error: describe(e) };
          }
        }),
      );
    },
    /**
     * Opens the Icechunk repository at `url` at `ref` ({branch}, {tag} or {snapshot}), its
     * virtual chunks recorded under `virtualPrefix` read from `virtualBase`, and reads every
     * array `paths` whole with `workers`: the snapshot id and each array's values.
     */
    async readIcechunk(url, ref, virtualPrefix, virtualBase, paths, workers) {
      const virtualChunks = (u) => (u.startsWith(virtualPrefix) ? virtualBase + u.slice(virtualPrefix.length) : null);
      const store = await zom.IcechunkStore.open(url, { ...ref, virtualChunks });
      try {
        const arrays = await Promise.all(
          paths.map(async (path) => {
            try {
              const arr = await zom.openArray(store, path, { workers });
              const { data, shape } = await arr.get();
              return { path, shape, dtype: plain(arr.dtype), data: Array.from(data, plain) };
            } catch (e) {
              return { path, error: describe(e) };
            }
          }),
        );
        return { snapshot: store.snapshot, specVersion: store.specVersion, arrays };
      } finally {
        store.free();
      }
    },
    /** The pool of `workers`: whether it failed and how many chunks its workers decoded. */
    pool(workers) {
      const pool = poolOf(workers);
      return { failed: pool.failed, decoded: pool.decoded };
    },
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
  };
  status.textContent = `zom ${zom.version()} loaded`;
} catch (e) {
  window.zomPoolFatal = String(e?.stack ?? e);
  status.textContent = `failed: ${e}`;
}
