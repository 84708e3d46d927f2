// One cold run of bench/icechunk/icechunk.mjs's part "cold", in a process of its own: import the library
// (zom, or @earthmover/icechunk's WebAssembly build with zarrita), open the Icechunk repository
// at the URL given, open the array and read its chunk (0, 0); prints one JSON line: the time
// from before the import to the chunk's values (ms) and the import's share (import_ms). The
// parent counts the requests at its server.
//
//   node bench/icechunk/icechunk-cold.mjs '{"lib": "zom" | "icechunk-js", "url": "http://…/repo/", "name": "chunked"}'
const { lib, url, name } = JSON.parse(process.argv[2]);
const t0 = performance.now();
let read;
if (lib === "zom") {
  const zom = await import("zom");
  read = async () => {
    const store = await zom.IcechunkStore.open(url, { branch: "main" });
    const arr = await zom.openArray(store, name);
    const chunk = await arr.getChunk([0, 0]);
    arr.free();
    store.free();
    zom.closeWorkers();
    return chunk;
  };
} else if (lib === "icechunk-js") {
  process.env.NAPI_RS_FORCE_WASI = "error";
  const [{ Repository }, { createFetchStorage }, zarr] = await Promise.all([
    import("@earthmover/icechunk"),
    import("@earthmover/icechunk/fetch-storage"),
    import("zarrita"),
  ]);
  read = async () => {
    const repo = await Repository.open(createFetchStorage(url));
    const session = await repo.readonlySession({ branch: "main" });
    const arr = await zarr.open(zarr.root(session.store).resolve(name), { kind: "array" });
    return arr.getChunk([0, 0]);
  };
} else throw new Error(`unknown library ${lib}`);
const t1 = performance.now();
const chunk = await read();
const ms = performance.now() - t0;
console.log(JSON.stringify({ lib, ms, import_ms: t1 - t0, elements: chunk.data.length }));
// icechunk-js's WASI threads keep the event loop alive.
process.exit(0);
