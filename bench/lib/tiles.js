// What bench/viewer/viewer.mjs runs in Node, in its soak child processes (bench/viewer/viewer-soak.mjs) and in
// Chromium (bench/viewer/viewer-page.js, bundled by esbuild): how each library reads tiles, the soak's
// rounds, tile checksums and time to first tile of an OME-Zarr pyramid. No Node imports here:
// the same code runs in the page.

/** A seeded PRNG (mulberry32): numbers in [0, 1). The soak's rounds are the same for every library. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A tile's checksum, cheap enough to check every tile of a soak: the sum of its values and their
 * sum weighted by position (mod 251), which a misplaced or wrong block changes. Exact integers
 * (a 512² uint16 tile: < 2^53).
 */
export function checksum(data) {
  let sum = 0;
  let weighted = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    sum += v;
    weighted += v * (i % 251);
  }
  return `${data.length}:${sum}:${weighted}`;
}

/** The 4×4 block of chunk coordinates from (i0, j0). */
export function block(i0, j0, n = 4) {
  const out = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out.push([i0 + i, j0 + j]);
  return out;
}

/**
 * The soak's rounds: each a 4×4 block of tiles at a random place over a `grid` × `grid` chunk
 * grid (a pan), and with `cancel` half of them (8, chosen at random) cancelled after a random
 * 0–15 ms. Deterministic for a seed.
 * @returns {{coords: number[], cancelAfter: number | null}[][]}
 */
export function soakRounds({ rounds, grid = 8, cancel, seed = 1 }) {
  const rand = prng(seed);
  const plan = [];
  for (let r = 0; r < rounds; r++) {
    const i0 = Math.floor(rand() * (grid - 3));
    const j0 = Math.floor(rand() * (grid - 3));
    const tiles = block(i0, j0).map((coords) => ({ coords, cancelAfter: null }));
    if (cancel) {
      const order = tiles.map((_, k) => k);
      for (let k = order.length - 1; k > 0; k--) {
        const m = Math.floor(rand() * (k + 1));
        [order[k], order[m]] = [order[m], order[k]];
      }
      for (const k of order.slice(0, tiles.length / 2)) tiles[k].cancelAfter = Math.floor(rand() * 16);
    }
    plan.push(tiles);
  }
  return plan;
}

/**
 * How zom reads tiles: `sequential` (each awaited before the next), `atOnce` (together: the batch
 * call `getChunks` when the array has it, else `getChunk` × n with Promise.allSettled), both
 * giving settled results in the order asked. `open` makes a fresh FetchStore.
 */
export function zomReader(zom, { workers, store = {} } = {}) {
  const openOptions = workers === undefined ? {} : { workers };
  return {
    name: "zom",
    open: (url) => zom.openArray(new zom.FetchStore(url, store), "", openOptions),
    batch: (arr) => typeof arr.getChunks === "function",
    async sequential(arr, tiles) {
      const out = [];
      for (const t of tiles) out.push(await settle(arr.getChunk(t.coords, t.signal ? { signal: t.signal } : {})));
      return out;
    },
    async atOnce(arr, tiles) {
      if (typeof arr.getChunks === "function") {
        const out = new Array(tiles.length);
        const requests = tiles.map((t) => (t.signal ? { coords: t.coords, signal: t.signal } : t.coords));
        for await (const r of arr.getChunks(requests)) {
          out[r.index] = r.error ? { status: "rejected", reason: r.error } : { status: "fulfilled", value: r.chunk };
        }
        return out;
      }
      return Promise.allSettled(tiles.map((t) => arr.getChunk(t.coords, t.signal ? { signal: t.signal } : {})));
    },
    /** A cancelled tile's rejection: ZomError "Aborted". */
    isAbort: (e) => e?.code === "Aborted",
    close: (arr) => arr.free(),
  };
}

/** How zarrita.js reads tiles: `arr.getChunk(coords, { signal })`, one by one or Promise.allSettled. */
export function zarritaReader(zarr) {
  return {
    name: "zarrita",
    open: (url) => zarr.open(new zarr.FetchStore(url), { kind: "array" }),
    batch: () => false,
    async sequential(arr, tiles) {
      const out = [];
      for (const t of tiles) out.push(await settle(arr.getChunk(t.coords, t.signal ? { signal: t.signal } : undefined)));
      return out;
    },
    atOnce: (arr, tiles) => Promise.allSettled(tiles.map((t) => arr.getChunk(t.coords, t.signal ? { signal: t.signal } : undefined))),
    /** A cancelled tile's rejection: fetch's AbortError (a DOMException). */
    isAbort: (e) => e?.name === "AbortError",
    close: () => {},
  };
}

function settle(promise) {
  return promise.then(
    (value) => ({ status: "fulfilled", value }),
    (reason) => ({ status: "rejected", reason }),
  );
}

/**
 * The panning soak: `plan` (soakRounds) read round by round, each round's tiles at once, the
 * cancelled ones aborted by their own AbortController after their delay. Every tile that
 * arrives is checked against `reference` (coords "i,j" → checksum); every rejection must be an
 * abort (reader.isAbort) of a cancelled tile. `sample()` is called after each round (memory).
 */
