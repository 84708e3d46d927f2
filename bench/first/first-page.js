// What every page of bench/first/first.mjs does around its work: runs it as soon as the page's script
// runs, takes performance.now() (ms since the navigation started) the moment the work's result
// is in hand, then summarises the result for the bench to check (outside the time), and sets
// window.firstResult = {ms, summary, resources} or {error}. `resources`: the page's Resource
// Timing entries (the document's too), for browsers whose bytes the bench cannot see otherwise.

/** The data's URL on the page's server: bench/first/first.mjs mounts its data at /data/ and /fixtures/. */
export const dataUrl = (path) => new URL(path, location.href).href;

/** Runs `work()`, times it, and reports `summarize(result)`. */
export function report(work, summarize) {
  work().then(
    (value) => {
      const ms = performance.now();
      window.firstResult = { ms, summary: summarize(value), resources: resources() };
    },
    (e) => (window.firstResult = { error: String(e?.stack ?? e) }),
  );
}

function resources() {
  return performance
    .getEntriesByType("navigation")
    .concat(performance.getEntriesByType("resource"))
    .map((e) => ({
      url: e.name,
      transferSize: e.transferSize,
      encodedBodySize: e.encodedBodySize,
      responseEnd: e.responseEnd,
    }));
}

/** The tiles' checksums by their coordinates ("0,1,1"), in bench/lib/tiles.js's form. */
export function tileSums(coords, datas, checksum) {
  return Object.fromEntries(coords.map((c, k) => [c.join(","), checksum(datas[k])]));
}
