// The page of bench/icechunk/icechunk.mjs in Chromium (bundled by esbuild, served without cross-origin
// isolation, the repository under /data/icechunk/repo/): zom's IcechunkStore only.
// bench/icechunk/icechunk.mjs calls `window.benchCase(args)` through playwright; `window.benchMark(label)`
// (exposed by it) resets and snapshots the server's request counters around what is timed.
import * as zom from "zom";

const open = async (repo, name) => {
  const store = await zom.IcechunkStore.open(new URL(repo, location.href).href, { branch: "main" });
  return { store, arr: await zom.openArray(store, name) };
};
const close = ({ store, arr }) => {
  arr.free();
  store.free();
};

/** Runs one case: cold and open_first (open + chunk (0, 0)), whole (open + get), tiles (open, chunk (0, 0), then `tiles` at once). */
window.benchCase = async ({ kind, name, repo, tiles }) => {
  try {
    let h;
    let t0;
    if (kind === "tiles") {
      h = await open(repo, name);
      await h.arr.getChunk([0, 0]);
      await window.benchMark("case:start");
      t0 = performance.now();
      if (typeof h.arr.getChunks === "function") {
        for await (const r of h.arr.getChunks(tiles)) if (r.error) throw r.error;
      } else await Promise.all(tiles.map((c) => h.arr.getChunk(c)));
    } else {
      await window.benchMark("case:start");
      t0 = performance.now();
      h = await open(repo, name);
      if (kind === "whole") await h.arr.get();
      else await h.arr.getChunk([0, 0]);
    }
    const ms = performance.now() - t0;
    await window.benchMark("case:end");
    close(h);
    return { ms, isolated: globalThis.crossOriginIsolated === true };
  } catch (e) {
    return { error: String(e?.stack ?? e) };
  }
};
window.benchReady = true;
