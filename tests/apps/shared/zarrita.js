// The zarrita-alias apps' reader: viewer code written against zarrita's API (`root`, `open`,
// `get`, `FetchStore`), given to readSample in place of zom's `openArray`. The apps import
// these from "zarrita", which their bundler or import map sends to "zom/zarrita"; `version`
// and `workerStats` come from "zom" itself, so that the harness can check the pool did the work.

/** zom's `openArray` shape over zarrita's functions. */
export function viaZarrita({ FetchStore, open, get, root }) {
  return {
    FetchStore,
    async openArray(store, path) {
      const arr = await open(root(store).resolve(path), { kind: "array" });
      return { chunks: arr.chunks, dtype: arr.dtype, get: () => get(arr) };
    },
  };
}