export async function runSoak(reader, arr, plan, reference, sample = () => {}) {
  const counts = {
    tiles: 0,
    arrived: 0,
    cancelled: 0,
    cancelled_arrived: 0,
    cancelled_aborted: 0,
    wrong_values: 0,
    wrong_errors: 0,
    failed_uncancelled: 0,
  };
  const problems = [];
  const t0 = performance.now();
  for (const round of plan) {
    const timers = [];
    const tiles = round.map((t) => {
      if (t.cancelAfter === null) return { coords: t.coords };
      const ac = new AbortController();
      timers.push(setTimeout(() => ac.abort(), t.cancelAfter));
      return { coords: t.coords, signal: ac.signal, cancelled: true };
    });
    const results = await reader.atOnce(arr, tiles);
    for (const id of timers) clearTimeout(id);
    results.forEach((r, k) => {
      const tile = tiles[k];
      counts.tiles += 1;
      if (tile.cancelled) counts.cancelled += 1;
      if (r.status === "fulfilled") {
        counts.arrived += 1;
        if (tile.cancelled) counts.cancelled_arrived += 1;
        const want = reference[tile.coords.join(",")];
        const got = checksum(r.value.data);
        if (got !== want) {
          counts.wrong_values += 1;
          if (problems.length < 5) problems.push(`tile ${tile.coords}: checksum ${got}, want ${want}`);
        }
      } else if (!tile.cancelled) {
        counts.failed_uncancelled += 1;
        if (problems.length < 5)
          problems.push(`tile ${tile.coords} (not cancelled) failed: ${r.reason?.name} ${r.reason?.code ?? ""} ${r.reason?.message}`);
      } else if (reader.isAbort(r.reason)) {
        counts.cancelled_aborted += 1;
      } else {
        counts.wrong_errors += 1;
        if (problems.length < 5)
          problems.push(`tile ${tile.coords} (cancelled) failed with ${r.reason?.name} ${r.reason?.code ?? ""}: ${r.reason?.message}`);
      }
    });
    sample();
  }
  return { ms: performance.now() - t0, rounds: plan.length, ...counts, problems };
}

/** The level of a multiscales list whose y × x size is nearest 1024² (shapes given). */
export function pickLevel(shapes) {
  let best = 0;
  for (let k = 1; k < shapes.length; k++) {
    const d = (s) => Math.abs(Math.log((s.at(-1) * s.at(-2)) / 1024 ** 2));
    if (d(shapes[k]) < d(shapes[best])) best = k;
  }
  return best;
}

/** The visible tiles at a level: the 2×2 block of chunks at its centre (leading dimensions 0). */
export function visibleTiles(shape, chunks) {
  const ny = Math.ceil(shape.at(-2) / chunks.at(-2));
  const nx = Math.ceil(shape.at(-1) / chunks.at(-1));
  const i0 = Math.max(0, Math.floor(ny / 2) - 1);
  const j0 = Math.max(0, Math.floor(nx / 2) - 1);
  const lead = shape.slice(0, -2).map(() => 0);
  return block(i0, j0, 2).map(([i, j]) => [...lead, Math.min(i, ny - 1), Math.min(j, nx - 1)]);
}

/**
 * `fetch` with `cache: "no-store"`: in Chromium, requests for one URL wait for each other at the
 * HTTP cache (its per-URL lock), ranges of one shard included; a request that bypasses the cache
 * does not.
 */
const noStoreFetch = (input, init) => fetch(input, { ...init, cache: "no-store" });

/**
 * Time to first tile with zom: open the image group, read its multiscales, open every level (at
 * once: their shapes choose the level), read the visible tiles at once. Returns what it read.
 * `noStore`: the FetchStore's requests bypass the browser's HTTP cache.
 */
export async function firstTileZom(zom, url, { noStore = false } = {}) {
  const group = await zom.openGroup(new zom.FetchStore(url, noStore ? { fetch: noStoreFetch } : {}));
  const datasets = group.attributes.ome.multiscales[0].datasets;
  const levels = await Promise.all(datasets.map((d) => group.open(d.path, { kind: "array" })));
  const k = pickLevel(levels.map((a) => a.shape));
  const arr = levels[k];
  const coords = visibleTiles(arr.shape, arr.chunks);
  const reader = zomReader(zom);
  const tiles = await reader.atOnce(
    arr,
    coords.map((c) => ({ coords: c })),
  );
  for (const a of levels) a.free();
  return finishTiles(datasets[k].path, coords, tiles, reader.batch(arr));
}

/**
 * The same with zarrita.js: `zarr.open` (its defaults: a new store is probed for v2 before v3),
 * or `tuned`: the store wrapped by `withMaybeConsolidatedMetadata` and `zarr.open.v3`, as a
 * viewer that knows it reads OME-Zarr 0.5 would write it. `noStore` as firstTileZom's.
 */
export async function firstTileZarrita(zarr, url, { tuned = false, noStore = false } = {}) {
  let store = new zarr.FetchStore(url, noStore ? { fetch: (request) => fetch(request, { cache: "no-store" }) } : {});
  if (tuned) store = await zarr.withMaybeConsolidatedMetadata(store, { format: "v3" });
  const open = tuned ? zarr.open.v3 : zarr.open;
  const group = await open(store, { kind: "group" });
  const datasets = group.attrs.ome.multiscales[0].datasets;
  const levels = await Promise.all(datasets.map((d) => open(group.resolve(d.path), { kind: "array" })));
  const k = pickLevel(levels.map((a) => a.shape));
  const arr = levels[k];
  const coords = visibleTiles(arr.shape, arr.chunks);
  const tiles = await zarritaReader(zarr).atOnce(
    arr,
    coords.map((c) => ({ coords: c })),
  );
  return finishTiles(datasets[k].path, coords, tiles, false);
}

function finishTiles(path, coords, tiles, batch) {
  const failed = tiles.find((t) => t.status === "rejected");
  if (failed) throw failed.reason;
  return { level: path, coords, checksums: tiles.map((t) => checksum(t.value.data)), batch };
}
