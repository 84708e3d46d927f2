// The page of bench/viewer/viewer.mjs in Chromium (bundled by esbuild, served cross-origin isolated
// from the same origin as the data under /data/). bench/viewer/viewer.mjs calls
// `window.viewerCase(args)` through playwright and gets its result; `window.viewerMark(label)`
// (exposed by bench/viewer/viewer.mjs) resets or snapshots the server's request counters around what
// is timed. Each case imports only the library it measures (esbuild's split chunks).
import { firstTileZarrita, firstTileZom, runSoak, soakRounds, zarritaReader, zomReader } from "../lib/tiles.js";

const data = (path) => new URL(`/data/${path}`, location.href).href;

const cases = {
  /**
   * Time to first tile of the pyramid at `path`, twice in this tab: "cold" (the library's first
   * use: zom's WebAssembly loads, its workers start; zarrita's codec loads) and "warm" (a new
   * store, the library loaded). `lib`: zom, zarrita, zarrita-tuned; `noStore`: requests bypass
   * the HTTP cache (see viewer-tiles.js noStoreFetch).
   */
  async ttft({ lib, path, noStore }) {
    const run =
      lib === "zom"
        ? await import("zom").then((zom) => () => firstTileZom(zom, data(path), { noStore }))
        : await import("zarrita").then((zarr) => () => firstTileZarrita(zarr, data(path), { tuned: lib === "zarrita-tuned", noStore }));
    const out = {};
    for (const pass of ["cold", "warm"]) {
      await window.viewerMark(`${pass}:start`);
      const t0 = performance.now();
      const r = await run();
      out[pass] = { ms: performance.now() - t0, ...r };
      await window.viewerMark(`${pass}:end`);
    }
    return out;
  },
  /**
   * A whole 64-chunk array, zom with FetchStore `concurrency` (null: unlimited) and get's own
   * limit lifted (`concurrency: 1e9`, where get still has it), or zarrita; after a warm-up read
   * of another array (the module loaded, the workers started).
   */
  async concurrency({ lib, path, concurrency, warmPath }) {
    let read;
    if (lib === "zom") {
      const zom = await import("zom");
      const store = { concurrency: concurrency ?? Infinity };
      read = async (p, s) => {
        const arr = await zom.openArray(new zom.FetchStore(data(p), s));
        const r = await arr.get(undefined, { concurrency: 1e9 });
        arr.free();
        return r;
      };
      await read(warmPath, {});
      await window.viewerMark("read:start");
      const t0 = performance.now();
      const r = await read(path, store);
      const ms = performance.now() - t0;
      await window.viewerMark("read:end");
      return { ms, bytes: r.data.byteLength };
    }
    const zarr = await import("zarrita");
    read = async (p) => zarr.get(await zarr.open(new zarr.FetchStore(data(p)), { kind: "array" }));
    await read(warmPath);
    await window.viewerMark("read:start");
    const t0 = performance.now();
    const r = await read(path);
    const ms = performance.now() - t0;
    await window.viewerMark("read:end");
    return { ms, bytes: r.data.byteLength };
  },
  /** The panning soak (viewer-tiles.js runSoak), then the page's memory if it can be measured. */
  async soak({ lib, workers, path, rounds, cancel, seed, reference }) {
    const reader =
      lib === "zom" ? zomReader(await import("zom"), { workers: workers ?? undefined }) : zarritaReader(await import("zarrita"));
    const arr = await reader.open(data(path));
    const result = await runSoak(reader, arr, soakRounds({ rounds, cancel, seed }), reference);
    result.batch = reader.batch(arr);
    let memory = null;
    if (globalThis.crossOriginIsolated && performance.measureUserAgentSpecificMemory) {
      try {
        const m = await Promise.race([
          performance.measureUserAgentSpecificMemory(),
          new Promise((_, no) => setTimeout(() => no(new Error("timed out")), 30_000)),
        ]);
        memory = m.bytes;
      } catch (e) {
        memory = `failed: ${e.message}`;
      }
    }
    reader.close(arr);
    return { ...result, measured_memory_bytes: memory, cross_origin_isolated: globalThis.crossOriginIsolated };
  },
};

window.viewerCase = async (args) => {
  try {
    return await cases[args.case](args);
  } catch (e) {
    return { error: String(e?.stack ?? e) };
  }
};
window.viewerReady = true;
