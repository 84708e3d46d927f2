// The page of bench/load/load.mjs: runs the case named by ?case= and sets window.loadResult (times
// in ms). Each case imports what it measures, so that esbuild's split chunks load only that.
const DATA = new URL("/data/sample/", location.href).href;
const ARRAY = "image/gradient_circles";

/** Opens and reads ARRAY whole twice with zom: {first, second}. */
async function zomReads(zom) {
  const store = new zom.FetchStore(DATA);
  const times = [];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const arr = await zom.openArray(store, ARRAY);
    await arr.get();
    times.push(performance.now() - t0);
  }
  // Chunks decode on this thread until the workers are up, so the workers may have decoded
  // only some of them by then; they must have started.
  const stats = zom.workerStats();
  if (stats.failed || stats.workers === 0) throw new Error(`the workers did not start: ${JSON.stringify(stats)}`);
  return { first: times[0], second: times[1] };
}

const cases = {
  /** `await init()` of "zom", whole. */
  async "inline-init"() {
    const zom = await import("zom");
    const t0 = performance.now();
    await zom.init();
    const total = performance.now() - t0;
    // Its parts, after it (the JS is warm by then): the carried text read into bytes
    // (fromCarried, what init() and a first call without it both do), and a compile of other
    // bytes (V8 may reuse the module it compiled from the same bytes).
    const { WASM, WASM_BYTES } = await import("../../pkg/zom_wasm_inline.js");
    const { fromCarried } = await import("../../pkg/parts/carried.js");
    const t1 = performance.now();
    const bytes = fromCarried(WASM, WASM_BYTES);
    const t2 = performance.now();
    const copy = new Uint8Array(bytes.length + 4);
    copy.set(bytes);
    copy.set([0, 2, 1, 0x78], bytes.length); // an empty custom section "x"
    await WebAssembly.compile(copy);
    const t3 = performance.now();
    return { total, decode: t2 - t1, compile: t3 - t2 };
  },
  /**
   * WebAssembly.compile of zom's module (the .wasm fetched first, not timed) and its
   * instantiation by "zom/manual" (`init` with the compiled module: wasm-bindgen's initSync,
   * `new WebAssembly.Instance` and the start function), apart. The bytes carry an empty custom
   * section named for this run, so that V8 cannot hand back a module compiled from the same
   * bytes by an earlier tab of the same renderer process.
   */
  async "compile-instantiate"() {
    const zom = await import("zom/manual");
    const bytes = new Uint8Array(await (await fetch(new URL("/zom_wasm_bg.wasm", location.href))).arrayBuffer());
    const name = new TextEncoder().encode(`run${Math.random().toString(36).slice(2, 10).padEnd(8, "0")}`);
    const unique = new Uint8Array(bytes.length + 3 + name.length);
    unique.set(bytes);
    unique.set([0, 1 + name.length, name.length, ...name], bytes.length);
    const t0 = performance.now();
    const module = await WebAssembly.compile(unique);
    const t1 = performance.now();
    await zom.init({ wasm: module });
    const t2 = performance.now();
    zom.version();
    return { compile: t1 - t0, instantiate: t2 - t1 };
  },
  /** The first call of "zom" with no init: it loads everything synchronously. */
  async "inline-sync"() {
    const zom = await import("zom");
    const t0 = performance.now();
    zom.version();
    return { total: performance.now() - t0 };
  },
  /** "zom/manual" given the .wasm's URL. */
  async "manual-url"() {
    const zom = await import("zom/manual");
    const t0 = performance.now();
    await zom.init({ wasm: new URL("/zom_wasm_bg.wasm", location.href) });
    zom.version();
    return { total: performance.now() - t0 };
  },
  async "pool-blob"() {
    const zom = await import("zom");
    await zom.init();
    return zomReads(zom);
  },
  async "pool-url"() {
    const zom = await import("zom");
    await zom.init({ worker: new URL("/zom_worker.js", location.href) });
    return zomReads(zom);
  },
  async zarrita() {
    const zarr = await import("zarrita");
    const store = new zarr.FetchStore(DATA);
    const times = [];
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      const arr = await zarr.open.v3(zarr.root(store).resolve(ARRAY), { kind: "array" });
      await zarr.get(arr);
      times.push(performance.now() - t0);
    }
    return { first: times[0], second: times[1] };
  },
};

const name = new URLSearchParams(location.search).get("case");
cases[name]().then(
  (r) => (window.loadResult = r),
  (e) => (window.loadResult = { error: String(e?.stack ?? e) }),
);
