// What every app does with zom: opens the sample hierarchy over HTTP and reads five arrays
// whole, then the arrays whose decoders are codec parts loaded on first use (PART_ARRAYS),
// timing the sample's reads with performance.now(), and notes the decode pool's counters
// (workerStats) before and after each read. The zom functions come in as arguments: each
// app's own entry imports them from "zom" by name, so bundlers tree-shake as they would in a
// real app. The result is plain JSON (tests/browser/plain.mjs) that apps.test.mjs compares
// with zarr-python's values.
import { plain } from "../../browser/plain.mjs";

/** The arrays read, in order: gradient_circles (uint16 256×256: 4 shards, 64 inner chunks), read again once the workers are up, must be decoded by the pool's workers. */
export const ARRAYS = [
  "image/gradient_circles",
  "image/gradient_circles_blosc",
  "measurements/temperature",
  "measurements/labels",
  "measurements/2024/run1/records",
];

/**
 * Arrays of tests/fixtures/current/v3 (beside the sample) whose codecs are codec parts (lzma,
 * pcodec, zfpy, inside shards): the bundle must load each part's own file on first use, with no
 * configuration. Their results are named "current/v3/<name>".
 */
export const PART_ARRAYS = ["lzma_sharded", "pcodec_sharded_u16", "zfpy_sharded_f32"];

/** A thrown value as text: its stack when it has one (or its message), with zom's code. */
export function describe(e) {
  const text = String(e?.stack ?? e?.message ?? e);
  return e?.code ? `${e.name ?? "Error"} (${e.code}): ${text}` : text;
}

/** The pool's counters, or the error calling workerStats() gave (as {error}). */
function stats(workerStats) {
  try {
    return plain(workerStats());
  } catch (e) {
    return { error: describe(e) };
  }
}

/**
 * Reads {@link ARRAYS} from the hierarchy at `url`.
 * @param {{FetchStore: Function, openArray: Function, version: Function, workerStats: Function}} zom
 * @param {string} url the hierarchy's URL (ending in "/")
 * @returns {Promise<{version: string, ms: number, reads: object[], pool: object}>}
 */
export async function readSample(zom, url) {
  const { FetchStore, openArray, version, workerStats } = zom;
  const store = new FetchStore(url);
  const reads = [];
  let ms = 0;
  for (const path of ARRAYS) {
    const before = stats(workerStats);
    const t0 = performance.now();
    try {
      const arr = await openArray(store, path);
      const { data, shape } = await arr.get();
      ms += performance.now() - t0;
      reads.push({
        path,
        shape,
        chunks: plain(arr.chunks),
        dtype: plain(arr.dtype),
        data: plain(data),
        pool: { before, after: stats(workerStats) },
      });
    } catch (e) {
      ms += performance.now() - t0;
      reads.push({ path, error: describe(e), pool: { before, after: stats(workerStats) } });
    }
  }
  const current = new FetchStore(new URL("../current/v3/", url).href);
  for (const name of PART_ARRAYS) {
    const path = `current/v3/${name}`;
    const before = stats(workerStats);
    try {
      const arr = await openArray(current, name);
      const { data, shape } = await arr.get();
      reads.push({
        path,
        shape,
        chunks: plain(arr.chunks),
        dtype: plain(arr.dtype),
        data: plain(data),
        pool: { before, after: stats(workerStats) },
      });
    } catch (e) {
      reads.push({ path, error: describe(e), pool: { before, after: stats(workerStats) } });
    }
  }
  // Chunks decode on the calling thread until the workers are up (a cold page's first read
  // does not wait for them): once they are (at most 20 s), gradient_circles is read again, and
  // its decodes are the pool's.
  for (const end = Date.now() + 20_000; (stats(workerStats).workers ?? 1) === 0 && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 20));
  const before = stats(workerStats);
  let poolRead;
  try {
    const arr = await openArray(store, ARRAYS[0]);
    const { shape } = await arr.get();
    poolRead = { path: ARRAYS[0], shape, chunks: plain(arr.chunks), pool: { before, after: stats(workerStats) } };
  } catch (e) {
    poolRead = { path: ARRAYS[0], error: describe(e), pool: { before, after: stats(workerStats) } };
  }
  return { version: version(), ms, reads, poolRead, pool: stats(workerStats) };
}
